//! Parsed `.smithy` files in, one JSON AST document out: what Smithy's
//! loader builds from IDL, written as `smithy ast` writes it.
//!
//! Shape IDs resolve as spec/idl.rst, "Relative shape ID resolution" says:
//! a `use` of that name, else a shape of that name in the file's namespace
//! (in any file: forward references and other files count), else a public
//! shape of the prelude, else the file's namespace. Unquoted strings in
//! trait values resolve the same way; in metadata, to the prelude's
//! namespace. Omitted trait values take the default of the trait's shape:
//! `{}` for a structure or map, `[]` for a list, else `null`. Elided
//! members take the target of the bound resource's identifier or property
//! of that name, else of the mixins' member.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use indexmap::IndexMap;

use super::node::Node;
use super::parse::{self, IdlFile, MemberDef, Pos, ShapeDef, SyntaxError, Trait, Version};
use crate::ast::{MAX_MIXIN_DEPTH, ShapeType};

/// An error of assembly: the file (its index among the files given) and
/// where in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AssemblyError {
    pub(crate) file: usize,
    pub(crate) error: SyntaxError,
}

type Result<T> = std::result::Result<T, AssemblyError>;

/// The prelude (Smithy's `prelude.smithy`, Apache-2.0: see the NOTICE
/// beside it).
const PRELUDE: &str = include_str!("prelude.smithy");

/// The prelude's shapes: name → (type, public).
fn prelude() -> &'static HashMap<String, (ShapeType, bool)> {
    static PRELUDE_SHAPES: OnceLock<HashMap<String, (ShapeType, bool)>> = OnceLock::new();
    PRELUDE_SHAPES.get_or_init(|| {
        let file = parse::parse(PRELUDE).expect("the prelude parses");
        file.shapes
            .iter()
            .map(|shape| {
                let private = shape
                    .traits
                    .iter()
                    .any(|t| t.id == "private" || t.id == "smithy.api#private");
                (shape.name.clone(), (shape.shape_type, !private))
            })
            .collect()
    })
}

/// The value of a trait applied without one (`@required`, `@tags()`), by
/// the trait's shape type: `{}` for a structure or map (or a trait whose
/// shape is not known), `[]` for a list, else `null`.
pub(crate) fn omitted_value(trait_type: Option<ShapeType>) -> Node {
    match trait_type {
        Some(ShapeType::Structure | ShapeType::Map) | None => Node::Object(IndexMap::new()),
        Some(ShapeType::List) => Node::Array(Vec::new()),
        Some(_) => Node::Null,
    }
}

/// Whether the prelude has a public shape named `name` (which a relative
/// shape ID can name).
pub(crate) fn prelude_is_public(name: &str) -> bool {
    prelude().get(name).is_some_and(|&(_, public)| public)
}

/// The type of the shape `id`, if the prelude defines it.
pub(crate) fn prelude_type(id: &str) -> Option<ShapeType> {
    let name = id.strip_prefix("smithy.api#")?;
    prelude().get(name).map(|&(t, _)| t)
}

/// Shapes defined outside the IDL files (JSON AST models loaded beside
/// them): absolute ID → type.
pub(crate) type Known = HashMap<String, ShapeType>;

