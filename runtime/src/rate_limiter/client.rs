//! The shareable, thread-safe adaptive rate limiter.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crossbeam_utils::CachePadded;

use super::acquire::{RateLimited, WaitPolicy};
use super::cubic_shape::CubicShape;
use super::queue::SendQueue;
use super::response_log::{Logged, ResponseLog};
use super::state::{RateLimiterSnapshot, RateLimiterState};

/// The client-side rate limiter of AWS adaptive retry mode, shareable across
/// threads (wrap it in an `Arc`) and strategies.
///
/// Use one limiter per throttling scope — the AWS docs' example is DynamoDB,
/// which throttles per region and table — so throttles on one resource do not
/// slow down another;
/// [`AdaptiveRetryStrategy::partitions`](crate::AdaptiveRetryStrategy::partitions)
/// keeps one per key.
///
/// [`AdaptiveRetryStrategy`](crate::AdaptiveRetryStrategy) drives it: one
/// send token before every attempt, first or retry, one token each once
/// enabled, as in botocore (aws-smithy-runtime charges retries more); and
/// every response with its throttling verdict. What it shows is whether it
/// is on ([`is_enabled`](Self::is_enabled)), its [`WaitPolicy`] and the
/// measured [`send_rate`](Self::send_rate).
///
/// # Which responses take a lock, and why
///
/// None, as a rule. A response, success or throttle, is written down without
/// a lock and without an atomic read-modify-write, in a log split into
/// shards that one thread writes at a time (plain stores, on lines only that
/// thread writes), and applied to the state by whoever takes the state's lock
/// next, before it looks: a send while the limiter is on, a snapshot, or the
/// response that finds its shard full (one in 32 distinct response times,
/// which applies every shard's). Applied in time order, one at a time, with
/// botocore's arithmetic, they leave exactly the state the same responses
/// would have left one by one, which is what the vectors pin. A success at
/// the time of its shard's latest success is one more in a run: one store,
/// applied as a count, which is all such a success changes (on a clock that
/// ticks in steps, such as [`CoarseClock`](crate::time::CoarseClock),
/// nearly every success is one). A throttle also sets the flag that sends
/// read, so every send after it is held to the rate; the cut itself is made
/// when the throttle is applied, before any send takes a token.
///
/// Who writes which shard: each of the first 8 threads to answer owns a lane
/// of its own until it exits; a thread beyond them borrows one of 2 shared
/// shards for the length of one record (one swap), or, if both are busy at
/// that moment, applies its response under the lock. The log is about 6 KB
/// per limiter. Applied at once, under the lock, are also responses at a
/// time the log does not take (negative, NaN or infinite, which the state
/// sanitises) and throttles under the opt-in
/// [`cut_once_per_event`](crate::AdaptiveRetryStrategyBuilder::cut_once_per_event),
/// whose effect depends on when the attempt was sent.
///
/// The log leaves the arithmetic under the lock and takes the lock off the
/// response path; why it is kept, against one plain mutex and against the
/// state in atomics, is measured in `docs/rate-limiter.md`. The state is a
/// [`Mutex`] whose critical sections are a few float operations and never
/// sleep.
///
/// Until the first throttle the limiter is disabled and a send reads one
/// atomic flag and takes no lock. Callers waiting for a token stand in a
/// line with a lock of its own ([`try_acquire_in_turn`](Self::try_acquire_in_turn)),
/// which the others skip while a lock-free count says no one waits. The
/// benchmarks `runtime/benches/rate_limiter.rs` and `benches/compare/`
/// measure these paths.
///
/// ```
/// use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy, SendPermit};
/// use rebound_runtime::classify::HttpErrorResponse;
///
/// let strategy = AdaptiveRetryStrategy::new();
/// let limiter = strategy.rate_limiter();
/// assert!(!limiter.is_enabled()); // off until the first throttle
/// let token = strategy.acquire_initial_token()?;
/// let throttled = HttpErrorResponse::new(400).with_code("ThrottlingException");
/// let token = strategy.refresh_retry_token(token, &throttled)?;
/// assert!(limiter.is_enabled());
/// # let _ = (token, SendPermit::Granted);
/// # Ok::<(), rebound_runtime::TokenAcquisitionFailed>(())
/// ```
#[derive(Debug)]
pub struct ClientRateLimiter {
    /// Whether a throttle has been seen: set once, after the throttle was
    /// logged or applied, never cleared. Ahead of `state.is_enabled()` only
    /// while that throttle waits in the log, which every look at the state
    /// applies first.
    enabled: AtomicBool,
    mode: WaitPolicy,
    /// Written by whoever applies responses: on cache lines of its own, so
    /// that the words every request only reads (`enabled`, `in_line`) are
    /// not invalidated by it. Read only through [`lock_state`](Self::lock_state),
    /// which applies the logged responses first.
    state: CachePadded<Mutex<RateLimiterState>>,
    /// The callers waiting for a send token, in order. Only they lock it.
    line: CachePadded<Mutex<SendQueue>>,
    /// How many tickets `line` holds (lapsed ones included until the next
    /// look), so that a caller can tell without the lock that no one waits.
    in_line: AtomicUsize,
    /// Responses not yet applied to `state` (each shard on lines of its own).
    responses: ResponseLog,
}

