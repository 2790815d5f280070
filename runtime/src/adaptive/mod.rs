//! [`AdaptiveRetryStrategy`]: AWS adaptive retry mode, the standard strategy
//! plus a client-side rate limiter (`crate::rate_limiter`).

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use crate::partition::Partitions;
use crate::rate_limiter::{ClientRateLimiter, CubicShape, RateControl, RateReading, WaitPolicy};
use crate::refusal::TokenAcquisitionFailed;
use crate::standard::StandardRetryStrategy;
use crate::strategy::{RetryKind, RetryStrategy, SendPermit};
use crate::time::{Clock, FastClock};
use crate::token::RetryToken;
use crate::vocabulary::FailureInfo;

/// The AWS *adaptive* retry mode: the standard mode, plus a client-side
/// rate limiter that slows every send down after the service starts
/// throttling.
///
/// The standard strategy decides whether and when to retry (attempts, quota,
/// backoff). The [`ClientRateLimiter`] decides how fast to send at all: it is
/// off until the first throttling response, then holds every attempt — first
/// or retry — to a send rate that CUBIC lowers on each throttle and raises on
/// each success.
///
/// Through the Smithy interface:
///
/// - [`acquire_initial_token`](RetryStrategy::acquire_initial_token),
///   [`refresh_retry_token`](RetryStrategy::refresh_retry_token) and
///   [`record_success`](RetryStrategy::record_success) are the standard
///   strategy's (attempts, quota, backoff, retry-after hints); the last two
///   also feed each outcome (throttle or not) to the limiter.
/// - [`acquire_send_permit`](RetryStrategy::acquire_send_permit) takes the
///   send token, right before an attempt is sent, after its backoff: at the
///   time the attempt is actually made, as botocore's before-send hook does.
///   When none is available the limiter's [`WaitPolicy`] decides:
///   [`Block`](WaitPolicy::Block) (the default) answers
///   [`SendPermit::Wait`], and the executor sleeps it and asks again with
///   the same token;
///   [`FailFast`](WaitPolicy::FailFast) answers
///   [`TokenAcquisitionFailed::RateLimited`] and the executor does not send
///   the attempt.
///
/// # Why the send token is taken at send time
///
/// The limiter measures and bounds the rate at which attempts are *sent*.
/// Taking the token when the attempt is about to leave means:
///
/// - one request's backoff or retry-after hint delays only that request:
///   nothing is reserved in the shared bucket for a retry that starts later;
/// - nothing is taken for an attempt that is never made (the caller gives
///   up, the budget runs out, the token is dropped);
/// - a request waits only for what the rate it is held to implies: callers
///   waiting for the rate stand in line (each attempt's token keeps its
///   place) and are served in the order they asked, and each is told to come
///   back when its turn is due, or after 0.25 s if that is sooner, so a rate
///   that recovers is noticed at once
///   ([`ClientRateLimiter::try_acquire_in_turn`]). Nothing is reserved for a
///   caller while it waits. One that gives up through the executors (its
///   budget spent, its future dropped) or [`abandon`](RetryStrategy::abandon)
///   leaves at once; a token simply dropped loses its place shortly after
///   it was due.
///
/// # One clock read per attempt
///
/// Each response is timed (the measured rate and CUBIC need it). A send is
/// first offered the limiter's latest time (its last response or send): if
/// a token was already there then, it is taken without reading the clock —
/// the history of a send made a moment earlier, which never lets more sends
/// through than the rate earns. Only a send that would otherwise wait reads
/// the clock. Before the first throttle a send reads one atomic flag
/// ([`ClientRateLimiter`] has what each step costs).
///
/// The clock read is a large part of what a response costs, which is why
/// the default clock is [`FastClock`]: the monotonic clock read through
/// the CPU's counter, cheaper than `Instant::now`
/// ([`SystemClock`](crate::time::SystemClock); figures in
/// `docs/rate-limiter.md`). A response is then written down without a lock, in the
/// limiter's log, and applied with the others by the next holder of the
/// limiter's lock ([`ClientRateLimiter`] explains). On a clock that ticks
/// in steps the read is cheaper still and nearly every success is at the
/// time of its thread's previous one, which the log counts with one store
/// and applying only counts: [`CoarseClock`](crate::time::CoarseClock)
/// (one atomic load a read, advanced every millisecond by a thread of its
/// own). The price is a limiter that sees time a step at a time.
///
/// The Smithy guide makes the first attempt even when the strategy gives no
/// initial token: the strategy manages retries, it does not gate access. The
/// rate limiter does gate sends, through the permit: a first attempt refused
/// by a fail-fast limiter is not sent, and the executor returns a typed
/// "rate limited" outcome ([`StopReason::Strategy`](crate::StopReason::Strategy)
/// with [`TokenAcquisitionFailed::RateLimited`], no attempt made).
///
/// One strategy per throttling scope: see [`partitions`](Self::partitions).
///
/// Cloning is cheap; clones share the quota, the limiter and the clock's
/// epoch.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy, SendPermit, StandardRetryStrategy, time::ManualClock};
///
/// let clock = ManualClock::new();
/// let standard = StandardRetryStrategy::builder().random(|| 0.5).build();
/// let strategy = AdaptiveRetryStrategy::builder(standard).clock(clock.clone()).build();
///
/// // Before any throttle, the limiter is off: every send is granted.
/// let mut token = strategy.acquire_initial_token()?;
/// assert_eq!(strategy.acquire_send_permit(&mut token)?, SendPermit::Granted);
///
/// // A throttle enables it. The retry's token carries only its own backoff
/// // (0.5 * 1 s); the send token is taken when the retry is about to be sent.
/// clock.advance(Duration::from_millis(100));
/// let throttled = HttpErrorResponse::new(400).with_code("ThrottlingException");
/// let mut token = strategy.refresh_retry_token(token, &throttled)?;
/// assert!(strategy.rate_limiter().is_enabled());
/// assert_eq!(token.delay(), Duration::from_millis(500));
///
/// clock.advance(token.delay());
/// match strategy.acquire_send_permit(&mut token)? {
///     SendPermit::Granted => {}                     // send now
///     SendPermit::Wait(wait) => clock.advance(wait), // then ask again
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct AdaptiveRetryStrategy<C = FastClock> {
    standard: StandardRetryStrategy,
    limiter: Arc<ClientRateLimiter>,
    /// [`AdaptiveRetryStrategyBuilder::cut_once_per_event`].
    cut_once_per_event: bool,
    /// [`AdaptiveRetryStrategyBuilder::cubic_shape`], for new partitions.
    cubic_shape: CubicShape,
    clock: C,
    /// The instant the limiter's time (`f64` seconds) counts from.
    epoch: Instant,
}

