//! The knowledge graph, decided by the engine and tested here in process
//! with the real model (entities resolve by name and by meaning): `link`
//! between entities (normalised relation types, reinforcement), `graph`
//! (depth, filters, direction, cycles, the limit, a hub's budget) and
//! `entity` (an entity's whole story), each read as the tools' answer types.
//! What MCP carries, and links between memories, updates and forgetting,
//! are `tests/tests/graph.rs`.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use ferrex_engine::answers::graph::GraphAnswer;
use support::{Tools, WalkFrom};

const NAMESPACE: &str = "eng";

/// A project's entities: ferrex depends on Automerge (stated twice) and
/// iroh, both built with Rust, ferrex owned by the platform team, which is
/// part of engineering (a fact whose object is an entity); and a cycle,
/// rust relating back to ferrex.
fn project() -> Tools {
    let tools = Tools::new(NAMESPACE);
    tools.link("ferrex", "uses", "Automerge").unwrap();
    tools.link("Ferrex", "depends on", "automerge").unwrap();
    tools.link("ferrex", "depends_on", "iroh").unwrap();
    tools.link("automerge", "built_with", "rust").unwrap();
    tools.link("iroh", "built with", "Rust").unwrap();
    tools.link("ferrex", "owned_by", "platform team").unwrap();
    tools.link("rust", "relates_to", "ferrex").unwrap();
    tools.store(ferrex_core::StoreInput {
        entities: vec!["engineering".to_owned()],
        ..tools.fact_input("platform team", "part of", "engineering")
    });
    tools
}

/// A walk's nodes as (label, depth).
fn labels(answer: &GraphAnswer) -> Vec<(&str, usize)> {
    answer.nodes.iter().map(|node| (node.label.as_str(), node.depth.unwrap())).collect()
}

#[test]
fn a_relation_stated_again_in_other_spellings_is_reinforced_not_duplicated() {
    let tools = Tools::new(NAMESPACE);
    // Entities are created on first mention; `uses` is filed under depends_on.
    let first = tools.link("ferrex", "uses", "Automerge").unwrap();
    assert!(!first.reinforced, "{first:?}");
    assert_eq!(first.edge.relation, "depends_on");
    assert_eq!(first.edge.weight, 1);
    assert_eq!(first.edge.by, ["this device"]);
    assert_eq!(first.nodes[0].kind, "entity");
    let again = tools.link("Ferrex", "depends on", "automerge").unwrap();
    assert!(again.reinforced, "{again:?}");
    assert_eq!(again.id, first.id);
    assert_eq!(again.edge.weight, 2);
}

#[test]
fn a_walk_follows_depth_relations_and_direction_and_ends_at_a_cycle() {
    let tools = project();
    let out =
        WalkFrom { from: "ferrex", depth: Some(1), direction: Some("out"), ..WalkFrom::default() };
    let walked = tools.walk(&out).unwrap();
    assert_eq!(
        labels(&walked),
        [("ferrex", 0), ("Automerge", 1), ("iroh", 1), ("platform team", 1)]
    );
    let weights: Vec<(&str, i64)> =
        walked.edges.iter().map(|edge| (edge.relation.as_str(), edge.weight)).collect();
    assert!(weights.contains(&("depends_on", 2)), "{weights:?}");
    assert!(!walked.truncated);
    // Deeper, only depends_on and built_with, both ways: rust is reached at
    // depth 2 once, and the relates_to edge back to ferrex is not followed.
    let filtered = WalkFrom {
        from: "ferrex",
        depth: Some(5),
        relations: &["depends_on", "built-with"],
        ..WalkFrom::default()
    };
    let deep = tools.walk(&filtered).unwrap();
    assert_eq!(labels(&deep), [("ferrex", 0), ("Automerge", 1), ("iroh", 1), ("rust", 2)]);
    assert_eq!(deep.edges.len(), 4, "{:?}", deep.edges);
    // Every way: the cycle through rust ends, each edge reported once.
    let all =
        tools.walk(&WalkFrom { from: "ferrex", depth: Some(5), ..WalkFrom::default() }).unwrap();
    assert_eq!((all.nodes.len(), all.edges.len()), (6, 7), "{all:?}");
    // Into the team: the fact stored with `store` makes it part of engineering.
    let into = WalkFrom {
        from: "engineering",
        depth: Some(2),
        direction: Some("in"),
        ..WalkFrom::default()
    };
    assert_eq!(
        labels(&tools.walk(&into).unwrap()),
        [("engineering", 0), ("platform team", 1), ("ferrex", 2)]
    );
    // The limit truncates, and says so.
    let limited = tools
        .walk(&WalkFrom { from: "ferrex", depth: Some(5), limit: Some(2), ..WalkFrom::default() })
        .unwrap();
    assert_eq!(limited.nodes.len(), 2);
    assert!(limited.truncated);
}

