//! The AWS shared config file (`~/.aws/config`), parsed by hand with the line
//! of every key.
//!
//! # Why not a crate
//!
//! Errors must name the line of a bad value, and indented sub-properties must
//! stay out of the profile. Of the maintained INI crates, `rust-ini` 0.21
//! reports a line only for syntax errors, never for a value, reads an indented
//! `max_attempts = 20` under `s3 =` as a key of the profile unless its
//! multi-line option is on, and interprets `\` escapes and quotes by default;
//! `configparser` 3 returns `Map<String, Map<String, Option<String>>>` with no
//! positions at all and lowercases section (profile) names by default. The
//! format is small, so this module implements it directly (about two hundred
//! lines). It accepts what botocore's reader (Python's `configparser`, strict)
//! accepts — indented keys and headers, `=` or `:` between key and value, LF,
//! CRLF and CR-only line ends — and rejects, with the line, what it rejects:
//! a section or a key declared twice, a key before any section, a line that
//! is neither a header nor `key = value`.
//!
//! The format as read here, with the facts from the references it follows,
//! is documented on the `config` module ("The config file format").

use std::collections::HashMap;

/// The characters the format trims: spaces and tabs.
const WHITESPACE: [char; 2] = [' ', '\t'];
const COMMENT: [char; 2] = ['#', ';'];

/// One `key = value` of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Property {
    /// The value, trimmed, without an inline comment; continuation lines are
    /// joined with `\n`.
    pub(crate) value: String,
    /// The 1-based line of the key.
    pub(crate) line: usize,
}

type Profile = HashMap<String, Property>;

/// The profiles of a shared config file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProfileFile {
    /// `[profile NAME]` sections, `[profile default]` included.
    prefixed: HashMap<String, Profile>,
    /// The `[default]` section, used when there is no `[profile default]`.
    bare_default: Option<Profile>,
}

/// What a section header opens.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Section {
    Prefixed(String),
    BareDefault,
    Other,
}

/// Where the lines being read go.
#[derive(Debug)]
struct Cursor {
    /// The section being read; `None` before the first header.
    section: Option<Section>,
    /// The last key of the section: its indentation, and whether its own
    /// value was empty (indented lines after it are then sub-properties).
    /// A line indented deeper than it continues it.
    open_key: Option<OpenKey>,
    /// The keys of the section so far, with their lines.
    keys: HashMap<String, usize>,
}

#[derive(Debug)]
struct OpenKey {
    name: String,
    indent: usize,
    sub_properties: bool,
}

/// A line of the config file that the format does not accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SyntaxError {
    /// A section header (`[profile dev]`, `[default]`, ...) appears twice.
    #[error("section [{name}] is declared a second time (first on line {first_line})")]
    DuplicateSection {
        /// The header's text between the brackets, trimmed.
        name: String,
        /// Where it was declared first.
        first_line: usize,
    },
    /// A key appears twice in one section.
    #[error("key {key:?} is set a second time in this section (first on line {first_line})")]
    DuplicateKey {
        /// The key, lowercased.
        key: String,
        /// Where it was set first.
        first_line: usize,
    },
    /// A header with no closing `]`.
    #[error("the section header has no closing `]`")]
    UnclosedHeader,
    /// A key before the first section header.
    #[error("a key appears before any section header such as [default]")]
    NoSection,
    /// A line that is neither a header, a comment nor `key = value`.
    #[error("expected `key = value`, a [section] header or a comment")]
    NotKeyValue,
}