/// Builds an [`AdaptiveRetryStrategy`] around a configured
/// [`StandardRetryStrategy`].
///
/// # Default
///
/// | setting | default |
/// |---|---|
/// | [`wait_policy`](Self::wait_policy) | [`WaitPolicy::Block`]: wait for a send token |
/// | [`clock`](Self::clock) | [`FastClock`]: the monotonic clock, read through the CPU's counter |
/// | [`cut_once_per_event`](Self::cut_once_per_event) | `false`: botocore's algorithm, a cut on every throttle |
/// | [`cubic_shape`](Self::cubic_shape) | [`CubicShape::BOTOCORE`]: cut to 70%, climb back with botocore's constant |
/// | rate limiter | a new [`ClientRateLimiter`], off until the first throttle |
#[derive(Debug, Clone)]
#[must_use]
pub struct AdaptiveRetryStrategyBuilder<C = FastClock> {
    standard: StandardRetryStrategy,
    wait_policy: WaitPolicy,
    cut_once_per_event: bool,
    cubic_shape: CubicShape,
    clock: ClockChoice<C>,
}

/// The builder's clock: one given to [`clock`](AdaptiveRetryStrategyBuilder::clock),
/// or the default, made only when the strategy is built. A [`FastClock`]
/// calibrates the CPU's counter the first time one is made in a process,
/// which a builder whose clock is replaced should not pay for.
#[derive(Debug, Clone)]
enum ClockChoice<C> {
    Default(fn() -> C),
    Given(C),
}

