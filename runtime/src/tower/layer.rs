//! [`RetryLayer`]: the retry configuration, as a tower [`Layer`].

use core::time::Duration;
use std::fmt;

use tower_layer::Layer;

use super::clone_request::ByClone;
use super::service::RetryService;
use crate::driver::listen::RetryListener;
use crate::executor::hooks::Hooks;
use crate::strategy::RetryStrategy;
use crate::time::{AsyncSleeper, Clock, SystemClock};

/// Retries the requests of the service it wraps with a
/// [`RetryStrategy`]: the tower counterpart of [`Retry`](crate::Retry),
/// with the same request loop, budget and listener. Wrap a service with
/// [`layer`](Layer::layer) (or in a `tower::ServiceBuilder`) to get a
/// [`RetryService`]; its page says what a request returns.
///
/// `St` is any [`RetryStrategy`] that is `Clone` — standard, adaptive,
/// legacy, never, or an `Arc` of any strategy. Clones of the standard and
/// adaptive strategies share their retry quota and rate limiter, so every
/// request through the layer draws on the same ones. `Sl` is an
/// [`AsyncSleeper`] (`DefaultSleeper` with the `tokio` feature, or a closure
/// around any runtime's timer). `K` says which outcomes are failures: a
/// [`ClassifyResult`](super::ClassifyResult).
///
/// Each request owns clones of the strategy, sleeper, classifier, request
/// policy, clock and listener, so its future can be `'static`: keep shared
/// state (counters, a quota) behind an `Arc` inside them.
///
/// # Default
///
/// | setting | default | setter |
/// |---|---|---|
/// | strategy, sleeper, classifier | none: given to [`new`](Self::new) | |
/// | request copies for retries | `Clone`: requests must be `Clone` | [`clone_request`](Self::clone_request) |
/// | clock | [`SystemClock`] | [`clock`](Self::clock) |
/// | total-time budget | none | [`budget`](Self::budget) |
/// | listener | none | [`listener`](Self::listener) |
///
/// Nothing about the configuration can fail: the strategy and sleeper are
/// checked when the layer is built, the rest when it wraps a service.
///
/// # Examples
///
/// A service that answers 503 twice, then 200:
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::{Arc, Mutex};
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::tower::RetryLayer;
/// use rebound_runtime::{Classified, StandardRetryStrategy};
/// use tower::{ServiceBuilder, ServiceExt, service_fn};
///
/// # fn block_on<F: std::future::Future>(future: F) -> F::Output {
/// #     let mut future = std::pin::pin!(future);
/// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
/// #     loop {
/// #         if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
/// #             return out;
/// #         }
/// #     }
/// # }
/// let calls = Arc::new(AtomicU32::new(0));
/// let service = service_fn(move |_request: &'static str| {
///     let call = calls.fetch_add(1, Ordering::Relaxed) + 1;
///     async move { Ok::<u16, std::io::Error>(if call < 3 { 503 } else { 200 }) }
/// });
///
/// // Which outcomes are failures, and what they are.
/// let classify = |result: &Result<u16, std::io::Error>| match result {
///     Ok(status) if *status < 400 => None,
///     Ok(status) => Some(Classified::from(HttpErrorResponse::new(*status))),
///     Err(error) => Some(Classified::from_failure(error)),
/// };
/// // Any runtime's timer fits, e.g. `|delay| tokio::time::sleep(delay)`; this
/// // one records the delays and does not wait.
/// let slept = Arc::new(Mutex::new(Vec::new()));
/// let sleeper = {
///     let slept = Arc::clone(&slept);
///     move |delay| {
///         slept.lock().unwrap().push(delay);
///         std::future::ready(())
///     }
/// };
/// let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
///
/// let service = ServiceBuilder::new()
///     .layer(RetryLayer::new(strategy, sleeper, classify).budget(Duration::from_secs(30)))
///     .service(service);
/// assert_eq!(block_on(service.oneshot("GET /"))?, 200);
/// assert_eq!(*slept.lock().unwrap(), [Duration::from_millis(500), Duration::from_secs(1)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
#[must_use = "a layer does nothing until it wraps a service"]
pub struct RetryLayer<St, Sl, K, Q = ByClone, C = SystemClock, L = Hooks> {
    pub(super) strategy: St,
    pub(super) sleeper: Sl,
    pub(super) classifier: K,
    pub(super) clone_request: Q,
    pub(super) clock: C,
    pub(super) budget: Option<Duration>,
    pub(super) listener: L,
}

impl<St, Sl, K> RetryLayer<St, Sl, K> {
    /// A layer retrying with `strategy`, waiting between attempts with
    /// `sleeper`, judging outcomes with `classifier`; the other settings
    /// take their [defaults](Self#default).
    pub fn new(strategy: St, sleeper: Sl, classifier: K) -> Self
    where
        St: RetryStrategy + Clone,
        Sl: AsyncSleeper + Clone,
    {
        Self {
            strategy,
            sleeper,
            classifier,
            clone_request: ByClone,
            clock: SystemClock,
            budget: None,
            listener: Hooks::default(),
        }
    }
}

