//! `rebound_smithy::send` as a drop-in for `send()` on the real
//! `aws-sdk-dynamodb` client, against the local awsJson1_0 server: the
//! guard against the client's own retries (its default, its config, an
//! override), the same result type as the client's, refusals found, paged
//! operations retried page by page, and the SDK's retry-after rule when
//! asked for.

mod support;

use std::sync::Mutex;
use std::time::Duration;

use aws_sdk_dynamodb::config::BehaviorVersion;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::list_tables::{ListTablesError, ListTablesOutput};
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use aws_smithy_types::retry::{RetryConfig, RetrySpec};
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, Retry, RetryInfo, RetryStrategy, StandardRetryStrategy, StopReason,
    TokenAcquisitionFailed,
};
use rebound_smithy::{ClientRetries, ClientRetriesGuard, RetryStopped};
use support::{RecordingSleep, Reply, Server, config, config_at};

/// The `ClientRetries` among `error`'s sources.
fn client_retries<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a ClientRetries> {
    std::iter::successors(Some(error), |&error| error.source())
        .find_map(|error| error.downcast_ref::<ClientRetries>())
}

fn outage() -> Vec<Reply> {
    vec![Reply::error(500, "InternalServerError"); 9]
}

#[tokio::test]
async fn a_client_left_at_its_default_retries_by_itself_and_is_refused() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let default = config_at(&server, BehaviorVersion::latest(), &sleep).build();
    // What the guard is for: the newest behaviour version retries by itself.
    let client = aws_sdk_dynamodb::Client::from_conf(default.clone());
    server.script.push(outage());
    let _ = client.list_tables().send().await.unwrap_err();
    assert_eq!(server.script.requests(), 3, "the SDK's own 3 attempts");

    // The check cannot see the behaviour version: an unset config is refused.
    let error = rebound_smithy::check_client_retries(default.retry_config()).unwrap_err();
    assert_eq!(error.max_attempts(), None);
    assert!(
        error.to_string().contains("RetryConfig::disabled()"),
        "{error}"
    );

    // The guard reads what the operation will use, and sends nothing.
    server.script.reset();
    let guarded = aws_sdk_dynamodb::Client::from_conf(
        default.to_builder().interceptor(ClientRetriesGuard).build(),
    );
    let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|_| std::future::ready(()));
    let error = rebound_smithy::send(&retry, || guarded.list_tables().send())
        .await
        .unwrap_err();
    assert_eq!(server.script.requests(), 0);
    let refused = client_retries(&error).expect("ClientRetries among the sources");
    assert_eq!(refused.max_attempts(), Some(3));
    // Not retried by rebound either: the refusal is no service's failure.
    assert_eq!(
        rebound_smithy::classify(&error).retry_safety(),
        rebound_runtime::RetrySafety::No
    );
}

#[tokio::test]
async fn any_max_attempts_above_one_is_refused_and_one_attempt_passes() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    for max_attempts in [2, 3, 5] {
        let retry_config = RetryConfig::standard().with_max_attempts(max_attempts);
        let error = rebound_smithy::check_client_retries(Some(&retry_config)).unwrap_err();
        assert_eq!(error.max_attempts(), Some(max_attempts));

        server.script.reset();
        let client = aws_sdk_dynamodb::Client::from_conf(
            config(&server, retry_config, &sleep)
                .interceptor(ClientRetriesGuard)
                .build(),
        );
        let error = client.list_tables().send().await.unwrap_err();
        assert_eq!(server.script.requests(), 0, "max {max_attempts}");
        assert_eq!(
            client_retries(&error).and_then(ClientRetries::max_attempts),
            Some(max_attempts)
        );
    }
    // Off, and one attempt in standard mode, pass both.
    for retry_config in [
        RetryConfig::disabled(),
        RetryConfig::standard().with_max_attempts(1),
    ] {
        assert!(rebound_smithy::check_client_retries(Some(&retry_config)).is_ok());
        server.script.reset();
        server.script.push(outage());
        let client = aws_sdk_dynamodb::Client::from_conf(
            config(&server, retry_config, &sleep)
                .interceptor(ClientRetriesGuard)
                .build(),
        );
        let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|_| std::future::ready(()));
        let _ = rebound_smithy::send(&retry, || client.list_tables().send()).await;
        assert_eq!(
            server.script.requests(),
            3,
            "rebound's 3 attempts, one request each"
        );
    }
}

