//! Time, injectable: where the executors, the waiter and adaptive mode's
//! rate limiter read the time ([`Clock`]) and how the executors wait
//! ([`Sleeper`], [`AsyncSleeper`]).
//!
//! This module sits below everything that needs time, so a strategy never
//! depends on an executor to read a clock. Everything time-dependent in
//! rebound takes these as parameters, so tests run in virtual time: a
//! [`ManualClock`] is both a clock and a sleeper that advances it.
//!
//! | item | what it is |
//! |---|---|
//! | [`Clock`] | a monotonic clock |
//! | [`SystemClock`] | the real one: `Instant::now` (the executors' default) |
//! | [`FastClock`] | the real one, read through the CPU's counter: as precise, cheaper to read (adaptive mode's default) |
//! | [`CoarseClock`] | the real one in 1 ms steps, advanced by a thread of its own: the cheapest read, for adaptive mode's cheapest success path (opt-in) |
//! | [`ManualClock`] | a virtual clock for tests, and a sleeper that advances it |
//! | `TokioClock` | tokio's clock, which tokio's test utilities can pause (feature `tokio`) |
//! | [`Sleeper`], [`DefaultSleeper`] | how the executors wait by default (the thread's sleep; tokio's timer in async code with the `tokio` feature); closures are sleepers |
//! | [`AsyncSleeper`] | how the async executor waits: [`DefaultSleeper`] with the `tokio` feature, or a closure returning a future |

mod clock;
mod coarse;
mod fast;
mod first_since;
mod sleep;

#[cfg(feature = "tokio")]
pub use clock::TokioClock;
pub use clock::{Clock, ManualClock, SystemClock};
pub use coarse::CoarseClock;
pub use fast::FastClock;
pub use sleep::{AsyncSleeper, DefaultSleeper, Sleeper};
