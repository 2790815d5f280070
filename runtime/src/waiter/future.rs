//! The async waiter: [`Waiter::wait_async`].
//!
//! An `async fn`. Its future is [`Send`] when the poll closure and its
//! futures, the sleeper's futures, the value and error types, and the
//! sleeper and clock (borrowed, so they must be [`Sync`]) are; it borrows
//! the [`Waiter`], so put the waiter in an `Arc` (or build one inside the
//! task) to spawn it.

use core::future::Future;

use super::{PollStatus, Step, WaitError, Waiter};
use crate::time::{AsyncSleeper, Clock};

impl<Sl: AsyncSleeper, C: Clock> Waiter<Sl, C> {
    /// Awaits the future `poll` returns until one is
    /// [`Ready`](PollStatus::Ready) or [`Failed`](PollStatus::Failed), or the
    /// waiter gives up, awaiting the [`AsyncSleeper`] between polls.
    ///
    /// `poll` gets the 1-based poll number. The first poll is made at once;
    /// see the [module](super#delays) for the delays after pending polls.
    ///
    /// The default [`DefaultSleeper`](crate::time::DefaultSleeper) awaits
    /// tokio's timer with the `tokio` feature. Without it, set a
    /// [`sleeper`](super::WaiterBuilder::sleeper) first: a closure around
    /// your runtime's timer.
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
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::{PollStatus, Waiter};
    ///
    /// # fn block_on<F: std::future::Future>(future: F) -> F::Output {
    /// #     let mut future = std::pin::pin!(future);
    /// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    /// #     loop {
    /// #         if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
    /// #             return out;
    /// #         }
    /// #     }
    /// # }
    /// let slept = Mutex::new(Vec::new());
    /// // Any runtime's timer fits, e.g. `|delay| tokio::time::sleep(delay)`.
    /// let waiter = Waiter::builder()
    ///     .jitter(false)
    ///     .sleeper(|delay| {
    ///         slept.lock().unwrap().push(delay);
    ///         std::future::ready(())
    ///     })
    ///     .build()?;
    ///
    /// let value = block_on(waiter.wait_async(|poll| async move {
    ///     if poll < 3 { PollStatus::<_, std::io::Error>::NotReady } else { PollStatus::Ready(poll) }
    /// }))?;
    /// assert_eq!(value, 3);
    /// assert_eq!(*slept.lock().unwrap(), [Duration::from_secs(2), Duration::from_secs(4)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn wait_async<T, E, F, Fut>(&self, mut poll: F) -> Result<T, WaitError<E>>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = PollStatus<T, E>>,
    {
        let mut polling = self.start();
        loop {
            let status = poll(polling.next_poll()).await;
            match self.step(&polling, status) {
                Step::Sleep(delay) => {
                    self.settings.sleeper.sleep(delay).await;
                }
                Step::Done(outcome) => return outcome,
            }
        }
    }
}
