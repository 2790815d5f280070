//! The OCC model: determinism, sanity, and the CSV the issue specifies.
//! Small trial counts so the debug build stays fast.

use std::process::Command;

use rebound_sim::occ::{Algorithm, AttemptNumbering, OccParams, run_experiment, run_trial};
use rebound_sim::report;

fn csv(trials: u64, seed: u64) -> String {
    let rows = run_experiment(&[5, 12], trials, seed, &OccParams::default(), || {});
    report::csv(&rows)
}

#[test]
fn same_seed_same_csv_other_seed_other_csv() {
    assert_eq!(csv(4, 1), csv(4, 1));
    assert_ne!(csv(4, 1), csv(4, 2));
}

#[test]
fn one_client_makes_exactly_one_call_with_every_algorithm() {
    for algorithm in Algorithm::ALL {
        for seed in 0..20 {
            let outcome = run_trial(1, algorithm, &OccParams::default(), seed);
            assert_eq!(outcome.calls, 1, "{algorithm:?}, seed {seed}");
            assert_eq!(outcome.succeeded, 1);
            // Read, read reply, write, write reply: four delays of about 10 ms.
            assert!((20.0..60.0).contains(&outcome.time_ms), "{outcome:?}");
        }
    }
}

#[test]
fn every_client_eventually_succeeds() {
    for algorithm in Algorithm::ALL {
        for clients in [2, 7, 25] {
            let outcome = run_trial(clients, algorithm, &OccParams::default(), 99);
            assert_eq!(outcome.succeeded, clients, "{algorithm:?}");
            assert!(outcome.calls >= clients as u64);
        }
    }
}

fn mean_calls(clients: usize, algorithm: Algorithm) -> f64 {
    let trials = 20;
    let total: u64 = (0..trials)
        .map(|seed| run_trial(clients, algorithm, &OccParams::default(), seed).calls)
        .sum();
    total as f64 / trials as f64
}

#[test]
fn no_backoff_calls_grow_about_quadratically_and_faster_than_with_jitter() {
    let (none_10, none_40) = (
        mean_calls(10, Algorithm::None),
        mean_calls(40, Algorithm::None),
    );
    let (full_10, full_40) = (
        mean_calls(10, Algorithm::FullJitter),
        mean_calls(40, Algorithm::FullJitter),
    );
    // Quadratic growth would be 16x; the reference model gives about 9x.
    assert!(none_40 / none_10 > 7.0, "None: {none_10} -> {none_40}");
    assert!(
        none_40 > 1.5 * full_40,
        "None {none_40} vs FullJitter {full_40}"
    );
    assert!(none_40 / none_10 > full_40 / full_10);
}

#[test]
fn numbering_changes_the_exponential_delays_but_not_decorrelated_jitter() {
    let rebound = OccParams {
        numbering: AttemptNumbering::Rebound,
        ..OccParams::default()
    };
    let reference = OccParams::default();
    assert_eq!(
        run_trial(10, Algorithm::Decorr, &rebound, 5),
        run_trial(10, Algorithm::Decorr, &reference, 5)
    );
    assert_ne!(
        run_trial(10, Algorithm::Exponential, &rebound, 5),
        run_trial(10, Algorithm::Exponential, &reference, 5)
    );
}

fn binary_csv(seed: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_rebound-sim"))
        .args(["occ", "--csv", "--trials", "2", "--seed", seed])
        .output()
        .expect("run rebound-sim");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 CSV")
}

#[test]
fn csv_header_and_rows_are_exactly_as_specified() {
    let csv = binary_csv("3");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("clients,algorithm,mean_time_ms,mean_calls")
    );
    let keys: Vec<(String, String)> = lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 4, "{line}");
            for number in &fields[2..] {
                let value: f64 = number.parse().expect("a number");
                assert!(value > 0.0, "{line}");
            }
            (fields[0].to_owned(), fields[1].to_owned())
        })
        .collect();
    let mut expected = Vec::new();
    for clients in ["10", "20", "30", "40", "50"] {
        for algorithm in ["Exponential", "Decorr", "EqualJitter", "FullJitter", "None"] {
            expected.push((clients.to_owned(), algorithm.to_owned()));
        }
    }
    assert_eq!(keys, expected);
    // Byte-identical for the same seed, different for another.
    assert_eq!(csv, binary_csv("3"));
    assert_ne!(csv, binary_csv("4"));
}
