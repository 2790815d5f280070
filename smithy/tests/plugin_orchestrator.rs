//! `RetryPlugin` through aws-smithy-runtime's real orchestrator: an
//! `Operation` calling the local awsJson1_0 server, with the classifiers
//! and the attempt header a generated DynamoDB client installs, on the same
//! scripts as the wrapper's tests; beside it, the same operation with the
//! SDK's own standard strategy.

mod support;

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_runtime::request_info::RequestInfoInterceptor;
use aws_runtime::retries::classifiers::AwsErrorCodeClassifier;
use aws_smithy_async::rt::sleep::{AsyncSleep, Sleep};
use aws_smithy_runtime::client::orchestrator::operation::Operation;
use aws_smithy_runtime::client::retries::classifiers::{
    HttpStatusCodeClassifier, ModeledAsRetryableClassifier, TransientErrorClassifier,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse, OrchestratorError};
use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::error::ErrorMetadata;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::{ErrorKind, ProvideErrorKind, RetryConfig};
use aws_smithy_types::timeout::TimeoutConfig;
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, FailureInfo, GiveUpEvent, RetryEvent, RetryListener, RetryStrategy,
    RetryToken, StandardRetryStrategy, TokenAcquisitionFailed,
};
use rebound_smithy::{RetryPlugin, RetryStopped};
use support::{RecordingSleep, Reply, Server, bound, dynamodb_errors};

/// A DynamoDB error as a generated client's error type carries it: its
/// metadata (the code) and, for `@retryable` shapes, its retry kind.
#[derive(Debug)]
struct DynamoError {
    meta: ErrorMetadata,
    kind: Option<ErrorKind>,
}

impl fmt::Display for DynamoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.meta.code())
    }
}

impl std::error::Error for DynamoError {}

impl ProvideErrorMetadata for DynamoError {
    fn meta(&self) -> &ErrorMetadata {
        &self.meta
    }
}

impl ProvideErrorKind for DynamoError {
    fn retryable_error_kind(&self) -> Option<ErrorKind> {
        self.kind
    }

    fn code(&self) -> Option<&str> {
        self.meta.code()
    }
}

/// awsJson1_0's error deserialization: the `__type` after its namespace,
/// the kind from the model.
fn deserialize(response: &HttpResponse) -> Result<(), OrchestratorError<DynamoError>> {
    if response.status().is_success() {
        return Ok(());
    }
    let body = response.body().bytes().unwrap_or_default();
    let value: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let code = value["__type"]
        .as_str()
        .map(|kind| kind.rsplit('#').next().unwrap_or(kind));
    let modeled = dynamodb_errors()
        .into_iter()
        .find(|error| Some(error.name.as_str()) == code);
    let kind = modeled.filter(|error| error.retryable).map(|error| {
        if error.throttling {
            ErrorKind::ThrottlingError
        } else {
            ErrorKind::TransientError
        }
    });
    let mut meta = ErrorMetadata::builder();
    if let Some(code) = code {
        meta = meta.code(code);
    }
    Err(OrchestratorError::operation(DynamoError {
        meta: meta.build(),
        kind,
    }))
}

/// How the operation retries.
enum Route<S> {
    /// The SDK's own standard strategy.
    Sdk,
    /// rebound's, through the plugin.
    Plugin(RetryPlugin<S>),
}

fn operation<S>(
    server: &Server,
    sleep: impl AsyncSleep + 'static,
    route: Route<S>,
) -> Operation<Option<usize>, (), DynamoError>
where
    S: RetryStrategy + fmt::Debug + Send + Sync + 'static,
{
    let builder = Operation::builder()
        .service_name("dynamodb")
        .operation_name("ListTables")
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .endpoint_url(&server.endpoint())
        .no_auth()
        .sleep_impl(sleep)
        .timeout_config(TimeoutConfig::disabled())
        .retry_classifier(HttpStatusCodeClassifier::default())
        .retry_classifier(TransientErrorClassifier::<DynamoError>::new())
        .retry_classifier(AwsErrorCodeClassifier::<DynamoError>::new())
        .retry_classifier(ModeledAsRetryableClassifier::<DynamoError>::new())
        .interceptor(RequestInfoInterceptor::new())
        .serializer(|call: Option<usize>| {
            let mut request = HttpRequest::new(SdkBody::from("{}"));
            request.set_method("POST")?;
            let headers = request.headers_mut();
            // The server fails a call's first request, then succeeds.
            if let Some(call) = call {
                headers.insert("x-call", call.to_string());
            }
            headers.insert("x-amz-target", "DynamoDB_20120810.ListTables");
            headers.insert("content-type", "application/x-amz-json-1.0");
            Ok(request)
        })
        .deserializer(deserialize);
    match route {
        Route::Sdk => builder.standard_retry(&RetryConfig::standard()).build(),
        Route::Plugin(plugin) => builder.runtime_plugin(plugin).build(),
    }
}

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

