//! The request loop for any driver: the steps [`Retry`](crate::Retry) and the
//! tower layer take for one request, without the sleeping and the calling,
//! for code that sends attempts its own way (a client's orchestrator, an
//! event loop, a state machine of its own).
//!
//! [`Retry::request`](crate::Retry::request) starts a [`RequestLoop`] with
//! the executor's strategy, clock, budget and listener. Then, until it ends:
//!
//! 1. [`RequestLoop::next`] says what comes before the attempt:
//!    [`Next::Wait`] (sleep that long, then ask again with the loop it
//!    gives back), [`Next::Send`] (the strategy's send permit is taken: send
//!    this [`Attempt`] now) or [`Next::Stop`] (no further attempt).
//! 2. The attempt's outcome goes back through the [`Attempt`]:
//!    [`succeeded`](Attempt::succeeded) ends the request;
//!    [`failed`](Attempt::failed) with the classified failure gives
//!    [`AfterFailure::Retry`] (a loop to go on with: its `next` waits out the
//!    backoff) or [`AfterFailure::Stop`].
//!
//! Each step takes the loop by value and gives back what may follow, so a
//! token cannot be used twice, reported after the request ended, or
//! forgotten: a loop or attempt dropped before it ends hands its token back
//! as abandoned ([`RetryStrategy::abandon`]), which gives up a place held in
//! an adaptive limiter's line at once. Listeners and the `tracing` events
//! (feature `tracing`) hear of every retry and give-up as they do under
//! `Retry`, and the [budget](crate::Retry::budget) bounds every wait.
//!
//! This module is the layer under every executor: its request core
//! (`request.rs`), its listener events (`listen.rs`, re-exported at the
//! crate root) and its endings ([`RetryError`], [`StopReason`]) are what
//! [`Retry`](crate::Retry), the tower layer and [`RequestLoop`] run on; the
//! executors only add the sleeping and the calling.
//!
//! # Examples
//!
//! A driver of its own, in virtual time:
//!
//! ```
//! use std::time::Duration;
//! use rebound_runtime::driver::{AfterFailure, Next};
//! use rebound_runtime::{Classified, Retry, StandardRetryStrategy};
//!
//! let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
//! let retry = Retry::new(&strategy);
//! let mut slept = Vec::new();
//! let mut statuses = [503, 503, 200].into_iter();
//!
//! let mut request = retry.request();
//! let outcome = loop {
//!     let attempt = match request.next() {
//!         Next::Wait(delay, pending) => {
//!             slept.push(delay); // a real driver sleeps here
//!             request = pending;
//!             continue;
//!         }
//!         Next::Send(attempt) => attempt,
//!         Next::Stop(stopped) => break Err(stopped),
//!     };
//!     match statuses.next() {
//!         Some(200) => {
//!             attempt.succeeded();
//!             break Ok(200);
//!         }
//!         status => match attempt.failed(&Classified::unknown().with_status(status.unwrap_or(0))) {
//!             AfterFailure::Retry(pending) => request = pending,
//!             AfterFailure::Stop(stopped) => break Err(stopped),
//!         },
//!     }
//! };
//! assert_eq!(outcome.ok(), Some(200));
//! assert_eq!(slept, [Duration::from_millis(500), Duration::from_secs(1)]);
//! ```

use core::fmt;
use core::time::Duration;

pub(crate) mod classifier;
pub(crate) mod error;
pub(crate) mod listen;
pub(crate) mod request;

use crate::strategy::RetryStrategy;
use crate::time::Clock;
use crate::vocabulary::{Classified, FailureInfo};
use classifier::Native;
use error::{RetryError, StopReason};
use listen::RetryListener;
use request::{Action, InFlight, Request, Step};

/// One request between attempts: the strategy's token, the wait due before
/// the next attempt, the budget, and the last failure (for the give-up).
/// Made by [`Retry::request`](crate::Retry::request) or
/// [`Retry::into_request`](crate::Retry::into_request); see the
/// [module](self) for the steps.
#[must_use = "a request loop does nothing until asked what is next; dropped, it abandons its token"]
pub struct RequestLoop<S, C, L> {
    request: InFlight<S, C>,
    listener: L,
    /// What the last failed attempt was, as the strategy was told: the
    /// give-up event carries it when the request stops before the next
    /// attempt. Boxed: the loop is moved at every step, and most requests
    /// never fail.
    last_failure: Option<Box<Classified>>,
}

/// What comes before the next attempt: [`RequestLoop::next`]'s answer.
#[must_use = "the request goes on only through what `next` gave back"]
pub enum Next<S, C, L> {
    /// Sleep this long (the backoff, or a wait for a send permit), then ask
    /// the loop again.
    Wait(Duration, RequestLoop<S, C, L>),
    /// Send this attempt now: its send permit is taken.
    Send(Attempt<S, C, L>),
    /// No further attempt: the budget or a fail-fast rate limiter stopped
    /// it. The listener was told; the token went back as abandoned.
    Stop(Stopped),
}

/// An attempt being sent: report how it ended, once.
#[must_use = "report the attempt's outcome with `succeeded` or `failed`; dropped, it abandons its token"]
pub struct Attempt<S, C, L> {
    request: InFlight<S, C>,
    listener: L,
    number: u32,
}

