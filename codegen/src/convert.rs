//! A model's sources as one JSON AST document (what `smithy ast` prints),
//! and a JSON AST as Smithy IDL: `rebound-codegen ast`.

use std::path::PathBuf;

use crate::error::{CodegenError, ErrorKind};
use crate::idl::write;
use crate::sources;

/// The JSON AST of the model `paths` make: `.smithy` and `.json` files and
/// directories of both, merged as [`Generator::model`](crate::Generator::model)
/// merges them. Shapes, members and traits keep the order of their sources.
///
/// # Errors
///
/// A source cannot be read or is not valid IDL or JSON, or two sources
/// define one shape.
///
/// # Examples
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("weather.smithy");
/// std::fs::write(&path, "$version: \"2\"\nnamespace example\n\nstring CityId\n")?;
/// let json = rebound_codegen::json_ast(&[path])?;
/// assert!(json.contains("\"example#CityId\": {\n            \"type\": \"string\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn json_ast(paths: &[PathBuf]) -> Result<String, CodegenError> {
    Ok(read(paths)?.to_json())
}

/// The model `paths` make, written as Smithy IDL: one `(namespace, text)`
/// per namespace, in the order of each namespace's first shape. Read back
/// together, the files make the same model ([`json_ast`] of them equals
/// the model's, as Smithy compares models). Every shape ID is written
/// absolute and every trait value explicitly, unless it is the value the
/// bare trait gets.
///
/// # Errors
///
/// As [`json_ast`]; also a model the IDL cannot express (a shape or member
/// name that is not an identifier, a property the IDL has no form for).
pub fn idl_files(paths: &[PathBuf]) -> Result<Vec<(String, String)>, CodegenError> {
    let document = read(paths)?;
    let origin = paths
        .first()
        .map_or_else(|| "<no model>".to_owned(), |p| p.display().to_string());
    let files = write::write(&document)
        .map_err(|reason| CodegenError::new(origin, ErrorKind::NotSmithy { reason }))?;
    Ok(files.into_iter().map(|f| (f.namespace, f.text)).collect())
}

fn read(paths: &[PathBuf]) -> Result<crate::idl::node::Node, CodegenError> {
    let (files, _) = sources::expand(paths)?;
    let texts = files
        .iter()
        .map(|path| sources::read(path))
        .collect::<Result<Vec<_>, _>>()?;
    sources::merge(texts)
}
