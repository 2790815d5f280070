//! A throwaway Redis (or Valkey) cluster for the tests: six `redis-server` processes on
//! 127.0.0.1, three masters with a replica each, made a cluster by `redis-cli --cluster
//! create`, and killed on drop.
//!
//! The servers run without persistence in one temporary directory, each with its own free
//! client port and cluster bus port, and a node timeout of one second so that a failover takes
//! a few seconds. `REBOUND_REDIS_SERVER=valkey-server` runs Valkey, and then `valkey-cli` makes
//! the cluster (`redis-cli` when there is no such program); without a server a test is skipped
//! or, under `REBOUND_REQUIRE_REDIS=1`, fails, as for one server.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use super::{SERVER_VAR, Snapshot, ping, read_log, skip_or_fail, snapshot};

/// Three masters and a replica of each.
const NODES: usize = 6;
/// The cluster's node timeout, in milliseconds: how long a node may be silent before the
/// others consider it failed and promote its replica.
const NODE_TIMEOUT_MS: u32 = 1000;
/// How long the six servers may take to answer PING, and the cluster to form.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// The hash slots of a Redis cluster.
const SLOTS: u16 = 16384;

/// One server of the cluster.
struct Node {
    port: u16,
    /// `None` once killed.
    child: Option<Child>,
}

/// A running cluster of six nodes, all killed on drop.
pub(crate) struct RedisCluster {
    nodes: Vec<Node>,
    dir: TempDir,
}

impl RedisCluster {
    /// A fresh cluster, every slot served and every replica in sync, or `None` (after printing
    /// why the test is skipped) when the server is not available.
    ///
    /// # Panics
    ///
    /// When the cluster cannot start and `REBOUND_REQUIRE_REDIS=1`.
    pub(crate) fn start() -> Option<Self> {
        Self::try_start()
            .map_err(|reason| skip_or_fail("a redis cluster", &reason))
            .ok()
    }

    fn try_start() -> Result<Self, String> {
        // As for one server: a port may be taken between the look and the bind; start over.
        let mut last_error = String::new();
        for _ in 0..3 {
            let dir =
                tempfile::tempdir().map_err(|err| format!("no temporary directory: {err}"))?;
            let ports = free_ports(2 * NODES)?;
            let mut cluster = Self {
                nodes: Vec::new(),
                dir,
            };
            for pair in ports.chunks(2) {
                let (port, bus_port) = (pair[0], pair[1]);
                let child = spawn_node(port, bus_port, cluster.dir.path())?;
                cluster.nodes.push(Node {
                    port,
                    child: Some(child),
                });
            }
            match cluster.wait_for_nodes() {
                Ok(()) => {
                    cluster.create()?;
                    cluster.wait_until_formed()?;
                    return Ok(cluster);
                }
                Err(reason) if reason.contains("Address already in use") => last_error = reason,
                Err(reason) => return Err(reason),
            }
        }
        Err(last_error)
    }

