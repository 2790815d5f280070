//! [`FleetInspection`]: a fleet's keys as the store holds them, read without changing them,
//! for operators ([`FleetQuotaClient::inspect`](crate::FleetQuotaClient::inspect)).

use std::fmt;

use redis::Value;

use crate::error::FleetError;
use crate::reply::{ReplyError, describe, items, ok_counts, status, truncated};

/// The most leases and limiter members an inspection lists (the soonest to expire first).
pub const MAX_LISTED: usize = 1000;

/// One stored value as an inspection finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored<T> {
    /// The field or the entry does not exist.
    Absent,
    /// A value of the expected kind.
    Value(T),
    /// Something else: what is stored, cut at 64 bytes. The scripts answer `CORRUPT` when
    /// they read it.
    Invalid(String),
}

impl<T: Copy> Stored<T> {
    /// The value, if it is one.
    #[must_use]
    pub const fn value(&self) -> Option<T> {
        match self {
            Self::Value(value) => Some(*value),
            Self::Absent | Self::Invalid(_) => None,
        }
    }
}

/// `-` when absent, the value, or the stored text in quotes with a `?`.
impl<T: fmt::Display> fmt::Display for Stored<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Absent => f.write_str("-"),
            Self::Value(value) => value.fmt(f),
            Self::Invalid(text) => write!(f, "{text:?}?"),
        }
    }
}

/// The quota's pool hash.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolView {
    /// The fleet's quota.
    pub capacity: Stored<u32>,
    /// The tokens in the pool, not leased.
    pub available: Stored<u32>,
    /// The tokens all leases hold together.
    pub held_total: Stored<u32>,
    /// The tokens the leases' last reports said they spent and have not refunded yet.
    pub owed_total: Stored<u32>,
}

/// One lease.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseView {
    /// Its id (16 hex digits when a `FleetQuotaClient` wrote it).
    pub id: String,
    /// Milliseconds until it lapses, by the store's clock; negative when it has lapsed and
    /// not been reclaimed yet (the next call to the store reclaims it).
    pub expires_in_ms: Stored<i64>,
    /// The tokens it holds.
    pub held: Stored<u32>,
    /// What its last report said it spent and has not refunded yet.
    pub owes: Stored<u32>,
}

/// The fleet rate limiter's state hash.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LimiterView {
    /// How many times the fleet's rate was cut.
    pub cuts: Stored<u32>,
    /// The fleet's measured rate at the last cut, in milli-requests per second.
    pub w_max_milli: Stored<u64>,
    /// Milliseconds since the last cut, by the store's clock.
    pub since_cut_ms: Stored<i64>,
    /// The members' rates added up, in milli-requests per second.
    pub sum_milli: Stored<u64>,
    /// The members' bounded demands added up, in milli-requests per second.
    pub asked_milli: Stored<u64>,
    /// How many members' demands are unbounded.
    pub unbounded: Stored<u32>,
    /// How many members the fleet had at the last cut.
    pub cut_members: Stored<u32>,
}

/// One member of the fleet rate limiter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemberView {
    /// Its id (its quota client's lease id).
    pub id: String,
    /// Milliseconds until it leaves unless it calls again; negative when it has left and not
    /// been removed yet.
    pub expires_in_ms: Stored<i64>,
    /// Its measured rate, in milli-requests per second.
    pub rate_milli: Stored<u32>,
    /// Its demand, in milli-requests per second, `u32::MAX` when it is unbounded
    /// ([`Demand::milli`](crate::Demand::milli)).
    pub demand_milli: Stored<u32>,
}

/// A fleet's keys at one instant, as the store holds them: nothing reclaimed, nothing
/// checked, nothing created.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FleetInspection {
    /// The pool, or `None` when the fleet has none (no process has joined, or the keys
    /// expired or were deleted).
    pub pool: Option<PoolView>,
    /// How many leases there are.
    pub lease_count: u64,
    /// The leases, at most [`MAX_LISTED`], the soonest to lapse first.
    pub leases: Vec<LeaseView>,
    /// The rate limiter's state, or `None` when the fleet has no rate limiter.
    pub limiter: Option<LimiterView>,
    /// How many members the rate limiter has.
    pub member_count: u64,
    /// The members, at most [`MAX_LISTED`], the soonest to leave first.
    pub members: Vec<MemberView>,
}

/// The stored text at `index`: a string (`''` is absent).
fn raw(items: &[Value], index: usize) -> Result<Option<String>, ReplyError> {
    match items.get(index) {
        Some(Value::BulkString(bytes)) => Ok((!bytes.is_empty()).then(|| truncated(bytes))),
        Some(other) => Err(ReplyError::NotAString {
            index,
            found: describe(other),
        }),
        None => Err(ReplyError::Inconsistent(format!("no element {index}"))),
    }
}

fn stored<T: std::str::FromStr>(text: Option<String>) -> Stored<T> {
    match text {
        None => Stored::Absent,
        Some(text) => text
            .parse()
            .map_or_else(|_| Stored::Invalid(text), Stored::Value),
    }
}

