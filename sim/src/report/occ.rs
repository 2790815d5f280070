//! Table and CSV of the OCC experiment.

use std::fmt::Write as _;

use crate::occ::Row;

/// The CSV header of the OCC experiment.
pub const CSV_HEADER: &str = "clients,algorithm,mean_time_ms,mean_calls";

/// The rows as CSV: [`CSV_HEADER`], then one line per row, three decimals.
#[must_use]
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for row in rows {
        let _ = writeln!(
            out,
            "{},{},{:.3},{:.3}",
            row.clients,
            row.algorithm.name(),
            row.mean_time_ms,
            row.mean_calls
        );
    }
    out
}

/// The rows as a Markdown table.
#[must_use]
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| clients | algorithm | mean time (ms) | mean calls |\n|---:|---|---:|---:|\n",
    );
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} | {:.2} |",
            row.clients,
            row.algorithm.name(),
            row.mean_time_ms,
            row.mean_calls
        );
    }
    out
}
