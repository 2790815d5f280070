//! The lease protocol against a real `redis-server` (see `support` for how it is started, and
//! skipped when there is none).

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rebound_redis::{FleetError, FleetQuotaClient, LeaseGrant, LeaseId, ReportAck};
use support::{ChildProcess, RedisServer, SplitMix, client, poll};

/// A live lease's fields in the store, for the model below.
fn lease_key(id: LeaseId) -> String {
    id.to_string()
}

/// The protocol's arithmetic, in plain Rust: what the store should hold after each call.
#[derive(Debug)]
struct Model {
    capacity: u64,
    available: u64,
    held: BTreeMap<String, u64>,
    /// What each lease's last report said it spent, not refunded yet.
    owed: BTreeMap<String, u64>,
}

impl Model {
    fn new(capacity: u64) -> Self {
        Self {
            capacity,
            available: capacity,
            held: BTreeMap::new(),
            owed: BTreeMap::new(),
        }
    }

    fn held_total(&self) -> u64 {
        self.held.values().sum()
    }

    fn owed_total(&self) -> u64 {
        self.owed.values().sum()
    }

    /// The tokens the pool misses.
    fn missing(&self) -> u64 {
        self.capacity - self.held_total() - self.available
    }

    /// The capacity split evenly between the live leases.
    fn fair_share(&self) -> u64 {
        self.capacity / self.held.len().max(1) as u64
    }

    fn lease(&mut self, id: &str, want: u32) -> LeaseGrant {
        self.held.entry(id.to_owned()).or_insert(0);
        let share = self.fair_share();
        let held = self.held.get_mut(id).unwrap();
        let granted = u64::from(want)
            .min(self.available)
            .min(share.saturating_sub(*held));
        self.available -= granted;
        *held += granted;
        LeaseGrant {
            granted: u32::try_from(granted).unwrap(),
            held: u32::try_from(*held).unwrap(),
            available: u32::try_from(self.available).unwrap(),
            next_lapse_ms: 0,
        }
    }

    /// The reply, but for its refund room; and the range that room must be in (the share's
    /// remainder goes to a lease at random).
    fn report(&mut self, id: &str, keep: u32, refunds: u32) -> Option<(ReportAck, (u32, u32))> {
        let nobodys = self.missing() - self.owed_total();
        let share = self.fair_share();
        let held = self.held.get_mut(id)?;
        let tokens = *held;
        let kept = tokens.min(u64::from(keep));
        let spent = tokens - kept;
        let returned = kept.saturating_sub(share);
        *held = kept - returned;
        let held = *held;
        self.available += returned;
        let owes = self.owed.remove(id).unwrap_or(0);
        self.available += u64::from(refunds).min(owes + nobodys);
        if spent > 0 {
            self.owed.insert(id.to_owned(), spent);
        }
        let missing = self.missing();
        let nobodys = missing - self.owed_total();
        let live = self.held.len() as u64;
        let least = (spent + nobodys / live).min(missing);
        let most = (spent + nobodys.div_ceil(live)).min(missing);
        let ack = ReportAck {
            held: u32::try_from(held).unwrap(),
            available: u32::try_from(self.available).unwrap(),
            held_total: u32::try_from(self.held_total()).unwrap(),
            refund_room: 0,
            next_lapse_ms: 0,
        };
        let room = (u32::try_from(least).unwrap(), u32::try_from(most).unwrap());
        Some((ack, room))
    }

    fn release(&mut self, id: &str, keep: u32) -> Option<(u32, u32)> {
        let held = self.held.remove(id)?;
        self.owed.remove(id);
        let returned = held.min(u64::from(keep));
        self.available += returned;
        Some((
            u32::try_from(returned).unwrap(),
            u32::try_from(self.available).unwrap(),
        ))
    }
}

