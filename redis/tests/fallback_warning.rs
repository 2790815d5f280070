//! The fallback to local limits is a `tracing` warning. Alone in its test binary: `tracing`
//! caches each callsite's interest for the whole process, and another test reaching the same
//! callsite on a thread without a subscriber, at the same moment, can leave this test's
//! subscriber unasked (seen when the other tests of `quota.rs` skip at once, without a
//! `redis-server`).

use std::sync::Arc;
use std::time::Duration;

use rebound_redis::{FleetQuota, FleetQuotaConfig};

/// The events a [`Recorder`] saw: level, target, and the fields as `name=value`.
type Events = Arc<std::sync::Mutex<Vec<(tracing::Level, String, Vec<String>)>>>;

/// A minimal `tracing` subscriber that keeps every event.
struct Recorder(Events);

struct Fields(Vec<String>);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push(format!("{}={value:?}", field.name()));
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        let meta = event.metadata();
        self.0
            .lock()
            .unwrap()
            .push((*meta.level(), meta.target().to_owned(), fields.0));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Falling back to local limits is a WARN event, target `rebound`, naming the fleet and the
/// error.
#[tokio::test]
async fn falling_back_logs_a_warning() {
    let events = Events::default();
    let _guard = tracing::subscriber::set_default(Recorder(Arc::clone(&events)));
    let config = FleetQuotaConfig::builder("logged")
        .call_timeout(Duration::from_millis(200))
        .connect_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let quota = FleetQuota::connect("redis://127.0.0.1:1/", config)
        .await
        .unwrap();
    assert!(quota.is_degraded());
    let events = events.lock().unwrap().clone();
    let warnings: Vec<_> = events
        .iter()
        .filter(|(level, target, _)| *level == tracing::Level::WARN && target == "rebound")
        .collect();
    assert_eq!(warnings.len(), 1, "{events:?}");
    let fields = &warnings[0].2;
    assert!(fields.iter().any(|f| f == "fleet=\"logged\""), "{fields:?}");
    assert!(fields.iter().any(|f| f.starts_with("error=")), "{fields:?}");
    drop(quota);
}
