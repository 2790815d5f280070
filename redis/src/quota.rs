//! [`FleetQuota`]: the fleet's retry quota as the request path sees it — local atomics, with a
//! background task that keeps the lease topped up and falls back to a local bucket while the
//! store fails.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::client::{FleetQuotaClient, LeaseId, connect};
use crate::config::FleetQuotaConfig;
use crate::error::FleetError;
use rebound_runtime::observe::{Readings, Watched};
use rebound_runtime::{QuotaStore, RetryQuota};

use crate::exchange::ExchangeStats;
use crate::health::{Deaf, FleetListener, FleetState, StoreHealth};
use crate::ledger::Ledger;
use crate::task::join_once;

/// A [`FleetQuota`]'s counts at one instant, for metrics and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FleetQuotaStats {
    /// Where tokens come from now.
    pub state: FleetState,
    /// The lease's tokens not spent yet (frozen while [`Local`](FleetState::Local)).
    pub balance: u32,
    /// What the lease holds in the store, as last reported.
    pub held: u32,
    /// Refunds waiting for the next report.
    pub pending_refunds: u32,
    /// The tokens left in the local fallback bucket.
    pub fallback_available: u32,
}

/// State shared by the request path and the refresher.
#[derive(Debug)]
struct Shared {
    ledger: Ledger,
    /// The refresher's calls to the store, for metrics.
    exchange: ExchangeStats,
    fallback: RetryQuota,
    /// `true` while [`FleetState::Local`].
    local: AtomicBool,
    low_water: u32,
    capacity: u32,
    /// Woken when the balance falls below the low-water mark.
    wake: Notify,
    /// Woken to stop the refresher (it releases the lease first).
    stop: Notify,
}

impl Shared {
    fn state(&self) -> FleetState {
        if self.local.load(Ordering::Acquire) {
            FleetState::Local
        } else {
            FleetState::Joined
        }
    }
}

/// The request path: local atomics only.
impl QuotaStore for Shared {
    fn try_acquire(&self, cost: u32) -> Result<(), u32> {
        if self.local.load(Ordering::Acquire) {
            return self.fallback.try_acquire(cost);
        }
        let acquired = self.ledger.try_acquire(cost)?;
        if acquired.after < self.low_water && acquired.before >= self.low_water {
            self.wake.notify_one();
        }
        Ok(())
    }

    fn release(&self, amount: u32) -> u32 {
        if self.local.load(Ordering::Acquire) {
            return self.fallback.release(amount);
        }
        let refunded = self.ledger.release(amount);
        refunded.restored + refunded.pending
    }

    fn available(&self) -> u32 {
        match self.state() {
            FleetState::Joined => self.ledger.load().1,
            FleetState::Local => self.fallback.available(),
        }
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }
}

