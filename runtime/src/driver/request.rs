//! The request loop of the Smithy client guide, without the sleeping and the
//! calling: [`RequestLoop`](super::RequestLoop), the blocking and async
//! executors and the tower layer share it, and differ only in how they wait
//! and how they call the operation.
//!
//! The loop asks [`Request::next_action`] what to do — sleep, send the next
//! attempt, or stop — and reports each attempt's outcome back. Every wait
//! goes through one place, so the budget bounds all of them alike: the
//! initial token's delay, each retry's backoff, and each wait for a send
//! permit.

use core::time::Duration;
use std::time::Instant;

use super::error::StopReason;
use super::listen::{self, RetryListener};
use crate::refusal::TokenAcquisitionFailed;
use crate::strategy::{RetryStrategy, SendPermit};
use crate::time::Clock;
use crate::token::RetryToken;
use crate::vocabulary::FailureInfo;

/// One request in flight: the strategy's token (if it gave one), the attempt
/// number, the wait still due before that attempt, and the budget's start.
///
/// The strategy and the clock are held by value: the executors lend theirs
/// (`&S` is a strategy, `&C` a clock), the tower service's `'static` future
/// owns clones.
pub(crate) struct Request<S, C> {
    strategy: S,
    clock: C,
    /// When the request started and how long it may take, if budgeted.
    budget: Option<(Instant, Duration)>,
    tracking: Tracking,
    attempt: u32,
    /// The wait still due before the attempt may be sent.
    due: Duration,
}

enum Tracking {
    /// The strategy tracks the request: hand this token back.
    Token(RetryToken),
    /// `acquire_initial_token` failed: one attempt, no retries.
    Untracked(TokenAcquisitionFailed),
}

/// What the executor does next, before an attempt.
pub(crate) enum Action {
    /// Sleep this long, then ask again.
    Sleep(Duration),
    /// Send attempt number `.0` (1-based) now.
    Send(u32),
    /// Do not send the attempt: the request ends, with the attempts made so
    /// far.
    Stop(StopReason),
}

/// What to do after a failed attempt.
pub(crate) enum Step<R> {
    /// Go on with the request: ask [`Request::next_action`] again.
    Retry(R),
    /// Sleep this long (if any), then return the failure.
    Stop(Option<Duration>, StopReason),
}

impl<S: RetryStrategy, C: Clock> Request<S, C> {
    /// Starts a request: reads the clock for the budget, then asks for the
    /// initial token.
    pub(crate) fn start(strategy: S, clock: C, budget: Option<Duration>) -> Self {
        let budget = budget.map(|budget| (clock.now(), budget));
        let (tracking, due) = match strategy.acquire_initial_token() {
            Ok(token) => {
                let due = token.delay();
                (Tracking::Token(token), due)
            }
            Err(why) => (Tracking::Untracked(why), Duration::ZERO),
        };
        Self {
            strategy,
            clock,
            budget,
            tracking,
            attempt: 1,
            due,
        }
    }

    /// The next thing to do before the attempt: sleep what is due (if it
    /// ends within the budget), then take the strategy's send permit. A wait
    /// for the permit is told to `listener`.
    pub(crate) fn next_action<L: RetryListener + ?Sized>(&mut self, listener: &L) -> Action {
        loop {
            if !self.due.is_zero() {
                let wait = core::mem::take(&mut self.due);
                if let Some(reason) = self.over_budget(wait) {
                    return Action::Stop(reason);
                }
                return Action::Sleep(wait);
            }
            let Tracking::Token(token) = &mut self.tracking else {
                return Action::Send(self.attempt);
            };
            match self.strategy.acquire_send_permit(token) {
                Ok(SendPermit::Granted) => return Action::Send(self.attempt),
                Ok(SendPermit::Wait(wait)) => {
                    // A zero wait would ask again at once: sleep at least 1 ns.
                    self.due = wait.max(Duration::from_nanos(1));
                    listen::permit_wait(listener, self.attempt, self.due);
                }
                Err(why) => return Action::Stop(StopReason::Strategy(why)),
            }
        }
    }

    /// The wait due before the next attempt (a retry's backoff).
    pub(crate) const fn due(&self) -> Duration {
        self.due
    }

    /// Why a wait of `wait` from now may not be slept: the attempt after it
    /// would not start before the budget's end. `None` without a budget.
    pub(crate) fn over_budget(&self, wait: Duration) -> Option<StopReason> {
        let (elapsed, budget) = spent(&self.clock, self.budget)?;
        (wait >= budget.saturating_sub(elapsed)).then_some(StopReason::BudgetExhausted {
            budget,
            elapsed,
            next_delay: wait,
        })
    }

    /// How many attempts were made before the one about to be sent.
    pub(crate) const fn attempts_made(&self) -> u32 {
        self.attempt - 1
    }

    /// The attempt succeeded: give the token back, then tell `listener`.
    /// Inlined: every successful request ends here (without it, this call
    /// was left out of line and cost a `Retry::run` success about 8 ns).
    #[inline]
    pub(crate) fn succeeded<L: RetryListener + ?Sized>(self, listener: &L) {
        if let Tracking::Token(token) = self.tracking {
            self.strategy.record_success(token);
        }
        listen::succeeded(listener, self.attempt);
    }

