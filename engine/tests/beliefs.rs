//! Memory that maintains beliefs, decided by the engine and tested here, in
//! this process, with the real embedding model (what is alike, a duplicate,
//! a correction depends on it) over a temporary home: a new value
//! supersedes the old, spellings of one thing resolve to one entity, near
//! duplicates are refused, a correction outranks what it corrects. The
//! assertions read the answers' types (`ferrex_engine::answers`), as the
//! MCP tools write them; that MCP carries them is `tests/tests/beliefs.rs`.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use ferrex_core::StoreInput;
use ferrex_engine::answers::{self, HistoryAnswer, StoreAnswer};
use support::Tools;

#[test]
fn a_new_port_supersedes_the_old_one_and_history_shows_how() {
    let tools = Tools::new("ops");
    let old = tools.fact("api-server", "port", "3211");
    assert_eq!(old.status, "stored");
    assert_eq!(
        (old.predicate_match.as_deref(), old.cardinality.as_deref()),
        (Some("new"), Some("one"))
    );
    // "listens on port" names the same attribute: filed under `port`, it replaces 3211.
    let new = tools.fact("api-server", "listens on port", "8080");
    assert_eq!(new.predicate.as_deref(), Some("port"), "{new:?}");
    assert_eq!(new.predicate_written.as_deref(), Some("listens on port"));
    assert_eq!(new.predicate_match.as_deref(), Some("structure"));
    assert_eq!(new.supersedes, [old.id.as_str()]);
    // The same value under another wording and spelling is the same fact.
    let again = tools.fact("API server", "port number", "port 8080");
    assert_eq!(again.status, "duplicate", "{again:?}");
    assert_eq!(again.existing_id.as_deref(), Some(new.id.as_str()));
    let newer = tools.fact("API server", "Port", "9090");
    assert_eq!(newer.predicate.as_deref(), Some("port"));
    assert_eq!(newer.supersedes, [new.id.as_str()]);

    let found = tools.recall("api server port", "ops", |_| {});
    let current = found.of(&newer.id);
    assert_eq!(current.memory.content.object.as_deref(), Some("9090"));
    assert_eq!(current.memory.standing.current, Some(true));
    assert!(!found.ids().contains(&old.id.as_str()), "the superseded port is left out");

    let everything =
        tools.recall("api server port", "ops", |request| request.include_invalidated = true);
    let superseded = &everything.of(&old.id).memory.standing;
    assert_eq!(superseded.current, Some(false));
    assert_eq!(superseded.status.as_deref(), Some("superseded"));
    assert_eq!(superseded.superseded_by, [new.id.as_str()]);
    assert!(superseded.t_invalid.is_some());
    assert!(everything.rank(&newer.id) < everything.rank(&old.id), "the current fact ranks first");

    let history = tools.history("ops", None, Some(("api server", "port")));
    let chain: Vec<Option<&str>> =
        history.history.iter().map(|step| step.content.object.as_deref()).collect();
    assert_eq!(chain, [Some("3211"), Some("8080"), Some("9090")]);
    assert_eq!(history.history[1].replaces, [old.id.as_str()]);
    assert_eq!(history.history[2].replaces, [new.id.as_str()]);
    assert_eq!(history.history[0].device.name.as_deref(), Some("this device"));
    let by_id = tools.history("ops", Some(&old.id), None);
    let ids = |answer: &HistoryAnswer| -> Vec<String> {
        answer.history.iter().map(|step| step.id.clone()).collect()
    };
    assert_eq!(ids(&by_id), ids(&history));

    // Regression (review): going back to the old value is a new fact that
    // supersedes 9090, not a duplicate of the superseded 3211 to be hidden.
    let back = tools.fact("api-server", "port", "3211");
    assert_eq!(back.status, "stored", "{back:?}");
    assert_eq!(back.supersedes, [newer.id.as_str()]);
    let found = tools.recall("api server port", "ops", |_| {});
    let current: Vec<&str> = found
        .0
        .iter()
        .filter(|result| {
            result.memory.standing.current == Some(true)
                && result.memory.content.predicate.as_deref() == Some("port")
        })
        .map(|result| result.memory.id.as_str())
        .collect();
    assert_eq!(current, [back.id.as_str()]);
}