#[tokio::test]
async fn an_override_turning_retries_back_on_is_refused_by_the_guard() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep)
            .interceptor(ClientRetriesGuard)
            .build(),
    );
    let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|_| std::future::ready(()));
    server.script.push(outage());
    let error = rebound_smithy::send(&retry, || {
        client
            .list_tables()
            .customize()
            .config_override(
                aws_sdk_dynamodb::Config::builder().retry_config(RetryConfig::standard()),
            )
            .send()
    })
    .await
    .unwrap_err();
    assert_eq!(server.script.requests(), 0);
    assert_eq!(
        client_retries(&error).and_then(ClientRetries::max_attempts),
        Some(3)
    );
}

#[tokio::test]
async fn an_older_behaviour_version_left_unset_makes_one_attempt_and_the_guard_lets_it_through() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let default = config_at(&server, support::published_standard_mode(), &sleep);
    // Unset: the check cannot tell, and refuses.
    assert!(rebound_smithy::check_client_retries(default.clone().build().retry_config()).is_err());
    // The guard sees the behaviour version's default: off.
    let client =
        aws_sdk_dynamodb::Client::from_conf(default.interceptor(ClientRetriesGuard).build());
    server.script.push(outage());
    let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|_| std::future::ready(()));
    let _ = rebound_smithy::send(&retry, || client.list_tables().send()).await;
    assert_eq!(server.script.requests(), 3);
}

/// A function written against the client's own result, unchanged.
async fn list_tables(
    client: &aws_sdk_dynamodb::Client,
    retry: &Retry<StandardRetryStrategy, fn(Duration) -> std::future::Ready<()>>,
) -> Result<ListTablesOutput, SdkError<ListTablesError, HttpResponse>> {
    rebound_smithy::send(retry, || client.list_tables().send()).await
}

#[tokio::test]
async fn send_returns_what_the_client_returns() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let no_wait: fn(Duration) -> std::future::Ready<()> = |_| std::future::ready(());
    let retry = Retry::new(StandardRetryStrategy::new()).sleeper(no_wait);

    server.script.push([Reply::status(503), Reply::ok()]);
    assert!(list_tables(&client, &retry).await.is_ok());
    assert_eq!(server.script.requests(), 2);

    // The last attempt's error, as the client returned it.
    server.script.reset();
    server.script.push(outage());
    match list_tables(&client, &retry).await.unwrap_err() {
        SdkError::ServiceError(error) => {
            assert_eq!(error.raw().status().as_u16(), 500);
            assert!(matches!(
                error.err(),
                ListTablesError::InternalServerError(_)
            ));
        }
        other => panic!("expected the service's error, got {other:?}"),
    }
    assert_eq!(server.script.requests(), 3);
    let error = list_tables(&client, &retry).await.unwrap_err();
    assert!(
        RetryStopped::find(&error).is_none(),
        "an attempt's failure is no refusal"
    );
}

/// Waits that advance a virtual clock.
fn advancing(clock: &ManualClock) -> impl Fn(Duration) -> std::future::Ready<()> {
    let clock = clock.clone();
    move |delay| {
        clock.advance(delay);
        std::future::ready(())
    }
}

