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
//! | [`QuantaClock`] | the real one read through the CPU's counter, three times faster (adaptive mode's default) |
//! | `CoarseClock` | the system's coarse clock: ticks every few ms, reads in a fraction of the time; for adaptive mode's hot path (feature `coarsetime`) |
//! | [`TickingClock`] | the real one, advanced every 1 ms by a thread of its own: one atomic load a read; for adaptive mode's cheapest success path (opt-in) |
//! | [`ManualClock`] | a virtual clock for tests, and a sleeper that advances it |
//! | `TokioClock` | tokio's clock, which tokio's test utilities can pause (feature `tokio`) |
//! | [`Sleeper`], [`DefaultSleeper`] | how the executors wait by default (the thread's sleep; tokio's timer in async code with the `tokio` feature); closures are sleepers |
//! | [`AsyncSleeper`], `TokioSleeper` | how the async executor waits (feature `tokio` for tokio's timer); closures returning futures are sleepers |

mod clock;
#[cfg(feature = "coarsetime")]
mod coarse;
mod first_since;
mod quanta_clock;
mod sleep;
mod ticking;

#[cfg(feature = "tokio")]
pub use clock::TokioClock;
pub use clock::{Clock, ManualClock, SystemClock};
#[cfg(feature = "coarsetime")]
pub use coarse::CoarseClock;
pub use quanta_clock::QuantaClock;
#[cfg(feature = "tokio")]
pub use sleep::TokioSleeper;
pub use sleep::{AsyncSleeper, DefaultSleeper, Sleeper};
pub use ticking::TickingClock;