/// 1. A seeded random sequence of lease, report and release calls from four leases: every
/// reply matches the model, and after every call the store holds what the model holds and
/// keeps `available + sum(held) <= capacity`.
#[tokio::test]
async fn random_calls_follow_the_arithmetic_and_keep_the_invariant() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "random";
    let base = client(&server, fleet, |b| {
        b.capacity(100).lease_ttl(Duration::from_secs(60))
    })
    .await;
    let clients: Vec<FleetQuotaClient> = (1..=4)
        .map(|i| base.clone().with_lease_id(LeaseId::from_u64(i)))
        .collect();
    let mut model = Model::new(100);
    let mut conn = server.connection();
    let mut rng = SplitMix::new(0x5eed_0031);
    for step in 0..400 {
        let who = &clients[rng.up_to(3) as usize];
        let id = lease_key(who.lease_id());
        let held_now = model.held.get(&id).copied().unwrap_or(0);
        let context = match rng.up_to(9) {
            0..=3 => {
                let want = rng.up_to(40);
                let grant = who.lease(want).await.expect("lease");
                let expected = model.lease(&id, want);
                assert_eq!(
                    LeaseGrant {
                        next_lapse_ms: 0,
                        ..grant
                    },
                    expected,
                    "step {step}: lease({want})"
                );
                // Every lease lapses within the 60 s TTL, and none has yet.
                assert!(
                    (1..=60_000).contains(&grant.next_lapse_ms),
                    "step {step}: {grant:?}"
                );
                format!("step {step}: lease {id} {want}")
            }
            4..=7 => {
                // Mostly a true count; sometimes more than held (the store caps it).
                let keep = rng.up_to(u32::try_from(held_now).unwrap() + 5);
                let refunds = rng.up_to(30);
                let result = who.report(keep, refunds).await;
                match model.report(&id, keep, refunds) {
                    Some((expected, (least, most))) => {
                        let ack = result.expect("report");
                        assert_eq!(
                            ReportAck {
                                refund_room: 0,
                                ..without_lapse(ack)
                            },
                            expected,
                            "step {step}"
                        );
                        assert!(
                            (least..=most).contains(&ack.refund_room),
                            "step {step}: room {} not in {least}..={most}",
                            ack.refund_room
                        );
                    }
                    None => assert!(
                        matches!(result, Err(FleetError::LeaseLost)),
                        "step {step}: {result:?}"
                    ),
                }
                format!("step {step}: report {id} {keep} {refunds}")
            }
            _ => {
                let keep = rng.up_to(u32::try_from(held_now).unwrap() + 2);
                let result = who.release(keep).await;
                match model.release(&id, keep) {
                    Some((returned, available)) => {
                        let released = result.expect("release");
                        assert_eq!(
                            (released.returned, released.available),
                            (returned, available)
                        );
                    }
                    None => assert!(matches!(result, Err(FleetError::LeaseLost)), "{result:?}"),
                }
                format!("step {step}: release {id} {keep}")
            }
        };
        let snapshot = support::snapshot(&mut conn, fleet);
        snapshot.assert_invariant(&context);
        assert_eq!(snapshot.available, Some(model.available), "{context}");
        assert_eq!(snapshot.held, model.held, "{context}");
        assert_eq!(snapshot.owed, model.owed, "{context}");
    }
}

/// More processes than the capacity has leases for (100 leases of 25 on 500 tokens): the first
/// twenty take everything, but each report trims a lease to its fair share (500 / 100 = 5) and
/// the next lease hands those tokens to the others, so no process is left without a retry.
#[tokio::test]
async fn crowded_fleets_share_the_capacity_fairly() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let base = client(&server, "crowded", |b| {
        b.capacity(500).lease_ttl(Duration::from_secs(60))
    })
    .await;
    let clients: Vec<FleetQuotaClient> = (1..=100)
        .map(|i| base.clone().with_lease_id(LeaseId::from_u64(i)))
        .collect();
    let mut first = Vec::new();
    for client in &clients {
        first.push(client.lease(25).await.unwrap().held);
    }
    assert!(first[..19].iter().all(|&held| held == 25), "{first:?}");
    assert!(first[25..].iter().all(|&held| held == 0), "{first:?}");
    for (client, held) in clients.iter().zip(&first) {
        client.report(*held, 0).await.unwrap();
    }
    for client in &clients {
        let grant = client.lease(25).await.unwrap();
        assert_eq!(grant.held, 5, "{grant:?}");
    }
    let snapshot = server.snapshot("crowded");
    snapshot.assert_conserved("after sharing");
    assert_eq!(snapshot.available, Some(0));
}

