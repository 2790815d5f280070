//! `RetryPlugin` through aws-smithy-runtime's real orchestrator: an
//! `Operation` calling the local awsJson1_0 server, with the classifiers
//! and the attempt header a generated DynamoDB client installs, on the same
//! scripts as the wrapper's tests; beside it, the same operation with the
//! SDK's own standard strategy.

#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/otel.rs"]
mod otel;
mod support;

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_runtime::request_info::RequestInfoInterceptor;
use aws_runtime::retries::classifiers::AwsErrorCodeClassifier;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_async::rt::sleep::{AsyncSleep, Sleep};
use aws_smithy_runtime::client::orchestrator::operation::{Operation, OperationBuilder};
use aws_smithy_runtime::client::retries::classifiers::{
    HttpStatusCodeClassifier, ModeledAsRetryableClassifier, TransientErrorClassifier,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse, OrchestratorError};
use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_runtime_api::client::runtime_plugin::StaticRuntimePlugin;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::Layer;
use aws_smithy_types::error::ErrorMetadata;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::{ErrorKind, ProvideErrorKind, RetryConfig};
use aws_smithy_types::timeout::TimeoutConfig;
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, Classified, ErrorInfo, FailureInfo, GiveUpEvent, NeverRetryStrategy,
    RetryEvent, RetryInfo, RetryListener, RetrySafety, RetryStrategy, RetryToken,
    StandardRetryStrategy, TokenAcquisitionFailed,
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
    let builder = operation_builder(server, sleep);
    match route {
        Route::Sdk => builder.standard_retry(&RetryConfig::standard()).build(),
        Route::Plugin(plugin) => builder.runtime_plugin(plugin).build(),
    }
}

/// The operation a generated DynamoDB client would build, before its retry
/// strategy is chosen.
fn operation_builder(
    server: &Server,
    sleep: impl AsyncSleep + 'static,
) -> OperationBuilder<Option<usize>, (), DynamoError> {
    Operation::builder()
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
        .deserializer(deserialize)
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
    assert_eq!(stopped.attempts(), 1);

    // The next operation's first attempt is refused too.
    let second = operation(&server, sleep, Route::Plugin(plugin))
        .invoke(None)
        .await
        .unwrap_err();
    assert_eq!(server.script.requests(), 1, "a refused attempt is not sent");
    let stopped = retry_stopped(&second);
    assert_eq!(stopped.attempts(), 0);
    assert!(matches!(
        stopped.reason().strategy(),
        Some(TokenAcquisitionFailed::RateLimited { .. })
    ));
    assert!(stopped.to_string().contains("rate limited"), "{stopped}");
}

/// The `RetryStopped` in `error`, found as the docs say; `classify` calls
/// the error not retryable.
fn retry_stopped(error: &SdkError<DynamoError, HttpResponse>) -> &RetryStopped {
    assert!(matches!(error, SdkError::DispatchFailure(_)), "{error:?}");
    assert_eq!(
        rebound_smithy::classify(error).retry_safety(),
        rebound_runtime::RetrySafety::No
    );
    RetryStopped::find(error).unwrap_or_else(|| panic!("no RetryStopped in {error:?}"))
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
    let heard = Arc::new(Heard::default());
    let plugin = RetryPlugin::new(standard())
        .budget(Duration::from_millis(100))
        .listener(Arc::clone(&heard));
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
    // A retry the budget refuses is a give-up, not a retry.
    assert_eq!(*heard.0.lock().unwrap(), ["give up 1 Some(503)"]);
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

/// The last failure the strategy was told of, as it was classified.
#[derive(Debug, Default)]
struct LastFailure(Mutex<Option<Classified>>);

impl RetryListener for LastFailure {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        *self.0.lock().unwrap() = Some(Classified::from_failure(event.failure()));
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        *self.0.lock().unwrap() = event.failure().map(Classified::from_failure);
    }
}