/// One process's share of a fleet-wide retry quota: the quota a retry strategy draws from.
///
/// The request path never waits for the store. [`try_acquire`](Self::try_acquire) takes tokens
/// from the lease's local balance and [`release`](Self::release) gives a success's refund
/// back, both with a few atomic operations. A background tokio task, started by
/// [`start`](Self::start), keeps the lease topped up: every
/// [refresh period](FleetQuotaConfig::refresh_period), and as soon as the balance falls below
/// the [low-water mark](FleetQuotaConfig::low_water_mark), it reports the balance and the
/// pending refunds, and leases what the balance lacks of a full
/// [lease](FleetQuotaConfig::lease_size).
///
/// When a call to the store fails, the quota draws from a local bucket of
/// [`fallback_capacity`](FleetQuotaConfig::fallback_capacity) tokens instead, logs a `WARN`
/// event (target `rebound`), and says so in [`state`](Self::state); the task keeps trying, and
/// rejoins the fleet when the store answers. It never falls back to no limit.
///
/// Dropping the quota stops the task, which gives the lease back to the store (best effort,
/// within the call timeout, while the runtime runs); [`close`](Self::close) does the same and
/// waits for it. Share the quota between threads with an `Arc`: `close` takes `&self`.
#[derive(Debug)]
pub struct FleetQuota {
    shared: Arc<Shared>,
    retry_quota: Arc<RetryQuota>,
    config: FleetQuotaConfig,
    lease_id: LeaseId,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl FleetQuota {
    /// Leases the first tokens through `client` and starts the refresher.
    ///
    /// Never fails: when the store does not answer, the quota starts
    /// [`Local`](FleetState::Local) and joins when the store answers. Use
    /// [strict start](crate::FleetQuotaConfigBuilder::strict_start) with [`connect`] to fail
    /// the start instead. Must be called within a tokio runtime.
    pub async fn start(client: FleetQuotaClient) -> Self {
        Self::start_with_listener(client, Arc::new(Deaf)).await
    }

    /// [`start`](Self::start)s, and tells `listener` when the quota falls back to local limits
    /// and when it rejoins.
    pub async fn start_with_listener(
        client: FleetQuotaClient,
        listener: Arc<dyn FleetListener>,
    ) -> Self {
        let config = client.config().clone();
        let shared = Arc::new(Shared {
            ledger: Ledger::new(),
            exchange: ExchangeStats::default(),
            fallback: RetryQuota::new(config.fallback_capacity()),
            local: AtomicBool::new(false),
            low_water: config.low_water_mark(),
            capacity: config.capacity(),
            wake: Notify::new(),
            stop: Notify::new(),
        });
        let mut refresher = Refresher {
            shared: Arc::clone(&shared),
            lease_id: client.lease_id(),
            client,
            has_lease: false,
            health: StoreHealth::new("fleet quota", config.fleet(), listener),
        };
        let wait = refresher.step().await;
        let lease_id = refresher.lease_id;
        let task = tokio::spawn(refresher.run(wait));
        Self {
            retry_quota: Arc::new(RetryQuota::with_store(
                Arc::clone(&shared) as Arc<dyn QuotaStore>
            )),
            shared,
            config,
            lease_id,
            task: Mutex::new(Some(task)),
        }
    }

    /// [`connect`]s to the store at `url` and [`start`](Self::start)s.
    ///
    /// # Errors
    ///
    /// The errors of [`connect`]: an invalid URL, and under strict start an unreachable store
    /// or a pool that rejects the settings.
    pub async fn connect(url: &str, config: FleetQuotaConfig) -> Result<Self, FleetError> {
        Self::connect_with_listener(url, config, Arc::new(Deaf)).await
    }

    /// [`connect`](Self::connect)s, and tells `listener` when the quota falls back to local
    /// limits and when it rejoins.
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with_listener(
        url: &str,
        config: FleetQuotaConfig,
        listener: Arc<dyn FleetListener>,
    ) -> Result<Self, FleetError> {
        Ok(Self::start_with_listener(connect(url, config).await?, listener).await)
    }

    /// Takes `cost` tokens if that many are left: from the lease's balance while
    /// [`Joined`](FleetState::Joined), from the fallback bucket while
    /// [`Local`](FleetState::Local). Never waits for the store.
    ///
    /// # Errors
    ///
    /// The tokens left, when fewer than `cost`; then nothing is taken.
    pub fn try_acquire(&self, cost: u32) -> Result<(), u32> {
        self.shared.try_acquire(cost)
    }

    /// Gives back a success's refund of `amount` tokens; returns how many were taken.
    ///
    /// While [`Joined`](FleetState::Joined), the refund first restores the balance up to what
    /// the lease holds in the store; the rest waits for the next report, which adds it to the
    /// fleet's pool (the store caps it at what the leases leave room for). While
    /// [`Local`](FleetState::Local), it refills the fallback bucket up to its capacity. Never
    /// waits for the store.
    pub fn release(&self, amount: u32) -> u32 {
        self.shared.release(amount)
    }

    /// The tokens that can be taken now: the lease's balance, or the fallback bucket's tokens.
    /// Other threads and the refresher may change it at any moment.
    #[must_use]
    pub fn available(&self) -> u32 {
        self.shared.available()
    }

    /// The [`RetryQuota`] the strategies draw from: this fleet quota, behind the runtime's
    /// [`QuotaStore`] interface. Every call returns the same quota, so strategies built with
    /// it accept each other's tokens.
    ///
    /// It outlives the `FleetQuota` if the strategies do: once the quota is
    /// [closed](Self::close) or dropped, it draws from the local fallback bucket.
    #[must_use]
    pub const fn retry_quota(&self) -> &Arc<RetryQuota> {
        &self.retry_quota
    }

    /// The fleet's capacity. [`available`](Self::available) never exceeds it.
    #[must_use]
    pub fn capacity(&self) -> u32 {
        self.shared.capacity
    }

    /// Where tokens come from now.
    #[must_use]
    pub fn state(&self) -> FleetState {
        self.shared.state()
    }

    /// Whether the quota draws from the local fallback bucket (the store failed).
    #[must_use]
    pub fn is_degraded(&self) -> bool {
        self.state() == FleetState::Local
    }

    /// The counts at one instant (each read atomically; together, nearly so).
    #[must_use]
    pub fn stats(&self) -> FleetQuotaStats {
        let shared = &*self.shared;
        let (held, balance) = shared.ledger.load();
        FleetQuotaStats {
            state: shared.state(),
            balance,
            held,
            pending_refunds: shared.ledger.pending(),
            fallback_available: shared.fallback.available(),
        }
    }

    /// The lease's id in the store.
    #[must_use]
    pub const fn lease_id(&self) -> LeaseId {
        self.lease_id
    }

    /// The settings.
    #[must_use]
    pub const fn config(&self) -> &FleetQuotaConfig {
        &self.config
    }

    /// Stops the refresher and waits while it reports the last refunds and gives the lease
    /// back (best effort: each call within the call timeout; errors are ignored). From then on
    /// the quota draws from its fallback bucket. Later calls return at once.
    pub async fn close(&self) {
        self.shared.stop.notify_one();
        join_once(&self.task).await;
    }
}

impl Drop for FleetQuota {
    fn drop(&mut self) {
        self.shared.stop.notify_one();
    }
}

/// The background task's side: the only writer of `held` and of the state.
struct Refresher {
    shared: Arc<Shared>,
    client: FleetQuotaClient,
    lease_id: LeaseId,
    /// Whether the store may hold a lease of ours.
    has_lease: bool,
    /// Falls back to local limits while the store fails, and rejoins.
    health: StoreHealth,
}

impl Refresher {
    async fn run(mut self, mut wait: Duration) {
        loop {
            tokio::select! {
                biased;
                () = self.shared.stop.notified() => break,
                () = self.shared.wake.notified() => {}
                () = tokio::time::sleep(wait) => {}
            }
            wait = self.step().await;
        }
        self.shutdown().await;
    }

