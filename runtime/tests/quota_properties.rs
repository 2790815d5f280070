//! Properties of the retry quota under arbitrary operations: it never goes
//! below zero nor above its capacity, and refunds never exceed what was
//! taken — sequentially against a reference model, and concurrently from
//! several threads. (The exhaustive interleavings of small cases are checked
//! by the loom model in `src/quota.rs`: `RUSTFLAGS="--cfg loom" cargo test
//! -p rebound-runtime --lib quota`.)
#![cfg(not(loom))]

use std::sync::{Arc, Barrier};

use proptest::prelude::*;
use rebound_runtime::RetryQuota;

#[derive(Debug, Clone, Copy)]
enum Op {
    Acquire(u32),
    Release(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..40).prop_map(Op::Acquire),
        (0u32..40).prop_map(Op::Release)
    ]
}

proptest! {
    // Threads are slow to spawn: fewer cases than the default 256, still
    // many interleavings each. Failures are reported, not persisted, as the
    // tests directory has no lib.rs for proptest to anchor its files to.
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    /// One thread: every result matches the reference (botocore's
    /// `RetryQuota`: acquire only if enough is left; release capped at capacity).
    #[test]
    fn sequential_operations_match_the_reference_model(
        capacity in 0u32..120,
        ops in proptest::collection::vec(op(), 0..200),
    ) {
        let quota = RetryQuota::new(capacity);
        let mut model = capacity;
        for op in ops {
            match op {
                Op::Acquire(cost) => {
                    let ok = cost <= model;
                    prop_assert_eq!(quota.try_acquire(cost).is_ok(), ok);
                    if ok { model -= cost; }
                }
                Op::Release(amount) => {
                    let added = amount.min(capacity - model);
                    prop_assert_eq!(quota.release(amount), added);
                    model += added;
                }
            }
            prop_assert_eq!(quota.available(), model);
        }
    }

    /// Several threads at once: the quota stays within `0..=capacity` at every
    /// observation, each release adds at most what it offered, and in total
    /// the refunds never exceed what was taken (the bucket started full).
    #[test]
    fn concurrent_operations_stay_in_bounds(
        capacity in 0u32..120,
        threads in proptest::collection::vec(proptest::collection::vec(op(), 0..60), 2..5),
    ) {
        let quota = Arc::new(RetryQuota::new(capacity));
        let barrier = Arc::new(Barrier::new(threads.len()));
        let handles: Vec<_> = threads
            .into_iter()
            .map(|ops| {
                let quota = Arc::clone(&quota);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    let (mut taken, mut refunded) = (0u64, 0u64);
                    for op in ops {
                        match op {
                            Op::Acquire(cost) => {
                                if quota.try_acquire(cost).is_ok() {
                                    taken += u64::from(cost);
                                }
                            }
                            Op::Release(amount) => {
                                let added = quota.release(amount);
                                assert!(added <= amount, "released {added} of {amount}");
                                refunded += u64::from(added);
                            }
                        }
                        let available = quota.available();
                        assert!(available <= capacity, "{available} > capacity {capacity}");
                    }
                    (taken, refunded)
                })
            })
            .collect();
        let (mut taken, mut refunded) = (0u64, 0u64);
        for handle in handles {
            let (t, r) = handle.join().expect("a thread saw the quota out of bounds");
            taken += t;
            refunded += r;
        }
        prop_assert!(refunded <= taken, "refunded {} > taken {}", refunded, taken);
        prop_assert_eq!(u64::from(quota.available()), u64::from(capacity) + refunded - taken);
    }
}
