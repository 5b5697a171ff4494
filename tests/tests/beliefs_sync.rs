//! Beliefs across devices that wrote apart: a fact replaced differently on
//! two devices, one entity created under two spellings, and one episode
//! stored twice. Once they sync, every device answers recall, reflect and
//! history alike: the same ids in the same order, the same current fact,
//! the same contradiction, one entity, and the duplicate collapsed; and a
//! text corrected in words on the other device is corrected on both.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use ferrex_tests::{Client, TestHome, eventually, settled_heads};
use serde_json::{Value, json};

const NAMESPACE: &str = "infra";

async fn fact(client: &Client, object: &str) -> Value {
    client
        .ok("store", json!({"subject": "db", "predicate": "version", "object": object, "namespace": NAMESPACE}))
        .await
}

async fn note(client: &Client, content: &str, entities: &[&str]) -> Value {
    client
        .ok("store", json!({"content": content, "entities": entities, "namespace": NAMESPACE}))
        .await
}

/// What a device answers, with the scores left out (they carry the time).
async fn answers(client: &Client) -> Value {
    let mut recalled = Vec::new();
    for query in ["which database version do we run", "staging cluster rebuilt", "async runtime"] {
        let found = client
            .ok(
                "recall",
                json!({"query": query, "namespace": NAMESPACE, "include_invalidated": true}),
            )
            .await;
        let results: Vec<Value> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|result| {
                json!({"id": result["id"], "current": result["current"], "contradicts": result["contradicts"], "superseded_by": result["superseded_by"]})
            })
            .collect();
        recalled.push(json!(results));
    }
    let mut reflection = client.ok("reflect", json!({"namespace": NAMESPACE})).await;
    reflection["stale"] = json!(null);
    let history = client
        .ok("history", json!({"subject": "db", "predicate": "version", "namespace": NAMESPACE}))
        .await;
    let stats = client.ok("stats", json!({"detailed": true})).await;
    json!({
        "recall": recalled,
        "contradictions": reflection["contradictions"],
        "history": history["history"].as_array().unwrap().iter().map(|entry| json!({"id": entry["id"], "status": entry["status"]})).collect::<Vec<_>>(),
        "entities": stats["detailed"]["entities"],
        "duplicates": stats["detailed"]["duplicates_collapsed"],
    })
}

/// Each home's documents and heads, for a failure message.
fn heads_of(homes: &[&TestHome]) -> Vec<Value> {
    homes.iter().map(|home| home.sync_status_json()["documents"].clone()).collect()
}

