//! `FleetLimiter` against a real `redis-server`: a throttle seen by one process lowers the
//! other's send rate through the store, nothing happens before the fleet's first throttle,
//! and a dead store lifts the ceiling (local limits) until it is back.

mod support;

use std::sync::Arc;
use std::time::Duration;

use rebound_redis::{Demand, FleetLimiter, FleetQuotaConfigBuilder, FleetState};
use rebound_runtime::rate_limiter::RateControl;
use rebound_runtime::time::ManualClock;
use support::{RedisServer, busy_strategy, client, poll, short_rate_period};

/// Rates exchanged every 100 ms.
fn short(builder: FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder {
    short_rate_period(builder).call_timeout(Duration::from_millis(200))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throttle_in_one_process_slows_the_other() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let fleet = "limited";
    let clock = ManualClock::new();
    let (a, b) = (busy_strategy(&clock), busy_strategy(&clock));
    let limiters = [
        FleetLimiter::start(client(&server, fleet, short).await, a.clone()).await,
        FleetLimiter::start(client(&server, fleet, short).await, b.clone()).await,
    ];
    // The first exchange happened before `start` returned.
    assert!(limiters.iter().all(|l| l.state() == FleetState::Joined));
    // Before any throttle: both report, nothing is limited.
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert!(limiters.iter().all(|l| l.state() == FleetState::Joined));
    assert_eq!(b.reading().ceiling, None);
    assert_eq!(b.reading().send_rate, None);

    // `a` is throttled: within two refresh periods `b` is held at its share of the fleet's rate.
    let now = clock.elapsed().as_secs_f64();
    a.rate_limiter().on_response(now, true);
    let ceiling = poll(Duration::from_secs(2), || async { b.reading().ceiling }).await;
    let ceiling = ceiling.expect("b never got a ceiling");
    // Held at its share of what the fleet was admitted (the members' admitted rates, which
    // these clock-driven strategies report as 0 between the task's reads): the floor at least.
    assert!(ceiling >= 0.5, "{ceiling}");
    assert_eq!(
        b.reading().send_rate,
        Some(ceiling),
        "b is held at its share"
    );
    assert_eq!(b.reading().throttles, 0, "b itself was never throttled");

    // The store dies: the ceiling is lifted, each process on its own limiter.
    server.kill();
    let lifted = poll(Duration::from_secs(3), || async {
        (b.reading().ceiling.is_none() && limiters[1].state() == FleetState::Local).then_some(())
    })
    .await;
    assert!(lifted.is_some(), "{:?}", b.reading());
    // Back: the fleet starts afresh (the server kept nothing), so no ceiling until a throttle.
    tokio::task::block_in_place(|| server.restart());
    let rejoined = poll(Duration::from_secs(5), || async {
        limiters
            .iter()
            .all(|l| l.state() == FleetState::Joined)
            .then_some(())
    })
    .await;
    assert!(rejoined.is_some());
    assert_eq!(b.reading().ceiling, None);
    for limiter in limiters {
        limiter.close().await;
    }
}

/// Until the fleet's first throttle the limiter is off in every process, whatever they send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_throttle_no_ceiling() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let clock = ManualClock::new();
    let strategies: Vec<_> = (0..3).map(|_| busy_strategy(&clock)).collect();
    let mut limiters = Vec::new();
    for strategy in &strategies {
        let control: Arc<dyn RateControl> = strategy.clone();
        limiters.push(FleetLimiter::start(client(&server, "calm", short).await, control).await);
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    for strategy in &strategies {
        assert_eq!(strategy.reading().ceiling, None);
        assert_eq!(strategy.reading().send_rate, None);
    }
    let mut conn = server.connection();
    let members: u64 = redis::cmd("ZCARD")
        .arg("rebound:{calm}:members")
        .query(&mut conn)
        .unwrap();
    assert_eq!(members, 3);
}

/// Keys of another type and fields this protocol did not write are typed errors, never a cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_store_state_is_a_typed_error() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut conn = server.connection();
    let window = Duration::from_secs(1);

    let _: () = redis::cmd("SET")
        .arg("rebound:{typed}:members")
        .arg("x")
        .query(&mut conn)
        .unwrap();
    let typed = client(&server, "typed", short).await;
    let err = typed
        .limiter(1000, 1, window, Demand::Unbounded)
        .await
        .unwrap_err();
    assert!(
        matches!(err, rebound_redis::FleetError::WrongType { .. }),
        "{err:?}"
    );

    let _: () = redis::cmd("HSET")
        .arg("rebound:{corrupt}:limiter")
        .arg("w_max")
        .arg("-3.5")
        .query(&mut conn)
        .unwrap();
    let corrupt = client(&server, "corrupt", short).await;
    let err = corrupt
        .limiter(1000, 1, window, Demand::Unbounded)
        .await
        .unwrap_err();
    assert!(
        matches!(err, rebound_redis::FleetError::CorruptPool { .. }),
        "{err:?}"
    );

    // A sound fleet: the first throttle cuts from the members' sum, the next within the
    // window does not cut again.
    let sound = client(&server, "sound", short).await;
    let first = sound
        .limiter(200_000, 0, window, Demand::Unbounded)
        .await
        .unwrap();
    assert_eq!(
        (first.cuts, first.sum_milli, first.members),
        (0, 200_000, 1)
    );
    let cut = sound
        .limiter(150_000, 2, window, Demand::Unbounded)
        .await
        .unwrap();
    assert_eq!(
        (cut.cuts, cut.w_max_milli, cut.cut_members),
        (1, 150_000, 1)
    );
    let again = sound
        .limiter(100_000, 1, window, Demand::Unbounded)
        .await
        .unwrap();
    assert_eq!((again.cuts, again.w_max_milli), (1, 150_000));

    let _: () = redis::cmd("HSET")
        .arg("rebound:{demanding}:demands")
        .arg("0000000000000001")
        .arg("2000000000")
        .query(&mut conn)
        .unwrap();
    let demanding = client(&server, "demanding", short)
        .await
        .with_lease_id(rebound_redis::LeaseId::from_u64(1));
    let err = demanding
        .limiter(1000, 0, window, Demand::Unbounded)
        .await
        .unwrap_err();
    assert!(
        matches!(err, rebound_redis::FleetError::CorruptPool { .. }),
        "a demand above a million requests per second that is not the unbounded mark: {err:?}"
    );
}