    /// The request stops before its next attempt: hand the token back as
    /// abandoned ([`RetryStrategy::abandon`]).
    pub(crate) fn abandon(self) {
        if let Tracking::Token(token) = self.tracking {
            self.strategy.abandon(token);
        }
    }

    /// The strategy the request draws its tokens from.
    pub(crate) const fn strategy(&self) -> &S {
        &self.strategy
    }

    /// The attempt failed with `failure`: refresh the token (the retry's
    /// delay becomes due before the next attempt), keeping the strategy when the request
    /// stops, so that the give-up can be told with what the strategy has
    /// left (its quota, its send rate) after accounting for it.
    pub(crate) fn fail(self, failure: &dyn FailureInfo) -> Result<Self, Stopped<S>> {
        let Self {
            strategy,
            clock,
            budget,
            tracking,
            attempt,
            due: _,
        } = self;
        let token = match tracking {
            Tracking::Token(token) => token,
            Tracking::Untracked(why) => {
                return Err(Stopped {
                    strategy,
                    sleep: None,
                    reason: StopReason::NoInitialToken(why),
                });
            }
        };
        match strategy.refresh_retry_token(token, failure) {
            Ok(next) => Ok(Self {
                strategy,
                clock,
                budget,
                due: next.delay(),
                tracking: Tracking::Token(next),
                attempt: attempt.saturating_add(1),
            }),
            Err(why) => {
                // Long-polling operations wait before giving up, within the
                // budget.
                let sleep = why
                    .delay_before_giving_up()
                    .map(|delay| match spent(&clock, budget) {
                        Some((elapsed, budget)) => delay.min(budget.saturating_sub(elapsed)),
                        None => delay,
                    });
                Err(Stopped {
                    strategy,
                    sleep: sleep.filter(|delay| !delay.is_zero()),
                    reason: StopReason::Strategy(why),
                })
            }
        }
    }
}

/// A [`Request`] held across the executor's waits: dropped with its request
/// inside (the async executor's future cancelled, the operation panicking),
/// it hands the token back as abandoned ([`RetryStrategy::abandon`]), so a
/// place the request holds in the adaptive limiter's send line is given up
/// at once rather than when it lapses. The executors take the request out
/// to end it, and put the next one back after a failed attempt.
///
/// `abandon` is the strategy's, taken where its bounds are known, so that
/// types holding an `InFlight` need no bounds of their own to drop it.
pub(crate) struct InFlight<S, C> {
    request: Option<Request<S, C>>,
    abandon: fn(Request<S, C>),
}

/// What [`InFlight::get`] and [`InFlight::take_held`] say if the request is not
/// there: the executors put it back before every wait, so it always is.
const NOT_IN_FLIGHT: &str = "the executor holds the request until it ends";

impl<S: RetryStrategy, C: Clock> InFlight<S, C> {
    /// Holds `request` until it is taken out.
    pub(crate) fn new(request: Request<S, C>) -> Self {
        Self {
            request: Some(request),
            abandon: Request::abandon,
        }
    }
}

impl<S, C> InFlight<S, C> {
    /// The request, if it has not ended.
    pub(crate) fn as_mut(&mut self) -> Option<&mut Request<S, C>> {
        self.request.as_mut()
    }

    /// The request, if it has not ended.
    pub(crate) fn as_ref(&self) -> Option<&Request<S, C>> {
        self.request.as_ref()
    }

    /// Takes the request out, to end it (or hand it to something that gives
    /// the next one back): dropping `self` then abandons nothing.
    pub(crate) fn take(&mut self) -> Option<Request<S, C>> {
        self.request.take()
    }

    /// Holds `request` (the next one after a failed attempt).
    pub(crate) fn put(&mut self, request: Request<S, C>) {
        self.request = Some(request);
    }

    /// [`as_mut`](Self::as_mut), for an executor that always puts the
    /// request back.
    ///
    /// # Panics
    ///
    /// If it was taken and not put back (a bug in the executor).
    pub(crate) fn get(&mut self) -> &mut Request<S, C> {
        self.as_mut().expect(NOT_IN_FLIGHT)
    }

    /// [`take`](Self::take), for an executor that always puts the request
    /// back.
    ///
    /// # Panics
    ///
    /// If it was taken and not put back (a bug in the executor).
    pub(crate) fn take_held(&mut self) -> Request<S, C> {
        self.take().expect(NOT_IN_FLIGHT)
    }
}

impl<S, C> Drop for InFlight<S, C> {
    fn drop(&mut self) {
        if let Some(request) = self.request.take() {
            (self.abandon)(request);
        }
    }
}

/// A request that stopped after a failed attempt ([`Request::fail`]): what
/// [`Step::Stop`] says, and the strategy it drew from.
pub(crate) struct Stopped<S> {
    pub(crate) strategy: S,
    /// Sleep this long (if any), then return the failure.
    pub(crate) sleep: Option<Duration>,
    pub(crate) reason: StopReason,
}

/// Time spent so far and the budget, if there is one.
fn spent<C: Clock + ?Sized>(
    clock: &C,
    budget: Option<(Instant, Duration)>,
) -> Option<(Duration, Duration)> {
    budget.map(|(started, budget)| (clock.now().saturating_duration_since(started), budget))
}
