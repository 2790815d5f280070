//! `Partitions`: `get` never runs the user's `make` closure under the map's
//! lock (issue #8, defect 3), and the map keeps at most `max_partitions`
//! keys, evicting the least recently used one that no one holds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::Duration;

use rebound_runtime::{AdaptiveRetryStrategy, Partitions};

#[test]
fn a_make_that_looks_up_another_key_does_not_deadlock() {
    let map: Arc<OnceLock<Partitions<String, usize>>> = Arc::new(OnceLock::new());
    let inner = Arc::clone(&map);
    let built = map.get_or_init(|| {
        Partitions::new(move |key: &String| {
            // "child" is derived from its parent: a re-entrant lookup.
            match key.strip_suffix("/child") {
                Some(parent) => *inner.get().expect("set").get(parent) + 1,
                None => 0,
            }
        })
    });
    let (done, finished) = mpsc::channel();
    let map2 = Arc::clone(&map);
    thread::spawn(move || {
        let depth = *map2.get().expect("set").get("root/child");
        done.send(depth).expect("receiver");
    });
    let depth = finished
        .recv_timeout(Duration::from_secs(10))
        .expect("a re-entrant make deadlocked");
    assert_eq!(depth, 1);
    assert_eq!(built.len(), 2);
}

#[test]
fn a_slow_make_does_not_block_other_lookups() {
    let (release, gate) = mpsc::channel::<()>();
    let gate = std::sync::Mutex::new(gate);
    let map = Arc::new(Partitions::new(move |key: &String| {
        if key == "slow" {
            gate.lock().unwrap().recv().ok();
        }
        key.len()
    }));
    let slow_map = Arc::clone(&map);
    let slow = thread::spawn(move || *slow_map.get("slow"));
    thread::sleep(Duration::from_millis(20)); // let the slow make start (not a timing assertion)
    let (done, finished) = mpsc::channel();
    let fast_map = Arc::clone(&map);
    thread::spawn(move || done.send(*fast_map.get("fast")).expect("receiver"));
    let fast = finished.recv_timeout(Duration::from_secs(10));
    release.send(()).expect("slow make waits");
    assert_eq!(fast.expect("a slow make blocked another key's lookup"), 4);
    assert_eq!(slow.join().expect("slow"), 4);
    assert_eq!(map.len(), 2);
}

#[test]
fn concurrent_first_lookups_share_one_value() {
    let map = Arc::new(Partitions::new(|_: &u32| Arc::new(())));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let map = Arc::clone(&map);
            thread::spawn(move || map.get(&7))
        })
        .collect();
    let values: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(values.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1])));
    assert_eq!(map.len(), 1);
}

/// A map whose values are the order in which they were made (0, 1, ...):
/// reading a key's value tells whether it was made afresh, without holding it.
fn numbered(max: usize) -> Partitions<String, usize> {
    let made = AtomicUsize::new(0);
    Partitions::new(move |_: &String| made.fetch_add(1, Ordering::Relaxed)).with_max_partitions(max)
}

#[test]
fn many_more_keys_than_the_limit_keep_the_map_bounded() {
    let map = numbered(16);
    for i in 0..1000 {
        map.get(&format!("key-{i}"));
        assert!(map.len() <= 16, "{} keys after {i}", map.len());
    }
    assert_eq!(map.len(), 16);
    // The 16 latest are the ones kept.
    for i in 984..1000 {
        assert_eq!(*map.get(&format!("key-{i}")), i, "key-{i} was made again");
    }
}

#[test]
fn recently_used_keys_survive_and_the_least_recently_used_goes() {
    let map = numbered(4);
    for key in ["a", "b", "c", "d"] {
        map.get(key);
    }
    assert_eq!(*map.get("a"), 0, "a use moves \"a\" to the front");
    map.get("e"); // full: "b" is the least recently used now
    assert_eq!(map.len(), 4);
    assert_eq!(*map.get("a"), 0);
    assert_eq!(*map.get("c"), 2);
    assert_eq!(*map.get("d"), 3);
    assert_eq!(*map.get("e"), 4);
    assert_eq!(*map.get("b"), 5, "\"b\" was evicted and made afresh");
}