/// `ack` with its time to the next lapse zeroed (it depends on the clock).
fn without_lapse(ack: ReportAck) -> ReportAck {
    ReportAck {
        next_lapse_ms: 0,
        ..ack
    }
}

/// 2. Refunds never fill the pool beyond what the leases leave: `capacity - sum(held)`.
#[tokio::test]
async fn refunds_never_fill_the_pool_beyond_what_leases_leave() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "refunds";
    let a = client(&server, fleet, |b| b.capacity(100)).await;
    let b = a.clone().with_lease_id(LeaseId::from_u64(2));
    assert_eq!(a.lease(30).await.unwrap().held, 30);
    assert_eq!(b.lease(20).await.unwrap().held, 20);
    // Nothing was spent: a refund has no room to go to.
    let ack = without_lapse(a.report(30, 1_000).await.unwrap());
    assert_eq!(
        ack,
        ReportAck {
            held: 30,
            available: 50,
            held_total: 50,
            refund_room: 0,
            next_lapse_ms: 0
        }
    );
    // `a` spent 10 on retries. Refunds reported with the spending were earned before it (a
    // refund restores the balance first): they have nothing to repay. The 10 are what `a`
    // owes now, and its room for the next report.
    let ack = without_lapse(a.report(20, 7).await.unwrap());
    assert_eq!(
        ack,
        ReportAck {
            held: 20,
            available: 50,
            held_total: 40,
            refund_room: 10,
            next_lapse_ms: 0
        }
    );
    // The next report's refunds repay them, and fill the pool up to 100 - 20 - 20 = 60, not
    // beyond.
    let ack = without_lapse(a.report(20, u32::MAX).await.unwrap());
    assert_eq!(
        ack,
        ReportAck {
            held: 20,
            available: 60,
            held_total: 40,
            refund_room: 0,
            next_lapse_ms: 0
        }
    );
    server.snapshot(fleet).assert_conserved("after the refunds");
    // Releasing both: back to full, never above.
    assert_eq!(a.release(20).await.unwrap().available, 80);
    assert_eq!(b.release(20).await.unwrap().available, 100);
    let snapshot = server.snapshot(fleet);
    snapshot.assert_conserved("after the releases");
    assert!(snapshot.held.is_empty() && snapshot.leases.is_empty());
}

/// 3. A lease that is not refreshed lapses after its TTL, and its tokens return to the pool;
/// its holder's next report learns that the lease was lost.
#[tokio::test]
async fn an_unrefreshed_lease_lapses_and_its_tokens_return() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "lapse";
    let ttl = Duration::from_millis(200);
    let holder = client(&server, fleet, |b| b.capacity(100).lease_ttl(ttl)).await;
    let observer = holder.clone().with_lease_id(LeaseId::from_u64(7));
    assert_eq!(holder.lease(25).await.unwrap().available, 75);
    let leased_at = Instant::now();
    // Reclaiming happens in the scripts: `init` reclaims without taking anything.
    let returned = poll(Duration::from_secs(3), || async {
        let pool = observer.init().await.expect("init");
        (pool.available == 100).then_some(pool)
    })
    .await
    .expect("the lapsed lease's tokens return within 3 s");
    let waited = leased_at.elapsed();
    assert_eq!(returned.held_total, 0);
    assert!(
        waited >= ttl - Duration::from_millis(20),
        "lapsed early: {waited:?}"
    );
    assert!(matches!(
        holder.report(25, 0).await,
        Err(FleetError::LeaseLost)
    ));
    assert!(matches!(
        holder.release(25).await,
        Err(FleetError::LeaseLost)
    ));
    // Its tokens are void; a fresh lease starts from nothing.
    let grant = holder.lease(10).await.unwrap();
    assert_eq!((grant.granted, grant.held, grant.available), (10, 10, 90));
    server
        .snapshot(fleet)
        .assert_conserved("after the new lease");
}

