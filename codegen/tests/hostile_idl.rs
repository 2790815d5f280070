//! Smithy IDL built to break the parser: nesting a million levels deep, a
//! 100 MB text block, a million shapes, a file of `use` statements, mixins
//! shared along 2^32 paths, and every prefix of the loader's valid cases.
//! Each reads or gives one error naming its line and column, without
//! overflowing the stack. Memory is bounded where it is measured: the CLI
//! reads the 100 MB text block under an address-space limit. (No test
//! measures time: a regression shows as a test that does not finish.)

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use rebound_codegen::{CodegenError, ErrorKind, Generator, json_ast};

fn read(text: &str) -> Result<String, CodegenError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.smithy");
    std::fs::write(&path, text).unwrap();
    json_ast(&[path])
}

fn position(err: &CodegenError) -> (usize, usize) {
    match err.kind() {
        ErrorKind::Idl { line, column, .. } => (*line, *column),
        other => panic!("not an IDL error: {other:?}"),
    }
}

#[test]
fn a_million_nested_arrays_are_an_error_not_a_stack_overflow() {
    let depth = 1_000_000;
    let text = format!(
        "$version: \"2\"\nmetadata deep = {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let err = read(&text).unwrap_err();
    assert_eq!(position(&err), (2, 82), "{err}");
    assert!(err.to_string().contains("nest more than 64 deep"), "{err}");
    // Objects and trait values the same.
    let text = format!(
        "$version: \"2\"\nnamespace a\n@tags({}\nstring S\n",
        "{a: ".repeat(depth)
    );
    let err = read(&text).unwrap_err();
    assert!(err.to_string().contains("nest more than 64 deep"), "{err}");
}

#[test]
fn nesting_at_the_limit_reads() {
    let text = format!(
        "$version: \"2\"\nmetadata deep = {}{}\n",
        "[".repeat(64),
        "]".repeat(64)
    );
    assert!(read(&text).is_ok());
}

/// `$version`, a namespace and a string shape documented by a text block
/// of `bytes` bytes of indented lines.
fn text_block_model(bytes: usize) -> String {
    let line = "        some documentation, indented, 64 bytes long........ok\n";
    let mut text = String::with_capacity(bytes + 200);
    text.push_str("$version: \"2\"\nnamespace a\n\n@documentation(\"\"\"\n");
    while text.len() < bytes {
        text.push_str(line);
    }
    text.push_str("        \"\"\")\nstring Documented\n");
    text
}

#[test]
fn a_100_mb_text_block_reads_within_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.smithy");
    let model = text_block_model(100 << 20);
    std::fs::write(&path, &model).unwrap();
    drop(model);
    // The CLI under an address space of 2 GiB (the text block's 100 MB read,
    // stripped of its indentation, escaped into JSON and printed).
    let script = format!(
        "ulimit -v {}; exec \"$0\" ast \"$1\" | wc -c",
        2 * 1024 * 1024
    );
    let out = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_rebound-codegen")])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes: usize = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Each 64-byte line loses its 8 spaces of indentation and gains `\n`.
    assert!(bytes > 85 << 20, "{bytes} bytes of JSON");
}

#[test]
fn a_million_shapes_read() {
    let mut text = String::from("$version: \"2\"\nnamespace a\n\n");
    for i in 0..1_000_000 {
        let _ = writeln!(text, "string S{i}");
    }
    let json = read(&text).unwrap();
    assert!(json.contains("\"a#S999999\""));
}

#[test]
fn a_file_of_use_statements_reads() {
    let mut text = String::from("$version: \"2\"\nnamespace a\n\n");
    for i in 0..1_000_000 {
        let _ = writeln!(text, "use b#S{i}");
    }
    text.push_str("structure T { s: S999999 }\n");
    let json = read(&text).unwrap();
    assert!(
        json.contains("\"target\": \"b#S999999\""),
        "{}",
        &json[..200]
    );
    // Two uses of one name are an error at the second.
    let err = read("$version: \"2\"\nnamespace a\nuse b#S\nuse c#S\n").unwrap_err();
    assert_eq!(position(&err), (4, 5), "{err}");
}

#[test]
fn mixins_shared_along_many_paths_are_looked_at_once() {
    // A{i} and B{i} both mix in A{i-1} and B{i-1}: 2^30 paths down to A0.
    let mut text = String::from(
        "$version: \"2\"\nnamespace a\n\n@mixin\nstructure A0 { id: String }\n@mixin\nstructure B0 { id: String }\n",
    );
    for i in 1..=30 {
        let p = i - 1;
        let _ = writeln!(text, "@mixin\nstructure A{i} with [A{p}, B{p}] {{}}");
        let _ = writeln!(text, "@mixin\nstructure B{i} with [A{p}, B{p}] {{}}");
    }
    text.push_str("structure Top with [A30, B30] { @required $id }\n");
    let json = read(&text).unwrap();
    assert!(json.contains("\"target\": \"smithy.api#String\""));
}

#[test]
fn every_prefix_of_the_valid_cases_reads_or_is_an_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smithy-idl/loader/valid");
    let mut stack = vec![dir];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "smithy") {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for (end, _) in text.char_indices().step_by(5) {
                let generator = Generator::new().model_idl("prefix.smithy", &text[..end]);
                match generator.generate() {
                    Ok(_) => {}
                    Err(e) => assert!(e.to_string().starts_with("prefix.smithy: "), "{e}"),
                }
            }
        }
    }
    assert!(files >= 62);
}
