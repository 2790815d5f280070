//! The async executor: [`Retry::run_async`] and
//! [`Retry::run_async_classified`].
//!
//! Both are `async fn`s. Their future is [`Send`] when the operation's
//! closure and futures, the sleeper's futures, the error type and the
//! strategy, sleeper and clock (which are borrowed, so they must be
//! [`Sync`]) are; it is not `'static`, since it borrows the [`Retry`]. Put
//! the `Retry` in an `Arc` (or build one inside the spawned task) to spawn
//! it.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::Retry;
use crate::driver::classifier::{ByClosure, Classify, Native};
use crate::driver::error::RetryError;
use crate::driver::listen::{self, RetryListener};
use crate::driver::request::{Action, InFlight, Request, Step};
use crate::strategy::RetryStrategy;
use crate::time::{AsyncSleeper, Clock};
use crate::vocabulary::FailureInfo;

// `Sl: AsyncSleeper` is on each method, not on the impl, so that a wrong sleeper
// gets the trait's own diagnostic, not "method exists but its bounds...".
impl<S: RetryStrategy, Sl, C: Clock, L: RetryListener> Retry<S, Sl, C, L> {
    /// Runs the future `op` returns until one succeeds or the strategy (or
    /// the budget) allows no further attempt, awaiting the
    /// [`AsyncSleeper`] between attempts.
    ///
    /// `op` gets the 1-based attempt number. Its error type must implement
    /// [`RetryInfo`](crate::RetryInfo) and [`ErrorInfo`](crate::ErrorInfo);
    /// for other error types, see
    /// [`run_async_classified`](Self::run_async_classified).
    ///
    /// The default [`DefaultSleeper`](super::DefaultSleeper) awaits tokio's
    /// timer with the `tokio` feature. Without it, set a
    /// [`sleeper`](Self::sleeper) first: a closure around your runtime's
    /// timer.
    ///
    /// # Errors
    ///
    /// [`RetryError`] with the last attempt's failure, the number of attempts
    /// made and the [`StopReason`](super::StopReason).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
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
    /// let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
    /// let slept = Mutex::new(Vec::new());
    /// // Any runtime's timer fits, e.g. `|delay| tokio::time::sleep(delay)`.
    /// let retry = Retry::new(&strategy).sleeper(|delay| {
    ///     slept.lock().unwrap().push(delay);
    ///     std::future::ready(())
    /// });
    ///
    /// let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    /// let value = block_on(retry.run_async(|attempt| async move {
    ///     if attempt < 2 { Err(reset()) } else { Ok(attempt) }
    /// }))?;
    /// assert_eq!(value, 2);
    /// assert_eq!(*slept.lock().unwrap(), [Duration::from_millis(500)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn run_async<T, E, F, Fut>(&self, op: F) -> Result<T, RetryError<E>>
    where
        Sl: AsyncSleeper,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        E: FailureInfo,
    {
        self.drive_async(op, &Native).await
    }

    /// [`run_async`](Self::run_async) for an error type that does not
    /// implement the retry traits: `classify` says what each failure is, as
    /// a [`Classified`](crate::Classified) or any other [`FailureInfo`].
    ///
    /// # Errors
    ///
    /// [`RetryError`] with the last attempt's failure, the number of attempts
    /// made and the [`StopReason`](super::StopReason).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::Classified;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
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
    /// let strategy = StandardRetryStrategy::new();
    /// let retry = Retry::new(&strategy).sleeper(|_| std::future::ready(()));
    ///
    /// let err = block_on(retry.run_async_classified(
    ///     |_attempt| async { Err::<(), _>("invalid input") },
    ///     |_message: &&str| Classified::not_retryable(),
    /// ))
    /// .unwrap_err();
    /// assert_eq!(err.attempts(), 1);
    /// assert_eq!(err.last_error(), Some(&"invalid input"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn run_async_classified<T, E, F, Fut, K, I>(
        &self,
        op: F,
        classify: K,
    ) -> Result<T, RetryError<E>>
    where
        Sl: AsyncSleeper,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        K: Fn(&E) -> I,
        I: FailureInfo,
    {
        self.drive_async(op, &ByClosure(classify)).await
    }

    async fn drive_async<T, E, F, Fut>(
        &self,
        mut op: F,
        classify: &impl Classify<E>,
    ) -> Result<T, RetryError<E>>
    where
        Sl: AsyncSleeper,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        // Abandoned if dropped before it ends: a cancelled future, or a
        // panicking operation.
        let mut request = InFlight::new(Request::start(&self.strategy, &self.clock, self.budget));
        // The last attempt's failure, returned if the request stops before
        // the next attempt.
        let mut last_failure = None;
        loop {
            let attempt = match request.get().next_action(&self.listener) {
                Action::Sleep(delay) => {
                    self.sleeper.sleep(delay).await;
                    continue;
                }
                Action::Send(attempt) => attempt,
                Action::Stop(reason) => {
                    let listener = &self.listener;
                    let why = listen::stop_before_attempt(
                        request.take_held(),
                        classify,
                        last_failure,
                        reason,
                        listener,
                    );
                    // A request stopped before an attempt (a fail-fast
                    // refusal, the budget) may have awaited nothing that
                    // could suspend it: yield once, so that callers looping
                    // on refusals cannot hold the executor's threads.
                    YieldOnce::default().await;
                    return Err(why);
                }
            };
            match op(attempt).await {
                Ok(value) => {
                    request.take_held().succeeded(&self.listener);
                    return Ok(value);
                }
                Err(failure) => match classify.with(&failure, |info| {
                    listen::failed(request.take_held(), info, attempt, &self.listener)
                }) {
                    Step::Retry(next) => {
                        request.put(next);
                        last_failure = Some(failure);
                    }
                    Step::Stop(sleep, reason) => {
                        if let Some(sleep) = sleep {
                            self.sleeper.sleep(sleep).await;
                        }
                        return Err(RetryError::new(failure, attempt, reason));
                    }
                },
            }
        }
    }
}

/// A future that is pending once, waking its task at once: the task goes to
/// the back of its executor's queue (tokio's `yield_now`, without tokio).
#[derive(Default)]
struct YieldOnce {
    yielded: bool,
}

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
