//! Whatever a fleet's keys hold before a call, no call mints tokens, against a real
//! `redis-server`: the scripts check what they read, answer `CORRUPT` without writing when a
//! value is out of range or inconsistent, and keep the invariant when they answer `OK`.
//! First the cases seen in the field, then a property test over generated key states.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use rebound_redis::{FleetError, FleetQuotaClient, FleetQuotaConfig, LeaseId, Stored};
use support::{RedisServer, SplitMix};

const POOL: &str = "rebound:{hostile}:pool";
const LEASES: &str = "rebound:{hostile}:leases";
const HELD: &str = "rebound:{hostile}:held";
const OWED: &str = "rebound:{hostile}:owed";

async fn fleet_client(server: &RedisServer, capacity: u32, id: u64) -> FleetQuotaClient {
    let config = FleetQuotaConfig::builder("hostile")
        .capacity(capacity)
        .call_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    rebound_redis::connect(&server.url(), config)
        .await
        .unwrap()
        .with_lease_id(LeaseId::from_u64(id))
}

fn run(conn: &mut redis::Connection, args: &[&str]) {
    let mut cmd = redis::cmd(args[0]);
    for arg in &args[1..] {
        cmd.arg(*arg);
    }
    cmd.query::<redis::Value>(conn).unwrap();
}

/// The fleet's keys, as the store holds them (strings, as written).
#[derive(Debug, PartialEq)]
struct Raw {
    pool: BTreeMap<String, String>,
    held: BTreeMap<String, String>,
    owed: BTreeMap<String, String>,
    leases: Vec<(String, String)>,
}

fn raw(conn: &mut redis::Connection) -> Raw {
    let (pool, held, owed, leases) = redis::pipe()
        .atomic()
        .cmd("HGETALL")
        .arg(POOL)
        .cmd("HGETALL")
        .arg(HELD)
        .cmd("HGETALL")
        .arg(OWED)
        .cmd("ZRANGE")
        .arg(LEASES)
        .arg(0)
        .arg(-1)
        .arg("WITHSCORES")
        .query(conn)
        .unwrap();
    Raw {
        pool,
        held,
        owed,
        leases,
    }
}

fn is_corrupt<T: std::fmt::Debug>(result: &Result<T, FleetError>) -> bool {
    matches!(result, Err(FleetError::CorruptPool { .. }))
}

/// A lapsed lease that says it holds more than all leases together: reclaiming it would put
/// 200 tokens back where 100 are held, and mint 100. Every call says `CORRUPT`, nothing moves.
#[tokio::test]
async fn a_lease_holding_more_than_held_total_is_corrupt() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut conn = server.connection();
    let live = LeaseId::from_u64(1).to_string();
    let dead = LeaseId::from_u64(2).to_string();
    run(
        &mut conn,
        &[
            "HSET",
            POOL,
            "capacity",
            "500",
            "available",
            "400",
            "held_total",
            "100",
        ],
    );
    run(&mut conn, &["HSET", HELD, &dead, "200", &live, "100"]);
    run(&mut conn, &["ZADD", LEASES, "1", &dead]);
    run(&mut conn, &["ZADD", LEASES, "99999999999999", &live]);
    let before = raw(&mut conn);
    let client = fleet_client(&server, 500, 1).await;
    assert!(is_corrupt(&client.init().await));
    assert!(is_corrupt(&client.lease(5).await));
    assert!(is_corrupt(&client.report(100, 5).await));
    assert!(is_corrupt(&client.release(100).await));
    assert_eq!(raw(&mut conn), before, "nothing was written");
}

