//! `RetryError` and `StopReason`: what a caller sees when retrying stops.

mod executor_support;

use std::error::Error as _;

use executor_support::{Failure, NoInitialToken, ms};
use rebound_runtime::TokenAcquisitionFailed;
use rebound_runtime::{RetryError, StopReason};

fn exhausted() -> RetryError<Failure> {
    let why = TokenAcquisitionFailed::AttemptsExhausted {
        attempts: 3,
        max_attempts: 3,
    };
    RetryError::new(Failure::Unavailable, 3, StopReason::Strategy(why))
}

#[test]
fn display_names_the_attempts_and_the_reason() {
    assert_eq!(
        exhausted().to_string(),
        "gave up after 3 attempts: all 3 allowed attempts were made"
    );

    let why = TokenAcquisitionFailed::NotRetryable { attempts: 1 };
    let err = RetryError::new(Failure::BadRequest, 1, StopReason::Strategy(why));
    assert_eq!(
        err.to_string(),
        "gave up after 1 attempt: attempt 1 failed with an error that is not retryable"
    );

    let err = RetryError::new(
        Failure::Unavailable,
        1,
        StopReason::NoInitialToken(NoInitialToken::WHY),
    );
    assert_eq!(
        err.to_string(),
        "gave up after 1 attempt: the strategy gave no initial token, so no retries \
         (retry quota exhausted after 0 attempts: a retry costs 1, 0 left)"
    );

    let reason = StopReason::BudgetExhausted {
        budget: ms(1200),
        elapsed: ms(500),
        next_delay: ms(1000),
    };
    let err = RetryError::new(Failure::Unavailable, 2, reason);
    assert_eq!(
        err.to_string(),
        "gave up after 2 attempts: the next attempt, 1s from now, would not start within the \
         1.2s budget (500ms spent)"
    );
}

#[test]
fn the_source_is_the_last_failure() {
    let err = exhausted();
    let source = err.source().expect("the last failure");
    assert_eq!(source.to_string(), "service unavailable");
    assert_eq!(
        source.downcast_ref::<Failure>(),
        Some(&Failure::Unavailable)
    );

    // As a boxed error, the chain is intact.
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(exhausted());
    assert!(boxed.source().is_some());
}

#[test]
fn accessors_and_conversions() {
    let err = exhausted();
    assert_eq!(err.attempts(), 3);
    assert_eq!(err.last_error(), Some(&Failure::Unavailable));
    assert!(err.reason().strategy().is_some());
    assert!(!err.reason().is_budget_exhausted());

    let mapped = err.clone().map_err(|failure| failure.to_string());
    assert_eq!(
        mapped.last_error().map(String::as_str),
        Some("service unavailable")
    );
    assert_eq!(mapped.attempts(), 3);

    let (failure, attempts, reason) = err.clone().into_parts();
    assert_eq!((failure, attempts), (Some(Failure::Unavailable), 3));
    assert_eq!(reason, *exhausted().reason());

    assert_eq!(err.into_inner(), Some(Failure::Unavailable));
}

#[test]
fn the_question_mark_operator_boxes_it() {
    fn call() -> Result<(), Box<dyn std::error::Error>> {
        Err(exhausted())?;
        Ok(())
    }
    let err = call().unwrap_err();
    assert!(err.to_string().starts_with("gave up after 3 attempts"));
    assert!(err.source().is_some());
}
