//! `rebound-sim`: deterministic discrete-event simulations (virtual time,
//! seeded) that drive rebound's real [`Backoff`](rebound_runtime::backoff::Backoff)
//! values against simulated services.
//!
//! Implemented: [`occ`], the optimistic-concurrency contention experiment of
//! the AWS Architecture Blog post "Exponential Backoff And Jitter", with the
//! model of its public simulator. Tables and CSV are in [`report`], SVG plots
//! in [`plot`], the command line in [`cli`]. [`driver`] drives rebound's
//! retry strategies in virtual time ([`vclock`]) against simulated services
//! ([`server`]) for the [`outage`] and [`capacity`] experiments.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod capacity;
pub mod cli;
pub mod driver;
pub mod event_queue;
pub mod occ;
pub mod outage;
pub mod plot;
pub mod report;
pub mod rng;
pub mod server;
pub mod vclock;
