//! One service's view of a model: its operations (resources included), the
//! errors they and the service declare, the shapes those errors' members
//! need, and the Rust name of each — everything the emitter reads.

use std::collections::{HashMap, HashSet};

use indexmap::{IndexMap, IndexSet};

use crate::ast::{Model, Shape, ShapeType, pointer, prelude, shape_name};
use crate::error::{CodegenError, ErrorKind};
use crate::names;

/// The Rust-side view of one service.
#[derive(Debug)]
pub(crate) struct ServiceView<'m> {
    pub(crate) model: &'m Model,
    pub(crate) service: &'m Shape,
    /// `aws.api#service`'s `sdkId`, else the service shape's name.
    pub(crate) sdk_id: String,
    /// The service has the `aws.api#service` trait.
    pub(crate) is_aws: bool,
    /// Sorted by module name.
    pub(crate) operations: Vec<OperationView<'m>>,
    /// The errors the operations and the service declare, by Rust name.
    pub(crate) errors: Vec<&'m Shape>,
    /// Error structures that members refer to but no operation declares:
    /// generated in `types::error`, not variants of `Error`.
    pub(crate) member_errors: Vec<&'m Shape>,
    /// Structures, unions and enums the errors' members need, by Rust name.
    pub(crate) types: Vec<&'m Shape>,
    /// The event streams (`@streaming` unions of the operations' input and
    /// output) with error members, by Rust name.
    pub(crate) event_streams: Vec<EventStreamView<'m>>,
    /// Some member is a `document`.
    pub(crate) uses_document: bool,
    names: HashMap<String, String>,
    boxed: HashSet<(String, String)>,
}

/// One event stream with error members: its errors get an enum of their
/// own in `types::error`, `<Union>Error`.
#[derive(Debug)]
pub(crate) struct EventStreamView<'m> {
    pub(crate) shape: &'m Shape,
    /// `<Union>Error`.
    pub(crate) type_name: String,
    /// The error members' shapes, by Rust name.
    pub(crate) errors: Vec<&'m Shape>,
}

/// One operation of the service.
#[derive(Debug)]
pub(crate) struct OperationView<'m> {
    pub(crate) shape: &'m Shape,
    /// `operation::<module>`.
    pub(crate) module: String,
    /// `<type_name>Error`.
    pub(crate) type_name: String,
    /// The errors it declares, then the service's, by Rust name.
    pub(crate) errors: Vec<&'m Shape>,
}