/// Leases scored beyond the longest TTL (1e308, +inf) would never lapse: `CORRUPT`.
#[tokio::test]
async fn leases_that_never_expire_are_corrupt() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut conn = server.connection();
    for score in ["1e308", "+inf", "99999999999999999"] {
        run(&mut conn, &["DEL", POOL, LEASES, HELD, OWED]);
        run(
            &mut conn,
            &[
                "HSET",
                POOL,
                "capacity",
                "500",
                "available",
                "475",
                "held_total",
                "25",
            ],
        );
        let id = LeaseId::from_u64(9).to_string();
        run(&mut conn, &["HSET", HELD, &id, "25"]);
        run(&mut conn, &["ZADD", LEASES, score, &id]);
        let before = raw(&mut conn);
        let client = fleet_client(&server, 500, 1).await;
        let result = client.lease(5).await;
        assert!(is_corrupt(&result), "{score}: {result:?}");
        assert_eq!(raw(&mut conn), before, "{score}: nothing was written");
    }
}

/// Counts beyond 2^32 - 1, or not whole, in the pool: `CORRUPT`, naming the problem, not a
/// reply the client cannot read.
#[tokio::test]
async fn counts_out_of_range_are_corrupt() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut conn = server.connection();
    let client = fleet_client(&server, 500, 1).await;
    for (field, value) in [
        ("capacity", "1e300"),
        ("capacity", "4294967296"),
        ("available", "inf"),
        ("available", "nan"),
        ("held_total", "-0.5"),
        ("owed_total", "7.25"),
        ("owed_total", "100"),
    ] {
        run(&mut conn, &["DEL", POOL, LEASES, HELD, OWED]);
        run(
            &mut conn,
            &[
                "HSET",
                POOL,
                "capacity",
                "500",
                "available",
                "450",
                "held_total",
                "0",
                "owed_total",
                "0",
            ],
        );
        run(&mut conn, &["HSET", POOL, field, value]);
        let before = raw(&mut conn);
        let result = client.init().await;
        assert!(is_corrupt(&result), "{field} = {value}: {result:?}");
        assert_eq!(
            raw(&mut conn),
            before,
            "{field} = {value}: nothing was written"
        );
    }
}

// The property test.

/// A value for a count field: mostly a plausible count, sometimes anything.
fn count_text(rng: &mut SplitMix, plausible: u64) -> Option<String> {
    match rng.up_to(59) {
        0 => None,
        1 => Some("-1".to_owned()),
        2 => Some("1e300".to_owned()),
        3 => Some("inf".to_owned()),
        4 => Some("nan".to_owned()),
        5 => Some("2.5".to_owned()),
        6 => Some("many".to_owned()),
        7 => Some("4294967296".to_owned()),
        8 => Some(u64::from(rng.up_to(1000)).to_string()),
        _ => Some(plausible.to_string()),
    }
}

/// Writes a random state of the fleet's keys: often a consistent one, with the odd field out
/// of range or out of step. Returns the lease ids it used.
fn write_state(conn: &mut redis::Connection, rng: &mut SplitMix, now_ms: u64) -> Vec<String> {
    run(conn, &["DEL", POOL, LEASES, HELD, OWED]);
    let capacity = u64::from(rng.up_to(200)) + 1;
    let ids: Vec<String> = (1..=u64::from(rng.up_to(4)))
        .map(|i| LeaseId::from_u64(i).to_string())
        .collect();
    let mut held_total = 0;
    let mut owed_total = 0;
    for id in &ids {
        let tokens = u64::from(rng.up_to(30));
        let owes = u64::from(rng.up_to(10));
        held_total += tokens;
        owed_total += owes;
        if let Some(text) = count_text(rng, tokens) {
            run(conn, &["HSET", HELD, id, &text]);
        }
        if let Some(text) = count_text(rng, owes) {
            run(conn, &["HSET", OWED, id, &text]);
        }
        let score = match rng.up_to(9) {
            0 => "+inf".to_owned(),
            1 => "1e308".to_owned(),
            2 => "-inf".to_owned(),
            3 => "0".to_owned(),
            4 => (now_ms + 86_400_000 * 2).to_string(),
            5 => "skip".to_owned(),
            6 | 7 => (now_ms.saturating_sub(1_000)).to_string(),
            _ => (now_ms + 60_000).to_string(),
        };
        if score != "skip" {
            run(conn, &["ZADD", LEASES, &score, id]);
        }
    }
    if rng.up_to(9) > 0 {
        let available = capacity.saturating_sub(held_total + owed_total);
        let fields = [
            ("capacity", capacity),
            ("available", available),
            ("held_total", held_total),
            ("owed_total", owed_total),
        ];
        for (field, plausible) in fields {
            if let Some(text) = count_text(rng, plausible) {
                run(conn, &["HSET", POOL, field, &text]);
            }
        }
    }
    ids
}

