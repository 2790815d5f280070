//! A JSON AST document written as Smithy IDL: one file per namespace, each
//! reading back (with the others) into the same document
//! ([`super::assemble_files`]).
//!
//! Every shape ID is written absolute (`smithy.api#String`), which needs no
//! `use` and resolves to itself, and every trait value is written out, so
//! that the text means exactly what the document says: a trait is written
//! bare (`@required`) only when its value is the one the bare form gets.
//! Documentation without control characters becomes `///` comments; enum
//! values become `= value` unless they are the member's name. A document
//! of Smithy 1.0 is written as IDL 1.0 (its `set` shapes need it).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use indexmap::IndexMap;

use super::assemble::{omitted_value, prelude_is_public, prelude_type};
use super::node::Node;
use super::parse::is_identifier;
use crate::ast::ShapeType;

/// One IDL file: its namespace and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IdlText {
    pub(crate) namespace: String,
    pub(crate) text: String,
}

/// Why a document cannot be written.
pub(crate) type WriteError = String;

/// Writes `document` (a JSON AST) as IDL files, one per namespace, in the
/// order of their first shape. Metadata goes to the first file.
pub(crate) fn write(document: &Node) -> Result<Vec<IdlText>, WriteError> {
    let Node::Object(top) = document else {
        return Err("the document is not an object".to_owned());
    };
    let v1 = top
        .get("smithy")
        .and_then(Node::as_str)
        .is_some_and(|v| v.starts_with('1'));
    let empty = IndexMap::new();
    let shapes = match top.get("shapes") {
        Some(Node::Object(shapes)) => shapes,
        None => &empty,
        Some(_) => return Err("`shapes` is not an object".to_owned()),
    };
    let types: BTreeMap<&str, &str> = shapes
        .iter()
        .filter_map(|(id, shape)| Some((id.as_str(), shape.get("type")?.as_str()?)))
        .filter(|(_, shape_type)| *shape_type != "apply")
        .collect();
    // Each namespace's statements, in the order of its first shape; the
    // metadata goes before the first file's namespace.
    let mut files: IndexMap<&str, String> = IndexMap::new();
    let mut metadata_text = String::new();
    if let Some(Node::Object(metadata)) = top.get("metadata") {
        let namespace = shapes
            .keys()
            .next()
            .map_or("smithy.example", |id| namespace_of(id));
        files.entry(namespace).or_default();
        for (key, value) in metadata {
            metadata_text.push_str("metadata ");
            write_key(&mut metadata_text, key);
            metadata_text.push_str(" = ");
            write_value(&mut metadata_text, value, 0);
            metadata_text.push('\n');
        }
        metadata_text.push('\n');
    }
    let mut applies = Vec::new();
    for (id, shape) in shapes {
        let (namespace, name) = id
            .split_once('#')
            .ok_or_else(|| format!("`{id}` is not an absolute shape ID"))?;
        if shape.get("type").and_then(Node::as_str) == Some("apply") {
            applies.push((id, shape));
            continue;
        }
        if !is_identifier(name) {
            return Err(format!("`{id}` is not a shape ID the IDL can define"));
        }
        let writer = Writer {
            types: &types,
            namespace,
        };
        writer.shape(files.entry(namespace).or_default(), id, name, shape)?;
    }
    for (id, shape) in applies {
        let writer = Writer {
            types: &types,
            namespace: namespace_of(id),
        };
        let text = files.entry(namespace_of(id)).or_default();
        let _ = writeln!(text, "apply {id} {{");
        if let Some(Node::Object(traits)) = shape.get("traits") {
            for (trait_id, value) in traits {
                writer.write_trait(text, trait_id, value, 1);
            }
        }
        text.push_str("}\n\n");
    }
    let version = if v1 { "1.0" } else { "2.0" };
    Ok(files
        .into_iter()
        .enumerate()
        .map(|(i, (namespace, body))| IdlText {
            namespace: namespace.to_owned(),
            text: format!(
                "$version: \"{version}\"\n\n{}namespace {namespace}\n\n{}\n",
                if i == 0 { metadata_text.as_str() } else { "" },
                body.trim_end_matches('\n')
            ),
        })
        .collect())
}

fn namespace_of(id: &str) -> &str {
    id.split_once('#').map_or(id, |(namespace, _)| namespace)
}

struct Writer<'a> {
    /// Every shape's type, by ID.
    types: &'a BTreeMap<&'a str, &'a str>,
    /// The namespace of the file written.
    namespace: &'a str,
}

