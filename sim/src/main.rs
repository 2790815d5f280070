//! The `rebound-sim` binary: see [`rebound_sim::cli`].

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    rebound_sim::cli::main()
}
