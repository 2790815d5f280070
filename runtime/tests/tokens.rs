//! Issue #10 item 2: tokens are made only by a strategy, and a strategy
//! refuses a token another strategy made (`TokenAcquisitionFailed::ForeignToken`),
//! without touching its own state.

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, NeverRetryStrategy, Partitions, RetryStrategy, SendPermit,
    StandardRetryStrategy, TokenAcquisitionFailed,
};

fn unavailable() -> HttpErrorResponse {
    HttpErrorResponse::new(503)
}

fn throttled() -> HttpErrorResponse {
    HttpErrorResponse::new(400).with_code("ThrottlingException")
}

#[test]
fn a_standard_strategy_refuses_another_strategys_token_and_keeps_its_quota() {
    let (ours, theirs) = (StandardRetryStrategy::new(), StandardRetryStrategy::new());
    let token = theirs.acquire_initial_token().unwrap();
    let token = theirs.refresh_retry_token(token, &unavailable()).unwrap();
    assert_eq!(theirs.quota().available(), 495);

    // Refreshing: refused, nothing taken from our quota.
    let again = theirs.refresh_retry_token(token, &unavailable()).unwrap();
    assert_eq!(
        ours.refresh_retry_token(again, &unavailable()),
        Err(TokenAcquisitionFailed::ForeignToken { attempts: 3 })
    );
    assert_eq!(ours.quota().available(), 500);

    // A success reported with a foreign token refunds nothing anywhere.
    let token = theirs.acquire_initial_token().unwrap();
    let token = theirs.refresh_retry_token(token, &unavailable()).unwrap();
    let theirs_before = theirs.quota().available();
    ours.record_success(token);
    assert_eq!(ours.quota().available(), 500);
    assert_eq!(theirs.quota().available(), theirs_before);
}

#[test]
fn clones_and_strategies_sharing_a_quota_accept_each_others_tokens() {
    let strategy = StandardRetryStrategy::new();
    let clone = strategy.clone();
    let same_quota = StandardRetryStrategy::new().with_quota(strategy.quota().clone());
    let token = strategy.acquire_initial_token().unwrap();
    let token = clone.refresh_retry_token(token, &unavailable()).unwrap();
    let token = same_quota
        .refresh_retry_token(token, &unavailable())
        .unwrap();
    assert_eq!(token.attempt(), 3);
    assert_eq!(strategy.quota().available(), 490);
    same_quota.record_success(token);
    assert_eq!(strategy.quota().available(), 495, "the last retry's cost");
}

#[test]
fn one_partitions_token_is_refused_by_another_partition() {
    let endpoints: Partitions<String, StandardRetryStrategy> =
        StandardRetryStrategy::new().partitions();
    let (east, west) = (endpoints.get("us-east-1"), endpoints.get("us-west-2"));
    let token = east.acquire_initial_token().unwrap();
    assert_eq!(
        west.refresh_retry_token(token, &unavailable()),
        Err(TokenAcquisitionFailed::ForeignToken { attempts: 1 })
    );
    // The same key gives the same partition, which accepts it.
    let token = east.acquire_initial_token().unwrap();
    let token = endpoints
        .get("us-east-1")
        .refresh_retry_token(token, &unavailable())
        .unwrap();
    assert_eq!(token.attempt(), 2);
    assert_eq!(east.quota().available(), 495);
    assert_eq!(west.quota().available(), 500);
}

#[test]
fn an_adaptive_strategy_refuses_a_foreign_token_before_touching_its_limiter() {
    let clock = ManualClock::new();
    let adaptive = |mode| {
        AdaptiveRetryStrategy::builder(StandardRetryStrategy::builder().random(|| 0.5).build())
            .wait_policy(mode)
            .clock(clock.clone())
            .build()
    };
    let (ours, theirs) = (adaptive(WaitPolicy::Block), adaptive(WaitPolicy::Block));

    // Turn our limiter on, so that a send permit would otherwise be metered.
    let token = ours.acquire_initial_token().unwrap();
    let _retry = ours.refresh_retry_token(token, &throttled()).unwrap();
    assert!(ours.rate_limiter().is_enabled());
    let rate = ours.rate_limiter().send_rate();

    let mut foreign = theirs.acquire_initial_token().unwrap();
    assert_eq!(
        ours.acquire_send_permit(&mut foreign),
        Err(TokenAcquisitionFailed::ForeignToken { attempts: 1 })
    );
    assert_eq!(
        ours.refresh_retry_token(foreign, &throttled()),
        Err(TokenAcquisitionFailed::ForeignToken { attempts: 1 })
    );
    ours.record_success(theirs.acquire_initial_token().unwrap());
    assert_eq!(
        ours.rate_limiter().send_rate(),
        rate,
        "no response recorded"
    );
    assert_eq!(ours.standard().quota().available(), 495);

    // Its own tokens still work.
    let mut own = ours.acquire_initial_token().unwrap();
    assert!(matches!(
        ours.acquire_send_permit(&mut own),
        Ok(SendPermit::Granted | SendPermit::Wait(_))
    ));
}

#[test]
fn a_legacy_strategy_refuses_a_foreign_token() {
    let (ours, theirs) = (
        LegacyRetryStrategy::new(LegacyPreset::Botocore),
        LegacyRetryStrategy::new(LegacyPreset::Botocore),
    );
    let token = theirs.acquire_initial_token().unwrap();
    assert_eq!(
        ours.refresh_retry_token(token, &unavailable()),
        Err(TokenAcquisitionFailed::ForeignToken { attempts: 1 })
    );
    let standard = StandardRetryStrategy::new();
    let token = standard.acquire_initial_token().unwrap();
    assert!(matches!(
        ours.refresh_retry_token(token, &unavailable()),
        Err(TokenAcquisitionFailed::ForeignToken { .. })
    ));
}

#[test]
fn never_retry_keeps_no_account_and_its_tokens_are_foreign_everywhere_else() {
    let standard = StandardRetryStrategy::new();
    // Never accepts any token (it refuses every retry anyway).
    let token = standard.acquire_initial_token().unwrap();
    assert!(matches!(
        NeverRetryStrategy.refresh_retry_token(token, &unavailable()),
        Err(TokenAcquisitionFailed::AttemptsExhausted { .. })
    ));
    // Its tokens are nobody else's.
    let token = NeverRetryStrategy.acquire_initial_token().unwrap();
    assert_eq!(
        standard.refresh_retry_token(token, &unavailable()),
        Err(TokenAcquisitionFailed::ForeignToken { attempts: 1 })
    );
}

#[test]
fn the_refusal_names_the_attempt_and_says_why() {
    let why = TokenAcquisitionFailed::ForeignToken { attempts: 2 };
    assert_eq!(why.attempts(), 2);
    assert_eq!(
        why.to_string(),
        "attempt 2's token was issued by another strategy"
    );
}
