//! OS processes, each with an `AdaptiveRetryStrategy` joined to one `FleetLimiter` fleet on a
//! real `redis-server`, sending to one service that admits [`ADMITTED`] requests per second and
//! throttles the rest, while together they offer twice that; then the same processes on their
//! own limiters alone, in the same run. The service is a counter in the same server (a 100 ms
//! window), so that every process meets the same limit; it counts, per second of the run, the
//! requests it admitted and throttled.
//!
//! Cold start: the service throttles from the very first request. Warm start: it admits
//! everything for 3 s first. 10 and 50 processes; the 10-process cold start runs once more
//! through a local Redis Cluster. Then fleets whose members differ or change, throttled from
//! the first request: one heavy process beside nine light ones, ten processes joined by ten
//! more half-way, and twenty of which ten leave half-way. Each case prints its figures
//! (`--nocapture`: the `LIMITER` lines, docs/fleet.md's tables) and asserts floors far outside
//! them.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rebound_redis::{FleetLimiter, FleetQuotaConfig, FleetState};
use rebound_runtime::{AdaptiveRetryStrategy, Classified, Retry, StandardRetryStrategy};
use support::cluster::RedisCluster;
use support::{ChildProcess, RedisServer, Store};

const CHILD_TEST: &str = "child_process_sending_to_a_limited_service";
const CHILD_FLEET: &str = "REBOUND_LIMITER_CHILD_FLEET";
/// The child's part: `<offered requests/s>,<from ms>,<until ms>,<group>` ([`Part`]).
const CHILD_PART: &str = "REBOUND_LIMITER_CHILD_PART";

/// The key the parent sets, to the store's time in milliseconds, to start every child (on the
/// fleet's slot, as the service's keys).
fn go_key(fleet: &str) -> String {
    format!("rebound-test:{{{fleet}}}:go")
}

/// Per group and second of the run: `ok:<group>:<s>` and `throttled:<group>:<s>` counts.
fn stats_key(fleet: &str) -> String {
    format!("rebound-test:{{{fleet}}}:service")
}

/// Requests per second the service admits.
const ADMITTED: u32 = 400;
/// Tasks per process sending requests: at least 4, and one per 20 requests per second offered
/// (a task waits for each request, so a heavy process needs more of them).
fn task_count(offered: u32) -> u32 {
    (offered / 20).max(4)
}
const RUN: Duration = Duration::from_secs(20);

/// What one child does: offers `offered` requests per second from `from` to `until` (times
/// since the go signal), its requests counted under `group`. A child joins its fleet (starts
/// its strategy and `FleetLimiter`) at `from` and leaves it (closes the limiter) at `until`.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    offered: u32,
    from: Duration,
    until: Duration,
    group: &'static str,
}

impl Part {
    /// `processes` of a fleet offering twice what is admitted, evenly, for the whole run.
    fn even(processes: usize) -> Self {
        Self {
            offered: 2 * ADMITTED / u32::try_from(processes).unwrap(),
            from: Duration::ZERO,
            until: RUN,
            group: "all",
        }
    }

    fn env(&self) -> String {
        let ms = |d: Duration| d.as_millis();
        format!(
            "{},{},{},{}",
            self.offered,
            ms(self.from),
            ms(self.until),
            self.group
        )
    }

    fn parse(env: &str) -> (u32, Duration, Duration, String) {
        let fields: Vec<&str> = env.split(',').collect();
        let ms = |i: usize| Duration::from_millis(fields[i].parse().unwrap());
        (
            fields[0].parse().unwrap(),
            ms(1),
            ms(2),
            fields[3].to_owned(),
        )
    }
}

