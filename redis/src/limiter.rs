//! [`FleetLimiter`]: one process's part in a fleet-wide adaptive rate limiter — a background
//! task that tells the store what this process measures and throttles, and holds the process's
//! limiter under its share of the fleet's rate.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rebound_runtime::observe::{Readings, Watched};
use rebound_runtime::rate_limiter::{CubicShape, RateControl};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::admitted::AdmittedMeter;
use crate::client::FleetQuotaClient;
use crate::config::FleetQuotaConfig;
use crate::demand::Demand;
use crate::error::FleetError;
use crate::exchange::ExchangeStats;
use crate::health::{Deaf, StoreHealth};
use crate::health::{FleetListener, FleetState};
use crate::reply::FleetRateState;
use crate::task::join_once;

/// The lowest send rate a process is held at, as the runtime's limiter's floor.
const MIN_RATE: f64 = 0.5;

/// One process's part in its fleet's adaptive rate limiter.
///
/// Each process keeps its own adaptive limiter (botocore's, reacting to its own throttles at
/// once). This task joins them: every [rate period](crate::FleetQuotaConfig::rate_period) (1 s)
/// it tells the store the rate at which the service admitted this process over the last period
/// ([`AdmittedMeter`]) and the throttles it saw, and reads the fleet's state back. Until the
/// fleet's first throttle that is all, and the process's limiter stays off. From then on the
/// fleet's rate follows a CUBIC curve ([`FleetLimiter::SHAPE`]), cut once per event from what
/// the fleet was admitted when a throttle was reported (the sum of the members' admitted
/// rates: at a throttle, the service's capacity), and each process's limiter is held at its
/// share ([`member_rate`], through [`RateControl::hold`]). A throttle seen here is told to
/// the store within a quarter of a period (the task reads the limiter four times a period),
/// and every other process hears of it at its next exchange: every process's send rate is
/// lowered within one and a quarter periods, less than one lease TTL. Requests never wait for
/// the store: sends and responses go to the process's own limiter only.
///
/// When the store fails, the held rate is let go (each process is back on its own limiter:
/// local limits, not none), a `WARN` event is logged and the listener told; the task keeps trying and
/// rejoins when the store answers.
///
/// Dropping it stops the task, which lets the held rate go; [`close`](Self::close) does the same
/// and waits (it takes `&self`, so it works on a limiter shared through an `Arc`).
#[derive(Debug)]
pub struct FleetLimiter {
    local: Arc<AtomicBool>,
    /// The task's calls to the store, for metrics.
    exchange: Arc<ExchangeStats>,
    stop: Arc<Notify>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl FleetLimiter {
    /// The curve of the fleet's rate: [`CubicShape::SHALLOW`] (a cut to 95% of what the fleet
    /// was admitted, back in 6 s at any rate), or the members' own curve where that is higher
    /// ([`member_rate`]). `docs/fleet.md` has what 10 and 50 processes on a real store
    /// measured with it.
    pub const SHAPE: CubicShape = CubicShape::SHALLOW;

    /// Makes the first exchange with the store through `client` (the fleet it names), then
    /// starts the task for the limiter `control` (an
    /// [`AdaptiveRetryStrategy`](rebound_runtime::AdaptiveRetryStrategy)).
    ///
    /// Never fails: when the store does not answer, the limiter starts
    /// [`Local`](FleetState::Local) and joins when the store answers. Must be called within a
    /// tokio runtime.
    pub async fn start(client: FleetQuotaClient, control: Arc<dyn RateControl>) -> Self {
        Self::start_with_listener(client, control, Arc::new(Deaf)).await
    }

    /// [`connect`](crate::connect)s to the store at `url` and [`start`](Self::start)s.
    ///
    /// # Errors
    ///
    /// The errors of [`connect`](crate::connect): an invalid URL, and under strict start an
    /// unreachable store or a pool that rejects the settings.
    pub async fn connect(
        url: &str,
        config: FleetQuotaConfig,
        control: Arc<dyn RateControl>,
    ) -> Result<Self, FleetError> {
        Self::connect_with_listener(url, config, control, Arc::new(Deaf)).await
    }

    /// [`connect`](Self::connect)s, and tells `listener` when the limiter falls back to local
    /// limits and when it rejoins.
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with_listener(
        url: &str,
        config: FleetQuotaConfig,
        control: Arc<dyn RateControl>,
        listener: Arc<dyn FleetListener>,
    ) -> Result<Self, FleetError> {
        let client = crate::connect(url, config).await?;
        Ok(Self::start_with_listener(client, control, listener).await)
    }

    /// [`start`](Self::start)s, and tells `listener` when the limiter falls back to local
    /// limits and when it rejoins.
    pub async fn start_with_listener(
        client: FleetQuotaClient,
        control: Arc<dyn RateControl>,
        listener: Arc<dyn FleetListener>,
    ) -> Self {
        let local = Arc::new(AtomicBool::new(false));
        let exchange = Arc::new(ExchangeStats::default());
        let stop = Arc::new(Notify::new());
        let health = StoreHealth::new("fleet rate limiter", client.config().fleet(), listener);
        let mut sharer = Sharer {
            client,
            control,
            health,
            local: Arc::clone(&local),
            exchange: Arc::clone(&exchange),
            stop: Arc::clone(&stop),
            reported_throttles: 0,
            held: None,
            held_before: None,
            meter: AdmittedMeter::new(READS_PER_PERIOD),
            origin: tokio::time::Instant::now(),
            exchanged: false,
            ramp_from: None,
        };
        let wait = sharer.exchange().await;
        Self {
            local,
            exchange,
            stop,
            task: Mutex::new(Some(tokio::spawn(sharer.run(wait)))),
        }
    }

    /// Whether the last call to the store succeeded ([`Joined`](FleetState::Joined)) or not.
    #[must_use]
    pub fn state(&self) -> FleetState {
        if self.local.load(std::sync::atomic::Ordering::Acquire) {
            FleetState::Local
        } else {
            FleetState::Joined
        }
    }

    /// Stops the task and waits for it; it lets the held rate go as it stops. Later calls return
    /// at once.
    pub async fn close(&self) {
        self.stop.notify_one();
        join_once(&self.task).await;
    }
}

impl Drop for FleetLimiter {
    fn drop(&mut self) {
        self.stop.notify_one();
    }
}

/// The rate one member of a fleet in `fleet`'s state is held at, its [`Demand`] being
/// `demand`; `None` before the fleet's first throttle.
///
/// The fleet's rate is `shape`'s curve from the rate it was last cut at
/// ([`CubicShape::rate_after`]), or what the members it cut would reach on their own where
/// that is higher (botocore's curve from an equal share of the cut rate), at most twice what
/// the fleet is admitted (as botocore caps one client's at twice what it measures). It is
/// shared as Doorman's fair share shares a capacity: members that ask for less than an equal
/// share get what they ask, and the rest is split equally between the members whose held rate
/// limits them. Every member is held at that equal part of the rest (the water level), or at its
/// demand where that is higher (it is in what the others leave): a member that asks for less
/// does not send more than it asks, and one whose demand grows is limited at the level,
/// counts as [`Unbounded`](Demand::Unbounded) from its next exchange, and so gets its part.
/// The limited members never get less than an equal share of the fleet's rate: when the
/// demands leave them less, the demands are scaled down to the rest. When no
/// member is limited, each is held at its demand and an equal part of what the demands leave
/// (or, when they ask for more than the fleet's rate, at its demand scaled down to it).
///
/// ```
/// use rebound_redis::{Demand, FleetLimiter, FleetRateState, member_rate};
///
/// // Just cut from 1000 requests/s. Of four members, three ask for 50/s each; the fourth is
/// // limited by its held rate.
/// let fleet = FleetRateState {
///     cuts: 1,
///     w_max_milli: 1_000_000,
///     since_cut_ms: 0,
///     sum_milli: 1_000_000,
///     members: 4,
///     asked_milli: 150_000,
///     unbounded: 1,
///     cut_members: 4,
/// };
/// // The fleet's rate is 95% of 1000/s; the limited member gets what the others leave.
/// let rate = member_rate(FleetLimiter::SHAPE, &fleet, Demand::Unbounded).unwrap();
/// assert!((rate - (950.0 - 150.0)).abs() < 1e-6);
/// // The others are held at the same level, and send the 50/s they ask for.
/// assert_eq!(member_rate(FleetLimiter::SHAPE, &fleet, Demand::Rate(50.0)), Some(rate));
/// ```
#[must_use]
pub fn member_rate(shape: CubicShape, fleet: &FleetRateState, demand: Demand) -> Option<f64> {
    if fleet.cuts == 0 {
        return None;
    }
    let w_max = f64::from(fleet.w_max_milli) / 1000.0;
    let since_cut = f64::from(fleet.since_cut_ms) / 1000.0;
    let sum = f64::from(fleet.sum_milli) / 1000.0;
    let members = f64::from(fleet.members.max(1));
    // The fleet grows back at least as fast as the members it cut would on their own
    // (botocore's curve from an equal share of the cut rate, which probes upward by an
    // absolute amount): from a cut taken while the fleet's meters still lagged its climb,
    // `shape` alone would take its whole recovery period to find that low rate again. Members
    // that joined since add no probes of their own: a fleet that doubled would overshoot.
    let cut = match fleet.cut_members {
        0 => members,
        n => f64::from(n),
    };
    let on_their_own = cut * CubicShape::BOTOCORE.rate_after(w_max / cut, since_cut);
    let fleet_rate = shape
        .rate_after(w_max, since_cut)
        .max(on_their_own)
        .min(2.0 * sum);
    let asked = f64::from(fleet.asked_milli) / 1000.0;
    let equal = fleet_rate / members;
    let rate = match (fleet.unbounded, demand) {
        (0, Demand::Rate(own)) if asked >= fleet_rate => own * fleet_rate / asked,
        (0, Demand::Rate(own)) => own + (fleet_rate - asked) / members,
        (0, Demand::Unbounded) => equal,
        (limited, demand) => {
            let limited = f64::from(limited);
            let level = (fleet_rate - asked) / limited;
            match demand {
                Demand::Unbounded => level.max(equal),
                // Its demand is in `asked`: the level leaves it.
                Demand::Rate(own) if level >= equal => level.max(own),
                // The demands leave the limited members less than an equal share: they get
                // that, and the demands are scaled down to the rest.
                Demand::Rate(own) => own * (fleet_rate - limited * equal) / asked,
            }
        }
    };
    Some(rate.max(MIN_RATE))
}

/// The background task.
struct Sharer {
    client: FleetQuotaClient,
    control: Arc<dyn RateControl>,
    health: StoreHealth,
    local: Arc<AtomicBool>,
    exchange: Arc<ExchangeStats>,
    stop: Arc<Notify>,
    /// The limiter's throttle count when last reported.
    reported_throttles: u64,
    /// The rate last held at.
    held: Option<f64>,
    /// The rate held at before the last exchange.
    held_before: Option<f64>,
    /// What the service admitted this process over the last period.
    meter: AdmittedMeter,
    /// The meter's time origin.
    origin: tokio::time::Instant,
    /// Whether an exchange succeeded yet.
    exchanged: bool,
    /// When this process joined a fleet already cut, while it ramps up to its share.
    ramp_from: Option<tokio::time::Instant>,
}

/// How many times a period the task reads its limiter.
const READS_PER_PERIOD: usize = 4;

impl Sharer {
    /// Runs until stopped, the first exchange `wait` away.
    async fn run(mut self, mut wait: Duration) {
        let period = self.client.config().rate_period();
        // The limiter is read four times a period, so that a throttle here reaches the store
        // within a quarter period rather than at the next exchange.
        let tick = (period / READS_PER_PERIOD as u32).max(Duration::from_millis(1));
        loop {
            // While the store fails, the backoff decides alone.
            let joined = !self.local.load(std::sync::atomic::Ordering::Acquire);
            let reading = self.control.reading();
            self.meter
                .read(&reading, self.origin.elapsed().as_secs_f64());
            let new_throttles = reading.throttles > self.reported_throttles;
            if wait.is_zero() || (joined && new_throttles) {
                wait = self.exchange().await;
            }
            let nap = tick.min(wait);
            tokio::select! {
                biased;
                () = self.stop.notified() => break,
                () = tokio::time::sleep(nap) => {}
            }
            wait = wait.saturating_sub(nap);
        }
        // Out of the fleet: the process's own limiter alone, and its share to the others at
        // their next exchange (best effort: a store that fails lets the membership lapse).
        self.hold(None);
        if !self.local.load(std::sync::atomic::Ordering::Acquire) {
            let _ = self.client.leave_limiter().await;
        }
    }

