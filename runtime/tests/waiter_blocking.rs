//! The blocking waiter, `Waiter::wait`, in virtual time: every sleep is
//! recorded and advances a `ManualClock`, none is real.

mod executor_support;

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use executor_support::{Failure, Sleeps, ms};
use rebound_runtime::waiter::{GiveUpReason, PollStatus, WaitError, Waiter, WaiterBuilder};
use rebound_runtime::{backoff::SeededRandom, time::ManualClock};

const fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

/// A builder on the recording sleeper and its virtual clock, without jitter:
/// delays of exactly `min_delay * 2^(n - 1)`, capped.
fn builder(
    sleeps: &Sleeps,
    min_delay: Duration,
    max_delay: Duration,
) -> WaiterBuilder<impl Fn(Duration) + '_, ManualClock> {
    Waiter::builder()
        .min_delay(min_delay)
        .max_delay(max_delay)
        .jitter(false)
        .sleeper(|delay| sleeps.sleep(delay))
        .clock(sleeps.clock.clone())
}

/// A poll closure returning `statuses` in order, checking it gets the
/// 1-based poll number, and panicking when asked for more.
fn script(
    statuses: Vec<PollStatus<u32, Failure>>,
) -> (impl FnMut(u32) -> PollStatus<u32, Failure>, Arc<Mutex<u32>>) {
    let calls = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&calls);
    let mut statuses = VecDeque::from(statuses);
    let poll = move |poll| {
        let mut calls = counted.lock().unwrap();
        *calls += 1;
        assert_eq!(
            poll, *calls,
            "the poll closure gets the 1-based poll number"
        );
        statuses
            .pop_front()
            .expect("polled after the waiter should have stopped")
    };
    (poll, calls)
}

#[test]
fn ready_on_the_first_poll_returns_at_once_without_sleeping() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();
    let (poll, calls) = script(vec![PollStatus::Ready(7)]);

    assert_eq!(waiter.wait(poll), Ok(7));
    assert_eq!(*calls.lock().unwrap(), 1);
    assert_eq!(sleeps.slept(), []);
    assert_eq!(sleeps.clock.elapsed(), Duration::ZERO);
}

#[test]
fn not_ready_then_ready_sleeps_the_doubling_delays_exactly() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();
    let (poll, calls) = script(vec![
        PollStatus::NotReady,
        PollStatus::NotReady,
        PollStatus::NotReady,
        PollStatus::NotReady,
        PollStatus::Ready(5),
    ]);

    assert_eq!(waiter.wait(poll), Ok(5));
    assert_eq!(*calls.lock().unwrap(), 5);
    // The seed's `2^retries * 100 ms`.
    assert_eq!(sleeps.slept(), [ms(100), ms(200), ms(400), ms(800)]);
    assert_eq!(sleeps.clock.elapsed(), ms(1500));
}

#[test]
fn throttled_grows_the_delay_exactly_like_not_ready() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();
    let (poll, _) = script(vec![
        PollStatus::Throttled,
        PollStatus::NotReady,
        PollStatus::Throttled,
        PollStatus::Throttled,
        PollStatus::Ready(5),
    ]);

    assert_eq!(waiter.wait(poll), Ok(5));
    assert_eq!(sleeps.slept(), [ms(100), ms(200), ms(400), ms(800)]);
}

#[test]
fn throttled_polls_count_against_max_polls() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10))
        .max_polls(3)
        .build()
        .unwrap();

    let err = waiter
        .wait(|_poll| PollStatus::<(), Failure>::Throttled)
        .unwrap_err();

    assert_eq!(
        err,
        WaitError::GaveUp {
            polls: 3,
            elapsed: ms(300),
            reason: GiveUpReason::MaxPolls { max_polls: 3 },
        }
    );
    assert_eq!(sleeps.slept(), [ms(100), ms(200)]);
}

#[test]
fn failed_stops_at_once_with_the_error() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();
    let (poll, calls) = script(vec![
        PollStatus::NotReady,
        PollStatus::Throttled,
        PollStatus::Failed(Failure::BadRequest),
    ]);

    let err = waiter.wait(poll).unwrap_err();

    assert_eq!(
        err,
        WaitError::Failed {
            polls: 3,
            elapsed: ms(300),
            error: Failure::BadRequest,
        }
    );
    assert_eq!(*calls.lock().unwrap(), 3);
    assert_eq!(
        sleeps.slept(),
        [ms(100), ms(200)],
        "no sleep after the failure"
    );
    assert_eq!(
        err.to_string(),
        "the operation failed on poll 3, after 300ms"
    );
}

#[test]
fn failed_on_the_first_poll_does_not_sleep() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();

    let err = waiter
        .wait(|_poll| PollStatus::<(), _>::Failed(Failure::Unavailable))
        .unwrap_err();

    assert_eq!(err.polls(), 1);
    assert_eq!(err.elapsed(), Duration::ZERO);
    assert_eq!(err.into_error(), Some(Failure::Unavailable));
    assert_eq!(sleeps.slept(), []);
}