/// A whole number from 0 to 2^32 - 1, as the scripts read a count.
fn parse_count(text: &str) -> Option<u64> {
    let n: f64 = text.parse().ok()?;
    (n >= 0.0 && n <= f64::from(u32::MAX) && n.fract() == 0.0).then_some(n as u64)
}

/// The tokens a state holds that a process could spend: the pool's available tokens and every
/// lease's tokens (what does not read as a count counts as nothing).
fn tokens(state: &Raw) -> u64 {
    let available = state
        .pool
        .get("available")
        .and_then(|v| parse_count(v))
        .unwrap_or(0);
    available
        + state
            .held
            .values()
            .filter_map(|v| parse_count(v))
            .sum::<u64>()
}

fn field(state: &Raw, name: &str) -> Option<u64> {
    state.pool.get(name).and_then(|v| parse_count(v))
}

/// 1,000 random states and a random call on each: never a panic or a script error; a `CORRUPT`
/// writes nothing; an `OK` leaves a pool that keeps the invariants; and no call ends with more
/// tokens than the larger of what the keys held before and the capacity.
#[tokio::test]
async fn no_store_contents_mint_tokens() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut conn = server.connection();
    let mut rng = SplitMix::new(0x0037_5eed);
    let mut outcomes = BTreeMap::<&str, u32>::new();
    for case in 0..1000 {
        let time: Vec<String> = redis::cmd("TIME").query(&mut conn).unwrap();
        let now_ms = time[0].parse::<u64>().unwrap() * 1000;
        let ids = write_state(&mut conn, &mut rng, now_ms);
        let before = raw(&mut conn);
        let stored_capacity = field(&before, "capacity");
        let capacity = match (stored_capacity, rng.up_to(4)) {
            (Some(c), 0..=2) if c > 0 => u32::try_from(c).unwrap(),
            _ => rng.up_to(200) + 1,
        };
        let id = u64::from(rng.up_to(u32::try_from(ids.len()).unwrap() + 1));
        let client = fleet_client(&server, capacity, id.max(1)).await;
        let n = rng.up_to(40);
        let (call, result) = match rng.up_to(3) {
            0 => ("init", client.init().await.map(drop)),
            1 => ("lease", client.lease(n).await.map(drop)),
            2 => ("report", client.report(n, rng.up_to(40)).await.map(drop)),
            _ => ("release", client.release(n).await.map(drop)),
        };
        let after = raw(&mut conn);
        let context = format!("case {case}: {call}({n}) on {before:?} -> {result:?}, {after:?}");
        let outcome = match &result {
            Ok(()) => "ok",
            Err(FleetError::CorruptPool { .. }) => "corrupt",
            Err(FleetError::LeaseLost) => "lost",
            Err(FleetError::CapacityMismatch { .. }) => "mismatch",
            Err(_) => panic!("{context}: not a protocol reply"),
        };
        *outcomes.entry(outcome).or_default() += 1;
        if outcome == "corrupt" {
            assert_eq!(after, before, "{context}: CORRUPT wrote");
        }
        if outcome == "ok" {
            let capacity = field(&after, "capacity").expect("a capacity");
            let available = field(&after, "available").expect("available");
            let held_total = field(&after, "held_total").expect("held_total");
            let owed_total = field(&after, "owed_total").expect("owed_total");
            assert!(available + held_total <= capacity, "{context}");
            assert!(owed_total <= capacity - available - held_total, "{context}");
        }
        let ceiling = tokens(&before).max(u64::from(capacity));
        assert!(tokens(&after) <= ceiling, "{context}: minted tokens");
    }
    // The generator reaches every kind of answer.
    for outcome in ["ok", "corrupt", "lost", "mismatch"] {
        assert!(
            outcomes.get(outcome).copied().unwrap_or(0) >= 10,
            "{outcomes:?}"
        );
    }
}