impl AdaptiveRetryStrategy {
    /// The AWS adaptive mode with its defaults: the
    /// [standard strategy's](StandardRetryStrategy::new), a blocking rate
    /// limiter on a [`FastClock`]. Cannot fail.
    ///
    /// ```
    /// use rebound_runtime::AdaptiveRetryStrategy;
    ///
    /// let strategy = AdaptiveRetryStrategy::new();
    /// assert!(!strategy.rate_limiter().is_enabled()); // until the first throttle
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::builder(StandardRetryStrategy::new()).build()
    }

    /// **rebound's recommended adaptive mode; not AWS-exact.** The
    /// [standard strategy's](StandardRetryStrategy::new) defaults and a
    /// blocking rate limiter on a [`FastClock`], as [`new`](Self::new),
    /// with the two opt-ins of [`AdaptiveRetryStrategyBuilder::steady`]:
    /// one CUBIC decrease per congestion event and the [`CubicShape::GENTLE`]
    /// curve. Cannot fail.
    ///
    /// Why (`rebound-sim capacity`, seed 12: clients of a service that
    /// throttles above R attempts/s, offered 2R to 5R): with one client at
    /// R = 1000, botocore's algorithm ([`new`](Self::new)) holds 34–38% of R,
    /// this one 98.8–98.9%; at R = 100 with 1, 10 and 30 clients it holds
    /// 98.5–100% of R with at most 3.9% of attempts throttled, where
    /// botocore's throttles up to 14.8% with 30 clients. After an outage
    /// answered with plain 503s (`rebound-sim outage`, 20 clients, seeds 1
    /// to 12) it recovers at once in 11 runs of 12 (17 s in one), where
    /// botocore's takes 4 s, and 20 and 24 s in two runs.
    ///
    /// The price: one cut per congestion event lets more attempts into a
    /// long run of throttles (a service answering `SlowDown` to everything
    /// for 10 s in `rebound-sim outage`: 0.40 attempts per request while
    /// down against 0.13, and 95.0% of the run's requests served against
    /// 99.9%; it recovers in 3 s, botocore's in 4 s), and fail-fast clients
    /// sharing a capacity use a little less of it (30 clients at twice the
    /// capacity: 94.8% of R, blocking 99.9%).
    /// [`new`](Self::new) stays botocore's algorithm and reproduces its
    /// conformance vectors bit for bit.
    ///
    /// ```
    /// use rebound_runtime::AdaptiveRetryStrategy;
    ///
    /// let strategy = AdaptiveRetryStrategy::steady();
    /// assert!(!strategy.rate_limiter().is_enabled()); // until the first throttle
    /// ```
    #[must_use]
    pub fn steady() -> Self {
        Self::builder(StandardRetryStrategy::new()).steady().build()
    }

    /// A builder around `standard`; see its [defaults](AdaptiveRetryStrategyBuilder#default).
    pub fn builder(standard: StandardRetryStrategy) -> AdaptiveRetryStrategyBuilder {
        AdaptiveRetryStrategyBuilder {
            standard,
            wait_policy: WaitPolicy::Block,
            cut_once_per_event: false,
            cubic_shape: CubicShape::BOTOCORE,
            clock: ClockChoice::Default(FastClock::new),
        }
    }
}

impl<C: Clock> AdaptiveRetryStrategyBuilder<C> {
    /// **rebound's recommended settings; not AWS-exact.** Sets the two
    /// opt-ins that make the limiter hold a capacity steadily:
    /// [`cut_once_per_event(true)`](Self::cut_once_per_event) and
    /// [`cubic_shape(CubicShape::GENTLE)`](Self::cubic_shape). The acquire
    /// mode and the clock are left as they are; a setting called after this
    /// one overrides it.
    ///
    /// Why: see [`AdaptiveRetryStrategy::steady`]. Without this call the
    /// builder is botocore's algorithm, bit for bit.
    ///
    /// ```
    /// use rebound_runtime::rate_limiter::WaitPolicy;
    /// use rebound_runtime::{AdaptiveRetryStrategy, StandardRetryStrategy};
    ///
    /// let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
    ///     .steady()
    ///     .wait_policy(WaitPolicy::FailFast)
    ///     .build();
    /// assert!(!strategy.rate_limiter().is_enabled());
    /// ```
    pub const fn steady(self) -> Self {
        self.cut_once_per_event(true)
            .cubic_shape(CubicShape::GENTLE)
    }

    /// Wait for a send token ([`WaitPolicy::Block`]) or refuse the attempt
    /// ([`WaitPolicy::FailFast`]).
    pub const fn wait_policy(mut self, policy: WaitPolicy) -> Self {
        self.wait_policy = policy;
        self
    }

    /// **Opt-in, not botocore's algorithm.** At most one CUBIC decrease per
    /// congestion event: a throttle of an attempt that was sent before the
    /// limiter's last decrease, or less than half a second after it, does
    /// not cut the rate again (it counts as a plain response). The retry
    /// itself is unchanged: the attempt is still a throttle for the retry
    /// quota and the backoff.
    ///
    /// Why: when a service runs out of capacity, every attempt already in
    /// flight comes back throttled, and the reference cuts the rate to 70%
    /// for each — with 20 attempts in flight, up to six cuts for one event,
    /// and CUBIC then climbs back only to the last, lowest rate. TCP's CUBIC
    /// reduces once per round trip for the same reason. The half second
    /// (one bucket of the send-rate meter) covers attempts sent just after
    /// the cut, which still meet a service the overshoot drained. In the
    /// simulator (`rebound-sim capacity`, R = 1000 attempts/s, one client)
    /// botocore's algorithm holds 34–55% of R; with this setting 95.5%, and
    /// 98.8% with [`CubicShape::GENTLE`] as well (see
    /// [`cubic_shape`](Self::cubic_shape)). The first throttle always
    /// counts, and sends are stamped with the limiter's own time.
    ///
    /// ```
    /// use rebound_runtime::{AdaptiveRetryStrategy, StandardRetryStrategy};
    ///
    /// let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
    ///     .cut_once_per_event(true)
    ///     .build();
    /// # let _ = strategy;
    /// ```
    pub const fn cut_once_per_event(mut self, once: bool) -> Self {
        self.cut_once_per_event = once;
        self
    }

