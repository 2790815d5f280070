//! The derive's diagnostics (one `.stderr` per mistake) and the shapes it accepts.
//!
//! Regenerate the expected output after an intended change with
//! `TRYBUILD=overwrite cargo test --test compile_tests`, then review the diff.

#[test]
fn derive_diagnostics_and_accepted_shapes() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
