//! Facts that mean what the user meant, through MCP on one node (the real
//! model): multi-valued predicates accumulate, single-valued ones replace
//! however alike the values, predicates in other words are filed as one,
//! free text that announces a new value corrects the fact, and reflect
//! lists predicate candidates and predicates whose cardinality looks wrong.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_tests::{Client, TestHome};
use serde_json::{Value, json};

const NAMESPACE: &str = "facts";

async fn fact(client: &Client, subject: &str, predicate: &str, object: &str) -> Value {
    let answer = client
        .ok("store", json!({"subject": subject, "predicate": predicate, "object": object, "namespace": NAMESPACE}))
        .await;
    assert!(answer["status"] == "stored" || answer["status"] == "duplicate", "{answer}");
    answer
}

/// The facts recall finds for `query`, as (object, current).
async fn recalled(client: &Client, query: &str, subject: &str) -> Vec<(String, bool)> {
    let found = client
        .ok("recall", json!({"query": query, "namespace": NAMESPACE, "include_invalidated": true, "limit": 20}))
        .await;
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["subject"].as_str().is_some_and(|found| same_name(found, subject)))
        .map(|result| (result["object"].as_str().unwrap().to_owned(), result["current"] == true))
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

#[tokio::test]
async fn multi_valued_predicates_accumulate_and_single_valued_ones_replace() {
    let home = TestHome::new();
    let client = home.client().await;
    // Dependencies: three values, all current, whichever wording adds them.
    let tokio = fact(&client, "api-server", "depends on", "tokio").await;
    assert_eq!(
        (&tokio["predicate"], &tokio["cardinality"]),
        (&json!("depends_on"), &json!("many"))
    );
    let serde = fact(&client, "api-server", "uses", "serde").await;
    let axum = fact(&client, "api-server", "requires", "axum").await;
    for answer in [&serde, &axum] {
        assert_eq!(answer["predicate"], "depends_on", "{answer}");
        assert!(answer.get("supersedes").is_none(), "{answer}");
    }
    let found = recalled(&client, "what does api-server depend on", "api-server").await;
    assert_eq!(current(&found), ["axum", "serde", "tokio"], "{found:?}");
    // The same dependency again is a duplicate, not a fourth value.
    let again = fact(&client, "api-server", "depends on", "Tokio").await;
    assert_eq!(again["status"], "duplicate", "{again}");
    assert_eq!(again["existing_id"], tokio["id"]);

    // A home: Munich replaces Berlin, though the two embed alike.
    let berlin = fact(&client, "Alice", "lives in", "Berlin").await;
    let munich = fact(&client, "Alice", "lives in", "Munich").await;
    assert_eq!(munich["cardinality"], "one");
    assert_eq!(munich["supersedes"], json!([berlin["id"]]), "{munich}");
    assert!(munich.get("ambiguous_with").is_none(), "{munich}");
    let found = recalled(&client, "where does Alice live", "Alice").await;
    assert_eq!(current(&found), ["Munich"], "{found:?}");
    assert!(found.contains(&("Berlin".to_owned(), false)), "{found:?}");
    // The same value written differently is the same fact.
    let db = fact(&client, "billing", "database", "Postgres 16").await;
    let same = fact(&client, "billing", "database", "PostgreSQL 16").await;
    assert_eq!((&same["status"], &same["existing_id"]), (&json!("duplicate"), &db["id"]));
    let reflection = client.ok("reflect", json!({"namespace": NAMESPACE})).await;
    assert_eq!(reflection["contradictions"], json!([]), "{reflection}");
    client.close().await;
}

#[tokio::test]
async fn predicates_in_other_words_are_one_attribute() {
    let home = TestHome::new();
    let client = home.client().await;
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
        let old = fact(&client, subject.0, first.0, first.1).await;
        let new = fact(&client, subject.1, second.0, second.1).await;
        assert_eq!(new["predicate"], old["predicate"], "{old} / {new}");
        let how = [&old["predicate_match"], &new["predicate_match"]];
        assert!(how.contains(&&json!(matched)), "{old} / {new}");
        assert_eq!(new["supersedes"], json!([old["id"]]), "{new}");
        let found = recalled(&client, &format!("{} {}", subject.0, second.0), subject.0).await;
        assert_eq!(current(&found), [second.1], "{found:?}");
    }
    // Close as words, other attributes: kept apart.
    let born_in = fact(&client, "Lea", "born in", "Lyon").await;
    let born_on = fact(&client, "Lea", "born on", "1990-04-02").await;
    assert_ne!(born_in["predicate"], born_on["predicate"]);
    assert!(born_on.get("supersedes").is_none(), "{born_on}");
    client.close().await;
}