/// A stored expiry or time, `now_ms` subtracted (`sign` -1: `now_ms` minus it). Scores come
/// back as the store formats doubles: whole milliseconds read exactly.
fn relative(text: Option<String>, now_ms: i64, sign: i64) -> Stored<i64> {
    match text {
        None => Stored::Absent,
        Some(text) => match text.parse::<f64>() {
            #[allow(clippy::cast_possible_truncation)] // within ±2^62 by the check
            Ok(ms) if ms.is_finite() && ms.abs() < 4.0e18 => {
                Stored::Value(sign * ((ms as i64).saturating_sub(now_ms)))
            }
            _ => Stored::Invalid(text),
        },
    }
}

fn array(items: &[Value], index: usize) -> Result<&[Value], ReplyError> {
    items.get(index).map_or_else(
        || Err(ReplyError::Inconsistent(format!("no element {index}"))),
        |v| self::items(v),
    )
}

fn total(items: &[Value], index: usize) -> Result<u64, ReplyError> {
    match items.get(index) {
        Some(Value::Int(n)) => u64::try_from(*n).map_err(|_| ReplyError::NotACount {
            index,
            found: describe(&items[index]),
        }),
        Some(other) => Err(ReplyError::NotACount {
            index,
            found: describe(other),
        }),
        None => Err(ReplyError::Inconsistent(format!("no element {index}"))),
    }
}

/// `entries` in groups of `width`, at most [`MAX_LISTED`] of them.
fn groups(
    entries: &[Value],
    width: usize,
) -> Result<std::slice::ChunksExact<'_, Value>, ReplyError> {
    if !entries.len().is_multiple_of(width) || entries.len() / width > MAX_LISTED {
        return Err(ReplyError::Inconsistent(format!(
            "a list of {} elements, not groups of {width} up to {MAX_LISTED}",
            entries.len()
        )));
    }
    Ok(entries.chunks_exact(width))
}

/// `inspect`'s reply (see `lua/inspect.lua`).
pub fn inspect(value: &Value) -> Result<FleetInspection, FleetError> {
    let items = items(value)?;
    let ok = matches!(items.first(), Some(Value::BulkString(s)) if s == b"OK");
    if !ok {
        // Another status: its typed error (an `OK` of zero counts is not this reply).
        ok_counts::<0>(status(value, 0)?, 0)?;
        return Err(ReplyError::UnexpectedStatus("OK without the inspection".to_owned()).into());
    }
    if items.len() != 8 {
        return Err(ReplyError::Arity {
            status: "OK",
            expected: 8,
            got: items.len(),
        }
        .into());
    }
    let now_ms = match raw(items, 1)?.map(|t| t.parse::<i64>()) {
        Some(Ok(now)) if now >= 0 => now,
        _ => {
            return Err(
                ReplyError::Inconsistent("the store's time is not a time".to_owned()).into(),
            );
        }
    };
    let pool = array(items, 2)?;
    let pool = match pool.len() {
        0 => None,
        4 => Some(PoolView {
            capacity: stored(raw(pool, 0)?),
            available: stored(raw(pool, 1)?),
            held_total: stored(raw(pool, 2)?),
            owed_total: stored(raw(pool, 3)?),
        }),
        n => return Err(ReplyError::Inconsistent(format!("a pool of {n} fields")).into()),
    };
    let leases = groups(array(items, 4)?, 4)?
        .map(|lease| {
            Ok(LeaseView {
                id: raw(lease, 0)?.unwrap_or_default(),
                expires_in_ms: relative(raw(lease, 1)?, now_ms, 1),
                held: stored(raw(lease, 2)?),
                owes: stored(raw(lease, 3)?),
            })
        })
        .collect::<Result<_, ReplyError>>()?;
    let limiter = array(items, 5)?;
    let limiter = match limiter.len() {
        0 => None,
        7 => Some(LimiterView {
            cuts: stored(raw(limiter, 0)?),
            w_max_milli: stored(raw(limiter, 1)?),
            since_cut_ms: relative(raw(limiter, 2)?, now_ms, -1),
            sum_milli: stored(raw(limiter, 3)?),
            asked_milli: stored(raw(limiter, 4)?),
            unbounded: stored(raw(limiter, 5)?),
            cut_members: stored(raw(limiter, 6)?),
        }),
        n => return Err(ReplyError::Inconsistent(format!("a limiter of {n} fields")).into()),
    };
    let members = groups(array(items, 7)?, 4)?
        .map(|member| {
            Ok(MemberView {
                id: raw(member, 0)?.unwrap_or_default(),
                expires_in_ms: relative(raw(member, 1)?, now_ms, 1),
                rate_milli: stored(raw(member, 2)?),
                demand_milli: stored(raw(member, 3)?),
            })
        })
        .collect::<Result<_, ReplyError>>()?;
    Ok(FleetInspection {
        pool,
        lease_count: total(items, 3)?,
        leases,
        limiter,
        member_count: total(items, 6)?,
        members,
    })
}
