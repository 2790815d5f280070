//! its future: one request through a [`RetryService`](super::RetryService),
//! as a state machine over the executors' request loop.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, ready};

use pin_project_lite::pin_project;
use tower_service::Service;

use super::classify::ClassifyResult;
use super::clone_request::{ByClone, CloneRequest};
use super::layer::RetryLayer;
use crate::driver::classifier::Classify;
use crate::driver::error::{RetryError, StopReason};
use crate::driver::listen::{self, RetryListener};
use crate::driver::request::{Action, InFlight, Request, Step};
use crate::executor::hooks::Hooks;
use crate::strategy::RetryStrategy;
use crate::time::{AsyncSleeper, Clock, SystemClock};
use crate::vocabulary::{Classified, FailureInfo};

pin_project! {
    /// The future a [`RetryService`](super::RetryService) returns for a
    /// request: it sends the request, and again while the response or error
    /// is a failure the strategy retries, sleeping between attempts. It
    /// resolves as the [`RetryService`](super::RetryService#outcomes) table
    /// says.
    ///
    /// A plain state machine — deciding what is next, sleeping on the
    /// sleeper's [`Sleep`](AsyncSleeper::Sleep) future, waiting for the
    /// service to get ready, awaiting the service's future — with nothing
    /// boxed, so it can be named. It owns its service (the clone that was
    /// ready), the request (kept to be copied for each retry) and clones of
    /// the layer's strategy, sleeper, classifier, clock and listener: it is
    /// [`Send`] when they are (and the service's future, response and error
    /// are), and `'static` when they are.
    ///
    /// The strategy's initial token is taken and the budget starts when
    /// [`call`](tower_service::Service::call) makes the future; nothing is
    /// sent, and no sleep is started, until it is first polled.
    ///
    /// # Panics
    ///
    /// When polled again after it completed, as futures may.
    ///
    /// # Examples
    ///
    /// The future is an ordinary type, `Send` and `'static` with owned
    /// parts, so it can be spawned:
    ///
    /// ```
    /// use std::convert::Infallible;
    /// use std::future::Ready;
    /// use std::time::Duration;
    /// use rebound_runtime::tower::RetryLayer;
    /// use rebound_runtime::{Classified, StandardRetryStrategy};
    /// use tower::{Layer, Service};
    ///
    /// fn assert_send_static<T: Send + 'static>(_: &T) {}
    ///
    /// let layer = RetryLayer::new(
    ///     StandardRetryStrategy::new(),
    ///     |_: Duration| std::future::ready(()),
    ///     |result: &Result<u16, Infallible>| match result {
    ///         Ok(200) => None,
    ///         _ => Some(Classified::retryable()),
    ///     },
    /// );
    /// let mut service = layer.layer(tower::service_fn(|_request: &'static str| async { Ok(200) }));
    /// let future = service.call("GET /");
    /// assert_send_static(&future);
    /// # let _ = future;
    /// ```
    #[must_use = "futures do nothing unless polled"]
    pub struct ResponseFuture<Svc, Req, St, Sl, K, Q = ByClone, C = SystemClock, L = Hooks>
    where
        Svc: Service<Req>,
        Sl: AsyncSleeper,
        K: ClassifyResult<Svc::Response, Svc::Error>,
    {
        #[pin]
        state: State<Svc::Future, Sl::Sleep>,
        // The clone of the inner service this request uses.
        service: Svc,
        // Whether `service` is ready for a call: the one `call` took is.
        ready: bool,
        // The request loop, owning clones of the strategy and the clock;
        // empty once it ended. Dropped before (the future cancelled), it
        // gives up the request's place in an adaptive limiter's line.
        request: InFlight<St, C>,
        // The request, kept to be copied for each attempt; `None` once it
        // was sent itself, because it could not be copied.
        template: Option<Req>,
        // The attempt being (or last) sent, 1-based.
        attempt: u32,
        // The last attempt's outcome and failure, until the next attempt is
        // sent or the request stops.
        last: Option<(Result<Svc::Response, Svc::Error>, LastFailure<K::Failure>)>,
        sleeper: Sl,
        classifier: K,
        clone_request: Q,
        listener: L,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F, S> {
        // Ask the request loop what is next.
        Deciding,
        // A wait before an attempt: the backoff, or one for a send permit.
        Sleeping {
            #[pin]
            sleep: S,
        },
        // The attempt may be sent: get the service ready (not the first
        // attempt's: `call` got it), copy the request and call.
        Sending,
        // Awaiting the attempt.
        Calling {
            #[pin]
            future: F,
        },
        // The request stops before an attempt, after yielding once.
        Stopping {
            reason: Option<StopReason>,
        },
        // The strategy's wait before giving up (long-polling operations),
        // then the last outcome is returned.
        GivingUp {
            #[pin]
            sleep: S,
            reason: Option<StopReason>,
        },
        // The future completed.
        Done,
    }
}

/// What the strategy was told an attempt's failure was.
enum LastFailure<F> {
    /// The classifier's verdict.
    Classified(F),
    /// An `Err` the classifier called a success: not retryable.
    Unclassified(Classified),
}

impl<F: FailureInfo> LastFailure<F> {
    fn info(&self) -> &dyn FailureInfo {
        match self {
            Self::Classified(failure) => failure,
            Self::Unclassified(failure) => failure,
        }
    }
}

/// Reads a [`LastFailure`] for the listener helpers.
struct ByVerdict;

impl<F: FailureInfo> Classify<LastFailure<F>> for ByVerdict {
    #[inline]
    fn with<R>(&self, failure: &LastFailure<F>, then: impl FnOnce(&dyn FailureInfo) -> R) -> R {
        then(failure.info())
    }
}

impl<Svc, Req, St, Sl, K, Q, C, L> ResponseFuture<Svc, Req, St, Sl, K, Q, C, L>
where
    Svc: Service<Req>,
    St: RetryStrategy + Clone,
    Sl: AsyncSleeper + Clone,
    K: ClassifyResult<Svc::Response, Svc::Error> + Clone,
    Q: Clone,
    C: Clock + Clone,
    L: Clone,
{
    /// Starts a request: `service` is ready for its first attempt.
    pub(super) fn new(service: Svc, request: Req, config: &RetryLayer<St, Sl, K, Q, C, L>) -> Self {
        Self {
            state: State::Deciding,
            service,
            ready: true,
            request: InFlight::new(Request::start(
                config.strategy.clone(),
                config.clock.clone(),
                config.budget,
            )),
            template: Some(request),
            attempt: 1,
            last: None,
            sleeper: config.sleeper.clone(),
            classifier: config.classifier.clone(),
            clone_request: config.clone_request.clone(),
            listener: config.listener.clone(),
        }
    }
}

impl<Svc, Req, St, Sl, K, Q, C, L> Future for ResponseFuture<Svc, Req, St, Sl, K, Q, C, L>
where
    Svc: Service<Req>,
    St: RetryStrategy,
    Sl: AsyncSleeper,
    K: ClassifyResult<Svc::Response, Svc::Error>,
    Q: CloneRequest<Req>,
    C: Clock,
    L: RetryListener,
{
    type Output = Result<Svc::Response, RetryError<Svc::Error>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            match this.state.as_mut().project() {
                StateProj::Deciding => {
                    let Some(request) = this.request.as_mut() else {
                        polled_after_completion()
                    };
                    match request.next_action(&*this.listener) {
                        Action::Sleep(delay) => {
                            let sleep = this.sleeper.sleep(delay);
                            this.state.set(State::Sleeping { sleep });
                        }
                        Action::Send(attempt) => {
                            *this.attempt = attempt;
                            this.state.set(State::Sending);
                        }
                        Action::Stop(reason) => {
                            // Stopped before an attempt (a fail-fast refusal,
                            // the budget), maybe without ever being pending:
                            // yield once, so that callers looping on refusals
                            // cannot hold the executor's threads.
                            let reason = Some(reason);
                            this.state.set(State::Stopping { reason });
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                    }
                }
                StateProj::Stopping { reason } => {
                    let (Some(reason), Some(request)) = (reason.take(), this.request.take()) else {
                        polled_after_completion()
                    };
                    let attempts = request.attempts_made();
                    let strategy = Some(strategy_of(&request));
                    this.state.set(State::Done);
                    let last = this.last.take();
                    let listener = &*this.listener;
                    let stopped = stop(strategy, last, attempts, reason, listener);
                    request.abandon();
                    return Poll::Ready(stopped);
                }
                StateProj::Sleeping { sleep } => {
                    ready!(sleep.poll(cx));
                    this.state.set(State::Deciding);
                }
                StateProj::Sending => {
                    let attempts_made = this.attempt.saturating_sub(1);
                    if !*this.ready {
                        if let Err(error) = ready!(this.service.poll_ready(cx)) {
                            let reason = StopReason::ServiceNotReady;
                            let last = this.last.take();
                            let last_failure = last.as_ref().map(|(_, failure)| failure);
                            let listener = &*this.listener;
                            let request = this.request.take();
                            listen::stopped_with(
                                request.as_ref().map(strategy_of),
                                &ByVerdict,
                                last_failure,
                                attempts_made,
                                &reason,
                                listener,
                            );
                            this.state.set(State::Done);
                            return Poll::Ready(Err(RetryError::new(error, attempts_made, reason)));
                        }
                        *this.ready = true;
                    }
                    let Some(request) = next_request(this.template, &*this.clone_request) else {
                        // Not reached: a request sent itself is not retried.
                        let request = this.request.take();
                        this.state.set(State::Done);
                        let (last, reason) = (this.last.take(), StopReason::RequestNotClonable);
                        let (strategy, listener) =
                            (request.as_ref().map(strategy_of), &*this.listener);
                        return Poll::Ready(stop(strategy, last, attempts_made, reason, listener));
                    };
                    // The previous attempt's outcome is no longer the last.
                    *this.last = None;
                    *this.ready = false;
                    let future = this.service.call(request);
                    this.state.set(State::Calling { future });
                }
                StateProj::Calling { future } => {
                    let result = ready!(future.poll(cx));
                    let Some(request) = this.request.take() else {
                        polled_after_completion()
                    };
                    let attempt = *this.attempt;
                    let (result, failure) = match (this.classifier.classify(&result), result) {
                        (None, Ok(response)) => {
                            request.succeeded(&*this.listener);
                            this.state.set(State::Done);
                            return Poll::Ready(Ok(response));
                        }
                        (Some(failure), result) => (result, LastFailure::Classified(failure)),
                        (None, result) => {
                            let failure = Classified::not_retryable();
                            (result, LastFailure::Unclassified(failure))
                        }
                    };
                    let listener = &*this.listener;
                    match listen::failed(request, failure.info(), attempt, listener) {
                        Step::Retry(next) if this.template.is_some() => {
                            this.request.put(next);
                            *this.last = Some((result, failure));
                            this.state.set(State::Deciding);
                        }
                        Step::Retry(abandoned) => {
                            // The request was sent itself: there is no copy
                            // left to retry with.
                            let reason = StopReason::RequestNotClonable;
                            let strategy = Some(strategy_of(&abandoned));
                            listen::stopped_with(
                                strategy,
                                &ByVerdict,
                                Some(&failure),
                                attempt,
                                &reason,
                                listener,
                            );
                            this.state.set(State::Done);
                            // The strategy granted a retry that will not be
                            // made: its token goes back as abandoned.
                            abandoned.abandon();
                            return Poll::Ready(outcome(result, attempt, reason));
                        }
                        Step::Stop(None, reason) => {
                            this.state.set(State::Done);
                            return Poll::Ready(outcome(result, attempt, reason));
                        }
                        Step::Stop(Some(delay), reason) => {
                            *this.last = Some((result, failure));
                            let sleep = this.sleeper.sleep(delay);
                            let reason = Some(reason);
                            this.state.set(State::GivingUp { sleep, reason });
                        }
                    }
                }
                StateProj::GivingUp { sleep, reason } => {
                    ready!(sleep.poll(cx));
                    let (Some(reason), Some((result, _))) = (reason.take(), this.last.take())
                    else {
                        polled_after_completion()
                    };
                    this.state.set(State::Done);
                    return Poll::Ready(outcome(result, *this.attempt, reason));
                }
                StateProj::Done => polled_after_completion(),
            }
        }
    }
}

