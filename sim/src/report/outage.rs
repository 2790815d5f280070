//! Table and CSV of the outage experiment.

use super::{csv_lines, csv_number, markdown, percent, seconds};
use crate::driver::Answer;
use crate::outage::{OutageRow, OutageRun};

/// The CSV header of the outage experiment's summary.
pub const CSV_HEADER: &str = "outage_answer,strategy,amplification_outage,amplification,\
peak_attempts_per_s,goodput,goodput_after_recovery,time_to_recover_s,send_limit_at_recovery,unfinished";

/// The CSV header of the outage experiment's time series (1 s bins).
pub const TIMESERIES_HEADER: &str =
    "outage_answer,strategy,t_s,arrivals,attempts,successes,throttled,failed,gave_up,send_limit";

/// How the outage's answer is named in tables and CSV.
#[must_use]
pub fn answer_name(answer: Answer) -> &'static str {
    match answer {
        Answer::Success => "success",
        Answer::Unavailable => "503",
        Answer::SlowDown => "503 SlowDown",
        Answer::Throttled => "429 ThrottlingException",
    }
}

/// The summary rows as CSV: [`CSV_HEADER`], one line per row.
#[must_use]
pub fn csv(rows: &[OutageRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                answer_name(r.outage_answer).to_owned(),
                r.strategy.name().to_owned(),
                format!("{:.4}", r.amplification_outage),
                format!("{:.4}", r.amplification),
                format!("{:.0}", r.peak_attempts),
                format!("{:.4}", r.goodput),
                format!("{:.4}", r.goodput_after),
                csv_number(r.time_to_recover, 0),
                csv_number(r.send_limit_at_recovery, 2),
                r.unfinished.to_string(),
            ]
        })
        .collect();
    csv_lines(CSV_HEADER, &lines)
}

/// The summary rows as a Markdown table.
#[must_use]
pub fn table(rows: &[OutageRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                answer_name(r.outage_answer).to_owned(),
                r.strategy.name().to_owned(),
                format!("{:.2}", r.amplification_outage),
                format!("{:.2}", r.amplification),
                format!("{:.0}", r.peak_attempts),
                percent(r.goodput),
                percent(r.goodput_after),
                seconds(r.time_to_recover),
                r.send_limit_at_recovery
                    .map_or_else(|| "off".to_owned(), |rate| format!("{rate:.0}/s")),
            ]
        })
        .collect();
    markdown(
        &[
            "outage answer",
            "strategy",
            "attempts/request (outage)",
            "attempts/request (run)",
            "peak attempts/s after recovery",
            "goodput (run)",
            "successes/arrivals after recovery",
            "time to recover",
            "send limit at recovery",
        ],
        &[false, false, true, true, true, true, true, true, true],
        &lines,
    )
}

/// Every run's 1 s bins as CSV: [`TIMESERIES_HEADER`].
#[must_use]
pub fn timeseries(runs: &[OutageRun]) -> String {
    let mut lines = Vec::new();
    for run in runs {
        let width = run.record.timeline.width();
        for (index, bin) in run.record.timeline.bins(0).iter().enumerate() {
            lines.push(vec![
                answer_name(run.row.outage_answer).to_owned(),
                run.strategy.name().to_owned(),
                format!("{:.0}", index as f64 * width),
                bin.arrivals.to_string(),
                bin.attempts.to_string(),
                bin.successes.to_string(),
                bin.throttled.to_string(),
                bin.failed.to_string(),
                bin.gave_up.to_string(),
                csv_number(bin.send_rate, 2),
            ]);
        }
    }
    csv_lines(TIMESERIES_HEADER, &lines)
}

/// The CSV header of the adaptive runs' traces of client 0.
pub const TRACE_HEADER: &str = "outage_answer,strategy,t_s,event,send_rate";

/// The traces of client 0 of the runs whose strategy has a rate limiter,
/// as CSV ([`TRACE_HEADER`]): one line per attempt sent (`send`) and per
/// answer (`success`, `error`: a 503 without a throttling code, `throttle`),
/// time and send rate after it (empty while off) in Rust's shortest
/// round-trip form, so that a reader gets the same `f64`s. What
/// `scripts/botocore_trace.py` replays through botocore's limiter.
#[must_use]
pub fn trace(runs: &[OutageRun]) -> String {
    let mut lines = Vec::new();
    for run in runs.iter().filter(|r| r.strategy.has_limiter()) {
        for event in &run.trace {
            let kind = match event.answer {
                None => "send",
                Some(Answer::Success) => "success",
                Some(Answer::Unavailable) => "error",
                Some(Answer::SlowDown | Answer::Throttled) => "throttle",
            };
            lines.push(vec![
                answer_name(run.row.outage_answer).to_owned(),
                run.strategy.name().to_owned(),
                format!("{}", event.time),
                kind.to_owned(),
                event
                    .send_rate
                    .map_or_else(String::new, |rate| format!("{rate}")),
            ]);
        }
    }
    csv_lines(TRACE_HEADER, &lines)
}
