//! The engine at its middle boundary: an engine over a temporary home (real
//! documents, a real SQLite index), in this process, with a clock set by
//! hand and the deterministic word-hashing test embedder (what is checked
//! here does not depend on the model; the end-to-end suites run the real
//! one through real processes).

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{collections::BTreeSet, time::Duration};

use ferrex_core::{
    MemoryKind, Namespace, StoreInput,
    walk::{Direction, Walk},
    working::TaskStatus,
};
use ferrex_engine::{
    engine::{
        RecallRequest, Sources,
        graph::{GraphRequest, LinkRequest},
    },
    testing::TestEngine,
};

const DAY: Duration = Duration::from_secs(86_400);

fn text(content: &str, namespace: &str) -> StoreInput {
    StoreInput {
        content: Some(content.to_owned()),
        kind: Some(MemoryKind::Episodic),
        namespace: Some(namespace.to_owned()),
        ..StoreInput::default()
    }
}

fn recall(query: &str, namespace: &str, limit: usize) -> RecallRequest {
    RecallRequest {
        query: query.to_owned(),
        namespace: Namespace::parse(namespace).unwrap(),
        limit,
        sources: Sources::Both,
        ..RecallRequest::default()
    }
}

fn ids(results: &[ferrex_engine::engine::Recalled]) -> Vec<String> {
    results.iter().map(|result| result.row.id.clone()).collect()
}

#[test]
fn a_stored_memory_is_recalled_at_once_and_a_duplicate_is_the_same_memory() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let stored = engine
        .store(text("The deploy token rotates every Tuesday at noon.", "ops"), false)
        .unwrap();
    assert!(!stored.duplicate);
    let other = engine.store(text("Lunch is served in the atrium.", "ops"), false).unwrap();
    // Found before the worker has embedded its passages, by its own vector
    // and its words.
    let (results, _, _) =
        engine.recall(&recall("when does the deploy token rotate", "ops", 5)).unwrap();
    assert_eq!(results.first().map(|result| result.row.id.as_str()), Some(stored.id.as_str()));
    assert!(!ids(&results[..1]).contains(&other.id));
    // The same text again is the same memory, with more evidence.
    let again = engine
        .store(text("The deploy token rotates every Tuesday at noon.", "ops"), false)
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.id, stored.id);
    assert_eq!(again.evidence, Some(2));
    // Nothing of another namespace answers.
    let (elsewhere, _, _) = engine.recall(&recall("deploy token", "default", 5)).unwrap();
    assert!(elsewhere.is_empty(), "{:?}", ids(&elsewhere));
    // The worker's share (the passages) is done when asked, and the
    // memory is still found.
    test.embed_queued().unwrap();
    let (results, _, backlog) = engine.recall(&recall("deploy token Tuesday", "ops", 5)).unwrap();
    assert_eq!(results[0].row.id, stored.id);
    assert!(backlog.is_empty(), "{backlog:?}");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    assert!(engine.store(text("   ", "ops"), false).is_err());
    assert!(engine.store(text("A note.", "not a namespace!"), false).is_err());
    let (results, _, _) = engine.recall(&recall("note", "ops", 5)).unwrap();
    assert!(results.is_empty());
}

#[test]
fn a_project_recall_reads_the_default_namespace_too_and_uses_only_what_it_returns() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let project = Namespace::parse("github.com.acme.api").unwrap();
    let in_project = engine
        .store(
            text("The api server listens on port 8080 behind the proxy.", project.as_str()),
            false,
        )
        .unwrap();
    let in_default = engine
        .store(text("The proxy in front of every server is nginx on port 443.", "default"), false)
        .unwrap();
    let request = recall("which port does the proxy server use", project.as_str(), 1);

    // Both namespaces are searched; the limit holds over both.
    let (both, _, _) = engine
        .recall_across(&RecallRequest { limit: 5, ..request.clone() }, &[Namespace::default()])
        .unwrap();
    let found: BTreeSet<String> = ids(&both).into_iter().collect();
    assert_eq!(found, BTreeSet::from([in_project.id.clone(), in_default.id.clone()]));
    for result in &both {
        let expected = if result.row.id == in_project.id { project.as_str() } else { "default" };
        assert_eq!(result.row.namespace, expected);
    }

    // With room for one, only the one returned counts as used (counts
    // are buffered in the index and folded into the documents now and
    // then: folded here before each reading).
    engine.fold_access().unwrap();
    let before: Vec<i64> = [&in_project.id, &in_default.id]
        .iter()
        .map(|id| engine.memory(id).unwrap().unwrap().access_count)
        .collect();
    let (one, _, _) = engine.recall_across(&request, &[Namespace::default()]).unwrap();
    assert_eq!(one.len(), 1);
    let returned = &one[0].row.id;
    engine.fold_access().unwrap();
    for (id, before) in [&in_project.id, &in_default.id].into_iter().zip(before) {
        let after = engine.memory(id).unwrap().unwrap().access_count;
        let expected = if id == returned { before + 1 } else { before };
        assert_eq!(after, expected, "access of {id} (returned: {returned})");
    }
}

