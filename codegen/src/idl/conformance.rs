//! Smithy's own loader tests (`tests/smithy-idl/loader`, Apache-2.0, from
//! the Smithy repository; LICENSE and NOTICE beside them): each valid
//! `.smithy` file must read into the model its `.json` describes, with
//! `__shared.json` loaded beside both; each invalid one must be refused.
//!
//! Models are compared as Smithy's runner compares them, not as text
//! ([`normalize`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Source;
use super::assemble::Known;
use super::node::Node;
use super::parse::parse_node;
use crate::ast::ShapeType;

pub(super) fn loader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smithy-idl/loader")
}

/// The `.smithy` files under `dir`, sorted: the `.flattened.smithy` ones
/// (mixin cases' expected models) or the others.
pub(super) fn smithy_files(dir: &Path, flattened: bool) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "smithy")
                && path.to_string_lossy().ends_with(".flattened.smithy") == flattened
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A model, normalized for comparison: the shapes of every document merged
/// by ID, `apply` entries merged into the shape or member they name when
/// it is defined, empty `members`, `traits` and `mixins` dropped, IDL 1.0's
/// `set` read as a list with `@uniqueItems`, a list's and a map's members
/// with the others, every shape's members with its mixins' (and the traits
/// applied to them), an operation's missing input
/// and output as `smithy.api#Unit`, numbers compared by value; the
/// `smithy` version dropped (a version is per file, not part of the model).
/// Metadata merged as Smithy merges it (arrays concatenate).
pub(super) fn normalize(documents: &[Value]) -> Value {
    let mut shapes = Map::new();
    let mut applies: Vec<(String, Map<String, Value>)> = Vec::new();
    let mut metadata = Map::new();
    for document in documents {
        if let Some(Value::Object(meta)) = document.get("metadata") {
            for (key, value) in meta {
                match (metadata.get_mut(key), value) {
                    (Some(Value::Array(existing)), Value::Array(items)) => {
                        existing.extend(items.iter().cloned());
                    }
                    _ => {
                        metadata.insert(key.clone(), numbers(value));
                    }
                }
            }
        }
        let Some(Value::Object(defined)) = document.get("shapes") else {
            continue;
        };
        for (id, shape) in defined {
            if shape.get("type") == Some(&Value::from("apply")) {
                if let Some(Value::Object(traits)) = shape.get("traits") {
                    applies.push((id.clone(), traits.clone()));
                }
                continue;
            }
            shapes.insert(id.clone(), normalize_shape(shape));
        }
    }
    let mut pending: Map<String, Value> = Map::new();
    for (id, traits) in applies {
        let (root, member) = match id.split_once('$') {
            Some((root, member)) => (root, Some(member)),
            None => (id.as_str(), None),
        };
        let slot = shapes.get_mut(root).and_then(|shape| match member {
            None => Some(shape),
            Some(member) => shape.get_mut("members")?.get_mut(member),
        });
        let target = match slot {
            Some(target) => target,
            None => pending
                .entry(id.clone())
                .or_insert_with(|| serde_json::json!({})),
        };
        let mut applied = Map::new();
        applied.insert("traits".to_owned(), numbers(&Value::Object(traits)));
        merge_traits(target, &Value::Object(applied));
    }
    let ids: Vec<String> = shapes.keys().cloned().collect();
    let mut flat: HashMap<String, Map<String, Value>> = HashMap::new();
    for id in &ids {
        flatten(&shapes, id, &mut pending, &mut flat, 0);
    }
    for (id, members) in flat {
        if let Some(Value::Object(shape)) = shapes.get_mut(&id) {
            shape.insert("members".to_owned(), Value::Object(members));
        }
    }
    for shape in shapes.values_mut() {
        if let Value::Object(entries) = shape {
            drop_empty(entries);
        }
    }
    let mut model = Map::new();
    model.insert("shapes".to_owned(), Value::Object(shapes));
    pending.retain(|_, value| value.get("traits").is_some_and(|t| !is_empty(t)));
    if !pending.is_empty() {
        model.insert("applied".to_owned(), Value::Object(pending));
    }
    if !metadata.is_empty() {
        model.insert("metadata".to_owned(), Value::Object(metadata));
    }
    Value::Object(model)
}