/// The longest wait [`ClientRateLimiter::try_acquire_in_turn`] tells a
/// waiting caller before it asks again.
const RECHECK_SECS: f64 = 0.25;

// The methods taking `f64` seconds are the reference's interface: public for
// the conformance tests, the fuzz targets and the benchmarks, hidden from the
// documentation and exempt from semantic versioning. Users drive the limiter
// through `AdaptiveRetryStrategy`.
impl ClientRateLimiter {
    /// A disabled limiter created at `now` (botocore's initial state), which
    /// blocks when short of tokens.
    #[doc(hidden)]
    pub fn new(now: f64) -> Self {
        Self::from_state(RateLimiterState::new(now))
    }

    /// Wraps an existing state (e.g. one replayed in a simulation). The
    /// state type is internal: not part of the API.
    #[doc(hidden)]
    pub fn from_state(state: RateLimiterState) -> Self {
        Self {
            enabled: AtomicBool::new(state.is_enabled()),
            mode: WaitPolicy::default(),
            state: CachePadded::new(Mutex::new(state)),
            line: CachePadded::new(Mutex::new(SendQueue::default())),
            in_line: AtomicUsize::new(0),
            responses: ResponseLog::new(),
        }
    }

    /// Sets what [`acquire`](Self::acquire) does when short of tokens.
    #[must_use]
    #[doc(hidden)]
    pub fn with_wait_policy(mut self, mode: WaitPolicy) -> Self {
        self.mode = mode;
        self
    }

    /// Follows another CUBIC [`CubicShape`] (default
    /// [`CubicShape::BOTOCORE`]; the others are opt-in variants, not the
    /// reference's algorithm).
    #[must_use]
    #[doc(hidden)]
    pub fn with_cubic_shape(mut self, shape: CubicShape) -> Self {
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        apply_logged(&self.responses, state);
        *state = state.with_cubic_shape(shape);
        self
    }

    /// What [`acquire`](Self::acquire) does when short of tokens.
    pub fn wait_policy(&self) -> WaitPolicy {
        self.mode
    }

    /// Whether a throttle has been seen, so that sends now cost a token.
    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// One attempt to take a send token at `now`, whatever the mode: `Ok` if
    /// taken (or the limiter is disabled), else [`RateLimited`] with the wait
    /// until one is available. Never sleeps.
    ///
    /// It never jumps the line of callers waiting in
    /// [`try_acquire_in_turn`](Self::try_acquire_in_turn), nor joins it: with
    /// callers waiting, a token is taken only if the bucket holds one for each
    /// of them and one more, and the wait is until it will.
    ///
    /// This is the building block for asynchronous callers:
    ///
    /// ```
    /// # use rebound_runtime::rate_limiter::{WaitPolicy, ClientRateLimiter};
    /// # use rebound_runtime::internals::RateLimited;
    /// # async fn sleep(_: std::time::Duration) {}
    /// # fn now() -> f64 { 0.0 }
    /// async fn before_send(limiter: &ClientRateLimiter) -> Result<(), RateLimited> {
    ///     loop {
    ///         match limiter.try_acquire(now()) {
    ///             Ok(()) => return Ok(()),
    ///             Err(limited) if limiter.wait_policy() == WaitPolicy::Block => {
    ///                 sleep(limited.wait()).await
    ///             }
    ///             Err(limited) => return Err(limited),
    ///         }
    ///     }
    /// }
    /// ```
    #[doc(hidden)]
    pub fn try_acquire(&self, now: f64) -> Result<(), RateLimited> {
        if !self.is_enabled() {
            return Ok(());
        }
        if !self.anyone_in_line() {
            return self.update(|s| s.try_acquire(now));
        }
        let mut line = self.lock_line();
        let ahead = line.ahead_of(None, now);
        let result = self.update(|s| s.try_acquire_behind(now, ahead));
        self.count_line(&line);
        result
    }

