//! The AWS error code in an error response's body: [`body_error_code`].
//!
//! The AWS protocols put it in one of two places:
//!
//! | protocols | body | code |
//! |---|---|---|
//! | awsJson1_0, awsJson1_1, restJson1 | a JSON object | its `__type` or `code` member (the last one present) |
//! | awsQuery, ec2Query, restXml | XML | the first `<Code>` inside an `<Error>` element |
//!
//! The code is then cut as the Smithy AWS protocols specify for `x-amzn-ErrorType`: the part
//! before the first `:`, then after the first `#` (`aws.protocoltests#ThrottlingException:
//! http://...` is `ThrottlingException`).
//!
//! A body is untrusted input. At most [`BODY_PREFIX`] bytes are read; the scanners need no
//! complete document (a body cut short still yields a code that came before the cut), keep no
//! stack, and never panic. A code that is empty, longer than 256 bytes, or not visible ASCII
//! is no code.

/// The most of a body [`body_error_code`] reads: 64 KiB.
pub const BODY_PREFIX: usize = 64 * 1024;

/// The longest code accepted.
const MAX_CODE: usize = 256;

/// The AWS error code in `body`, or `None`: a JSON object's `__type` or `code` member (the last
/// one present), or the first `<Code>` inside an XML `<Error>` element, cut at `:` and `#` as
/// `x-amzn-ErrorType` is; from at most [`BODY_PREFIX`] bytes, none of which can make it panic.
///
/// ```
/// use rebound_runtime::http::body_error_code;
///
/// let json = br#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}"#;
/// assert_eq!(body_error_code(json).as_deref(), Some("ProvisionedThroughputExceededException"));
///
/// let xml = b"<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code></Error></ErrorResponse>";
/// assert_eq!(body_error_code(xml).as_deref(), Some("Throttling"));
///
/// assert_eq!(body_error_code(b"Service Unavailable"), None);
/// ```
#[must_use]
pub fn body_error_code(body: &[u8]) -> Option<String> {
    let body = &body[..body.len().min(BODY_PREFIX)];
    let start = body.iter().position(|b| !b.is_ascii_whitespace())?;
    let code = match body[start] {
        b'{' => json_code(&body[start..])?,
        b'<' => xml_code(&body[start..])?,
        _ => return None,
    };
    sanitize(&code)
}

/// `code` cut at `:` and `#`, trimmed, if it is a usable code.
fn sanitize(code: &str) -> Option<String> {
    let code = code.split(':').next().unwrap_or(code);
    let code = code.split_once('#').map_or(code, |(_, name)| name).trim();
    let usable =
        !code.is_empty() && code.len() <= MAX_CODE && code.bytes().all(|b| b.is_ascii_graphic());
    usable.then(|| code.to_owned())
}

/// The last `__type` or `code` string member of the top-level object that starts `body`.
fn json_code(body: &[u8]) -> Option<String> {
    let mut found = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
                i += 1;
            }
            b'"' => {
                let Some((key, after)) = json_string(body, i) else {
                    break;
                };
                i = after;
                let colon = skip_whitespace(body, i);
                if depth != 1 || body.get(colon) != Some(&b':') {
                    continue;
                }
                i = skip_whitespace(body, colon + 1);
                if body.get(i) != Some(&b'"') {
                    continue;
                }
                let Some((value, after)) = json_string(body, i) else {
                    break;
                };
                i = after;
                if key == "__type" || key == "code" {
                    found = Some(value);
                }
            }
            _ => i += 1,
        }
    }
    found
}

fn skip_whitespace(body: &[u8], mut i: usize) -> usize {
    while body.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The JSON string starting at `body[start]` (a `"`), decoded, and the index after it; `None`
/// when it is cut short, or has an escape that does not decode to ASCII.
fn json_string(body: &[u8], start: usize) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut i = start + 1;
    loop {
        match *body.get(i)? {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                let escaped = match *body.get(i + 1)? {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let hex = std::str::from_utf8(body.get(i + 2..i + 6)?).ok()?;
                        let unit = u8::try_from(u16::from_str_radix(hex, 16).ok()?).ok()?;
                        i += 4;
                        char::from(unit)
                    }
                    _ => return None,
                };
                out.push(escaped);
                i += 2;
            }
            byte => {
                // Bytes of a multi-byte character are kept as they come (the code is checked
                // to be ASCII at the end).
                out.push(char::from(byte));
                i += 1;
            }
        }
    }
}

