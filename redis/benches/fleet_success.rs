//! A fleet quota against the local one, and what the store sees, against a real `redis-server`.
//!
//! 1. One successful request through `StandardRetryStrategy`, as the executors drive it
//!    (`acquire_initial_token`, `acquire_send_permit`, `record_success`, through the
//!    `RetryStrategy` trait), on 1 and 2 threads sharing one strategy, side by side:
//!    - `local`: the default quota (`RetryQuota::new(500)`, one atomic);
//!    - `fleet`: `FleetQuota::retry_quota()` on a fleet of 500 tokens, default settings.
//!
//!    Then the same local and fleet successes in alternating blocks, which prints the median
//!    ratio of the pairs (the two sides see the same machine), on 1 and 2 threads.
//!
//!    A success with no retry refunds 1 token. The lease's balance is full and the fleet's pool
//!    is full (nothing is spent), so the refund has nothing to refill and is dropped, as a full
//!    local quota drops it.
//! 2. Store round trips per 1,000 retries: retries of cost 5 through a strategy on a fleet quota
//!    (a fleet of 5,000 tokens, so that 1,000 retries fit), counted from the server's
//!    `INFO commandstats` (`EVALSHA` and `EVAL` calls), in a pure outage (every attempt fails)
//!    and in an outage with recovering requests (refunds from successes in between).
//!
//! It starts its own `redis-server` on a free port (the tests' harness); without one it says
//! so and exits successfully, unless `REBOUND_REQUIRE_REDIS=1`.
//!
//! Run: `cargo bench -p rebound-redis --bench fleet_success`.
#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::Criterion;
use rebound_redis::{FleetQuota, FleetQuotaConfigBuilder, FleetState};
use rebound_runtime::{
    Classified, Retry, RetryQuota, RetryStrategy, SendPermit, StandardRetryStrategy,
};
use support::{RedisServer, client};
use tokio::runtime::Runtime;

/// One successful request.
#[inline]
fn success<S: RetryStrategy>(strategy: &S) {
    let mut token = strategy.acquire_initial_token().unwrap();
    match strategy.acquire_send_permit(&mut token) {
        Ok(SendPermit::Granted) => {}
        other => panic!("{other:?}"),
    }
    strategy.record_success(black_box(token));
}

/// Per-request time with two threads sharing `f`'s strategy: the slower thread's time for
/// `iters` requests.
fn two_threads(iters: u64, f: &(impl Fn() + Sync)) -> Duration {
    let barrier = Barrier::new(2);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..iters {
                        f();
                    }
                    start.elapsed()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .max()
            .unwrap()
    })
}

fn on_threads(c: &mut Criterion, group: &str, name: &str, f: impl Fn() + Sync) {
    let mut g = c.benchmark_group(group);
    g.bench_function(format!("{name}/1 thread"), |b| b.iter(&f));
    g.bench_function(format!("{name}/2 threads"), |b| {
        b.iter_custom(|iters| two_threads(iters, &f));
    });
    g.finish();
}

