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
//!    lower of the last two rates held, which the period ran under
//!    (unbounded while the process ramps up), and
//!    `limiter(admitted rate, new throttles, ttl, window = 2 periods,
//!    demand)` reaches the [`LimiterStore`] half a round trip later; when
//!    its reply is back (another half), the
//!    throttles are reported and the limiter is held at
//!    `member_rate(FleetLimiter::SHAPE, reply, demand)` through
//!    [`RateControl::hold`] (only when it changed);
//! 3. sleep a quarter period (or what is left of the period), and again.
//!
//! A process whose first exchange finds the fleet already cut ramps up:
//! over the window (two periods) from the reply of that exchange, each
//! exchange holds it at the rate times the share of the window gone by, at
//! least [`MIN_RATE`]. When the process stops ([`Background::stopped`]), its
//! task stops at once (after the reply of an exchange under way), lets the
//! held rate go and calls the store once more to leave (`limiter` with a TTL
//! of 0), as `FleetLimiter::close` does.
//!
//! The periods are whole nanoseconds, as the task's `Duration`s. Each task
//! starts at its process's seeded time with an exchange; the store never
//! fails (no fallback to local limits) and no membership lapses, the lease
//! TTL being ten periods by default.

use std::sync::Arc;

use rebound_redis::{AdmittedMeter, Demand, FleetLimiter, FleetRateState, member_rate};
use rebound_runtime::rate_limiter::RateControl;

use super::store::LimiterStore;
use crate::driver::{Background, Timers};

/// The lowest rate a process is held at (`MIN_RATE` in
/// `redis/src/limiter.rs`, the runtime limiter's floor).
pub const MIN_RATE: f64 = 0.5;

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

    /// The window in seconds, as a joiner's ramp measures it
    /// (`Duration::as_secs_f64`).
    fn window_secs(&self) -> f64 {
        (self.period_ns() * 2) as f64 / 1e9
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
    /// The rate held at before the last exchange.
    held_before: Option<f64>,
    /// Nanoseconds left until the periodic exchange.
    wait_ns: u64,
    call: Option<Call>,
    /// What the service admitted this process over the last period.
    meter: AdmittedMeter,
    /// Whether an exchange came back yet.
    exchanged: bool,
    /// When the reply came that found the fleet already cut, while the
    /// process ramps up to its share.
    ramp_from: Option<f64>,
    /// Whether the process stopped (the task leaves, or left).
    stopped: bool,
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task")
            .field("reported_throttles", &self.reported_throttles)
            .field("held", &self.held)
            .field("wait_ns", &self.wait_ns)
            .field("call", &self.call)
            .field("exchanged", &self.exchanged)
            .field("ramp_from", &self.ramp_from)
            .field("stopped", &self.stopped)
            .finish_non_exhaustive()
    }
}

