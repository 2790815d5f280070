//! A bounded load test against a real HTTP server on 127.0.0.1: 200
//! concurrent callers send requests back to back, through one shared retry
//! strategy, to an axum server in the same process that admits 50 requests/s
//! (a token bucket holding at most 5) and answers
//! `429 Too Many Requests` with `x-amzn-ErrorType: ThrottlingException`
//! beyond. Four modes run one after another, each against a fresh server:
//! adaptive (`AdaptiveRetryStrategy` over standard, behaviour 2.1), adaptive
//! failing fast (a refused caller asks again at once: a closed loop with no
//! think time), standard
//! (`StandardRetryStrategy`, behaviour 2.1) and no retries
//! (`NeverRetryStrategy`). Progress bars on stderr, a markdown table of the
//! figures on stdout:
//!
//! ```text
//! cargo run --release --example http_load --features tokio,http
//! ```
//!
//! Settings (environment variables):
//!
//! | variable | default | meaning |
//! |---|---|---|
//! | `LOAD_SECONDS` | 20 | length of each mode's run (4 modes: about 82 s in all) |
//! | `LOAD_MODES` | `adaptive,fail-fast,standard,never` | which modes to run, in order |
//! | `LOAD_WARMUP` | 5 | seconds left out of the *extra* steady-state figures |
//! | `LOAD_TRACE` | unset | `1`: after each mode, a per-second trace (server admissions and throttles, the adaptive limiter's send rate) on stderr |
//!
//! What is counted: every figure in the headline table covers the whole run,
//! from the first request to the deadline. A logical request counts when it
//! ends before the deadline; at the deadline every caller is cancelled
//! (requests in flight are dropped, their connections closed), so nothing
//! that ends later is counted and the run is bounded. Goodput is the
//! logical requests that succeeded, per second of the run; the throttled
//! share is of the attempts answered (an attempt cut off at the deadline has
//! no answer); the latency is a successful logical request's, from its start
//! (before the strategy's initial token) to its success, waits and retries
//! included. The steady-state figures, which leave the first `LOAD_WARMUP`
//! seconds out, are extra information, labelled as such.
//!
//! The same scenario runs in virtual time, with answers after 1 ms as from
//! this server, in `runtime/tests/adaptive_load.rs`; `docs/adaptive-mode.md`'s "Under
//! load" section compares the two.

use std::error::Error;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response as ServerResponse};
use axum::routing::get;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rebound::http::ResponseClassifier;
use rebound::rate_limiter::{ClientRateLimiter, WaitPolicy};
use rebound::{
    AdaptiveRetryStrategy, Classified, FailureInfo, NeverRetryStrategy, Retry, RetryBehavior,
    RetryStrategy, StandardRetryStrategy, TransportFailure,
};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Concurrent logical requests (callers).
const CALLERS: usize = 200;
/// The server's admitted rate, requests per second.
const ADMITTED_PER_SECOND: f64 = 50.0;
/// The most requests the server admits at once after a quiet spell. Small, as
/// a throttling front end's is: 0.1 s worth of the rate absorbs the jitter of
/// a client that sends at 50/s on a shared 2-core machine (timer wake-ups
/// and scheduling bunch requests by a few milliseconds) without letting any
/// window longer than 0.1 s exceed the rate noticeably. It is the virtual-time
/// test's (`runtime/tests/adaptive_load.rs`), so the two compare.
const BURST: f64 = 5.0;
/// How often the progress bars and the trace are updated.
const SAMPLE_EVERY: Duration = Duration::from_millis(250);
/// A request with no answer after this long fails (a transport failure).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------------------
// The server

/// The server's admission control: a token bucket of 50 tokens/s holding at
/// most [`BURST`], full at the start.
#[derive(Debug)]
struct Admission {
    tokens: f64,
    at: Instant,
}

