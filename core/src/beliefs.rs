//! The derived view: which fact of a subject and predicate is current, which
//! contradict, and which memories are exact duplicates. A pure function of
//! document content (memories and edges), so every node with the same
//! document heads derives the same view, whatever order changes came in.
//!
//! - A fact is **superseded** when a live memory has a `supersedes` edge to
//!   it; it became invalid when the first of those became valid.
//! - Of the facts of one (subject, predicate) that nothing supersedes, those
//!   with the same normalised object are one fact: the earliest valid (then
//!   the smallest id) stands for them, the others are its **duplicates**
//!   (two devices that stored the same fact apart).
//! - Of the standing facts left, the one valid the latest (then the largest
//!   id) is **current**; the others are **contested**: they contradict the
//!   current one, typically because two devices replaced the same old fact
//!   differently while apart. That is for a single-valued predicate; for a
//!   multi-valued one every standing value is current. Which one a group's
//!   predicate is, is what its latest standing fact recorded when it was
//!   stored (so a change of setting takes effect with the next fact, and
//!   every node reads the same answer from the document).
//! - Free text of one namespace and kind with the same normalised content
//!   is a **duplicate** of the oldest (then smallest id) such memory that
//!   nothing superseded or corrected.

use std::collections::{BTreeMap, BTreeSet};

use crate::{Timestamp, predicate::Cardinality};

/// A fact as the derived view sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactNode {
    /// Memory id.
    pub id: String,
    /// What the fact is about: its subject's canonical entity, or its
    /// normalised subject when it has no entity.
    pub subject_key: String,
    /// Normalised predicate.
    pub predicate: String,
    /// Its object, normalised: equal objects are one fact.
    pub object_key: String,
    /// When it became valid.
    pub t_valid: Timestamp,
    /// Its predicate's cardinality, as recorded with it.
    pub cardinality: Cardinality,
}

/// What the derived view says of one fact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactState {
    /// The current fact of its subject and predicate.
    pub current: bool,
    /// Live facts that supersede it, sorted.
    pub superseded_by: Vec<String>,
    /// When it stopped being valid (the earliest superseder's validity).
    pub t_invalid: Option<Timestamp>,
    /// Facts it contradicts: for a contested fact, the current one and the
    /// other contested ones; for a current fact, the contested ones.
    pub contradicts: Vec<String>,
    /// The standing fact with the same object this one duplicates.
    pub duplicate_of: Option<String>,
}

/// Derives the state of every fact in `facts` (the live facts of one or more
/// subject-predicate groups) from the `supersedes` edges `(from, to)`.
/// Edges from memories not in `facts` (forgotten ones, or memories that are
/// not facts) count only when `live` says the source is alive.
pub fn derive_facts(
    facts: &[FactNode],
    supersedes: &[(String, String)],
    live: &dyn Fn(&str) -> Option<Timestamp>,
) -> BTreeMap<String, FactState> {
    let by_id: BTreeMap<&str, &FactNode> =
        facts.iter().map(|fact| (fact.id.as_str(), fact)).collect();
    let mut states: BTreeMap<String, FactState> =
        facts.iter().map(|fact| (fact.id.clone(), FactState::default())).collect();
    for (from, to) in supersedes {
        if from == to {
            continue;
        }
        let Some(state) = states.get_mut(to) else { continue };
        let valid_from = match by_id.get(from.as_str()) {
            Some(fact) => Some(fact.t_valid),
            None => live(from),
        };
        let Some(valid_from) = valid_from else { continue };
        if !state.superseded_by.contains(from) {
            state.superseded_by.push(from.clone());
        }
        state.t_invalid = Some(state.t_invalid.map_or(valid_from, |at| at.min(valid_from)));
    }
    let mut groups: BTreeMap<(&str, &str), Vec<&FactNode>> = BTreeMap::new();
    for fact in facts {
        if states[&fact.id].superseded_by.is_empty() {
            groups.entry((&fact.subject_key, &fact.predicate)).or_default().push(fact);
        }
    }
    for standing in groups.values() {
        // Equal objects are one fact: the earliest stands for the others.
        let mut by_object: BTreeMap<&str, &FactNode> = BTreeMap::new();
        for fact in standing {
            let entry = by_object.entry(&fact.object_key).or_insert(fact);
            if (fact.t_valid, &fact.id) < (entry.t_valid, &entry.id) {
                *entry = fact;
            }
        }
        for fact in standing {
            let first = by_object[fact.object_key.as_str()];
            if first.id != fact.id {
                states.get_mut(&fact.id).expect("every fact has a state").duplicate_of =
                    Some(first.id.clone());
            }
        }
        let distinct: Vec<&FactNode> = by_object.values().copied().collect();
        let latest =
            distinct.iter().max_by(|a, b| a.t_valid.cmp(&b.t_valid).then_with(|| a.id.cmp(&b.id)));
        let many = latest.is_some_and(|fact| fact.cardinality == Cardinality::Many);
        let current = latest.map(|fact| fact.id.clone());
        let ids: BTreeSet<&String> = distinct.iter().map(|fact| &fact.id).collect();
        for fact in &distinct {
            let state = states.get_mut(&fact.id).expect("every fact has a state");
            if many {
                state.current = true;
                continue;
            }
            state.current = Some(&fact.id) == current.as_ref();
            state.contradicts =
                ids.iter().filter(|id| ***id != fact.id).map(|id| (*id).clone()).collect();
        }
    }
    for state in states.values_mut() {
        state.superseded_by.sort();
    }
    states
}