/// Assembles `files` into one JSON AST document. `known` holds the shapes
/// that other sources define, for resolution and trait defaults.
pub(crate) fn assemble(files: Vec<IdlFile>, known: &Known) -> Result<Node> {
    let mut defined: HashMap<String, ShapeType> = known.clone();
    for (index, file) in files.iter().enumerate() {
        let namespace = file.namespace.as_deref().unwrap_or_default();
        for shape in &file.shapes {
            let id = format!("{namespace}#{}", shape.name);
            if defined.insert(id.clone(), shape.shape_type).is_some() {
                return Err(AssemblyError {
                    file: index,
                    error: SyntaxError {
                        pos: shape.pos,
                        message: format!("the shape `{id}` is defined twice"),
                    },
                });
            }
        }
    }
    let mut shapes: IndexMap<String, Node> = IndexMap::new();
    let mut applies: IndexMap<String, (IndexMap<String, Node>, usize, Pos)> = IndexMap::new();
    let mut elided: Vec<Elided> = Vec::new();
    let mut metadata: IndexMap<String, Node> = IndexMap::new();
    let all_v1 = !files.is_empty() && files.iter().all(|f| f.version == Version::V1);
    // Each statement is consumed as it is assembled; what the mixin checks
    // need of it afterwards is kept in `defs`.
    let mut defs: Vec<(String, Pos, Version, usize)> = Vec::new();
    for (index, file) in files.into_iter().enumerate() {
        let fail = |error| AssemblyError { file: index, error };
        let IdlFile {
            version,
            metadata: entries,
            namespace,
            uses,
            shapes: statements,
            applies: apply_statements,
        } = file;
        let resolver =
            Resolver::new(namespace.as_deref(), &uses, &statements, &defined).map_err(fail)?;
        for (key, value, pos) in entries {
            let value = resolve_metadata(value, &defined)
                .map_err(|message| fail(SyntaxError { pos, message }))?;
            merge_metadata(&mut metadata, &key, value)
                .map_err(|message| fail(SyntaxError { pos, message }))?;
        }
        for shape in statements {
            let id = resolver.absolute(&shape.name);
            defs.push((id.clone(), shape.pos, version, index));
            let for_resource = shape.for_resource.as_ref().map(|r| resolver.resolve(r));
            let mixins: Vec<String> = shape.mixins.iter().map(|m| resolver.resolve(m)).collect();
            let pos = shape.pos;
            let node = resolver
                .shape(shape, &id, &mut |member| {
                    elided.push(Elided {
                        shape: id.clone(),
                        member,
                        file: index,
                        for_resource: for_resource.clone(),
                        mixins: mixins.clone(),
                        pos,
                    });
                })
                .map_err(fail)?;
            shapes.insert(id, node);
        }
        for apply in apply_statements {
            let target = resolver.resolve(&apply.target);
            let traits = resolver.traits(None, apply.traits).map_err(fail)?;
            let entry = applies
                .entry(target)
                .or_insert_with(|| (IndexMap::new(), index, apply.pos));
            for (id, value) in traits {
                merge_trait(&mut entry.0, id, value).map_err(|message| {
                    fail(SyntaxError {
                        pos: apply.pos,
                        message,
                    })
                })?;
            }
        }
    }
    let mut found = HashMap::new();
    for member in &elided {
        fill_elided(&mut shapes, member, &mut found)?;
    }
    let mut inherited = HashMap::new();
    for (id, pos, version, index) in &defs {
        check_mixins(&shapes, id, *version, &mut inherited).map_err(|message| AssemblyError {
            file: *index,
            error: SyntaxError { pos: *pos, message },
        })?;
    }
    let mut document = IndexMap::new();
    let version = if all_v1 { "1.0" } else { "2.0" };
    document.insert("smithy".to_owned(), Node::String(version.to_owned()));
    if !metadata.is_empty() {
        document.insert("metadata".to_owned(), Node::Object(metadata));
    }
    for (id, (traits, _, _)) in applies {
        let entry = shapes.entry(id).or_insert_with(|| {
            Node::object([
                ("type", Node::String("apply".to_owned())),
                ("traits", Node::Object(IndexMap::new())),
            ])
        });
        if let Node::Object(shape) = entry {
            let existing = shape
                .entry("traits".to_owned())
                .or_insert_with(|| Node::Object(IndexMap::new()));
            if let Node::Object(existing) = existing {
                for (trait_id, value) in traits {
                    // Conflicts were checked among the applies; against the
                    // shape's own traits they follow the same rule.
                    let _ = merge_trait(existing, trait_id, value);
                }
            }
        }
    }
    document.insert("shapes".to_owned(), Node::Object(shapes));
    Ok(Node::Object(document))
}

