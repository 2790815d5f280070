//! `FleetQuota` against a real `redis-server` (see `support` for how it is started, and
//! skipped when there is none): leases topped up ahead of need, the fleet-wide bound, refunds,
//! the fallback to local limits when the store dies, and a request path that never waits.

#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/otel.rs"]
mod otel;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rebound_redis::{
    FleetListener, FleetQuota, FleetQuotaConfig, FleetQuotaConfigBuilder, FleetState,
    FleetStateChange, LeaseId,
};
use rebound_runtime::RetryQuota;
use support::{RedisServer, client, poll};

/// Short leases for the tests: TTL 1 s, refreshed every 100 ms, calls within 200 ms.
fn short(builder: FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder {
    builder
        .lease_ttl(Duration::from_secs(1))
        .refresh_period(Duration::from_millis(100))
        .call_timeout(Duration::from_millis(200))
}

async fn quota(
    server: &RedisServer,
    fleet: &str,
    tune: impl FnOnce(FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder,
) -> FleetQuota {
    let quota = FleetQuota::start(client(server, fleet, |b| tune(short(b))).await).await;
    assert_eq!(quota.state(), FleetState::Joined, "{:?}", quota.stats());
    quota
}

/// The tokens `quota`'s lease holds in the store.
fn held_in_store(server: &RedisServer, fleet: &str, quota: &FleetQuota) -> u64 {
    let snapshot = server.snapshot(fleet);
    snapshot
        .held
        .get(&quota.lease_id().to_string())
        .copied()
        .unwrap_or(0)
}

/// (a) A lease of 25, 5 tokens per retry, 40 retries 20 ms apart (TTL 300 ms): the refresher
/// tops the lease up before it runs dry, so no retry is refused while the pool has tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_are_topped_up_ahead_of_need() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "ahead";
    let quota = quota(&server, fleet, |b| {
        b.capacity(500)
            .lease_ttl(Duration::from_millis(300))
            .refresh_period(Duration::from_millis(100))
    })
    .await;
    assert_eq!(quota.available(), 25);
    for retry in 0..40 {
        assert_eq!(
            quota.try_acquire(5),
            Ok(()),
            "retry {retry}: {:?}",
            quota.stats()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The 200 tokens spent are consumed in the store once reported; the rest is conserved.
    let settled = poll(Duration::from_secs(3), || async {
        let snapshot = server.snapshot(fleet);
        let stats = quota.stats();
        (snapshot.available.unwrap_or(0) + snapshot.held_total.unwrap_or(0) == 300
            && u64::from(stats.held) == snapshot.held_sum()
            && stats.balance == 25)
            .then_some(snapshot)
    })
    .await;
    let snapshot = settled.unwrap_or_else(|| server.snapshot(fleet));
    snapshot.assert_invariant("after 40 retries");
    assert_eq!(
        snapshot.available.unwrap_or(0) + snapshot.held_total.unwrap_or(0),
        300,
        "{snapshot:?} {:?}",
        quota.stats()
    );
    quota.close().await;
    server.snapshot(fleet).assert_invariant("after close");
}

/// (b) Four quotas (tasks) on one fleet of 100 tokens through a service outage: only retries,
/// no successes. Together they spend at most the fleet's capacity, however long they try.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_never_retries_more_than_its_capacity() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "outage";
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let quota = quota(&server, fleet, |b| b.capacity(100)).await;
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let mut retries = 0u32;
            while started.elapsed() < Duration::from_millis(1200) {
                if quota.try_acquire(5).is_ok() {
                    retries += 1;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            quota.close().await;
            retries
        }));
    }
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    assert!(total * 5 <= 100, "{total} retries of 5 tokens from 100");
    assert!(
        total * 5 >= 75,
        "the leases' tokens were usable: {total} retries"
    );
    let snapshot = server.snapshot(fleet);
    snapshot.assert_invariant("after the outage");
    assert_eq!(snapshot.available.unwrap_or(0), 100 - u64::from(total) * 5);
}

