//! reqwest under the tower layer: `reqwest::Client` is a tower `Service` of
//! `reqwest::Request`; these say how its results are judged and its
//! requests copied.

use std::time::SystemTime;

use crate::http::ResponseClassifier;
use crate::strategy::RetryStrategy;
use crate::time::DefaultSleeper;
use crate::tower::{ClassifyResult, CloneRequest, RetryLayer};
use crate::vocabulary::Classified;

impl<St: RetryStrategy + Clone> RetryLayer<St, DefaultSleeper, ResponseClassifier, TryClone> {
    /// The layer for a `reqwest::Client` (features `reqwest` and `tower`):
    /// `strategy`, tokio's timer, error responses judged by their status and
    /// AWS headers ([`ResponseClassifier`]), failed sends by the
    /// [`reqwest` table](crate::reqwest), and requests copied with
    /// [`TryClone`] (a request whose body is a stream is sent once). The
    /// other settings can be changed as on any layer.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{StandardRetryStrategy, tower::RetryLayer};
    /// use tower::ServiceBuilder;
    ///
    /// let client = ServiceBuilder::new()
    ///     .layer(RetryLayer::for_reqwest(StandardRetryStrategy::for_http()))
    ///     .service(reqwest::Client::new()); // a tower Service of reqwest::Request
    /// # let _ = client;
    /// ```
    pub fn for_reqwest(strategy: St) -> Self {
        RetryLayer::new(strategy, DefaultSleeper, ResponseClassifier::new()).clone_request(TryClone)
    }
}

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
/// [`RetryLayer::for_reqwest`] sets it; a layer built with
/// [`RetryLayer::new`] for `reqwest::Client` needs `.clone_request(TryClone)`
/// (`reqwest::Request` is not `Clone`, so without it the layer does not
/// compile).
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
///     |delay: Duration| std::future::ready(()), // another runtime's timer
///     ResponseClassifier::new(),
/// )
/// .clone_request(TryClone);
/// let client = layer.layer(reqwest::Client::new());
/// # let _ = client;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TryClone;

impl CloneRequest<::reqwest::Request> for TryClone {
    fn clone_request(&self, request: &::reqwest::Request) -> Option<::reqwest::Request> {
        request.try_clone()
    }
}
