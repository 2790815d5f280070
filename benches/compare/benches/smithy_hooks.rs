//! The time an operation spends in the orchestrator's retry hooks:
//! rebound through `rebound::smithy::RetryPlugin` against aws-smithy-runtime's
//! own standard and adaptive strategies, side by side, one thread.
//!
//! One iteration is one operation as the orchestrator runs it: a config bag
//! over the client's layer and an interceptor context; the interceptors'
//! `read_before_execution` and `read_before_serialization` (the plugin's
//! puts its request in the bag; the SDK's routes have none); `should_attempt_initial_request`; per attempt,
//! the attempt count in the bag, the outcome in the context,
//! `should_attempt_retry`. Run from `benches/compare/`:
//! `cargo bench --bench smithy_hooks`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;

use aws_smithy_async::time::SystemTimeSource;
use aws_smithy_runtime::client::retries::strategy::StandardRetryStrategy as AwsStandard;
use aws_smithy_runtime::client::retries::{RetryPartition, TokenBucket};
use aws_smithy_runtime_api::client::interceptors::Intercept as _;
use aws_smithy_runtime_api::client::interceptors::context::{Input, InterceptorContext, Output};
use aws_smithy_runtime_api::client::orchestrator::OrchestratorError;
use aws_smithy_runtime_api::client::retries::classifiers::SharedRetryClassifier;
use aws_smithy_runtime_api::client::retries::{RequestAttempts, RetryStrategy as _, ShouldAttempt};
use aws_smithy_runtime_api::client::runtime_components::{
    RuntimeComponents, RuntimeComponentsBuilder,
};
use aws_smithy_runtime_api::client::runtime_plugin::RuntimePlugin;
use aws_smithy_types::config_bag::{ConfigBag, FrozenLayer, Layer};
use aws_smithy_types::retry::RetryConfig;

mod common;

use common::FailedIsTransient;
use rebound::smithy::RetryPlugin;
use rebound::{AdaptiveRetryStrategy, RetryStrategy, StandardRetryStrategy};

/// What a client holds for all its operations: the runtime components
/// (retry strategy, classifier, interceptors, time source) and its config
/// layer.
struct Client {
    components: RuntimeComponents,
    layer: FrozenLayer,
    /// Whether the strategy retries (the floor's does not).
    retries: bool,
}

/// The least per-operation state a strategy can keep: a flag in the bag,
/// put there by an interceptor, read by both hooks. No mutex, no token.
#[derive(Debug)]
struct BagFlag;

impl aws_smithy_types::config_bag::Storable for BagFlag {
    type Storer = aws_smithy_types::config_bag::StoreReplace<Self>;
}

#[derive(Debug)]
struct PutFlag;

impl aws_smithy_runtime_api::client::interceptors::Intercept for PutFlag {
    fn name(&self) -> &'static str {
        "PutFlag"
    }

    fn read_before_execution(
        &self,
        _context: &aws_smithy_runtime_api::client::interceptors::context::BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), aws_smithy_runtime_api::box_error::BoxError> {
        cfg.interceptor_state().store_put(BagFlag);
        Ok(())
    }
}

/// Reads the flag in both hooks; retries nothing.
#[derive(Debug)]
struct ReadsFlag;

impl aws_smithy_runtime_api::client::retries::RetryStrategy for ReadsFlag {
    fn should_attempt_initial_request(
        &self,
        _components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) -> Result<ShouldAttempt, aws_smithy_runtime_api::box_error::BoxError> {
        black_box(cfg.load::<BagFlag>().unwrap());
        Ok(ShouldAttempt::Yes)
    }

    fn should_attempt_retry(
        &self,
        _context: &InterceptorContext,
        _components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) -> Result<ShouldAttempt, aws_smithy_runtime_api::box_error::BoxError> {
        black_box(cfg.load::<BagFlag>().unwrap());
        Ok(ShouldAttempt::No)
    }
}

fn base() -> RuntimeComponentsBuilder {
    RuntimeComponentsBuilder::for_tests()
        .with_retry_classifier(SharedRetryClassifier::new(FailedIsTransient))
        .with_time_source(Some(SystemTimeSource::new()))
}

