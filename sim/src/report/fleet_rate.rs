//! Table, CSV and target verdict of the fleet rate limiter experiment.

use super::{csv_lines, csv_number, markdown, percent};
use crate::fleet::rate::{Limiters, RateRow};

/// The CSV header of the fleet rate limiter experiment.
pub const CSV_HEADER: &str = "processes,strategy,steady_goodput,throttled_after_first_throttle,\
steady_throttled,startup_goodput,steady_send_limit,first_throttle_s,first_cut_s,cuts,store_calls";

/// The fleet size and the thresholds of the target: goodput at least
/// `GOODPUT` of `R` with at most `THROTTLED` of the attempts throttled
/// after the first throttle.
pub const TARGET: (usize, f64, f64) = (20, 0.90, 0.05);

fn optional<T: ToString>(value: Option<T>, none: &str) -> String {
    value.map_or_else(|| none.to_owned(), |v| v.to_string())
}

/// The rows as CSV: [`CSV_HEADER`], one line per row (fleet-only fields
/// empty for per-process limiters).
#[must_use]
pub fn csv(rows: &[RateRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.processes.to_string(),
                r.variant.name().to_owned(),
                format!("{:.4}", r.steady.goodput),
                format!("{:.4}", r.throttled_after_first),
                format!("{:.4}", r.steady.throttled),
                format!("{:.4}", r.startup.goodput),
                csv_number(r.steady.send_limit, 1),
                csv_number(r.first_throttle, 0),
                csv_number(r.first_cut, 3),
                optional(r.cuts, ""),
                optional(r.store_calls, ""),
            ]
        })
        .collect();
    csv_lines(CSV_HEADER, &lines)
}

/// The rows as a Markdown table.
#[must_use]
pub fn table(rows: &[RateRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.processes.to_string(),
                r.variant.name().to_owned(),
                percent(r.steady.goodput),
                percent(r.throttled_after_first),
                percent(r.steady.throttled),
                percent(r.startup.goodput),
                r.steady
                    .send_limit
                    .map_or_else(|| "off".to_owned(), |l| format!("{l:.0}/s")),
                r.first_cut
                    .map_or_else(|| "-".to_owned(), |t| format!("{t:.2} s")),
                optional(r.cuts, "-"),
            ]
        })
        .collect();
    markdown(
        &[
            "processes",
            "limiters",
            "goodput/R (steady)",
            "throttled after the first throttle",
            "throttled (steady)",
            "goodput/R (start-up)",
            "send limit (steady)",
            "first fleet cut",
            "fleet cuts",
        ],
        &[true, false, true, true, true, true, true, true, true],
        &lines,
    )
}

/// Whether `row` meets the target's thresholds.
#[must_use]
pub fn meets_target(row: &RateRow) -> bool {
    row.steady.goodput >= TARGET.1 && row.throttled_after_first <= TARGET.2
}

/// The target verdict for each fleet-limiter row of [`TARGET`]'s fleet
/// size, with the per-process rows beside it; empty without that size.
#[must_use]
pub fn verdict(rows: &[RateRow]) -> String {
    let (n, goodput, throttled) = TARGET;
    let mut out = String::new();
    for row in rows.iter().filter(|r| r.processes == n) {
        let holds = if meets_target(row) {
            "holds"
        } else {
            "does not hold"
        };
        let what = match row.variant.limiters {
            Limiters::Fleet => format!("target {holds}"),
            Limiters::PerProcess => format!(
                "for comparison: would {}",
                if meets_target(row) {
                    "meet it"
                } else {
                    "miss it"
                }
            ),
        };
        out.push_str(&format!(
            "{n} processes, {}: {} of R, {} throttled after the first throttle ({what}: at least {} of R, at most {}).\n",
            row.variant.name(),
            percent(row.steady.goodput),
            percent(row.throttled_after_first),
            percent(goodput),
            percent(throttled),
        ));
    }
    out
}