/// One mode's server state: the bucket, and what it answered.
#[derive(Debug)]
struct Service {
    admission: Mutex<Admission>,
    admitted: AtomicU64,
    throttled: AtomicU64,
}

impl Service {
    fn new() -> Self {
        Self {
            admission: Mutex::new(Admission {
                tokens: BURST,
                at: Instant::now(),
            }),
            admitted: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
        }
    }

    /// Takes a token if there is one.
    fn admit(&self) -> bool {
        let mut bucket = lock(&self.admission);
        let now = Instant::now();
        bucket.tokens =
            (bucket.tokens + (now - bucket.at).as_secs_f64() * ADMITTED_PER_SECOND).min(BURST);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// (admitted, throttled) so far.
    fn counts(&self) -> (u64, u64) {
        (
            self.admitted.load(Ordering::Relaxed),
            self.throttled.load(Ordering::Relaxed),
        )
    }
}

async fn handle(State(service): State<Arc<Service>>) -> ServerResponse {
    if service.admit() {
        service.admitted.fetch_add(1, Ordering::Relaxed);
        (StatusCode::OK, "ok").into_response()
    } else {
        service.throttled.fetch_add(1, Ordering::Relaxed);
        (
            StatusCode::TOO_MANY_REQUESTS,
            [("x-amzn-ErrorType", "ThrottlingException")],
            "slow down",
        )
            .into_response()
    }
}

/// A running server: its address, state, and how to stop it.
struct Server {
    address: SocketAddr,
    service: Arc<Service>,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// A fresh server (full bucket, zero counts) on a new port of 127.0.0.1.
    async fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let service = Arc::new(Service::new());
        let app = Router::new()
            .route("/", get(handle))
            .with_state(Arc::clone(&service));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        Ok(Self {
            address,
            service,
            stop,
            task,
        })
    }

    /// Stops accepting, lets open connections close (the client is gone by
    /// then), and gives up waiting after 2 s.
    async fn stop(self) {
        let _ = self.stop.send(());
        let mut task = self.task;
        if tokio::time::timeout(Duration::from_secs(2), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }
}

// ---------------------------------------------------------------------------
// The client

/// What the client saw, counted as it happens (shared by the callers).
#[derive(Debug, Default)]
struct Counters {
    /// Attempts sent.
    sent: AtomicU64,
    /// Attempts answered 2xx.
    ok: AtomicU64,
    /// Attempts answered 429.
    throttled: AtomicU64,
    /// Attempts answered otherwise, or not at all (transport failures).
    other: AtomicU64,
    /// Logical requests that succeeded.
    succeeded: AtomicU64,
    /// Logical requests that failed for good.
    failed: AtomicU64,
}

/// A copy of the counters (client and server) at one time.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    /// Since the run's start.
    at: Duration,
    sent: u64,
    answered: u64,
    throttled: u64,
    succeeded: u64,
    failed: u64,
    server_admitted: u64,
    server_throttled: u64,
    /// The adaptive limiter's send rate (`None`: off, or not adaptive).
    send_rate: Option<f64>,
}

impl Counters {
    fn sample(
        &self,
        at: Duration,
        service: &Service,
        limiter: Option<&ClientRateLimiter>,
    ) -> Sample {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let (server_admitted, server_throttled) = service.counts();
        let throttled = load(&self.throttled);
        Sample {
            at,
            sent: load(&self.sent),
            answered: load(&self.ok) + throttled + load(&self.other),
            throttled,
            succeeded: load(&self.succeeded),
            failed: load(&self.failed),
            server_admitted,
            server_throttled,
            send_rate: limiter.and_then(ClientRateLimiter::send_rate),
        }
    }
}

/// A failed attempt.
#[derive(Debug)]
enum Failure {
    /// An error response (4xx or 5xx): its status and headers (the body is
    /// read and dropped).
    Response(http::Response<()>),
    /// No (complete) response.
    Transport(reqwest::Error),
}

