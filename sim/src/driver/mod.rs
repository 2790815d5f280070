//! The client side of the outage and capacity experiments: open-loop
//! arrivals of logical requests, each driven through a real rebound
//! [`RetryStrategy`] exactly as rebound's `Retry` executor drives it, in
//! virtual time, against a simulated [`Service`].
//!
//! Per logical request, as the executor does: take the initial token; before
//! each attempt sleep the token's delay, then ask for a send permit
//! (sleeping each [`SendPermit::Wait`] and asking again with the same token);
//! send; hand the answer back ([`record_success`](RetryStrategy::record_success)
//! or [`refresh_retry_token`](RetryStrategy::refresh_retry_token), whose token
//! carries the next delay). A request with a time budget stops, as the
//! executor's budget does, when a wait would not end before the budget runs
//! out. Sleeping is rescheduling: nothing waits for real.
//!
//! Arrivals are open-loop (Poisson) by default: callers keep asking at the
//! offered rate whatever the service and the retries do, as users and
//! upstream services do. A closed loop (each client waiting for its answer
//! before asking again) slows down by itself when the service does and
//! would hide the retry storms these experiments are about. The other
//! [`Pacing`]s mirror test programs that pace their requests on a timer:
//! each client starting one every interval, or a few loops per client each
//! waiting for its request before the next tick, each client with its own
//! tick, start and stop ([`Loops`]).

mod background;
mod service;
pub mod timeline;

use std::sync::Arc;

use rebound_runtime::backoff::{RandomSource, SeededRandom};
use rebound_runtime::{RetryStrategy, RetryToken, SendPermit};

use background::Idle;
pub use background::{Background, Timers};
pub use service::{Answer, Service};
use timeline::Timeline;

use crate::event_queue::EventQueue;
use crate::rng::{exponential, mix, normal};
use crate::vclock::VirtualClock;

/// Which strategy serves each client's requests to each table:
/// `strategy(client, table)`. Clients hold strategies of their own (their
/// own quota and rate limiter); one client may use one strategy for every
/// table or one per table (rebound's `partitions()`).
#[derive(Debug)]
pub struct Fleet {
    strategies: Vec<Vec<Arc<dyn RetryStrategy>>>,
}

impl Fleet {
    /// `clients` clients × `tables` tables, each strategy made by
    /// `make(client, table)` (return clones of one `Arc` to share one).
    #[must_use]
    pub fn new(
        clients: usize,
        tables: usize,
        mut make: impl FnMut(usize, usize) -> Arc<dyn RetryStrategy>,
    ) -> Self {
        let strategies = (0..clients)
            .map(|client| (0..tables).map(|table| make(client, table)).collect())
            .collect();
        Self { strategies }
    }

    fn get(&self, client: usize, table: usize) -> Option<&dyn RetryStrategy> {
        Some(self.strategies.get(client)?.get(table)?.as_ref())
    }

    /// The distinct strategies serving `table` (a strategy shared by several
    /// tables appears under each of them).
    fn serving(&self, table: usize) -> Vec<Arc<dyn RetryStrategy>> {
        let mut distinct: Vec<Arc<dyn RetryStrategy>> = Vec::new();
        for client in &self.strategies {
            if let Some(strategy) = client.get(table)
                && !distinct.iter().any(|s| Arc::ptr_eq(s, strategy))
            {
                distinct.push(Arc::clone(strategy));
            }
        }
        distinct
    }
}

/// One-way network delay: `|Normal(mean, sd)|` seconds per message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Mean, seconds.
    pub mean: f64,
    /// Standard deviation, seconds.
    pub sd: f64,
}

/// One client's loops under [`Pacing::Loops`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loops {
    /// Loops of the client.
    pub tasks: usize,
    /// Seconds between two ticks of one loop.
    pub period: f64,
    /// The earliest first request, seconds.
    pub start: f64,
    /// Seconds over which the loops' first requests spread.
    pub spread: f64,
    /// A loop whose request ends at or after this time (seconds) starts no
    /// other (the test's `while elapsed < until`); the client stops when its
    /// last loop does.
    pub until: f64,
    /// The table its requests go to.
    pub table: usize,
}

