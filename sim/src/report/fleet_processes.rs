//! The simulator beside the processes: tables that put each figure of the
//! fleet scenarios ([`traffic`](crate::fleet::traffic),
//! [`limited`](crate::fleet::rate::limited),
//! [`parts`](crate::fleet::rate::parts)) beside what the multi-process
//! tests of `rebound-redis` measure, with the figures those tests measured.

use super::{markdown, percent};
use crate::fleet::rate::Limiters;
use crate::fleet::rate::limited::{LimitedParams, LimitedRun, Start};
use crate::fleet::rate::parts::{Figure, PartsRun, Scenario};
use crate::fleet::traffic::TrafficRun;

/// How far a simulated figure may be from the midpoint of the measured
/// range and still match it.
pub const TOLERANCE: f64 = 0.10;

/// Retries granted from the outage's start on, the fleet's total, measured
/// with `redis/tests/outage_after_traffic.rs` on a 2-core machine (20 runs
/// of `REBOUND_REQUIRE_REDIS=1 cargo test -p rebound-redis --test
/// outage_after_traffic -- --nocapture`, beside a build): `(processes, per
/// cent of first attempts failing, lowest, highest)`.
pub const OUTAGE_AFTER_TRAFFIC: [(usize, u32, f64, f64); 6] = [
    (1, 5, 99.0, 100.0),
    (1, 20, 97.0, 100.0),
    (20, 5, 85.0, 96.0),
    (20, 20, 68.0, 89.0),
    (50, 5, 77.0, 90.0),
    (50, 20, 59.0, 79.0),
];

/// What `redis/tests/limiter_processes.rs` measured for one case: the
/// lowest and highest of its runs, as shares of the admitted rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimiterMeasured {
    /// Processes in the fleet.
    pub processes: usize,
    /// The start (`Alone`: the cold start on per-process limiters).
    pub start: Start,
    /// Admitted over the last 10 s.
    pub last: (f64, f64),
    /// Admitted over the whole run (cold starts only: a warm run's first
    /// 3 s admit everything).
    pub whole: Option<(f64, f64)>,
    /// The share of the requests throttled over the run.
    pub throttled: (f64, f64),
}

