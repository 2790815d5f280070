//! The request loop of the Smithy client guide, without the sleeping and the
//! calling: the blocking and the async executor share it and differ only in
//! how they wait and how they call the operation.

use core::time::Duration;
use std::time::Instant;

use super::{Clock, StopReason};
use crate::{FailureInfo, RetryStrategy, RetryToken, TokenAcquisitionFailed};

/// One request in flight: the strategy's token (if it gave one), the attempt
/// number, and the budget's start.
pub(super) struct Request<'a, S: ?Sized, C: ?Sized> {
    strategy: &'a S,
    clock: &'a C,
    /// When the request started and how long it may take, if budgeted.
    budget: Option<(Instant, Duration)>,
    tracking: Tracking,
    attempt: u32,
}

enum Tracking {
    /// The strategy tracks the request: hand this token back.
    Token(RetryToken),
    /// `acquire_initial_token` failed: one attempt, no retries.
    Untracked(TokenAcquisitionFailed),
}

/// What to do after a failed attempt.
pub(super) enum Step<R> {
    /// Sleep this long, then make the request's next attempt.
    Retry(R, Duration),
    /// Sleep this long (if any), then return the failure.
    Stop(Option<Duration>, StopReason),
}

impl<'a, S: RetryStrategy + ?Sized, C: Clock + ?Sized> Request<'a, S, C> {
    /// Starts a request: reads the clock for the budget, then asks for the
    /// initial token.
    pub(super) fn start(strategy: &'a S, clock: &'a C, budget: Option<Duration>) -> Self {
        let budget = budget.map(|budget| (clock.now(), budget));
        let tracking = match strategy.acquire_initial_token() {
            Ok(token) => Tracking::Token(token),
            Err(why) => Tracking::Untracked(why),
        };
        Self {
            strategy,
            clock,
            budget,
            tracking,
            attempt: 1,
        }
    }

    /// The delay before the first attempt (the initial token's, usually
    /// zero). The budget does not apply to it: the first attempt is always
    /// made.
    pub(super) fn first_delay(&self) -> Duration {
        match &self.tracking {
            Tracking::Token(token) => token.delay(),
            Tracking::Untracked(_) => Duration::ZERO,
        }
    }

    /// The 1-based number of the attempt about to be made.
    pub(super) const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The attempt succeeded: give the token back.
    pub(super) fn succeeded(self) {
        if let Tracking::Token(token) = self.tracking {
            self.strategy.record_success(token);
        }
    }

    /// The attempt failed with `failure`: refresh the token, and check the
    /// retry it allows fits in the budget.
    pub(super) fn failed(self, failure: &dyn FailureInfo) -> Step<Self> {
        let Self {
            strategy,
            clock,
            budget,
            tracking,
            attempt,
        } = self;
        let token = match tracking {
            Tracking::Token(token) => token,
            Tracking::Untracked(why) => {
                return Step::Stop(None, StopReason::NoInitialToken(why));
            }
        };
        match strategy.refresh_retry_token(token, failure) {
            Ok(next) => {
                let delay = next.delay();
                if let Some((elapsed, budget)) = spent(clock, budget) {
                    // The retry must start before the deadline. Its token is
                    // dropped: the Smithy interface has no way to cancel a
                    // granted retry, and a request ending on a failure gets
                    // no refund anyway.
                    if delay >= budget.saturating_sub(elapsed) {
                        let reason = StopReason::BudgetExhausted {
                            budget,
                            elapsed,
                            next_delay: delay,
                        };
                        return Step::Stop(None, reason);
                    }
                }
                let next = Self {
                    strategy,
                    clock,
                    budget,
                    tracking: Tracking::Token(next),
                    attempt: attempt.saturating_add(1),
                };
                Step::Retry(next, delay)
            }
            Err(why) => {
                // Long-polling operations wait before giving up, within the
                // budget.
                let sleep = why
                    .delay_before_giving_up()
                    .map(|delay| match spent(clock, budget) {
                        Some((elapsed, budget)) => delay.min(budget.saturating_sub(elapsed)),
                        None => delay,
                    });
                Step::Stop(
                    sleep.filter(|delay| !delay.is_zero()),
                    StopReason::Strategy(why),
                )
            }
        }
    }
}

/// Time spent so far and the budget, if there is one.
fn spent<C: Clock + ?Sized>(
    clock: &C,
    budget: Option<(Instant, Duration)>,
) -> Option<(Duration, Duration)> {
    budget.map(|(started, budget)| (clock.now().saturating_duration_since(started), budget))
}