/// The store adds the members' demands up: bounded ones into `asked`, unbounded ones counted;
/// a member's new demand replaces its last, and one that leaves takes its own away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_adds_the_demands_up() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let window = Duration::from_secs(1);
    let clients = [
        client(&server, "demands", short).await,
        client(&server, "demands", short).await,
        client(&server, "demands", short).await,
    ];
    let [a, b, c] = &clients;
    let totals = |s: rebound_redis::FleetRateState| (s.members, s.asked_milli, s.unbounded);
    let s = a
        .limiter(20_000, 0, window, Demand::Rate(20.0))
        .await
        .unwrap();
    assert_eq!(totals(s), (1, 20_000, 0));
    let s = b
        .limiter(30_000, 0, window, Demand::Rate(30.0))
        .await
        .unwrap();
    assert_eq!(totals(s), (2, 50_000, 0));
    let s = c
        .limiter(300_000, 0, window, Demand::Unbounded)
        .await
        .unwrap();
    assert_eq!(totals(s), (3, 50_000, 1));
    // a asks for more: its demand is replaced, not added.
    let s = a
        .limiter(25_000, 0, window, Demand::Rate(25.0))
        .await
        .unwrap();
    assert_eq!(totals(s), (3, 55_000, 1));
    // b becomes limited by its held rate.
    let s = b
        .limiter(30_000, 0, window, Demand::Unbounded)
        .await
        .unwrap();
    assert_eq!(totals(s), (3, 25_000, 2));
    // c leaves: at the next call its rate and demand are gone.
    c.leave_limiter().await.unwrap();
    let s = a
        .limiter(25_000, 0, window, Demand::Rate(25.0))
        .await
        .unwrap();
    assert_eq!(totals(s), (2, 25_000, 1));
    assert_eq!(s.sum_milli, 55_000);
}

/// The limiter's totals beside the hashes they sum, read atomically.
#[derive(Debug)]
struct LimiterTotals {
    /// `sum`, `asked` and `unbounded` as the limiter hash stores them.
    stored: (u64, u64, u64),
    /// The same three computed from the `rates` and `demands` hashes.
    summed: (u64, u64, u64),
    /// The members' ids in the sorted set, the rates hash and the demands hash.
    ids: [std::collections::BTreeSet<String>; 3],
}