/// The service: admits `ARGV[1]` requests per 100 ms window once `ARGV[2]` ms have passed
/// since the go time, everything before; counts what it did in the second of the run it is
/// in, under the group `ARGV[3]`. Returns 1 when it throttles.
const SERVICE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local go = tonumber(redis.call('GET', KEYS[1]))
local window = KEYS[1] .. ':window:' .. math.floor(now / 100)
local n = redis.call('INCR', window)
redis.call('PEXPIRE', window, 1000)
local throttled = now - go >= tonumber(ARGV[2]) and n > tonumber(ARGV[1])
local second = math.floor((now - go) / 1000)
redis.call('HINCRBY', KEYS[2], (throttled and 'throttled:' or 'ok:') .. ARGV[3] .. ':' .. second, 1)
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

/// The child's role: from its part's start, [`task_count`] tasks sending its part's requests through
/// `Retry` on one adaptive strategy with a `FleetLimiter` on the fleet (default settings; none
/// on a fleet named `-alone`), until its part's end. Does nothing in a normal run.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn child_process_sending_to_a_limited_service() {
    let Ok(fleet) = std::env::var(CHILD_FLEET) else {
        return;
    };
    let (offered, from, until, group) = Part::parse(&std::env::var(CHILD_PART).unwrap());
    let config = FleetQuotaConfig::builder(fleet.as_str())
        .strict_start(true)
        .connect_timeout(Duration::from_secs(10))
        .call_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let Some((client, conn)) = support::child_store(config).await else {
        return;
    };
    println!("READY");
    let mut poll_conn = conn.clone();
    support::wait_for_go(&mut poll_conn, &go_key(&fleet)).await;
    let started = Instant::now();
    tokio::time::sleep(from).await;
    // The process joins at its part's start, a new strategy as a new process would have.
    let strategy = Arc::new(AdaptiveRetryStrategy::builder(StandardRetryStrategy::new()).build());
    let limiter = if fleet.ends_with(ALONE) {
        None
    } else {
        Some(FleetLimiter::start(client, strategy.clone()).await)
    };
    let service = Arc::new(redis::Script::new(SERVICE));
    let throttle_from = throttle_from_ms(&fleet);
    let pace = Duration::from_secs(1) * task_count(offered) / offered;
    let mut tasks = tokio::task::JoinSet::new();
    // Each task starts at its own point of its tick: clients of one service do not send in
    // step (the offsets are drawn from the process id, each task's own).
    let offsets = rebound_runtime::backoff::SeededRandom::new(u64::from(std::process::id()));
    for _ in 0..task_count(offered) {
        let offset = pace.mul_f64(rebound_runtime::backoff::RandomSource::unit(&offsets));
        let (strategy, service, conn) = (strategy.clone(), service.clone(), conn.clone());
        let (go, stats, group) = (go_key(&fleet), stats_key(&fleet), group.clone());
        tasks.spawn(async move {
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + offset, pace);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            while started.elapsed() < until {
                ticks.tick().await;
                let _ = Retry::new(&*strategy)
                    .run_async_classified(
                        |_| {
                            let (service, mut conn) = (service.clone(), conn.clone());
                            let (go, stats) = (go.clone(), stats.clone());
                            let group = group.clone();
                            async move {
                                let throttled: u32 = service
                                    .key(go)
                                    .key(stats)
                                    .arg(ADMITTED / 10)
                                    .arg(throttle_from)
                                    .arg(group)
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
    if let Some(limiter) = limiter {
        assert_eq!(limiter.state(), FleetState::Joined, "the store stayed up");
        limiter.close().await;
    }
    println!("DONE");
}

/// Admitted and throttled requests per group and second of the run of `parts` (one process
/// each) on `fleet`.
fn run_fleet(store: &Store, fleet: &str, parts: &[Part]) -> Counts {
    let (store_var, store_value) = store.child_env();
    let children: Vec<_> = parts
        .iter()
        .map(|part| {
            let part = part.env();
            let env = [
                (store_var, store_value.as_str()),
                (CHILD_FLEET, fleet),
                (CHILD_PART, part.as_str()),
            ];
            ChildProcess::run_test(CHILD_TEST, &env)
        })
        .collect();
    for child in &children {
        child
            .wait_for_line("READY", Duration::from_secs(120))
            .expect("the child connects");
    }
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
    Counts(stats)
}

/// The service's counts of one run: `ok:<group>:<s>` and `throttled:<group>:<s>`.
struct Counts(BTreeMap<String, u64>);

impl Counts {
    /// Per second of the run, the requests of `group` (every group: `None`) that were `what`
    /// (`ok` or `throttled`).
    fn per_second(&self, what: &str, group: Option<&str>) -> Vec<u64> {
        let seconds = usize::try_from(RUN.as_secs()).unwrap();
        let mut counts = vec![0; seconds];
        for (key, &n) in &self.0 {
            let mut fields = key.split(':');
            let (Some(kind), Some(g), Some(second)) = (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let second: usize = second.parse().unwrap();
            if kind == what && group.is_none_or(|group| group == g) && second < seconds {
                counts[second] += n;
            }
        }
        counts
    }
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

fn figures(label: &str, run: &Counts) -> Figures {
    let (ok, throttled) = (
        run.per_second("ok", None),
        run.per_second("throttled", None),
    );
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
    let parts = vec![Part::even(processes); processes];
    let run = run_fleet(store, &fleet, &parts);
    let joined = figures(&format!("{label}, fleet limiter"), &run);
    let run = run_fleet(store, &format!("{fleet}{ALONE}"), &parts);
    let alone = figures(&format!("{label}, per-process limiters"), &run);
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

/// Requests per second of `group` admitted over seconds `from..until` of the run.
fn admitted(run: &Counts, group: Option<&str>, seconds: std::ops::Range<usize>) -> f64 {
    let ok = run.per_second("ok", group);
    let n = seconds.len() as f64;
    ok[seconds].iter().sum::<u64>() as f64 / n
}

/// Requests of every group throttled over seconds `from..until` of the run.
fn throttled(run: &Counts, seconds: std::ops::Range<usize>) -> u64 {
    run.per_second("throttled", None)[seconds].iter().sum()
}

/// The fleet under `fleet` with `parts`, joined by a `FleetLimiter` and then on per-process
/// limiters, in the same run; `show` prints a run's figures and returns what it asserts on.
fn compare_parts<T: std::fmt::Debug>(
    fleet: &str,
    parts: &[Part],
    show: impl Fn(&str, &Counts) -> T,
) -> Option<(T, T)> {
    let server = RedisServer::start()?;
    let store = Store::One(server);
    let _one = ONE_FLEET_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let joined = show("fleet limiter", &run_fleet(&store, fleet, parts));
    let alone = show(
        "per-process limiters",
        &run_fleet(&store, &format!("{fleet}{ALONE}"), parts),
    );
    Some((joined, alone))
}

/// One heavy process beside nine light ones, throttled from the first request: the light ones
/// ask for 20 requests/s each, the heavy one for the rest of twice the admitted rate.
#[test]
fn one_heavy_process_beside_nine_light_ones() {
    const LIGHT: u32 = 20;
    let heavy = Part {
        offered: 2 * ADMITTED - 9 * LIGHT,
        group: "heavy",
        ..Part::even(1)
    };
    let light = Part {
        offered: LIGHT,
        group: "light",
        ..Part::even(1)
    };
    let mut parts = vec![heavy];
    parts.extend(std::iter::repeat_n(light, 9));
    let show = |limiters: &str, run: &Counts| {
        let last = 10..20;
        let light = admitted(run, Some("light"), last.clone()) / f64::from(9 * LIGHT);
        let heavy = admitted(run, Some("heavy"), last.clone()) / f64::from(ADMITTED - 9 * LIGHT);
        let all = admitted(run, None, last.clone()) / f64::from(ADMITTED);
        let sent: u64 = run.per_second("ok", None).iter().sum::<u64>() + throttled(run, 0..20);
        let share = throttled(run, 0..20) as f64 / sent.max(1) as f64;
        eprintln!(
            "LIMITER uneven, {limiters}: last 10 s: light {:.1}% of what they ask, heavy {:.1}% of the rest, all {:.1}%; throttled {:.2}%\n  light ok {:?}\n  heavy ok {:?}\n  throttled {:?}",
            light * 100.0,
            heavy * 100.0,
            all * 100.0,
            share * 100.0,
            run.per_second("ok", Some("light")),
            run.per_second("ok", Some("heavy")),
            run.per_second("throttled", None),
        );
        (light, heavy, all, share)
    };
    let Some(((light, heavy, all, share), alone)) = compare_parts("uneven", &parts, show) else {
        return;
    };
    eprintln!("per-process: {alone:?}");
    assert!(
        light >= 0.8 && heavy >= 0.25 && all >= FLOOR_LAST && share <= CEILING_THROTTLED,
        "{light} {heavy} {all} {share}"
    );
}

/// Ten processes, joined by ten more 10 s into a run throttled from the first request; each
/// offers 80 requests/s.
#[test]
fn ten_processes_joined_by_ten_more() {
    let first = Part::even(10);
    let joining = Part {
        from: RUN / 2,
        group: "joining",
        ..Part::even(10)
    };
    let mut parts = vec![first; 10];
    parts.extend(std::iter::repeat_n(joining, 10));
    let show = |limiters: &str, run: &Counts| {
        let burst = throttled(run, 10..13);
        let before = throttled(run, 7..10);
        let after = admitted(run, None, 13..20) / f64::from(ADMITTED);
        eprintln!(
            "LIMITER scale-up, {limiters}: throttled in the 3 s after the join {burst} (3 s before: {before}); admitted over the last 7 s {:.1}%\n  ok {:?}\n  throttled {:?}",
            after * 100.0,
            run.per_second("ok", None),
            run.per_second("throttled", None),
        );
        (burst, after)
    };
    let Some(((burst, after), alone)) = compare_parts("scale-up", &parts, show) else {
        return;
    };
    eprintln!("per-process: {alone:?}");
    assert!(
        after >= FLOOR_LAST && burst < 3 * u64::from(ADMITTED),
        "{burst} {after}"
    );
}

/// Twenty processes, ten of which leave 10 s into a run throttled from the first request; each
/// offers 60 requests/s.
#[test]
fn twenty_processes_of_which_ten_leave() {
    let staying = Part {
        offered: 60,
        group: "staying",
        ..Part::even(1)
    };
    let leaving = Part {
        until: RUN / 2,
        group: "leaving",
        ..staying.clone()
    };
    let mut parts = vec![staying; 10];
    parts.extend(std::iter::repeat_n(leaving, 10));
    let show = |limiters: &str, run: &Counts| {
        let ok = run.per_second("ok", None);
        // Seconds from the leave until the fleet is admitted 90% of the rate again.
        let back = ok[10..]
            .iter()
            .position(|&n| n as f64 >= 0.9 * f64::from(ADMITTED));
        let after = admitted(run, None, 12..20) / f64::from(ADMITTED);
        // The staying processes alone sent about half the rate before the leave.
        let late = admitted(run, None, 15..20) / f64::from(ADMITTED);
        eprintln!(
            "LIMITER scale-down, {limiters}: back at 90% {back:?} s after the leave; admitted over the last 8 s {:.1}%\n  staying ok {:?}\n  leaving ok {:?}\n  throttled {:?}",
            after * 100.0,
            run.per_second("ok", Some("staying")),
            run.per_second("ok", Some("leaving")),
            run.per_second("throttled", None),
        );
        (back, after, late)
    };
    let Some(((back, after, late), alone)) = compare_parts("scale-down", &parts, show) else {
        return;
    };
    eprintln!("per-process: {alone:?}");
    assert!(late >= FLOOR_LAST, "{back:?} {after} {late}");
}
