//! Smithy IDL 2.0 (and 1.0) files read into the JSON AST they stand for,
//! without a JVM: [`parse`] reads one file's syntax, [`assemble`] resolves
//! shape IDs across files and writes the JSON AST document, which the JSON
//! reader ([`crate::ast`]) then reads as it reads `smithy ast`'s output.
//!
//! The prelude (`prelude.smithy`) is Smithy's own, under the Apache
//! License 2.0 (`PRELUDE-NOTICE` beside it).

pub(crate) mod assemble;
pub(crate) mod node;
pub(crate) mod parse;
pub(crate) mod write;

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod round_trip;

use crate::error::{CodegenError, ErrorKind};
use assemble::Known;
use node::Node;
use parse::SyntaxError;

/// One `.smithy` source: its name in errors, and its text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a> {
    pub(crate) origin: &'a str,
    pub(crate) text: &'a str,
}

fn idl_error(origin: &str, error: SyntaxError) -> CodegenError {
    CodegenError::new(
        origin,
        ErrorKind::Idl {
            line: error.pos.line,
            column: error.pos.column,
            message: error.message,
        },
    )
}

/// Reads `sources` into one JSON AST document; `known` holds the shapes of
/// the JSON models loaded beside them.
pub(crate) fn to_json_ast(sources: &[Source<'_>], known: &Known) -> Result<Node, CodegenError> {
    let mut files = Vec::with_capacity(sources.len());
    for source in sources {
        files.push(parse::parse(source.text).map_err(|e| idl_error(source.origin, e))?);
    }
    assemble::assemble(&files, known).map_err(|e| idl_error(sources[e.file].origin, e.error))
}
