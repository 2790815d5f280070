//! A retry quota and an adaptive send rate shared by every process that names the fleet
//! `checkout-api`, through Redis or Valkey (the README's fleet example).
//!
//! ```sh
//! redis-server --port 6379 &
//! cargo run --example fleet --features redis,tokio            # in several terminals at once
//! REDIS_URL=redis://other:6379/ cargo run --example fleet --features redis,tokio
//! ```
//!
//! Each run makes 20 requests to a service that fails half of them, and prints what its share
//! of the fleet's quota has left. Without a store at the URL it runs on local limits and says so.

use std::sync::Arc;
use std::time::Duration;

use rebound::redis::{FleetLimiter, FleetQuota, FleetQuotaConfig};
use rebound::{AdaptiveRetryStrategy, Classified, Retry, StandardRetryStrategy};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned());
    let config = FleetQuotaConfig::builder("checkout-api")
        .connect_timeout(Duration::from_millis(500))
        .build()?; // 500 tokens for the whole fleet
    let quota = FleetQuota::connect(&url, config.clone()).await?;
    let standard = StandardRetryStrategy::builder()
        .quota(quota.retry_quota().clone())
        .build();
    let strategy = AdaptiveRetryStrategy::builder(standard).build();
    let limiter = FleetLimiter::connect(&url, config, Arc::new(strategy.clone())).await?;
    let retry = Retry::new(&strategy).sleeper(|delay| tokio::time::sleep(delay / 100));

    let mut failed = 0;
    for request in 0..20_u32 {
        let outcome = retry
            .run_async_classified(
                |attempt| async move {
                    // A flaky service: the first attempt of every other request fails.
                    if request % 2 == 0 && attempt == 1 {
                        Err("unavailable")
                    } else {
                        Ok(())
                    }
                },
                |_| Classified::retryable(),
            )
            .await;
        failed += u32::from(outcome.is_err());
    }
    println!(
        "20 requests, {failed} failed; fleet quota {:?}, {} tokens in this process's share; \
         rate limiter {:?}",
        quota.state(),
        quota.available(),
        limiter.state()
    );
    limiter.close().await;
    quota.close().await;
    Ok(())
}
