//! `rebound-sim occ`.

use clap::Args;

use super::DEFAULT_SEED;
use super::progress::with_bar;
use crate::occ::{Algorithm, AttemptNumbering, OccParams, Row, run_experiment};
use crate::report;

/// Options of `occ`.
#[derive(Debug, Args)]
pub struct OccArgs {
    /// Trials per (clients, algorithm).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub trials: u64,
    /// Seed of every draw.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Client counts, comma-separated (1 to 10000 each).
    #[arg(long, value_delimiter = ',', default_values_t = [10, 20, 30, 40, 50],
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub clients: Vec<u64>,
    /// CSV on stdout instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// Number failures as rebound does (first retry waits `base`) instead of
    /// as the reference does (first retry waits `2 * base`).
    #[arg(long)]
    pub rebound_numbering: bool,
}

/// The OCC rows for `clients`, with a progress bar.
#[must_use]
pub(super) fn rows(clients: &[usize], trials: u64, seed: u64, params: &OccParams) -> Vec<Row> {
    let cells = (clients.len() * Algorithm::ALL.len()) as u64;
    with_bar("occ", cells, "cells", |progress| {
        run_experiment(clients, trials, seed, params, progress)
    })
}

/// Runs `occ`; the output text (CSV or table).
#[must_use]
pub(super) fn run(args: &OccArgs) -> String {
    let params = OccParams {
        numbering: if args.rebound_numbering {
            AttemptNumbering::Rebound
        } else {
            AttemptNumbering::Reference
        },
        ..OccParams::default()
    };
    let clients: Vec<usize> = args.clients.iter().map(|&c| c as usize).collect();
    let rows = rows(&clients, args.trials, args.seed, &params);
    if args.csv {
        report::csv(&rows)
    } else {
        report::table(&rows)
    }
}
