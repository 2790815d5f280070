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

/// The compile errors of the likeliest first mistakes with the executor name
/// the fix (`#[diagnostic::on_unimplemented]` on the traits).
#[test]
fn usage_mistakes_say_what_to_do() {
    trybuild::TestCases::new().compile_fail("tests/ui/usage/*.rs");
}

/// The async executor's sleeper mistake. The compiler lists the other
/// `AsyncSleeper` implementors, `DefaultSleeper` among them with the `tokio`
/// feature, so the expected output is pinned with it (as the test command
/// runs: `--all-features`).
#[cfg(feature = "tokio")]
#[test]
fn async_usage_mistakes_say_what_to_do() {
    trybuild::TestCases::new().compile_fail("tests/ui/usage_tokio/*.rs");
}

/// A request type that cannot be copied for a retry, under the tower layer:
/// a compile error that names the fix.
#[cfg(feature = "tower")]
#[test]
fn a_request_that_cannot_be_copied_does_not_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/usage_tower/*.rs");
}
