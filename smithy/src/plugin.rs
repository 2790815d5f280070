//! [`RetryPlugin`]: a rebound strategy as a smithy-rs client's retry
//! strategy, installed by a `RuntimePlugin`.

use core::fmt;
use core::time::Duration;
use std::borrow::Cow;
use std::sync::Arc;

use aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder;
use aws_smithy_runtime_api::client::runtime_plugin::RuntimePlugin;
use aws_smithy_types::config_bag::{FrozenLayer, Layer};
use aws_smithy_types::retry::{RetryConfig, RetrySpec};
use rebound_runtime::{Retry, RetryListener, RetryStrategy};

use crate::operation::{SharedListener, StartRequest};
use crate::strategy::{Executor, ReboundStrategy};

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
/// operation fails with [`RetryStopped`](crate::RetryStopped) as its error's source, saying how
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
                .with_interceptor(StartRequest::<S>::new()),
        )
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