fn limiter_totals(conn: &mut redis::Connection, fleet: &str) -> LimiterTotals {
    let key = |name: &str| format!("rebound:{{{fleet}}}:{name}");
    type Reply = (
        Vec<Option<u64>>,
        std::collections::BTreeMap<String, u64>,
        std::collections::BTreeMap<String, u64>,
        Vec<String>,
    );
    let (fields, rates, demands, members): Reply = redis::pipe()
        .atomic()
        .cmd("HMGET")
        .arg(key("limiter"))
        .arg(&["sum", "asked", "unbounded"])
        .cmd("HGETALL")
        .arg(key("rates"))
        .cmd("HGETALL")
        .arg(key("demands"))
        .cmd("ZRANGE")
        .arg(key("members"))
        .arg(0)
        .arg(-1)
        .query(conn)
        .expect("read the limiter's keys");
    let unbounded = u64::from(Demand::Unbounded.milli());
    let field = |i: usize| fields[i].unwrap_or(0);
    LimiterTotals {
        stored: (field(0), field(1), field(2)),
        summed: (
            rates.values().sum(),
            demands.values().filter(|&&d| d != unbounded).sum(),
            demands.values().filter(|&&d| d == unbounded).count() as u64,
        ),
        ids: [
            members.into_iter().collect(),
            rates.into_keys().collect(),
            demands.into_keys().collect(),
        ],
    }
}

impl LimiterTotals {
    fn assert_exact(&self, context: &str) {
        assert_eq!(
            self.stored, self.summed,
            "{context}: totals drifted: {self:?}"
        );
        assert!(
            self.ids[0] == self.ids[1] && self.ids[1] == self.ids[2],
            "{context}: members, rates and demands differ: {self:?}"
        );
    }
}

/// Concurrency: eight tokio tasks, each a member, call the limiter at once with random rates
/// and demands (bounded and unbounded), leave and rejoin, and two of them stop calling and
/// lapse. A thread reads the keys throughout: at every look the stored totals equal what the
/// `rates` and `demands` hashes add up to, and the three sets of members agree. At the end
/// every member has left or lapsed and the totals are zero.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_members_calling_at_once_keep_the_totals_exact() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use support::SplitMix;

    let Some(server) = RedisServer::start() else {
        return;
    };
    const FLEET: &str = "demand-stress";
    let ttl = Duration::from_millis(300);
    let base = client(&server, FLEET, |b| {
        b.lease_ttl(ttl).rate_period(Duration::from_millis(100))
    })
    .await;
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let mut conn = server.connection();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut looks = 0u32;
            while !stop.load(Ordering::Acquire) {
                limiter_totals(&mut conn, FLEET).assert_exact("during the calls");
                looks += 1;
            }
            looks
        })
    };
    let window = Duration::from_millis(50);
    let tasks: Vec<_> = (0..8u64)
        .map(|i| {
            let member = base
                .clone()
                .with_lease_id(rebound_redis::LeaseId::from_u64(300 + i));
            tokio::spawn(async move {
                let mut rng = SplitMix::new(i);
                for _ in 0..200 {
                    let rate = rng.up_to(500_000);
                    let demand = match rng.up_to(3) {
                        0 => Demand::Unbounded,
                        _ => Demand::Rate(f64::from(rng.up_to(400_000)) / 1000.0),
                    };
                    if rng.up_to(9) == 0 {
                        member.leave_limiter().await.unwrap();
                    } else {
                        member
                            .limiter(rate, rng.up_to(1), window, demand)
                            .await
                            .unwrap();
                    }
                }
                // Members 0 and 1 stop without leaving: they lapse one TTL later.
                if i >= 2 {
                    member.leave_limiter().await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    stop.store(true, Ordering::Release);
    let looks = watcher.join().expect("the watcher saw the totals exact");
    assert!(looks > 0);

    let mut conn = server.connection();
    let before = limiter_totals(&mut conn, FLEET);
    before.assert_exact("after the calls");
    assert!(
        before.ids[0].len() <= 2,
        "only the lapsing members stay: {before:?}"
    );
    // Once their TTL has passed, the next call reclaims them: one member joins and leaves.
    tokio::time::sleep(ttl + Duration::from_millis(50)).await;
    let last = base
        .clone()
        .with_lease_id(rebound_redis::LeaseId::from_u64(399));
    let state = last
        .limiter(1000, 0, window, Demand::Rate(1.0))
        .await
        .unwrap();
    assert_eq!(
        (state.members, state.asked_milli, state.unbounded),
        (1, 1000, 0)
    );
    last.leave_limiter().await.unwrap();
    let after = limiter_totals(&mut conn, FLEET);
    after.assert_exact("after every member left");
    assert_eq!(after.stored, (0, 0, 0), "{after:?}");
    assert!(after.ids[0].is_empty(), "{after:?}");
}
