//! [`RetryToken`]: one request's state between attempts, and
//! [`TokenIssuer`]: the only way to make one.
//!
//! A token is the strategy's receipt for a request: how many attempts were
//! made, what the last retry took from the retry quota. If anyone could make
//! one, anyone could take a refund for a retry that was never paid for, or
//! reset a request's attempt count. So tokens are made only by an issuer,
//! and every token remembers which issuer made it: a strategy refuses a
//! token it did not issue
//! ([`TokenAcquisitionFailed::ForeignToken`]), as the Smithy client guide's
//! strategies throw `IllegalArgumentException`.
//!
//! The issuer's identity is a number drawn from a process-wide counter when
//! it is created. The counter is the only shared state: no strategy's
//! behaviour depends on another's.

use core::num::NonZeroU64;
use core::time::Duration;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::refusal::TokenAcquisitionFailed;

/// The state of one request between its attempts: which attempt comes next,
/// how long to wait before it, and what the last retry took from the quota.
///
/// Only a strategy makes tokens (through its [`TokenIssuer`]), and it refuses
/// tokens another strategy made. Deliberately neither `Clone` nor `Copy`: a
/// strategy consumes the token it is given, so a spent token cannot be
/// refreshed or refunded twice.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{RetryStrategy, StandardRetryStrategy};
///
/// let strategy = StandardRetryStrategy::new();
/// let first = strategy.acquire_initial_token()?;
/// assert_eq!((first.attempt(), first.delay(), first.quota_cost()), (1, Duration::ZERO, None));
///
/// let second = strategy.refresh_retry_token(first, &HttpErrorResponse::new(503))?;
/// assert_eq!((second.attempt(), second.retries()), (2, 1));
/// assert_eq!(second.quota_cost(), Some(5)); // a retry costs 5 from the quota
/// # strategy.record_success(second);
/// # Ok::<(), rebound_runtime::TokenAcquisitionFailed>(())
/// ```
///
/// Handing a spent token back again does not compile:
///
/// ```compile_fail,E0382
/// use rebound_runtime::{RetryStrategy, StandardRetryStrategy};
///
/// let strategy = StandardRetryStrategy::new();
/// let token = strategy.acquire_initial_token().unwrap();
/// strategy.record_success(token);
/// strategy.record_success(token); // use of moved value: the refund cannot be taken twice
/// ```
///
/// Nor does making one outside a strategy:
///
/// ```compile_fail,E0599
/// let token = rebound_runtime::RetryToken::initial();
/// ```
#[derive(Debug, PartialEq, Eq)]
#[must_use = "a token must be handed back to the strategy (refresh or record_success)"]
pub struct RetryToken {
    attempt: u32,
    delay: Duration,
    quota_cost: Option<u32>,
    /// The attempt's place in a rate limiter's line while it waits for a
    /// send token (see [`RetryStrategy::acquire_send_permit`](crate::RetryStrategy::acquire_send_permit)).
    send_ticket: Option<u64>,
    /// When the attempt was granted its send (`f64` bits, seconds on the rate
    /// limiter's clock); minus infinity until then, and for a send granted
    /// while the limiter was off. Read only by the opt-in "one cut per
    /// congestion event" of adaptive mode.
    sent_at: u64,
    /// The [`TokenIssuer`] that made it; 0 for a strategy that keeps no
    /// account ([`NeverRetryStrategy`](crate::NeverRetryStrategy)).
    issuer: u64,
}

impl RetryToken {
    /// The first attempt's token: no delay, nothing taken from a quota.
    const fn initial(issuer: u64) -> Self {
        Self {
            attempt: 1,
            delay: Duration::ZERO,
            quota_cost: None,
            send_ticket: None,
            sent_at: NOT_SENT,
            issuer,
        }
    }

    /// A first-attempt token of no issuer, for strategies that keep no
    /// account of their tokens and so accept any.
    pub(crate) const fn unaccounted() -> Self {
        Self::initial(0)
    }

