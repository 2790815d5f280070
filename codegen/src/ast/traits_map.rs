//! A shape's or member's traits, by trait ID. A model holds one set per
//! shape and per member, most with one or two traits: a list in model order,
//! searched in order, holds them in a fraction of a hash map's memory, and
//! the IDs of the common traits (the ones the generator reads, and the
//! common prelude ones) are not allocated.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// Trait IDs stored without an allocation.
const COMMON: &[&str] = &[
    "smithy.api#documentation",
    "smithy.api#required",
    "smithy.api#error",
    "smithy.api#httpError",
    "smithy.api#retryable",
    "smithy.api#httpHeader",
    "smithy.api#sensitive",
    "smithy.api#deprecated",
    "smithy.api#enumValue",
    "smithy.api#enum",
    "smithy.api#mixin",
    "smithy.api#sparse",
    "smithy.api#readonly",
    "smithy.api#idempotent",
    "smithy.api#streaming",
    "smithy.api#default",
    "smithy.api#box",
    "smithy.api#input",
    "smithy.api#output",
    "smithy.api#http",
    "smithy.api#httpLabel",
    "smithy.api#httpQuery",
    "smithy.api#httpPayload",
    "smithy.api#jsonName",
    "smithy.api#xmlName",
    "smithy.api#xmlFlattened",
    "smithy.api#length",
    "smithy.api#range",
    "smithy.api#pattern",
    "smithy.api#timestampFormat",
    "smithy.api#title",
    "smithy.api#paginated",
    "smithy.api#references",
    "aws.protocols#awsQueryError",
    "aws.api#service",
];

/// A trait ID: borrowed for the [`COMMON`] ones.
type TraitId = Cow<'static, str>;

fn trait_id(id: String) -> TraitId {
    match COMMON.iter().find(|common| **common == id) {
        Some(common) => Cow::Borrowed(common),
        None => Cow::Owned(id),
    }
}

/// Traits by absolute shape ID, in model order; a trait set again keeps its
/// place and takes the new value.
#[derive(Debug, Clone, Default)]
pub(crate) struct Traits(Vec<(TraitId, Value)>);

impl Traits {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The value of trait `id`.
    pub(crate) fn get(&self, id: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == id).map(|(_, v)| v)
    }

    pub(crate) fn contains_key(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// The traits' IDs, in order.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Sets trait `id` to `value`: in its place if it is set, else last.
    fn insert(&mut self, id: TraitId, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == id) {
            Some((_, existing)) => *existing = value,
            None => self.0.push((id, value)),
        }
    }

    /// Removes trait `id`, if it is set.
    pub(crate) fn remove(&mut self, id: &str) {
        self.0.retain(|(k, _)| k != id);
    }

    /// Drops spare capacity: a model holds many sets.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

impl Extend<(TraitId, Value)> for Traits {
    /// Sets each trait, as [`insert`](Traits::insert).
    fn extend<I: IntoIterator<Item = (TraitId, Value)>>(&mut self, traits: I) {
        for (id, value) in traits {
            self.insert(id, value);
        }
    }
}

impl IntoIterator for Traits {
    type Item = (TraitId, Value);
    type IntoIter = std::vec::IntoIter<(TraitId, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Traits {
    type Item = (&'a str, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (TraitId, Value)>,
        fn(&'a (TraitId, Value)) -> (&'a str, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl<'de> Deserialize<'de> for Traits {
    /// A JSON object of traits; a trait given twice takes the later value.
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct TraitsVisitor;

        impl<'de> Visitor<'de> for TraitsVisitor {
            type Value = Traits;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Traits, A::Error> {
                // Most sets hold one trait: a list made for exactly one, not
                // grown to four and shrunk later, which leaves the heap
                // full of small holes when a model has many members.
                let Some((id, value)) = map.next_entry::<String, Value>()? else {
                    return Ok(Traits::new());
                };
                let mut traits = Traits(vec![(trait_id(id), value)]);
                while let Some((id, value)) = map.next_entry::<String, Value>()? {
                    traits.insert(trait_id(id), value);
                }
                Ok(traits)
            }
        }

        de.deserialize_map(TraitsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trait_set_again_keeps_its_place() {
        let mut traits: Traits =
            serde_json::from_str(r#"{"ex#a": 1, "smithy.api#documentation": "x", "ex#a": 2}"#)
                .expect("traits");
        assert_eq!(
            traits.keys().collect::<Vec<_>>(),
            ["ex#a", "smithy.api#documentation"]
        );
        assert_eq!(traits.get("ex#a"), Some(&Value::from(2)));
        traits.extend([(Cow::Borrowed("smithy.api#documentation"), Value::from("y"))]);
        assert_eq!(
            traits.get("smithy.api#documentation"),
            Some(&Value::from("y"))
        );
        assert_eq!(traits.len(), 2);
        traits.remove("ex#a");
        assert!(!traits.contains_key("ex#a"));
        assert!(matches!(
            trait_id("smithy.api#error".to_owned()),
            Cow::Borrowed(_)
        ));
    }
}
