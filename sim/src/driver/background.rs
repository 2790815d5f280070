//! [`Background`]: work a run does beside the requests, on the run's own
//! event queue — a retry quota's refresher talking to its store, say.
//!
//! The request path calls the strategies, which call their quotas; a quota
//! kept in a store needs timers of its own (a refresh period, a round trip
//! to the store) and may ask for work at once (a balance that fell below a
//! mark). Both go through this seam, so they happen in the same virtual
//! time as the requests, in one deterministic order.

/// Timers a [`Background`] sets: each goes off once, at its time, as a call
/// to [`Background::fire`] with its key.
#[derive(Debug, Default)]
pub struct Timers {
    set: Vec<(f64, usize)>,
}

impl Timers {
    /// Sets a timer going off at `at` (seconds; not before the current
    /// event's time) with `key`.
    pub fn set(&mut self, at: f64, key: usize) {
        self.set.push((at, key));
    }

    /// Takes the timers set since the last call, in the order they were
    /// set: `(at, key)`. The driver puts them on its queue.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (f64, usize)> {
        self.set.drain(..)
    }
}

/// Work beside the requests, driven by [`run_with`](super::run_with).
pub trait Background {
    /// Called once at time 0, before the first arrival.
    fn start(&mut self, timers: &mut Timers);

    /// A timer set with `key` goes off at `now`.
    fn fire(&mut self, now: f64, key: usize, timers: &mut Timers);

    /// Called after every event of the run (the requests' and this
    /// background's own), at its time: what the strategies' calls asked for
    /// meanwhile starts here.
    fn after_event(&mut self, now: f64, timers: &mut Timers);

    /// Client `client` stopped at `now`: the last of its loops ended
    /// ([`Pacing::Loops`](super::Pacing::Loops)). Nothing by default.
    fn stopped(&mut self, now: f64, client: usize, timers: &mut Timers) {
        let _ = (now, client, timers);
    }
}

/// No background work: the runs of [`run`](super::run).
#[derive(Debug)]
pub(super) struct Idle;

impl Background for Idle {
    fn start(&mut self, _: &mut Timers) {}

    fn fire(&mut self, _: f64, _: usize, _: &mut Timers) {}

    fn after_event(&mut self, _: f64, _: &mut Timers) {}
}
