//! Classifying [`http`](https://docs.rs/http/1) responses (feature `http`): an error
//! response becomes an [`HttpErrorResponse`](crate::classify::HttpErrorResponse) a strategy can judge, with its
//! AWS error code and retry-after hint read from the headers.
//!
//! [`ResponseClassifier`] reads, for a 4xx or 5xx response:
//!
//! | what | from | rule |
//! |---|---|---|
//! | status | the status line | any 4xx/5xx is a failure; 1xx-3xx is not |
//! | throttle | the status | 429 is a throttle ([`throttle_on_429`](ResponseClassifier::throttle_on_429)) |
//! | error code | `x-amzn-ErrorType` (REST-JSON, JSON 1.x) | the part before the first `:`, after the first `#` |
//! | error code | `x-amzn-query-error` (AWS query) | the part before the first `;` |
//! | retry-after hint | `x-amz-retry-after` | whole milliseconds |
//! | retry-after hint | `Retry-After` | delta-seconds or an HTTP-date, against the classifier's wall clock |
//!
//! [`aws_error_code`] and [`retry_after`] read the same headers on their own,
//! from an [`http::HeaderMap`] or any type implementing
//! [`HeaderValues`] (another client's headers).
//!
//! A code the caller parsed from the body wins over the headers':
//! [`classify_with_code`](ResponseClassifier::classify_with_code).
//! [`body_error_code`] parses it: a JSON body's `__type` or `code`, an XML
//! body's `<Error><Code>`, from at most [`BODY_PREFIX`] bytes. The
//! strategy then applies the AWS rules to what the classifier found:
//! throttling and transient codes, transient statuses (500, 502, 503, 504),
//! and the hint under its [`RetryAfterPolicy`](crate::backoff::RetryAfterPolicy).
//!
//! Headers are untrusted input. A value that is not visible ASCII, is empty,
//! negative, fractional or a date that does not parse is no hint (or no
//! code); a header sent more than once with different values is ignored as
//! ambiguous; a huge delta saturates and is then capped or refused by the
//! strategy's retry-after policy. Nothing here panics.

mod body_code;
mod classifier;
pub(crate) mod headers;

pub use body_code::{BODY_PREFIX, body_error_code};
pub use classifier::ResponseClassifier;
pub use headers::{HeaderValues, aws_error_code, retry_after};