const CHILD_URL: &str = "REBOUND_FLEET_CHILD_URL";
const CHILD_FLEET: &str = "crash";
const CHILD_TTL: Duration = Duration::from_millis(500);

/// The child's role in the next test: lease 40 tokens, keep the lease alive, print `HOLDING`
/// and wait to be killed. Does nothing in a normal run.
#[tokio::test]
async fn child_process_holding_a_lease() {
    let Ok(url) = std::env::var(CHILD_URL) else {
        return;
    };
    let config = rebound_redis::FleetQuotaConfig::builder(CHILD_FLEET)
        .capacity(100)
        .lease_ttl(CHILD_TTL)
        .refresh_period(Duration::from_millis(100))
        .call_timeout(Duration::from_secs(2))
        .strict_start(true)
        .build()
        .unwrap();
    let period = config.refresh_period();
    let fleet = rebound_redis::connect(&url, config).await.unwrap();
    let held = fleet.lease(40).await.unwrap().held;
    println!("HOLDING {held}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        tokio::time::sleep(period).await;
        fleet.report(held, 0).await.unwrap();
    }
}

/// 4. A process killed with SIGKILL while it holds a lease: its tokens return one TTL after
/// its last refresh (and not while it was alive and refreshing).
#[tokio::test]
async fn a_killed_process_tokens_return_after_the_ttl() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let observer = client(&server, CHILD_FLEET, |b| {
        b.capacity(100).lease_ttl(CHILD_TTL)
    })
    .await;
    let url = server.url();
    let mut child = ChildProcess::run_test("child_process_holding_a_lease", &[(CHILD_URL, &url)]);
    let line = child
        .wait_for_line("HOLDING", Duration::from_secs(20))
        .expect("the child takes its lease");
    assert_eq!(line, "HOLDING 40");
    // Alive and refreshing, it keeps its lease beyond one TTL.
    tokio::time::sleep(CHILD_TTL + Duration::from_millis(300)).await;
    let pool = observer.init().await.unwrap();
    assert_eq!(
        (pool.available, pool.held_total),
        (60, 40),
        "while the child lives"
    );
    child.kill();
    let killed_at = Instant::now();
    poll(CHILD_TTL + Duration::from_secs(2), || async {
        let pool = observer.init().await.expect("init");
        (pool.available == 100).then_some(())
    })
    .await
    .expect("the killed process's tokens return within its TTL and a margin");
    let waited = killed_at.elapsed();
    assert!(
        waited <= CHILD_TTL + Duration::from_secs(1),
        "took {waited:?}"
    );
    let snapshot = server.snapshot(CHILD_FLEET);
    snapshot.assert_conserved("after the crash");
    assert!(snapshot.leases.is_empty());
}

/// 5. `SCRIPT FLUSH` between calls: each call finds its script gone (NOSCRIPT) and still works.
#[tokio::test]
async fn calls_work_after_script_flush() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "flush";
    let fleet_client = client(&server, fleet, |b| b.capacity(50)).await;
    let mut conn = server.connection();
    let mut flush = || {
        redis::cmd("SCRIPT")
            .arg("FLUSH")
            .query::<()>(&mut conn)
            .unwrap();
    };
    flush();
    assert_eq!(fleet_client.init().await.unwrap().available, 50);
    flush();
    assert_eq!(fleet_client.lease(20).await.unwrap().held, 20);
    flush();
    assert_eq!(fleet_client.report(15, 0).await.unwrap().held, 15);
    flush();
    assert_eq!(fleet_client.release(15).await.unwrap().available, 45);
    // And once loaded by the fallback, the next call runs by its SHA1 again.
    assert_eq!(fleet_client.lease(5).await.unwrap().available, 40);
    server.snapshot(fleet).assert_invariant("after the flushes");
}

