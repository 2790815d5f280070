//! [`RetryPlugin`]: a rebound strategy as a smithy-rs client's retry
//! strategy, installed by a `RuntimePlugin`.

use core::fmt;
use core::time::Duration;
use std::borrow::Cow;
use std::mem;
use std::sync::Arc;

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::{
    BeforeSerializationInterceptorContextRef, InterceptorContext,
};
use aws_smithy_runtime_api::client::retries::{
    RetryStrategy as OrchestratorStrategy, ShouldAttempt,
};
use aws_smithy_runtime_api::client::runtime_components::{
    RuntimeComponents, RuntimeComponentsBuilder,
};
use aws_smithy_runtime_api::client::runtime_plugin::RuntimePlugin;
use aws_smithy_types::config_bag::{ConfigBag, FrozenLayer, Layer};
use aws_smithy_types::retry::{RetryConfig, RetrySpec};
use rebound_runtime::driver::{AfterFailure, Next};
use rebound_runtime::{Retry, RetryListener, RetryStrategy};

use crate::context::classify_attempt;
use crate::error::RetryStopped;
use crate::operation::{Loop, OperationRetry, SharedListener, State};

/// A smithy-rs [`RuntimePlugin`] that makes a rebound strategy the client's
/// retry strategy: for clients generated with plugins on
/// (`enableUserConfigurableRuntimePlugins`), and operations built by hand on
/// aws-smithy-runtime's orchestrator.
///
/// Per operation:
/// - one rebound request (one token), kept in the operation's config bag
///   and abandoned if the operation is dropped before it ends;
/// - the strategy's send permit (adaptive mode's rate limiter) before every
///   attempt, waited for on the client's sleeper;
/// - each failure classified by the client's own retry classifiers (the
///   model's `@retryable`, its throttling and transient codes and statuses),
///   then by its status, AWS error code and retry-after headers;
/// - rebound's listener and `tracing` events (feature `tracing` of
///   `rebound-runtime`), and the [budget](Self::budget);
/// - the `amz-sdk-request` header's `max` from the strategy's
///   [`attempt_limit`](RetryStrategy::attempt_limit).
///
/// A failure the strategy does not retry is returned as the client returns
/// it, and so is one whose retry's backoff would not end within the
/// budget. When rebound refuses an attempt about to be sent (a fail-fast
/// rate limiter, or a wait for a send permit past the budget), the
/// orchestrator has no way to return the last failure instead: the
/// operation fails with [`RetryStopped`] as its error's source, saying how
/// many attempts were made and why.
///
/// # Examples
///
/// ```
/// use rebound_runtime::StandardRetryStrategy;
/// use rebound_smithy::RetryPlugin;
///
/// let plugin = RetryPlugin::new(StandardRetryStrategy::new());
/// // A generated client with plugins on: `Config::builder().runtime_plugin(plugin)`;
/// // an operation built by hand: `Operation::builder().runtime_plugin(plugin)`.
/// # let _ = plugin;
/// ```
#[derive(Debug)]
pub struct RetryPlugin<S> {
    strategy: ReboundStrategy<S>,
    config: FrozenLayer,
}

impl<S> RetryPlugin<S>
where
    S: RetryStrategy + fmt::Debug + Send + Sync + 'static,
{
    /// A plugin retrying with `strategy` (shared by every operation of the
    /// client), telling no listener, without a budget.
    pub fn new(strategy: S) -> Self {
        Self::with(Retry::new(Arc::new(strategy)).listener(SharedListener::default()))
    }

    /// Tells `listener` of every retry and give-up.
    #[must_use]
    pub fn listener(self, listener: impl RetryListener + Send + Sync + 'static) -> Self {
        Self::with(self.strategy.retry.listener(SharedListener::new(listener)))
    }

    /// Bounds the time an operation may take, from its first attempt's
    /// start until its last attempt starts, as
    /// [`Retry::budget`](rebound_runtime::Retry::budget) says.
    #[must_use]
    pub fn budget(self, budget: Duration) -> Self {
        Self::with(self.strategy.retry.budget(budget))
    }

    fn with(retry: Executor<S>) -> Self {
        let max_attempts = retry.strategy().attempt_limit().unwrap_or(u32::MAX);
        let mut layer = Layer::new("rebound");
        // The attempt header's maximum; retry behaviour 2.1 makes the
        // orchestrator ask for a send permit before every retry, not only
        // before the first attempt.
        layer.store_put(
            RetryConfig::standard()
                .with_max_attempts(max_attempts)
                .with_retry_spec(RetrySpec::v2_1()),
        );
        Self {
            strategy: ReboundStrategy { retry },
            config: layer.freeze(),
        }
    }
}

impl<S> RuntimePlugin for RetryPlugin<S>
where
    S: RetryStrategy + fmt::Debug + Send + Sync + 'static,
{
    fn config(&self) -> Option<FrozenLayer> {
        Some(self.config.clone())
    }

    fn runtime_components(
        &self,
        _current: &RuntimeComponentsBuilder,
    ) -> Cow<'_, RuntimeComponentsBuilder> {
        Cow::Owned(
            RuntimeComponentsBuilder::new("rebound")
                .with_retry_strategy(Some(self.strategy.clone()))
                .with_interceptor(StartRequest::<S>(core::marker::PhantomData)),
        )
    }
}

/// The executor settings every operation's request starts from (its
/// sleeper is unused: the orchestrator sleeps).
type Executor<S> = Retry<
    Arc<S>,
    rebound_runtime::time::DefaultSleeper,
    rebound_runtime::time::SystemClock,
    SharedListener,
>;

/// The orchestrator's retry strategy: each hook moves the operation's
/// request one step.
struct ReboundStrategy<S> {
    retry: Executor<S>,
}

impl<S> Clone for ReboundStrategy<S> {
    fn clone(&self) -> Self {
        Self {
            retry: self.retry.clone(),
        }
    }
}

impl<S> Clone for RetryPlugin<S> {
    fn clone(&self) -> Self {
        Self {
            strategy: self.strategy.clone(),
            config: self.config.clone(),
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
            Next::Stop(stopped) => Err(Box::new(RetryStopped::new(stopped))),
        }
    }
}

/// The operation's rebound request, which [`StartRequest`] put in the bag.
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

/// Puts a fresh rebound request in each operation's config bag.
struct StartRequest<S>(core::marker::PhantomData<fn() -> S>);

impl<S> fmt::Debug for StartRequest<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StartRequest")
    }
}

impl<S: Send + Sync + 'static> Intercept for StartRequest<S> {
    fn name(&self) -> &'static str {
        "rebound::StartRequest"
    }

    fn read_before_execution(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        cfg.interceptor_state()
            .store_put(OperationRetry::<S>::new());
        Ok(())
    }
}