#[test]
fn an_entity_is_told_whole_under_any_spelling() {
    let tools = project();
    tools.fact("ferrex", "version", "0.3");
    tools.fact("ferrex", "version", "0.4");
    let note = tools.store(ferrex_core::StoreInput {
        content: Some("Shipped the ferrex sync fix to the home server today.".to_owned()),
        entities: vec!["ferrex".to_owned()],
        namespace: Some(NAMESPACE.to_owned()),
        ..ferrex_core::StoreInput::default()
    });
    let story = tools.story("FERREX", false).unwrap();
    assert_eq!(story.node.label, "ferrex");
    let facts: Vec<Option<&str>> =
        story.facts.iter().map(|fact| fact.content.object.as_deref()).collect();
    assert_eq!(facts, [Some("0.4")], "the current version only");
    let relations: Vec<(&str, &str, i64)> = story
        .edges
        .iter()
        .zip(&story.nodes)
        .map(|(edge, other)| (edge.relation.as_str(), other.label.as_str(), edge.weight))
        .collect();
    assert!(relations.contains(&("depends_on", "Automerge", 2)), "{relations:?}");
    assert!(relations.contains(&("relates_to", "rust", 1)), "the relation in: {relations:?}");
    assert_eq!(relations.len(), 4, "{relations:?}");
    assert_eq!(story.relations_total, 4);
    // Other spellings of its own name are not aliases.
    assert!(story.aliases.is_empty(), "{:?}", story.aliases);
    let memories: Vec<&str> = story.memories.iter().map(|found| found.memory.id.as_str()).collect();
    assert_eq!(memories, [note.id.as_str()]);
    assert_eq!(tools.story("ferrex", true).unwrap().facts.len(), 2, "with its history");
}

#[test]
fn a_bad_link_or_walk_says_what_to_do_and_changes_nothing() {
    let tools = project();
    let before =
        tools.walk(&WalkFrom { from: "ferrex", depth: Some(5), ..WalkFrom::default() }).unwrap();
    let refused = |error: ferrex_engine::engine::ToolError| error.to_string();
    assert!(refused(tools.link("a", "supersedes", "b").unwrap_err()).contains("update"));
    assert!(refused(tools.link("a", "--", "b").unwrap_err()).contains("relation"));
    assert!(refused(tools.link("ferrex", "uses", "Ferrex").unwrap_err()).contains("same node"));
    let nobody = WalkFrom { from: "nobody", ..WalkFrom::default() };
    assert!(refused(tools.walk(&nobody).unwrap_err()).contains("nobody"));
    let too_deep = WalkFrom { from: "ferrex", depth: Some(6), ..WalkFrom::default() };
    assert!(refused(tools.walk(&too_deep).unwrap_err()).contains("depth"));
    assert!(refused(tools.story("nobody", false).unwrap_err()).contains("nobody"));
    let after =
        tools.walk(&WalkFrom { from: "ferrex", depth: Some(5), ..WalkFrom::default() }).unwrap();
    assert_eq!(labels(&after), labels(&before));
    assert_eq!(after.edges.len(), before.edges.len());
}

#[test]
fn a_hub_is_walked_within_its_budget_and_its_story_shows_the_heaviest() {
    let tools = project();
    for index in 0..60_u64 {
        // Names no fuzzy match joins: ten letters drawn from the index.
        let mut state = index.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let name: String = (0..10)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                char::from(b'a' + (state % 26) as u8)
            })
            .collect();
        tools.link(&format!("{name} package"), "part of", "monorepo").unwrap();
    }
    let hub = tools
        .walk(&WalkFrom {
            from: "monorepo",
            depth: Some(1),
            limit: Some(200),
            ..WalkFrom::default()
        })
        .unwrap();
    assert!(hub.truncated);
    assert!(hub.nodes.len() > 10 && hub.nodes.len() < 61, "{}", hub.nodes.len());
    assert_eq!(hub.edges.len(), hub.nodes.len() - 1, "every node comes with its edge");
    let bytes = serde_json::to_string(&hub).unwrap().len();
    assert!(bytes <= 13_000, "{bytes} bytes");
    let story = tools.story("monorepo", false).unwrap();
    assert_eq!((story.edges.len(), story.relations_total), (25, 60));
    assert_eq!(tools.story("iroh", false).unwrap().edges.len(), 2);
}
