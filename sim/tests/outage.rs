//! The outage model: determinism, what no retries, the quota and naive
//! retries must do, and the time-to-recover definition. Small parameters so
//! the debug build stays fast.

use rebound_sim::driver::timeline::Timeline;
use rebound_sim::driver::{Answer, Latency, Record};
use rebound_sim::outage::{OutageParams, OutageStrategy, run_strategy, time_to_recover};

/// 5 clients, 50 requests/s against 62.5 attempts/s (the default's 80%),
/// down from 5 s to 10 s, observed until 25 s.
fn small() -> OutageParams {
    OutageParams {
        clients: 5,
        rate: 50.0,
        capacity: 62.5,
        burst: 6.0,
        outage_start: 5.0,
        outage: 5.0,
        after: 15.0,
        ..OutageParams::default()
    }
}

/// No network delay: an attempt is answered in the bin it is sent in, so
/// per-bin counts can be compared exactly.
const INSTANT: Latency = Latency { mean: 0.0, sd: 0.0 };

#[test]
fn same_seed_same_record_other_seed_other_record() {
    for answer in [Answer::Unavailable, Answer::SlowDown] {
        let params = OutageParams {
            outage_answer: answer,
            ..small()
        };
        for strategy in OutageStrategy::ALL {
            let a = run_strategy(&params, strategy, 1);
            assert_eq!(a, run_strategy(&params, strategy, 1), "{strategy:?}");
            assert_ne!(a.record, run_strategy(&params, strategy, 2).record);
        }
    }
}

#[test]
fn without_retries_each_request_is_one_attempt_and_fails_while_the_service_is_down() {
    let params = OutageParams {
        latency: INSTANT,
        ..small()
    };
    let run = run_strategy(&params, OutageStrategy::NoRetries, 3);
    assert_eq!(run.row.amplification, 1.0);
    assert_eq!(run.row.amplification_outage, 1.0);
    let bins = run.record.timeline.bins(0);
    for (second, bin) in bins.iter().enumerate() {
        assert_eq!(bin.attempts, bin.arrivals, "second {second}");
        let down = (5..10).contains(&second);
        if down {
            assert!(bin.attempts > 0, "second {second}");
            assert_eq!(bin.successes, 0, "second {second}");
            assert_eq!(bin.failed, bin.attempts, "second {second}");
            assert_eq!(bin.gave_up, bin.attempts, "second {second}");
        } else {
            assert!(bin.successes > 0, "second {second}");
        }
    }
    assert_eq!(run.row.time_to_recover, Some(0.0));
}

#[test]
fn standard_retries_during_a_long_outage_are_bounded_by_the_quota() {
    // 4 clients x 10 requests/s for 60 s would want 2 retries each: 4800.
    let params = OutageParams {
        clients: 4,
        rate: 40.0,
        outage: 60.0,
        after: 5.0,
        ..small()
    };
    // Each client's quota of 500 pays for 100 retries at 5 each, and no
    // success refunds anything while the service is down.
    let bound = 4 * 500 / 5;
    for strategy in [OutageStrategy::Standard, OutageStrategy::Adaptive] {
        let run = run_strategy(&params, strategy, 4);
        let window = run.record.timeline.window(0, 5.0, 65.0);
        let retries = window.attempts - window.arrivals;
        assert!(
            (bound - 20..=bound).contains(&retries),
            "{strategy:?}: {retries} retries"
        );
    }
    // Naive fixed retries have no quota: four retries per request.
    let naive = run_strategy(&params, OutageStrategy::Naive, 4);
    let window = naive.record.timeline.window(0, 6.0, 60.0);
    assert!(window.attempts > 4 * window.arrivals, "{window:?}");
}

#[test]
fn naive_retries_keep_the_recovered_service_down_and_quota_bound_retries_do_not() {
    let params = OutageParams {
        clients: 20,
        rate: 200.0,
        capacity: 250.0,
        burst: 25.0,
        after: 30.0,
        ..small()
    };
    let ttr = |strategy| run_strategy(&params, strategy, 5).row.time_to_recover;
    let naive = ttr(OutageStrategy::Naive).expect("recovers within 30 s");
    assert!(naive >= 5.0, "naive recovered after {naive} s");
    for strategy in [OutageStrategy::NoRetries, OutageStrategy::Standard] {
        assert_eq!(ttr(strategy), Some(0.0), "{strategy:?}");
    }
    // Adaptive's limiter, turned on by the SlowDown answers to the retried
    // backlog, holds requests back for a while (how long varies with the
    // seed); it still recovers.
    assert!(ttr(OutageStrategy::Adaptive).is_some());
}

