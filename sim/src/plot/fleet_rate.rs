//! The fleet rate limiter experiment's figure: what one fleet sends per
//! second against the capacity, per-process limiters against the fleet
//! limiter.

use std::error::Error;
use std::path::{Path, PathBuf};

use super::series::{Panel, Series, draw};
use super::{REFERENCE, run_lines};
use crate::driver::timeline::Bin;
use crate::fleet::rate::{RateParams, RateRun};
use crate::report::fleet_rate::TARGET;

/// Writes `fleet_rate.svg` into `dir`: for the target's fleet size (20
/// processes; the largest of `runs` without it), attempts sent per second
/// against the capacity, attempts throttled per second and the limiters'
/// send rates added up, one line per row. Returns the path.
///
/// # Errors
///
/// If the file cannot be written.
pub fn fleet_rate_plot(
    dir: &Path,
    params: &RateParams,
    runs: &[RateRun],
) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join("fleet_rate.svg");
    let n = if runs.iter().any(|r| r.row.processes == TARGET.0) {
        TARGET.0
    } else {
        runs.iter().map(|r| r.row.processes).max().unwrap_or(0)
    };
    let shown: Vec<&RateRun> = runs.iter().filter(|r| r.row.processes == n).collect();
    let lines = |value: &dyn Fn(&Bin, f64) -> Option<f64>| -> Vec<Series> {
        let named = shown
            .iter()
            .map(|run| (run.row.variant.name(), &run.record));
        run_lines(named, 0, value)
    };
    let capacity = || {
        Series::level(
            "capacity R",
            REFERENCE,
            params.capacity,
            0.0,
            params.duration,
        )
    };
    let mut sent = lines(&|b, width| Some(b.attempts as f64 / width));
    sent.push(capacity());
    let mut limits = lines(&|b, _| b.send_rate);
    limits.push(capacity());
    draw(
        &path,
        params.duration,
        &[
            Panel {
                title: format!(
                    "{n} processes sharing R = {:.0}/s, offered {:.0}R: attempts sent per second",
                    params.capacity, params.load
                ),
                y_label: "attempts/s".to_owned(),
                series: sent,
            },
            Panel {
                title: format!("{n} processes: attempts throttled per second"),
                y_label: "throttled/s".to_owned(),
                series: lines(&|b, width| Some(b.throttled as f64 / width)),
            },
            Panel {
                title: format!(
                    "{n} processes: the limiters' send rates added up (end of each second)"
                ),
                y_label: "requests/s".to_owned(),
                series: limits,
            },
        ],
    )?;
    Ok(path)
}
