//! Prints what a fleet's store holds, for an operator: the quota's pool and leases, the rate
//! limiter's state and members. Reads only: nothing is reclaimed, created or changed.
//!
//! ```text
//! cargo run -p rebound-redis --example inspect -- redis://127.0.0.1:6379/ checkout-api
//! ```

use std::process::ExitCode;

use rebound_redis::{FleetInspection, FleetQuotaConfig, Stored};

fn seconds(ms: &Stored<i64>) -> String {
    match ms {
        #[allow(clippy::cast_precision_loss)] // a display
        Stored::Value(ms) => format!("{:.1} s", *ms as f64 / 1000.0),
        other => other.to_string(),
    }
}

/// A rate stored in milli-requests per second, in requests per second.
fn per_second<T: Copy + std::fmt::Display + TryInto<u32>>(milli: &Stored<T>) -> String {
    match milli.value().map(TryInto::try_into) {
        Some(Ok(milli)) => format!("{:.1}/s", f64::from(milli) / 1000.0),
        _ => milli.to_string(),
    }
}

fn print(fleet: &str, view: &FleetInspection) {
    println!("fleet {fleet}");
    match &view.pool {
        None => println!("  quota: no pool"),
        Some(pool) => {
            println!(
                "  quota: capacity {}, available {}, held {}, owed {}",
                pool.capacity, pool.available, pool.held_total, pool.owed_total
            );
            if let (Some(c), Some(a), Some(h)) = (
                pool.capacity.value(),
                pool.available.value(),
                pool.held_total.value(),
            ) {
                let missing = i64::from(c) - i64::from(a) - i64::from(h);
                println!("  spent and not refunded: {missing}");
            }
        }
    }
    println!("  leases: {}", view.lease_count);
    if !view.leases.is_empty() {
        println!(
            "    {:<16}  {:>6}  {:>6}  {:>10}",
            "id", "held", "owes", "lapses in"
        );
    }
    for lease in &view.leases {
        println!(
            "    {:<16}  {:>6}  {:>6}  {:>10}",
            lease.id,
            lease.held.to_string(),
            lease.owes.to_string(),
            seconds(&lease.expires_in_ms)
        );
    }
    match &view.limiter {
        None => println!("  rate limiter: none"),
        Some(limiter) => println!(
            "  rate limiter: cut {} times, last from {} among {} {} ago; the members measure {}, ask for {} and {} more",
            limiter.cuts,
            per_second(&limiter.w_max_milli),
            limiter.cut_members,
            seconds(&limiter.since_cut_ms),
            per_second(&limiter.sum_milli),
            per_second(&limiter.asked_milli),
            limiter.unbounded,
        ),
    }
    println!("  members: {}", view.member_count);
    for member in &view.members {
        let demand = match member.demand_milli {
            Stored::Value(u32::MAX) => "more".to_owned(),
            ref other => per_second(other),
        };
        println!(
            "    {:<16}  {:>12}  asks {:>10}  leaves in {}",
            member.id,
            per_second(&member.rate_milli),
            demand,
            seconds(&member.expires_in_ms)
        );
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, fleets @ ..] = args.as_slice() else {
        eprintln!("usage: inspect <redis-url> <fleet>...");
        return ExitCode::from(2);
    };
    if fleets.is_empty() {
        eprintln!("usage: inspect <redis-url> <fleet>...");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for fleet in fleets {
        // Not a strict start: that would create the pool.
        let result = match FleetQuotaConfig::builder(fleet).build() {
            Ok(config) => match rebound_redis::connect(url, config).await {
                Ok(client) => client.inspect().await,
                Err(err) => Err(err),
            },
            Err(err) => {
                eprintln!("{fleet}: {err}");
                failed = true;
                continue;
            }
        };
        match result {
            Ok(view) => print(fleet, &view),
            Err(err) => {
                eprintln!("{fleet}: {err}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
