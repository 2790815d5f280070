//! Waiters: poll an asynchronous operation until it is ready, with growing,
//! jittered delays between polls, a maximum number of polls and a
//! total-time budget; blocking ([`Waiter::wait`]) or async
//! ([`Waiter::wait_async`]).
//!
//! This is the polling loop of the AWS general reference ("Error retries and
//! exponential backoff", the polling example) with the delays of the Smithy
//! `@waitable` waiters. The poll closure gets the 1-based poll number and
//! answers with a [`PollStatus`]:
//!
//! | status | the waiter |
//! |---|---|
//! | [`Ready(value)`](PollStatus::Ready) | returns `Ok(value)` |
//! | [`NotReady`](PollStatus::NotReady) | sleeps the next delay, then polls again |
//! | [`Throttled`](PollStatus::Throttled) | the same: polls again after the next delay |
//! | [`Failed(error)`](PollStatus::Failed) | returns [`WaitError::Failed`] at once |
//!
//! The first poll is made at once. A waiter gives up with
//! [`WaitError::GaveUp`] when the last allowed poll
//! ([`GiveUpReason::MaxPolls`]) or the poll made when the budget ended
//! ([`GiveUpReason::Budget`]) finds the operation still pending. Both limits
//! are checked after a pending poll, the maximum number of polls first, so a
//! waiter never sleeps before giving up.
//!
//! # Delays
//!
//! After the `n`-th poll (`n` = 1, 2, ...) finds the operation pending, the
//! waiter sleeps
//!
//! ```text
//! exponential(n) = min(max_delay, min_delay * 2^(n - 1))
//! delay(n)       = exponential(n)                                    without jitter
//!                = min_delay + r * (exponential(n) - min_delay)      with jitter (default)
//! sleep          = min(delay(n), budget - elapsed)
//! ```
//!
//! where `r` is one draw from `[0, 1)` of the waiter's
//! [`RandomSource`](crate::backoff::RandomSource) and `elapsed` is the time since the
//! first poll started, read from the waiter's [`Clock`].
//!
//! * Without jitter, this is the AWS polling example: `2^retries * 100 ms`
//!   is `min_delay` = 100 ms, `retries` = `n - 1`, capped at `max_delay`.
//!   (The example also waits before the first poll; a waiter polls at once,
//!   as the AWS SDK waiters do.)
//! * With jitter, it is the Smithy waiter delay, `random(minDelay,
//!   exponential)`: never shorter than `min_delay`, never longer than
//!   `max_delay`, and the first delay is always `min_delay`.
//! * [`Throttled`](PollStatus::Throttled) grows the delay exactly like
//!   [`NotReady`](PollStatus::NotReady): the seed's loop treats both as
//!   "retry", and doubling already backs off from a throttling service. Both
//!   count against [`max_polls`](WaiterBuilder::max_polls).
//! * The budget: the waiter never sleeps past it. When the next delay would
//!   end after the budget, the waiter sleeps only the time that remains and
//!   polls one last time when the budget ends; if that poll still finds the
//!   operation pending, it gives up with [`GiveUpReason::Budget`]. (The
//!   Smithy algorithm instead keeps `min_delay` in reserve for a last
//!   request; here the budget bounds the time until the last poll *starts*.)
//!   The budget does not interrupt a poll in progress, but the time polls
//!   take counts against it.
//!
//! | item | what it is |
//! |---|---|
//! | [`Waiter`], [`WaiterBuilder`] | the waiter and its settings, validated into a [`WaiterConfigError`] |
//! | [`PollStatus`] | what one poll found |
//! | [`WaitError`], [`GiveUpReason`] | gave up after N polls / T time, or failed with the error |
//!
//! Sleeping and the time are injectable as in the [`Retry`](crate::Retry)
//! executor, with the same [`Sleeper`](crate::time::Sleeper),
//! [`AsyncSleeper`](crate::time::AsyncSleeper) and [`Clock`]: a
//! [`ManualClock`](crate::time::ManualClock) as clock and sleeper runs a waiter in
//! virtual time.
//!
//! # Examples
//!
//! ```
//! use std::time::Duration;
//! use rebound_runtime::time::ManualClock;
//! use rebound_runtime::waiter::{PollStatus, Waiter};
//!
//! let clock = ManualClock::new();
//! let waiter = Waiter::builder()
//!     .min_delay(Duration::from_millis(100))
//!     .max_delay(Duration::from_secs(1))
//!     .jitter(false)
//!     .sleeper(clock.clone()) // sleeping advances the virtual clock
//!     .clock(clock.clone())
//!     .build()?;
//!
//! // The job is done on the fourth poll; the third was throttled.
//! let job = |poll: u32| -> PollStatus<&str, std::io::Error> {
//!     match poll {
//!         1 | 2 => PollStatus::NotReady,
//!         3 => PollStatus::Throttled,
//!         _ => PollStatus::Ready("done"),
//!     }
//! };
//! assert_eq!(waiter.wait(job)?, "done");
//! // Slept 100 ms, 200 ms, 400 ms.
//! assert_eq!(clock.elapsed(), Duration::from_millis(700));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Giving up:
//!
//! ```
//! use std::time::Duration;
//! use rebound_runtime::time::ManualClock;
//! use rebound_runtime::waiter::{GiveUpReason, PollStatus, WaitError, Waiter};
//!
//! let clock = ManualClock::new();
//! let waiter = Waiter::builder()
//!     .min_delay(Duration::from_secs(1))
//!     .max_delay(Duration::from_secs(8))
//!     .jitter(false)
//!     .budget(Duration::from_secs(10))
//!     .sleeper(clock.clone())
//!     .clock(clock.clone())
//!     .build()?;
//!
//! let err = waiter.wait(|_poll| PollStatus::<(), std::io::Error>::NotReady).unwrap_err();
//! // Polls at 0, 1, 3 and 7 s; the next delay, 8 s, is cut to the 3 s left.
//! assert!(matches!(
//!     err,
//!     WaitError::GaveUp { polls: 5, reason: GiveUpReason::Budget { .. }, .. }
//! ));
//! assert_eq!(err.elapsed(), Duration::from_secs(10));
//! assert_eq!(err.to_string(), "gave up after 5 polls in 10s: the 10s budget ran out");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod blocking;
mod builder;
mod future;
mod outcome;
mod poll;

