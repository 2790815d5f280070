//! The scripts' replies, read as untrusted input.
//!
//! A reply comes from whatever answers at the store's address: a server of another version, a
//! proxy, a key someone else wrote. Every element is checked (an array, a known status first,
//! the status's arity, counts that fit a `u32`, counts that agree with each other and with the
//! request), and anything else is a [`ReplyError`], never a panic.

use redis::Value;
use thiserror::Error;

use crate::error::FleetError;

/// The pool after [`init`](crate::FleetQuotaClient::init).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolState {
    /// The fleet's quota.
    pub capacity: u32,
    /// The tokens in the pool, not leased.
    pub available: u32,
    /// The tokens all live leases hold together.
    pub held_total: u32,
}

/// The answer to [`lease`](crate::FleetQuotaClient::lease).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseGrant {
    /// The tokens this call added to the lease: at most the tokens asked for.
    pub granted: u32,
    /// The tokens the lease holds now, these included.
    pub held: u32,
    /// The tokens left in the pool.
    pub available: u32,
    /// Milliseconds until the fleet's first lease lapses, by the store's clock (0 when one has;
    /// `u32::MAX` when none will): when a call would reclaim it.
    pub next_lapse_ms: u32,
}

/// The answer to [`report`](crate::FleetQuotaClient::report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportAck {
    /// The tokens the lease holds now: the tokens kept, or fewer when the store knew of
    /// fewer (the lease never grows on a report).
    pub held: u32,
    /// The tokens in the pool after the refunds.
    pub available: u32,
    /// The tokens all live leases hold together, this one's included.
    pub held_total: u32,
    /// How many refunds beyond its balance this lease may bring to its next report: the
    /// tokens this report said it spent, plus its share of what the pool misses
    /// (`capacity - available - held_total`), never more than the pool misses. Refunds earned
    /// beyond it had nothing to refill when they were earned, as a full local quota drops
    /// them, and are dropped.
    pub refund_room: u32,
    /// Milliseconds until the fleet's first lease lapses, as in [`LeaseGrant::next_lapse_ms`].
    pub next_lapse_ms: u32,
}

/// The answer to [`release`](crate::FleetQuotaClient::release).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Released {
    /// The tokens that went back to the pool.
    pub returned: u32,
    /// The tokens in the pool now.
    pub available: u32,
}

/// The fleet rate limiter's state, as [`limiter`](crate::FleetQuotaClient::limiter) reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FleetRateState {
    /// How many times the fleet's rate was cut; 0 until the fleet's first throttle.
    pub cuts: u32,
    /// The fleet's measured rate when it was last cut, in milli-requests per second.
    pub w_max_milli: u32,
    /// Milliseconds since the last cut (0 before the first).
    pub since_cut_ms: u32,
    /// The rates the fleet's members measure, added up, in milli-requests per second.
    pub sum_milli: u32,
    /// The processes that called within a lease TTL, this one included.
    pub members: u32,
    /// The bounded demands of the members ([`Demand::Rate`](crate::Demand::Rate)) added up,
    /// in milli-requests per second.
    pub asked_milli: u32,
    /// How many members' demands are [`Unbounded`](crate::Demand::Unbounded).
    pub unbounded: u32,
    /// How many members the fleet had at the last cut (0 before the first, or from a store
    /// that did not count them).
    pub cut_members: u32,
}

/// A reply of a shape the protocol does not have.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ReplyError {
    /// The reply is not an array.
    #[error("expected an array, got {0}")]
    NotAnArray(String),
    /// The array does not start with a status string.
    #[error("expected a status string first, got {0}")]
    NoStatus(String),
    /// The status is not one this call can answer.
    #[error("unexpected status {0:?}")]
    UnexpectedStatus(String),
    /// The status came with too few or too many elements.
    #[error("{status} reply with {got} elements, expected {expected}")]
    Arity {
        /// The status.
        status: &'static str,
        /// The elements expected, the status included.
        expected: usize,
        /// The elements received.
        got: usize,
    },
    /// An element that should be a count (an integer from 0 to `u32::MAX`) is not.
    #[error("element {index} is not a count: {found}")]
    NotACount {
        /// The element's position (the status is 0).
        index: usize,
        /// What it is.
        found: String,
    },
    /// An element that should be a string is not.
    #[error("element {index} is not a string: {found}")]
    NotAString {
        /// The element's position (the status is 0).
        index: usize,
        /// What it is.
        found: String,
    },
    /// The counts contradict each other or the request.
    #[error("inconsistent reply: {0}")]
    Inconsistent(String),
    /// The script rejected one of its arguments (a client bug, or a script of another version
    /// under the same name).
    #[error("the script rejected its argument {0}")]
    RejectedArgument(u32),
}

