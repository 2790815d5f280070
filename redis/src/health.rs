//! Whether a process's limits come from its fleet's store or are local: [`FleetState`], the
//! [`FleetListener`] that hears the switch, and `StoreHealth`, which makes it for a background
//! task after each call to the store (with its log events and the wait before the next call).

use std::error::Error as _;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::FleetError;

/// Where a fleet's limits come from: the fleet's store, or local ones while it fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FleetState {
    /// From the fleet: the store answers.
    Joined,
    /// Local: the last call to the store failed. A [`FleetQuota`](crate::FleetQuota) draws
    /// from its fallback bucket, a [`FleetLimiter`](crate::FleetLimiter)'s process from its own
    /// limiter alone. The background task keeps trying, and rejoins when the store answers.
    Local,
}

/// A [`FleetQuota`](crate::FleetQuota) or [`FleetLimiter`](crate::FleetLimiter) changed
/// [state](FleetState): it fell back to local limits, or rejoined.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct FleetStateChange<'a> {
    /// The fleet's name.
    pub fleet: &'a str,
    /// The state now.
    pub state: FleetState,
    /// The store's error, when it made the quota or the limiter fall back.
    pub error: Option<&'a FleetError>,
}

/// Hears when a [`FleetQuota`](crate::FleetQuota) or a [`FleetLimiter`](crate::FleetLimiter)
/// falls back to local limits and when it rejoins (their `start_with_listener`), for metrics
/// and alerts. The same moments are `tracing` events (target `rebound`: `WARN` on fallback,
/// `INFO` on rejoin).
///
/// Called from the background task; keep it short.
pub trait FleetListener: Send + Sync + 'static {
    /// The quota or the limiter changed state.
    fn on_state_change(&self, change: &FleetStateChange<'_>);
}

/// One background task's view of the store.
pub(crate) struct StoreHealth {
    /// What falls back, for the log: "fleet quota", "fleet rate limiter".
    what: &'static str,
    fleet: String,
    listener: Arc<dyn FleetListener>,
    /// The wait before the next call while the store fails.
    backoff: Duration,
}

impl StoreHealth {
    pub(crate) fn new(what: &'static str, fleet: &str, listener: Arc<dyn FleetListener>) -> Self {
        Self {
            what,
            fleet: fleet.to_owned(),
            listener,
            backoff: Duration::ZERO,
        }
    }

    /// After a call to the store: sets `local` on a failure and clears it on a success, logs
    /// and tells the listener when that changes it; returns the wait before the next call: the
    /// `period`, or while the store fails a backoff from `period / 8` doubling up to `period`.
    pub(crate) fn after(
        &mut self,
        result: Result<(), FleetError>,
        local: &AtomicBool,
        period: Duration,
    ) -> Duration {
        let was_local = local.load(Ordering::Acquire);
        match result {
            Ok(()) if !was_local => period,
            Ok(()) => {
                local.store(false, Ordering::Release);
                self.backoff = Duration::ZERO;
                tracing::info!(
                    target: "rebound",
                    fleet = self.fleet,
                    "{} rejoined: the store answers again",
                    self.what
                );
                self.tell(FleetState::Joined, None);
                period
            }
            Err(err) if !was_local => {
                local.store(true, Ordering::Release);
                tracing::warn!(
                    target: "rebound",
                    fleet = self.fleet,
                    error = %chain(&err),
                    "{} store failed: falling back to local limits",
                    self.what
                );
                self.tell(FleetState::Local, Some(&err));
                self.backoff = (period / 8).max(Duration::from_millis(1));
                self.backoff
            }
            Err(err) => {
                tracing::debug!(
                    target: "rebound",
                    fleet = self.fleet,
                    error = %chain(&err),
                    "{} store still failing",
                    self.what
                );
                self.backoff = (self.backoff * 2).min(period);
                self.backoff
            }
        }
    }

    fn tell(&self, state: FleetState, error: Option<&FleetError>) {
        self.listener.on_state_change(&FleetStateChange {
            fleet: &self.fleet,
            state,
            error,
        });
    }
}

/// An error and its sources, `: `-separated, for a log line.
fn chain(err: &FleetError) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let _ = write!(text, ": {cause}");
        source = cause.source();
    }
    text
}

/// The listener of a task started without one: hears nothing.
#[derive(Debug)]
pub(crate) struct Deaf;

impl FleetListener for Deaf {
    fn on_state_change(&self, _: &FleetStateChange<'_>) {}
}
