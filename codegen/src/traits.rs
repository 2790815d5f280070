//! The Smithy traits the generator reads: each one's value checked
//! strictly against the JSON type the trait takes (a wrong type is an error,
//! never read as something else), and an error shape's traits turned into
//! the `#[derive(RetryInfo)]` attributes that carry them (see the crate docs
//! for the table).

use rebound_runtime::__codegen::{is_throttling_error_code, is_transient_error_code};
use serde_json::Value;

use crate::ast::{Model, Shape, ShapeType, Traits, pointer};
use crate::error::{CodegenError, ErrorKind};

/// The statuses `@httpError` (and `awsQueryError`'s `httpResponseCode`)
/// may hold: Smithy's range, which takes in redirects (a real AWS model has
/// a `308`). Only the 4xx of a client error and the 5xx of a server error
/// become `#[http_error]`.
const ERROR_STATUSES: std::ops::RangeInclusive<u64> = 200..=599;

/// Checks the value of every trait the generator reads, on every shape and
/// member of `model`.
pub(crate) fn check(origin: &str, model: &Model) -> Result<(), CodegenError> {
    for (id, shape) in &model.shapes {
        check_traits(origin, id, &["shapes", id], &shape.traits, None)?;
        for member in &shape.members {
            let owner = format!("{id}${}", member.name);
            let parts = ["shapes", id.as_str(), "members", &member.name];
            check_traits(
                origin,
                &owner,
                &parts,
                &member.traits,
                Some(shape.shape_type),
            )?;
        }
    }
    Ok(())
}

/// Checks `traits`, found at `parts` on `owner`; `container` is the type of
/// the shape holding a member's traits.
fn check_traits(
    origin: &str,
    owner: &str,
    parts: &[&str],
    traits: &Traits,
    container: Option<ShapeType>,
) -> Result<(), CodegenError> {
    for (trait_id, value) in traits {
        let Some(expected) = problem(trait_id, value, container) else {
            continue;
        };
        let mut text = value.to_string();
        if text.len() > 80 {
            let cut = (0..=77)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            text.truncate(cut);
            text.push_str("...");
        }
        let mut at = parts.to_vec();
        at.extend(["traits", trait_id]);
        return Err(CodegenError::new(
            origin,
            ErrorKind::InvalidTrait {
                shape: owner.to_owned(),
                pointer: pointer(&at),
                trait_id: trait_id.to_owned(),
                value: text,
                expected: expected.to_owned(),
            },
        ));
    }
    Ok(())
}

/// What trait `id` takes, when `value` is not that; `None` when it is (or
/// the generator does not read the trait).
fn problem(id: &str, value: &Value, container: Option<ShapeType>) -> Option<&'static str> {
    let object = |v: &Value| v.is_object();
    let ok = match id {
        "smithy.api#documentation" | "smithy.api#httpHeader" => value.is_string(),
        "smithy.api#readonly"
        | "smithy.api#idempotent"
        | "smithy.api#required"
        | "smithy.api#sparse"
        | "smithy.api#sensitive"
        | "smithy.api#streaming"
        | "smithy.api#mixin" => object(value),
        "smithy.api#retryable" => {
            object(value) && value.get("throttling").is_none_or(Value::is_boolean)
        }
        "smithy.api#deprecated" => {
            object(value)
                && ["message", "since"]
                    .iter()
                    .all(|k| value.get(k).is_none_or(Value::is_string))
        }
        "smithy.api#httpError" => value.as_u64().is_some_and(|s| ERROR_STATUSES.contains(&s)),
        "aws.protocols#awsQueryError" => {
            object(value)
                && value
                    .get("code")
                    .and_then(Value::as_str)
                    .is_some_and(is_wire_code)
                && value
                    .get("httpResponseCode")
                    .and_then(Value::as_u64)
                    .is_some_and(|s| ERROR_STATUSES.contains(&s))
        }
        "aws.api#service" => {
            object(value)
                && value
                    .get("sdkId")
                    .is_none_or(|v| v.as_str().is_some_and(is_sdk_id))
        }
        "smithy.api#enum" => value.as_array().is_some_and(|entries| {
            entries.iter().all(|e| {
                e.get("value").is_some_and(Value::is_string)
                    && ["name", "documentation"]
                        .iter()
                        .all(|k| e.get(k).is_none_or(Value::is_string))
            })
        }),
        "smithy.api#enumValue" => match container {
            Some(ShapeType::IntEnum) => value.as_i64().is_some_and(|v| i32::try_from(v).is_ok()),
            _ => value.is_string(),
        },
        _ => return None,
    };
    if ok {
        return None;
    }
    Some(match id {
        "smithy.api#documentation" | "smithy.api#httpHeader" => "a string",
        "smithy.api#retryable" => {
            "an object such as {} or {\"throttling\": true} (`throttling` a boolean)"
        }
        "smithy.api#deprecated" => "an object with optional string `message` and `since`",
        "smithy.api#httpError" => "an integer from 200 to 599",
        "aws.protocols#awsQueryError" => {
            "an object with `code` (a non-empty error code without whitespace, `:` or `#`) and \
             `httpResponseCode` (an integer from 200 to 599)"
        }
        "aws.api#service" => {
            "an object whose `sdkId`, if present, is a non-empty string of printable characters \
             with a letter or digit"
        }
        "smithy.api#enum" => {
            "a list of objects with a string `value` (and optional string `name`, `documentation`)"
        }
        "smithy.api#enumValue" if container == Some(ShapeType::IntEnum) => "a 32-bit integer",
        "smithy.api#enumValue" => "a string",
        _ => "an object ({} for an annotation trait)",
    })
}

