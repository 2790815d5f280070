//! Generates every model of `../tests/hostile/compiles` into `OUT_DIR`,
//! plus `hostile.rs`, a module per model.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    let dir = manifest.join("../tests/hostile/compiles");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut glue = String::new();
    for path in paths {
        let name = path.file_stem().expect("a file name").to_string_lossy();
        rebound_codegen::Generator::new()
            .model(&path)
            .generate_to_file(out.join(format!("{name}.rs")))
            .unwrap_or_else(|e| panic!("{e}"));
        writeln!(
            glue,
            "/// Generated from `{name}.json`.\npub mod {name} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{name}.rs\")); }}"
        )
        .expect("writing to a String");
    }
    std::fs::write(out.join("hostile.rs"), glue).expect("OUT_DIR is writable");
}