/// The longest piece of a received string an error quotes.
const QUOTE_LIMIT: usize = 40;

/// A short description of a value, for errors: its kind, and a bounded quote of its content.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Nil => "nil".to_owned(),
        Value::Int(n) => format!("the integer {n}"),
        Value::BulkString(bytes) => format!("the string {}", quote(bytes)),
        Value::SimpleString(s) => format!("the status {}", quote(s.as_bytes())),
        Value::Okay => "OK".to_owned(),
        Value::Array(items) => format!("an array of {}", items.len()),
        Value::Map(items) => format!("a map of {}", items.len()),
        Value::Set(items) => format!("a set of {}", items.len()),
        Value::Double(x) => format!("the double {x}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::ServerError(err) => format!("the error {}", quote(err.to_string().as_bytes())),
        _ => "a value of another kind".to_owned(),
    }
}

/// `bytes` as text, cut at [`QUOTE_LIMIT`] characters.
pub(crate) fn truncated(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut cut: String = text.chars().take(QUOTE_LIMIT).collect();
    if text.chars().nth(QUOTE_LIMIT).is_some() {
        cut.push('…');
    }
    cut
}

/// `bytes` as a quoted, escaped string, cut at [`QUOTE_LIMIT`] characters.
fn quote(bytes: &[u8]) -> String {
    format!("{:?}", truncated(bytes))
}

/// A script's reply, its status read and its arity checked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// `OK` and its counts.
    Ok(Vec<u32>),
    /// The lease does not exist (it lapsed, or was never taken).
    Lost,
    /// The pool exists with another capacity.
    Mismatch(u32),
    /// A key holds another type.
    WrongType { key: String, found: String },
    /// The pool hash is malformed.
    Corrupt(String),
    /// The script rejected an argument.
    BadArg(u32),
}

pub(crate) fn items(value: &Value) -> Result<&[Value], ReplyError> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(ReplyError::NotAnArray(describe(other))),
    }
}

fn text(items: &[Value], index: usize) -> Result<String, ReplyError> {
    match &items[index] {
        Value::BulkString(bytes) => Ok(truncated(bytes)),
        Value::SimpleString(s) => Ok(truncated(s.as_bytes())),
        other => Err(ReplyError::NotAString {
            index,
            found: describe(other),
        }),
    }
}

fn count(items: &[Value], index: usize) -> Result<u32, ReplyError> {
    match &items[index] {
        Value::Int(n) => u32::try_from(*n).map_err(|_| ReplyError::NotACount {
            index,
            found: describe(&items[index]),
        }),
        other => Err(ReplyError::NotACount {
            index,
            found: describe(other),
        }),
    }
}

fn arity(items: &[Value], status: &'static str, expected: usize) -> Result<(), ReplyError> {
    if items.len() == expected {
        Ok(())
    } else {
        Err(ReplyError::Arity {
            status,
            expected,
            got: items.len(),
        })
    }
}