/// 6. Keys of another type, and a pool hash someone else wrote: typed errors, no panic, and
/// nothing changed.
#[tokio::test]
async fn keys_of_another_type_are_typed_errors() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "wrongtype";
    let config = rebound_redis::FleetQuotaConfig::builder(fleet)
        .capacity(100)
        .call_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let fleet_client = rebound_redis::connect(&server.url(), config).await.unwrap();
    let mut conn = server.connection();
    let mut run = |args: &[&str]| {
        let mut cmd = redis::cmd(args[0]);
        for arg in &args[1..] {
            cmd.arg(*arg);
        }
        cmd.query::<redis::Value>(&mut conn).unwrap();
    };

    let wrong_type = |result: Result<_, FleetError>, key: &str| match result {
        Err(FleetError::WrongType { detail }) => {
            assert!(detail.contains(key), "{detail} names {key}");
        }
        other => panic!("expected WrongType for {key}, got {other:?}"),
    };
    run(&["SET", "rebound:{wrongtype}:pool", "x"]);
    wrong_type(
        fleet_client.init().await.map(drop),
        "rebound:{wrongtype}:pool",
    );
    wrong_type(
        fleet_client.lease(5).await.map(drop),
        "rebound:{wrongtype}:pool",
    );
    wrong_type(
        fleet_client.report(5, 0).await.map(drop),
        "rebound:{wrongtype}:pool",
    );
    wrong_type(
        fleet_client.release(5).await.map(drop),
        "rebound:{wrongtype}:pool",
    );
    run(&["DEL", "rebound:{wrongtype}:pool"]);
    run(&["SET", "rebound:{wrongtype}:leases", "x"]);
    wrong_type(
        fleet_client.lease(5).await.map(drop),
        "rebound:{wrongtype}:leases",
    );
    run(&["DEL", "rebound:{wrongtype}:leases"]);
    run(&["RPUSH", "rebound:{wrongtype}:held", "x"]);
    wrong_type(
        fleet_client.lease(5).await.map(drop),
        "rebound:{wrongtype}:held",
    );
    run(&["DEL", "rebound:{wrongtype}:held"]);

    let corrupt = |result: Result<_, FleetError>| {
        assert!(
            matches!(result, Err(FleetError::CorruptPool { .. })),
            "expected CorruptPool, got {result:?}"
        );
    };
    run(&["HSET", "rebound:{wrongtype}:pool", "capacity", "many"]);
    corrupt(fleet_client.init().await.map(drop));
    run(&[
        "HSET",
        "rebound:{wrongtype}:pool",
        "capacity",
        "100",
        "available",
        "-1",
        "held_total",
        "0",
    ]);
    corrupt(fleet_client.lease(5).await.map(drop));
    run(&[
        "HSET",
        "rebound:{wrongtype}:pool",
        "available",
        "90",
        "held_total",
        "20",
    ]);
    corrupt(fleet_client.lease(5).await.map(drop));
    run(&[
        "HSET",
        "rebound:{wrongtype}:pool",
        "available",
        "1.5",
        "held_total",
        "0",
    ]);
    corrupt(fleet_client.report(1, 1).await.map(drop));
    // Nothing was changed by the failed calls.
    let mut conn = server.connection();
    let available: String = redis::cmd("HGET")
        .arg("rebound:{wrongtype}:pool")
        .arg("available")
        .query(&mut conn)
        .unwrap();
    assert_eq!(available, "1.5");
    let leases: bool = redis::cmd("EXISTS")
        .arg("rebound:{wrongtype}:leases")
        .query(&mut conn)
        .unwrap();
    assert!(!leases);
    // Once repaired, the fleet works.
    run(&["DEL", "rebound:{wrongtype}:pool"]);
    assert_eq!(fleet_client.lease(5).await.unwrap().held, 5);
}

