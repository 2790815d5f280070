//! Fleets whose members differ or change, throttled from the first request:
//! the last three cases of `redis/tests/limiter_processes.rs` on the model
//! of [`limited`](super::limited) (its service, processes and limiter
//! tasks), each with the fleet limiter and with per-process limiters.
//!
//! # The model
//!
//! Each process is a [`Part`], as the test's children are: it offers its
//! own rate from its own start to its own stop, its requests counted under
//! its group. At its start it makes its strategy (whose time starts then)
//! and, with the fleet limiter, its task, whose first exchange is then; its
//! loops start when that exchange is back (a round trip later), each at a
//! seeded point of its first tick: `max(4, offered / 20)` loops (the test's
//! `task_count`), each on a tick of `loops / offered` seconds. At its stop
//! its loops start no more requests; when the last one's request ends, the
//! process stops, and its task leaves the fleet. The service admits 400
//! requests/s (40 per 100 ms window) from the first request on; 20 s runs.
//!
//! * [`Scenario::Uneven`]: one process offering 620/s (*heavy*) beside nine
//!   offering 20/s each (*light*), for the whole run;
//! * [`Scenario::Joining`]: ten processes offering 80/s each for the whole
//!   run, joined by ten more (*joining*) at 10 s;
//! * [`Scenario::Leaving`]: twenty processes offering 60/s each, ten of which
//!   (*leaving*) stop at 10 s.
//!
//! # Figures
//!
//! As the test computes them ([`PartsRun::figures`]): heavy beside light,
//! over seconds 10 to 20 what the light ones were admitted of the 180/s
//! they ask, what the heavy one was of the 220/s left, what all were of
//! 400/s, and the share of the requests throttled over the run; joining,
//! the requests throttled in the 3 s after the join and the share of 400/s
//! admitted over the last 7 s; leaving, the seconds after the leave until a
//! second's admitted requests reach 90% of 400 (0: the second of the leave
//! itself) and the share of 400/s admitted over the last 8 s.

use std::ops::Range;

use crate::parallel::run_jobs;
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};

use super::Limiters;
use super::limited::{GroupSeconds, LimitedParams, Setup, run_processes};
use crate::driver::Loops;
use crate::rng::mix;

/// What a light process asks for, requests per second.
const LIGHT: f64 = 20.0;
/// What each process of the leaving scenario offers, requests per second.
const LEAVING_OFFERED: f64 = 60.0;

/// One process of a scenario, as the test's `Part`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// Requests per second it offers.
    pub offered: f64,
    /// When it starts, seconds after the go signal.
    pub from: f64,
    /// When its loops stop starting requests, seconds after the go signal.
    pub until: f64,
    /// The group its requests are counted under.
    pub group: &'static str,
}

impl Part {
    /// Its loops: one per 20 requests per second offered, at least 4 (the
    /// test's `task_count`).
    #[must_use]
    pub fn loops(&self) -> usize {
        ((self.offered / 20.0).floor() as usize).max(4)
    }

    /// Seconds between two ticks of one of its loops.
    #[must_use]
    pub fn period(&self) -> f64 {
        self.loops() as f64 / self.offered
    }
}

/// The three fleets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// One heavy process beside nine light ones.
    Uneven,
    /// Ten processes joined by ten more half-way.
    Joining,
    /// Twenty processes of which ten leave half-way.
    Leaving,
}

impl Scenario {
    /// The three, in the test's order.
    pub const ALL: [Self; 3] = [Self::Uneven, Self::Joining, Self::Leaving];

    /// The name in tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Uneven => "one heavy beside nine light",
            Self::Joining => "ten joined by ten more at 10 s",
            Self::Leaving => "twenty of which ten leave at 10 s",
        }
    }

    /// Its processes, in the test's order, against the service of `params`
    /// (offering twice what it admits, or three times when leaving).
    #[must_use]
    pub fn parts(self, params: &LimitedParams) -> Vec<Part> {
        let rate = params.admitted_rate();
        let half = params.duration / 2.0;
        let even = Part {
            offered: 2.0 * rate / 10.0,
            from: 0.0,
            until: params.duration,
            group: "all",
        };
        let (first, second) = match self {
            Self::Uneven => (
                Part {
                    offered: 2.0 * rate - 9.0 * LIGHT,
                    group: "heavy",
                    ..even
                },
                vec![
                    Part {
                        offered: LIGHT,
                        group: "light",
                        ..even
                    };
                    9
                ],
            ),
            Self::Joining => (
                even,
                vec![
                    Part {
                        from: half,
                        group: "joining",
                        ..even
                    };
                    10
                ],
            ),
            Self::Leaving => {
                let staying = Part {
                    offered: LEAVING_OFFERED,
                    group: "staying",
                    ..even
                };
                let leaving = Part {
                    until: half,
                    group: "leaving",
                    ..staying
                };
                (staying, vec![leaving; 10])
            }
        };
        let firsts = if self == Self::Uneven { 1 } else { 10 };
        let mut parts = vec![first; firsts];
        parts.extend(second);
        parts
    }

    /// The names of its figures, in [`PartsRun::figures`] order.
    #[must_use]
    pub fn figure_names(self, params: &LimitedParams) -> Vec<String> {
        let rate = params.admitted_rate();
        let half = (params.duration / 2.0) as usize;
        let end = params.duration as usize;
        match self {
            Self::Uneven => vec![
                format!("light admitted, s {half}–{end}, of {:.0}/s", 9.0 * LIGHT),
                format!(
                    "heavy admitted, s {half}–{end}, of {:.0}/s",
                    rate - 9.0 * LIGHT
                ),
                format!("all admitted, s {half}–{end}, of {rate:.0}/s"),
                "throttled, whole run".to_owned(),
            ],
            Self::Joining => vec![
                format!("requests throttled, s {half}–{}", half + 3),
                format!("admitted, s {}–{end}, of {rate:.0}/s", half + 3),
            ],
            Self::Leaving => vec![
                format!("seconds from {half} s to a second at 90% of {rate:.0}"),
                format!("admitted, s {}–{end}, of {rate:.0}/s", half + 2),
            ],
        }
    }
}

