//! The Smithy JSON AST (what `smithy ast` and `smithy build` write), read
//! into a typed shape index: every shape's type, members (in model order,
//! mixins' members first), traits and references, with every reference
//! checked and every `@error` trait validated.
//!
//! Unknown properties are ignored, so newer ASTs still read; Smithy 1.0
//! ASTs read too (`set` shapes, the `smithy.api#enum` trait, boxed prelude
//! shapes).
//!
//! A model file is read as a stream ([`stream`]), so that its text is never
//! held beside the model; a shape ID given twice is an error.
//!
//! A model is untrusted: reading it uses no recursion. Mixins are applied
//! once per shape (which copies its mixins' members) and nest at most
//! [`MAX_MIXIN_DEPTH`] deep; lists and maps nest at most
//! [`MAX_COLLECTION_DEPTH`] deep and never in a cycle, so that the emitter
//! can recurse over them.

mod members;
mod stream;
mod traits_map;

pub(crate) use traits_map::Traits;

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{CodegenError, ErrorKind};
use crate::idl::node::Node;

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
    /// The type the AST names `name` (`"set"` is a list).
    pub(crate) fn parse(name: &str) -> Option<Self> {
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

/// One member: of a structure, union or enum; a list's `member`; a map's
/// `key` and `value`.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub(crate) name: String,
    /// Shared by the members of one shape with the same target.
    pub(crate) target: Arc<str>,
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

    /// The member `name`. Linear in the members: meant for lists and maps,
    /// which have at most two.
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

/// How deep mixins may nest: a shape's mixins, their mixins, and so on.
/// Smithy sets no limit, and real models nest a few levels; the limit
/// bounds the work of applying mixins (each shape copies the members of its
/// mixins, which hold their own mixins' members). The crate docs state it.
pub(crate) const MAX_MIXIN_DEPTH: usize = 32;

/// How deep lists and maps may nest: a list of lists of maps of ... counts
/// each list and map. Real models nest a few levels; the generated type
/// (`Vec<Vec<HashMap<..>>>`) is written by recursion over them. The crate
/// docs state it.
pub(crate) const MAX_COLLECTION_DEPTH: usize = 32;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawShape {
    #[serde(rename = "type")]
    shape_type: String,
    #[serde(default)]
    members: members::RawMembers,
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
    #[serde(deserialize_with = "shared_str")]
    target: Arc<str>,
    #[serde(default)]
    traits: Traits,
}

fn shared_str<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Arc<str>, D::Error> {
    String::deserialize(de).map(Arc::from)
}

#[derive(Deserialize)]
struct Ref {
    target: String,
}

/// Reads a JSON AST from its text. `origin` names the model in errors.
pub(crate) fn parse(origin: &str, json: &str) -> Result<Model, CodegenError> {
    read(origin, &mut || Ok(serde_json::Deserializer::from_str(json)))
}

/// Reads a JSON AST from the file `path`, as a stream: the file is read
/// twice ([`stream`]), never held whole. `origin` names the model in errors.
pub(crate) fn parse_file(origin: &str, path: &Path) -> Result<Model, CodegenError> {
    read(origin, &mut || {
        let file = File::open(path)
            .map_err(|source| CodegenError::new(origin, ErrorKind::Read { source }))?;
        let reader = std::io::BufReader::with_capacity(1 << 16, file);
        Ok(serde_json::Deserializer::from_reader(reader))
    })
}

/// Reads a JSON AST document held in memory (the one IDL sources are
/// assembled into), as [`parse`] reads its text: the document is taken
/// apart shape by shape, each freed once read.
pub(crate) fn from_document(origin: &str, document: Node) -> Result<Model, CodegenError> {
    let outline = stream::Outline::of_document(&document);
    build(origin, &outline, |on_shape| {
        stream::shapes(document, outline.shapes, on_shape)
    })
}

/// Reads a JSON AST through `open`, which gives a deserializer of the whole
/// document each time it is called (twice).
fn read<'de, R: serde_json::de::Read<'de>>(
    origin: &str,
    open: &mut dyn FnMut() -> Result<serde_json::Deserializer<R>, CodegenError>,
) -> Result<Model, CodegenError> {
    // The first pass checks that the text is JSON (for the line and column
    // of a syntax error) and notes the top level.
    let mut de = open()?;
    let outline = stream::outline(&mut de).map_err(|e| json_error(origin, e))?;
    de.end().map_err(|e| json_error(origin, e))?;
    drop(de);
    let mut de = open()?;
    build(origin, &outline, |on_shape| {
        stream::shapes(&mut de, outline.shapes, on_shape)
    })
}

/// A failure of the JSON reader: of reading the file, or of the JSON at
/// its line and column.
fn json_error(origin: &str, e: serde_json::Error) -> CodegenError {
    if e.is_io() {
        return CodegenError::new(
            origin,
            ErrorKind::Read {
                source: std::io::Error::from(e),
            },
        );
    }
    CodegenError::new(
        origin,
        ErrorKind::Json {
            line: e.line(),
            column: e.column(),
            message: json_message(&e.to_string()),
        },
    )
}

/// The model of a document whose top level is `outline`, its shapes read
/// by `read_shapes` ([`stream::shapes`] over the document), which hands each
/// shape to the function it is given.
fn build(
    origin: &str,
    outline: &stream::Outline,
    read_shapes: impl FnOnce(
        &mut stream::OnShape<'_>,
    ) -> Result<Option<stream::Stop>, serde_json::Error>,
) -> Result<Model, CodegenError> {
    let fail = |kind| CodegenError::new(origin, kind);
    let not_smithy = |reason: &str| {
        fail(ErrorKind::NotSmithy {
            reason: reason.to_owned(),
        })
    };
    if !outline.is_object {
        return Err(not_smithy("the document is not a JSON object"));
    }
    match &outline.smithy {
        Some(Value::String(version)) if version.starts_with('1') || version.starts_with('2') => {}
        Some(Value::String(version)) => {
            return Err(not_smithy(&format!(
                "unsupported `smithy` version \"{version}\" (1.0 and 2.0 are read)"
            )));
        }
        Some(_) => return Err(not_smithy("`smithy` is not a version string")),
        None => return Err(not_smithy("it has no `smithy` version")),
    }
    if outline.shapes > 1 {
        return Err(not_smithy("`shapes` is given more than once"));
    }
    if outline.shapes == 1 && !outline.shapes_is_object {
        return Err(not_smithy("`shapes` is not an object"));
    }
    if let Some(id) = &outline.repeated {
        return Err(fail(ErrorKind::InvalidShape {
            pointer: pointer(&["shapes", id]),
            shape: id.clone(),
            message: "the shape is defined more than once".to_owned(),
        }));
    }

    // `apply` entries hold traits for shapes defined elsewhere: a reference
    // to one is to a shape the model does not define.
    let (ids, applied) = (&outline.ids, &outline.applied);
    let exists = |target: &str| {
        (ids.contains(target) && !applied.contains(target)) || prelude(target).is_some()
    };

    // The second pass reads, checks and stores each shape with its own
    // members and traits; then mixins are applied.
    let mut shapes = IndexMap::with_capacity(ids.len().saturating_sub(applied.len()));
    let mut mixins: Vec<Vec<String>> = Vec::with_capacity(shapes.capacity());
    let mut on_shape = |id: String, shape: RawShape| {
        let Some(shape_type) = ShapeType::parse(&shape.shape_type) else {
            if shape.shape_type == "apply" {
                return Ok(()); // Traits applied elsewhere; `smithy ast` folds them in.
            }
            return Err(fail(ErrorKind::InvalidShape {
                pointer: pointer(&["shapes", &id, "type"]),
                message: format!("unknown shape type \"{}\"", shape.shape_type),
                shape: id,
            }));
        };
        check_references(origin, &id, &shape, exists)?;
        if matches!(shape_type, ShapeType::List | ShapeType::Map) {
            check_collection(&id, shape_type, &shape).map_err(fail)?;
        }
        mixins.push(shape.mixins.iter().map(|m| m.target.clone()).collect());
        let shape = own_shape(&id, shape_type, shape);
        shapes.insert(id, shape);
        Ok(())
    };
    let stop = read_shapes(&mut on_shape).map_err(|e| json_error(origin, e))?;
    match stop {
        None => {}
        Some(stream::Stop::Refused(e)) => return Err(e),
        Some(stream::Stop::Unnamespaced(id)) => {
            return Err(fail(ErrorKind::InvalidShape {
                pointer: pointer(&["shapes", &id]),
                shape: id,
                message: "a shape ID needs a namespace (`namespace#Name`)".to_owned(),
            }));
        }
        Some(stream::Stop::Shape { id, path, message }) => {
            let mut parts = vec!["shapes", id.as_str()];
            parts.extend(path.iter().map(String::as_str));
            return Err(fail(ErrorKind::InvalidShape {
                pointer: pointer(&parts),
                shape: id.clone(),
                message: json_message(&message),
            }));
        }
    }
    let inherited = apply_mixins(origin, &mut shapes, &mixins)?;
    let model = Model { shapes };
    check_nesting(origin, &model, &inherited)?;
    crate::identifiers::check(origin, &model)?;
    check_error_traits(origin, &model)?;
    crate::traits::check(origin, &model)?;
    Ok(model)
}

/// serde_json's message without its " at line N column M" suffix (the
/// location is reported separately).
fn json_message(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
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

/// Where a depth-first walk stands with a shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visit {
    Unseen,
    /// On the walk's path: meeting it again closes a cycle.
    Open,
    Done,
}

/// Shape `id` as declared: its own members (`members` in order, then
/// `member`, `key`, `value`) and traits, without its mixins'.
fn own_shape(id: &str, shape_type: ShapeType, shape: RawShape) -> Shape {
    let mut members = shape.members.0;
    let singles = [
        ("member", shape.member),
        ("key", shape.key),
        ("value", shape.value),
    ];
    for (name, member) in singles {
        if let Some(member) = member {
            match members.iter_mut().find(|(existing, _)| existing == name) {
                Some((_, existing)) => merge_into(existing, member),
                None => members.push((name.to_owned(), member)),
            }
        }
    }
    let targets = |refs: Vec<Ref>| refs.into_iter().map(|r| r.target);
    let mut operations: Vec<String> = targets(shape.operations).collect();
    operations.extend(targets(shape.collection_operations));
    let lifecycle = [
        shape.create,
        shape.put,
        shape.read,
        shape.update,
        shape.delete,
        shape.list,
    ];
    operations.extend(lifecycle.into_iter().flatten().map(|r| r.target));
    Shape {
        id: id.to_owned(),
        shape_type,
        members: into_members(members),
        traits: compact(shape.traits),
        operations,
        resources: targets(shape.resources).collect(),
        errors: targets(shape.errors).collect(),
        rename: shape.rename,
        input: shape.input.map(|r| r.target),
        output: shape.output.map(|r| r.target),
    }
}

/// Adds `member` to `members`; a member declared again keeps its place and
/// the earlier declaration's traits under its own.
fn merge_member(members: &mut IndexMap<String, RawMember>, name: String, member: RawMember) {
    match members.get_mut(&name) {
        Some(existing) => merge_into(existing, member),
        None => {
            members.insert(name, member);
        }
    }
}

/// `member` declared again over `existing`: its target, and its traits over
/// the earlier ones.
fn merge_into(existing: &mut RawMember, member: RawMember) {
    existing.target = member.target;
    existing.traits.extend(member.traits);
}

/// The model's members from the members read (a list of them becomes the
/// new list in place).
fn into_members(members: impl IntoIterator<Item = (String, RawMember)>) -> Vec<Member> {
    let mut members: Vec<Member> = members
        .into_iter()
        .map(|(name, m)| Member {
            name,
            target: m.target,
            traits: compact(m.traits),
        })
        .collect();
    // A list made in place keeps the capacity it grew to while being read.
    members.shrink_to_fit();
    members
}

/// `traits` without spare capacity: a model holds one map per shape and
/// per member, most with one or two entries.
fn compact(mut traits: Traits) -> Traits {
    traits.shrink_to_fit();
    traits
}

/// Applies every shape's `mixins` (by shape index) to it: each shape is
/// done after its mixins, copying their members first (in mixin order, a
/// later one replacing an earlier one of the same name in place), then its
/// own; their traits under its own, `@mixin` itself not inherited. Checks
/// that every mixin is a shape of the model with the `@mixin` trait and the
/// type of the shape using it (`check_mixin`), and that mixins form no cycle
/// and nest at most [`MAX_MIXIN_DEPTH`] deep, walking them iteratively so
/// that a long chain cannot overflow the stack. Returns the members lists
/// and maps inherit, by shape index.
fn apply_mixins(
    origin: &str,
    shapes: &mut IndexMap<String, Shape>,
    mixins: &[Vec<String>],
) -> Result<HashSet<(usize, &'static str)>, CodegenError> {
    let invalid = |id: &str, message: String| {
        CodegenError::new(
            origin,
            ErrorKind::InvalidShape {
                shape: id.to_owned(),
                pointer: pointer(&["shapes", id, "mixins"]),
                message,
            },
        )
    };
    let mut state = vec![Visit::Unseen; shapes.len()];
    // How deep each shape's mixins nest: 0 without mixins.
    let mut depth = vec![0; shapes.len()];
    let mut inherited = HashSet::new();
    for root in 0..shapes.len() {
        if mixins[root].is_empty() || state[root] != Visit::Unseen {
            continue;
        }
        state[root] = Visit::Open;
        // Depth-first through the mixins: (shape, its next mixin).
        let mut stack = vec![(root, 0)];
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let id = shapes.get_index(node).map_or("", |(id, _)| id.as_str());
            if let Some(mixin) = mixins[node].get(*next) {
                let at = pointer(&["shapes", id, "mixins", &next.to_string(), "target"]);
                let Some((target, _, mixin_shape)) = shapes.get_full(mixin) else {
                    return Err(CodegenError::new(
                        origin,
                        ErrorKind::MissingShape {
                            shape: id.to_owned(),
                            pointer: at,
                            target: mixin.clone(),
                        },
                    ));
                };
                check_mixin(&shapes[node], mixin_shape, at)
                    .map_err(|kind| CodegenError::new(origin, kind))?;
                *next += 1;
                match state[target] {
                    Visit::Open => {
                        return Err(invalid(mixin, "its mixins form a cycle".to_owned()));
                    }
                    Visit::Unseen => {
                        state[target] = Visit::Open;
                        stack.push((target, 0));
                    }
                    Visit::Done => {}
                }
                continue;
            }
            stack.pop();
            state[node] = Visit::Done;
            if mixins[node].is_empty() {
                continue;
            }
            let targets: Vec<usize> = mixins[node]
                .iter()
                .filter_map(|mixin| shapes.get_index_of(mixin))
                .collect();
            depth[node] = 1 + targets.iter().map(|&t| depth[t]).max().unwrap_or(0);
            if depth[node] > MAX_MIXIN_DEPTH {
                return Err(invalid(
                    id,
                    format!(
                        "its mixins nest more than {MAX_MIXIN_DEPTH} deep (the generator's limit)"
                    ),
                ));
            }
            let shape = &mut shapes[node];
            let own_members = std::mem::take(&mut shape.members);
            let own_traits = std::mem::take(&mut shape.traits);
            let shape_type = shape.shape_type;
            let mut members: IndexMap<String, RawMember> = IndexMap::new();
            let mut traits = Traits::new();
            for &mixin in &targets {
                let mixin = &shapes[mixin];
                for member in &mixin.members {
                    let copy = RawMember {
                        target: member.target.clone(),
                        traits: member.traits.clone(),
                    };
                    members.insert(member.name.clone(), copy);
                }
                let mut mixin_traits = mixin.traits.clone();
                mixin_traits.remove("smithy.api#mixin");
                traits.extend(mixin_traits);
            }
            // A list's or map's mixins are lists or maps (`check_mixin`), whose
            // members `check_collection` checked: they hold no other names.
            if matches!(shape_type, ShapeType::List | ShapeType::Map) {
                for &name in collection_member_names(shape_type) {
                    if members.contains_key(name) && !own_members.iter().any(|m| m.name == name) {
                        inherited.insert((node, name));
                    }
                }
            }
            for member in own_members {
                let own = RawMember {
                    target: member.target,
                    traits: member.traits,
                };
                merge_member(&mut members, member.name, own);
            }
            traits.extend(own_traits);
            let shape = &mut shapes[node];
            shape.members = into_members(members);
            shape.traits = compact(traits);
        }
    }
    Ok(inherited)
}

