//! [`RetryService`]: a tower [`Service`] that retries the one it wraps.

use core::task::{Context, Poll};
use std::fmt;

use tower_service::Service;

use super::classify::ClassifyResult;
use super::clone_request::{ByClone, CloneRequest};
use super::future::ResponseFuture;
use super::layer::RetryLayer;
use crate::driver::error::{RetryError, StopReason};
use crate::driver::listen::RetryListener;
use crate::executor::hooks::Hooks;
use crate::strategy::RetryStrategy;
use crate::time::{AsyncSleeper, Clock, SystemClock};

/// A tower [`Service`] that sends each request to the service it wraps,
/// again while the outcome is a failure the strategy retries. Made by a
/// [`RetryLayer`], whose page lists the settings.
///
/// The inner service must be `Clone`: each request keeps the clone that
/// was ready for it (the tower idiom: [`call`](Service::call) swaps a fresh
/// clone in), and before each retry polls that clone until it is ready
/// again, so the inner service's backpressure holds for retries too. A
/// service that is not `Clone` can be made so with tower's `Buffer`.
///
/// Each attempt sends a copy of the request ([`CloneRequest`]); the
/// request itself is kept for the next copy until the request ends. A retry
/// sleeps its backoff, takes its send permit (adaptive mode's rate
/// limiter), waits for the service to get ready, and is sent. The budget
/// bounds the sleeps, not the wait for readiness nor the attempts
/// themselves: add a timeout layer for those.
///
/// # Outcomes
///
/// The classifier decides which outcomes are failures. What the caller gets
/// depends on how the request ends:
///
/// | the request ends | the caller gets |
/// |---|---|
/// | an attempt succeeds | `Ok(response)`, after the strategy got its token back (`record_success`) |
/// | after an error *response* (a 503, a permanent 400) the strategy does not retry, or the budget or a fail-fast rate limiter stops the next attempt, or the request cannot be copied for a retry | **`Ok(response)`, that last response unchanged**: the layers above see what they would have seen without retries |
/// | after an `Err(e)`, likewise | `Err(RetryError)` with `e`, the attempt count and the [`StopReason`] |
/// | before the first attempt (the budget, a fail-fast rate limiter) | `Err(RetryError)` with no last error and 0 attempts |
/// | the service fails to get ready for a retry (its `poll_ready` returns `Err(e)`) | `Err(RetryError)` with `e`, the attempts made before and [`StopReason::ServiceNotReady`]; the previous attempt's outcome is dropped |
///
/// A request the [`CloneRequest`] policy cannot copy is sent once, with no
/// retries: the strategy still gives its initial token and hears the
/// outcome, and a retry it grants is abandoned
/// ([`StopReason::RequestNotClonable`] for an `Err`).
///
/// [`poll_ready`](Service::poll_ready) is the inner service's: its error
/// becomes a [`RetryError`] carrying it, with 0 attempts and
/// [`StopReason::ServiceNotReady`] (no request was started, so no listener
/// hears of it). Like any tower service's, a `RetryService` that failed to
/// get ready should not be used again.
///
/// # Examples
///
/// A permanent error response is returned as it is, after one attempt:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::tower::RetryLayer;
/// use rebound_runtime::{Classified, StandardRetryStrategy};
/// use tower::{Layer, ServiceExt, service_fn};
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
/// let counted = Arc::clone(&calls);
/// let service = service_fn(move |_request: ()| {
///     counted.fetch_add(1, Ordering::Relaxed);
///     async { Ok::<u16, std::io::Error>(400) }
/// });
/// let layer = RetryLayer::new(
///     StandardRetryStrategy::new(),
///     |_: Duration| std::future::ready(()),
///     |result: &Result<u16, std::io::Error>| match result {
///         Ok(status) if *status < 400 => None,
///         Ok(status) => Some(Classified::from(HttpErrorResponse::new(*status))),
///         Err(error) => Some(Classified::from_failure(error)),
///     },
/// );
///
/// let status = block_on(layer.layer(service).oneshot(()))?;
/// assert_eq!(status, 400); // not retryable: returned as it came
/// assert_eq!(calls.load(Ordering::Relaxed), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A transport error, retried until the attempts run out:
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::tower::RetryLayer;
/// use rebound_runtime::{Classified, StandardRetryStrategy, StopReason, TokenAcquisitionFailed};
/// use tower::{Layer, ServiceExt, service_fn};
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
/// let service = service_fn(|_request: ()| async {
///     Err::<u16, _>(std::io::Error::from(std::io::ErrorKind::ConnectionReset))
/// });
/// let layer = RetryLayer::new(
///     StandardRetryStrategy::new(),
///     |_: Duration| std::future::ready(()),
///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
/// );
///
/// let err = block_on(layer.layer(service).oneshot(())).unwrap_err();
/// assert_eq!(err.attempts(), 3);
/// assert_eq!(err.last_error().unwrap().kind(), std::io::ErrorKind::ConnectionReset);
/// assert!(matches!(
///     err.reason(),
///     StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted { .. })
/// ));
/// ```
#[derive(Clone)]
pub struct RetryService<Svc, St, Sl, K, Q = ByClone, C = SystemClock, L = Hooks> {
    inner: Svc,
    config: RetryLayer<St, Sl, K, Q, C, L>,
}

