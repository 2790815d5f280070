//! The runtime's strategies drawing from a fleet quota, against a real `redis-server`: a
//! `StandardRetryStrategy` built on `FleetQuota::retry_quota` is the same strategy, with the
//! fleet's capacity shared by every process.

mod support;

use std::sync::Arc;
use std::time::Duration;

use rebound_redis::{FleetQuota, FleetState};
use rebound_runtime::{
    Classified, Retry, RetryStrategy, StandardRetryStrategy, StopReason, TokenAcquisitionFailed,
};
use support::{RedisServer, client, failing_request, poll};

/// Two processes' strategies (two `FleetQuota`s on one fleet of 100 tokens, leases of 25)
/// retry failing requests until the fleet's pool is empty: together they get exactly
/// 100 / 5 = 20 retries, and then every request is refused its first retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strategies_share_the_fleet_capacity() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "strategies";
    let tune = |b: rebound_redis::FleetQuotaConfigBuilder| {
        b.capacity(100)
            .lease_ttl(Duration::from_secs(2))
            .refresh_period(Duration::from_millis(50))
            .call_timeout(Duration::from_millis(200))
    };
    let quotas = [
        FleetQuota::start(client(&server, fleet, tune).await).await,
        FleetQuota::start(client(&server, fleet, tune).await).await,
    ];
    let strategies: Vec<_> = quotas
        .iter()
        .map(|quota| {
            StandardRetryStrategy::builder()
                .quota(Arc::clone(quota.retry_quota()))
                .random(|| 0.0)
                .build()
        })
        .collect();
    for (strategy, quota) in strategies.iter().zip(&quotas) {
        assert_eq!(strategy.quota_left(), Some(25));
        assert_eq!(strategy.quota().capacity(), 100);
        assert_eq!(quota.state(), FleetState::Joined);
    }
    let mut retries = 0;
    let drained = poll(Duration::from_secs(5), || {
        for strategy in &strategies {
            retries += failing_request(strategy);
        }
        assert!(
            retries <= 20,
            "{retries} retries from a fleet of 100 tokens"
        );
        let snapshot = server.snapshot(fleet);
        let done = retries == 20 && snapshot.available == Some(0);
        async move { done.then_some(()) }
    })
    .await;
    assert!(
        drained.is_some(),
        "{retries} retries, {:?}",
        server.snapshot(fleet)
    );
    // The pool and both leases are empty: no strategy gets another retry.
    let refused = Retry::new(&strategies[0])
        .sleeper(|_: Duration| ())
        .run_classified(|_| Err::<(), _>("unavailable"), |_| Classified::retryable())
        .unwrap_err();
    assert_eq!(refused.attempts(), 1);
    assert!(
        matches!(
            refused.reason(),
            StopReason::Strategy(TokenAcquisitionFailed::QuotaExhausted { .. })
        ),
        "{refused}"
    );
    server.snapshot(fleet).assert_invariant("after draining");
}

/// A success after a retry refunds the retry's cost into the lease's balance, through the
/// strategy's own refund path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_refunds_into_the_lease() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let quota = FleetQuota::start(client(&server, "refunds", |b| b.capacity(100)).await).await;
    let strategy = StandardRetryStrategy::builder()
        .quota(Arc::clone(quota.retry_quota()))
        .random(|| 0.0)
        .build();
    let answer = Retry::new(&strategy)
        .sleeper(|_: Duration| ())
        .run_classified(
            |attempt| {
                assert_eq!(
                    strategy.quota_left(),
                    Some(if attempt == 1 { 25 } else { 20 })
                );
                if attempt == 1 {
                    Err("unavailable")
                } else {
                    Ok(attempt)
                }
            },
            |_| Classified::retryable(),
        )
        .unwrap();
    assert_eq!(answer, 2);
    assert_eq!(quota.available(), 25, "{:?}", quota.stats());
    quota.close().await;
    // Closed, the quota draws from the local fallback bucket.
    assert_eq!(strategy.quota_left(), Some(50));
}
