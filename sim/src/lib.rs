//! `rebound-sim`: deterministic discrete-event simulations (virtual time,
//! seeded) that drive rebound's real backoffs and retry strategies against
//! simulated services.
//!
//! Four experiments:
//!
//! * [`occ`]: the optimistic-concurrency contention experiment of the AWS
//!   Architecture Blog post "Exponential Backoff And Jitter", with the model
//!   of its public simulator;
//! * [`outage`]: a service that fails every attempt for a while, then
//!   recovers with a finite capacity: no retries, naive fixed retries,
//!   standard and adaptive mode;
//! * [`capacity`]: a service that throttles above a provisioned rate,
//!   offered two to five times that rate: standard and adaptive mode, one
//!   rate limiter for every table or one per table;
//! * [`fleet`]: processes through an outage with a retry quota each or one
//!   fleet-wide quota (a virtual-time model of `rebound-redis`'s leases);
//!   and adaptive processes sharing one capacity, each limiter alone or
//!   under the fleet rate limiter ([`fleet::rate`], a model of
//!   `rebound-redis`'s `FleetLimiter`).
//!
//! The strategies run through rebound's `RetryStrategy` interface, driven by
//! [`driver`] in virtual time ([`vclock`]) against the services of
//! [`server`]. Tables and CSV are in [`report`], SVG plots in [`plot`], the
//! command line in [`cli`].

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod capacity;
pub mod cli;
pub mod dashboard;
pub mod driver;
pub mod event_queue;
pub mod fleet;
pub mod occ;
pub mod outage;
mod parallel;
pub mod plot;
pub mod report;
pub mod rng;
pub mod server;
pub mod vclock;
