//! Adaptive mode against a real server on 127.0.0.1: 200 client threads send
//! back-to-back requests through one shared `AdaptiveRetryStrategy`
//! (behaviour 2.1, so a bare 429 is a throttle) to a small HTTP/1.0 server
//! that admits 50 requests/s and answers `429 Too Many Requests` beyond.
//! Prints goodput, the throttled share and the waits, then exits:
//! `cargo run --release --example load_local_server` (10 s; set
//! `LOAD_SECONDS` to change it). The same scenario runs in virtual time as a
//! test (`runtime/tests/adaptive_load.rs`).

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rebound::Classified;
use rebound::{AdaptiveRetryStrategy, Retry, RetryBehavior, StandardRetryStrategy};

const CALLERS: usize = 200;
const ADMITTED_PER_SECOND: f64 = 50.0;

/// The server: one accept loop, a token bucket of 50/s holding at most 5.
fn serve(listener: TcpListener, stop: Arc<AtomicBool>) {
    let mut tokens = 5.0_f64;
    let mut last = Instant::now();
    for stream in listener.incoming() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Ok(mut stream) = stream else { continue };
        let mut request = String::new();
        // Read the request line and headers up to the blank line.
        let mut reader = BufReader::new(&stream);
        while reader.read_line(&mut request).is_ok_and(|n| n > 2) {
            request.clear();
        }
        let now = Instant::now();
        tokens = (tokens + (now - last).as_secs_f64() * ADMITTED_PER_SECOND).min(5.0);
        last = now;
        let response: &[u8] = if tokens >= 1.0 {
            tokens -= 1.0;
            b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"
        } else {
            b"HTTP/1.0 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n"
        };
        let _ = stream.write_all(response);
    }
}

/// One HTTP/1.0 GET: the status code, or the I/O error.
fn get(address: std::net::SocketAddr) -> Result<u16, std::io::Error> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.write_all(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
    let mut status_line = String::new();
    BufReader::new(stream).read_line(&mut status_line)?;
    status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {status_line:?}")))
}

/// A failed attempt: an HTTP status, or an I/O error (retried as a
/// transient transport failure).
#[derive(Debug)]
enum Failure {
    Status(u16),
    Io,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = std::env::var("LOAD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let run = Duration::from_secs(seconds);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let stop = Arc::new(AtomicBool::new(false));
    let server = thread::spawn({
        let stop = Arc::clone(&stop);
        move || serve(listener, stop)
    });

    let standard = StandardRetryStrategy::builder()
        .behavior(RetryBehavior::V2_1)
        .build();
    let strategy = AdaptiveRetryStrategy::builder(standard).build();
    let retry = Arc::new(Retry::new(strategy));
    let (sent, throttled, succeeded) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
    );
    let waits = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let callers: Vec<_> = (0..CALLERS)
        .map(|_| {
            let (retry, sent, throttled, succeeded, waits) = (
                Arc::clone(&retry),
                Arc::clone(&sent),
                Arc::clone(&throttled),
                Arc::clone(&succeeded),
                Arc::clone(&waits),
            );
            thread::spawn(move || {
                while start.elapsed() < run {
                    let arrived = Instant::now();
                    let mut first_send = None;
                    let result = retry.run_classified(
                        |_attempt| {
                            first_send.get_or_insert_with(Instant::now);
                            sent.fetch_add(1, Ordering::Relaxed);
                            match get(address) {
                                Ok(200) => Ok(()),
                                Ok(429) => {
                                    throttled.fetch_add(1, Ordering::Relaxed);
                                    Err(Failure::Status(429))
                                }
                                Ok(status) => Err(Failure::Status(status)),
                                Err(_) => Err(Failure::Io),
                            }
                        },
                        |failure| match failure {
                            Failure::Status(status) => Classified::unknown().with_status(*status),
                            Failure::Io => Classified::retryable(),
                        },
                    );
                    if result.is_ok() && start.elapsed() < run {
                        succeeded.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some(first) = first_send {
                        waits.lock().unwrap().push(first - arrived);
                    }
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().expect("caller");
    }
    stop.store(true, Ordering::Relaxed);
    let _ = TcpStream::connect(address); // wake the accept loop
    server.join().expect("server");

    let (sent, throttled, succeeded) = (
        sent.load(Ordering::Relaxed),
        throttled.load(Ordering::Relaxed),
        succeeded.load(Ordering::Relaxed),
    );
    let mut waits = waits.lock().unwrap().clone();
    waits.sort();
    let percentile = |p: f64| waits[((waits.len() - 1) as f64 * p) as usize];
    println!(
        "{CALLERS} callers, {seconds} s, server admits {ADMITTED_PER_SECOND}/s on 127.0.0.1:\n\
         goodput {:.1} requests/s ({:.0}% of admitted), {throttled} of {sent} attempts throttled ({:.1}%)\n\
         wait before the first send: median {:?}, p99 {:?}, longest {:?}",
        succeeded as f64 / run.as_secs_f64(),
        100.0 * succeeded as f64 / run.as_secs_f64() / ADMITTED_PER_SECOND,
        100.0 * throttled as f64 / sent.max(1) as f64,
        percentile(0.5),
        percentile(0.99),
        waits.last().copied().unwrap_or_default(),
    );
    Ok(())
}
