//! A throwaway `redis-server` for the tests, and helpers to look at a fleet's keys.
//!
//! Each test starts its own server on 127.0.0.1 and a free port, without persistence, in its
//! own temporary directory, and kills it when done. Without `redis-server` on `PATH` a test
//! prints a skip message and passes, unless `REBOUND_REQUIRE_REDIS=1` (CI) makes it fail.
//! `REBOUND_REDIS_SERVER=valkey-server` runs the same tests against Valkey.

#![allow(dead_code)] // each test binary uses its own part

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rebound_redis::{FleetQuotaClient, FleetQuotaConfig, FleetQuotaConfigBuilder};
use tempfile::TempDir;

pub(crate) mod cluster;

/// Set to `1` to make a missing `redis-server` a failure rather than a skip.
pub(crate) const REQUIRE_VAR: &str = "REBOUND_REQUIRE_REDIS";

/// How long a server may take to answer its first PING.
const START_TIMEOUT: Duration = Duration::from_secs(5);

/// A running `redis-server`, killed on drop.
pub(crate) struct RedisServer {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl RedisServer {
    /// A fresh server, or `None` (after printing why the test is skipped) when `redis-server`
    /// is not available.
    ///
    /// # Panics
    ///
    /// When the server cannot start and `REBOUND_REQUIRE_REDIS=1`.
    pub(crate) fn start() -> Option<Self> {
        Self::try_start()
            .map_err(|reason| skip_or_fail("redis-server", &reason))
            .ok()
    }

    fn try_start() -> Result<Self, String> {
        // The port is free when we look; another process may take it before the server binds
        // it, so a server that exits because its port is in use is started again on another.
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port()?;
            let dir =
                tempfile::tempdir().map_err(|err| format!("no temporary directory: {err}"))?;
            let child = spawn_server(port, dir.path())?;
            let mut server = Self { child, port, dir };
            match server.wait_until_ready() {
                Ok(()) => return Ok(server),
                Err(reason) => {
                    let log = read_log(&server.dir.path().join("redis.log"));
                    last_error = format!("{reason}; its log: {log}");
                    if !log.contains("Address already in use") {
                        return Err(last_error);
                    }
                }
            }
        }
        Err(last_error)
    }

    fn wait_until_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < START_TIMEOUT {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("redis-server exited at start ({status})"));
            }
            if ping(self.port) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(format!(
            "redis-server did not answer PING within {START_TIMEOUT:?}"
        ))
    }

    /// Kills the server (SIGKILL), as a crash would; [`restart`](Self::restart) starts it
    /// again on the same port.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts the server again on the same port: empty (there is no persistence), or with what
    /// the last [`save`](Self::save) wrote.
    ///
    /// # Panics
    ///
    /// When it does not start and answer PING in time.
    pub(crate) fn restart(&mut self) {
        self.kill();
        let started = Instant::now();
        loop {
            self.child = spawn_server(self.port, self.dir.path()).expect("restart redis-server");
            match self.wait_until_ready() {
                Ok(()) => return,
                // The old socket may linger a moment.
                Err(_) if started.elapsed() < START_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(reason) => panic!("redis-server did not restart: {reason}"),
            }
        }
    }

    /// Writes the data set to the server's directory (`SAVE`): the next
    /// [`restart`](Self::restart) loads it, as a store with persistence would, instead of
    /// starting empty.
    pub(crate) fn save(&self) {
        let _: () = redis::cmd("SAVE")
            .query(&mut self.connection())
            .expect("SAVE on the test server");
    }

    /// The server's URL.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A plain (blocking) connection, for the tests' own commands.
    pub(crate) fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .and_then(|client| client.get_connection())
            .expect("connect to the test server")
    }

    /// The keys of `fleet`, read together (MULTI/EXEC).
    pub(crate) fn snapshot(&self, fleet: &str) -> Snapshot {
        snapshot(&mut self.connection(), fleet)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // SIGKILL: nothing of the server's is worth keeping; its directory goes with `dir`.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `redis-server` on 127.0.0.1:`port`, without persistence, working in `dir`.
/// The server binary: `redis-server`, or what `REBOUND_REDIS_SERVER` names (`valkey-server`, a
/// path).
pub(crate) const SERVER_VAR: &str = "REBOUND_REDIS_SERVER";

fn spawn_server(port: u16, dir: &Path) -> Result<Child, String> {
    let binary = std::env::var(SERVER_VAR).unwrap_or_else(|_| "redis-server".to_owned());
    Command::new(&binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .arg("--logfile")
        .arg(dir.join("redis.log"))
        // DEBUG SLEEP, for the slow-server tests (Redis 7 and Valkey disable it by default).
        .args(["--enable-debug-command", "local"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("cannot run {binary}: {err}"))
}

fn free_port() -> Result<u16, String> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|err| format!("no free port: {err}"))?;
    listener
        .local_addr()
        .map(|addr| addr.port())
        .map_err(|err| format!("no free port: {err}"))
}

/// Whether a server on `port` answers PING.
fn ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut reply = [0; 7];
    stream.read_exact(&mut reply).is_ok() && &reply == b"+PONG\r\n"
}