/// The shared scripts, and a `@retryable` error (which `ListTables` does
/// not model: only this test's deserializer reads the model).
fn scripts() -> Vec<(&'static str, Vec<Reply>, usize, bool)> {
    let conflict = Reply::error(400, "ReplicatedWriteConflictException");
    let mut scripts = support::scripts();
    scripts.push(("@retryable", vec![conflict, Reply::ok()], 2, true));
    scripts
}

#[tokio::test]
async fn scripted_failures_through_the_plugin() {
    let server = Server::start().await;
    let strategy = Arc::new(standard());
    for (name, replies, attempts, succeeds) in scripts() {
        server.script.reset();
        server.script.push(replies);
        let sleep = RecordingSleep::default();
        let plugin = RetryPlugin::new(Arc::clone(&strategy));
        let result = operation(&server, sleep.clone(), Route::Plugin(plugin))
            .invoke(None)
            .await;
        assert_eq!(server.script.requests(), attempts, "{name}");
        assert_eq!(result.is_ok(), succeeds, "{name}: {result:?}");
        let expected: Vec<_> = (1..attempts).map(|retry| bound(retry) / 2).collect();
        assert_eq!(sleep.waits(), expected, "{name}");
        // One operation, counted attempts, the strategy's maximum.
        let headers = server.script.attempt_headers();
        for (index, header) in headers.iter().enumerate() {
            let expected = format!("attempt={}; max=3", index + 1);
            assert!(header.starts_with(&expected), "{name}: {header}");
        }
        if let Err(SdkError::ServiceError(error)) = &result {
            assert!(error.err().meta.code().is_some(), "{name}");
        }
    }
    // Standard mode's accounting: a success refunds its last retry's 5
    // tokens; "500 x3" spent 10, "mixed" one retry of its two.
    assert_eq!(
        strategy.quota().available(),
        strategy.quota().capacity() - 15
    );
}

#[tokio::test]
async fn the_sdks_own_standard_strategy_makes_the_same_attempts_within_the_same_bounds() {
    let server = Server::start().await;
    for (name, replies, attempts, succeeds) in scripts() {
        for route in ["sdk", "rebound"] {
            server.script.reset();
            server.script.push(replies.clone());
            let sleep = RecordingSleep::default();
            let route = match route {
                "sdk" => Route::Sdk,
                _ => Route::Plugin(RetryPlugin::new(StandardRetryStrategy::new())),
            };
            let result = operation(&server, sleep.clone(), route).invoke(None).await;
            assert_eq!(server.script.requests(), attempts, "{name}");
            assert_eq!(result.is_ok(), succeeds, "{name}");
            let waits = sleep.waits();
            assert_eq!(waits.len(), attempts - 1, "{name}: {waits:?}");
            for (retry, wait) in waits.iter().enumerate() {
                assert!(*wait <= bound(retry + 1), "{name}: {wait:?}");
            }
        }
    }
}

/// Standard mode counting the tokens handed back as abandoned.
#[derive(Debug, Default)]
struct CountingAbandons {
    inner: StandardRetryStrategy,
    abandoned: AtomicU32,
}

impl RetryStrategy for CountingAbandons {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.inner.acquire_initial_token()
    }
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.inner.refresh_retry_token(token, failure)
    }
    fn record_success(&self, token: RetryToken) {
        self.inner.record_success(token);
    }
    fn abandon(&self, token: RetryToken) {
        self.abandoned.fetch_add(1, Ordering::SeqCst);
        self.inner.abandon(token);
    }
    fn attempt_limit(&self) -> Option<u32> {
        self.inner.attempt_limit()
    }
}