/// One attempt: a GET, its body read to the end so the connection goes
/// back to the pool.
async fn attempt(client: &reqwest::Client, url: &str, counters: &Counters) -> Result<(), Failure> {
    counters.sent.fetch_add(1, Ordering::Relaxed);
    let transport = |error| {
        counters.other.fetch_add(1, Ordering::Relaxed);
        Failure::Transport(error)
    };
    let response = client.get(url).send().await.map_err(transport)?;
    let status = response.status();
    if status.is_success() {
        response.bytes().await.map_err(transport)?;
        counters.ok.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    let mut failure = http::Response::new(());
    *failure.status_mut() = status;
    *failure.headers_mut() = response.headers().clone();
    response.bytes().await.map_err(transport)?;
    if status == StatusCode::TOO_MANY_REQUESTS {
        counters.throttled.fetch_add(1, Ordering::Relaxed);
    } else {
        counters.other.fetch_add(1, Ordering::Relaxed);
    }
    Err(Failure::Response(failure))
}

/// What a strategy reads about a failed attempt: an error response as the
/// HTTP classifier reads it (a 429 is a throttle, the error code comes from
/// `x-amzn-ErrorType`), a transport failure as retryable (a timeout as one).
fn classify(classifier: &ResponseClassifier, failure: &Failure) -> Box<dyn FailureInfo> {
    match failure {
        Failure::Response(response) => match classifier.classify_response(response) {
            Some(failure) => Box::new(failure),
            // Only 4xx and 5xx responses are failures, and those classify.
            None => Box::new(Classified::unknown().with_status(response.status().as_u16())),
        },
        Failure::Transport(error) => {
            let failure = if error.is_connect() {
                TransportFailure::Connect
            } else if error.is_timeout() {
                TransportFailure::ReadTimeout
            } else {
                TransportFailure::Http
            };
            Box::new(Classified::from(failure))
        }
    }
}

// ---------------------------------------------------------------------------
// One mode

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Adaptive,
    /// Adaptive mode whose limiter refuses a send it has no token for
    /// (`WaitPolicy::FailFast`): the caller gets the refusal at once and
    /// asks again, with no think time.
    FailFast,
    Standard,
    Never,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Self::Adaptive => "adaptive",
            Self::FailFast => "fail-fast",
            Self::Standard => "standard",
            Self::Never => "no retries",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "adaptive" => Some(Self::Adaptive),
            "fail-fast" => Some(Self::FailFast),
            "standard" => Some(Self::Standard),
            "never" | "none" | "no-retries" => Some(Self::Never),
            _ => None,
        }
    }
}

/// Settings from the environment.
#[derive(Debug, Clone)]
struct Settings {
    run: Duration,
    warmup: Duration,
    modes: Vec<Mode>,
    trace: bool,
}

impl Settings {
    fn from_env() -> Result<Self, Box<dyn Error>> {
        let seconds = |name: &str, default: u64| -> Result<Duration, Box<dyn Error>> {
            match std::env::var(name) {
                Ok(value) => Ok(Duration::from_secs(value.trim().parse().map_err(|_| {
                    format!("{name} must be a whole number of seconds, not {value:?}")
                })?)),
                Err(_) => Ok(Duration::from_secs(default)),
            }
        };
        let run = seconds("LOAD_SECONDS", 20)?;
        if run.is_zero() {
            return Err("LOAD_SECONDS must be at least 1".into());
        }
        let modes = match std::env::var("LOAD_MODES") {
            Ok(list) => list
                .split(',')
                .map(|name| Mode::parse(name).ok_or_else(|| format!("unknown mode {name:?}")))
                .collect::<Result<Vec<_>, _>>()?,
            Err(_) => vec![Mode::Adaptive, Mode::FailFast, Mode::Standard, Mode::Never],
        };
        Ok(Self {
            run,
            warmup: seconds("LOAD_WARMUP", 5)?,
            modes,
            trace: std::env::var("LOAD_TRACE").is_ok_and(|value| value == "1"),
        })
    }
}

