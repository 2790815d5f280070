//! The partitioned scenario: each client calls two tables of `R` attempts
//! per second each; the hot table is offered more than its capacity, the
//! cool one half of its own. One rate limiter for both tables slows the cool
//! table down once the hot one throttles; one limiter per table (rebound's
//! `partitions()`) leaves it alone.

use super::{CapacityParams, CapacityStrategy, Tables, Window};
use crate::driver::{self, Record};
use crate::rng::mix;
use crate::vclock::VirtualClock;

/// Load offered to the cool table, multiples of `R`.
pub const COOL_LOAD: f64 = 0.5;

/// The strategies compared, in table order.
pub const PARTITIONED: [CapacityStrategy; 5] = [
    CapacityStrategy::Standard,
    CapacityStrategy::Adaptive,
    CapacityStrategy::AdaptivePerTable,
    CapacityStrategy::AdaptiveFailFast,
    CapacityStrategy::AdaptiveFailFastPerTable,
];

/// One strategy's run of the partitioned scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionedRun {
    /// The summary.
    pub row: PartitionedRow,
    /// The whole record (table 0 hot, table 1 cool), 1 s bins.
    pub record: Record,
}

/// The summary of one strategy's partitioned run (steady state).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartitionedRow {
    /// The strategy.
    pub strategy: CapacityStrategy,
    /// Load offered to the hot table, multiples of `R`.
    pub hot_load: f64,
    /// The hot table's steady state.
    pub hot: Window,
    /// The cool table's steady state; [`Window::served`] is the share of
    /// its requests served.
    pub cool: Window,
}

/// Runs the partitioned scenario with each strategy of [`PARTITIONED`],
/// calling `progress` after each. The arrivals are the same for every
/// strategy.
#[must_use]
pub fn run_partitioned(
    params: &CapacityParams,
    seed: u64,
    progress: impl Fn(),
) -> Vec<PartitionedRun> {
    let case = &params.partitioned;
    let key = mix(&[seed, 3, case.capacity.to_bits(), case.clients as u64]);
    PARTITIONED
        .into_iter()
        .map(|strategy| {
            let mut time = VirtualClock::new();
            let fleet = strategy.fleet(case.clients, 2, &time.clock(), |client| {
                mix(&[key, 2, strategy as u64, client as u64])
            });
            let mut tables = Tables::new(2, case.capacity, case.capacity * params.burst_secs);
            let rates = vec![params.hot_load * case.capacity, COOL_LOAD * case.capacity];
            let record = driver::run(
                &params.workload(case.clients, rates),
                &fleet,
                &mut tables,
                &mut time,
                mix(&[key, 1]),
            );
            let window = |table| {
                Window::of(
                    &record,
                    table,
                    params.startup,
                    params.duration,
                    case.capacity,
                )
            };
            let row = PartitionedRow {
                strategy,
                hot_load: params.hot_load,
                hot: window(0),
                cool: window(1),
            };
            progress();
            PartitionedRun { row, record }
        })
        .collect()
}
