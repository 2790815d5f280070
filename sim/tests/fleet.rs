//! The fleet experiment: the lease model never lets the pool, the leases and
//! what they owe add up to more than the capacity, whatever the
//! interleaving; a fleet of 100
//! retries within the capacity plus its refunds where per-process quotas
//! retry a hundred times as much; and the same seed gives the same rows.

use std::sync::Arc;

use rebound_runtime::QuotaStore as _;
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};
use rebound_sim::driver::{Background, Timers};
use rebound_sim::fleet::lease::Lease;
use rebound_sim::fleet::quota::{QuotaKind, RETRY_COST};
use rebound_sim::fleet::refresher::Refreshers;
use rebound_sim::fleet::{FleetParams, LeaseSettings, run_case, run_experiment};
use rebound_sim::outage::OutageParams;
use rebound_sim::report;

/// A draw in `0..n`.
fn below(random: &SeededRandom, n: u32) -> u32 {
    ((random.unit() * f64::from(n)) as u32).min(n - 1)
}

/// Random fleets (capacity, lease size, processes, round trip) under random
/// sequences of acquisitions, refunds and store events: after every step
/// the store holds at most the capacity (`available + held_total +
/// owed_total`, the prelude's invariants), each balance stays within what
/// its lease holds, and the tokens spent never exceed the capacity plus the
/// refunds credited.
#[test]
fn pool_and_leases_never_exceed_the_capacity() {
    let (mut spent, mut refunds_taken) = (0, 0);
    for seed in 0..200_u64 {
        let random = SeededRandom::new(seed);
        let settings = LeaseSettings {
            capacity: 10 + below(&random, 200),
            lease_size: 1 + below(&random, 60),
            refresh_period: 0.05 + random.unit(),
            round_trip: 0.001 + random.unit() * 0.05,
        };
        let processes = 1 + below(&random, 12) as usize;
        let leases: Vec<Arc<Lease>> = (0..processes)
            .map(|_| Arc::new(Lease::new(settings.capacity, settings.low_water())))
            .collect();
        let starts: Vec<f64> = (0..processes).map(|_| random.unit() * 0.1).collect();
        let mut refreshers = Refreshers::new(settings, &leases, &starts, &[], seed);
        let mut set = Timers::default();
        refreshers.start(&mut set);
        let mut timers: Vec<(f64, usize)> = set.drain().collect();
        let mut now = 0.0;
        for step in 0..2000 {
            if below(&random, 3) == 0 {
                // The earliest timer (first set on ties) goes off.
                let Some(next) = timers
                    .iter()
                    .enumerate()
                    .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0))
                    .map(|(i, _)| i)
                else {
                    break;
                };
                let (at, key) = timers.remove(next);
                now = at;
                refreshers.fire(now, key, &mut set);
            } else {
                let lease = &leases[below(&random, processes as u32) as usize];
                let amount = below(&random, 15);
                if below(&random, 2) == 0 {
                    let _ = lease.try_acquire(amount);
                } else {
                    lease.release(amount);
                }
            }
            refreshers.after_event(now, &mut set);
            timers.extend(set.drain());

            let pool = refreshers.pool();
            let context = format!("seed {seed}, step {step}, {settings:?}");
            assert!(
                pool.available() + pool.held_total() + pool.owed_total() <= settings.capacity,
                "{context}: {} + {} + {}",
                pool.available(),
                pool.held_total(),
                pool.owed_total()
            );
            let held: u32 = (0..processes).map(|i| pool.held(i)).sum();
            assert_eq!(held, pool.held_total(), "{context}");
            let owed: u32 = (0..processes).map(|i| pool.owed(i)).sum();
            assert_eq!(owed, pool.owed_total(), "{context}");
            for lease in &leases {
                let counts = lease.counts();
                assert!(counts.balance <= counts.held, "{context}: {counts:?}");
                assert!(counts.held <= settings.capacity, "{context}: {counts:?}");
                assert!(counts.pending <= settings.capacity, "{context}: {counts:?}");
            }
            let stats = refreshers.stats();
            assert!(
                stats.spent <= u64::from(settings.capacity) + stats.restored + stats.refunds_taken,
                "{context}: {stats:?}"
            );
        }
        let stats = refreshers.stats();
        spent += stats.spent;
        refunds_taken += stats.refunds_taken;
    }
    // The sequences did spend, and reports did refill pools.
    assert!(spent > 0 && refunds_taken > 0, "{spent} {refunds_taken}");
}

/// A shorter run than the default (5 s after the recovery).
fn short() -> FleetParams {
    FleetParams {
        processes: vec![100],
        outage: OutageParams {
            after: 5.0,
            ..OutageParams::default()
        },
        lease: LeaseSettings::default(),
    }
}

#[test]
fn a_fleet_of_100_retries_within_the_capacity_and_its_refunds() {
    let params = short();
    let capacity = u64::from(params.lease.capacity);
    let cost = u64::from(RETRY_COST);
    let fleet = run_case(&params, 100, QuotaKind::Fleet, 12);
    let [_, _, end] = fleet.stats.expect("the fleet quota's counts");
    // Every retry sent paid at least RETRY_COST from the fleet's tokens,
    // which only refunds add to.
    let retries = fleet
        .record
        .timeline
        .window(0, 0.0, params.outage.end())
        .retries;
    assert!(retries > 0);
    assert!(
        retries * cost <= end.spent && end.spent <= capacity + end.restored + end.refunds_taken,
        "{retries} retries, {end:?}"
    );
    // During the outage: capacity / 5 plus what the refunds credited paid for.
    let row = fleet.row;
    let refunds = row.refunds_outage.expect("fleet counts");
    assert!(row.retries_outage * cost <= capacity + refunds, "{row:?}");
    // Per-process quotas: each of the 100 its own capacity.
    let local = run_case(&params, 100, QuotaKind::PerProcess, 12).row;
    assert!(
        local.retries_outage > 20 * row.retries_outage,
        "{local:?} {row:?}"
    );
}

#[test]
fn the_same_seed_gives_the_same_rows() {
    let params = FleetParams {
        processes: vec![1, 7],
        outage: OutageParams {
            rate: 100.0,
            capacity: 150.0,
            burst: 15.0,
            outage_start: 2.0,
            outage: 3.0,
            after: 3.0,
            ..OutageParams::default()
        },
        lease: LeaseSettings {
            capacity: 50,
            lease_size: 10,
            refresh_period: 0.5,
            round_trip: 0.002,
        },
    };
    let rows = |seed| -> Vec<_> {
        run_experiment(&params, seed, || {})
            .into_iter()
            .map(|run| run.row)
            .collect()
    };
    let first = rows(3);
    assert_eq!(first.len(), 4);
    assert_eq!(
        first
            .iter()
            .map(|r| (r.processes, r.quota))
            .collect::<Vec<_>>(),
        [
            (1, QuotaKind::PerProcess),
            (1, QuotaKind::Fleet),
            (7, QuotaKind::PerProcess),
            (7, QuotaKind::Fleet)
        ]
    );
    assert_eq!(first, rows(3));
    assert_eq!(report::fleet::csv(&first), report::fleet::csv(&rows(3)));
    assert_ne!(first, rows(4));
}
