//! [`StoreHealth`]: whether a fleet's background task reaches the store — the switch between
//! the fleet's limits and local ones, its log events and listener calls, and the wait before
//! the next call.

use std::error::Error as _;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::FleetError;
use crate::quota::{FleetListener, FleetState, FleetStateChange};

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
