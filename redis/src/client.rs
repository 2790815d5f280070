//! [`FleetQuotaClient`]: one process's lease on its fleet's retry quota.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncConnectionConfig, RedisResult, Value};

use crate::config::FleetQuotaConfig;
use crate::connection::StoreConnection;
use crate::demand::Demand;
use crate::error::FleetError;
use crate::inspect::FleetInspection;
use crate::keys::FleetKeys;
use crate::reply::{self, FleetRateState, LeaseGrant, PoolState, Released, ReportAck};
use crate::scripts::{LuaScript, SCRIPTS};

/// The name a lease goes by in the store: a random `u64` per process, written as 16 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LeaseId(u64);

impl LeaseId {
    /// A random id, from the operating system's entropy.
    #[must_use]
    pub fn random() -> Self {
        Self(rand::random())
    }

    /// The id `id` (for tests, or to resume a lease under a known name).
    #[must_use]
    pub const fn from_u64(id: u64) -> Self {
        Self(id)
    }

    /// The id as a number.
    #[must_use]
    pub const fn as_u64(self) -> u64 {
        self.0
    }
}

/// As the store knows it: 16 lowercase hex digits.
impl fmt::Display for LeaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// One process's lease on its fleet's retry quota, in a Redis or Valkey store.
///
/// Each call runs one of the protocol's scripts (docs/fleet.md) under the configured
/// [call timeout](FleetQuotaConfig::call_timeout). The client holds no tokens itself: the
/// caller counts the tokens it leased, spends them on retries, and reports what is left.
///
/// Clones share the connection and the lease id: they are the same lease.
#[derive(Debug, Clone)]
pub struct FleetQuotaClient {
    conn: StoreConnection,
    shared: Arc<Shared>,
    lease_id: LeaseId,
}

#[derive(Debug)]
struct Shared {
    config: FleetQuotaConfig,
    keys: FleetKeys,
}

impl FleetQuotaClient {
    /// A client on `conn` (a [`StoreConnection`], or the node or cluster connection it
    /// holds) for the fleet `config` names, under a new random [`LeaseId`].
    #[must_use]
    pub fn new(conn: impl Into<StoreConnection>, config: FleetQuotaConfig) -> Self {
        let keys = FleetKeys::new(config.fleet());
        Self {
            conn: conn.into(),
            shared: Arc::new(Shared { config, keys }),
            lease_id: LeaseId::random(),
        }
    }

    /// The same client under the lease id `id`.
    #[must_use]
    pub fn with_lease_id(mut self, id: LeaseId) -> Self {
        self.lease_id = id;
        self
    }

