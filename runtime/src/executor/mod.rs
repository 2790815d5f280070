//! The executor, [`Retry`]: runs an operation with a strategy, blocking
//! (`blocking.rs`) or async (`future.rs`). Both drive the driver's sans-IO
//! request loop ([`crate::driver`]: `request.rs`), as the tower layer does, so
//! none can drift apart; the driver also reads failures (`classifier.rs`),
//! tells listeners (`listen.rs`) and says how a request ended (`error.rs`).
//! The executors add the sleeping and the calling.

mod blocking;
mod future;
pub(crate) mod hooks;

use core::time::Duration;
use std::fmt;

use hooks::{Hooks, NoHook};

use crate::driver::RequestLoop;
#[cfg(doc)]
use crate::driver::error::{RetryError, StopReason};
use crate::driver::listen::{GiveUpEvent, RetryEvent, RetryListener};
use crate::strategy::RetryStrategy;
use crate::time::{Clock, DefaultSleeper, SystemClock};

/// Runs operations with a retry strategy: the executor. Build it once (per
/// client, say) and [`run`](Self::run) or [`run_async`](Self::run_async) it
/// for each request.
///
/// `S` is any [`RetryStrategy`](crate::RetryStrategy): a strategy, a
/// reference to one, an `Arc<dyn RetryStrategy>`.
///
/// # Default
///
/// | setting | default | setter |
/// |---|---|---|
/// | sleeper | [`DefaultSleeper`] (the thread's sleep; tokio's timer in async code with the `tokio` feature) | [`sleeper`](Self::sleeper) |
/// | clock | [`SystemClock`] | [`clock`](Self::clock) |
/// | total-time budget | none | [`budget`](Self::budget) |
/// | listener | none | [`on_retry`](Self::on_retry), [`on_give_up`](Self::on_give_up), [`listener`](Self::listener) |
///
/// # The request loop
///
/// Each run follows the request loop of the Smithy client guide:
///
/// 1. Ask the strategy for an initial token. If it gives none, make exactly
///    one attempt, without retries
///    ([`StopReason::NoInitialToken`]): the strategy manages retries, it does
///    not gate access to the service.
/// 2. Sleep the token's delay (a zero delay is not slept), then ask the
///    strategy for a send permit
///    ([`acquire_send_permit`](crate::RetryStrategy::acquire_send_permit)):
///    granted, make the attempt; told to wait, sleep that long and ask again;
///    refused (a fail-fast rate limiter), stop *without* sending the attempt,
///    with [`StopReason::Strategy`] and
///    [`RateLimited`](crate::TokenAcquisitionFailed::RateLimited). Only
///    adaptive mode's rate limiter ever withholds a permit. The operation gets
///    the 1-based attempt number.
/// 3. On success, hand the token back with `record_success` (the strategy
///    refunds its retry quota) and return the value.
/// 4. On failure, hand the token and the failure to `refresh_retry_token`. A
///    new token means: go to 2. A refusal ([`TokenAcquisitionFailed`](crate::TokenAcquisitionFailed))
///    means: sleep its [`delay_before_giving_up`](crate::TokenAcquisitionFailed::delay_before_giving_up)
///    if it has one (long-polling operations), then return a [`RetryError`].
///
/// With a total-time [`budget`](Self::budget), every wait before an attempt
/// — the first one included — must end before the budget runs out; a wait
/// that would not is not slept: the executor returns at once with
/// [`StopReason::BudgetExhausted`]. A request can therefore end before its
/// first attempt ([`RetryError::attempts`] is 0 and
/// [`RetryError::last_error`] is `None`).
///
/// # Examples
///
/// ```
/// use rebound_runtime::{Retry, StandardRetryStrategy};
///
/// let strategy = StandardRetryStrategy::new();
/// let retry = Retry::new(&strategy);
/// let answer = retry.run(|_attempt| Ok::<_, std::io::Error>(42))?;
/// assert_eq!(answer, 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// With virtual time and a budget:
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::{StopReason, time::ManualClock};
/// use rebound_runtime::{Retry, StandardRetryStrategy};
///
/// let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
/// let clock = ManualClock::new();
/// let retry = Retry::new(&strategy)
///     .sleeper(clock.clone()) // sleeping advances the virtual clock
///     .clock(clock.clone())
///     .budget(Duration::from_secs(1));
///
/// let timed_out = || std::io::Error::from(std::io::ErrorKind::TimedOut);
/// let err = retry.run(|_attempt| Err::<(), _>(timed_out())).unwrap_err();
/// // The first retry waited 500 ms; the second would wait 1 s, past the budget.
/// assert_eq!(err.attempts(), 2);
/// assert!(matches!(err.reason(), StopReason::BudgetExhausted { .. }));
/// assert_eq!(clock.elapsed(), Duration::from_millis(500));
/// assert_eq!(
///     err.to_string(),
///     "gave up after 2 attempts: the next attempt, 1s from now, would not start within the 1s \
///      budget (500ms spent); last error: timed out"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
#[must_use = "an executor does nothing until it is run"]
pub struct Retry<S, Sl = DefaultSleeper, C = SystemClock, L = Hooks> {
    strategy: S,
    sleeper: Sl,
    clock: C,
    budget: Option<Duration>,
    listener: L,
}

