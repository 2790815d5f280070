//! The simulator beside the processes: tables that put each figure of the
//! fleet scenarios ([`traffic`](crate::fleet::traffic),
//! [`limited`](crate::fleet::rate::limited)) beside what the multi-process
//! tests of `rebound-redis` measure, with the figures those tests measured.

use super::{markdown, percent};
use crate::fleet::rate::limited::{LimitedParams, LimitedRun, Start};
use crate::fleet::traffic::TrafficRun;

/// How far a simulated figure may be from the midpoint of the measured
/// range and still match it.
pub const TOLERANCE: f64 = 0.10;

/// Retries granted from the outage's start on, the fleet's total, measured
/// with `redis/tests/outage_after_traffic.rs` on a 2-core machine (several
/// runs of `REBOUND_REQUIRE_REDIS=1 cargo test -p rebound-redis --test
/// outage_after_traffic -- --nocapture`): `(processes, per cent of first
/// attempts failing, lowest, highest)`.
pub const OUTAGE_AFTER_TRAFFIC: [(usize, u32, f64, f64); 6] = [
    (1, 5, 99.0, 100.0),
    (1, 20, 98.0, 100.0),
    (20, 5, 91.0, 97.0),
    (20, 20, 78.0, 90.0),
    (50, 5, 80.0, 93.0),
    (50, 20, 58.0, 72.0),
];

/// What `redis/tests/limiter_processes.rs` measured for one start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimiterMeasured {
    /// The start.
    pub start: Start,
    /// The second in which the fleet first admitted 80% of the rate after
    /// its first throttle: lowest and highest.
    pub reached: (f64, f64),
    /// Requests admitted per second over the last 10 s: lowest and highest.
    pub last: (f64, f64),
    /// The share of the requests throttled over the run: lowest and
    /// highest.
    pub throttled: (f64, f64),
}

/// Measured with `redis/tests/limiter_processes.rs` on a 2-core machine
/// (two runs of `REBOUND_REQUIRE_REDIS=1 cargo test -p rebound-redis
/// --test limiter_processes -- ten_processes --nocapture`, the 10-process
/// cases; `alone` is the cold start on per-process limiters).
pub const LIMITER_PROCESSES: [LimiterMeasured; 3] = [
    LimiterMeasured {
        start: Start::Cold,
        reached: (5.0, 6.0),
        last: (387.0, 388.0),
        throttled: (0.0048, 0.0052),
    },
    LimiterMeasured {
        start: Start::Warm,
        reached: (4.0, 4.0),
        last: (386.0, 387.0),
        throttled: (0.0143, 0.0153),
    },
    LimiterMeasured {
        start: Start::Alone,
        reached: (6.0, 10.0),
        last: (386.0, 389.0),
        throttled: (0.0097, 0.0105),
    },
];

/// The mean, lowest and highest of `values` (zeros when empty).
fn spread(values: &[f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, low, high)
}

/// `value` against the midpoint of `range`: the ratio, and whether it is
/// within [`TOLERANCE`].
fn against(value: f64, range: (f64, f64)) -> (f64, bool) {
    let mid = f64::midpoint(range.0, range.1);
    let ratio = if mid > 0.0 { value / mid } else { f64::NAN };
    (ratio, (ratio - 1.0).abs() <= TOLERANCE)
}

fn verdict(ratio: f64, matches: bool) -> String {
    format!(
        "{:+.0}% {}",
        (ratio - 1.0) * 100.0,
        if matches { "yes" } else { "**no**" }
    )
}