/// Adds the `traits` of `from` to those of `to` (list values concatenate).
fn merge_traits(to: &mut Value, from: &Value) {
    let Some(Value::Object(traits)) = from.get("traits") else {
        return;
    };
    let Value::Object(to) = to else {
        return;
    };
    let existing = to
        .entry("traits")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(existing) = existing {
        for (trait_id, value) in traits {
            match (existing.get_mut(trait_id), value) {
                (Some(Value::Array(items)), Value::Array(more)) => {
                    items.extend(more.iter().cloned())
                }
                (_, value) => {
                    existing.insert(trait_id.clone(), value.clone());
                }
            }
        }
    }
}

/// Sets the `traits` of `from` on `to`, each replacing a trait of its ID:
/// a member redefined over a mixin's, or given by two mixins.
fn override_traits(to: &mut Value, from: &Value) {
    let (Value::Object(to), Some(Value::Object(traits))) = (to, from.get("traits")) else {
        return;
    };
    if let Value::Object(existing) = to
        .entry("traits")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        existing.extend(traits.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

/// The members of `id` with its mixins' members (a later mixin's member
/// and then the shape's own override the traits of an earlier one, by
/// trait ID), and the pending `apply` traits of each (which add to them,
/// lists concatenating): Smithy's model holds a shape's members with its mixins
/// applied, whether the model wrote an inherited member out or applied
/// traits to it.
fn flatten(
    shapes: &Map<String, Value>,
    id: &str,
    pending: &mut Map<String, Value>,
    flat: &mut HashMap<String, Map<String, Value>>,
    depth: usize,
) -> Map<String, Value> {
    if let Some(done) = flat.get(id) {
        return done.clone();
    }
    let Some(shape) = shapes.get(id) else {
        return Map::new();
    };
    let mut members = Map::new();
    if depth < 32
        && let Some(Value::Array(mixins)) = shape.get("mixins")
    {
        for mixin in mixins {
            if let Some(mixin) = mixin.get("target").and_then(Value::as_str) {
                for (name, member) in flatten(shapes, mixin, pending, flat, depth + 1) {
                    match members.get_mut(&name) {
                        Some(inherited) => override_traits(inherited, &member),
                        None => {
                            members.insert(name, member);
                        }
                    }
                }
            }
        }
    }
    if let Some(Value::Object(own)) = shape.get("members") {
        for (name, member) in own {
            match members.get_mut(name) {
                Some(inherited) => {
                    if let (Value::Object(inherited), Some(target)) =
                        (&mut *inherited, member.get("target"))
                    {
                        inherited.insert("target".to_owned(), target.clone());
                    }
                    override_traits(inherited, member);
                }
                None => {
                    members.insert(name.clone(), member.clone());
                }
            }
        }
    }
    for (name, member) in &mut members {
        if let Some(applied) = pending.remove(&format!("{id}${name}")) {
            merge_traits(member, &applied);
        }
    }
    flat.insert(id.to_owned(), members.clone());
    members
}

fn normalize_shape(shape: &Value) -> Value {
    let mut shape = numbers(shape);
    if let Value::Object(entries) = &mut shape {
        // A list's `member` and a map's `key` and `value` are members.
        for key in ["member", "key", "value"] {
            if let Some(member) = entries.remove(key) {
                let members = entries
                    .entry("members")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(members) = members {
                    members.insert(key.to_owned(), member);
                }
            }
        }
        if entries.get("type") == Some(&Value::from("set")) {
            entries.insert("type".to_owned(), Value::from("list"));
            let traits = entries
                .entry("traits")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(traits) = traits {
                traits.insert(
                    "smithy.api#uniqueItems".to_owned(),
                    Value::Object(Map::new()),
                );
            }
        }
        if entries.get("type") == Some(&Value::from("operation")) {
            for key in ["input", "output"] {
                entries
                    .entry(key)
                    .or_insert_with(|| serde_json::json!({"target": "smithy.api#Unit"}));
            }
        }
        drop_empty(entries);
    }
    shape
}

/// Drops the properties of a shape that hold nothing (an empty `members`,
/// `traits`, `mixins`, `errors`, ...), and the empty `traits` of its
/// members: to Smithy an empty list or map is one that is not given.
fn drop_empty(entries: &mut Map<String, Value>) {
    entries.retain(|key, value| key == "type" || !is_empty(value));
    if let Some(Value::Object(members)) = entries.get_mut("members") {
        for member in members.values_mut() {
            if let Value::Object(member) = member
                && member.get("traits").is_some_and(is_empty)
            {
                member.remove("traits");
            }
        }
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// `value` with every number as a float, so that `1` and `1.0` compare
/// equal, as Smithy compares number nodes by value.
fn numbers(value: &Value) -> Value {
    match value {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| value.clone(), Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(numbers).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), numbers(v))).collect())
        }
        other => other.clone(),
    }
}

