//! Hostile models, one file per attack, under `tests/hostile/`:
//!
//! - `rejected/NAME.json` must give the clear error in `rejected/NAME.error`
//!   (through the library, and through the CLI with no output file and no
//!   panic);
//! - `compiles/NAME.json` must generate (the fixture crates compile the
//!   output in editions 2021 and 2024 and check what it means).
//!
//! Every generated file, of these and of the committed real models, is
//! checked to hold no doc line that could open a code block (a doctest).

use std::path::{Path, PathBuf};
use std::process::Command;

use rebound_codegen::Generator;

fn models(dir: &str) -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut models: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let name = path.file_stem().expect("a file name");
            (name.to_string_lossy().into_owned(), path)
        })
        .collect();
    models.sort();
    assert!(!models.is_empty(), "no models in {}", dir.display());
    models
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn rejected_models_give_their_clear_error() {
    for (name, path) in models("tests/hostile/rejected") {
        let origin = format!("{name}.json");
        let err = Generator::new()
            .model_json(&origin, read(&path))
            .generate()
            .expect_err(&origin);
        let expected = read(&path.with_extension("error"));
        assert_eq!(err.to_string(), expected.trim_end(), "{name}");
        assert!(!err.to_string().contains('\n'), "{name}: one line");
    }
}

#[test]
fn rejected_models_write_nothing_through_the_cli() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, path) in models("tests/hostile/rejected") {
        let out = dir.path().join(format!("{name}.rs"));
        let output = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("the CLI runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        let expected = read(&path.with_extension("error"));
        assert!(
            stderr.trim_end().ends_with(expected.trim_end()),
            "{name}: {stderr}"
        );
        assert!(!out.exists(), "{name}: no output file");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).expect("readable").collect();
    assert!(left.is_empty(), "no temporary files left: {left:?}");
}

#[test]
fn hostile_models_that_are_valid_generate() {
    for (name, path) in models("tests/hostile/compiles") {
        let source = Generator::new()
            .model_json(format!("{name}.json"), read(&path))
            .generate()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(source.contains("pub enum Error"), "{name}");
    }
}

/// Every doc line of every generated file is `///` alone or `/// ` and
/// text that starts with neither whitespace (an indented code block) nor a
/// fence (```` ``` ```` or `~~~`); nothing else in the file is a doc
/// attribute that could hide one.
#[test]
fn no_generated_doc_line_can_open_a_code_block() {
    let mut files = models("tests/hostile/compiles");
    files.extend(models("fixtures/models"));
    for (name, path) in files {
        let source = Generator::new()
            .model_json(format!("{name}.json"), read(&path))
            .generate()
            .unwrap_or_else(|e| panic!("{e}"));
        for (number, line) in source.lines().enumerate() {
            let at = format!("{name}.rs:{}: {line}", number + 1);
            let line = line.trim_start();
            assert!(!line.starts_with("#[doc"), "{at}");
            assert!(!line.starts_with("//!") && !line.starts_with("/**"), "{at}");
            let Some(text) = line.strip_prefix("///") else {
                continue;
            };
            if text.is_empty() {
                continue;
            }
            let text = text
                .strip_prefix(' ')
                .unwrap_or_else(|| panic!("{at}: no space after ///"));
            assert!(!text.starts_with(char::is_whitespace), "{at}");
            assert!(!text.starts_with("```") && !text.starts_with("~~~"), "{at}");
        }
    }
}

/// Smithy's `@httpError` takes 200..=599, and a real AWS model has a `308`:
/// it generates, and the fault alone gives the status.
#[test]
fn a_redirect_status_is_valid_and_left_to_the_fault() {
    let model = r#"{"smithy": "2.0", "shapes": {
        "ex#Svc": {"type": "service", "errors": [{"target": "ex#RedirectException"}]},
        "ex#RedirectException": {"type": "structure",
            "traits": {"smithy.api#error": "client", "smithy.api#httpError": 308}}
    }}"#;
    let source = Generator::new()
        .model_json("redirect.json", model)
        .generate()
        .expect("generates");
    assert!(source.contains("#[error_fault(client)]"));
    assert!(!source.contains("#[http_error("), "{source}");
}
