//! A real HTTP server on 127.0.0.1 (axum, port 0) that answers each attempt
//! from a script and counts the attempts it saw, for the end-to-end tests.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, Response, StatusCode};

/// What the server does on one attempt.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A response with this status, these headers and this body.
    Status(u16, Vec<(&'static str, String)>, &'static str),
    /// Sleep this long (real time), then answer 200 `late`.
    Slow(Duration),
    /// A 200 whose body breaks off: the status, headers and part of the body
    /// go out, then (after a short real pause) the connection drops.
    DropMidBody,
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Self::Status(status, Vec::new(), "")
    }

    pub fn ok(body: &'static str) -> Self {
        Self::Status(200, Vec::new(), body)
    }

    pub fn with_header(status: u16, name: &'static str, value: impl Into<String>) -> Self {
        Self::Status(status, vec![(name, value.into())], "")
    }
}

/// A running server: its base URL and how many attempts reached it.
#[derive(Debug, Clone)]
pub struct Server {
    pub url: String,
    attempts: Arc<AtomicU32>,
}

impl Server {
    /// Starts a server answering attempt `n` (1-based) with `script[n - 1]`,
    /// and the last entry for every attempt beyond.
    pub async fn start(script: Vec<Reply>) -> Self {
        assert!(!script.is_empty());
        let attempts = Arc::new(AtomicU32::new(0));
        let script = Arc::new(script);
        let app = axum::Router::new().fallback({
            let attempts = Arc::clone(&attempts);
            move || {
                let n = attempts.fetch_add(1, Ordering::SeqCst) as usize;
                let reply = script[n.min(script.len() - 1)].clone();
                answer(reply)
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { url, attempts }
    }

    /// The attempts the server saw.
    pub fn attempts(&self) -> u32 {
        self.attempts.load(Ordering::SeqCst)
    }
}

async fn answer(reply: Reply) -> Response<Body> {
    match reply {
        Reply::Status(status, headers, body) => {
            let mut response = Response::new(Body::from(body));
            *response.status_mut() = StatusCode::from_u16(status).unwrap();
            for (name, value) in headers {
                response.headers_mut().append(
                    HeaderName::from_static(name),
                    HeaderValue::from_str(&value).unwrap(),
                );
            }
            response
        }
        Reply::Slow(delay) => {
            tokio::time::sleep(delay).await;
            Response::new(Body::from("late"))
        }
        Reply::DropMidBody => {
            // Part of the body, a pause so that it reaches the client, then
            // an error: hyper drops the connection without ending the body.
            let chunks = futures_util::stream::unfold(0, |step| async move {
                match step {
                    0 => Some((Ok(Bytes::from_static(b"the first half of the body")), 1)),
                    1 => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Some((
                            Err(std::io::Error::other("the server dropped the connection")),
                            2,
                        ))
                    }
                    _ => None,
                }
            });
            Response::new(Body::from_stream(chunks))
        }
    }
}