impl<S> Retry<S> {
    /// An executor for `strategy`, with the [defaults](Self#default).
    pub const fn new(strategy: S) -> Self {
        Self {
            strategy,
            sleeper: DefaultSleeper,
            clock: SystemClock,
            budget: None,
            listener: Hooks {
                on_retry: NoHook,
                on_give_up: NoHook,
            },
        }
    }
}

impl<S, Sl, C, L> Retry<S, Sl, C, L> {
    /// Waits between attempts with `sleeper`: a [`Sleeper`](crate::time::Sleeper) for
    /// [`run`](Self::run), an [`AsyncSleeper`](crate::time::AsyncSleeper) for
    /// [`run_async`](Self::run_async). Closures are both.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let strategy = StandardRetryStrategy::new();
    /// // Blocking: a `Fn(Duration)`.
    /// let blocking = Retry::new(&strategy).sleeper(|delay| std::thread::sleep(delay));
    /// // Async: a `Fn(Duration) -> impl Future`, e.g. `tokio::time::sleep`.
    /// let not_waiting = Retry::new(&strategy).sleeper(|_: Duration| std::future::ready(()));
    /// # let _ = (blocking, not_waiting);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sleeper<Sl2>(self, sleeper: Sl2) -> Retry<S, Sl2, C, L> {
        Retry {
            strategy: self.strategy,
            sleeper,
            clock: self.clock,
            budget: self.budget,
            listener: self.listener,
        }
    }

    /// Reads the time for the [budget](Self::budget) from `clock`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::time::ManualClock;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let strategy = StandardRetryStrategy::new();
    /// let clock = ManualClock::new();
    /// let retry = Retry::new(&strategy)
    ///     .clock(clock.clone())
    ///     .sleeper(clock) // sleeps advance the clock instead of waiting
    ///     .budget(Duration::from_secs(10));
    /// # let _ = retry;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock<C2>(self, clock: C2) -> Retry<S, Sl, C2, L> {
        Retry {
            strategy: self.strategy,
            sleeper: self.sleeper,
            clock,
            budget: self.budget,
            listener: self.listener,
        }
    }

    /// Tells `listener` of every retry and give-up (replacing any
    /// [`on_retry`](Self::on_retry) / [`on_give_up`](Self::on_give_up)
    /// closures). See [`RetryListener`] for an example.
    pub fn listener<L2: RetryListener>(self, listener: L2) -> Retry<S, Sl, C, L2> {
        self.map_listener(|_| listener)
    }

    /// The same executor with its listener replaced by `f` of it.
    fn map_listener<L2>(self, f: impl FnOnce(L) -> L2) -> Retry<S, Sl, C, L2> {
        Retry {
            strategy: self.strategy,
            sleeper: self.sleeper,
            clock: self.clock,
            budget: self.budget,
            listener: f(self.listener),
        }
    }

    /// Bounds the time a request may take, from its start (before the
    /// initial token) until its last attempt starts. Every wait before an
    /// attempt counts, the first attempt's included: the initial token's
    /// delay, each retry's backoff and each wait for a send permit. A wait
    /// that would not end before the budget runs out is not slept: the
    /// executor returns at once with [`StopReason::BudgetExhausted`] — before
    /// the first attempt if that is where the wait falls (then
    /// [`RetryError::attempts`] is 0 and there is no last error). An attempt
    /// with nothing to wait for is always made. A long-polling give-up sleep
    /// is cut short at the budget's end.
    ///
    /// The budget does not interrupt an attempt in progress: pair it with a
    /// per-attempt timeout in the operation. A retry the strategy granted but
    /// the budget refused is abandoned, not refunded: the Smithy interface
    /// has no way to hand a granted token back unused, and a request ending
    /// on a failure gets no refund anyway. Nothing else is held for it: a
    /// rate limiter's send token is only taken when an attempt is sent.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let strategy = StandardRetryStrategy::new();
    /// let retry = Retry::new(&strategy).budget(Duration::from_secs(30));
    /// # let _ = retry;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn budget(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The strategy this executor asks.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let retry = Retry::new(StandardRetryStrategy::new());
    /// assert_eq!(retry.strategy().max_attempts(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn strategy(&self) -> &S {
        &self.strategy
    }
}

