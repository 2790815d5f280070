//! Classifying an attempt's failure inside the orchestrator: the client's
//! own retry classifiers (the model's `@retryable`, its error codes, its
//! transient statuses), then the response's status, code and retry-after
//! hint, or the transport failure when there is no response.

use std::time::SystemTime;

use aws_smithy_runtime_api::client::interceptors::context::{Error, InterceptorContext};
use aws_smithy_runtime_api::client::orchestrator::OrchestratorError;
use aws_smithy_runtime_api::client::retries::classifiers::{
    ClassifyRetry, RetryAction, RetryReason,
};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use rebound_runtime::Classified;

use crate::response::{from_connector, from_kind, with_response, without_response};

/// What the attempt in `context` that failed with `error` was.
pub(crate) fn classify_attempt(
    context: &InterceptorContext,
    error: &OrchestratorError<Error>,
    components: &RuntimeComponents,
) -> Classified {
    let failure = match client_verdict(context, components) {
        RetryAction::RetryForbidden => Classified::not_retryable(),
        verdict if context.response().is_none() => match transport(error) {
            Some(failure) => failure,
            None => from_verdict(verdict),
        },
        verdict => from_verdict(verdict),
    };
    match context.response() {
        Some(response) => {
            let now = components
                .time_source()
                .map_or_else(SystemTime::now, |time| time.now());
            with_response(failure, response, None, now)
        }
        None => failure,
    }
}

/// The client's classifiers' verdict, folded as the orchestrator folds
/// them: each may override what came before, and a refusal ends it.
fn client_verdict(context: &InterceptorContext, components: &RuntimeComponents) -> RetryAction {
    let mut verdict = RetryAction::NoActionIndicated;
    for classifier in components.retry_classifiers() {
        let next = classifier.classify_retry_v2(context, &verdict);
        if next == RetryAction::NoActionIndicated {
            continue;
        }
        verdict = next;
        if verdict == RetryAction::RetryForbidden {
            break;
        }
    }
    verdict
}

fn from_verdict(verdict: RetryAction) -> Classified {
    match verdict {
        RetryAction::RetryIndicated(RetryReason::RetryableError { kind, retry_after }) => {
            from_kind(Some(kind)).with_retry_after(retry_after)
        }
        RetryAction::RetryForbidden => Classified::not_retryable(),
        _ => Classified::unknown(),
    }
}

/// A failure without a response: a timeout or a connector's error.
fn transport(error: &OrchestratorError<Error>) -> Option<Classified> {
    if error.is_timeout_error() {
        return Some(without_response(true, false, false));
    }
    error.as_connector_error().map(from_connector)
}