#[test]
fn memories_grow_stale_as_the_clock_moves_and_a_validation_freshens_them() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let stored =
        engine.store(text("The coffee machine on floor 3 was fixed.", "default"), false).unwrap();
    let query = recall("coffee machine floor 3", "default", 5);
    let (fresh, _, _) = engine.recall(&query).unwrap();
    assert_eq!(ids(&fresh), vec![stored.id.clone()]);

    // Years later, with no use in between, it is stale: left out unless
    // asked for.
    test.clock.advance(DAY * 3 * 365);
    let (left_out, _, _) = engine.recall(&query).unwrap();
    assert!(left_out.is_empty(), "{:?}", ids(&left_out));
    let (asked, _, _) =
        engine.recall(&RecallRequest { include_stale: true, ..query.clone() }).unwrap();
    assert_eq!(ids(&asked), vec![stored.id.clone()]);
    assert_eq!(asked[0].staleness, ferrex_core::Staleness::Stale);
    let reflection = engine.reflect(&Namespace::default(), 10, true, false).unwrap();
    assert_eq!(ids(&reflection.stale), vec![stored.id.clone()]);
    let stats = engine.detailed_stats().unwrap();
    assert_eq!(stats.staleness.get("episodic"), Some(&[0, 0, 1]), "{:?}", stats.staleness);

    // Validated now, it is back.
    assert_eq!(engine.validate(std::slice::from_ref(&stored.id)).unwrap(), vec![stored.id.clone()]);
    let (back, _, _) = engine.recall(&query).unwrap();
    assert_eq!(ids(&back), vec![stored.id.clone()]);
}

#[test]
fn a_task_left_untouched_expires_and_a_note_brings_it_back() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let namespace = Namespace::parse("work").unwrap();
    let (task, existed) = engine
        .start_task(&namespace, "Migrate the users table to Postgres 16", None, None, None)
        .unwrap();
    assert!(!existed);
    // Starting it again points at it.
    let (same, existed) = engine
        .start_task(&namespace, "Migrate the users table to Postgres 16", None, None, None)
        .unwrap();
    assert_eq!((same.as_str(), existed), (task.as_str(), true));
    let status = |engine: &ferrex_engine::Engine| {
        engine.task(&namespace, &task, engine.now()).unwrap().unwrap().state.status
    };
    assert_eq!(status(engine), TaskStatus::Active);

    // A week and a day untouched: expired (the default expiry is a week).
    test.clock.advance(DAY * 8);
    assert_eq!(status(engine), TaskStatus::Expired);
    // A note is activity: it is active again, as of now.
    let (_, noted) = engine
        .note_task(&namespace, &task, ferrex_core::working::Role::TaskUpdate, "Copied the schema.")
        .unwrap();
    assert_eq!(noted.state.status, TaskStatus::Active);
    assert_eq!(noted.state.last_activity, engine.now());
}

#[test]
fn a_link_between_names_makes_entities_the_graph_walks() {
    let test = TestEngine::new().unwrap();
    let engine = &test.engine;
    let namespace = Namespace::parse("team").unwrap();
    let linked = engine
        .link(LinkRequest {
            from: "Alice".into(),
            to: "the token refresh code".into(),
            relation: "reviews".into(),
            note: None,
            confidence: None,
            namespace: namespace.clone(),
        })
        .unwrap();
    assert!(!linked.reinforced);
    // The same link again reinforces it rather than adding another.
    let again = engine
        .link(LinkRequest {
            from: "alice".into(),
            to: "the token refresh code".into(),
            relation: "reviews".into(),
            note: None,
            confidence: None,
            namespace: namespace.clone(),
        })
        .unwrap();
    assert!(again.reinforced, "{again:?}");
    let graph = engine
        .graph(&GraphRequest {
            from: "Alice".into(),
            walk: Walk {
                depth: 1,
                relations: BTreeSet::new(),
                direction: Direction::Both,
                limit: 20,
                budget: 10_000,
            },
            namespace,
        })
        .unwrap();
    let labels: BTreeSet<&str> = graph.nodes.iter().map(|(node, _)| node.label()).collect();
    assert!(labels.contains("the token refresh code"), "{labels:?}");
    assert_eq!(graph.edges.len(), 1, "{:?}", graph.edges);
}