/// A sleeper whose waits never end.
#[derive(Debug)]
struct Forever;

impl AsyncSleep for Forever {
    fn sleep(&self, _duration: Duration) -> Sleep {
        Sleep::new(std::future::pending())
    }
}

#[tokio::test]
async fn an_operation_dropped_during_its_backoff_hands_its_token_back() {
    let server = Server::start().await;
    server.script.push([Reply::status(503)]);
    let strategy = Arc::new(CountingAbandons::default());
    let plugin = RetryPlugin::new(Arc::clone(&strategy));
    let operation = operation(&server, Forever, Route::Plugin(plugin));
    let call = operation.invoke(None);
    // The first attempt fails; the backoff never ends, so the call is cut.
    let cut = tokio::time::timeout(Duration::from_millis(200), call).await;
    assert!(cut.is_err(), "the backoff never ends");
    assert_eq!(server.script.requests(), 1);
    assert_eq!(strategy.abandoned.load(Ordering::SeqCst), 1);
}

/// Waits that advance a virtual clock, recorded.
#[derive(Debug, Clone)]
struct Advancing {
    clock: ManualClock,
    waits: Arc<Mutex<Vec<Duration>>>,
}

impl AsyncSleep for Advancing {
    fn sleep(&self, duration: Duration) -> Sleep {
        self.waits.lock().unwrap().push(duration);
        self.clock.advance(duration);
        Sleep::new(std::future::ready(()))
    }
}

#[tokio::test]
async fn a_refused_first_attempt_fails_with_a_typed_error_that_says_why() {
    let server = Server::start().await;
    let clock = ManualClock::new();
    let strategy = Arc::new(
        AdaptiveRetryStrategy::builder(standard())
            .wait_policy(WaitPolicy::FailFast)
            .clock(clock.clone())
            .build(),
    );
    let sleep = Advancing {
        clock: clock.clone(),
        waits: Arc::default(),
    };
    // A throttle empties the limiter's bucket: its retry is refused after
    // the backoff, before it is sent.
    server
        .script
        .push([Reply::error(400, "ThrottlingException")]);
    let plugin = RetryPlugin::new(Arc::clone(&strategy));
    let first = operation(&server, sleep.clone(), Route::Plugin(plugin.clone()))
        .invoke(None)
        .await
        .unwrap_err();
    assert_eq!(server.script.requests(), 1);
    let stopped = retry_stopped(&first);
    assert_eq!(stopped.stopped().attempts(), 1);

    // The next operation's first attempt is refused too.
    let second = operation(&server, sleep, Route::Plugin(plugin))
        .invoke(None)
        .await
        .unwrap_err();
    assert_eq!(server.script.requests(), 1, "a refused attempt is not sent");
    let stopped = retry_stopped(&second);
    assert_eq!(stopped.stopped().attempts(), 0);
    assert!(matches!(
        stopped.stopped().reason().strategy(),
        Some(TokenAcquisitionFailed::RateLimited { .. })
    ));
    assert!(stopped.to_string().contains("rate limited"), "{stopped}");
}

/// The `RetryStopped` among `error`'s sources.
fn retry_stopped<'a>(error: &'a (dyn std::error::Error + 'static)) -> &'a RetryStopped {
    std::iter::successors(Some(error), |error| error.source())
        .find_map(|error| error.downcast_ref::<RetryStopped>())
        .unwrap_or_else(|| panic!("no RetryStopped in {error:?}"))
}

#[tokio::test]
async fn the_adaptive_permit_is_taken_before_every_attempt() {
    let server = Server::start().await;
    let clock = ManualClock::new();
    let strategy = Arc::new(
        AdaptiveRetryStrategy::builder(standard())
            .clock(clock.clone())
            .build(),
    );
    let sleep = Advancing {
        clock: clock.clone(),
        waits: Arc::default(),
    };
    let throttled = || Reply::error(400, "ThrottlingException");
    server.script.push([throttled(), throttled(), Reply::ok()]);
    let plugin = RetryPlugin::new(Arc::clone(&strategy));
    let result = operation(&server, sleep.clone(), Route::Plugin(plugin))
        .invoke(None)
        .await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(server.script.requests(), 3);
    // Each retry waited its backoff, then (the bucket emptied by the
    // throttle) for a send permit: more waits than retries, and at least
    // the backoffs in all.
    let waits = sleep.waits.lock().unwrap().clone();
    assert!(waits.len() > 2, "{waits:?}");
    let total: Duration = waits.iter().sum();
    assert!(total >= bound(1) / 2 + bound(2) / 2, "{waits:?}");
}

#[derive(Debug, Default)]
struct Heard(Mutex<Vec<String>>);

impl RetryListener for Heard {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        let code = event.failure().error_code().map(str::to_owned);
        let line = format!("retry {} {:?} {code:?}", event.attempt(), event.delay());
        self.0.lock().unwrap().push(line);
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let status = event.failure().and_then(|failure| failure.http_status());
        self.0
            .lock()
            .unwrap()
            .push(format!("give up {} {status:?}", event.attempts()));
    }
}