/// A member whose target is elided (`$name`), to fill in once every shape
/// is known.
struct Elided {
    shape: String,
    member: String,
    file: usize,
    for_resource: Option<String>,
    mixins: Vec<String>,
    pos: Pos,
}

/// What [`mixin_member_target`] found for a mixin and a member name.
type Found = HashMap<(String, String), Option<String>>;

/// The target of an elided member: the bound resource's identifier or
/// property, else a mixin's member (through the mixins' own mixins).
fn fill_elided(
    shapes: &mut IndexMap<String, Node>,
    elided: &Elided,
    found: &mut Found,
) -> Result<()> {
    let from_resource = elided.for_resource.as_ref().and_then(|resource| {
        let resource = shapes.get(resource)?;
        ["identifiers", "properties"]
            .iter()
            .find_map(|key| target_of(resource.get(key)?.get(&elided.member)?))
    });
    let target = from_resource.or_else(|| {
        elided
            .mixins
            .iter()
            .find_map(|mixin| mixin_member_target(shapes, mixin, &elided.member, 0, found))
    });
    let Some(target) = target else {
        return Err(AssemblyError {
            file: elided.file,
            error: SyntaxError {
                pos: elided.pos,
                message: format!(
                    "the elided member `${}` of `{}` matches no identifier of its resource and no \
                     member of its mixins",
                    elided.member, elided.shape
                ),
            },
        });
    };
    let slot = shapes.get_mut(&elided.shape).and_then(|shape| {
        if shape.get("members").is_some() {
            shape.get_mut("members")?.get_mut(&elided.member)
        } else {
            shape.get_mut(&elided.member)
        }
    });
    if let Some(Node::Object(member)) = slot {
        member.insert("target".to_owned(), Node::String(target));
        member.move_index(member.len() - 1, 0);
    }
    Ok(())
}

/// The members of `shape` (a list's `member`, a map's `key` and `value`).
fn members_of(shape: &Node) -> Vec<(&str, &Node)> {
    match shape.get("members") {
        Some(Node::Object(members)) => members.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        _ => ["member", "key", "value"]
            .into_iter()
            .filter_map(|key| shape.get(key).map(|m| (key, m)))
            .collect(),
    }
}

/// What [`inherited_targets`] found for each shape.
type Inherited = HashMap<String, std::result::Result<IndexMap<String, (String, String)>, String>>;

/// The targets of the members `id` has through its mixins, each named with
/// the mixin member it comes from; an error when two disagree. Each shape
/// is worked out once (`memo`).
fn inherited_targets(
    shapes: &IndexMap<String, Node>,
    id: &str,
    depth: usize,
    memo: &mut Inherited,
) -> std::result::Result<IndexMap<String, (String, String)>, String> {
    if let Some(known) = memo.get(id) {
        return known.clone();
    }
    let mut inherited: IndexMap<String, (String, String)> = IndexMap::new();
    let Some(shape) = shapes.get(id) else {
        return Ok(inherited);
    };
    if depth > MAX_MIXIN_DEPTH {
        return Err(format!(
            "mixins nest more than {MAX_MIXIN_DEPTH} deep under `{id}`"
        ));
    }
    let Some(Node::Array(mixins)) = shape.get("mixins") else {
        return Ok(inherited);
    };
    for mixin in mixins {
        let Some(mixin) = target_of(mixin) else {
            continue;
        };
        let Some(mixin_shape) = shapes.get(&mixin) else {
            continue;
        };
        let mut from = inherited_targets(shapes, &mixin, depth + 1, memo)?;
        for (name, member) in members_of(mixin_shape) {
            if let Some(target) = target_of(member) {
                from.insert(name.to_owned(), (target, format!("{mixin}${name}")));
            }
        }
        for (name, (target, origin)) in from {
            match inherited.get(&name) {
                Some((existing, first)) if *existing != target => {
                    let error = format!(
                        "the member `{origin}` conflicts with the inherited mixin member `{first}`"
                    );
                    memo.insert(id.to_owned(), Err(error.clone()));
                    return Err(error);
                }
                Some(_) => {}
                None => {
                    inherited.insert(name, (target, origin));
                }
            }
        }
    }
    memo.insert(id.to_owned(), Ok(inherited.clone()));
    Ok(inherited)
}