impl<'m> ServiceView<'m> {
    /// The service `id`, or the only one. `origin` names the model in errors.
    pub(crate) fn select(
        origin: &str,
        model: &'m Model,
        id: Option<&str>,
    ) -> Result<Self, CodegenError> {
        let fail = |kind| CodegenError::new(origin, kind);
        let services: Vec<&Shape> = model
            .shapes
            .values()
            .filter(|s| s.shape_type == ShapeType::Service)
            .collect();
        let list = || {
            services
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let service = match (id, services.as_slice()) {
            (Some(id), _) => *services.iter().find(|s| s.id == id).ok_or_else(|| {
                fail(ErrorKind::UnknownService {
                    service: id.to_owned(),
                    services: list(),
                })
            })?,
            (None, []) => return Err(fail(ErrorKind::NoService)),
            (None, [only]) => only,
            (None, _) => return Err(fail(ErrorKind::SeveralServices { services: list() })),
        };
        Self::new(origin, model, service)
    }

    /// The services of `model`, each viewed.
    pub(crate) fn all(origin: &str, model: &'m Model) -> Result<Vec<Self>, CodegenError> {
        let services: Vec<_> = model
            .shapes
            .values()
            .filter(|s| s.shape_type == ShapeType::Service)
            .collect();
        if services.is_empty() {
            return Err(CodegenError::new(origin, ErrorKind::NoService));
        }
        services
            .into_iter()
            .map(|service| Self::new(origin, model, service))
            .collect()
    }

    fn new(origin: &str, model: &'m Model, service: &'m Shape) -> Result<Self, CodegenError> {
        let fail = |kind| CodegenError::new(origin, kind);
        let aws = service.traits.get("aws.api#service");
        let sdk_id = aws
            .and_then(|t| t.get("sdkId"))
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| service.name())
            .to_owned();
        let mut view = Self {
            model,
            service,
            sdk_id,
            is_aws: aws.is_some(),
            operations: Vec::new(),
            errors: Vec::new(),
            member_errors: Vec::new(),
            types: Vec::new(),
            event_streams: Vec::new(),
            uses_document: false,
            names: HashMap::new(),
            boxed: HashSet::new(),
        };

        // Operations: the service's, and its resources', recursively.
        let mut operation_ids = IndexSet::new();
        let mut resources: Vec<&String> = service.resources.iter().collect();
        operation_ids.extend(service.operations.iter().cloned());
        let mut seen_resources = HashSet::new();
        let mut owners: HashMap<&str, &Shape> = HashMap::new();
        owners.extend(service.operations.iter().map(|id| (id.as_str(), service)));
        while let Some(resource) = resources.pop() {
            if !seen_resources.insert(resource) {
                continue;
            }
            let owner = owners.get(resource.as_str()).copied().unwrap_or(service);
            let shape = view.typed(origin, owner, resource, ShapeType::Resource)?;
            for id in &shape.operations {
                owners.entry(id).or_insert(shape);
            }
            for id in &shape.resources {
                owners.entry(id).or_insert(shape);
            }
            operation_ids.extend(shape.operations.iter().cloned());
            resources.extend(shape.resources.iter());
        }

        // Errors, checked to be error structures.
        let error_of = |owner: &Shape, index: usize, id: &str| -> Result<&'m Shape, CodegenError> {
            match model.shapes.get(id) {
                Some(shape) if shape.has_trait("smithy.api#error") => Ok(shape),
                _ => Err(fail(ErrorKind::NotAnError {
                    shape: owner.id.clone(),
                    pointer: pointer(&[
                        "shapes",
                        &owner.id,
                        "errors",
                        &index.to_string(),
                        "target",
                    ]),
                    target: id.to_owned(),
                })),
            }
        };
        let service_errors = service
            .errors
            .iter()
            .enumerate()
            .map(|(i, id)| error_of(service, i, id))
            .collect::<Result<Vec<_>, _>>()?;
        let mut all_errors: IndexMap<&str, &'m Shape> = IndexMap::new();
        let mut operations = Vec::new();
        for id in &operation_ids {
            let owner = owners.get(id.as_str()).copied().unwrap_or(service);
            let shape = view.typed(origin, owner, id, ShapeType::Operation)?;
            let mut errors = shape
                .errors
                .iter()
                .enumerate()
                .map(|(i, id)| error_of(shape, i, id))
                .collect::<Result<Vec<_>, _>>()?;
            for error in &service_errors {
                if !errors.iter().any(|e| e.id == error.id) {
                    errors.push(error);
                }
            }
            all_errors.extend(errors.iter().map(|e| (e.id.as_str(), *e)));
            operations.push((shape, errors));
        }
        all_errors.extend(service_errors.iter().map(|e| (e.id.as_str(), *e)));

        let streams = event_streams(model, operations.iter().map(|(op, _)| *op));

        // The shapes error members need; errors only event streams hold
        // are generated too.
        let stream_errors = streams
            .iter()
            .flat_map(|(_, errors)| errors.iter().copied());
        let roots: Vec<&'m Shape> = all_errors.values().copied().chain(stream_errors).collect();
        let (types, mut member_errors) = view.member_closure(roots.iter().copied(), &all_errors);
        for error in roots {
            if !all_errors.contains_key(error.id.as_str())
                && !member_errors.iter().any(|e| e.id == error.id)
            {
                member_errors.push(error);
            }
        }

