//! Table, CSV and ratios of the fleet experiment.

use super::{csv_lines, csv_number, markdown, percent, seconds};
use crate::fleet::FleetRow;
use crate::fleet::quota::{QuotaKind, RETRY_COST};

/// The CSV header of the fleet experiment.
pub const CSV_HEADER: &str = "processes,quota,retries_outage,amplification_outage,amplification,\
goodput_after_recovery,time_to_recover_s,refunds_outage,lease_slack,pending_refunds_at_outage,\
processes_with_tokens_at_outage,store_calls";

fn optional<T: ToString>(value: Option<T>, none: &str) -> String {
    value.map_or_else(|| none.to_owned(), |v| v.to_string())
}

/// The rows as CSV: [`CSV_HEADER`], one line per row (fleet-only fields
/// empty for per-process quotas).
#[must_use]
pub fn csv(rows: &[FleetRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.processes.to_string(),
                r.quota.name().to_owned(),
                r.retries_outage.to_string(),
                format!("{:.4}", r.amplification_outage),
                format!("{:.4}", r.amplification),
                format!("{:.4}", r.goodput_after),
                csv_number(r.time_to_recover, 0),
                optional(r.refunds_outage, ""),
                optional(r.lease_slack, ""),
                optional(r.pending_at_outage, ""),
                optional(r.processes_with_tokens, ""),
                optional(r.store_calls, ""),
            ]
        })
        .collect();
    csv_lines(CSV_HEADER, &lines)
}

/// The rows as a Markdown table.
#[must_use]
pub fn table(rows: &[FleetRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.processes.to_string(),
                r.quota.name().to_owned(),
                r.retries_outage.to_string(),
                format!("{:.2}", r.amplification_outage),
                format!("{:.2}", r.amplification),
                percent(r.goodput_after),
                seconds(r.time_to_recover),
                optional(r.refunds_outage, "-"),
                optional(r.lease_slack.map(|s| format!("{s:+}")), "-"),
                optional(r.processes_with_tokens, "-"),
            ]
        })
        .collect();
    markdown(
        &[
            "processes",
            "quota",
            "retries (outage)",
            "attempts/request (outage)",
            "attempts/request (run)",
            "successes/arrivals after recovery",
            "time to recover",
            "refunds credited (outage)",
            "lease slack (retries beyond capacity/5)",
            "processes with tokens at outage",
        ],
        &[true, false, true, true, true, true, true, true, true, true],
        &lines,
    )
}

/// Retries during the outage of the largest fleet over the smallest's, per
/// quota kind: `(kind, smallest N, largest N, ratio)`; `None` when a kind
/// has fewer than two fleet sizes or no retries at the smallest.
#[must_use]
pub fn ratio(rows: &[FleetRow], quota: QuotaKind) -> Option<(usize, usize, f64)> {
    let of_kind = || rows.iter().filter(|r| r.quota == quota);
    let small = of_kind().min_by_key(|r| r.processes)?;
    let large = of_kind().max_by_key(|r| r.processes)?;
    (large.processes > small.processes && small.retries_outage > 0).then(|| {
        (
            small.processes,
            large.processes,
            large.retries_outage as f64 / small.retries_outage as f64,
        )
    })
}

/// Fleet quota: the retries during the outage less those the refunds
/// credited meanwhile paid for (`refunds / RETRY_COST`), which the fleet's
/// capacity bounds; `None` for per-process quotas.
#[must_use]
pub fn retries_less_refunds(row: &FleetRow) -> Option<f64> {
    row.refunds_outage
        .map(|refunds| row.retries_outage as f64 - refunds as f64 / f64::from(RETRY_COST))
}

/// The ratios as lines of text, with their targets.
#[must_use]
pub fn ratios(rows: &[FleetRow]) -> String {
    let mut out = String::new();
    for quota in QuotaKind::ALL {
        let Some((small, large, ratio)) = ratio(rows, quota) else {
            continue;
        };
        let target = match quota {
            QuotaKind::Fleet => "target: at most 1.1x, lease slack aside",
            QuotaKind::PerProcess => "per-process quotas scale with the fleet",
        };
        out.push_str(&format!(
            "Retries during the outage, {large} processes over {small}, {}: {ratio:.2}x ({target}).\n",
            quota.name()
        ));
        let less = |n: usize| {
            rows.iter()
                .find(|r| r.quota == quota && r.processes == n)
                .and_then(retries_less_refunds)
        };
        if let (Some(a), Some(b)) = (less(small), less(large))
            && a > 0.0
        {
            out.push_str(&format!(
                "Less the retries paid by refunds credited during the outage (refunds / {RETRY_COST}): \
                 {b:.0} over {a:.0}, {:.2}x.\n",
                b / a
            ));
        }
    }
    out
}
