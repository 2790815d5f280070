//! [`RequestBuilderExt::send_with_retry`]: a reqwest request sent through a
//! [`Retry`] executor, error responses classified from status and headers.

use core::future::Future;
use std::time::SystemTime;

use ::reqwest::{Request, RequestBuilder, Response};

use crate::classify::HttpErrorResponse;
use crate::driver::error::{RetryError, StopReason};
use crate::driver::listen::RetryListener;
use crate::executor::Retry;
use crate::http::ResponseClassifier;
use crate::strategy::RetryStrategy;
use crate::time::{AsyncSleeper, Clock};
use crate::vocabulary::{FailureInfo, TransportFailure};

mod sealed {
    pub trait Sealed {}
    impl Sealed for ::reqwest::RequestBuilder {}
}

/// Sends a [`RequestBuilder`] through a [`Retry`] executor: the AWS retry
/// rules, with no glue of your own.
///
/// For each attempt the request is cloned
/// ([`Request::try_clone`]) and sent with the builder's client; the result is
/// judged like this:
///
/// | attempt's result | judged as | returned when it is the last |
/// |---|---|---|
/// | a response below 400 | success | `Ok(response)` |
/// | a 4xx/5xx response | an [`HttpErrorResponse`] from its status and headers ([`ResponseClassifier`]: error code, `Retry-After`, `x-amz-retry-after`, 429 a throttle) | `Ok(response)`, as `send` would return it: call [`error_for_status`](Response::error_for_status) or read its body |
/// | a `reqwest::Error` | as the [module](crate::reqwest)'s table says | `Err(RetryError)` with that error, the attempt count and why retrying stopped |
///
/// So a retried call looks like an ordinary `send()` to the code after it.
/// A request the builder cannot build (a bad URL) fails at once and is not
/// retried. **A request whose body cannot be cloned (a stream) is sent
/// once, without retries and without consulting the strategy**; its error
/// carries [`StopReason::RequestNotClonable`].
///
/// The future is [`Send`] when the executor's sleeper, clock and listener
/// are [`Sync`] and the sleeper's future is `Send` (true of
/// `DefaultSleeper` with the `tokio` feature), so it can be spawned.
///
/// # Examples
///
/// Retrying a 503 against a local server, in virtual time:
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::reqwest::RequestBuilderExt as _;
/// use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// # let url = format!("http://{}/", listener.local_addr()?);
/// # tokio::spawn(async move {
/// #     for status in ["503 Service Unavailable", "200 OK"] {
/// #         let (mut socket, _) = listener.accept().await.unwrap();
/// #         let mut buffer = [0; 1024];
/// #         let _ = socket.read(&mut buffer).await;
/// #         let reply = format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
/// #         socket.write_all(reply.as_bytes()).await.unwrap();
/// #     }
/// # });
/// // `url` is a server that answers 503, then 200.
/// let clock = ManualClock::new(); // virtual time: sleeping advances it
/// let retry = Retry::new(StandardRetryStrategy::new()).sleeper(clock.clone());
/// let response = reqwest::Client::new().get(&url).send_with_retry(&retry).await?;
/// assert_eq!(response.status(), 200);
/// assert!(clock.elapsed() > Duration::ZERO); // one backoff was slept
/// # Ok(()) }
/// ```
pub trait RequestBuilderExt: sealed::Sealed {
    /// Sends the request through `retry`, classifying error responses with
    /// [`ResponseClassifier::new`]. See the [trait](RequestBuilderExt).
    ///
    /// # Errors
    ///
    /// [`RetryError`] when the last attempt's result was a
    /// [`reqwest::Error`](::reqwest::Error) (or no attempt was made: the
    /// budget, a fail-fast rate limiter).
    fn send_with_retry<S, Sl, C, L>(
        self,
        retry: &Retry<S, Sl, C, L>,
    ) -> impl Future<Output = Result<Response, RetryError<::reqwest::Error>>> + Send
    where
        Self: Sized,
        S: RetryStrategy,
        Sl: AsyncSleeper + Sync,
        Sl::Sleep: Send,
        C: Clock + Sync,
        L: RetryListener + Sync,
    {
        self.send_with_retry_classified(retry, ResponseClassifier::new())
    }

    /// [`send_with_retry`](Self::send_with_retry), classifying error
    /// responses with `classifier` (a fixed wall clock for tests, 429s
    /// judged by AWS rules only, ...).
    ///
    /// # Errors
    ///
    /// As [`send_with_retry`](Self::send_with_retry).
    fn send_with_retry_classified<S, Sl, C, L, W>(
        self,
        retry: &Retry<S, Sl, C, L>,
        classifier: ResponseClassifier<W>,
    ) -> impl Future<Output = Result<Response, RetryError<::reqwest::Error>>> + Send
    where
        S: RetryStrategy,
        Sl: AsyncSleeper + Sync,
        Sl::Sleep: Send,
        C: Clock + Sync,
        L: RetryListener + Sync,
        W: Fn() -> SystemTime + Send + Sync;
}

