//! Facts that mean what the user meant, decided by the engine and tested
//! here in process with the real model: multi-valued predicates accumulate,
//! single-valued ones replace however alike the values, predicates in other
//! words are filed as one, free text that announces a new value corrects the
//! fact, reflect lists predicate candidates and predicates whose cardinality
//! looks wrong, and a cardinality set in the config is kept.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use ferrex_engine::{answers::StoreAnswer, base::config::Config};
use support::Tools;

const NAMESPACE: &str = "facts";

/// A fact stored, or found to be one already stored.
fn fact(tools: &Tools, subject: &str, predicate: &str, object: &str) -> StoreAnswer {
    let answer = tools.fact(subject, predicate, object);
    assert!(answer.status == "stored" || answer.status == "duplicate", "{answer:?}");
    answer
}

/// The facts of `subject` recall finds for `query` (superseded ones too),
/// as (object, current).
fn recalled(tools: &Tools, query: &str, subject: &str) -> Vec<(String, bool)> {
    let found = tools.recall(query, NAMESPACE, |request| {
        request.include_invalidated = true;
        request.limit = 20;
    });
    found
        .0
        .iter()
        .map(|result| (&result.memory.content, result.memory.standing.current))
        .filter(|(content, _)| {
            content.subject.as_deref().is_some_and(|found| same_name(found, subject))
        })
        .map(|(content, current)| (content.object.clone().unwrap(), current == Some(true)))
        .collect()
}

/// Names equal but for case and separators (`web-frontend`, `Web Frontend`).
fn same_name(left: &str, right: &str) -> bool {
    let fold = |name: &str| -> String {
        name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
    };
    fold(left) == fold(right)
}

fn current(found: &[(String, bool)]) -> Vec<&str> {
    let mut objects: Vec<&str> =
        found.iter().filter(|(_, current)| *current).map(|(object, _)| object.as_str()).collect();
    objects.sort_unstable();
    objects
}

#[test]
fn multi_valued_predicates_accumulate_and_single_valued_ones_replace() {
    let tools = Tools::new(NAMESPACE);
    // Dependencies: three values, all current, whichever wording adds them.
    let tokio = fact(&tools, "api-server", "depends on", "tokio");
    assert_eq!(
        (tokio.predicate.as_deref(), tokio.cardinality.as_deref()),
        (Some("depends_on"), Some("many"))
    );
    let serde = fact(&tools, "api-server", "uses", "serde");
    let axum = fact(&tools, "api-server", "requires", "axum");
    for answer in [&serde, &axum] {
        assert_eq!(answer.predicate.as_deref(), Some("depends_on"), "{answer:?}");
        assert!(answer.supersedes.is_empty(), "{answer:?}");
    }
    let found = recalled(&tools, "what does api-server depend on", "api-server");
    assert_eq!(current(&found), ["axum", "serde", "tokio"], "{found:?}");
    // The same dependency again is a duplicate, not a fourth value.
    let again = fact(&tools, "api-server", "depends on", "Tokio");
    assert_eq!(again.status, "duplicate", "{again:?}");
    assert_eq!(again.existing_id.as_deref(), Some(tokio.id.as_str()));

    // A home: Munich replaces Berlin, though the two embed alike.
    let berlin = fact(&tools, "Alice", "lives in", "Berlin");
    let munich = fact(&tools, "Alice", "lives in", "Munich");
    assert_eq!(munich.cardinality.as_deref(), Some("one"));
    assert_eq!(munich.supersedes, [berlin.id.as_str()], "{munich:?}");
    assert!(munich.ambiguous_with.is_empty(), "{munich:?}");
    let found = recalled(&tools, "where does Alice live", "Alice");
    assert_eq!(current(&found), ["Munich"], "{found:?}");
    assert!(found.contains(&("Berlin".to_owned(), false)), "{found:?}");
    // The same value written differently is the same fact.
    let db = fact(&tools, "billing", "database", "Postgres 16");
    let same = fact(&tools, "billing", "database", "PostgreSQL 16");
    assert_eq!(
        (same.status.as_str(), same.existing_id.as_deref()),
        ("duplicate", Some(db.id.as_str()))
    );
    let reflection = tools.reflect(NAMESPACE);
    assert!(reflection.contradictions.is_empty(), "{reflection:?}");
}

#[test]
fn predicates_in_other_words_are_one_attribute() {
    let tools = Tools::new(NAMESPACE);
    for (subject, first, second, matched) in [
        (
            ("web-frontend", "Web Frontend"),
            ("listens on port", "3000"),
            ("port", "4000"),
            "structure",
        ),
        (
            ("Sam", "Sam"),
            ("phone", "+1 415 555 0132"),
            ("phone number", "+1 415 555 0199"),
            "synonym",
        ),
        (
            ("docs-site", "docs-site"),
            ("is hosted on", "Netlify"),
            ("hosted on", "Vercel"),
            "synonym",
        ),
        (
            ("scheduler", "scheduler"),
            ("runs on", "build-1"),
            ("runs on host", "build-2"),
            "synonym",
        ),
        (("Ana", "Ana"), ("car", "Volvo"), ("vehicle", "Tesla"), "embedding"),
    ] {
        let old = fact(&tools, subject.0, first.0, first.1);
        let new = fact(&tools, subject.1, second.0, second.1);
        assert_eq!(new.predicate, old.predicate, "{old:?} / {new:?}");
        let how = [old.predicate_match.as_deref(), new.predicate_match.as_deref()];
        assert!(how.contains(&Some(matched)), "{old:?} / {new:?}");
        assert_eq!(new.supersedes, [old.id.as_str()], "{new:?}");
        let found = recalled(&tools, &format!("{} {}", subject.0, second.0), subject.0);
        assert_eq!(current(&found), [second.1], "{found:?}");
    }
    // Close as words, other attributes: kept apart.
    let born_in = fact(&tools, "Lea", "born in", "Lyon");
    let born_on = fact(&tools, "Lea", "born on", "1990-04-02");
    assert_ne!(born_in.predicate, born_on.predicate);
    assert!(born_on.supersedes.is_empty(), "{born_on:?}");
}

