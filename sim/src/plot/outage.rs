//! The outage experiment's figure: attempts and goodput per second, one
//! line per strategy.

use std::error::Error;
use std::path::{Path, PathBuf};

use super::series::{Panel, Series, draw};
use super::{REFERENCE, run_lines};
use crate::outage::{OutageParams, OutageRun};

/// Writes `file` into `dir` for `runs` (one outage answer, every strategy):
/// attempts sent per second, then successes per second, with the capacity,
/// the offered load and the outage marked. Returns the path.
///
/// # Errors
///
/// If the file cannot be written.
pub fn outage_plot(
    dir: &Path,
    file: &str,
    title: &str,
    params: &OutageParams,
    runs: &[OutageRun],
) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join(file);
    let end = params.end();
    let lines = |value: fn(&crate::driver::timeline::Bin) -> u64| -> Vec<Series> {
        let named = runs.iter().map(|run| (run.strategy.name(), &run.record));
        run_lines(named, 0, |b, width| Some(value(b) as f64 / width))
    };
    let mut attempts = lines(|b| b.attempts);
    attempts.push(Series::level(
        "capacity once recovered",
        REFERENCE,
        params.capacity,
        params.recovery(),
        end,
    ));
    let mut goodput = lines(|b| b.successes);
    goodput.push(Series::level(
        "offered load",
        REFERENCE,
        params.rate,
        0.0,
        end,
    ));
    let outage = format!("down {:.0}-{:.0} s", params.outage_start, params.recovery());
    draw(
        &path,
        end,
        &[
            Panel {
                title: format!("{title}: attempts sent per second ({outage})"),
                y_label: "attempts/s".to_owned(),
                series: attempts,
            },
            Panel {
                title: format!("{title}: goodput (logical requests succeeding per second)"),
                y_label: "successes/s".to_owned(),
                series: goodput,
            },
        ],
    )?;
    Ok(path)
}
