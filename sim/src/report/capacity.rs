//! Tables and CSV of the capacity experiment.

use super::{csv_lines, csv_number, markdown, percent, seconds};
use crate::capacity::{CapacityRow, CapacityRun, PartitionedRow, PartitionedRun};

/// The CSV header of the single-table scenario.
pub const CSV_HEADER: &str = "capacity,clients,load,strategy,startup_goodput,startup_throttled,\
ramp_s,steady_goodput,steady_throttled,steady_attempts_per_success,steady_gave_up,steady_send_limit,unfinished";

/// The CSV header of the partitioned scenario.
pub const PARTITIONED_HEADER: &str = "strategy,hot_load,hot_goodput,hot_throttled,\
cool_goodput,cool_served,cool_throttled,cool_send_limit";

/// The CSV header of the time series (1 s bins) of both scenarios; table 0
/// is the only table, or the hot one.
pub const TIMESERIES_HEADER: &str = "scenario,capacity,clients,load,strategy,table,t_s,\
arrivals,attempts,successes,throttled,gave_up,send_limit";

/// The single-table rows as CSV: [`CSV_HEADER`].
#[must_use]
pub fn csv(rows: &[CapacityRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                format!("{:.0}", r.capacity),
                r.clients.to_string(),
                format!("{}", r.load),
                r.strategy.name().to_owned(),
                format!("{:.4}", r.startup.goodput),
                format!("{:.4}", r.startup.throttled),
                csv_number(r.ramp, 0),
                format!("{:.4}", r.steady.goodput),
                format!("{:.4}", r.steady.throttled),
                format!("{:.3}", r.steady.attempts_per_success),
                format!("{:.4}", r.steady.gave_up),
                csv_number(r.steady.send_limit, 1),
                r.unfinished.to_string(),
            ]
        })
        .collect();
    csv_lines(CSV_HEADER, &lines)
}

/// The single-table rows as Markdown, one table per (capacity, clients).
#[must_use]
pub fn table(rows: &[CapacityRow]) -> String {
    let mut out = String::new();
    let mut start = 0;
    while start < rows.len() {
        let case = (rows[start].capacity, rows[start].clients);
        let end = rows[start..]
            .iter()
            .position(|r| (r.capacity, r.clients) != case)
            .map_or(rows.len(), |n| start + n);
        let lines: Vec<Vec<String>> = rows[start..end]
            .iter()
            .map(|r| {
                vec![
                    format!("{}R", r.load),
                    r.strategy.name().to_owned(),
                    percent(r.startup.goodput),
                    percent(r.startup.throttled),
                    seconds(r.ramp),
                    percent(r.steady.goodput),
                    percent(r.steady.throttled),
                    format!("{:.2}", r.steady.attempts_per_success),
                    percent(r.steady.gave_up),
                    r.steady
                        .send_limit
                        .map_or_else(|| "off".to_owned(), |l| format!("{l:.0}/s")),
                    r.unfinished.to_string(),
                ]
            })
            .collect();
        out.push_str(&format!(
            "R = {:.0} attempts/s, {} client{}:\n\n",
            case.0,
            case.1,
            if case.1 == 1 { "" } else { "s" }
        ));
        out.push_str(&markdown(
            &[
                "load",
                "strategy",
                "start-up goodput/R",
                "start-up throttled",
                "ramp to 90% R",
                "steady goodput/R",
                "steady throttled",
                "attempts/success",
                "gave up",
                "send limit",
                "waiting at end",
            ],
            &[
                false, false, true, true, true, true, true, true, true, true, true,
            ],
            &lines,
        ));
        out.push('\n');
        start = end;
    }
    out
}

/// The partitioned rows as CSV: [`PARTITIONED_HEADER`].
#[must_use]
pub fn partitioned_csv(rows: &[PartitionedRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.strategy.name().to_owned(),
                format!("{}", r.hot_load),
                format!("{:.4}", r.hot.goodput),
                format!("{:.4}", r.hot.throttled),
                format!("{:.4}", r.cool.goodput),
                format!("{:.4}", r.cool.served),
                format!("{:.4}", r.cool.throttled),
                csv_number(r.cool.send_limit, 1),
            ]
        })
        .collect();
    csv_lines(PARTITIONED_HEADER, &lines)
}

/// The partitioned rows as a Markdown table.
#[must_use]
pub fn partitioned_table(rows: &[PartitionedRow]) -> String {
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.strategy.name().to_owned(),
                percent(r.hot.goodput),
                percent(r.hot.throttled),
                percent(r.cool.served),
                percent(r.cool.throttled),
                r.cool
                    .send_limit
                    .map_or_else(|| "off".to_owned(), |l| format!("{l:.0}/s")),
            ]
        })
        .collect();
    markdown(
        &[
            "strategy",
            "hot goodput/R",
            "hot throttled",
            "cool requests served",
            "cool throttled",
            "cool send limit",
        ],
        &[false, true, true, true, true, true],
        &lines,
    )
}

/// Every run's 1 s bins as CSV: [`TIMESERIES_HEADER`].
#[must_use]
pub fn timeseries(single: &[CapacityRun], partitioned: &[PartitionedRun]) -> String {
    let mut lines = Vec::new();
    let mut push = |scenario: &str, key: [String; 4], run: &crate::driver::Record| {
        let timeline = &run.timeline;
        for table in 0..timeline.tables() {
            for (index, bin) in timeline.bins(table).iter().enumerate() {
                let mut line = vec![scenario.to_owned()];
                line.extend(key.iter().cloned());
                line.extend([
                    table.to_string(),
                    format!("{:.0}", index as f64 * timeline.width()),
                    bin.arrivals.to_string(),
                    bin.attempts.to_string(),
                    bin.successes.to_string(),
                    bin.throttled.to_string(),
                    bin.gave_up.to_string(),
                    csv_number(bin.send_rate, 2),
                ]);
                lines.push(line);
            }
        }
    };
    for run in single {
        let r = &run.row;
        let key = [
            format!("{:.0}", r.capacity),
            r.clients.to_string(),
            format!("{}", r.load),
            r.strategy.name().to_owned(),
        ];
        push("single", key, &run.record);
    }
    for run in partitioned {
        let r = &run.row;
        let key = [
            String::new(),
            String::new(),
            format!("{}", r.hot_load),
            r.strategy.name().to_owned(),
        ];
        push("partitioned", key, &run.record);
    }
    csv_lines(TIMESERIES_HEADER, &lines)
}