    /// Takes a send token without reading the clock if one was already there
    /// at the latest time the limiter has seen (its last response or send),
    /// or the limiter is disabled. Not taken means "read the clock and ask
    /// with the time": the bucket was short then, or callers are waiting in
    /// line.
    ///
    /// Granting a token at an earlier time than the send's is a history the
    /// reference allows (a send made a moment earlier); it never lets more
    /// sends through than the rate earns, since the bucket only ever credits
    /// time up to the latest time it has seen. This is what keeps the
    /// adaptive strategy at one clock read per attempt (the response's).
    ///
    /// `Some(time)` when taken: the time it was taken at (minus infinity
    /// while the limiter is off); `None` to read the clock.
    #[inline]
    pub(crate) fn try_acquire_without_clock(&self) -> Option<f64> {
        if !self.is_enabled() {
            return Some(f64::NEG_INFINITY);
        }
        if self.anyone_in_line() {
            return None;
        }
        self.update(|s| {
            let latest = s.latest_time();
            s.try_acquire(latest).ok().map(|()| latest)
        })
    }

    /// Takes a send token at `now` in turn: callers told to wait are served
    /// first come, first served. `ticket` is the caller's place in line:
    /// `None` at first; set when it is told to wait; pass it back unchanged
    /// when asking again after the wait (a caller that does not come back
    /// loses its place shortly after it was due). Whatever the
    /// [`WaitPolicy`], never sleeps: `Err` carries the wait until this
    /// caller's token. Nothing is taken or reserved while it waits, and the
    /// wait is recomputed at the current rate each time it asks.
    ///
    /// A waiting caller is told to come back after the wait until its
    /// token, or after 0.25 s if that is sooner (so a rate that recovers is
    /// noticed).
    ///
    /// ```
    /// use rebound_runtime::rate_limiter::ClientRateLimiter;
    ///
    /// let limiter = ClientRateLimiter::new(0.0);
    /// limiter.on_response(0.0, true); // a throttle: the bucket is empty
    /// let (mut first, mut second) = (None, None);
    /// assert!(limiter.try_acquire_in_turn(0.0, &mut first).is_err()); // first in line
    /// let mut now = 0.0;
    /// loop {
    ///     // Both come back when told; the second in line asks first, in vain.
    ///     assert!(limiter.try_acquire_in_turn(now, &mut second).is_err());
    ///     match limiter.try_acquire_in_turn(now, &mut first) {
    ///         Ok(()) => break,
    ///         Err(limited) => now += limited.wait_secs(),
    ///     }
    /// }
    /// assert!(first.is_none() && second.is_some()); // served, still waiting
    /// ```
    #[doc(hidden)]
    pub fn try_acquire_in_turn(
        &self,
        now: f64,
        ticket: &mut Option<u64>,
    ) -> Result<(), RateLimited> {
        if !self.is_enabled() {
            return Ok(());
        }
        if ticket.is_none() && !self.anyone_in_line() {
            // No one waits: take a token without the line's lock, and join
            // the line only when told to wait.
            let limited = match self.update(|s| s.try_acquire(now)) {
                Ok(()) => return Ok(()),
                Err(limited) => limited,
            };
            let wait = limited.wait_secs().min(RECHECK_SECS);
            let mut line = self.lock_line();
            *ticket = Some(line.wait(None, now, wait));
            self.count_line(&line);
            return Err(RateLimited::new(wait, limited.at()));
        }
        let mut line = self.lock_line();
        let ahead = line.ahead_of(*ticket, now);
        let result = match self.update(|s| s.try_acquire_behind(now, ahead)) {
            Ok(()) => {
                line.leave(ticket.take());
                Ok(())
            }
            Err(limited) => {
                // Far back in a long line, come back to check at least every
                // `RECHECK_SECS`: if the rate recovers meanwhile, the wait
                // shrinks (a wait told once and slept in full would keep the
                // client at the rate the line formed at).
                let wait = limited.wait_secs().min(RECHECK_SECS);
                *ticket = Some(line.wait(*ticket, now, wait));
                Err(RateLimited::new(wait, limited.at()))
            }
        };
        self.count_line(&line);
        result
    }