/// An inspection shows what the store holds, garbage included, and changes nothing: before
/// any process joined (no pool is created), and with two leases and a limiter member.
#[tokio::test]
async fn an_inspection_reads_without_changing_anything() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut conn = server.connection();
    let config = FleetQuotaConfig::builder("hostile")
        .call_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let observer = rebound_redis::connect(&server.url(), config).await.unwrap();
    let empty = observer.inspect().await.unwrap();
    assert_eq!(
        (empty.pool, empty.lease_count, empty.limiter),
        (None, 0, None)
    );
    assert!(empty.leases.is_empty() && empty.members.is_empty());
    let exists: u32 = redis::cmd("EXISTS").arg(POOL).query(&mut conn).unwrap();
    assert_eq!(exists, 0, "no pool was created");

    let a = fleet_client(&server, 100, 1).await;
    // b's lease is shorter: it lapses first, whatever the milliseconds of the calls.
    let short = FleetQuotaConfig::builder("hostile")
        .capacity(100)
        .lease_ttl(Duration::from_secs(5))
        .call_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let b = rebound_redis::connect(&server.url(), short)
        .await
        .unwrap()
        .with_lease_id(LeaseId::from_u64(2));
    a.lease(25).await.unwrap();
    b.lease(10).await.unwrap();
    a.report(20, 0).await.unwrap();
    a.limiter(
        1500,
        0,
        Duration::from_secs(2),
        rebound_redis::Demand::Rate(1.5),
    )
    .await
    .unwrap();
    let before = raw(&mut conn);
    let view = observer.inspect().await.unwrap();
    assert_eq!(raw(&mut conn), before, "nothing was written");
    let pool = view.pool.unwrap();
    assert_eq!(
        [
            pool.capacity,
            pool.available,
            pool.held_total,
            pool.owed_total
        ],
        [100, 65, 30, 5].map(Stored::Value)
    );
    assert_eq!(view.lease_count, 2);
    let ids: Vec<_> = view.leases.iter().map(|l| l.id.clone()).collect();
    assert_eq!(
        ids,
        [
            LeaseId::from_u64(2).to_string(),
            LeaseId::from_u64(1).to_string()
        ]
    );
    assert_eq!(view.leases[1].held, Stored::Value(20));
    assert_eq!(view.leases[1].owes, Stored::Value(5));
    assert_eq!(view.leases[0].owes, Stored::Absent);
    for lease in &view.leases {
        let left = lease.expires_in_ms.value().unwrap();
        assert!(left > 0 && left <= 10_000, "{lease:?}");
    }
    let limiter = view.limiter.unwrap();
    assert_eq!(limiter.cuts, Stored::Value(0));
    assert_eq!(limiter.sum_milli, Stored::Value(1500));
    assert_eq!(view.member_count, 1);
    assert_eq!(view.members[0].rate_milli, Stored::Value(1500));
    assert_eq!(view.members[0].demand_milli, Stored::Value(1500));
    assert_eq!(limiter.asked_milli, Stored::Value(1500));
    assert_eq!(limiter.unbounded, Stored::Value(0));

    run(
        &mut conn,
        &["HSET", HELD, &LeaseId::from_u64(2).to_string(), "lots"],
    );
    let view = observer.inspect().await.unwrap();
    assert_eq!(view.leases[0].held, Stored::Invalid("lots".to_owned()));
}
