//! `rebound-codegen`: Smithy JSON AST in, Rust error types out.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use rebound_codegen::{ErrorKind, Generator, PluginEnv, run_plugin};

/// Generates Rust error types carrying their retry behaviour
/// (`#[derive(rebound::RetryInfo)]`) from a Smithy JSON AST model.
///
/// With no MODEL the model is read from standard input; when
/// `SMITHY_PLUGIN_DIR` is set (a smithy-build `run` plugin), one
/// `<sdk id>.rs` per service is written there.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// The model: a Smithy JSON AST file (`smithy ast`, `smithy build`).
    model: Option<PathBuf>,
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
    let mut generator = Generator::new()
        .crate_path(&args.crate_path)
        .aws_rules(!args.no_aws_rules)
        .rustfmt(args.rustfmt);
    if let Some(service) = &args.service {
        generator = generator.service(service);
    }
    let generator = match &args.model {
        Some(path) => generator.model(path),
        None => {
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
    };
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