#[tokio::test]
async fn a_request_refused_before_its_first_attempt_is_an_sdk_error_carrying_retry_stopped() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let clock = ManualClock::new();
    let strategy =
        AdaptiveRetryStrategy::builder(StandardRetryStrategy::builder().random(|| 0.5).build())
            .wait_policy(WaitPolicy::FailFast)
            .clock(clock.clone())
            .build();
    let retry = Retry::new(&strategy)
        .sleeper(advancing(&clock))
        .clock(clock.clone());
    // A throttle turns the limiter on with an empty bucket: its retry is refused.
    server
        .script
        .push([Reply::error(400, "ThrottlingException")]);
    let error = rebound_smithy::send(&retry, || client.list_tables().send())
        .await
        .unwrap_err();
    assert!(
        matches!(error, SdkError::ServiceError(_)),
        "the throttle, the last failure: {error:?}"
    );
    assert_eq!(server.script.requests(), 1);

    // The next call is refused before it is sent.
    let error = rebound_smithy::send(&retry, || client.list_tables().send())
        .await
        .unwrap_err();
    assert_eq!(server.script.requests(), 1);
    assert!(
        matches!(error, SdkError::ConstructionFailure(_)),
        "{error:?}"
    );
    let stopped = RetryStopped::find(&error).expect("RetryStopped among the sources");
    assert_eq!(stopped.attempts(), 0);
    assert!(matches!(
        stopped.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::RateLimited { .. })
    ));
    assert_eq!(
        rebound_smithy::classify(&error).retry_safety(),
        rebound_runtime::RetrySafety::No
    );
    // The same request through `send_detailed`: rebound's own account.
    let detailed = rebound_smithy::send_detailed(&retry, || client.list_tables().send())
        .await
        .unwrap_err();
    assert_eq!(detailed.attempts(), 0);
    assert!(detailed.last_error().is_none());
}

fn page(tables: &[&str], last: Option<&str>) -> Reply {
    let mut body = serde_json::json!({ "TableNames": tables });
    if let Some(last) = last {
        body["LastEvaluatedTableName"] = last.into();
    }
    Reply::json(body)
}

#[tokio::test]
async fn a_paginated_operation_is_retried_page_by_page_with_no_page_lost_or_repeated() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep)
            .interceptor(ClientRetriesGuard)
            .build(),
    );
    let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|_| std::future::ready(()));
    server.script.push([
        page(&["a", "b"], Some("b")),
        Reply::error(500, "InternalServerError"),
        page(&["c", "d"], Some("d")),
        Reply::status(503),
        Reply::error(400, "ThrottlingException"),
        page(&["e"], None),
    ]);
    let mut pages = rebound_smithy::paginate(
        &retry,
        |start| {
            client
                .list_tables()
                .set_exclusive_start_table_name(start)
                .send()
        },
        |page| page.last_evaluated_table_name().map(str::to_owned),
    );
    let mut tables = Vec::new();
    let mut count = 0;
    while let Some(page) = pages.next().await {
        tables.extend(page.unwrap().table_names().iter().cloned());
        count += 1;
    }
    assert_eq!(tables, ["a", "b", "c", "d", "e"]);
    assert_eq!(count, 3);
    // Each page's request, retried with the token it started from.
    let starts: Vec<_> = server
        .script
        .bodies()
        .iter()
        .map(|body| body["ExclusiveStartTableName"].as_str().map(str::to_owned))
        .collect();
    let some = |name: &str| Some(name.to_owned());
    assert_eq!(
        starts,
        [None, some("b"), some("b"), some("d"), some("d"), some("d")]
    );
    assert!(pages.next().await.is_none(), "the pages have ended");
}

#[tokio::test]
async fn a_page_rebound_gives_up_on_is_the_last_item_and_a_repeated_token_ends_the_pages() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|_| std::future::ready(()));
    let list = |start| {
        client
            .list_tables()
            .set_exclusive_start_table_name(start)
            .send()
    };
    let last = |page: &ListTablesOutput| page.last_evaluated_table_name().map(str::to_owned);

    server.script.push([page(&["a"], Some("a"))]);
    server.script.push(outage());
    let mut pages = rebound_smithy::paginate(&retry, list, last);
    assert!(pages.next().await.unwrap().is_ok());
    let error = pages.next().await.unwrap().unwrap_err();
    assert!(matches!(error, SdkError::ServiceError(_)));
    assert!(pages.next().await.is_none());
    assert_eq!(server.script.requests(), 4, "one page, then 3 attempts");

    // A service that hands back the token it was given: one page, then the end.
    server.script.reset();
    server
        .script
        .push([page(&["a"], Some("a")), page(&["a"], Some("a"))]);
    let mut pages = rebound_smithy::paginate(&retry, list, last);
    let mut count = 0;
    while let Some(page) = pages.next().await {
        page.unwrap();
        count += 1;
    }
    assert_eq!(count, 2);
    assert_eq!(server.script.requests(), 2);
}