impl<St, Sl, K, Q, C, L> RetryLayer<St, Sl, K, Q, C, L> {
    /// Copies each request for its retries with `clone_request`: a
    /// [`CloneRequest`](super::CloneRequest), such as a closure
    /// `Fn(&Req) -> Option<Req>`.
    ///
    /// **A request it cannot copy (`None`) is sent once, with no retries**;
    /// the strategy still gives the initial token and hears the outcome.
    ///
    /// # Examples
    ///
    /// Requests with a streaming body cannot be sent twice:
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    ///
    /// #[derive(Clone)]
    /// enum Body {
    ///     Bytes(Vec<u8>),
    ///     Stream,
    /// }
    ///
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// )
    /// .clone_request(|body: &Body| match body {
    ///     Body::Bytes(bytes) => Some(Body::Bytes(bytes.clone())),
    ///     Body::Stream => None,
    /// });
    /// # let _ = layer;
    /// ```
    pub fn clone_request<Q2>(self, clone_request: Q2) -> RetryLayer<St, Sl, K, Q2, C, L> {
        RetryLayer {
            strategy: self.strategy,
            sleeper: self.sleeper,
            classifier: self.classifier,
            clone_request,
            clock: self.clock,
            budget: self.budget,
            listener: self.listener,
        }
    }

    /// Reads the time for the [budget](Self::budget) from `clock`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::time::ManualClock;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    ///
    /// let clock = ManualClock::new();
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     clock.clone(), // sleeps advance the clock instead of waiting
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// )
    /// .clock(clock)
    /// .budget(Duration::from_secs(10));
    /// # let _ = layer;
    /// ```
    pub fn clock<C2: Clock + Clone>(self, clock: C2) -> RetryLayer<St, Sl, K, Q, C2, L> {
        RetryLayer {
            strategy: self.strategy,
            sleeper: self.sleeper,
            classifier: self.classifier,
            clone_request: self.clone_request,
            clock,
            budget: self.budget,
            listener: self.listener,
        }
    }

    /// Bounds the time a request may take, from
    /// [`call`](tower_service::Service::call) until its last attempt
    /// starts, as [`Retry::budget`](crate::Retry::budget) does: every wait
    /// before an attempt counts (the initial token's delay, each backoff,
    /// each wait for a send permit), and a wait that would not end within
    /// the budget is not slept — the request stops at once with
    /// [`StopReason::BudgetExhausted`](crate::StopReason::BudgetExhausted),
    /// returning the last attempt's outcome. An attempt with nothing to wait
    /// for is always made.
    ///
    /// The budget interrupts neither an attempt in progress nor a wait for
    /// the service to get ready: add a timeout layer for those. A retry the
    /// strategy granted but the budget refused is abandoned, not refunded.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    ///
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// )
    /// .budget(Duration::from_secs(30));
    /// # let _ = layer;
    /// ```
    pub const fn budget(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Tells `listener` of every retry and give-up (see
    /// [`RetryListener`] and [`Retry::listener`](crate::Retry::listener)).
    /// Each request gets a clone: share what it records through an `Arc`.
    ///
    /// A give-up is every end but a success: the listener hears it also when
    /// the service returns the last error *response* as it is, and when
    /// the request cannot be copied for a retry the strategy granted (then
    /// `on_retry` is followed at once by `on_give_up`; a retry the budget
    /// refuses is heard as a give-up only).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, RetryEvent, RetryListener, StandardRetryStrategy};
    ///
    /// #[derive(Clone, Debug, Default)]
    /// struct Retries(Arc<AtomicU32>);
    ///
    /// impl RetryListener for Retries {
    ///     fn on_retry(&self, _event: &RetryEvent<'_>) {
    ///         self.0.fetch_add(1, Ordering::Relaxed);
    ///     }
    /// }
    ///
    /// let retries = Retries::default();
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// )
    /// .listener(retries.clone());
    /// # let _ = layer;
    /// assert_eq!(retries.0.load(Ordering::Relaxed), 0);
    /// ```
    pub fn listener<L2: RetryListener + Clone>(
        self,
        listener: L2,
    ) -> RetryLayer<St, Sl, K, Q, C, L2> {
        RetryLayer {
            strategy: self.strategy,
            sleeper: self.sleeper,
            classifier: self.classifier,
            clone_request: self.clone_request,
            clock: self.clock,
            budget: self.budget,
            listener,
        }
    }

    /// The strategy the layer's services ask.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    ///
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// );
    /// assert_eq!(layer.strategy().max_attempts(), 3);
    /// ```
    pub const fn strategy(&self) -> &St {
        &self.strategy
    }
}

impl<Svc, St, Sl, K, Q, C, L> Layer<Svc> for RetryLayer<St, Sl, K, Q, C, L>
where
    St: Clone,
    Sl: Clone,
    K: Clone,
    Q: Clone,
    C: Clone,
    L: Clone,
{
    type Service = RetryService<Svc, St, Sl, K, Q, C, L>;

    fn layer(&self, inner: Svc) -> Self::Service {
        RetryService::new(inner, self.clone())
    }
}

impl<St: fmt::Debug, Sl, K, Q, C, L> fmt::Debug for RetryLayer<St, Sl, K, Q, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryLayer")
            .field("strategy", &self.strategy)
            .field("sleeper", &std::any::type_name::<Sl>())
            .field("classifier", &std::any::type_name::<K>())
            .field("clone_request", &std::any::type_name::<Q>())
            .field("clock", &std::any::type_name::<C>())
            .field("budget", &self.budget)
            .field("listener", &std::any::type_name::<L>())
            .finish()
    }
}
