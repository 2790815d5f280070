//! [`Generator`]: the library entry point (build scripts, the CLI, the
//! plugin).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ast;
use crate::emit::{EmitError, Emitter};
use crate::error::{CodegenError, ErrorKind};
use crate::output::write_output_with;
use crate::service::ServiceView;
use crate::sources;

/// Generates the Rust file of a Smithy service.
///
/// # Defaults
///
/// No model (add sources with [`model`](Self::model),
/// [`model_json`](Self::model_json) or [`model_idl`](Self::model_idl)); the
/// model's only service; `rebound` at `::rebound`; the AWS rules on (for
/// services with `aws.api#service`); formatted by `prettyplease` (no
/// `rustfmt` pass); no `cargo:rerun-if-changed` lines.
///
/// # Examples
///
/// ```
/// use rebound_codegen::Generator;
///
/// let model = r#"{"smithy": "2.0", "shapes": {
///     "example#Weather": {"type": "service", "errors": [{"target": "example#Busy"}]},
///     "example#Busy": {"type": "structure", "traits": {
///         "smithy.api#error": "server", "smithy.api#retryable": {"throttling": true}}}
/// }}"#;
/// let source = Generator::new().model_json("weather.json", model).generate()?;
/// assert!(source.contains("#[retryable(throttling = true)]"));
/// assert!(source.contains("pub struct Busy {"));
/// # Ok::<(), rebound_codegen::CodegenError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Generator {
    model: Vec<Source>,
    rerun_if_changed: bool,
    service: Option<String>,
    crate_path: String,
    aws_rules: bool,
    rustfmt: bool,
}

#[derive(Debug, Clone)]
enum Source {
    Path(PathBuf),
    Json { origin: String, json: String },
    Idl { origin: String, text: String },
}

/// One service's generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedService {
    /// The service's shape ID.
    pub shape_id: String,
    /// Its `sdkId` (or shape name).
    pub sdk_id: String,
    /// A file name for it: the `sdkId` in lowercase, other characters `_`,
    /// then `.rs` (`sqs.rs`, `dynamodb.rs`).
    pub file_name: String,
    /// The Rust source.
    pub source: String,
}

impl Default for Generator {
    fn default() -> Self {
        Self::new()
    }
}

impl Generator {
    /// A generator with the defaults.
    #[must_use]
    pub fn new() -> Self {
        Self {
            model: Vec::new(),
            rerun_if_changed: false,
            service: None,
            crate_path: "::rebound".to_owned(),
            aws_rules: true,
            rustfmt: false,
        }
    }

    /// Adds a source of the model: a JSON AST file (`smithy ast`,
    /// `smithy build`), a Smithy IDL file (`.smithy`), or a directory of
    /// both (every `.smithy` and `.json` file under it, in path order).
    /// Sources given more than once are merged as smithy-build merges them:
    /// the IDL files see the shapes of every other source, a shape defined
    /// by two sources is an error. A model of one JSON file is read as a
    /// stream, the file read twice (first to check it) and never held whole
    /// beside the model.
    #[must_use]
    pub fn model(mut self, path: impl Into<PathBuf>) -> Self {
        self.model.push(Source::Path(path.into()));
        self
    }

    /// Adds this JSON AST text as a source; `origin` names it in errors.
    #[must_use]
    pub fn model_json(mut self, origin: impl Into<String>, json: impl Into<String>) -> Self {
        self.model.push(Source::Json {
            origin: origin.into(),
            json: json.into(),
        });
        self
    }

    /// Adds this Smithy IDL text as a source; `origin` names it in errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_codegen::Generator;
    ///
    /// let model = r#"
    /// $version: "2"
    /// namespace example
    ///
    /// service Weather { errors: [Busy] }
    ///
    /// @error("server")
    /// @retryable(throttling: true)
    /// structure Busy {}
    /// "#;
    /// let source = Generator::new().model_idl("weather.smithy", model).generate()?;
    /// assert!(source.contains("#[retryable(throttling = true)]"));
    /// # Ok::<(), rebound_codegen::CodegenError>(())
    /// ```
    #[must_use]
    pub fn model_idl(mut self, origin: impl Into<String>, text: impl Into<String>) -> Self {
        self.model.push(Source::Idl {
            origin: origin.into(),
            text: text.into(),
        });
        self
    }

    /// Whether to print `cargo:rerun-if-changed=PATH` for every file and
    /// directory of the model read, as a build script should (a directory
    /// line makes Cargo notice files added to it). Default: `false`.
    #[must_use]
    pub const fn rerun_if_changed(mut self, enabled: bool) -> Self {
        self.rerun_if_changed = enabled;
        self
    }

    /// Generates this service (a shape ID) when the model holds several.
    #[must_use]
    pub fn service(mut self, shape_id: impl Into<String>) -> Self {
        self.service = Some(shape_id.into());
        self
    }