/// The rules of mixins the IDL can break: a mixin has the type of the
/// shape using it; a member matches the target of the mixin member of its
/// name; an operation mixin has no input or output, a resource mixin no
/// properties; IDL 1.0 has no mixins.
fn check_mixins(
    shapes: &IndexMap<String, Node>,
    id: &str,
    version: Version,
    memo: &mut Inherited,
) -> std::result::Result<(), String> {
    let Some(shape) = shapes.get(id) else {
        return Ok(());
    };
    let shape_type = shape.get("type").and_then(Node::as_str).unwrap_or_default();
    let is_mixin = shape
        .get("traits")
        .and_then(|t| t.get("smithy.api#mixin"))
        .is_some();
    if is_mixin && version == Version::V1 {
        return Err(format!(
            "mixins need Smithy 2.0: `{id}` has the @mixin trait in a 1.0 file"
        ));
    }
    if is_mixin && shape_type == "operation" {
        for key in ["input", "output"] {
            if shape
                .get(key)
                .and_then(target_of)
                .is_some_and(|t| t != "smithy.api#Unit")
            {
                return Err(format!(
                    "the operation mixin `{id}` must have smithy.api#Unit as its {key}"
                ));
            }
        }
    }
    let resource_properties = [
        "identifiers",
        "properties",
        "create",
        "put",
        "read",
        "update",
        "delete",
        "list",
        "operations",
        "collectionOperations",
        "resources",
    ];
    if is_mixin
        && shape_type == "resource"
        && resource_properties.iter().any(|k| shape.get(k).is_some())
    {
        return Err(format!(
            "the resource mixin `{id}` may not define identifiers, properties, operations or \
             resources"
        ));
    }
    if let Some(Node::Array(mixins)) = shape.get("mixins") {
        for mixin in mixins {
            let Some(mixin) = target_of(mixin) else {
                continue;
            };
            if let Some(mixin_type) = shapes
                .get(&mixin)
                .and_then(|m| m.get("type"))
                .and_then(Node::as_str)
                && mixin_type != shape_type
            {
                return Err(format!(
                    "the {shape_type} `{id}` cannot use `{mixin}`, a {mixin_type}, as a mixin                      (a mixin has the type of the shape using it)"
                ));
            }
        }
    }
    let inherited = inherited_targets(shapes, id, 0, memo)?;
    for (name, member) in members_of(shape) {
        if let (Some((target, origin)), Some(own)) = (inherited.get(name), target_of(member))
            && *target != own
        {
            return Err(format!(
                "the member `{id}${name}` conflicts with the inherited mixin member `{origin}`"
            ));
        }
    }
    Ok(())
}

/// The target of `member` in the mixin `mixin` or its mixins; each mixin
/// and name is looked up once (`found`), so that mixins shared along many
/// paths cost no more than one.
fn mixin_member_target(
    shapes: &IndexMap<String, Node>,
    mixin: &str,
    member: &str,
    depth: usize,
    found: &mut Found,
) -> Option<String> {
    if depth > MAX_MIXIN_DEPTH {
        return None;
    }
    let key = (mixin.to_owned(), member.to_owned());
    if let Some(known) = found.get(&key) {
        return known.clone();
    }
    let shape = shapes.get(mixin)?;
    let own = match shape.get("members") {
        Some(members) => members.get(member),
        // A list's `member`, a map's `key` and `value`.
        None => shape.get(member),
    };
    let target = own.and_then(target_of).or_else(|| {
        let Some(Node::Array(mixins)) = shape.get("mixins") else {
            return None;
        };
        mixins.iter().find_map(|m| {
            let id = target_of(m)?;
            mixin_member_target(shapes, &id, member, depth + 1, found)
        })
    });
    found.insert(key, target.clone());
    target
}

