//! [`Sharers`]: every process's fleet rate limiter task and the store they
//! talk to, as [`Background`] work on the run's event queue.
//!
//! Mirrors `Sharer` in `redis/src/limiter.rs` (`run` and `share`), with the
//! real [`member_rate`] and the real [`RateControl`] of each process's
//! `AdaptiveRetryStrategy`. A process's task loops:
//!
//! 1. read the limiter ([`RateControl::reading`]) into the process's
//!    [`AdmittedMeter`] (the rate it was admitted at over its last four
//!    reads, and the rate it sent at, [`AdmittedMeter::sent`]);
//! 2. when a refresh period has passed since the last exchange, or the
//!    limiter's throttle count rose since the last one reported, exchange
//!    with the store: the demand is [`Demand::of`] the rate sent and the
//!    rate held then, and `limiter(admitted rate, new throttles, ttl,
//!    window = 2 periods, demand)` reaches the [`LimiterStore`] half a
//!    round trip later; when its reply is back (another half), the
//!    throttles are reported and the limiter is held at
//!    `member_rate(FleetLimiter::SHAPE, reply, demand)` through
//!    [`RateControl::hold`] (only when it changed);
//! 3. sleep a quarter period (or what is left of the period), and again.
//!
//! The periods are whole nanoseconds, as the task's `Duration`s. Processes
//! start at seeded times within the first period, each with an exchange;
//! the store never fails (no fallback to local limits), no task stops (so
//! none leaves the limiter) and no membership lapses, the lease TTL being
//! ten periods by default.

use std::sync::Arc;

use rebound_redis::{AdmittedMeter, Demand, FleetLimiter, FleetRateState, member_rate};
use rebound_runtime::rate_limiter::RateControl;

use super::store::LimiterStore;
use crate::driver::{Background, Timers};

/// The limiter settings that shape the model, with `FleetQuotaConfig`'s
/// defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharerSettings {
    /// Seconds between two exchanges (`rate_period`: 1 s). The window of one
    /// cut is two of them.
    pub refresh_period: f64,
    /// Seconds a membership lives without a call (the lease TTL: 10 s).
    pub lease_ttl: f64,
    /// Seconds of one call to the store, there and back (1 ms); the store
    /// runs the call half-way.
    pub round_trip: f64,
}

impl Default for SharerSettings {
    fn default() -> Self {
        Self {
            refresh_period: 1.0,
            lease_ttl: 10.0,
            round_trip: 0.001,
        }
    }
}

impl SharerSettings {
    /// The period in whole nanoseconds, as a `Duration` holds it.
    fn period_ns(&self) -> u64 {
        nanos(self.refresh_period)
    }

    /// The lease TTL in milliseconds, as the call sends it.
    fn ttl_ms(&self) -> u64 {
        nanos(self.lease_ttl) / 1_000_000
    }

    /// The window of one cut in milliseconds (two periods), as the call
    /// sends it (`Duration::as_millis`).
    fn window_ms(&self) -> u64 {
        self.period_ns() * 2 / 1_000_000
    }

    /// How often the task reads its limiter: a quarter period, at least
    /// 1 ms.
    fn tick_ns(&self) -> u64 {
        (self.period_ns() / 4).max(1_000_000)
    }
}

/// `secs` as whole nanoseconds (0 for NaN and negatives).
fn nanos(secs: f64) -> u64 {
    let n = (secs * 1e9).round();
    if n.is_nan() || n <= 0.0 { 0 } else { n as u64 }
}

/// `rate` requests per second in whole milli-requests per second, within
/// what the store takes (`milli` in `redis/src/limiter.rs`).
fn milli(rate: f64) -> u32 {
    let milli = (rate * 1000.0).round();
    if milli.is_nan() || milli <= 0.0 {
        0
    } else {
        milli.min(1.0e9) as u32
    }
}

/// One exchange under way.
#[derive(Debug, Clone, Copy)]
struct Call {
    /// The limiter's throttle count when it was read.
    throttles: u64,
    rate_milli: u32,
    new_throttles: u32,
    /// What the process would send, from the meter and the rate held when
    /// the call was made.
    demand: Demand,
    /// The store's reply, once it ran the call.
    reply: Option<FleetRateState>,
}