/// (c) Refunds beyond what the lease holds go back to the pool with the next report, and
/// `close` gives the lease back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refunds_return_to_the_pool_through_reports() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "refunds";
    let quota = quota(&server, fleet, |b| b.capacity(100)).await;
    for _ in 0..5 {
        quota.try_acquire(5).unwrap();
    }
    // 25 spent and consumed, the lease topped up to 25 again: 50 left in the pool. (Tokens
    // spent between a report and the lease that follows it count as held until the next
    // report, so wait for the store and the ledger to agree on 25.)
    let topped_up = poll(Duration::from_secs(3), || async {
        let snapshot = server.snapshot(fleet);
        let stats = quota.stats();
        (snapshot.available == Some(50)
            && snapshot.held_sum() == 25
            && stats.held == 25
            && stats.balance == 25)
            .then_some(())
    })
    .await;
    assert!(
        topped_up.is_some(),
        "{:?} {:?}",
        server.snapshot(fleet),
        quota.stats()
    );
    // The balance is full: five refunds of 5 wait for the next report.
    for _ in 0..5 {
        assert_eq!(quota.release(5), 5);
    }
    let returned = poll(Duration::from_secs(3), || async {
        let snapshot = server.snapshot(fleet);
        (snapshot.available == Some(75) && quota.stats().pending_refunds == 0).then_some(snapshot)
    })
    .await
    .unwrap_or_else(|| panic!("{:?} {:?}", server.snapshot(fleet), quota.stats()));
    returned.assert_conserved("after the refunds");
    assert_eq!(held_in_store(&server, fleet, &quota), 25);
    quota.close().await;
    let closed = server.snapshot(fleet);
    closed.assert_conserved("after close");
    assert_eq!(closed.available, Some(100), "the lease was given back");
    assert!(closed.held.is_empty(), "{closed:?}");
}