/// The stages of a task, each a timer of the process.
const TICK: usize = 0;
const AT_STORE: usize = 1;
const REPLY: usize = 2;
/// The call that leaves reaches the store.
const LEAVE: usize = 3;
const STAGES: usize = 4;

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
                held_before: None,
                wait_ns: 0,
                call: None,
                meter: AdmittedMeter::new(4),
                exchanged: false,
                ramp_from: None,
                stopped: false,
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
        if task.stopped {
            return;
        }
        let reading = task.control.reading();
        task.meter.read(&reading, now);
        if task.wait_ns == 0 || reading.throttles > task.reported_throttles {
            let new = reading.throttles.saturating_sub(task.reported_throttles);
            task.call = Some(Call {
                throttles: reading.throttles,
                rate_milli: milli(task.meter.rate()),
                new_throttles: u32::try_from(new).unwrap_or(u32::MAX),
                // A process ramping up to its share is limited by the ramp.
                demand: if task.ramp_from.is_some() {
                    Demand::Unbounded
                } else {
                    // The period measured ran under the last hold and the one
                    // before it.
                    let held = match (task.held, task.held_before) {
                        (Some(now), Some(before)) => Some(now.min(before)),
                        (now, _) => now,
                    };
                    Demand::of(task.meter.sent(), held)
                },
                reply: None,
            });
            let half = self.settings.round_trip / 2.0;
            self.set(timers, now + half, index, AT_STORE);
        } else {
            self.nap(timers, now, index);
        }
    }

    /// The reply of an exchange is back at `now`: the throttles reported,
    /// the limiter held at the member's share (ramped up after a join to a
    /// fleet already cut). Whether there was one.
    fn replied(&mut self, now: f64, index: usize) -> bool {
        let window = self.settings.window_secs();
        let task = &mut self.tasks[index];
        let Some(Call {
            throttles,
            demand,
            reply: Some(reply),
            ..
        }) = task.call.take()
        else {
            return false;
        };
        task.reported_throttles = throttles;
        if !task.exchanged && reply.cuts > 0 {
            task.ramp_from = Some(now);
        }
        task.exchanged = true;
        let ramp = task
            .ramp_from
            .map_or(1.0, |from| ((now - from) / window).min(1.0));
        if ramp >= 1.0 {
            task.ramp_from = None;
        }
        let rate = member_rate(FleetLimiter::SHAPE, &reply, demand);
        task.hold(rate.map(|rate| (rate * ramp).max(MIN_RATE)));
        true
    }

    /// The task stops at `now`: the held rate goes, and the call that leaves
    /// the fleet is on its way.
    fn leave(&mut self, timers: &mut Timers, now: f64, index: usize) {
        self.tasks[index].hold(None);
        let half = self.settings.round_trip / 2.0;
        self.set(timers, now + half, index, LEAVE);
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
                if !self.replied(now, index) {
                    return;
                }
                if self.tasks[index].stopped {
                    self.leave(timers, now, index);
                } else {
                    self.tasks[index].wait_ns = self.settings.period_ns();
                    self.nap(timers, now, index);
                }
            }
            LEAVE => {
                let now_ms = (now * 1000.0).floor() as u64;
                self.store
                    .call(now_ms, index, 0, 0, 0, 0, Demand::Rate(0.0).milli());
            }
            _ => {}
        }
    }

    fn after_event(&mut self, _: f64, _: &mut Timers) {}

    fn stopped(&mut self, now: f64, client: usize, timers: &mut Timers) {
        let Some(task) = self.tasks.get_mut(client) else {
            return;
        };
        if task.stopped {
            return;
        }
        task.stopped = true;
        // An exchange under way ends first; a sleeping task leaves now.
        if task.call.is_none() {
            self.leave(timers, now, client);
        }
    }
}