/// How the logical requests arrive.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Pacing {
    /// Open-loop Poisson arrivals to each table at its rate, each to a
    /// uniformly drawn client.
    #[default]
    Poisson,
    /// Each client starts a request every `interval` seconds, whether its
    /// earlier ones are over or not (a tokio interval spawning a task per
    /// tick), from a seeded time in `[start, start + spread)`.
    Every {
        /// Seconds between two requests of one client.
        interval: f64,
        /// The earliest first request, seconds.
        start: f64,
        /// Seconds over which the clients' first requests spread.
        spread: f64,
    },
    /// Client `i` runs the loops of `loops[i]` (a client beyond them runs
    /// none), each from its own seeded time in `[start, start + spread)`;
    /// each loop starts a request to the client's table on a tick of
    /// `period` seconds and waits for it to end before the next tick
    /// (tokio's interval with `MissedTickBehavior::Delay`: a tick missed
    /// while the request ran comes as it ends, the next one a period
    /// later), until [`until`](Loops::until). When a client's last loop
    /// ends, the [`Background`] is told ([`Background::stopped`]).
    Loops(Vec<Loops>),
}

/// What the clients ask for, and for how long the run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Clients; with [`Pacing::Poisson`], each arrival goes to one of them,
    /// uniformly at random.
    pub clients: usize,
    /// Logical requests per second to each table, all clients together;
    /// with [`Pacing::Every`], each request goes to a table drawn with
    /// probability proportional to its rate; with [`Pacing::Loops`], only
    /// their count matters (the tables of the timeline).
    pub rates: Vec<f64>,
    /// How the requests arrive.
    pub pacing: Pacing,
    /// Arrivals stop at this time (seconds).
    pub arrivals_until: f64,
    /// The run stops at this time (seconds); requests still going are
    /// counted as unfinished.
    pub end: f64,
    /// The time budget of each logical request (seconds), if any.
    pub budget: Option<f64>,
    /// Network delay of each message.
    pub latency: Latency,
    /// Width of the timeline's bins (seconds).
    pub bin: f64,
}

/// What a run recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Per table and bin: arrivals, attempts, outcomes, send-rate limits.
    pub timeline: Timeline,
    /// Logical requests still going when the run stopped.
    pub unfinished: u64,
}

/// One event of one client's attempts, as its strategy saw it: what
/// [`run_traced`] records for the client it is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceEvent {
    /// Virtual time, seconds, as the strategy's rate limiter read it
    /// ([`VirtualClock::limiter_secs`]).
    pub time: f64,
    /// `None`: an attempt sent (its send permit granted); `Some(answer)`:
    /// the answer to one reaching the client, after the strategy was told.
    pub answer: Option<Answer>,
    /// The strategy's [`send_rate`](RetryStrategy::send_rate) right after
    /// the event (`None` while its limiter is off, or without one).
    pub send_rate: Option<f64>,
}

#[derive(Debug)]
enum Event {
    /// A logical request to `table` arrives.
    Arrival { table: usize },
    /// A paced client's loop ticks (loop 0 of a [`Pacing::Every`] client).
    Tick { client: usize, task: usize },
    /// A request's wait is over: ask for a send permit, then send.
    Ready(usize),
    /// A request's attempt reaches the service.
    Reach(usize),
    /// The service's answer reaches the client.
    Reply { request: usize, answer: Answer },
    /// End of a timeline bin: read the send-rate limits.
    Sample,
    /// A [`Background`] timer goes off.
    Background(usize),
}

#[derive(Debug)]
struct Request {
    client: usize,
    table: usize,
    /// The [`Pacing::Loops`] loop waiting for it, and when it ticked.
    task: Option<(usize, f64)>,
    arrived: f64,
    /// `None` once the request is over, or when the strategy gave no
    /// initial token (then one attempt is made, without retries).
    token: Option<RetryToken>,
    /// Attempts sent so far.
    sent: u32,
    done: bool,
}

/// One run's moving parts.
struct Run<'a, S> {
    workload: &'a Workload,
    fleet: &'a Fleet,
    service: &'a mut S,
    time: &'a mut VirtualClock,
    queue: EventQueue<Event>,
    requests: Vec<Request>,
    timeline: Timeline,
    arrivals: SeededRandom,
    network: SeededRandom,
    /// The client whose attempts are traced, and its trace.
    trace: Option<(usize, Vec<TraceEvent>)>,
    background: &'a mut dyn Background,
    timers: Timers,
    /// Under [`Pacing::Loops`], each client's loops still going.
    looping: Vec<usize>,
}