#[tokio::test]
async fn devices_that_wrote_apart_answer_alike_once_synced() {
    let server = TestHome::named("server");
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(laptop.join(&server.invite()).0);
    assert!(desktop.join(&server.invite()).0);

    // Before the partition: postgres 14, known everywhere.
    let on_laptop = laptop.client().await;
    let pg14 = fact(&on_laptop, "postgres 14").await["id"].as_str().unwrap().to_owned();
    let on_desktop = desktop.client().await;
    let arrived = eventually(Duration::from_secs(30), || async {
        on_desktop.recall_ids("database version", NAMESPACE, 5).await.contains(&pg14).then_some(())
    })
    .await;
    assert!(arrived.is_some());
    on_desktop.close().await;

    // Partition: the laptop alone.
    server.stop();
    desktop.stop();
    let pg15 = fact(&on_laptop, "postgres 15").await;
    assert_eq!(pg15["supersedes"], json!([pg14]), "{pg15}");
    let tokio_laptop =
        note(&on_laptop, "The scheduler service runs on the Tokio runtime.", &["Tokio runtime"])
            .await;
    let episode_laptop =
        note(&on_laptop, "The staging cluster was rebuilt from scratch on Friday.", &[]).await;
    let port_laptop = on_laptop
        .ok("store", json!({"subject": "api", "predicate": "port", "object": "8080", "namespace": NAMESPACE}))
        .await;
    on_laptop.close().await;
    laptop.stop();

    // Then the desktop alone, a little later.
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let pg16 = fact(&on_desktop, "postgres 16").await;
    assert_eq!(pg16["supersedes"], json!([pg14]), "{pg16}");
    let tokio_desktop =
        note(&on_desktop, "Blocking inside async tasks stalls tokio.", &["tokio"]).await;
    assert_eq!(
        tokio_desktop["entities"][0]["match"], "new",
        "the desktop has never seen the entity"
    );
    let episode_desktop =
        note(&on_desktop, "The staging cluster was rebuilt from scratch on Friday.", &[]).await;
    assert_eq!(episode_desktop["status"], "stored", "the desktop never saw the laptop's copy");
    let port_desktop = on_desktop
        .ok("store", json!({"subject": "api", "predicate": "port", "object": "8080", "namespace": NAMESPACE}))
        .await;
    assert_eq!(port_desktop["status"], "stored");

    // Everyone back.
    let on_server = server.client().await;
    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop, &on_server];
    let homes = [&laptop, &desktop, &server];
    // Settled: equal heads everywhere, unchanged while the answers are
    // read, and the answers equal and as counted below.
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        let mut seen = Vec::new();
        for client in clients {
            seen.push(answers(client).await);
        }
        let counted = seen.iter().all(|answer| {
            answer["entities"]["distinct"] == 3
                && answer["entities"]["records"] == 5
                && answer["duplicates"] == 2
        });
        let same = seen.iter().all(|answer| *answer == seen[0]);
        (counted && same && settled_heads(&homes)? == heads).then(|| seen.remove(0))
    })
    .await;
    let Some(answer) = agreed else {
        let mut seen = Vec::new();
        for client in clients {
            seen.push(answers(client).await);
        }
        panic!("the devices never settled: heads {:?}, answers {seen:?}", heads_of(&homes));
    };

    // The same current fact everywhere: postgres 16, stored last; postgres
    // 15 contradicts it; postgres 14 was replaced by both.
    // The same fact stored on both is one fact, not a contradiction.
    assert_eq!(answer["contradictions"].as_array().unwrap().len(), 1, "{answer}");
    let contradiction = &answer["contradictions"][0];
    let facts = contradiction["facts"].as_array().unwrap();
    assert_eq!(facts.len(), 2, "{answer}");
    assert_eq!(facts[0]["id"], pg16["id"]);
    assert_eq!(facts[0]["current"], true);
    assert_eq!(facts[1]["id"], pg15["id"]);
    assert_eq!(contradiction["across_devices"], true);
    let history: Vec<&Value> =
        answer["history"].as_array().unwrap().iter().map(|entry| &entry["id"]).collect();
    assert_eq!(history, [&json!(pg14), &pg15["id"], &pg16["id"]], "{answer}");
    // One entity for the two spellings of tokio, one for the api created
    // on both devices, and the database's own.
    assert_eq!(answer["entities"]["records"], 5, "{answer}");
    assert_eq!(answer["entities"]["distinct"], 3, "{answer}");
    // The episode and the fact stored on both devices are one memory each:
    // the older copy.
    assert_eq!(answer["duplicates"], 2, "{answer}");
    for client in clients {
        let found = client.ok("recall", json!({"query": "api port", "namespace": NAMESPACE})).await;
        let ports: Vec<&Value> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|result| result["subject"] == "api")
            .collect();
        assert_eq!(ports.len(), 1, "{found}");
        assert_eq!(ports[0]["id"], port_laptop["id"], "the older copy stands");
        assert_eq!(ports[0]["current"], true);
    }
    let episode = &answer["recall"][1];
    let episode_ids: Vec<&Value> =
        episode.as_array().unwrap().iter().map(|result| &result["id"]).collect();
    assert!(episode_ids.contains(&&episode_laptop["id"]), "{answer}");
    assert!(
        !episode_ids.contains(&&episode_desktop["id"]),
        "the younger copy is collapsed: {answer}"
    );
    // Both tokio memories are found through either spelling.
    for client in clients {
        let found = client
            .ok("recall", json!({"query": "tokio", "namespace": NAMESPACE, "entities": ["tokio"], "limit": 10}))
            .await;
        let found_ids: Vec<&Value> =
            found["results"].as_array().unwrap().iter().map(|result| &result["id"]).collect();
        assert!(
            found_ids.contains(&&tokio_laptop["id"]) && found_ids.contains(&&tokio_desktop["id"]),
            "{found}"
        );
    }
    on_laptop.close().await;
    on_desktop.close().await;
    on_server.close().await;
}