/// A fleet quota on `server`, joined.
fn fleet_quota(
    runtime: &Runtime,
    server: &RedisServer,
    fleet: &str,
    tune: impl FnOnce(FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder,
) -> FleetQuota {
    let quota =
        runtime.block_on(async { FleetQuota::start(client(server, fleet, tune).await).await });
    assert_eq!(quota.state(), FleetState::Joined);
    quota
}

fn on_quota(quota: &Arc<RetryQuota>) -> StandardRetryStrategy {
    StandardRetryStrategy::builder()
        .quota(Arc::clone(quota))
        .build()
}

/// Nanoseconds per request of `f` on `threads` threads, over `iters` requests.
fn ns_per_request(threads: usize, iters: u64, f: &(impl Fn() + Sync)) -> f64 {
    let elapsed = if threads == 1 {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed()
    } else {
        two_threads(iters, f)
    };
    #[allow(clippy::cast_precision_loss)]
    let iters = iters as f64;
    elapsed.as_secs_f64() * 1e9 / iters
}

/// The median of `values`.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The fleet's success against the local one in alternating blocks, so that what else the
/// machine does weighs on both alike: the medians of each side and of the pairs' ratios.
fn paired(
    threads: usize,
    local: &(impl Fn() + Sync),
    fleet: &(impl Fn() + Sync),
) -> (f64, f64, f64) {
    const PAIRS: usize = 101;
    const BLOCK: u64 = 200_000;
    let (mut locals, mut fleets, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..PAIRS {
        let (l, f) = if pair % 2 == 0 {
            let l = ns_per_request(threads, BLOCK, local);
            (l, ns_per_request(threads, BLOCK, fleet))
        } else {
            let f = ns_per_request(threads, BLOCK, fleet);
            (ns_per_request(threads, BLOCK, local), f)
        };
        locals.push(l);
        fleets.push(f);
        ratios.push(f / l);
    }
    (
        median(&mut locals),
        median(&mut fleets),
        median(&mut ratios),
    )
}

fn successes(c: &mut Criterion, runtime: &Runtime, server: &RedisServer) {
    let group = "standard: success";
    let local = StandardRetryStrategy::new();
    on_threads(c, group, "local", || success(&local));

    let quota = fleet_quota(runtime, server, "bench-success", |b| b);
    let fleet = on_quota(quota.retry_quota());
    on_threads(c, group, "fleet", || success(&fleet));
    eprintln!("fleet: {:?}", quota.stats());
    let print_paired = |name: &str, fleet: &StandardRetryStrategy| {
        for threads in [1, 2] {
            let (l, f, ratio) = paired(threads, &|| success(&local), &|| success(fleet));
            println!(
                "paired, {name}, {threads} thread(s): local {l:.2} ns, fleet {f:.2} ns, \
                 fleet / local {ratio:.2} (median of 101 alternating blocks of 200,000 requests)"
            );
        }
    };
    print_paired("fleet", &fleet);
    runtime.block_on(quota.close());
}

/// The protocol's calls the server has run: `EVALSHA` and `EVAL` (`NOSCRIPT` fallbacks).
fn store_calls(server: &RedisServer) -> u64 {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut server.connection())
        .unwrap();
    info.lines()
        .filter(|line| line.starts_with("cmdstat_evalsha:") || line.starts_with("cmdstat_eval:"))
        .filter_map(|line| {
            let calls = line.split_once("calls=")?.1;
            calls.split(',').next()?.parse::<u64>().ok()
        })
        .sum()
}

/// What a request does in [`round_trips`].
#[derive(Debug, Clone, Copy)]
enum Request {
    /// Fails every attempt (the default 3 attempts: 2 retries).
    Outage,
    /// Fails once, then succeeds: 1 retry, whose cost 5 the success refunds.
    Recovers,
    /// Succeeds at once: refunds 1.
    Succeeds,
}

/// Runs `pattern` over and over, a request every 500 µs, until the strategy has granted 1,000
/// retries; prints the store's calls meanwhile.
fn round_trips(
    runtime: &Runtime,
    server: &RedisServer,
    case: &str,
    lease_size: u32,
    pattern: &[Request],
) {
    const RETRIES: u32 = 1_000;
    let fleet = format!("bench-round-trips-{lease_size}-{}", case.replace(' ', "-"));
    let quota = fleet_quota(runtime, server, &fleet, |b| {
        b.capacity(5_000).lease_size(lease_size)
    });
    let strategy = on_quota(quota.retry_quota());
    let retry = Retry::new(&strategy).sleeper(|_: Duration| ());
    let before = store_calls(server);
    let started = Instant::now();
    let (mut retries, mut requests, mut refused) = (0, 0, 0);
    'run: loop {
        for request in pattern {
            let granted = match request {
                Request::Outage => {
                    let err = retry
                        .run_classified(
                            |_| Err::<(), _>("unavailable"),
                            |_| Classified::retryable(),
                        )
                        .unwrap_err();
                    let granted = err.attempts() - 1;
                    refused += u32::from(granted < 2);
                    granted
                }
                Request::Recovers => {
                    match retry.run_classified(
                        |attempt| {
                            if attempt == 1 {
                                Err("unavailable")
                            } else {
                                Ok(())
                            }
                        },
                        |_| Classified::retryable(),
                    ) {
                        Ok(()) => 1,
                        Err(_) => {
                            refused += 1;
                            0
                        }
                    }
                }
                Request::Succeeds => {
                    success(&strategy);
                    0
                }
            };
            retries += granted;
            requests += 1;
            if retries >= RETRIES {
                break 'run;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
    let elapsed = started.elapsed();
    let calls = store_calls(server) - before;
    #[allow(clippy::cast_precision_loss)]
    let per_1000 = calls as f64 * 1000.0 / f64::from(retries);
    println!(
        "round trips, lease {lease_size}, {case}: {calls} store calls for {retries} retries \
         ({per_1000:.0} per 1,000 retries; {requests} requests, {refused} refused a retry, \
         {elapsed:.2?})"
    );
    runtime.block_on(quota.close());
}

fn main() {
    let Some(server) = RedisServer::start() else {
        println!("fleet_success: no redis-server, nothing measured");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    successes(&mut criterion, &runtime, &server);
    criterion.final_summary();

    use Request::{Outage, Recovers, Succeeds};
    for lease_size in [25, 100] {
        round_trips(&runtime, &server, "pure outage", lease_size, &[Outage]);
        round_trips(
            &runtime,
            &server,
            "outage and recovery",
            lease_size,
            &[Outage, Recovers, Succeeds, Succeeds],
        );
    }
}