    /// The path of the `rebound` crate in generated code, for crates that
    /// re-export it (`my_sdk::rebound`). Default: `::rebound`.
    #[must_use]
    pub fn crate_path(mut self, path: impl Into<String>) -> Self {
        self.crate_path = path.into();
        self
    }

    /// Whether to apply the AWS rules (throttling and transient error codes
    /// make an error retryable) to services with `aws.api#service`.
    /// Default: `true`.
    #[must_use]
    pub const fn aws_rules(mut self, enabled: bool) -> Self {
        self.aws_rules = enabled;
        self
    }

    /// Whether to pass the output through `rustfmt` (the `RUSTFMT`
    /// environment variable, else `rustfmt` on the `PATH`; edition 2024), so
    /// that `cargo fmt --check` accepts a committed file as it is. Default:
    /// `false`: the output is formatted by `prettyplease`, in rustfmt's style
    /// but not always its exact layout, and the same on every machine.
    #[must_use]
    pub const fn rustfmt(mut self, enabled: bool) -> Self {
        self.rustfmt = enabled;
        self
    }

    /// Reads the model and checks it as [`generate`](Self::generate) does
    /// (every reference, every `@error` trait, the service chosen), without
    /// generating: a quick validation of a model, or of its sources.
    ///
    /// # Errors
    ///
    /// As [`generate`](Self::generate).
    pub fn check(&self) -> Result<(), CodegenError> {
        let (origin, model) = self.parse()?;
        ServiceView::select(&origin, &model, self.service.as_deref())?;
        Ok(())
    }

    /// The file of the chosen service (or the model's only one).
    ///
    /// # Errors
    ///
    /// The model cannot be read or is not a valid Smithy JSON AST, the
    /// service is missing or ambiguous, two shapes would share a Rust name.
    pub fn generate(&self) -> Result<String, CodegenError> {
        let (origin, model) = self.parse()?;
        let view = ServiceView::select(&origin, &model, self.service.as_deref())?;
        Ok(self.emit(&origin, &view)?.source)
    }