/// 7. A slow server (`DEBUG SLEEP 1` from another connection): the call returns `Timeout`
/// within the call timeout and a small margin; afterwards the client works again.
#[tokio::test]
async fn a_slow_server_times_out_within_the_call_timeout() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "slow";
    let timeout = Duration::from_millis(50);
    let strict = client(&server, fleet, |b| b.capacity(100)).await;
    // The same settings but the default 50 ms call timeout, on a connection already open.
    let config = rebound_redis::FleetQuotaConfig::builder(fleet)
        .capacity(100)
        .call_timeout(timeout)
        .build()
        .unwrap();
    assert_eq!(config.call_timeout(), timeout);
    let fast = rebound_redis::connect(&server.url(), config).await.unwrap();
    poll(Duration::from_secs(3), || async { fast.init().await.ok() })
        .await
        .expect("connected");
    let mut conn = server.connection();
    let sleeper = std::thread::spawn(move || {
        redis::cmd("DEBUG")
            .arg("SLEEP")
            .arg(1)
            .query::<()>(&mut conn)
            .expect("DEBUG SLEEP (needs --enable-debug-command)");
    });
    // Let the server start sleeping.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let result = fast.lease(5).await;
    let elapsed = started.elapsed();
    assert!(
        matches!(result, Err(FleetError::Timeout(t)) if t == timeout),
        "{result:?}"
    );
    assert!(
        elapsed < timeout + Duration::from_millis(200),
        "returned after {elapsed:?}"
    );
    sleeper.join().unwrap();
    // The timed-out call may have run once the server woke: its outcome was unknown, and
    // `lease(0)` says what the lease holds.
    let grant = poll(Duration::from_secs(3), || async {
        fast.lease(0).await.ok()
    })
    .await
    .expect("the client works again after the sleep");
    assert!(grant.held == 0 || grant.held == 5, "{grant:?}");
    assert_eq!(strict.init().await.unwrap().held_total, grant.held);
    server.snapshot(fleet).assert_conserved("after the timeout");
}

/// 8. Another capacity than the stored one: a typed error naming both, at `init` and `lease`,
/// and the stored capacity is not changed.
#[tokio::test]
async fn another_capacity_is_rejected() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "mismatch";
    let first = client(&server, fleet, |b| b.capacity(500)).await;
    assert_eq!(first.init().await.unwrap().capacity, 500);
    let config = rebound_redis::FleetQuotaConfig::builder(fleet)
        .capacity(300)
        .call_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let second = rebound_redis::connect(&server.url(), config).await.unwrap();
    let err = second.init().await.unwrap_err();
    assert!(
        matches!(
            err,
            FleetError::CapacityMismatch {
                configured: 300,
                stored: 500
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("500") && message.contains("300"),
        "{message}"
    );
    assert!(matches!(
        second.lease(5).await,
        Err(FleetError::CapacityMismatch { .. })
    ));
    // Strict start fails on it too.
    let strict = rebound_redis::FleetQuotaConfig::builder(fleet)
        .capacity(300)
        .call_timeout(Duration::from_secs(2))
        .strict_start(true)
        .build()
        .unwrap();
    assert!(matches!(
        rebound_redis::connect(&server.url(), strict).await,
        Err(FleetError::CapacityMismatch { .. })
    ));
    assert_eq!(server.snapshot(fleet).capacity, Some(500));
}

/// The store lost everything (a restart without persistence, `FLUSHALL`): reports learn
/// that their lease is lost, and the next lease creates the pool anew.
#[tokio::test]
async fn a_store_that_lost_its_keys_starts_a_new_pool() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let fleet = "flushall";
    let fleet_client = client(&server, fleet, |b| b.capacity(100)).await;
    assert_eq!(fleet_client.lease(30).await.unwrap().available, 70);
    redis::cmd("FLUSHALL")
        .query::<()>(&mut server.connection())
        .unwrap();
    assert!(matches!(
        fleet_client.report(30, 0).await,
        Err(FleetError::LeaseLost)
    ));
    let grant = fleet_client.lease(30).await.unwrap();
    assert_eq!((grant.granted, grant.held, grant.available), (30, 30, 70));
    server.snapshot(fleet).assert_conserved("the new pool");
}

