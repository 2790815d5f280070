//! The fleet rate limiter experiment: the modelled store cuts at most once
//! per window and keeps the sum of its members' rates and the totals of
//! their demands, so that the members' ceilings (the real `member_rate`)
//! share the fleet's rate: what the members would send under them adds up
//! to it, or to less when they ask for less; the same seed gives the same
//! rows.

use rebound_redis::{Demand, FleetRateState, member_rate};
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};
use rebound_runtime::rate_limiter::CubicShape;
use rebound_sim::fleet::rate::store::UNBOUNDED;
use rebound_sim::fleet::rate::{
    LimiterStore, RateParams, RateVariant, SharerSettings, run_experiment,
};
use rebound_sim::report;

/// A draw in `0..n`.
fn below(random: &SeededRandom, n: u64) -> u64 {
    ((random.unit() * n as f64) as u64).min(n - 1)
}

/// The fleet's rate in `state`: the curve from its last cut, or the curves
/// of the members it cut from an equal share of the cut rate when they are
/// higher, at most twice what it measures.
fn fleet_rate(state: &FleetRateState) -> f64 {
    let w_max = f64::from(state.w_max_milli) / 1000.0;
    let since = f64::from(state.since_cut_ms) / 1000.0;
    let sum = f64::from(state.sum_milli) / 1000.0;
    let cut = f64::from(match state.cut_members {
        0 => state.members.max(1),
        n => n,
    });
    let on_their_own = cut * CubicShape::BOTOCORE.rate_after(w_max / cut, since);
    CubicShape::BOTOCORE
        .rate_after(w_max, since)
        .max(on_their_own)
        .min(2.0 * sum)
}

/// A member's demand as the store keeps it (milli-requests per second, or
/// [`UNBOUNDED`]).
fn demand(milli: u32) -> Demand {
    if milli == UNBOUNDED {
        Demand::Unbounded
    } else {
        Demand::Rate(f64::from(milli) / 1000.0)
    }
}

/// The demand and ceiling of every member of `store` at `now_ms`, each
/// ceiling computed from the store's state and the member's demand as its
/// task computes it.
fn ceilings(store: &LimiterStore, now_ms: u64) -> (FleetRateState, Vec<(Demand, Option<f64>)>) {
    let state = store.state(now_ms);
    let ceilings = store
        .demands()
        .iter()
        .flatten()
        .map(|&milli| {
            let demand = demand(milli);
            (demand, member_rate(CubicShape::BOTOCORE, &state, demand))
        })
        .collect();
    (state, ceilings)
}

/// The store's sum and totals are its members' rates and demands added up;
/// the ceilings share the fleet's rate (none of them held at the 0.5/s
/// floor): with no member limited they add up to it, and what the members
/// send (each its demand up to its ceiling) to it or to the demands when
/// those ask for less; with some limited, the limited members are held at
/// one level, at least an equal share, and what every member sends adds up
/// to the fleet's rate.
/// Returns whether they were checked.
fn check_shares(store: &LimiterStore, now_ms: u64) -> bool {
    let (state, ceilings) = ceilings(store, now_ms);
    let rates: u64 = store.rates().iter().flatten().map(|&r| u64::from(r)).sum();
    assert_eq!(
        u64::from(state.sum_milli),
        rates,
        "the sum is the members' rates"
    );
    let demands: Vec<u32> = store.demands().iter().flatten().copied().collect();
    let asked: u64 = demands
        .iter()
        .filter(|&&d| d != UNBOUNDED)
        .map(|&d| u64::from(d))
        .sum();
    let unbounded = demands.iter().filter(|&&d| d == UNBOUNDED).count();
    assert_eq!(
        (u64::from(state.asked_milli), state.unbounded as usize),
        (asked, unbounded),
        "the totals are the members' demands"
    );
    assert_eq!(demands.len(), state.members as usize);
    if state.cuts == 0 {
        assert!(
            ceilings.iter().all(|(_, c)| c.is_none()),
            "no ceiling before a cut"
        );
        return false;
    }
    let ceilings: Vec<(Demand, f64)> = ceilings
        .into_iter()
        .map(|(d, c)| (d, c.expect("a ceiling")))
        .collect();
    if ceilings.iter().any(|&(_, c)| c <= 0.5) {
        return false;
    }
    let expected = fleet_rate(&state);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.max(1.0);
    let total: f64 = ceilings.iter().map(|&(_, c)| c).sum();
    let sent: f64 = ceilings
        .iter()
        .map(|&(d, c)| match d {
            Demand::Rate(own) => own.min(c),
            Demand::Unbounded => c,
        })
        .sum();
    let asked = f64::from(state.asked_milli) / 1000.0;
    if state.unbounded == 0 {
        assert!(
            close(total, expected),
            "{total} against {expected}: {state:?}"
        );
        assert!(
            close(sent, asked.min(expected)),
            "{sent} sent against {asked} asked of {expected}: {state:?}"
        );
    } else {
        let level = ceilings
            .iter()
            .find(|(d, _)| *d == Demand::Unbounded)
            .map(|&(_, c)| c)
            .expect("a limited member");
        assert!(
            ceilings
                .iter()
                .all(|&(d, c)| d != Demand::Unbounded || c == level),
            "the limited members at one level: {ceilings:?}"
        );
        let equal = expected / f64::from(state.members);
        assert!(level >= equal * (1.0 - 1e-9), "{level} below {equal}");
        assert!(
            close(sent, expected),
            "{sent} sent against {expected}: {state:?}"
        );
    }
    true
}

