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
//! format is small, so this module implements it directly (about a hundred
//! lines) and never fails: lines it cannot make sense of are skipped.
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
    section: Section,
    /// The key that indented lines continue, and whether they are
    /// sub-properties (the key's own value was empty).
    open_key: Option<(String, bool)>,
}

impl ProfileFile {
    /// Parses `text`. Never fails: unusable lines are skipped.
    pub(crate) fn parse(text: &str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut file = Self::default();
        let mut cursor = Cursor {
            section: Section::Other,
            open_key: None,
        };
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let content = line.trim_matches(WHITESPACE);
            if content.is_empty() || content.starts_with(COMMENT) {
                continue;
            }
            if line.starts_with('[') {
                cursor.section = parse_header(line);
                cursor.open_key = None;
                // Declaring a profile creates it, even if it stays empty.
                _ = file.profile_mut(&cursor.section);
            } else if line.starts_with(WHITESPACE) {
                file.continue_value(&cursor, content);
            } else {
                cursor.open_key = file.insert_property(&cursor.section, content, number);
            }
        }
        file
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

    /// Records `key = value`; returns the key that indented lines continue.
    fn insert_property(
        &mut self,
        section: &Section,
        content: &str,
        line: usize,
    ) -> Option<(String, bool)> {
        let (key, value) = strip_inline_comment(content).split_once('=')?;
        let key = key.trim_matches(WHITESPACE).to_ascii_lowercase();
        if key.is_empty() {
            return None;
        }
        let value = value.trim_matches(WHITESPACE).to_owned();
        let sub_properties = value.is_empty();
        let profile = self.profile_mut(section)?;
        profile.insert(key.clone(), Property { value, line });
        Some((key, sub_properties))
    }

    /// Appends an indented line to the open key's value, unless it is a
    /// sub-property (which belongs to that key, not to the profile).
    fn continue_value(&mut self, cursor: &Cursor, content: &str) {
        let Some((key, false)) = &cursor.open_key else {
            return;
        };
        if let Some(property) = self
            .profile_mut(&cursor.section)
            .and_then(|profile| profile.get_mut(key))
        {
            property.value.push('\n');
            property.value.push_str(content);
        }
    }
}

/// Classifies a header line (it starts with `[`).
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
        );
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
        );
        assert_eq!(value(&file, "default", "max_attempts"), Some(("2", 5)));
        assert_eq!(value(&file, "default", "retry_mode"), None);
    }

    #[test]
    fn keys_are_case_insensitive_values_and_names_are_not() {
        let file = ProfileFile::parse("[profile Dev]\nMAX_Attempts = 4\nretry_mode = Adaptive\n");
        assert_eq!(value(&file, "Dev", "max_attempts"), Some(("4", 2)));
        assert_eq!(value(&file, "Dev", "retry_mode"), Some(("Adaptive", 3)));
        assert_eq!(value(&file, "dev", "max_attempts"), None);
    }

    #[test]
    fn comments() {
        let file = ProfileFile::parse(
            "# top\n; top\n[default] ; header comment\n  # indented\nretry_mode = adaptive # why\nmax_attempts = 3;not a comment\nx = a#b ;c\n",
        );
        assert_eq!(value(&file, "default", "retry_mode"), Some(("adaptive", 5)));
        assert_eq!(
            value(&file, "default", "max_attempts"),
            Some(("3;not a comment", 6))
        );
        assert_eq!(value(&file, "default", "x"), Some(("a#b", 7)));
        let file = ProfileFile::parse("[default]\nretry_mode = # nothing\n");
        assert_eq!(value(&file, "default", "retry_mode"), Some(("", 2)));
    }

    #[test]
    fn sub_properties_stay_under_their_key() {
        let file = ProfileFile::parse(
            "[default]\ns3 =\n  max_attempts = 20\n  retry_mode = legacy\nmax_attempts = 2\n",
        );
        assert_eq!(value(&file, "default", "s3"), Some(("", 2)));
        assert_eq!(value(&file, "default", "max_attempts"), Some(("2", 5)));
        assert_eq!(value(&file, "default", "retry_mode"), None);
    }

    #[test]
    fn continuation_lines_join_the_value() {
        let file = ProfileFile::parse("[default]\nmax_attempts = 5\n\t6\n");
        assert_eq!(value(&file, "default", "max_attempts"), Some(("5\n6", 2)));
    }

    #[test]
    fn crlf_and_bom() {
        let file = ProfileFile::parse("\u{feff}[default]\r\nmax_attempts = 9\r\n\r\n");
        assert_eq!(value(&file, "default", "max_attempts"), Some(("9", 2)));
    }

    #[test]
    fn duplicates_later_wins() {
        let file = ProfileFile::parse(
            "[profile a]\nmax_attempts = 1\nmax_attempts = 2\n[profile b]\n[profile a]\nretry_mode = legacy\n",
        );
        assert_eq!(value(&file, "a", "max_attempts"), Some(("2", 3)));
        assert_eq!(value(&file, "a", "retry_mode"), Some(("legacy", 6)));
    }

    #[test]
    fn other_sections_and_junk_are_skipped() {
        let file = ProfileFile::parse(
            "orphan = 1\n[sso-session s]\nmax_attempts = 0\n[services x]\ndynamodb =\n  max_attempts = 0\n[profile p\nmax_attempts = 0\n[default]\nno equals sign\n= no key\nmax_attempts = 3\n",
        );
        assert_eq!(value(&file, "default", "max_attempts"), Some(("3", 12)));
        assert_eq!(file.profile("p"), None);
        assert_eq!(file.profile("default").map(HashMap::len), Some(1));
    }

    #[test]
    fn declared_empty_profile_exists() {
        let file = ProfileFile::parse("[profile empty]\n");
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
