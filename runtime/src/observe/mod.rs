//! Metrics for retries: one observer every route calls, read by a meter.
//!
//! An operator needs to see what retries do in an outage: how many attempts
//! fail and why, how many requests retry and how often, how long they wait,
//! why they give up, and what the retry quota and the adaptive rate limiter
//! hold. [`RetryObserver`] is a [`RetryListener`]: give it to any executor
//! ([`Retry::listener`](crate::Retry::listener), the tower layer, the driver,
//! reqwest, waiters, rebound-smithy) and it keeps:
//!
//! - **counters** of attempts (by [`Outcome`] and [`FailureKind`]), give-ups
//!   (by [`GiveUpReason`]) and fail-fast refusals, in its own atomics
//!   ([`counts`](RetryObserver::counts)): a successful request costs one
//!   relaxed atomic add, and never calls into a metrics crate;
//! - **gauges** of what it [watches](RetryObserver::watch) (a strategy, a
//!   fleet store), read only when asked ([`readings`](RetryObserver::readings)):
//!   nothing on the request path;
//! - **samples** for histograms (retries per request, backoff delays, waits
//!   for a send permit), handed to its [`Recorder`] as they happen; they
//!   occur only on requests that retry or wait.
//!
//! The adapters turn this into instruments: `opentelemetry`'s
//! (feature `opentelemetry`, [`crate::opentelemetry`]) report the counters
//! and gauges from callbacks when the meter collects; the `metrics` facade's
//! (feature `metrics`, [`crate::metrics`]) has no such callbacks, so it counts
//! through `metrics` handles and sets the gauges when told to publish. The
//! instruments, their names and when each is recorded are listed in
//! `docs/metrics.md`.
//!
//! # Examples
//!
//! ```
//! use rebound_runtime::observe::{GiveUpReason, RetryObserver};
//! use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
//!
//! let strategy = StandardRetryStrategy::new();
//! let observer = RetryObserver::new("inventory");
//! observer.watch(strategy.clone()); // clones share the quota
//!
//! let retry = Retry::new(&strategy).sleeper(ManualClock::new()).listener(&observer);
//! let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
//! let _ = retry.run(|_attempt| Err::<(), _>(reset()));
//!
//! assert_eq!(observer.counts().total_attempts(), 3);
//! assert_eq!(observer.counts().give_ups(GiveUpReason::AttemptsExhausted), 1);
//! assert_eq!(observer.readings().quota_available, Some(490));
//! ```

mod labels;
mod recorder;
mod tally;
mod watch;

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

pub use labels::{FailureKind, GiveUpReason, Outcome};
pub use recorder::Recorder;
pub use tally::Counts;
pub use watch::{Readings, Watched};

use crate::driver::listen::{
    GiveUpEvent, PermitWaitEvent, RetryEvent, RetryListener, SuccessEvent,
};
use tally::Tally;

/// The observer: a [`RetryListener`] that counts every attempt and give-up,
/// hands histogram samples to its [`Recorder`] `R`, and reads the gauges of
/// what it watches when asked. See the [module](self).
///
/// Share one observer between the executors of a client (`&observer`, or an
/// `Arc`): its name is the `rebound.client.name` attribute of everything it
/// reports.
pub struct RetryObserver<R = ()> {
    shared: Arc<Observed>,
    recorder: R,
    /// The observers of its partitions ([`partition`](Self::partition));
    /// `None` for a partition's own observer.
    partitions: Option<Mutex<Vec<Arc<RetryObserver<R>>>>>,
}

/// The partition key that stands for every key past an observer's
/// [bound](RetryObserver::MAX_PARTITIONS).
pub const OTHER_PARTITION: &str = "other";

/// What an observer has seen and watches: what a meter reads when it
/// collects. Adapters keep a [`Weak`](std::sync::Weak) of it in their
/// callbacks ([`RetryObserver::observed`]).
pub struct Observed {
    name: Box<str>,
    /// The partition key, for a partition's observer.
    partition: Option<Box<str>>,
    tally: Tally,
    watched: RwLock<Vec<Box<dyn Watched>>>,
    /// The partitions' shares, read with this one when the meter collects.
    partitions: RwLock<Vec<Arc<Observed>>>,
}

