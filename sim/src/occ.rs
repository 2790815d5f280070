//! The OCC contention experiment of the AWS Architecture Blog post
//! "Exponential Backoff And Jitter", with the model of its public simulator
//! (`aws-samples/aws-arch-backoff-simulator`, `src/backoff_simulator.py`).
//!
//! One server holds one row with a version number. Each of `N` clients
//! wants to update the row exactly once: it reads the version, then writes
//! with that version. A write carrying the current version succeeds and
//! bumps the version; any other write fails (a conflict). After a failed
//! write the client waits one network delay plus its backoff, then reads
//! again. Every message (read request, read reply, write request, write
//! reply) takes `|Normal(10 ms, 2 ms)|`.
//!
//! * **calls**: the writes the server received (reads are not counted), as
//!   in the reference;
//! * **time**: the virtual time of the last event, i.e. when the last client
//!   learns that its write succeeded.
//!
//! The backoffs are rebound's own [`Backoff`] values with base 5 ms and cap
//! 2 s, driven with the reference's attempt numbering (see
//! [`AttemptNumbering`]).

use std::time::Duration;

use rayon::iter::{IntoParallelRefIterator as _, ParallelIterator as _};
use rebound_runtime::backoff::{Backoff, SeededRandom};

use crate::event_queue::EventQueue;
use crate::rng::{mix, normal};

/// The algorithms compared, in the reference's order and with its names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// [`Backoff::Exponential`]: no jitter.
    Exponential,
    /// [`Backoff::DecorrelatedJitter`].
    Decorr,
    /// [`Backoff::EqualJitter`].
    EqualJitter,
    /// [`Backoff::FullJitter`].
    FullJitter,
    /// [`Backoff::None`]: retry after one network delay.
    None,
}

impl Algorithm {
    /// All of them, in the reference's order.
    pub const ALL: [Self; 5] = [
        Self::Exponential,
        Self::Decorr,
        Self::EqualJitter,
        Self::FullJitter,
        Self::None,
    ];

    /// The reference's name (the CSV's `algorithm` column).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Exponential => "Exponential",
            Self::Decorr => "Decorr",
            Self::EqualJitter => "EqualJitter",
            Self::FullJitter => "FullJitter",
            Self::None => "None",
        }
    }

    /// The rebound backoff this algorithm runs.
    #[must_use]
    pub fn backoff(self, base: Duration, cap: Duration) -> Backoff {
        match self {
            Self::Exponential => Backoff::Exponential { base, cap },
            Self::Decorr => Backoff::DecorrelatedJitter { base, cap },
            Self::EqualJitter => Backoff::EqualJitter { base, cap },
            Self::FullJitter => Backoff::FullJitter { base, cap },
            Self::None => Backoff::None,
        }
    }
}

/// Which attempt number the backoff is asked about after a client's `n`-th
/// failed write.
///
/// The reference's exponential term is `min(cap, base * 2^n)` after the
/// `n`-th failure (first retry: `2 * base`); rebound's is
/// `min(cap, base * 2^(attempt - 1))` (first retry: `base`). The formulas are
/// otherwise the same, so passing `attempt = n + 1` reproduces the
/// reference exactly with rebound's code. Decorrelated jitter does not use
/// the attempt number and is identical either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AttemptNumbering {
    /// `attempt = n + 1`: the reference's delays (the default).
    #[default]
    Reference,
    /// `attempt = n`: rebound's own numbering, every exponential delay halved.
    Rebound,
}

/// The model's parameters. [`Default`] is the reference's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OccParams {
    /// The backoff base (5 ms).
    pub base: Duration,
    /// The backoff cap (2 s).
    pub cap: Duration,
    /// Mean one-way network delay, ms (10).
    pub net_mean_ms: f64,
    /// Standard deviation of the network delay, ms (2).
    pub net_sd_ms: f64,
    /// How failures are numbered for the backoff.
    pub numbering: AttemptNumbering,
}

impl Default for OccParams {
    fn default() -> Self {
        Self {
            base: Duration::from_millis(5),
            cap: Duration::from_secs(2),
            net_mean_ms: 10.0,
            net_sd_ms: 2.0,
            numbering: AttemptNumbering::Reference,
        }
    }
}

/// What one trial measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialOutcome {
    /// Virtual time of the last event, ms.
    pub time_ms: f64,
    /// Writes received by the server.
    pub calls: u64,
    /// Clients whose write succeeded (always all of them).
    pub succeeded: usize,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// A client's read request reaches the server.
    Read { client: usize },
    /// The version read reaches the client.
    ReadReply { client: usize, version: u64 },
    /// A client's write (with the version it read) reaches the server.
    Write { client: usize, version: u64 },
    /// The write's outcome reaches the client.
    WriteReply { client: usize, success: bool },
}