/// The shapes of a JSON AST document, by type, for the IDL's resolution.
fn known_shapes(document: &Value) -> Known {
    let mut known = HashMap::new();
    if let Some(Value::Object(shapes)) = document.get("shapes") {
        for (id, shape) in shapes {
            if let Some(shape_type) = shape
                .get("type")
                .and_then(Value::as_str)
                .and_then(ShapeType::parse)
            {
                known.insert(id.clone(), shape_type);
            }
        }
    }
    known
}

/// A node as a JSON value; a number a float cannot hold (`1e400`) as the
/// string `number <text>`, so that it still compares by its text.
pub(super) fn to_value(node: &Node) -> Value {
    match node {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Number(text) => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(
                || Value::from(format!("number {}", text.to_lowercase().replace('+', ""))),
                Value::Number,
            ),
        Node::String(s) | Node::ShapeId(s) => Value::from(s.as_str()),
        Node::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Node::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), to_value(v)))
                .collect(),
        ),
    }
}

/// Reads a JSON file (through the node parser, which keeps numbers beyond
/// a float's range).
pub(super) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    to_value(&parse_node(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display())))
}

/// Reads one `.smithy` file, with the shared shapes known; the JSON AST.
pub(super) fn read_idl(path: &Path, shared: &Value) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let origin = path.display().to_string();
    let node = super::to_json_ast(
        &[Source {
            origin: &origin,
            text: &text,
        }],
        &known_shapes(shared),
    )
    .map_err(|e| e.to_string())?;
    let written = parse_node(&node.to_json()).map_err(|e| format!("the JSON written: {e:?}"))?;
    Ok(to_value(&written))
}

/// The valid cases whose model does not match yet, with the reason. The
/// codegen README lists them too.
const VALID_LEFT: &[(&str, &str)] = &[];