fn read_log(path: &Path) -> String {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(5).collect();
    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

/// A fleet's keys at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub(crate) capacity: Option<u64>,
    pub(crate) available: Option<u64>,
    pub(crate) held_total: Option<u64>,
    /// lease id -> tokens held.
    pub(crate) held: BTreeMap<String, u64>,
    /// lease id -> expiry (ms of the server's clock).
    pub(crate) leases: BTreeMap<String, u64>,
    pub(crate) owed_total: Option<u64>,
    /// lease id -> tokens its last report said it spent, not refunded yet.
    pub(crate) owed: BTreeMap<String, u64>,
}

impl Snapshot {
    /// The sum of the held hash's values.
    pub(crate) fn held_sum(&self) -> u64 {
        self.held.values().sum()
    }

    /// The protocol's invariant: `available + sum(held) <= capacity`, `held_total` is that
    /// sum, and the two lease structures name the same leases.
    pub(crate) fn assert_invariant(&self, context: &str) {
        let (Some(capacity), Some(available), Some(held_total)) =
            (self.capacity, self.available, self.held_total)
        else {
            panic!("{context}: incomplete pool {self:?}");
        };
        assert_eq!(
            held_total,
            self.held_sum(),
            "{context}: held_total {self:?}"
        );
        assert!(
            available + held_total <= capacity,
            "{context}: available + held > capacity: {self:?}"
        );
        assert!(
            self.held.keys().eq(self.leases.keys()),
            "{context}: held and leases disagree: {self:?}"
        );
        let owed_total = self.owed_total.unwrap_or(0);
        assert_eq!(
            owed_total,
            self.owed.values().sum::<u64>(),
            "{context}: owed_total {self:?}"
        );
        assert!(
            owed_total <= capacity - available - held_total,
            "{context}: owed_total > what the pool misses: {self:?}"
        );
        assert!(
            self.owed.keys().all(|id| self.leases.contains_key(id)),
            "{context}: a lease that is gone owes: {self:?}"
        );
    }

    /// The invariant, with nothing consumed: `available + sum(held) == capacity`.
    pub(crate) fn assert_conserved(&self, context: &str) {
        self.assert_invariant(context);
        assert_eq!(
            self.available.unwrap_or(0) + self.held_total.unwrap_or(0),
            self.capacity.unwrap_or(0),
            "{context}: tokens lost: {self:?}"
        );
    }
}

/// The keys of `fleet`, read atomically on `conn`.
pub(crate) fn snapshot(conn: &mut redis::Connection, fleet: &str) -> Snapshot {
    let pool = format!("rebound:{{{fleet}}}:pool");
    let leases = format!("rebound:{{{fleet}}}:leases");
    let held = format!("rebound:{{{fleet}}}:held");
    let owed = format!("rebound:{{{fleet}}}:owed");
    /// HMGET's fields, HGETALL's maps, ZRANGE's members and scores.
    type Reply = (
        Vec<Option<u64>>,
        BTreeMap<String, u64>,
        BTreeMap<String, u64>,
        Vec<(String, f64)>,
    );
    let (fields, held, owed, leases): Reply = redis::pipe()
        .atomic()
        .cmd("HMGET")
        .arg(&pool)
        .arg(&["capacity", "available", "held_total", "owed_total"])
        .cmd("HGETALL")
        .arg(&held)
        .cmd("HGETALL")
        .arg(&owed)
        .cmd("ZRANGE")
        .arg(&leases)
        .arg(0)
        .arg(-1)
        .arg("WITHSCORES")
        .query(conn)
        .expect("read the fleet's keys");
    Snapshot {
        capacity: fields[0],
        available: fields[1],
        held_total: fields[2],
        held,
        owed_total: fields[3],
        owed,
        // Whole milliseconds: the scripts write whole numbers.
        leases: leases
            .into_iter()
            .map(|(id, expiry)| (id, expiry as u64))
            .collect(),
    }
}