/// Everything measured in one mode.
#[derive(Debug)]
struct Report {
    mode: Mode,
    run: Duration,
    /// At the deadline.
    end: Sample,
    /// Every [`SAMPLE_EVERY`], from the start to the deadline.
    samples: Vec<Sample>,
    /// How long each successful logical request took, sorted.
    latencies: Vec<Duration>,
}

/// Runs `strategy`'s mode against a fresh server for `settings.run`.
async fn run_mode<S>(
    mode: Mode,
    strategy: S,
    limiter: Option<Arc<ClientRateLimiter>>,
    settings: &Settings,
    bar: &ProgressBar,
) -> Result<Report, Box<dyn Error>>
where
    S: RetryStrategy + Send + Sync + 'static,
{
    let server = Server::start().await?;
    let url: Arc<str> = format!("http://{}/", server.address).into();
    // One client for every caller of this mode; its pool keeps a connection
    // per caller. A new one per mode, so no connection outlives its server.
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(REQUEST_TIMEOUT)
        .pool_max_idle_per_host(CALLERS)
        .build()?;
    let retry = Arc::new(Retry::new(strategy));
    let counters = Arc::new(Counters::default());

    let start = Instant::now();
    let deadline = start + settings.run;
    let mut callers = JoinSet::new();
    for _ in 0..CALLERS {
        let (retry, client, url, counters) = (
            Arc::clone(&retry),
            client.clone(),
            Arc::clone(&url),
            Arc::clone(&counters),
        );
        callers.spawn(async move {
            let classifier = ResponseClassifier::new();
            let (client, url, counters) = (&client, &*url, &*counters);
            let mut latencies = Vec::new();
            // Cancelled at the deadline: what is in flight then is dropped.
            let _ = tokio::time::timeout_at(deadline, async {
                while Instant::now() < deadline {
                    let began = Instant::now();
                    let result = retry
                        .run_async_classified(
                            |_attempt| attempt(client, url, counters),
                            |failure| classify(&classifier, failure),
                        )
                        .await;
                    if Instant::now() > deadline {
                        break; // ended too late to count
                    }
                    match result {
                        Ok(()) => {
                            counters.succeeded.fetch_add(1, Ordering::Relaxed);
                            latencies.push(began.elapsed());
                        }
                        Err(_) => {
                            counters.failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
            .await;
            latencies
        });
    }

    // Watch until the deadline: progress bar, samples.
    let limiter = limiter.as_deref();
    let mut samples = vec![Sample::default()];
    let mut next = start + SAMPLE_EVERY;
    while next < deadline {
        tokio::time::sleep_until(next).await;
        let sample = counters.sample(start.elapsed(), &server.service, limiter);
        samples.push(sample);
        bar.set_position(sample.at.as_secs());
        bar.set_message(progress_message(&sample));
        next += SAMPLE_EVERY;
    }
    tokio::time::sleep_until(deadline).await;
    // The server's counts at the deadline; the client's once every caller
    // has stopped (each at the deadline, when its timeout fires).
    let at_deadline = counters.sample(settings.run, &server.service, limiter);
    // Every caller stops at the deadline (its timeout fires).
    let mut latencies: Vec<Duration> = callers.join_all().await.into_iter().flatten().collect();
    latencies.sort();
    let end = Sample {
        server_admitted: at_deadline.server_admitted,
        server_throttled: at_deadline.server_throttled,
        ..counters.sample(settings.run, &server.service, limiter)
    };
    samples.push(end);
    bar.set_position(settings.run.as_secs());
    bar.finish_with_message(progress_message(&end));
    drop(client);
    server.stop().await;
    Ok(Report {
        mode,
        run: settings.run,
        end,
        samples,
        latencies,
    })
}

fn progress_message(sample: &Sample) -> String {
    let secs = sample.at.as_secs_f64().max(1e-9);
    let goodput = sample.succeeded as f64 / secs;
    let mut message = format!(
        "goodput {goodput:5.1}/s ({:3.0}%)  throttled {:5.1}% of {} attempts",
        100.0 * goodput / ADMITTED_PER_SECOND,
        percent(sample.throttled, sample.answered),
        sample.answered,
    );
    if let Some(rate) = sample.send_rate {
        message.push_str(&format!("  limiter {rate:.1}/s"));
    }
    message
}

// ---------------------------------------------------------------------------
// Figures

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn per_second(count: u64, span: Duration) -> f64 {
    count as f64 / span.as_secs_f64().max(1e-9)
}

fn median(sorted: &[Duration]) -> Option<Duration> {
    sorted.get(sorted.len().checked_sub(1)? / 2).copied()
}

fn seconds(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{:.2} s", duration.as_secs_f64())
    }
}

impl Report {
    /// The headline row: the whole run.
    fn row(&self) -> String {
        let end = &self.end;
        let goodput = per_second(end.succeeded, self.run);
        let latency = match (median(&self.latencies), self.latencies.last()) {
            (Some(median), Some(max)) => format!("{} / {}", seconds(median), seconds(*max)),
            _ => "—".to_owned(),
        };
        let per_success = if end.succeeded == 0 {
            "—".to_owned()
        } else {
            format!("{:.2}", end.sent as f64 / end.succeeded as f64)
        };
        format!(
            "| {} | {goodput:.1}/s ({:.0}%) | {} | {:.1}% ({} of {}) | {per_success} | {} | {latency} |",
            self.mode.name(),
            100.0 * goodput / ADMITTED_PER_SECOND,
            end.sent,
            percent(end.throttled, end.answered),
            end.throttled,
            end.answered,
            end.failed,
        )
    }

    /// The sample at (or just after) `at`.
    fn sample_at(&self, at: Duration) -> Sample {
        self.samples
            .iter()
            .find(|sample| sample.at >= at)
            .copied()
            .unwrap_or(self.end)
    }

    /// Extra figures: the server's view, and the run after the warm-up.
    fn extra_row(&self, warmup: Duration) -> String {
        let end = &self.end;
        let server_answered = end.server_admitted + end.server_throttled;
        let from = self.sample_at(warmup);
        let span = self.run.saturating_sub(from.at);
        let steady = if span.is_zero() {
            "—".to_owned()
        } else {
            let answered = end.answered - from.answered;
            format!(
                "{:.1}/s ({:.0}%), {:.1}% throttled",
                per_second(end.succeeded - from.succeeded, span),
                100.0 * per_second(end.succeeded - from.succeeded, span) / ADMITTED_PER_SECOND,
                percent(end.throttled - from.throttled, answered),
            )
        };
        let limiter = match self.ramp() {
            Some(Some(reached)) => format!("45/s at {}", seconds(reached)),
            Some(None) => "never 45/s".to_owned(),
            None => "—".to_owned(),
        };
        let first_second = self.sample_at(Duration::from_secs(1));
        format!(
            "| {} | {:.1}/s | {:.1}% ({} of {}) | {} of {} | {steady} | {limiter} |",
            self.mode.name(),
            per_second(end.server_admitted, self.run),
            percent(end.server_throttled, server_answered),
            end.server_throttled,
            server_answered,
            first_second.throttled,
            first_second.answered,
        )
    }

    /// When the adaptive limiter's send rate was first seen at 45/s or more
    /// (90% of the admitted rate): `None` if it is not adaptive mode.
    fn ramp(&self) -> Option<Option<Duration>> {
        self.samples.iter().find(|s| s.send_rate.is_some())?;
        Some(
            self.samples
                .iter()
                .find(|s| {
                    s.send_rate
                        .is_some_and(|rate| rate >= 0.9 * ADMITTED_PER_SECOND)
                })
                .map(|s| s.at),
        )
    }

    /// Per second: what the server admitted and throttled, what the client
    /// completed, and the limiter's send rate at the end of the second.
    fn trace(&self) -> String {
        let mut out = format!(
            "{} (per second: server admitted / throttled, client successes, limiter send rate at the end):\n",
            self.mode.name()
        );
        let mut previous = Sample::default();
        for second in 1..=self.run.as_secs() {
            let sample = self.sample_at(Duration::from_secs(second));
            out.push_str(&format!(
                "  {second:>3} s  {:>4} / {:<6} {:>4}  {}\n",
                sample.server_admitted - previous.server_admitted,
                sample.server_throttled - previous.server_throttled,
                sample.succeeded - previous.succeeded,
                sample
                    .send_rate
                    .map_or("off".to_owned(), |rate| format!("{rate:.1}/s")),
            ));
            previous = sample;
        }
        out
    }
}

// ---------------------------------------------------------------------------

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let settings = Settings::from_env()?;
    let progress = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix:>10} [{bar:20}] {pos:>3}/{len} s  {msg}")?
        .progress_chars("=> ");
    let bars: Vec<ProgressBar> = settings
        .modes
        .iter()
        .map(|mode| {
            let bar = progress.add(ProgressBar::new(settings.run.as_secs()));
            bar.set_style(style.clone());
            bar.set_prefix(mode.name());
            bar.set_message("waiting");
            bar
        })
        .collect();

    let mut reports = Vec::new();
    for (&mode, bar) in settings.modes.iter().zip(&bars) {
        // Behaviour 2.1 (botocore 1.44, the reference the adaptive conformance
        // vectors come from): the virtual-time test's. The server's 429s carry
        // `ThrottlingException`, a throttle in either behaviour; 2.1 also
        // retries a bare 429 as one.
        let standard = || {
            StandardRetryStrategy::builder()
                .behavior(RetryBehavior::V2_1)
                .build()
        };
        let report = match mode {
            Mode::Adaptive => {
                let strategy = AdaptiveRetryStrategy::builder(standard()).build();
                let limiter = Arc::clone(strategy.rate_limiter());
                run_mode(mode, strategy, Some(limiter), &settings, bar).await?
            }
            Mode::FailFast => {
                let strategy = AdaptiveRetryStrategy::builder(standard())
                    .wait_policy(WaitPolicy::FailFast)
                    .build();
                let limiter = Arc::clone(strategy.rate_limiter());
                run_mode(mode, strategy, Some(limiter), &settings, bar).await?
            }
            Mode::Standard => run_mode(mode, standard(), None, &settings, bar).await?,
            Mode::Never => run_mode(mode, NeverRetryStrategy, None, &settings, bar).await?,
        };
        if settings.trace {
            progress.suspend(|| eprint!("{}", report.trace()));
        }
        reports.push(report);
    }
    drop(bars); // finished: they stay on screen above the table

    let run = settings.run.as_secs();
    println!(
        "{CALLERS} callers, {run} s per mode, a server on 127.0.0.1 admitting \
         {ADMITTED_PER_SECOND}/s (burst {BURST}), 429 ThrottlingException beyond:\n"
    );
    println!(
        "| mode | goodput (% of 50/s) | attempts sent | throttled attempts | attempts per success | failed requests | latency of a success (median / max) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for report in &reports {
        println!("{}", report.row());
    }
    let warmup = settings.warmup.as_secs();
    println!(
        "\nExtra, not the headline: the server's count; the first second (the adaptive limiter is \
         off until the first 429 comes back); the run without its first {warmup} s (steady \
         state); when the limiter's send rate first reached 45/s (sampled every 0.25 s):\n"
    );
    println!(
        "| mode | server admitted | server throttled | throttled in the first second | after the first {warmup} s: goodput, throttled | adaptive limiter |"
    );
    println!("|---|---|---|---|---|---|");
    for report in &reports {
        println!("{}", report.extra_row(settings.warmup));
    }
    Ok(())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
