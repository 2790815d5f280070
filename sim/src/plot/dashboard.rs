//! The dashboard figure: what the observer's instruments show of an outage.

use std::error::Error;
use std::path::{Path, PathBuf};

use super::series::{Panel, Series, draw};
use super::{COLOURS, REFERENCE};
use crate::dashboard::{DashboardParams, Sample};

/// Writes `dashboard.svg` into `dir`: the limiter's rates, the retry quota,
/// and attempts, throttles, retries and give-ups per second, one sample per
/// second as a meter collects them. Returns the path.
///
/// # Errors
///
/// If the file cannot be written.
pub fn dashboard_plot(
    dir: &Path,
    params: &DashboardParams,
    samples: &[Sample],
) -> Result<PathBuf, Box<dyn Error>> {
    let path = dir.join("dashboard.svg");
    let end = params.end();
    let line = |name: &str, colour, value: &dyn Fn(&Sample) -> Option<f64>| Series {
        name: name.to_owned(),
        pieces: pieces(samples, value),
        colour,
        dashed: false,
    };
    let outage = format!(
        "throttled {:.0}-{:.0} s",
        params.outage_start,
        params.recovery()
    );
    draw(
        &path,
        end,
        &[
            Panel {
                title: format!("rebound.limiter.* ({outage}; gaps: limiter off)"),
                y_label: "requests/s".to_owned(),
                series: vec![
                    line("fill_rate", COLOURS[0], &|s| s.fill_rate),
                    line("measured_rate", COLOURS[1], &|s| s.measured_rate),
                    Series::level("service capacity", REFERENCE, params.capacity, 0.0, end),
                ],
            },
            Panel {
                title: "rebound.quota.available".to_owned(),
                y_label: "tokens".to_owned(),
                series: vec![line("quota.available", COLOURS[2], &|s| {
                    Some(s.quota as f64)
                })],
            },
            Panel {
                title: "rebound.client.* per second".to_owned(),
                y_label: "per second".to_owned(),
                series: vec![
                    line("attempts", COLOURS[4], &|s| Some(s.attempts as f64)),
                    line("throttled attempts", COLOURS[0], &|s| {
                        Some(s.throttled as f64)
                    }),
                    line("retries (request.retries sum)", COLOURS[1], &|s| {
                        Some(s.retries as f64)
                    }),
                    line("give_ups", COLOURS[3], &|s| Some(s.give_ups as f64)),
                ],
            },
        ],
    )?;
    Ok(path)
}

/// `value` of each sample at its time, broken where it is `None`.
fn pieces(samples: &[Sample], value: &dyn Fn(&Sample) -> Option<f64>) -> Vec<Vec<(f64, f64)>> {
    let mut pieces = vec![Vec::new()];
    for sample in samples {
        match value(sample) {
            Some(v) => pieces
                .last_mut()
                .into_iter()
                .for_each(|p| p.push((sample.t, v))),
            None if pieces.last().is_some_and(|p| !p.is_empty()) => pieces.push(Vec::new()),
            None => {}
        }
    }
    pieces.retain(|p| !p.is_empty());
    pieces
}
