//! The Smithy IDL parser and the generator behind it: any text in, a file
//! or a typed error out, never a panic, and the file always parses as Rust.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match rebound_codegen::Generator::new()
        .model_idl("fuzz.smithy", text)
        .generate()
    {
        Ok(source) => {
            if let Err(e) = syn::parse_file(&source) {
                panic!("the generated code does not parse: {e}\n{source}");
            }
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.smithy")),
    }
});
