//! `rebound-sim fleet`.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::Args;

use super::progress::with_bar;
use super::{DEFAULT_SEED, bounded};
use crate::fleet::{FleetParams, FleetRun, LeaseSettings, run_experiment};
use crate::outage::OutageParams;
use crate::{plot, report};

/// Options of `fleet`; the defaults are [`FleetParams::default`].
#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Seed of every draw.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Fleet sizes (processes), comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1_u64, 10, 100],
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub processes: Vec<u64>,
    /// Logical requests per second, all processes together.
    #[arg(long, default_value_t = 800.0, value_parser = bounded(0.0, 100_000.0))]
    pub rate: f64,
    /// Attempts per second the service serves once recovered.
    #[arg(long, default_value_t = 1000.0, value_parser = bounded(0.0, 1_000_000.0))]
    pub capacity: f64,
    /// Seconds every attempt fails (T).
    #[arg(long, default_value_t = 10.0, value_parser = bounded(0.0, 3600.0))]
    pub outage: f64,
    /// Seconds observed after the recovery.
    #[arg(long, default_value_t = 60.0, value_parser = bounded(1.0, 3600.0))]
    pub after: f64,
    /// Tokens of the retry quota: the fleet's, and each process's own.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub quota: u32,
    /// Tokens a process leases at a time.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub lease_size: u32,
    /// Seconds between two refreshes of a lease [default: 10/3, the TTL / 3].
    #[arg(long, value_parser = bounded(0.001, 3600.0))]
    pub refresh: Option<f64>,
    /// Milliseconds of one call to the store, there and back.
    #[arg(long, default_value_t = 1.0, value_parser = bounded(0.0, 10_000.0))]
    pub round_trip_ms: f64,
    /// CSV on stdout instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// Also write fleet.csv and fleet_outage.svg into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl FleetArgs {
    /// The parameters these options describe.
    #[must_use]
    pub fn params(&self) -> FleetParams {
        let defaults = LeaseSettings::default();
        FleetParams {
            processes: self.processes.iter().map(|&n| n as usize).collect(),
            outage: OutageParams {
                rate: self.rate,
                capacity: self.capacity,
                burst: (self.capacity * 0.1).max(1.0),
                outage: self.outage,
                after: self.after,
                ..OutageParams::default()
            },
            lease: LeaseSettings {
                capacity: self.quota,
                lease_size: self.lease_size,
                refresh_period: self.refresh.unwrap_or(defaults.refresh_period),
                round_trip: self.round_trip_ms / 1000.0,
            },
        }
    }
}

/// The runs, behind a progress bar.
#[must_use]
pub(super) fn runs(params: &FleetParams, seed: u64) -> Vec<FleetRun> {
    let len = (params.processes.len() * 2) as u64;
    with_bar("fleet", len, "runs", |progress| {
        run_experiment(params, seed, progress)
    })
}

/// The Markdown section for `runs`: the table, then the ratios.
#[must_use]
pub(super) fn section(params: &FleetParams, seed: u64, runs: &[FleetRun]) -> String {
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    let (outage, lease) = (&params.outage, &params.lease);
    format!(
        "## Fleet retry quota ({} requests/s in all, down {:.0} s answering 503, then {} attempts/s; \
         quota {} tokens, leases of {}, refresh every {:.2} s, store round trip {} ms; seed {seed})\n\n{}\n{}",
        outage.rate,
        outage.outage,
        outage.capacity,
        lease.capacity,
        lease.lease_size,
        lease.refresh_period,
        lease.round_trip * 1000.0,
        report::fleet::table(&rows),
        report::fleet::ratios(&rows),
    )
}

/// Writes `fleet.csv` and `fleet_outage.svg` into `dir`; returns the paths.
///
/// # Errors
///
/// If a file cannot be written.
pub(super) fn write(
    dir: &Path,
    params: &FleetParams,
    runs: &[FleetRun],
) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    std::fs::create_dir_all(dir)?;
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    let summary = dir.join("fleet.csv");
    std::fs::write(&summary, report::fleet::csv(&rows))?;
    Ok(vec![summary, plot::fleet::fleet_plot(dir, params, runs)?])
}

/// Runs `fleet`; the text for stdout.
///
/// # Errors
///
/// If `--out` is given and a file cannot be written.
pub(super) fn run(args: &FleetArgs) -> Result<String, Box<dyn Error>> {
    let params = args.params();
    let runs = runs(&params, args.seed);
    if let Some(dir) = &args.out {
        for path in write(dir, &params, &runs)? {
            eprintln!("wrote {}", path.display());
        }
    }
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    Ok(if args.csv {
        report::fleet::csv(&rows)
    } else {
        section(&params, args.seed, &runs)
    })
}