#[tokio::test]
async fn text_that_announces_a_new_value_corrects_the_fact() {
    let home = TestHome::new();
    let client = home.client().await;
    let berlin = fact(&client, "Alice", "lives in", "Berlin").await;
    let port = fact(&client, "billing-api", "port", "8080").await;
    for filler in ["The coffee machine on floor 3 is broken.", "Logs are kept for thirty days."] {
        client.store_text(filler, NAMESPACE).await;
    }
    // Look-alikes first: none of them is a new value of either fact.
    for text in [
        "Alice's sister moved to Munich last year.",
        "Alice visited Munich last week.",
        "billing-api also exposes metrics on port 9100.",
        "Alice is thinking about moving to Munich.",
    ] {
        let answer = client.ok("store", json!({"content": text, "namespace": NAMESPACE})).await;
        assert!(answer.get("corrects").is_none(), "{text}: {answer}");
    }
    let moved = client
        .ok("store", json!({"content": "Alice moved to Munich last week.", "namespace": NAMESPACE}))
        .await;
    let corrected = |answer: &Value| -> Vec<Value> {
        answer["corrects"].as_array().unwrap().iter().map(|item| item["id"].clone()).collect()
    };
    assert_eq!(corrected(&moved), [berlin["id"].clone()], "{moved}");
    let listens = client
        .ok(
            "store",
            json!({"content": "billing-api now listens on port 9090.", "namespace": NAMESPACE}),
        )
        .await;
    assert!(corrected(&listens).contains(&port["id"]), "{listens}");

    // Recall ranks the text above the fact it corrects.
    let found = client.recall_ids("where does Alice live", NAMESPACE, 5).await;
    let rank = |id: &Value| found.iter().position(|found| found == id.as_str().unwrap());
    assert!(rank(&moved["id"]).unwrap() < rank(&berlin["id"]).unwrap_or(usize::MAX), "{found:?}");
    // History shows it with the fact.
    let history = client
        .ok("history", json!({"subject": "Alice", "predicate": "lives in", "namespace": NAMESPACE}))
        .await;
    let entries = history["history"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{history}");
    assert_eq!(entries[1]["id"], moved["id"]);
    assert_eq!(entries[1]["replaces"], json!([berlin["id"]]));
    client.close().await;
}

#[tokio::test]
async fn reflect_lists_predicate_candidates_and_suspect_cardinality() {
    let home = TestHome::new();
    let client = home.client().await;
    let repo = fact(&client, "ferrex", "repo", "github.com/ferrex/ferrex").await;
    let url = fact(&client, "ferrex", "repository url", "https://git.example/ferrex").await;
    assert_eq!(url["predicate"], "repository_url", "{url}");
    assert_eq!(url["predicate_candidates"], json!(["repo"]), "{url}");
    // Three favourite bands in a row: a single-valued predicate used as a list.
    for band in ["Radiohead", "Portishead", "Massive Attack"] {
        fact(&client, "Bob", "favourite band", band).await;
    }
    let reflection = client.ok("reflect", json!({"namespace": NAMESPACE})).await;
    let candidate = &reflection["predicate_candidates"][0];
    assert_eq!(candidate["predicate"]["name"], "repository_url", "{reflection}");
    assert_eq!(candidate["candidate"]["name"], "repo");
    assert_eq!(candidate["candidate"]["fact"], repo["id"]);
    let suspects = reflection["cardinality_suspects"].as_array().unwrap();
    assert_eq!(suspects.len(), 1, "{reflection}");
    assert_eq!(suspects[0]["predicate"], "favourite_band");
    assert_eq!(suspects[0]["values"], 3);
    // Lives in Berlin, then Munich: one move is no suspect.
    fact(&client, "Carl", "lives in", "Berlin").await;
    fact(&client, "Carl", "lives in", "Munich").await;
    let reflection = client.ok("reflect", json!({"namespace": NAMESPACE})).await;
    assert_eq!(reflection["cardinality_suspects"].as_array().unwrap().len(), 1, "{reflection}");
    client.close().await;
}

#[tokio::test]
async fn cardinality_set_in_the_config_is_recorded_with_each_fact() {
    let home =
        TestHome::with_config("[cardinality]\n\"favourite band\" = \"many\"\nspeaks = \"one\"\n");
    let client = home.client().await;
    let first = fact(&client, "Bob", "favourite band", "Radiohead").await;
    let second = fact(&client, "Bob", "favourite band", "Portishead").await;
    assert_eq!(second["cardinality"], "many", "{second}");
    assert!(second.get("supersedes").is_none(), "{second}");
    let found = recalled(&client, "Bob favourite band", "Bob").await;
    assert_eq!(current(&found), ["Portishead", "Radiohead"], "{found:?} {first}");
    let english = fact(&client, "Eve", "speaks", "English").await;
    let german = fact(&client, "Eve", "speaks", "German").await;
    assert_eq!(german["supersedes"], json!([english["id"]]), "{german}");
    client.close().await;
}
