//! A local server speaking awsJson1_0 as DynamoDB does, replying from a
//! script, and DynamoDB clients pointed at it: plain HTTP, fixed
//! credentials, and a sleeper that records each wait and returns at once
//! (no test sleeps for real).
#![allow(dead_code, unreachable_pub)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_credential_types::Credentials;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{
    BehaviorVersion, IdentityCache, Region, StalledStreamProtectionConfig,
};
use aws_smithy_async::rt::sleep::{AsyncSleep, SharedAsyncSleep, Sleep};
use aws_smithy_types::retry::RetryConfig;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// The awsJson error's `__type` (with DynamoDB's namespace), if any.
    pub error: Option<String>,
    pub headers: Vec<(&'static str, String)>,
    /// A success's JSON body, if not `{}`.
    pub body: Option<String>,
}

impl Reply {
    /// A success for any operation: an empty JSON object (ListTables: no
    /// tables; PutItem: no attributes).
    pub fn ok() -> Self {
        Self {
            status: 200,
            error: None,
            headers: Vec::new(),
            body: None,
        }
    }

    /// A success with `body`, a JSON document (a page of a listing, say).
    pub fn json(body: serde_json::Value) -> Self {
        Self {
            body: Some(body.to_string()),
            ..Self::ok()
        }
    }

    /// A modeled or unmodeled error, as DynamoDB sends it.
    pub fn error(status: u16, code: &str) -> Self {
        Self {
            status,
            error: Some(format!("com.amazonaws.dynamodb.v20120810#{code}")),
            headers: Vec::new(),
            body: None,
        }
    }