/// One process's task.
struct Task {
    control: Arc<dyn RateControl>,
    /// The limiter's throttle count when last reported.
    reported_throttles: u64,
    /// The rate last held at.
    held: Option<f64>,
    /// Nanoseconds left until the periodic exchange.
    wait_ns: u64,
    call: Option<Call>,
    /// What the service admitted this process over the last period.
    meter: AdmittedMeter,
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task")
            .field("reported_throttles", &self.reported_throttles)
            .field("held", &self.held)
            .field("wait_ns", &self.wait_ns)
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

/// The stages of a task, each a timer of the process.
const TICK: usize = 0;
const AT_STORE: usize = 1;
const REPLY: usize = 2;
const STAGES: usize = 3;

/// Every process's limiter task and their store.
#[derive(Debug)]
pub struct Sharers {
    settings: SharerSettings,
    store: LimiterStore,
    tasks: Vec<Task>,
    starts: Vec<f64>,
    /// Virtual time of the store's first cut, seconds.
    first_cut: Option<f64>,
}

impl Sharers {
    /// The tasks of the limiters `controls` (process `i` owns
    /// `controls[i]`), process `i` starting at `starts[i]` seconds (0 when
    /// missing), with an empty store.
    #[must_use]
    pub fn new(
        settings: SharerSettings,
        controls: &[Arc<dyn RateControl>],
        starts: &[f64],
    ) -> Self {
        let tasks = controls
            .iter()
            .map(|control| Task {
                control: Arc::clone(control),
                reported_throttles: 0,
                held: None,
                wait_ns: 0,
                call: None,
                meter: AdmittedMeter::new(4),
            })
            .collect();
        Self {
            settings,
            store: LimiterStore::new(),
            tasks,
            starts: (0..controls.len())
                .map(|i| starts.get(i).copied().unwrap_or(0.0))
                .collect(),
            first_cut: None,
        }
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &LimiterStore {
        &self.store
    }

    /// When the store first cut the fleet's rate, seconds; `None` if it
    /// never did.
    #[must_use]
    pub fn first_cut(&self) -> Option<f64> {
        self.first_cut
    }

    /// The rate each process's task last held its limiter at (`None`: none).
    #[must_use]
    pub fn held(&self) -> Vec<Option<f64>> {
        self.tasks.iter().map(|t| t.held).collect()
    }

    fn set(&self, timers: &mut Timers, at: f64, index: usize, stage: usize) {
        timers.set(at, index * STAGES + stage);
    }

    /// One turn of the task's loop at `now`: exchange, or sleep.
    fn step(&mut self, timers: &mut Timers, now: f64, index: usize) {
        let task = &mut self.tasks[index];
        let reading = task.control.reading();
        task.meter.read(&reading, now);
        if task.wait_ns == 0 || reading.throttles > task.reported_throttles {
            let new = reading.throttles.saturating_sub(task.reported_throttles);
            task.call = Some(Call {
                throttles: reading.throttles,
                rate_milli: milli(task.meter.rate()),
                new_throttles: u32::try_from(new).unwrap_or(u32::MAX),
                demand: Demand::of(task.meter.sent(), task.held),
                reply: None,
            });
            let half = self.settings.round_trip / 2.0;
            self.set(timers, now + half, index, AT_STORE);
        } else {
            self.nap(timers, now, index);
        }
    }

    /// Sleeps a quarter period, or what is left of the period.
    fn nap(&mut self, timers: &mut Timers, now: f64, index: usize) {
        let tick = self.settings.tick_ns();
        let task = &mut self.tasks[index];
        let nap = tick.min(task.wait_ns);
        task.wait_ns -= nap;
        self.set(timers, now + nap as f64 / 1e9, index, TICK);
    }
}

impl Background for Sharers {
    fn start(&mut self, timers: &mut Timers) {
        for (index, &start) in self.starts.iter().enumerate() {
            self.set(timers, start, index, TICK);
        }
    }

    fn fire(&mut self, now: f64, key: usize, timers: &mut Timers) {
        let (index, stage) = (key / STAGES, key % STAGES);
        if index >= self.tasks.len() {
            return;
        }
        match stage {
            TICK => self.step(timers, now, index),
            AT_STORE => {
                let (ttl, window) = (self.settings.ttl_ms(), self.settings.window_ms());
                let now_ms = (now * 1000.0).floor() as u64;
                let Some(call) = self.tasks[index].call.as_mut() else {
                    return;
                };
                let reply = self.store.call(
                    now_ms,
                    index,
                    call.rate_milli,
                    call.new_throttles,
                    ttl,
                    window,
                    call.demand.milli(),
                );
                call.reply = Some(reply);
                if self.first_cut.is_none() && reply.cuts > 0 {
                    self.first_cut = Some(now);
                }
                let half = self.settings.round_trip / 2.0;
                self.set(timers, now + half, index, REPLY);
            }
            REPLY => {
                let period = self.settings.period_ns();
                let task = &mut self.tasks[index];
                let Some(Call {
                    throttles,
                    demand,
                    reply: Some(reply),
                    ..
                }) = task.call.take()
                else {
                    return;
                };
                task.reported_throttles = throttles;
                let rate = member_rate(FleetLimiter::SHAPE, &reply, demand);
                if rate != task.held {
                    task.control.hold(rate);
                    task.held = rate;
                }
                task.wait_ns = period;
                self.nap(timers, now, index);
            }
            _ => {}
        }
    }

    fn after_event(&mut self, _: f64, _: &mut Timers) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_settings_are_the_configs() {
        let settings = SharerSettings::default();
        let config = rebound_redis::FleetQuotaConfig::builder("sim")
            .build()
            .unwrap();
        assert_eq!(
            u128::from(settings.period_ns()),
            config.rate_period().as_nanos()
        );
        assert_eq!(
            u128::from(settings.ttl_ms()),
            config.lease_ttl().as_millis()
        );
        assert_eq!(settings.window_ms(), 2_000);
        assert_eq!(settings.tick_ns(), 250_000_000);
        assert_eq!(milli(1.2345), 1235);
        assert_eq!(milli(f64::NAN), 0);
    }
}
