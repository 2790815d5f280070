//! A shape's `members` as read: a list in model order rather than a map,
//! so that a structure of many members is read with little more memory
//! than its members take, and becomes the model's list of members in place.
//! Members naming the same target share one copy of it.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

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
                let mut targets: HashSet<Arc<str>> = HashSet::new();
                while let Some((name, mut member)) = map.next_entry::<String, RawMember>()? {
                    member.target = shared(&mut targets, member.target);
                    members.push((name, member));
                }
                Ok(RawMembers(without_repeats(members)))
            }
        }

        de.deserialize_map(MembersVisitor)
    }
}

/// `target`, or the equal one already in `targets`: the members of a shape
/// share each target they name.
fn shared(targets: &mut HashSet<Arc<str>>, target: Arc<str>) -> Arc<str> {
    if let Some(known) = targets.get(&target) {
        return Arc::clone(known);
    }
    targets.insert(Arc::clone(&target));
    target
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
            .map(|(name, m)| (name.as_str(), &*m.target))
            .collect();
        assert_eq!(read, [("b", "ex#Two"), ("a", "ex#A")]);
    }

    #[test]
    fn members_naming_one_target_share_it() {
        let members: RawMembers = serde_json::from_str(
            r#"{"a": {"target": "ex#T"}, "b": {"target": "ex#U"}, "c": {"target": "ex#T"}}"#,
        )
        .expect("members");
        let [a, b, c] = [0, 1, 2].map(|i| &members.0[i].1.target);
        assert!(Arc::ptr_eq(a, c));
        assert!(!Arc::ptr_eq(a, b));
        assert_eq!((&**a, &**b), ("ex#T", "ex#U"));
    }
}