/// Random members calling at random times with random rates, demands and
/// throttles, and now and then leaving: cuts are a window apart or more,
/// each from the sum of the rates then among the members then, and after
/// every call the store's totals are its members' demands and the members'
/// ceilings share the fleet's rate ([`check_shares`]).
#[test]
fn the_store_cuts_once_per_window_and_the_shares_add_up() {
    let mut checked = 0;
    for seed in 0..100_u64 {
        let random = SeededRandom::new(seed);
        let members = 1 + below(&random, 30) as usize;
        let window_ms = 100 + below(&random, 10_000);
        let ttl_ms = window_ms * 3 / 2;
        let mut store = LimiterStore::new();
        let mut now_ms = 0;
        for _ in 0..500 {
            now_ms += below(&random, window_ms / 4 + 1);
            let id = below(&random, members as u64) as usize;
            let rate = below(&random, 2_000_000) as u32;
            let demand = if below(&random, 3) == 0 {
                UNBOUNDED
            } else {
                below(&random, 2_000_000) as u32
            };
            let throttles = if below(&random, 4) == 0 {
                1 + below(&random, 5) as u32
            } else {
                0
            };
            // One call in ten leaves.
            let call_ttl_ms = if below(&random, 10) == 0 { 0 } else { ttl_ms };
            let cuts_before = store.cuts().len();
            let reply = store.call(now_ms, id, rate, throttles, call_ttl_ms, window_ms, demand);
            if store.cuts().len() > cuts_before {
                assert!(throttles > 0 && call_ttl_ms > 0);
                assert_eq!(u64::from(reply.w_max_milli), u64::from(reply.sum_milli));
                assert_eq!(reply.since_cut_ms, 0);
                assert_eq!(reply.cut_members, reply.members);
            }
            if call_ttl_ms == 0 {
                assert_eq!(store.rates().get(id).copied().flatten(), None);
            }
            checked += usize::from(check_shares(&store, now_ms));
        }
        for pair in store.cuts().windows(2) {
            assert!(pair[1].at_ms - pair[0].at_ms >= window_ms, "{pair:?}");
        }
    }
    assert!(checked > 10_000, "{checked} states checked");
}

fn small() -> RateParams {
    RateParams {
        processes: vec![1, 4],
        variants: RateVariant::ALL.to_vec(),
        capacity: 40.0,
        duration: 30.0,
        startup: 10.0,
        sharer: SharerSettings {
            refresh_period: 1.0,
            ..SharerSettings::default()
        },
        ..RateParams::default()
    }
}

/// A small fleet through the whole experiment: its store cut at most once
/// per window (two refresh periods), and its members' ceilings share the
/// fleet's rate when the run ends ([`check_shares`]); the same seed gives byte-identical
/// CSV, another seed other rows.
#[test]
fn small_fleets_are_deterministic_and_their_store_keeps_the_rules() {
    let params = small();
    let runs = run_experiment(&params, 5, || {});
    assert_eq!(runs.len(), 8);
    let window_ms = 2_000;
    let mut fleet_runs = 0;
    for run in &runs {
        let Some(store) = &run.store else {
            assert_eq!(run.row.cuts, None);
            continue;
        };
        fleet_runs += 1;
        let cuts = store.cuts();
        assert!(!cuts.is_empty(), "{:?}", run.row);
        for pair in cuts.windows(2) {
            assert!(pair[1].at_ms - pair[0].at_ms >= window_ms, "{pair:?}");
        }
        assert_eq!(store.rates().iter().flatten().count(), run.row.processes);
        check_shares(store, 30_000);
        assert!(run.row.steady.goodput > 0.0 && run.row.steady.goodput <= 1.05);
    }
    assert_eq!(fleet_runs, 4);
    let csv = |runs: &[rebound_sim::fleet::rate::RateRun]| {
        let rows: Vec<_> = runs.iter().map(|r| r.row).collect();
        report::fleet_rate::csv(&rows)
    };
    let again = run_experiment(&params, 5, || {});
    assert_eq!(runs, again);
    assert_eq!(csv(&runs), csv(&again));
    assert_ne!(csv(&runs), csv(&run_experiment(&params, 6, || {})));
}
