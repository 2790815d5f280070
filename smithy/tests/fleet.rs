//! rebound-redis's fleet quota and fleet limiter inside a generated client:
//! the strategies that draw from them are ordinary rebound strategies, so
//! the wrapper (around `aws-sdk-dynamodb`) and the plugin (on the
//! orchestrator) take them as they are. Against a `redis-server` the test
//! starts; without one the test is skipped, unless `REBOUND_REQUIRE_REDIS=1`.

mod support;

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_smithy_runtime::client::orchestrator::operation::Operation;
use aws_smithy_runtime::client::retries::classifiers::HttpStatusCodeClassifier;
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse, OrchestratorError};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::retry::RetryConfig;
use rebound_redis::{FleetLimiter, FleetQuota, FleetQuotaConfig, FleetState};
use rebound_runtime::{AdaptiveRetryStrategy, Retry, StandardRetryStrategy};
use rebound_smithy::RetryPlugin;
use support::{RecordingSleep, Reply, Server, config};

/// A `redis-server` on a free port, killed when dropped.
struct Redis {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Redis {
    fn start() -> Option<Self> {
        let port = TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let dir = tempfile::tempdir().ok()?;
        let binary =
            std::env::var("REBOUND_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let spawned = Command::new(&binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = spawned else {
            return skip(&format!("cannot run {binary}"));
        };
        let redis = Self {
            child,
            port,
            _dir: dir,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                return skip("redis-server did not start within 10 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Some(redis)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn skip<T>(reason: &str) -> Option<T> {
    assert!(
        std::env::var("REBOUND_REQUIRE_REDIS").as_deref() != Ok("1"),
        "redis-server is required (REBOUND_REQUIRE_REDIS=1): {reason}"
    );
    eprintln!("skipped: {reason}");
    None
}

fn fleet_config(fleet: &str) -> FleetQuotaConfig {
    FleetQuotaConfig::builder(fleet)
        .strict_start(true)
        .call_timeout(Duration::from_secs(2))
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_wrapper_retries_on_the_fleet_quota() {
    let Some(redis) = Redis::start() else { return };
    let quota = FleetQuota::connect(&redis.url(), fleet_config("dynamodb"))
        .await
        .unwrap();
    assert_eq!(quota.state(), FleetState::Joined);
    let strategy = StandardRetryStrategy::builder()
        .quota(Arc::clone(quota.retry_quota()))
        .random(|| 0.5)
        .build();

    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    server
        .script
        .push(vec![Reply::error(500, "InternalServerError"); 3]);
    let retry = Retry::new(&strategy).sleeper(|_| std::future::ready(()));
    let before = quota.retry_quota().available();
    let error = rebound_smithy::send_detailed(&retry, || client.list_tables().send())
        .await
        .unwrap_err();
    assert_eq!(error.attempts(), 3);
    assert_eq!(server.script.requests(), 3);
    // Two retries of 5 tokens, drawn from the fleet's lease.
    assert_eq!(before - quota.retry_quota().available(), 10);
    assert_eq!(quota.state(), FleetState::Joined);
    quota.close().await;
}

#[tokio::test]
async fn the_plugin_retries_on_the_fleet_quota_and_limiter() {
    let Some(redis) = Redis::start() else { return };
    let quota = FleetQuota::connect(&redis.url(), fleet_config("orders"))
        .await
        .unwrap();
    let standard = StandardRetryStrategy::builder()
        .quota(Arc::clone(quota.retry_quota()))
        .random(|| 0.5)
        .build();
    let strategy = AdaptiveRetryStrategy::builder(standard).build();
    let limiter = FleetLimiter::connect(
        &redis.url(),
        fleet_config("orders"),
        Arc::new(strategy.clone()),
    )
    .await
    .unwrap();
    assert_eq!(limiter.state(), FleetState::Joined);

    let server = Server::start().await;
    server.script.push([Reply::status(503), Reply::ok()]);
    let sleep = RecordingSleep::default();
    let operation = Operation::builder()
        .service_name("orders")
        .operation_name("Get")
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .endpoint_url(&server.endpoint())
        .no_auth()
        .sleep_impl(sleep.clone())
        // The recording sleeper returns at once: no timeouts on it.
        .timeout_config(aws_smithy_types::timeout::TimeoutConfig::disabled())
        .retry_classifier(HttpStatusCodeClassifier::default())
        .runtime_plugin(RetryPlugin::new(strategy))
        .serializer(|_: ()| Ok(HttpRequest::new(SdkBody::empty())))
        .deserializer(
            |response: &HttpResponse| match response.status().is_success() {
                true => Ok(()),
                false => Err(OrchestratorError::<std::io::Error>::other(
                    "an error response",
                )),
            },
        )
        .build();
    let before = quota.retry_quota().available();
    operation.invoke(()).await.unwrap();
    assert_eq!(server.script.requests(), 2);
    assert_eq!(sleep.waits(), [Duration::from_millis(500)]);
    // The retry's 5 tokens came back with the success.
    assert_eq!(quota.retry_quota().available(), before);
    limiter.close().await;
    quota.close().await;
}
