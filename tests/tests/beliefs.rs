//! Memory that maintains beliefs, through MCP on one node: a new value
//! supersedes the old, spellings of one thing resolve to one entity, near
//! duplicates are refused, a correction outranks what it corrects, and
//! recall, reflect, history and stats report it all.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_tests::{Client, TestHome, result_ids};
use serde_json::{Value, json};

async fn fact(client: &Client, subject: &str, predicate: &str, object: &str) -> Value {
    client
        .ok("store", json!({"subject": subject, "predicate": predicate, "object": object, "namespace": "ops"}))
        .await
}

#[tokio::test]
async fn a_new_port_supersedes_the_old_one_and_history_shows_how() {
    let home = TestHome::named("laptop");
    let client = home.client().await;
    let old = fact(&client, "api-server", "port", "3211").await;
    assert_eq!(old["status"], "stored", "{old}");
    assert_eq!((&old["predicate_match"], &old["cardinality"]), (&json!("new"), &json!("one")));
    // "listens on port" names the same attribute: filed under `port`, it replaces 3211.
    let new = fact(&client, "api-server", "listens on port", "8080").await;
    assert_eq!(new["predicate"], "port", "{new}");
    assert_eq!(new["predicate_written"], "listens on port", "{new}");
    assert_eq!(new["predicate_match"], "structure", "{new}");
    assert_eq!(new["supersedes"], json!([old["id"]]), "{new}");
    // The same value under another wording and spelling is the same fact.
    let again = fact(&client, "API server", "port number", "port 8080").await;
    assert_eq!(again["status"], "duplicate", "{again}");
    assert_eq!(again["existing_id"], new["id"], "{again}");
    let newer = fact(&client, "API server", "Port", "9090").await;
    assert_eq!(newer["predicate"], "port");
    assert_eq!(newer["supersedes"], json!([new["id"]]), "{newer}");
    let (old_id, newer_id) = (old["id"].as_str().unwrap(), newer["id"].as_str().unwrap());

    let found = client.ok("recall", json!({"query": "api server port", "namespace": "ops"})).await;
    let results = found["results"].as_array().unwrap();
    let current = results.iter().find(|result| result["id"] == newer_id).expect("8080 is recalled");
    assert_eq!(current["object"], "9090");
    assert_eq!(current["current"], true);
    assert!(
        !result_ids(&found).contains(&old_id.to_owned()),
        "the superseded port is left out: {found}"
    );

    let everything = client
        .ok(
            "recall",
            json!({"query": "api server port", "namespace": "ops", "include_invalidated": true}),
        )
        .await;
    let old_result = everything["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|result| result["id"] == old_id)
        .expect("3211 too");
    assert_eq!(old_result["current"], false);
    assert_eq!(old_result["status"], "superseded");
    assert_eq!(old_result["superseded_by"], json!([new["id"]]));
    assert!(old_result["t_invalid"].is_string());
    let rank = |id: &str| result_ids(&everything).iter().position(|found| found == id).unwrap();
    assert!(rank(newer_id) < rank(old_id), "the current fact ranks first: {everything}");

    let history = client
        .ok("history", json!({"subject": "api server", "predicate": "port", "namespace": "ops"}))
        .await;
    let chain: Vec<&str> = history["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["object"].as_str().unwrap())
        .collect();
    assert_eq!(chain, ["3211", "8080", "9090"], "{history}");
    assert_eq!(history["history"][1]["replaces"], json!([old_id]));
    assert_eq!(history["history"][2]["replaces"], json!([new["id"]]));
    assert_eq!(history["history"][0]["device"]["name"], "laptop");
    let by_id = client.ok("history", json!({"id": old_id, "namespace": "ops"})).await;
    assert_eq!(by_id["history"], history["history"]);

    // Regression (review): going back to the old value is a new fact that
    // supersedes 8080, not a duplicate of the superseded 3211 to be hidden.
    let back = fact(&client, "api-server", "port", "3211").await;
    assert_eq!(back["status"], "stored", "{back}");
    assert_eq!(back["supersedes"], json!([newer_id]));
    let found = client.ok("recall", json!({"query": "api server port", "namespace": "ops"})).await;
    let current: Vec<&Value> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["current"] == true && result["predicate"] == "port")
        .collect();
    assert_eq!(current.len(), 1, "{found}");
    assert_eq!(current[0]["id"], back["id"]);
    client.close().await;
}

#[tokio::test]
async fn spellings_of_one_thing_resolve_to_one_entity() {
    let home = TestHome::new();
    let client = home.client().await;
    let mut entity_ids = Vec::new();
    let mut methods = Vec::new();
    for (name, text) in [
        ("Tokio", "We run the service on Tokio with four worker threads."),
        ("tokio", "Blocking calls inside async tasks stall the scheduler."),
        ("tokio runtime", "The runtime is shut down with a ten second timeout."),
    ] {
        let answer = client.ok("store", json!({"content": text, "entities": [name]})).await;
        entity_ids.push(answer["entities"][0]["id"].clone());
        methods.push(answer["entities"][0]["match"].clone());
    }
    assert_eq!(entity_ids[0], entity_ids[1]);
    assert_eq!(entity_ids[1], entity_ids[2]);
    assert_eq!(methods, [json!("new"), json!("exact"), json!("fuzzy")]);
    let stats = client.ok("stats", json!({"detailed": true})).await;
    assert_eq!(stats["entities"], 1, "{stats}");
    // Every spelling finds all three memories.
    let found = client
        .ok("recall", json!({"query": "threads", "entities": ["TOKIO RUNTIME"], "limit": 10}))
        .await;
    assert_eq!(found["count"], 3, "{found}");
    let none = client.ok("recall", json!({"query": "threads", "entities": ["kubernetes"]})).await;
    assert_eq!(none["count"], 0, "{none}");
    client.close().await;
}

#[tokio::test]
async fn a_near_duplicate_episode_is_refused_with_the_existing_id() {
    let home = TestHome::new();
    let client = home.client().await;
    let first = client
        .ok("store", json!({"content": "The deploy of build 1234 failed because the disk on ci-runner-3 was full."}))
        .await;
    let again = client
        .ok("store", json!({"content": "The deploy of build 1234 failed because the disk on ci-runner-3 was full!"}))
        .await;
    assert_eq!(again["status"], "duplicate", "{again}");
    assert_eq!(again["existing_id"], first["id"]);
    assert_eq!(again["evidence"], 2);
    let rephrased = client
        .ok(
            "store",
            json!({"content": "Build 1234's deploy failed: the disk of ci-runner-3 was full."}),
        )
        .await;
    let found =
        client.ok("recall", json!({"query": "why did the deploy of build 1234 fail"})).await;
    assert_eq!(
        found["results"][0]["evidence"],
        if rephrased["status"] == "duplicate" { 3 } else { 2 }
    );
    // With `supersedes` the agent's word is taken: no duplicate check.
    let replacement = client
        .ok(
            "store",
            json!({"content": "The deploy of build 1234 failed because the disk on ci-runner-3 was full.", "supersedes": first["id"]}),
        )
        .await;
    assert_eq!(replacement["status"], "stored", "{replacement}");
    client.close().await;
}

#[tokio::test]
async fn a_correction_outranks_what_it_corrects() {
    let home = TestHome::new();
    let client = home.client().await;
    let old = client.store_text("The weekly team sync is on Tuesday at 10:00.", "default").await;
    client.store_text("The release checklist lives in the wiki.", "default").await;
    let answer =
        client.ok("store", json!({"content": "The weekly team sync moved to Wednesday."})).await;
    assert_eq!(answer["corrects"][0]["id"], old, "{answer}");
    let new = answer["id"].as_str().unwrap().to_owned();
    let found = client.ok("recall", json!({"query": "when is the weekly team sync?"})).await;
    let order = result_ids(&found);
    assert_eq!(order[0], new, "{found}");
    let corrected =
        found["results"].as_array().unwrap().iter().find(|result| result["id"] == old.as_str());
    assert_eq!(corrected.unwrap()["corrected_by"], json!([new]), "{found}");
    let history = client.ok("history", json!({"id": old})).await;
    assert_eq!(history["count"], 2, "{history}");
    // Regression (review): restating the corrected text is news, not a
    // duplicate of what was corrected.
    let again = client
        .ok("store", json!({"content": "The weekly team sync is on Tuesday at 10:00."}))
        .await;
    assert_eq!(again["status"], "stored", "{again}");
    client.close().await;
}

#[tokio::test]
async fn a_correction_in_words_ranks_first_and_history_shows_both() {
    let home = TestHome::new();
    let client = home.client().await;
    // A name changed, no number did: a region, then a build tool.
    for (older, filler, newer, question, why) in [
        (
            "The billing service is deployed in eu-west-1.",
            "The release checklist lives in the wiki.",
            "Billing now runs in eu-central-1; Frankfurt worked out cheaper for our traffic.",
            "which region does billing run in",
            "name changed",
        ),
        (
            "The backend services are built with maven.",
            "Coffee beans are reordered every second Monday.",
            "Replaced maven with gradle across the backend services, builds are twice as fast.",
            "what do the backend services build with",
            "name changed",
        ),
    ] {
        let old = client.store_text(older, "default").await;
        client.store_text(filler, "default").await;
        let answer = client.ok("store", json!({"content": newer})).await;
        assert_eq!(answer["corrects"], json!([{"id": old, "why": why}]), "{answer}");
        let new = answer["id"].as_str().unwrap().to_owned();
        let found = client.ok("recall", json!({"query": question})).await;
        assert_eq!(result_ids(&found)[0], new, "{found}");
        let history = client.ok("history", json!({"id": old})).await;
        let versions: Vec<&Value> =
            history["history"].as_array().unwrap().iter().map(|entry| &entry["id"]).collect();
        assert_eq!(history["count"], 2, "{history}");
        assert!(versions.contains(&&json!(old)) && versions.contains(&&json!(new)), "{history}");
    }
    // Events alike but for a detail stand side by side, in words too.
    let lunch = client.store_text("Met Alice for lunch.", "default").await;
    let answer = client.ok("store", json!({"content": "Met Bob for lunch near the office."})).await;
    assert!(answer.get("corrects").is_none(), "{answer}");
    let found = client.ok("recall", json!({"query": "who did I meet for lunch"})).await;
    let results = found["results"].as_array().unwrap();
    let alice = results.iter().find(|result| result["id"] == lunch.as_str()).unwrap();
    assert!(alice.get("corrected_by").is_none(), "{found}");
    client.close().await;
}

#[tokio::test]
async fn events_alike_but_for_a_number_stand_side_by_side_and_corrections_chain() {
    let home = TestHome::new();
    let client = home.client().await;
    // Regression: every event of a series was taken as a correction of all
    // the earlier ones (an edge per ancestor, so each store grew the change
    // that syncs it).
    for build in 41..44 {
        let text = format!("The deploy of build {build} finished after the review.");
        let answer = client.ok("store", json!({"content": text})).await;
        assert_eq!(answer["status"], "stored", "{answer}");
        assert!(answer.get("corrects").is_none(), "{answer}");
    }
    let first = client.store_text("The design review is on Tuesday.", "default").await;
    let second =
        client.ok("store", json!({"content": "The design review moved to Wednesday."})).await;
    assert_eq!(second["corrects"], json!([{"id": first, "why": "date changed"}]), "{second}");
    // A further correction corrects what stands, not the whole chain.
    let third =
        client.ok("store", json!({"content": "The design review moved to Thursday."})).await;
    assert_eq!(third["corrects"], json!([{"id": second["id"], "why": "date changed"}]), "{third}");
    client.close().await;
}

#[tokio::test]
async fn a_close_value_of_a_multi_valued_fact_is_kept_and_reported() {
    let home = TestHome::new();
    let client = home.client().await;
    let first = fact(&client, "Alice", "likes", "blue").await;
    let second = fact(&client, "alice", "likes", "light blue").await;
    assert_eq!(second["status"], "stored", "{second}");
    assert_eq!(second["cardinality"], "many", "{second}");
    assert_eq!(second["ambiguous_with"], json!([first["id"]]), "{second}");
    assert!(second.get("supersedes").is_none(), "{second}");
    let reflection = client.ok("reflect", json!({"namespace": "ops"})).await;
    assert_eq!(reflection["contradictions"], json!([]), "values of `likes` accumulate");
    // Giving `supersedes` settles it.
    let settled = client
        .ok(
            "store",
            json!({"subject": "Alice", "predicate": "likes", "object": "navy", "namespace": "ops", "supersedes": second["id"]}),
        )
        .await;
    assert_eq!(settled["supersedes"], json!([second["id"]]));
    // A single-valued predicate's new value replaces the old, however alike.
    let colour = fact(&client, "Alice", "favourite colour", "blue").await;
    let changed = fact(&client, "alice", "favorite color", "light blue").await;
    assert_eq!(changed["predicate"], "favourite_colour", "{changed}");
    assert_eq!(changed["supersedes"], json!([colour["id"]]), "{changed}");
    assert!(changed.get("ambiguous_with").is_none(), "{changed}");
    let stats = client.ok("stats", json!({"detailed": true})).await;
    assert_eq!(stats["detailed"]["facts"]["superseded"], 2, "{stats}");
    client.close().await;
}

/// How staleness moves with time is the engine's, tested with a clock set
/// by hand (`engine/tests/engine.rs`); here, that MCP carries it.
#[tokio::test]
async fn recall_labels_staleness_and_validates_through_mcp() {
    let home = TestHome::new();
    let client = home.client().await;
    let id = client.store_text("The coffee machine on floor 3 was fixed.", "default").await;
    let asked =
        client.ok("recall", json!({"query": "coffee machine", "include_stale": true})).await;
    assert_eq!(asked["results"][0]["id"], id.as_str(), "{asked}");
    assert_eq!(asked["results"][0]["staleness"], "fresh", "{asked}");
    let reflection = client.ok("reflect", json!({})).await;
    assert_eq!(reflection["stale"], json!([]), "{reflection}");
    let validated = client
        .ok(
            "recall",
            json!({"query": "coffee machine", "include_stale": true, "validate_ids": [id]}),
        )
        .await;
    assert_eq!(validated["validated"], json!([id]));
    let stats = client.ok("stats", json!({"detailed": true})).await;
    assert!(stats["detailed"]["staleness"]["episodic"].is_object(), "{stats}");
    client.close().await;
}

#[tokio::test]
async fn recall_filters_by_time_and_rejects_bad_ranges() {
    let home = TestHome::new();
    let client = home.client().await;
    let id = client.store_text("The quarterly report was sent to the board.", "default").await;
    let today = json!({"query": "quarterly report", "time_range": {"start": "2000-01-01", "end": "2999-01-01"}});
    assert_eq!(result_ids(&client.ok("recall", today).await), vec![id]);
    let past = json!({"query": "quarterly report", "time_range": {"end": "2000-01-01T00:00:00Z"}});
    assert_eq!(client.ok("recall", past).await["count"], 0);
    for bad in [
        json!({"query": "x", "time_range": {"start": "yesterday"}}),
        json!({"query": "x", "time_range": {"start": "2026-02-01", "end": "2026-01-01"}}),
        json!({"query": "x", "time_range": {"from": "2026-01-01"}}),
        json!({"query": "x", "time_range": "2026"}),
        json!({"query": "x", "include_stale": "yes"}),
        json!({"query": "x", "diversity": 2}),
    ] {
        let answer = client.call("recall", bad.clone()).await.unwrap();
        assert!(answer.is_err(), "{bad} was accepted: {answer:?}");
    }
    let diverse = client.ok("recall", json!({"query": "quarterly report", "diversity": 0.5})).await;
    assert_eq!(diverse["count"], 1);
    client.close().await;
}
