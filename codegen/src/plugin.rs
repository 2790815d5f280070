//! smithy-build `run` plugin mode: smithy-build runs the command with the
//! projected model (JSON AST) on standard input and tells it where to write
//! through environment variables.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{CodegenError, ErrorKind};
use crate::generator::Generator;
use crate::output::write_output;

/// What smithy-build tells a `run` plugin.
///
/// # Examples
///
/// ```
/// use rebound_codegen::PluginEnv;
///
/// let env = PluginEnv::from_vars(|name| match name {
///     "SMITHY_PLUGIN_DIR" => Some("build/smithy/source/rebound".into()),
///     "SMITHY_INCLUDES_PRELUDE" => Some("false".into()),
///     _ => None,
/// })
/// .expect("a plugin run");
/// assert!(!env.includes_prelude);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginEnv {
    /// `SMITHY_PLUGIN_DIR`: where to write.
    pub plugin_dir: PathBuf,
    /// `SMITHY_PROJECTION_NAME`.
    pub projection: Option<String>,
    /// `SMITHY_ARTIFACT_NAME`.
    pub artifact: Option<String>,
    /// `SMITHY_INCLUDES_PRELUDE` is `true`: the model holds the prelude's
    /// shapes (they are recognised and never generated).
    pub includes_prelude: bool,
}

impl PluginEnv {
    /// From the process environment; `None` outside a plugin run (no
    /// `SMITHY_PLUGIN_DIR`).
    #[must_use]
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// From a lookup of environment variables (tests inject one).
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Option<Self> {
        let text = |name: &str| var(name).map(|v| v.to_string_lossy().into_owned());
        Some(Self {
            plugin_dir: var("SMITHY_PLUGIN_DIR").map(PathBuf::from)?,
            projection: text("SMITHY_PROJECTION_NAME"),
            artifact: text("SMITHY_ARTIFACT_NAME"),
            includes_prelude: text("SMITHY_INCLUDES_PRELUDE").is_some_and(|v| v == "true"),
        })
    }
}

/// Generates every service of `json` (or the generator's chosen one) into
/// `env.plugin_dir` (created if missing), one `<sdk id>.rs` each, and
/// returns the files written. Nothing is written unless every service
/// generates.
///
/// # Errors
///
/// As [`Generator::generate_all`]; also the directory or a file cannot be
/// written.
pub fn run_plugin(
    generator: &Generator,
    json: &str,
    env: &PluginEnv,
) -> Result<Vec<PathBuf>, CodegenError> {
    let files = generator
        .clone()
        .model_json("<stdin>", json)
        .generate_all()?;
    let write_error =
        |path: PathBuf, source| CodegenError::new("<stdin>", ErrorKind::Write { path, source });
    std::fs::create_dir_all(&env.plugin_dir)
        .map_err(|source| write_error(env.plugin_dir.clone(), source))?;
    files
        .into_iter()
        .map(|file| {
            let path = env.plugin_dir.join(&file.file_name);
            write_output(&path, &file.source)
                .map_err(|source| write_error(path.clone(), source))?;
            Ok(path)
        })
        .collect()
}
