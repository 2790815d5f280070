//! What the conformance tests replay from a recording: the reference's
//! random draws, in order, and its exception classes as transport failures.

use std::collections::VecDeque;
use std::sync::Mutex;

use rebound_runtime::TransportFailure;
use serde_json::Value;

/// The recorded random draws, handed out in order.
#[derive(Default)]
pub struct Replay {
    draws: Mutex<VecDeque<f64>>,
}

impl Replay {
    /// Queues one attempt's draws; the previous attempt's must all be used.
    pub fn load(&self, draws: &[Value]) {
        let mut queue = self.draws.lock().unwrap();
        assert!(
            queue.is_empty(),
            "draws left over from the previous attempt: {queue:?}"
        );
        queue.extend(draws.iter().map(|d| d.as_f64().unwrap()));
    }

    /// The next recorded draw.
    pub fn next(&self) -> f64 {
        self.draws
            .lock()
            .unwrap()
            .pop_front()
            .expect("the strategy drew a random value the reference did not draw")
    }

    /// How many draws are left.
    pub fn left(&self) -> usize {
        self.draws.lock().unwrap().len()
    }
}

/// The transport failure a botocore exception class stands for.
pub fn transport_failure(class: &str) -> TransportFailure {
    match class {
        "ConnectionError" | "EndpointConnectionError" => TransportFailure::Connect,
        "ConnectTimeoutError" => TransportFailure::ConnectTimeout,
        "SSLError" => TransportFailure::Tls,
        "ProxyConnectionError" => TransportFailure::Proxy,
        "ReadTimeoutError" => TransportFailure::ReadTimeout,
        "ConnectionClosedError" => TransportFailure::ConnectionClosed,
        "ResponseStreamingError" => TransportFailure::ResponseStreaming,
        "HTTPClientError" => TransportFailure::Http,
        other => panic!("exception class {other} is not in the fixture"),
    }
}