/// Everything two devices answer about one attribute, scores left out.
async fn colour_answers(client: &Client) -> Value {
    let mut histories = Vec::new();
    for predicate in ["favourite colour", "favorite color"] {
        let history = client
            .ok(
                "history",
                json!({"subject": "Zed", "predicate": predicate, "namespace": NAMESPACE}),
            )
            .await;
        histories.push(json!(history["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| json!({"id": entry["id"], "status": entry["status"], "object": entry["object"]}))
            .collect::<Vec<_>>()));
    }
    let found =
        client.ok("recall", json!({"query": "Zed favourite colour", "namespace": NAMESPACE})).await;
    let current: Vec<Value> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| {
            result["subject"].as_str().is_some_and(|subject| subject.eq_ignore_ascii_case("zed"))
                && result["current"] == true
        })
        .map(|result| result["object"].clone())
        .collect();
    json!({"histories": histories, "current": current})
}

#[tokio::test]
async fn one_attribute_stored_under_two_wordings_apart_is_one_fact_once_synced() {
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    // Apart: the laptop writes British, then the desktop, later, American.
    desktop.stop();
    let on_laptop = laptop.client().await;
    let blue = on_laptop
        .ok("store", json!({"subject": "Zed", "predicate": "favourite colour", "object": "blue", "namespace": NAMESPACE}))
        .await;
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let green = on_desktop
        .ok("store", json!({"subject": "zed", "predicate": "favorite color", "object": "green", "namespace": NAMESPACE}))
        .await;
    assert_eq!(green["predicate"], "favorite_color", "the desktop never saw the other wording");
    assert_eq!(green["predicate_match"], "new");

    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop];
    let homes = [&laptop, &desktop];
    // Settled: equal heads on both, unchanged while the answers are read,
    // and both wordings joined on both.
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        let mut seen = Vec::new();
        for client in clients {
            seen.push(colour_answers(client).await);
        }
        let joined = seen[0]["histories"][0].as_array().is_some_and(|list| list.len() == 2)
            && seen[0]["histories"][0] == seen[0]["histories"][1];
        (joined && seen[0] == seen[1] && settled_heads(&homes)? == heads).then(|| seen.remove(0))
    })
    .await;
    let Some(answer) = agreed else {
        let (here, there) = (colour_answers(&on_laptop).await, colour_answers(&on_desktop).await);
        panic!("the devices never settled: heads {:?}, {here} / {there}", heads_of(&homes));
    };
    // One attribute: either wording shows both values, the later current,
    // the other contested (written apart, so neither replaced the other).
    assert_eq!(answer["histories"][0], answer["histories"][1], "{answer}");
    let history = answer["histories"][0].as_array().unwrap();
    assert_eq!(history[0]["id"], blue["id"], "{answer}");
    assert_eq!(history[0]["status"], "contested", "{answer}");
    assert_eq!(history[1]["id"], green["id"], "{answer}");
    assert_eq!(history[1]["status"], "current", "{answer}");
    assert_eq!(answer["current"], json!(["green"]), "{answer}");
    // And a third store on either device is filed under the older wording.
    let red = on_laptop
        .ok("store", json!({"subject": "Zed", "predicate": "favorite color", "object": "red", "namespace": NAMESPACE}))
        .await;
    let mut replaced: Vec<&str> =
        red["supersedes"].as_array().unwrap().iter().map(|id| id.as_str().unwrap()).collect();
    replaced.sort_unstable();
    let mut both = [blue["id"].as_str().unwrap(), green["id"].as_str().unwrap()];
    both.sort_unstable();
    assert_eq!(replaced, both, "{red}");
    on_laptop.close().await;
    on_desktop.close().await;
}