/// Scenario A beside the processes: one row per fleet size and share
/// failing of [`OUTAGE_AFTER_TRAFFIC`], the simulated runs' mean and range.
#[must_use]
pub fn traffic_table(runs: &[TrafficRun]) -> String {
    let lines: Vec<Vec<String>> = OUTAGE_AFTER_TRAFFIC
        .iter()
        .filter_map(|&(processes, failing, low, high)| {
            let retries: Vec<f64> = runs
                .iter()
                .filter(|r| {
                    r.processes == processes && (r.failing * 100.0).round() as u32 == failing
                })
                .map(|r| r.outage_retries as f64)
                .collect();
            if retries.is_empty() {
                return None;
            }
            let (mean, min, max) = spread(&retries);
            let (ratio, matches) = against(mean, (low, high));
            Some(vec![
                processes.to_string(),
                format!("{failing}%"),
                format!("{mean:.0} ({min:.0}–{max:.0})"),
                format!("{low:.0}–{high:.0}"),
                verdict(ratio, matches),
            ])
        })
        .collect();
    markdown(
        &[
            "processes",
            "first attempts failing",
            "sim: retries in the outage, mean (range)",
            "processes: measured",
            "sim vs midpoint, within 10%",
        ],
        &[true, true, true, true, false],
        &lines,
    )
}

/// Scenario B beside the processes: one row per start of
/// [`LIMITER_PROCESSES`], the simulated runs' mean and range.
#[must_use]
pub fn limited_table(params: &LimitedParams, runs: &[LimitedRun]) -> String {
    let rate = params.admitted_rate();
    let lines: Vec<Vec<String>> = LIMITER_PROCESSES
        .iter()
        .filter_map(|measured| {
            let of: Vec<&LimitedRun> = runs.iter().filter(|r| r.start == measured.start).collect();
            if of.is_empty() {
                return None;
            }
            let reached: Vec<f64> = of
                .iter()
                .map(|r| r.reached(0.8, rate).map_or(f64::NAN, |s| s as f64))
                .collect();
            let never = reached.iter().filter(|s| s.is_nan()).count();
            let reached: Vec<f64> = reached.into_iter().filter(|s| !s.is_nan()).collect();
            let (reached_mean, reached_min, reached_max) = spread(&reached);
            let last: Vec<f64> = of.iter().map(|r| r.last(10)).collect();
            let (last_mean, last_min, last_max) = spread(&last);
            let share: Vec<f64> = of.iter().map(|r| r.throttled_share()).collect();
            let (share_mean, share_min, share_max) = spread(&share);
            let (last_ratio, last_matches) = against(last_mean, measured.last);
            let (share_ratio, share_matches) = against(share_mean, measured.throttled);
            let reached_text = if reached.is_empty() {
                "never".to_owned()
            } else if never > 0 {
                format!("{reached_mean:.1} ({reached_min:.0}–{reached_max:.0}; never in {never})")
            } else {
                format!("{reached_mean:.1} ({reached_min:.0}–{reached_max:.0})")
            };
            Some(vec![
                measured.start.name().to_owned(),
                reached_text,
                format!("{:.0}–{:.0}", measured.reached.0, measured.reached.1),
                format!("{last_mean:.0} ({last_min:.0}–{last_max:.0})"),
                format!("{:.0}–{:.0}", measured.last.0, measured.last.1),
                verdict(last_ratio, last_matches),
                format!(
                    "{} ({}–{})",
                    percent(share_mean),
                    percent(share_min),
                    percent(share_max)
                ),
                format!(
                    "{}–{}",
                    percent(measured.throttled.0),
                    percent(measured.throttled.1)
                ),
                verdict(share_ratio, share_matches),
            ])
        })
        .collect();
    markdown(
        &[
            "start",
            "sim: 80% reached at (s)",
            "processes",
            "sim: admitted/s, last 10 s",
            "processes",
            "within 10%",
            "sim: throttled",
            "processes",
            "within 10%",
        ],
        &[false, true, true, true, true, false, true, true, false],
        &lines,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_match_within_a_tenth_of_the_midpoint() {
        assert_eq!(against(99.0, (90.0, 100.0)), (99.0 / 95.0, true));
        assert!(!against(80.0, (90.0, 100.0)).1);
        assert_eq!(spread(&[1.0, 3.0, 2.0]), (2.0, 1.0, 3.0));
    }
}