impl<S: RetryStrategy, Sl, C: Clock, L: RetryListener> Retry<S, Sl, C, L> {
    /// Starts one request for a driver of your own
    /// ([`driver`](crate::driver)): the loop `run` and `run_async` follow,
    /// with this executor's strategy, clock, budget and listener, and
    /// without its sleeper. The initial token is taken now.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::driver::Next;
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let retry = Retry::new(StandardRetryStrategy::new());
    /// let Next::Send(attempt) = retry.request().next() else { unreachable!() };
    /// assert_eq!(attempt.number(), 1);
    /// attempt.succeeded();
    /// ```
    pub fn request(&self) -> RequestLoop<&S, &C, &L> {
        RequestLoop::start(&self.strategy, &self.clock, self.budget, &self.listener)
    }

    /// [`request`](Self::request), owning the executor's parts: for a loop
    /// kept beyond the executor (stored in a `'static` operation state, say).
    /// Clone a `Retry` whose strategy and listener are shared (`Arc`s, or
    /// strategies whose clones share their state) to start one per request.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rebound_runtime::driver::{Next, RequestLoop};
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let retry = Retry::new(Arc::new(StandardRetryStrategy::new()));
    /// let request = retry.clone().into_request();
    /// fn assert_static<T: Send + 'static>(_: &T) {}
    /// assert_static(&request);
    /// let Next::Send(attempt) = request.next() else { unreachable!() };
    /// attempt.succeeded();
    /// ```
    pub fn into_request(self) -> RequestLoop<S, C, L> {
        RequestLoop::start(self.strategy, self.clock, self.budget, self.listener)
    }
}

impl<S, Sl, C, R, G> Retry<S, Sl, C, Hooks<R, G>> {
    /// Calls `hook` after each failed attempt that will be retried, with the
    /// failure, the attempt number and the delay before the next attempt.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::cell::RefCell;
    /// use std::time::Duration;
    /// use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
    ///
    /// let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
    /// let log = RefCell::new(Vec::new());
    /// let retry = Retry::new(&strategy)
    ///     .sleeper(ManualClock::new()) // virtual time: sleeping advances this clock
    ///     .on_retry(|event| log.borrow_mut().push((event.attempt(), event.delay())))
    ///     .on_give_up(|event| log.borrow_mut().push((event.attempts(), Duration::MAX)));
    ///
    /// let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    /// let _ = retry.run(|_attempt| Err::<(), _>(reset()));
    /// assert_eq!(
    ///     log.into_inner(),
    ///     [(1, Duration::from_millis(500)), (2, Duration::from_secs(1)), (3, Duration::MAX)]
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on_retry<R2>(self, hook: R2) -> Retry<S, Sl, C, Hooks<R2, G>>
    where
        R2: for<'a> Fn(&RetryEvent<'a>),
    {
        self.map_listener(|hooks| Hooks {
            on_retry: hook,
            on_give_up: hooks.on_give_up,
        })
    }

    /// Calls `hook` once when the request fails for good: the last failure
    /// (if an attempt was made), the attempts made and the
    /// [`StopReason`]. See [`on_retry`](Self::on_retry) for an example.
    pub fn on_give_up<G2>(self, hook: G2) -> Retry<S, Sl, C, Hooks<R, G2>>
    where
        G2: for<'a> Fn(&GiveUpEvent<'a>),
    {
        self.map_listener(|hooks| Hooks {
            on_retry: hooks.on_retry,
            on_give_up: hook,
        })
    }
}

impl<S: fmt::Debug, Sl, C, L> fmt::Debug for Retry<S, Sl, C, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retry")
            .field("strategy", &self.strategy)
            .field("sleeper", &std::any::type_name::<Sl>())
            .field("clock", &std::any::type_name::<C>())
            .field("budget", &self.budget)
            .field("listener", &std::any::type_name::<L>())
            .finish()
    }
}
