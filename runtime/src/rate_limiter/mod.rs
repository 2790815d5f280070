//! The client-side rate limiter of AWS *adaptive* retry mode.
//!
//! Standard mode decides whether and when to retry; adaptive mode also decides
//! how fast to send at all. It stays out of the way until the service throttles
//! (HTTP 429, `ThrottlingException`, ...), then holds every send attempt,
//! first or retry, to a send rate that CUBIC adjusts after each response: cut
//! to 70% on a throttle, grown back along a cubic curve on success.
//!
//! | piece | file | role |
//! |---|---|---|
//! | send-rate meter | `send_rate.rs` | responses per second, 0.5 s buckets, smoothing 0.8 |
//! | CUBIC calculator | `cubic.rs` | target rate after each response (beta 0.7, C 0.4) |
//! | exact cube | `cube.rs` | `pow(x, 3)` to the last bit, mostly without calling `pow` |
//! | [`CubicShape`] | `cubic_shape.rs` | the curve's cut and scale: botocore's, or an opt-in variant |
//! | send token bucket | `token_bucket.rs` | one token per send, refilled at the target rate (min 0.5/s, capacity >= 1) |
//! | limiter state | `state.rs` | the three combined, as a pure state machine over caller-supplied time |
//! | send line | `queue.rs` | callers waiting for a send token, served in the order they asked |
//! | response log | `response_log.rs`, `lane.rs` | responses recorded without a lock or an atomic read-modify-write, in shards one thread writes at a time, applied in time order by the lock's next holder |
//! | [`ClientRateLimiter`] | `client.rs`, `acquire.rs` | the state behind a lock and the line, shareable across threads, blocking or fail-fast ([`WaitPolicy`]) |
//! | [`RateControl`] | `control.rs` | what a coordinator (a fleet) reads from a limiter, and the ceiling it sets |
//!
//! Only [`CubicShape`], [`ClientRateLimiter`] and [`RateControl`] are public: the pieces are the reference algorithm's
//! internals, checked against its vectors by the conformance tests.
//! One limiter per throttling scope (e.g. region + table):
//! [`AdaptiveRetryStrategy::partitions`](crate::AdaptiveRetryStrategy::partitions).
//!
//! The algorithm and every constant follow botocore 1.44.5
//! (`botocore/retries/adaptive.py`, `throttling.py`, `bucket.py`), which the
//! conformance vectors in `runtime/tests/conformance/{cubic,adaptive}.json` were
//! recorded from; the tests replay them bit for bit.
//!
//! ```
//! use rebound_runtime::rate_limiter::ClientRateLimiter;
//!
//! // Virtual time: the limiter never reads a clock or sleeps by itself.
//! let limiter = ClientRateLimiter::new(0.0);
//! let now = std::cell::Cell::new(0.0);
//! let mut sent = 0;
//! while now.get() < 10.0 {
//!     limiter
//!         .acquire(|| now.get(), |limited| now.set(now.get() + limited.wait_secs()))
//!         .unwrap();
//!     sent += 1;
//!     now.set(now.get() + 0.01); // the request takes 10 ms
//!     limiter.on_response(now.get(), true); // ...and is always throttled
//! }
//! // 0.5 sends per second is the floor: ~5 sends plus the first, unthrottled one.
//! assert!(sent <= 7, "{sent}");
//! ```

pub(crate) mod acquire;
mod client;
mod control;
mod cube;
pub(crate) mod cubic;
pub(crate) mod cubic_shape;
mod lane;
mod queue;
mod response_log;
pub(crate) mod send_rate;
pub(crate) mod state;
pub(crate) mod token_bucket;

pub use acquire::WaitPolicy;
pub use client::ClientRateLimiter;
pub use control::{RateControl, RateReading};
pub use cubic_shape::{CubicShape, CubicShapeError};