impl Client {
    /// The SDK's own strategy, as its default plugins install it.
    fn sdk(config: RetryConfig, partition: &'static str) -> Self {
        let mut layer = Layer::new("client");
        layer.store_put(config);
        layer.store_put(TokenBucket::default());
        layer.store_put(RetryPartition::new(partition));
        let components = base()
            .with_retry_strategy(Some(AwsStandard::new()))
            .build()
            .unwrap();
        Self {
            components,
            layer: layer.freeze(),
            retries: true,
        }
    }

    /// No retries at all: what every route pays outside the hooks (the bag,
    /// the context, the attempt count), the floor under the others.
    fn floor() -> Self {
        let never = aws_smithy_runtime::client::retries::strategy::NeverRetryStrategy::new();
        Self::without_retries(base().with_retry_strategy(Some(never)))
    }

    /// The per-operation state's floor: [`BagFlag`].
    fn bag_flag() -> Self {
        Self::without_retries(
            base()
                .with_retry_strategy(Some(ReadsFlag))
                .with_interceptor(PutFlag),
        )
    }

    /// A client of `components` whose strategy never retries, with an empty
    /// config layer.
    fn without_retries(components: RuntimeComponentsBuilder) -> Self {
        Self {
            components: components.build().unwrap(),
            layer: Layer::new("client").freeze(),
            retries: false,
        }
    }

    /// rebound's strategy through the plugin.
    fn rebound<S>(strategy: S) -> Self
    where
        S: RetryStrategy + std::fmt::Debug + Send + Sync + 'static,
    {
        let plugin = RetryPlugin::new(strategy);
        let plugin_components = plugin.runtime_components(&base()).into_owned();
        let builder = base().merge_from(&plugin_components);
        Self {
            components: builder.build().unwrap(),
            layer: plugin.config().unwrap(),
            retries: true,
        }
    }

    /// One operation: `failures` failed attempts, then a success.
    #[inline(never)]
    fn operation(&self, failures: u32) {
        let mut cfg = ConfigBag::base();
        cfg.push_shared_layer(self.layer.clone());
        let mut ctx = InterceptorContext::new(Input::doesnt_matter());
        for interceptor in self.components.interceptors() {
            interceptor
                .read_before_execution(&(&ctx).into(), &mut cfg)
                .unwrap();
        }
        for interceptor in self.components.interceptors() {
            interceptor
                .read_before_serialization(&(&ctx).into(), &self.components, &mut cfg)
                .unwrap();
        }
        let strategy = self.components.retry_strategy();
        let first = strategy
            .should_attempt_initial_request(&self.components, &cfg)
            .unwrap();
        assert!(matches!(first, ShouldAttempt::Yes));
        for attempt in 1..=failures + 1 {
            cfg.interceptor_state()
                .store_put(RequestAttempts::new(attempt));
            if attempt <= failures {
                ctx.set_output_or_error(Err(OrchestratorError::other("503")));
            } else {
                ctx.set_output_or_error(Ok(Output::doesnt_matter()));
            }
            let next = strategy
                .should_attempt_retry(&ctx, &self.components, &cfg)
                .unwrap();
            if self.retries {
                assert_eq!(matches!(next, ShouldAttempt::No), attempt > failures);
            } else if matches!(next, ShouldAttempt::No) {
                break;
            }
        }
        black_box(&ctx);
    }
}