impl Writer<'_> {
    /// `id` as the file can write it: relative when it resolves back to
    /// itself (a shape of this namespace whose name the prelude does not
    /// take, or does but the namespace defines; a public prelude shape the
    /// namespace does not shadow), else absolute.
    fn id<'i>(&self, id: &'i str) -> &'i str {
        let Some((namespace, relative)) = id.split_once('#') else {
            return id;
        };
        let name = relative.split_once('$').map_or(relative, |(n, _)| n);
        let local = format!("{}#{name}", self.namespace);
        let defined_here = self.types.contains_key(local.as_str());
        let in_prelude = prelude_is_public(name);
        let resolves_back = if namespace == self.namespace {
            defined_here || !in_prelude
        } else {
            namespace == "smithy.api" && in_prelude && !defined_here
        };
        if resolves_back { relative } else { id }
    }

    /// The value a bare trait (`@id`) gets, by the trait's shape type.
    fn bare_value(&self, trait_id: &str) -> Node {
        let shape_type = self
            .types
            .get(trait_id)
            .and_then(|t| ShapeType::parse(t))
            .or_else(|| prelude_type(trait_id));
        omitted_value(shape_type)
    }

    fn write_trait(&self, out: &mut String, trait_id: &str, value: &Node, indent: usize) {
        pad(out, indent);
        out.push('@');
        out.push_str(self.id(trait_id));
        if *value != self.bare_value(trait_id) {
            out.push('(');
            match value {
                // The structured form: `@range(min: 1, max: 10)`.
                Node::Object(entries) if is_short(value) => write_entries(out, entries, indent),
                _ => write_value(out, value, indent),
            }
            out.push(')');
        }
        out.push('\n');
    }

    /// The documentation (as `///` lines when it can be) and the other
    /// traits of a shape or member, except those in `skip`.
    fn write_traits(&self, out: &mut String, traits: Option<&Node>, indent: usize, skip: &[&str]) {
        let Some(Node::Object(traits)) = traits else {
            return;
        };
        let docs = traits
            .get("smithy.api#documentation")
            .and_then(|d| match d {
                Node::String(s) if !s.chars().any(|c| c.is_control() && c != '\n') => {
                    Some(s.as_str())
                }
                _ => None,
            });
        if let Some(docs) = docs {
            for line in docs.split('\n') {
                pad(out, indent);
                out.push_str("///");
                if !line.is_empty() {
                    out.push(' ');
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        for (trait_id, value) in traits {
            if skip.contains(&trait_id.as_str())
                || (docs.is_some() && trait_id == "smithy.api#documentation")
            {
                continue;
            }
            self.write_trait(out, trait_id, value, indent);
        }
    }

    fn shape(&self, out: &mut String, id: &str, name: &str, shape: &Node) -> Result<(), String> {
        let shape_type = shape
            .get("type")
            .and_then(Node::as_str)
            .ok_or_else(|| format!("`{id}` has no type"))?;
        let is_enum = matches!(shape_type, "enum" | "intEnum");
        self.write_traits(out, shape.get("traits"), 0, &[]);
        out.push_str(shape_type);
        out.push(' ');
        out.push_str(name);
        if let Some(Node::Array(mixins)) = shape.get("mixins")
            && !mixins.is_empty()
        {
            out.push_str(" with [");
            for (i, mixin) in mixins.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(
                    target(mixin).ok_or_else(|| format!("`{id}`: a mixin has no target"))?,
                );
            }
            out.push(']');
        }
        match shape_type {
            "structure" | "union" | "enum" | "intEnum" => match shape.get("members") {
                Some(Node::Object(members)) if !members.is_empty() => {
                    out.push_str(" {\n");
                    for (member_name, member) in members {
                        self.member(out, id, member_name, member, is_enum)?;
                    }
                    out.push_str("}\n\n");
                }
                _ => out.push_str(" {}\n\n"),
            },
            "list" | "set" | "map" => {
                out.push_str(" {\n");
                for key in ["member", "key", "value"] {
                    if let Some(member) = shape.get(key) {
                        self.member(out, id, key, member, false)?;
                    }
                }
                out.push_str("}\n\n");
            }
            "service" | "resource" | "operation" => {
                out.push_str(" {\n");
                self.entity(out, id, shape)?;
                out.push_str("}\n\n");
            }
            _ => out.push_str("\n\n"),
        }
        Ok(())
    }

    fn member(
        &self,
        out: &mut String,
        id: &str,
        name: &str,
        member: &Node,
        is_enum: bool,
    ) -> Result<(), String> {
        if !is_identifier(name) {
            return Err(format!(
                "`{id}`: {name:?} is not a member name the IDL can write"
            ));
        }
        if is_enum {
            let value = member
                .get("traits")
                .and_then(|t| t.get("smithy.api#enumValue"));
            self.write_traits(out, member.get("traits"), 1, &["smithy.api#enumValue"]);
            pad(out, 1);
            out.push_str(name);
            match value {
                Some(Node::String(v)) if v == name => {}
                Some(value) => {
                    out.push_str(" = ");
                    write_value(out, value, 1);
                }
                None => return Err(format!("`{id}${name}`: an enum member with no value")),
            }
            out.push('\n');
            return Ok(());
        }
        self.write_traits(out, member.get("traits"), 1, &[]);
        pad(out, 1);
        out.push_str(name);
        out.push_str(": ");
        out.push_str(
            self.id(target(member).ok_or_else(|| format!("`{id}${name}` has no target"))?),
        );
        out.push('\n');
        Ok(())
    }

    /// The body of a service, resource or operation.
    fn entity(&self, out: &mut String, id: &str, shape: &Node) -> Result<(), String> {
        let Node::Object(entries) = shape else {
            return Ok(());
        };
        for (key, value) in entries {
            match key.as_str() {
                "type" | "traits" | "mixins" => {}
                "version" => {
                    pad(out, 1);
                    out.push_str("version: ");
                    write_value(out, value, 1);
                    out.push('\n');
                }
                "operations" | "collectionOperations" | "resources" | "errors" => {
                    let Node::Array(items) = value else {
                        return Err(format!("`{id}`: `{key}` is not a list"));
                    };
                    pad(out, 1);
                    out.push_str(key);
                    out.push_str(": [");
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(self.id(
                            target(item).ok_or_else(|| format!("`{id}`: `{key}` has no target"))?,
                        ));
                    }
                    out.push_str("]\n");
                }
                "rename" => {
                    pad(out, 1);
                    out.push_str("rename: ");
                    write_value(out, value, 1);
                    out.push('\n');
                }
                "identifiers" | "properties" => {
                    let Node::Object(targets) = value else {
                        return Err(format!("`{id}`: `{key}` is not a map"));
                    };
                    pad(out, 1);
                    out.push_str(key);
                    out.push_str(": {");
                    for (i, (name, member)) in targets.iter().enumerate() {
                        out.push_str(if i > 0 { ", " } else { " " });
                        write_key(out, name);
                        out.push_str(": ");
                        out.push_str(
                            target(member)
                                .ok_or_else(|| format!("`{id}`: `{name}` has no target"))?,
                        );
                    }
                    out.push_str(" }\n");
                }
                "create" | "put" | "read" | "update" | "delete" | "list" | "input" | "output" => {
                    pad(out, 1);
                    out.push_str(key);
                    out.push_str(": ");
                    out.push_str(self.id(
                        target(value).ok_or_else(|| format!("`{id}`: `{key}` has no target"))?,
                    ));
                    out.push('\n');
                }
                _ => return Err(format!("`{id}`: the property `{key}` has no IDL form")),
            }
        }
        Ok(())
    }
}

