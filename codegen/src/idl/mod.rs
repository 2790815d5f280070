//! Smithy IDL 2.0 (and 1.0) files read into the JSON AST they stand for,
//! without a JVM: [`parse`] reads one file's syntax, [`assemble`] resolves
//! shape IDs across files and builds the JSON AST document, which the JSON
//! reader ([`crate::ast`]) then reads as it reads `smithy ast`'s output,
//! from the document itself ([`deserialize`]) rather than its text.
//!
//! The prelude (`prelude.smithy`) is Smithy's own, under the Apache
//! License 2.0 (`PRELUDE-NOTICE` beside it).

pub(crate) mod assemble;
mod deserialize;
pub(crate) mod node;
pub(crate) mod parse;
pub(crate) mod write;

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod flattened;
#[cfg(test)]
mod round_trip;

use crate::error::{CodegenError, ErrorKind};
use assemble::Known;
use node::Node;
use parse::{IdlFile, SyntaxError};

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
#[cfg(test)]
pub(crate) fn to_json_ast(sources: &[Source<'_>], known: &Known) -> Result<Node, CodegenError> {
    let mut files = Vec::with_capacity(sources.len());
    for source in sources {
        files.push((source.origin.to_owned(), parse_file(source)?));
    }
    assemble_files(files, known)
}

/// Parses one source.
pub(crate) fn parse_file(source: &Source<'_>) -> Result<IdlFile, CodegenError> {
    parse::parse(source.text).map_err(|e| idl_error(source.origin, e))
}

/// Assembles parsed files, each with its name in errors, into one JSON AST
/// document, consuming them; `known` holds the shapes of the JSON models
/// loaded beside them.
pub(crate) fn assemble_files(
    files: Vec<(String, IdlFile)>,
    known: &Known,
) -> Result<Node, CodegenError> {
    let (origins, files): (Vec<String>, Vec<IdlFile>) = files.into_iter().unzip();
    assemble::assemble(files, known).map_err(|e| idl_error(&origins[e.file], e.error))
}