/// Watches a fleet's keys from a thread of its own until `stop`, checking the invariant (and,
/// when `conserved`, that no token is lost) at each look. Returns how many looks it took.
fn watch(
    server: &RedisServer,
    fleet: &'static str,
    conserved: bool,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u32> {
    let mut conn = server.connection();
    std::thread::spawn(move || {
        let mut looks = 0;
        while !stop.load(Ordering::Acquire) {
            let snapshot = support::snapshot(&mut conn, fleet);
            if conserved {
                snapshot.assert_conserved("during the stress");
            } else {
                snapshot.assert_invariant("during the stress");
            }
            looks += 1;
        }
        looks
    })
}

/// Concurrency: eight tokio tasks lease, report and release on one fleet without spending
/// anything. At every look `available + sum(held) == capacity`, and after the releases the
/// pool is full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_tasks_hammering_one_fleet_lose_no_token() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    const FLEET: &str = "tasks";
    let base = client(&server, FLEET, |b| b.capacity(120)).await;
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = watch(&server, FLEET, true, Arc::clone(&stop));
    let tasks: Vec<_> = (0..8u64)
        .map(|i| {
            let fleet = base.clone().with_lease_id(LeaseId::from_u64(100 + i));
            tokio::spawn(async move {
                let mut rng = SplitMix::new(i);
                let mut held = fleet.lease(0).await.unwrap().held;
                for _ in 0..150 {
                    match rng.up_to(4) {
                        0 | 1 => held = fleet.lease(rng.up_to(30)).await.unwrap().held,
                        2 | 3 => held = fleet.report(held, rng.up_to(20)).await.unwrap().held,
                        _ => {
                            fleet.release(held).await.unwrap();
                            held = fleet.lease(0).await.unwrap().held;
                        }
                    }
                }
                fleet.release(held).await.unwrap();
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    stop.store(true, Ordering::Release);
    let looks = watcher.join().expect("the invariant held at every look");
    assert!(looks > 0);
    let snapshot = server.snapshot(FLEET);
    snapshot.assert_conserved("after the releases");
    assert_eq!(snapshot.available, Some(120));
    assert!(snapshot.held.is_empty() && snapshot.leases.is_empty());
}

/// Concurrency: four OS threads, each with its own runtime and connection, lease, spend,
/// refund and release. At every look `available + sum(held) <= capacity`; after the releases
/// nothing is held, and refunds bring the pool back to full, never beyond.
#[test]
fn four_threads_with_their_own_runtimes_keep_the_invariant() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    const FLEET: &str = "threads";
    let url = server.url();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // The pool exists before the watcher looks.
    let refunder = runtime.block_on(client(&server, FLEET, |b| b.capacity(200)));
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = watch(&server, FLEET, false, Arc::clone(&stop));
    let threads: Vec<_> = (0..4u64)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    let config = rebound_redis::FleetQuotaConfig::builder(FLEET)
                        .capacity(200)
                        .call_timeout(Duration::from_secs(2))
                        .strict_start(true)
                        .build()
                        .unwrap();
                    let fleet = rebound_redis::connect(&url, config).await.unwrap();
                    let mut rng = SplitMix::new(1000 + i);
                    let mut held = fleet.lease(0).await.unwrap().held;
                    for _ in 0..150 {
                        match rng.up_to(3) {
                            0 | 1 => held = fleet.lease(rng.up_to(25)).await.unwrap().held,
                            2 => {
                                // Spend some on retries, earn some back.
                                let keep = held - rng.up_to(held);
                                held = fleet.report(keep, rng.up_to(10)).await.unwrap().held;
                            }
                            _ => {
                                fleet.release(held).await.unwrap();
                                held = fleet.lease(0).await.unwrap().held;
                            }
                        }
                    }
                    fleet.release(held).await.unwrap();
                });
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    stop.store(true, Ordering::Release);
    watcher.join().expect("the invariant held at every look");
    let snapshot = server.snapshot(FLEET);
    snapshot.assert_invariant("after the releases");
    assert_eq!(snapshot.held_total, Some(0));
    // Successes refund what retries spent: the pool fills back to its capacity, not beyond.
    runtime.block_on(async {
        refunder.lease(0).await.unwrap();
        assert_eq!(refunder.report(0, 1_000).await.unwrap().available, 200);
        assert_eq!(refunder.release(0).await.unwrap().available, 200);
    });
    server.snapshot(FLEET).assert_conserved("after the refunds");
}