    /// The lease's id.
    #[must_use]
    pub const fn lease_id(&self) -> LeaseId {
        self.lease_id
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &FleetQuotaConfig {
        &self.shared.config
    }

    /// Creates the fleet's pool, full, unless it exists; reclaims lapsed leases. Optional:
    /// [`lease`](Self::lease) creates the pool too. Use it to check the settings at start.
    ///
    /// # Errors
    ///
    /// [`FleetError::CapacityMismatch`] when the pool exists with another capacity (it is not
    /// changed), and the errors every call may return: [`Timeout`](FleetError::Timeout),
    /// [`Redis`](FleetError::Redis), [`WrongType`](FleetError::WrongType),
    /// [`CorruptPool`](FleetError::CorruptPool), [`Reply`](FleetError::Reply).
    pub async fn init(&self) -> Result<PoolState, FleetError> {
        let capacity = self.config().capacity();
        let value = self.call(&SCRIPTS.init, vec![capacity.to_string()]).await?;
        reply::init(&value, capacity)
    }

    /// Takes up to `want` more tokens from the pool into this process's lease, and extends
    /// the lease to a full TTL from now. `lease(0)` only extends it, and says what it holds.
    ///
    /// The lease is taken anew when it had lapsed. [`lease_size`](FleetQuotaConfig::lease_size)
    /// is the amount to ask for at a time.
    ///
    /// # Errors
    ///
    /// As [`init`](Self::init).
    pub async fn lease(&self, want: u32) -> Result<LeaseGrant, FleetError> {
        let config = self.config();
        let capacity = config.capacity();
        let args = vec![
            capacity.to_string(),
            self.lease_id.to_string(),
            want.to_string(),
            config.lease_ttl_ms().to_string(),
        ];
        let value = self.call(&SCRIPTS.lease, args).await?;
        reply::lease(&value, capacity, want)
    }

    /// Says that the lease now keeps `keep` of its tokens (the others were spent on retries)
    /// and that successes earned `refunds` tokens since the last report; extends the lease to
    /// a full TTL from now. Refunds fill the pool, never beyond the capacity the leases leave.
    ///
    /// The store never grows a lease here: when `keep` is more than it holds, the reply's
    /// [`held`](ReportAck::held) is what it holds.
    ///
    /// # Errors
    ///
    /// [`FleetError::LeaseLost`] when the lease had lapsed: its tokens went back to the pool
    /// and the ones this process counted are void; take a new [`lease`](Self::lease). And the
    /// errors every call may return (see [`init`](Self::init)).
    pub async fn report(&self, keep: u32, refunds: u32) -> Result<ReportAck, FleetError> {
        let config = self.config();
        let args = vec![
            self.lease_id.to_string(),
            keep.to_string(),
            refunds.to_string(),
            config.lease_ttl_ms().to_string(),
        ];
        let value = self.call(&SCRIPTS.report, args).await?;
        reply::report(&value, config.capacity(), keep)
    }

    /// Ends the lease, giving the `keep` tokens it still has (at most what it holds) back to
    /// the pool. For a clean shutdown; report the last refunds first.
    ///
    /// # Errors
    ///
    /// [`FleetError::LeaseLost`] when the lease had already lapsed (harmless: its tokens went
    /// back then). And the errors every call may return (see [`init`](Self::init)).
    pub async fn release(&self, keep: u32) -> Result<Released, FleetError> {
        let args = vec![self.lease_id.to_string(), keep.to_string()];
        let value = self.call(&SCRIPTS.release, args).await?;
        reply::release(&value, self.config().capacity(), keep)
    }

    /// Tells the fleet's rate limiter this process's measured rate (`rate_milli`, in
    /// milli-requests per second), the throttles it saw since its last call and its `demand`,
    /// and reads the fleet's state: whether and when its rate was cut, from what, and what its
    /// members measure and ask for together. Keeps this process a member for a lease TTL.
    /// Throttles reported less than `window` after the last cut count as the same event: they
    /// do not cut again.
    ///
    /// # Errors
    ///
    /// The errors every call may return (see [`init`](Self::init)).
    pub async fn limiter(
        &self,
        rate_milli: u32,
        throttles: u32,
        window: std::time::Duration,
        demand: Demand,
    ) -> Result<FleetRateState, FleetError> {
        let ttl_ms = self.config().lease_ttl_ms();
        let value = self
            .limiter_call(rate_milli, throttles, ttl_ms, window, demand)
            .await?;
        reply::limiter(&value, self.config().capacity(), rate_milli, demand.milli())
    }

    /// Takes this process out of the fleet's rate limiter: its rate and demand leave the
    /// fleet's totals at the next member's call, rather than when its membership lapses (a
    /// lease TTL after its last call). [`FleetLimiter`](crate::FleetLimiter) calls it as it
    /// stops.
    ///
    /// # Errors
    ///
    /// The errors every call may return (see [`init`](Self::init)).
    pub async fn leave_limiter(&self) -> Result<(), FleetError> {
        let value = self
            .limiter_call(0, 0, 0, std::time::Duration::ZERO, Demand::Rate(0.0))
            .await?;
        reply::left_limiter(&value, self.config().capacity())
    }

    async fn limiter_call(
        &self,
        rate_milli: u32,
        throttles: u32,
        ttl_ms: u64,
        window: std::time::Duration,
        demand: Demand,
    ) -> Result<Value, FleetError> {
        let args = vec![
            self.lease_id.to_string(),
            rate_milli.to_string(),
            throttles.to_string(),
            ttl_ms.to_string(),
            window.as_millis().min(u128::from(u32::MAX)).to_string(),
            demand.milli().to_string(),
        ];
        self.call_with(&SCRIPTS.limiter, &self.shared.keys.limiter, args)
            .await
    }

    /// Reads the fleet's keys as they are, without changing them: no lease is reclaimed, no
    /// pool created, no value checked (a value that is not what the protocol writes shows as
    /// [`Stored::Invalid`](crate::Stored::Invalid)). For operators: `examples/inspect.rs` in
    /// the repository prints it. The lease id and the settings but the fleet's name play no
    /// part.
    ///
    /// # Errors
    ///
    /// [`Timeout`](FleetError::Timeout), [`Redis`](FleetError::Redis),
    /// [`WrongType`](FleetError::WrongType), [`Reply`](FleetError::Reply).
    pub async fn inspect(&self) -> Result<FleetInspection, FleetError> {
        let keys = &self.shared.keys;
        let all: Vec<String> = keys.quota.iter().chain(&keys.limiter).cloned().collect();
        let value = self.call_with(&SCRIPTS.inspect, &all, Vec::new()).await?;
        crate::inspect::inspect(&value)
    }

    /// Runs the quota's `script` under the call timeout.
    async fn call(&self, script: &LuaScript, args: Vec<String>) -> Result<Value, FleetError> {
        self.call_with(script, &self.shared.keys.quota, args).await
    }

    async fn call_with(
        &self,
        script: &LuaScript,
        keys: &[String],
        args: Vec<String>,
    ) -> Result<Value, FleetError> {
        let mut conn = self.conn.clone();
        let timeout = self.config().call_timeout();
        with_timeout(timeout, script.run(&mut conn, keys, &args)).await
    }
}

async fn with_timeout<T>(
    timeout: std::time::Duration,
    call: impl Future<Output = RedisResult<T>>,
) -> Result<T, FleetError> {
    match tokio::time::timeout(timeout, call).await {
        Ok(result) => result.map_err(FleetError::from),
        Err(_elapsed) => Err(FleetError::Timeout(timeout)),
    }
}

/// A [`FleetQuotaClient`] on the store at `url`: `redis://[user:password@]host:port/db`
/// (`valkey://` is the same), or `redis+unix:///path` for a Unix socket. TLS URLs need
/// redis-rs's TLS features, which this crate does not enable yet.
///
/// With [`strict_start`](crate::FleetQuotaConfigBuilder::strict_start) on, this connects
/// within the [connect timeout](FleetQuotaConfig::connect_timeout) and runs
/// [`init`](FleetQuotaClient::init), so that an unreachable store, another capacity or a key
/// of the wrong type fail the start. Otherwise it returns at once and connects on the first
/// call. Either way the connection reconnects by itself after it drops.
///
/// Must be called within a tokio runtime.
///
/// # Errors
///
/// [`FleetError::InvalidUrl`]; under strict start, [`FleetError::Unreachable`] and the errors
/// of [`init`](FleetQuotaClient::init).
pub async fn connect(url: &str, config: FleetQuotaConfig) -> Result<FleetQuotaClient, FleetError> {
    let client = redis::Client::open(url).map_err(FleetError::InvalidUrl)?;
    let manager_config =
        ConnectionManagerConfig::new().set_connection_timeout(Some(config.connect_timeout()));
    if !config.strict_start() {
        let conn = ConnectionManager::new_lazy_with_config(client, manager_config)?;
        return Ok(FleetQuotaClient::new(conn, config));
    }
    // One plain connection attempt first, so that a refused or failing connection is reported
    // as such (the manager would retry it with backoff until the deadline); then the manager.
    let waited = config.connect_timeout();
    let deadline = tokio::time::Instant::now() + waited;
    let probe_config = AsyncConnectionConfig::new().set_connection_timeout(Some(waited));
    let probe = client.get_multiplexed_async_connection_with_config(&probe_config);
    drop(reach(waited, deadline, probe).await?);
    let manager = ConnectionManager::new_with_config(client, manager_config);
    let conn = reach(waited, deadline, manager).await?;
    let client = FleetQuotaClient::new(conn, config);
    client.init().await?;
    Ok(client)
}

/// The connection `connecting` makes by `deadline`, or [`FleetError::Unreachable`] after
/// `waited` (the connect timeout).
async fn reach<T>(
    waited: std::time::Duration,
    deadline: tokio::time::Instant,
    connecting: impl Future<Output = RedisResult<T>>,
) -> Result<T, FleetError> {
    match tokio::time::timeout_at(deadline, connecting).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(err)) => Err(FleetError::Unreachable {
            waited,
            source: Some(err),
        }),
        Err(_elapsed) => Err(FleetError::Unreachable {
            waited,
            source: None,
        }),
    }
}