fn target_of(node: &Node) -> Option<String> {
    node.get("target")?.as_str().map(str::to_owned)
}

/// Metadata values: unquoted strings are prelude shape IDs, and must name
/// a shape.
fn resolve_metadata(
    node: Node,
    defined: &HashMap<String, ShapeType>,
) -> std::result::Result<Node, String> {
    let mut missing = None;
    visit_shape_ids(&node, &mut |id| {
        let id = if id.contains('#') {
            id.to_owned()
        } else {
            format!("smithy.api#{id}")
        };
        let root = id.split_once('$').map_or(id.as_str(), |(r, _)| r);
        if missing.is_none() && !defined.contains_key(root) && prelude_type(root).is_none() {
            missing = Some(id.clone());
        }
    });
    if let Some(id) = missing {
        return Err(format!(
            "the syntactic shape ID `{id}` names no shape (quote a string that is not a shape ID)"
        ));
    }
    Ok(map_shape_ids(node, &|id| {
        if id.contains('#') {
            id.to_owned()
        } else {
            format!("smithy.api#{id}")
        }
    }))
}

/// Calls `f` with every unquoted string of `node`.
fn visit_shape_ids(node: &Node, f: &mut dyn FnMut(&str)) {
    match node {
        Node::ShapeId(id) => f(id),
        Node::Array(items) => items.iter().for_each(|n| visit_shape_ids(n, f)),
        Node::Object(entries) => entries.values().for_each(|n| visit_shape_ids(n, f)),
        _ => {}
    }
}

/// `node` with every unquoted string replaced by `resolve` of it.
fn map_shape_ids(node: Node, resolve: &dyn Fn(&str) -> String) -> Node {
    match node {
        Node::ShapeId(id) => Node::String(resolve(&id)),
        Node::Array(items) => Node::Array(
            items
                .into_iter()
                .map(|n| map_shape_ids(n, resolve))
                .collect(),
        ),
        Node::Object(entries) => Node::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k, map_shape_ids(v, resolve)))
                .collect(),
        ),
        other => other,
    }
}

/// Sets `key` in `map` as Smithy merges values: two lists concatenate,
/// equal values are one; `false` (nothing changed) for any other conflict.
fn merge_value(map: &mut IndexMap<String, Node>, key: &str, value: Node) -> bool {
    match map.get_mut(key) {
        None => {
            map.insert(key.to_owned(), value);
            true
        }
        Some(Node::Array(existing)) => match value {
            Node::Array(items) => {
                existing.extend(items);
                true
            }
            _ => false,
        },
        Some(existing) => *existing == value,
    }
}

/// Sets the metadata `key` ([`merge_value`]'s rules, as Smithy merges the
/// metadata of several files).
pub(crate) fn merge_metadata(
    metadata: &mut IndexMap<String, Node>,
    key: &str,
    value: Node,
) -> std::result::Result<(), String> {
    if merge_value(metadata, key, value) {
        Ok(())
    } else {
        Err(format!(
            "the metadata key {key:?} is given two different values"
        ))
    }
}

/// Adds the trait `id` to `traits` ([`merge_value`]'s rules).
fn merge_trait(
    traits: &mut IndexMap<String, Node>,
    id: String,
    value: Node,
) -> std::result::Result<(), String> {
    if merge_value(traits, &id, value) {
        Ok(())
    } else {
        Err(format!(
            "the trait `{id}` is applied twice with different values"
        ))
    }
}