/// The request to send: a copy of the kept one, or (when it cannot be
/// copied) the kept one itself, which leaves none for a retry.
fn next_request<Req, Q: CloneRequest<Req> + ?Sized>(
    template: &mut Option<Req>,
    clone_request: &Q,
) -> Option<Req> {
    let kept = template.take()?;
    match clone_request.clone_request(&kept) {
        Some(copy) => {
            *template = Some(kept);
            Some(copy)
        }
        None => Some(kept),
    }
}

/// The last attempt's outcome when no further attempt follows: a response
/// as it is (an error response included), an error with the attempt count
/// and the reason.
fn outcome<Res, E>(
    result: Result<Res, E>,
    attempts: u32,
    reason: StopReason,
) -> Result<Res, RetryError<E>> {
    result.map_err(|error| RetryError::new(error, attempts, reason))
}

/// The request stopped before attempt `attempts + 1`: tells the listener,
/// and returns the last attempt's outcome, if there was one.
fn stop<Res, E, F, L>(
    strategy: Option<&dyn RetryStrategy>,
    last: Option<(Result<Res, E>, LastFailure<F>)>,
    attempts: u32,
    reason: StopReason,
    listener: &L,
) -> Result<Res, RetryError<E>>
where
    F: FailureInfo,
    L: RetryListener + ?Sized,
{
    let last_failure = last.as_ref().map(|(_, failure)| failure);
    listen::stopped_with(
        strategy,
        &ByVerdict,
        last_failure,
        attempts,
        &reason,
        listener,
    );
    match last {
        Some((result, _)) => outcome(result, attempts, reason),
        None => Err(RetryError::stopped(None, attempts, reason)),
    }
}