    /// The caller holding `ticket` will not ask again (it was refused and
    /// does not wait, or its attempt was reported without being granted): it
    /// leaves the line at once rather than when its place lapses, so the
    /// callers behind it move up.
    #[inline]
    pub(crate) fn leave_line(&self, ticket: &mut Option<u64>) {
        if ticket.is_some() {
            let mut line = self.lock_line();
            line.leave(ticket.take());
            self.count_line(&line);
        }
    }

    /// Takes a send token, honouring the [`WaitPolicy`]: blocking sleeps each
    /// wait the limiter asks for (through `sleep`, reading the time again from
    /// `clock` after it) until a token is taken; fail-fast returns the first
    /// [`RateLimited`].
    ///
    /// Nothing is held while sleeping. The wait is recomputed after each
    /// sleep, so a rate change in the meantime is taken into account (the
    /// reference wakes sleepers on a rate change; here a sleeper finishes its
    /// sleep first). After sleeping `wait`, the time used is at least `wait`
    /// (and at least one `f64` step) later than before, whatever `clock`
    /// says, so a coarse or virtual clock cannot make it wait forever.
    ///
    /// ```
    /// use rebound_runtime::rate_limiter::ClientRateLimiter;
    /// use std::time::Instant;
    ///
    /// let start = Instant::now();
    /// let limiter = ClientRateLimiter::new(0.0);
    /// limiter
    ///     .acquire(|| start.elapsed().as_secs_f64(), |limited| std::thread::sleep(limited.wait()))
    ///     .unwrap();
    /// ```
    #[doc(hidden)]
    pub fn acquire(
        &self,
        mut clock: impl FnMut() -> f64,
        mut sleep: impl FnMut(&RateLimited),
    ) -> Result<(), RateLimited> {
        let mut now = clock();
        loop {
            match self.try_acquire(now) {
                Ok(()) => return Ok(()),
                Err(limited) if self.mode == WaitPolicy::Block => {
                    sleep(&limited);
                    let earliest = time_after_sleep(limited.at(), limited.wait_secs());
                    let reading = clock();
                    // A NaN or infinite reading says nothing: use the earliest.
                    now = if reading.is_finite() {
                        reading.max(earliest)
                    } else {
                        earliest
                    };
                }
                Err(limited) => return Err(limited),
            }
        }
    }

    /// Records a response received at `now` with its throttling verdict (see
    /// [`RateLimiterState::on_response`]). A throttle enables the limiter.
    ///
    /// Call it for every attempt's outcome, transport errors included (with
    /// `is_throttle = false`): botocore's hook runs for them too, so they
    /// count towards the measured rate and the CUBIC recovery.
    #[inline]
    #[doc(hidden)]
    pub fn on_response(&self, now: f64, is_throttle: bool) {
        // An attempt sent after every cut (at +infinity): every throttle cuts,
        // exactly as the reference's response does.
        self.on_response_once_per_event(now, is_throttle, f64::INFINITY);
    }

    /// [`on_response`](Self::on_response) for an attempt granted its send at
    /// `sent_at`, with at most one CUBIC decrease per congestion event
    /// (opt-in: see [`AdaptiveRetryStrategyBuilder::cut_once_per_event`](crate::AdaptiveRetryStrategyBuilder::cut_once_per_event)).
    #[inline(always)]
    pub(crate) fn on_response_once_per_event(&self, now: f64, is_throttle: bool, sent_at: f64) {
        // A throttle's effect depends on `sent_at` only with the opt-in
        // (finite `sent_at`): without it, every throttle cuts, which the log
        // can say in a bit.
        let loggable = ResponseLog::takes(now) && (!is_throttle || sent_at == f64::INFINITY);
        if loggable && self.responses.record(now, is_throttle) {
            if is_throttle {
                self.turn_on();
            }
            return;
        }
        self.full_response_update(now, is_throttle, sent_at);
    }

