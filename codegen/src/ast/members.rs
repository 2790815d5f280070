//! A shape's `members` as read: a list in model order rather than a map,
//! so that a structure of many members is read with little more memory
//! than its members take, and becomes the model's list of members in place.

use std::fmt;

use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

use super::RawMember;

/// Members by name, in model order; a name given twice keeps its first
/// place and takes the later declaration, as reading the JSON object into a
/// map would.
#[derive(Default)]
pub(super) struct RawMembers(pub(super) Vec<(String, RawMember)>);

impl<'de> Deserialize<'de> for RawMembers {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct MembersVisitor;

        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = RawMembers;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawMembers, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, RawMember>()? {
                    members.push(entry);
                }
                Ok(RawMembers(without_repeats(members)))
            }
        }

        de.deserialize_map(MembersVisitor)
    }
}

/// `members` with each name once. Names are compared through a sorted list
/// of indices (a few bytes a member, not a copy of each name); the rare list
/// with a repeated name goes through a map.
fn without_repeats(members: Vec<(String, RawMember)>) -> Vec<(String, RawMember)> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_unstable_by(|&a, &b| members[a].0.cmp(&members[b].0));
    let repeated = order
        .windows(2)
        .any(|pair| members[pair[0]].0 == members[pair[1]].0);
    if !repeated {
        return members;
    }
    drop(order);
    let map: IndexMap<String, RawMember> = members.into_iter().collect();
    map.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_given_twice_keeps_its_first_place_and_the_later_declaration() {
        let members: RawMembers = serde_json::from_str(
            r#"{"b": {"target": "ex#One"}, "a": {"target": "ex#A"}, "b": {"target": "ex#Two"}}"#,
        )
        .expect("members");
        let read: Vec<(&str, &str)> = members
            .0
            .iter()
            .map(|(name, m)| (name.as_str(), m.target.as_str()))
            .collect();
        assert_eq!(read, [("b", "ex#Two"), ("a", "ex#A")]);
    }
}