/// Reads a reply whose `OK` carries `ok_counts` counts.
pub(crate) fn status(value: &Value, ok_counts: usize) -> Result<Status, ReplyError> {
    let items = items(value)?;
    let Some(first) = items.first() else {
        return Err(ReplyError::NoStatus("an empty array".to_owned()));
    };
    let status = match first {
        Value::BulkString(bytes) => bytes.as_slice(),
        Value::SimpleString(s) => s.as_bytes(),
        other => return Err(ReplyError::NoStatus(describe(other))),
    };
    match status {
        b"OK" => {
            arity(items, "OK", 1 + ok_counts)?;
            let counts = (1..items.len())
                .map(|index| count(items, index))
                .collect::<Result<_, _>>()?;
            Ok(Status::Ok(counts))
        }
        b"LOST" => {
            arity(items, "LOST", 1)?;
            Ok(Status::Lost)
        }
        b"MISMATCH" => {
            arity(items, "MISMATCH", 2)?;
            Ok(Status::Mismatch(count(items, 1)?))
        }
        b"WRONGTYPE" => {
            arity(items, "WRONGTYPE", 3)?;
            Ok(Status::WrongType {
                key: text(items, 1)?,
                found: text(items, 2)?,
            })
        }
        b"CORRUPT" => {
            arity(items, "CORRUPT", 2)?;
            Ok(Status::Corrupt(text(items, 1)?))
        }
        b"BADARG" => {
            arity(items, "BADARG", 2)?;
            Ok(Status::BadArg(count(items, 1)?))
        }
        other => Err(ReplyError::UnexpectedStatus(truncated(other))),
    }
}

/// The statuses every call may meet, as errors; `OK`'s counts otherwise.
pub(crate) fn ok_counts<const N: usize>(
    status: Status,
    configured: u32,
) -> Result<[u32; N], FleetError> {
    match status {
        Status::Ok(counts) => counts.try_into().map_err(|counts: Vec<u32>| {
            // `status` checked the arity; this only guards a caller asking for another N.
            ReplyError::Arity {
                status: "OK",
                expected: N + 1,
                got: counts.len() + 1,
            }
            .into()
        }),
        Status::Lost => Err(FleetError::LeaseLost),
        Status::Mismatch(stored) => Err(FleetError::CapacityMismatch { configured, stored }),
        Status::WrongType { key, found } => Err(FleetError::WrongType {
            detail: format!("{key:?} is a {found:?}"),
        }),
        Status::Corrupt(detail) => Err(FleetError::CorruptPool { detail }),
        Status::BadArg(index) => Err(ReplyError::RejectedArgument(index).into()),
    }
}

fn unexpected(status: &str) -> FleetError {
    ReplyError::UnexpectedStatus(status.to_owned()).into()
}

fn inconsistent(what: String) -> FleetError {
    ReplyError::Inconsistent(what).into()
}

/// `init`'s reply: `OK capacity available held_total`, or `MISMATCH stored`.
pub fn init(value: &Value, configured: u32) -> Result<PoolState, FleetError> {
    let status = status(value, 3)?;
    if status == Status::Lost {
        return Err(unexpected("LOST"));
    }
    let [capacity, available, held_total] = ok_counts(status, configured)?;
    if capacity != configured {
        return Err(inconsistent(format!(
            "OK for capacity {configured} with capacity {capacity}"
        )));
    }
    if u64::from(available) + u64::from(held_total) > u64::from(capacity) {
        return Err(inconsistent(format!(
            "available {available} + held {held_total} exceeds capacity {capacity}"
        )));
    }
    Ok(PoolState {
        capacity,
        available,
        held_total,
    })
}

/// `lease`'s reply: `OK granted held available next_lapse_ms`, or `MISMATCH stored`.
pub fn lease(value: &Value, configured: u32, want: u32) -> Result<LeaseGrant, FleetError> {
    let status = status(value, 4)?;
    if status == Status::Lost {
        return Err(unexpected("LOST"));
    }
    let [granted, held, available, next_lapse_ms] = ok_counts(status, configured)?;
    if granted > want || granted > held {
        return Err(inconsistent(format!(
            "granted {granted} of {want} asked, holding {held}"
        )));
    }
    if u64::from(held) + u64::from(available) > u64::from(configured) {
        return Err(inconsistent(format!(
            "held {held} + available {available} exceeds capacity {configured}"
        )));
    }
    Ok(LeaseGrant {
        granted,
        held,
        available,
        next_lapse_ms,
    })
}

