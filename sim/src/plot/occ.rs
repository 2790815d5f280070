//! SVG line plots of the OCC experiment: one line per algorithm against
//! the number of clients.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;

use super::COLOURS;
use crate::occ::{Algorithm, Row};

/// Draws one chart on `$root` with y coordinates `$y`, one line per
/// algorithm. A macro because the linear and logarithmic charts have
/// different coordinate types.
macro_rules! draw_lines {
    ($root:expr, $title:expr, $y_label:expr, $x_max:expr, $y:expr, $rows:expr, $value:expr) => {{
        let mut chart = ChartBuilder::on($root)
            .caption($title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..$x_max, $y)?;
        chart
            .configure_mesh()
            .x_desc("clients")
            .x_label_formatter(&|clients: &f64| format!("{clients:.0}"))
            .y_label_formatter(&|value: &f64| format!("{value:.0}"))
            .y_desc($y_label)
            .draw()?;
        for (algorithm, colour) in Algorithm::ALL.into_iter().zip(COLOURS) {
            let points: Vec<(f64, f64)> = $rows
                .iter()
                .filter(|r| r.algorithm == algorithm)
                .map(|r| (r.clients as f64, $value(r)))
                .collect();
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))?
                .label(algorithm.name())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }};
}

/// One SVG: `value(row)` against the number of clients, one line per
/// algorithm; the y axis logarithmic if `log_y`.
///
/// # Errors
///
/// If the file cannot be written.
pub fn line_plot(
    path: &Path,
    title: &str,
    y_label: &str,
    rows: &[Row],
    log_y: bool,
    value: impl Fn(&Row) -> f64,
) -> Result<(), Box<dyn Error>> {
    let x_max = rows.iter().map(|r| r.clients).max().unwrap_or(1) as f64;
    let y_max = rows.iter().map(&value).fold(0.0_f64, f64::max).max(1.0) * 1.05;
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    if log_y {
        let y_min = rows
            .iter()
            .map(&value)
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min)
            .min(y_max)
            * 0.9;
        draw_lines!(
            &root,
            title,
            y_label,
            x_max,
            (y_min..y_max).log_scale(),
            rows,
            &value
        );
    } else {
        draw_lines!(&root, title, y_label, x_max, 0.0..y_max, rows, &value);
    }
    root.present()?;
    Ok(())
}

/// Writes `occ_calls.svg` and `occ_time.svg` into `dir`; returns their paths.
///
/// # Errors
///
/// If a file cannot be written.
pub fn occ_plots(dir: &Path, rows: &[Row]) -> Result<Vec<std::path::PathBuf>, Box<dyn Error>> {
    let calls = dir.join("occ_calls.svg");
    let time = dir.join("occ_time.svg");
    line_plot(
        &calls,
        "OCC contention: mean calls",
        "mean calls (writes)",
        rows,
        false,
        |r: &Row| r.mean_calls,
    )?;
    line_plot(
        &time,
        "OCC contention: mean completion time",
        "mean time (ms, log scale)",
        rows,
        true,
        |r: &Row| r.mean_time_ms,
    )?;
    Ok(vec![calls, time])
}
