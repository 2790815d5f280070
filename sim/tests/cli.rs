//! The binary: CSV shape of `outage`, `capacity` and `fleet`, byte-identical output
//! for a seed, and bad input refused without a panic.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rebound-sim"))
        .args(args)
        .output()
        .expect("run rebound-sim")
}

fn stdout(args: &[&str]) -> String {
    let output = run(args);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// Checks `block` is `header` then `rows` lines of numbers and names with
/// as many fields; returns the rows' fields.
fn rows(block: &str, header: &str, count: usize) -> Vec<Vec<String>> {
    let mut lines = block.lines();
    assert_eq!(lines.next(), Some(header));
    let width = header.split(',').count();
    let rows: Vec<Vec<String>> = lines
        .map(|line| {
            let fields: Vec<String> = line.split(',').map(str::to_owned).collect();
            assert_eq!(fields.len(), width, "{line}");
            fields
        })
        .collect();
    assert_eq!(rows.len(), count, "{block}");
    rows
}

fn number(field: &str) -> f64 {
    field
        .parse()
        .unwrap_or_else(|_| panic!("`{field}` is a number"))
}

const OUTAGE: &[&str] = &[
    "outage",
    "--csv",
    "--clients",
    "5",
    "--rate",
    "50",
    "--capacity",
    "60",
    "--outage",
    "3",
    "--after",
    "5",
];

#[test]
fn outage_csv_has_one_row_per_answer_and_strategy() {
    let seed = |s: &str| stdout(&[OUTAGE, &["--seed", s]].concat());
    let csv = seed("3");
    let rows = rows(
        &csv,
        "outage_answer,strategy,amplification_outage,amplification,peak_attempts_per_s,\
goodput,goodput_after_recovery,time_to_recover_s,send_limit_at_recovery,unfinished",
        10,
    );
    let keys: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    let mut expected = Vec::new();
    for answer in ["503", "503 SlowDown"] {
        for strategy in [
            "no retries",
            "naive fixed",
            "standard",
            "adaptive (AWS-exact)",
            "adaptive steady (recommended)",
        ] {
            expected.push((answer, strategy));
        }
    }
    assert_eq!(keys, expected);
    for row in &rows {
        for field in &row[2..7] {
            assert!(number(field) >= 0.0, "{row:?}");
        }
    }
    // No retries: exactly one attempt per request.
    assert_eq!(rows[0][3], "1.0000");
    assert_eq!(csv, seed("3"));
    assert_ne!(csv, seed("4"));
}

const CAPACITY: &[&str] = &[
    "capacity",
    "--csv",
    "--capacity",
    "20",
    "--clients",
    "2",
    "--loads",
    "2,3",
    "--duration",
    "20",
    "--startup",
    "5",
];

#[test]
fn capacity_csv_has_both_scenarios() {
    let seed = |s: &str| stdout(&[CAPACITY, &["--seed", s]].concat());
    let csv = seed("3");
    let (single, partitioned) = csv.split_once("\n\n").expect("two blocks");
    let single = rows(
        &format!("{single}\n"),
        "capacity,clients,load,strategy,startup_goodput,startup_throttled,ramp_s,\
steady_goodput,steady_throttled,steady_attempts_per_success,steady_gave_up,steady_send_limit,unfinished",
        14,
    );
    for (index, row) in single.iter().enumerate() {
        assert_eq!(row[0], "20");
        assert_eq!(row[1], "2");
        assert_eq!(row[2], if index < 7 { "2" } else { "3" });
        for field in [&row[4], &row[5], &row[7], &row[8]] {
            assert!((0.0..=1.5).contains(&number(field)), "{row:?}");
        }
    }
    let strategies: Vec<&str> = single[..7].iter().map(|r| r[3].as_str()).collect();
    assert_eq!(
        strategies,
        [
            "standard",
            "adaptive (AWS-exact)",
            "adaptive fail-fast (AWS-exact)",
            "adaptive + one cut per event only",
            "adaptive fail-fast + one cut per event only",
            "adaptive steady (recommended)",
            "adaptive steady fail-fast (recommended)"
        ]
    );
    // Standard mode has no rate limiter.
    assert_eq!(single[0][11], "");
    let partitioned = rows(
        partitioned,
        "strategy,hot_load,hot_goodput,hot_throttled,cool_goodput,cool_served,cool_throttled,\
cool_send_limit",
        5,
    );
    assert_eq!(partitioned[4][0], "adaptive fail-fast per table");
    assert_eq!(csv, seed("3"));
    assert_ne!(csv, seed("4"));
}

const FLEET: &[&str] = &[
    "fleet",
    "--csv",
    "--processes",
    "1,5",
    "--rate",
    "50",
    "--capacity",
    "60",
    "--outage",
    "3",
    "--after",
    "5",
    "--quota",
    "50",
    "--lease-size",
    "10",
    "--limiter-processes",
    "1,3",
    "--limiter-capacity",
    "30",
    "--limiter-duration",
    "20",
    "--limiter-startup",
    "5",
];

#[test]
fn fleet_csv_has_one_row_per_fleet_size_and_quota() {
    let seed = |s: &str| stdout(&[FLEET, &["--seed", s]].concat());
    let csv = seed("3");
    let (quota, limiter) = csv.split_once("\n\n").expect("two blocks");
    let quota_rows = rows(
        &format!("{quota}\n"),
        "processes,quota,retries_outage,amplification_outage,amplification,goodput_after_recovery,\
time_to_recover_s,refunds_outage,lease_slack,pending_refunds_at_outage,processes_with_tokens_at_outage,store_calls",
        4,
    );
    let keys: Vec<(&str, &str)> = quota_rows
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("1", "per-process quotas"),
            ("1", "fleet quota"),
            ("5", "per-process quotas"),
            ("5", "fleet quota")
        ]
    );
    for row in &quota_rows {
        assert!(number(&row[3]) >= 1.0, "{row:?}");
        // The fleet's counts only for the fleet quota.
        assert_eq!(row[7].is_empty(), row[1] == "per-process quotas", "{row:?}");
    }
    let limiter = rows(
        limiter,
        "processes,strategy,steady_goodput,throttled_after_first_throttle,steady_throttled,\
startup_goodput,steady_send_limit,first_throttle_s,first_cut_s,cuts,store_calls",
        4,
    );
    let keys: Vec<(&str, &str)> = limiter
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("1", "adaptive (AWS-exact) per-process limiters"),
            ("1", "adaptive (AWS-exact) + fleet limiter"),
            ("3", "adaptive (AWS-exact) per-process limiters"),
            ("3", "adaptive (AWS-exact) + fleet limiter")
        ]
    );
    for row in &limiter {
        for field in [&row[2], &row[3], &row[4], &row[5]] {
            assert!((0.0..=1.5).contains(&number(field)), "{row:?}");
        }
        // The store's counts only for the fleet limiter.
        assert_eq!(
            row[9].is_empty(),
            row[1].ends_with("per-process limiters"),
            "{row:?}"
        );
    }
    assert_eq!(csv, seed("3"));
    assert_ne!(csv, seed("4"));
}