/// `mixin` may be a mixin of `shape`, as Smithy requires: it carries the
/// `@mixin` trait and has the same shape type. `at` is the JSON pointer of
/// the reference.
fn check_mixin(shape: &Shape, mixin: &Shape, at: String) -> Result<(), ErrorKind> {
    if !mixin.has_trait("smithy.api#mixin") {
        return Err(ErrorKind::NotAMixin {
            shape: shape.id.clone(),
            pointer: at,
            mixin: mixin.id.clone(),
        });
    }
    if mixin.shape_type != shape.shape_type {
        return Err(ErrorKind::MixinTypeMismatch {
            shape: shape.id.clone(),
            pointer: at,
            shape_type: shape.shape_type.name(),
            mixin: mixin.id.clone(),
            mixin_type: mixin.shape_type.name(),
        });
    }
    Ok(())
}

/// The members a list (`member`) or map (`key`, `value`) may have.
fn collection_member_names(shape_type: ShapeType) -> &'static [&'static str] {
    if shape_type == ShapeType::List {
        &["member"]
    } else {
        &["key", "value"]
    }
}

/// What a list or map may have, for an error message.
fn only_members(shape_type: ShapeType) -> &'static str {
    if shape_type == ShapeType::List {
        "a list's only member is `member`"
    } else {
        "a map's only members are `key` and `value`"
    }
}