/// The text of the first `<Code>` element after an `<Error>` start tag.
fn xml_code(body: &[u8]) -> Option<String> {
    let error = find_start_tag(body, b"Error")?;
    let rest = &body[error..];
    let open = find(rest, b"<Code>")? + b"<Code>".len();
    let close = find(&rest[open..], b"</Code>")?;
    let text = std::str::from_utf8(&rest[open..open + close]).ok()?;
    // Codes are names: an entity or a nested element is not one.
    (!text.contains(['&', '<'])).then(|| text.to_owned())
}

/// The index after the start tag `<name>` or `<name ...>` (not `<names>`).
fn find_start_tag(body: &[u8], name: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = find(&body[from..], b"<") {
        let tag = from + at + 1;
        if body[tag..].starts_with(name) {
            match body.get(tag + name.len()) {
                Some(b'>') => return Some(tag + name.len() + 1),
                Some(b) if b.is_ascii_whitespace() || *b == b'/' => {
                    return find(&body[tag..], b">").map(|end| tag + end + 1);
                }
                _ => {}
            }
        }
        from = tag;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<String> {
        body_error_code(body.as_bytes())
    }

    #[test]
    fn json_bodies() {
        let cases = [
            (
                r#"{"__type":"ThrottlingException"}"#,
                Some("ThrottlingException"),
            ),
            (
                r#" {"message": "x", "__type" : "com.amazon.coral.service#ValidationException"}"#,
                Some("ValidationException"),
            ),
            (
                r#"{"code":"aws.protocoltests#FooError:http://internal.amazon.com/"}"#,
                Some("FooError"),
            ),
            // A nested member is not the code; the top-level one after it is.
            (
                r#"{"detail":{"code":"Inner"},"__type":"Outer"}"#,
                Some("Outer"),
            ),
            (r#"{"detail":{"code":"Inner"}}"#, None),
            // Escapes decode; a string value named like a key is not a key.
            (r#"{"__type":"A\u0042C\/D"}"#, Some("ABC/D")),
            (r#"{"message":"__type","x":1}"#, None),
            // The last of `__type` and `code` wins.
            (r#"{"code":"First","__type":"Second"}"#, Some("Second")),
            // Cut short after the code: still found; cut inside it: not.
            (
                r#"{"__type":"Throttling","message":"slo"#,
                Some("Throttling"),
            ),
            (r#"{"__type":"Thrott"#, None),
            // Not codes.
            (r#"{"__type":""}"#, None),
            (r#"{"__type":"has space"}"#, None),
            (r#"{"__type":"caf\u00e9"}"#, None),
            (r#"{"__type":"café"}"#, None),
            (r#"{"__type":5}"#, None),
            ("[]", None),
            ("", None),
        ];
        for (body, expected) in cases {
            assert_eq!(code(body).as_deref(), expected, "{body}");
        }
    }

    #[test]
    fn xml_bodies() {
        let cases = [
            (
                "<?xml version=\"1.0\"?><ErrorResponse><Error><Type>Sender</Type>\
                 <Code>InvalidParameterValue</Code></Error></ErrorResponse>",
                Some("InvalidParameterValue"),
            ),
            (
                "<Response><Errors><Error><Code>RequestLimitExceeded</Code></Error></Errors></Response>",
                Some("RequestLimitExceeded"),
            ),
            (
                "<Error xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Code> SlowDown </Code></Error>",
                Some("SlowDown"),
            ),
            ("<Errors><Code>NotInAnError</Code></Errors>", None),
            ("<Error><Code>Cut", None),
            ("<Error><Code>A&amp;B</Code></Error>", None),
            ("<Error><Code><B>x</B></Code></Error>", None),
            ("<html>Service Unavailable</html>", None),
        ];
        for (body, expected) in cases {
            assert_eq!(code(body).as_deref(), expected, "{body}");
        }
    }

    /// Only the first [`BODY_PREFIX`] bytes are read: a code beyond them is not found, one
    /// before them is, whatever follows.
    #[test]
    fn huge_bodies_are_read_up_to_the_prefix() {
        let padding = " ".repeat(BODY_PREFIX);
        let late = format!(r#"{{"message":"{padding}","__type":"Late"}}"#);
        assert_eq!(code(&late), None);
        let early = format!(r#"{{"__type":"Early","message":"{padding}"}}"#);
        assert_eq!(code(&early).as_deref(), Some("Early"));
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert_eq!(body_error_code(deep.as_bytes()), None);
        let xml = format!(
            "<Error>{}<Code>Late</Code></Error>",
            " ".repeat(BODY_PREFIX)
        );
        assert_eq!(code(&xml), None);
    }
}