    /// The token for the attempt after this one, from the same issuer: wait
    /// `delay` first. `quota_cost` is what this retry took from the retry
    /// quota, `None` to keep the cost of the previous retry (the quota
    /// refunds the last acquisition when the request finally succeeds).
    pub(crate) const fn next(self, delay: Duration, quota_cost: Option<u32>) -> Self {
        Self {
            attempt: self.attempt.saturating_add(1),
            delay,
            quota_cost: match quota_cost {
                Some(cost) => Some(cost),
                None => self.quota_cost,
            },
            send_ticket: None,
            sent_at: NOT_SENT,
            issuer: self.issuer,
        }
    }

    /// When the attempt was granted its send (seconds on the rate limiter's
    /// clock), or minus infinity: see [`set_sent_at`](Self::set_sent_at).
    pub(crate) const fn sent_at(&self) -> f64 {
        f64::from_bits(self.sent_at)
    }

    /// Records when the attempt was granted its send.
    pub(crate) const fn set_sent_at(&mut self, at: f64) {
        self.sent_at = at.to_bits();
    }

    /// The attempt's place in a rate limiter's line, kept between the asks
    /// of [`RetryStrategy::acquire_send_permit`](crate::RetryStrategy::acquire_send_permit).
    pub(crate) const fn send_ticket_mut(&mut self) -> &mut Option<u64> {
        &mut self.send_ticket
    }

    /// The 1-based number of the attempt this token is for.
    #[must_use]
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// How many retries preceded this attempt (`attempt() - 1`).
    #[must_use]
    pub const fn retries(&self) -> u32 {
        self.attempt - 1
    }

    /// How long to wait before making this attempt.
    #[must_use]
    pub const fn delay(&self) -> Duration {
        self.delay
    }

    /// What the last retry of this request took from the retry quota, if any
    /// retry did.
    #[must_use]
    pub const fn quota_cost(&self) -> Option<u32> {
        self.quota_cost
    }
}

/// Makes a strategy's [`RetryToken`]s and recognises them: what a
/// [`RetryStrategy`](crate::RetryStrategy) implemented outside this crate
/// uses to hand out tokens.
///
/// Each issuer has an identity of its own, and every token it makes carries
/// it. A strategy holds one issuer, makes its tokens with it, and
/// [`check`](Self::check)s each token handed back, so that a token from
/// another strategy (another partition's, say) is refused instead of
/// refunding the wrong quota. A clone is the same issuer: clone it along with
/// the state the tokens account for (a strategy whose clones share one
/// quota), and make a [`new`](Self::new) one for new state.
///
/// # Examples
///
/// A strategy that allows three attempts, without delay:
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::{FailureInfo, RetryStrategy, RetryToken, TokenAcquisitionFailed, TokenIssuer};
///
/// #[derive(Debug, Default)]
/// struct ThreeTimes {
///     issuer: TokenIssuer,
/// }
///
/// impl RetryStrategy for ThreeTimes {
///     fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
///         Ok(self.issuer.initial_token())
///     }
///     fn refresh_retry_token(
///         &self,
///         token: RetryToken,
///         failure: &dyn FailureInfo,
///     ) -> Result<RetryToken, TokenAcquisitionFailed> {
///         self.issuer.check(&token)?;
///         let attempts = token.attempt();
///         if !failure.retry_safety().is_retryable() {
///             return Err(TokenAcquisitionFailed::NotRetryable { attempts });
///         }
///         if attempts >= 3 {
///             return Err(TokenAcquisitionFailed::AttemptsExhausted { attempts, max_attempts: 3 });
///         }
///         self.issuer.next_token(token, Duration::ZERO, None)
///     }
///     fn record_success(&self, _token: RetryToken) {}
/// }
///
/// let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// let (ours, theirs) = (ThreeTimes::default(), ThreeTimes::default());
/// let token = ours.acquire_initial_token()?;
/// let token = ours.refresh_retry_token(token, &reset)?;
/// assert_eq!(token.attempt(), 2);
/// // Another strategy's token is refused.
/// assert_eq!(
///     theirs.refresh_retry_token(token, &reset),
///     Err(TokenAcquisitionFailed::ForeignToken { attempts: 2 })
/// );
/// # Ok::<(), TokenAcquisitionFailed>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TokenIssuer {
    id: NonZeroU64,
}