/// Whether `code` can be an error code on the wire and in `from_code`: not
/// empty, no whitespace or control characters, no `:` or `#` (the
/// separators `from_code` strips).
pub(crate) fn is_wire_code(code: &str) -> bool {
    !code.is_empty()
        && !code
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ':' || c == '#')
}

/// Whether `id` can be an `sdkId`: printable, with a letter or digit (the
/// generated file is named after it).
fn is_sdk_id(id: &str) -> bool {
    !id.chars().any(char::is_control) && id.chars().any(|c| c.is_ascii_alphanumeric())
}

/// Who is at fault, from `@error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    Client,
    Server,
}

/// What `#[retryable]` to emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retryable {
    /// `#[retryable]`
    Yes,
    /// `#[retryable(throttling = true)]`
    Throttling,
}

/// Why the error is retryable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Because {
    /// The model says `@retryable`.
    Modeled,
    /// Its wire code is on an AWS list (throttling or transient).
    AwsCode,
}

/// The derive attributes of one error shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ErrorAttributes {
    pub(crate) fault: Fault,
    /// `@httpError`, else `awsQueryError.httpResponseCode`: left out when
    /// outside 400..=599 or contradicting the fault (a client error with a
    /// 5xx status, a server error with a 4xx one).
    pub(crate) status: Option<u16>,
    pub(crate) retryable: Option<(Retryable, Because)>,
    /// The wire code: `awsQueryError.code`, else the shape's name.
    pub(crate) code: String,
    /// `awsQueryError.code`, when there is one.
    pub(crate) query_code: Option<String>,
}

impl ErrorAttributes {
    /// The attributes of `shape` (an error structure, its traits checked),
    /// with the AWS rules applied when `aws_rules`.
    pub(crate) fn of(shape: &Shape, aws_rules: bool) -> Self {
        let fault = match shape.traits.get("smithy.api#error").and_then(Value::as_str) {
            Some("server") => Fault::Server,
            _ => Fault::Client,
        };
        let query = shape.traits.get("aws.protocols#awsQueryError");
        let query_code = query
            .and_then(|q| q.get("code"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        // A status contradicting the fault (a client error with a 5xx, a
        // server error with a 4xx) is left out: the fault decides.
        let status = shape
            .traits
            .get("smithy.api#httpError")
            .or_else(|| query.and_then(|q| q.get("httpResponseCode")))
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .filter(|s| match fault {
                Fault::Client => (400..=499).contains(s),
                Fault::Server => (500..=599).contains(s),
            });
        let modeled = shape.traits.get("smithy.api#retryable").map(|r| {
            let throttling = r.get("throttling").and_then(Value::as_bool) == Some(true);
            let kind = if throttling {
                Retryable::Throttling
            } else {
                Retryable::Yes
            };
            (kind, Because::Modeled)
        });
        let retryable = modeled.or_else(|| {
            if !aws_rules {
                return None;
            }
            let codes = || std::iter::once(shape.name()).chain(query_code.as_deref());
            if codes().any(is_throttling_error_code) {
                Some((Retryable::Throttling, Because::AwsCode))
            } else if codes().any(is_transient_error_code) {
                Some((Retryable::Yes, Because::AwsCode))
            } else {
                None
            }
        });
        Self {
            fault,
            status,
            retryable,
            code: query_code
                .clone()
                .unwrap_or_else(|| shape.name().to_owned()),
            query_code,
        }
    }
}