    /// **Opt-in when not [`CubicShape::BOTOCORE`].** How deep a throttle
    /// cuts the send rate and how fast it climbs back (see [`CubicShape`]
    /// for why another shape helps many clients sharing one capacity).
    ///
    /// ```
    /// use rebound_runtime::rate_limiter::CubicShape;
    /// use rebound_runtime::{AdaptiveRetryStrategy, StandardRetryStrategy};
    ///
    /// let shape = CubicShape::BOTOCORE.with_recovery_period(8.0)?;
    /// let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
    ///     .cubic_shape(shape)
    ///     .build();
    /// # let _ = strategy;
    /// # Ok::<(), rebound_runtime::rate_limiter::CubicShapeError>(())
    /// ```
    pub const fn cubic_shape(mut self, shape: CubicShape) -> Self {
        self.cubic_shape = shape;
        self
    }

    /// The time source of the rate limiter (a [`ManualClock`](crate::time::ManualClock)
    /// for tests and simulations). The default [`FastClock`] is made only
    /// by [`build`](Self::build), so a builder given another clock never
    /// makes one.
    pub fn clock<C2: Clock>(self, clock: C2) -> AdaptiveRetryStrategyBuilder<C2> {
        AdaptiveRetryStrategyBuilder {
            standard: self.standard,
            wait_policy: self.wait_policy,
            cut_once_per_event: self.cut_once_per_event,
            cubic_shape: self.cubic_shape,
            clock: ClockChoice::Given(clock),
        }
    }

    /// The strategy, with a new rate limiter starting now.
    pub fn build(self) -> AdaptiveRetryStrategy<C> {
        let clock = match self.clock {
            ClockChoice::Default(make) => make(),
            ClockChoice::Given(clock) => clock,
        };
        let epoch = clock.now();
        let limiter = ClientRateLimiter::new(0.0)
            .with_wait_policy(self.wait_policy)
            .with_cubic_shape(self.cubic_shape);
        AdaptiveRetryStrategy {
            standard: self.standard,
            limiter: Arc::new(limiter),
            cut_once_per_event: self.cut_once_per_event,
            cubic_shape: self.cubic_shape,
            clock,
            epoch,
        }
    }
}

impl<C: Clock> AdaptiveRetryStrategy<C> {
    /// The standard strategy underneath.
    #[must_use]
    pub const fn standard(&self) -> &StandardRetryStrategy {
        &self.standard
    }

    /// The client-side rate limiter this strategy feeds and obeys.
    #[must_use]
    pub const fn rate_limiter(&self) -> &Arc<ClientRateLimiter> {
        &self.limiter
    }