#[test]
fn adaptive_holds_requests_back_through_a_throttling_outage() {
    let params = OutageParams {
        outage_answer: Answer::SlowDown,
        ..small()
    };
    let adaptive = run_strategy(&params, OutageStrategy::Adaptive, 6).row;
    let standard = run_strategy(&params, OutageStrategy::Standard, 6).row;
    // Its rate limiter slows every client down once throttled: fewer
    // attempts than requests while down; the requests it holds back wait in
    // its line, some of them still there at the end.
    assert!(adaptive.amplification_outage < 0.5, "{adaptive:?}");
    assert!(standard.amplification_outage > 2.0, "{standard:?}");
    assert!(
        adaptive.unfinished > standard.unfinished,
        "{adaptive:?} {standard:?}"
    );
}

fn record(successes_and_arrivals: &[(u64, u64)]) -> Record {
    let mut timeline = Timeline::new(1, 1.0, successes_and_arrivals.len() as f64);
    for (second, &(successes, arrivals)) in successes_and_arrivals.iter().enumerate() {
        let bin = timeline.at(0, second as f64).expect("in range");
        bin.successes = successes;
        bin.arrivals = arrivals;
    }
    Record {
        timeline,
        unfinished: 0,
    }
}

#[test]
fn time_to_recover_is_where_the_final_healthy_streak_starts() {
    // Recovery at 2 s; healthy (>= 90%) from 5 s on, with a dip at 4 s.
    let r = record(&[
        (0, 10),
        (0, 10),
        (5, 10),
        (9, 10),
        (8, 10),
        (9, 10),
        (10, 10),
    ]);
    assert_eq!(time_to_recover(&r, 2.0, 0.9), Some(3.0));
    // A recovery between bins counts from the next whole bin.
    assert_eq!(time_to_recover(&r, 1.5, 0.9), Some(3.0));
    // Unhealthy at the end: never recovered.
    let r = record(&[(10, 10), (10, 10), (1, 10)]);
    assert_eq!(time_to_recover(&r, 0.0, 0.9), None);
    // Healthy at once.
    assert_eq!(
        time_to_recover(&record(&[(9, 10), (10, 10)]), 0.0, 0.9),
        Some(0.0)
    );
}

#[test]
fn steady_recovers_from_a_503_outage_sooner_than_botocores_algorithm() {
    // Each client's quota outlasts the outage, so the retried backlog meets
    // the recovered service; its SlowDown answers switch the limiters on.
    // botocore's algorithm cuts once per throttle, several times per client
    // in the first round trips, and holds the clients below their demand
    // for seconds; steady cuts once per event.
    let params = OutageParams {
        clients: 20,
        rate: 200.0,
        capacity: 250.0,
        burst: 25.0,
        after: 30.0,
        ..small()
    };
    // Over 6 seeds (the metric takes the last unhealthy second, so a late
    // dip counts in full): botocore's algorithm takes 2 s or more in each,
    // steady 1 s or less in most.
    let mut steady_at_once = 0;
    for seed in 1..=6 {
        let ttr = |strategy| run_strategy(&params, strategy, seed).row.time_to_recover;
        let botocore = ttr(OutageStrategy::Adaptive).expect("recovers");
        let steady = ttr(OutageStrategy::Steady).expect("recovers");
        assert!(botocore >= 2.0, "seed {seed}: {botocore} s");
        if steady <= 1.0 {
            steady_at_once += 1;
        }
    }
    assert!(steady_at_once >= 5, "{steady_at_once} of 6");
}

#[test]
fn steady_finds_the_capacity_again_after_a_throttling_outage() {
    // 10 s of SlowDown answers cut every limiter far below its client's
    // demand (8/s each). Steady keeps botocore's curve below 1 request/s,
    // so it climbs back in seconds; scaled to such a low rate, its gentle
    // curve took the rest of the run (58.6% of the requests served).
    let params = OutageParams {
        clients: 10,
        rate: 80.0,
        capacity: 100.0,
        burst: 10.0,
        outage_answer: Answer::SlowDown,
        ..OutageParams::default()
    };
    let steady = run_strategy(&params, OutageStrategy::Steady, 12).row;
    let botocore = run_strategy(&params, OutageStrategy::Adaptive, 12).row;
    assert!(steady.goodput > 0.85, "{steady:?}");
    assert!(botocore.goodput > 0.9, "{botocore:?}");
}
