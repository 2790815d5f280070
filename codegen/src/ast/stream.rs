//! Reading a JSON AST as a stream, so that the text is never held whole
//! beside the model: a file is read twice, through a buffer.
//!
//! The first pass checks the JSON syntax (for the line and column of an
//! error) and notes the top level: the `smithy` version, whether `shapes` is
//! an object, every shape ID and which are `apply` entries. The second
//! reads each shape straight from the text into its typed form
//! ([`RawShape`]) and hands it on, so that only one shape is ever read but
//! not yet stored.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::RawShape;
use crate::idl::node::Node;

/// What the first pass notes about a document.
#[derive(Debug, Default)]
pub(super) struct Outline {
    /// The document is an object.
    pub(super) is_object: bool,
    /// The `smithy` value (the last, if given twice).
    pub(super) smithy: Option<Value>,
    /// How many times `shapes` is given, and whether the last is an object.
    pub(super) shapes: usize,
    pub(super) shapes_is_object: bool,
    /// Every shape ID, and those of `apply` entries (traits for shapes
    /// defined elsewhere).
    pub(super) ids: HashSet<String>,
    pub(super) applied: HashSet<String>,
    /// The first shape ID given twice.
    pub(super) repeated: Option<String>,
}

impl Outline {
    /// The outline of a document held in memory.
    pub(super) fn of_document(document: &Node) -> Self {
        let mut outline = Self::default();
        let Node::Object(top) = document else {
            return outline;
        };
        outline.is_object = true;
        outline.smithy = top.get("smithy").map(|smithy| match smithy {
            Node::String(version) => Value::String(version.clone()),
            _ => Value::Null,
        });
        let Some(shapes) = top.get("shapes") else {
            return outline;
        };
        outline.shapes = 1;
        let Node::Object(shapes) = shapes else {
            return outline;
        };
        outline.shapes_is_object = true;
        for (id, shape) in shapes {
            if shape.get("type").and_then(Node::as_str) == Some("apply") {
                outline.applied.insert(id.clone());
            }
            outline.ids.insert(id.clone());
        }
        outline
    }
}

/// Reads the outline of the document `de` holds: any JSON value is read
/// (only its syntax can fail).
pub(super) fn outline<'de, D: Deserializer<'de>>(de: D) -> Result<Outline, D::Error> {
    let mut outline = Outline::default();
    de.deserialize_any(TopOutline(&mut outline))?;
    Ok(outline)
}

/// Reads every JSON value, keeping nothing: the behaviour of each outline
/// visitor for values that are not the object it looks for.
macro_rules! accept_anything {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
}

/// The document.
struct TopOutline<'a>(&'a mut Outline);

impl<'de> Visitor<'de> for TopOutline<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    accept_anything!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let outline = self.0;
        outline.is_object = true;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "smithy" => outline.smithy = Some(map.next_value()?),
                "shapes" => {
                    outline.shapes += 1;
                    outline.ids.clear();
                    outline.applied.clear();
                    outline.repeated = None;
                    outline.shapes_is_object = map.next_value_seed(ShapesOutline(outline))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `shapes`: whether it is an object, and its shape IDs.
struct ShapesOutline<'a>(&'a mut Outline);

impl<'de> DeserializeSeed<'de> for ShapesOutline<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<bool, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ShapesOutline<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    accept_anything!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let outline = self.0;
        while let Some(id) = map.next_key::<String>()? {
            let is_apply = map.next_value_seed(IsApply)?;
            if is_apply {
                outline.applied.insert(id.clone());
            }
            if !outline.ids.insert(id.clone()) && outline.repeated.is_none() {
                outline.repeated = Some(id);
            }
        }
        Ok(true)
    }
}

/// A shape: whether its `type` is `apply`.
struct IsApply;

impl<'de> DeserializeSeed<'de> for IsApply {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<bool, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for IsApply {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    accept_anything!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut is_apply = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "type" {
                is_apply = map.next_value::<Value>()? == "apply";
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(is_apply)
    }
}

/// What the second pass hands each shape to: its ID and what it read.
pub(super) type OnShape<'a> =
    dyn FnMut(String, RawShape) -> Result<(), crate::error::CodegenError> + 'a;

/// Why the second pass stopped at a shape.
#[derive(Debug)]
pub(super) enum Stop {
    /// The shape does not read as a [`RawShape`]: the path to the offending
    /// value inside it (map keys and list indices; a step `serde_path_to_error`
    /// cannot name is left out) and the error's message.
    Shape {
        id: String,
        path: Vec<String>,
        message: String,
    },
    /// The shape's ID has no namespace (checked before its value is read).
    Unnamespaced(String),
    /// The shape read, and `on_shape` refused it.
    Refused(crate::error::CodegenError),
}

/// Reads the document `de` holds again, handing each shape of its last
/// `shapes` (the `shapes`-th) to `on_shape` in order, until one fails.
/// `Ok(Some(stop))` says why it stopped; `Err` is an error of the JSON
/// itself (the text changed since the first pass).
pub(super) fn shapes<'de, D: Deserializer<'de>>(
    de: D,
    shapes: usize,
    on_shape: &mut OnShape<'_>,
) -> Result<Option<Stop>, D::Error> {
    let mut stop = None;
    let result = de.deserialize_map(TopShapes {
        shapes,
        on_shape,
        stop: &mut stop,
    });
    match (result, stop) {
        (_, Some(stop)) => Ok(Some(stop)),
        (Ok(()), None) => Ok(None),
        (Err(e), None) => Err(e),
    }
}

/// The document, in the second pass.
struct TopShapes<'a> {
    shapes: usize,
    on_shape: &'a mut OnShape<'a>,
    stop: &'a mut Option<Stop>,
}

impl<'de> Visitor<'de> for TopShapes<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Smithy JSON AST")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0;
        while let Some(key) = map.next_key::<String>()? {
            if key == "shapes" {
                seen += 1;
                if seen == self.shapes {
                    map.next_value_seed(ShapesSeed {
                        on_shape: &mut *self.on_shape,
                        stop: &mut *self.stop,
                    })?;
                    continue;
                }
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// `shapes`, in the second pass: each shape read and handed on.
struct ShapesSeed<'a> {
    on_shape: &'a mut OnShape<'a>,
    stop: &'a mut Option<Stop>,
}

impl<'de> DeserializeSeed<'de> for ShapesSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ShapesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of shapes")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(id) = map.next_key::<String>()? {
            map.next_value_seed(ShapeSeed {
                id,
                on_shape: &mut *self.on_shape,
                stop: &mut *self.stop,
            })?;
        }
        Ok(())
    }
}

/// One shape, in the second pass.
struct ShapeSeed<'a> {
    id: String,
    on_shape: &'a mut OnShape<'a>,
    stop: &'a mut Option<Stop>,
}

impl<'de> DeserializeSeed<'de> for ShapeSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        let stopped = || <D::Error as de::Error>::custom("stopped at a shape");
        if !self.id.contains('#') {
            *self.stop = Some(Stop::Unnamespaced(self.id));
            return Err(stopped());
        }
        match serde_path_to_error::deserialize::<_, RawShape>(de) {
            Ok(shape) => (self.on_shape)(self.id, shape).map_err(|e| {
                *self.stop = Some(Stop::Refused(e));
                stopped()
            }),
            Err(e) => {
                let path = e
                    .path()
                    .iter()
                    .filter_map(|segment| match segment {
                        serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                        serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                        _ => None,
                    })
                    .collect();
                *self.stop = Some(Stop::Shape {
                    id: self.id,
                    path,
                    message: e.into_inner().to_string(),
                });
                Err(stopped())
            }
        }
    }
}
