//! A real operation error, as a code generator would emit it from DynamoDB's
//! Smithy model (`PutItem`), classified through the derive exactly as a user
//! of `rebound` would.
//!
//! In the model, `ProvisionedThroughputExceededException` is only
//! `@error("client")` (status 400): it is not `@retryable`. The AWS SDKs retry
//! it because its *code* is on their throttling list, which is the strategy's
//! business, not the derive's: the derive must report the modeled facts.

use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetryKind, RetrySafety};

/// The error of an unmodeled response, as an SDK keeps it: what came over
/// the wire, classified at run time.
#[derive(Debug, thiserror::Error)]
#[error("unhandled error {code} (HTTP {status})")]
pub struct UnhandledError {
    code: String,
    status: u16,
}

impl RetryInfo for UnhandledError {
    fn retry_safety(&self) -> RetrySafety {
        RetrySafety::Maybe
    }
}

impl ErrorInfo for UnhandledError {
    fn fault(&self) -> ErrorFault {
        ErrorFault::from_http_status(self.status)
    }
    fn http_status(&self) -> Option<u16> {
        Some(self.status)
    }
    fn error_code(&self) -> Option<&str> {
        Some(&self.code)
    }
}

#[derive(Debug, thiserror::Error, RetryInfo)]
#[non_exhaustive]
pub enum PutItemError {
    #[error("conditional check failed: {message}")]
    #[error_fault(client)]
    ConditionalCheckFailedException { message: String },
    #[error("internal server error: {message}")]
    #[error_fault(server)]
    InternalServerError { message: String },
    #[error("item collection too large: {message}")]
    #[error_fault(client)]
    ItemCollectionSizeLimitExceededException { message: String },
    #[error("provisioned throughput exceeded: {message}")]
    #[error_fault(client)]
    ProvisionedThroughputExceededException { message: String },
    #[error("request limit exceeded: {message}")]
    #[error_fault(client)]
    RequestLimitExceeded { message: String },
    #[error("resource not found: {message}")]
    #[error_fault(client)]
    ResourceNotFoundException { message: String },
    #[error("transaction conflict: {message}")]
    #[error_fault(client)]
    TransactionConflictException { message: String },
    #[error(transparent)]
    #[retry_info(transparent)]
    Unhandled(UnhandledError),
}

fn message() -> String {
    "details".to_owned()
}

/// What the derive must answer for one error.
struct Expected {
    error: PutItemError,
    safety: RetrySafety,
    fault: ErrorFault,
    status: u16,
    code: &'static str,
}

fn expectations() -> Vec<Expected> {
    use PutItemError::*;
    use RetrySafety::{Maybe, No};
    vec![
        Expected {
            error: ProvisionedThroughputExceededException { message: message() },
            safety: No,
            fault: ErrorFault::Client,
            status: 400,
            code: "ProvisionedThroughputExceededException",
        },
        Expected {
            error: InternalServerError { message: message() },
            safety: Maybe,
            fault: ErrorFault::Server,
            status: 500,
            code: "InternalServerError",
        },
        Expected {
            error: ConditionalCheckFailedException { message: message() },
            safety: No,
            fault: ErrorFault::Client,
            status: 400,
            code: "ConditionalCheckFailedException",
        },
        Expected {
            error: ItemCollectionSizeLimitExceededException { message: message() },
            safety: No,
            fault: ErrorFault::Client,
            status: 400,
            code: "ItemCollectionSizeLimitExceededException",
        },
        Expected {
            error: RequestLimitExceeded { message: message() },
            safety: No,
            fault: ErrorFault::Client,
            status: 400,
            code: "RequestLimitExceeded",
        },
        Expected {
            error: ResourceNotFoundException { message: message() },
            safety: No,
            fault: ErrorFault::Client,
            status: 400,
            code: "ResourceNotFoundException",
        },
        Expected {
            error: TransactionConflictException { message: message() },
            safety: No,
            fault: ErrorFault::Client,
            status: 400,
            code: "TransactionConflictException",
        },
        Expected {
            error: Unhandled(UnhandledError {
                code: "ServiceUnavailable".into(),
                status: 503,
            }),
            safety: Maybe,
            fault: ErrorFault::Server,
            status: 503,
            code: "ServiceUnavailable",
        },
        Expected {
            error: Unhandled(UnhandledError {
                code: "SomethingNew".into(),
                status: 418,
            }),
            safety: Maybe,
            fault: ErrorFault::Client,
            status: 418,
            code: "SomethingNew",
        },
    ]
}

#[test]
fn every_put_item_error_is_classified_as_modeled() {
    for Expected {
        error,
        safety,
        fault,
        status,
        code,
    } in expectations()
    {
        assert_eq!(error.retry_safety(), safety, "{error:?}");
        // Not `@retryable` in the model: throttling comes from the code list.
        assert!(!error.is_throttle(), "{error:?}");
        assert!(!error.is_timeout(), "{error:?}");
        assert_eq!(error.retry_after(), None, "{error:?}");
        assert_eq!(error.fault(), fault, "{error:?}");
        assert_eq!(error.http_status(), Some(status), "{error:?}");
        assert_eq!(error.error_code(), Some(code), "{error:?}");
    }
}

