//! Reading fields of conformance vectors and comparing floats with them.

use serde_json::Value;

/// The relative tolerance for recorded floats (the conformance README's: the
/// reference uses C `pow`, ours may differ by an ulp on another libm).
pub const REL_TOL: f64 = 1e-9;

/// `v[key]`, panicking with the context if it is missing.
pub fn field<'a>(v: &'a Value, key: &str) -> &'a Value {
    v.get(key)
        .unwrap_or_else(|| panic!("missing field {key:?} in {v}"))
}

/// `v[key]` as a number (JSON integers included).
pub fn num(v: &Value, key: &str) -> f64 {
    field(v, key)
        .as_f64()
        .unwrap_or_else(|| panic!("field {key:?} is not a number in {v}"))
}

/// `v[key]` as an array.
pub fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    field(v, key)
        .as_array()
        .unwrap_or_else(|| panic!("field {key:?} is not an array"))
}

/// `v[key]` as a bool.
pub fn flag(v: &Value, key: &str) -> bool {
    field(v, key)
        .as_bool()
        .unwrap_or_else(|| panic!("field {key:?} is not a bool in {v}"))
}

/// Asserts `actual` is the recorded `expected` bit for bit (`0.0` and `-0.0`
/// count as equal): for values recorded from botocore, whose arithmetic we
/// repeat operation by operation (C `pow` is the platform's `powf`).
#[track_caller]
pub fn assert_same(actual: f64, expected: f64, what: &str) {
    assert!(
        actual.to_bits() == expected.to_bits() || (actual == 0.0 && expected == 0.0),
        "{what}: got {actual:?}, reference {expected:?} (not bit for bit)"
    );
}

/// Asserts `actual` is within [`REL_TOL`] of the recorded `expected`: for
/// published tables computed another way (aws-smithy-runtime's tests).
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, what: &str) {
    let scale = actual.abs().max(expected.abs());
    assert!(
        actual == expected || (actual - expected).abs() <= REL_TOL * scale,
        "{what}: got {actual:?}, reference {expected:?}"
    );
}

/// `v[key]` as a string.
pub fn string<'a>(v: &'a Value, key: &str) -> &'a str {
    field(v, key)
        .as_str()
        .unwrap_or_else(|| panic!("field {key:?} is not a string in {v}"))
}

/// `v[key]` as a whole number (a JSON integer, or a float with no fraction).
pub fn uint(v: &Value, key: &str) -> u64 {
    let value = field(v, key);
    value
        .as_u64()
        .or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        })
        .unwrap_or_else(|| panic!("field {key:?} is not a whole number: {value}"))
}

/// `v[key]` as a `u32`, `None` when it is null or absent.
pub fn opt_u32(v: &Value, key: &str) -> Option<u32> {
    (!v[key].is_null()).then(|| u32::try_from(uint(v, key)).expect("fits in u32"))
}
