//! [`RetrySafety`]: may this failure be retried at all?

/// Whether it is safe to retry a failed attempt (Smithy's `RetryInfo.isRetrySafe`).
///
/// `Yes` permits a retry; it does not force one: the retry strategy still
/// decides, based on attempts left, the retry quota and the rate limiter.
///
/// # Examples
///
/// ```
/// use rebound_runtime::RetrySafety;
///
/// assert!(RetrySafety::Yes.is_retryable());
/// assert!(!RetrySafety::No.is_retryable());
/// // `Maybe` is not a green light on its own: a strategy looks at the fault,
/// // the status or the error code before retrying it.
/// assert!(!RetrySafety::Maybe.is_retryable());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RetrySafety {
    /// Retrying is safe (a `@retryable` error, a transient transport failure).
    Yes,
    /// Retrying is unsafe or pointless (invalid input, missing permissions).
    No,
    /// Not enough is known to decide; the strategy falls back on other signals.
    Maybe,
}

impl RetrySafety {
    /// `true` only for [`RetrySafety::Yes`].
    #[must_use]
    pub const fn is_retryable(self) -> bool {
        matches!(self, Self::Yes)
    }
}