/// One figure of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Figure {
    /// A share: of a rate, or of the requests sent.
    Share(f64),
    /// A number of requests.
    Count(u64),
    /// Whole seconds until something happened; `None`: not within the run.
    Seconds(Option<usize>),
}

/// One run of a scenario: its groups' requests per second.
#[derive(Debug, Clone, PartialEq)]
pub struct PartsRun {
    /// The fleet.
    pub scenario: Scenario,
    /// Whose limits.
    pub limiters: Limiters,
    /// The run's seed.
    pub seed: u64,
    /// Each group's requests per second, in the order the groups first
    /// appear among the parts.
    pub groups: Vec<GroupSeconds>,
}

impl PartsRun {
    /// Requests of `group` (every group: `None`) admitted, per second.
    #[must_use]
    pub fn admitted(&self, group: Option<&str>) -> Vec<u64> {
        self.add_up(group, |g| &g.admitted)
    }

    /// Requests of every group throttled, per second.
    #[must_use]
    pub fn throttled(&self) -> Vec<u64> {
        self.add_up(None, |g| &g.throttled)
    }

    fn add_up(&self, group: Option<&str>, counts: fn(&GroupSeconds) -> &Vec<u64>) -> Vec<u64> {
        let seconds = self.groups.first().map_or(0, |g| g.admitted.len());
        let mut sum = vec![0; seconds];
        for g in &self.groups {
            if group.is_none_or(|name| name == g.group) {
                for (s, n) in sum.iter_mut().zip(counts(g)) {
                    *s += n;
                }
            }
        }
        sum
    }

    /// Requests of `group` admitted per second over `seconds`.
    fn rate(&self, group: Option<&str>, seconds: Range<usize>) -> f64 {
        let n = seconds.len().max(1) as f64;
        self.admitted(group)[seconds].iter().sum::<u64>() as f64 / n
    }

    /// Its figures, as the test computes them, in
    /// [`Scenario::figure_names`] order.
    #[must_use]
    pub fn figures(&self, params: &LimitedParams) -> Vec<Figure> {
        let rate = params.admitted_rate();
        let half = (params.duration / 2.0) as usize;
        let end = params.duration as usize;
        let throttled = self.throttled();
        match self.scenario {
            Scenario::Uneven => {
                let sent: u64 =
                    self.admitted(None).iter().sum::<u64>() + throttled.iter().sum::<u64>();
                vec![
                    Figure::Share(self.rate(Some("light"), half..end) / (9.0 * LIGHT)),
                    Figure::Share(self.rate(Some("heavy"), half..end) / (rate - 9.0 * LIGHT)),
                    Figure::Share(self.rate(None, half..end) / rate),
                    Figure::Share(throttled.iter().sum::<u64>() as f64 / sent.max(1) as f64),
                ]
            }
            Scenario::Joining => vec![
                Figure::Count(throttled[half..half + 3].iter().sum()),
                Figure::Share(self.rate(None, half + 3..end) / rate),
            ],
            Scenario::Leaving => vec![
                Figure::Seconds(
                    self.admitted(None)[half..]
                        .iter()
                        .position(|&n| n as f64 >= 0.9 * rate),
                ),
                Figure::Share(self.rate(None, half + 2..end) / rate),
            ],
        }
    }
}

/// The run of `parts` under `limiters`: loops, starts and joins as the
/// test's children make them, the service throttling from the first
/// request, its phase drawn from `draws`.
fn setup(
    params: &LimitedParams,
    parts: &[Part],
    limiters: Limiters,
    draws: &SeededRandom,
) -> Setup {
    let go = params.lead;
    let mut groups: Vec<&'static str> = Vec::new();
    for part in parts {
        if !groups.contains(&part.group) {
            groups.push(part.group);
        }
    }
    let fleet = limiters == Limiters::Fleet;
    // The loops start once the first exchange is back.
    let lag = if fleet { params.sharer.round_trip } else { 0.0 };
    let loops = parts
        .iter()
        .map(|part| Loops {
            tasks: part.loops(),
            period: part.period(),
            start: go + part.from + lag,
            spread: part.period(),
            until: go + part.until,
            table: groups.iter().position(|&g| g == part.group).unwrap_or(0),
        })
        .collect();
    let starts: Vec<f64> = parts.iter().map(|part| go + part.from).collect();
    Setup {
        loops,
        groups,
        joins: fleet.then(|| starts.clone()),
        starts,
        phase: draws.unit() * params.window,
        throttle_from: 0.0,
    }
}

