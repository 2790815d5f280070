//! [`FleetError`]: why a call to the fleet's store failed.

use std::time::Duration;

use redis::RedisError;
use thiserror::Error;

use crate::reply::ReplyError;

/// Why a call to the fleet's store failed.
///
/// After [`Timeout`](Self::Timeout) the call's outcome is unknown: the store may have applied
/// it. The next [`lease`](crate::FleetQuotaClient::lease) reply says how many tokens the lease
/// really holds (`lease(0)` asks for none and only refreshes).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FleetError {
    /// The URL given to [`connect`](crate::connect), or a seed given to
    /// [`connect_cluster`](crate::connect_cluster), is not a Redis URL; or there was no seed.
    #[error("invalid fleet store URL")]
    InvalidUrl(#[source] RedisError),
    /// Under strict start, [`connect`](crate::connect) or
    /// [`connect_cluster`](crate::connect_cluster) could not reach the store in time.
    #[error("could not connect to the fleet store within {waited:?}")]
    Unreachable {
        /// How long it tried.
        waited: Duration,
        /// The last connection error, when the attempt failed rather than timed out.
        #[source]
        source: Option<RedisError>,
    },
    /// The store did not answer within the call timeout.
    #[error("the fleet store did not answer within {0:?}")]
    Timeout(Duration),
    /// The store or the connection failed.
    #[error("fleet store error")]
    Redis(#[source] RedisError),
    /// The lease had lapsed (or was never taken): its tokens already went back to the pool,
    /// and the tokens this process still counted are void. Start over with a fresh
    /// [`lease`](crate::FleetQuotaClient::lease).
    #[error("the fleet lease lapsed: its tokens went back to the pool; take a new lease")]
    LeaseLost,
    /// The fleet's pool exists with another capacity than this process's. The stored one is
    /// never changed by a client: delete the pool, or configure the same capacity.
    #[error(
        "the fleet's pool has a capacity of {stored} tokens, but this process is configured \
         with {configured}"
    )]
    CapacityMismatch {
        /// This process's capacity.
        configured: u32,
        /// The pool's.
        stored: u32,
    },
    /// One of the fleet's keys holds a value of another type (Redis's `WRONGTYPE`).
    #[error("a fleet key holds a value of another type: {detail}")]
    WrongType {
        /// Which key, and what it holds, when known.
        detail: String,
    },
    /// The pool's hash has fields this protocol did not write.
    #[error("the fleet's pool is malformed: {detail}")]
    CorruptPool {
        /// What is wrong.
        detail: String,
    },
    /// The store answered with a reply of a shape the protocol does not have.
    #[error("unexpected reply from the fleet store")]
    Reply(#[from] ReplyError),
}

impl From<RedisError> for FleetError {
    fn from(err: RedisError) -> Self {
        if err.code() == Some("WRONGTYPE") {
            Self::WrongType {
                detail: err.detail().unwrap_or("").to_owned(),
            }
        } else {
            Self::Redis(err)
        }
    }
}