impl RequestBuilderExt for RequestBuilder {
    fn send_with_retry_classified<S, Sl, C, L, W>(
        self,
        retry: &Retry<S, Sl, C, L>,
        classifier: ResponseClassifier<W>,
    ) -> impl Future<Output = Result<Response, RetryError<::reqwest::Error>>> + Send
    where
        S: RetryStrategy,
        Sl: AsyncSleeper + Sync,
        Sl::Sleep: Send,
        C: Clock + Sync,
        L: RetryListener + Sync,
        W: Fn() -> SystemTime + Send + Sync,
    {
        send(self, retry, classifier)
    }
}

/// One attempt's failure: an error response (kept, to be returned if it is
/// the last) with its classification, or the client's error. It answers
/// the strategy's questions as the part it holds.
#[derive(Debug)]
enum Failed {
    Response(Response, HttpErrorResponse),
    Client(::reqwest::Error),
    /// The request could not be built; its error is kept by `send`, since a
    /// strategy that retries every failure asks for it again.
    Unbuilt,
}

impl Failed {
    fn info(&self) -> &dyn FailureInfo {
        match self {
            Self::Response(_, failure) => failure,
            Self::Client(error) => error,
            Self::Unbuilt => &TransportFailure::InvalidRequest,
        }
    }
}

impl crate::vocabulary::RetryInfo for Failed {
    fn retry_safety(&self) -> crate::vocabulary::RetrySafety {
        self.info().retry_safety()
    }

    fn is_throttle(&self) -> bool {
        self.info().is_throttle()
    }

    fn is_timeout(&self) -> bool {
        self.info().is_timeout()
    }

    fn retry_after(&self) -> Option<core::time::Duration> {
        self.info().retry_after()
    }
}

impl crate::vocabulary::ErrorInfo for Failed {
    fn fault(&self) -> crate::vocabulary::ErrorFault {
        self.info().fault()
    }

    fn http_status(&self) -> Option<u16> {
        self.info().http_status()
    }

    fn error_code(&self) -> Option<&str> {
        self.info().error_code()
    }

    fn transport_failure(&self) -> Option<crate::vocabulary::TransportFailure> {
        self.info().transport_failure()
    }
}

async fn send<S, Sl, C, L, W>(
    builder: RequestBuilder,
    retry: &Retry<S, Sl, C, L>,
    classifier: ResponseClassifier<W>,
) -> Result<Response, RetryError<::reqwest::Error>>
where
    S: RetryStrategy,
    Sl: AsyncSleeper + Sync,
    Sl::Sleep: Send,
    C: Clock + Sync,
    L: RetryListener + Sync,
    W: Fn() -> SystemTime + Send + Sync,
{
    let (client, request) = builder.build_split();
    // A request that cannot be built fails each attempt without being sent
    // (`InvalidRequest`: the AWS rules never retry it); one that cannot be
    // cloned is sent once, bare.
    let template = match request {
        Ok(request) => match request.try_clone() {
            Some(_) => Ok(request),
            None => return send_once(&client, request).await,
        },
        Err(error) => Err(error),
    };
    let outcome = retry
        .run_async(|_attempt| {
            // A request that cloned once clones again (its body is bytes).
            let next = template.as_ref().ok().and_then(Request::try_clone);
            let (client, classifier) = (&client, &classifier);
            async move {
                let Some(request) = next else {
                    return Err(Failed::Unbuilt);
                };
                match client.execute(request).await {
                    Ok(response) => {
                        match classifier.classify(response.status(), response.headers()) {
                            None => Ok(response),
                            Some(failure) => Err(Failed::Response(response, failure)),
                        }
                    }
                    Err(error) => Err(Failed::Client(error)),
                }
            }
        })
        .await;
    match outcome {
        Ok(response) => Ok(response),
        Err(error) => {
            let (last, attempts, reason) = error.into_parts();
            match last {
                Some(Failed::Response(response, _)) => Ok(response),
                Some(Failed::Client(error)) => Err(RetryError::new(error, attempts, reason)),
                Some(Failed::Unbuilt) => match template {
                    Err(error) => Err(RetryError::new(error, attempts, reason)),
                    Ok(_) => Err(RetryError::stopped(None, attempts, reason)),
                },
                None => Err(RetryError::stopped(None, attempts, reason)),
            }
        }
    }
}

/// Sends a request that cannot be cloned: once, as reqwest would.
async fn send_once(
    client: &::reqwest::Client,
    request: Request,
) -> Result<Response, RetryError<::reqwest::Error>> {
    client
        .execute(request)
        .await
        .map_err(|error| RetryError::new(error, 1, StopReason::RequestNotClonable))
}
