//! [`CapacityStrategy`]: the client behaviours the capacity experiment
//! compares, each a real rebound strategy.

use std::sync::Arc;

use rebound_runtime::backoff::SeededRandom;
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy, StandardRetryStrategy};

use crate::driver::Fleet;

/// How the clients retry and limit their send rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CapacityStrategy {
    /// [`StandardRetryStrategy`] with its defaults, one per client.
    Standard,
    /// [`AdaptiveRetryStrategy`] around the standard defaults, blocking for
    /// send tokens (its default): one per client, shared by every table
    /// the client calls.
    Adaptive,
    /// The same adaptive strategy split with
    /// [`partitions`](AdaptiveRetryStrategy::partitions): each client has a
    /// quota and a rate limiter per table.
    AdaptivePerTable,
    /// Adaptive, refusing an attempt when no send token is available
    /// ([`WaitPolicy::FailFast`]) instead of waiting for one.
    AdaptiveFailFast,
    /// [`AdaptiveFailFast`](Self::AdaptiveFailFast) with one rate limiter
    /// per table.
    AdaptiveFailFastPerTable,
    /// [`Adaptive`](Self::Adaptive) with the opt-in of one CUBIC decrease
    /// per congestion event
    /// ([`cut_once_per_event`](rebound_runtime::AdaptiveRetryStrategyBuilder::cut_once_per_event)).
    OneCut,
    /// [`AdaptiveFailFast`](Self::AdaptiveFailFast) with the same opt-in.
    OneCutFailFast,
    /// rebound's recommended variant: [`Adaptive`](Self::Adaptive) built
    /// with [`steady()`](rebound_runtime::AdaptiveRetryStrategyBuilder::steady),
    /// [`OneCut`](Self::OneCut) with the CUBIC shape
    /// [`CubicShape::GENTLE`](rebound_runtime::rate_limiter::CubicShape::GENTLE)
    /// (cut to 85%, back in 8 s at every rate, botocore's curve below 1/s).
    Steady,
    /// [`Steady`](Self::Steady), failing fast.
    SteadyFailFast,
}

impl CapacityStrategy {
    /// What every single-table case compares, in table order.
    pub const SINGLE_TABLE: [Self; 7] = [
        Self::Standard,
        Self::Adaptive,
        Self::AdaptiveFailFast,
        Self::OneCut,
        Self::OneCutFailFast,
        Self::Steady,
        Self::SteadyFailFast,
    ];

    /// The name in tables and CSV.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Adaptive => "adaptive (AWS-exact)",
            Self::AdaptivePerTable => "adaptive per table",
            Self::AdaptiveFailFast => "adaptive fail-fast (AWS-exact)",
            Self::AdaptiveFailFastPerTable => "adaptive fail-fast per table",
            Self::OneCut => "adaptive + one cut per event only",
            Self::OneCutFailFast => "adaptive fail-fast + one cut per event only",
            Self::Steady => "adaptive steady (recommended)",
            Self::SteadyFailFast => "adaptive steady fail-fast (recommended)",
        }
    }

    /// The strategies of `clients` clients calling `tables` tables, on
    /// `clock`, client `c`'s jitter seeded from `seed(c)`.
    #[must_use]
    pub fn fleet(
        self,
        clients: usize,
        tables: usize,
        clock: &ManualClock,
        seed: impl Fn(usize) -> u64,
    ) -> Fleet {
        let standard = |client: usize| {
            StandardRetryStrategy::builder()
                .random(SeededRandom::new(seed(client)))
                .build()
        };
        let fail_fast = matches!(
            self,
            Self::AdaptiveFailFast
                | Self::AdaptiveFailFastPerTable
                | Self::OneCutFailFast
                | Self::SteadyFailFast
        );
        let mode = if fail_fast {
            WaitPolicy::FailFast
        } else {
            WaitPolicy::Block
        };
        let once = matches!(self, Self::OneCut | Self::OneCutFailFast);
        let steady = matches!(self, Self::Steady | Self::SteadyFailFast);
        let adaptive = |client: usize| {
            let builder = AdaptiveRetryStrategy::builder(standard(client))
                .clock(clock.clone())
                .wait_policy(mode);
            if steady {
                builder.steady().build()
            } else {
                builder.cut_once_per_event(once).build()
            }
        };
        let per_table_limiters = matches!(
            self,
            Self::AdaptivePerTable | Self::AdaptiveFailFastPerTable
        );
        let mut shared: Vec<Arc<dyn RetryStrategy>> = Vec::with_capacity(clients);
        let mut per_table = Vec::with_capacity(clients);
        for client in 0..clients {
            if self == Self::Standard {
                shared.push(Arc::new(standard(client)));
            } else if per_table_limiters {
                per_table.push(adaptive(client).partitions::<usize>());
            } else {
                shared.push(Arc::new(adaptive(client)));
            }
        }
        Fleet::new(clients, tables, |client, table| {
            if per_table_limiters {
                per_table[client].get(&table)
            } else {
                Arc::clone(&shared[client])
            }
        })
    }
}