/// Runs `workload` with `fleet`'s strategies against `service`, moving
/// `time` (the clock the strategies were built with) along. Every draw of
/// the run (arrivals, clients, network delays) comes from `seed`; the
/// strategies' jitter comes from their own seeded sources.
pub fn run<S: Service>(
    workload: &Workload,
    fleet: &Fleet,
    service: &mut S,
    time: &mut VirtualClock,
    seed: u64,
) -> Record {
    run_inner(workload, fleet, service, time, seed, None, &mut Idle).0
}

/// [`run`], with `background` work on the run's event queue (its timers
/// and what the strategies ask of it, in virtual time). The record is
/// [`run`]'s.
pub fn run_with<S: Service>(
    workload: &Workload,
    fleet: &Fleet,
    service: &mut S,
    time: &mut VirtualClock,
    seed: u64,
    background: &mut dyn Background,
) -> Record {
    run_inner(workload, fleet, service, time, seed, None, background).0
}

/// [`run`], also recording every attempt sent by `client` and every answer
/// it got, in time order, with its strategy's send rate after each. The
/// record is the same as [`run`]'s.
pub fn run_traced<S: Service>(
    workload: &Workload,
    fleet: &Fleet,
    service: &mut S,
    time: &mut VirtualClock,
    seed: u64,
    client: usize,
) -> (Record, Vec<TraceEvent>) {
    run_inner(
        workload,
        fleet,
        service,
        time,
        seed,
        Some(client),
        &mut Idle,
    )
}

fn run_inner<S: Service>(
    workload: &Workload,
    fleet: &Fleet,
    service: &mut S,
    time: &mut VirtualClock,
    seed: u64,
    traced: Option<usize>,
    background: &mut dyn Background,
) -> (Record, Vec<TraceEvent>) {
    let tables = workload.rates.len();
    let mut run = Run {
        workload,
        fleet,
        service,
        time,
        queue: EventQueue::new(),
        requests: Vec::new(),
        timeline: Timeline::new(tables, workload.bin, workload.end),
        arrivals: SeededRandom::new(mix(&[seed, 0])),
        network: SeededRandom::new(mix(&[seed, 1])),
        trace: traced.map(|client| (client, Vec::new())),
        background,
        timers: Timers::default(),
        looping: Vec::new(),
    };
    run.start();
    run.go();
    let unfinished = run.requests.iter().filter(|r| !r.done).count() as u64;
    let record = Record {
        timeline: run.timeline,
        unfinished,
    };
    (
        record,
        run.trace.map(|(_, events)| events).unwrap_or_default(),
    )
}

impl<'a, S: Service> Run<'a, S> {
    fn start(&mut self) {
        self.background.start(&mut self.timers);
        self.schedule_timers();
        let workload: &'a Workload = self.workload;
        match &workload.pacing {
            Pacing::Poisson => {
                for table in 0..workload.rates.len() {
                    self.next_arrival(0.0, table);
                }
            }
            &Pacing::Every { start, spread, .. } => {
                for client in 0..workload.clients {
                    let at = start + self.arrivals.unit() * spread;
                    self.queue.schedule(at, Event::Tick { client, task: 0 });
                }
            }
            Pacing::Loops(loops) => {
                for (client, client_loops) in loops.iter().enumerate().take(workload.clients) {
                    for task in 0..client_loops.tasks {
                        let at = client_loops.start + self.arrivals.unit() * client_loops.spread;
                        self.queue.schedule(at, Event::Tick { client, task });
                    }
                    self.looping.push(client_loops.tasks);
                }
            }
        }
        if self.workload.end > self.timeline.width() {
            self.queue.schedule(self.timeline.width(), Event::Sample);
        }
    }

