//! [`PollStatus`]: what one poll of an asynchronous operation found.

/// What one poll found: the answer a waiter's poll closure gives.
///
/// The four statuses of the AWS polling loop (AWS general reference, "Error
/// retries and exponential backoff"):
///
/// | status | the waiter |
/// |---|---|
/// | [`Ready`](Self::Ready) | returns `Ok` with the value |
/// | [`NotReady`](Self::NotReady) | sleeps the next delay, then polls again |
/// | [`Throttled`](Self::Throttled) | the same as `NotReady`: the delay grows as usual |
/// | [`Failed`](Self::Failed) | stops at once with [`WaitError::Failed`](super::WaitError::Failed) |
///
/// # Examples
///
/// Turning a status request's answer into a status:
///
/// ```
/// use rebound_runtime::waiter::PollStatus;
///
/// /// The pretend service's answer to "is my job done?".
/// fn status(answer: Result<&str, u16>) -> PollStatus<&str, u16> {
///     match answer {
///         Ok("DONE") => PollStatus::Ready("DONE"),
///         Ok(_) => PollStatus::NotReady,
///         Err(429) => PollStatus::Throttled,
///         Err(status) => PollStatus::Failed(status),
///     }
/// }
///
/// assert_eq!(status(Ok("DONE")), PollStatus::Ready("DONE"));
/// assert_eq!(status(Ok("RUNNING")), PollStatus::NotReady);
/// assert!(status(Err(429)).is_pending());
/// assert_eq!(status(Err(500)), PollStatus::Failed(500));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "a poll status says whether to stop waiting"]
pub enum PollStatus<T, E> {
    /// The operation completed: stop waiting, with this value.
    Ready(T),
    /// The operation is still in progress: poll again after the next delay.
    NotReady,
    /// The status request was throttled: poll again after the next delay,
    /// which grows exactly as after [`NotReady`](Self::NotReady).
    Throttled,
    /// The operation (or the status request) failed for good: stop waiting,
    /// with this error.
    Failed(E),
}

impl<T, E> PollStatus<T, E> {
    /// Whether the waiter polls again after this status
    /// ([`NotReady`](Self::NotReady) or [`Throttled`](Self::Throttled)).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::PollStatus;
    ///
    /// assert!(PollStatus::<(), ()>::NotReady.is_pending());
    /// assert!(PollStatus::<(), ()>::Throttled.is_pending());
    /// assert!(!PollStatus::<_, ()>::Ready(1).is_pending());
    /// assert!(!PollStatus::<(), _>::Failed("gone").is_pending());
    /// ```
    #[must_use]
    pub const fn is_pending(&self) -> bool {
        matches!(self, Self::NotReady | Self::Throttled)
    }

    /// The status with the ready value mapped by `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::PollStatus;
    ///
    /// let status: PollStatus<&str, ()> = PollStatus::Ready("42");
    /// assert_eq!(status.map(|s| s.len()), PollStatus::Ready(2));
    /// ```
    pub fn map<U, F: FnOnce(T) -> U>(self, f: F) -> PollStatus<U, E> {
        match self {
            Self::Ready(value) => PollStatus::Ready(f(value)),
            Self::NotReady => PollStatus::NotReady,
            Self::Throttled => PollStatus::Throttled,
            Self::Failed(error) => PollStatus::Failed(error),
        }
    }

    /// The status with the error mapped by `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::PollStatus;
    ///
    /// let status: PollStatus<(), u16> = PollStatus::Failed(404);
    /// assert_eq!(status.map_err(|code| format!("HTTP {code}")), PollStatus::Failed("HTTP 404".to_owned()));
    /// ```
    pub fn map_err<E2, F: FnOnce(E) -> E2>(self, f: F) -> PollStatus<T, E2> {
        match self {
            Self::Ready(value) => PollStatus::Ready(value),
            Self::NotReady => PollStatus::NotReady,
            Self::Throttled => PollStatus::Throttled,
            Self::Failed(error) => PollStatus::Failed(f(error)),
        }
    }
}

impl<T, E> From<Result<Option<T>, E>> for PollStatus<T, E> {
    /// `Ok(Some(value))` is [`Ready`](Self::Ready), `Ok(None)` is
    /// [`NotReady`](Self::NotReady), `Err(error)` is
    /// [`Failed`](Self::Failed): for status checks that are never throttled.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::waiter::PollStatus;
    ///
    /// assert_eq!(PollStatus::from(Ok::<_, ()>(Some(7))), PollStatus::Ready(7));
    /// assert_eq!(PollStatus::from(Ok::<Option<u8>, ()>(None)), PollStatus::NotReady);
    /// assert_eq!(PollStatus::<u8, _>::from(Err("gone")), PollStatus::Failed("gone"));
    /// ```
    fn from(result: Result<Option<T>, E>) -> Self {
        match result {
            Ok(Some(value)) => Self::Ready(value),
            Ok(None) => Self::NotReady,
            Err(error) => Self::Failed(error),
        }
    }
}
