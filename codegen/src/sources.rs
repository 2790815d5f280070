//! A model's sources: `.smithy` and `.json` files and directories of both,
//! merged into one JSON AST document as smithy-build merges its sources.
//!
//! A directory stands for every `.smithy` and `.json` file under it, in
//! path order. JSON AST documents are read keeping their key order; their
//! shapes are known to the IDL files (for relative shape IDs and trait
//! defaults), which are assembled together ([`crate::idl`]). Shapes from
//! two sources with one ID are an error; metadata merges as Smithy merges
//! it (arrays concatenate, equal values are one, other conflicts are
//! errors).

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::ast::ShapeType;
use crate::error::{CodegenError, ErrorKind};
use crate::idl::assemble::{Known, merge_metadata};
use crate::idl::node::Node;
use crate::idl::parse::parse_node;
use crate::idl::{self, Source};

/// How many files a directory may hold (a bound on what a mistaken path,
/// `/` say, makes the generator read).
const MAX_FILES: usize = 100_000;

/// A model's source text.
#[derive(Debug, Clone)]
pub(crate) struct Text {
    /// The file's path, or the name it was given.
    pub(crate) origin: String,
    pub(crate) text: String,
    pub(crate) is_idl: bool,
}

/// Whether `path` names a Smithy IDL file.
pub(crate) fn is_idl_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "smithy")
}

/// The files `paths` stand for: each file as given, each directory's
/// `.smithy` and `.json` files, in path order. Returns them with every
/// file and directory read, for `cargo:rerun-if-changed`.
pub(crate) fn expand(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<PathBuf>), CodegenError> {
    let mut files = Vec::new();
    let mut watched = Vec::new();
    for path in paths {
        let origin = path.display().to_string();
        let read_error = |source| CodegenError::new(&origin, ErrorKind::Read { source });
        let meta = std::fs::metadata(path).map_err(read_error)?;
        watched.push(path.clone());
        if !meta.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        let mut stack = vec![path.clone()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|source| {
                CodegenError::new(dir.display().to_string(), ErrorKind::Read { source })
            })?;
            for entry in entries {
                let entry = entry.map_err(|source| {
                    CodegenError::new(dir.display().to_string(), ErrorKind::Read { source })
                })?;
                let path = entry.path();
                let kind = entry.file_type().map_err(|source| {
                    CodegenError::new(path.display().to_string(), ErrorKind::Read { source })
                })?;
                if kind.is_dir() {
                    watched.push(path.clone());
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "smithy" || e == "json")
                {
                    found.push(path);
                }
                if found.len() + stack.len() > MAX_FILES {
                    return Err(CodegenError::new(
                        &origin,
                        ErrorKind::NotSmithy {
                            reason: format!("the directory holds more than {MAX_FILES} files"),
                        },
                    ));
                }
            }
        }
        found.sort();
        files.extend(found);
    }
    Ok((files, watched))
}

/// Reads `path` as UTF-8 text.
pub(crate) fn read(path: &Path) -> Result<Text, CodegenError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|source| CodegenError::new(&origin, ErrorKind::Read { source }))?;
    Ok(Text {
        origin,
        text,
        is_idl: is_idl_path(path),
    })
}

/// One JSON AST document of `texts`: the JSON ones read, the IDL ones
/// assembled with the JSON ones' shapes known, all merged. Each text is
/// dropped once read.
pub(crate) fn merge(texts: Vec<Text>) -> Result<Node, CodegenError> {
    let (idl, json): (Vec<Text>, Vec<Text>) = texts.into_iter().partition(|t| t.is_idl);
    let mut documents = Vec::new();
    let mut known = Known::new();
    for Text { origin, text, .. } in json {
        let document = parse_node(&text).map_err(|e| {
            CodegenError::new(
                &origin,
                ErrorKind::Json {
                    line: e.pos.line,
                    column: e.pos.column,
                    message: e.message,
                },
            )
        })?;
        drop(text);
        if let Node::Object(top) = &document
            && let Some(Node::Object(shapes)) = top.get("shapes")
        {
            for (id, shape) in shapes {
                if let Some(shape_type) = shape_type(shape) {
                    known.insert(id.clone(), shape_type);
                }
            }
        }
        documents.push((origin, document));
    }
    if let Some(first) = idl.first() {
        let origin = first.origin.clone();
        let mut files = Vec::with_capacity(idl.len());
        for Text { origin, text, .. } in idl {
            let file = idl::parse_file(&Source {
                origin: &origin,
                text: &text,
            })?;
            files.push((origin, file));
        }
        documents.push((origin, idl::assemble_files(files, &known)?));
    }
    combine(documents)
}

/// The type of a JSON AST shape, when the IDL needs it.
fn shape_type(shape: &Node) -> Option<ShapeType> {
    ShapeType::parse(shape.get("type")?.as_str()?)
}

/// Merges JSON AST documents (each with the origin it came from).
fn combine(documents: Vec<(String, Node)>) -> Result<Node, CodegenError> {
    let mut version = "2.0".to_owned();
    let mut metadata: IndexMap<String, Node> = IndexMap::new();
    let mut shapes: IndexMap<String, Node> = IndexMap::new();
    let all_v1 = !documents.is_empty()
        && documents.iter().all(|(_, d)| {
            matches!(d, Node::Object(top) if top.get("smithy").and_then(Node::as_str).is_some_and(|v| v.starts_with('1')))
        });
    if all_v1 {
        "1.0".clone_into(&mut version);
    }
    for (origin, document) in documents {
        let not_smithy = |reason: &str| {
            CodegenError::new(
                &origin,
                ErrorKind::NotSmithy {
                    reason: reason.to_owned(),
                },
            )
        };
        let Node::Object(top) = document else {
            return Err(not_smithy("the document is not a JSON object"));
        };
        for (key, value) in top {
            match key.as_str() {
                "metadata" => {
                    let Node::Object(entries) = value else {
                        return Err(not_smithy("`metadata` is not an object"));
                    };
                    for (key, value) in entries {
                        merge_metadata(&mut metadata, &key, value)
                            .map_err(|reason| not_smithy(&reason))?;
                    }
                }
                "shapes" => {
                    let Node::Object(entries) = value else {
                        return Err(not_smithy("`shapes` is not an object"));
                    };
                    for (id, shape) in entries {
                        if shapes.contains_key(&id) {
                            return Err(not_smithy(&format!(
                                "the shape `{id}` is defined by two sources"
                            )));
                        }
                        shapes.insert(id, shape);
                    }
                }
                _ => {}
            }
        }
    }
    let mut top = IndexMap::new();
    top.insert("smithy".to_owned(), Node::String(version));
    if !metadata.is_empty() {
        top.insert("metadata".to_owned(), Node::Object(metadata));
    }
    top.insert("shapes".to_owned(), Node::Object(shapes));
    Ok(Node::Object(top))
}
