//! JSON → IDL → JSON on real models: the committed fixtures and, when the
//! workspace has `../shared/smithy-models` beside it, those too. The model
//! read back from the IDL files equals the original ([`normalize`]), and
//! the Rust generated from the IDL files is byte-identical to the Rust
//! generated from the JSON.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::conformance::{normalize, to_value};
use super::parse::parse_node;
use crate::Generator;

/// The JSON models the round trip runs on.
fn models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut models = Vec::new();
    for dir in [
        root.join("fixtures/models"),
        root.join("../../shared/smithy-models"),
        root.join("../shared/smithy-models"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        found.sort();
        models.extend(found);
    }
    models
}

fn as_value(json: &str) -> Value {
    to_value(&parse_node(json).expect("the JSON AST parses"))
}

/// One model through IDL and back: `None` when it matches, else what
/// differs.
fn round_trip(model: &Path) -> Option<String> {
    let name = model.display();
    let original = crate::json_ast(&[model.to_path_buf()]).expect("the JSON reads");
    let files = crate::idl_files(&[model.to_path_buf()])
        .unwrap_or_else(|e| panic!("{name}: cannot write IDL: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (namespace, text) in &files {
        let path = dir.path().join(format!("{namespace}.smithy"));
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let back = match crate::json_ast(&paths) {
        Ok(back) => back,
        Err(e) => return Some(format!("{name}: the IDL does not read back: {e}")),
    };
    if normalize(&[as_value(&original)]) != normalize(&[as_value(&back)]) {
        return Some(format!("{name}: the model read back differs"));
    }
    let from_json = Generator::new().model(model).generate_all();
    let from_idl = paths
        .iter()
        .fold(Generator::new(), |g, p| g.model(p))
        .generate_all();
    match (from_json, from_idl) {
        (Ok(json), Ok(idl)) if json == idl => None,
        (Err(json), Err(idl)) if json.kind().to_string() == idl.kind().to_string() => None,
        (json, idl) => Some(format!(
            "{name}: the Rust differs (from JSON: {}, from IDL: {})",
            json.map_or_else(|e| e.to_string(), |f| format!("{} files", f.len())),
            idl.map_or_else(|e| e.to_string(), |f| format!("{} files", f.len())),
        )),
    }
}

#[test]
fn models_go_through_idl_and_back_unchanged() {
    let models = models();
    assert!(models.len() >= 4, "the fixtures' models at least");
    let failures: Vec<String> = models.iter().filter_map(|m| round_trip(m)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} models:\n{}",
        failures.len(),
        models.len(),
        failures.join("\n")
    );
}
