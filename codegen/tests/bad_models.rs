//! Each kind of bad model gives one clear error naming the shape (and the
//! JSON location), through the library and the CLI: a non-zero exit, no
//! panic, no output file.

use std::path::Path;
use std::process::{Command, Stdio};

use rebound_codegen::{ErrorKind, Generator};

fn generate(json: &str) -> rebound_codegen::CodegenError {
    Generator::new()
        .model_json("bad.json", json)
        .generate()
        .expect_err("a bad model")
}

/// A valid model around `shapes` (a service listing `errors`).
fn model(errors: &str, shapes: &str) -> String {
    format!(
        r#"{{"smithy": "2.0", "shapes": {{
            "ex#Svc": {{"type": "service", "errors": [{errors}]}}{shapes}
        }}}}"#
    )
}

#[test]
fn invalid_json_names_line_and_column() {
    let err = generate("{\"smithy\": \"2.0\",\n \"shapes\": {,}}");
    assert!(
        matches!(err.kind(), ErrorKind::Json { line: 2, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("bad.json: invalid JSON at line 2, column 13: "),
        "{err}"
    );
}

#[test]
fn json_that_is_not_a_smithy_ast() {
    for (json, reason) in [
        ("[]", "the document is not a JSON object"),
        ("{\"shapes\": {}}", "it has no `smithy` version"),
        ("{\"smithy\": 2}", "`smithy` is not a version string"),
        (
            "{\"smithy\": \"3.0\"}",
            "unsupported `smithy` version \"3.0\" (1.0 and 2.0 are read)",
        ),
        (
            "{\"smithy\": \"2.0\", \"shapes\": []}",
            "`shapes` is not an object",
        ),
    ] {
        let err = generate(json);
        assert_eq!(
            err.to_string(),
            format!("bad.json: not a Smithy JSON AST: {reason}")
        );
    }
}

#[test]
fn a_shape_that_does_not_read_names_it_and_where() {
    let err = generate(&model(
        "",
        r#", "ex#E": {"type": "structure", "members": {"m": {"traget": "x"}}}"#,
    ));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#E` at /shapes/ex#E/members/m: missing field `target`"
    );
    let err = generate(&model("", r#", "ex#E": {"type": "strukture"}"#));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#E` at /shapes/ex#E/type: unknown shape type \"strukture\""
    );
    let err = generate(r#"{"smithy": "2.0", "shapes": {"NoNamespace": {"type": "string"}}}"#);
    assert!(matches!(err.kind(), ErrorKind::InvalidShape { shape, .. } if shape == "NoNamespace"));
}

#[test]
fn an_error_trait_other_than_client_or_server() {
    let err = generate(&model(
        r#"{"target": "ex#E"}"#,
        r#", "ex#E": {"type": "structure", "traits": {"smithy.api#error": "caller"}}"#,
    ));
    assert!(matches!(err.kind(), ErrorKind::InvalidErrorTrait { .. }));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#E` at /shapes/ex#E/traits/smithy.api#error: `smithy.api#error` is \"caller\", \
         expected \"client\" or \"server\""
    );
}

#[test]
fn a_reference_to_a_missing_shape() {
    let err = generate(&model(
        r#"{"target": "ex#E"}"#,
        r#", "ex#E": {"type": "structure", "members": {"detail": {"target": "ex#Gone"}},
                      "traits": {"smithy.api#error": "client"}}"#,
    ));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#E` at /shapes/ex#E/members/detail/target: refers to `ex#Gone`, which the model does not define"
    );
    let err = generate(&model(r#"{"target": "ex#Nowhere"}"#, ""));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#Svc` at /shapes/ex#Svc/errors/0/target: refers to `ex#Nowhere`, which the model does not define"
    );
}

#[test]
fn two_shapes_with_one_rust_name() {
    let err = generate(&model(
        r#"{"target": "ex#E"}, {"target": "other#E"}"#,
        r#", "ex#E": {"type": "structure", "traits": {"smithy.api#error": "client"}},
            "other#E": {"type": "structure", "traits": {"smithy.api#error": "server"}}"#,
    ));
    assert_eq!(
        err.to_string(),
        "bad.json: shapes `ex#E` and `other#E` both become `E` in `types::error`"
    );
    // A name that is not a Smithy identifier is refused, not sanitized into
    // another shape's name.
    let err = generate(&model(
        r#"{"target": "ex#E"}"#,
        r#", "ex#E": {"type": "structure", "members": {"a": {"target": "ex#A_B"}, "b": {"target": "ex#A-B"}},
                      "traits": {"smithy.api#error": "client"}},
            "ex#A_B": {"type": "structure"}, "ex#A-B": {"type": "structure"}"#,
    ));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#A-B` at /shapes/ex#A-B: \"ex#A-B\" is not a Smithy shape ID"
    );
}