    fn go(&mut self) {
        let serving: Vec<_> = (0..self.workload.rates.len())
            .map(|table| self.fleet.serving(table))
            .collect();
        while let Some((now, event)) = self.queue.pop() {
            if now >= self.workload.end {
                break;
            }
            self.time.set(now);
            match event {
                Event::Arrival { table } => {
                    self.next_arrival(now, table);
                    let clients = self.workload.clients.max(1);
                    let client =
                        ((self.arrivals.unit() * clients as f64) as usize).min(clients - 1);
                    self.arrive(now, client, table, None);
                }
                Event::Tick { client, task } => self.tick(now, client, task),
                Event::Ready(request) => self.ready(now, request),
                Event::Reach(request) => self.reach(now, request),
                Event::Reply { request, answer } => self.reply(now, request, answer),
                Event::Sample => {
                    for (table, strategies) in serving.iter().enumerate() {
                        let rate = strategies
                            .iter()
                            .filter_map(|s| s.send_rate())
                            .fold(None, |sum: Option<f64>, r| Some(sum.unwrap_or(0.0) + r));
                        if let Some(b) = self.timeline.at(table, now - self.timeline.width() / 2.0)
                        {
                            b.send_rate = rate;
                        }
                    }
                    let next = now + self.timeline.width();
                    if next < self.workload.end {
                        self.queue.schedule(next, Event::Sample);
                    }
                }
                Event::Background(key) => self.background.fire(now, key, &mut self.timers),
            }
            self.background.after_event(now, &mut self.timers);
            self.schedule_timers();
        }
    }

    /// Puts the timers the background set on the queue.
    fn schedule_timers(&mut self) {
        for (at, key) in self.timers.drain() {
            self.queue.schedule(at, Event::Background(key));
        }
    }

    fn next_arrival(&mut self, now: f64, table: usize) {
        let rate = self.workload.rates[table];
        let at = now + exponential(&self.arrivals, rate);
        if at < self.workload.arrivals_until {
            self.queue.schedule(at, Event::Arrival { table });
        }
    }

    fn latency(&self) -> f64 {
        normal(
            &self.network,
            self.workload.latency.mean,
            self.workload.latency.sd,
        )
        .abs()
    }

