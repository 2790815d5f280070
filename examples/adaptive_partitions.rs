//! One client, two DynamoDB tables, adaptive retry mode with one rate limiter
//! per table: the throttled table is slowed down to what it accepts, the
//! other keeps sending at full speed.
//!
//! Two request loops (one per table) run side by side in virtual time (a
//! `ManualClock` and a small event loop driving the strategies), so the run
//! takes milliseconds and prints the same numbers every time:
//! `cargo run --example adaptive_partitions`.

use std::cell::Cell;
use std::time::Duration;

use rebound::classify::HttpErrorResponse;
use rebound::{
    AdaptiveRetryStrategy, RetryStrategy, RetryToken, SendPermit, StandardRetryStrategy,
    backoff::SeededRandom, time::ManualClock,
};

/// The service side of one table: it accepts `rate` requests per second
/// (with a burst of the same size) and throttles the rest.
struct Table {
    rate: f64,
    tokens: Cell<f64>,
    last: Cell<f64>,
}

impl Table {
    fn new(rate: f64) -> Self {
        Self {
            rate,
            tokens: Cell::new(rate),
            last: Cell::new(0.0),
        }
    }

    /// Handles one request arriving at `now` (seconds).
    fn handle(&self, now: f64) -> Result<(), HttpErrorResponse> {
        let earned = (now - self.last.get()) * self.rate;
        self.tokens.set((self.tokens.get() + earned).min(self.rate));
        self.last.set(now);
        if self.tokens.get() >= 1.0 {
            self.tokens.set(self.tokens.get() - 1.0);
            Ok(())
        } else {
            Err(HttpErrorResponse::new(400).with_code("ProvisionedThroughputExceededException"))
        }
    }
}

/// One application loop sending to one table, as fast as it is allowed.
struct Flow<S> {
    name: &'static str,
    table: Table,
    strategy: S,
    /// When this loop acts next.
    next_at: Duration,
    /// The token of the attempt to send at `next_at`; `None`: start a request.
    pending: Option<RetryToken>,
    succeeded: u32,
    throttled: u32,
    failed: u32,
}

/// Each attempt takes this long (the round trip).
const LATENCY: Duration = Duration::from_millis(4);
/// How long the simulation runs.
const RUN: Duration = Duration::from_secs(20);

impl<S: RetryStrategy> Flow<S> {
    fn step(&mut self, clock: &ManualClock) {
        let Some(mut token) = self.pending.take() else {
            // A new request.
            match self.strategy.acquire_initial_token() {
                Ok(token) => {
                    self.next_at += token.delay();
                    self.pending = Some(token);
                }
                Err(_) => self.failed += 1,
            }
            return;
        };
        // About to send: the rate limiter may ask to wait for a send token.
        match self.strategy.acquire_send_permit(&mut token) {
            Ok(SendPermit::Granted) => {}
            Ok(SendPermit::Wait(wait)) => {
                self.next_at += wait;
                self.pending = Some(token);
                return;
            }
            Err(_) => {
                self.failed += 1;
                return;
            }
        }
        clock.advance(LATENCY);
        self.next_at += LATENCY;
        match self.table.handle(clock.elapsed().as_secs_f64()) {
            Ok(()) => {
                self.strategy.record_success(token);
                self.succeeded += 1;
            }
            Err(throttle) => {
                self.throttled += 1;
                match self.strategy.refresh_retry_token(token, &throttle) {
                    Ok(retry) => {
                        self.next_at += retry.delay();
                        self.pending = Some(retry);
                    }
                    Err(_) => self.failed += 1,
                }
            }
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let clock = ManualClock::new();
    let standard = StandardRetryStrategy::builder()
        .random(SeededRandom::new(7))
        .build();
    let base = AdaptiveRetryStrategy::builder(standard)
        .clock(clock.clone())
        .build();
    // One client: one quota and one rate limiter per table.
    let partitions = base.partitions::<&str>();

    let mut flows = [("orders", 20.0), ("users", f64::INFINITY)].map(|(name, rate)| Flow {
        name,
        table: Table::new(rate),
        strategy: partitions.get(&name),
        next_at: Duration::ZERO,
        pending: None,
        succeeded: 0,
        throttled: 0,
        failed: 0,
    });

    // The event loop: the flow that acts first goes next.
    while let Some(flow) = flows
        .iter_mut()
        .filter(|f| f.next_at < RUN)
        .min_by_key(|f| f.next_at)
    {
        clock.advance(flow.next_at.saturating_sub(clock.elapsed()));
        flow.step(&clock);
    }

    println!(
        "{:<8} {:>14} {:>10} {:>7} {:>12}",
        "table", "service limit", "succeeded", "failed", "throttled"
    );
    for flow in &flows {
        let limit = if flow.table.rate.is_finite() {
            format!("{}/s", flow.table.rate)
        } else {
            "none".into()
        };
        println!(
            "{:<8} {:>14} {:>8.1}/s {:>7} {:>12}",
            flow.name,
            limit,
            f64::from(flow.succeeded) / RUN.as_secs_f64(),
            flow.failed,
            flow.throttled,
        );
    }
    for flow in &flows {
        let limiter = flow.strategy.rate_limiter();
        let state = match limiter.send_rate() {
            Some(rate) => format!("on, {rate:.1} sends/s"),
            None => "off (never throttled)".to_owned(),
        };
        println!("{} rate limiter: {state}", flow.name);
    }
    Ok(())
}
