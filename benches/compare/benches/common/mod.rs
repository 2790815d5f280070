//! What both benchmarks of aws-smithy-runtime need.

use aws_smithy_runtime_api::client::interceptors::context::InterceptorContext;
use aws_smithy_runtime_api::client::retries::classifiers::{ClassifyRetry, RetryAction};
use aws_smithy_types::retry::ErrorKind;

/// A real classifier: a failed attempt is a transient error, a success says
/// nothing (what the SDK's classifiers do for a 503 and a 200).
#[derive(Debug)]
pub struct FailedIsTransient;

impl ClassifyRetry for FailedIsTransient {
    fn classify_retry(&self, ctx: &InterceptorContext) -> RetryAction {
        if ctx.is_failed() {
            RetryAction::retryable_error(ErrorKind::TransientError)
        } else {
            RetryAction::NoActionIndicated
        }
    }
    fn name(&self) -> &'static str {
        "FailedIsTransient"
    }
}
