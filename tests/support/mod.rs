//! Helpers shared by the end-to-end tests.
#![allow(dead_code, unreachable_pub)]

#[cfg(feature = "opentelemetry")]
pub mod otel;
pub mod scripted_server;
#[cfg(feature = "tokio")]
pub mod slept;
