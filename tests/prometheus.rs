//! The metrics pipeline end to end: the `prometheus_metrics` example (adaptive
//! mode against a throttling server, its metrics on a local port) scraped by a
//! real Prometheus server every second; the throttle counter, the retry
//! histogram and the limiter's rate read back through Prometheus' HTTP query
//! API must equal the example's own counts.
//!
//! Needs the `prometheus` binary (Debian's package; or `REBOUND_PROMETHEUS`).
//! Without it the test is skipped, unless `REBOUND_REQUIRE_PROMETHEUS=1`
//! (set by CI), where it fails.
#![cfg(all(feature = "reqwest", feature = "tokio", feature = "metrics"))]

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn prometheus_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("REBOUND_PROMETHEUS") {
        return Some(path.into());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("prometheus"))
            .find(|path| path.is_file())
    })
}

/// The example's binary, built by `cargo test` beside this test's.
fn example_binary() -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let target = test.parent().unwrap().parent().unwrap(); // target/<profile>/deps → target/<profile>
    target.join("examples").join(format!(
        "prometheus_metrics{}",
        std::env::consts::EXE_SUFFIX
    ))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The example's own counts, from its `counts: {...}` line.
#[derive(Debug)]
struct Counts {
    throttled: f64,
    retries: f64,
    fill_rate: f64,
}

fn number(json: &str, key: &str) -> f64 {
    let start = json
        .find(&format!("\"{key}\": "))
        .unwrap_or_else(|| panic!("{key} in {json}"))
        + key.len()
        + 4;
    let rest = &json[start..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].trim().parse().unwrap()
}

/// `text` as a URL query value.
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// One instant query's single value, once Prometheus has it.
async fn query(client: &reqwest::Client, prometheus: &str, promql: &str) -> Option<f64> {
    let url = format!(
        "{prometheus}/api/v1/query?query={}",
        percent_encoded(promql)
    );
    let response = client.get(&url).send().await.ok()?;
    let body = response.text().await.ok()?;
    // {"status":"success","data":{"resultType":"vector","result":[{"metric":{...},"value":[t,"v"]}]}}
    let value = body.split("\"value\":[").nth(1)?;
    let value = value.split(',').nth(1)?.trim_start_matches('"');
    value.split('"').next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_reads_back_the_examples_counts() {
    let Some(prometheus) = prometheus_binary() else {
        assert!(
            std::env::var_os("REBOUND_REQUIRE_PROMETHEUS").is_none(),
            "REBOUND_REQUIRE_PROMETHEUS is set but no prometheus binary was found"
        );
        eprintln!("skipped: no prometheus binary (apt-get install prometheus)");
        return;
    };

    // The example runs its load, prints its counts, then serves /metrics until its input closes.
    let mut example = Killed(
        Command::new(example_binary())
            .args(["--seconds", "3", "--rate", "50", "--clients", "8", "--hold"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the example, built by `cargo test --all-features` (alone: `cargo build --example prometheus_metrics --all-features`)"),
    );
    let mut lines = BufReader::new(example.0.stdout.take().unwrap()).lines();
    let metrics_url = lines.next().unwrap().unwrap();
    let metrics_url = metrics_url.strip_prefix("metrics: ").unwrap().to_owned();
    let counts_line = lines.next().unwrap().unwrap();
    let json = counts_line.strip_prefix("counts: ").unwrap();
    let counts = Counts {
        throttled: number(json, "throttled"),
        retries: number(json, "retries"),
        fill_rate: number(json, "fill_rate"),
    };
    assert!(counts.throttled > 0.0, "the server throttled: {json}");
    assert!(counts.retries > 0.0, "{json}");

    // A real Prometheus scraping it every second, on loopback, its storage in a temporary directory.
    let dir = tempfile::tempdir().unwrap();
    let target = metrics_url
        .trim_start_matches("http://")
        .trim_end_matches("/metrics");
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: example\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let _prometheus = Killed(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let api = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let queries = [
        "sum(rebound_client_attempts{rebound_failure_kind=\"throttle\"})",
        "sum(rebound_client_request_retries_sum)",
        "max(rebound_limiter_fill_rate)",
    ];
    // The load is over: the first scrape already holds the final values.
    let deadline = Instant::now() + Duration::from_secs(60);
    let values = loop {
        let mut values = Vec::new();
        for promql in queries {
            values.extend(query(&client, &api, promql).await);
        }
        if values.len() == queries.len() {
            break values;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus had no sample within 60 s: {values:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(values[0], counts.throttled, "throttled attempts");
    assert_eq!(values[1], counts.retries, "retries");
    let rate = values[2];
    assert!(
        (rate - counts.fill_rate).abs() <= 1e-9 * counts.fill_rate.abs().max(1.0),
        "{rate} vs {}",
        counts.fill_rate
    );

    // Close its input: the example exits.
    let _ = example.0.stdin.take().map(|mut stdin| stdin.flush());
}
