//! What can go wrong, each naming the model (file or `<stdin>`) and, where
//! there is one, the shape ID and the JSON location of the offending value.

use std::fmt::{self, Write as _};
use std::io;
use std::path::PathBuf;

/// A model that cannot be generated from, or a file that cannot be read or
/// written. Its `Display` is one line naming the model and what is wrong.
///
/// # Examples
///
/// ```
/// use rebound_codegen::{ErrorKind, Generator};
///
/// let err = Generator::new().model_json("<inline>", "{\"shapes\": {}}").generate().unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::NotSmithy { .. }));
/// assert_eq!(err.to_string(), "<inline>: not a Smithy JSON AST: it has no `smithy` version");
/// ```
#[derive(Debug)]
pub struct CodegenError {
    origin: String,
    kind: Box<ErrorKind>,
}

impl CodegenError {
    pub(crate) fn new(origin: impl Into<String>, kind: ErrorKind) -> Self {
        Self {
            origin: origin.into(),
            kind: Box::new(kind),
        }
    }

    /// The model the error is about: its path, `<stdin>`, or the name given
    /// to [`Generator::model_json`](crate::Generator::model_json).
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for CodegenError {
    /// One line: control characters a model put in a name (a newline, say)
    /// are written escaped (`\n`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{}: {}", self.origin, self.kind);
        for c in text.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for CodegenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::Read { source, .. } | ErrorKind::Write { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The kinds of [`CodegenError`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The model file could not be read.
    #[error("cannot read the model: {source}")]
    Read {
        /// The underlying error.
        source: io::Error,
    },
    /// The input is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// A `.smithy` file that is not valid Smithy IDL (or that cannot be
    /// assembled into a model: a shape defined twice, an elided member that
    /// matches nothing, conflicting traits).
    #[error("invalid Smithy IDL at line {line}, column {column}: {message}")]
    Idl {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error (in characters).
        column: usize,
        /// What was expected, or what is wrong.
        message: String,
    },
    /// JSON, but not a Smithy JSON AST.
    #[error("not a Smithy JSON AST: {reason}")]
    NotSmithy {
        /// What is missing or unexpected.
        reason: String,
    },
    /// A shape that does not read as its type says.
    #[error("shape `{shape}` at {pointer}: {message}")]
    InvalidShape {
        /// The shape ID.
        shape: String,
        /// The JSON pointer of the offending value.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// A shape ID, member name or `rename` value that breaks Smithy's
    /// identifier grammar (`_*[A-Za-z][A-Za-z0-9_]*`, namespaces of such
    /// identifiers joined by `.`).
    #[error("shape `{shape}` at {pointer}: {name:?} is not a Smithy {what}")]
    InvalidName {
        /// The shape holding the name (as written in the model).
        shape: String,
        /// The JSON pointer of the name.
        pointer: String,
        /// The offending name.
        name: String,
        /// What the name should be: "shape ID", "member name", "identifier".
        what: &'static str,
    },
    /// A trait whose value has the wrong JSON type or is out of range.
    #[error("shape `{shape}` at {pointer}: `{trait_id}` is {value}, expected {expected}")]
    InvalidTrait {
        /// The shape (or member, `Shape$member`) carrying the trait.
        shape: String,
        /// The JSON pointer of the trait value.
        pointer: String,
        /// The trait's shape ID.
        trait_id: String,
        /// The value found, as JSON (cut after 80 characters).
        value: String,
        /// What the trait takes.
        expected: String,
    },
    /// A reference to a shape the model does not define.
    #[error("shape `{shape}` at {pointer}: refers to `{target}`, which the model does not define")]
    MissingShape {
        /// The shape holding the reference.
        shape: String,
        /// The JSON pointer of the reference.
        pointer: String,
        /// The missing shape ID.
        target: String,
    },
    /// An `@error` trait whose value is not `client` or `server`.
    #[error(
        "shape `{shape}` at {pointer}: `smithy.api#error` is {value}, expected \"client\" or \"server\""
    )]
    InvalidErrorTrait {
        /// The shape ID.
        shape: String,
        /// The JSON pointer of the trait value.
        pointer: String,
        /// The value found, as JSON.
        value: String,
    },
    /// An `@error` trait on a shape that is not a structure.
    #[error(
        "shape `{shape}`: `smithy.api#error` is on a {shape_type}, but only structures can be errors"
    )]
    ErrorOnNonStructure {
        /// The shape ID.
        shape: String,
        /// The shape's type.
        shape_type: String,
    },
    /// An operation or service lists an error that is not an error structure.
    #[error(
        "shape `{shape}` at {pointer}: lists `{target}` as an error, but it has no `smithy.api#error` trait"
    )]
    NotAnError {
        /// The operation or service.
        shape: String,
        /// The JSON pointer of the reference.
        pointer: String,
        /// The listed shape.
        target: String,
    },
    /// A shape lists as a mixin a shape without the `@mixin` trait.
    #[error(
        "shape `{shape}` at {pointer}: uses `{mixin}` as a mixin, but it has no `smithy.api#mixin` trait"
    )]
    NotAMixin {
        /// The shape using the mixin.
        shape: String,
        /// The JSON pointer of the reference.
        pointer: String,
        /// The shape listed as a mixin.
        mixin: String,
    },
    /// A shape lists as a mixin a shape of another shape type, which Smithy
    /// forbids.
    #[error(
        "shape `{shape}` at {pointer}: a {shape_type} cannot use `{mixin}`, a {mixin_type}, as a mixin (a mixin has the type of the shape using it)"
    )]
    MixinTypeMismatch {
        /// The shape using the mixin.
        shape: String,
        /// The JSON pointer of the reference.
        pointer: String,
        /// The using shape's type, as the AST names it.
        shape_type: &'static str,
        /// The shape listed as a mixin.
        mixin: String,
        /// The mixin's type, as the AST names it.
        mixin_type: &'static str,
    },
    /// Two shapes (or members) would get the same Rust name.
    #[error("shapes `{first}` and `{second}` both become `{name}` in {scope}")]
    NameCollision {
        /// The Rust name.
        name: String,
        /// The first shape (or member) ID.
        first: String,
        /// The second shape (or member) ID.
        second: String,
        /// Where the names meet (a module or a type).
        scope: String,
    },
    /// The model has no service shape.
    #[error("the model has no service shape")]
    NoService,
    /// The model has several services and none was chosen.
    #[error("the model has several services ({services}): choose one (`--service SHAPE_ID`)")]
    SeveralServices {
        /// The services' shape IDs, comma-separated.
        services: String,
    },
    /// The chosen service is not in the model.
    #[error("the model has no service `{service}` (services: {services})")]
    UnknownService {
        /// The service asked for.
        service: String,
        /// The services the model has, comma-separated.
        services: String,
    },
    /// The crate path given for `rebound` is not a Rust path.
    #[error(
        "`{path}` is not a Rust path (expected something like `::rebound` or `my_sdk::rebound`)"
    )]
    InvalidCratePath {
        /// The path given.
        path: String,
    },
    /// `rustfmt` could not be run or rejected the output.
    #[error("rustfmt failed: {message}")]
    Rustfmt {
        /// What went wrong.
        message: String,
    },
    /// An output file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A bug in the generator: please report it, with the model.
    #[error(
        "internal error (a bug in rebound-codegen: please report it, with the model): {message}"
    )]
    Internal {
        /// What went wrong.
        message: String,
    },
}