fn target(node: &Node) -> Option<&str> {
    node.get("target")?.as_str()
}

fn pad(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("    ");
    }
}

/// An object key: bare when it is an identifier, else quoted.
fn write_key(out: &mut String, key: &str) {
    if is_identifier(key) {
        out.push_str(key);
    } else {
        write_string(out, key);
    }
}

/// Whether `node` is written on one line: scalars, and arrays and objects
/// of scalars that fit in 60 characters.
fn is_short(node: &Node) -> bool {
    let scalar = |n: &Node| !matches!(n, Node::Array(_) | Node::Object(_));
    let width = |n: &Node| {
        let mut text = String::new();
        write_value(&mut text, n, 0);
        text.len() + 2
    };
    match node {
        Node::Array(items) => {
            items.iter().all(scalar) && items.iter().map(width).sum::<usize>() <= 60
        }
        Node::Object(entries) => {
            entries.values().all(scalar)
                && entries
                    .iter()
                    .map(|(k, v)| k.len() + 2 + width(v))
                    .sum::<usize>()
                    <= 60
        }
        _ => true,
    }
}

/// `key: value, key: value` on one line.
fn write_entries(out: &mut String, entries: &IndexMap<String, Node>, indent: usize) {
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_key(out, key);
        out.push_str(": ");
        write_value(out, value, indent);
    }
}

/// A node value in IDL syntax (strings always quoted: an unquoted one
/// would be a shape ID).
fn write_value(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Array(items) if !items.is_empty() && items.len() <= 8 && is_short(node) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item, indent);
            }
            out.push(']');
        }
        Node::Object(entries) if !entries.is_empty() && entries.len() <= 4 && is_short(node) => {
            out.push_str("{ ");
            write_entries(out, entries, indent);
            out.push_str(" }");
        }
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) => out.push_str(n),
        Node::String(s) | Node::ShapeId(s) => write_string(out, s),
        Node::Array(items) if items.is_empty() => out.push_str("[]"),
        Node::Array(items) => {
            out.push_str("[\n");
            for item in items {
                pad(out, indent + 1);
                write_value(out, item, indent + 1);
                out.push('\n');
            }
            pad(out, indent);
            out.push(']');
        }
        Node::Object(entries) if entries.is_empty() => out.push_str("{}"),
        Node::Object(entries) => {
            out.push_str("{\n");
            for (key, value) in entries {
                pad(out, indent + 1);
                write_key(out, key);
                out.push_str(": ");
                write_value(out, value, indent + 1);
                out.push('\n');
            }
            pad(out, indent);
            out.push('}');
        }
    }
}

/// A quoted IDL string.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