use core::time::Duration;
use std::fmt;
use std::time::Instant;

pub use builder::{WaiterBuilder, WaiterConfigError};
pub use outcome::{GiveUpReason, WaitError};
pub use poll::PollStatus;

use crate::backoff::Backoff;
use crate::backoff::{draw, secs_to_duration};
use crate::driver::error::StopReason;
use crate::driver::listen;
use crate::refusal::TokenAcquisitionFailed;
use crate::time::Clock;
use crate::vocabulary::Classified;

/// Polls an asynchronous operation until it is ready: the waiter. Build it
/// once with [`Waiter::builder`] and [`wait`](Self::wait) or
/// [`wait_async`](Self::wait_async) for each operation; see the
/// [module](self) for the delays and the limits.
///
/// # Default
///
/// Polls with delays from 2 s up to 120 s, jittered, for at most 300 s,
/// without a limit on the number of polls, sleeping with
/// [`DefaultSleeper`](crate::time::DefaultSleeper) and reading
/// [`SystemClock`](crate::time::SystemClock); every setting is on
/// [`WaiterBuilder`] (see [its defaults](WaiterBuilder#default)).
///
/// # Examples
///
/// ```
/// use rebound_runtime::waiter::{PollStatus, WaitError, Waiter};
///
/// let waiter = Waiter::builder().build()?;
/// let ready = waiter.wait(|_poll| PollStatus::<_, std::io::Error>::Ready(42));
/// assert_eq!(ready.ok(), Some(42));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
#[must_use = "a waiter does nothing until it waits"]
pub struct Waiter<Sl = crate::time::DefaultSleeper, C = crate::time::SystemClock> {
    settings: WaiterBuilder<Sl, C>,
}

impl Waiter {
    /// A builder with every setting at its [default](WaiterBuilder#default).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let waiter = Waiter::builder().budget(Duration::from_secs(60)).build()?;
    /// assert_eq!(waiter.budget(), Duration::from_secs(60));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub fn builder() -> WaiterBuilder {
        WaiterBuilder::new()
    }
}

impl<Sl, C> Waiter<Sl, C> {
    /// The delay after the first poll.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// assert_eq!(Waiter::builder().build()?.min_delay(), Duration::from_secs(2));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    #[must_use]
    pub const fn min_delay(&self) -> Duration {
        self.settings.min_delay
    }

    /// The longest delay between two polls.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// assert_eq!(Waiter::builder().build()?.max_delay(), Duration::from_secs(120));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    #[must_use]
    pub const fn max_delay(&self) -> Duration {
        self.settings.max_delay
    }

    /// The most polls the waiter makes, if limited.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// assert_eq!(Waiter::builder().build()?.max_polls(), None);
    /// assert_eq!(Waiter::builder().max_polls(3).build()?.max_polls(), Some(3));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    #[must_use]
    pub const fn max_polls(&self) -> Option<u32> {
        self.settings.max_polls
    }

    /// The total-time budget.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// assert_eq!(Waiter::builder().build()?.budget(), Duration::from_secs(300));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    #[must_use]
    pub const fn budget(&self) -> Duration {
        self.settings.budget
    }

    /// Whether the delays are jittered.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// assert!(Waiter::builder().build()?.jitter());
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    #[must_use]
    pub const fn jitter(&self) -> bool {
        self.settings.jitter
    }

