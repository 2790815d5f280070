//! The protocol's Lua scripts, and how they are run: `EVALSHA` first, `EVAL` when the store
//! does not know the script (`NOSCRIPT`: after a restart, a failover or `SCRIPT FLUSH`), which
//! also loads it for the next `EVALSHA`.
//!
//! The scripts themselves are in `src/lua/`: a prelude shared by all (key layout, reclaiming
//! lapsed leases, reading the pool) and one body per call.

use std::sync::LazyLock;

use redis::{ErrorKind, RedisResult, ServerErrorKind, Value};

use crate::connection::StoreConnection;

const PRELUDE: &str = include_str!("lua/prelude.lua");

/// One script: its source and the SHA1 the store knows it by.
#[derive(Debug)]
pub(crate) struct LuaScript {
    source: String,
    sha1: String,
}

impl LuaScript {
    /// The prelude, then `body`.
    fn new(body: &str) -> Self {
        let source = format!("{PRELUDE}\n{body}");
        let sha1 = redis::Script::new(&source).get_hash().to_owned();
        Self { source, sha1 }
    }

    /// Runs the script on `keys` with `args`.
    pub(crate) async fn run(
        &self,
        conn: &mut StoreConnection,
        keys: &[String],
        args: &[String],
    ) -> RedisResult<Value> {
        let mut evalsha = redis::cmd("EVALSHA");
        evalsha.arg(&self.sha1);
        push_keys_and_args(&mut evalsha, keys, args);
        match evalsha.query_async(conn).await {
            Err(err) if err.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                let mut eval = redis::cmd("EVAL");
                eval.arg(&self.source);
                push_keys_and_args(&mut eval, keys, args);
                eval.query_async(conn).await
            }
            result => result,
        }
    }

    #[cfg(test)]
    pub(crate) fn sha1(&self) -> &str {
        &self.sha1
    }
}

fn push_keys_and_args(cmd: &mut redis::Cmd, keys: &[String], args: &[String]) {
    cmd.arg(keys.len()).arg(keys).arg(args);
}

/// The calls of the protocol: four for the quota, one for the rate limiter, and a read-only
/// inspection.
#[derive(Debug)]
pub(crate) struct Scripts {
    pub(crate) init: LuaScript,
    pub(crate) lease: LuaScript,
    pub(crate) report: LuaScript,
    pub(crate) release: LuaScript,
    pub(crate) limiter: LuaScript,
    pub(crate) inspect: LuaScript,
}

/// The scripts, assembled once per process (they never change).
pub(crate) static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    init: LuaScript::new(include_str!("lua/init.lua")),
    lease: LuaScript::new(include_str!("lua/lease.lua")),
    report: LuaScript::new(include_str!("lua/report.lua")),
    release: LuaScript::new(include_str!("lua/release.lua")),
    limiter: LuaScript::new(include_str!("lua/limiter.lua")),
    inspect: LuaScript::new(include_str!("lua/inspect.lua")),
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_distinct_and_start_with_the_prelude() {
        let all = [
            &SCRIPTS.init,
            &SCRIPTS.lease,
            &SCRIPTS.report,
            &SCRIPTS.release,
            &SCRIPTS.limiter,
            &SCRIPTS.inspect,
        ];
        for (i, a) in all.iter().enumerate() {
            assert!(a.source.starts_with(PRELUDE));
            assert_eq!(a.sha1().len(), 40);
            for b in &all[i + 1..] {
                assert_ne!(a.sha1(), b.sha1());
            }
        }
    }
}