fn hooks(c: &mut Criterion, clients: &[(&str, Client)]) {
    let mut group = c.benchmark_group("smithy hooks: success");
    for (name, client) in clients {
        group.bench_function(*name, |b| b.iter(|| client.operation(0)));
    }
    group.finish();
    // One failure then a success: the retry's path. Virtual waits are not
    // slept: the hooks only say how long to wait.
    let mut group = c.benchmark_group("smithy hooks: one failure, then success");
    for (name, client) in clients.iter().filter(|(_, client)| client.retries) {
        group.bench_function(*name, |b| b.iter(|| client.operation(1)));
    }
    group.finish();
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Nanoseconds per operation of `client`, over a block of `ops`.
fn ns_per_operation(client: &Client, failures: u32, ops: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..ops {
        client.operation(failures);
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(ops)
}

/// Every route in turn, in blocks, the order rotating each round, so that
/// what else the machine does weighs on all alike. The time in the hooks is
/// each block's time less the floor's block of the same round; printed are
/// the medians over the rounds, and of each round's ratio to rebound
/// standard's or adaptive's hooks.
fn rotated(clients: &[(&str, Client)], failures: u32) {
    const ROUNDS: usize = 61;
    const OPS: u32 = 20_000;
    let mut times = vec![Vec::new(); clients.len()];
    for round in 0..ROUNDS {
        let mut block = vec![0.0; clients.len()];
        for step in 0..clients.len() {
            let index = (round + step) % clients.len();
            block[index] = ns_per_operation(&clients[index].1, failures, OPS);
        }
        for (index, time) in block.iter().enumerate() {
            times[index].push(time - block[0]);
        }
    }
    println!(
        "\nhooks per operation, {failures} failure(s) then success ({ROUNDS} rotated rounds of {OPS}):"
    );
    let rebound_standard = clients
        .iter()
        .position(|(name, _)| name.starts_with("rebound standard"));
    let rebound_adaptive = clients
        .iter()
        .position(|(name, _)| name.starts_with("rebound adaptive"));
    for (index, (name, _)) in clients.iter().enumerate().skip(1) {
        let ratio = |other: Option<usize>| {
            other.map_or(f64::NAN, |other| {
                median(
                    times[index]
                        .iter()
                        .zip(&times[other])
                        .map(|(a, b)| a / b)
                        .collect(),
                )
            })
        };
        println!(
            "  {name:32} {:7.1} ns   / rebound standard {:5.2}   / rebound adaptive {:5.2}",
            median(times[index].clone()),
            ratio(rebound_standard),
            ratio(rebound_adaptive),
        );
    }
    println!(
        "  (floor: {:.1} ns outside the hooks)",
        median(
            (0..ROUNDS)
                .map(|_| ns_per_operation(&clients[0].1, failures, OPS))
                .collect()
        )
    );
}

fn clients() -> Vec<(&'static str, Client)> {
    vec![
        ("floor: no retry strategy", Client::floor()),
        (
            "aws-smithy-runtime standard",
            Client::sdk(RetryConfig::standard(), "paired-standard"),
        ),
        (
            "aws-smithy-runtime adaptive",
            Client::sdk(RetryConfig::adaptive(), "paired-adaptive"),
        ),
        (
            "rebound standard (plugin)",
            Client::rebound(StandardRetryStrategy::new()),
        ),
        (
            "rebound adaptive (plugin)",
            Client::rebound(AdaptiveRetryStrategy::new()),
        ),
        (
            "rebound steady (plugin)",
            Client::rebound(AdaptiveRetryStrategy::steady()),
        ),
        ("a flag in the bag (put, 2 loads)", Client::bag_flag()),
        // The plugin's own cost: the request in the bag, its mutex, the
        // driver's steps, with a strategy that does next to nothing.
        (
            "rebound never (plugin)",
            Client {
                retries: false,
                ..Client::rebound(rebound::NeverRetryStrategy)
            },
        ),
    ]
}

fn main() {
    // `SMITHY_HOOKS_ONLY=<row>,<operations>`: only that many successful
    // operations of that row (0 is the floor), for an instruction count
    // under `valgrind --tool=callgrind` (deterministic where times are not).
    if let Ok(only) = std::env::var("SMITHY_HOOKS_ONLY") {
        let (row, operations) = only.split_once(',').expect("<row>,<operations>");
        let clients = clients();
        let client = &clients[row.parse::<usize>().unwrap()].1;
        for _ in 0..operations.parse::<u32>().unwrap() {
            client.operation(0);
        }
        return;
    }
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let clients = clients();
    hooks(&mut criterion, &clients);
    criterion.final_summary();
    rotated(&clients, 0);
    rotated(&clients, 1);
}
