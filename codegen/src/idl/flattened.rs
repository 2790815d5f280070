//! Smithy's mixin cases with a `.flattened.smithy` beside them: the model
//! read from `X.smithy`, its mixins applied and then removed (Smithy's
//! `flattenAndRemoveMixins` transform), equals the model read from
//! `X.flattened.smithy`.
//!
//! Applying a mixin, as Smithy's specification states it: the shape gets
//! the mixin's members (done by [`normalize`]), the mixin's traits except
//! `@mixin` and the mixin's `localTraits`, and its properties (lists such
//! as an operation's `errors` come first, then the shape's own); the
//! shape's own traits and properties win over inherited ones.

use std::path::Path;

use serde_json::{Map, Value};

use super::conformance::{loader_dir, normalize, read_idl, read_json, smithy_files};

/// The traits a mixin keeps to itself: `@mixin` and its `localTraits`.
fn local_traits(mixin: &Value) -> Vec<String> {
    let mut local = vec!["smithy.api#mixin".to_owned()];
    if let Some(Value::Array(ids)) = mixin
        .get("traits")
        .and_then(|t| t.get("smithy.api#mixin"))
        .and_then(|m| m.get("localTraits"))
    {
        local.extend(ids.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    local
}

fn is_mixin(shape: &Value) -> bool {
    shape
        .get("traits")
        .and_then(|t| t.get("smithy.api#mixin"))
        .is_some()
}

/// Sets the property `key`: lists concatenate, maps merge, anything else
/// is replaced.
fn merge_property(shape: &mut Map<String, Value>, key: &str, value: &Value) {
    match (shape.get_mut(key), value) {
        (Some(Value::Array(items)), Value::Array(more)) => items.extend(more.iter().cloned()),
        (Some(Value::Object(entries)), Value::Object(more)) => {
            entries.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        _ => {
            shape.insert(key.to_owned(), value.clone());
        }
    }
}

/// The shape `id` of the normalized `shapes` with its mixins applied
/// (theirs first, through their own mixins) and no `mixins` left.
fn applied(shapes: &Map<String, Value>, id: &str, depth: usize) -> Map<String, Value> {
    let Some(Value::Object(shape)) = shapes.get(id) else {
        return Map::new();
    };
    let mut out = Map::new();
    let mut traits = Map::new();
    let mixins = shape.get("mixins").and_then(Value::as_array);
    for mixin in mixins.into_iter().flatten().filter(|_| depth < 32) {
        let Some(mixin_id) = mixin.get("target").and_then(Value::as_str) else {
            continue;
        };
        let local = shapes.get(mixin_id).map(local_traits).unwrap_or_default();
        let inherited = applied(shapes, mixin_id, depth + 1);
        for (key, value) in &inherited {
            match key.as_str() {
                "type" | "members" => {}
                "traits" => {
                    for (trait_id, value) in value.as_object().into_iter().flatten() {
                        if !local.contains(trait_id) {
                            traits.insert(trait_id.clone(), value.clone());
                        }
                    }
                }
                _ => merge_property(&mut out, key, value),
            }
        }
    }
    for (key, value) in shape {
        match key.as_str() {
            "mixins" => {}
            "traits" => {
                for (trait_id, value) in value.as_object().into_iter().flatten() {
                    traits.insert(trait_id.clone(), value.clone());
                }
            }
            "type" | "members" => {
                out.insert(key.clone(), value.clone());
            }
            _ => merge_property(&mut out, key, value),
        }
    }
    if !traits.is_empty() {
        out.insert("traits".to_owned(), Value::Object(traits));
    }
    out
}

/// A normalized model with its mixins applied and the mixins removed.
fn without_mixins(model: &Value) -> Value {
    let mut model = model.clone();
    if let Some(Value::Object(shapes)) = model.get("shapes") {
        let flattened: Map<String, Value> = shapes
            .iter()
            .filter(|(_, shape)| !is_mixin(shape))
            .map(|(id, _)| (id.clone(), Value::Object(applied(shapes, id, 0))))
            .collect();
        model["shapes"] = Value::Object(flattened);
    }
    model
}

fn read_normalized(path: &Path, shared: &Value) -> Value {
    let document = read_idl(path, shared).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    normalize(&[shared.clone(), document])
}

#[test]
fn mixins_applied_give_the_flattened_models() {
    let dir = loader_dir().join("valid");
    let shared = read_json(&dir.join("__shared.json"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for flat_path in smithy_files(&dir, true) {
        let Some(stem) = flat_path
            .to_str()
            .and_then(|p| p.strip_suffix(".flattened.smithy"))
        else {
            continue;
        };
        checked += 1;
        let name = flat_path.strip_prefix(&dir).unwrap().display().to_string();
        let read = without_mixins(&read_normalized(
            Path::new(&format!("{stem}.smithy")),
            &shared,
        ));
        let expected = read_normalized(&flat_path, &shared);
        if read != expected {
            failures.push(format!(
                "{name}: the models differ\n  read, flattened: {read}\n  expected:        {expected}"
            ));
        }
    }
    assert_eq!(checked, 13, "the flattened cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} flattened cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn applying_a_mixin_keeps_its_local_traits_and_puts_its_lists_first() {
    let shapes = serde_json::json!({
        "ex#M": {"type": "operation", "errors": [{"target": "ex#A"}], "traits": {
            "smithy.api#mixin": {"localTraits": ["smithy.api#private"]},
            "smithy.api#private": {}, "smithy.api#internal": {}, "smithy.api#tags": ["m"]}},
        "ex#Op": {"type": "operation", "mixins": [{"target": "ex#M"}],
            "errors": [{"target": "ex#B"}], "traits": {"smithy.api#tags": ["own"]}}
    });
    let model = without_mixins(&serde_json::json!({ "shapes": shapes }));
    assert_eq!(
        model,
        serde_json::json!({"shapes": {"ex#Op": {"type": "operation",
            "errors": [{"target": "ex#A"}, {"target": "ex#B"}],
            "traits": {"smithy.api#internal": {}, "smithy.api#tags": ["own"]}}}})
    );
}