/// An enum's values are strings; an intEnum's, integers that fit an `i32`.
fn check_enum_value(value: &Node, parent: ShapeType) -> std::result::Result<(), String> {
    match (parent, value) {
        (ShapeType::Enum, Node::String(_)) => Ok(()),
        (ShapeType::Enum, _) => Err("an enum's values are strings".to_owned()),
        (_, Node::Number(text)) => {
            if text.contains(['.', 'e', 'E']) {
                return Err("an intEnum's values are integers, not floating point".to_owned());
            }
            text.parse::<i32>()
                .map(|_| ())
                .map_err(|_| format!("{text} does not fit a 32-bit integer"))
        }
        _ => Err("an intEnum's values are integers".to_owned()),
    }
}

/// Resolves the shape IDs of one file.
struct Resolver<'a> {
    namespace: &'a str,
    uses: HashMap<&'a str, &'a str>,
    defined: &'a HashMap<String, ShapeType>,
}

impl<'a> Resolver<'a> {
    /// The resolver of a file in `namespace` with `uses`, defining
    /// `shapes`.
    fn new(
        namespace: Option<&'a str>,
        uses: &'a [(String, Pos)],
        shapes: &[ShapeDef],
        defined: &'a HashMap<String, ShapeType>,
    ) -> std::result::Result<Self, SyntaxError> {
        let namespace = namespace.unwrap_or_default();
        let imported = uses;
        let mut uses = HashMap::new();
        let local: HashSet<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
        for (id, pos) in imported {
            let name = id.rsplit_once('#').map_or(id.as_str(), |(_, n)| n);
            if local.contains(name) {
                return Err(SyntaxError {
                    pos: *pos,
                    message: format!("`use {id}` conflicts with the shape `{name}` defined here"),
                });
            }
            if let Some(previous) = uses.insert(name, id.as_str())
                && previous != id
            {
                return Err(SyntaxError {
                    pos: *pos,
                    message: format!("`use {id}` conflicts with `use {previous}`"),
                });
            }
        }
        Ok(Self {
            namespace,
            uses,
            defined,
        })
    }

    /// The absolute ID of a shape named `name` in this file.
    fn absolute(&self, name: &str) -> String {
        format!("{}#{name}", self.namespace)
    }

    /// Resolves a shape ID as written.
    fn resolve(&self, id: &str) -> String {
        if id.contains('#') {
            return id.to_owned();
        }
        let (root, member) = match id.split_once('$') {
            Some((root, member)) => (root, Some(member)),
            None => (id, None),
        };
        let absolute = if let Some(imported) = self.uses.get(root) {
            (*imported).to_owned()
        } else {
            let local = self.absolute(root);
            if self.defined.contains_key(&local) {
                local
            } else if prelude().get(root).is_some_and(|&(_, public)| public) {
                format!("smithy.api#{root}")
            } else {
                local
            }
        };
        match member {
            Some(member) => format!("{absolute}${member}"),
            None => absolute,
        }
    }

    fn resolve_node(&self, node: Node) -> Node {
        map_shape_ids(node, &|id| self.resolve(id))
    }

    /// The type of the shape `id`, from the files, the other sources or the
    /// prelude.
    fn type_of(&self, id: &str) -> Option<ShapeType> {
        self.defined.get(id).copied().or_else(|| prelude_type(id))
    }

    /// The traits of a statement: the documentation comment first, then
    /// each trait, resolved, with omitted values defaulted.
    fn traits(
        &self,
        docs: Option<String>,
        traits: Vec<Trait>,
    ) -> std::result::Result<IndexMap<String, Node>, SyntaxError> {
        let mut out = IndexMap::new();
        if let Some(docs) = docs {
            out.insert("smithy.api#documentation".to_owned(), Node::String(docs));
        }
        for t in traits {
            let id = self.resolve(&t.id);
            let value = match t.value {
                Some(value) => self.resolve_node(value),
                None => omitted_value(self.type_of(&id)),
            };
            merge_trait(&mut out, id, value).map_err(|message| SyntaxError {
                pos: t.pos,
                message,
            })?;
        }
        Ok(out)
    }