impl ProfileFile {
    /// Parses `text`.
    ///
    /// # Errors
    ///
    /// The 1-based line and the [`SyntaxError`] of the first line the format
    /// does not accept. Any such line rejects the whole file, as in
    /// botocore, whichever profile it is in.
    pub(crate) fn parse(text: &str) -> Result<Self, (usize, SyntaxError)> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut file = Self::default();
        let mut sections: HashMap<String, usize> = HashMap::new();
        let mut cursor = Cursor {
            section: None,
            open_key: None,
            keys: HashMap::new(),
        };
        for (index, line) in universal_lines(text).enumerate() {
            let number = index + 1;
            let content = line.trim_matches(WHITESPACE);
            if content.is_empty() || content.starts_with(COMMENT) {
                continue;
            }
            let indent = line.len() - line.trim_start_matches(WHITESPACE).len();
            if let (Some(section), Some(open)) = (&cursor.section, &cursor.open_key)
                && indent > open.indent
            {
                if !open.sub_properties {
                    file.continue_value(section, &open.name, content);
                }
                continue;
            }
            if content.starts_with('[') {
                let Some(name) = header_name(content) else {
                    return Err((number, SyntaxError::UnclosedHeader));
                };
                if let Some(&first_line) = sections.get(name) {
                    let name = name.to_owned();
                    return Err((number, SyntaxError::DuplicateSection { name, first_line }));
                }
                sections.insert(name.to_owned(), number);
                let section = parse_header(content);
                // Declaring a profile creates it, even if it stays empty.
                _ = file.profile_mut(&section);
                cursor = Cursor {
                    section: Some(section),
                    open_key: None,
                    keys: HashMap::new(),
                };
                continue;
            }
            let Some(section) = &cursor.section else {
                return Err((number, SyntaxError::NoSection));
            };
            let Some((key, value)) = split_key_value(content) else {
                return Err((number, SyntaxError::NotKeyValue));
            };
            if let Some(&first_line) = cursor.keys.get(&key) {
                return Err((number, SyntaxError::DuplicateKey { key, first_line }));
            }
            cursor.keys.insert(key.clone(), number);
            let sub_properties = value.is_empty();
            if let Some(profile) = file.profile_mut(section) {
                let property = Property {
                    value,
                    line: number,
                };
                profile.insert(key.clone(), property);
            }
            cursor.open_key = Some(OpenKey {
                name: key,
                indent,
                sub_properties,
            });
        }
        Ok(file)
    }

    /// The profile called `name` (`default` for `[default]` or
    /// `[profile default]`), if the file declares it.
    pub(crate) fn profile(&self, name: &str) -> Option<&HashMap<String, Property>> {
        match self.prefixed.get(name) {
            Some(profile) => Some(profile),
            None if name == "default" => self.bare_default.as_ref(),
            None => None,
        }
    }

    /// The property `key` (lowercase) of profile `name`.
    pub(crate) fn get(&self, name: &str, key: &str) -> Option<&Property> {
        self.profile(name)?.get(key)
    }

    fn profile_mut(&mut self, section: &Section) -> Option<&mut Profile> {
        match section {
            Section::Prefixed(name) => Some(self.prefixed.entry(name.clone()).or_default()),
            Section::BareDefault => Some(self.bare_default.get_or_insert_default()),
            Section::Other => None,
        }
    }

    /// Appends an indented line to `key`'s value.
    fn continue_value(&mut self, section: &Section, key: &str, content: &str) {
        if let Some(property) = self
            .profile_mut(section)
            .and_then(|profile| profile.get_mut(key))
        {
            property.value.push('\n');
            property.value.push_str(content);
        }
    }
}

