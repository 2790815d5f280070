//! Any body and any `x-amz-crc32` header value through the legacy DynamoDB
//! presets' check: never a panic; the CRC32 is the bitwise reference's; a
//! header that matches is exactly that CRC32 as an integer; the CRC32
//! written in decimal always matches.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rebound_runtime::internals::{crc32, crc32_matches};

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    body: &'a [u8],
    header: &'a str,
}

/// IEEE CRC32, one bit at a time.
fn reference(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fuzz_target!(|input: Input<'_>| {
    let expected = reference(input.body);
    assert_eq!(crc32(input.body), expected);
    assert_eq!(crc32_matches(input.body, &expected.to_string()), Ok(true));
    if let Ok(true) = crc32_matches(input.body, input.header) {
        // Python's int(): whitespace, a sign, `_` between digits.
        let digits: String = input.header.trim().chars().filter(|c| *c != '_').collect();
        let value: i128 = digits.parse().expect("a matching header is an integer");
        assert_eq!(value, i128::from(expected), "{:?}", input.header);
    }
});
