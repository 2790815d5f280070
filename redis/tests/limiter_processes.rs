//! OS processes, each with an `AdaptiveRetryStrategy` joined to one `FleetLimiter` fleet on a
//! real `redis-server`, sending to one service that admits [`ADMITTED`] requests per second and
//! throttles the rest, while together they offer twice that; then the same processes on their
//! own limiters alone, in the same run. The service is a counter in the same server (a 100 ms
//! window), so that every process meets the same limit; it counts, per second of the run, the
//! requests it admitted and throttled.
//!
//! Cold start: the service throttles from the very first request. Warm start: it admits
//! everything for 3 s first. 10 and 50 processes; the 10-process cold start runs once more
//! through a local Redis Cluster. Each case prints its figures (`--nocapture`: the `LIMITER`
//! lines, docs/fleet.md's table) and asserts floors far outside them.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rebound_redis::{FleetLimiter, FleetQuotaConfig, FleetState};
use rebound_runtime::{AdaptiveRetryStrategy, Classified, Retry, StandardRetryStrategy};
use support::cluster::RedisCluster;
use support::{RedisServer, Store, ready_children};

const CHILD_TEST: &str = "child_process_sending_to_a_limited_service";
const CHILD_FLEET: &str = "REBOUND_LIMITER_CHILD_FLEET";

/// The key the parent sets, to the store's time in milliseconds, to start every child (on the
/// fleet's slot, as the service's keys).
fn go_key(fleet: &str) -> String {
    format!("rebound-test:{{{fleet}}}:go")
}

/// Per second of the run: `ok:<s>` and `throttled:<s>` counts.
fn stats_key(fleet: &str) -> String {
    format!("rebound-test:{{{fleet}}}:service")
}

/// Requests per second the service admits.
const ADMITTED: u32 = 400;
/// Tasks per process sending requests; the fleet offers twice what is admitted.
const TASKS: u32 = 4;
const RUN: Duration = Duration::from_secs(20);
/// The child's count of processes in its fleet.
const CHILD_PROCESSES: &str = "REBOUND_LIMITER_CHILD_PROCESSES";

/// The service: admits `ARGV[1]` requests per 100 ms window once `ARGV[2]` ms have passed
/// since the go time, everything before; counts what it did in the second of the run it is in.
/// Returns 1 when it throttles.
const SERVICE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local go = tonumber(redis.call('GET', KEYS[1]))
local window = KEYS[1] .. ':window:' .. math.floor(now / 100)
local n = redis.call('INCR', window)
redis.call('PEXPIRE', window, 1000)
local throttled = now - go >= tonumber(ARGV[2]) and n > tonumber(ARGV[1])
local second = math.floor((now - go) / 1000)
redis.call('HINCRBY', KEYS[2], (throttled and 'throttled:' or 'ok:') .. second, 1)
if throttled then return 1 end
return 0
";

/// Throttled from the first request, or from 3 s on.
const COLD: &str = "cold";
const WARM: &str = "warm";
/// The suffix of a fleet whose processes run no `FleetLimiter`: each on its own adaptive
/// limiter.
const ALONE: &str = "-alone";

fn throttle_from_ms(fleet: &str) -> u64 {
    if fleet.contains(WARM) { 3000 } else { 0 }
}