#[test]
fn max_polls_reached_gives_up_without_a_last_sleep() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10))
        .max_polls(4)
        .build()
        .unwrap();
    let polls = Cell::new(0);

    let err = waiter
        .wait(|poll| {
            polls.set(poll);
            PollStatus::<(), Failure>::NotReady
        })
        .unwrap_err();

    assert_eq!(polls.get(), 4);
    assert_eq!(
        err,
        WaitError::GaveUp {
            polls: 4,
            elapsed: ms(700),
            reason: GiveUpReason::MaxPolls { max_polls: 4 },
        }
    );
    assert_eq!(sleeps.slept(), [ms(100), ms(200), ms(400)]);
    assert_eq!(
        err.to_string(),
        "gave up after 4 polls in 700ms: all 4 allowed polls were made"
    );
}

#[test]
fn one_allowed_poll_never_sleeps() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10))
        .max_polls(1)
        .build()
        .unwrap();

    let err = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();

    assert_eq!(err.polls(), 1);
    assert_eq!(sleeps.slept(), []);
    assert_eq!(
        err.to_string(),
        "gave up after 1 poll in 0ns: the one allowed poll was made"
    );
}

#[test]
fn the_budget_cuts_the_last_sleep_and_polls_once_more_at_its_end() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(8))
        .budget(secs(10))
        .build()
        .unwrap();
    let polled_at = Mutex::new(Vec::new());

    let err = waiter
        .wait(|_poll| {
            polled_at.lock().unwrap().push(sleeps.clock.elapsed());
            PollStatus::<(), Failure>::NotReady
        })
        .unwrap_err();

    // 1 + 2 + 4 s, then 8 s would end at 15 s: only the 3 s left are slept.
    assert_eq!(sleeps.slept(), [secs(1), secs(2), secs(4), secs(3)]);
    assert_eq!(
        *polled_at.lock().unwrap(),
        [secs(0), secs(1), secs(3), secs(7), secs(10)]
    );
    assert_eq!(
        err,
        WaitError::GaveUp {
            polls: 5,
            elapsed: secs(10),
            reason: GiveUpReason::Budget { budget: secs(10) },
        }
    );
    assert_eq!(
        sleeps.clock.elapsed(),
        secs(10),
        "never sleeps past the budget"
    );
}

#[test]
fn a_poll_at_the_end_of_the_budget_can_still_succeed() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(8))
        .budget(secs(10))
        .build()
        .unwrap();

    let value = waiter.wait(|poll| {
        if poll < 5 {
            PollStatus::<_, Failure>::NotReady
        } else {
            PollStatus::Ready(poll)
        }
    });

    assert_eq!(value, Ok(5));
    assert_eq!(sleeps.clock.elapsed(), secs(10));
}

#[test]
fn the_time_polls_take_counts_against_the_budget() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(1))
        .budget(ms(4800))
        .build()
        .unwrap();

    let err = waiter
        .wait(|_poll| {
            sleeps.clock.advance(ms(500)); // each status request takes 500 ms
            PollStatus::<(), Failure>::NotReady
        })
        .unwrap_err();

    // Polls run 0-0.5, 1.5-2, 3-3.5 and 4.5-5 s; the budget does not
    // interrupt the fourth, and after it nothing is left.
    assert_eq!(sleeps.slept(), [secs(1), secs(1), secs(1)]);
    assert_eq!(
        err,
        WaitError::GaveUp {
            polls: 4,
            elapsed: secs(5),
            reason: GiveUpReason::Budget { budget: ms(4800) },
        }
    );
}

#[test]
fn max_polls_is_checked_before_the_budget() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(8))
        .budget(secs(3))
        .max_polls(3)
        .build()
        .unwrap();

    let err = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();

    // The third poll, at 3 s, ends both the budget and the allowed polls.
    assert_eq!(err.elapsed(), secs(3));
    assert_eq!(err.reason(), Some(&GiveUpReason::MaxPolls { max_polls: 3 }));
}

#[test]
fn delays_are_capped_at_max_delay() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(5))
        .max_polls(8)
        .build()
        .unwrap();

    let err = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();

    assert_eq!(
        sleeps.slept(),
        [
            secs(1),
            secs(2),
            secs(4),
            secs(5),
            secs(5),
            secs(5),
            secs(5)
        ]
    );
    assert_eq!(err.elapsed(), secs(27));
}

#[test]
fn min_delay_equal_to_max_delay_polls_at_a_constant_rate() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(3), secs(3))
        .max_polls(4)
        .jitter(true) // nothing to jitter: the range is one point
        .build()
        .unwrap();

    let _ = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();

    assert_eq!(sleeps.slept(), [secs(3), secs(3), secs(3)]);
}

/// A random source handing out `draws` in order, counting what it handed out.
fn queued(draws: &[f64]) -> (impl Fn() -> f64 + Send + Sync + 'static, Arc<Mutex<usize>>) {
    let draws = Mutex::new(VecDeque::from(draws.to_vec()));
    let taken = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&taken);
    let random = move || {
        *counted.lock().unwrap() += 1;
        draws
            .lock()
            .unwrap()
            .pop_front()
            .expect("one draw too many")
    };
    (random, taken)
}