impl Task {
    /// Holds the limiter at `rate` (`None`: lets it go), when that changes
    /// it.
    fn hold(&mut self, rate: Option<f64>) {
        self.held_before = self.held;
        if rate != self.held {
            self.control.hold(rate);
            self.held = rate;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vclock::VirtualClock;
    use rebound_runtime::{AdaptiveRetryStrategy, StandardRetryStrategy};

    /// Processes without traffic, their tasks on a queue of their own.
    struct Harness {
        sharers: Sharers,
        timers: Timers,
        /// Timers set and not gone off yet, in the order they were set.
        pending: Vec<(f64, usize)>,
        time: VirtualClock,
    }

    impl Harness {
        fn new(starts: &[f64]) -> Self {
            let time = VirtualClock::new();
            let controls: Vec<Arc<dyn RateControl>> = starts
                .iter()
                .map(|_| {
                    let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
                        .clock(time.clock())
                        .build();
                    Arc::new(strategy) as Arc<dyn RateControl>
                })
                .collect();
            let mut sharers = Sharers::new(SharerSettings::default(), &controls, starts);
            let mut timers = Timers::default();
            sharers.start(&mut timers);
            let mut harness = Self {
                sharers,
                timers,
                pending: Vec::new(),
                time,
            };
            harness.collect();
            harness
        }

        fn collect(&mut self) {
            self.pending.extend(self.timers.drain());
        }

        /// Fires the earliest timer, if it goes off before `until`; returns
        /// its time, process and stage.
        fn next(&mut self, until: f64) -> Option<(f64, usize, usize)> {
            let (index, &(at, key)) = self
                .pending
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.0.total_cmp(&b.1.0))?;
            if at >= until {
                return None;
            }
            self.pending.remove(index);
            self.time.set(at);
            self.sharers.fire(at, key, &mut self.timers);
            self.collect();
            Some((at, key / STAGES, key % STAGES))
        }

        fn run_until(&mut self, until: f64) {
            while self.next(until).is_some() {}
        }

        /// Runs until process `index`'s task is at `stage`; the time.
        fn until_stage(&mut self, index: usize, stage: usize) -> f64 {
            loop {
                let (at, process, fired) = self.next(f64::INFINITY).expect("a timer");
                if (process, fired) == (index, stage) {
                    return at;
                }
            }
        }

        /// Member `index`'s share in the reply that reached it at `at`, its
        /// demand `demand`: what it is held at without a ramp.
        fn share(&self, at: f64, demand: Demand) -> f64 {
            let half = self.sharers.settings.round_trip / 2.0;
            let at_store_ms = ((at - half) * 1000.0).floor() as u64;
            let state = self.sharers.store.state(at_store_ms);
            member_rate(FleetLimiter::SHAPE, &state, demand).expect("a cut fleet")
        }

        /// Another member, without a task, reports a throttle at `at_ms`:
        /// the fleet is cut from 400/s.
        fn cut(&mut self, at_ms: u64) {
            let settings = self.sharers.settings;
            let (ttl, window) = (settings.ttl_ms(), settings.window_ms());
            let reply = self
                .sharers
                .store
                .call(at_ms, 9, 400_000, 1, ttl, window, u32::MAX);
            assert_eq!(reply.cuts, 1);
        }

        fn held(&self, index: usize) -> f64 {
            self.sharers.held()[index].expect("a held rate")
        }

        fn stop(&mut self, at: f64, index: usize) {
            self.time.set(at);
            self.sharers.stopped(at, index, &mut self.timers);
            self.collect();
        }
    }

    #[test]
    fn a_process_that_joins_a_cut_fleet_ramps_up_over_a_window() {
        // Process 0 first exchanges before the cut, process 1 after it.
        let mut h = Harness::new(&[0.2, 0.5]);
        h.run_until(0.3);
        h.cut(300);
        let first = h.until_stage(1, REPLY);
        assert_eq!(h.sharers.held(), [None, Some(MIN_RATE)]);
        // Process 0 gets its whole share at its next exchange.
        let at = h.until_stage(0, REPLY);
        assert!(at > 1.0 && at < 1.5, "{at}");
        let held = h.held(0);
        assert_eq!(held, h.share(at, Demand::Unbounded));
        // A third of 95% of the 400/s cut, three members being unbounded.
        assert!((held - 0.95 * 400.0 / 3.0).abs() < 5.0, "{held}");
        // Process 1, a period after its first reply: half of it, limited
        // by the ramp (unbounded) though it sends nothing.
        let second = h.until_stage(1, REPLY);
        let ramp = (second - first) / 2.0;
        assert!(ramp > 0.5 && ramp < 0.51, "{ramp}");
        let share = h.share(second, Demand::Unbounded);
        assert!(
            (h.held(1) - share * ramp).abs() < 1e-9 * share,
            "{}",
            h.held(1)
        );
        // A window after it: all of it; then it asks for what it sends.
        let at = h.until_stage(1, REPLY);
        assert_eq!(h.held(1), h.share(at, Demand::Unbounded));
        assert_eq!(h.sharers.tasks[1].ramp_from, None);
        let at = h.until_stage(1, REPLY);
        assert_eq!(h.held(1), h.share(at, Demand::Rate(0.0)));
    }

    #[test]
    fn a_process_that_stops_leaves_the_fleet_with_one_call() {
        let mut h = Harness::new(&[0.0, 0.1]);
        h.run_until(0.5);
        h.cut(500);
        h.run_until(3.0);
        assert!(h.sharers.held().iter().all(Option::is_some));
        // Process 0 sleeps: it lets its held rate go and leaves at once.
        let calls = h.sharers.store.calls();
        h.stop(3.0, 0);
        assert_eq!(h.sharers.held()[0], None);
        h.run_until(3.01);
        assert_eq!(h.sharers.store.calls(), calls + 1);
        assert_eq!(h.sharers.store.rates()[..2], [None, Some(0)]);
        assert_eq!(h.sharers.store.demands()[0], None);
        assert_eq!(h.sharers.store.state(3_010).members, 2);
        // Process 1 stops while its call is at the store: the reply is
        // handled first, then it leaves.
        let at = h.until_stage(1, AT_STORE);
        h.stop(at, 1);
        assert!(h.sharers.store.rates()[1].is_some());
        assert_eq!(h.until_stage(1, REPLY), at + 0.0005);
        assert!(h.sharers.store.rates()[1].is_some());
        h.until_stage(1, LEAVE);
        assert_eq!(h.sharers.store.rates()[..2], [None, None]);
        assert_eq!(h.sharers.held(), [None, None]);
        // Neither calls again; a second stop does nothing.
        let calls = h.sharers.store.calls();
        h.stop(at, 1);
        h.run_until(20.0);
        assert!(h.pending.is_empty(), "{:?}", h.pending);
        assert_eq!(h.sharers.store.calls(), calls);
        assert_eq!(h.sharers.store.state(20_000).members, 1);
    }

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