    /// A success at `now` written in this thread's lane of the log (one
    /// store, most of the time; see `response_log`), if it can be: this
    /// thread has its lane and the lane's shard has room. False if not,
    /// with nothing recorded: then [`on_response`](Self::on_response) is
    /// the way.
    #[inline(always)]
    pub(crate) fn try_log_success(&self, now: f64) -> bool {
        self.responses.record_success_in_own_lane(now)
    }

    /// Sends cost a token from now on. The flag's line is read by every
    /// send, so it is written once, not on every throttle.
    #[inline]
    fn turn_on(&self) {
        if !self.enabled.load(Ordering::Relaxed) {
            self.enabled.store(true, Ordering::Release);
        }
    }

    /// A response applied at once, under the lock (after the logged
    /// responses, which came before it): one whose shard of the log is
    /// full, one at a time the log does not take, or a throttle under the
    /// once-per-event opt-in.
    #[cold]
    fn full_response_update(&self, now: f64, is_throttle: bool, sent_at: f64) {
        let mut state = self.lock_state();
        let cut = state.on_response_once_per_event(now, is_throttle, sent_at);
        if cut {
            drop(state);
            self.turn_on();
        }
    }

    /// Holds sends at or below `ceiling` per second from `now` on, on top of
    /// CUBIC; `None` lifts the ceiling. A ceiling turns the limiter on (see
    /// [`RateLimiterState::set_ceiling`]). Users set it through
    /// [`RateControl`](super::RateControl).
    #[doc(hidden)]
    pub fn set_ceiling(&self, now: f64, ceiling: Option<f64>) {
        let on = self.update(|state| {
            state.set_ceiling(now, ceiling.unwrap_or(f64::INFINITY));
            state.is_enabled()
        });
        if on {
            self.turn_on();
        }
    }

    /// Holds sends at `rate` per second from `now` on, in place of CUBIC's
    /// rate; `None` lets CUBIC set it again (see
    /// [`RateLimiterState::hold`]). Users set it through
    /// [`RateControl`](super::RateControl).
    #[doc(hidden)]
    pub fn hold(&self, now: f64, rate: Option<f64>) {
        let on = self.update(|state| {
            state.hold(now, rate.unwrap_or(f64::INFINITY));
            state.is_enabled()
        });
        if on {
            self.turn_on();
        }
    }

    /// The rate, in sends per second, that sends are held to: `None` while
    /// the limiter is off (before the first throttle).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::rate_limiter::ClientRateLimiter;
    ///
    /// let limiter = ClientRateLimiter::new(0.0);
    /// assert_eq!(limiter.send_rate(), None);
    /// limiter.on_response(1.0, true); // a throttle turns it on
    /// assert!(limiter.send_rate().is_some_and(|rate| rate >= 0.5));
    /// ```
    #[must_use]
    pub fn send_rate(&self) -> Option<f64> {
        if !self.is_enabled() {
            return None;
        }
        Some(self.load().snapshot().fill_rate)
    }

    /// A consistent copy of every field of the state, for the conformance
    /// tests. The snapshot type is internal: not part of the API.
    #[doc(hidden)]
    pub fn snapshot(&self) -> RateLimiterSnapshot {
        self.load().snapshot()
    }

    /// Runs `op` on the state, under its lock.
    fn update<R>(&self, op: impl FnOnce(&mut RateLimiterState) -> R) -> R {
        op(&mut self.lock_state())
    }

    /// A copy of the state, every logged response applied.
    fn load(&self) -> RateLimiterState {
        *self.lock_state()
    }

