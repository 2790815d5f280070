//! How an executor waits between attempts: [`Sleeper`] for blocking code,
//! [`AsyncSleeper`] for async code. Both are one-method traits that closures
//! satisfy, so tests inject a recording fake and async code plugs in any
//! runtime's timer.

use core::future::Future;
use core::time::Duration;

/// Blocks the current thread for a while: what the blocking executor
/// ([`Retry::run`](crate::Retry::run)) does between attempts.
///
/// Implemented by [`DefaultSleeper`] (the default) and by every
/// `Fn(Duration)` closure.
///
/// # Examples
///
/// A recording fake, for tests that must not sleep:
///
/// ```
/// use std::cell::RefCell;
/// use std::time::Duration;
/// use rebound_runtime::time::Sleeper;
///
/// let slept = RefCell::new(Vec::new());
/// let fake = |delay: Duration| slept.borrow_mut().push(delay);
/// fake.sleep(Duration::from_millis(20));
/// assert_eq!(slept.into_inner(), [Duration::from_millis(20)]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot block between attempts: it is not a `Sleeper`",
    label = "not a blocking sleeper",
    note = "the blocking executor (`Retry::run`) takes a `Fn(Duration)` such as `std::thread::sleep`, or `DefaultSleeper` (the default); an async sleeper goes with `Retry::run_async`"
)]
pub trait Sleeper {
    /// Blocks for `delay`. The executor never calls it with a zero delay.
    fn sleep(&self, delay: Duration);
}

impl<F: Fn(Duration)> Sleeper for F {
    #[inline]
    fn sleep(&self, delay: Duration) {
        self(delay);
    }
}

/// The executors' and the waiter's default sleeper: [`std::thread::sleep`]
/// for the blocking [`Retry::run`](crate::Retry::run), and, with the `tokio`
/// feature, [`tokio::time::sleep`] for the async
/// [`Retry::run_async`](crate::Retry::run_async), so a tokio user needs no
/// `.sleeper(..)`. Without the feature it is no [`AsyncSleeper`]: set one.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::time::{DefaultSleeper, Sleeper};
///
/// // Blocks the calling thread for the delay (zero here: returns at once).
/// DefaultSleeper.sleep(Duration::ZERO);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DefaultSleeper;

impl Sleeper for DefaultSleeper {
    #[inline]
    fn sleep(&self, delay: Duration) {
        std::thread::sleep(delay);
    }
}

/// With the `tokio` feature, the default sleeper awaits tokio's timer.
#[cfg(feature = "tokio")]
impl AsyncSleeper for DefaultSleeper {
    type Sleep = tokio::time::Sleep;

    #[inline]
    fn sleep(&self, delay: Duration) -> Self::Sleep {
        tokio::time::sleep(delay)
    }
}

/// Makes a future that completes after a while: what the async executor
/// ([`Retry::run_async`](crate::Retry::run_async)) awaits between attempts.
///
/// rebound depends on no async runtime. Every `Fn(Duration) -> impl Future`
/// closure is a sleeper, so any runtime's timer plugs in as
/// `|delay| runtime::sleep(delay)`; with the `tokio` feature,
/// [`DefaultSleeper`] is tokio's timer.
///
/// # Examples
///
/// A sleeper that does not wait, recording what it was asked:
///
/// ```
/// use std::sync::Mutex;
/// use std::time::Duration;
/// use rebound_runtime::time::AsyncSleeper;
///
/// let slept = Mutex::new(Vec::new());
/// let fake = |delay: Duration| {
///     slept.lock().unwrap().push(delay);
///     std::future::ready(())
/// };
/// let _ready = fake.sleep(Duration::from_millis(20)); // a future; await it
/// assert_eq!(*slept.lock().unwrap(), [Duration::from_millis(20)]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot sleep in async code: it is not an `AsyncSleeper`",
    label = "not an async sleeper",
    note = "`Retry::run_async` awaits its sleeper: set one with `.sleeper(|delay| tokio::time::sleep(delay))` (any runtime's timer), or enable the `tokio` feature and keep the default sleeper",
    note = "the default `DefaultSleeper` awaits tokio's timer only with the `tokio` feature; without it, it blocks the thread, so it only goes with `Retry::run`"
)]
pub trait AsyncSleeper {
    /// The future [`sleep`](Self::sleep) returns; its output is ignored.
    type Sleep: Future;

    /// A future that completes after `delay`. The executor never asks for a
    /// zero delay.
    fn sleep(&self, delay: Duration) -> Self::Sleep;
}

impl<F: Fn(Duration) -> Fut, Fut: Future> AsyncSleeper for F {
    type Sleep = Fut;

    #[inline]
    fn sleep(&self, delay: Duration) -> Fut {
        self(delay)
    }
}