#[test]
fn a_held_entry_is_passed_over_while_an_unheld_one_can_go() {
    let map = numbered(3);
    let a = map.get("a"); // the least recently used, but held
    map.get("b");
    map.get("c");
    map.get("d");
    assert_eq!(map.len(), 3);
    assert!(Arc::ptr_eq(&a, &map.get("a")), "the held \"a\" stayed");
    assert_eq!(*map.get("c"), 2);
    assert_eq!(*map.get("d"), 3);
    assert_eq!(*map.get("b"), 4, "\"b\" went instead");
}

#[test]
fn an_evicted_entry_that_is_still_held_keeps_working() {
    let quotas = Partitions::<String, _>::retry_quotas(500).with_max_partitions(2);
    let a = quotas.get("a");
    let b = quotas.get("b");
    a.try_acquire(100).unwrap();
    // Every entry is held: the least recently used, "a", goes anyway.
    let c = quotas.get("c");
    assert_eq!(quotas.len(), 2);
    assert!(Arc::ptr_eq(&b, &quotas.get("b")));
    assert!(Arc::ptr_eq(&c, &quotas.get("c")));
    // The holder of the evicted quota keeps drawing from it...
    assert_eq!(a.available(), 400);
    a.try_acquire(100).unwrap();
    assert_eq!(a.available(), 300);
    // ...and the key starts afresh in the map.
    let fresh = quotas.get("a");
    assert!(!Arc::ptr_eq(&a, &fresh));
    assert_eq!(fresh.available(), 500);
    assert_eq!(quotas.len(), 2);
}

#[test]
fn shrinking_the_limit_evicts_down_to_it() {
    let map = numbered(8);
    for i in 0..8 {
        map.get(&i.to_string());
    }
    let map = map.with_max_partitions(3);
    assert_eq!((map.len(), map.max_partitions()), (3, 3));
    assert_eq!(*map.get("7"), 7, "the most recently used stayed");
}

#[test]
fn a_limit_of_zero_is_taken_as_one() {
    let map = numbered(1).with_max_partitions(0);
    assert_eq!(map.max_partitions(), 1);
    map.get("a");
    map.get("b");
    assert_eq!(map.len(), 1);
}

/// Keys chosen by whoever sends the requests (a table or host name) cannot
/// grow the map past its default limit: 100,000 adaptive partitions, each
/// with its rate limiter, leave 1024.
#[test]
fn a_hundred_thousand_keys_stay_within_the_default_limit() {
    let tables = AdaptiveRetryStrategy::new().partitions::<String>();
    assert_eq!(
        tables.max_partitions(),
        Partitions::<String, AdaptiveRetryStrategy>::DEFAULT_MAX_PARTITIONS
    );
    assert_eq!(tables.max_partitions(), 1024);
    for i in 0..100_000 {
        tables.get(&format!("table-{i}"));
    }
    assert_eq!(tables.len(), 1024);
}

/// Eight threads getting and removing overlapping keys in a map too small
/// for them all: the map never holds more than its limit, and a key a thread
/// holds (never removed, so it is present as long as it is held) gives the
/// same `Arc` each time it is looked up, and the right key's value.
#[test]
fn concurrent_gets_and_removes_keep_the_bound_and_one_value_per_key() {
    const MAX: usize = 32;
    const THREADS: usize = 8;
    // Keys 0..32 are held and never removed; 32..64 are looked up and removed.
    let map = Arc::new(Partitions::new(|key: &usize| *key).with_max_partitions(MAX));
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let map = Arc::clone(&map);
            thread::spawn(move || {
                let mut seed = (thread as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut next = move |n: usize| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % n as u64) as usize
                };
                for _ in 0..2_000 {
                    let key = next(32);
                    let held = map.get(&key);
                    assert_eq!(*held, key);
                    for _ in 0..8 {
                        let churn = 32 + next(32);
                        if next(4) == 0 {
                            map.remove(&churn);
                        } else {
                            assert_eq!(*map.get(&churn), churn);
                        }
                        assert!(map.len() <= MAX, "{} > {MAX}", map.len());
                    }
                    // Held by this thread and at most 15 other `Arc`s: an
                    // unheld entry could always be evicted instead.
                    assert!(Arc::ptr_eq(&held, &map.get(&key)), "key {key}");
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("a thread failed");
    }
    assert!(map.len() <= MAX);
}
