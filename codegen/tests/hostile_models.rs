//! Models built to exhaust the generator: long mixin chains, lists and maps
//! that hold themselves or nest thousands deep. Each gives its result or one
//! clear error, without overflowing the stack or taking time out of
//! proportion to its size. (No test measures time: a regression shows as a
//! test that does not finish.)

use std::process::Command;

use rebound_codegen::{CodegenError, ErrorKind, Generator};

fn generate(json: &str) -> Result<String, CodegenError> {
    Generator::new().model_json("hostile.json", json).generate()
}

/// A model of a service with one error, `ex#E`, whose member `items`
/// targets `target`, and `shapes` (each `"id": {...}`).
fn model(target: &str, shapes: impl IntoIterator<Item = String>) -> String {
    let mut all = vec![
        r#""ex#Svc": {"type": "service", "errors": [{"target": "ex#E"}]}"#.to_owned(),
        format!(
            r#""ex#E": {{"type": "structure", "members": {{"items": {{"target": "{target}"}}}},
                         "traits": {{"smithy.api#error": "client"}}}}"#
        ),
    ];
    all.extend(shapes);
    format!(r#"{{"smithy": "2.0", "shapes": {{{}}}}}"#, all.join(",\n"))
}

/// `ex#M{n-1}` mixes in `ex#M{n-2}`, ..., down to `ex#M0`; each adds a member.
fn mixin_chain(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| {
        let mixins = match i {
            0 => String::new(),
            _ => format!(r#""mixins": [{{"target": "ex#M{}"}}], "#, i - 1),
        };
        format!(
            r#""ex#M{i}": {{"type": "structure", {mixins}"members": {{"m{i}": {{"target": "smithy.api#String"}}}}, "traits": {{"smithy.api#mixin": {{}}}}}}"#
        )
    })
}

#[test]
fn a_chain_of_100_000_mixins_is_an_error_naming_the_first_too_deep() {
    // Listed from the far end, so that the walk goes all the way down first.
    let mut shapes: Vec<String> = mixin_chain(100_000).collect();
    shapes.reverse();
    let json = format!(
        r#"{{"smithy": "2.0", "shapes": {{{}}}}}"#,
        shapes.join(",\n")
    );
    let err = generate(&json).expect_err("too deep");
    assert!(
        matches!(err.kind(), ErrorKind::InvalidShape { shape, .. } if shape == "ex#M33"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "hostile.json: shape `ex#M33` at /shapes/ex#M33/mixins: its mixins nest more than 32 \
         deep (the generator's limit)"
    );
}

#[test]
fn a_chain_of_mixins_at_the_limit_generates() {
    // The error mixes in the end of a chain of 32 mixins: 32 deep.
    let json = model("smithy.api#String", mixin_chain(32)).replacen(
        r#""ex#E": {"type": "structure", "#,
        r#""ex#E": {"type": "structure", "mixins": [{"target": "ex#M31"}], "#,
        1,
    );
    let source = generate(&json).expect("generates");
    assert!(source.contains("pub m0: ::std::option::Option<::std::string::String>,"));
    assert!(source.contains("pub m31: ::std::option::Option<::std::string::String>,"));
    assert!(source.contains("pub items: ::std::option::Option<::std::string::String>,"));
}

const CYCLE: &str = "its members form a cycle of lists and maps, which Smithy forbids (a shape \
                     can refer back to itself only through a structure or union)";

#[test]
fn a_list_of_itself_is_an_error() {
    let json = model(
        "ex#L",
        [r#""ex#L": {"type": "list", "member": {"target": "ex#L"}}"#.to_owned()],
    );
    let err = generate(&json).expect_err("a cycle");
    assert_eq!(
        err.to_string(),
        format!("hostile.json: shape `ex#L` at /shapes/ex#L/member: {CYCLE}")
    );
}

#[test]
fn a_map_of_itself_is_an_error() {
    let json = model(
        "ex#M",
        [
            r#""ex#M": {"type": "map", "key": {"target": "smithy.api#String"},
                     "value": {"target": "ex#M"}}"#
                .to_owned(),
        ],
    );
    let err = generate(&json).expect_err("a cycle");
    assert_eq!(
        err.to_string(),
        format!("hostile.json: shape `ex#M` at /shapes/ex#M/value: {CYCLE}")
    );
}

#[test]
fn a_cycle_through_lists_and_maps_is_an_error() {
    // ex#L -> ex#M (value) -> ex#S (sparse list) -> ex#L.
    let json = model(
        "ex#L",
        [
            r#""ex#L": {"type": "list", "member": {"target": "ex#M"}}"#.to_owned(),
            r#""ex#M": {"type": "map", "key": {"target": "smithy.api#String"},
                        "value": {"target": "ex#S"}}"#
                .to_owned(),
            r#""ex#S": {"type": "list", "member": {"target": "ex#L"},
                        "traits": {"smithy.api#sparse": {}}}"#
                .to_owned(),
        ],
    );
    let err = generate(&json).expect_err("a cycle");
    assert_eq!(
        err.to_string(),
        format!("hostile.json: shape `ex#S` at /shapes/ex#S/member: {CYCLE}")
    );
}

#[test]
fn a_cycle_through_a_structure_is_a_recursive_type() {
    let json = model(
        "ex#L",
        [
            r#""ex#L": {"type": "list", "member": {"target": "ex#Node"}}"#.to_owned(),
            r#""ex#Node": {"type": "structure", "members": {"children": {"target": "ex#L"}}}"#
                .to_owned(),
        ],
    );
    let source = generate(&json).expect("generates");
    assert!(
        source.contains("pub children: ::std::option::Option<::std::vec::Vec<Node>>,"),
        "{source}"
    );
}

/// `ex#L{n-1}` is a list of `ex#L{n-2}`, ..., `ex#L0` a list of strings.
fn nested_lists(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| {
        let member = match i {
            0 => "smithy.api#String".to_owned(),
            _ => format!("ex#L{}", i - 1),
        };
        format!(r#""ex#L{i}": {{"type": "list", "member": {{"target": "{member}"}}}}"#)
    })
}

#[test]
fn lists_nested_5000_deep_are_an_error() {
    let json = model("ex#L4999", nested_lists(5000));
    let err = generate(&json).expect_err("too deep");
    assert_eq!(
        err.to_string(),
        "hostile.json: shape `ex#L32` at /shapes/ex#L32/member: its members nest lists and maps \
         more than 32 deep (the generator's limit)"
    );
}

#[test]
fn lists_nested_to_the_limit_generate() {
    let json = model("ex#L31", nested_lists(32));
    let source = generate(&json).expect("generates");
    // The field's type, and no other, is a vector: of vectors, 32 deep.
    assert_eq!(source.matches("::std::vec::Vec<").count(), 32, "{source}");
    assert!(source.contains("::std::vec::Vec<::std::vec::Vec<::std::string::String>>"));
}

#[test]
fn the_cli_reports_deep_nesting_instead_of_overflowing_its_stack() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("deep.json");
    let json = model(
        "ex#L",
        [r#""ex#L": {"type": "list", "member": {"target": "ex#L"}}"#.to_owned()],
    );
    std::fs::write(&path, json).expect("write");
    let run = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("shape `ex#L` at /shapes/ex#L/member: its members form a cycle"),
        "{stderr}"
    );
    assert!(run.stdout.is_empty());
}
