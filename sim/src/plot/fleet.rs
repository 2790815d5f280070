//! The fleet experiment's figure: retries and goodput per second of the
//! largest fleet, per-process quotas against the fleet quota.

use std::error::Error;
use std::path::{Path, PathBuf};

use super::series::{Panel, Series, draw};
use super::{REFERENCE, run_lines};
use crate::driver::timeline::Bin;
use crate::fleet::{FleetParams, FleetRun};

/// Writes `fleet_outage.svg` into `dir`: for the largest fleet of `runs`,
/// retries sent per second, then successes per second, one line per quota,
/// the outage marked, the offered load as a reference. Returns the path.
///
/// # Errors
///
/// If the file cannot be written.
pub fn fleet_plot(
    dir: &Path,
    params: &FleetParams,
    runs: &[FleetRun],
) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join("fleet_outage.svg");
    let outage = &params.outage;
    let end = outage.end();
    let largest = runs.iter().map(|r| r.row.processes).max().unwrap_or(0);
    let shown: Vec<&FleetRun> = runs.iter().filter(|r| r.row.processes == largest).collect();
    let lines = |value: fn(&Bin) -> u64| -> Vec<Series> {
        let named = shown.iter().map(|run| (run.row.quota.name(), &run.record));
        run_lines(named, 0, |b, width| Some(value(b) as f64 / width))
    };
    let mut goodput = lines(|b| b.successes);
    goodput.push(Series::level(
        "offered load",
        REFERENCE,
        outage.rate,
        0.0,
        end,
    ));
    let down = format!("down {:.0}-{:.0} s", outage.outage_start, outage.recovery());
    draw(
        &path,
        end,
        &[
            Panel {
                title: format!("{largest} processes: retries sent per second ({down})"),
                y_label: "retries/s".to_owned(),
                series: lines(|b| b.retries),
            },
            Panel {
                title: format!(
                    "{largest} processes: goodput (logical requests succeeding per second)"
                ),
                y_label: "successes/s".to_owned(),
                series: goodput,
            },
        ],
    )?;
    Ok(path)
}
