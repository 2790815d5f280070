//! The whole output for a small synthetic model that exercises every
//! mapping (it is also compiled and checked in `codegen/fixtures`).

use rebound_codegen::Generator;

const MODEL: &str = include_str!("../fixtures/models/weather.json");

fn weather() -> Generator {
    Generator::new().model_json("weather.json", MODEL)
}

#[test]
fn weather_service() {
    let source = weather().generate().expect("generates");
    insta::assert_snapshot!(source);
}

#[test]
fn output_is_deterministic() {
    let first = weather().generate().expect("generates");
    for _ in 0..3 {
        assert_eq!(weather().generate().expect("generates"), first);
    }
}

#[test]
fn output_has_no_inner_attributes_or_inner_doc_comments() {
    // `include!` rejects them.
    let source = weather().generate().expect("generates");
    assert!(!source.contains("#!["));
    assert!(!source.contains("//!"));
}

#[test]
fn aws_rules_make_listed_codes_retryable_unless_turned_off() {
    let with = weather().generate().expect("generates");
    let without = weather().aws_rules(false).generate().expect("generates");
    let throttling = |source: &str| {
        let at = source
            .find("pub struct ThrottlingException")
            .expect("the error");
        source[..at]
            .rfind("#[retryable(throttling = true)]")
            .is_some_and(|attr| !source[attr..at].contains("pub struct"))
    };
    assert!(
        throttling(&with),
        "ThrottlingException is a throttling code"
    );
    assert!(!throttling(&without));
}

#[test]
fn a_crate_path_override_reaches_every_derive_and_impl() {
    let source = weather()
        .crate_path("my_sdk::rebound")
        .generate()
        .expect("generates");
    assert!(source.contains("my_sdk::rebound::RetryInfo"));
    assert!(source.contains("#[retry_info(crate = \"my_sdk::rebound\")]"));
    assert!(source.contains("impl my_sdk::rebound::ErrorInfo for Unhandled"));
    // Every path to the crate is the override.
    assert_eq!(
        source.matches("::rebound::").count(),
        source.matches("my_sdk::rebound::").count()
    );
}

#[test]
fn an_error_named_unhandled_keeps_the_catch_all_apart() {
    let json = r#"{"smithy": "2.0", "shapes": {
        "ex#Svc": {"type": "service", "errors": [{"target": "ex#Unhandled"}]},
        "ex#Unhandled": {"type": "structure", "traits": {"smithy.api#error": "server"}}
    }}"#;
    let source = Generator::new()
        .model_json("m", json)
        .generate()
        .expect("generates");
    assert!(source.contains("Unhandled(self::types::error::Unhandled)"));
    assert!(source.contains("Unhandled2(self::Unhandled)"));
}

#[test]
fn the_rustfmt_pass_gives_what_cargo_fmt_accepts() {
    let rustfmt = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    if std::process::Command::new(&rustfmt)
        .arg("--version")
        .output()
        .is_err()
    {
        // A toolchain without rustfmt (rustup's minimal profile): nothing to
        // check against. CI installs it (.ci/run).
        eprintln!("skipped: {} cannot be run", rustfmt.to_string_lossy());
        return;
    }
    let formatted = weather().rustfmt(true).generate().expect("rustfmt runs");
    let plain = weather().generate().expect("generates");
    assert_ne!(formatted, plain, "prettyplease's layout is not rustfmt's");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("weather.rs");
    std::fs::write(&file, &formatted).expect("write");
    let check = std::process::Command::new(&rustfmt)
        .args(["--edition", "2024", "--check"])
        .arg(&file)
        .output()
        .expect("rustfmt runs");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}
