//! SVG plots of the experiments (plotters, SVG backend and line series
//! only): one file per experiment, the time-series panels they share in
//! [`series`].

pub mod capacity;
pub mod dashboard;
pub mod fleet;
pub mod fleet_rate;
mod occ;
pub mod outage;
pub mod series;

use plotters::style::RGBColor;

pub use occ::{line_plot, occ_plots};

use crate::driver::Record;
use crate::driver::timeline::Bin;
use series::Series;

/// Line colours, in series order (a colour-blind-friendly palette).
pub const COLOURS: [RGBColor; 8] = [
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Black, for reference lines (capacity, offered load).
pub const REFERENCE: RGBColor = RGBColor(0, 0, 0);

/// One line per named run, in [`COLOURS`] order: `value(bin, bin width)` over the time bins of
/// the run's table `table`, broken where it is `None`.
pub fn run_lines<'a>(
    runs: impl IntoIterator<Item = (&'a str, &'a Record)>,
    table: usize,
    value: impl Fn(&Bin, f64) -> Option<f64>,
) -> Vec<Series> {
    runs.into_iter()
        .zip(COLOURS)
        .map(|((name, record), colour)| {
            let width = record.timeline.width();
            Series::binned(
                name,
                colour,
                width,
                record.timeline.bins(table).iter().map(|b| value(b, width)),
            )
        })
        .collect()
}