        // Names.
        view.name_all(
            origin,
            all_errors.values().chain(&member_errors),
            "`types::error`",
        )?;
        let mut in_types = HashMap::from([("error".to_owned(), "(the `error` module)".to_owned())]);
        for shape in &types {
            view.name_one(origin, shape, &mut in_types, "`types`")?;
        }
        let mut modules: HashMap<String, String> = HashMap::new();
        for (shape, mut errors) in operations {
            let module = names::module_name(view.renamed(shape));
            if let Some(first) = modules.insert(module.clone(), shape.id.clone()) {
                return Err(fail(ErrorKind::NameCollision {
                    name: module,
                    first,
                    second: shape.id.clone(),
                    scope: "`operation`".to_owned(),
                }));
            }
            errors.sort_by(|a, b| view.rust_name(a).cmp(view.rust_name(b)));
            view.operations.push(OperationView {
                shape,
                type_name: format!(
                    "{}Error",
                    names::unraw(&names::type_name(view.renamed(shape)))
                ),
                module,
                errors,
            });
        }
        view.operations.sort_by(|a, b| a.module.cmp(&b.module));
        let by_name = |v: &Self, list: &mut Vec<&'m Shape>| {
            list.sort_by(|a, b| v.rust_name(a).cmp(v.rust_name(b)));
        };
        let mut errors: Vec<_> = all_errors.into_values().collect();
        let (mut types, mut member_errors) = (types, member_errors);
        by_name(&view, &mut errors);
        by_name(&view, &mut types);
        by_name(&view, &mut member_errors);
        view.errors = errors;
        view.types = types;
        view.member_errors = member_errors;
        for (shape, mut errors) in streams {
            errors.sort_by(|a, b| view.rust_name(a).cmp(view.rust_name(b)));
            let type_name = format!(
                "{}Error",
                names::unraw(&names::type_name(view.renamed(shape)))
            );
            let taken = view
                .errors
                .iter()
                .chain(&view.member_errors)
                .map(|e| (view.rust_name(e), e.id.as_str()))
                .chain(
                    view.event_streams
                        .iter()
                        .map(|s| (s.type_name.as_str(), s.shape.id.as_str())),
                )
                .find(|(name, _)| names::unraw(name) == type_name);
            if let Some((_, first)) = taken {
                return Err(fail(ErrorKind::NameCollision {
                    name: type_name,
                    first: first.to_owned(),
                    second: shape.id.clone(),
                    scope: "`types::error`".to_owned(),
                }));
            }
            view.event_streams.push(EventStreamView {
                shape,
                type_name,
                errors,
            });
        }
        view.event_streams
            .sort_by(|a, b| a.type_name.cmp(&b.type_name));
        view.find_boxed();
        Ok(view)
    }

    /// A shape of the model; references were checked when it was read.
    pub(crate) fn shape(&self, id: &str) -> &'m Shape {
        &self.model.shapes[id]
    }

    /// Shape `id`, which `owner` refers to as a `expected`: an error naming
    /// both when it is a shape of another type or of the prelude.
    fn typed(
        &self,
        origin: &str,
        owner: &Shape,
        id: &str,
        expected: ShapeType,
    ) -> Result<&'m Shape, CodegenError> {
        match self.model.shapes.get(id) {
            Some(shape) if shape.shape_type == expected => Ok(shape),
            found => {
                let found = found.map_or_else(
                    || "a shape of the prelude".to_owned(),
                    |s| format!("{} {}", article(s.shape_type.name()), s.shape_type.name()),
                );
                Err(CodegenError::new(
                    origin,
                    ErrorKind::InvalidShape {
                        shape: owner.id.clone(),
                        pointer: pointer(&["shapes", &owner.id]),
                        message: format!(
                            "refers to `{id}` as {} {}, but it is {found}",
                            article(expected.name()),
                            expected.name()
                        ),
                    },
                ))
            }
        }
    }

    /// The type of `id`, for the model's shapes and the prelude's.
    pub(crate) fn shape_type(&self, id: &str) -> ShapeType {
        self.model
            .shapes
            .get(id)
            .map(|s| s.shape_type)
            .or_else(|| prelude(id))
            .expect("references were checked")
    }

    /// A string shape with Smithy 1.0's `@enum` trait: generated as an enum.
    pub(crate) fn is_enum_string(&self, id: &str) -> bool {
        self.model
            .shapes
            .get(id)
            .is_some_and(|s| s.shape_type == ShapeType::String && s.has_trait("smithy.api#enum"))
    }

    /// Whether shape `id` is generated as a named Rust type.
    pub(crate) fn is_generated(&self, id: &str) -> bool {
        // The prelude's shapes (in a model when `SMITHY_INCLUDES_PRELUDE`)
        // are never generated.
        !id.starts_with("smithy.api#")
            && self.model.shapes.contains_key(id)
            && (matches!(
                self.shape_type(id),
                ShapeType::Structure | ShapeType::Union | ShapeType::Enum | ShapeType::IntEnum
            ) || self.is_enum_string(id))
    }

    /// Whether `id` is an error structure.
    pub(crate) fn is_error(&self, id: &str) -> bool {
        self.model
            .shapes
            .get(id)
            .is_some_and(|s| s.has_trait("smithy.api#error"))
    }

    /// The Rust type name of a generated shape.
    pub(crate) fn rust_name(&self, shape: &Shape) -> &str {
        &self.names[&shape.id]
    }

    /// Whether member `member` of `owner` is boxed (it closes a cycle of
    /// structures and unions).
    pub(crate) fn is_boxed(&self, owner: &Shape, member: &str) -> bool {
        self.boxed.contains(&(owner.id.clone(), member.to_owned()))
    }

    /// The shape's name as the service renames it.
    fn renamed<'s>(&'s self, shape: &'s Shape) -> &'s str {
        self.service
            .rename
            .get(&shape.id)
            .map_or_else(|| shape_name(&shape.id), String::as_str)
    }

    fn name_all<'a>(
        &mut self,
        origin: &str,
        shapes: impl Iterator<Item = &'a &'m Shape>,
        scope: &str,
    ) -> Result<(), CodegenError>
    where
        'm: 'a,
    {
        let mut taken = HashMap::new();
        for shape in shapes {
            self.name_one(origin, shape, &mut taken, scope)?;
        }
        Ok(())
    }

    fn name_one(
        &mut self,
        origin: &str,
        shape: &Shape,
        taken: &mut HashMap<String, String>,
        scope: &str,
    ) -> Result<(), CodegenError> {
        let name = names::type_name(self.renamed(shape));
        let key = names::unraw(&name).to_owned();
        if let Some(first) = taken.insert(key, shape.id.clone()) {
            return Err(CodegenError::new(
                origin,
                ErrorKind::NameCollision {
                    name,
                    first,
                    second: shape.id.clone(),
                    scope: scope.to_owned(),
                },
            ));
        }
        self.names.insert(shape.id.clone(), name);
        Ok(())
    }

    /// The generated shapes reachable from the errors' members (through
    /// lists, maps, structures and unions), and the error structures among
    /// them that `declared` does not hold.
    fn member_closure(
        &mut self,
        errors: impl Iterator<Item = &'m Shape>,
        declared: &IndexMap<&str, &'m Shape>,
    ) -> (Vec<&'m Shape>, Vec<&'m Shape>) {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&'m Shape> = errors.collect();
        let (mut types, mut member_errors) = (Vec::new(), Vec::new());
        while let Some(shape) = stack.pop() {
            for member in &shape.members {
                let target = &*member.target;
                if self.shape_type(target) == ShapeType::Document {
                    self.uses_document = true;
                }
                let Some(next) = self.model.shapes.get(target) else {
                    continue; // prelude
                };
                if !seen.insert(target) {
                    continue;
                }
                if self.is_error(target) {
                    if !declared.contains_key(target) {
                        member_errors.push(next);
                    }
                } else if self.is_generated(target) {
                    types.push(next);
                }
                if matches!(
                    next.shape_type,
                    ShapeType::Structure | ShapeType::Union | ShapeType::List | ShapeType::Map
                ) {
                    stack.push(next);
                }
            }
        }
        (types, member_errors)
    }

    /// Marks the members that close a cycle of directly contained structures
    /// and unions (lists and maps allocate, so they break cycles): both ends
    /// in one strongly connected component.
    fn find_boxed(&mut self) {
        let nodes: Vec<&Shape> = self
            .errors
            .iter()
            .chain(&self.member_errors)
            .chain(&self.types)
            .copied()
            .filter(|s| matches!(s.shape_type, ShapeType::Structure | ShapeType::Union))
            .collect();
        let index: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        let edges: Vec<Vec<usize>> = nodes
            .iter()
            .map(|s| {
                s.members
                    .iter()
                    .filter_map(|m| index.get(&*m.target).copied())
                    .collect()
            })
            .collect();
        let component = strongly_connected(&edges);
        for (from, shape) in nodes.iter().enumerate() {
            for member in &shape.members {
                if let Some(&to) = index.get(&*member.target)
                    && component[from] == component[to]
                {
                    self.boxed.insert((shape.id.clone(), member.name.clone()));
                }
            }
        }
    }
}

