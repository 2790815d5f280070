//! The command line: `rebound-sim occ` and `rebound-sim all`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::occ::{Algorithm, AttemptNumbering, OccParams, Row, run_experiment};
use crate::{plot, report};

/// The default seed: every run is reproducible unless `--seed` changes it.
pub const DEFAULT_SEED: u64 = 12;

/// Deterministic discrete-event simulations of rebound's backoffs.
#[derive(Debug, Parser)]
#[command(name = "rebound-sim", version, about)]
pub struct Cli {
    /// The experiment to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The experiments.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// OCC contention: N clients each write one row once, conflicts retried.
    Occ(OccArgs),
    /// Every experiment: tables on stdout, SVG plots in a folder.
    All(AllArgs),
}

/// Options of `occ`.
#[derive(Debug, Args)]
pub struct OccArgs {
    /// Trials per (clients, algorithm).
    #[arg(long, default_value_t = 1000)]
    pub trials: u64,
    /// Seed of every draw.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Client counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [10, 20, 30, 40, 50])]
    pub clients: Vec<usize>,
    /// CSV on stdout instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// Number failures as rebound does (first retry waits `base`) instead of
    /// as the reference does (first retry waits `2 * base`).
    #[arg(long)]
    pub rebound_numbering: bool,
}

/// Options of `all`.
#[derive(Debug, Args)]
pub struct AllArgs {
    /// Trials per (clients, algorithm).
    #[arg(long, default_value_t = 1000)]
    pub trials: u64,
    /// Seed of every draw.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Folder for the SVG plots and CSV files.
    #[arg(long, default_value = "target/rebound-sim")]
    pub out: PathBuf,
}

fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} cells, {elapsed}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn occ_rows(clients: &[usize], trials: u64, seed: u64, params: &OccParams) -> Vec<Row> {
    let bar = progress_bar((clients.len() * Algorithm::ALL.len()) as u64);
    bar.set_message("occ");
    let started = Instant::now();
    let rows = run_experiment(clients, trials, seed, params, || bar.inc(1));
    bar.finish_and_clear();
    eprintln!(
        "occ: {} cells x {trials} trials, seed {seed}, {:.1} s",
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    rows
}

fn print_stdout(text: &str) -> Result<(), std::io::Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Runs `occ`; the output text (CSV or table).
#[must_use]
pub fn occ(args: &OccArgs) -> String {
    let params = OccParams {
        numbering: if args.rebound_numbering {
            AttemptNumbering::Rebound
        } else {
            AttemptNumbering::Reference
        },
        ..OccParams::default()
    };
    let rows = occ_rows(&args.clients, args.trials, args.seed, &params);
    if args.csv {
        report::csv(&rows)
    } else {
        report::table(&rows)
    }
}

fn all(args: &AllArgs) -> Result<(), Box<dyn std::error::Error>> {
    let clients: Vec<usize> = (1..=50).collect();
    let rows = occ_rows(&clients, args.trials, args.seed, &OccParams::default());
    std::fs::create_dir_all(&args.out)?;
    let csv_path = args.out.join("occ.csv");
    std::fs::write(&csv_path, report::csv(&rows))?;
    let tens: Vec<Row> = rows
        .iter()
        .copied()
        .filter(|r| r.clients % 10 == 0)
        .collect();
    print_stdout(&format!(
        "## OCC contention ({} trials, seed {})\n\n{}",
        args.trials,
        args.seed,
        report::table(&tens)
    ))?;
    let plots = plot::occ_plots(&args.out, &rows)?;
    eprintln!("wrote {} to {}", csv_path.display(), args.out.display());
    for path in plots {
        eprintln!("wrote {}", path.display());
    }
    eprintln!("not implemented yet: the outage and capacity experiments");
    Ok(())
}

/// Parses the command line and runs it.
#[must_use]
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Occ(args) => print_stdout(&occ(args)).map_err(Into::into),
        Command::All(args) => all(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rebound-sim: {error}");
            ExitCode::FAILURE
        }
    }
}