#[test]
fn bad_numbers_are_refused_without_a_panic() {
    for args in [
        &["outage", "--rate", "NaN"][..],
        &["outage", "--outage", "-1"],
        &["outage", "--clients", "0"],
        &["capacity", "--loads", "2,inf"],
        &["capacity", "--budget", "soon"],
        &["capacity", "--duration", "1e12"],
        &["occ", "--trials", "0"],
        &["fleet", "--processes", "0"],
        &["fleet", "--processes", "1,x"],
        &["fleet", "--lease-size", "0"],
        &["fleet", "--refresh", "0"],
        &["fleet", "--round-trip-ms", "-1"],
        &["fleet", "--limiter-processes", "0"],
        &["fleet", "--limiter-capacity", "0"],
        &["fleet", "--limiter-duration", "NaN"],
    ] {
        let output = run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn no_budget_is_accepted() {
    let csv = stdout(&[
        "capacity",
        "--csv",
        "--capacity",
        "10",
        "--loads",
        "2",
        "--duration",
        "5",
        "--budget",
        "none",
    ]);
    assert!(csv.starts_with("capacity,clients,"));
}

#[test]
fn all_writes_under_cargo_target_dir_when_it_is_set() {
    use rebound_sim::cli::default_out_dir;
    use std::path::PathBuf;
    assert_eq!(
        default_out_dir(Some("/work/target-x".as_ref())),
        PathBuf::from("/work/target-x/rebound-sim")
    );
    assert_eq!(
        default_out_dir(Some("rel".as_ref())),
        PathBuf::from("rel/rebound-sim")
    );
    // Unset or empty: relative to the current directory.
    for unset in [None, Some("".as_ref())] {
        assert_eq!(default_out_dir(unset), PathBuf::from("target/rebound-sim"));
    }
}

/// `all` prints this first: which adaptive rows are botocore's algorithm
/// and which one rebound recommends, by the names the tables use.
#[test]
fn the_demo_opens_by_saying_which_row_is_aws_exact_and_which_is_recommended() {
    let guide = rebound_sim::cli::READING_GUIDE;
    for needle in [
        "(AWS-exact)",
        "AdaptiveRetryStrategy::new()",
        "steady (recommended)",
        "AdaptiveRetryStrategy::steady()",
        "not AWS-exact",
    ] {
        assert!(guide.contains(needle), "{needle:?} in {guide}");
    }
}
