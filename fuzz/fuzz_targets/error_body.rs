//! Any error response body, read for its AWS error code (JSON `__type`/`code`, XML
//! `<Error><Code>`): never a panic, and a code only when it is 1 to 256 bytes of visible ASCII
//! with no `:` (the part after it is cut) and nothing found past the prefix read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_runtime::http::{BODY_PREFIX, body_error_code};

fuzz_target!(|body: &[u8]| {
    let code = body_error_code(body);
    if let Some(code) = &code {
        assert!(!code.is_empty() && code.len() <= 256, "{code:?}");
        assert!(code.bytes().all(|b| b.is_ascii_graphic() && b != b':'), "{code:?}");
    }
    // Only the prefix counts.
    if body.len() > BODY_PREFIX {
        assert_eq!(body_error_code(&body[..BODY_PREFIX]), code);
    }
});