    /// The JSON AST of one shape. Each elided member is handed to
    /// `elided` (by name) to be filled in later.
    fn shape(
        &self,
        shape: ShapeDef,
        id: &str,
        elided: &mut dyn FnMut(String),
    ) -> std::result::Result<Node, SyntaxError> {
        let mut out = IndexMap::new();
        let type_name = if shape.is_set {
            "set"
        } else {
            shape.shape_type.name()
        };
        out.insert("type".to_owned(), Node::String(type_name.to_owned()));
        if !shape.mixins.is_empty() {
            out.insert(
                "mixins".to_owned(),
                Node::Array(
                    shape
                        .mixins
                        .iter()
                        .map(|m| Node::target(&self.resolve(m)))
                        .collect(),
                ),
            );
        }
        match shape.shape_type {
            ShapeType::List | ShapeType::Map => {
                let allowed: &[&str] = if shape.shape_type == ShapeType::List {
                    &["member"]
                } else {
                    &["key", "value"]
                };
                let missing: Vec<&str> = allowed
                    .iter()
                    .copied()
                    .filter(|name| !shape.members.iter().any(|m| m.name == *name))
                    .collect();
                if !missing.is_empty() && shape.mixins.is_empty() {
                    return Err(SyntaxError {
                        pos: shape.pos,
                        message: format!("`{id}` needs its {}", missing.join(" and ")),
                    });
                }
                for member in shape.members {
                    if !allowed.contains(&member.name.as_str()) {
                        return Err(SyntaxError {
                            pos: member.pos,
                            message: format!(
                                "`{id}` cannot have a member named `{}` (a {} has {})",
                                member.name,
                                type_name,
                                allowed.join(" and ")
                            ),
                        });
                    }
                    let (name, node) = self.member(member, shape.shape_type, elided)?;
                    out.insert(name, node);
                }
            }
            ShapeType::Structure | ShapeType::Union | ShapeType::Enum | ShapeType::IntEnum => {
                if matches!(shape.shape_type, ShapeType::Enum | ShapeType::IntEnum)
                    && shape.members.is_empty()
                    && shape.mixins.is_empty()
                {
                    return Err(SyntaxError {
                        pos: shape.pos,
                        message: format!("the {type_name} `{id}` needs at least one member"),
                    });
                }
                let mut members = IndexMap::with_capacity(shape.members.len());
                for member in shape.members {
                    let (name, node) = self.member(member, shape.shape_type, elided)?;
                    members.insert(name, node);
                }
                members.shrink_to_fit();
                out.insert("members".to_owned(), Node::Object(members));
            }
            ShapeType::Service | ShapeType::Resource | ShapeType::Operation => {
                self.entity(shape.shape_type, shape.body, shape.pos, &mut out)?;
            }
            _ => {}
        }
        let mut traits = self.traits(shape.docs, shape.traits)?;
        if !traits.is_empty() {
            traits.shrink_to_fit();
            out.insert("traits".to_owned(), Node::Object(traits));
        }
        out.shrink_to_fit();
        Ok(Node::Object(out))
    }

