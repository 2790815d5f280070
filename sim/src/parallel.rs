//! [`map`]: independent runs spread over the machine's cores, results in
//! input order. Each run is seeded from its own key and owns its clock and
//! strategies, so its result does not depend on which thread ran it or
//! when: the output is the same on one core or many.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

/// `run` applied to every item, on up to `threads` threads (at least
/// one), the results in the items' order; `progress` is called on the
/// calling thread once per finished item.
///
/// ```
/// let squares = rebound_sim::parallel::map(&[1, 2, 3, 4], 2, |n| n * n, || {});
/// assert_eq!(squares, [1, 4, 9, 16]);
/// ```
pub fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    run: impl Fn(&T) -> R + Sync,
    mut progress: impl FnMut(),
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<R>> = items.iter().map(|_| None).collect();
    thread::scope(|scope| {
        let (done, finished) = mpsc::channel();
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            let done = done.clone();
            let (next, run) = (&next, &run);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    if done.send((index, run(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        for (index, result) in finished {
            results[index] = Some(result);
            progress();
        }
    });
    results
        .into_iter()
        .map(|result| result.expect("every item was run"))
        .collect()
}

/// The threads to use: the machine's available parallelism, or one.
#[must_use]
pub fn threads() -> usize {
    thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_whatever_the_threads() {
        let items: Vec<u64> = (0..50).collect();
        // Later items finish first: the slow ones are at the front.
        let slow_first = |n: &u64| {
            let mut spin = 0_u64;
            for i in 0..(50 - n) * 1000 {
                spin = std::hint::black_box(spin ^ i);
            }
            *n
        };
        for threads in [1, 3, 8] {
            let mut calls = 0;
            let out = map(&items, threads, slow_first, || calls += 1);
            assert_eq!(out, items, "{threads} threads");
            assert_eq!(calls, items.len());
        }
        assert!(map(&[] as &[u8], 4, |n| *n, || {}).is_empty());
    }
}