/// What follows a failed attempt: [`Attempt::failed`]'s answer.
#[must_use = "the request goes on only through what `failed` gave back"]
pub enum AfterFailure<S, C, L> {
    /// The strategy grants a retry: ask the loop what is next (first, the
    /// backoff).
    Retry(RequestLoop<S, C, L>),
    /// No further attempt: the listener was told.
    Stop(Stopped),
}

/// How a request ended without success: the attempts made, why no further
/// one was, and a wait the strategy asks for before the failure is returned
/// (long-polling operations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    attempts: u32,
    reason: StopReason,
    wait: Option<Duration>,
}

impl<S: RetryStrategy, C: Clock, L: RetryListener> RequestLoop<S, C, L> {
    /// Starts a request: reads the clock for the budget, then asks the
    /// strategy for its initial token.
    pub(crate) fn start(strategy: S, clock: C, budget: Option<Duration>, listener: L) -> Self {
        Self {
            request: InFlight::new(Request::start(strategy, clock, budget)),
            listener,
            last_failure: None,
        }
    }

    /// What comes before the next attempt: the wait still due (within the
    /// budget), then the strategy's send permit.
    pub fn next(mut self) -> Next<S, C, L> {
        match self.request.get().next_action(&self.listener) {
            Action::Sleep(delay) => Next::Wait(delay, self),
            Action::Send(number) => Next::Send(Attempt {
                request: self.request,
                listener: self.listener,
                number,
            }),
            Action::Stop(reason) => {
                let request = self.request.take_held();
                let attempts = request.attempts_made();
                listen::stopped_with(
                    Some(request.strategy()),
                    &Native,
                    self.last_failure.as_deref(),
                    attempts,
                    &reason,
                    &self.listener,
                );
                request.abandon();
                Next::Stop(Stopped {
                    attempts,
                    reason,
                    wait: None,
                })
            }
        }
    }

    /// How many attempts were made so far.
    #[must_use]
    pub fn attempts_made(&self) -> u32 {
        self.request.as_ref().map_or(0, Request::attempts_made)
    }
}

impl<S: RetryStrategy, C: Clock, L: RetryListener> Attempt<S, C, L> {
    /// The attempt's 1-based number.
    #[must_use]
    pub const fn number(&self) -> u32 {
        self.number
    }

    /// The attempt succeeded: the token goes back to the strategy (which
    /// refunds its retry quota), and the request ends.
    pub fn succeeded(mut self) {
        self.request.take_held().succeeded(&self.listener);
    }

    /// The attempt failed with `failure` (as classified: a
    /// [`Classified`], or an error type with the retry traits). The strategy
    /// decides whether to retry; the listener hears of it either way.
    pub fn failed(mut self, failure: &dyn FailureInfo) -> AfterFailure<S, C, L> {
        let request = self.request.take_held();
        match listen::failed(request, failure, self.number, &self.listener) {
            Step::Retry(next) => AfterFailure::Retry(RequestLoop {
                request: InFlight::new(next),
                listener: self.listener,
                last_failure: Some(Box::new(Classified::from_failure(failure))),
            }),
            Step::Stop(wait, reason) => AfterFailure::Stop(Stopped {
                attempts: self.number,
                reason,
                wait,
            }),
        }
    }
}

impl Stopped {
    /// How many attempts were made (0 when the first one was not).
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Why no further attempt was made.
    #[must_use]
    pub const fn reason(&self) -> &StopReason {
        &self.reason
    }

    /// A wait before the failure is returned: the strategy's
    /// [`delay_before_giving_up`](crate::TokenAcquisitionFailed::delay_before_giving_up),
    /// cut at the budget's end. `None` for most failures.
    #[must_use]
    pub const fn wait(&self) -> Option<Duration> {
        self.wait
    }

    /// The [`RetryError`] an executor returns for this ending, with the last
    /// attempt's error (`None` when no attempt was made).
    pub fn into_error<E>(self, last_error: Option<E>) -> RetryError<E> {
        RetryError::stopped(last_error, self.attempts, self.reason)
    }
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gave up after {} attempts: {}",
            self.attempts, self.reason
        )
    }
}

impl<S, C, L> fmt::Debug for RequestLoop<S, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestLoop")
            .field("strategy", &std::any::type_name::<S>())
            .field("last_failure", &self.last_failure)
            .finish_non_exhaustive()
    }
}

impl<S, C, L> fmt::Debug for Attempt<S, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attempt")
            .field("number", &self.number)
            .field("strategy", &std::any::type_name::<S>())
            .finish_non_exhaustive()
    }
}

impl<S, C, L> fmt::Debug for Next<S, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Wait(delay, pending) => {
                f.debug_tuple("Wait").field(delay).field(pending).finish()
            }
            Self::Send(attempt) => f.debug_tuple("Send").field(attempt).finish(),
            Self::Stop(stopped) => f.debug_tuple("Stop").field(stopped).finish(),
        }
    }
}

impl<S, C, L> fmt::Debug for AfterFailure<S, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Retry(pending) => f.debug_tuple("Retry").field(pending).finish(),
            Self::Stop(stopped) => f.debug_tuple("Stop").field(stopped).finish(),
        }
    }
}