    /// Attempts per request, the first included.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        self.standard.max_attempts()
    }

    /// One strategy per key (a throttling scope: a table, an API, a
    /// region), created on first use: this one's settings, clock and acquire
    /// mode, with its own full retry quota (of this one's capacity) and its
    /// own rate limiter. Quota and limiter live together in one map, so a
    /// request finds both with one lookup.
    ///
    /// AWS throttles per resource: a client sharing one limiter across tables
    /// would slow every table down after one of them throttles (the AWS SDK
    /// docs' warning about adaptive mode). Look the key up once per request
    /// (or cache the strategy per resource), not per attempt: it takes a lock.
    ///
    /// The map keeps at most [`Partitions::DEFAULT_MAX_PARTITIONS`] keys
    /// (about 7.2 KB each; [`Partitions::with_max_partitions`] to change it):
    /// a key evicted to make room starts afresh, limiter off, when it comes
    /// back.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy};
    ///
    /// let tables = AdaptiveRetryStrategy::new().partitions::<String>();
    ///
    /// let orders = tables.get("orders");
    /// let token = orders.acquire_initial_token()?;
    /// let throttled = HttpErrorResponse::new(400).with_code("ProvisionedThroughputExceededException");
    /// let _retry = orders.refresh_retry_token(token, &throttled)?;
    ///
    /// // Only the "orders" limiter is on; "users" sends at full speed.
    /// assert!(tables.get("orders").rate_limiter().is_enabled());
    /// assert!(!tables.get("users").rate_limiter().is_enabled());
    /// # Ok::<(), rebound_runtime::TokenAcquisitionFailed>(())
    /// ```
    pub fn partitions<K: Eq + Hash>(&self) -> Partitions<K, Self>
    where
        C: Clone + Send + Sync + 'static,
    {
        let base = self.clone();
        Partitions::new(move |_: &K| base.new_partition())
    }

    /// A strategy with these settings and a fresh quota and rate limiter.
    fn new_partition(&self) -> Self
    where
        C: Clone,
    {
        let limiter = ClientRateLimiter::new(self.now())
            .with_wait_policy(self.limiter.wait_policy())
            .with_cubic_shape(self.cubic_shape);
        Self {
            standard: self.standard.with_fresh_quota(),
            limiter: Arc::new(limiter),
            cut_once_per_event: self.cut_once_per_event,
            cubic_shape: self.cubic_shape,
            clock: self.clock.clone(),
            epoch: self.epoch,
        }
    }

    /// Takes a send token now if one is available, without waiting and
    /// whatever the [`WaitPolicy`]: for callers that drive the limiter
    /// themselves instead of through an executor.
    /// [`SendPermit::Wait`] says how long until a token would be available.
    pub fn try_acquire_send(&self) -> SendPermit {
        match self.limiter.try_acquire(self.now()) {
            Ok(()) => SendPermit::Granted,
            Err(limited) => SendPermit::Wait(limited.wait()),
        }
    }

    /// The rest of [`acquire_send_permit`](RetryStrategy::acquire_send_permit)
    /// once a token was not there for the taking: read the clock and ask at
    /// the current time (in line, or failing fast). It takes the token's
    /// fields by value and hands back what changed.
    #[inline(never)]
    fn acquire_send_permit_now(&self, retries: u32, mut ticket: Option<u64>) -> PermitNow {
        let now = self.now();
        let permit = if self.limiter.wait_policy() == WaitPolicy::FailFast {
            // This caller will not wait, so it takes no place in line (and
            // never jumps it): granted only if a token is left over for
            // everyone waiting; else refused with the true wait.
            self.limiter
                .try_acquire(now)
                .map(|()| SendPermit::Granted)
                .map_err(|limited| TokenAcquisitionFailed::RateLimited {
                    attempts: retries,
                    wait: whole_nanos_above(limited.wait_secs()),
                })
        } else {
            Ok(self
                .limiter
                .try_acquire_in_turn(now, &mut ticket)
                .map_or_else(
                    |limited| SendPermit::Wait(whole_nanos_above(limited.wait_secs())),
                    |()| SendPermit::Granted,
                ))
        };
        PermitNow {
            sent_at: matches!(permit, Ok(SendPermit::Granted)).then_some(now),
            permit,
            ticket,
        }
    }

    /// [`record_success`](RetryStrategy::record_success) of a token of
    /// ours, from its place in the send line (if it holds one) and its
    /// last retry's cost: the standard strategy's success, by its parts.
    ///
    /// Most successes hold no place in line and are written in the
    /// thread's own lane of the limiter's log; every other case goes to
    /// [`succeeded_in_full`](Self::succeeded_in_full).
    #[inline]
    fn succeeded(&self, send_ticket: Option<u64>, quota_cost: Option<u32>) {
        let now = self.now();
        if send_ticket.is_none() && self.limiter.try_log_success(now) {
            self.standard.refund(quota_cost);
        } else {
            self.succeeded_in_full(send_ticket, quota_cost, now);
        }
    }

    /// [`succeeded`](Self::succeeded) when the success cannot just be
    /// logged: a token still in the send line leaves it, and the success
    /// is recorded the full way (a lane taken, a shard borrowed, or the
    /// lock).
    #[cold]
    #[inline(never)]
    fn succeeded_in_full(&self, mut send_ticket: Option<u64>, quota_cost: Option<u32>, now: f64) {
        self.limiter.leave_line(&mut send_ticket);
        self.limiter.on_response(now, false);
        self.standard.refund(quota_cost);
    }

    /// The limiter's time: seconds since the strategy was built.
    #[inline]
    fn now(&self) -> f64 {
        self.clock.secs_since(self.epoch)
    }
}

