//! rebound's retry strategies in [smithy-rs](https://github.com/smithy-lang/smithy-rs)
//! clients and the AWS SDK for Rust.
//!
//! Two ways in:
//!
//! - **[`RetryPlugin`]**, a `RuntimePlugin` that makes any rebound strategy
//!   the orchestrator's retry strategy: one attempt is one HTTP request,
//!   the send permit is taken before each, and the attempt header counts
//!   against the strategy's maximum. For smithy-rs clients generated with
//!   runtime plugins on, and operations built on aws-smithy-runtime.
//! - **[`send`]**, for clients that accept no plugin (the AWS SDK for Rust:
//!   its `runtime_plugin` setters are crate-private): rebound's
//!   [`Retry`](rebound_runtime::Retry) around the fluent builder's `send()`,
//!   returning what `send()` returns, failures read by [`classify`];
//!   [`paginate`] for paginated operations. Turn the client's own retries
//!   off ([`ClientRetriesGuard`], [`check_client_retries`]).
//!
//! Both work with every rebound strategy: standard, adaptive, legacy,
//! `rebound-redis`'s fleet quota and limiter; [`standard_like`] sets up
//! standard mode as an SDK client's retry configuration would. Both give
//! one response one verdict, and a refusal before an attempt is found by
//! [`RetryStopped::find`]. The crate's README is the manual.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod behavior;
mod context;
mod error;
mod guard;
mod listener;
mod operation;
mod pages;
mod plugin;
mod response;
mod sdk_error;
mod send;
mod strategy;

pub use behavior::standard_like;
pub use error::{ClientRetries, RetryStopped};
pub use guard::{ClientRetriesGuard, check_client_retries};
pub use pages::{Pages, paginate};
pub use plugin::RetryPlugin;
pub use sdk_error::{classify, classify_at};
pub use send::{send, send_detailed};

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