    /// The state, with every logged response applied. Even if another thread
    /// panicked while holding the lock the state is consistent: no state
    /// update can panic half-way.
    fn lock_state(&self) -> MutexGuard<'_, RateLimiterState> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        apply_logged(&self.responses, &mut state);
        state
    }

    /// Whether any caller may be waiting in line (without taking its lock).
    fn anyone_in_line(&self) -> bool {
        self.in_line.load(Ordering::Acquire) != 0
    }

    /// Publishes the line's length for [`anyone_in_line`](Self::anyone_in_line);
    /// called with the line locked, after each change.
    fn count_line(&self, line: &SendQueue) {
        self.in_line.store(line.len(), Ordering::Release);
    }

    /// The line, even if another thread panicked while holding its lock: no
    /// change to it can panic half-way, so it is always consistent.
    fn lock_line(&self) -> MutexGuard<'_, SendQueue> {
        self.line.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Applies the responses `log` holds to `state`, in time order; the `&mut`
/// is the state's lock, which makes this the only drain running.
fn apply_logged(log: &ResponseLog, state: &mut RateLimiterState) {
    log.drain(|logged| match logged {
        Logged::Success(time) => state.on_response(time, false),
        // The same time as the success just applied: only a count.
        Logged::RepeatedSuccesses(n) => state.count_repeated_successes(n),
        Logged::Throttle(time) => state.on_response(time, true),
    });
}

/// The earliest time it can be after sleeping `wait` seconds from `before`:
/// at least `wait` later, and at least one representable `f64` later even when
/// `before + wait` rounds back to `before` (a wait shorter than half the clock's
/// resolution). Trusting this rather than only the caller's clock guarantees
/// progress with a coarse or frozen clock — otherwise the same wait would be
/// asked for forever — and is exactly the virtual clock the reference vectors
/// were recorded on.
fn time_after_sleep(before: f64, wait: f64) -> f64 {
    (before + wait).max(before.next_up())
}

impl Clone for ClientRateLimiter {
    /// An independent limiter starting from a copy of this one's state (not a
    /// shared handle: share with `Arc`).
    fn clone(&self) -> Self {
        Self::from_state(self.load()).with_wait_policy(self.mode)
    }
}