impl<C: Clock + fmt::Debug + Send + Sync> RetryStrategy for AdaptiveRetryStrategy<C> {
    #[inline]
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.standard.acquire_initial_token()
    }

    fn refresh_retry_token(
        &self,
        mut token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        // Another strategy's token holds no place in this limiter's line.
        self.standard.issuer().check(&token)?;
        // An attempt reported while still in the send line was sent without
        // its permit: it waits no more.
        self.limiter.leave_line(token.send_ticket_mut());
        let verdict = self.standard.classifier().verdict(failure);
        // Every response counts towards the measured rate, before the first
        // throttle too (it is the rate CUBIC starts from).
        // Without the opt-in, the attempt counts as sent after every cut, so
        // every throttle cuts (botocore's rule).
        let sent_at = if self.cut_once_per_event {
            token.sent_at()
        } else {
            f64::INFINITY
        };
        self.limiter
            .on_response_once_per_event(self.now(), verdict.throttling, sent_at);
        self.standard.refresh_classified(token, failure, verdict)
    }

    // Inlined, as `acquire_send_permit` is: the token's fields are read
    // where it was built, and the rest takes them by value.
    #[inline]
    fn record_success(&self, mut token: RetryToken) {
        if self.standard.issuer().issued(&token) {
            self.succeeded(token.send_ticket_mut().take(), token.quota_cost());
        }
        // Not ours: no place in line, no response of ours, no refund.
    }

    #[inline]
    fn acquire_send_permit(
        &self,
        token: &mut RetryToken,
    ) -> Result<SendPermit, TokenAcquisitionFailed> {
        self.standard.issuer().check(token)?;
        if token.send_ticket_mut().is_none()
            && let Some(at) = self.limiter.try_acquire_without_clock()
        {
            // Before the first throttle sends are free; after it, a token
            // that was already there at the limiter's latest time is taken
            // without reading the clock (the response's is the attempt's
            // one clock read).
            token.set_sent_at(at);
            return Ok(SendPermit::Granted);
        }
        let slow = self.acquire_send_permit_now(token.retries(), *token.send_ticket_mut());
        *token.send_ticket_mut() = slow.ticket;
        if let Some(at) = slow.sent_at {
            token.set_sent_at(at);
        }
        slow.permit
    }

    /// The standard strategy's: its classifier's verdict.
    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        self.standard.retry_kind(failure)
    }

    /// [`max_attempts`](Self::max_attempts).
    fn attempt_limit(&self) -> Option<u32> {
        Some(self.max_attempts())
    }

    /// The standard strategy's quota.
    fn quota_left(&self) -> Option<u32> {
        self.standard.quota_left()
    }

    /// The rate limiter's [send rate](ClientRateLimiter::send_rate): `None`
    /// until the first throttle turns it on. Takes the limiter's lock once on.
    fn send_rate(&self) -> Option<f64> {
        self.limiter.send_rate()
    }

    /// Takes the token's place in the send line, if it holds one, so the
    /// callers behind it move up at once.
    fn abandon(&self, mut token: RetryToken) {
        if self.standard.issuer().issued(&token) {
            self.limiter.leave_line(token.send_ticket_mut());
        }
    }
}

/// What [`AdaptiveRetryStrategy::acquire_send_permit_now`] decided, and the
/// token's fields it changed.
struct PermitNow {
    permit: Result<SendPermit, TokenAcquisitionFailed>,
    /// The token's place in the send line afterwards.
    ticket: Option<u64>,
    /// When granted: the time the send was granted at.
    sent_at: Option<f64>,
}

/// `secs` as a `Duration` rounded *up* to whole nanoseconds (at least one):
/// after sleeping it, the token the limiter asked to wait for has been earned.
/// Rounding down would leave a sliver of a token missing and a caller asking
/// again and again for a wait too short to sleep.
fn whole_nanos_above(secs: f64) -> Duration {
    let nanos = (secs * 1e9).ceil();
    if nanos >= u64::MAX as f64 {
        Duration::MAX
    } else if nanos >= 1.0 {
        Duration::from_nanos(nanos as u64)
    } else {
        Duration::from_nanos(1)
    }
}

/// A fleet coordinator's view of this strategy's rate limiter, on the
/// strategy's clock.
impl<C: Clock + Send + Sync> RateControl for AdaptiveRetryStrategy<C> {
    fn reading(&self) -> RateReading {
        let state = self.limiter.snapshot();
        RateReading {
            measured_rate: state.measured_rate,
            throttles: state.throttles,
            successes: state.successes,
            send_rate: state.enabled.then_some(state.fill_rate),
            ceiling: state.ceiling.is_finite().then_some(state.ceiling),
        }
    }

    fn set_ceiling(&self, ceiling: Option<f64>) {
        self.limiter.set_ceiling(self.now(), ceiling);
    }

