//! `connect` without a server: a bad URL, and a store that does not answer, strict or not.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use rebound_redis::{FleetError, FleetQuotaConfig, connect};

/// A local port with nothing listening on it (it was free a moment ago).
fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("redis://127.0.0.1:{port}/")
}

#[tokio::test]
async fn a_url_that_is_not_a_redis_url_is_a_typed_error() {
    let config = FleetQuotaConfig::builder("f").build().unwrap();
    for url in ["http://127.0.0.1/", "not a url", ""] {
        let result = connect(url, config.clone()).await;
        assert!(
            matches!(result, Err(FleetError::InvalidUrl(_))),
            "{url}: {result:?}"
        );
    }
}

#[tokio::test]
async fn strict_start_fails_when_the_store_is_unreachable() {
    let config = FleetQuotaConfig::builder("f")
        .strict_start(true)
        .connect_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let started = Instant::now();
    let result = connect(&closed_port_url(), config).await;
    match result {
        Err(FleetError::Unreachable { waited, source }) => {
            assert_eq!(waited, Duration::from_secs(2));
            // A refused connection is reported at once, with its cause.
            let source = source.expect("the connection error");
            assert!(
                source.is_connection_refusal() || source.is_io_error(),
                "{source:?}"
            );
        }
        other => panic!("expected Unreachable, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn without_strict_start_calls_fail_within_the_call_timeout() {
    let timeout = Duration::from_millis(50);
    let config = FleetQuotaConfig::builder("f")
        .call_timeout(timeout)
        .build()
        .unwrap();
    let fleet = connect(&closed_port_url(), config)
        .await
        .expect("connects lazily");
    for _ in 0..3 {
        let started = Instant::now();
        let result = fleet.lease(5).await;
        let elapsed = started.elapsed();
        assert!(
            matches!(result, Err(FleetError::Timeout(_) | FleetError::Redis(_))),
            "{result:?}"
        );
        assert!(
            elapsed < timeout + Duration::from_millis(200),
            "{elapsed:?}"
        );
    }
}
