//! Four OS processes sharing one fleet quota through a service outage, against a real
//! `redis-server`: this test binary runs itself four times as children (the `child_*` test
//! with an environment variable naming the server), each with a `FleetQuota` and a
//! `StandardRetryStrategy` on its `retry_quota()`, retrying requests that always fail. Each
//! child prints how many retries it was granted; the parent adds them up.
//!
//! The bound is the one `docs/fleet.md` documents: the fleet's capacity, 5 tokens a retry,
//! plus each process's fallback bucket while the store is down. A pure outage has no refunds,
//! so there is no lease slack to allow for: the fleet gets exactly `capacity / 5` retries, and
//! the tests check that exact figure, so that they fail if the fleet allows too many retries
//! and if it allows too few.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use rebound_redis::{FleetQuota, FleetQuotaConfig, FleetState};
use rebound_runtime::StandardRetryStrategy;
use support::{ChildProcess, RedisServer, counts, failing_request, ready_children};

/// The server's URL, for the child role.
const CHILD_URL: &str = "REBOUND_PROCESSES_CHILD_URL";
/// The case the child plays: [`OUTAGE`] or [`STORE_DIES`].
const CHILD_CASE: &str = "REBOUND_PROCESSES_CHILD_CASE";
const CHILD_TEST: &str = "child_process_retrying_through_an_outage";

const PROCESSES: u32 = 4;
/// A retry's cost (not a timeout).
const COST: u32 = 5;
/// How long a child retries at least.
const RUN: Duration = Duration::from_millis(1500);

/// A service outage on a healthy store.
const OUTAGE: &str = "outage";
const OUTAGE_CAPACITY: u32 = 500;

/// A service outage during which the store dies and comes back with its data.
const STORE_DIES: &str = "store-dies";
const STORE_DIES_CAPACITY: u32 = 100;
const FALLBACK_CAPACITY: u32 = 20;

fn config(case: &str) -> FleetQuotaConfig {
    let capacity = if case == OUTAGE {
        OUTAGE_CAPACITY
    } else {
        STORE_DIES_CAPACITY
    };
    FleetQuotaConfig::builder(format!("processes-{case}"))
        .capacity(capacity)
        .fallback_capacity(FALLBACK_CAPACITY)
        .lease_ttl(Duration::from_millis(500))
        .refresh_period(Duration::from_millis(100))
        .call_timeout(Duration::from_millis(200))
        .connect_timeout(Duration::from_secs(5))
        .strict_start(true)
        .build()
        .unwrap()
}

/// The child's role: a `FleetQuota` on the fleet, failing requests 2 ms apart for [`RUN`];
/// prints `READY` once it has joined, `RETRIES <n>` at the end. In the [`STORE_DIES`] case it
/// also prints `DRAINED` once it has spent its fallback bucket, and runs on until it has
/// rejoined the fleet. Does nothing in a normal run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_process_retrying_through_an_outage() {
    let (Ok(url), Ok(case)) = (std::env::var(CHILD_URL), std::env::var(CHILD_CASE)) else {
        return;
    };
    let quota = FleetQuota::connect(&url, config(&case)).await.unwrap();
    assert_eq!(quota.state(), FleetState::Joined);
    let strategy = StandardRetryStrategy::builder()
        .quota(Arc::clone(quota.retry_quota()))
        .build();
    println!("READY");
    let started = Instant::now();
    let (mut retries, mut drained, mut rejoined) = (0, false, false);
    loop {
        retries += failing_request(&strategy);
        let stats = quota.stats();
        if stats.state == FleetState::Local && stats.fallback_available < COST && !drained {
            drained = true;
            println!("DRAINED");
        }
        rejoined |= drained && stats.state == FleetState::Joined;
        let done = case == OUTAGE || rejoined;
        if (started.elapsed() >= RUN && done) || started.elapsed() >= RUN * 8 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    println!("RETRIES {retries}");
    quota.close().await;
}

/// Runs the four children of `case`.
fn children(server: &RedisServer, case: &str) -> Vec<ChildProcess> {
    let url = server.url();
    let env = [(CHILD_URL, url.as_str()), (CHILD_CASE, case)];
    ready_children(
        CHILD_TEST,
        &env,
        PROCESSES as usize,
        Duration::from_secs(20),
    )
}

/// The retries the children were granted, each and in all, once they have given their leases
/// back and exited.
fn retries(children: Vec<ChildProcess>) -> (Vec<u32>, u32) {
    let each = counts(children, "RETRIES", Duration::from_secs(20));
    let total = each.iter().sum();
    (each, total)
}

/// A service outage, the store healthy: no successes, so no refunds and no lease slack. The
/// four processes get `capacity / 5` retries together, exactly: never more, and the leases'
/// tokens are all usable.
#[test]
fn four_processes_share_one_capacity_through_an_outage() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let children = children(&server, OUTAGE);
    let (each, total) = retries(children);
    let bound = OUTAGE_CAPACITY / COST;
    assert!(total <= bound, "{total} retries {each:?}, bound {bound}");
    assert_eq!(total, bound, "the fleet's tokens were all usable: {each:?}");
    assert!(
        each.iter().all(|&n| n > 0),
        "every process drew from the fleet: {each:?}"
    );
    let snapshot = server.snapshot(&format!("processes-{OUTAGE}"));
    assert_spent_and_given_back(&snapshot);
}

/// The same outage, and the store dies while it lasts: each process falls back to its own
/// bucket of `fallback_capacity` tokens, which `docs/fleet.md` documents as the slack of a
/// dead store (`n × fallback_capacity` tokens for `n` processes). The store comes back with
/// its data (saved once the fleet had spent its pool: this is a store with persistence; one
/// without would start a new, full pool, another capacity's worth). The four processes get
/// `capacity / 5 + 4 × fallback_capacity / 5` retries together, exactly.
#[test]
fn four_processes_through_an_outage_and_a_dead_store() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let fleet = format!("processes-{STORE_DIES}");
    let children = children(&server, STORE_DIES);
    // The pool and the leases are spent and reported, so the saved data set holds no token.
    let started = Instant::now();
    loop {
        let snapshot = server.snapshot(&fleet);
        if snapshot.available == Some(0)
            && snapshot.held_total == Some(0)
            && snapshot.leases.len() == 4
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the fleet's pool is not spent: {snapshot:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    server.save();
    server.kill();
    for child in &children {
        child
            .wait_for_line("DRAINED", Duration::from_secs(5))
            .expect("the child falls back and spends its fallback bucket");
    }
    server.restart();
    let (each, total) = retries(children);
    let bound = STORE_DIES_CAPACITY / COST + PROCESSES * FALLBACK_CAPACITY / COST;
    assert!(total <= bound, "{total} retries {each:?}, bound {bound}");
    assert_eq!(
        total, bound,
        "the pool and the fallback buckets were all usable: {each:?}"
    );
    let snapshot = server.snapshot(&fleet);
    assert_spent_and_given_back(&snapshot);
}

/// After an outage that spent the whole pool and clean shutdowns: nothing left, nothing held,
/// no lease.
fn assert_spent_and_given_back(snapshot: &support::Snapshot) {
    snapshot.assert_invariant("after the outage");
    assert_eq!(
        (snapshot.available, snapshot.held_total),
        (Some(0), Some(0)),
        "{snapshot:?}"
    );
    assert!(snapshot.leases.is_empty(), "the leases were given back");
}