/// A memory as duplicate detection sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateNode {
    /// Memory id.
    pub id: String,
    /// Namespace, kind and normalised content, hashed.
    pub key: String,
    /// When it was stored.
    pub created_at: Timestamp,
}

/// For every memory that duplicates an older one, the one that stands for
/// its group (the oldest, then the smallest id).
pub fn duplicates(memories: &[DuplicateNode]) -> BTreeMap<String, String> {
    let mut groups: BTreeMap<&str, Vec<&DuplicateNode>> = BTreeMap::new();
    for memory in memories {
        groups.entry(&memory.key).or_default().push(memory);
    }
    let mut duplicate_of = BTreeMap::new();
    for group in groups.values().filter(|group| group.len() > 1) {
        let Some(first) = group
            .iter()
            .min_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)))
        else {
            continue;
        };
        for memory in group {
            if memory.id != first.id {
                duplicate_of.insert(memory.id.clone(), first.id.clone());
            }
        }
    }
    duplicate_of
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: &str, subject: &str, t_valid: i64) -> FactNode {
        FactNode {
            id: id.into(),
            subject_key: subject.into(),
            predicate: "version".into(),
            object_key: id.into(),
            t_valid: Timestamp(t_valid),
            cardinality: Cardinality::One,
        }
    }

    fn edges(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(from, to)| ((*from).to_owned(), (*to).to_owned())).collect()
    }

    fn nobody(_: &str) -> Option<Timestamp> {
        None
    }

    #[test]
    fn a_newer_fact_supersedes_and_invalidates_the_old_one() {
        let facts = [fact("p3211", "api", 1), fact("p8080", "api", 2)];
        let states = derive_facts(&facts, &edges(&[("p8080", "p3211")]), &nobody);
        assert!(states["p8080"].current);
        assert!(!states["p3211"].current);
        assert_eq!(states["p3211"].superseded_by, vec!["p8080"]);
        assert_eq!(states["p3211"].t_invalid, Some(Timestamp(2)));
        assert!(states["p8080"].contradicts.is_empty());
    }

    #[test]
    fn concurrent_replacements_contradict_and_the_latest_is_current_everywhere() {
        // Two devices each replaced postgres 14 while apart.
        let facts = [fact("pg14", "db", 1), fact("pg15", "db", 5), fact("pg16", "db", 7)];
        let supersedes = edges(&[("pg15", "pg14"), ("pg16", "pg14")]);
        let states = derive_facts(&facts, &supersedes, &nobody);
        assert!(states["pg16"].current);
        assert!(!states["pg15"].current);
        assert_eq!(states["pg15"].contradicts, vec!["pg16"]);
        assert_eq!(states["pg16"].contradicts, vec!["pg15"]);
        assert_eq!(states["pg14"].superseded_by, vec!["pg15", "pg16"]);
        assert_eq!(states["pg14"].t_invalid, Some(Timestamp(5)));
        // The same answer whatever the order of facts and edges.
        let mut reversed_facts = facts.to_vec();
        reversed_facts.reverse();
        let mut reversed_edges = supersedes.clone();
        reversed_edges.reverse();
        assert_eq!(derive_facts(&reversed_facts, &reversed_edges, &nobody), states);
    }

    #[test]
    fn equal_validity_is_broken_by_id_and_groups_are_separate() {
        let facts = [fact("b", "db", 3), fact("a", "db", 3), fact("c", "cache", 1)];
        let states = derive_facts(&facts, &[], &nobody);
        assert!(states["b"].current && !states["a"].current);
        assert!(states["c"].current && states["c"].contradicts.is_empty());
    }

    #[test]
    fn an_edge_from_a_forgotten_memory_no_longer_supersedes() {
        let facts = [fact("old", "db", 1)];
        let states = derive_facts(&facts, &edges(&[("gone", "old")]), &nobody);
        assert!(states["old"].current);
        // An edge from a live memory outside the fact list (free text) counts.
        let live = |id: &str| (id == "note").then_some(Timestamp(9));
        let states = derive_facts(&facts, &edges(&[("note", "old")]), &live);
        assert_eq!(states["old"].t_invalid, Some(Timestamp(9)));
        assert!(!states["old"].current);
        // An edge to itself means nothing.
        assert!(derive_facts(&facts, &edges(&[("old", "old")]), &nobody)["old"].current);
    }

    #[test]
    fn the_same_fact_stored_twice_is_one_fact_not_a_contradiction() {
        let same = |id: &str, t_valid: i64| FactNode {
            object_key: "postgres 16".into(),
            ..fact(id, "db", t_valid)
        };
        let facts = [same("laptop-copy", 4), same("desktop-copy", 3), fact("old", "db", 1)];
        let states = derive_facts(
            &facts,
            &edges(&[("laptop-copy", "old"), ("desktop-copy", "old")]),
            &nobody,
        );
        assert_eq!(states["laptop-copy"].duplicate_of.as_deref(), Some("desktop-copy"));
        assert!(states["desktop-copy"].current);
        assert!(states["desktop-copy"].contradicts.is_empty());
        assert!(!states["laptop-copy"].current);
        assert!(states["laptop-copy"].contradicts.is_empty());
    }

    #[test]
    fn exact_duplicates_collapse_into_the_oldest() {
        let node = |id: &str, key: &str, at: i64| DuplicateNode {
            id: id.into(),
            key: key.into(),
            created_at: Timestamp(at),
        };
        let found = duplicates(&[
            node("m2", "k", 5),
            node("m1", "k", 5),
            node("m0", "j", 1),
            node("m3", "k", 9),
        ]);
        assert_eq!(found, BTreeMap::from([("m2".into(), "m1".into()), ("m3".into(), "m1".into())]));
    }

    #[test]
    fn a_multi_valued_group_keeps_every_value_current() {
        let many = |id: &str, t_valid: i64| FactNode {
            cardinality: Cardinality::Many,
            ..fact(id, "api", t_valid)
        };
        let facts = [many("tokio", 1), many("serde", 2), many("axum", 3)];
        let states = derive_facts(&facts, &[], &nobody);
        for id in ["tokio", "serde", "axum"] {
            assert!(states[id].current && states[id].contradicts.is_empty(), "{id}");
        }
        // An explicit replacement still replaces; the same value still collapses.
        let twice = FactNode { object_key: "serde".into(), ..many("serde-again", 4) };
        let facts = [many("tokio", 1), many("serde", 2), many("axum", 3), twice];
        let states = derive_facts(&facts, &edges(&[("axum", "tokio")]), &nobody);
        assert_eq!(states["tokio"].superseded_by, vec!["axum"]);
        assert_eq!(states["serde-again"].duplicate_of.as_deref(), Some("serde"));
        assert!(states["serde"].current && states["axum"].current);
        // The latest standing fact says which the group is: a value stored
        // as single-valued after the setting changed makes the others contested.
        let facts = [many("tokio", 1), many("serde", 2), fact("axum", "api", 3)];
        let states = derive_facts(&facts, &[], &nobody);
        assert!(states["axum"].current && !states["serde"].current);
        assert_eq!(states["axum"].contradicts, vec!["serde", "tokio"]);
    }
}