#[derive(Debug, Clone, Copy)]
struct Client {
    /// Failed writes so far.
    failures: u32,
    /// The last backoff delay (for decorrelated jitter).
    previous: Duration,
}

/// Runs one trial of `clients` clients with `algorithm`, every draw
/// determined by `seed`.
#[must_use]
pub fn run_trial(
    clients: usize,
    algorithm: Algorithm,
    params: &OccParams,
    seed: u64,
) -> TrialOutcome {
    let network = SeededRandom::new(mix(&[seed, 0]));
    let jitter = SeededRandom::new(mix(&[seed, 1]));
    let backoff = algorithm.backoff(params.base, params.cap);
    let delay = || normal(&network, params.net_mean_ms, params.net_sd_ms).abs();

    let mut state = vec![
        Client {
            failures: 0,
            previous: Duration::ZERO,
        };
        clients
    ];
    let mut version = 0_u64;
    let mut calls = 0_u64;
    let mut succeeded = 0_usize;
    let mut queue = EventQueue::new();
    for client in 0..clients {
        queue.schedule(delay(), Event::Read { client });
    }
    while let Some((now, event)) = queue.pop() {
        match event {
            Event::Read { client } => {
                queue.schedule(now + delay(), Event::ReadReply { client, version });
            }
            Event::ReadReply { client, version } => {
                queue.schedule(now + delay(), Event::Write { client, version });
            }
            Event::Write {
                client,
                version: read,
            } => {
                calls += 1;
                let success = read == version;
                if success {
                    version += 1;
                }
                queue.schedule(now + delay(), Event::WriteReply { client, success });
            }
            Event::WriteReply { client, success } => {
                if success {
                    succeeded += 1;
                } else {
                    let state = &mut state[client];
                    state.failures += 1;
                    let attempt = match params.numbering {
                        AttemptNumbering::Reference => state.failures + 1,
                        AttemptNumbering::Rebound => state.failures,
                    };
                    let wait = backoff.delay(attempt, state.previous, &jitter);
                    state.previous = wait;
                    // The reference draws the network delay, then the backoff.
                    let at = now + delay() + wait.as_secs_f64() * 1e3;
                    queue.schedule(at, Event::Read { client });
                }
            }
        }
    }
    TrialOutcome {
        time_ms: queue.now(),
        calls,
        succeeded,
    }
}

/// The means over the trials of one algorithm and client count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Number of clients.
    pub clients: usize,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Mean completion time, ms.
    pub mean_time_ms: f64,
    /// Mean writes received by the server.
    pub mean_calls: f64,
}

/// The seed of one trial: independent of the order trials are run in.
#[must_use]
pub fn trial_seed(seed: u64, clients: usize, algorithm: Algorithm, trial: u64) -> u64 {
    mix(&[seed, clients as u64, algorithm as u64, trial])
}

/// Runs `trials` trials for every client count and algorithm (client counts
/// outer, algorithms in [`Algorithm::ALL`] order inner), the cells on every
/// core (rayon; each cell is seeded from its own key, so the result does not
/// depend on which thread ran it), calling `progress` after each
/// (client count, algorithm) cell.
///
/// # Panics
///
/// If a trial ends with a client that never succeeded (a model bug).
#[must_use]
pub fn run_experiment(
    client_counts: &[usize],
    trials: u64,
    seed: u64,
    params: &OccParams,
    progress: impl Fn() + Sync,
) -> Vec<Row> {
    let cells: Vec<(usize, Algorithm)> = client_counts
        .iter()
        .flat_map(|&clients| Algorithm::ALL.map(|algorithm| (clients, algorithm)))
        .collect();
    cells
        .par_iter()
        .map(|&(clients, algorithm)| {
            let (mut time, mut calls) = (0.0, 0_u64);
            for trial in 0..trials {
                let outcome = run_trial(
                    clients,
                    algorithm,
                    params,
                    trial_seed(seed, clients, algorithm, trial),
                );
                assert_eq!(
                    outcome.succeeded, clients,
                    "every client eventually succeeds"
                );
                time += outcome.time_ms;
                calls += outcome.calls;
            }
            let n = trials.max(1) as f64;
            progress();
            Row {
                clients,
                algorithm,
                mean_time_ms: time / n,
                mean_calls: calls as f64 / n,
            }
        })
        .collect()
}
