//! [`StoreConnection`]: the connection a [`FleetQuotaClient`](crate::FleetQuotaClient) runs
//! its scripts on, to one Redis or Valkey node or to a cluster.
//!
//! A fleet's keys share one hash tag, so every script touches one slot: on a cluster the
//! connection sends each call to the node that serves the fleet's slot, follows `MOVED` and
//! `ASK` redirections, and finds the new master after a failover.

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisFuture, Value};

/// A connection to the fleet's store: one node, or a Redis or Valkey cluster.
///
/// Both reconnect by themselves. Clones share the underlying connections.
#[derive(Clone)]
#[non_exhaustive]
pub enum StoreConnection {
    /// One node, through redis-rs's connection manager (from [`connect`](crate::connect)).
    Single(ConnectionManager),
    /// A cluster, through redis-rs's cluster connection (from
    /// [`connect_cluster`](crate::connect_cluster)).
    Cluster(ClusterConnection),
}

/// The variant only: the connections print nothing useful.
impl std::fmt::Debug for StoreConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Single(_) => f.write_str("StoreConnection::Single"),
            Self::Cluster(_) => f.write_str("StoreConnection::Cluster"),
        }
    }
}

impl From<ConnectionManager> for StoreConnection {
    fn from(conn: ConnectionManager) -> Self {
        Self::Single(conn)
    }
}

impl From<ClusterConnection> for StoreConnection {
    fn from(conn: ClusterConnection) -> Self {
        Self::Cluster(conn)
    }
}

impl ConnectionLike for StoreConnection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Single(conn) => conn.req_packed_command(cmd),
            Self::Cluster(conn) => conn.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Single(conn) => conn.req_packed_commands(pipeline, offset, count),
            Self::Cluster(conn) => conn.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(conn) => conn.get_db(),
            Self::Cluster(conn) => conn.get_db(),
        }
    }
}