impl<Svc, St, Sl, K, Q, C, L> RetryService<Svc, St, Sl, K, Q, C, L> {
    pub(super) const fn new(inner: Svc, config: RetryLayer<St, Sl, K, Q, C, L>) -> Self {
        Self { inner, config }
    }

    /// The service it wraps.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    /// use tower::Layer;
    ///
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// );
    /// let mut service = layer.layer(vec![1, 2]); // any type can be wrapped
    /// assert_eq!(service.get_ref().len(), 2);
    /// service.get_mut().push(3);
    /// assert_eq!(service.into_inner(), [1, 2, 3]);
    /// ```
    pub const fn get_ref(&self) -> &Svc {
        &self.inner
    }

    /// The service it wraps, mutably. See [`get_ref`](Self::get_ref) for an
    /// example.
    pub const fn get_mut(&mut self) -> &mut Svc {
        &mut self.inner
    }

    /// The service it wraps, without the retries. See
    /// [`get_ref`](Self::get_ref) for an example.
    pub fn into_inner(self) -> Svc {
        self.inner
    }

    /// The layer's settings, as the service uses them.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    /// use tower::Layer;
    ///
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, std::io::Error>| result.as_ref().err().map(Classified::from_failure),
    /// );
    /// let service = layer.layer(());
    /// assert_eq!(service.layer().strategy().max_attempts(), 3);
    /// ```
    pub const fn layer(&self) -> &RetryLayer<St, Sl, K, Q, C, L> {
        &self.config
    }
}

impl<Svc, Req, St, Sl, K, Q, C, L> Service<Req> for RetryService<Svc, St, Sl, K, Q, C, L>
where
    Svc: Service<Req> + Clone,
    St: RetryStrategy + Clone,
    Sl: AsyncSleeper + Clone,
    K: ClassifyResult<Svc::Response, Svc::Error> + Clone,
    Q: CloneRequest<Req> + Clone,
    C: Clock + Clone,
    L: RetryListener + Clone,
{
    type Response = Svc::Response;
    type Error = RetryError<Svc::Error>;
    type Future = ResponseFuture<Svc, Req, St, Sl, K, Q, C, L>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner
            .poll_ready(cx)
            .map_err(|error| RetryError::new(error, 0, StopReason::ServiceNotReady))
    }

    fn call(&mut self, request: Req) -> Self::Future {
        // The clone that was made ready goes with the request; a fresh one
        // stays for the next `poll_ready`.
        let fresh = self.inner.clone();
        let ready = core::mem::replace(&mut self.inner, fresh);
        ResponseFuture::new(ready, request, &self.config)
    }
}

impl<Svc: fmt::Debug, St: fmt::Debug, Sl, K, Q, C, L> fmt::Debug
    for RetryService<Svc, St, Sl, K, Q, C, L>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryService")
            .field("inner", &self.inner)
            .field("config", &self.config)
            .finish()
    }
}
