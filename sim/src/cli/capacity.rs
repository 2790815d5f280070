//! `rebound-sim capacity`.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::Args;

use super::progress::with_bar;
use super::{DEFAULT_SEED, bounded};
use crate::capacity::{
    CapacityParams, CapacityRun, CapacityStrategy, Case, PartitionedRun, run_experiment,
    run_partitioned,
};
use crate::{plot, report};

/// The load whose time series is plotted.
pub(super) const PLOTTED_LOAD: f64 = 3.0;

/// Options of `capacity`; the defaults are [`CapacityParams::default`].
#[derive(Debug, Args)]
pub struct CapacityArgs {
    /// Seed of every draw.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Run one case with this capacity R (attempts/s) instead of the four
    /// default cases; every strategy, blocking adaptive mode included.
    #[arg(long, value_parser = bounded(1.0, 100_000.0))]
    pub capacity: Option<f64>,
    /// Clients of that one case (default 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub clients: Option<u64>,
    /// Offered loads, multiples of R, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [2.0, 3.0, 4.0, 5.0],
          value_parser = bounded(0.0, 100.0))]
    pub loads: Vec<f64>,
    /// Time budget of each logical request, seconds, or `none`.
    #[arg(long, default_value = "2", value_parser = parse_budget)]
    pub budget: Budget,
    /// Length of each run, seconds.
    #[arg(long, default_value_t = 300.0, value_parser = bounded(1.0, 36_000.0))]
    pub duration: f64,
    /// The start-up window, seconds (the steady state is the rest).
    #[arg(long, default_value_t = 60.0, value_parser = bounded(0.0, 36_000.0))]
    pub startup: f64,
    /// CSV on stdout instead of tables (the single-table scenario, then a
    /// blank line, then the partitioned one).
    #[arg(long)]
    pub csv: bool,
    /// Also write the SVG plots and CSV files into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// A request's time budget: seconds, or none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget(pub Option<f64>);

fn parse_budget(value: &str) -> Result<Budget, String> {
    if value.eq_ignore_ascii_case("none") {
        return Ok(Budget(None));
    }
    bounded(0.001, 3600.0)(value).map(|s| Budget(Some(s)))
}

impl CapacityArgs {
    /// The parameters these options describe.
    #[must_use]
    pub fn params(&self) -> CapacityParams {
        let mut params = CapacityParams {
            loads: self.loads.clone(),
            budget: self.budget.0,
            duration: self.duration,
            startup: self.startup.min(self.duration),
            ..CapacityParams::default()
        };
        if self.capacity.is_some() || self.clients.is_some() {
            let case = Case {
                capacity: self.capacity.unwrap_or(100.0),
                clients: self.clients.unwrap_or(1) as usize,
                strategies: CapacityStrategy::SINGLE_TABLE.to_vec(),
            };
            params.partitioned = case.clone();
            params.cases = vec![case];
        }
        params
    }
}

/// Both scenarios' runs, behind a progress bar.
#[must_use]
pub(super) fn runs(params: &CapacityParams, seed: u64) -> (Vec<CapacityRun>, Vec<PartitionedRun>) {
    with_bar("capacity", params.runs() as u64, "runs", |progress| {
        let single = run_experiment(params, seed, progress);
        let partitioned = run_partitioned(params, seed, progress);
        (single, partitioned)
    })
}

/// The Markdown section for both scenarios.
#[must_use]
pub(super) fn section(
    params: &CapacityParams,
    seed: u64,
    single: &[CapacityRun],
    partitioned: &[PartitionedRun],
) -> String {
    let rows: Vec<_> = single.iter().map(|r| r.row).collect();
    let parts: Vec<_> = partitioned.iter().map(|r| r.row).collect();
    let budget = params
        .budget
        .map_or_else(|| "no budget".to_owned(), |b| format!("a {b} s budget"));
    format!(
        "## Capacity-limited service ({} s runs, start-up = first {} s, requests with {budget}; seed {seed})\n\n{}\
         ### Two tables, one hot ({}R offered), one cool ({}R): one rate limiter or one per table (R = {:.0}, {} client{})\n\n{}",
        params.duration,
        params.startup,
        report::capacity::table(&rows),
        params.hot_load,
        crate::capacity::partitioned::COOL_LOAD,
        params.partitioned.capacity,
        params.partitioned.clients,
        if params.partitioned.clients == 1 {
            ""
        } else {
            "s"
        },
        report::capacity::partitioned_table(&parts)
    )
}

/// Writes the CSV files, one SVG per case (at [`PLOTTED_LOAD`]) and the
/// partitioned scenario's SVG into `dir`; returns the paths written.
///
/// # Errors
///
/// If a file cannot be written.
pub(super) fn write(
    dir: &Path,
    params: &CapacityParams,
    single: &[CapacityRun],
    partitioned: &[PartitionedRun],
) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    std::fs::create_dir_all(dir)?;
    let rows: Vec<_> = single.iter().map(|r| r.row).collect();
    let parts: Vec<_> = partitioned.iter().map(|r| r.row).collect();
    let mut written = Vec::new();
    for (file, text) in [
        ("capacity.csv", report::capacity::csv(&rows)),
        (
            "capacity_partitioned.csv",
            report::capacity::partitioned_csv(&parts),
        ),
        (
            "capacity_timeseries.csv",
            report::capacity::timeseries(single, partitioned),
        ),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, text)?;
        written.push(path);
    }
    let load = if params.loads.contains(&PLOTTED_LOAD) {
        PLOTTED_LOAD
    } else {
        params.loads.first().copied().unwrap_or(PLOTTED_LOAD)
    };
    for case in &params.cases {
        let runs: Vec<&CapacityRun> = single
            .iter()
            .filter(|r| {
                r.row.capacity == case.capacity
                    && r.row.clients == case.clients
                    && r.row.load == load
            })
            .collect();
        let file = format!(
            "capacity_r{:.0}_{}client{}.svg",
            case.capacity,
            case.clients,
            if case.clients == 1 { "" } else { "s" }
        );
        written.push(plot::capacity::capacity_plot(
            dir,
            &file,
            &runs,
            params.duration,
        )?);
    }
    written.push(plot::capacity::partitioned_plot(
        dir,
        "capacity_partitioned.svg",
        partitioned,
        params.partitioned.capacity,
        params.duration,
    )?);
    Ok(written)
}

/// Runs `capacity`; the text for stdout.
///
/// # Errors
///
/// If `--out` is given and a file cannot be written.
pub(super) fn run(args: &CapacityArgs) -> Result<String, Box<dyn Error>> {
    let params = args.params();
    let (single, partitioned) = runs(&params, args.seed);
    if let Some(dir) = &args.out {
        for path in write(dir, &params, &single, &partitioned)? {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(if args.csv {
        let rows: Vec<_> = single.iter().map(|r| r.row).collect();
        let parts: Vec<_> = partitioned.iter().map(|r| r.row).collect();
        format!(
            "{}\n{}",
            report::capacity::csv(&rows),
            report::capacity::partitioned_csv(&parts)
        )
    } else {
        section(&params, args.seed, &single, &partitioned)
    })
}
