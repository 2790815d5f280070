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
        "gave up after 3 attempts: all 3 allowed attempts were made; last error: service unavailable"
    );

    let why = TokenAcquisitionFailed::NotRetryable { attempts: 1 };
    let err = RetryError::new(Failure::BadRequest, 1, StopReason::Strategy(why));
    assert_eq!(
        err.to_string(),
        "gave up after 1 attempt: the failure is not retryable; \
         last error: bad request"
    );

    let err = RetryError::new(
        Failure::Unavailable,
        1,
        StopReason::NoInitialToken(NoInitialToken::WHY),
    );
    assert_eq!(
        err.to_string(),
        "gave up after 1 attempt: the strategy gave no initial token, so no retries \
         (retry quota exhausted: a retry costs 1, 0 left); last error: service \
         unavailable"
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
         1.2s budget (500ms spent); last error: service unavailable"
    );

    // No attempt, no last error.
    let reason = StopReason::BudgetExhausted {
        budget: ms(100),
        elapsed: ms(0),
        next_delay: ms(1000),
    };
    assert_eq!(
        RetryError::<Failure>::before_first_attempt(reason).to_string(),
        "gave up before the first attempt: the next attempt, 1s from now, would not start within \
         the 100ms budget (0ns spent)"
    );
}

#[test]
fn the_message_shows_the_last_failure_once_and_the_chain_goes_on_from_its_source() {
    // The last failure is in the message, so the source skips it: a report
    // walking the chain prints it once.
    let err = exhausted();
    assert!(
        err.to_string()
            .ends_with("; last error: service unavailable")
    );
    assert!(err.source().is_none(), "Failure has no source of its own");

    // A failure with a cause: the chain continues from that cause.
    #[derive(Debug)]
    struct SendFailed(std::io::Error);
    impl std::fmt::Display for SendFailed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("could not send the request")
        }
    }
    impl std::error::Error for SendFailed {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    let failure = SendFailed(std::io::Error::other("connection reset by peer"));
    let why = TokenAcquisitionFailed::AttemptsExhausted {
        attempts: 3,
        max_attempts: 3,
    };
    let err = RetryError::new(failure, 3, StopReason::Strategy(why));
    let mut chain = vec![err.to_string()];
    let mut next = err.source();
    while let Some(source) = next {
        chain.push(source.to_string());
        next = source.source();
    }
    assert_eq!(
        chain,
        [
            "gave up after 3 attempts: all 3 allowed attempts were made; last error: could not send \
             the request",
            "connection reset by peer",
        ]
    );

    // The last failure itself is one call away.
    assert_eq!(exhausted().last_error(), Some(&Failure::Unavailable));
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
    assert!(err.to_string().ends_with("last error: service unavailable"));
}