/// The next issuer identity; 0 is never issued (it marks unaccounted tokens).
static NEXT_ISSUER: AtomicU64 = AtomicU64::new(1);

impl TokenIssuer {
    /// An issuer with an identity no other issuer in this process has.
    #[must_use]
    pub fn new() -> Self {
        // Relaxed: only uniqueness matters, which the atomic add gives.
        let id = NEXT_ISSUER.fetch_add(1, Ordering::Relaxed);
        // 2^64 issuers cannot be created in practice; were the counter to
        // wrap, the last identity is reused rather than 0.
        Self {
            id: NonZeroU64::new(id).unwrap_or(NonZeroU64::MAX),
        }
    }

    /// The token for a request's first attempt: no delay, nothing taken
    /// from a quota.
    pub const fn initial_token(&self) -> RetryToken {
        RetryToken::initial(self.id.get())
    }

    /// Whether this issuer made `token`.
    #[must_use]
    pub const fn issued(&self, token: &RetryToken) -> bool {
        token.issuer == self.id.get()
    }

    /// Refuses a token this issuer did not make.
    ///
    /// # Errors
    ///
    /// [`TokenAcquisitionFailed::ForeignToken`] if another issuer made
    /// `token`.
    pub const fn check(&self, token: &RetryToken) -> Result<(), TokenAcquisitionFailed> {
        if self.issued(token) {
            Ok(())
        } else {
            Err(TokenAcquisitionFailed::ForeignToken {
                attempts: token.attempt,
            })
        }
    }

    /// The token for the attempt after `token`'s: wait `delay` first.
    /// `quota_cost` is what this retry took from the strategy's quota, `None`
    /// to keep the previous retry's cost (what a success refunds).
    ///
    /// # Errors
    ///
    /// [`TokenAcquisitionFailed::ForeignToken`] if another issuer made
    /// `token`.
    pub const fn next_token(
        &self,
        token: RetryToken,
        delay: Duration,
        quota_cost: Option<u32>,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        match self.check(&token) {
            Ok(()) => Ok(token.next(delay, quota_cost)),
            Err(foreign) => Err(foreign),
        }
    }
}

impl Default for TokenIssuer {
    /// [`TokenIssuer::new`].
    fn default() -> Self {
        Self::new()
    }
}

/// `sent_at` of a token whose attempt has not been granted a send (minus
/// infinity: before any time the limiter can see).
const NOT_SENT: u64 = 0xFFF0_0000_0000_0000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_sent_is_minus_infinity() {
        assert_eq!(f64::from_bits(NOT_SENT), f64::NEG_INFINITY);
    }

    #[test]
    fn issuers_recognise_only_their_own_tokens() {
        let (a, b) = (TokenIssuer::new(), TokenIssuer::new());
        assert_ne!(a, b);
        let token = a.initial_token();
        assert!(a.issued(&token) && !b.issued(&token));
        assert_eq!(a.clone().check(&token), Ok(()));
        let next = a.next_token(token, Duration::from_millis(5), Some(5));
        let next = next.expect("a's own token");
        assert_eq!((next.attempt(), next.quota_cost()), (2, Some(5)));
        let next = a.next_token(next, Duration::ZERO, None).expect("again");
        assert_eq!((next.attempt(), next.quota_cost()), (3, Some(5)));
        assert_eq!(
            b.next_token(next, Duration::ZERO, None),
            Err(TokenAcquisitionFailed::ForeignToken { attempts: 3 })
        );
        assert!(!a.issued(&RetryToken::unaccounted()));
    }
}
