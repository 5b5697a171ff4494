//! The knowledge graph as agents write and walk it: relation types, and a
//! bounded walk out from one node.
//!
//! A *relation* joins two entities (`ferrex depends_on automerge`) or two
//! memories (`<fix> fixed_by <commit note>`). Its type is normalised like a
//! predicate (the same fold and synonym groups), so `uses`, `Uses` and
//! `depends-on` are one type. The kinds of edge ferrex records on its own
//! (supersession, corrections, entity merges and their candidates) are not
//! relation types: an agent cannot state them with a link.
//!
//! [`walk`] is breadth-first from one node, out to a depth of at most
//! [`MAX_DEPTH`], through the relation types and in the direction asked,
//! and stops at a node limit or a size budget, whichever comes first, so an
//! answer never floods an agent's context. Each node is reached once (a
//! cycle ends the walk along it), each edge is reported once, and an edge
//! from a node to itself is left out.

use std::collections::{BTreeSet, HashSet};

use crate::{FieldError, predicate::PredicateGroups};

/// The deepest walk.
pub const MAX_DEPTH: usize = 5;

/// The source of a memory that records a relation (`link`).
pub const LINK_SOURCE: &str = "ferrex:link";

/// Relation types between memories that ferrex names in its documentation
/// (any other type an agent writes is kept as written, folded).
pub const MEMORY_RELATIONS: &[&str] =
    &["relates_to", "derived_from", "contradicts", "caused_by", "fixed_by"];

/// Relation types between entities that ferrex names in its documentation;
/// `uses`, `requires` and `needs` fold into `depends_on`, and
/// `maintained_by` and `managed_by` into `owned_by` (the predicate groups).
pub const ENTITY_RELATIONS: &[&str] =
    &["depends_on", "part_of", "owned_by", "caused_by", "built_with", "relates_to"];

/// Edge kinds ferrex records itself, which a link may not name.
pub const RESERVED_RELATIONS: &[&str] = &[
    "supersedes",
    "same_as",
    "corrects",
    "alias_candidate",
    "same_predicate",
    "predicate_candidate",
    "version_of",
];

/// The relation type `text` names: folded like a predicate, then filed
/// under its synonym group's name. Refused when it has no letters or digits
/// or names an edge kind ferrex records itself.
pub fn relation(field: &str, text: &str, groups: &PredicateGroups) -> Result<String, FieldError> {
    if text.len() > crate::validate::MAX_NAME_BYTES {
        return Err(FieldError::new(
            field,
            format!("is {} bytes long; at most {}", text.len(), crate::validate::MAX_NAME_BYTES),
        ));
    }
    let folded = crate::predicate::fold(text);
    if folded.is_empty() {
        return Err(FieldError::new(field, "has no letters or digits"));
    }
    let (name, _) = groups.resolve_alone(&folded);
    if RESERVED_RELATIONS.contains(&name.as_str()) || RESERVED_RELATIONS.contains(&folded.as_str())
    {
        let hint = if name == "supersedes" || folded == "supersedes" {
            "; to replace a memory use update (or store with supersedes)"
        } else {
            ""
        };
        return Err(FieldError::new(
            field,
            format!("{folded:?} is an edge ferrex records itself, not a relation{hint}"),
        ));
    }
    Ok(name)
}

/// Which way a walk follows edges from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Edges from the node.
    Out,
    /// Edges into the node.
    In,
    /// Both.
    #[default]
    Both,
}

impl std::str::FromStr for Direction {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "out" => Ok(Direction::Out),
            "in" => Ok(Direction::In),
            "both" => Ok(Direction::Both),
            other => Err(format!("{other:?} is not a direction: out, in or both")),
        }
    }
}

/// An edge of the graph as the walk sees it: every statement of one
/// relation between two nodes, folded.
#[derive(Debug, Clone, PartialEq)]
pub struct Hop {
    /// The relation type.
    pub relation: String,
    /// Source node.
    pub from: String,
    /// Target node.
    pub to: String,
    /// How often it was stated, on every device (the evidence of its
    /// statements, summed).
    pub weight: i64,
    /// The devices that stated it, sorted.
    pub by: Vec<String>,
    /// The memories that state it (a link, or a fact whose object is an
    /// entity), sorted.
    pub statements: Vec<String>,
}

/// How far and how much to walk.
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    /// Hops out from the start, at most [`MAX_DEPTH`].
    pub depth: usize,
    /// Only these relation types (all when empty).
    pub relations: BTreeSet<String>,
    /// Which way to follow edges.
    pub direction: Direction,
    /// Most nodes in the answer, the start included.
    pub limit: usize,
    /// Most bytes the answer's nodes and edges may take, as the caller
    /// counts them.
    pub budget: usize,
}

/// A node the walk reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// Its id.
    pub id: String,
    /// Hops from the start.
    pub depth: usize,
}

