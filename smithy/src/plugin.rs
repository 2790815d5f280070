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
use rebound_runtime::time::{DefaultSleeper, SystemClock};
use rebound_runtime::{GiveUpEvent, Retry, RetryEvent, RetryListener, RetryStrategy};

use crate::listener::{OnGiveUp, OnRetry, SharedListener};
use crate::operation::StartRequest;
use crate::strategy::ReboundStrategy;

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
/// How an operation ends without success:
/// - a failure the strategy does not retry, or whose retry's backoff would
///   not end within the budget, is returned as the client returns it;
/// - when rebound refuses an attempt about to be sent (a fail-fast rate
///   limiter, or a wait for a send permit past the budget), the operation
///   fails with a dispatch failure carrying [`RetryStopped`](crate::RetryStopped)
///   ([`RetryStopped::find`](crate::RetryStopped::find)), saying how many
///   attempts were made and why. The orchestrator asks for the permit in a
///   hook that can only fail the operation, not return the previous failure.
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
    /// What the listener is, kept to add a hook to it.
    listener: SharedListener,
    /// The retry configuration every operation runs under.
    retry_config: RetryConfig,
    config: FrozenLayer,
}

impl<S> RetryPlugin<S>
where
    S: RetryStrategy + fmt::Debug + Send + Sync + 'static,
{
    /// A plugin retrying with `strategy`, telling no listener, without a
    /// budget. Every operation of the client draws from the one strategy
    /// (its retry quota, its rate limiter); to share it with other clients
    /// or with [`send`](crate::send), pass an `Arc<S>` and keep a clone
    /// (a borrowed `&S` does not live as long as the client).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    /// use rebound_smithy::RetryPlugin;
    ///
    /// let shared = Arc::new(StandardRetryStrategy::new());
    /// let plugin = RetryPlugin::new(Arc::clone(&shared)); // one client's plugin
    /// let retry = Retry::new(Arc::clone(&shared)); // `send` on another client: the same quota
    /// # let _ = (plugin, retry);
    /// ```
    pub fn new(strategy: S) -> Self {
        Self::with(Retry::new(Arc::new(strategy)), SharedListener::default())
    }

    /// Tells `listener` of every retry and give-up, in place of any listener
    /// or hook set before.
    #[must_use]
    pub fn listener(self, listener: impl RetryListener + Send + Sync + 'static) -> Self {
        Self::with(self.strategy.retry, SharedListener::new(listener))
    }

    /// Calls `hook` for every retry, as
    /// [`Retry::on_retry`](rebound_runtime::Retry::on_retry) does; the
    /// give-ups still go to the listener or hook set before.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use rebound_runtime::StandardRetryStrategy;
    /// use rebound_smithy::RetryPlugin;
    ///
    /// let retries = Arc::new(AtomicU32::new(0));
    /// let counted = Arc::clone(&retries);
    /// let plugin = RetryPlugin::new(StandardRetryStrategy::new())
    ///     .on_retry(move |_event| {
    ///         counted.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .on_give_up(|event| eprintln!("gave up after {} attempts: {}", event.attempts(), event.reason()));
    /// # let _ = plugin;
    /// ```
    #[must_use]
    pub fn on_retry<F>(self, hook: F) -> Self
    where
        F: Fn(&RetryEvent<'_>) + Send + Sync + 'static,
    {
        let rest = self.listener.clone();
        self.listener(OnRetry { hook, rest })
    }

    /// Calls `hook` when an operation fails for good, as
    /// [`Retry::on_give_up`](rebound_runtime::Retry::on_give_up) does; the
    /// retries still go to the listener or hook set before. See
    /// [`on_retry`](Self::on_retry) for an example.
    #[must_use]
    pub fn on_give_up<G>(self, hook: G) -> Self
    where
        G: Fn(&GiveUpEvent<'_>) + Send + Sync + 'static,
    {
        let rest = self.listener.clone();
        self.listener(OnGiveUp { hook, rest })
    }

    /// Bounds the time an operation may take, from its first attempt's
    /// start until its last attempt starts, as
    /// [`Retry::budget`](rebound_runtime::Retry::budget) says.
    #[must_use]
    pub fn budget(self, budget: Duration) -> Self {
        Self::with(self.strategy.retry.budget(budget), self.listener)
    }

    fn with<L>(
        retry: Retry<Arc<S>, DefaultSleeper, SystemClock, L>,
        listener: SharedListener,
    ) -> Self {
        let retry = retry.listener(listener.clone());
        let max_attempts = retry.strategy().attempt_limit().unwrap_or(u32::MAX);
        // The attempt header's maximum; retry behaviour 2.1 makes the
        // orchestrator ask for a send permit before every retry, not only
        // before the first attempt.
        let retry_config = RetryConfig::standard()
            .with_max_attempts(max_attempts)
            .with_retry_spec(RetrySpec::v2_1());
        let mut layer = Layer::new("rebound");
        layer.store_put(retry_config.clone());
        Self {
            strategy: ReboundStrategy { retry },
            listener,
            retry_config,
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
                .with_interceptor(StartRequest::<S>::new(self.retry_config.clone())),
        )
    }
}

impl<S> Clone for RetryPlugin<S> {
    fn clone(&self) -> Self {
        Self {
            strategy: self.strategy.clone(),
            listener: self.listener.clone(),
            retry_config: self.retry_config.clone(),
            config: self.config.clone(),
        }
    }
}