/// Measured with `redis/tests/limiter_processes.rs` on a 2-core machine
/// while a build ran beside it: 20 runs of `REBOUND_REQUIRE_REDIS=1 cargo
/// test -p rebound-redis --test limiter_processes -- --test-threads 1
/// --nocapture` (its `LIMITER` lines; `alone` is the cold start on
/// per-process limiters).
pub const LIMITER_PROCESSES: [LimiterMeasured; 6] = [
    LimiterMeasured {
        processes: 10,
        start: Start::Cold,
        last: (0.922, 0.965),
        whole: Some((0.732, 0.873)),
        throttled: (0.0023, 0.0078),
    },
    LimiterMeasured {
        processes: 10,
        start: Start::Warm,
        last: (0.946, 0.982),
        whole: None,
        throttled: (0.0143, 0.0208),
    },
    LimiterMeasured {
        processes: 10,
        start: Start::Alone,
        last: (0.93, 0.973),
        whole: Some((0.643, 0.901)),
        throttled: (0.0072, 0.0118),
    },
    LimiterMeasured {
        processes: 50,
        start: Start::Cold,
        last: (0.825, 0.902),
        whole: Some((0.822, 0.885)),
        throttled: (0.0132, 0.029),
    },
    LimiterMeasured {
        processes: 50,
        start: Start::Warm,
        last: (0.815, 0.915),
        whole: None,
        throttled: (0.0577, 0.0683),
    },
    LimiterMeasured {
        processes: 50,
        start: Start::Alone,
        last: (0.966, 0.987),
        whole: Some((0.898, 0.973)),
        throttled: (0.055, 0.0627),
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
/// within [`TOLERANCE`] (a midpoint of 0, as 0 seconds: no ratio, and
/// within it only when `value` is 0 too).
fn against(value: f64, range: (f64, f64)) -> (f64, bool) {
    let mid = f64::midpoint(range.0, range.1);
    if mid > 0.0 {
        let ratio = value / mid;
        (ratio, (ratio - 1.0).abs() <= TOLERANCE)
    } else {
        (f64::NAN, value == 0.0)
    }
}

fn verdict(ratio: f64, matches: bool) -> String {
    let word = if matches { "yes" } else { "**no**" };
    if ratio.is_finite() {
        format!("{:+.0}% {word}", (ratio - 1.0) * 100.0)
    } else {
        word.to_owned()
    }
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

/// Scenario B beside the processes: one row per case of
/// [`LIMITER_PROCESSES`], the simulated runs' mean and range (`runs` holds
/// the runs of every fleet size).
#[must_use]
pub fn limited_table(params: &LimitedParams, runs: &[LimitedRun]) -> String {
    let rate = params.admitted_rate();
    let share = |values: &[f64]| {
        let (mean, min, max) = spread(values);
        format!("{} ({}–{})", percent(mean), percent(min), percent(max))
    };
    let range = |(low, high): (f64, f64)| format!("{}–{}", percent(low), percent(high));
    let lines: Vec<Vec<String>> = LIMITER_PROCESSES
        .iter()
        .filter_map(|measured| {
            let of: Vec<&LimitedRun> = runs
                .iter()
                .filter(|r| r.start == measured.start && r.processes == measured.processes)
                .collect();
            if of.is_empty() {
                return None;
            }
            let last: Vec<f64> = of.iter().map(|r| r.last(10) / rate).collect();
            let whole: Vec<f64> = of.iter().map(|r| r.whole() / rate).collect();
            let throttled: Vec<f64> = of.iter().map(|r| r.throttled_share()).collect();
            let (last_ratio, last_matches) = against(spread(&last).0, measured.last);
            let (throttled_ratio, throttled_matches) =
                against(spread(&throttled).0, measured.throttled);
            let (whole_sim, whole_measured, whole_verdict) = match measured.whole {
                Some(measured_whole) => {
                    let (ratio, matches) = against(spread(&whole).0, measured_whole);
                    (
                        share(&whole),
                        range(measured_whole),
                        verdict(ratio, matches),
                    )
                }
                None => ("—".to_owned(), "—".to_owned(), "—".to_owned()),
            };
            Some(vec![
                measured.processes.to_string(),
                measured.start.name().to_owned(),
                share(&last),
                range(measured.last),
                verdict(last_ratio, last_matches),
                whole_sim,
                whole_measured,
                whole_verdict,
                share(&throttled),
                range(measured.throttled),
                verdict(throttled_ratio, throttled_matches),
            ])
        })
        .collect();
    markdown(
        &[
            "processes",
            "start",
            "sim: admitted, last 10 s",
            "processes",
            "within 10%",
            "sim: admitted, whole run",
            "processes",
            "within 10%",
            "sim: throttled",
            "processes",
            "within 10%",
        ],
        &[
            true, false, true, true, false, true, true, false, true, true, false,
        ],
        &lines,
    )
}

/// One figure measured by the processes: the lowest and highest of their
/// runs, of the kind of the model's [`Figure`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measured {
    /// A share, as a fraction: of a rate, or of the requests sent.
    Share(f64, f64),
    /// A number of requests.
    Count(u64, u64),
    /// Whole seconds until something happened.
    Seconds(usize, usize),
}

impl Measured {
    /// The lowest and highest, as numbers.
    #[must_use]
    pub fn range(self) -> (f64, f64) {
        match self {
            Self::Share(low, high) => (low, high),
            Self::Count(low, high) => (low as f64, high as f64),
            Self::Seconds(low, high) => (low as f64, high as f64),
        }
    }

    /// The range as the tables print it: shares in per cent, requests and
    /// seconds as they are.
    #[must_use]
    pub fn text(self) -> String {
        match self {
            Self::Share(low, high) => format!("{}–{}", percent(low), percent(high)),
            Self::Count(low, high) => format!("{low}–{high}"),
            Self::Seconds(low, high) => format!("{low}–{high} s"),
        }
    }
}

/// What `redis/tests/limiter_processes.rs` measured for one fleet whose
/// members differ or change, under one kind of limiters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartsMeasured {
    /// The fleet.
    pub scenario: Scenario,
    /// Whose limits.
    pub limiters: Limiters,
    /// Each figure, in [`Scenario::figure_names`] order.
    pub figures: &'static [Measured],
}

/// Measured with `redis/tests/limiter_processes.rs` on a 2-core machine
/// while a build ran beside it: 20 runs of `REBOUND_REQUIRE_REDIS=1 cargo test
/// -p rebound-redis --test limiter_processes -- --test-threads 1
/// --nocapture` (its `LIMITER uneven`, `LIMITER scale-up` and `LIMITER
/// scale-down` lines; the seconds back at 90% are those after the leave).
pub const PARTS_PROCESSES: [PartsMeasured; 6] = [
    PartsMeasured {
        scenario: Scenario::Uneven,
        limiters: Limiters::Fleet,
        figures: &[
            Measured::Share(0.994, 1.001),
            Measured::Share(0.779, 0.929),
            Measured::Share(0.878, 0.961),
            Measured::Share(0.0022, 0.0178),
        ],
    },
    PartsMeasured {
        scenario: Scenario::Uneven,
        limiters: Limiters::PerProcess,
        figures: &[
            Measured::Share(0.997, 1.0),
            Measured::Share(0.537, 0.817),
            Measured::Share(0.745, 0.898),
            Measured::Share(0.0007, 0.0027),
        ],
    },
    PartsMeasured {
        scenario: Scenario::Joining,
        limiters: Limiters::Fleet,
        figures: &[Measured::Count(2, 24), Measured::Share(0.874, 0.948)],
    },
    PartsMeasured {
        scenario: Scenario::Joining,
        limiters: Limiters::PerProcess,
        figures: &[Measured::Count(22, 39), Measured::Share(0.872, 0.978)],
    },
    PartsMeasured {
        scenario: Scenario::Leaving,
        limiters: Limiters::Fleet,
        figures: &[Measured::Seconds(1, 8), Measured::Share(0.712, 0.976)],
    },
    PartsMeasured {
        scenario: Scenario::Leaving,
        limiters: Limiters::PerProcess,
        figures: &[Measured::Seconds(1, 5), Measured::Share(0.827, 0.951)],
    },
];

/// The fleets whose members differ or change beside the processes: one row
/// per case of [`PARTS_PROCESSES`] and figure, the simulated runs' mean and
/// range.
#[must_use]
pub fn parts_table(params: &LimitedParams, runs: &[PartsRun]) -> String {
    let mut lines = Vec::new();
    for measured in &PARTS_PROCESSES {
        let figures: Vec<Vec<Figure>> = runs
            .iter()
            .filter(|r| r.scenario == measured.scenario && r.limiters == measured.limiters)
            .map(|r| r.figures(params))
            .collect();
        if figures.is_empty() {
            continue;
        }
        let names = measured.scenario.figure_names(params);
        for (index, (name, &range)) in names.into_iter().zip(measured.figures).enumerate() {
            let of: Vec<Figure> = figures
                .iter()
                .filter_map(|f| f.get(index).copied())
                .collect();
            lines.push(vec![
                measured.scenario.name().to_owned(),
                match measured.limiters {
                    Limiters::Fleet => "fleet",
                    Limiters::PerProcess => "per-process",
                }
                .to_owned(),
                name,
                summary(&of),
                range.text(),
                compare(&of, range),
            ]);
        }
    }
    markdown(
        &[
            "fleet",
            "limiters",
            "figure",
            "sim: mean (range)",
            "processes",
            "sim vs midpoint, within 10%",
        ],
        &[false, false, false, true, true, false],
        &lines,
    )
}

/// The verdict on `figures` (all of one kind) against `measured`: their
/// mean against its midpoint; a run that never got there (seconds) does
/// not match.
fn compare(figures: &[Figure], measured: Measured) -> String {
    let values: Vec<f64> = figures
        .iter()
        .filter_map(|f| match *f {
            Figure::Share(v) => Some(v),
            Figure::Count(n) => Some(n as f64),
            Figure::Seconds(s) => s.map(|s| s as f64),
        })
        .collect();
    if values.is_empty() {
        return "**no**".to_owned();
    }
    let (ratio, matches) = against(spread(&values).0, measured.range());
    verdict(ratio, matches && values.len() == figures.len())
}

/// The mean and range of `figures` (all of one kind).
fn summary(figures: &[Figure]) -> String {
    let shares: Vec<f64> = figures
        .iter()
        .filter_map(|f| match f {
            Figure::Share(v) => Some(*v),
            _ => None,
        })
        .collect();
    let counts: Vec<f64> = figures
        .iter()
        .filter_map(|f| match f {
            Figure::Count(n) => Some(*n as f64),
            _ => None,
        })
        .collect();
    let seconds: Vec<f64> = figures
        .iter()
        .filter_map(|f| match f {
            Figure::Seconds(Some(s)) => Some(*s as f64),
            _ => None,
        })
        .collect();
    let never = figures
        .iter()
        .filter(|f| matches!(f, Figure::Seconds(None)))
        .count();
    if !shares.is_empty() {
        let (mean, min, max) = spread(&shares);
        format!("{} ({}–{})", percent(mean), percent(min), percent(max))
    } else if !counts.is_empty() {
        let (mean, min, max) = spread(&counts);
        format!("{mean:.0} ({min:.0}–{max:.0})")
    } else if seconds.is_empty() {
        format!("never in {never} of {} runs", figures.len())
    } else {
        let (mean, min, max) = spread(&seconds);
        let text = format!("{mean:.1} s ({min:.0}–{max:.0} s)");
        if never == 0 {
            text
        } else {
            format!("{text}; never in {never} of {} runs", figures.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::rate::parts::run_scenario;

    #[test]
    fn figures_match_within_a_tenth_of_the_midpoint() {
        assert_eq!(against(99.0, (90.0, 100.0)), (99.0 / 95.0, true));
        assert!(!against(80.0, (90.0, 100.0)).1);
        assert_eq!(spread(&[1.0, 3.0, 2.0]), (2.0, 1.0, 3.0));
    }

    #[test]
    fn figures_are_summed_up_by_kind() {
        let shares = [Figure::Share(0.9), Figure::Share(1.0)];
        assert_eq!(summary(&shares), "95.0% (90.0%–100.0%)");
        assert_eq!(summary(&[Figure::Count(3), Figure::Count(8)]), "6 (3–8)");
        let seconds = [Figure::Seconds(Some(1)), Figure::Seconds(Some(2))];
        assert_eq!(summary(&seconds), "1.5 s (1–2 s)");
        let late = [Figure::Seconds(Some(1)), Figure::Seconds(None)];
        assert_eq!(summary(&late), "1.0 s (1–1 s); never in 1 of 2 runs");
        assert_eq!(summary(&[Figure::Seconds(None)]), "never in 1 of 1 runs");
    }

    #[test]
    fn parts_figures_are_compared_by_kind() {
        let shares = [Figure::Share(0.9), Figure::Share(1.0)];
        assert_eq!(compare(&shares, Measured::Share(0.9, 1.1)), "-5% yes");
        assert_eq!(compare(&shares, Measured::Share(0.6, 0.7)), "+46% **no**");
        let counts = [Figure::Count(9), Figure::Count(12)];
        assert_eq!(compare(&counts, Measured::Count(10, 10)), "+5% yes");
        assert_eq!(compare(&counts, Measured::Count(29, 29)), "-64% **no**");
        let seconds = [Figure::Seconds(Some(1)), Figure::Seconds(Some(1))];
        assert_eq!(compare(&seconds, Measured::Seconds(1, 1)), "+0% yes");
        // A run that never got back does not match; nor does any against 0 s
        // but 0 s.
        let late = [Figure::Seconds(Some(1)), Figure::Seconds(None)];
        assert_eq!(compare(&late, Measured::Seconds(1, 1)), "+0% **no**");
        assert_eq!(
            compare(&[Figure::Seconds(None)], Measured::Seconds(1, 1)),
            "**no**"
        );
        assert_eq!(compare(&seconds, Measured::Seconds(0, 0)), "**no**");
        assert_eq!(
            compare(&[Figure::Seconds(Some(0))], Measured::Seconds(0, 0)),
            "yes"
        );
        // Printed as what they are.
        assert_eq!(Measured::Share(0.006, 0.008).text(), "0.6%–0.8%");
        assert_eq!(Measured::Count(10, 19).text(), "10–19");
        assert_eq!(Measured::Seconds(1, 5).text(), "1–5 s");
    }

    #[test]
    fn the_parts_measured_are_the_models_figures() {
        let params = LimitedParams {
            duration: 10.0,
            ..LimitedParams::default()
        };
        for measured in &PARTS_PROCESSES {
            let run = run_scenario(&params, measured.scenario, measured.limiters, 1);
            let figures = run.figures(&params);
            assert_eq!(figures.len(), measured.figures.len(), "{measured:?}");
            for (figure, range) in figures.iter().zip(measured.figures) {
                let same = matches!(
                    (figure, range),
                    (Figure::Share(_), Measured::Share(..))
                        | (Figure::Count(_), Measured::Count(..))
                        | (Figure::Seconds(_), Measured::Seconds(..))
                );
                assert!(same, "{measured:?}: {figure:?}");
                let (low, high) = range.range();
                assert!(low <= high, "{measured:?}");
            }
        }
        // Each scenario under each limiters, once.
        for scenario in Scenario::ALL {
            for limiters in [Limiters::Fleet, Limiters::PerProcess] {
                let of = PARTS_PROCESSES
                    .iter()
                    .filter(|m| m.scenario == scenario && m.limiters == limiters)
                    .count();
                assert_eq!(of, 1, "{scenario:?} {limiters:?}");
            }
        }
    }
}
