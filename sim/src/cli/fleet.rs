//! `rebound-sim fleet`.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::Args;

use super::progress::with_bar;
use super::{DEFAULT_SEED, bounded};
use crate::fleet::rate::limited::{self, LimitedParams, LimitedRun};
use crate::fleet::rate::parts::{self, PartsRun};
use crate::fleet::rate::{self, RateParams, RateRun, RateVariant, SharerSettings};
use crate::fleet::traffic::{self, TrafficParams, TrafficRun};
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
    /// Seconds between two exchanges of the fleet rate limiter (less than
    /// the lease TTL, 10 s).
    #[arg(long, default_value_t = 1.0, value_parser = bounded(0.001, 9.999))]
    pub rate_period: f64,
    /// Milliseconds of one call to the store, there and back.
    #[arg(long, default_value_t = 1.0, value_parser = bounded(0.0, 10_000.0))]
    pub round_trip_ms: f64,
    /// Rate limiter experiment: fleet sizes (processes), comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1_u64, 10, 20, 100],
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub limiter_processes: Vec<u64>,
    /// Rate limiter experiment: attempts per second the service admits (R).
    #[arg(long, default_value_t = 1000.0, value_parser = bounded(1.0, 1_000_000.0))]
    pub limiter_capacity: f64,
    /// Rate limiter experiment: load offered, in multiples of R.
    #[arg(long, default_value_t = 2.0, value_parser = bounded(0.0, 100.0))]
    pub limiter_load: f64,
    /// Rate limiter experiment: seconds of each run.
    #[arg(long, default_value_t = 300.0, value_parser = bounded(1.0, 36_000.0))]
    pub limiter_duration: f64,
    /// Rate limiter experiment: seconds of start-up, reported apart from the
    /// steady state that follows.
    #[arg(long, default_value_t = 60.0, value_parser = bounded(0.0, 36_000.0))]
    pub limiter_startup: f64,
    /// Rate limiter experiment: also the rows of `AdaptiveRetryStrategy::steady()`
    /// (twice the runs).
    #[arg(long)]
    pub limiter_steady: bool,
    /// The scenarios of the multi-process tests: runs of each case (seeds
    /// from `--seed` on).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub process_runs: u64,
    /// Only the scenarios of the multi-process tests (tables on stdout;
    /// they are not part of the CSV).
    #[arg(long)]
    pub process_only: bool,
    /// CSV on stdout instead of tables: fleet.csv, a blank line, fleet_rate.csv.
    #[arg(long)]
    pub csv: bool,
    /// Also write fleet.csv, fleet_outage.svg, fleet_rate.csv and fleet_rate.svg into this folder.
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

    /// The rate limiter experiment's parameters these options describe.
    #[must_use]
    pub fn rate_params(&self) -> RateParams {
        RateParams {
            processes: self.limiter_processes.iter().map(|&n| n as usize).collect(),
            variants: if self.limiter_steady {
                RateVariant::ALL.to_vec()
            } else {
                RateVariant::ALL[..2].to_vec()
            },
            capacity: self.limiter_capacity,
            load: self.limiter_load,
            duration: self.limiter_duration,
            startup: self.limiter_startup.min(self.limiter_duration),
            sharer: SharerSettings {
                refresh_period: self.rate_period,
                round_trip: self.round_trip_ms / 1000.0,
                ..SharerSettings::default()
            },
            ..RateParams::default()
        }
    }
}

/// The scenarios of the multi-process tests and their runs.
#[derive(Debug)]
pub(super) struct ProcessRuns {
    traffic: TrafficParams,
    traffic_runs: Vec<TrafficRun>,
    limited: LimitedParams,
    limited_runs: Vec<LimitedRun>,
    parts_runs: Vec<PartsRun>,
}

/// The scenarios of the multi-process tests, `runs` runs of each case
/// (seeds from `seed` on), behind progress bars.
#[must_use]
pub(super) fn process_runs(runs: u64, seed: u64) -> ProcessRuns {
    let traffic = TrafficParams {
        runs,
        ..TrafficParams::default()
    };
    let limited = LimitedParams {
        runs,
        ..LimitedParams::default()
    };
    let traffic_runs = with_bar(
        "fleet: outage after traffic",
        traffic.run_count() as u64,
        "runs",
        |progress| traffic::run_experiment(&traffic, seed, progress),
    );
    // The test's 10-process cases, then its 50-process ones.
    let fifty = limited.with_processes(50);
    let limited_runs = with_bar(
        "fleet: limited service",
        2 * limited.run_count() as u64,
        "runs",
        |progress| {
            let mut runs = limited::run_experiment(&limited, seed, progress);
            runs.extend(limited::run_experiment(&fifty, seed, progress));
            runs
        },
    );
    let parts_runs = with_bar(
        "fleet: members differ or change",
        parts::run_count(&limited) as u64,
        "runs",
        |progress| parts::run_experiment(&limited, seed, progress),
    );
    ProcessRuns {
        traffic,
        traffic_runs,
        limited,
        limited_runs,
        parts_runs,
    }
}

