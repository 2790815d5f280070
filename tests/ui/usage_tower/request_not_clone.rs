// A request type that is not `Clone`, under a layer left with its default
// way of copying requests: a compile error, not a silent no-retry.
use std::convert::Infallible;
use std::time::Duration;

use rebound::tower::RetryLayer;
use rebound::{Classified, StandardRetryStrategy};
use tower::{Layer, Service};

struct PutObject {
    body: Vec<u8>,
}

fn main() {
    let layer = RetryLayer::new(
        StandardRetryStrategy::new(),
        |_: Duration| std::future::ready(()),
        |result: &Result<u16, Infallible>| match result {
            Ok(200) => None,
            _ => Some(Classified::retryable()),
        },
    );
    let mut service = layer.layer(tower::service_fn(|request: PutObject| async move {
        Ok::<u16, Infallible>(if request.body.is_empty() { 400 } else { 200 })
    }));
    let _ = Service::<PutObject>::call(&mut service, PutObject { body: vec![1] });
}