    /// One exchange, and the state it leaves: on failure the held rate is let go (the process's
    /// own limiter alone). Returns the wait until the next one.
    async fn exchange(&mut self) -> Duration {
        let started = Instant::now();
        let result = self.share().await;
        self.exchange.exchanged(started.elapsed(), result.is_err());
        if result.is_err() {
            self.hold(None);
        }
        let period = self.client.config().rate_period();
        self.health.after(result, &self.local, period)
    }

    /// One exchange with the store: this process's rate and new throttles out, the fleet's
    /// state in, the rate held from it.
    async fn share(&mut self) -> Result<(), FleetError> {
        let reading = self.control.reading();
        let throttles = reading.throttles.saturating_sub(self.reported_throttles);
        let rate_milli = milli(self.meter.rate());
        // A process ramping up to its share is limited by the ramp.
        let demand = if self.ramp_from.is_some() {
            Demand::Unbounded
        } else {
            // The period measured ran under the last hold and the one before it.
            let held = match (self.held, self.held_before) {
                (Some(now), Some(before)) => Some(now.min(before)),
                (now, _) => now,
            };
            Demand::of(self.meter.sent(), held)
        };
        // Throttles count as one event within two periods of a cut: the members hear of a cut
        // within one period each, and the throttles of the overload it answered keep coming
        // until they do.
        let window = self.client.config().rate_period() * 2;
        let fleet = self
            .client
            .limiter(
                rate_milli,
                u32::try_from(throttles).unwrap_or(u32::MAX),
                window,
                demand,
            )
            .await?;
        self.reported_throttles = reading.throttles;
        // A process that joins a fleet already cut ramps up to its share over one window: the
        // others are held at their larger shares until they hear of it.
        if !self.exchanged && fleet.cuts > 0 {
            self.ramp_from = Some(tokio::time::Instant::now());
        }
        self.exchanged = true;
        let ramp = self.ramp_from.map_or(1.0, |from| {
            (from.elapsed().as_secs_f64() / window.as_secs_f64()).min(1.0)
        });
        if ramp >= 1.0 {
            self.ramp_from = None;
        }
        let rate = member_rate(FleetLimiter::SHAPE, &fleet, demand);
        self.hold(rate.map(|rate| (rate * ramp).max(MIN_RATE)));
        Ok(())
    }

