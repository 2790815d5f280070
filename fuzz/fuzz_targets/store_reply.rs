//! Any reply at all from the fleet store (a tree of Redis values: arrays, integers, strings,
//! statuses, errors, doubles, nested to any depth the input allows), read by every call's
//! parser with any request: never a panic, and an `Ok` only for replies whose counts agree
//! with the request and with each other.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use rebound_redis::internals::{Value, init, inspect, lease, limiter, release, report};

/// The deepest array the input builds (the store never nests; a hostile one might).
const MAX_DEPTH: u32 = 4;

fn value(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    Ok(match u.int_in_range(0..=7)? {
        0 => Value::Nil,
        1 => Value::Int(i64::arbitrary(u)?),
        2 => Value::BulkString(<&[u8]>::arbitrary(u)?.to_vec()),
        3 => Value::SimpleString(String::arbitrary(u)?),
        4 => Value::Okay,
        5 => Value::Double(f64::arbitrary(u)?),
        6 => {
            let status: &[u8] = u.choose(&[
                &b"OK"[..],
                b"LOST",
                b"MISMATCH",
                b"WRONGTYPE",
                b"CORRUPT",
                b"BADARG",
            ])?;
            let mut items = vec![Value::BulkString(status.to_vec())];
            // Up to one more count than the longest reply (the limiter's eight).
            for _ in 0..u.int_in_range(0..=9)? {
                items.push(Value::Int(i64::from(u32::arbitrary(u)?) - i64::from(u8::arbitrary(u)?)));
            }
            Value::Array(items)
        }
        _ if depth < MAX_DEPTH => {
            let len = u.int_in_range(0..=8)?;
            let items = (0..len)
                .map(|_| value(u, depth + 1))
                .collect::<arbitrary::Result<Vec<_>>>()?;
            Value::Array(items)
        }
        _ => Value::Nil,
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(capacity), Ok(n), Ok(demand)) = (
        u32::arbitrary(&mut u),
        u32::arbitrary(&mut u),
        u32::arbitrary(&mut u),
    ) else {
        return;
    };
    let Ok(reply) = value(&mut u, 0) else {
        return;
    };
    if let Ok(pool) = init(&reply, capacity) {
        assert_eq!(pool.capacity, capacity);
        assert!(u64::from(pool.available) + u64::from(pool.held_total) <= u64::from(capacity));
    }
    if let Ok(grant) = lease(&reply, capacity, n) {
        assert!(grant.granted <= n && grant.granted <= grant.held);
    }
    if let Ok(ack) = report(&reply, capacity, n) {
        assert!(ack.held <= n);
        let missing = u64::from(capacity) - u64::from(ack.available) - u64::from(ack.held_total);
        assert!(u64::from(ack.refund_room) <= missing);
    }
    let _ = release(&reply, capacity, n);
    if let Ok(state) = limiter(&reply, capacity, n, demand) {
        assert!(state.members >= 1 && state.sum_milli >= n);
        assert!(state.unbounded <= state.members);
        assert!(state.cuts > 0 || state.cut_members == 0);
        if demand == u32::MAX {
            assert!(state.unbounded >= 1, "this member's unbounded demand counts");
        } else {
            assert!(state.asked_milli >= demand, "this member's demand counts");
        }
    }
    if let Ok(view) = inspect(&reply) {
        assert!(view.leases.len() <= rebound_redis::MAX_LISTED);
        assert!(view.members.len() <= rebound_redis::MAX_LISTED);
    }
});
