//! Stub; replaced below.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#[cfg(feature = "derive")]
pub use rebound_macros::RetryInfo;
pub use rebound_runtime::*;