/// The Markdown section of the multi-process tests' scenarios, each beside
/// the processes.
#[must_use]
pub(super) fn process_section(runs: &ProcessRuns, seed: u64) -> String {
    let ProcessRuns {
        traffic,
        traffic_runs,
        limited,
        limited_runs,
        parts_runs,
    } = runs;
    format!(
        "## Beside the processes: background failures before an outage ({} processes, {} requests/s \
         in all, healthy {} s then down {} s; quota {}, leases of {}, refresh every {:.3} s, store round \
         trip {} ms; {} runs each, seeds {seed}–{})\n\n{}\n\
         ## Beside the processes: throttling from the first request ({} and 50 processes × {} loops \
         each starting a request every {} s and {} s, against {} requests/s admitted in {} s windows; \
         exchanges every {} s; {} s runs; {} runs each, seeds {seed}–{})\n\n{}\n\
         ## Beside the processes: fleets whose members differ or change (throttled from the first \
         request, {} requests/s admitted in {} s windows; exchanges every {} s; {} s runs; {} runs each, \
         seeds {seed}–{})\n\n{}",
        traffic
            .processes
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        traffic.rate,
        traffic.healthy,
        traffic.outage,
        traffic.lease.capacity,
        traffic.lease.lease_size,
        traffic.lease.refresh_period,
        traffic.lease.round_trip * 1000.0,
        traffic.runs,
        seed + traffic.runs - 1,
        report::fleet_processes::traffic_table(traffic_runs),
        limited.processes,
        limited.tasks,
        limited.period,
        limited.with_processes(50).period,
        limited.admitted_rate(),
        limited.window,
        limited.sharer.refresh_period,
        limited.duration,
        limited.runs,
        seed + limited.runs - 1,
        report::fleet_processes::limited_table(limited, limited_runs),
        limited.admitted_rate(),
        limited.window,
        limited.sharer.refresh_period,
        limited.duration,
        limited.runs,
        seed + limited.runs - 1,
        report::fleet_processes::parts_table(limited, parts_runs),
    )
}

/// The runs, behind a progress bar.
#[must_use]
pub(super) fn runs(params: &FleetParams, seed: u64) -> Vec<FleetRun> {
    let len = (params.processes.len() * 2) as u64;
    with_bar("fleet", len, "runs", |progress| {
        run_experiment(params, seed, progress)
    })
}

/// The rate limiter experiment's runs, behind a progress bar.
#[must_use]
pub(super) fn rate_runs(params: &RateParams, seed: u64) -> Vec<RateRun> {
    with_bar(
        "fleet rate limiter",
        params.runs() as u64,
        "runs",
        |progress| rate::run_experiment(params, seed, progress),
    )
}

/// The Markdown section of the rate limiter experiment: the table, then the
/// target verdict.
#[must_use]
pub(super) fn rate_section(params: &RateParams, seed: u64, runs: &[RateRun]) -> String {
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    format!(
        "## Fleet rate limiter (R = {} attempts/s, {}R offered over the processes, requests with a {} budget, \
         {} s runs, start-up = first {} s; exchanges every {:.2} s, store round trip {} ms; seed {seed})\n\n{}\n{}",
        params.capacity,
        params.load,
        params
            .budget
            .map_or_else(|| "no".to_owned(), |b| format!("{b} s")),
        params.duration,
        params.startup,
        params.sharer.refresh_period,
        params.sharer.round_trip * 1000.0,
        report::fleet_rate::table(&rows),
        report::fleet_rate::verdict(&rows),
    )
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

/// Writes `fleet.csv`, `fleet_outage.svg`, `fleet_rate.csv` and
/// `fleet_rate.svg` into `dir`; returns the paths.
///
/// # Errors
///
/// If a file cannot be written.
pub(super) fn write(
    dir: &Path,
    params: &FleetParams,
    runs: &[FleetRun],
    rate_params: &RateParams,
    rate_runs: &[RateRun],
) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    std::fs::create_dir_all(dir)?;
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    let summary = dir.join("fleet.csv");
    std::fs::write(&summary, report::fleet::csv(&rows))?;
    let rate_rows: Vec<_> = rate_runs.iter().map(|r| r.row).collect();
    let rate_summary = dir.join("fleet_rate.csv");
    std::fs::write(&rate_summary, report::fleet_rate::csv(&rate_rows))?;
    Ok(vec![
        summary,
        plot::fleet::fleet_plot(dir, params, runs)?,
        rate_summary,
        plot::fleet_rate::fleet_rate_plot(dir, rate_params, rate_runs)?,
    ])
}

/// Runs `fleet`; the text for stdout.
///
/// # Errors
///
/// If `--out` is given and a file cannot be written.
pub(super) fn run(args: &FleetArgs) -> Result<String, Box<dyn Error>> {
    if args.process_only {
        let runs = process_runs(args.process_runs, args.seed);
        return Ok(process_section(&runs, args.seed));
    }
    let params = args.params();
    let runs = runs(&params, args.seed);
    let rate_params = args.rate_params();
    let rate_runs = rate_runs(&rate_params, args.seed);
    if let Some(dir) = &args.out {
        for path in write(dir, &params, &runs, &rate_params, &rate_runs)? {
            eprintln!("wrote {}", path.display());
        }
    }
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    let rate_rows: Vec<_> = rate_runs.iter().map(|r| r.row).collect();
    Ok(if args.csv {
        format!(
            "{}\n{}",
            report::fleet::csv(&rows),
            report::fleet_rate::csv(&rate_rows)
        )
    } else {
        let process = process_runs(args.process_runs, args.seed);
        format!(
            "{}\n{}\n{}",
            section(&params, args.seed, &runs),
            rate_section(&rate_params, args.seed, &rate_runs),
            process_section(&process, args.seed)
        )
    })
}