/// One run of `scenario` under `limiters`, every draw determined by `seed`.
#[must_use]
pub fn run_scenario(
    params: &LimitedParams,
    scenario: Scenario,
    limiters: Limiters,
    seed: u64,
) -> PartsRun {
    let draws = SeededRandom::new(mix(&[seed, 17]));
    let setup = setup(params, &scenario.parts(params), limiters, &draws);
    PartsRun {
        scenario,
        limiters,
        seed,
        groups: run_processes(params, &setup, seed),
    }
}

/// How many runs [`run_experiment`] makes.
#[must_use]
pub fn run_count(params: &LimitedParams) -> usize {
    Scenario::ALL.len() * 2 * params.runs as usize
}

/// Every scenario ([`Scenario::ALL`] order), with the fleet limiter then
/// per-process limiters, seeds from `seed` on ([`runs`](LimitedParams::runs)
/// of each), on every core (rayon; each run is seeded from its own key),
/// calling `progress` after each run.
#[must_use]
pub fn run_experiment(
    params: &LimitedParams,
    seed: u64,
    progress: impl Fn() + Sync,
) -> Vec<PartsRun> {
    let jobs: Vec<(Scenario, Limiters, u64)> = Scenario::ALL
        .iter()
        .flat_map(|&scenario| {
            [Limiters::Fleet, Limiters::PerProcess]
                .into_iter()
                .flat_map(move |limiters| {
                    (0..params.runs).map(move |i| (scenario, limiters, seed + i))
                })
        })
        .collect();
    run_jobs(
        &jobs,
        |&(scenario, limiters, seed)| run_scenario(params, scenario, limiters, seed),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_are_the_tests() {
        let params = LimitedParams::default();
        let offered = |scenario: Scenario| -> Vec<(f64, &str)> {
            scenario
                .parts(&params)
                .iter()
                .map(|p| (p.offered, p.group))
                .collect()
        };
        let uneven = offered(Scenario::Uneven);
        assert_eq!(uneven.len(), 10);
        assert_eq!(uneven[0], (620.0, "heavy"));
        assert!(uneven[1..].iter().all(|&p| p == (20.0, "light")));
        let joining = Scenario::Joining.parts(&params);
        assert_eq!(joining.len(), 20);
        assert!(joining.iter().all(|p| p.offered == 80.0));
        assert!(
            joining[10..]
                .iter()
                .all(|p| p.from == 10.0 && p.until == 20.0)
        );
        let leaving = Scenario::Leaving.parts(&params);
        assert_eq!(leaving.len(), 20);
        assert!(
            leaving[10..]
                .iter()
                .all(|p| p.until == 10.0 && p.group == "leaving")
        );
        // The test's task counts and ticks.
        let part = |offered| Part {
            offered,
            ..joining[0]
        };
        assert_eq!((part(620.0).loops(), part(620.0).period()), (31, 0.05));
        assert_eq!((part(20.0).loops(), part(20.0).period()), (4, 0.2));
        assert_eq!((part(60.0).loops(), part(80.0).loops()), (4, 4));
        assert_eq!(part(16.0).period(), 0.25);
    }

    #[test]
    fn joiners_send_from_their_start_and_leavers_stop() {
        let params = LimitedParams {
            duration: 10.0,
            ..LimitedParams::default()
        };
        for limiters in [Limiters::Fleet, Limiters::PerProcess] {
            let joining = run_scenario(&params, Scenario::Joining, limiters, 3);
            let group = &joining.groups[1];
            assert_eq!(group.group, "joining");
            assert!(group.admitted[..5].iter().all(|&n| n == 0), "{group:?}");
            assert!(group.throttled[..5].iter().all(|&n| n == 0), "{group:?}");
            assert!(group.admitted[6..].iter().all(|&n| n > 0), "{group:?}");
            let leaving = run_scenario(&params, Scenario::Leaving, limiters, 3);
            let group = &leaving.groups[1];
            assert_eq!(group.group, "leaving");
            assert!(group.admitted[..5].iter().all(|&n| n > 0), "{group:?}");
            assert_eq!(group.admitted[8..], [0, 0], "{group:?}");
            // The groups add up.
            let all: u64 = leaving.admitted(None).iter().sum();
            let staying: u64 = leaving.admitted(Some("staying")).iter().sum();
            let left: u64 = leaving.admitted(Some("leaving")).iter().sum();
            assert_eq!(all, staying + left);
            assert_eq!(leaving.figures(&params).len(), 2);
            assert_eq!(
                run_scenario(&params, Scenario::Leaving, limiters, 3),
                leaving
            );
        }
    }
}
