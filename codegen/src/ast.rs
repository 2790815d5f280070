//! The Smithy JSON AST (what `smithy ast` and `smithy build` write), read
//! into a typed shape index: every shape's type, members (in model order,
//! mixins' members first), traits and references, with every reference
//! checked and every `@error` trait validated.
//!
//! Unknown properties are ignored, so newer ASTs still read; Smithy 1.0
//! ASTs read too (`set` shapes, the `smithy.api#enum` trait, boxed prelude
//! shapes).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::{CodegenError, ErrorKind};

/// The shape types of Smithy IDL 2.0 (and 1.0's `set`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShapeType {
    Blob,
    Boolean,
    String,
    Byte,
    Short,
    Integer,
    Long,
    Float,
    Double,
    BigInteger,
    BigDecimal,
    Timestamp,
    Document,
    Enum,
    IntEnum,
    List,
    Map,
    Structure,
    Union,
    Service,
    Operation,
    Resource,
}

impl ShapeType {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "blob" => Self::Blob,
            "boolean" => Self::Boolean,
            "string" => Self::String,
            "byte" => Self::Byte,
            "short" => Self::Short,
            "integer" => Self::Integer,
            "long" => Self::Long,
            "float" => Self::Float,
            "double" => Self::Double,
            "bigInteger" => Self::BigInteger,
            "bigDecimal" => Self::BigDecimal,
            "timestamp" => Self::Timestamp,
            "document" => Self::Document,
            "enum" => Self::Enum,
            "intEnum" => Self::IntEnum,
            "list" | "set" => Self::List,
            "map" => Self::Map,
            "structure" => Self::Structure,
            "union" => Self::Union,
            "service" => Self::Service,
            "operation" => Self::Operation,
            "resource" => Self::Resource,
            _ => return None,
        })
    }

    /// The name the AST uses.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Blob => "blob",
            Self::Boolean => "boolean",
            Self::String => "string",
            Self::Byte => "byte",
            Self::Short => "short",
            Self::Integer => "integer",
            Self::Long => "long",
            Self::Float => "float",
            Self::Double => "double",
            Self::BigInteger => "bigInteger",
            Self::BigDecimal => "bigDecimal",
            Self::Timestamp => "timestamp",
            Self::Document => "document",
            Self::Enum => "enum",
            Self::IntEnum => "intEnum",
            Self::List => "list",
            Self::Map => "map",
            Self::Structure => "structure",
            Self::Union => "union",
            Self::Service => "service",
            Self::Operation => "operation",
            Self::Resource => "resource",
        }
    }
}

/// The traits of a shape or member, by absolute shape ID.
pub(crate) type Traits = IndexMap<String, Value>;

/// One member: of a structure, union or enum; a list's `member`; a map's
/// `key` and `value`.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) target: String,
    pub(crate) traits: Traits,
}

/// One shape, mixins applied.
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    pub(crate) id: String,
    pub(crate) shape_type: ShapeType,
    pub(crate) members: Vec<Member>,
    pub(crate) traits: Traits,
    /// Service: `operations`, `resources`, `errors`, `rename`.
    /// Operation: `errors`. Resource: lifecycle and other operations,
    /// `resources`.
    pub(crate) operations: Vec<String>,
    pub(crate) resources: Vec<String>,
    pub(crate) errors: Vec<String>,
    pub(crate) rename: IndexMap<String, String>,
    /// Operation: its `input` and `output` structures.
    pub(crate) input: Option<String>,
    pub(crate) output: Option<String>,
}

impl Shape {
    /// The shape's name: the part of its ID after `#`.
    pub(crate) fn name(&self) -> &str {
        shape_name(&self.id)
    }

    pub(crate) fn has_trait(&self, id: &str) -> bool {
        self.traits.contains_key(id)
    }

    pub(crate) fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }
}

/// The part of a shape ID after `#` (the whole ID if it has none).
pub(crate) fn shape_name(id: &str) -> &str {
    id.rsplit_once('#').map_or(id, |(_, name)| name)
}

/// A model: its shapes by ID, in file order.
#[derive(Debug)]
pub(crate) struct Model {
    pub(crate) shapes: IndexMap<String, Shape>,
}

