//! A fleet-wide retry quota and adaptive rate limiter for
//! [rebound](https://docs.rs/rebound-retry), kept in Redis or Valkey.
//!
//! A retry quota stops a client from adding retries to a service that is already failing:
//! every retry takes tokens, every success gives some back. One quota per process is blind to
//! the rest of the fleet: a hundred processes each allowed a hundred retries still send ten
//! thousand to a struggling service. Processes that name the same fleet here share one quota
//! (the AWS standard retry mode's: 500 tokens; 5 per retry, 10 per retry after a timeout).
//!
//! The store is not asked on every retry. A process leases tokens in batches
//! ([`lease_size`](FleetQuotaConfig::lease_size), 25 by default), spends them locally, and
//! reports in batches what it kept and what its successes earned back. A lease that is not
//! refreshed within its TTL lapses and its tokens return to the pool, so a crashed process
//! keeps at most one lease's tokens from the fleet, and only for one TTL. `docs/fleet.md` in
//! the repository describes the protocol, its invariant and its failure modes.
//!
//! [`FleetQuota`] is one process's share: [`retry_quota`](FleetQuota::retry_quota) is the
//! runtime's `RetryQuota` backed by it, for `StandardRetryStrategy` or `AdaptiveRetryStrategy`
//! (the same strategies, with the same costs and refunds). A retry or a refund is a few atomic
//! operations on the lease's local balance; a background task keeps the lease topped up, and
//! while the store fails the quota draws from a local bucket of
//! [`fallback_capacity`](FleetQuotaConfig::fallback_capacity) tokens. [`FleetQuotaClient`] is
//! the protocol's client, for callers that count the tokens themselves.
//!
//! ```no_run
//! use std::sync::Arc;
//! use rebound_redis::{FleetQuota, FleetQuotaConfig};
//! use rebound_runtime::{Retry, StandardRetryStrategy};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let config = FleetQuotaConfig::builder("checkout-api").build()?;
//! let fleet = FleetQuota::connect("redis://127.0.0.1:6379/", config).await?;
//! let strategy = StandardRetryStrategy::builder()
//!     .quota(Arc::clone(fleet.retry_quota()))
//!     .build();
//! let answer = Retry::new(&strategy)
//!     .run_async(|_attempt| async { Ok::<_, std::io::Error>(42) })
//!     .await?;
//! fleet.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! [`FleetLimiter`] does the same for adaptive mode's send rate: each process's limiter keeps
//! reacting to its own throttles, and a background task holds it under its share of the
//! fleet's rate, which the first throttle anywhere in the fleet cuts ([`member_rate`]).
//!
//! On a Redis Cluster or a Valkey cluster, [`connect_cluster`] takes the URLs of some of its
//! nodes and returns the same [`FleetQuotaClient`], for [`FleetQuota::start`] or
//! [`FleetLimiter::start`]: it sends each call to the master that serves the fleet's slot,
//! through redirections and failovers (`docs/fleet.md` says what a failover can lose).
//!
//! ```no_run
//! use rebound_redis::{FleetQuota, FleetQuotaConfig, connect_cluster};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let config = FleetQuotaConfig::builder("checkout-api").build()?;
//! let seeds = ["redis://10.0.0.1:6379/", "redis://10.0.0.2:6379/"];
//! let fleet = FleetQuota::start(connect_cluster(seeds, config).await?).await;
//! # fleet.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! The client alone:
//!
//! ```no_run
//! use rebound_redis::{FleetError, FleetQuotaConfig, connect};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let config = FleetQuotaConfig::builder("checkout-api").strict_start(true).build()?;
//! let fleet = connect("redis://127.0.0.1:6379/", config).await?;
//! let lease = fleet.lease(fleet.config().lease_size()).await?;
//! let mut tokens = lease.held;
//! // A retry spends 5 tokens when the lease has them; successes earn refunds.
//! if let Some(left) = tokens.checked_sub(5) {
//!     tokens = left;
//! }
//! match fleet.report(tokens, 1).await {
//!     Ok(ack) => tokens = ack.held,
//!     Err(FleetError::LeaseLost) => tokens = fleet.lease(fleet.config().lease_size()).await?.held,
//!     Err(other) => return Err(other.into()),
//! }
//! fleet.release(tokens).await?;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod admitted;
mod client;
mod config;
mod connection;
mod demand;
mod error;
mod exchange;
mod health;
mod inspect;
mod keys;
mod ledger;
mod limiter;
mod quota;
mod reply;
mod scripts;
mod task;

pub use admitted::AdmittedMeter;
pub use client::{FleetQuotaClient, LeaseId, connect, connect_cluster};
pub use config::{
    ConfigError, FleetNameProblem, FleetQuotaConfig, FleetQuotaConfigBuilder, MAX_FLEET_NAME_LEN,
    MAX_LEASE_TTL,
};
pub use connection::StoreConnection;
pub use demand::Demand;
pub use error::FleetError;
pub use health::{FleetListener, FleetState, FleetStateChange};
pub use inspect::{
    FleetInspection, LeaseView, LimiterView, MAX_LISTED, MemberView, PoolView, Stored,
};
pub use limiter::{FleetLimiter, member_rate};
pub use quota::{FleetQuota, FleetQuotaStats};
pub use reply::{FleetRateState, LeaseGrant, PoolState, Released, ReplyError, ReportAck};

/// The parsers of the store's replies, for the fuzz targets.
///
/// **Not part of the API**: hidden from the documentation and exempt from semantic versioning.
#[doc(hidden)]
pub mod internals {
    pub use crate::inspect::inspect;
    pub use crate::reply::{init, lease, limiter, release, report};
    pub use redis::Value;
}

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
