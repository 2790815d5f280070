//! The async waiter, `Waiter::wait_async`, driven by a hand-written
//! `block_on` (a no-op waker) in virtual time.

mod executor_support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use executor_support::{Failure, Sleeps, block_on, ms};
use rebound_runtime::time::{AsyncSleeper, ManualClock};
use rebound_runtime::waiter::{GiveUpReason, PollStatus, WaitError, Waiter, WaiterBuilder};

const fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

/// A builder on the recording async sleeper and its virtual clock, without
/// jitter.
fn builder(
    sleeps: &Sleeps,
    min_delay: Duration,
    max_delay: Duration,
) -> WaiterBuilder<impl AsyncSleeper + '_, ManualClock> {
    Waiter::builder()
        .min_delay(min_delay)
        .max_delay(max_delay)
        .jitter(false)
        .sleeper(|delay| sleeps.sleep_async(delay))
        .clock(sleeps.clock.clone())
}

/// A future that is pending once (waking itself) before it is ready: the
/// waiter must survive real suspension points.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

#[test]
fn ready_on_the_first_poll_does_not_sleep() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();

    let value =
        block_on(waiter.wait_async(|poll| async move { PollStatus::<_, Failure>::Ready(poll) }));

    assert_eq!(value, Ok(1));
    assert_eq!(sleeps.slept(), []);
}

#[test]
fn not_ready_then_ready_sleeps_the_doubling_delays_exactly() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();
    let calls = AtomicU32::new(0);

    let value = block_on(waiter.wait_async(|poll| {
        let call = calls.fetch_add(1, Ordering::Relaxed) + 1;
        assert_eq!(poll, call);
        async move {
            YieldOnce(false).await; // a status request that suspends
            match poll {
                1 | 3 => PollStatus::<_, Failure>::NotReady,
                2 | 4 => PollStatus::Throttled,
                _ => PollStatus::Ready(poll),
            }
        }
    }));

    assert_eq!(value, Ok(5));
    assert_eq!(calls.load(Ordering::Relaxed), 5);
    assert_eq!(sleeps.slept(), [ms(100), ms(200), ms(400), ms(800)]);
}

#[test]
fn failed_stops_at_once_with_the_error() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10)).build().unwrap();

    let err = block_on(waiter.wait_async(|poll| async move {
        if poll < 2 {
            PollStatus::<(), _>::NotReady
        } else {
            PollStatus::Failed(Failure::BadRequest)
        }
    }))
    .unwrap_err();

    assert_eq!(
        err,
        WaitError::Failed {
            polls: 2,
            elapsed: ms(100),
            error: Failure::BadRequest,
        }
    );
    assert_eq!(sleeps.slept(), [ms(100)]);
}

#[test]
fn max_polls_reached() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(4))
        .max_polls(5)
        .build()
        .unwrap();

    let err = block_on(
        waiter.wait_async(|_poll| std::future::ready(PollStatus::<(), Failure>::Throttled)),
    )
    .unwrap_err();

    assert_eq!(
        err,
        WaitError::GaveUp {
            polls: 5,
            elapsed: secs(11),
            reason: GiveUpReason::MaxPolls { max_polls: 5 },
        }
    );
    assert_eq!(sleeps.slept(), [secs(1), secs(2), secs(4), secs(4)]);
}

#[test]
fn budget_reached_with_the_exact_elapsed_time() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, secs(1), secs(8))
        .budget(secs(10))
        .build()
        .unwrap();

    let err = block_on(
        waiter.wait_async(|_poll| std::future::ready(PollStatus::<(), Failure>::NotReady)),
    )
    .unwrap_err();

    assert_eq!(sleeps.slept(), [secs(1), secs(2), secs(4), secs(3)]);
    assert_eq!(
        err,
        WaitError::GaveUp {
            polls: 5,
            elapsed: secs(10),
            reason: GiveUpReason::Budget { budget: secs(10) },
        }
    );
}

#[test]
fn jitter_uses_the_injected_random_source() {
    let sleeps = Sleeps::new();
    let waiter = builder(&sleeps, ms(100), secs(10))
        .jitter(true)
        .random(|| 0.5)
        .max_polls(4)
        .build()
        .unwrap();

    let _ = block_on(
        waiter.wait_async(|_poll| std::future::ready(PollStatus::<(), Failure>::NotReady)),
    );

    assert_eq!(sleeps.slept(), [ms(100), ms(150), ms(250)]);
}

#[test]
fn a_manual_clock_is_an_async_sleeper_too() {
    let clock = ManualClock::new();
    let waiter = Waiter::builder()
        .min_delay(ms(100))
        .jitter(false)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .build()
        .unwrap();

    let value = block_on(waiter.wait_async(|poll| async move {
        if poll < 3 {
            PollStatus::<_, Failure>::NotReady
        } else {
            PollStatus::Ready(poll)
        }
    }));

    assert_eq!(value, Ok(3));
    assert_eq!(clock.elapsed(), ms(300));
}

fn assert_send<T: Send>(value: T) -> T {
    value
}

#[test]
fn the_future_is_send_with_send_parts_and_spawnable_through_an_arc() {
    let clock = ManualClock::new();
    let waiter = Arc::new(
        Waiter::builder()
            .sleeper(clock.clone())
            .clock(clock)
            .build()
            .unwrap(),
    );

    let task = {
        let waiter = Arc::clone(&waiter);
        async move {
            waiter
                .wait_async(|poll| async move {
                    if poll < 2 {
                        PollStatus::<_, Failure>::NotReady
                    } else {
                        PollStatus::Ready(poll)
                    }
                })
                .await
        }
    };

    assert_eq!(block_on(assert_send(task)), Ok(2));
}