/// The prelude shapes a model may target without defining them.
pub(crate) fn prelude(id: &str) -> Option<ShapeType> {
    let name = id.strip_prefix("smithy.api#")?;
    let name = name.strip_prefix("Primitive").unwrap_or(name);
    Some(match name {
        "String" => ShapeType::String,
        "Blob" => ShapeType::Blob,
        "BigInteger" => ShapeType::BigInteger,
        "BigDecimal" => ShapeType::BigDecimal,
        "Timestamp" => ShapeType::Timestamp,
        "Document" => ShapeType::Document,
        "Boolean" => ShapeType::Boolean,
        "Byte" => ShapeType::Byte,
        "Short" => ShapeType::Short,
        "Integer" => ShapeType::Integer,
        "Long" => ShapeType::Long,
        "Float" => ShapeType::Float,
        "Double" => ShapeType::Double,
        "Unit" => ShapeType::Structure,
        _ => return None,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawShape {
    #[serde(rename = "type")]
    shape_type: String,
    #[serde(default)]
    members: IndexMap<String, RawMember>,
    member: Option<RawMember>,
    key: Option<RawMember>,
    value: Option<RawMember>,
    #[serde(default)]
    traits: Traits,
    #[serde(default)]
    mixins: Vec<Ref>,
    #[serde(default)]
    operations: Vec<Ref>,
    #[serde(default)]
    collection_operations: Vec<Ref>,
    #[serde(default)]
    resources: Vec<Ref>,
    #[serde(default)]
    errors: Vec<Ref>,
    #[serde(default)]
    rename: IndexMap<String, String>,
    create: Option<Ref>,
    put: Option<Ref>,
    read: Option<Ref>,
    update: Option<Ref>,
    delete: Option<Ref>,
    list: Option<Ref>,
    input: Option<Ref>,
    output: Option<Ref>,
}

#[derive(Deserialize)]
struct RawMember {
    target: String,
    #[serde(default)]
    traits: Traits,
}

#[derive(Deserialize)]
struct Ref {
    target: String,
}

/// Reads a JSON AST. `origin` names the model in errors.
pub(crate) fn parse(origin: &str, json: &str) -> Result<Model, CodegenError> {
    let fail = |kind| CodegenError::new(origin, kind);
    let json_error = |e: serde_json::Error| {
        fail(ErrorKind::Json {
            line: e.line(),
            column: e.column(),
            message: json_message(&e),
        })
    };
    let not_smithy = |reason: &str| {
        fail(ErrorKind::NotSmithy {
            reason: reason.to_owned(),
        })
    };
    // Check it is JSON first (for the line and column of a syntax error),
    // then read the top level and each shape from their raw text, so that
    // members keep the model's order.
    serde_json::from_str::<serde::de::IgnoredAny>(json).map_err(json_error)?;
    let Ok(top) = serde_json::from_str::<IndexMap<String, Box<RawValue>>>(json) else {
        return Err(not_smithy("the document is not a JSON object"));
    };
    match top
        .get("smithy")
        .map(|v| serde_json::from_str::<Value>(v.get()))
    {
        Some(Ok(Value::String(version)))
            if version.starts_with('1') || version.starts_with('2') => {}
        Some(Ok(Value::String(version))) => {
            return Err(not_smithy(&format!(
                "unsupported `smithy` version \"{version}\" (1.0 and 2.0 are read)"
            )));
        }
        Some(_) => return Err(not_smithy("`smithy` is not a version string")),
        None => return Err(not_smithy("it has no `smithy` version")),
    }
    let raw_shapes = match top.get("shapes") {
        None => IndexMap::new(),
        Some(shapes) => serde_json::from_str::<IndexMap<String, Box<RawValue>>>(shapes.get())
            .map_err(|_| not_smithy("`shapes` is not an object"))?,
    };

    let mut raw = IndexMap::with_capacity(raw_shapes.len());
    for (id, value) in raw_shapes {
        if !id.contains('#') {
            return Err(fail(ErrorKind::InvalidShape {
                pointer: pointer(&["shapes", &id]),
                shape: id,
                message: "a shape ID needs a namespace (`namespace#Name`)".to_owned(),
            }));
        }
        let mut deserializer = serde_json::Deserializer::from_str(value.get());
        let shape: RawShape = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let mut parts = vec!["shapes", id.as_str()];
            parts.extend(path.split('.').filter(|p| !p.is_empty() && *p != "?"));
            fail(ErrorKind::InvalidShape {
                pointer: pointer(&parts),
                shape: id.clone(),
                message: json_message(e.inner()),
            })
        })?;
        raw.insert(id, shape);
    }
    build(origin, raw)
}

/// serde_json's message without its " at line N column M" suffix (the
/// location is reported separately).
fn json_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// A JSON pointer (RFC 6901) from its reference tokens.
pub(crate) fn pointer(parts: &[&str]) -> String {
    parts.iter().fold(String::new(), |mut out, part| {
        out.push('/');
        out.push_str(&part.replace('~', "~0").replace('/', "~1"));
        out
    })
}

fn build(origin: &str, raw: IndexMap<String, RawShape>) -> Result<Model, CodegenError> {
    let fail = |kind| CodegenError::new(origin, kind);
    let mut shapes = IndexMap::with_capacity(raw.len());
    for (id, shape) in &raw {
        let Some(shape_type) = ShapeType::parse(&shape.shape_type) else {
            if shape.shape_type == "apply" {
                continue; // Traits applied elsewhere; `smithy ast` folds them in.
            }
            return Err(fail(ErrorKind::InvalidShape {
                shape: id.clone(),
                pointer: pointer(&["shapes", id, "type"]),
                message: format!("unknown shape type \"{}\"", shape.shape_type),
            }));
        };
        let (members, traits) = flatten_mixins(origin, &raw, id, &mut Vec::new())?;
        let refs = |list: &[Ref]| list.iter().map(|r| r.target.clone()).collect::<Vec<_>>();
        let mut operations = refs(&shape.operations);
        operations.extend(refs(&shape.collection_operations));
        let lifecycle = [
            &shape.create,
            &shape.put,
            &shape.read,
            &shape.update,
            &shape.delete,
            &shape.list,
        ];
        operations.extend(lifecycle.into_iter().flatten().map(|r| r.target.clone()));
        shapes.insert(
            id.clone(),
            Shape {
                id: id.clone(),
                shape_type,
                members,
                traits,
                operations,
                resources: refs(&shape.resources),
                errors: refs(&shape.errors),
                rename: shape.rename.clone(),
                input: shape.input.as_ref().map(|r| r.target.clone()),
                output: shape.output.as_ref().map(|r| r.target.clone()),
            },
        );
    }
    let model = Model { shapes };
    crate::identifiers::check(origin, &model)?;
    check_references(origin, &model, &raw)?;
    check_error_traits(origin, &model)?;
    crate::traits::check(origin, &model)?;
    Ok(model)
}

/// The members (mixins' first, in mixin order) and traits (the shape's own
/// over its mixins', `@mixin` itself not inherited) of shape `id`.
fn flatten_mixins(
    origin: &str,
    raw: &IndexMap<String, RawShape>,
    id: &str,
    visiting: &mut Vec<String>,
) -> Result<(Vec<Member>, Traits), CodegenError> {
    let shape = &raw[id];
    if visiting.iter().any(|v| v == id) {
        return Err(CodegenError::new(
            origin,
            ErrorKind::InvalidShape {
                shape: id.to_owned(),
                pointer: pointer(&["shapes", id, "mixins"]),
                message: "its mixins form a cycle".to_owned(),
            },
        ));
    }
    visiting.push(id.to_owned());
    let mut members: Vec<Member> = Vec::new();
    let mut traits = Traits::new();
    for (index, mixin) in shape.mixins.iter().enumerate() {
        if !raw.contains_key(&mixin.target) {
            return Err(CodegenError::new(
                origin,
                ErrorKind::MissingShape {
                    shape: id.to_owned(),
                    pointer: pointer(&["shapes", id, "mixins", &index.to_string(), "target"]),
                    target: mixin.target.clone(),
                },
            ));
        }
        let (inherited, mixin_traits) = flatten_mixins(origin, raw, &mixin.target, visiting)?;
        for member in inherited {
            match members.iter_mut().find(|m| m.name == member.name) {
                Some(existing) => *existing = member,
                None => members.push(member),
            }
        }
        traits.extend(
            mixin_traits
                .into_iter()
                .filter(|(name, _)| name != "smithy.api#mixin"),
        );
    }
    visiting.pop();
    let own = shape
        .members
        .iter()
        .map(|(name, m)| (name.as_str(), m))
        .chain(shape.member.iter().map(|m| ("member", m)))
        .chain(shape.key.iter().map(|m| ("key", m)))
        .chain(shape.value.iter().map(|m| ("value", m)));
    for (name, m) in own {
        let member = Member {
            name: name.to_owned(),
            target: m.target.clone(),
            traits: m.traits.clone(),
        };
        match members.iter_mut().find(|existing| existing.name == name) {
            // A member redeclared on the shape keeps the mixin's traits
            // under its own.
            Some(existing) => {
                let mut merged = existing.traits.clone();
                merged.extend(member.traits);
                *existing = Member {
                    traits: merged,
                    ..member
                };
            }
            None => members.push(member),
        }
    }
    traits.extend(shape.traits.clone());
    Ok((members, traits))
}

/// Every member target and shape reference names a shape of the model or of
/// the prelude.
fn check_references(
    origin: &str,
    model: &Model,
    raw: &IndexMap<String, RawShape>,
) -> Result<(), CodegenError> {
    let exists = |target: &str| model.shapes.contains_key(target) || prelude(target).is_some();
    for (id, shape) in raw {
        let members = shape
            .members
            .iter()
            .map(|(name, m)| (vec!["members", name.as_str(), "target"], &m.target))
            .chain(
                shape
                    .member
                    .iter()
                    .map(|m| (vec!["member", "target"], &m.target)),
            )
            .chain(shape.key.iter().map(|m| (vec!["key", "target"], &m.target)))
            .chain(
                shape
                    .value
                    .iter()
                    .map(|m| (vec!["value", "target"], &m.target)),
            );
        let lists = [
            ("operations", &shape.operations),
            ("collectionOperations", &shape.collection_operations),
            ("resources", &shape.resources),
            ("errors", &shape.errors),
        ];
        let listed = lists.into_iter().flat_map(|(key, refs)| {
            refs.iter().enumerate().map(move |(index, r)| {
                (
                    vec![key.to_owned(), index.to_string(), "target".to_owned()],
                    &r.target,
                )
            })
        });
        let lifecycle = [
            ("input", &shape.input),
            ("output", &shape.output),
            ("create", &shape.create),
            ("put", &shape.put),
            ("read", &shape.read),
            ("update", &shape.update),
            ("delete", &shape.delete),
            ("list", &shape.list),
        ];
        let single = lifecycle.into_iter().filter_map(|(key, r)| {
            r.as_ref()
                .map(|r| (vec![key.to_owned(), "target".to_owned()], &r.target))
        });
        let members = members.map(|(path, target)| {
            (
                path.into_iter().map(str::to_owned).collect::<Vec<_>>(),
                target,
            )
        });
        for (path, target) in members.chain(listed).chain(single) {
            if !exists(target) {
                let mut parts = vec!["shapes", id.as_str()];
                parts.extend(path.iter().map(String::as_str));
                return Err(CodegenError::new(
                    origin,
                    ErrorKind::MissingShape {
                        shape: id.clone(),
                        pointer: pointer(&parts),
                        target: target.to_owned(),
                    },
                ));
            }
        }
    }
    Ok(())
}

/// `@error` is `"client"` or `"server"`, and only on structures.
fn check_error_traits(origin: &str, model: &Model) -> Result<(), CodegenError> {
    for shape in model.shapes.values() {
        let Some(value) = shape.traits.get("smithy.api#error") else {
            continue;
        };
        if !matches!(value.as_str(), Some("client" | "server")) {
            return Err(CodegenError::new(
                origin,
                ErrorKind::InvalidErrorTrait {
                    shape: shape.id.clone(),
                    pointer: pointer(&["shapes", &shape.id, "traits", "smithy.api#error"]),
                    value: value.to_string(),
                },
            ));
        }
        if shape.shape_type != ShapeType::Structure {
            return Err(CodegenError::new(
                origin,
                ErrorKind::ErrorOnNonStructure {
                    shape: shape.id.clone(),
                    shape_type: shape.shape_type.name().to_owned(),
                },
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixin_members_come_first_and_own_traits_win() {
        let json = r#"{"smithy": "2.0", "shapes": {
            "ex#Base": {"type": "structure", "members": {"message": {"target": "smithy.api#String"}},
                        "traits": {"smithy.api#mixin": {}, "smithy.api#error": "client"}},
            "ex#Thing": {"type": "structure", "mixins": [{"target": "ex#Base"}],
                         "members": {"code": {"target": "smithy.api#Integer"}},
                         "traits": {"smithy.api#error": "server"}}
        }}"#;
        let model = parse("m", json).expect("valid");
        let thing = &model.shapes["ex#Thing"];
        let names: Vec<_> = thing.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["message", "code"]);
        assert_eq!(thing.traits["smithy.api#error"], "server");
        assert!(!thing.has_trait("smithy.api#mixin"));
    }

    #[test]
    fn pointers_escape_slashes_and_tildes() {
        assert_eq!(pointer(&["shapes", "a/b~c#D"]), "/shapes/a~1b~0c#D");
    }

    #[test]
    fn prelude_includes_primitives_and_unit() {
        assert_eq!(
            prelude("smithy.api#PrimitiveInteger"),
            Some(ShapeType::Integer)
        );
        assert_eq!(prelude("smithy.api#Unit"), Some(ShapeType::Structure));
        assert_eq!(prelude("smithy.api#Nope"), None);
        assert_eq!(prelude("ex#String"), None);
    }
}
