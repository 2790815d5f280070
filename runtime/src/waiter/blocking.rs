//! The blocking waiter: [`Waiter::wait`].

use super::{PollStatus, Step, WaitError, Waiter};
use crate::time::{Clock, Sleeper};

impl<Sl: Sleeper, C: Clock> Waiter<Sl, C> {
    /// Polls with `poll` until it returns [`Ready`](PollStatus::Ready) or
    /// [`Failed`](PollStatus::Failed), or the waiter gives up, blocking in
    /// the [`Sleeper`] between polls.
    ///
    /// `poll` gets the 1-based poll number. The first poll is made at once;
    /// see the [module](super#delays) for the delays after pending polls.
    ///
    /// # Errors
    ///
    /// [`WaitError::GaveUp`] when the maximum number of polls or the budget
    /// was reached with the operation still pending,
    /// [`WaitError::Failed`] with the error of a failed poll.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::cell::RefCell;
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::{GiveUpReason, PollStatus, WaitError, Waiter};
    ///
    /// let slept = RefCell::new(Vec::new());
    /// let waiter = Waiter::builder()
    ///     .min_delay(Duration::from_secs(1))
    ///     .max_polls(3)
    ///     .random(|| 0.5)
    ///     .sleeper(|delay| slept.borrow_mut().push(delay)) // records instead of sleeping
    ///     .build()?;
    ///
    /// let err = waiter.wait(|_poll| PollStatus::<(), &str>::NotReady).unwrap_err();
    /// assert!(matches!(err, WaitError::GaveUp { polls: 3, reason: GiveUpReason::MaxPolls { .. }, .. }));
    /// // 1 s, then halfway between 1 s and 2 s; no sleep after the last poll.
    /// assert_eq!(*slept.borrow(), [Duration::from_secs(1), Duration::from_millis(1500)]);
    ///
    /// let err = waiter.wait(|_poll| PollStatus::<(), _>::Failed("stack rolled back")).unwrap_err();
    /// assert_eq!(err.polls(), 1);
    /// assert_eq!(err.into_error(), Some("stack rolled back"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait<T, E, F>(&self, mut poll: F) -> Result<T, WaitError<E>>
    where
        F: FnMut(u32) -> PollStatus<T, E>,
    {
        let mut polling = self.start();
        loop {
            let status = poll(polling.next_poll());
            match self.step(&polling, status) {
                Step::Sleep(delay) => self.settings.sleeper.sleep(delay),
                Step::Done(outcome) => return outcome,
            }
        }
    }
}