impl Observed {
    /// The observer's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The partition key, for a partition's observer
    /// ([`RetryObserver::partition`]).
    #[must_use]
    pub fn partition(&self) -> Option<&str> {
        self.partition.as_deref()
    }

    /// Calls `f` with this share, then with each partition's, in the order
    /// the partitions were made: what a meter reports at collection.
    pub fn each(&self, mut f: impl FnMut(&Self)) {
        f(self);
        let partitions = self
            .partitions
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        for partition in partitions.iter() {
            f(partition);
        }
    }

    /// The counters, now.
    #[must_use]
    pub fn counts(&self) -> Counts {
        self.tally.counts()
    }

    /// The gauges of everything watched, read now, in the order they were
    /// registered (a later one's fields replace an earlier one's).
    #[must_use]
    pub fn readings(&self) -> Readings {
        let mut readings = Readings::default();
        let watched = self.watched.read().unwrap_or_else(PoisonError::into_inner);
        for source in watched.iter() {
            source.read(&mut readings);
        }
        readings
    }
}

impl<R> RetryObserver<R> {
    /// The most partition keys an observer reports on their own
    /// ([`partition`](Self::partition)): 1024, the default bound of
    /// [`Partitions`](crate::Partitions).
    pub const MAX_PARTITIONS: usize = 1024;
}

impl RetryObserver {
    /// An observer named `name` (the client or strategy it observes), with
    /// no recorder: its counters and gauges only.
    pub fn new(name: impl Into<String>) -> Self {
        Self::with_recorder(name, ())
    }
}

impl<R> RetryObserver<R> {
    /// An observer named `name` that hands its samples to `recorder`.
    pub fn with_recorder(name: impl Into<String>, recorder: R) -> Self {
        Self::made(name.into().into_boxed_str(), None, recorder)
    }

    fn made(name: Box<str>, partition: Option<Box<str>>, recorder: R) -> Self {
        let root = partition.is_none();
        Self {
            shared: Arc::new(Observed {
                name,
                partition,
                tally: Tally::default(),
                watched: RwLock::new(Vec::new()),
                partitions: RwLock::new(Vec::new()),
            }),
            recorder,
            partitions: root.then(|| Mutex::new(Vec::new())),
        }
    }