#[test]
fn jitter_draws_once_per_sleep_between_min_delay_and_the_exponential_delay() {
    let sleeps = Sleeps::new();
    let (random, taken) = queued(&[0.5, 0.0, 0.5, 0.25, 0.999]);
    let waiter = builder(&sleeps, ms(100), ms(1000))
        .jitter(true)
        .random(random)
        .max_polls(6)
        .build()
        .unwrap();

    let _ = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();

    // min_delay + r * (exponential(n) - min_delay), exponential = 100, 200,
    // 400, 800, 1000 ms.
    assert_eq!(
        sleeps.slept(),
        [
            ms(100),                        // the first delay is always min_delay
            ms(100),                        // r = 0: min_delay
            ms(250),                        // 100 + 0.5 * 300
            ms(275),                        // 100 + 0.25 * 700
            Duration::from_micros(999_100), // 100 + 0.999 * 900
        ]
    );
    assert_eq!(*taken.lock().unwrap(), 5, "no draw when giving up");
}

#[test]
fn no_draw_on_ready_or_failed() {
    let sleeps = Sleeps::new();
    let (random, taken) = queued(&[]);
    let waiter = builder(&sleeps, ms(100), ms(1000))
        .jitter(true)
        .random(random)
        .build()
        .unwrap();

    assert_eq!(
        waiter.wait(|_poll| PollStatus::<_, Failure>::Ready(1)),
        Ok(1)
    );
    assert!(
        waiter
            .wait(|_poll| PollStatus::<(), _>::Failed(Failure::BadRequest))
            .is_err()
    );
    assert_eq!(*taken.lock().unwrap(), 0);
}

#[test]
fn jittered_delays_stay_in_range_for_any_seed() {
    for seed in 0..200 {
        let sleeps = Sleeps::new();
        let waiter = builder(&sleeps, ms(100), ms(1000))
            .jitter(true)
            .random(SeededRandom::new(seed))
            .max_polls(8)
            .build()
            .unwrap();

        let _ = waiter
            .wait(|_poll| PollStatus::<(), Failure>::NotReady)
            .unwrap_err();

        let slept = sleeps.slept();
        assert_eq!(slept.len(), 7);
        for (n, delay) in (1..).zip(slept) {
            let exponential = ms(100 * (1 << (n - 1))).min(ms(1000));
            assert!(
                (ms(100)..=exponential).contains(&delay),
                "seed {seed}: delay {n} is {delay:?}, outside 100 ms..={exponential:?}"
            );
        }
    }
}

#[test]
fn faulty_draws_are_clamped_into_the_range() {
    let sleeps = Sleeps::new();
    let (random, _) = queued(&[7.0, f64::NAN, -3.0, f64::INFINITY]);
    let waiter = builder(&sleeps, ms(100), ms(1000))
        .jitter(true)
        .random(random)
        .max_polls(5)
        .build()
        .unwrap();

    let _ = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();

    assert_eq!(sleeps.slept(), [ms(100), ms(100), ms(100), ms(800)]);
}

#[test]
fn a_seeded_waiter_replays_the_same_delays() {
    let run = || {
        let sleeps = Sleeps::new();
        let waiter = builder(&sleeps, ms(100), secs(20))
            .jitter(true)
            .random(SeededRandom::new(42))
            .max_polls(10)
            .build()
            .unwrap();
        let _ = waiter.wait(|_poll| PollStatus::<(), Failure>::NotReady);
        sleeps.slept()
    };
    assert_eq!(run(), run());
}

#[test]
fn extreme_settings_never_panic() {
    let clock = ManualClock::new();
    let waiter = Waiter::builder()
        .min_delay(Duration::from_nanos(1))
        .max_delay(Duration::MAX)
        .budget(Duration::MAX)
        .max_polls(200)
        .random(|| 1.0)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .build()
        .unwrap();

    assert_eq!(waiter.delay_after(u32::MAX), Duration::MAX);
    let err = waiter
        .wait(|_poll| PollStatus::<(), Failure>::NotReady)
        .unwrap_err();
    assert_eq!(err.polls(), 200);
}

#[test]
fn a_manual_clock_is_clock_and_sleeper() {
    let clock = ManualClock::new();
    let waiter = Waiter::builder()
        .min_delay(ms(100))
        .jitter(false)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .build()
        .unwrap();

    let value = waiter.wait(|poll| {
        if poll < 3 {
            PollStatus::<_, Failure>::NotReady
        } else {
            PollStatus::Ready("done")
        }
    });

    assert_eq!(value, Ok("done"));
    assert_eq!(clock.elapsed(), ms(300));
}

#[test]
fn a_waiter_is_reusable_and_each_wait_has_its_own_budget() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(1))
        .budget(secs(2))
        .build()
        .unwrap();

    for _ in 0..3 {
        let err = waiter
            .wait(|_poll| PollStatus::<(), Failure>::NotReady)
            .unwrap_err();
        assert_eq!(err.polls(), 3);
        assert_eq!(err.elapsed(), secs(2));
    }
    assert_eq!(sleeps.clock.elapsed(), secs(6));
}