#[test]
fn text_that_announces_a_new_value_corrects_the_fact() {
    let tools = Tools::new(NAMESPACE);
    let berlin = fact(&tools, "Alice", "lives in", "Berlin");
    let port = fact(&tools, "billing-api", "port", "8080");
    for filler in ["The coffee machine on floor 3 is broken.", "Logs are kept for thirty days."] {
        tools.text_in(filler, NAMESPACE);
    }
    // Look-alikes first: none of them is a new value of either fact.
    for text in [
        "Alice's sister moved to Munich last year.",
        "Alice visited Munich last week.",
        "billing-api also exposes metrics on port 9100.",
        "Alice is thinking about moving to Munich.",
    ] {
        let answer = tools.text_in(text, NAMESPACE);
        assert!(answer.corrects.is_empty(), "{text}: {answer:?}");
    }
    let corrected = |answer: &StoreAnswer| -> Vec<String> {
        answer.corrects.iter().map(|item| item.id.clone()).collect()
    };
    let moved = tools.text_in("Alice moved to Munich last week.", NAMESPACE);
    assert_eq!(corrected(&moved), [berlin.id.as_str()], "{moved:?}");
    let listens = tools.text_in("billing-api now listens on port 9090.", NAMESPACE);
    assert!(corrected(&listens).contains(&port.id), "{listens:?}");

    // Recall ranks the text above the fact it corrects.
    let found = tools.recall("where does Alice live", NAMESPACE, |request| request.limit = 5);
    let berlin_rank = found.ids().iter().position(|id| *id == berlin.id).unwrap_or(usize::MAX);
    assert!(found.rank(&moved.id) < berlin_rank, "{:?}", found.ids());
    // History shows it with the fact.
    let history = tools.history(NAMESPACE, None, Some(("Alice", "lives in")));
    assert_eq!(history.count, 2, "{history:?}");
    assert_eq!(history.history[1].id, moved.id);
    assert_eq!(history.history[1].replaces, [berlin.id.as_str()]);
}

#[test]
fn reflect_lists_predicate_candidates_and_suspect_cardinality() {
    let tools = Tools::new(NAMESPACE);
    let repo = fact(&tools, "ferrex", "repo", "github.com/ferrex/ferrex");
    let url = fact(&tools, "ferrex", "repository url", "https://git.example/ferrex");
    assert_eq!(url.predicate.as_deref(), Some("repository_url"), "{url:?}");
    assert_eq!(url.predicate_candidates, ["repo"], "{url:?}");
    // Three favourite bands in a row: a single-valued predicate used as a list.
    for band in ["Radiohead", "Portishead", "Massive Attack"] {
        fact(&tools, "Bob", "favourite band", band);
    }
    let reflection = tools.reflect(NAMESPACE);
    let candidate = &reflection.predicate_candidates[0];
    assert_eq!(candidate.predicate.name, "repository_url", "{reflection:?}");
    assert_eq!(candidate.candidate.name, "repo");
    assert_eq!(candidate.candidate.fact, repo.id);
    let suspects = &reflection.cardinality_suspects;
    assert_eq!(suspects.len(), 1, "{reflection:?}");
    assert_eq!(suspects[0].predicate, "favourite_band");
    assert_eq!(suspects[0].values, 3);
    // Lives in Berlin, then Munich: one move is no suspect.
    fact(&tools, "Carl", "lives in", "Berlin");
    fact(&tools, "Carl", "lives in", "Munich");
    assert_eq!(tools.reflect(NAMESPACE).cardinality_suspects.len(), 1);
}

#[test]
fn cardinality_set_in_the_config_is_recorded_with_each_fact() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("ferrex.toml");
    std::fs::write(&file, "[cardinality]\n\"favourite band\" = \"many\"\nspeaks = \"one\"\n")
        .unwrap();
    let config = Config::load(&file, [], &[]).unwrap();
    let tools = Tools::with(NAMESPACE, &config);
    fact(&tools, "Bob", "favourite band", "Radiohead");
    let second = fact(&tools, "Bob", "favourite band", "Portishead");
    assert_eq!(second.cardinality.as_deref(), Some("many"), "{second:?}");
    assert!(second.supersedes.is_empty(), "{second:?}");
    let found = recalled(&tools, "Bob favourite band", "Bob");
    assert_eq!(current(&found), ["Portishead", "Radiohead"], "{found:?}");
    let english = fact(&tools, "Eve", "speaks", "English");
    let german = fact(&tools, "Eve", "speaks", "German");
    assert_eq!(german.supersedes, [english.id.as_str()], "{german:?}");
}