/// A list declares only its `member`, a map only its `key` and `value`.
fn check_collection(id: &str, shape_type: ShapeType, shape: &RawShape) -> Result<(), ErrorKind> {
    let invalid = |at: &str, message: String| ErrorKind::InvalidShape {
        shape: id.to_owned(),
        pointer: pointer(&["shapes", id, at]),
        message,
    };
    let allowed = collection_member_names(shape_type);
    if !shape.members.0.is_empty() {
        let message = if shape_type == ShapeType::List {
            "a list declares its member as `member`, not under `members`"
        } else {
            "a map declares its members as `key` and `value`, not under `members`"
        };
        return Err(invalid("members", message.to_owned()));
    }
    let singles = [
        ("member", &shape.member),
        ("key", &shape.key),
        ("value", &shape.value),
    ];
    for (name, member) in singles {
        if member.is_some() && !allowed.contains(&name) {
            return Err(invalid(
                name,
                format!("{}, not `{name}`", only_members(shape_type)),
            ));
        }
    }
    Ok(())
}

/// Lists and maps hold each other in no cycle, which Smithy forbids (a
/// shape can refer back to itself only through a structure or union), and
/// at most [`MAX_COLLECTION_DEPTH`] deep. `inherited` holds the members
/// lists and maps have from their mixins (by shape index), for the error's
/// JSON pointer. Iterative, so that deep nesting cannot overflow the stack.
fn check_nesting(
    origin: &str,
    model: &Model,
    inherited: &HashSet<(usize, &'static str)>,
) -> Result<(), CodegenError> {
    let is_collection =
        |shape: &Shape| matches!(shape.shape_type, ShapeType::List | ShapeType::Map);
    // For each list and map, the lists and maps it holds, by the name of
    // the member holding them.
    let holds: Vec<Vec<(usize, &str)>> = model
        .shapes
        .values()
        .map(|shape| {
            if !is_collection(shape) {
                return Vec::new();
            }
            let held = shape.members.iter().filter_map(|member| {
                let (index, _, target) = model.shapes.get_full(&*member.target)?;
                is_collection(target).then_some((index, member.name.as_str()))
            });
            held.collect()
        })
        .collect();
    let invalid = |node: usize, member: &str, message: String| {
        let id = model
            .shapes
            .get_index(node)
            .map_or("", |(id, _)| id.as_str());
        let at = if inherited.contains(&(node, member)) {
            "mixins"
        } else {
            member
        };
        CodegenError::new(
            origin,
            ErrorKind::InvalidShape {
                shape: id.to_owned(),
                pointer: pointer(&["shapes", id, at]),
                message,
            },
        )
    };
    let mut state = vec![Visit::Unseen; holds.len()];
    // How many lists and maps nest in each, itself included.
    let mut depth = vec![1; holds.len()];
    for root in 0..holds.len() {
        if holds[root].is_empty() || state[root] != Visit::Unseen {
            continue;
        }
        state[root] = Visit::Open;
        // Depth-first through the held shapes: (shape, its next held one).
        let mut stack = vec![(root, 0)];
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(held, member)) = holds[node].get(*next) {
                *next += 1;
                match state[held] {
                    Visit::Open => {
                        return Err(invalid(
                            node,
                            member,
                            "its members form a cycle of lists and maps, which Smithy forbids \
                             (a shape can refer back to itself only through a structure or union)"
                                .to_owned(),
                        ));
                    }
                    Visit::Unseen => {
                        state[held] = Visit::Open;
                        stack.push((held, 0));
                    }
                    Visit::Done => {}
                }
                continue;
            }
            stack.pop();
            state[node] = Visit::Done;
            let deepest = holds[node].iter().max_by_key(|(held, _)| depth[*held]);
            if let Some(&(held, member)) = deepest {
                depth[node] = depth[held] + 1;
                if depth[node] > MAX_COLLECTION_DEPTH {
                    return Err(invalid(
                        node,
                        member,
                        format!(
                            "its members nest lists and maps more than {MAX_COLLECTION_DEPTH} deep \
                             (the generator's limit)"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Every member target and shape reference of shape `id` names a shape of
/// the model or of the prelude (`exists`).
fn check_references(
    origin: &str,
    id: &str,
    shape: &RawShape,
    exists: impl Fn(&str) -> bool,
) -> Result<(), CodegenError> {
    let members = shape
        .members
        .0
        .iter()
        .map(|(name, m)| (vec!["members", name.as_str(), "target"], &*m.target))
        .chain(
            shape
                .member
                .iter()
                .map(|m| (vec!["member", "target"], &*m.target)),
        )
        .chain(
            shape
                .key
                .iter()
                .map(|m| (vec!["key", "target"], &*m.target)),
        )
        .chain(
            shape
                .value
                .iter()
                .map(|m| (vec!["value", "target"], &*m.target)),
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
                r.target.as_str(),
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
            .map(|r| (vec![key.to_owned(), "target".to_owned()], r.target.as_str()))
    });
    let members = members.map(|(path, target)| {
        (
            path.into_iter().map(str::to_owned).collect::<Vec<_>>(),
            target,
        )
    });
    for (path, target) in members.chain(listed).chain(single) {
        if !exists(target) {
            let mut parts = vec!["shapes", id];
            parts.extend(path.iter().map(String::as_str));
            return Err(CodegenError::new(
                origin,
                ErrorKind::MissingShape {
                    shape: id.to_owned(),
                    pointer: pointer(&parts),
                    target: target.to_owned(),
                },
            ));
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
        assert_eq!(
            thing.traits.get("smithy.api#error"),
            Some(&Value::from("server"))
        );
        assert!(!thing.has_trait("smithy.api#mixin"));
    }

    /// The message of an `InvalidShape` error, with its shape and pointer.
    fn invalid(json: &str) -> (String, String, String) {
        match parse("m", json).expect_err("invalid").kind() {
            ErrorKind::InvalidShape {
                shape,
                pointer,
                message,
            } => (shape.clone(), pointer.clone(), message.clone()),
            other => panic!("not InvalidShape: {other:?}"),
        }
    }

    #[test]
    fn mixins_apply_in_order_and_own_members_override_in_place() {
        // B and C both mix in A (a diamond); D mixes in B then C. `a` comes
        // from A, `b` from B, `c` from C; D redeclares `b`, keeping B's
        // traits under its own.
        let json = r#"{"smithy": "2.0", "shapes": {
            "ex#D": {"type": "structure", "mixins": [{"target": "ex#B"}, {"target": "ex#C"}],
                     "members": {"b": {"target": "smithy.api#Integer",
                                       "traits": {"smithy.api#required": {}}},
                                 "d": {"target": "smithy.api#String"}}},
            "ex#C": {"type": "structure", "mixins": [{"target": "ex#A"}],
                     "members": {"c": {"target": "smithy.api#String"}},
                     "traits": {"smithy.api#mixin": {}, "ex#fromC": "c"}},
            "ex#B": {"type": "structure", "mixins": [{"target": "ex#A"}],
                     "members": {"b": {"target": "smithy.api#String",
                                       "traits": {"smithy.api#documentation": "B's"}}},
                     "traits": {"smithy.api#mixin": {}, "ex#fromB": "b"}},
            "ex#A": {"type": "structure", "members": {"a": {"target": "smithy.api#String"}},
                     "traits": {"smithy.api#mixin": {}, "ex#fromA": "a"}}
        }}"#;
        let model = parse("m", json).expect("valid");
        let d = &model.shapes["ex#D"];
        let names: Vec<_> = d.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        let b = d.member("b").expect("b");
        assert_eq!(&*b.target, "smithy.api#Integer");
        assert_eq!(
            b.traits.get("smithy.api#documentation"),
            Some(&Value::from("B's"))
        );
        assert!(b.traits.contains_key("smithy.api#required"));
        let traits: Vec<_> = d.traits.keys().collect();
        assert_eq!(traits, ["ex#fromA", "ex#fromB", "ex#fromC"]);
        // The model keeps the file's order.
        let ids: Vec<_> = model.shapes.keys().map(String::as_str).collect();
        assert_eq!(ids, ["ex#D", "ex#C", "ex#B", "ex#A"]);
    }

    /// A chain of `n` mixins, `ex#M0` (the last, with no mixin) to
    /// `ex#M{n-1}`, each adding a member, in file order from `ex#M{n-1}`
    /// when `reversed`.
    fn mixin_chain(n: usize, reversed: bool) -> String {
        let shape = |i: usize| {
            let mixins = if i == 0 {
                String::new()
            } else {
                format!(r#""mixins": [{{"target": "ex#M{}"}}], "#, i - 1)
            };
            format!(
                r#""ex#M{i}": {{"type": "structure", {mixins}"members": {{"m{i}": {{"target": "smithy.api#String"}}}}, "traits": {{"smithy.api#mixin": {{}}}}}}"#
            )
        };
        let mut shapes: Vec<String> = (0..n).map(shape).collect();
        if reversed {
            shapes.reverse();
        }
        format!(
            r#"{{"smithy": "2.0", "shapes": {{{}}}}}"#,
            shapes.join(", ")
        )
    }

    #[test]
    fn mixin_chains_up_to_the_limit_are_flattened() {
        for reversed in [false, true] {
            let model = parse("m", &mixin_chain(MAX_MIXIN_DEPTH + 1, reversed)).expect("valid");
            let last = &model.shapes[&format!("ex#M{MAX_MIXIN_DEPTH}")];
            assert_eq!(last.members.len(), MAX_MIXIN_DEPTH + 1);
            assert_eq!(last.members[0].name, "m0");
            // Its own `@mixin`, none inherited.
            assert_eq!(last.traits.len(), 1);
        }
    }

    #[test]
    fn mixin_chains_past_the_limit_are_an_error_naming_the_first_too_deep() {
        let too_deep = format!("ex#M{}", MAX_MIXIN_DEPTH + 1);
        for reversed in [false, true] {
            let (shape, pointer, message) = invalid(&mixin_chain(MAX_MIXIN_DEPTH + 2, reversed));
            assert_eq!(shape, too_deep);
            assert_eq!(pointer, format!("/shapes/{too_deep}/mixins"));
            assert_eq!(
                message,
                "its mixins nest more than 32 deep (the generator's limit)"
            );
        }
    }

    #[test]
    fn members_by_the_ten_thousand_merge_by_name() {
        // A mixin of 30,000 members, each redeclared by the shape using it:
        // every lookup by name is a hash lookup, not a scan.
        const N: usize = 30_000;
        let members = |traits: &str| {
            (0..N)
                .map(|i| format!(r#""m{i}": {{"target": "smithy.api#String"{traits}}}"#))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let json = format!(
            r#"{{"smithy": "2.0", "shapes": {{
                "ex#Base": {{"type": "structure", "members": {{{}}}, "traits": {{"smithy.api#mixin": {{}}}}}},
                "ex#S": {{"type": "structure", "mixins": [{{"target": "ex#Base"}}], "members": {{{}}}}}
            }}}}"#,
            members(""),
            members(r#", "traits": {"smithy.api#required": {}}"#),
        );
        let model = parse("m", &json).expect("valid");
        let members = &model.shapes["ex#S"].members;
        assert_eq!(members.len(), N);
        assert_eq!(members[N - 1].name, format!("m{}", N - 1));
        assert!(
            members
                .iter()
                .all(|m| m.traits.contains_key("smithy.api#required"))
        );
    }

    #[test]
    fn mixin_cycles_and_missing_mixins() {
        let (shape, pointer, message) = invalid(
            r#"{"smithy": "2.0", "shapes": {
                "ex#A": {"type": "structure", "mixins": [{"target": "ex#B"}],
                         "traits": {"smithy.api#mixin": {}}},
                "ex#B": {"type": "structure", "mixins": [{"target": "ex#A"}],
                         "traits": {"smithy.api#mixin": {}}}
            }}"#,
        );
        assert_eq!(
            (shape.as_str(), pointer.as_str(), message.as_str()),
            ("ex#A", "/shapes/ex#A/mixins", "its mixins form a cycle")
        );
        let err = parse(
            "m",
            r#"{"smithy": "2.0", "shapes": {
                "ex#A": {"type": "structure", "mixins": [{"target": "ex#Gone"}]}
            }}"#,
        )
        .expect_err("missing");
        assert!(
            matches!(err.kind(), ErrorKind::MissingShape { pointer, .. }
                if pointer == "/shapes/ex#A/mixins/0/target"),
            "{err:?}"
        );
    }

    #[test]
    fn lists_and_maps_nest_up_to_the_limit() {
        // ex#L1 holds a map of ex#L0 values, ..., each level one list or map.
        let levels = MAX_COLLECTION_DEPTH;
        let shapes: Vec<String> = (0..levels)
            .map(|i| {
                let inner = if i == 0 {
                    "smithy.api#String".to_owned()
                } else {
                    format!("ex#L{}", i - 1)
                };
                if i % 2 == 0 {
                    format!(r#""ex#L{i}": {{"type": "list", "member": {{"target": "{inner}"}}}}"#)
                } else {
                    format!(
                        r#""ex#L{i}": {{"type": "map", "key": {{"target": "smithy.api#String"}}, "value": {{"target": "{inner}"}}}}"#
                    )
                }
            })
            .collect();
        let json = format!(
            r#"{{"smithy": "2.0", "shapes": {{{}}}}}"#,
            shapes.join(", ")
        );
        parse("m", &json).expect("at the limit");
        let deeper = json.replacen(
            r#""shapes": {"#,
            &format!(
                r#""shapes": {{"ex#Top": {{"type": "list", "member": {{"target": "ex#L{}"}}}}, "#,
                levels - 1
            ),
            1,
        );
        let (shape, pointer, message) = invalid(&deeper);
        assert_eq!(shape, "ex#Top");
        assert_eq!(pointer, "/shapes/ex#Top/member");
        assert_eq!(
            message,
            "its members nest lists and maps more than 32 deep (the generator's limit)"
        );
    }

    #[test]
    fn cycles_of_lists_and_maps_are_an_error_but_structures_break_them() {
        const CYCLE: &str = "its members form a cycle of lists and maps, which Smithy forbids \
                             (a shape can refer back to itself only through a structure or union)";
        // A map whose key is a list of the map, through a mixin's member.
        let (shape, pointer, message) = invalid(
            r#"{"smithy": "2.0", "shapes": {
                "ex#M": {"type": "map", "key": {"target": "ex#L"}, "value": {"target": "smithy.api#String"}},
                "ex#L": {"type": "list", "mixins": [{"target": "ex#Base"}]},
                "ex#Base": {"type": "list", "member": {"target": "ex#M"}, "traits": {"smithy.api#mixin": {}}}
            }}"#,
        );
        assert_eq!(
            (shape.as_str(), pointer.as_str(), message.as_str()),
            ("ex#L", "/shapes/ex#L/mixins", CYCLE)
        );
        // Through a structure: a recursive shape Smithy allows.
        parse(
            "m",
            r#"{"smithy": "2.0", "shapes": {
                "ex#L": {"type": "list", "member": {"target": "ex#S"}},
                "ex#S": {"type": "structure", "members": {"children": {"target": "ex#L"}}}
            }}"#,
        )
        .expect("valid");
    }

    #[test]
    fn lists_and_maps_have_only_their_own_members() {
        let (shape, pointer, message) = invalid(
            r#"{"smithy": "2.0", "shapes": {
                "ex#L": {"type": "list", "member": {"target": "smithy.api#String"},
                         "members": {"extra": {"target": "smithy.api#String"}}}
            }}"#,
        );
        assert_eq!(
            (shape.as_str(), pointer.as_str(), message.as_str()),
            (
                "ex#L",
                "/shapes/ex#L/members",
                "a list declares its member as `member`, not under `members`"
            )
        );
        // A structure's members cannot reach a list through a mixin.
        let err = parse(
            "m",
            r#"{"smithy": "2.0", "shapes": {
                "ex#L": {"type": "list", "mixins": [{"target": "ex#S"}]},
                "ex#S": {"type": "structure", "members": {"member": {"target": "smithy.api#String"},
                                                          "extra": {"target": "smithy.api#String"}},
                         "traits": {"smithy.api#mixin": {}}}
            }}"#,
        )
        .expect_err("a structure mixin");
        assert!(
            matches!(err.kind(), ErrorKind::MixinTypeMismatch { shape, mixin, .. }
                if shape == "ex#L" && mixin == "ex#S"),
            "{err:?}"
        );
        let (_, pointer, message) = invalid(
            r#"{"smithy": "2.0", "shapes": {
                "ex#M": {"type": "map", "member": {"target": "smithy.api#String"}}
            }}"#,
        );
        assert_eq!(pointer, "/shapes/ex#M/member");
        assert_eq!(
            message,
            "a map's only members are `key` and `value`, not `member`"
        );
    }

    #[test]
    fn apply_entries_are_skipped_and_define_no_shape() {
        let json = r#"{"smithy": "2.0", "shapes": {
            "ex#S": {"type": "structure", "members": {"a": {"target": "ex#Elsewhere"}}},
            "ex#Elsewhere": {"type": "apply", "traits": {"smithy.api#documentation": "Hi."}}
        }}"#;
        let err = parse("m", json).expect_err("no such shape");
        assert!(
            matches!(err.kind(), ErrorKind::MissingShape { target, pointer, .. }
                if target == "ex#Elsewhere" && pointer == "/shapes/ex#S/members/a/target"),
            "{err:?}"
        );
        let json = r#"{"smithy": "2.0", "shapes": {
            "ex#S": {"type": "structure"},
            "ex#Elsewhere": {"type": "apply", "traits": {"smithy.api#documentation": "Hi."}}
        }}"#;
        let model = parse("m", json).expect("valid");
        assert_eq!(model.shapes.keys().collect::<Vec<_>>(), ["ex#S"]);
    }

    #[test]
    fn a_shape_or_shapes_given_twice_is_an_error() {
        let err = parse(
            "m",
            r#"{"smithy": "2.0", "shapes": {
                "ex#A": {"type": "structure"},
                "ex#A": {"type": "string"}
            }}"#,
        )
        .expect_err("twice");
        assert_eq!(
            err.to_string(),
            "m: shape `ex#A` at /shapes/ex#A: the shape is defined more than once"
        );
        let err =
            parse("m", r#"{"smithy": "2.0", "shapes": {}, "shapes": {}}"#).expect_err("twice");
        assert_eq!(
            err.to_string(),
            "m: not a Smithy JSON AST: `shapes` is given more than once"
        );
    }

    #[test]
    fn a_file_reads_as_its_text_does() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("m.json");
        let models = [
            // Valid, with mixins applied after the shapes are read.
            r#"{"smithy": "2.0", "shapes": {
                "ex#S": {"type": "structure", "mixins": [{"target": "ex#M"}],
                         "members": {"b": {"target": "smithy.api#String"}}},
                "ex#M": {"type": "structure", "members": {"a": {"target": "smithy.api#String"}},
                         "traits": {"smithy.api#mixin": {}}}
            }}"#,
            // A syntax error: its line and column.
            "{\"smithy\": \"2.0\",\n \"shapes\": {,}}",
            // Trailing text.
            r#"{"smithy": "2.0"} x"#,
            // A shape that does not read: where in it.
            r#"{"smithy": "2.0", "shapes": {"ex#S": {"type": "structure", "members": {"a": {}}}}}"#,
            // Not an object.
            "[1, 2]",
        ];
        for json in models {
            std::fs::write(&path, json).expect("write");
            let (from_text, from_file) = (parse("m", json), parse_file("m", &path));
            match (from_text, from_file) {
                (Ok(text), Ok(file)) => {
                    let members = |m: &Model| -> Vec<String> {
                        m.shapes["ex#S"]
                            .members
                            .iter()
                            .map(|m| m.name.clone())
                            .collect()
                    };
                    assert_eq!(members(&text), ["a", "b"]);
                    assert_eq!(members(&file), ["a", "b"]);
                }
                (Err(text), Err(file)) => assert_eq!(text.to_string(), file.to_string()),
                (text, file) => panic!("{json}: {:?} but {:?}", text.err(), file.err()),
            }
        }
        let err = parse_file("m", &dir.path().join("missing.json")).expect_err("missing");
        assert!(matches!(err.kind(), ErrorKind::Read { .. }), "{err:?}");
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