/// A [`FleetQuotaClient`] on the Redis or Valkey cluster that `seeds` belong to: the URLs of
/// some of its nodes, as for [`connect`] (`redis://host:port`), from which the client learns
/// the others and which master serves the fleet's slot.
///
/// The connection follows the cluster's redirections, and finds the promoted replica after a
/// failover; calls fail meanwhile, each within the
/// [call timeout](FleetQuotaConfig::call_timeout). Each attempt to connect to a node has the
/// [connect timeout](FleetQuotaConfig::connect_timeout). With
/// [`strict_start`](crate::FleetQuotaConfigBuilder::strict_start) on, this reads the cluster's
/// slots within the connect timeout and runs [`init`](FleetQuotaClient::init); otherwise it
/// returns at once and connects on the first call.
///
/// Must be called within a tokio runtime.
///
/// # Errors
///
/// [`FleetError::InvalidUrl`] when a seed is not a Redis URL or there is none; under strict
/// start, [`FleetError::Unreachable`] and the errors of [`init`](FleetQuotaClient::init).
pub async fn connect_cluster(
    seeds: impl IntoIterator<Item = impl AsRef<str>>,
    config: FleetQuotaConfig,
) -> Result<FleetQuotaClient, FleetError> {
    let seeds: Vec<String> = seeds.into_iter().map(|s| s.as_ref().to_owned()).collect();
    let client = redis::cluster::ClusterClient::builder(seeds)
        .connection_timeout(config.connect_timeout())
        .response_timeout(config.call_timeout())
        // The call timeout bounds each call as a whole (`FleetError::Timeout`), as on one node;
        // the response timeout bounds each attempt within it.
        .overall_response_timeout(None)
        .build()
        .map_err(FleetError::InvalidUrl)?;
    let cluster_config = redis::cluster::ClusterConfig::new()
        .set_connection_timeout(config.connect_timeout())
        .set_response_timeout(config.call_timeout());
    if !config.strict_start() {
        let conn = client.get_pending_async_connection_with_config(cluster_config);
        return Ok(FleetQuotaClient::new(conn, config));
    }
    let waited = config.connect_timeout();
    let deadline = tokio::time::Instant::now() + waited;
    let connecting = client.get_async_connection_with_config(cluster_config);
    let conn = reach(waited, deadline, connecting).await?;
    let client = FleetQuotaClient::new(conn, config);
    client.init().await?;
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_ids_print_as_16_hex_digits() {
        assert_eq!(LeaseId::from_u64(0).to_string(), "0000000000000000");
        assert_eq!(LeaseId::from_u64(0xab).to_string(), "00000000000000ab");
        assert_eq!(LeaseId::from_u64(u64::MAX).to_string(), "ffffffffffffffff");
        assert_ne!(LeaseId::random(), LeaseId::random());
    }
}
