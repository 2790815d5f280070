//! The orchestrator's retry strategy that [`RetryPlugin`](crate::RetryPlugin)
//! installs: each of its two hooks moves the operation's rebound request one
//! step (`rebound_runtime::driver`).

use core::fmt;
use std::mem;
use std::sync::Arc;

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::context::InterceptorContext;
use aws_smithy_runtime_api::client::retries::{
    RetryStrategy as OrchestratorStrategy, ShouldAttempt,
};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use rebound_runtime::driver::{AfterFailure, Next};
use rebound_runtime::time::{DefaultSleeper, SystemClock};
use rebound_runtime::{Retry, RetryStrategy};

use crate::context::classify_attempt;
use crate::error::RetryStopped;
use crate::listener::SharedListener;
use crate::operation::{Loop, OperationRetry, State};

/// The executor settings every operation's request starts from (its
/// sleeper is unused: the orchestrator sleeps).
pub(crate) type Executor<S> = Retry<Arc<S>, DefaultSleeper, SystemClock, SharedListener>;

/// The orchestrator's retry strategy: each hook moves the operation's
/// request one step.
pub(crate) struct ReboundStrategy<S> {
    pub(crate) retry: Executor<S>,
}

impl<S> Clone for ReboundStrategy<S> {
    fn clone(&self) -> Self {
        Self {
            retry: self.retry.clone(),
        }
    }
}

impl<S> ReboundStrategy<S>
where
    S: RetryStrategy + Send + Sync + 'static,
{
    /// What the request says before the next attempt, kept in `state`.
    fn before_attempt(pending: Loop<S>, state: &mut State<S>) -> Result<ShouldAttempt, BoxError> {
        match pending.next() {
            Next::Wait(delay, pending) => {
                *state = State::Pending(pending);
                Ok(ShouldAttempt::YesAfterDelay(delay))
            }
            Next::Send(attempt) => {
                *state = State::Sending(attempt);
                Ok(ShouldAttempt::Yes)
            }
            Next::Stop(stopped) => Err(Box::new(RetryStopped::new(
                stopped.attempts(),
                stopped.reason().clone(),
            ))),
        }
    }
}

/// The operation's rebound request, which the plugin's interceptor put in the bag.
fn operation<S: Send + Sync + 'static>(cfg: &ConfigBag) -> Result<&OperationRetry<S>, BoxError> {
    cfg.load::<OperationRetry<S>>()
        .ok_or_else(|| "rebound-smithy: the operation has no retry state: RetryPlugin's interceptor did not run".into())
}

impl<S> OrchestratorStrategy for ReboundStrategy<S>
where
    S: RetryStrategy + fmt::Debug + Send + Sync + 'static,
{
    fn should_attempt_initial_request(
        &self,
        _components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) -> Result<ShouldAttempt, BoxError> {
        let operation = operation::<S>(cfg)?;
        let mut state = operation.lock();
        match mem::replace(&mut *state, State::Ended) {
            State::Idle => Self::before_attempt(self.retry.clone().into_request(), &mut state),
            State::Pending(pending) => Self::before_attempt(pending, &mut state),
            // Asked again before a retry that already has its permit.
            State::Sending(attempt) => {
                *state = State::Sending(attempt);
                Ok(ShouldAttempt::Yes)
            }
            State::Ended => Ok(ShouldAttempt::No),
        }
    }

    fn should_attempt_retry(
        &self,
        context: &InterceptorContext,
        components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) -> Result<ShouldAttempt, BoxError> {
        let operation = operation::<S>(cfg)?;
        let mut state = operation.lock();
        let attempt = match mem::replace(&mut *state, State::Ended) {
            State::Sending(attempt) => attempt,
            // Sent without asking for a permit (a retry behaviour before
            // 2.1 set after the plugin's): take it now if it is free.
            State::Pending(pending) => match pending.next() {
                Next::Send(attempt) => attempt,
                _ => return Ok(ShouldAttempt::No),
            },
            State::Idle | State::Ended => return Ok(ShouldAttempt::No),
        };
        let error = match context.output_or_error() {
            Some(Err(error)) => error,
            Some(Ok(_)) => {
                attempt.succeeded();
                return Ok(ShouldAttempt::No);
            }
            // No outcome to judge: the request ends here.
            None => return Ok(ShouldAttempt::No),
        };
        let failure = classify_attempt(context, error, components);
        match attempt.failed(&failure) {
            AfterFailure::Retry(pending) => match Self::before_attempt(pending, &mut state) {
                Ok(should) => Ok(should),
                // Stopped before the retry (the budget): the last failure is
                // what the operation returns.
                Err(_) => Ok(ShouldAttempt::No),
            },
            AfterFailure::Stop(_) => Ok(ShouldAttempt::No),
        }
    }
}

impl<S: fmt::Debug> fmt::Debug for ReboundStrategy<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReboundStrategy")
            .field("strategy", self.retry.strategy())
            .finish_non_exhaustive()
    }
}