    fn hold(&self, rate: Option<f64>) {
        self.limiter.hold(self.now(), rate);
    }
}

impl Default for AdaptiveRetryStrategy {
    /// [`AdaptiveRetryStrategy::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl<C: fmt::Debug> fmt::Debug for AdaptiveRetryStrategy<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdaptiveRetryStrategy")
            .field("standard", &self.standard)
            .field("limiter", &self.limiter)
            .field("cut_once_per_event", &self.cut_once_per_event)
            .field("cubic_shape", &self.cubic_shape)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::HttpErrorResponse;
    use crate::time::ManualClock;

    /// Defaults with a fixed jitter draw, on a manual clock.
    fn on_a_manual_clock(
        cut_once_per_event: bool,
    ) -> (AdaptiveRetryStrategy<ManualClock>, ManualClock) {
        let clock = ManualClock::new();
        let standard = StandardRetryStrategy::builder().random(|| 0.5).build();
        let strategy = AdaptiveRetryStrategy::builder(standard)
            .clock(clock.clone())
            .cut_once_per_event(cut_once_per_event)
            .build();
        (strategy, clock)
    }

    fn throttle() -> HttpErrorResponse {
        HttpErrorResponse::new(400).with_code("ThrottlingException")
    }

    /// A blocking caller told to wait whose attempt is then reported anyway
    /// (sent without its permit, or given up on and reported) leaves the send
    /// line at once, and so does every caller that is served.
    #[test]
    fn reported_or_served_callers_leave_the_send_line() {
        let (strategy, clock) = on_a_manual_clock(false);
        let throttled = throttle();
        let token = strategy.acquire_initial_token().expect("initial");
        clock.advance(Duration::from_millis(1));
        let mut first = strategy
            .refresh_retry_token(token, &throttled)
            .expect("retry");
        let mut second = strategy.acquire_initial_token().expect("initial");
        let mut third = strategy.acquire_initial_token().expect("initial");
        for token in [&mut first, &mut second, &mut third] {
            let permit = strategy.acquire_send_permit(token).expect("blocking");
            assert!(matches!(permit, SendPermit::Wait(_)), "{permit:?}");
        }
        assert_eq!(strategy.limiter.waiting(), 3);
        let responses = strategy.limiter.snapshot().request_count;
        strategy.record_success(first);
        assert_eq!(strategy.limiter.waiting(), 2);
        assert_eq!(
            strategy.limiter.snapshot().request_count,
            responses + 1,
            "a success reported from the line still counts as a response"
        );
        let _ = strategy.refresh_retry_token(second, &throttled);
        assert_eq!(strategy.limiter.waiting(), 1);
        // The last one keeps asking until it is served, then leaves.
        loop {
            match strategy.acquire_send_permit(&mut third).expect("blocking") {
                SendPermit::Granted => break,
                SendPermit::Wait(wait) => clock.advance(wait),
            }
        }
        assert_eq!(strategy.limiter.waiting(), 0);
    }

    /// With `cut_once_per_event`, throttles of attempts sent before the
    /// last cut do not cut again; without it (botocore's rule) each does.
    #[test]
    fn one_cut_per_congestion_event_is_opt_in() {
        let throttled = throttle();
        let mut w_max = Vec::new();
        for once in [false, true] {
            let (strategy, clock) = on_a_manual_clock(once);
            let send = || {
                let mut token = strategy.acquire_initial_token().expect("initial");
                match strategy.acquire_send_permit(&mut token).expect("permit") {
                    SendPermit::Granted => token,
                    SendPermit::Wait(wait) => panic!("waited {wait:?}"),
                }
            };
            // 100 successes in 1.5 s give the limiter a measured rate.
            for _ in 0..100 {
                clock.advance(Duration::from_millis(15));
                strategy.record_success(send());
            }
            // Ten attempts in flight when the service runs dry: all throttled.
            let in_flight: Vec<_> = (0..10).map(|_| send()).collect();
            clock.advance(Duration::from_millis(20));
            let first_cut = {
                let mut tokens = in_flight.into_iter();
                let _ = strategy.refresh_retry_token(tokens.next().expect("ten"), &throttled);
                let after_first = strategy.rate_limiter().snapshot().w_max;
                for token in tokens {
                    let _ = strategy.refresh_retry_token(token, &throttled);
                }
                after_first
            };
            assert!(first_cut > 10.0, "{first_cut}");
            let after_all = strategy.rate_limiter().snapshot().w_max;
            if once {
                assert_eq!(after_all, first_cut, "one cut for one event");
                // An attempt sent after the cut and throttled is a new event.
                clock.advance(Duration::from_secs(2));
                let mut late = strategy.acquire_initial_token().expect("initial");
                while let SendPermit::Wait(wait) =
                    strategy.acquire_send_permit(&mut late).expect("permit")
                {
                    clock.advance(wait);
                }
                clock.advance(Duration::from_millis(20));
                let _ = strategy.refresh_retry_token(late, &throttled);
                assert!(strategy.rate_limiter().snapshot().w_max < first_cut);
            } else {
                assert!(
                    after_all < 0.1 * first_cut,
                    "a cut per throttle: {after_all}"
                );
            }
            w_max.push(after_all);
        }
        assert!(w_max[1] > w_max[0]);
    }

