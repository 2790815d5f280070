//! `AWS_NEW_RETRIES_2026`: which generation of the standard retry rules
//! ([`RetryBehavior`]) to follow.
//!
//! # Accepted syntax
//!
//! Exactly `true` (behaviour 2.1) or `false` (behaviour 2.0, the default when
//! the variable is unset). The other AWS SDKs compare the variable with
//! `"true"` (Go: `os.Getenv(..) == "true"`, PHP: `getenv(..) === 'true'`, the
//! Swift SDK likewise) and treat anything else as off; so that no value
//! silently means something else here than there, any other value (`TRUE`,
//! `1`, `yes`, padded or empty) is an error. botocore 1.44 has no such
//! variable: it always follows 2.1.

use super::error::Problem;
use crate::standard::RetryBehavior;

/// Parses the value of `AWS_NEW_RETRIES_2026`.
pub(crate) fn parse_new_retries_flag(value: &str) -> Result<RetryBehavior, Problem> {
    match value {
        "true" => Ok(RetryBehavior::V2_1),
        "false" => Ok(RetryBehavior::V2_0),
        "" => Err(Problem::Empty),
        padded if padded.trim() != padded => Err(Problem::SurroundingWhitespace),
        _ => Err(Problem::NotABoolean),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values() {
        assert_eq!(parse_new_retries_flag("true"), Ok(RetryBehavior::V2_1));
        assert_eq!(parse_new_retries_flag("false"), Ok(RetryBehavior::V2_0));
        assert_eq!(parse_new_retries_flag(""), Err(Problem::Empty));
        assert_eq!(
            parse_new_retries_flag(" true"),
            Err(Problem::SurroundingWhitespace)
        );
        for other in ["TRUE", "True", "1", "yes", "on", "0"] {
            assert_eq!(parse_new_retries_flag(other), Err(Problem::NotABoolean));
        }
    }
}
