//! reqwest under the tower layer: `reqwest::Client` is a tower `Service` of
//! `reqwest::Request`; these say how its results are judged and its
//! requests copied.

use std::time::SystemTime;

use crate::Classified;
use crate::http::ResponseClassifier;
use crate::tower::{ClassifyResult, CloneRequest};

/// A reqwest result judged as [`RequestBuilderExt`](super::RequestBuilderExt)
/// judges it: an error response by its status and headers, a
/// `reqwest::Error` as the [module](crate::reqwest)'s table says.
impl<W: Fn() -> SystemTime> ClassifyResult<::reqwest::Response, ::reqwest::Error>
    for ResponseClassifier<W>
{
    type Failure = Classified;

    fn classify(
        &self,
        result: &Result<::reqwest::Response, ::reqwest::Error>,
    ) -> Option<Classified> {
        match result {
            Ok(response) => self
                .classify(response.status(), response.headers())
                .map(Classified::from),
            Err(error) => Some(Classified::from_failure(error)),
        }
    }
}

/// Copies a `reqwest::Request` with [`try_clone`](::reqwest::Request::try_clone):
/// a request whose body is a stream has no copy, so it is sent once.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::http::ResponseClassifier;
/// use rebound_runtime::reqwest::TryClone;
/// use rebound_runtime::tower::RetryLayer;
/// use rebound_runtime::StandardRetryStrategy;
/// use tower::Layer as _;
///
/// let layer = RetryLayer::new(
///     StandardRetryStrategy::new(),
///     |delay: Duration| std::future::ready(()), // your runtime's timer
///     ResponseClassifier::new(),
/// )
/// .clone_request(TryClone);
/// let client = layer.layer(reqwest::Client::new()); // a tower Service of reqwest::Request
/// # let _ = client;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TryClone;

impl CloneRequest<::reqwest::Request> for TryClone {
    fn clone_request(&self, request: &::reqwest::Request) -> Option<::reqwest::Request> {
        request.try_clone()
    }
}