#[cfg(test)]
impl ClientRateLimiter {
    /// How many callers stand in the send line (tickets not yet lapsed).
    pub(crate) fn waiting(&self) -> usize {
        self.lock_line().ahead_of(None, f64::NEG_INFINITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<ClientRateLimiter>();
    }

    #[test]
    fn fail_fast_never_sleeps() {
        let limiter = ClientRateLimiter::new(0.0).with_wait_policy(WaitPolicy::FailFast);
        limiter.on_response(0.0, true);
        let mut slept = false;
        let mut results = Vec::new();
        for _ in 0..3 {
            results.push(limiter.acquire(|| 0.0, |_| slept = true));
        }
        assert!(!slept);
        assert!(results.iter().any(Result::is_err));
    }

    #[test]
    fn blocking_sleeps_until_a_token() {
        let limiter = ClientRateLimiter::new(0.0);
        limiter.on_response(0.0, true);
        let mut now = 0.0;
        for _ in 0..5 {
            let clock = std::cell::Cell::new(now);
            limiter
                .acquire(|| clock.get(), |l| clock.set(clock.get() + l.wait_secs()))
                .unwrap();
            now = clock.get();
        }
        // At the minimum rate of 0.5 tokens/s, five tokens from empty take 10 s.
        assert!((now - 10.0).abs() < 1e-9, "{now}");
    }

    #[test]
    fn blocking_terminates_with_a_frozen_clock() {
        let limiter = ClientRateLimiter::new(1e9);
        limiter.on_response(1e9, true);
        let mut sleeps = 0;
        for _ in 0..3 {
            limiter.acquire(|| 1e9, |_| sleeps += 1).unwrap();
        }
        assert!(sleeps >= 3, "{sleeps}");
        // A clock reading NaN or infinity counts from the limiter's last time.
        limiter.acquire(|| f64::NAN, |_| sleeps += 1).unwrap();
        limiter.acquire(|| f64::INFINITY, |_| sleeps += 1).unwrap();
    }

    #[test]
    fn time_after_sleep_always_advances() {
        assert_eq!(time_after_sleep(1.0, 0.5), 1.5);
        let t = 1014.7970055063598_f64;
        assert_eq!(time_after_sleep(t, 5.262457136723242e-14), t.next_up());
    }

    /// Responses logged by four threads at interleaved times, none applied
    /// until the end, reach the state in time order: the state is the one
    /// the same responses leave one by one, in time order. The times cross
    /// half-second buckets from the start, where every success changes the
    /// rate, and one response in seven is a throttle, so any other order
    /// would leave another state.
    #[test]
    fn responses_logged_by_threads_are_applied_in_time_order() {
        let limiter = ClientRateLimiter::new(0.0);
        let threads = 4_u32;
        // As many as a shard holds at distinct times.
        let per_thread = super::super::response_log::SLOTS as u32;
        let event = |thread: u32, i: u32| {
            let n = i * threads + thread;
            (0.05 + f64::from(n) * 0.031, n % 7 == 3)
        };
        std::thread::scope(|scope| {
            for thread in 0..threads {
                let limiter = &limiter;
                scope.spawn(move || {
                    for i in 0..per_thread {
                        let lane = thread as usize;
                        let (time, throttle) = event(thread, i);
                        assert!(limiter.responses.record_in_lane(lane, time, throttle));
                    }
                });
            }
        });
        let mut events: Vec<(f64, bool)> = (0..threads)
            .flat_map(|thread| (0..per_thread).map(move |i| event(thread, i)))
            .collect();
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut state = RateLimiterState::new(0.0);
        for (time, throttle) in events {
            state.on_response(time, throttle);
        }
        assert_eq!(
            format!("{:?}", limiter.snapshot()),
            format!("{:?}", state.snapshot())
        );
    }

    /// More threads than lanes answering at once, in runs and at distinct
    /// times, with sends and snapshots draining meanwhile: no response is
    /// lost or counted twice, whether it went to a lane, a borrowed shard
    /// or under the lock. All fall in the first half-second bucket, whose
    /// count is then every response.
    #[test]
    fn many_threads_lose_no_response() {
        let limiter = ClientRateLimiter::new(0.0);
        let threads = 12_u64;
        let per_thread = 3000_u64;
        std::thread::scope(|scope| {
            for thread in 0..threads {
                let limiter = &limiter;
                scope.spawn(move || {
                    for i in 0..per_thread {
                        // Runs of 3 at one time, times spread over [0, 0.45).
                        let time = ((i / 3 * threads + thread) % 450) as f64 * 1e-3;
                        limiter.on_response(time, false);
                        if i % 500 == 0 {
                            let _ = limiter.snapshot();
                        }
                    }
                });
            }
        });
        let snapshot = limiter.snapshot();
        assert_eq!(snapshot.request_count, threads * per_thread);
        assert_eq!(snapshot.last_bucket, 0.0, "one bucket");
        assert!(!snapshot.enabled);
    }

    /// A response never waits for the state's lock: successes and a
    /// throttle complete while another thread holds it (the throttle turns
    /// the limiter on at once), and are applied by the next one to look.
    #[test]
    fn responses_are_recorded_while_the_state_is_locked() {
        let limiter = ClientRateLimiter::new(0.0);
        let held = limiter.state.lock().unwrap();
        let finished = std::thread::scope(|scope| {
            let answered = scope.spawn(|| {
                for i in 1..=3 {
                    limiter.on_response(f64::from(i) * 0.1, false);
                }
                limiter.on_response(0.4, true);
                assert!(limiter.is_enabled(), "a throttle turns the limiter on");
            });
            // Waits by yielding a bounded number of times (no sleep): a
            // response that took the lock would never finish, and the lock
            // is let go before the failure is reported.
            let finished = (0..10_000_000).any(|_| {
                std::thread::yield_now();
                answered.is_finished()
            });
            drop(held);
            finished
        });
        assert!(finished, "a response waited for the state's lock");
        let mut state = RateLimiterState::new(0.0);
        for i in 1..=3 {
            state.on_response(f64::from(i) * 0.1, false);
        }
        state.on_response(0.4, true);
        assert_eq!(
            format!("{:?}", limiter.snapshot()),
            format!("{:?}", state.snapshot())
        );
        assert!(limiter.snapshot().enabled);
    }

    #[test]
    fn clone_is_independent() {
        let a = ClientRateLimiter::new(0.0);
        let b = a.clone();
        a.on_response(1.0, true);
        assert!(a.is_enabled());
        assert!(!b.is_enabled());
    }
}