#[cold]
#[track_caller]
fn polled_after_completion() -> ! {
    panic!("`rebound_runtime::tower::ResponseFuture` polled after it completed")
}

impl<Svc, Req, St, Sl, K, Q, C, L> fmt::Debug for ResponseFuture<Svc, Req, St, Sl, K, Q, C, L>
where
    Svc: Service<Req>,
    Sl: AsyncSleeper,
    K: ClassifyResult<Svc::Response, Svc::Error>,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Deciding => "deciding",
            State::Sleeping { .. } => "sleeping",
            State::Sending => "sending",
            State::Calling { .. } => "calling",
            State::Stopping { .. } => "stopping",
            State::GivingUp { .. } => "giving up",
            State::Done => "done",
        };
        f.debug_struct("ResponseFuture")
            .field("state", &state)
            .field("attempt", &self.attempt)
            .field("service", &std::any::type_name::<Svc>())
            .field("request", &std::any::type_name::<Req>())
            .field("strategy", &std::any::type_name::<St>())
            .field("sleeper", &std::any::type_name::<Sl>())
            .field("classifier", &std::any::type_name::<K>())
            .field("clone_request", &std::any::type_name::<Q>())
            .field("clock", &std::any::type_name::<C>())
            .field("listener", &std::any::type_name::<L>())
            .finish()
    }
}

/// The request loop's strategy, as the listener helpers take it.
fn strategy_of<St: RetryStrategy, C: Clock>(request: &Request<St, C>) -> &dyn RetryStrategy {
    request.strategy()
}