    /// The files of every service in the model (the chosen one only, if
    /// [`service`](Self::service) was set).
    ///
    /// # Errors
    ///
    /// As [`generate`](Self::generate); also two services whose file names
    /// would be the same.
    pub fn generate_all(&self) -> Result<Vec<GeneratedService>, CodegenError> {
        let (origin, model) = self.parse()?;
        let views = match &self.service {
            Some(id) => vec![ServiceView::select(&origin, &model, Some(id))?],
            None => ServiceView::all(&origin, &model)?,
        };
        let files = views
            .iter()
            .map(|view| self.emit(&origin, view))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, file) in files.iter().enumerate() {
            if let Some(other) = files[..i].iter().find(|f| f.file_name == file.file_name) {
                return Err(CodegenError::new(
                    origin,
                    ErrorKind::NameCollision {
                        name: file.file_name.clone(),
                        first: other.shape_id.clone(),
                        second: file.shape_id.clone(),
                        scope: "the plugin's output directory".to_owned(),
                    },
                ));
            }
        }
        Ok(files)
    }

    /// Generates the file of [`generate`](Self::generate) into `path`:
    /// nothing is written unless generation succeeds; a regular file is
    /// replaced in one step, a device or FIFO written through, a symbolic
    /// link followed ([`write_output`](crate::write_output)).
    ///
    /// # Errors
    ///
    /// As [`generate`](Self::generate); also the file cannot be written.
    pub fn generate_to_file(&self, path: impl AsRef<Path>) -> Result<(), CodegenError> {
        let path = path.as_ref();
        // The model is read and checked before anything is written; the
        // file is then written as it is formatted, an item at a time.
        let (origin, model) = self.parse()?;
        let view = ServiceView::select(&origin, &model, self.service.as_deref())?;
        let mut internal = None;
        write_output_with(path, |out| {
            self.write_service(&origin, &view, out).map_err(|e| {
                internal = Some(e);
                std::io::Error::other("generation failed")
            })
        })
        .map_err(|source| match internal.take() {
            Some(e) => e,
            None => CodegenError::new(
                &origin,
                ErrorKind::Write {
                    path: path.to_owned(),
                    source,
                },
            ),
        })
    }

    /// Generates the file of [`generate`](Self::generate) into `out`, as it
    /// is formatted (an item at a time), once the model is read and checked.
    ///
    /// # Errors
    ///
    /// As [`generate`](Self::generate); also `out` fails (reported as
    /// [`ErrorKind::Write`] with an empty path).
    pub fn generate_to_writer(&self, out: &mut dyn Write) -> Result<(), CodegenError> {
        let (origin, model) = self.parse()?;
        let view = ServiceView::select(&origin, &model, self.service.as_deref())?;
        self.write_service(&origin, &view, out)
    }

    /// Writes `view`'s file to `out`: streamed, or whole when `rustfmt`
    /// must format it first.
    fn write_service(
        &self,
        origin: &str,
        view: &ServiceView<'_>,
        out: &mut dyn Write,
    ) -> Result<(), CodegenError> {
        let write_error = |source| {
            CodegenError::new(
                origin,
                ErrorKind::Write {
                    path: PathBuf::new(),
                    source,
                },
            )
        };
        if self.rustfmt {
            let file = self.emit(origin, view)?;
            return out.write_all(file.source.as_bytes()).map_err(write_error);
        }
        let krate = self.krate(origin)?;
        let mut buffered = std::io::BufWriter::new(out);
        Emitter::new(view, &krate, self.aws_rules)
            .write_to(&mut buffered)
            .map_err(|e| match e {
                EmitError::Internal(message) => {
                    CodegenError::new(origin, ErrorKind::Internal { message })
                }
                EmitError::Write(source) => write_error(source),
            })?;
        buffered.flush().map_err(write_error)
    }

    fn origin(&self) -> String {
        let name = |source: &Source| match source {
            Source::Path(path) => path.display().to_string(),
            Source::Json { origin, .. } | Source::Idl { origin, .. } => origin.clone(),
        };
        match self.model.as_slice() {
            [] => "<no model>".to_owned(),
            [one] => name(one),
            [first, rest @ ..] => format!("{} (and {} more sources)", name(first), rest.len()),
        }
    }

    /// The model's name and the model: one JSON AST file read as a stream
    /// ([`ast::parse_file`]), one JSON text as it is, anything else merged
    /// into one JSON AST document first ([`sources::merge`]).
    fn parse(&self) -> Result<(String, ast::Model), CodegenError> {
        let origin = self.origin();
        let model = match self.model.as_slice() {
            [] => {
                return Err(CodegenError::new(
                    origin,
                    ErrorKind::Read {
                        source: std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            "no model given (Generator::model, model_json or model_idl)",
                        ),
                    },
                ));
            }
            [Source::Json { json, .. }] => ast::parse(&origin, json)?,
            [Source::Path(path)] if !sources::is_idl_path(path) && !path.is_dir() => {
                if self.rerun_if_changed {
                    println!("cargo:rerun-if-changed={}", path.display());
                }
                ast::parse_file(&origin, path)?
            }
            many => {
                let mut texts = Vec::new();
                for source in many {
                    match source {
                        Source::Path(path) => {
                            let (files, watched) = sources::expand(std::slice::from_ref(path))?;
                            if self.rerun_if_changed {
                                for path in &watched {
                                    println!("cargo:rerun-if-changed={}", path.display());
                                }
                            }
                            for file in files {
                                texts.push(sources::read(&file)?);
                            }
                        }
                        Source::Json { origin, json } => texts.push(sources::Text {
                            origin: origin.clone(),
                            text: json.clone(),
                            is_idl: false,
                        }),
                        Source::Idl { origin, text } => texts.push(sources::Text {
                            origin: origin.clone(),
                            text: text.clone(),
                            is_idl: true,
                        }),
                    }
                }
                // The texts are dropped once the document is made, and the
                // document as its shapes are read.
                let document = sources::merge(texts)?;
                ast::from_document(&origin, document)?
            }
        };
        Ok((origin, model))
    }

    /// The crate path, parsed.
    fn krate(&self, origin: &str) -> Result<syn::Path, CodegenError> {
        syn::parse_str(&self.crate_path).map_err(|_| {
            CodegenError::new(
                origin,
                ErrorKind::InvalidCratePath {
                    path: self.crate_path.clone(),
                },
            )
        })
    }

    fn emit(&self, origin: &str, view: &ServiceView<'_>) -> Result<GeneratedService, CodegenError> {
        let krate = self.krate(origin)?;
        let mut source = Emitter::new(view, &krate, self.aws_rules)
            .file()
            .map_err(|message| CodegenError::new(origin, ErrorKind::Internal { message }))?;
        if self.rustfmt {
            source = rustfmt(&source)
                .map_err(|message| CodegenError::new(origin, ErrorKind::Rustfmt { message }))?;
        }
        let stem: String = view
            .sdk_id
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        Ok(GeneratedService {
            shape_id: view.service.id.clone(),
            sdk_id: view.sdk_id.clone(),
            file_name: format!("{stem}.rs"),
            source,
        })
    }
}

/// `source` as `rustfmt` formats it.
fn rustfmt(source: &str) -> Result<String, String> {
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = std::process::Command::new(&program)
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.to_string_lossy()))?;
    let mut stdin = child.stdin.take().expect("piped");
    // Write from another thread: rustfmt may fill its output pipe first.
    let input = source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    writer
        .join()
        .map_err(|_| "the writer thread panicked".to_owned())?
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    String::from_utf8(output.stdout).map_err(|e| e.to_string())
}