    /// `builder`'s strategy after [`measure_then_throttle`].
    fn throttled_after_a_measured_rate(
        builder: AdaptiveRetryStrategyBuilder<ManualClock>,
        clock: &ManualClock,
    ) -> AdaptiveRetryStrategy<ManualClock> {
        let strategy = builder.build();
        measure_then_throttle(&strategy, clock);
        strategy
    }

    /// Gives `strategy` a measured rate of about 67/s (100 successes in
    /// 1.5 s), then one throttle: its limiter is on. The state after it.
    fn measure_then_throttle(
        strategy: &AdaptiveRetryStrategy<ManualClock>,
        clock: &ManualClock,
    ) -> crate::internals::RateLimiterSnapshot {
        for _ in 0..100 {
            clock.advance(Duration::from_millis(15));
            let token = strategy.acquire_initial_token().expect("initial");
            strategy.record_success(token);
        }
        let token = strategy.acquire_initial_token().expect("initial");
        let _ = strategy.refresh_retry_token(token, &throttle());
        assert!(strategy.rate_limiter().is_enabled());
        strategy.rate_limiter().snapshot()
    }

    /// `steady()` sets the two opt-ins, a gentle cut (85%, not 70%) and one
    /// cut per event; a partition keeps them.
    #[test]
    fn steady_sets_the_recommended_opt_ins_and_partitions_keep_them() {
        let clock = ManualClock::new();
        let standard = StandardRetryStrategy::builder().random(|| 0.5).build();
        let builder = AdaptiveRetryStrategy::builder(standard)
            .clock(clock.clone())
            .steady();
        let strategy = throttled_after_a_measured_rate(builder, &clock);
        assert!(strategy.cut_once_per_event);
        let cut = strategy.rate_limiter().snapshot();
        assert!(
            (cut.fill_rate - 0.85 * cut.w_max).abs() < 1e-9,
            "{} of {}",
            cut.fill_rate,
            cut.w_max
        );
        let partition = strategy.partitions::<u8>().get(&1);
        assert!(partition.cut_once_per_event);
        let partition = measure_then_throttle(&partition, &clock);
        assert!((partition.fill_rate - 0.85 * partition.w_max).abs() < 1e-9);
        // botocore's default cuts to 70%.
        let clock = ManualClock::new();
        let botocore =
            AdaptiveRetryStrategy::builder(StandardRetryStrategy::new()).clock(clock.clone());
        let cut = throttled_after_a_measured_rate(botocore, &clock)
            .rate_limiter()
            .snapshot();
        assert!((cut.fill_rate - 0.7 * cut.w_max).abs() < 1e-9);
    }

    /// A caller that gives up while waiting for a send token (its time
    /// budget ran out) leaves the line at once, through the executor.
    #[test]
    fn a_request_out_of_budget_leaves_the_send_line() {
        let (strategy, clock) = on_a_manual_clock(false);
        let throttled = throttle();
        let token = strategy.acquire_initial_token().expect("initial");
        clock.advance(Duration::from_millis(1));
        let _ = strategy.refresh_retry_token(token, &throttled);
        // Someone already waits, so this request stands in line behind it.
        let mut first = strategy.acquire_initial_token().expect("initial");
        let permit = strategy.acquire_send_permit(&mut first).expect("blocking");
        assert!(matches!(permit, SendPermit::Wait(_)), "{permit:?}");
        let sleeper_clock = clock.clone();
        let result: Result<(), _> = crate::executor::Retry::new(&strategy)
            .clock(clock.clone())
            .sleeper(move |wait| sleeper_clock.advance(wait))
            .budget(Duration::from_millis(600))
            .run(|_| -> Result<(), HttpErrorResponse> { unreachable!("never sent") });
        assert!(result.is_err());
        assert_eq!(strategy.limiter.waiting(), 1, "only the first caller");
        strategy.abandon(first);
        assert_eq!(strategy.limiter.waiting(), 0);
    }
}
