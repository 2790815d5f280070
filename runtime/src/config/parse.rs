//! Turning a setting's text into its value: the strict `max_attempts`
//! syntax, and the shared checking that wraps any parse failure in a
//! [`ConfigError`] naming the setting, the value and its source, for the
//! environment and the config file alike.

use super::env::Env;
use super::error::{Problem, Setting};
use super::{ConfigError, ConfigSource};

/// A value and where it was found.
pub(super) type Found<T> = Option<(T, ConfigSource)>;

/// Reads and parses `setting` from its environment variable, if set.
pub(super) fn from_env<T>(
    env: &(impl Env + ?Sized),
    setting: Setting,
    parse: impl FnOnce(&str) -> Result<T, Problem>,
) -> Result<Found<T>, ConfigError> {
    let var = setting.env_var();
    match env.var(var) {
        Some(value) => checked(setting, &value, ConfigSource::Env { var }, parse).map(Some),
        None => Ok(None),
    }
}

/// Parses `value`, turning a [`Problem`] into a [`ConfigError`].
pub(super) fn checked<T>(
    setting: Setting,
    value: &str,
    origin: ConfigSource,
    parse: impl FnOnce(&str) -> Result<T, Problem>,
) -> Result<(T, ConfigSource), ConfigError> {
    match parse(value) {
        Ok(parsed) => Ok((parsed, origin)),
        Err(problem) => Err(ConfigError::invalid(setting, value, origin, problem)),
    }
}

/// `max_attempts`: digits only, 1 to `u32::MAX`.
pub(super) fn parse_max_attempts(value: &str) -> Result<u32, Problem> {
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if value.is_empty() {
        Err(Problem::Empty)
    } else if value.trim() != value {
        Err(Problem::SurroundingWhitespace)
    } else if value.strip_prefix('-').is_some_and(all_digits) {
        Err(Problem::Negative)
    } else if !all_digits(value) {
        Err(Problem::NotANumber)
    } else {
        match value.parse::<u32>() {
            Ok(0) => Err(Problem::Zero),
            Ok(n) => Ok(n),
            // Only digits, so the only way to fail is to overflow.
            Err(_) => Err(Problem::TooLarge),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_attempts_syntax() {
        assert_eq!(parse_max_attempts("1"), Ok(1));
        assert_eq!(parse_max_attempts("007"), Ok(7));
        assert_eq!(parse_max_attempts("4294967295"), Ok(u32::MAX));
        let rejected = [
            ("", Problem::Empty),
            (" 3", Problem::SurroundingWhitespace),
            ("3\t", Problem::SurroundingWhitespace),
            ("\u{a0}3", Problem::SurroundingWhitespace),
            ("0", Problem::Zero),
            ("000", Problem::Zero),
            ("-1", Problem::Negative),
            ("-0", Problem::Negative),
            ("+3", Problem::NotANumber),
            ("-", Problem::NotANumber),
            ("3.0", Problem::NotANumber),
            ("1_000", Problem::NotANumber),
            ("0x10", Problem::NotANumber),
            ("three", Problem::NotANumber),
            ("3 4", Problem::NotANumber),
            ("٣", Problem::NotANumber),
            ("4294967296", Problem::TooLarge),
            ("99999999999999999999999", Problem::TooLarge),
        ];
        for (input, problem) in rejected {
            assert_eq!(parse_max_attempts(input), Err(problem), "{input:?}");
        }
    }
}
