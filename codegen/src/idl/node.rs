//! [`Node`]: a Smithy node value as the IDL writes it, and its JSON text.
//!
//! Objects keep their keys in the order written, so that the JSON AST of a
//! model lists shapes and members as its IDL does. A syntactic shape ID (an
//! unquoted string) stays [`Node::ShapeId`] until the model it belongs to
//! is assembled and the ID resolved; a number keeps the text it was written
//! with, which the IDL's grammar makes a JSON number.

use std::fmt::Write as _;

use indexmap::IndexMap;

/// A node value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    /// The number as written (`-1.5e3`).
    Number(String),
    String(String),
    /// An unquoted string: a shape ID as written, resolved on assembly.
    ShapeId(String),
    Array(Vec<Node>),
    Object(IndexMap<String, Node>),
}

impl Node {
    /// An object of `entries`.
    pub(crate) fn object<const N: usize>(entries: [(&str, Node); N]) -> Self {
        let mut map: IndexMap<String, Node> = entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        map.shrink_to_fit();
        Self::Object(map)
    }

    /// `{"target": id}`.
    pub(crate) fn target(id: &str) -> Self {
        Self::object([("target", Self::String(id.to_owned()))])
    }

    /// The value of `key`, in an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Self::Object(entries) => entries.get(key),
            _ => None,
        }
    }

    /// The value of `key`, in an object, to change.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Self::Object(entries) => entries.get_mut(key),
            _ => None,
        }
    }

    /// The string of a string or shape ID node.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) | Self::ShapeId(s) => Some(s),
            _ => None,
        }
    }

    /// The JSON text of the node, indented by two spaces a level.
    pub(crate) fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(&mut out, self, 0);
        out
    }
}

/// Writes `node` as JSON at `indent` levels. Iterative over arrays and
/// objects would be harder to read; the parser bounds the nesting
/// ([`MAX_DEPTH`](super::parse::MAX_DEPTH)), and shapes nest a few levels.
fn write_json(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) => out.push_str(n),
        Node::String(s) | Node::ShapeId(s) => write_string(out, s),
        Node::Array(items) if items.is_empty() => out.push_str("[]"),
        Node::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent + 1);
                write_json(out, item, indent + 1);
            }
            newline(out, indent);
            out.push(']');
        }
        Node::Object(entries) if entries.is_empty() => out.push_str("{}"),
        Node::Object(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent + 1);
                write_string(out, key);
                out.push_str(": ");
                write_json(out, value, indent + 1);
            }
            newline(out, indent);
            out.push('}');
        }
    }
}

fn newline(out: &mut String, indent: usize) {
    out.push('\n');
    for _ in 0..indent {
        out.push_str("    ");
    }
}

/// A JSON string: `"`, `\` and control characters escaped (the runs
/// between them copied whole).
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text() {
        let node = Node::object([
            (
                "a",
                Node::Array(vec![Node::Number("1.5".into()), Node::Null]),
            ),
            ("b", Node::String("x\"\\\n\u{1}".into())),
            ("c", Node::Object(IndexMap::new())),
            ("d", Node::Array(vec![])),
            ("e", Node::Bool(true)),
        ]);
        let json = node.to_json();
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back,
            serde_json::json!({"a": [1.5, null], "b": "x\"\\\n\u{1}", "c": {}, "d": [], "e": true})
        );
        assert!(json.starts_with("{\n    \"a\": [\n        1.5,"), "{json}");
    }
}