/// `limiter`'s reply: `OK cuts w_max since_cut sum members asked unbounded cut_members`, to a
/// call that sent `rate_milli` and `demand_milli` ([`Demand::milli`](crate::Demand::milli)).
pub fn limiter(
    value: &Value,
    configured: u32,
    rate_milli: u32,
    demand_milli: u32,
) -> Result<FleetRateState, FleetError> {
    let status = status(value, 8)?;
    match status {
        Status::Lost => return Err(unexpected("LOST")),
        Status::Mismatch(_) => return Err(unexpected("MISMATCH")),
        _ => {}
    }
    let [
        cuts,
        w_max_milli,
        since_cut_ms,
        sum_milli,
        members,
        asked_milli,
        unbounded,
        cut_members,
    ] = ok_counts(status, configured)?;
    if members == 0 {
        return Err(inconsistent("no members, this one included".to_owned()));
    }
    if sum_milli < rate_milli {
        return Err(inconsistent(format!(
            "the members' rates add up to {sum_milli}, less than this one's {rate_milli}"
        )));
    }
    if cuts == 0 && (w_max_milli != 0 || since_cut_ms != 0 || cut_members != 0) {
        return Err(inconsistent(format!(
            "no cut, yet a cut rate of {w_max_milli} {since_cut_ms} ms ago among {cut_members}"
        )));
    }
    if unbounded > members {
        return Err(inconsistent(format!(
            "{unbounded} unbounded demands among {members} members"
        )));
    }
    if demand_milli == u32::MAX && unbounded == 0 {
        return Err(inconsistent(
            "no unbounded demand, this one's included".to_owned(),
        ));
    }
    if demand_milli != u32::MAX && asked_milli < demand_milli {
        return Err(inconsistent(format!(
            "the members' demands add up to {asked_milli}, less than this one's {demand_milli}"
        )));
    }
    Ok(FleetRateState {
        cuts,
        w_max_milli,
        since_cut_ms,
        sum_milli,
        members,
        asked_milli,
        unbounded,
        cut_members,
    })
}

/// `limiter`'s reply to a member that left (a TTL of 0): `OK` and the eight counts, which say
/// nothing about the caller any more.
pub(crate) fn left_limiter(value: &Value, configured: u32) -> Result<(), FleetError> {
    let status = status(value, 8)?;
    match status {
        Status::Lost => Err(unexpected("LOST")),
        Status::Mismatch(_) => Err(unexpected("MISMATCH")),
        _ => ok_counts::<8>(status, configured).map(|_| ()),
    }
}

/// `report`'s reply: `OK held available held_total refund_room next_lapse_ms`, or `LOST`.
pub fn report(value: &Value, configured: u32, keep: u32) -> Result<ReportAck, FleetError> {
    let status = status(value, 5)?;
    if let Status::Mismatch(_) = status {
        return Err(unexpected("MISMATCH"));
    }
    let [held, available, held_total, refund_room, next_lapse_ms] = ok_counts(status, configured)?;
    if held > keep {
        return Err(inconsistent(format!("holding {held} after keeping {keep}")));
    }
    if held > held_total {
        return Err(inconsistent(format!(
            "holding {held} of all leases' {held_total}"
        )));
    }
    if u64::from(held_total) + u64::from(available) > u64::from(configured) {
        return Err(inconsistent(format!(
            "held {held_total} + available {available} exceeds capacity {configured}"
        )));
    }
    let missing = u64::from(configured) - u64::from(held_total) - u64::from(available);
    if u64::from(refund_room) > missing {
        return Err(inconsistent(format!(
            "a refund room of {refund_room} where the pool misses {missing}"
        )));
    }
    Ok(ReportAck {
        held,
        available,
        held_total,
        refund_room,
        next_lapse_ms,
    })
}

