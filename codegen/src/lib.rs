//! Generates Rust error types that carry their retry behaviour from Smithy
//! models: the JSON AST (`smithy ast`, `smithy build`) or `.smithy` IDL
//! files (read here, no JVM) in, one Rust file per service out, every
//! modeled error deriving `rebound`'s `#[derive(RetryInfo)]` with
//! attributes taken from its Smithy traits.
//!
//! Three ways to run it:
//!
//! - the CLI: `rebound-codegen MODEL... [-o OUT.rs] [--service SHAPE_ID]
//!   [--crate-path PATH] [--no-aws-rules] [--check]`, each MODEL a JSON
//!   AST, a `.smithy` file or a directory of both (standard output without
//!   `-o` or with `-o -`; [`write_output`] says how a file, a link or a
//!   device is written); `rebound-codegen ast MODEL... [--format idl]`
//!   prints the model's JSON AST ([`json_ast`]) or its IDL ([`idl_files`]);
//! - a smithy-build `run` plugin: `"run::rebound": {"command":
//!   ["rebound-codegen"]}` (the model on standard input, one
//!   `<sdk id>.rs` per service written under `SMITHY_PLUGIN_DIR`);
//! - this library, from a build script ([`Generator`]).
//!
//! # From `build.rs`
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let out = std::path::Path::new(&std::env::var("OUT_DIR")?).join("sqs.rs");
//!     rebound_codegen::Generator::new()
//!         .model("models/sqs.json") // or .smithy files, or a directory of both
//!         .rerun_if_changed(true)
//!         .generate_to_file(out)?;
//!     Ok(())
//! }
//! ```
//!
//! and in the crate, `pub mod sqs { include!(concat!(env!("OUT_DIR"), "/sqs.rs")); }`.
//! The generated file has no inner attributes, so `include!` works anywhere;
//! it needs only `rebound` as a dependency: the package `rebound-retry`
//! (`cargo add rebound-retry`), whose library is `rebound`.
//!
//! # What is generated
//!
//! | item | what it is |
//! |---|---|
//! | `types::error::<Shape>` | a struct per error shape, `#[non_exhaustive]`: `Debug` (`@sensitive` members redacted), `Clone, PartialEq, Default`, `Display` (the message, when there is one), `std::error::Error`, `RetryInfo + ErrorInfo` through `#[derive(RetryInfo)]`, `ProvideErrorMetadata` (its `meta`), `message()`, a getter and a `with_<member>` setter per member, `with_meta` |
//! | `types::error::<Union>Error` | per event stream (a `@streaming` union of an operation's input or output) with error members: a variant per error, `Unhandled`, `from_code`, `from_metadata` |
//! | `types::<Shape>` | the structures, unions, enums and intEnums error members use |
//! | `Error` | the service-wide enum, `#[non_exhaustive]`: a variant per error shape, `Unhandled(Unhandled)`, `from_code(code, message, http_status)`, `from_metadata(ErrorMetadata)`, `is_<variant>()`, `ProvideErrorMetadata`, `source()` (the variant's error) |
//! | `operation::<op>::<Op>Error` | per operation, the same for the errors it (or the service) declares, and `From<..> for Error` |
//! | `operation::<op>::{OPERATION_NAME, READONLY, IDEMPOTENT}` | the operation's name and its `@readonly` / `@idempotent` traits |
//! | `SERVICE_SHAPE_ID`, `SDK_ID` | the service's shape ID and `sdkId` (its name without `aws.api#service`) |
//! | `Unhandled` | a code the model does not describe (here), with the response's `ErrorMetadata`: a throttling or transient AWS code makes it retryable (AWS rules on), else its retry safety is `Maybe` and its fault follows the received status |
//! | `Document` | only when a member is a `document` |
//!
//! `@deprecated` shapes are `#[deprecated]`. The generated code passes
//! `clippy::pedantic` and `missing_docs`. The mapping to smithy-rs's error
//! API is in the crate's README.
//!
//! Names: every shape ID, member name and `rename` value must be a Smithy
//! identifier (else an error); types keep the shape's name (after the
//! service's `rename`); fields are the snake_case of the member name,
//! keywords escaped (`r#type`, `self_`), members that meet on one field
//! name numbered in model order (`foo_bar2`); fields are `Option<T>` unless
//! `@required`. A member that closes a cycle of structures and unions is
//! boxed. Two shapes that would share a Rust name are an error.
//!
//! A model is read as untrusted input. A mixin must carry `@mixin` and have
//! the shape type of the shape using it (else an error naming both, as the
//! Smithy specification requires). Mixins may nest at most 32 deep, and
//! lists and maps at most 32 deep (a list of lists of maps ... counts each);
//! a deeper model is an error naming the shape, and so are lists and maps
//! that hold themselves, which Smithy forbids (only a structure or union can
//! make a shape recursive).
//!
//! # From traits to attributes
//!
//! | Smithy | attribute |
//! |---|---|
//! | `@error("client")` / `@error("server")` | `#[error_fault(client)]` / `#[error_fault(server)]` |
//! | `@httpError(N)`, else `aws.protocols#awsQueryError`'s `httpResponseCode` (200..=599, Smithy's range, else an error) | `#[http_error(N)]` when it is a 4xx on a client error or a 5xx on a server error (a redirect, or a status contradicting `@error`, is left out: the fault decides) |
//! | `@retryable` / `@retryable(throttling: true)` | `#[retryable]` / `#[retryable(throttling = true)]` |
//! | AWS rules, no `@retryable`: the shape name or `awsQueryError` code is a throttling code | `#[retryable(throttling = true)]` |
//! | AWS rules, no `@retryable`: a transient code | `#[retryable]` |
//! | the wire code: `awsQueryError`'s `code`, else the shape's name | `#[error_code("...")]` |
//! | a member with `@httpHeader("Retry-After")` (integer seconds, a string of delta-seconds or an HTTP-date, a timestamp) | `#[retry_after]` on its field |
//!
//! The AWS rules apply to services with the `aws.api#service` trait (unless
//! turned off: `--no-aws-rules`, [`Generator::aws_rules`]); the code lists
//! are the runtime's (`rebound::classify`), the ones every AWS SDK uses.
//!
//! `from_code` matches the code without its `namespace#` prefix and `:...`
//! suffix against each error's shape name, then its `awsQueryError` code.
//! Where two shapes claim one code, a shape's own name wins over another's
//! query code, and otherwise the shape whose Rust name sorts first wins. A
//! code an operation does not declare is `Unhandled` in its enum.
//!
//! # Simple types
//!
//! | Smithy | Rust |
//! |---|---|
//! | `blob` | `Vec<u8>` |
//! | `boolean` | `bool` |
//! | `string`, `bigInteger`, `bigDecimal` | `String` (the decimal text for the big numbers) |
//! | `byte`, `short`, `integer`, `long` | `i8`, `i16`, `i32`, `i64` |
//! | `float`, `double` | `f32`, `f64` |
//! | `timestamp` | `std::time::SystemTime` (a required one defaults to the Unix epoch) |
//! | `document` | `Document` (generated) |
//! | `list`, `set` | `Vec<T>` (`Vec<Option<T>>` when `@sparse`) |
//! | `map` | `HashMap<K, V>` (`HashMap<K, Option<V>>` when `@sparse`) |
//! | `enum`, `string` with 1.0's `@enum` | an enum with an `Unknown(String)` variant |
//! | `intEnum` | an enum with an `Unknown(i32)` variant |
//! | `union` | an enum with an `Unknown` variant |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ast;
mod convert;
mod docs;
mod emit;
mod error;
mod generator;
mod identifiers;
mod idl;
mod names;
mod output;
mod plugin;
mod service;
mod sources;
mod traits;

pub use convert::{idl_files, json_ast};
pub use error::{CodegenError, ErrorKind};
pub use generator::{GeneratedService, Generator};
pub use output::{NotAFile, write_output};
pub use plugin::{PluginEnv, run_plugin};