/// An edge the walk crossed, at the depth of the hop that crossed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossed {
    /// The edge.
    pub hop: Hop,
    /// 1 for an edge of the start, and so on.
    pub depth: usize,
}

/// What a walk found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Walked {
    /// Nodes in the order reached, the start first.
    pub nodes: Vec<Reached>,
    /// Edges in the order crossed.
    pub edges: Vec<Crossed>,
    /// Whether the limit or the budget left something out.
    pub truncated: bool,
}

/// Walks out from `start`. `hops_of(node)` gives the edges at a node (from
/// it and into it), only those whose other end exists; `cost_node` and
/// `cost_hop` say how many bytes each takes in the answer.
pub fn walk<E>(
    start: &str,
    walk: &Walk,
    mut hops_of: impl FnMut(&str) -> Result<Vec<Hop>, E>,
    cost_node: impl Fn(&str) -> usize,
    cost_hop: impl Fn(&Hop) -> usize,
) -> Result<Walked, E> {
    let mut walked =
        Walked { nodes: vec![Reached { id: start.to_owned(), depth: 0 }], ..Walked::default() };
    let mut used = cost_node(start);
    let mut seen: HashSet<String> = HashSet::from([start.to_owned()]);
    let mut crossed: HashSet<(String, String, String)> = HashSet::new();
    let mut frontier = vec![start.to_owned()];
    for depth in 1..=walk.depth.min(MAX_DEPTH) {
        let mut next = Vec::new();
        for node in &frontier {
            let mut hops = hops_of(node)?;
            hops.sort_by(|a, b| (&a.relation, &a.from, &a.to).cmp(&(&b.relation, &b.from, &b.to)));
            for hop in hops {
                if hop.from == hop.to
                    || (!walk.relations.is_empty() && !walk.relations.contains(&hop.relation))
                {
                    continue;
                }
                let other = match walk.direction {
                    Direction::Out if hop.from == *node => hop.to.clone(),
                    Direction::In if hop.to == *node => hop.from.clone(),
                    Direction::Both if hop.from == *node => hop.to.clone(),
                    Direction::Both if hop.to == *node => hop.from.clone(),
                    _ => continue,
                };
                let key = (hop.relation.clone(), hop.from.clone(), hop.to.clone());
                if crossed.contains(&key) {
                    continue;
                }
                let new = !seen.contains(&other);
                if new && walked.nodes.len() >= walk.limit {
                    // Full: what is left would only add edges between the
                    // nodes kept, and the answer says it was cut short.
                    walked.truncated = true;
                    return Ok(walked);
                }
                let cost = cost_hop(&hop) + if new { cost_node(&other) } else { 0 };
                if used + cost > walk.budget {
                    walked.truncated = true;
                    return Ok(walked);
                }
                used += cost;
                if new {
                    seen.insert(other.clone());
                    walked.nodes.push(Reached { id: other.clone(), depth });
                    next.push(other);
                }
                crossed.insert(key);
                walked.edges.push(Crossed { hop, depth });
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    Ok(walked)
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    fn hop(relation: &str, from: &str, to: &str) -> Hop {
        Hop {
            relation: relation.to_owned(),
            from: from.to_owned(),
            to: to.to_owned(),
            weight: 1,
            by: vec!["laptop".to_owned()],
            statements: vec![format!("{from}-{to}")],
        }
    }

    /// A graph as a list of edges; `hops_of` answers from it.
    fn graph(edges: &[(&str, &str, &str)]) -> Vec<Hop> {
        edges.iter().map(|(from, relation, to)| hop(relation, from, to)).collect()
    }

    fn run(edges: &[Hop], start: &str, settings: &Walk) -> Walked {
        let hops_of = |node: &str| -> Result<Vec<Hop>, Infallible> {
            Ok(edges.iter().filter(|hop| hop.from == node || hop.to == node).cloned().collect())
        };
        let Ok(walked) = walk(start, settings, hops_of, |_| 10, |_| 20);
        walked
    }

    fn settings(depth: usize) -> Walk {
        Walk {
            depth,
            relations: BTreeSet::new(),
            direction: Direction::Both,
            limit: 100,
            budget: 100_000,
        }
    }

    fn ids(walked: &Walked) -> Vec<(&str, usize)> {
        walked.nodes.iter().map(|node| (node.id.as_str(), node.depth)).collect()
    }

    #[test]
    fn relation_types_fold_like_predicates_and_ferrex_own_edges_are_refused() {
        let groups = PredicateGroups::default();
        for (written, expect) in [
            ("depends_on", "depends_on"),
            ("Uses", "depends_on"),
            ("depends-on", "depends_on"),
            ("part of", "part_of"),
            ("maintained by", "owned_by"),
            ("relates_to", "relates_to"),
            ("Fixed By", "fixed_by"),
            ("mentors", "mentors"),
        ] {
            assert_eq!(relation("relation", written, &groups), Ok(expect.to_owned()), "{written}");
        }
        for refused in ["supersedes", "same as", "CORRECTS", "version_of", "  ", "--"] {
            let error = relation("relation", refused, &groups).expect_err(refused);
            assert_eq!(error.field, "relation");
        }
        let error = relation("relation", "supersedes", &groups).expect_err("supersedes");
        assert!(error.reason.contains("update"), "{}", error.reason);
    }

    #[test]
    fn a_walk_reaches_each_node_once_at_its_nearest_depth_and_stops_at_the_depth() {
        let chain = graph(&[("a", "r", "b"), ("b", "r", "c"), ("c", "r", "d"), ("d", "r", "e")]);
        assert_eq!(ids(&run(&chain, "a", &settings(2))), [("a", 0), ("b", 1), ("c", 2)]);
        assert_eq!(run(&chain, "a", &settings(2)).edges.len(), 2);
        // Asked deeper than the deepest walk: the deepest walk.
        let long: Vec<Hop> =
            (0..9).map(|i| hop("r", &format!("n{i}"), &format!("n{}", i + 1))).collect();
        let walked = run(&long, "n0", &settings(50));
        assert_eq!(walked.nodes.len(), MAX_DEPTH + 1);
        assert_eq!(walked.nodes.last().map(|node| node.depth), Some(MAX_DEPTH));
        // Depth 0: the start alone.
        assert_eq!(ids(&run(&chain, "a", &settings(0))), [("a", 0)]);
    }

    #[test]
    fn a_cycle_ends_and_its_closing_edge_is_reported_once() {
        let cycle = graph(&[("a", "r", "b"), ("b", "r", "c"), ("c", "r", "a")]);
        let walked = run(&cycle, "a", &settings(5));
        assert_eq!(ids(&walked), [("a", 0), ("b", 1), ("c", 1)]);
        assert_eq!(walked.edges.len(), 3, "{:?}", walked.edges);
        assert!(!walked.truncated);
        // A shortcut reaches a node at its nearest depth.
        let shortcut = graph(&[("a", "r", "b"), ("b", "r", "c"), ("a", "s", "c")]);
        assert_eq!(ids(&run(&shortcut, "a", &settings(5))), [("a", 0), ("b", 1), ("c", 1)]);
    }

    #[test]
    fn a_self_link_is_left_out() {
        let looped = graph(&[("a", "r", "a"), ("a", "r", "b")]);
        let walked = run(&looped, "a", &settings(3));
        assert_eq!(ids(&walked), [("a", 0), ("b", 1)]);
        assert_eq!(walked.edges.len(), 1);
    }

    #[test]
    fn relation_filters_and_directions_choose_the_edges_followed() {
        let edges = graph(&[
            ("ferrex", "depends_on", "automerge"),
            ("ferrex", "owned_by", "team"),
            ("app", "depends_on", "ferrex"),
            ("automerge", "depends_on", "rust"),
        ]);
        let mut only = settings(3);
        only.relations = BTreeSet::from(["depends_on".to_owned()]);
        assert_eq!(
            ids(&run(&edges, "ferrex", &only)),
            [("ferrex", 0), ("app", 1), ("automerge", 1), ("rust", 2)]
        );
        only.direction = Direction::Out;
        assert_eq!(
            ids(&run(&edges, "ferrex", &only)),
            [("ferrex", 0), ("automerge", 1), ("rust", 2)]
        );
        only.direction = Direction::In;
        assert_eq!(ids(&run(&edges, "ferrex", &only)), [("ferrex", 0), ("app", 1)]);
        let mut out = settings(1);
        out.direction = Direction::Out;
        assert_eq!(
            ids(&run(&edges, "ferrex", &out)),
            [("ferrex", 0), ("automerge", 1), ("team", 1)]
        );
    }

    #[test]
    fn the_node_limit_and_the_size_budget_truncate_and_say_so() {
        let star: Vec<Hop> = (0..50).map(|i| hop("r", "hub", &format!("leaf{i:02}"))).collect();
        let mut limited = settings(2);
        limited.limit = 5;
        let walked = run(&star, "hub", &limited);
        assert_eq!(walked.nodes.len(), 5);
        assert_eq!(walked.edges.len(), 4);
        assert!(walked.truncated);
        // Each node costs 10 and each edge 20: the start and 3 leaves fit 100.
        let mut budgeted = settings(2);
        budgeted.budget = 100;
        let walked = run(&star, "hub", &budgeted);
        assert_eq!(walked.nodes.len(), 4);
        assert!(walked.truncated);
        // Everything fits: not truncated.
        assert!(!run(&star, "hub", &settings(1)).truncated);
    }

    #[test]
    fn a_failing_lookup_ends_the_walk_with_its_error() {
        let walked = walk("a", &settings(2), |_| Err("disk"), |_| 1, |_| 1);
        assert_eq!(walked, Err("disk"));
    }
}
