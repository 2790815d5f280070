//! [`RetryBehavior`]: which generation of the standard retry rules
//! `AWS_NEW_RETRIES_2026` selects.
//!
//! # Seam
//!
//! The standard strategy (written in parallel) defines the full
//! `RetryBehavior`, with the costs and backoffs of each generation, under the
//! same name and with the same variants. When it lands, this file shrinks to
//! a re-export of that type; nothing else in `config` changes.

use super::error::Problem;

/// Which generation of the AWS standard retry rules to follow.
///
/// | variant | selected by |
/// |---|---|
/// | [`V2_0`](Self::V2_0) (default) | `AWS_NEW_RETRIES_2026` unset or `false` |
/// | [`V2_1`](Self::V2_1) | `AWS_NEW_RETRIES_2026=true` |
///
/// # Accepted syntax
///
/// Exactly `true` or `false`. The other AWS SDKs compare the variable with
/// `"true"` (Go: `os.Getenv(..) == "true"`, PHP: `getenv(..) === 'true'`, the
/// Swift SDK likewise) and treat anything else as off; so that no value
/// silently means something else here than there, any other value (`TRUE`,
/// `1`, `yes`, padded or empty) is an error. botocore 1.44 has no such
/// variable: it always follows 2.1.
///
/// # Examples
///
/// ```
/// use rebound_runtime::config::RetryBehavior;
///
/// assert_eq!(RetryBehavior::default(), RetryBehavior::V2_0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryBehavior {
    /// Retry behaviour 2.0: the documented standard mode (aws-smithy-runtime's
    /// default).
    #[default]
    V2_0,
    /// Retry behaviour 2.1: the 2026 rules (botocore 1.44's default).
    V2_1,
}

impl RetryBehavior {
    /// Parses the value of `AWS_NEW_RETRIES_2026`.
    pub(crate) fn parse_flag(value: &str) -> Result<Self, Problem> {
        match value {
            "true" => Ok(Self::V2_1),
            "false" => Ok(Self::V2_0),
            "" => Err(Problem::Empty),
            padded if padded.trim() != padded => Err(Problem::SurroundingWhitespace),
            _ => Err(Problem::NotABoolean),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values() {
        assert_eq!(RetryBehavior::parse_flag("true"), Ok(RetryBehavior::V2_1));
        assert_eq!(RetryBehavior::parse_flag("false"), Ok(RetryBehavior::V2_0));
        assert_eq!(RetryBehavior::parse_flag(""), Err(Problem::Empty));
        assert_eq!(
            RetryBehavior::parse_flag(" true"),
            Err(Problem::SurroundingWhitespace)
        );
        for other in ["TRUE", "True", "1", "yes", "on", "0"] {
            assert_eq!(RetryBehavior::parse_flag(other), Err(Problem::NotABoolean));
        }
    }
}
