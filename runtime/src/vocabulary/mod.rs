//! The retry vocabulary: what a failure tells a retry strategy.
//!
//! Everything here describes a failure; nothing decides about it. The
//! deciding half ([`classify`](crate::classify)'s AWS rules, the strategies)
//! sits above and imports this module, never the other way round, so the
//! traits an error type implements depend on nothing but each other.
//!
//! | item | what it is |
//! |---|---|
//! | [`RetryInfo`] | may this be retried, is it a throttle or a timeout, did the service ask for a wait? |
//! | [`ErrorInfo`] | who is at fault, which status and error code came back, which transport failure? |
//! | [`FailureInfo`] | both, as one object-safe trait: what a strategy reads |
//! | [`RetrySafety`], [`ErrorFault`] | the answers' value types |
//! | [`TransportFailure`] | a failure with no response, as an HTTP client reports it |
//! | [`Classified`] | the answers as plain data, for errors that do not speak the vocabulary |
//! | [`RetryAfterValue`] | what a `#[retry_after]` field may hold |
//! | [`ErrorMetadata`], [`ProvideErrorMetadata`] | what a response said about an error besides its members: code, message, request ID, status |

mod classified;
mod error_info;
mod error_metadata;
mod failure;
mod fault;
mod io;
pub(crate) mod retry_after_header;
mod retry_after_value;
mod retry_info;
mod safety;
mod transport;

pub use classified::Classified;
pub use error_info::ErrorInfo;
pub use error_metadata::{ErrorMetadata, ProvideErrorMetadata};
pub use failure::FailureInfo;
pub use fault::ErrorFault;
pub use retry_after_value::RetryAfterValue;
pub use retry_info::RetryInfo;
pub use safety::RetrySafety;
pub use transport::TransportFailure;