#[tokio::test]
async fn the_listener_hears_the_plugins_retries_and_give_up() {
    let server = Server::start().await;
    let heard = Arc::new(Heard::default());
    let plugin = RetryPlugin::new(standard()).listener(Arc::clone(&heard));
    server.script.push([
        Reply::error(400, "ThrottlingException"),
        Reply::error(500, "InternalServerError"),
        Reply::error(400, "ValidationException"),
    ]);
    let result = operation(&server, RecordingSleep::default(), Route::Plugin(plugin))
        .invoke(None)
        .await;
    assert!(result.is_err());
    assert_eq!(
        *heard.0.lock().unwrap(),
        [
            "retry 1 500ms Some(\"ThrottlingException\")",
            "retry 2 1s Some(\"InternalServerError\")",
            "give up 3 Some(400)",
        ]
    );
}

#[tokio::test]
async fn the_budget_bounds_the_plugins_waits() {
    let server = Server::start().await;
    let plugin = RetryPlugin::new(standard()).budget(Duration::from_millis(100));
    server.script.push([Reply::status(503), Reply::ok()]);
    let sleep = RecordingSleep::default();
    let result = operation(&server, sleep.clone(), Route::Plugin(plugin))
        .invoke(None)
        .await;
    // The 500 ms backoff would end past the budget: the 503 is returned.
    assert_eq!(server.script.requests(), 1);
    assert!(sleep.waits().is_empty());
    match result {
        Err(SdkError::ServiceError(error)) => assert_eq!(error.raw().status().as_u16(), 503),
        other => panic!("expected the 503, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_operations_each_keep_their_own_token() {
    let server = Server::start().await;
    let strategy = Arc::new(standard());
    let plugin = RetryPlugin::new(Arc::clone(&strategy));
    let operation = Arc::new(operation(
        &server,
        RecordingSleep::default(),
        Route::Plugin(plugin),
    ));
    for round in 0..3 {
        server.script.reset();
        let calls: Vec<_> = (0..100)
            .map(|call| {
                let operation = Arc::clone(&operation);
                tokio::spawn(async move { operation.invoke(Some(round * 1000 + call)).await })
            })
            .collect();
        for call in calls {
            call.await.unwrap().unwrap();
        }
        // Every call failed once and succeeded on its retry: 200 requests,
        // and each success refunded its own retry's 5 tokens.
        assert_eq!(server.script.requests(), 200, "round {round}");
        assert_eq!(
            strategy.quota().available(),
            strategy.quota().capacity(),
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_retry_after_hint_is_read_from_the_response() {
    let server = Server::start().await;
    // Hints honoured as a minimum, as `for_http()` does (behaviour 2.0
    // ignores them); the jitter fixed, so that the backoff alone (500 ms,
    // then 1 s) would be shorter than either hint.
    let strategy = StandardRetryStrategy::builder()
        .retry_after(rebound_runtime::backoff::RetryAfterPolicy::HTTP)
        .random(|| 0.5)
        .build();
    let sleep = RecordingSleep::default();
    let operation = operation(
        &server,
        sleep.clone(),
        Route::Plugin(RetryPlugin::new(strategy)),
    );
    server.script.push([
        Reply::status(503).with_header("retry-after", "3"),
        Reply::status(503).with_header("x-amz-retry-after", "1500"),
        Reply::ok(),
    ]);
    operation.invoke(None).await.unwrap();
    assert_eq!(
        sleep.waits(),
        [Duration::from_secs(3), Duration::from_millis(1500)]
    );
}
