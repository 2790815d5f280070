//! `rebound-codegen`: Smithy models (JSON AST or IDL) in, Rust error types
//! out; `rebound-codegen ast`: a model's JSON AST, or its IDL.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use rebound_codegen::{ErrorKind, Generator, PluginEnv, idl_files, json_ast, run_plugin};

/// Generates Rust error types carrying their retry behaviour
/// (`#[derive(rebound::RetryInfo)]`) from a Smithy model.
///
/// With no MODEL the model is read from standard input (a JSON AST); when
/// `SMITHY_PLUGIN_DIR` is set (a smithy-build `run` plugin), one
/// `<sdk id>.rs` per service is written there.
#[derive(Debug, Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The model: Smithy JSON AST files (`smithy ast`, `smithy build`),
    /// Smithy IDL files (`.smithy`) and directories of both, merged.
    model: Vec<PathBuf>,
    /// Write here instead of standard output (`-`: standard output). A
    /// regular file is replaced atomically, a symbolic link followed, a
    /// device or FIFO written through.
    #[arg(short, long, value_name = "OUT.rs")]
    output: Option<PathBuf>,
    /// The service to generate when the model holds several.
    #[arg(long, value_name = "SHAPE_ID")]
    service: Option<String>,
    /// The path of the `rebound` crate in generated code.
    #[arg(long, value_name = "PATH", default_value = "::rebound")]
    crate_path: String,
    /// Do not make errors with AWS throttling or transient codes retryable.
    #[arg(long)]
    no_aws_rules: bool,
    /// Pass the output through rustfmt (`$RUSTFMT`, else `rustfmt`).
    #[arg(long)]
    rustfmt: bool,
    /// Read and check the model (its references, `@error` traits and
    /// service), and write nothing.
    #[arg(long)]
    check: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Prints the model's JSON AST, as `smithy ast` does (or its IDL).
    Ast {
        /// The model: JSON AST files, IDL files and directories of both.
        #[arg(required = true)]
        model: Vec<PathBuf>,
        /// What to write.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        /// Write here instead of standard output: a file, or for IDL a
        /// directory (one `<namespace>.smithy` each; needed when the model
        /// has several namespaces).
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The JSON AST.
    Json,
    /// Smithy IDL 2.0 (1.0 for a 1.0 model).
    Idl,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rebound-codegen: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if let Some(Command::Ast {
        model,
        format,
        output,
    }) = &args.command
    {
        return ast(model, *format, output.as_deref());
    }
    let mut generator = Generator::new()
        .crate_path(&args.crate_path)
        .aws_rules(!args.no_aws_rules)
        .rustfmt(args.rustfmt);
    if let Some(service) = &args.service {
        generator = generator.service(service);
    }
    let generator = match args.model.as_slice() {
        [] => {
            let mut json = String::new();
            std::io::stdin()
                .read_to_string(&mut json)
                .map_err(|e| format!("<stdin>: cannot read the model: {e}"))?;
            if let (Some(env), None) = (PluginEnv::from_env(), &args.output) {
                let written = run_plugin(&generator, &json, &env).map_err(|e| e.to_string())?;
                for path in written {
                    eprintln!("rebound-codegen: wrote {}", path.display());
                }
                return Ok(());
            }
            generator.model_json("<stdin>", json)
        }
        paths => paths.iter().fold(generator, |g, path| g.model(path)),
    };
    if args.check {
        return generator.check().map_err(|e| e.to_string());
    }
    // The model is read and checked first; the file is then written as it
    // is formatted.
    match &args.output {
        Some(path) if path.as_os_str() != "-" => {
            generator.generate_to_file(path).map_err(|e| e.to_string())
        }
        _ => {
            let mut stdout = std::io::stdout().lock();
            generator
                .generate_to_writer(&mut stdout)
                .map_err(|e| match e.kind() {
                    ErrorKind::Write { source, .. } => {
                        format!("cannot write to standard output: {source}")
                    }
                    _ => e.to_string(),
                })?;
            stdout
                .flush()
                .map_err(|e| format!("cannot write to standard output: {e}"))
        }
    }
}

/// `rebound-codegen ast`.
fn ast(model: &[PathBuf], format: Format, output: Option<&std::path::Path>) -> Result<(), String> {
    let output = output.filter(|p| p.as_os_str() != "-");
    let write = |path: &std::path::Path, text: &str| {
        rebound_codegen::write_output(path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    let text = match format {
        Format::Json => json_ast(model).map_err(|e| e.to_string())? + "\n",
        Format::Idl => {
            let mut files = idl_files(model).map_err(|e| e.to_string())?;
            if files.len() > 1 || output.is_some_and(std::path::Path::is_dir) {
                let Some(dir) = output else {
                    let namespaces: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
                    return Err(format!(
                        "the model has {} namespaces ({}): write them to a directory with -o DIR",
                        files.len(),
                        namespaces.join(", ")
                    ));
                };
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                for (namespace, text) in &files {
                    write(&dir.join(format!("{namespace}.smithy")), text)?;
                }
                return Ok(());
            }
            files.pop().map(|(_, text)| text).unwrap_or_default()
        }
    };
    match output {
        Some(path) => write(path, &text),
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    }
}