    /// A bare status with an empty body (a load balancer's 503, say).
    pub fn status(status: u16) -> Self {
        Self {
            status,
            error: None,
            headers: Vec::new(),
            body: None,
        }
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// The server's shared state: the replies still to send, and what each
/// request carried.
#[derive(Debug, Default)]
pub struct Script {
    replies: Mutex<VecDeque<Reply>>,
    /// Each request's `amz-sdk-request` header, in arrival order.
    attempt_headers: Mutex<Vec<String>>,
    /// Each request's body, in arrival order.
    bodies: Mutex<Vec<serde_json::Value>>,
    /// The `x-call` values seen: a request carrying one gets a 500 the
    /// first time its value is seen, a success after.
    calls: Mutex<std::collections::HashSet<String>>,
}

impl Script {
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        self.replies.lock().unwrap().extend(replies);
    }

    /// How many requests arrived.
    pub fn requests(&self) -> usize {
        self.attempt_headers.lock().unwrap().len()
    }

    pub fn attempt_headers(&self) -> Vec<String> {
        self.attempt_headers.lock().unwrap().clone()
    }

    /// Each request's JSON body, in arrival order.
    pub fn bodies(&self) -> Vec<serde_json::Value> {
        self.bodies.lock().unwrap().clone()
    }

    fn next_reply(&self) -> Reply {
        let mut replies = self.replies.lock().unwrap();
        replies.pop_front().unwrap_or_else(Reply::ok)
    }

    /// Forgets the replies left.
    pub fn reset_replies(&self) {
        self.replies.lock().unwrap().clear();
    }

    /// Forgets the requests seen so far and any replies left.
    pub fn reset(&self) {
        self.replies.lock().unwrap().clear();
        self.attempt_headers.lock().unwrap().clear();
        self.bodies.lock().unwrap().clear();
        self.calls.lock().unwrap().clear();
    }

    fn reply(&self, headers: &HeaderMap, body: &[u8]) -> Response {
        let body = serde_json::from_slice(body).unwrap_or(serde_json::Value::Null);
        self.bodies.lock().unwrap().push(body);
        let header = headers
            .get("amz-sdk-request")
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_owned();
        self.attempt_headers.lock().unwrap().push(header);
        let call = headers.get("x-call").and_then(|value| value.to_str().ok());
        let reply = match call {
            Some(call) if self.calls.lock().unwrap().insert(call.to_owned()) => {
                Reply::error(500, "InternalServerError")
            }
            Some(_) => Reply::ok(),
            None => self.next_reply(),
        };
        let body = match &reply.error {
            Some(code) => serde_json::json!({ "__type": code, "message": "scripted" }).to_string(),
            None if reply.status == 200 => reply.body.clone().unwrap_or_else(|| "{}".to_owned()),
            None => String::new(),
        };
        let mut response = (StatusCode::from_u16(reply.status).unwrap(), body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            "content-type",
            HeaderValue::from_static("application/x-amz-json-1.0"),
        );
        for (name, value) in reply.headers {
            headers.insert(name, HeaderValue::from_str(&value).unwrap());
        }
        response
    }
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub script: Arc<Script>,
}

impl Server {
    /// Starts a server on a free local port, on the current tokio runtime.
    pub async fn start() -> Self {
        let script = Arc::new(Script::default());
        let state = Arc::clone(&script);
        let app = axum::Router::new().fallback(move |headers: HeaderMap, body: Bytes| {
            let state = Arc::clone(&state);
            async move { state.reply(&headers, &body) }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { addr, script }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Records each wait it is asked for and returns at once.
#[derive(Debug, Clone, Default)]
pub struct RecordingSleep(Arc<Mutex<Vec<Duration>>>);

impl RecordingSleep {
    pub fn waits(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }

    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

impl AsyncSleep for RecordingSleep {
    fn sleep(&self, duration: Duration) -> Sleep {
        self.0.lock().unwrap().push(duration);
        Sleep::new(std::future::ready(()))
    }
}

/// A DynamoDB client config for `server`: plain HTTP, fixed credentials,
/// `retry` as the client's own retry configuration, waits recorded by
/// `sleep`. Behaviour version 2025-08-07 (deprecated, and chosen for it):
/// with the retry configuration unset it makes one attempt, where 2026-01-12
/// retries by default.
pub fn config(
    server: &Server,
    retry: RetryConfig,
    sleep: &RecordingSleep,
) -> aws_sdk_dynamodb::config::Builder {
    config_at(server, published_standard_mode(), sleep).retry_config(retry)
}

/// [`config`] under behaviour version `version`, with the retry
/// configuration left unset: the behaviour version's default.
pub fn config_at(
    server: &Server,
    version: BehaviorVersion,
    sleep: &RecordingSleep,
) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(version)
        .region(Region::new("us-east-1"))
        .endpoint_url(server.endpoint())
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "test"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .sleep_impl(SharedAsyncSleep::new(sleep.clone()))
        // Nothing else sleeps on the recording sleeper: no timeouts, no
        // stalled-stream checks, no identity cache refreshes.
        .timeout_config(TimeoutConfig::disabled())
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
        .identity_cache(IdentityCache::no_cache())
}

/// The newest behaviour version without retry behaviour 2.1.
#[allow(deprecated)]
pub fn published_standard_mode() -> BehaviorVersion {
    BehaviorVersion::v2025_08_07()
}

/// The error shapes of the public DynamoDB Smithy model (2012-08-10) and
/// their traits, extracted from the model into `tests/data`.
#[derive(Debug)]
pub struct ModeledError {
    pub name: String,
    pub server_fault: bool,
    pub retryable: bool,
    pub throttling: bool,
    pub http_status: Option<u16>,
}

pub fn dynamodb_errors() -> Vec<ModeledError> {
    let text = include_str!("../data/dynamodb_errors.json");
    let shapes: Vec<serde_json::Value> = serde_json::from_str(text).unwrap();
    shapes
        .into_iter()
        .map(|shape| ModeledError {
            name: shape["name"].as_str().unwrap().to_owned(),
            server_fault: shape["fault"] == "server",
            retryable: shape["retryable"].as_bool().unwrap(),
            throttling: shape["throttling"].as_bool().unwrap(),
            http_status: shape["httpError"].as_u64().map(|status| status as u16),
        })
        .collect()
}

/// The scripts every test runs: the replies, then how many attempts
/// standard mode makes and whether the call succeeds.
pub fn scripts() -> Vec<(&'static str, Vec<Reply>, usize, bool)> {
    let throughput = || Reply::error(400, "ProvisionedThroughputExceededException");
    vec![
        (
            "500",
            vec![Reply::error(500, "InternalServerError"), Reply::ok()],
            2,
            true,
        ),
        ("503", vec![Reply::status(503), Reply::ok()], 2, true),
        ("throughput", vec![throughput(), Reply::ok()], 2, true),
        (
            "throttling",
            vec![Reply::error(400, "ThrottlingException"), Reply::ok()],
            2,
            true,
        ),
        (
            "validation",
            vec![Reply::error(400, "ValidationException")],
            1,
            false,
        ),
        (
            "500 x3",
            vec![Reply::error(500, "InternalServerError"); 3],
            3,
            false,
        ),
        (
            "mixed",
            vec![Reply::status(503), throughput(), Reply::ok()],
            3,
            true,
        ),
    ]
}

/// Standard mode's published bound on the wait before retry `n` (1-based):
/// full jitter under min(1 s x 2^(n-1), 20 s).
pub fn bound(retry: usize) -> Duration {
    Duration::from_secs(1 << (retry - 1).min(5)).min(Duration::from_secs(20))
}