    fn hold(&mut self, rate: Option<f64>) {
        self.held_before = self.held;
        if rate != self.held {
            self.control.hold(rate);
            self.held = rate;
        }
    }
}

/// `rate` requests per second in whole milli-requests per second, within what the store takes
/// (a million requests per second).
pub(crate) fn milli(rate: f64) -> u32 {
    const MAX: f64 = 1.0e9;
    let milli = (rate * 1000.0).round();
    if milli.is_nan() || milli <= 0.0 {
        0
    } else {
        // In 0..=1e9 after the clamp, so the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = milli.min(MAX) as u32;
        whole
    }
}

/// The fleet gauges of a member's limiter: [`Joined`](FleetState::Joined) or not, and its
/// exchanges with the store. Watch it beside the strategy (which reports the limiter's rates).
impl Watched for FleetLimiter {
    fn read(&self, readings: &mut Readings) {
        readings.fleet_healthy = Some(self.state() == FleetState::Joined);
        self.exchange.read(readings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fleet of `members` cut `since_ms` ago from `w_max`, admitted `sum`, whose bounded
    /// demands add up to `asked` and `unbounded` of whose members are limited.
    fn state(
        w_max: f64,
        since_ms: u32,
        sum: f64,
        members: u32,
        asked: f64,
        unbounded: u32,
    ) -> FleetRateState {
        FleetRateState {
            cuts: 1,
            w_max_milli: milli(w_max),
            since_cut_ms: since_ms,
            sum_milli: milli(sum),
            members,
            asked_milli: milli(asked),
            unbounded,
            cut_members: members,
        }
    }

    #[test]
    fn no_rate_before_the_first_throttle() {
        let fleet = FleetRateState {
            cuts: 0,
            ..state(0.0, 0, 500.0, 5, 0.0, 5)
        };
        assert_eq!(
            member_rate(CubicShape::BOTOCORE, &fleet, Demand::Unbounded),
            None
        );
    }

    #[test]
    fn limited_members_share_what_the_others_leave() {
        // Just cut from 1000/s (botocore's curve: 700/s). Nine members ask for 20/s each; one
        // is limited.
        let fleet = state(1000.0, 0, 1000.0, 10, 180.0, 1);
        let heavy = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Unbounded).unwrap();
        assert!((heavy - 520.0).abs() < 1e-6, "{heavy}");
        // Every member is held at that level; the light ones send what they ask.
        let light = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(20.0)).unwrap();
        assert_eq!(light, heavy);
        // Two limited members split it.
        let fleet = state(1000.0, 0, 1000.0, 10, 160.0, 2);
        let each = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Unbounded).unwrap();
        assert!((each - 270.0).abs() < 1e-6, "{each}");
    }

