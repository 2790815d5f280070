//! Properties of the waiter under arbitrary settings, draws and poll
//! durations, in virtual time: it never sleeps past the budget, never sleeps
//! zero, keeps every delay within `min_delay..=max_delay` (but for the last
//! one, cut by the budget), and stops within its limits.
#![cfg(not(loom))]

mod executor_support;

use std::time::Duration;

use executor_support::{Failure, Sleeps};
use proptest::prelude::*;
use rebound_runtime::backoff::SeededRandom;
use rebound_runtime::waiter::{GiveUpReason, PollStatus, WaitError, Waiter};

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn sleeps_stay_within_the_delays_and_the_budget(
        min_ms in 1u64..2_000,
        extra_ms in 0u64..60_000,
        budget_ms in 1u64..600_000,
        max_polls in proptest::option::of(1u32..60),
        jitter in any::<bool>(),
        seed in any::<u64>(),
        poll_ms in 0u64..3_000,
    ) {
        let ms = Duration::from_millis;
        let (min_delay, max_delay, budget) = (ms(min_ms), ms(min_ms + extra_ms), ms(budget_ms));
        let sleeps = Sleeps::new();
        let mut builder = Waiter::builder()
            .min_delay(min_delay)
            .max_delay(max_delay)
            .budget(budget)
            .jitter(jitter)
            .random(SeededRandom::new(seed))
            .sleeper(|delay| sleeps.sleep(delay))
            .clock(sleeps.clock.clone());
        if let Some(max_polls) = max_polls {
            builder = builder.max_polls(max_polls);
        }
        let waiter = builder.build().unwrap();
        let mut polled = 0;

        let err = waiter
            .wait(|poll| {
                polled = poll;
                sleeps.clock.advance(ms(poll_ms)); // each poll takes a while
                PollStatus::<(), Failure>::NotReady
            })
            .unwrap_err();

        let slept = sleeps.slept();
        let WaitError::GaveUp { polls, elapsed, reason } = err else {
            panic!("a pending operation ends in GaveUp");
        };
        prop_assert_eq!(polls, polled);
        prop_assert_eq!(slept.len() as u32 + 1, polls, "one sleep between two polls");
        prop_assert_eq!(elapsed, sleeps.clock.elapsed());
        if let Some(max_polls) = max_polls {
            prop_assert!(polls <= max_polls);
        }
        match reason {
            GiveUpReason::MaxPolls { max_polls: limit } => prop_assert_eq!(Some(polls), max_polls.filter(|&m| m == limit)),
            GiveUpReason::Budget { budget: b } => {
                prop_assert_eq!(b, budget);
                prop_assert!(elapsed >= budget);
            }
            _ => prop_assert!(false, "unknown reason"),
        }
        let slept_total: Duration = slept.iter().sum();
        prop_assert!(slept_total <= budget, "never sleeps past the budget");
        // Every poll but the last started within the budget, so time spent
        // is at most the budget plus one poll.
        prop_assert!(elapsed <= budget + ms(poll_ms));
        for (i, delay) in slept.iter().enumerate() {
            prop_assert!(!delay.is_zero());
            prop_assert!(*delay <= max_delay);
            if i + 1 < slept.len() {
                prop_assert!(*delay >= min_delay, "only the last sleep is cut by the budget");
            }
        }
    }
}
