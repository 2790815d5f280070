//! The measured send rate when many threads answer at once.
//!
//! Each thread reads the (virtual) time of a response and records it some
//! time later, so the limiter receives the responses of concurrent threads
//! slightly out of time order: through the lock-free log, whose drains
//! interleave with the threads' records, or under the lock. The measured
//! rate must still be the true one, with 2, 8 (as many as the log has lanes)
//! and 32 threads.
//!
//! No real time is involved. Response `n` of the whole run happens at
//! `n / RATE` virtual seconds, shared out round-robin between the threads.
//! Thread `k` records each of its responses `3 * (k % 4)` responses of its
//! own later (a request answered while others were in flight), and the
//! threads meet at a barrier every `PERIOD` virtual seconds, so that none
//! runs ahead of the others by more than that. Within a period the threads'
//! records interleave however the scheduler runs them.

use std::collections::VecDeque;
use std::sync::Barrier;
use std::thread;

use rebound_runtime::rate_limiter::ClientRateLimiter;

/// Responses per virtual second, all threads together: the true rate.
const RATE: f64 = 10_000.0;
/// Virtual seconds of traffic.
const SECONDS: f64 = 20.0;
/// Virtual seconds between barriers.
const PERIOD: f64 = 0.02;
/// Seconds of traffic before the rate is checked: the smoothed rate starts
/// at 0 and needs a few half-second buckets to reach the true one.
const WARM_UP: f64 = 2.0;

/// The rates the limiter measured while `threads` threads recorded `SECONDS`
/// of responses at `RATE`: read by the first thread at each barrier after
/// `WARM_UP`. Each thread also looks at the state every 16 responses (as a
/// send does once the limiter is on), which applies the log.
fn measured_rates(threads: u32) -> Vec<f64> {
    let limiter = ClientRateLimiter::new(0.0);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let per_period = (PERIOD * RATE) as u32 / threads;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let periods = (SECONDS * RATE) as u32 / (per_period * threads);
    let barrier = Barrier::new(threads as usize);
    thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let (limiter, barrier) = (&limiter, &barrier);
                scope.spawn(move || {
                    let lag = 3 * (thread as usize % 4);
                    let mut in_flight = VecDeque::new();
                    let mut rates = Vec::new();
                    for period in 0..periods {
                        barrier.wait();
                        let first = (period * per_period) * threads;
                        if thread == 0 && f64::from(first) / RATE >= WARM_UP {
                            rates.push(limiter.snapshot().measured_rate);
                        }
                        for i in 0..per_period {
                            let n = (period * per_period + i) * threads + thread;
                            in_flight.push_back(f64::from(n) / RATE);
                            if in_flight.len() > lag {
                                let timed = in_flight.pop_front().expect("in flight");
                                limiter.on_response(timed, false);
                            }
                            if i % 16 == 15 {
                                let _ = limiter.snapshot();
                            }
                        }
                    }
                    for timed in in_flight {
                        limiter.on_response(timed, false);
                    }
                    rates
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a thread failed"))
            .collect()
    })
}

/// The mean measured rate within 10% of the true one, and every reading
/// within 20%: a response is late by at most `PERIOD` and its thread's lag
/// (26 ms with 32 threads), which can move it into the next bucket, so a
/// bucket's count is off by 10% at most.
fn assert_measures_the_true_rate(threads: u32) {
    let rates = measured_rates(threads);
    #[allow(clippy::cast_precision_loss)]
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let worst = rates
        .iter()
        .copied()
        .max_by(|a, b| (a - RATE).abs().total_cmp(&(b - RATE).abs()))
        .expect("readings");
    assert!(
        (mean - RATE).abs() < 0.1 * RATE && (worst - RATE).abs() < 0.2 * RATE,
        "{threads} threads, true rate {RATE}/s: measured {mean:.1}/s on average \
         over {} readings, {worst:.1}/s at worst",
        rates.len()
    );
}

#[test]
fn two_threads_measure_the_true_rate() {
    assert_measures_the_true_rate(2);
}

#[test]
fn eight_threads_measure_the_true_rate() {
    assert_measures_the_true_rate(8);
}

#[test]
fn thirty_two_threads_measure_the_true_rate() {
    assert_measures_the_true_rate(32);
}
