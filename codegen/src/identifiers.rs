//! Smithy's identifier grammar, checked on every name the generator turns
//! into Rust: shape IDs, member names and a service's `rename` values.
//!
//! ```text
//! identifier = *"_" ALPHA *(ALPHA / DIGIT / "_")
//! namespace  = identifier *("." identifier)
//! shape_id   = namespace "#" identifier
//! ```
//!
//! Once a model passes, every name is ASCII letters, digits and `_`: it can
//! be an identifier or doc text with no escaping beyond Rust's keywords.

use crate::ast::{Model, pointer};
use crate::error::{CodegenError, ErrorKind};

/// Whether `name` is a Smithy identifier.
pub(crate) fn is_identifier(name: &str) -> bool {
    let rest = name.trim_start_matches('_');
    rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `id` is an absolute shape ID without a member (`ns.a#Name`).
pub(crate) fn is_shape_id(id: &str) -> bool {
    id.split_once('#').is_some_and(|(namespace, name)| {
        namespace.split('.').all(is_identifier) && is_identifier(name)
    })
}

/// Checks every shape ID, member name and `rename` value of `model`.
pub(crate) fn check(origin: &str, model: &Model) -> Result<(), CodegenError> {
    let invalid = |shape: &str, parts: &[&str], name: &str, what| {
        CodegenError::new(
            origin,
            ErrorKind::InvalidName {
                shape: shape.to_owned(),
                pointer: pointer(parts),
                name: name.to_owned(),
                what,
            },
        )
    };
    for (id, shape) in &model.shapes {
        if !is_shape_id(id) {
            return Err(invalid(id, &["shapes", id], id, "shape ID"));
        }
        for member in &shape.members {
            if !is_identifier(&member.name) {
                let parts = ["shapes", id, "members", &member.name];
                return Err(invalid(id, &parts, &member.name, "member name"));
            }
        }
        for (target, name) in &shape.rename {
            if !is_identifier(name) {
                let parts = ["shapes", id, "rename", target];
                return Err(invalid(id, &parts, name, "identifier"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_the_smithy_grammar() {
        for good in ["a", "Foo", "_a", "__a1", "foo_bar", "A_1_"] {
            assert!(is_identifier(good), "{good}");
        }
        for bad in [
            "", "_", "__", "1a", "_1", "a-b", "a b", "a\n", "é", "a.b", "a#b",
        ] {
            assert!(!is_identifier(bad), "{bad:?}");
        }
    }

    #[test]
    fn shape_ids_need_a_namespace_of_identifiers() {
        for good in ["ex#A", "com.amazonaws.sqs#QueueDoesNotExist", "a._b#_c"] {
            assert!(is_shape_id(good), "{good}");
        }
        for bad in [
            "A",
            "#A",
            "ex#",
            "ex.#A",
            "e x#A",
            "ex#A$m",
            "ex#A#B",
            "ex#A\n```",
        ] {
            assert!(!is_shape_id(bad), "{bad:?}");
        }
    }
}