/// The lines of `text`, split at LF, CRLF or a lone CR (Python's universal
/// newlines, which botocore reads the file with).
fn universal_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\n', '\r']) {
            Some(at) => {
                let skip = if current[at..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&current[at + skip..]).filter(|next| !next.is_empty());
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// The text between `[` and the first `]` of a header line, trimmed; `None`
/// when there is no `]`.
fn header_name(content: &str) -> Option<&str> {
    let (inner, _) = content[1..].split_once(']')?;
    Some(inner.trim_matches(WHITESPACE))
}

/// `key = value` (or `key: value`, at whichever delimiter comes first), with
/// an inline comment removed: the lowercased key and the trimmed value.
fn split_key_value(content: &str) -> Option<(String, String)> {
    let content = strip_inline_comment(content);
    let at = content.find(['=', ':'])?;
    let key = content[..at].trim_matches(WHITESPACE).to_ascii_lowercase();
    if key.is_empty() {
        return None;
    }
    let value = content[at + 1..].trim_matches(WHITESPACE).to_owned();
    Some((key, value))
}

/// Classifies a header line (it starts with `[`, leading whitespace removed).
fn parse_header(line: &str) -> Section {
    let Some((inner, rest)) = line[1..].split_once(']') else {
        return Section::Other;
    };
    let rest = rest.trim_matches(WHITESPACE);
    if !(rest.is_empty() || rest.starts_with(COMMENT)) {
        return Section::Other;
    }
    let inner = inner.trim_matches(WHITESPACE);
    match inner.split_once(WHITESPACE) {
        None if inner == "default" => Section::BareDefault,
        Some(("profile", name)) => {
            let name = name.trim_matches(WHITESPACE);
            if name.is_empty() || name.contains(WHITESPACE) {
                Section::Other
            } else {
                Section::Prefixed(name.to_owned())
            }
        }
        _ => Section::Other,
    }
}

/// Cuts `value` at the first `#` or `;` that follows a space or tab.
fn strip_inline_comment(value: &str) -> &str {
    let bytes = value.as_bytes();
    for (index, byte) in bytes.iter().enumerate().skip(1) {
        if matches!(byte, b'#' | b';') && matches!(bytes[index - 1], b' ' | b'\t') {
            return value[..index].trim_end_matches(WHITESPACE);
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value<'a>(file: &'a ProfileFile, profile: &str, key: &str) -> Option<(&'a str, usize)> {
        file.get(profile, key).map(|p| (p.value.as_str(), p.line))
    }

    #[test]
    fn default_and_named_profiles_with_lines() {
        let file = ProfileFile::parse(
            "[default]\nretry_mode = standard\n\n[profile dev]\nmax_attempts=7\n",
        )
        .unwrap();
        assert_eq!(value(&file, "default", "retry_mode"), Some(("standard", 2)));
        assert_eq!(value(&file, "dev", "max_attempts"), Some(("7", 5)));
        assert_eq!(value(&file, "dev", "retry_mode"), None);
        assert_eq!(value(&file, "prod", "retry_mode"), None);
    }

    #[test]
    fn header_forms() {
        assert_eq!(parse_header("[default]"), Section::BareDefault);
        assert_eq!(parse_header("[ default ]"), Section::BareDefault);
        assert_eq!(parse_header("[default] # main"), Section::BareDefault);
        assert_eq!(
            parse_header("[profile dev]"),
            Section::Prefixed("dev".into())
        );
        assert_eq!(
            parse_header("[profile \t dev  ]"),
            Section::Prefixed("dev".into())
        );
        assert_eq!(
            parse_header("[profile default]"),
            Section::Prefixed("default".into())
        );
        assert_eq!(
            parse_header("[profile Dev]"),
            Section::Prefixed("Dev".into())
        );
        for other in [
            "[dev]",
            "[profile]",
            "[profile a b]",
            "[profiledev]",
            "[sso-session my-sso]",
            "[services local]",
            "[default",
            "[default] junk",
            "[]",
        ] {
            assert_eq!(parse_header(other), Section::Other, "{other}");
        }
    }

    #[test]
    fn prefixed_default_replaces_bare_default() {
        let file = ProfileFile::parse(
            "[default]\nmax_attempts = 1\nretry_mode = legacy\n[profile default]\nmax_attempts = 2\n",
        ).unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("2", 5)));
        assert_eq!(value(&file, "default", "retry_mode"), None);
    }

    #[test]
    fn keys_are_case_insensitive_values_and_names_are_not() {
        let file =
            ProfileFile::parse("[profile Dev]\nMAX_Attempts = 4\nretry_mode = Adaptive\n").unwrap();
        assert_eq!(value(&file, "Dev", "max_attempts"), Some(("4", 2)));
        assert_eq!(value(&file, "Dev", "retry_mode"), Some(("Adaptive", 3)));
        assert_eq!(value(&file, "dev", "max_attempts"), None);
    }

    #[test]
    fn comments() {
        let file = ProfileFile::parse(
            "# top\n; top\n[default] ; header comment\n  # indented\nretry_mode = adaptive # why\nmax_attempts = 3;not a comment\nx = a#b ;c\n",
        ).unwrap();
        assert_eq!(value(&file, "default", "retry_mode"), Some(("adaptive", 5)));
        assert_eq!(
            value(&file, "default", "max_attempts"),
            Some(("3;not a comment", 6))
        );
        assert_eq!(value(&file, "default", "x"), Some(("a#b", 7)));
        let file = ProfileFile::parse("[default]\nretry_mode = # nothing\n").unwrap();
        assert_eq!(value(&file, "default", "retry_mode"), Some(("", 2)));
    }

    #[test]
    fn sub_properties_stay_under_their_key() {
        let file = ProfileFile::parse(
            "[default]\ns3 =\n  max_attempts = 20\n  retry_mode = legacy\nmax_attempts = 2\n",
        )
        .unwrap();
        assert_eq!(value(&file, "default", "s3"), Some(("", 2)));
        assert_eq!(value(&file, "default", "max_attempts"), Some(("2", 5)));
        assert_eq!(value(&file, "default", "retry_mode"), None);
    }

    #[test]
    fn continuation_lines_join_the_value() {
        let file = ProfileFile::parse("[default]\nmax_attempts = 5\n\t6\n").unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("5\n6", 2)));
    }

    #[test]
    fn crlf_and_bom() {
        let file = ProfileFile::parse("\u{feff}[default]\r\nmax_attempts = 9\r\n\r\n").unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("9", 2)));
    }

    fn error(text: &str) -> (usize, SyntaxError) {
        ProfileFile::parse(text).unwrap_err()
    }

    #[test]
    fn duplicates_are_rejected_with_both_lines() {
        assert_eq!(
            error("[profile a]\nmax_attempts = 1\nmax_attempts = 2\n"),
            (
                3,
                SyntaxError::DuplicateKey {
                    key: "max_attempts".into(),
                    first_line: 2
                }
            )
        );
        assert_eq!(
            error("[profile a]\nMAX_ATTEMPTS = 1\nmax_attempts: 2\n"),
            (
                3,
                SyntaxError::DuplicateKey {
                    key: "max_attempts".into(),
                    first_line: 2
                }
            )
        );
        assert_eq!(
            error("[profile a]\n[profile b]\n[profile a]\nretry_mode = legacy\n"),
            (
                3,
                SyntaxError::DuplicateSection {
                    name: "profile a".into(),
                    first_line: 1
                }
            )
        );
        // `[default]` and `[profile default]` are two sections.
        let file = ProfileFile::parse("[default]\n[profile default]\n").unwrap();
        assert!(file.profile("default").is_some());
    }

    #[test]
    fn other_sections_are_skipped_and_junk_is_rejected() {
        let file = ProfileFile::parse(
            "[sso-session s]\nmax_attempts = 0\n[services x]\ndynamodb =\n  max_attempts = 0\n[profile a b]\nmax_attempts = 0\n[default]\nmax_attempts = 3\n",
        )
        .unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("3", 9)));
        assert_eq!(file.profile("default").map(HashMap::len), Some(1));
        assert_eq!(
            error("orphan = 1\n[default]\n"),
            (1, SyntaxError::NoSection)
        );
        assert_eq!(
            error("[default]\nno equals sign\n"),
            (2, SyntaxError::NotKeyValue)
        );
        assert_eq!(
            error("[default]\n= no key\n"),
            (2, SyntaxError::NotKeyValue)
        );
        assert_eq!(
            error("[profile p\nmax_attempts = 0\n"),
            (1, SyntaxError::UnclosedHeader)
        );
    }

    #[test]
    fn indented_keys_and_headers_are_read() {
        // Issue #8: `[default]\n  max_attempts = 4` gave 3 attempts.
        let file =
            ProfileFile::parse("[default]\n  max_attempts = 4\n  retry_mode = adaptive\n").unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("4", 2)));
        assert_eq!(value(&file, "default", "retry_mode"), Some(("adaptive", 3)));
        let file = ProfileFile::parse("  [profile dev]\nmax_attempts = 6\n").unwrap();
        assert_eq!(value(&file, "dev", "max_attempts"), Some(("6", 2)));
        // Deeper than the key before it: a continuation, as before.
        let file =
            ProfileFile::parse("[default]\n  s3 =\n    max_attempts = 9\n  max_attempts = 2\n")
                .unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("2", 4)));
    }

    #[test]
    fn cr_only_line_ends_and_colons() {
        let file = ProfileFile::parse("[default]\rmax_attempts = 4\rretry_mode: legacy\r").unwrap();
        assert_eq!(value(&file, "default", "max_attempts"), Some(("4", 2)));
        assert_eq!(value(&file, "default", "retry_mode"), Some(("legacy", 3)));
        let lines: Vec<_> = universal_lines("a\r\nb\rc\n\nd").collect();
        assert_eq!(lines, ["a", "b", "c", "", "d"]);
    }

    #[test]
    fn declared_empty_profile_exists() {
        let file = ProfileFile::parse("[profile empty]\n").unwrap();
        assert!(file.profile("empty").is_some());
    }

    #[test]
    fn inline_comment_rules() {
        assert_eq!(strip_inline_comment("a # b"), "a");
        assert_eq!(strip_inline_comment("a\t;b"), "a");
        assert_eq!(strip_inline_comment("a#b"), "a#b");
        assert_eq!(strip_inline_comment("#a"), "#a");
        assert_eq!(strip_inline_comment("k = #a"), "k =");
        assert_eq!(strip_inline_comment(""), "");
    }
}
