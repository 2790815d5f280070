//! The waiter on tokio's timer and clock (feature `tokio`), in tokio's
//! paused time.
#![cfg(feature = "tokio")]

use std::time::Duration;

use rebound_runtime::time::{DefaultSleeper, TokioClock};
use rebound_runtime::waiter::{GiveUpReason, PollStatus, WaitError, Waiter};

#[tokio::test(start_paused = true)]
async fn polls_sleep_on_tokio_s_timer_within_the_budget() {
    let waiter = Waiter::builder()
        .min_delay(Duration::from_secs(2))
        .max_delay(Duration::from_secs(120))
        .jitter(false)
        .budget(Duration::from_secs(20))
        .sleeper(DefaultSleeper)
        .clock(TokioClock)
        .build()
        .unwrap();
    let start = tokio::time::Instant::now();

    let err = waiter
        .wait_async(|_poll| async { PollStatus::<(), std::io::Error>::NotReady })
        .await
        .unwrap_err();

    // Polls at 0, 2, 6 and 14 s; 16 s would end at 30 s, so 6 s, then the
    // last poll at 20 s.
    assert!(matches!(
        err,
        WaitError::GaveUp {
            polls: 5,
            reason: GiveUpReason::Budget { .. },
            ..
        }
    ));
    assert_eq!(err.elapsed(), Duration::from_secs(20));
    assert_eq!(start.elapsed(), Duration::from_secs(20));
}