    /// The strategy serving `request`, borrowed from the fleet (not from
    /// the run, which the caller goes on changing).
    fn strategy(&self, request: usize) -> Option<&'a dyn RetryStrategy> {
        let r = &self.requests[request];
        let fleet: &'a Fleet = self.fleet;
        fleet.get(r.client, r.table)
    }

    /// Adds an event to the trace if `request` is the traced client's.
    fn note(&mut self, request: usize, answer: Option<Answer>) {
        let client = self.requests[request].client;
        let send_rate = match &self.trace {
            Some((traced, _)) if *traced == client => {
                self.strategy(request).and_then(|s| s.send_rate())
            }
            _ => return,
        };
        let time = self.time.limiter_secs();
        if let Some((_, events)) = &mut self.trace {
            events.push(TraceEvent {
                time,
                answer,
                send_rate,
            });
        }
    }

    /// A paced client's tick: the next tick of a [`Pacing::Every`] client
    /// and a request to a table drawn by the rates, or a loop's request to
    /// its client's table.
    fn tick(&mut self, now: f64, client: usize, task: usize) {
        let interval = match &self.workload.pacing {
            &Pacing::Every { interval, .. } => interval,
            Pacing::Loops(loops) => {
                let table = loops.get(client).map_or(0, |l| l.table);
                self.arrive(now, client, table, Some((task, now)));
                return;
            }
            Pacing::Poisson => return,
        };
        let next = now + interval;
        if next < self.workload.arrivals_until {
            self.queue.schedule(next, Event::Tick { client, task });
        }
        let rates = &self.workload.rates;
        let total: f64 = rates.iter().sum();
        let mut draw = self.arrivals.unit() * total;
        let mut table = rates.len().saturating_sub(1);
        for (index, rate) in rates.iter().enumerate() {
            if draw < *rate {
                table = index;
                break;
            }
            draw -= rate;
        }
        self.arrive(now, client, table, None);
    }

    fn arrive(&mut self, now: f64, client: usize, table: usize, task: Option<(usize, f64)>) {
        let index = self.requests.len();
        self.requests.push(Request {
            client,
            table,
            task,
            arrived: now,
            token: None,
            sent: 0,
            done: false,
        });
        if let Some(bin) = self.timeline.at(table, now) {
            bin.arrivals += 1;
        }
        let Some(strategy) = self.fleet.get(client, table) else {
            self.finish(now, index, false, false);
            return;
        };
        let token = strategy.acquire_initial_token().ok();
        let delay = token.as_ref().map_or(0.0, |t| t.delay().as_secs_f64());
        self.requests[index].token = token;
        self.wait(now, index, delay);
    }

    /// Sleeps `wait` before asking for the send permit again, unless the
    /// request's budget would run out first (then it stops, as the
    /// executor's budget does). No wait: ask at once.
    fn wait(&mut self, now: f64, request: usize, wait: f64) {
        if wait <= 0.0 {
            self.ready(now, request);
            return;
        }
        if let Some(budget) = self.workload.budget {
            let elapsed = now - self.requests[request].arrived;
            if wait >= budget - elapsed {
                self.finish(now, request, false, true);
                return;
            }
        }
        self.queue.schedule(now + wait, Event::Ready(request));
    }

    fn ready(&mut self, now: f64, request: usize) {
        let Some(strategy) = self.strategy(request) else {
            return;
        };
        let mut token = self.requests[request].token.take();
        let permit = match token.as_mut() {
            Some(token) => strategy.acquire_send_permit(token),
            None => Ok(SendPermit::Granted),
        };
        self.requests[request].token = token;
        match permit {
            Ok(SendPermit::Granted) => {
                let r = &mut self.requests[request];
                let retry = r.sent > 0;
                r.sent += 1;
                if let Some(bin) = self.timeline.at(r.table, now) {
                    bin.attempts += 1;
                    bin.retries += u64::from(retry);
                }
                self.note(request, None);
                let at = now + self.latency();
                self.queue.schedule(at, Event::Reach(request));
            }
            Ok(SendPermit::Wait(wait)) => {
                // At least a nanosecond, as the executor sleeps.
                let wait = wait.as_secs_f64().max(1e-9);
                self.wait(now, request, wait);
            }
            Err(_refused) => self.finish(now, request, false, false),
        }
    }

    fn reach(&mut self, now: f64, request: usize) {
        let r = &self.requests[request];
        let answer = self.service.answer(now, r.table, r.sent);
        let at = now + self.latency();
        self.queue.schedule(at, Event::Reply { request, answer });
    }

    fn reply(&mut self, now: f64, request: usize, answer: Answer) {
        let table = self.requests[request].table;
        if let Some(bin) = self.timeline.at(table, now) {
            match answer {
                Answer::Success => bin.successes += 1,
                Answer::Throttled | Answer::SlowDown => bin.throttled += 1,
                Answer::Unavailable => bin.failed += 1,
            }
        }
        let Some(strategy) = self.strategy(request) else {
            return;
        };
        let token = self.requests[request].token.take();
        let Some(failure) = answer.failure() else {
            if let Some(token) = token {
                strategy.record_success(token);
            }
            self.note(request, Some(answer));
            self.finish(now, request, true, false);
            return;
        };
        let Some(token) = token else {
            // Untracked: one attempt, no retries.
            self.note(request, Some(answer));
            self.finish(now, request, false, false);
            return;
        };
        let refreshed = strategy.refresh_retry_token(token, &failure);
        self.note(request, Some(answer));
        match refreshed {
            Ok(next) => {
                if let Some(bin) = self.timeline.at(table, now) {
                    bin.granted += 1;
                }
                let delay = next.delay().as_secs_f64();
                self.requests[request].token = Some(next);
                self.wait(now, request, delay);
            }
            Err(_why) => self.finish(now, request, false, false),
        }
    }

    /// The request is over: `succeeded`, or given up (`timed_out` if by its
    /// budget). A token still held is handed back as abandoned, as the
    /// executor does when it stops before an attempt.
    fn finish(&mut self, now: f64, request: usize, succeeded: bool, timed_out: bool) {
        if let Some(token) = self.requests[request].token.take()
            && let Some(strategy) = self.strategy(request)
        {
            strategy.abandon(token);
        }
        let r = &mut self.requests[request];
        r.done = true;
        let (table, client, looped) = (r.table, r.client, r.task);
        if let (Some((task, ticked)), Pacing::Loops(loops)) = (looped, &self.workload.pacing)
            && let Some(client_loops) = loops.get(client)
        {
            if now < client_loops.until.min(self.workload.arrivals_until) {
                let at = (ticked + client_loops.period).max(now);
                self.queue.schedule(at, Event::Tick { client, task });
            } else if let Some(going) = self.looping.get_mut(client) {
                *going = going.saturating_sub(1);
                if *going == 0 {
                    self.background.stopped(now, client, &mut self.timers);
                }
            }
        }
        if !succeeded && let Some(bin) = self.timeline.at(table, now) {
            bin.gave_up += 1;
            if timed_out {
                bin.timed_out += 1;
            }
        }
    }
}
