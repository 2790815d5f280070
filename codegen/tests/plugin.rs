//! smithy-build `run` plugin mode: the model on standard input, the
//! environment smithy-build sets, one file per service under
//! `SMITHY_PLUGIN_DIR`.

use std::io::Write;
use std::process::{Command, Stdio};

const MODEL: &str = include_str!("../fixtures/models/weather.json");

fn run_plugin(json: &str, dir: &std::path::Path) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
        .env("SMITHY_PLUGIN_DIR", dir)
        .env("SMITHY_PROJECTION_NAME", "source")
        .env("SMITHY_ARTIFACT_NAME", "rebound")
        .env("SMITHY_INCLUDES_PRELUDE", "false")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(json.as_bytes())
        .expect("write");
    child.wait_with_output().expect("runs")
}

#[test]
fn writes_one_file_per_service_under_the_plugin_dir() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plugin_dir = dir.path().join("build/smithy/source/rebound");
    let out = run_plugin(MODEL, &plugin_dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "nothing on standard output");
    let written = std::fs::read_to_string(plugin_dir.join("weather.rs")).expect("weather.rs");
    let expected = rebound_codegen::Generator::new()
        .model_json("<stdin>", MODEL)
        .generate()
        .expect("generates");
    assert_eq!(written, expected);
}

#[test]
fn several_services_give_several_files() {
    let json = r#"{"smithy": "2.0", "shapes": {
        "a#Alpha": {"type": "service", "traits": {"aws.api#service": {"sdkId": "Alpha Beta"}}},
        "b#Gamma": {"type": "service"}
    }}"#;
    let dir = tempfile::tempdir().expect("temp dir");
    let out = run_plugin(json, dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["alpha_beta.rs", "gamma.rs"]);
}

#[test]
fn a_bad_model_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plugin_dir = dir.path().join("out");
    let out = run_plugin("{\"smithy\": \"2.0\"", &plugin_dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("<stdin>: invalid JSON"));
    assert!(!plugin_dir.exists());
}

#[test]
fn the_prelude_in_the_model_is_recognised_not_generated() {
    // With SMITHY_INCLUDES_PRELUDE=true the AST carries the prelude's shapes.
    let json = r#"{"smithy": "2.0", "shapes": {
        "smithy.api#String": {"type": "string"},
        "smithy.api#Unit": {"type": "structure", "traits": {"smithy.api#unitType": {}}},
        "ex#Svc": {"type": "service", "errors": [{"target": "ex#E"}]},
        "ex#E": {"type": "structure", "members": {"message": {"target": "smithy.api#String"}},
                 "traits": {"smithy.api#error": "client"}}
    }}"#;
    let source = rebound_codegen::Generator::new()
        .model_json("m", json)
        .generate()
        .expect("generates");
    assert!(!source.contains("struct Unit"));
    assert!(!source.contains("struct String"));
    assert!(source.contains("pub message: ::std::option::Option<::std::string::String>"));
}
