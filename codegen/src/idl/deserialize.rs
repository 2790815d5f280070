//! A [`Node`] document read into typed values as its JSON text would be,
//! without writing that text: [`Node`] is a serde [`Deserializer`], taken
//! by value, so that its strings move into what is read rather than being
//! copied, and each part is freed once read.
//!
//! Numbers keep the text they were written with and are read by
//! [`serde_json::Number`], so a value reads exactly as from the JSON text;
//! errors are [`serde_json::Error`]s, as the JSON reader's are.

use std::str::FromStr;

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{Deserializer, IntoDeserializer, Visitor};

use super::node::Node;

/// What reading a [`Node`] fails with.
type Error = serde_json::Error;

impl<'de> IntoDeserializer<'de, Error> for Node {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for Node {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Self::Null => visitor.visit_unit(),
            Self::Bool(b) => visitor.visit_bool(b),
            Self::Number(text) => serde_json::Number::from_str(&text)?.deserialize_any(visitor),
            Self::String(s) | Self::ShapeId(s) => visitor.visit_string(s),
            Self::Array(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Self::Object(entries) => {
                let mut map = MapDeserializer::new(entries.into_iter());
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    /// `null` is `None`, anything else `Some`, as in JSON.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Self::Null => visitor.visit_none(),
            node => visitor.visit_some(node),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::Value;

    use crate::idl::parse::parse_node;

    /// `text` read as `T` through its node and through serde_json.
    fn both<T: for<'de> Deserialize<'de>>(text: &str) -> (Result<T, String>, Result<T, String>) {
        let node = parse_node(text).expect("node");
        (
            T::deserialize(node).map_err(|e| e.to_string()),
            serde_json::from_str(text).map_err(|e| e.to_string()),
        )
    }

    #[test]
    fn values_read_as_from_their_json_text() {
        for text in [
            r#"{"a": [1, -2, 3.5, 1e3, -0, 18446744073709551615, -9223372036854775808], "b": null}"#,
            r#"{"s": "x\"y\u00e9", "t": true, "o": {"k": {}}, "e": []}"#,
            "0.1",
            "123456789012345678901234567890",
        ] {
            let (node, json) = both::<Value>(text);
            assert_eq!(node, json, "{text}");
        }
    }

    #[test]
    fn options_and_typed_fields_read_as_from_json() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Shape {
            target: Option<String>,
            code: Option<u16>,
            #[serde(default)]
            list: Vec<BTreeMap<String, u8>>,
        }
        for text in [
            r#"{"target": null, "code": 503, "list": [{"a": 1}]}"#,
            r#"{"target": "ex#A"}"#,
            r#"{"code": 70000}"#,
            r#"{"code": "500"}"#,
            r#"{"list": {"a": 1}}"#,
        ] {
            let (node, json) = both::<Shape>(text);
            match (node, json) {
                (Ok(node), Ok(json)) => assert_eq!(node, json, "{text}"),
                (Err(node), Err(json)) => {
                    assert!(json.starts_with(&node), "{text}: {node} / {json}")
                }
                (node, json) => panic!("{text}: {node:?} / {json:?}"),
            }
        }
    }
}
