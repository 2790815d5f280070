//! Time-series charts: panels stacked in one SVG, sharing the time axis.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;

/// One line of a panel: connected pieces (a gap where there is no value,
/// e.g. while a rate limiter is off).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend.
    pub name: String,
    /// The pieces, each a list of `(t, value)`.
    pub pieces: Vec<Vec<(f64, f64)>>,
    /// The colour.
    pub colour: RGBColor,
    /// Dashed (reference lines) or solid.
    pub dashed: bool,
}

impl Series {
    /// A solid line through `values[i]` at `t = i * width`, broken where a
    /// value is `None`.
    #[must_use]
    pub fn binned(
        name: impl Into<String>,
        colour: RGBColor,
        width: f64,
        values: impl IntoIterator<Item = Option<f64>>,
    ) -> Self {
        let mut pieces = vec![Vec::new()];
        for (index, value) in values.into_iter().enumerate() {
            match value {
                Some(v) => {
                    if let Some(piece) = pieces.last_mut() {
                        piece.push((index as f64 * width, v));
                    }
                }
                None => {
                    if pieces.last().is_some_and(|p| !p.is_empty()) {
                        pieces.push(Vec::new());
                    }
                }
            }
        }
        pieces.retain(|p| !p.is_empty());
        Self {
            name: name.into(),
            pieces,
            colour,
            dashed: false,
        }
    }

    /// A dashed horizontal line at `value` from `from` to `to`.
    #[must_use]
    pub fn level(
        name: impl Into<String>,
        colour: RGBColor,
        value: f64,
        from: f64,
        to: f64,
    ) -> Self {
        Self {
            name: name.into(),
            pieces: vec![vec![(from, value), (to, value)]],
            colour,
            dashed: true,
        }
    }

    fn max(&self) -> f64 {
        self.pieces
            .iter()
            .flatten()
            .map(|&(_, v)| v)
            .fold(0.0, f64::max)
    }
}

/// One chart of a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The chart's title.
    pub title: String,
    /// The y axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
}

/// Draws `panels` stacked in one SVG at `path`, time from 0 to `t_max`
/// seconds on every x axis.
///
/// # Errors
///
/// If the file cannot be written.
pub fn draw(path: &Path, t_max: f64, panels: &[Panel]) -> Result<(), Box<dyn Error>> {
    let height = 380 * u32::try_from(panels.len().max(1)).unwrap_or(1);
    let root = SVGBackend::new(path, (1100, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        // Headroom above the highest line for the legend.
        let y_max = panel.series.iter().map(Series::max).fold(1.0, f64::max) * 1.3;
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_max.max(1.0), 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(panel.y_label.as_str())
            .x_label_formatter(&|t: &f64| format!("{t:.0}"))
            .y_label_formatter(&|v: &f64| format!("{v:.0}"))
            .draw()?;
        for series in &panel.series {
            let style = series
                .colour
                .stroke_width(if series.dashed { 1 } else { 2 });
            let colour = series.colour;
            let dashed = series.dashed;
            let mut labelled = false;
            for piece in &series.pieces {
                let drawn = if dashed {
                    chart.draw_series(DashedLineSeries::new(piece.iter().copied(), 6, 4, style))?
                } else {
                    chart.draw_series(LineSeries::new(piece.iter().copied(), style))?
                };
                if !labelled {
                    drawn.label(series.name.as_str()).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2))
                    });
                    labelled = true;
                }
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binned_series_break_at_missing_values() {
        let series = Series::binned(
            "x",
            BLACK,
            2.0,
            [None, Some(1.0), Some(2.0), None, Some(3.0)],
        );
        assert_eq!(
            series.pieces,
            vec![vec![(2.0, 1.0), (4.0, 2.0)], vec![(8.0, 3.0)]]
        );
        assert_eq!(series.max(), 3.0);
    }
}
