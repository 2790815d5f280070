//! The capacity experiment's figures: goodput, attempts and the adaptive
//! send limit over time, one line per strategy.

use std::error::Error;
use std::path::{Path, PathBuf};

use super::series::{Panel, Series, draw};
use super::{REFERENCE, run_lines};
use crate::capacity::{CapacityRun, CapacityStrategy, PartitionedRun, partitioned::COOL_LOAD};
use crate::driver::Record;
use crate::driver::timeline::Bin;

/// One line per run: `value` per second.
fn lines<'a>(
    runs: impl IntoIterator<Item = (&'a str, &'a Record)>,
    table: usize,
    value: fn(&Bin) -> Option<f64>,
) -> Vec<Series> {
    run_lines(runs, table, |b, width| value(b).map(|v| v / width))
}

/// Writes `file` into `dir` for `runs` (one case and load, every strategy):
/// goodput, attempts sent, attempts throttled, and the adaptive limiters'
/// send limit, per second, with `R` marked where it applies. Returns the path.
///
/// # Errors
///
/// If the file cannot be written.
pub fn capacity_plot(
    dir: &Path,
    file: &str,
    runs: &[&CapacityRun],
    duration: f64,
) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join(file);
    let Some(first) = runs.first() else {
        return Ok(path);
    };
    let (capacity, clients, load) = (first.row.capacity, first.row.clients, first.row.load);
    let named = || runs.iter().map(|r| (r.row.strategy.name(), &r.record));
    let r_line = || Series::level("R", REFERENCE, capacity, 0.0, duration);
    let mut goodput = lines(named(), 0, |b| Some(b.successes as f64));
    goodput.push(r_line());
    let mut attempts = lines(named(), 0, |b| Some(b.attempts as f64));
    attempts.push(r_line());
    // Standard mode's throttles (most of its attempts) are in the tables:
    // drawn here they would flatten the adaptive lines this panel compares.
    // Each adaptive line keeps its colour from the other panels.
    let mut throttled: Vec<Series> = lines(named(), 0, |b| Some(b.throttled as f64))
        .into_iter()
        .zip(runs)
        .filter(|(_, run)| run.row.strategy != CapacityStrategy::Standard)
        .map(|(series, _)| series)
        .collect();
    throttled.push(Series::level(
        "5% of R",
        REFERENCE,
        0.05 * capacity,
        0.0,
        duration,
    ));
    let mut limit = lines(named(), 0, |b| b.send_rate);
    limit.push(r_line());
    let case = format!(
        "R = {capacity:.0}/s, {clients} client{}, offered {load}R",
        if clients == 1 { "" } else { "s" }
    );
    draw(
        &path,
        duration,
        &[
            Panel {
                title: format!("{case}: goodput (successes per second)"),
                y_label: "successes/s".to_owned(),
                series: goodput,
            },
            Panel {
                title: format!("{case}: attempts sent per second"),
                y_label: "attempts/s".to_owned(),
                series: attempts,
            },
            Panel {
                title: format!("{case}: attempts throttled per second (adaptive modes)"),
                y_label: "throttled/s".to_owned(),
                series: throttled,
            },
            Panel {
                title: format!("{case}: adaptive send limit (sum over clients; gap = off)"),
                y_label: "requests/s".to_owned(),
                series: limit,
            },
        ],
    )?;
    Ok(path)
}

/// Writes `file` into `dir` for the partitioned scenario: the cool table's
/// goodput, then the hot table's, per strategy. Returns the path.
///
/// # Errors
///
/// If the file cannot be written.
pub fn partitioned_plot(
    dir: &Path,
    file: &str,
    runs: &[PartitionedRun],
    capacity: f64,
    duration: f64,
) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join(file);
    let named = || runs.iter().map(|r| (r.row.strategy.name(), &r.record));
    let mut cool = lines(named(), 1, |b| Some(b.successes as f64));
    cool.push(Series::level(
        "offered to the cool table",
        REFERENCE,
        COOL_LOAD * capacity,
        0.0,
        duration,
    ));
    let mut hot = lines(named(), 0, |b| Some(b.successes as f64));
    hot.push(Series::level("R", REFERENCE, capacity, 0.0, duration));
    let hot_load = runs.first().map_or(0.0, |r| r.row.hot_load);
    draw(
        &path,
        duration,
        &[
            Panel {
                title: format!("cool table (offered {COOL_LOAD}R): goodput"),
                y_label: "successes/s".to_owned(),
                series: cool,
            },
            Panel {
                title: format!("hot table (offered {hot_load}R): goodput"),
                y_label: "successes/s".to_owned(),
                series: hot,
            },
        ],
    )?;
    Ok(path)
}
