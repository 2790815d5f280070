//! Stub; replaced below.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
pub use rebound_runtime::*;
#[cfg(feature = "derive")]
pub use rebound_macros::RetryInfo;