#[test]
fn an_error_trait_on_a_non_structure() {
    let err = generate(&model(
        "",
        r#", "ex#E": {"type": "string", "traits": {"smithy.api#error": "client"}}"#,
    ));
    assert_eq!(
        err.to_string(),
        "bad.json: shape `ex#E`: `smithy.api#error` is on a string, but only structures can be errors"
    );
}

#[test]
fn an_operation_listing_a_non_error() {
    let err = generate(&model(
        r#"{"target": "ex#NotAnError"}"#,
        r#", "ex#NotAnError": {"type": "structure"}"#,
    ));
    assert!(matches!(err.kind(), ErrorKind::NotAnError { .. }), "{err}");
}

#[test]
fn services_missing_ambiguous_or_unknown() {
    let err = generate(r#"{"smithy": "2.0", "shapes": {}}"#);
    assert_eq!(err.to_string(), "bad.json: the model has no service shape");
    let two =
        r#"{"smithy": "2.0", "shapes": {"a#A": {"type": "service"}, "b#B": {"type": "service"}}}"#;
    assert_eq!(
        generate(two).to_string(),
        "bad.json: the model has several services (a#A, b#B): choose one (`--service SHAPE_ID`)"
    );
    let err = Generator::new()
        .model_json("bad.json", two)
        .service("c#C")
        .generate()
        .expect_err("no such service");
    assert_eq!(
        err.to_string(),
        "bad.json: the model has no service `c#C` (services: a#A, b#B)"
    );
    assert!(
        Generator::new()
            .model_json("ok", two)
            .service("b#B")
            .generate()
            .is_ok()
    );
}

#[test]
fn a_crate_path_that_is_not_a_path() {
    let err = Generator::new()
        .model_json("m.json", model("", ""))
        .crate_path("not a path")
        .generate()
        .expect_err("bad path");
    assert!(matches!(err.kind(), ErrorKind::InvalidCratePath { .. }));
}

#[test]
fn a_missing_model_file() {
    let err = Generator::new()
        .model("/nonexistent/model.json")
        .generate()
        .expect_err("no file");
    assert!(
        err.to_string()
            .starts_with("/nonexistent/model.json: cannot read the model: ")
    );
}

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
}

#[test]
fn the_cli_fails_cleanly_and_leaves_no_partial_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"smithy\": \"2.0\", \"shapes\": {\"ex#E\": {\"type\": \"nope\"}}}",
    )
    .expect("write");
    let out = dir.path().join("out.rs");

    let run = cli().arg(&bad).arg("-o").arg(&out).output().expect("runs");
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("shape `ex#E` at /shapes/ex#E/type: unknown shape type \"nope\""),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
    assert!(!out.exists(), "no output file");

    // An existing output is left as it was.
    std::fs::write(&out, "previous").expect("write");
    let run = cli().arg(&bad).arg("-o").arg(&out).output().expect("runs");
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "previous");
    assert_eq!(leftovers(dir.path()), ["bad.json", "out.rs"]);
}

#[test]
fn the_cli_reads_standard_input_and_writes_standard_output() {
    let mut child = cli()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .env_remove("SMITHY_PLUGIN_DIR")
        .spawn()
        .expect("runs");
    std::io::Write::write_all(
        &mut child.stdin.take().expect("stdin"),
        model("", "").as_bytes(),
    )
    .expect("write");
    let out = child.wait_with_output().expect("runs");
    assert!(out.status.success());
    let source = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        source.starts_with("// Code generated by rebound-codegen "),
        "{source}"
    );
    assert!(source.contains("pub const SERVICE_SHAPE_ID: &str = \"ex#Svc\";"));
}

fn leftovers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_rustfmt_that_cannot_run_is_an_error_not_unformatted_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = dir.path().join("good.json");
    std::fs::write(&good, model("", "")).expect("write");
    let out = dir.path().join("out.rs");
    let run = cli()
        .arg(&good)
        .args(["--rustfmt", "-o"])
        .arg(&out)
        .env("RUSTFMT", dir.path().join("no-such-rustfmt"))
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("good.json: rustfmt failed: cannot run "),
        "{stderr}"
    );
    assert!(!out.exists());
}