#[tokio::test]
async fn one_response_gets_one_verdict_on_both_routes() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        support::config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let responses = [
        ("500", Reply::error(500, "InternalServerError")),
        ("503, no body", Reply::status(503)),
        (
            "502, Retry-After",
            Reply::status(502).with_header("retry-after", "3"),
        ),
        ("504, no body", Reply::status(504)),
        ("429, no body", Reply::status(429)),
        ("413, no body", Reply::status(413)),
        ("throttling", Reply::error(400, "ThrottlingException")),
        (
            "throughput, x-amz-retry-after",
            Reply::error(400, "ProvisionedThroughputExceededException")
                .with_header("x-amz-retry-after", "1500"),
        ),
        ("request limit", Reply::error(400, "RequestLimitExceeded")),
        (
            "transient code",
            Reply::error(400, "RequestTimeoutException"),
        ),
        ("throttling code on a 503", Reply::error(503, "SlowDown")),
        ("validation", Reply::error(400, "ValidationException")),
        (
            "@retryable",
            Reply::error(400, "ReplicatedWriteConflictException"),
        ),
        ("unknown code on a 500", Reply::error(500, "SomethingBroke")),
    ];
    let mut verdicts = Vec::new();
    for (name, reply) in responses {
        // `send`'s route: what `classify` makes of the SDK's error
        // (PutItem models the `@retryable` error, as the plugin's
        // deserializer here does).
        server.script.reset();
        server.script.push([reply.clone()]);
        let error = client
            .put_item()
            .table_name("table")
            .item("key", AttributeValue::S("value".into()))
            .send()
            .await
            .unwrap_err();
        // As a listener hears it (its fault read from the status if unset).
        let sent = Classified::from_failure(&rebound_smithy::classify(&error));
        // The plugin's route: what its strategy was told.
        server.script.reset();
        server.script.push([reply]);
        let heard = Arc::new(LastFailure::default());
        let plugin = RetryPlugin::new(NeverRetryStrategy).listener(Arc::clone(&heard));
        let _ = operation(&server, RecordingSleep::default(), Route::Plugin(plugin))
            .invoke(None)
            .await;
        let plugged = heard.0.lock().unwrap().clone().expect(name);
        assert_eq!(sent, plugged, "{name}");
        verdicts.push((name, sent));
    }
    // What they agree on is what the SDK's own classifiers say.
    let verdict = |name: &str| &verdicts.iter().find(|(n, _)| *n == name).unwrap().1;
    for name in [
        "throttling",
        "throughput, x-amz-retry-after",
        "request limit",
        "throttling code on a 503",
    ] {
        assert!(verdict(name).is_throttle(), "{name}");
    }
    for name in [
        "500",
        "503, no body",
        "504, no body",
        "transient code",
        "@retryable",
        "unknown code on a 500",
    ] {
        let failure = verdict(name);
        assert_eq!(failure.retry_safety(), RetrySafety::Yes, "{name}");
        assert!(!failure.is_throttle(), "{name}");
    }
    for name in ["429, no body", "413, no body", "validation"] {
        assert_eq!(
            verdict(name).retry_safety(),
            RetrySafety::Maybe,
            "{name}: the strategy's rules judge"
        );
    }
    assert_eq!(
        verdict("502, Retry-After").retry_after(),
        Some(Duration::from_secs(3))
    );
    assert_eq!(
        verdict("throughput, x-amz-retry-after").retry_after(),
        Some(Duration::from_millis(1500))
    );
    assert_eq!(
        verdict("validation").error_code(),
        Some("ValidationException")
    );
    assert_eq!(verdict("413, no body").http_status(), Some(413));
}

#[tokio::test]
async fn an_override_of_max_attempts_leaves_the_header_at_the_limit_rebound_enforces() {
    let server = Server::start().await;
    server
        .script
        .push(vec![Reply::error(500, "InternalServerError"); 5]);
    // An operation's own retry configuration, applied after the plugin's,
    // as a `config_override` is.
    let mut layer = Layer::new("override");
    layer.store_put(RetryConfig::standard().with_max_attempts(5));
    let config_override = StaticRuntimePlugin::new().with_config(layer.freeze());
    let result = operation_builder(&server, RecordingSleep::default())
        .runtime_plugin(RetryPlugin::new(standard()))
        .runtime_plugin(config_override)
        .build()
        .invoke(None)
        .await;
    assert!(result.is_err());
    assert_eq!(server.script.requests(), 3, "rebound's limit");
    assert_eq!(
        server.script.attempt_headers(),
        ["attempt=1; max=3", "attempt=2; max=3", "attempt=3; max=3"]
    );
}