    /// One refresh; switches the state on failure or recovery. Returns the wait until the
    /// next one: the refresh period, or less when another lease lapses sooner, so that its
    /// tokens are reclaimed on time (every process has this timer: a jitter of up to a
    /// sixteenth of the period spreads their calls).
    async fn step(&mut self) -> Duration {
        let period = self.client.config().refresh_period();
        let started = Instant::now();
        let result = self.refresh().await;
        self.shared
            .exchange
            .exchanged(started.elapsed(), result.is_err());
        let next_lapse = result.as_ref().ok().copied();
        let wait = self
            .health
            .after(result.map(drop), &self.shared.local, period);
        match next_lapse {
            Some(lapse) if lapse < wait => {
                let spread = period / 16;
                lapse.max(spread) + spread.mul_f64(rand::random::<f64>())
            }
            _ => wait,
        }
    }

    /// Reports the balance and the pending refunds, then leases what the balance lacks of a
    /// full lease. Returns the time until the fleet's first lease lapses.
    async fn refresh(&mut self) -> Result<Duration, FleetError> {
        let ledger = &self.shared.ledger;
        let mut next_lapse = None;
        if self.has_lease {
            let refunds = ledger.take_pending();
            let (_, keep) = ledger.load();
            match self.client.report(keep, refunds).await {
                Ok(ack) => {
                    self.shared.exchange.saw_pool(ack.available);
                    next_lapse = Some(ack.next_lapse_ms);
                    // The room first: what settling moves from the balance to the pending
                    // refunds repays tokens this report said were spent.
                    ledger.set_room(ack.refund_room);
                    ledger.settle(keep, ack.held);
                }
                Err(FleetError::LeaseLost) => {
                    // The lease lapsed: its tokens are back in the pool, the balance is void.
                    ledger.void();
                    self.has_lease = false;
                }
                Err(err) => {
                    // The outcome is unknown: the store may hold only `keep` now. The refunds
                    // are dropped rather than sent twice.
                    let (held, _) = ledger.load();
                    ledger.settle(keep, held.min(keep));
                    return Err(err);
                }
            }
        }
        // Up to a full lease in the store (not in the balance: tokens spent since the report
        // still count as held there until the next one), so a lease never holds more than
        // `lease_size`.
        let (held, _) = ledger.load();
        let want = self.client.config().lease_size().saturating_sub(held);
        if want > 0 || !self.has_lease {
            let grant = self.client.lease(want).await?;
            self.shared.exchange.saw_pool(grant.available);
            self.has_lease = true;
            ledger.grant(grant.granted, grant.held);
            next_lapse = Some(grant.next_lapse_ms);
        }
        Ok(Duration::from_millis(
            next_lapse.map_or(u64::MAX, u64::from),
        ))
    }

    /// Switches the request path to the fallback bucket, reports the last refunds and gives the
    /// lease back; errors are ignored.
    async fn shutdown(self) {
        // Requests still drawing from the `RetryQuota` go to the fallback from here on, and the
        // balance reported below stays what it is.
        self.shared.local.store(true, Ordering::Release);
        if !self.has_lease {
            return;
        }
        let ledger = &self.shared.ledger;
        let refunds = ledger.take_pending();
        let (_, keep) = ledger.load();
        if self.client.report(keep, refunds).await.is_ok() {
            let _ = self.client.release(keep).await;
        }
        ledger.void();
    }
}

/// The fleet gauges of a member's quota: [`Joined`](FleetState::Joined) or not, the lease it
/// holds in the store, the pool as last seen, and its exchanges with the store. Watch it beside
/// the strategy (which reports the quota's tokens).
impl Watched for FleetQuota {
    fn read(&self, readings: &mut Readings) {
        let stats = self.stats();
        readings.fleet_healthy = Some(stats.state == FleetState::Joined);
        readings.fleet_lease = Some(stats.held.into());
        self.shared.exchange.read(readings);
    }
}
