//! `WaiterConfigError` from `build()`, and `WaitError` / `GiveUpReason`: what
//! a caller sees when a waiter cannot be built or stops without a value.

mod executor_support;

use std::error::Error as _;
use std::time::Duration;

use executor_support::{Failure, ms};
use rebound_runtime::waiter::{
    GiveUpReason, PollStatus, WaitError, Waiter, WaiterBuilder, WaiterConfigError,
};

#[test]
fn the_defaults_are_smithy_s_delays_with_a_budget_and_jitter() {
    let waiter = Waiter::builder().build().unwrap();
    assert_eq!(waiter.min_delay(), Duration::from_secs(2));
    assert_eq!(waiter.max_delay(), Duration::from_secs(120));
    assert_eq!(waiter.max_polls(), None);
    assert_eq!(waiter.budget(), Duration::from_secs(300));
    assert!(waiter.jitter());
    assert_eq!(WaiterBuilder::DEFAULT_MIN_DELAY, Duration::from_secs(2));
    assert_eq!(WaiterBuilder::DEFAULT_MAX_DELAY, Duration::from_secs(120));
    assert_eq!(WaiterBuilder::DEFAULT_BUDGET, Duration::from_secs(300));
}

#[test]
fn build_rejects_settings_that_cannot_work() {
    let build = |builder: WaiterBuilder| builder.build().map(|_| ()).unwrap_err();

    assert_eq!(
        build(Waiter::builder().min_delay(Duration::ZERO)),
        WaiterConfigError::MinDelayZero
    );
    assert_eq!(
        build(Waiter::builder().min_delay(ms(500)).max_delay(ms(499))),
        WaiterConfigError::MinDelayExceedsMaxDelay {
            min_delay: ms(500),
            max_delay: ms(499),
        }
    );
    // The default max_delay is 120 s.
    assert_eq!(
        build(Waiter::builder().min_delay(Duration::from_secs(121))),
        WaiterConfigError::MinDelayExceedsMaxDelay {
            min_delay: Duration::from_secs(121),
            max_delay: Duration::from_secs(120),
        }
    );
    assert_eq!(
        build(Waiter::builder().max_polls(0)),
        WaiterConfigError::MaxPollsZero
    );
    assert_eq!(
        build(Waiter::builder().budget(Duration::ZERO)),
        WaiterConfigError::BudgetZero
    );
}

#[test]
fn build_reports_the_first_problem() {
    let err = Waiter::builder()
        .min_delay(Duration::ZERO)
        .max_polls(0)
        .budget(Duration::ZERO)
        .build()
        .unwrap_err();
    assert_eq!(err, WaiterConfigError::MinDelayZero);
}

#[test]
fn the_smallest_valid_settings_build() {
    let waiter = Waiter::builder()
        .min_delay(Duration::from_nanos(1))
        .max_delay(Duration::from_nanos(1))
        .max_polls(1)
        .budget(Duration::from_nanos(1))
        .build()
        .unwrap();
    assert_eq!(waiter.max_polls(), Some(1));
}

#[test]
fn config_errors_say_what_is_wrong() {
    assert_eq!(
        WaiterConfigError::MinDelayZero.to_string(),
        "min_delay must be greater than zero (the delays grow from it by doubling)"
    );
    assert_eq!(
        WaiterConfigError::MinDelayExceedsMaxDelay {
            min_delay: ms(500),
            max_delay: ms(499),
        }
        .to_string(),
        "min_delay (500ms) must not exceed max_delay (499ms)"
    );
    assert_eq!(
        WaiterConfigError::MaxPollsZero.to_string(),
        "max_polls must be at least 1 (it counts the first poll), got 0"
    );
    assert_eq!(
        WaiterConfigError::BudgetZero.to_string(),
        "the budget must be greater than zero"
    );
}

#[test]
fn gave_up_names_the_polls_the_time_and_the_limit() {
    let err = WaitError::<Failure>::GaveUp {
        polls: 12,
        elapsed: Duration::from_secs(300),
        reason: GiveUpReason::Budget {
            budget: Duration::from_secs(300),
        },
    };
    assert_eq!(
        err.to_string(),
        "gave up after 12 polls in 300s: the 300s budget ran out"
    );
    assert!(err.source().is_none());
    assert!(err.is_gave_up());
    assert_eq!(err.polls(), 12);
    assert_eq!(err.elapsed(), Duration::from_secs(300));
    assert!(err.error().is_none());

    let err = WaitError::<Failure>::GaveUp {
        polls: 1,
        elapsed: ms(20),
        reason: GiveUpReason::MaxPolls { max_polls: 1 },
    };
    assert_eq!(
        err.to_string(),
        "gave up after 1 poll in 20ms: the one allowed poll was made"
    );
}

#[test]
fn failed_names_the_poll_and_the_time_and_chains_the_error() {
    let err = WaitError::Failed {
        polls: 3,
        elapsed: Duration::from_secs(6),
        error: Failure::BadRequest,
    };
    assert_eq!(err.to_string(), "the operation failed on poll 3, after 6s");
    assert_eq!(err.source().unwrap().to_string(), "bad request");
    assert!(!err.is_gave_up());
    assert_eq!(err.reason(), None);
    assert_eq!(err.error(), Some(&Failure::BadRequest));

    let mapped = err.map_err(|failure| failure.to_string());
    assert_eq!(mapped.error().map(String::as_str), Some("bad request"));
    assert_eq!(mapped.polls(), 3);
}

#[test]
fn a_wait_error_boxes_into_dyn_error() {
    let waiter = Waiter::builder()
        .max_polls(1)
        .sleeper(|_: Duration| {})
        .build()
        .unwrap();
    let run = || -> Result<(), Box<dyn std::error::Error>> {
        waiter.wait(|_poll| PollStatus::<(), Failure>::NotReady)?;
        Ok(())
    };
    let err = run().unwrap_err();
    assert!(err.to_string().starts_with("gave up after 1 poll in "));
}

#[test]
fn debug_shows_the_settings() {
    let builder = Waiter::builder().max_polls(3);
    let debug = format!("{builder:?}");
    assert!(
        debug.starts_with("WaiterBuilder { min_delay: 2s, max_delay: 120s, max_polls: Some(3)")
    );

    let waiter = builder.build().unwrap();
    let debug = format!("{waiter:?}");
    assert!(debug.starts_with(
        "Waiter { min_delay: 2s, max_delay: 120s, max_polls: Some(3), budget: 300s, jitter: true"
    ));
    assert!(debug.contains("DefaultSleeper"), "{debug}");

    assert_eq!(
        format!("{:?}", PollStatus::<u8, Failure>::Throttled),
        "Throttled"
    );
}