    /// One member's name and JSON AST.
    fn member(
        &self,
        member: MemberDef,
        parent: ShapeType,
        elided: &mut dyn FnMut(String),
    ) -> std::result::Result<(String, Node), SyntaxError> {
        let mut out = IndexMap::new();
        let is_enum = matches!(parent, ShapeType::Enum | ShapeType::IntEnum);
        if is_enum {
            out.insert(
                "target".to_owned(),
                Node::String("smithy.api#Unit".to_owned()),
            );
        } else if let Some(target) = &member.target {
            out.insert("target".to_owned(), Node::String(self.resolve(target)));
        } else {
            elided(member.name.clone());
        }
        let mut traits = self.traits(member.docs, member.traits)?;
        if is_enum {
            if let Some(value) = &member.value {
                check_enum_value(value, parent).map_err(|message| SyntaxError {
                    pos: member.pos,
                    message: format!("the enum member `{}`: {message}", member.name),
                })?;
            }
            let value = match member.value {
                Some(value) => Some(self.resolve_node(value)),
                None if parent == ShapeType::Enum
                    && !traits.contains_key("smithy.api#enumValue") =>
                {
                    Some(Node::String(member.name.clone()))
                }
                None => None,
            };
            if let Some(value) = value {
                merge_trait(&mut traits, "smithy.api#enumValue".to_owned(), value).map_err(
                    |message| SyntaxError {
                        pos: member.pos,
                        message,
                    },
                )?;
            }
        } else if let Some(value) = member.value {
            merge_trait(
                &mut traits,
                "smithy.api#default".to_owned(),
                self.resolve_node(value),
            )
            .map_err(|message| SyntaxError {
                pos: member.pos,
                message,
            })?;
        }
        if !traits.is_empty() {
            traits.shrink_to_fit();
            out.insert("traits".to_owned(), Node::Object(traits));
        }
        out.shrink_to_fit();
        Ok((member.name, Node::Object(out)))
    }

    /// The properties of a service, resource or operation, in the JSON
    /// AST's form.
    fn entity(
        &self,
        kind: ShapeType,
        body: IndexMap<String, Node>,
        pos: Pos,
        out: &mut IndexMap<String, Node>,
    ) -> std::result::Result<(), SyntaxError> {
        for (key, value) in body {
            let bad = |what: &str| SyntaxError {
                pos,
                message: format!("the {} property `{key}` must be {what}", kind.name()),
            };
            let node = match (kind, key.as_str()) {
                (ShapeType::Service, "version") => match value {
                    Node::String(_) => value,
                    _ => return Err(bad("a string")),
                },
                (ShapeType::Service, "operations" | "resources" | "errors")
                | (ShapeType::Resource, "operations" | "collectionOperations" | "resources")
                | (ShapeType::Operation, "errors") => {
                    let Node::Array(items) = value else {
                        return Err(bad("a list of shape IDs"));
                    };
                    let mut targets = Vec::with_capacity(items.len());
                    for item in items {
                        let id = item.as_str().ok_or_else(|| bad("a list of shape IDs"))?;
                        targets.push(Node::target(&self.resolve(id)));
                    }
                    Node::Array(targets)
                }
                (ShapeType::Service, "rename") => {
                    let Node::Object(entries) = value else {
                        return Err(bad("a map of shape IDs to names"));
                    };
                    let mut renames = IndexMap::new();
                    for (from, to) in entries {
                        let Node::String(to) = to else {
                            return Err(bad("a map of shape IDs to names"));
                        };
                        renames.insert(self.resolve(&from), Node::String(to));
                    }
                    Node::Object(renames)
                }
                (ShapeType::Resource, "identifiers" | "properties") => {
                    let Node::Object(entries) = value else {
                        return Err(bad("a map of names to shape IDs"));
                    };
                    let mut targets = IndexMap::new();
                    for (name, target) in entries {
                        let id = target
                            .as_str()
                            .ok_or_else(|| bad("a map of names to shape IDs"))?;
                        targets.insert(name, Node::target(&self.resolve(id)));
                    }
                    Node::Object(targets)
                }
                (ShapeType::Resource, "create" | "put" | "read" | "update" | "delete" | "list")
                | (ShapeType::Operation, "input" | "output") => {
                    let id = value.as_str().ok_or_else(|| bad("a shape ID"))?;
                    Node::target(&self.resolve(id))
                }
                _ => {
                    return Err(SyntaxError {
                        pos,
                        message: format!("unknown {} property `{key}`", kind.name()),
                    });
                }
            };
            out.insert(key, node);
        }
        Ok(())
    }
}
