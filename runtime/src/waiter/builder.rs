//! [`WaiterBuilder`]: the delays and limits of a [`Waiter`], validated by
//! [`build`](WaiterBuilder::build) into a [`WaiterConfigError`] when they
//! cannot work together.

use core::time::Duration;
use std::fmt;
use std::sync::Arc;

use super::Waiter;
use crate::backoff::{RandomSource, ThreadRandom};
use crate::driver::listen::RetryListener;
use crate::time::{DefaultSleeper, SystemClock};

/// Settings a [`Waiter`] cannot run with: what
/// [`WaiterBuilder::build`] returns instead of panicking.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::waiter::{Waiter, WaiterConfigError};
///
/// let err = Waiter::builder()
///     .min_delay(Duration::from_secs(10))
///     .max_delay(Duration::from_secs(5))
///     .build()
///     .unwrap_err();
/// assert_eq!(
///     err,
///     WaiterConfigError::MinDelayExceedsMaxDelay {
///         min_delay: Duration::from_secs(10),
///         max_delay: Duration::from_secs(5),
///     }
/// );
/// assert_eq!(err.to_string(), "min_delay (10s) must not exceed max_delay (5s)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum WaiterConfigError {
    /// A zero `min_delay` would poll in a busy loop: the delays grow from it
    /// by doubling, so they would all be zero.
    #[error("min_delay must be greater than zero (the delays grow from it by doubling)")]
    MinDelayZero,
    /// The delays grow from `min_delay` up to `max_delay`.
    #[error("min_delay ({min_delay:?}) must not exceed max_delay ({max_delay:?})")]
    MinDelayExceedsMaxDelay {
        /// The delay after the first poll.
        min_delay: Duration,
        /// The longest delay.
        max_delay: Duration,
    },
    /// `max_polls` counts the first poll, so it is at least 1.
    #[error("max_polls must be at least 1 (it counts the first poll), got 0")]
    MaxPollsZero,
    /// A zero budget leaves no time to wait at all.
    #[error("the budget must be greater than zero")]
    BudgetZero,
}

/// Builds a [`Waiter`]: the delays between polls, the limits on polling, and
/// where the waiter sleeps, reads the time and draws its jitter.
///
/// # Default
///
/// | setting | default | setter |
/// |---|---|---|
/// | delay after the first poll | 2 s (Smithy `@waitable` `minDelay`) | [`min_delay`](Self::min_delay) |
/// | longest delay | 120 s (Smithy `maxDelay`) | [`max_delay`](Self::max_delay) |
/// | maximum number of polls | none: the budget bounds the polling | [`max_polls`](Self::max_polls) |
/// | total-time budget | 300 s | [`budget`](Self::budget) |
/// | jitter | on | [`jitter`](Self::jitter) |
/// | random source of the jitter | the thread-local generator of `rand::rng()` | [`random`](Self::random) |
/// | sleeper | [`DefaultSleeper`] (the thread's sleep; tokio's timer in [`wait_async`](Waiter::wait_async) with the `tokio` feature) | [`sleeper`](Self::sleeper) |
/// | clock | [`SystemClock`] | [`clock`](Self::clock) |
///
/// The 300 s budget is a safety net, not a recommendation: set the budget
/// your operation needs (AWS SDK waiters ask for it explicitly).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::backoff::SeededRandom;
/// use rebound_runtime::waiter::Waiter;
///
/// let waiter = Waiter::builder()
///     .min_delay(Duration::from_millis(100))
///     .max_delay(Duration::from_secs(5))
///     .max_polls(20)
///     .budget(Duration::from_secs(60))
///     .random(SeededRandom::new(7))
///     .build()?;
/// assert_eq!(waiter.max_polls(), Some(20));
/// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
/// ```
#[derive(Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct WaiterBuilder<Sl = DefaultSleeper, C = SystemClock> {
    pub(super) min_delay: Duration,
    pub(super) max_delay: Duration,
    pub(super) max_polls: Option<u32>,
    pub(super) budget: Duration,
    pub(super) jitter: bool,
    pub(super) random: Arc<dyn RandomSource>,
    pub(super) sleeper: Sl,
    pub(super) clock: C,
    /// Told of every poll; see [`WaiterBuilder::listener`].
    pub(super) listener: Option<Arc<dyn RetryListener + Send + Sync>>,
}

impl WaiterBuilder {
    /// The delay after the first poll by default: 2 s, Smithy's `minDelay`.
    pub const DEFAULT_MIN_DELAY: Duration = Duration::from_secs(2);
    /// The longest delay by default: 120 s, Smithy's `maxDelay`.
    pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(120);
    /// The total-time budget by default: 300 s.
    pub const DEFAULT_BUDGET: Duration = Duration::from_secs(300);

