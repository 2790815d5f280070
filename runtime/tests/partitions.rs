//! Issue #8, defect 3: `Partitions::get` must not run the user's `make`
//! closure under the map's lock.

use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::Duration;

use rebound_runtime::Partitions;

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