/// `release`'s reply: `OK returned available`, or `LOST`.
pub fn release(value: &Value, configured: u32, keep: u32) -> Result<Released, FleetError> {
    let status = status(value, 2)?;
    if let Status::Mismatch(_) = status {
        return Err(unexpected("MISMATCH"));
    }
    let [returned, available] = ok_counts(status, configured)?;
    if returned > keep {
        return Err(inconsistent(format!("returned {returned} of {keep} kept")));
    }
    if available > configured {
        return Err(inconsistent(format!(
            "available {available} exceeds capacity {configured}"
        )));
    }
    Ok(Released {
        returned,
        available,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    fn ok(counts: &[i64]) -> Value {
        let mut items = vec![bulk("OK")];
        items.extend(counts.iter().map(|&n| Value::Int(n)));
        Value::Array(items)
    }

    fn reply_error(result: Result<impl std::fmt::Debug, FleetError>) -> ReplyError {
        match result {
            Err(FleetError::Reply(err)) => err,
            other => panic!("expected a reply error, got {other:?}"),
        }
    }

    #[test]
    fn well_formed_replies() {
        assert_eq!(
            init(&ok(&[500, 480, 20]), 500).unwrap(),
            PoolState {
                capacity: 500,
                available: 480,
                held_total: 20
            }
        );
        assert_eq!(
            lease(&ok(&[25, 30, 470, 9000]), 500, 25).unwrap(),
            LeaseGrant {
                granted: 25,
                held: 30,
                available: 470,
                next_lapse_ms: 9000
            }
        );
        assert_eq!(
            report(&ok(&[10, 470, 20, 10, 0]), 500, 10).unwrap(),
            ReportAck {
                held: 10,
                available: 470,
                held_total: 20,
                refund_room: 10,
                next_lapse_ms: 0
            }
        );
        assert_eq!(
            release(&ok(&[10, 500]), 500, 10).unwrap(),
            Released {
                returned: 10,
                available: 500
            }
        );
        // A status string may come as a simple string too.
        let simple = Value::Array(vec![Value::SimpleString("OK".into()), Value::Int(1)]);
        assert!(status(&simple, 1).is_ok());
    }

    #[test]
    fn protocol_statuses_become_typed_errors() {
        let lost = Value::Array(vec![bulk("LOST")]);
        assert!(matches!(report(&lost, 5, 1), Err(FleetError::LeaseLost)));
        assert!(matches!(release(&lost, 5, 1), Err(FleetError::LeaseLost)));
        let mismatch = Value::Array(vec![bulk("MISMATCH"), Value::Int(100)]);
        assert!(matches!(
            init(&mismatch, 500),
            Err(FleetError::CapacityMismatch {
                configured: 500,
                stored: 100
            })
        ));
        assert!(matches!(
            lease(&mismatch, 500, 5),
            Err(FleetError::CapacityMismatch { .. })
        ));
        let wrong = Value::Array(vec![
            bulk("WRONGTYPE"),
            bulk("rebound:{f}:pool"),
            bulk("string"),
        ]);
        match init(&wrong, 5) {
            Err(FleetError::WrongType { detail }) => {
                assert!(detail.contains("rebound:{f}:pool"), "{detail}");
                assert!(detail.contains("string"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
        let corrupt = Value::Array(vec![bulk("CORRUPT"), bulk("capacity is not a number")]);
        assert!(matches!(
            lease(&corrupt, 5, 5),
            Err(FleetError::CorruptPool { .. })
        ));
        let bad_arg = Value::Array(vec![bulk("BADARG"), Value::Int(3)]);
        assert_eq!(
            reply_error(report(&bad_arg, 5, 1)),
            ReplyError::RejectedArgument(3)
        );
        // A status a call cannot receive is an error too.
        assert_eq!(
            reply_error(init(&lost, 5)),
            ReplyError::UnexpectedStatus("LOST".into())
        );
        assert_eq!(
            reply_error(report(&mismatch, 5, 1)),
            ReplyError::UnexpectedStatus("MISMATCH".into())
        );
    }

    #[test]
    fn wrong_shapes() {
        for value in [
            Value::Nil,
            Value::Int(1),
            bulk("OK"),
            Value::Okay,
            Value::Double(1.5),
            Value::Boolean(true),
            Value::Map(vec![(bulk("OK"), Value::Int(1))]),
        ] {
            assert!(
                matches!(reply_error(init(&value, 5)), ReplyError::NotAnArray(_)),
                "{value:?}"
            );
        }
        assert!(matches!(
            reply_error(init(&Value::Array(vec![]), 5)),
            ReplyError::NoStatus(_)
        ));
        assert!(matches!(
            reply_error(init(&Value::Array(vec![Value::Int(0)]), 5)),
            ReplyError::NoStatus(_)
        ));
        assert!(matches!(
            reply_error(init(&Value::Array(vec![Value::Nil, Value::Int(0)]), 5)),
            ReplyError::NoStatus(_)
        ));
        assert_eq!(
            reply_error(init(&Value::Array(vec![bulk("ok")]), 5)),
            ReplyError::UnexpectedStatus("ok".into())
        );
        let nested = Value::Array(vec![Value::Array(vec![bulk("OK")])]);
        assert!(matches!(
            reply_error(init(&nested, 5)),
            ReplyError::NoStatus(_)
        ));
    }

    #[test]
    fn wrong_arity() {
        for counts in [&[][..], &[5], &[5, 5], &[5, 5, 0, 0]] {
            assert_eq!(
                reply_error(init(&ok(counts), 5)),
                ReplyError::Arity {
                    status: "OK",
                    expected: 4,
                    got: counts.len() + 1
                }
            );
        }
        assert!(matches!(
            reply_error(report(&ok(&[1, 2, 3, 4, 5, 6]), 5, 1)),
            ReplyError::Arity { .. }
        ));
        let lost = Value::Array(vec![bulk("LOST"), Value::Int(0)]);
        assert!(matches!(
            reply_error(report(&lost, 5, 1)),
            ReplyError::Arity { status: "LOST", .. }
        ));
        let mismatch = Value::Array(vec![bulk("MISMATCH")]);
        assert!(matches!(
            reply_error(init(&mismatch, 5)),
            ReplyError::Arity { .. }
        ));
        let wrong = Value::Array(vec![bulk("WRONGTYPE"), bulk("k")]);
        assert!(matches!(
            reply_error(init(&wrong, 5)),
            ReplyError::Arity { .. }
        ));
    }

    #[test]
    fn counts_must_be_u32_integers() {
        for bad in [-1, i64::MIN, i64::from(u32::MAX) + 1, i64::MAX] {
            assert!(
                matches!(
                    reply_error(init(&ok(&[5, bad, 0]), 5)),
                    ReplyError::NotACount { index: 2, .. }
                ),
                "{bad}"
            );
        }
        for bad in [
            bulk("5"),
            bulk("five"),
            Value::SimpleString("5".into()),
            Value::Double(5.0),
            Value::Nil,
            Value::Boolean(true),
            Value::Array(vec![Value::Int(5)]),
        ] {
            let value = Value::Array(vec![
                bulk("OK"),
                bad.clone(),
                Value::Int(0),
                Value::Int(5),
                Value::Int(0),
                Value::Int(0),
            ]);
            assert!(
                matches!(
                    reply_error(report(&value, 5, 5)),
                    ReplyError::NotACount { index: 1, .. }
                ),
                "{bad:?}"
            );
        }
        let mismatch = Value::Array(vec![bulk("MISMATCH"), Value::Int(-3)]);
        assert!(matches!(
            reply_error(init(&mismatch, 5)),
            ReplyError::NotACount { .. }
        ));
        let wrong = Value::Array(vec![bulk("WRONGTYPE"), Value::Int(1), bulk("t")]);
        assert!(matches!(
            reply_error(init(&wrong, 5)),
            ReplyError::NotAString { index: 1, .. }
        ));
    }

    #[test]
    fn counts_must_agree() {
        // init: the configured capacity; available + held within it.
        assert!(matches!(
            reply_error(init(&ok(&[400, 400, 0]), 500)),
            ReplyError::Inconsistent(_)
        ));
        assert!(matches!(
            reply_error(init(&ok(&[500, 400, 101]), 500)),
            ReplyError::Inconsistent(_)
        ));
        let max = i64::from(u32::MAX);
        assert!(matches!(
            reply_error(init(&ok(&[max, max, max]), u32::MAX)),
            ReplyError::Inconsistent(_)
        ));
        // lease: no more than asked, within what is held, within the capacity.
        assert!(matches!(
            reply_error(lease(&ok(&[26, 26, 0, 0]), 500, 25)),
            ReplyError::Inconsistent(_)
        ));
        assert!(matches!(
            reply_error(lease(&ok(&[20, 10, 0, 0]), 500, 25)),
            ReplyError::Inconsistent(_)
        ));
        assert!(matches!(
            reply_error(lease(&ok(&[20, 20, 481, 0]), 500, 25)),
            ReplyError::Inconsistent(_)
        ));
        // report: never more than kept.
        assert!(matches!(
            reply_error(report(&ok(&[11, 0, 11, 0, 0]), 500, 10)),
            ReplyError::Inconsistent(_)
        ));
        assert!(matches!(
            reply_error(report(&ok(&[10, 491, 10, 0, 0]), 500, 10)),
            ReplyError::Inconsistent(_)
        ));
        // report: this lease's tokens are part of all leases'.
        assert!(matches!(
            reply_error(report(&ok(&[10, 0, 9, 0, 0]), 500, 10)),
            ReplyError::Inconsistent(_)
        ));
        // report: the refund room is within what the pool misses.
        assert!(matches!(
            reply_error(report(&ok(&[10, 470, 20, 11, 0]), 500, 10)),
            ReplyError::Inconsistent(_)
        ));
        // release: never more than kept, never above capacity.
        assert!(matches!(
            reply_error(release(&ok(&[11, 0]), 500, 10)),
            ReplyError::Inconsistent(_)
        ));
        assert!(matches!(
            reply_error(release(&ok(&[0, 501]), 500, 10)),
            ReplyError::Inconsistent(_)
        ));
    }

    #[test]
    fn long_hostile_strings_are_quoted_briefly() {
        let huge = "x".repeat(1 << 20);
        let err = reply_error(init(&Value::Array(vec![bulk(&huge)]), 5));
        let message = err.to_string();
        assert!(message.len() < 200, "{message}");
        let err = reply_error(init(&bulk(&huge), 5));
        assert!(err.to_string().len() < 200);
        let binary = Value::Array(vec![Value::BulkString(vec![0xff, 0xfe, 0, b'\n'])]);
        assert!(matches!(
            reply_error(init(&binary, 5)),
            ReplyError::UnexpectedStatus(_)
        ));
    }

    #[test]
    fn limiter_replies() {
        const UNBOUNDED: u32 = u32::MAX;
        assert_eq!(
            limiter(
                &ok(&[2, 1_000_000, 1500, 900_000, 3, 50_000, 2, 3]),
                500,
                300_000,
                UNBOUNDED
            )
            .unwrap(),
            FleetRateState {
                cuts: 2,
                w_max_milli: 1_000_000,
                since_cut_ms: 1500,
                sum_milli: 900_000,
                members: 3,
                asked_milli: 50_000,
                unbounded: 2,
                cut_members: 3,
            }
        );
        assert_eq!(
            limiter(&ok(&[0, 0, 0, 7, 1, 7, 0, 0]), 500, 7, 7)
                .unwrap()
                .cuts,
            0,
            "no throttle yet"
        );
        for hostile in [
            ok(&[0, 5, 0, 7, 1, 7, 1, 0]),       // a cut rate without a cut
            ok(&[0, 0, 9, 7, 1, 7, 1, 0]),       // a time since a cut without one
            ok(&[0, 0, 0, 7, 1, 7, 1, 1]),       // members at a cut without one
            ok(&[1, 5, 0, 7, 0, 7, 0, 1]),       // no members
            ok(&[1, 5, 0, 6, 1, 7, 1, 1]),       // a sum below this member's rate
            ok(&[1, 5, 0, -1, 1, 7, 1, 1]),      // a negative rate
            ok(&[1, 5, 0, 1 << 40, 1, 7, 1, 1]), // beyond u32
            ok(&[1, 5, 0, 7, 1, 7, 2, 1]),       // more unbounded demands than members
            ok(&[1, 5, 0, 7, 1, 6, 1, 1]),       // demands below this member's
            ok(&[1, 5, 0, 7, 1, 7, 1]),          // too short
            ok(&[1, 5, 0, 7, 1, 7, 1, 1, 1]),    // too long
            Value::Array(vec![bulk("LOST")]),    // a quota status
            Value::Array(vec![bulk("MISMATCH"), Value::Int(5)]),
        ] {
            assert!(limiter(&hostile, 500, 7, 7).is_err(), "{hostile:?}");
        }
        assert!(
            limiter(&ok(&[1, 5, 0, 7, 1, 7, 0, 1]), 500, 7, UNBOUNDED).is_err(),
            "no unbounded demand, this one's included"
        );
        assert!(matches!(
            limiter(
                &Value::Array(vec![bulk("BADARG"), Value::Int(2)]),
                500,
                7,
                7
            ),
            Err(FleetError::Reply(ReplyError::RejectedArgument(2)))
        ));
    }
}