    /// A builder with every setting at its [default](Self#default).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::WaiterBuilder;
    ///
    /// let waiter = WaiterBuilder::new().build()?;
    /// assert_eq!(waiter.min_delay(), Duration::from_secs(2));
    /// assert_eq!(waiter.max_delay(), Duration::from_secs(120));
    /// assert_eq!(waiter.max_polls(), None);
    /// assert_eq!(waiter.budget(), Duration::from_secs(300));
    /// assert!(waiter.jitter());
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub fn new() -> Self {
        Self {
            min_delay: Self::DEFAULT_MIN_DELAY,
            max_delay: Self::DEFAULT_MAX_DELAY,
            max_polls: None,
            budget: Self::DEFAULT_BUDGET,
            jitter: true,
            random: Arc::new(ThreadRandom),
            sleeper: DefaultSleeper,
            clock: SystemClock,
            listener: None,
        }
    }
}

impl Default for WaiterBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl<Sl, C> WaiterBuilder<Sl, C> {
    /// The delay after the first poll, from which the delays grow by
    /// doubling (greater than zero, at most [`max_delay`](Self::max_delay)).
    /// Default: 2 s.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let waiter = Waiter::builder().min_delay(Duration::from_millis(100)).build()?;
    /// assert_eq!(waiter.min_delay(), Duration::from_millis(100));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub const fn min_delay(mut self, min_delay: Duration) -> Self {
        self.min_delay = min_delay;
        self
    }

    /// The longest delay between two polls (at least
    /// [`min_delay`](Self::min_delay)). Default: 120 s.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let waiter = Waiter::builder().max_delay(Duration::from_secs(30)).build()?;
    /// assert_eq!(waiter.max_delay(), Duration::from_secs(30));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub const fn max_delay(mut self, max_delay: Duration) -> Self {
        self.max_delay = max_delay;
        self
    }

    /// The most polls to make, the first one included (at least 1). Default:
    /// no limit but the [budget](Self::budget).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::{Waiter, WaiterConfigError};
    ///
    /// assert_eq!(Waiter::builder().max_polls(10).build()?.max_polls(), Some(10));
    /// assert_eq!(Waiter::builder().max_polls(0).build().unwrap_err(), WaiterConfigError::MaxPollsZero);
    /// # Ok::<(), WaiterConfigError>(())
    /// ```
    pub const fn max_polls(mut self, max_polls: u32) -> Self {
        self.max_polls = Some(max_polls);
        self
    }

    /// The total time the waiter may take, from the start of the first poll
    /// (greater than zero): polls and the sleeps between them. The waiter
    /// never sleeps past it: when the next delay would end after the budget,
    /// it sleeps only until the budget's end and polls one last time there
    /// (see [`Waiter`]). The budget does not interrupt a poll in progress.
    /// Default: 300 s.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let waiter = Waiter::builder().budget(Duration::from_secs(15 * 60)).build()?;
    /// assert_eq!(waiter.budget(), Duration::from_secs(900));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub const fn budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }

    /// Whether the delays are jittered: drawn uniformly between
    /// [`min_delay`](Self::min_delay) and the exponential delay (the Smithy
    /// waiter formula), rather than exactly the exponential delay (the AWS
    /// polling example). Default: `true`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let waiter = Waiter::builder().jitter(false).build()?;
    /// assert!(!waiter.jitter());
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub const fn jitter(mut self, jitter: bool) -> Self {
        self.jitter = jitter;
        self
    }

    /// Where the jitter comes from: [`SeededRandom`](crate::backoff::SeededRandom) for
    /// reproducible runs, a closure to inject exact draws. Default:
    /// the thread-local generator of `rand::rng()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let waiter = Waiter::builder()
    ///     .min_delay(Duration::from_secs(1))
    ///     .random(|| 0.5) // the middle of the range, every time
    ///     .build()?;
    /// // After the second poll: between 1 s and 2 s, here the middle.
    /// assert_eq!(waiter.delay_after(2), Duration::from_millis(1500));
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub fn random(mut self, random: impl RandomSource + 'static) -> Self {
        self.random = Arc::new(random);
        self
    }

    /// Sleeps between polls with `sleeper`: a
    /// [`Sleeper`](crate::time::Sleeper) for [`wait`](Waiter::wait), an
    /// [`AsyncSleeper`](crate::time::AsyncSleeper) for
    /// [`wait_async`](Waiter::wait_async). Closures are both; a
    /// [`ManualClock`](crate::time::ManualClock) is both and advances itself.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// // Blocking: a `Fn(Duration)`.
    /// let blocking = Waiter::builder().sleeper(|delay| std::thread::sleep(delay)).build()?;
    /// // Async: a `Fn(Duration) -> impl Future`, e.g. `tokio::time::sleep`.
    /// let not_waiting = Waiter::builder().sleeper(|_: Duration| std::future::ready(())).build()?;
    /// # let _ = (blocking, not_waiting);
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub fn sleeper<Sl2>(self, sleeper: Sl2) -> WaiterBuilder<Sl2, C> {
        WaiterBuilder {
            min_delay: self.min_delay,
            max_delay: self.max_delay,
            max_polls: self.max_polls,
            budget: self.budget,
            jitter: self.jitter,
            random: self.random,
            sleeper,
            clock: self.clock,
            listener: self.listener,
        }
    }

    /// Reads the time for the [budget](Self::budget) from `clock`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::time::ManualClock;
    /// use rebound_runtime::waiter::Waiter;
    ///
    /// let clock = ManualClock::new();
    /// let waiter = Waiter::builder()
    ///     .clock(clock.clone())
    ///     .sleeper(clock) // sleeps advance the clock instead of waiting
    ///     .build()?;
    /// # let _ = waiter;
    /// # Ok::<(), rebound_runtime::waiter::WaiterConfigError>(())
    /// ```
    pub fn clock<C2>(self, clock: C2) -> WaiterBuilder<Sl, C2> {
        WaiterBuilder {
            min_delay: self.min_delay,
            max_delay: self.max_delay,
            max_polls: self.max_polls,
            budget: self.budget,
            jitter: self.jitter,
            random: self.random,
            sleeper: self.sleeper,
            clock,
            listener: self.listener,
        }
    }

    /// Tells `listener` of every poll, as an executor tells it of attempts:
    /// a ready poll is a success ([`RetryListener::on_success`]), a pending
    /// one a retry after the next delay ([`RetryListener::on_retry`]; a
    /// [`Throttled`](super::PollStatus::Throttled) poll's kind is a
    /// throttle, a [`NotReady`](super::PollStatus::NotReady) one's transient),
    /// and a failed poll or giving up a give-up ([`RetryListener::on_give_up`]:
    /// not retryable, the polls used up, or the budget). A
    /// [`RetryObserver`](crate::observe::RetryObserver) counts polls as
    /// attempts.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rebound_runtime::observe::{FailureKind, Outcome, RetryObserver};
    /// use rebound_runtime::time::ManualClock;
    /// use rebound_runtime::waiter::{PollStatus, Waiter};
    ///
    /// let observer = Arc::new(RetryObserver::new("stack-ready"));
    /// let waiter = Waiter::builder().sleeper(ManualClock::new()).listener(observer.clone()).build()?;
    /// waiter.wait(|poll| if poll < 3 { PollStatus::<_, std::io::Error>::NotReady } else { PollStatus::Ready(()) })?;
    /// let counts = observer.counts();
    /// assert_eq!(counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Transient)), 2);
    /// assert_eq!(counts.attempts(Outcome::Success, None), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn listener(mut self, listener: impl RetryListener + Send + Sync + 'static) -> Self {
        self.listener = Some(Arc::new(listener));
        self
    }

    /// Checks the settings and builds the waiter.
    ///
    /// # Errors
    ///
    /// A [`WaiterConfigError`] for the first setting that cannot work: a
    /// zero `min_delay`, a `min_delay` above `max_delay`, a zero `max_polls`
    /// or a zero budget.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::{Waiter, WaiterConfigError};
    ///
    /// let err = Waiter::builder().min_delay(Duration::ZERO).build().unwrap_err();
    /// assert_eq!(err, WaiterConfigError::MinDelayZero);
    /// let err = Waiter::builder().budget(Duration::ZERO).build().unwrap_err();
    /// assert_eq!(err, WaiterConfigError::BudgetZero);
    /// ```
    pub fn build(self) -> Result<Waiter<Sl, C>, WaiterConfigError> {
        if self.min_delay.is_zero() {
            return Err(WaiterConfigError::MinDelayZero);
        }
        if self.min_delay > self.max_delay {
            return Err(WaiterConfigError::MinDelayExceedsMaxDelay {
                min_delay: self.min_delay,
                max_delay: self.max_delay,
            });
        }
        if self.max_polls == Some(0) {
            return Err(WaiterConfigError::MaxPollsZero);
        }
        if self.budget.is_zero() {
            return Err(WaiterConfigError::BudgetZero);
        }
        Ok(Waiter { settings: self })
    }
}

impl<Sl, C> fmt::Debug for WaiterBuilder<Sl, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaiterBuilder")
            .field("min_delay", &self.min_delay)
            .field("max_delay", &self.max_delay)
            .field("max_polls", &self.max_polls)
            .field("budget", &self.budget)
            .field("jitter", &self.jitter)
            .field("sleeper", &std::any::type_name::<Sl>())
            .field("clock", &std::any::type_name::<C>())
            .finish_non_exhaustive()
    }
}