/// The waits the SDK's own strategy made and the waits rebound made with
/// `standard_like` of the same configuration, on one script.
async fn both_waits(
    server: &Server,
    retry_config: RetryConfig,
    replies: Vec<Reply>,
) -> [Vec<Duration>; 2] {
    let sdk_sleep = RecordingSleep::default();
    let sdk = aws_sdk_dynamodb::Client::from_conf(
        config(server, retry_config.clone(), &sdk_sleep).build(),
    );
    server.script.reset();
    server.script.push(replies.clone());
    let _ = sdk.list_tables().send().await;

    let sleep = RecordingSleep::default();
    let plain = aws_sdk_dynamodb::Client::from_conf(
        config(server, RetryConfig::disabled(), &sleep).build(),
    );
    let waits = Mutex::new(Vec::new());
    let retry = Retry::new(rebound_smithy::standard_like(&retry_config).build()).sleeper(|delay| {
        waits.lock().unwrap().push(delay);
        std::future::ready(())
    });
    server.script.reset();
    server.script.push(replies);
    let _ = rebound_smithy::send(&retry, || plain.list_tables().send()).await;
    [sdk_sleep.waits(), waits.into_inner().unwrap()]
}

#[tokio::test]
async fn standard_like_follows_the_sdks_retry_after_rule_in_both_behaviours() {
    let server = Server::start().await;
    let hinted = |millis: &str| Reply::status(503).with_header("x-amz-retry-after", millis);
    let ms = Duration::from_millis;
    // Retry behaviour 2.0 (no spec): the hint, up to 20 s, in place of the backoff.
    for (hint, wait) in [("1500", ms(1500)), ("100", ms(100)), ("30000", ms(20_000))] {
        let [sdk, rebound] = both_waits(
            &server,
            RetryConfig::standard(),
            vec![hinted(hint), Reply::ok()],
        )
        .await;
        assert_eq!(sdk, [wait], "SDK, hint {hint}");
        assert_eq!(rebound, [wait], "rebound, hint {hint}");
    }
    // Retry behaviour 2.1: at least the backoff (here under 50 ms), at most 5 s past it.
    let v2_1 = RetryConfig::standard().with_retry_spec(RetrySpec::v2_1());
    let [sdk, rebound] = both_waits(&server, v2_1.clone(), vec![hinted("1500"), Reply::ok()]).await;
    assert_eq!(sdk, [ms(1500)]);
    assert_eq!(rebound, [ms(1500)]);
    let [sdk, rebound] = both_waits(&server, v2_1, vec![hinted("30000"), Reply::ok()]).await;
    for wait in [sdk[0], rebound[0]] {
        assert!(wait >= ms(5000) && wait <= ms(5050), "{wait:?}");
    }
    // Without a hint, the same generation's backoff bounds: 2.1's 50 ms base.
    let strategy =
        rebound_smithy::standard_like(&RetryConfig::standard().with_retry_spec(RetrySpec::v2_1()))
            .random(|| 0.5)
            .build();
    assert_eq!(strategy.behavior(), rebound_runtime::RetryBehavior::V2_1);
    let token = strategy.acquire_initial_token().unwrap();
    let failure = rebound_runtime::Classified::unknown().with_status(503);
    let token = strategy.refresh_retry_token(token, &failure).unwrap();
    assert_eq!(token.delay(), ms(25));
    assert_eq!(failure.retry_after(), None);
}