/// The child's role: a `FleetLimiter` on the fleet (default settings), `TASKS` tasks sending
/// requests through `Retry` on one adaptive strategy, each at most `OFFERED_PER_PROCESS /
/// TASKS` a second, for [`RUN`]. Does nothing in a normal run.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn child_process_sending_to_a_limited_service() {
    let Ok(fleet) = std::env::var(CHILD_FLEET) else {
        return;
    };
    let processes: u32 = std::env::var(CHILD_PROCESSES).unwrap().parse().unwrap();
    let offered_per_process = 2 * ADMITTED / processes;
    let strategy = Arc::new(AdaptiveRetryStrategy::builder(StandardRetryStrategy::new()).build());
    let config = FleetQuotaConfig::builder(fleet.as_str())
        .strict_start(true)
        .connect_timeout(Duration::from_secs(10))
        .call_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let Some((client, conn)) = support::child_store(config).await else {
        return;
    };
    let limiter = if fleet.ends_with(ALONE) {
        None
    } else {
        Some(FleetLimiter::start(client, strategy.clone()).await)
    };
    println!("READY");
    let mut poll_conn = conn.clone();
    support::wait_for_go(&mut poll_conn, &go_key(&fleet)).await;
    let service = Arc::new(redis::Script::new(SERVICE));
    let throttle_from = throttle_from_ms(&fleet);
    let pace = Duration::from_secs(1) * TASKS / offered_per_process;
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    // Each task starts at its own point of its tick: clients of one service do not send in
    // step (the offsets are drawn from the process id, each task's own).
    let offsets = rebound_runtime::backoff::SeededRandom::new(u64::from(std::process::id()));
    for _ in 0..TASKS {
        let offset = pace.mul_f64(rebound_runtime::backoff::RandomSource::unit(&offsets));
        let (strategy, service, conn) = (strategy.clone(), service.clone(), conn.clone());
        let (go, stats) = (go_key(&fleet), stats_key(&fleet));
        tasks.spawn(async move {
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + offset, pace);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            while started.elapsed() < RUN {
                ticks.tick().await;
                let _ = Retry::new(&*strategy)
                    .run_async_classified(
                        |_| {
                            let (service, mut conn) = (service.clone(), conn.clone());
                            let (go, stats) = (go.clone(), stats.clone());
                            async move {
                                let throttled: u32 = service
                                    .key(go)
                                    .key(stats)
                                    .arg(ADMITTED / 10)
                                    .arg(throttle_from)
                                    .invoke_async(&mut conn)
                                    .await
                                    .unwrap();
                                if throttled == 1 {
                                    Err("throttled")
                                } else {
                                    Ok(())
                                }
                            }
                        },
                        |_| Classified::retryable().with_throttle(true),
                    )
                    .await;
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    println!("DONE");
    if let Some(limiter) = limiter {
        assert_eq!(limiter.state(), FleetState::Joined, "the store stayed up");
        limiter.close().await;
    }
}

/// Admitted and throttled requests per second of the run of `processes` processes on `fleet`.
fn run_fleet(store: &Store, fleet: &str, processes: usize) -> (Vec<u64>, Vec<u64>) {
    let (store_var, store_value) = store.child_env();
    let count = processes.to_string();
    let env = [
        (store_var, store_value.as_str()),
        (CHILD_FLEET, fleet),
        (CHILD_PROCESSES, count.as_str()),
    ];
    let children = ready_children(CHILD_TEST, &env, processes, Duration::from_secs(120));
    let mut conn = store.connection(fleet);
    let time: Vec<String> = redis::cmd("TIME").query(&mut conn).unwrap();
    let now_ms = time[0].parse::<u64>().unwrap() * 1000 + time[1].parse::<u64>().unwrap() / 1000;
    let _: () = redis::cmd("SET")
        .arg(go_key(fleet))
        .arg(now_ms)
        .query(&mut conn)
        .unwrap();
    for mut child in children {
        child
            .wait_for_line("DONE", RUN + Duration::from_secs(60))
            .expect("the child finishes its run");
        assert!(child.wait(), "the child process failed");
    }
    let stats: BTreeMap<String, u64> = redis::cmd("HGETALL")
        .arg(stats_key(fleet))
        .query(&mut conn)
        .unwrap();
    let seconds = usize::try_from(RUN.as_secs()).unwrap();
    let per_second = |what: &str| -> Vec<u64> {
        (0..seconds)
            .map(|s| stats.get(&format!("{what}:{s}")).copied().unwrap_or(0))
            .collect()
    };
    (per_second("ok"), per_second("throttled"))
}

/// One run's figures, as docs/fleet.md reports them.
#[derive(Debug)]
struct Figures {
    /// Admitted per second over the last 10 s, as a share of [`ADMITTED`].
    last: f64,
    /// The same over the whole run.
    whole: f64,
    /// The share of the requests sent that were throttled.
    throttled: f64,
}

fn figures(label: &str, ok: &[u64], throttled: &[u64]) -> Figures {
    let rate = f64::from(ADMITTED);
    let sent: u64 = ok.iter().sum::<u64>() + throttled.iter().sum::<u64>();
    let figures = Figures {
        last: ok[ok.len() - 10..].iter().sum::<u64>() as f64 / 10.0 / rate,
        whole: ok.iter().sum::<u64>() as f64 / ok.len() as f64 / rate,
        throttled: throttled.iter().sum::<u64>() as f64 / sent.max(1) as f64,
    };
    // One line per run, for docs/fleet.md's table (`--nocapture`).
    eprintln!(
        "LIMITER {label}: last 10 s {:.1}%, whole run {:.1}%, throttled {:.2}%\n  ok {ok:?}\n  throttled {throttled:?}",
        figures.last * 100.0,
        figures.whole * 100.0,
        figures.throttled * 100.0
    );
    figures
}

/// One fleet at a time: its processes take both cores.
static ONE_FLEET_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `processes` processes starting `start`, joined by a `FleetLimiter`, then the same on their
/// own limiters, in the same run.
fn compare(processes: usize, start: &str) -> Option<(Figures, Figures)> {
    let server = RedisServer::start()?;
    Some(compare_on(&Store::One(server), processes, start))
}

fn compare_on(store: &Store, processes: usize, start: &str) -> (Figures, Figures) {
    let _one = ONE_FLEET_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let label = format!("{processes} processes, {start}{}", store.label());
    let fleet = format!("limited-{processes}-{start}");
    let (ok, throttled) = run_fleet(store, &fleet, processes);
    let joined = figures(&format!("{label}, fleet limiter"), &ok, &throttled);
    let (ok, throttled) = run_fleet(store, &format!("{fleet}{ALONE}"), processes);
    let alone = figures(&format!("{label}, per-process limiters"), &ok, &throttled);
    for (name, figures) in [("fleet limiter", &joined), ("per-process limiters", &alone)] {
        assert!(
            figures.last >= FLOOR_LAST && figures.throttled <= CEILING_THROTTLED,
            "{label}, {name}: {figures:?}"
        );
    }
    (joined, alone)
}

/// The least share of the admitted rate over the last 10 s, and the largest share of requests
/// throttled, that any case may show: floors against a limiter that stalls or does not slow
/// down, far outside what the runs in docs/fleet.md measured (fleet limiter: 85–97% and
/// 0.5–5.8%; per-process limiters: 96–98% and 0.9–5.9%).
const FLOOR_LAST: f64 = 0.6;
const CEILING_THROTTLED: f64 = 0.12;

#[test]
fn ten_processes_cold() {
    compare(10, COLD);
}

#[test]
fn ten_processes_warm() {
    compare(10, WARM);
}

#[test]
fn fifty_processes_cold() {
    compare(50, COLD);
}

#[test]
fn fifty_processes_warm() {
    compare(50, WARM);
}

/// The cold start through a Redis Cluster (three masters, a replica each).
#[test]
fn ten_processes_cold_on_a_cluster() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    compare_on(&Store::Cluster(cluster), 10, COLD);
}