#[test]
fn classification_survives_boxing_as_trait_objects() {
    for Expected {
        error,
        safety,
        fault,
        code,
        ..
    } in expectations()
    {
        let boxed: Box<PutItemError> = Box::new(error);
        let as_retry: &dyn RetryInfo = &boxed;
        let as_error: &dyn ErrorInfo = &boxed;
        assert_eq!(as_retry.retry_safety(), safety);
        assert_eq!(as_error.fault(), fault);
        assert_eq!(as_error.error_code(), Some(code));
    }
}

#[test]
fn display_comes_from_thiserror_untouched() {
    let error = PutItemError::ConditionalCheckFailedException {
        message: "x".into(),
    };
    assert_eq!(error.to_string(), "conditional check failed: x");
    let error = PutItemError::Unhandled(UnhandledError {
        code: "Boom".into(),
        status: 500,
    });
    assert_eq!(error.to_string(), "unhandled error Boom (HTTP 500)");
}

/// The same model with the SDK's Smithy `@retryable(throttling: true)` applied
/// by a code generator that knows the throttling list: the derive then makes
/// it retryable on its own.
#[derive(Debug, RetryInfo)]
#[error_fault(client)]
#[retryable(throttling = true)]
struct ThrottledPutItem {
    #[retry_after]
    retry_after_ms: Option<std::time::Duration>,
}

#[test]
fn a_retryable_throttling_model_is_retry_safe_and_keeps_its_hint() {
    let hint = std::time::Duration::from_millis(250);
    let error = ThrottledPutItem {
        retry_after_ms: Some(hint),
    };
    assert_eq!(error.retry_safety(), RetrySafety::Yes);
    assert!(error.is_throttle());
    assert_eq!(error.fault(), ErrorFault::Client);
    assert_eq!(error.http_status(), Some(400));
    assert_eq!(error.retry_after(), Some(hint));
}

/// What the AWS standard strategy does with each modeled error: the derive
/// reports the model, the strategy applies the AWS rules on top (the
/// throttling code list, transient statuses).
mod with_the_standard_strategy {
    use std::time::Duration;

    use rebound::{RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed};

    use super::*;

    fn strategy() -> StandardRetryStrategy {
        StandardRetryStrategy::builder()
            .aws_service("dynamodb", "PutItem")
            .random(|| 0.5)
            .build()
    }

    /// Refreshes a first-attempt token with `error`: the retry's delay and
    /// quota cost, or why there is none.
    fn first_retry(error: &PutItemError) -> Result<(Duration, u32), TokenAcquisitionFailed> {
        let strategy = strategy();
        let token = strategy.acquire_initial_token()?;
        let next = strategy.refresh_retry_token(token, error)?;
        Ok((next.delay(), next.quota_cost().unwrap_or_default()))
    }

    #[test]
    fn throughput_exceeded_is_retried_as_a_throttle_because_of_its_code() {
        let error = PutItemError::ProvisionedThroughputExceededException { message: message() };
        // Behaviour 2.0: throttling cost 5, 0.5 * min(1 s * 2^0, 20 s).
        assert_eq!(first_retry(&error), Ok((Duration::from_millis(500), 5)));
        let verdict = strategy().classifier().classify(&error);
        assert_eq!(verdict, Some(RetryKind::Throttle));
    }

    #[test]
    fn internal_server_error_is_retried_as_transient() {
        let error = PutItemError::InternalServerError { message: message() };
        assert_eq!(first_retry(&error), Ok((Duration::from_millis(500), 5)));
        assert_eq!(
            strategy().classifier().classify(&error),
            Some(RetryKind::Transient)
        );
    }

    #[test]
    fn conditional_check_failed_is_not_retried() {
        let error = PutItemError::ConditionalCheckFailedException { message: message() };
        assert_eq!(
            first_retry(&error),
            Err(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
    }

    #[test]
    fn unhandled_errors_follow_their_status_and_code() {
        let unavailable = PutItemError::Unhandled(UnhandledError {
            code: "ServiceUnavailable".into(),
            status: 503,
        });
        assert!(first_retry(&unavailable).is_ok());
        let throttled = PutItemError::Unhandled(UnhandledError {
            code: "ThrottlingException".into(),
            status: 400,
        });
        assert_eq!(
            strategy().classifier().classify(&throttled),
            Some(RetryKind::Throttle)
        );
        let teapot = PutItemError::Unhandled(UnhandledError {
            code: "SomethingNew".into(),
            status: 418,
        });
        assert_eq!(
            first_retry(&teapot),
            Err(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
    }
}
