//! Shared helpers for the runtime's integration tests.
//!
//! The conformance vectors are committed in `runtime/tests/conformance/` (a
//! copy of `shared/conformance/`, recorded from botocore; see the README
//! there for provenance), so a bare clone tests against them. Set
//! `REBOUND_CONFORMANCE_DIR` to read them from elsewhere (e.g. a newer
//! recording in `../shared/conformance`). A missing file is a test failure,
//! never a skip.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

pub mod checks;
pub mod counting;
pub mod replay;
pub mod vectors;

/// The directory holding the conformance vectors.
pub fn conformance_dir() -> PathBuf {
    match std::env::var_os("REBOUND_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance"),
    }
}

/// Reads and parses one conformance file, panicking with the path on failure.
pub fn load_conformance(file: &str) -> serde_json::Value {
    let path = conformance_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "conformance vectors {} are required (set REBOUND_CONFORMANCE_DIR to override): {err}",
            path.display()
        )
    });
    serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("{} is not valid JSON: {err}", path.display()))
}
