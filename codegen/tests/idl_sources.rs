//! `.smithy` sources through the CLI and `Generator`: two IDL files merged
//! (one `use`s the other's error), a directory of them, `rebound-codegen
//! ast` in JSON and IDL, and errors naming the file, line and column.

use std::path::{Path, PathBuf};
use std::process::Command;

use rebound_codegen::{ErrorKind, Generator};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/idl")
}

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
        .args(args)
        .current_dir(dir())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn two_idl_files_make_one_model() {
    let source = Generator::new()
        .model(dir().join("weather.smithy"))
        .model(dir().join("common.smithy"))
        .generate()
        .unwrap();
    assert!(source.contains("pub struct Busy {"), "{source}");
    assert!(source.contains("#[retryable(throttling = true)]"));
    assert!(source.contains("pub struct NoSuchCity {"));
    assert!(source.contains("pub const SERVICE_SHAPE_ID: &str = \"example.weather#Weather\";"));
    // A directory is its files, in path order.
    let from_dir = Generator::new().model(dir()).generate().unwrap();
    assert_eq!(from_dir, source);
}

#[test]
fn the_cli_generates_from_idl_and_prints_the_ast() {
    let (ok, rust, err) = cli(&["weather.smithy", "common.smithy"]);
    assert!(ok, "{err}");
    assert!(rust.contains("pub struct NoSuchCity {"));
    let (ok, json, err) = cli(&["ast", "weather.smithy", "common.smithy"]);
    assert!(ok, "{err}");
    let ast: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(ast["smithy"], "2.0");
    assert_eq!(
        ast["shapes"]["example.weather#GetCity"]["input"]["target"],
        "example.weather#GetCityInput"
    );
    assert_eq!(
        ast["shapes"]["example.weather#GetCityInput"]["traits"]["smithy.api#input"],
        serde_json::json!({})
    );
    assert_eq!(
        ast["shapes"]["example.weather#Weather"]["errors"][0]["target"],
        "example.common#Busy"
    );
    // The JSON AST generates what the IDL generates.
    let tmp = tempfile::tempdir().unwrap();
    let json_path = tmp.path().join("weather.json");
    std::fs::write(&json_path, &json).unwrap();
    let from_json = Generator::new().model(&json_path).generate().unwrap();
    assert_eq!(from_json, rust);
}

#[test]
fn ast_writes_idl_one_file_per_namespace() {
    let (ok, _, err) = cli(&["ast", "--format", "idl", "weather.smithy", "common.smithy"]);
    assert!(!ok);
    assert!(
        err.contains("2 namespaces (example.weather, example.common)"),
        "{err}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("idl");
    let out_arg = out.to_str().unwrap();
    let (ok, _, err) = cli(&["ast", "--format", "idl", "-o", out_arg, "."]);
    assert!(ok, "{err}");
    let weather = std::fs::read_to_string(out.join("example.weather.smithy")).unwrap();
    assert!(
        weather.starts_with("$version: \"2.0\"\n\nnamespace example.weather\n"),
        "{weather}"
    );
    assert!(
        weather.contains("/// The city is not known.\n@error(\"client\")\n"),
        "{weather}"
    );
    // Read back, the files make the same model.
    let (_, again, _) = cli(&["ast", out_arg]);
    let (_, first, _) = cli(&["ast", "."]);
    let shapes = |json: &str| {
        let ast: serde_json::Value = serde_json::from_str(json).unwrap();
        let mut ids: Vec<String> = ast["shapes"].as_object().unwrap().keys().cloned().collect();
        ids.sort();
        ids
    };
    assert_eq!(shapes(&again), shapes(&first));
}

#[test]
fn idl_errors_name_the_file_line_and_column() {
    let err = Generator::new()
        .model_idl(
            "bad.smithy",
            "$version: \"2\"\nnamespace a\n\nstructure Foo {\n    bar String\n}\n",
        )
        .generate()
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::Idl {
            line: 5,
            column: 9,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "bad.smithy: invalid Smithy IDL at line 5, column 9: expected ':', found 'S'"
    );
    let (ok, _, err) = cli(&["ast", "missing.smithy"]);
    assert!(!ok);
    assert!(
        err.contains("missing.smithy: cannot read the model"),
        "{err}"
    );
}
