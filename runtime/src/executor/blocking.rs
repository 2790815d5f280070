//! The blocking executor: [`Retry::run`] and [`Retry::run_classified`].

use super::Retry;
use crate::driver::classifier::{ByClosure, Classify, Native};
use crate::driver::error::RetryError;
use crate::driver::listen::{self, RetryListener};
use crate::driver::request::{Action, InFlight, Request, Step};
use crate::strategy::RetryStrategy;
use crate::time::{Clock, Sleeper};
use crate::vocabulary::FailureInfo;

// `Sl: Sleeper` is on each method, not on the impl, so that a wrong sleeper
// gets the trait's own diagnostic, not "method exists but its bounds...".
impl<S: RetryStrategy, Sl, C: Clock, L: RetryListener> Retry<S, Sl, C, L> {
    /// Runs `op` until it succeeds or the strategy (or the budget) allows no
    /// further attempt, blocking in the [`Sleeper`] between attempts.
    ///
    /// `op` gets the 1-based attempt number. Its error type must implement
    /// [`RetryInfo`](crate::RetryInfo) and [`ErrorInfo`](crate::ErrorInfo)
    /// (for example through `#[derive(RetryInfo)]`); for other error types,
    /// see [`run_classified`](Self::run_classified).
    ///
    /// # Errors
    ///
    /// [`RetryError`] with the last attempt's failure, the number of attempts
    /// made and the [`StopReason`](super::StopReason).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::cell::RefCell;
    /// use std::time::Duration;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
    /// let slept = RefCell::new(Vec::new());
    /// let retry = Retry::new(&strategy).sleeper(|delay| slept.borrow_mut().push(delay));
    ///
    /// let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    /// let value = retry.run(|attempt| if attempt < 3 { Err(reset()) } else { Ok(attempt) })?;
    /// assert_eq!(value, 3);
    /// assert_eq!(slept.into_inner(), [Duration::from_millis(500), Duration::from_secs(1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run<T, E, F>(&self, op: F) -> Result<T, RetryError<E>>
    where
        Sl: Sleeper,
        F: FnMut(u32) -> Result<T, E>,
        E: FailureInfo,
    {
        self.drive(op, &Native)
    }

    /// [`run`](Self::run) for an error type that does not implement the
    /// retry traits: `classify` says what each failure is, as a
    /// [`Classified`](crate::Classified) or any other
    /// [`FailureInfo`].
    ///
    /// # Errors
    ///
    /// [`RetryError`] with the last attempt's failure, the number of attempts
    /// made and the [`StopReason`](super::StopReason).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{Classified, StopReason};
    /// use rebound_runtime::{Retry, StandardRetryStrategy, TokenAcquisitionFailed, time::ManualClock};
    ///
    /// /// A foreign error type: an HTTP status.
    /// #[derive(Debug)]
    /// struct Status(u16);
    ///
    /// let strategy = StandardRetryStrategy::new();
    /// let retry = Retry::new(&strategy).sleeper(ManualClock::new()); // virtual time
    ///
    /// let err = retry
    ///     .run_classified(
    ///         |_attempt| Err::<(), _>(Status(503)),
    ///         |status| Classified::unknown().with_status(status.0),
    ///     )
    ///     .unwrap_err();
    /// assert_eq!(err.attempts(), 3);
    /// assert_eq!(err.last_error().map(|status| status.0), Some(503));
    /// assert!(matches!(
    ///     err.reason(),
    ///     StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_classified<T, E, F, K, I>(&self, op: F, classify: K) -> Result<T, RetryError<E>>
    where
        Sl: Sleeper,
        F: FnMut(u32) -> Result<T, E>,
        K: Fn(&E) -> I,
        I: FailureInfo,
    {
        self.drive(op, &ByClosure(classify))
    }

    fn drive<T, E, F>(&self, mut op: F, classify: &impl Classify<E>) -> Result<T, RetryError<E>>
    where
        Sl: Sleeper,
        F: FnMut(u32) -> Result<T, E>,
    {
        // Abandoned if dropped before it ends: a panicking operation.
        let mut request = InFlight::new(Request::start(&self.strategy, &self.clock, self.budget));
        // The last attempt's failure, returned if the request stops before
        // the next attempt.
        let mut last_failure = None;
        loop {
            let attempt = match request.get().next_action(&self.listener) {
                Action::Sleep(delay) => {
                    self.sleeper.sleep(delay);
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
                    return Err(why);
                }
            };
            match op(attempt) {
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
                            self.sleeper.sleep(sleep);
                        }
                        return Err(RetryError::new(failure, attempt, reason));
                    }
                },
            }
        }
    }
}