    /// Waits until every server answers PING.
    fn wait_for_nodes(&mut self) -> Result<(), String> {
        let started = Instant::now();
        for i in 0..self.nodes.len() {
            loop {
                let node = &mut self.nodes[i];
                let child = node.child.as_mut().expect("a started node");
                if let Ok(Some(status)) = child.try_wait() {
                    let log = read_log(&self.log_path(self.nodes[i].port));
                    return Err(format!("a cluster node exited at start ({status}): {log}"));
                }
                if ping(node.port) {
                    break;
                }
                if started.elapsed() > START_TIMEOUT {
                    return Err(format!("the node on {} did not answer PING", node.port));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        Ok(())
    }

    /// `redis-cli --cluster create`: assigns the slots to three masters and a replica to each.
    fn create(&self) -> Result<(), String> {
        let cli = cli_binary();
        let output = Command::new(&cli)
            .arg("--cluster")
            .arg("create")
            .args(
                self.nodes
                    .iter()
                    .map(|node| format!("127.0.0.1:{}", node.port)),
            )
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .map_err(|err| format!("cannot run {cli}: {err}"))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{cli} --cluster create failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }

    /// Waits until every live node says `cluster_state:ok` with all slots served, agrees on
    /// who serves them, and every master has its replica in sync.
    fn wait_until_formed(&self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            match self.formed() {
                Ok(()) => return Ok(()),
                Err(reason) if started.elapsed() > START_TIMEOUT => {
                    return Err(format!("the cluster did not form: {reason}"));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    fn formed(&self) -> Result<(), String> {
        self.healthy()?;
        for port in self.masters()? {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut node_connection(port)?)
                .map_err(|err| err.to_string())?;
            if !info.contains("connected_slaves:1") || !info.contains("state=online") {
                return Err(format!("the master on {port} has no replica in sync yet"));
            }
        }
        Ok(())
    }

    /// `Ok` when every live node says `cluster_state:ok` and all of them see the same master
    /// for every slot.
    fn healthy(&self) -> Result<(), String> {
        let mut views = BTreeSet::new();
        for port in self.live_ports() {
            let mut conn = node_connection(port)?;
            let info: String = redis::cmd("CLUSTER")
                .arg("INFO")
                .query(&mut conn)
                .map_err(|err| err.to_string())?;
            if !info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384") {
                return Err(format!("node {port}: {info}"));
            }
            views.insert(slot_masters(&mut conn)?);
        }
        if views.len() == 1 {
            Ok(())
        } else {
            Err(format!(
                "the nodes disagree on the slots' masters: {views:?}"
            ))
        }
    }

    /// The seed URLs: every node's.
    pub(crate) fn seeds(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|node| format!("redis://127.0.0.1:{}/", node.port))
            .collect()
    }

    /// The ports of the nodes that were not killed.
    fn live_ports(&self) -> Vec<u16> {
        self.nodes
            .iter()
            .filter(|node| node.child.is_some())
            .map(|node| node.port)
            .collect()
    }

    /// The masters' ports, as the first live node sees them.
    fn masters(&self) -> Result<BTreeSet<u16>, String> {
        let port = *self.live_ports().first().ok_or("no live node")?;
        let slots = slot_masters(&mut node_connection(port)?)?;
        Ok(slots.into_iter().map(|(_, _, port)| port).collect())
    }

    /// The port of the master that serves `fleet`'s slot, as every live node sees it.
    ///
    /// # Panics
    ///
    /// When the nodes do not agree, or no node serves the slot.
    pub(crate) fn fleet_master(&self, fleet: &str) -> u16 {
        let port = *self.live_ports().first().expect("a live node");
        let mut conn = node_connection(port).expect("connect to a cluster node");
        let slot: u16 = redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(format!("rebound:{{{fleet}}}:pool"))
            .query(&mut conn)
            .expect("CLUSTER KEYSLOT");
        self.healthy().expect("a healthy cluster");
        let slots = slot_masters(&mut conn).expect("the cluster's slots");
        slots
            .into_iter()
            .find(|&(first, last, _)| (first..=last).contains(&slot))
            .map(|(_, _, port)| port)
            .expect("a master serves the slot")
    }

    /// A plain (blocking) connection to the node on `port`.
    pub(crate) fn connection(&self, port: u16) -> redis::Connection {
        node_connection(port).expect("connect to a cluster node")
    }

    /// The keys of `fleet`, read together on the master that serves their slot.
    pub(crate) fn snapshot(&self, fleet: &str) -> Snapshot {
        self.snapshot_on(self.fleet_master(fleet), fleet)
    }

    /// The keys of `fleet`, read together on the node on `port` (the master that serves their
    /// slot, or the node answers `MOVED` and this panics).
    pub(crate) fn snapshot_on(&self, port: u16, fleet: &str) -> Snapshot {
        snapshot(&mut self.connection(port), fleet)
    }

    /// The port of the replica of the master on `port`.
    ///
    /// # Panics
    ///
    /// When that master has no replica in sync.
    pub(crate) fn replica_of(&self, port: u16) -> u16 {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut self.connection(port))
            .expect("INFO replication");
        // `slave0:ip=127.0.0.1,port=7001,state=online,offset=…,lag=…`
        info.lines()
            .filter(|line| line.starts_with("slave0:") && line.contains("state=online"))
            .flat_map(|line| line.split(','))
            .find_map(|field| field.strip_prefix("port="))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no replica in sync: {info}"))
    }

    /// How many scripts the node on `port` has cached (`number_of_cached_scripts`).
    pub(crate) fn cached_scripts(&self, port: u16) -> u64 {
        let info: String = redis::cmd("INFO")
            .arg("memory")
            .query(&mut self.connection(port))
            .expect("INFO memory");
        info.lines()
            .find_map(|line| line.strip_prefix("number_of_cached_scripts:"))
            .and_then(|count| count.trim().parse().ok())
            .unwrap_or_else(|| panic!("no script count: {info}"))
    }

    /// Kills the node on `port` (SIGKILL), as a crash would.
    pub(crate) fn kill(&mut self, port: u16) {
        let node = self
            .nodes
            .iter_mut()
            .find(|node| node.port == port)
            .expect("a node of this cluster");
        if let Some(mut child) = node.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Waits at most `limit` for the cluster to serve every slot again without the master on
    /// `dead`: every live node says `cluster_state:ok` and names the same masters, none of them
    /// `dead`. The new master of `fleet`'s slot.
    ///
    /// # Panics
    ///
    /// When that does not happen in time.
    pub(crate) fn wait_for_failover(&self, dead: u16, fleet: &str, limit: Duration) -> u16 {
        let started = Instant::now();
        loop {
            let state = self.healthy().and_then(|()| self.masters());
            match state {
                Ok(masters) if !masters.contains(&dead) => return self.fleet_master(fleet),
                Ok(masters) => {
                    assert!(
                        started.elapsed() < limit,
                        "no failover: masters {masters:?}"
                    );
                }
                Err(reason) => assert!(started.elapsed() < limit, "no failover: {reason}"),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log_path(&self, port: u16) -> PathBuf {
        self.dir.path().join(format!("redis-{port}.log"))
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            if let Some(mut child) = node.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// The cluster's command-line tool: `redis-cli`, or for `REBOUND_REDIS_SERVER=valkey-server`
/// (or a path ending in it) `valkey-cli` beside it, when that runs.
fn cli_binary() -> String {
    let server = std::env::var(SERVER_VAR).unwrap_or_else(|_| "redis-server".to_owned());
    if let Some(stem) = server.strip_suffix("-server") {
        let cli = format!("{stem}-cli");
        let runs = Command::new(&cli)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if runs {
            return cli;
        }
    }
    "redis-cli".to_owned()
}

/// A cluster node on 127.0.0.1:`port`, its bus on `bus_port`, without persistence, in `dir`.
fn spawn_node(port: u16, bus_port: u16, dir: &Path) -> Result<Child, String> {
    let binary = std::env::var(SERVER_VAR).unwrap_or_else(|_| "redis-server".to_owned());
    Command::new(&binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--cluster-enabled", "yes"])
        .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
        .args(["--cluster-port", &bus_port.to_string()])
        .args(["--cluster-node-timeout", &NODE_TIMEOUT_MS.to_string()])
        // A replica syncs at once (not after the default 5 s wait for more replicas), and
        // takes over however long its master has been silent.
        .args(["--repl-diskless-sync-delay", "0"])
        .args(["--cluster-replica-validity-factor", "0"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .arg("--logfile")
        .arg(dir.join(format!("redis-{port}.log")))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("cannot run {binary}: {err}"))
}

/// `count` distinct ports that are free when we look (all bound at once, so none repeats).
fn free_ports(count: usize) -> Result<Vec<u16>, String> {
    let listeners = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("no free port: {err}"))?;
    listeners
        .iter()
        .map(|listener| listener.local_addr().map(|addr| addr.port()))
        .collect::<Result<_, _>>()
        .map_err(|err| format!("no free port: {err}"))
}

fn node_connection(port: u16) -> Result<redis::Connection, String> {
    let client =
        redis::Client::open(format!("redis://127.0.0.1:{port}/")).map_err(|err| err.to_string())?;
    client
        .get_connection_with_timeout(Duration::from_secs(1))
        .map_err(|err| format!("node {port}: {err}"))
}

/// The slot ranges and the port of the master serving each, as the node behind `conn` sees
/// them (`CLUSTER SLOTS`), sorted; an error unless they cover every slot.
fn slot_masters(conn: &mut redis::Connection) -> Result<Vec<(u16, u16, u16)>, String> {
    use redis::Value;
    let ranges: Vec<Value> = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query(conn)
        .map_err(|err| err.to_string())?;
    let mut slots = Vec::new();
    for range in &ranges {
        // First slot, last slot, then the master's [ip, port, id, …] and the replicas'.
        let number = |value: &Value| match value {
            Value::Int(n) => u16::try_from(*n).ok(),
            _ => None,
        };
        let parsed = match range {
            Value::Array(items) if items.len() >= 3 => match &items[2] {
                Value::Array(master) if master.len() >= 2 => number(&items[0])
                    .zip(number(&items[1]))
                    .zip(number(&master[1])),
                _ => None,
            },
            _ => None,
        };
        let ((first, last), port) = parsed.ok_or(format!("CLUSTER SLOTS: {range:?}"))?;
        slots.push((first, last, port));
    }
    slots.sort_unstable();
    let covered: u32 = slots
        .iter()
        .map(|&(first, last, _)| u32::from(last - first) + 1)
        .sum();
    if covered == u32::from(SLOTS) {
        Ok(slots)
    } else {
        Err(format!("CLUSTER SLOTS covers {covered} slots: {slots:?}"))
    }
}