/// When a store cannot start: fails the test under `REBOUND_REQUIRE_REDIS=1`, else prints why
/// it is skipped (straight to stderr, past the test harness's capture, so the skip shows).
pub(crate) fn skip_or_fail(what: &str, reason: &str) {
    assert!(
        std::env::var(REQUIRE_VAR).as_deref() != Ok("1"),
        "{what} is required ({REQUIRE_VAR}=1) but could not start: {reason}"
    );
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let line = format!(
        "skipped: {what} is not available (set {REQUIRE_VAR}=1 to make this a failure) \
         [{test}: {reason}]\n"
    );
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The settings of a test's client for `fleet`: a strict start (the pool is created), a call
/// timeout generous enough for a loaded test machine; `tune` changes the others.
pub(crate) fn test_config(
    fleet: &str,
    tune: impl FnOnce(FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder,
) -> FleetQuotaConfig {
    let builder = FleetQuotaConfig::builder(fleet)
        .call_timeout(Duration::from_secs(2))
        .connect_timeout(Duration::from_secs(5))
        .strict_start(true);
    tune(builder).build().expect("valid test settings")
}

/// A client of `server` for `fleet` with [`test_config`].
pub(crate) async fn client(
    server: &RedisServer,
    fleet: &str,
    tune: impl FnOnce(FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder,
) -> FleetQuotaClient {
    rebound_redis::connect(&server.url(), test_config(fleet, tune))
        .await
        .expect("connect to the test server")
}

/// Polls `check` every 10 ms until it returns `Some`, for at most `limit`.
pub(crate) async fn poll<T, F>(limit: Duration, mut check: impl FnMut() -> F) -> Option<T>
where
    F: std::future::Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = check().await {
            return Some(value);
        }
        if started.elapsed() >= limit {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// SplitMix64: a tiny seeded generator, so that the random sequences are the same every run.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) const fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..=max`.
    pub(crate) fn up_to(&mut self, max: u32) -> u32 {
        u32::try_from(self.next_u64() % (u64::from(max) + 1)).expect("at most max")
    }
}

/// A child process, killed (SIGKILL) on drop, whose stdout lines arrive on a channel.
pub(crate) struct ChildProcess {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl ChildProcess {
    /// Runs the test `name` of this test binary alone, with `env` set.
    pub(crate) fn run_test(name: &str, env: &[(&str, &str)]) -> Self {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut child = Command::new(exe)
            .args(["--exact", name, "--nocapture", "--test-threads", "1"])
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the child process");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self { child, lines }
    }

    /// The first line holding `marker`, from the marker on, waiting at most `limit`. (The
    /// test harness may print `test name ... ` on the same line, before the test's output.)
    pub(crate) fn wait_for_line(&self, marker: &str, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(at) = line.find(marker) {
                        return Some(line[at..].to_owned());
                    }
                }
                Err(_) => return None,
            }
        }
    }

    /// Waits for the process to exit by itself; whether it succeeded.
    pub(crate) fn wait(&mut self) -> bool {
        self.child
            .wait()
            .expect("wait for the child process")
            .success()
    }

    /// Kills the process with SIGKILL and waits for it.
    pub(crate) fn kill(&mut self) {
        self.child.kill().expect("kill the child process");
        let status = self.child.wait().expect("wait for the child process");
        assert!(!status.success(), "the child was killed, not finished");
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request through `strategy` that fails every attempt with a retryable error (cost 5),
/// without sleeping between attempts; the retries it was granted.
pub(crate) fn failing_request(strategy: &rebound_runtime::StandardRetryStrategy) -> u32 {
    let err = rebound_runtime::Retry::new(strategy)
        .sleeper(|_: Duration| ())
        .run_classified(
            |_| Err::<(), _>("unavailable"),
            |_| rebound_runtime::Classified::retryable(),
        )
        .unwrap_err();
    err.attempts() - 1
}

/// The store a test's child processes share: one server, or a cluster. A child learns which
/// from one environment variable ([`Store::child_env`]) and connects with [`child_store`].
pub(crate) enum Store {
    One(RedisServer),
    Cluster(cluster::RedisCluster),
}

/// The variable naming one server's URL to a child.
pub(crate) const CHILD_URL: &str = "REBOUND_CHILD_STORE_URL";
/// The variable naming a cluster's seed URLs, comma-separated, to a child.
pub(crate) const CHILD_SEEDS: &str = "REBOUND_CHILD_STORE_SEEDS";

impl Store {
    /// The environment variable and value that name it to a child.
    pub(crate) fn child_env(&self) -> (&'static str, String) {
        match self {
            Self::One(server) => (CHILD_URL, server.url()),
            Self::Cluster(cluster) => (CHILD_SEEDS, cluster.seeds().join(",")),
        }
    }

    /// A connection to the node that serves `fleet`'s keys (and keys tagged `{<fleet>}`).
    pub(crate) fn connection(&self, fleet: &str) -> redis::Connection {
        match self {
            Self::One(server) => server.connection(),
            Self::Cluster(cluster) => cluster.connection(cluster.fleet_master(fleet)),
        }
    }

    /// `fleet`'s quota keys.
    pub(crate) fn snapshot(&self, fleet: &str) -> Snapshot {
        match self {
            Self::One(server) => server.snapshot(fleet),
            Self::Cluster(cluster) => cluster.snapshot(fleet),
        }
    }

    /// " on a cluster", or nothing, for messages.
    pub(crate) const fn label(&self) -> &'static str {
        match self {
            Self::One(_) => "",
            Self::Cluster(_) => " on a cluster",
        }
    }
}

/// In a child: a client for `config` on the store [`Store::child_env`] named, and a plain
/// connection to the same store for the test's own keys; `None` when neither variable is set
/// (a normal run).
pub(crate) async fn child_store(
    config: FleetQuotaConfig,
) -> Option<(FleetQuotaClient, rebound_redis::StoreConnection)> {
    if let Ok(url) = std::env::var(CHILD_URL) {
        let client = rebound_redis::connect(&url, config).await.unwrap();
        let conn = redis::Client::open(url.as_str())
            .unwrap()
            .get_connection_manager()
            .await
            .unwrap();
        return Some((client, conn.into()));
    }
    let seeds = std::env::var(CHILD_SEEDS).ok()?;
    let client = rebound_redis::connect_cluster(seeds.split(','), config)
        .await
        .unwrap();
    let conn = redis::cluster::ClusterClient::new(seeds.split(',').collect::<Vec<_>>())
        .unwrap()
        .get_async_connection()
        .await
        .unwrap();
    Some((client, conn.into()))
}

/// Runs `count` children of the test `name` with `env`, and waits until each has printed
/// `READY` (joined its fleet), for at most `limit` each.
pub(crate) fn ready_children(
    name: &str,
    env: &[(&str, &str)],
    count: usize,
    limit: Duration,
) -> Vec<ChildProcess> {
    let children: Vec<_> = (0..count)
        .map(|_| ChildProcess::run_test(name, env))
        .collect();
    for child in &children {
        child
            .wait_for_line("READY", limit)
            .expect("the child joins the fleet");
    }
    children
}

/// The count each child printed after `marker` (`RETRIES 12`), waiting at most `limit` for
/// each; then waits for every child to exit, and fails if one failed.
pub(crate) fn counts(children: Vec<ChildProcess>, marker: &str, limit: Duration) -> Vec<u32> {
    let each = children
        .iter()
        .map(|child| {
            let line = child
                .wait_for_line(marker, limit)
                .unwrap_or_else(|| panic!("the child prints {marker}"));
            line[marker.len()..].trim().parse().expect("a count")
        })
        .collect();
    for mut child in children {
        assert!(child.wait(), "the child process failed");
    }
    each
}

/// In a child: waits until the parent sets `key` (its signal to start), polling every 5 ms.
pub(crate) async fn wait_for_go(conn: &mut rebound_redis::StoreConnection, key: &str) {
    loop {
        let go: Option<String> = redis::cmd("GET").arg(key).query_async(conn).await.unwrap();
        if go.is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Adaptive strategies whose limiters exchange rates every 100 ms.
pub(crate) fn short_rate_period(builder: FleetQuotaConfigBuilder) -> FleetQuotaConfigBuilder {
    builder
        .lease_ttl(Duration::from_secs(1))
        .rate_period(Duration::from_millis(100))
}

/// An adaptive strategy on a virtual clock that measured about 100 responses per second for
/// five seconds, limiter still off.
pub(crate) fn busy_strategy(
    clock: &rebound_runtime::time::ManualClock,
) -> std::sync::Arc<rebound_runtime::AdaptiveRetryStrategy<rebound_runtime::time::ManualClock>> {
    use rebound_runtime::rate_limiter::RateControl as _;
    let strategy = rebound_runtime::AdaptiveRetryStrategy::builder(
        rebound_runtime::StandardRetryStrategy::new(),
    )
    .clock(clock.clone())
    .build();
    for _ in 0..500 {
        clock.advance(Duration::from_millis(10));
        let now = clock.elapsed().as_secs_f64();
        strategy.rate_limiter().on_response(now, false);
    }
    assert!(strategy.reading().measured_rate > 50.0);
    assert_eq!(strategy.reading().send_rate, None);
    std::sync::Arc::new(strategy)
}