#[tokio::test]
async fn closure_hooks_hear_the_plugins_retries_and_give_up() {
    let server = Server::start().await;
    let retries = Arc::new(Mutex::new(Vec::new()));
    let give_ups = Arc::new(AtomicU32::new(0));
    let heard = Arc::new(Heard::default());
    let (on_retry, on_give_up) = (Arc::clone(&retries), Arc::clone(&give_ups));
    let plugin = RetryPlugin::new(standard())
        .listener(Arc::clone(&heard))
        .on_retry(move |event| on_retry.lock().unwrap().push(event.attempt()));
    server
        .script
        .push(vec![Reply::error(500, "InternalServerError"); 3]);
    let _ = operation(
        &server,
        RecordingSleep::default(),
        Route::Plugin(plugin.clone()),
    )
    .invoke(None)
    .await;
    assert_eq!(*retries.lock().unwrap(), [1, 2]);
    // The give-up still goes to the listener set before the hook.
    assert_eq!(*heard.0.lock().unwrap(), ["give up 3 Some(500)"]);

    let plugin = plugin.on_give_up(move |event| {
        assert_eq!(event.attempts(), 3);
        on_give_up.fetch_add(1, Ordering::SeqCst);
    });
    server.script.reset();
    server
        .script
        .push(vec![Reply::error(500, "InternalServerError"); 3]);
    let _ = operation(&server, RecordingSleep::default(), Route::Plugin(plugin))
        .invoke(None)
        .await;
    assert_eq!(*retries.lock().unwrap(), [1, 2, 1, 2]);
    assert_eq!(give_ups.load(Ordering::SeqCst), 1);
    assert_eq!(
        heard.0.lock().unwrap().len(),
        1,
        "the hook replaced the listener's give-up"
    );
}

#[tokio::test]
async fn one_strategy_shared_through_an_arc_serves_the_plugin_and_send() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        support::config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let shared = Arc::new(standard());
    let outage = || vec![Reply::error(500, "InternalServerError"); 3];
    server.script.push(outage());
    let plugin = RetryPlugin::new(Arc::clone(&shared));
    let _ = operation(&server, RecordingSleep::default(), Route::Plugin(plugin))
        .invoke(None)
        .await;
    server.script.reset();
    server.script.push(outage());
    let retry =
        rebound_runtime::Retry::new(Arc::clone(&shared)).sleeper(|_| std::future::ready(()));
    let _ = rebound_smithy::send(&retry, || client.list_tables().send()).await;
    // Two retries of 5 tokens on each route, from the one quota.
    assert_eq!(shared.quota().available(), shared.quota().capacity() - 20);
}

/// The observer counts the plugin's attempts as the orchestrator makes them:
/// a throttle and a 500 then a success, then a validation error; read back
/// through an OpenTelemetry meter.
#[tokio::test]
async fn an_observer_counts_the_plugins_attempts() {
    let server = Server::start().await;
    let strategy = Arc::new(standard());
    let meter = otel::MemoryMeter::new();
    let observer = Arc::new(rebound_runtime::opentelemetry::observer(
        &meter.meter(),
        "dynamodb",
    ));
    observer.watch(Arc::clone(&strategy));
    server.script.push([
        Reply::error(400, "ThrottlingException"),
        Reply::error(500, "InternalServerError"),
        Reply::ok(),
        Reply::error(400, "ValidationException"),
    ]);
    for _ in 0..2 {
        let plugin = RetryPlugin::new(Arc::clone(&strategy)).listener(Arc::clone(&observer));
        let _ = operation(&server, RecordingSleep::default(), Route::Plugin(plugin))
            .invoke(None)
            .await;
    }
    assert_eq!(server.script.requests(), 4);
    let exported = meter.collect();
    let attempts = |with: &[(&str, &str)]| {
        let mut with = with.to_vec();
        with.push(("rebound.client.name", "dynamodb"));
        exported.number("rebound.client.attempts", &with)
    };
    let outcome = |o| ("rebound.attempt.outcome", o);
    let kind = |k| ("rebound.failure.kind", k);
    assert_eq!(attempts(&[outcome("success")]), 1.0);
    assert_eq!(
        attempts(&[outcome("retryable_failure"), kind("throttle")]),
        1.0
    );
    assert_eq!(
        attempts(&[outcome("retryable_failure"), kind("transient")]),
        1.0
    );
    assert_eq!(
        attempts(&[outcome("non_retryable_failure"), kind("other")]),
        1.0
    );
    assert_eq!(attempts(&[]), 4.0);
    let reason = ("rebound.give_up.reason", "not_retryable");
    assert_eq!(exported.number("rebound.client.give_ups", &[reason]), 1.0);
    assert_eq!(
        exported.histogram("rebound.client.request.retries", &[]),
        (1, 2.0)
    );
    assert_eq!(
        exported.number("rebound.quota.available", &[]),
        f64::from(strategy.quota().available())
    );
}
