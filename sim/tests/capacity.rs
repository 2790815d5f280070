//! The capacity model: determinism, adaptive mode against standard mode,
//! per-table limiters, and the variant's effect. Small rates and short runs
//! so the debug build stays fast.

use rebound_sim::capacity::{CapacityParams, CapacityStrategy, Case, run_load, run_partitioned};
use rebound_sim::driver::Latency;

fn params(duration: f64) -> CapacityParams {
    CapacityParams {
        duration,
        startup: duration / 3.0,
        ..CapacityParams::default()
    }
}

fn case(capacity: f64, clients: usize) -> Case {
    Case {
        capacity,
        clients,
        strategies: Vec::new(),
    }
}

#[test]
fn same_seed_same_record_other_seed_other_record() {
    let params = params(20.0);
    let case = case(20.0, 2);
    for strategy in CapacityStrategy::SINGLE_TABLE {
        let a = run_load(&params, &case, 3.0, strategy, 1);
        assert_eq!(
            a,
            run_load(&params, &case, 3.0, strategy, 1),
            "{strategy:?}"
        );
        assert_ne!(a.record, run_load(&params, &case, 3.0, strategy, 2).record);
    }
}

#[test]
fn adaptive_sends_far_fewer_throttled_attempts_than_standard_at_about_the_same_goodput() {
    let params = params(60.0);
    let case = case(50.0, 1);
    for load in [2.0, 4.0] {
        let standard = run_load(&params, &case, load, CapacityStrategy::Standard, 3).row;
        let adaptive = run_load(&params, &case, load, CapacityStrategy::AdaptiveFailFast, 3).row;
        // Standard fills the service to R by brute force: most attempts are
        // throttled, and more of them the higher the load.
        assert!(standard.steady.goodput > 0.97, "{standard:?}");
        assert!(standard.steady.throttled > 0.4, "{standard:?}");
        // Adaptive holds its sends near R.
        assert!(adaptive.steady.throttled < 0.05, "{adaptive:?}");
        assert!(
            adaptive.steady.throttled * 10.0 < standard.steady.throttled,
            "{adaptive:?} {standard:?}"
        );
        assert!(adaptive.steady.goodput > 0.85, "{adaptive:?}");
        assert!(adaptive.steady.attempts_per_success < 1.1, "{adaptive:?}");
    }
}

#[test]
fn adaptive_ramps_up_from_its_first_throttle_as_cubic_allows() {
    // The limiter starts at the measured rate at the first throttle, 0 this
    // early, and grows as 0.4 t^3: R = 100 takes about (100 / 0.4)^(1/3) =
    // 6.3 s, R = 400 about 10 s.
    let params = params(30.0);
    for (capacity, earliest, latest) in [(100.0, 4.0, 8.0), (400.0, 8.0, 12.0)] {
        let run = run_load(
            &params,
            &case(capacity, 1),
            2.0,
            CapacityStrategy::AdaptiveFailFast,
            4,
        );
        let ramp = run.row.ramp.expect("reaches 90% of R");
        assert!(
            (earliest..=latest).contains(&ramp),
            "R {capacity}: {ramp} s"
        );
        let standard = run_load(
            &params,
            &case(capacity, 1),
            2.0,
            CapacityStrategy::Standard,
            4,
        );
        assert_eq!(standard.row.ramp, Some(0.0));
    }
}

#[test]
fn per_table_limiters_keep_the_cool_tables_goodput() {
    let params = CapacityParams {
        partitioned: case(50.0, 1),
        ..params(45.0)
    };
    let runs = run_partitioned(&params, 5, || {});
    let served = |strategy| {
        runs.iter()
            .find(|r| r.row.strategy == strategy)
            .map(|r| r.row.cool.served)
            .expect("run")
    };
    // The cool table never throttles, so standard mode and per-table
    // limiters serve all of it; one limiter for both tables holds it to its
    // share of the hot table's rate.
    for strategy in [
        CapacityStrategy::Standard,
        CapacityStrategy::AdaptivePerTable,
        CapacityStrategy::AdaptiveFailFastPerTable,
    ] {
        assert!(
            served(strategy) > 0.97,
            "{strategy:?}: {}",
            served(strategy)
        );
    }
    assert!(served(CapacityStrategy::AdaptiveFailFast) < 0.7);
    assert!(served(CapacityStrategy::Adaptive) < 0.7);
}

#[test]
fn one_cut_per_event_keeps_the_rate_up_when_many_attempts_are_in_flight() {
    // 100 ms round trips at R = 300: some 30 attempts in flight when the
    // service's bucket runs dry, each throttled, each cutting the rate.
    let params = CapacityParams {
        latency: Latency {
            mean: 0.05,
            sd: 0.005,
        },
        ..params(90.0)
    };
    let case = case(300.0, 1);
    let botocore = run_load(&params, &case, 2.0, CapacityStrategy::AdaptiveFailFast, 6).row;
    let variant = run_load(&params, &case, 2.0, CapacityStrategy::OneCutFailFast, 6).row;
    assert!(botocore.steady.goodput < 0.85, "{botocore:?}");
    assert!(variant.steady.goodput > 0.9, "{variant:?}");
    assert!(variant.steady.throttled < 0.05, "{variant:?}");
}

#[test]
fn steady_holds_many_clients_throttles_down() {
    // 30 clients share R = 100: each sends about 3.3/s. botocore's constant
    // brings each back to its throttled rate in about 1.35 s, so each is
    // throttled about once every 1.35 s; the gentle shape takes 8 s.
    let params = params(90.0);
    let case = case(100.0, 30);
    let one_cut = run_load(&params, &case, 3.0, CapacityStrategy::OneCut, 4).row;
    let gentle = run_load(&params, &case, 3.0, CapacityStrategy::Steady, 4).row;
    assert!(one_cut.steady.throttled > 0.1, "{one_cut:?}");
    assert!(gentle.steady.throttled < 0.05, "{gentle:?}");
    assert!(gentle.steady.goodput > 0.95, "{gentle:?}");
}

#[test]
fn steady_holds_a_high_rate_where_botocores_algorithm_does_not() {
    // One client at R = 1000 (20 ms round trips, some 20 attempts in
    // flight), offered 2R, observed for 40 s after a 30 s start-up (the
    // climb to R takes about 13 s).
    let params = CapacityParams {
        duration: 70.0,
        startup: 30.0,
        ..params(70.0)
    };
    let case = case(1000.0, 1);
    let botocore = run_load(&params, &case, 2.0, CapacityStrategy::AdaptiveFailFast, 7).row;
    let steady = run_load(&params, &case, 2.0, CapacityStrategy::SteadyFailFast, 7).row;
    assert!(botocore.steady.goodput < 0.8, "{botocore:?}");
    assert!(steady.steady.goodput >= 0.95, "{steady:?}");
    assert!(steady.steady.throttled < 0.01, "{steady:?}");
}