/// Two quotas share a capacity of 50. Each pays 5 for a retry and gets 5 back when it
/// succeeds; one also earns 100 refunds of 1 while the pool misses nothing. Then an outage,
/// before the next reports, spends everything: the fleet lets 10 retries through, as one local `RetryQuota` of 50 does
/// after the same calls. Refunds earned while there was nothing to refill are not banked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refunds_on_a_full_pool_are_not_banked_for_an_outage() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "banked";
    let a = quota(&server, fleet, |b| b.capacity(50)).await;
    let b = quota(&server, fleet, |b| b.capacity(50)).await;
    let local = RetryQuota::new(50);
    for q in [&a, &b] {
        q.try_acquire(5).unwrap();
        local.try_acquire(5).unwrap();
    }
    // Both report the retries under way: each lease now holds 20, and the pool misses 10.
    let reported = poll(Duration::from_secs(3), || async {
        (a.stats().held == 20 && b.stats().held == 20).then_some(())
    })
    .await;
    assert!(reported.is_some(), "{:?} {:?}", a.stats(), b.stats());
    for q in [&a, &b] {
        q.release(5);
        local.release(5);
    }
    for _ in 0..100 {
        a.release(1);
        local.release(1);
    }
    // The outage starts before the refunds are reported: every request fails, the quotas are
    // drained.
    let mut local_retries = 0;
    while local.try_acquire(5).is_ok() {
        local_retries += 1;
    }
    let mut retries = 0;
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(1500) {
        for q in [&a, &b] {
            while q.try_acquire(5).is_ok() {
                retries += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(local_retries, 10);
    assert_eq!(retries, local_retries, "{:?}", server.snapshot(fleet));
    server.snapshot(fleet).assert_invariant("after the outage");
}

/// A lease whose holder stopped (a raw client that never refreshes) is reclaimed on a live
/// quota's timer soon after it lapses, not at that quota's next refresh: here the quota
/// refreshes every 900 ms with a TTL of 1 s, and the lapse falls just after one refresh, so
/// without the timer the tokens would come back about 800 ms late.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lapsed_lease_is_reclaimed_on_time() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "timer";
    let live = quota(&server, fleet, |b| {
        b.capacity(100)
            .lease_ttl(Duration::from_secs(1))
            .refresh_period(Duration::from_millis(900))
    })
    .await;
    let live_id = live.lease_id().to_string();
    let expiry = |snapshot: &support::Snapshot| snapshot.leases.get(&live_id).copied();
    // Right after the quota's refresh, a holder takes 10 tokens and stops.
    let first = expiry(&server.snapshot(fleet));
    let refreshed = poll(Duration::from_secs(3), || async {
        (expiry(&server.snapshot(fleet)) != first).then_some(())
    })
    .await;
    assert!(refreshed.is_some(), "the quota refreshes");
    let stopped = client(&server, fleet, |b| {
        b.capacity(100).lease_ttl(Duration::from_secs(1))
    })
    .await
    .with_lease_id(LeaseId::from_u64(7));
    stopped.lease(10).await.unwrap();
    let stopped_id = LeaseId::from_u64(7).to_string();
    let lapses_at = server.snapshot(fleet).leases[&stopped_id];
    let mut conn = server.connection();
    let reclaimed_at = loop {
        let snapshot = support::snapshot(&mut conn, fleet);
        let time: Vec<u64> = redis::cmd("TIME").query(&mut conn).unwrap();
        let now_ms = time[0] * 1000 + time[1] / 1000;
        if !snapshot.leases.contains_key(&stopped_id) {
            snapshot.assert_invariant("after the reclaim");
            break now_ms;
        }
        assert!(now_ms < lapses_at + 3000, "never reclaimed: {snapshot:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let late = reclaimed_at.saturating_sub(lapses_at);
    assert!(late <= 300, "reclaimed {late} ms after the lapse");
    live.close().await;
}

/// (d) The server is killed mid-run: both quotas fall back to their local buckets (20 tokens
/// each), say so, and rejoin with fresh leases when the server is back (empty: it had no
/// persistence). What the two spent stays within the fleet's capacity plus their fallbacks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_store_falls_back_to_local_limits_and_rejoins() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let fleet = "crash";
    let tune = |b: FleetQuotaConfigBuilder| short(b.capacity(100).fallback_capacity(20));
    let changes = Arc::new(Changes::default());
    let quotas = [
        quota(&server, fleet, tune).await,
        FleetQuota::start_with_listener(
            client(&server, fleet, tune).await,
            Arc::clone(&changes) as Arc<dyn FleetListener>,
        )
        .await,
    ];
    let mut spent = 0;
    for quota in &quotas {
        for _ in 0..2 {
            quota.try_acquire(5).unwrap();
            spent += 5;
        }
    }
    server.kill();
    let degraded = poll(Duration::from_secs(5), || async {
        quotas.iter().all(FleetQuota::is_degraded).then_some(())
    })
    .await;
    assert!(
        degraded.is_some(),
        "{:?}",
        quotas.iter().map(FleetQuota::stats).collect::<Vec<_>>()
    );
    // While the store is down, each quota allows its fallback bucket's 20 tokens, no more.
    for quota in &quotas {
        assert_eq!(quota.state(), FleetState::Local);
        assert_eq!(quota.available(), 20);
        let mut local = 0;
        while quota.try_acquire(5).is_ok() {
            local += 5;
        }
        assert_eq!(local, 20);
        spent += local;
        assert_eq!(quota.try_acquire(5), Err(0));
    }
    tokio::task::block_in_place(|| server.restart());
    let rejoined = poll(Duration::from_secs(10), || async {
        quotas
            .iter()
            .all(|q| q.state() == FleetState::Joined && q.available() == 25)
            .then_some(())
    })
    .await;
    assert!(
        rejoined.is_some(),
        "{:?}",
        quotas.iter().map(FleetQuota::stats).collect::<Vec<_>>()
    );
    let snapshot = server.snapshot(fleet);
    snapshot.assert_conserved("after the restart");
    for quota in &quotas {
        assert_eq!(held_in_store(&server, fleet, quota), 25);
        assert_eq!(u64::from(quota.stats().held), 25);
    }
    assert!(spent <= 100 + 2 * 20, "{spent}");
    let changes = changes.0.lock().unwrap().clone();
    assert_eq!(
        changes,
        [
            (FleetState::Local, true, "crash".to_owned()),
            (FleetState::Joined, false, "crash".to_owned())
        ]
    );
    for quota in quotas {
        quota.close().await;
    }
    let closed = server.snapshot(fleet);
    closed.assert_conserved("after close");
    assert_eq!(closed.available, Some(100));
}

/// (e) `DEBUG SLEEP 1` on the server: the refresher's calls time out and the quota falls back,
/// but `try_acquire` and `release` on the request path never wait for the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_path_never_waits_for_a_slow_store() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "sleepy";
    let quota = Arc::new(quota(&server, fleet, |b| b.capacity(500)).await);
    let mut conn = server.connection();
    let sleeping = Arc::new(AtomicBool::new(true));
    let sleeper = {
        let sleeping = Arc::clone(&sleeping);
        std::thread::spawn(move || {
            redis::cmd("DEBUG")
                .arg("SLEEP")
                .arg(1)
                .query::<()>(&mut conn)
                .expect("DEBUG SLEEP (needs --enable-debug-command)");
            sleeping.store(false, Ordering::Release);
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    // On a plain thread, 700 ms of acquisitions (crossing the low-water mark, which wakes the
    // refresher) and refunds, each one timed.
    let request_path = {
        let quota = Arc::clone(&quota);
        let sleeping = Arc::clone(&sleeping);
        std::thread::spawn(move || {
            let mut times = Vec::new();
            let mut saw_local = false;
            let started = Instant::now();
            while started.elapsed() < Duration::from_millis(700) && sleeping.load(Ordering::Acquire)
            {
                for _ in 0..6 {
                    let call = Instant::now();
                    let _ = quota.try_acquire(5);
                    times.push(call.elapsed());
                }
                let call = Instant::now();
                quota.release(10);
                times.push(call.elapsed());
                saw_local |= quota.is_degraded();
                std::thread::sleep(Duration::from_micros(200));
            }
            (times, saw_local)
        })
    };
    let (mut times, saw_local) = request_path.join().unwrap();
    sleeper.join().unwrap();
    times.sort();
    let slow = times
        .iter()
        .filter(|t| **t >= Duration::from_millis(1))
        .count();
    let median = times[times.len() / 2];
    let p99 = times[times.len() * 99 / 100];
    let max = *times.last().unwrap();
    eprintln!(
        "request path during DEBUG SLEEP: {} calls, median {median:?}, p99 {p99:?}, max {max:?}, \
         {slow} at 1 ms or more",
        times.len()
    );
    assert!(times.len() > 1000, "{} calls", times.len());
    assert!(median < Duration::from_micros(50), "median {median:?}");
    // A descheduled thread on a busy machine may take a millisecond now and then; a call that
    // waited for the store would take the call timeout (200 ms) or the sleep (1 s).
    assert!(
        slow * 1000 <= times.len(),
        "{slow} of {} calls >= 1 ms",
        times.len()
    );
    assert!(max < Duration::from_millis(50), "max {max:?}");
    assert!(saw_local, "the refresher's calls timed out: local limits");
    // Once the server wakes, the quota rejoins.
    let rejoined = poll(Duration::from_secs(5), || async {
        (quota.state() == FleetState::Joined).then_some(())
    })
    .await;
    assert!(rejoined.is_some(), "{:?}", quota.stats());
    server.snapshot(fleet).assert_invariant("after the sleep");
}

/// Without a store (nothing listens on the port), the quota starts on local limits, and a
/// listener given to `connect_with_listener` hears of it.
#[tokio::test]
async fn an_unreachable_store_starts_on_local_limits() {
    let config = FleetQuotaConfig::builder("nowhere")
        .fallback_capacity(15)
        .call_timeout(Duration::from_millis(200))
        .connect_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let changes = Arc::new(Changes::default());
    let listener: Arc<dyn FleetListener> = changes.clone();
    let quota = FleetQuota::connect_with_listener("redis://127.0.0.1:1/", config, listener)
        .await
        .expect("a lazy connection");
    assert!(quota.is_degraded());
    assert_eq!(
        changes.0.lock().unwrap().as_slice(),
        [(FleetState::Local, true, "nowhere".to_owned())]
    );
    assert_eq!(quota.available(), 15);
    assert_eq!(quota.capacity(), 500);
    assert_eq!(quota.try_acquire(10), Ok(()));
    assert_eq!(quota.try_acquire(10), Err(5));
    assert_eq!(quota.release(100), 10);
    quota.close().await;
}

/// A quota shared through an `Arc` closes through it: the lease goes back, the quota draws
/// from its fallback bucket, and a second `close` returns at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_quota_closes_through_its_arc() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "shared-close";
    let shared = Arc::new(quota(&server, fleet, |b| b.capacity(100).fallback_capacity(7)).await);
    let user = Arc::clone(&shared);
    tokio::spawn(async move { user.try_acquire(5) })
        .await
        .unwrap()
        .unwrap();
    shared.close().await;
    let closed = server.snapshot(fleet);
    assert!(
        closed.leases.is_empty(),
        "the lease was given back: {closed:?}"
    );
    assert_eq!(shared.state(), FleetState::Local);
    assert_eq!(shared.available(), 7);
    shared.close().await;
}

/// Dropping the quota (without `close`) stops its task, which gives the lease back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_quota_gives_the_lease_back() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "dropped";
    let quota = quota(&server, fleet, |b| b.capacity(100)).await;
    quota.try_acquire(5).unwrap();
    assert_eq!(server.snapshot(fleet).held_sum(), 25);
    drop(quota);
    let released = poll(Duration::from_secs(3), || async {
        let snapshot = server.snapshot(fleet);
        snapshot.held.is_empty().then_some(snapshot)
    })
    .await
    .unwrap_or_else(|| panic!("{:?}", server.snapshot(fleet)));
    released.assert_invariant("after drop");
    assert_eq!(released.available, Some(95), "the 5 spent are consumed");
}

/// A listener that keeps every change: the state, whether it came with an error, the fleet.
#[derive(Default)]
struct Changes(std::sync::Mutex<Vec<(FleetState, bool, String)>>);

impl FleetListener for Changes {
    fn on_state_change(&self, change: &FleetStateChange<'_>) {
        self.0.lock().unwrap().push((
            change.state,
            change.error.is_some(),
            change.fleet.to_owned(),
        ));
    }
}

/// An observer watching a member's quota reads the fleet gauges: joined, the lease it holds,
/// the pool it last saw, the last exchange's latency; and, once the store is gone, local
/// limits and the failed exchanges. The same values come out of an OpenTelemetry meter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observer_reads_the_fleet_gauges() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let fleet = "observed";
    let quota = Arc::new(quota(&server, fleet, |b| b.capacity(100)).await);
    let meter = otel::MemoryMeter::new();
    let observer = rebound_runtime::opentelemetry::observer(&meter.meter(), "orders");
    observer.watch(Arc::clone(&quota));
    // After the first refresh: a report and a lease answered by the store.
    let refreshed = poll(Duration::from_secs(5), || async {
        let readings = observer.readings();
        readings.fleet_exchange_latency.map(|_| readings)
    })
    .await
    .expect("a refresh within 5 s");
    assert_eq!(refreshed.fleet_healthy, Some(true));
    assert_eq!(refreshed.fleet_lease, Some(u64::from(quota.stats().held)));
    assert_eq!(refreshed.fleet_lease, Some(25));
    assert_eq!(
        refreshed.fleet_pool,
        Some(75),
        "100 less this member's lease of 25"
    );
    assert!(refreshed.fleet_exchange_latency.unwrap() > 0.0);
    assert_eq!(refreshed.fleet_exchange_errors, Some(0));
    let exported = meter.collect();
    let client = [("rebound.client.name", "orders")];
    assert_eq!(exported.number("rebound.fleet.healthy", &client), 1.0);
    assert_eq!(exported.number("rebound.fleet.lease", &client), 25.0);
    assert_eq!(exported.number("rebound.fleet.pool", &client), 75.0);
    assert!(exported.number("rebound.fleet.exchange.duration", &client) > 0.0);
    assert_eq!(
        exported.number("rebound.fleet.exchange.errors", &client),
        0.0
    );

    server.kill();
    let failed = poll(Duration::from_secs(5), || async {
        let readings = observer.readings();
        (readings.fleet_healthy == Some(false)).then_some(readings)
    })
    .await
    .expect("local limits within 5 s");
    assert!(failed.fleet_exchange_errors.unwrap() >= 1, "{failed:?}");
    let exported = meter.collect();
    assert_eq!(exported.number("rebound.fleet.healthy", &client), 0.0);
    assert!(exported.number("rebound.fleet.exchange.errors", &client) >= 1.0);
    quota.close().await;
}