#[test]
fn spellings_of_one_thing_resolve_to_one_entity() {
    let tools = Tools::new("ops");
    let mut matches = Vec::new();
    for (name, text) in [
        ("Tokio", "We run the service on Tokio with four worker threads."),
        ("tokio", "Blocking calls inside async tasks stall the scheduler."),
        ("tokio runtime", "The runtime is shut down with a ten second timeout."),
    ] {
        let answer = tools.store(StoreInput {
            content: Some(text.to_owned()),
            namespace: Some("default".to_owned()),
            entities: vec![name.to_owned()],
            ..StoreInput::default()
        });
        let entity = answer.entities.into_iter().next().unwrap();
        matches.push((entity.id, entity.method));
    }
    assert_eq!(matches[0].0, matches[1].0);
    assert_eq!(matches[1].0, matches[2].0);
    let methods: Vec<&str> = matches.iter().map(|(_, method)| method.as_str()).collect();
    assert_eq!(methods, ["new", "exact", "fuzzy"]);
    let stats = answers::stats(&tools.test.engine.stats().unwrap(), None);
    assert_eq!(stats.entities, 1);
    // Every spelling finds all three memories.
    let found = tools.recall("threads", "default", |request| {
        request.entities = vec!["TOKIO RUNTIME".to_owned()];
    });
    assert_eq!(found.0.len(), 3, "{:?}", found.ids());
    let none = tools.recall("threads", "default", |request| {
        request.entities = vec!["kubernetes".to_owned()];
    });
    assert!(none.0.is_empty(), "{:?}", none.ids());
}

#[test]
fn a_near_duplicate_episode_is_refused_with_the_existing_id() {
    let tools = Tools::new("ops");
    let first =
        tools.text("The deploy of build 1234 failed because the disk on ci-runner-3 was full.");
    let again =
        tools.text("The deploy of build 1234 failed because the disk on ci-runner-3 was full!");
    assert_eq!(again.status, "duplicate", "{again:?}");
    assert_eq!(again.existing_id.as_deref(), Some(first.id.as_str()));
    assert_eq!(again.evidence, Some(2));
    let rephrased = tools.text("Build 1234's deploy failed: the disk of ci-runner-3 was full.");
    let found = tools.recall("why did the deploy of build 1234 fail", "default", |_| {});
    let evidence = if rephrased.status == "duplicate" { 3 } else { 2 };
    assert_eq!(found.of(&first.id).memory.evidence, evidence);
    // With `supersedes` the agent's word is taken: no duplicate check.
    let replacement = tools.store(StoreInput {
        content: Some(
            "The deploy of build 1234 failed because the disk on ci-runner-3 was full.".to_owned(),
        ),
        namespace: Some("default".to_owned()),
        supersedes: Some(first.id.clone()),
        ..StoreInput::default()
    });
    assert_eq!(replacement.status, "stored", "{replacement:?}");
}

#[test]
fn a_correction_outranks_what_it_corrects() {
    let tools = Tools::new("ops");
    let old = tools.text("The weekly team sync is on Tuesday at 10:00.");
    tools.text("The release checklist lives in the wiki.");
    let answer = tools.text("The weekly team sync moved to Wednesday.");
    let corrected: Vec<&str> = answer.corrects.iter().map(|found| found.id.as_str()).collect();
    assert_eq!(corrected, [old.id.as_str()], "{answer:?}");
    let found = tools.recall("when is the weekly team sync?", "default", |_| {});
    assert_eq!(found.ids()[0], answer.id);
    assert_eq!(found.of(&old.id).memory.standing.corrected_by, [answer.id.as_str()]);
    assert_eq!(tools.history("default", Some(&old.id), None).count, 2);
    // Regression (review): restating the corrected text is news, not a
    // duplicate of what was corrected.
    let again = tools.text("The weekly team sync is on Tuesday at 10:00.");
    assert_eq!(again.status, "stored", "{again:?}");
}