    /// The observer of partition `key`, made on first use: an opt-in for
    /// strategies partitioned by key ([`Partitions`](crate::Partitions)),
    /// whose every instrument then also carries `rebound.partition` = `key`.
    /// Give it to the executor of that key's strategy, and
    /// [`watch`](Self::watch) that strategy with it. The keys are bounded:
    /// past [`MAX_PARTITIONS`](Self::MAX_PARTITIONS) distinct keys (the
    /// default bound of [`Partitions`](crate::Partitions)), every further key
    /// shares the observer of [`OTHER_PARTITION`], so a key taken from
    /// requests cannot grow the series without end. Called on a partition's
    /// observer, it gives that observer back.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rebound_runtime::observe::{Outcome, RetryObserver};
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    ///
    /// let observer = Arc::new(RetryObserver::new("orders"));
    /// let strategies = StandardRetryStrategy::new().partitions::<&str>();
    /// for region in ["us-east-1", "eu-west-1", "us-east-1"] {
    ///     let (strategy, observed) = (strategies.get(&region), observer.partition(region));
    ///     Retry::new(strategy).listener(observed).run(|_| Ok::<_, std::io::Error>(()))?;
    /// }
    /// assert_eq!(observer.partition("us-east-1").counts().attempts(Outcome::Success, None), 2);
    /// assert_eq!(observer.counts().total_attempts(), 0); // the partitions count their own
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn partition(self: &Arc<Self>, key: &str) -> Arc<Self>
    where
        R: Recorder + Clone,
    {
        let Some(partitions) = &self.partitions else {
            return Arc::clone(self);
        };
        let mut partitions = partitions.lock().unwrap_or_else(PoisonError::into_inner);
        let find = |key: &str| {
            partitions
                .iter()
                .find(|partition| partition.shared.partition() == Some(key))
                .cloned()
        };
        if let Some(found) = find(key) {
            return found;
        }
        let key = if partitions.len() < Self::MAX_PARTITIONS {
            key
        } else if let Some(other) = find(OTHER_PARTITION) {
            return other;
        } else {
            OTHER_PARTITION
        };
        let name = self.shared.name.clone();
        let recorder = self.recorder.partition(key);
        let partition = Arc::new(Self::made(name, Some(key.into()), recorder));
        self.shared
            .partitions
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::clone(&partition.shared));
        partitions.push(Arc::clone(&partition));
        partition
    }

    /// Reads `source`'s gauges (a strategy's quota and rate limiter, a fleet
    /// store) whenever the observer's gauges are read. Watch a strategy by a
    /// clone (the AWS strategies' clones share their quota and limiter) or
    /// an `Arc`, once: each call adds a source.
    pub fn watch(&self, source: impl Watched + 'static) {
        self.shared
            .watched
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Box::new(source));
    }

    /// The observer's name.
    #[must_use]
    pub fn name(&self) -> &str {
        self.shared.name()
    }

    /// The counters, now.
    #[must_use]
    pub fn counts(&self) -> Counts {
        self.shared.counts()
    }

    /// The gauges of everything watched, now.
    #[must_use]
    pub fn readings(&self) -> Readings {
        self.shared.readings()
    }

    /// The observers of the partitions made so far
    /// ([`partition`](Self::partition)); none for a partition's own.
    #[must_use]
    pub fn partitions(&self) -> Vec<Arc<Self>> {
        self.partitions
            .as_ref()
            .map_or_else(Vec::new, |partitions| {
                partitions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone()
            })
    }

    /// The partition key of a partition's observer; `None` for the observer
    /// a user made.
    #[must_use]
    pub fn partition_key(&self) -> Option<&str> {
        self.shared.partition()
    }

    /// The counters and watched sources, shared: what a meter's callbacks
    /// read.
    #[must_use]
    pub fn observed(&self) -> &Arc<Observed> {
        &self.shared
    }

    /// The recorder.
    #[must_use]
    pub const fn recorder(&self) -> &R {
        &self.recorder
    }

    fn attempt(&self, outcome: Outcome, kind: Option<FailureKind>)
    where
        R: Recorder,
    {
        self.shared
            .tally
            .attempt(outcome, kind.unwrap_or(FailureKind::Other));
        self.recorder.attempt(outcome, kind);
    }

    fn request_ended(&self, attempts: u32)
    where
        R: Recorder,
    {
        if attempts > 1 {
            self.recorder.retries(attempts - 1);
        }
    }
}

impl<R: Recorder> RetryListener for RetryObserver<R> {
    #[inline]
    fn on_success(&self, event: &SuccessEvent) {
        self.attempt(Outcome::Success, None);
        self.request_ended(event.attempt());
    }

    fn on_retry(&self, event: &RetryEvent<'_>) {
        let kind = FailureKind::from(event.kind());
        self.attempt(Outcome::RetryableFailure, Some(kind));
        self.recorder.retry_delay(kind, event.delay());
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let reason = GiveUpReason::of(event.reason());
        if let (true, Some(failure), Some(kind)) =
            (event.after_failed_attempt(), event.failure(), event.kind())
        {
            let outcome = labels::failed_outcome(event.reason(), failure.retry_safety());
            let kind = match outcome {
                Outcome::NonRetryableFailure => FailureKind::not_retried(kind),
                _ => FailureKind::from(kind),
            };
            self.attempt(outcome, Some(kind));
        }
        // A fail-fast limiter refuses before an attempt is sent.
        let refusal = reason == GiveUpReason::RateLimited && !event.after_failed_attempt();
        self.shared.tally.give_up(reason, refusal);
        self.recorder.give_up(reason, refusal);
        self.request_ended(event.attempts());
    }

    fn on_permit_wait(&self, event: &PermitWaitEvent) {
        self.recorder.permit_wait(event.wait());
    }
}

impl<R> fmt::Debug for RetryObserver<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryObserver")
            .field("name", &self.name())
            .field("partition", &self.shared.partition())
            .field("counts", &self.counts())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Observed")
            .field("name", &self.name)
            .field("partition", &self.partition)
            .field("counts", &self.counts())
            .finish_non_exhaustive()
    }
}