/// The facts of `predicate` about Kit, as (object, status).
async fn stack(client: &Client, predicate: &str) -> Vec<(Value, Value)> {
    let history = client
        .ok("history", json!({"subject": "Kit", "predicate": predicate, "namespace": NAMESPACE}))
        .await;
    history["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| (entry["object"].clone(), entry["status"].clone()))
        .collect()
}

#[tokio::test]
async fn devices_with_other_synonym_groups_agree_on_one_attribute() {
    // Only the laptop knows that "tech stack" is "stack".
    let laptop = TestHome::with_config(
        "[node]\nname = \"laptop\"\n[predicates]\nstack = [\"tech stack\"]\n",
    );
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    desktop.stop();
    let on_laptop = laptop.client().await;
    let rust = on_laptop
        .ok("store", json!({"subject": "Kit", "predicate": "tech stack", "object": "Rust", "namespace": NAMESPACE}))
        .await;
    assert_eq!(rust["predicate"], "stack", "{rust}");
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let go = on_desktop
        .ok("store", json!({"subject": "Kit", "predicate": "tech stack", "object": "Go", "namespace": NAMESPACE}))
        .await;
    assert_eq!(go["predicate"], "tech_stack", "{go}");

    let on_laptop = laptop.client().await;
    let homes = [&laptop, &desktop];
    // Settled: equal heads on both, unchanged while the histories are read,
    // and equal under either wording on the desktop.
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        let (here, there) =
            (stack(&on_laptop, "tech stack").await, stack(&on_desktop, "tech stack").await);
        let other_wording = stack(&on_desktop, "stack").await;
        (here.len() == 2
            && here == there
            && other_wording == here
            && settled_heads(&homes)? == heads)
            .then_some(here)
    })
    .await;
    let Some(history) = agreed else {
        let (here, there) =
            (stack(&on_laptop, "tech stack").await, stack(&on_desktop, "tech stack").await);
        panic!("the devices never settled: heads {:?}, {here:?} / {there:?}", heads_of(&homes));
    };
    // The laptop judged the desktop's wording its own attribute; the
    // desktop, which could not, took the laptop's word for it.
    assert_eq!(history[0], (json!("Rust"), json!("contested")), "{history:?}");
    assert_eq!(history[1], (json!("Go"), json!("current")), "{history:?}");
    assert_eq!(stack(&on_desktop, "stack").await, history);
    on_laptop.close().await;
    on_desktop.close().await;
}

/// What a device says of a text and its correction in words: which comes
/// first for the question, what corrected the older, how many versions
/// its history holds.
async fn correction_answers(client: &Client, old: &Value) -> Value {
    let found = client
        .ok(
            "recall",
            json!({"query": "which region is the analytics warehouse in", "namespace": NAMESPACE}),
        )
        .await;
    let results = found["results"].as_array().unwrap();
    let older = results.iter().find(|result| result["id"] == *old);
    let history = client.ok("history", json!({"id": old, "namespace": NAMESPACE})).await;
    json!({
        "first": results.first().map(|result| result["id"].clone()),
        "corrected_by": older.map(|result| result["corrected_by"].clone()),
        "versions": history["count"],
    })
}

#[tokio::test]
async fn text_corrected_in_words_while_apart_is_corrected_on_both_once_synced() {
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    // Apart: the laptop stores where the warehouse runs; the desktop, later,
    // that it moved, never having seen the first.
    desktop.stop();
    let on_laptop = laptop.client().await;
    let old = note(&on_laptop, "The analytics warehouse runs in GCP's us-central1.", &[]).await;
    note(&on_laptop, "The release checklist lives in the wiki.", &[]).await;
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let new = note(
        &on_desktop,
        "The analytics warehouse migrated to europe-west4 last quarter for data residency.",
        &[],
    )
    .await;
    assert!(new.get("corrects").is_none(), "the desktop never saw the older text: {new}");

    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop];
    let homes = [&laptop, &desktop];
    let expected = json!({"first": new["id"], "corrected_by": [new["id"]], "versions": 2});
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        for client in clients {
            if correction_answers(client, &old["id"]).await != expected {
                return None;
            }
        }
        (settled_heads(&homes)? == heads).then_some(())
    })
    .await;
    if agreed.is_none() {
        let here = correction_answers(&on_laptop, &old["id"]).await;
        let there = correction_answers(&on_desktop, &old["id"]).await;
        panic!(
            "the devices never agreed on {expected}: {here} / {there}, heads {:?}",
            heads_of(&homes)
        );
    }
    on_laptop.close().await;
    on_desktop.close().await;
}
