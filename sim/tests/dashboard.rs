//! The dashboard run: what the observer's instruments show of a throttling
//! outage, one sample per virtual second.

use rebound_sim::dashboard::{DashboardParams, run};

#[test]
fn the_instruments_show_the_outage() {
    let params = DashboardParams::default();
    let samples = run(&params, 12);
    assert_eq!(samples.len(), params.end() as usize);
    let at = |t: f64| samples.iter().find(|s| s.t == t).unwrap();
    // Before the outage: served, no throttles, the limiter off, the quota full.
    let before = at(params.outage_start);
    assert_eq!(before.throttled, 0);
    assert_eq!(before.fill_rate, None);
    assert_eq!(before.quota, 500);
    // During it: throttles, the limiter on and cut well below the offered rate, the quota spent.
    let during = at(params.outage_start + 5.0);
    assert!(during.throttled > 0, "{during:?}");
    assert!(
        during
            .fill_rate
            .is_some_and(|rate| rate < params.rate / 2.0),
        "{during:?}"
    );
    assert!(during.quota < 500, "{during:?}");
    // Retries happened, and requests gave up.
    assert!(samples.iter().map(|s| s.retries).sum::<u64>() > 0);
    assert!(samples.iter().map(|s| s.give_ups).sum::<u64>() > 0);
    // Recovered: the last seconds serve about the offered rate without throttles, the quota refilled.
    let last = samples.last().unwrap();
    assert_eq!(last.throttled, 0, "{last:?}");
    assert!(last.attempts as f64 > params.rate * 0.8, "{last:?}");
    assert_eq!(last.quota, 500, "{last:?}");
}

#[test]
fn the_same_seed_gives_the_same_samples() {
    let params = DashboardParams::default();
    assert_eq!(run(&params, 3), run(&params, 3));
}