    #[test]
    fn members_that_joined_since_the_cut_do_not_raise_the_fleet_rate() {
        // Cut from 400/s among 10 members, 5 s ago; 10 more have joined since.
        let at_cut = state(400.0, 5000, 400.0, 10, 0.0, 10);
        let grown = FleetRateState {
            members: 20,
            unbounded: 20,
            ..at_cut
        };
        let before = member_rate(CubicShape::SHALLOW, &at_cut, Demand::Unbounded).unwrap();
        let after = member_rate(CubicShape::SHALLOW, &grown, Demand::Unbounded).unwrap();
        assert!(
            (10.0 * before - 20.0 * after).abs() < 1e-6,
            "{before} {after}"
        );
        assert!(
            10.0 * before > 400.0,
            "the members' own curves probe above the cut rate"
        );
    }

    #[test]
    fn the_level_is_never_below_an_equal_share() {
        // The bounded demands ask for more than the fleet's rate (700/s).
        let fleet = state(1000.0, 0, 1000.0, 10, 900.0, 1);
        let rate = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Unbounded).unwrap();
        assert!((rate - 70.0).abs() < 1e-6, "{rate}");
        // The demands are scaled down to the rest: 630/s for 900/s of demands.
        let rate = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(100.0)).unwrap();
        assert!((rate - 100.0 * 630.0 / 900.0).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn a_demand_above_the_level_is_kept() {
        // 700/s among four: one asks for 300/s, one for 50/s, two are limited.
        let fleet = state(1000.0, 0, 1000.0, 4, 350.0, 2);
        let limited = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Unbounded).unwrap();
        let large = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(300.0)).unwrap();
        let small = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(50.0)).unwrap();
        assert!((limited - 175.0).abs() < 1e-6, "{limited}");
        assert!((large - 300.0).abs() < 1e-6, "{large}");
        assert_eq!(small, limited);
        // What they send adds up to the fleet's rate.
        assert!((2.0 * limited + large + 50.0 - 700.0).abs() < 1e-6);
    }

    #[test]
    fn with_no_member_limited_each_gets_its_demand_and_a_part_of_the_rest() {
        // 700/s to share; the demands are 100 and 300/s.
        let fleet = state(1000.0, 0, 1000.0, 2, 400.0, 0);
        let small = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(100.0)).unwrap();
        let large = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(300.0)).unwrap();
        assert!((small - 250.0).abs() < 1e-6 && (large - 450.0).abs() < 1e-6);
        assert!((small + large - 700.0).abs() < 1e-6);
        // Demands of 1400/s against 700/s: each is halved.
        let fleet = state(1000.0, 0, 1000.0, 2, 1400.0, 0);
        let rate = member_rate(CubicShape::BOTOCORE, &fleet, Demand::Rate(400.0)).unwrap();
        assert!((rate - 200.0).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn the_fleet_rate_grows_back_along_the_curve_and_is_capped_by_twice_the_measured() {
        let just_cut = state(1000.0, 0, 700.0, 1, 0.0, 1);
        let later = state(1000.0, 20_000, 700.0, 1, 0.0, 1);
        let a = member_rate(CubicShape::BOTOCORE, &just_cut, Demand::Unbounded).unwrap();
        let b = member_rate(CubicShape::BOTOCORE, &later, Demand::Unbounded).unwrap();
        assert!((a - 700.0).abs() < 1e-6, "{a}");
        assert!(b > 1000.0 && b <= 1400.0, "{b}");
    }

    #[test]
    fn rates_have_a_floor_and_a_range() {
        let fleet = state(0.0, 0, 0.0, 1000, 0.0, 1000);
        assert_eq!(
            member_rate(CubicShape::BOTOCORE, &fleet, Demand::Unbounded),
            Some(MIN_RATE)
        );
        assert_eq!(milli(f64::NAN), 0);
        assert_eq!(milli(-3.0), 0);
        assert_eq!(milli(f64::INFINITY), 1_000_000_000);
        assert_eq!(milli(1.2345), 1235);
    }
}
