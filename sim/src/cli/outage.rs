//! `rebound-sim outage`.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::progress::with_bar;
use super::{DEFAULT_SEED, bounded};
use crate::driver::Answer;
use crate::outage::{OutageParams, OutageRun, OutageStrategy, run_experiment};
use crate::{plot, report};

/// What the service answers while it is down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutageAnswer {
    /// HTTP 503: a transient server fault (adaptive mode's limiter stays off).
    Unavailable,
    /// HTTP 503 `SlowDown`: a throttle (adaptive mode's limiter reacts).
    Slowdown,
    /// Both, one after the other.
    Both,
}

impl OutageAnswer {
    fn answers(self) -> Vec<Answer> {
        match self {
            Self::Unavailable => vec![Answer::Unavailable],
            Self::Slowdown => vec![Answer::SlowDown],
            Self::Both => vec![Answer::Unavailable, Answer::SlowDown],
        }
    }
}

/// Options of `outage`; the defaults are [`OutageParams::default`].
#[derive(Debug, Args)]
pub struct OutageArgs {
    /// Seed of every draw.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Clients, each with its own strategy.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub clients: u64,
    /// Logical requests per second, all clients together.
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
    /// What turning an attempt away costs the service (share of serving one).
    #[arg(long, default_value_t = 0.2, value_parser = bounded(0.0, 1.0))]
    pub reject_cost: f64,
    /// What the service answers while down.
    #[arg(long, value_enum, default_value_t = OutageAnswer::Both)]
    pub answer: OutageAnswer,
    /// CSV on stdout instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// Also write the SVG plots and CSV files into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl OutageArgs {
    fn params(&self, answer: Answer) -> OutageParams {
        OutageParams {
            clients: self.clients as usize,
            rate: self.rate,
            capacity: self.capacity,
            burst: (self.capacity * 0.1).max(1.0),
            reject_cost: self.reject_cost,
            outage: self.outage,
            after: self.after,
            outage_answer: answer,
            ..OutageParams::default()
        }
    }
}

/// Every outage answer's runs, with their parameters, behind a progress bar.
#[must_use]
pub(super) fn runs(params: &[OutageParams], seed: u64) -> Vec<OutageRun> {
    let len = (params.len() * OutageStrategy::ALL.len()) as u64;
    with_bar("outage", len, "runs", |progress| {
        params
            .iter()
            .flat_map(|p| run_experiment(p, seed, progress))
            .collect()
    })
}

/// The Markdown section for `runs`.
#[must_use]
pub(super) fn section(params: &OutageParams, seed: u64, runs: &[OutageRun]) -> String {
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    format!(
        "## Outage and recovery ({} clients, {} requests/s, down {:.0} s, then {} attempts/s; seed {seed})\n\n{}",
        params.clients,
        params.rate,
        params.outage,
        params.capacity,
        report::outage::table(&rows)
    )
}

/// Writes the CSV files and one SVG per outage answer into `dir`; returns
/// the paths written.
///
/// # Errors
///
/// If a file cannot be written.
pub(super) fn write(
    dir: &Path,
    params: &[OutageParams],
    runs: &[OutageRun],
) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    std::fs::create_dir_all(dir)?;
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    let summary = dir.join("outage.csv");
    std::fs::write(&summary, report::outage::csv(&rows))?;
    let series = dir.join("outage_timeseries.csv");
    std::fs::write(&series, report::outage::timeseries(runs))?;
    let trace = dir.join("outage_trace.csv");
    std::fs::write(&trace, report::outage::trace(runs))?;
    let mut written = vec![summary, series, trace];
    for p in params {
        let these: Vec<OutageRun> = runs
            .iter()
            .filter(|r| r.row.outage_answer == p.outage_answer)
            .cloned()
            .collect();
        let (file, title) = match p.outage_answer {
            Answer::SlowDown => ("outage_slowdown.svg", "Outage answered 503 SlowDown"),
            _ => ("outage_503.svg", "Outage answered 503"),
        };
        written.push(plot::outage::outage_plot(dir, file, title, p, &these)?);
    }
    Ok(written)
}

/// Runs `outage`; the text for stdout.
///
/// # Errors
///
/// If `--out` is given and a file cannot be written.
pub(super) fn run(args: &OutageArgs) -> Result<String, Box<dyn Error>> {
    let params: Vec<OutageParams> = args
        .answer
        .answers()
        .into_iter()
        .map(|a| args.params(a))
        .collect();
    let runs = runs(&params, args.seed);
    if let Some(dir) = &args.out {
        for path in write(dir, &params, &runs)? {
            eprintln!("wrote {}", path.display());
        }
    }
    let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
    Ok(if args.csv {
        report::outage::csv(&rows)
    } else {
        section(&params[0], args.seed, &runs)
    })
}