#[test]
fn valid_models_read_as_their_json_ast() {
    let dir = loader_dir().join("valid");
    let shared = read_json(&dir.join("__shared.json"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in smithy_files(&dir, false) {
        let expected_path = path.with_extension("json");
        if !expected_path.exists() {
            continue;
        }
        checked += 1;
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let expected = read_json(&expected_path);
        let expected = normalize(&[shared.clone(), expected]);
        let result = read_idl(&path, &shared).map(|actual| normalize(&[shared.clone(), actual]));
        let known = VALID_LEFT.iter().any(|(n, _)| *n == name);
        match result {
            Ok(actual) if actual == expected => {
                assert!(!known, "{name} matches now: take it off VALID_LEFT");
            }
            Ok(actual) if !known => failures.push(format!(
                "{name}: the models differ\n  read:     {actual}\n  expected: {expected}"
            )),
            Err(error) if !known => failures.push(format!("{name}: {error}")),
            _ => {}
        }
    }
    assert_eq!(checked, 62, "the valid cases with a JSON AST");
    assert!(
        failures.is_empty(),
        "{} of {checked} valid cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The invalid cases read without an error, with the reason. The codegen
/// README lists them too.
const INVALID_LEFT: &[(&str, &str)] = &[];

#[test]
fn invalid_models_are_refused() {
    let dir = loader_dir().join("invalid");
    let shared = Value::Object(Map::new());
    let mut accepted = Vec::new();
    let mut checked = 0;
    for path in smithy_files(&dir, false) {
        checked += 1;
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        let known = INVALID_LEFT.iter().any(|(n, _)| *n == name);
        match read_idl(&path, &shared) {
            Ok(_) if !known => accepted.push(name),
            Err(error) => {
                assert!(!known, "{name} is refused now: take it off INVALID_LEFT");
                assert!(
                    error.contains(&path.display().to_string()) && error.contains("line "),
                    "{name}: the message names the file and the line: {error}"
                );
            }
            Ok(_) => {}
        }
    }
    assert_eq!(checked, 181, "the invalid cases");
    assert!(
        accepted.is_empty(),
        "{} of {checked} invalid cases are accepted:\n{}",
        accepted.len(),
        accepted.join("\n")
    );
}

#[test]
fn normalization_compares_models_not_text() {
    let a = serde_json::json!({"smithy": "1.0", "shapes": {
        "a#S": {"type": "set", "member": {"target": "a#T"}},
        "a#T": {"type": "structure", "members": {"x": {"target": "a#U", "traits": {}}}},
        "a#T$x": {"type": "apply", "traits": {"smithy.api#default": 1}},
        "a#V": {"type": "string", "mixins": []}
    }});
    let b = serde_json::json!({"smithy": "2.0", "shapes": {
        "a#V": {"type": "string"},
        "a#T": {"type": "structure", "members": {"x": {"target": "a#U", "traits": {"smithy.api#default": 1.0}}}},
        "a#S": {"type": "list", "member": {"target": "a#T"}, "traits": {"smithy.api#uniqueItems": {}}}
    }});
    assert_eq!(normalize(std::slice::from_ref(&a)), normalize(&[b]));
    let c = serde_json::json!({"smithy": "2.0", "shapes": {
        "a#S": {"type": "list", "member": {"target": "a#T"}}
    }});
    assert_ne!(normalize(&[a]), normalize(&[c]));
}

/// Smithy's own message for each invalid case is on its first line; for
/// the 144 syntax errors (`Syntax error at line L, column C`) the error is
/// reported on Smithy's line, and, in all but the cases where Smithy points
/// inside a token this parser reports at its start, at Smithy's column.
#[test]
fn syntax_errors_are_reported_where_smithy_reports_them() {
    let dir = loader_dir().join("invalid");
    let shared = Value::Object(Map::new());
    let (mut total, mut columns) = (0, 0);
    let mut wrong_lines = Vec::new();
    for path in smithy_files(&dir, false) {
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap_or_default();
        let Some(rest) = first.split("Syntax error at line ").nth(1) else {
            continue;
        };
        let (line, rest) = rest.split_once(", column ").unwrap();
        let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
        total += 1;
        let error = read_idl(&path, &shared).unwrap_err();
        if !error.contains(&format!("at line {line}, ")) {
            wrong_lines.push(format!(
                "{}: Smithy {line}:{column}; {error}",
                path.display()
            ));
        } else if error.contains(&format!("column {column}:")) {
            columns += 1;
        }
    }
    assert_eq!(total, 144, "the syntax error cases");
    assert!(wrong_lines.is_empty(), "{}", wrong_lines.join("\n"));
    assert!(columns >= 129, "{columns} of {total} at Smithy's column");
}
