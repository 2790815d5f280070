//! Rust names for Smithy names: types keep the shape's name (sanitized only
//! when it is not a Rust identifier), members and operations become
//! snake_case, enum members UpperCamelCase; keywords are escaped.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Index;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Keywords that `r#` can escape (strict and reserved, all editions).
const RAW_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers: they get a trailing `_`.
const UNESCAPABLE: &[&str] = &["self", "Self", "super", "crate", "_"];

/// The name of a shape's Rust type: the shape's own name when it is a Rust
/// identifier, else with every other character replaced by `_` (and a
/// leading `_` before a digit); keywords escaped.
pub(crate) fn type_name(shape_name: &str) -> String {
    escape(identifier(shape_name))
}

/// The Rust field name of a member: its snake_case, keywords escaped
/// (`type` → `r#type`).
pub(crate) fn field_name(member: &str) -> String {
    escape(identifier(&member.to_snake_case()))
}

/// The field names of a structure's members, in order: each member's
/// [`field_name`], and where two members meet on one name (`fooBar` and
/// `foo_bar`, `self` and `Self`) or a member takes a name in `reserved`,
/// the later member gets the first free `name2`, `name3`, ....
pub(crate) fn field_names<'a>(
    members: impl IntoIterator<Item = &'a str>,
    reserved: &[&str],
) -> NameList {
    let names: NameList = members.into_iter().map(field_name).collect();
    if all_distinct(&names, reserved) {
        return names;
    }
    // Names are claimed in order. The members that keep their own name are
    // remembered by borrowing it from `names`; the others' new names are set
    // once all are claimed.
    let mut renamed: Vec<(usize, String)> = Vec::new();
    {
        let mut own: HashSet<&str> = HashSet::with_capacity(names.len());
        let mut others: HashSet<String> = reserved.iter().map(|&r| r.to_owned()).collect();
        for (index, name) in names.iter().enumerate() {
            let taken = |n: &str| own.contains(unraw(n)) || others.contains(unraw(n));
            if !taken(name) {
                own.insert(unraw(name));
                continue;
            }
            let new = fresh(name, taken);
            others.insert(unraw(&new).to_owned());
            renamed.push((index, new));
        }
    }
    let mut renamed = renamed.into_iter().peekable();
    names
        .iter()
        .enumerate()
        .map(
            |(index, name)| match renamed.next_if(|(at, _)| *at == index) {
                Some((_, new)) => Cow::Owned(new),
                None => Cow::Borrowed(name),
            },
        )
        .collect()
}

/// Whether no two of `names` are one name (compared without `r#`) and none
/// is `reserved`, so that no member is renamed: checked by sorting their
/// positions, a few bytes a name where a set of them costs far more.
fn all_distinct(names: &NameList, reserved: &[&str]) -> bool {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_unstable_by(|&a, &b| unraw(&names[a]).cmp(unraw(&names[b])));
    let repeated = order
        .windows(2)
        .any(|pair| unraw(&names[pair[0]]) == unraw(&names[pair[1]]));
    !repeated && names.iter().all(|name| !reserved.contains(&unraw(name)))
}

/// Names in order, held in one string: for a structure of many members, one
/// allocation for all its field names rather than one each.
#[derive(Debug, Default)]
pub(crate) struct NameList {
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<usize>,
}

impl NameList {
    fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }

    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|index| &self[index])
    }
}

impl Index<usize> for NameList {
    type Output = str;

    fn index(&self, index: usize) -> &str {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.text[start..self.ends[index]]
    }
}

impl<S: AsRef<str>> FromIterator<S> for NameList {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Self {
        let mut list = Self::default();
        for name in names {
            list.push(name.as_ref());
        }
        list.shrink_to_fit();
        list
    }
}

/// The module name of an operation: its snake_case, keywords escaped.
pub(crate) fn module_name(operation: &str) -> String {
    field_name(operation)
}

/// The variant name of an enum member or union member: its UpperCamelCase.
pub(crate) fn variant_name(member: &str) -> String {
    let camel = member.to_upper_camel_case();
    let camel = if camel.is_empty() {
        // A name made only of separators (a value such as "-").
        "Value".to_owned()
    } else {
        camel
    };
    escape(identifier(&camel))
}

/// `name` with characters that cannot be in an identifier replaced by `_`,
/// prefixed with `_` when it would start with a digit or be empty.
fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn escape(name: String) -> String {
    if UNESCAPABLE.contains(&name.as_str()) {
        format!("{name}_")
    } else if RAW_KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// The name without a raw identifier's `r#`, to compare or to derive other
/// names from.
pub(crate) fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// `base`, or `base2`, `base3`, ... : the first that `taken` does not hold.
pub(crate) fn fresh(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_owned();
    }
    (2..)
        .map(|n| format!("{}{n}", unraw(base)))
        .find(|candidate| !taken(candidate))
        .expect("an unused name exists")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_keep_their_names_unless_they_are_not_identifiers() {
        assert_eq!(type_name("QueueDoesNotExist"), "QueueDoesNotExist");
        assert_eq!(type_name("KMSAccessDenied"), "KMSAccessDenied");
        assert_eq!(type_name("Foo_bar"), "Foo_bar");
        assert_eq!(type_name("Self"), "Self_");
        assert_eq!(type_name("3D"), "_3D");
        assert_eq!(type_name("a-b.c"), "a_b_c");
    }

    #[test]
    fn members_are_snake_case_with_keywords_escaped() {
        assert_eq!(field_name("MessageId"), "message_id");
        assert_eq!(field_name("SQSQueueURL"), "sqs_queue_url");
        assert_eq!(field_name("type"), "r#type");
        assert_eq!(field_name("Type"), "r#type");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("S3Key"), "s3_key");
        assert_eq!(module_name("ListQueues"), "list_queues");
        assert_eq!(module_name("Match"), "r#match");
    }

    #[test]
    fn enum_members_are_upper_camel_case() {
        assert_eq!(variant_name("SHOULD_DO"), "ShouldDo");
        assert_eq!(variant_name("us-east-1"), "UsEast1");
        assert_eq!(variant_name("1.0"), "_10");
        assert_eq!(variant_name("-"), "Value");
        assert_eq!(variant_name("self"), "Self_");
    }

    #[test]
    fn members_meeting_on_one_field_name_are_numbered_in_order() {
        let fields = field_names(
            ["fooBar", "foo_bar", "message", "Message", "self", "Self"],
            &[],
        );
        assert_eq!(
            fields.iter().collect::<Vec<_>>(),
            [
                "foo_bar", "foo_bar2", "message", "message2", "self_", "self_2"
            ]
        );
        assert_eq!(
            field_names(["meta", "type"], &["meta"])
                .iter()
                .collect::<Vec<_>>(),
            ["meta2", "r#type"]
        );
        assert_eq!(
            field_names(["fooBar", "type", "Baz"], &["meta"])
                .iter()
                .collect::<Vec<_>>(),
            ["foo_bar", "r#type", "baz"]
        );
    }

    #[test]
    fn fresh_names_skip_taken_ones() {
        let taken = ["Unhandled", "Unhandled2"];
        assert_eq!(fresh("Unhandled", |n| taken.contains(&n)), "Unhandled3");
        assert_eq!(fresh("Other", |n| taken.contains(&n)), "Other");
    }
}