    /// The delay after the `polls`-th poll found the operation pending
    /// (1-based; `0` is treated as `1`), before the budget cuts it: `delay(n)`
    /// of the [module](self#delays) formula. With jitter, each call draws
    /// once from the random source.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let ms = Duration::from_millis;
    /// let waiter = Waiter::builder().min_delay(ms(100)).max_delay(ms(500)).jitter(false).build()?;
    /// let delays: Vec<_> = (1..=5).map(|n| waiter.delay_after(n)).collect();
    /// assert_eq!(delays, [ms(100), ms(200), ms(400), ms(500), ms(500)]);
    ///
    /// let jittered = Waiter::builder().min_delay(ms(100)).max_delay(ms(500)).random(|| 0.5).build()?;
    /// assert_eq!(jittered.delay_after(3), ms(250)); // 100 + 0.5 * (400 - 100)
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    #[must_use]
    pub fn delay_after(&self, polls: u32) -> Duration {
        let settings = &self.settings;
        let exponential = Backoff::Exponential {
            base: settings.min_delay,
            cap: settings.max_delay,
        }
        .delay(polls, Duration::ZERO, &|| 0.0);
        // Rounding in the formula must not leave the documented range.
        let exponential = exponential.clamp(settings.min_delay, settings.max_delay);
        if !settings.jitter {
            return exponential;
        }
        // In f64 seconds like the backoffs, saturating: near `Duration::MAX`
        // a `Duration::mul_f64` could overflow and panic.
        let spread = (exponential - settings.min_delay).as_secs_f64();
        let jitter = secs_to_duration(draw(&*settings.random) * spread);
        settings.min_delay.saturating_add(jitter).min(exponential)
    }

    /// What to do after a poll found `status`.
    fn step<T, E>(&self, polling: &Polling, status: PollStatus<T, E>) -> Step<T, E>
    where
        C: Clock,
    {
        let polls = polling.polls;
        let elapsed = || {
            self.settings
                .clock
                .now()
                .saturating_duration_since(polling.started)
        };
        let listener = self.settings.listener.as_deref();
        match status {
            PollStatus::Ready(value) => {
                if let Some(listener) = listener {
                    listen::succeeded(listener, polls);
                }
                Step::Done(Ok(value))
            }
            PollStatus::Failed(error) => {
                if let Some(listener) = listener {
                    let reason = StopReason::Strategy(TokenAcquisitionFailed::NotRetryable {
                        attempts: polls,
                    });
                    listen::waiter_gave_up(listener, &Classified::not_retryable(), polls, &reason);
                }
                Step::Done(Err(WaitError::Failed {
                    polls,
                    elapsed: elapsed(),
                    error,
                }))
            }
            PollStatus::NotReady | PollStatus::Throttled => {
                let pending =
                    Classified::retryable().with_throttle(matches!(status, PollStatus::Throttled));
                let elapsed = elapsed();
                let gave_up = |reason, why| {
                    if let Some(listener) = listener {
                        listen::waiter_gave_up(listener, &pending, polls, &why);
                    }
                    Step::Done(Err(WaitError::GaveUp {
                        polls,
                        elapsed,
                        reason,
                    }))
                };
                if let Some(max_polls) = self.settings.max_polls
                    && polls >= max_polls
                {
                    let why = StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted {
                        attempts: polls,
                        max_attempts: max_polls,
                    });
                    return gave_up(GiveUpReason::MaxPolls { max_polls }, why);
                }
                let budget = self.settings.budget;
                let remaining = budget.saturating_sub(elapsed);
                if remaining.is_zero() {
                    let why = StopReason::BudgetExhausted {
                        budget,
                        elapsed,
                        next_delay: Duration::ZERO,
                    };
                    return gave_up(GiveUpReason::Budget { budget }, why);
                }
                let delay = self.delay_after(polls).min(remaining);
                if let Some(listener) = listener {
                    listen::waiter_poll_pending(listener, &pending, polls, delay);
                }
                Step::Sleep(delay)
            }
        }
    }

    /// Starts a wait: reads the clock for the budget.
    fn start(&self) -> Polling
    where
        C: Clock,
    {
        Polling {
            started: self.settings.clock.now(),
            polls: 0,
        }
    }
}

impl<Sl, C> fmt::Debug for Waiter<Sl, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field("min_delay", &self.settings.min_delay)
            .field("max_delay", &self.settings.max_delay)
            .field("max_polls", &self.settings.max_polls)
            .field("budget", &self.settings.budget)
            .field("jitter", &self.settings.jitter)
            .field("sleeper", &std::any::type_name::<Sl>())
            .field("clock", &std::any::type_name::<C>())
            .field("listener", &self.settings.listener.is_some())
            .finish_non_exhaustive()
    }
}

/// One wait in progress: when it started and how many polls were made.
struct Polling {
    started: Instant,
    polls: u32,
}

impl Polling {
    /// Counts the poll about to be made and returns its 1-based number.
    const fn next_poll(&mut self) -> u32 {
        self.polls = self.polls.saturating_add(1);
        self.polls
    }
}

/// What to do after a poll.
enum Step<T, E> {
    /// Sleep this long (never zero), then poll again.
    Sleep(Duration),
    /// Stop waiting with this outcome.
    Done(Result<T, WaitError<E>>),
}