#[test]
fn a_correction_in_words_ranks_first_and_history_shows_both() {
    let tools = Tools::new("ops");
    // A name changed, no number did: a region, then a build tool.
    for (older, filler, newer, question) in [
        (
            "The billing service is deployed in eu-west-1.",
            "The release checklist lives in the wiki.",
            "Billing now runs in eu-central-1; Frankfurt worked out cheaper for our traffic.",
            "which region does billing run in",
        ),
        (
            "The backend services are built with maven.",
            "Coffee beans are reordered every second Monday.",
            "Replaced maven with gradle across the backend services, builds are twice as fast.",
            "what do the backend services build with",
        ),
    ] {
        let old = tools.text(older);
        tools.text(filler);
        let answer = tools.text(newer);
        let corrects: Vec<(&str, &str)> =
            answer.corrects.iter().map(|found| (found.id.as_str(), found.why.as_str())).collect();
        assert_eq!(corrects, [(old.id.as_str(), "name changed")], "{answer:?}");
        let found = tools.recall(question, "default", |_| {});
        assert_eq!(found.ids()[0], answer.id);
        let history = tools.history("default", Some(&old.id), None);
        let versions: Vec<&str> = history.history.iter().map(|step| step.id.as_str()).collect();
        assert_eq!(versions.len(), 2, "{versions:?}");
        assert!(versions.contains(&old.id.as_str()) && versions.contains(&answer.id.as_str()));
    }
    // Events alike but for a detail stand side by side, in words too.
    let lunch = tools.text("Met Alice for lunch.");
    let answer = tools.text("Met Bob for lunch near the office.");
    assert!(answer.corrects.is_empty(), "{answer:?}");
    let found = tools.recall("who did I meet for lunch", "default", |_| {});
    assert!(found.of(&lunch.id).memory.standing.corrected_by.is_empty());
}

#[test]
fn events_alike_but_for_a_number_stand_side_by_side_and_corrections_chain() {
    let tools = Tools::new("ops");
    // Regression: every event of a series was taken as a correction of all
    // the earlier ones (an edge per ancestor, so each store grew the change
    // that syncs it).
    for build in 41..44 {
        let answer = tools.text(&format!("The deploy of build {build} finished after the review."));
        assert_eq!(answer.status, "stored", "{answer:?}");
        assert!(answer.corrects.is_empty(), "{answer:?}");
    }
    let first = tools.text("The design review is on Tuesday.");
    let second = tools.text("The design review moved to Wednesday.");
    let corrects = |answer: &StoreAnswer| -> Vec<(String, String)> {
        answer.corrects.iter().map(|found| (found.id.clone(), found.why.clone())).collect()
    };
    assert_eq!(corrects(&second), [(first.id.clone(), "date changed".to_owned())]);
    // A further correction corrects what stands, not the whole chain.
    let third = tools.text("The design review moved to Thursday.");
    assert_eq!(corrects(&third), [(second.id.clone(), "date changed".to_owned())]);
}

#[test]
fn a_close_value_of_a_multi_valued_fact_is_kept_and_reported() {
    let tools = Tools::new("ops");
    let first = tools.fact("Alice", "likes", "blue");
    let second = tools.fact("alice", "likes", "light blue");
    assert_eq!(second.status, "stored", "{second:?}");
    assert_eq!(second.cardinality.as_deref(), Some("many"));
    assert_eq!(second.ambiguous_with, [first.id.as_str()]);
    assert!(second.supersedes.is_empty(), "{second:?}");
    let reflection = tools.reflect("ops");
    assert!(reflection.contradictions.is_empty(), "values of `likes` accumulate");
    // Giving `supersedes` settles it.
    let settled = tools.store(StoreInput {
        supersedes: Some(second.id.clone()),
        ..tools.fact_input("Alice", "likes", "navy")
    });
    assert_eq!(settled.supersedes, [second.id.as_str()]);
    // A single-valued predicate's new value replaces the old, however alike.
    let colour = tools.fact("Alice", "favourite colour", "blue");
    let changed = tools.fact("alice", "favorite color", "light blue");
    assert_eq!(changed.predicate.as_deref(), Some("favourite_colour"), "{changed:?}");
    assert_eq!(changed.supersedes, [colour.id.as_str()]);
    assert!(changed.ambiguous_with.is_empty(), "{changed:?}");
    let engine = &tools.test.engine;
    let stats = answers::stats(&engine.stats().unwrap(), Some(&engine.detailed_stats().unwrap()));
    assert_eq!(stats.detailed.unwrap().facts.get("superseded"), Some(&2));
}