/// The `@streaming` unions that `operations`' input and output structures
/// hold, each with the error structures among its members (in member
/// order, once each); unions without error members are left out.
fn event_streams<'m>(
    model: &'m Model,
    operations: impl Iterator<Item = &'m Shape>,
) -> Vec<(&'m Shape, Vec<&'m Shape>)> {
    let mut unions: IndexMap<&str, &'m Shape> = IndexMap::new();
    for operation in operations {
        let io = [&operation.input, &operation.output];
        for structure in io
            .into_iter()
            .flatten()
            .filter_map(|id| model.shapes.get(id))
        {
            for member in &structure.members {
                if let Some(union) = model.shapes.get(&*member.target)
                    && union.shape_type == ShapeType::Union
                    && union.has_trait("smithy.api#streaming")
                {
                    unions.insert(&union.id, union);
                }
            }
        }
    }
    unions
        .into_values()
        .filter_map(|union| {
            let mut errors: IndexMap<&str, &'m Shape> = IndexMap::new();
            for member in &union.members {
                if let Some(shape) = model.shapes.get(&*member.target)
                    && shape.has_trait("smithy.api#error")
                {
                    errors.insert(&shape.id, shape);
                }
            }
            (!errors.is_empty()).then(|| (union, errors.into_values().collect()))
        })
        .collect()
}

/// "a" or "an" before `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The strongly connected component of each node (Tarjan's algorithm,
/// iterative so deep models cannot overflow the stack).
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let (mut order, mut low, mut component) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next_order, mut next_component) = (0, 0);
    for root in 0..n {
        if order[root] != UNSEEN {
            continue;
        }
        // (node, index of the next edge to follow)
        let mut work = vec![(root, 0)];
        while let Some(&mut (node, ref mut edge)) = work.last_mut() {
            if *edge == 0 && order[node] == UNSEEN {
                order[node] = next_order;
                low[node] = next_order;
                next_order += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&to) = edges[node].get(*edge) {
                *edge += 1;
                if order[to] == UNSEEN {
                    work.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(order[to]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn components_join_cycles_only() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 4 -> 4
        let edges = vec![vec![1], vec![2], vec![0, 3], vec![], vec![4]];
        let c = strongly_connected(&edges);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert_ne!(c[2], c[3]);
        assert_ne!(c[3], c[4]);
    }
}
