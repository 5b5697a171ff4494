//! The knowledge graph across two devices that edited it while apart: both
//! state one relation (each statement counted once, the weight summed), one
//! links a memory the other forgets (the link goes everywhere, its note
//! from every file), and both edit one memory's bookkeeping at once (both
//! edits kept). Once synced, both answer `graph`, `entity` and `recall`
//! alike.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use ferrex_tests::{Client, TestHome, eventually, settled_heads};
use serde_json::{Value, json};

const NAMESPACE: &str = "eng";

async fn link(client: &Client, from: &str, relation: &str, to: &str, note: Option<&str>) -> Value {
    client
        .ok(
            "link",
            json!({"from": from, "to": to, "relation": relation, "note": note, "namespace": NAMESPACE}),
        )
        .await
}

/// What a device answers about the graph and the edited memory.
async fn answers(client: &Client, note: &str, edited: &str) -> Value {
    let walked =
        client.ok("graph", json!({"from": "ferrex", "depth": 2, "namespace": NAMESPACE})).await;
    let around = client.ok("graph", json!({"from": note, "namespace": NAMESPACE})).await;
    let story = client.ok("entity", json!({"name": "ferrex", "namespace": NAMESPACE})).await;
    let found = client
        .ok("recall", json!({"query": "release train schedule", "namespace": NAMESPACE}))
        .await;
    let memory = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|result| result["id"] == edited)
        .cloned()
        .unwrap_or(Value::Null);
    let mut tags: Vec<String> = memory["tags"]
        .as_array()
        .map(|tags| tags.iter().map(|tag| tag.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default();
    tags.sort();
    json!({
        "graph": {"nodes": walked["nodes"], "edges": walked["edges"]},
        "around": around["nodes"].as_array().unwrap().len(),
        "story": story["edges"],
        "tags": tags,
        "confidence": memory["confidence"],
    })
}

#[tokio::test]
async fn a_graph_edited_apart_is_the_same_graph_on_both_once_synced() {
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    let on_laptop = laptop.client().await;
    let on_desktop = desktop.client().await;
    let doomed = on_laptop.store_text("The shared build cache lives on the NAS.", NAMESPACE).await;
    let note = on_laptop.store_text("CI jobs time out when the NAS is slow.", NAMESPACE).await;
    let edited =
        on_laptop.store_text("The release train leaves every second Tuesday.", NAMESPACE).await;
    let shared = eventually(Duration::from_secs(60), || async {
        settled_heads(&[&laptop, &desktop])?;
        let found = on_desktop.recall_ids("release train schedule", NAMESPACE, 5).await;
        found.contains(&edited).then_some(())
    })
    .await;
    assert!(shared.is_some(), "the desktop never received the laptop's memories");
    on_desktop.close().await;
    desktop.stop();

    // Apart, the laptop: one statement of depends_on, a link to the memory
    // the desktop will forget, a tag.
    link(&on_laptop, "ferrex", "uses", "automerge", None).await;
    link(&on_laptop, "ferrex", "owned_by", "platform team", None).await;
    let secret_note = "the NAS share is called tank-builds";
    link(&on_laptop, &note, "caused_by", &doomed, Some(secret_note)).await;
    on_laptop.ok("update", json!({"id": edited, "tags": ["ops"]})).await;
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;

    // Apart, the desktop: the same relation stated twice, the forget, and
    // another tag and a confidence on the same memory.
    let on_desktop = desktop.client().await;
    link(&on_desktop, "Ferrex", "depends_on", "Automerge", None).await;
    let again = link(&on_desktop, "ferrex", "depends on", "automerge", None).await;
    assert_eq!(again["reinforced"], true, "{again}");
    assert_eq!(again["edge"]["weight"], 2, "{again}");
    on_desktop.ok("forget", json!({"ids": [doomed]})).await;
    on_desktop.ok("update", json!({"id": edited, "tags": ["prod"], "confidence": 0.6})).await;

    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop];
    let homes = [&laptop, &desktop];
    let agreed = eventually(Duration::from_secs(90), || async {
        let heads = settled_heads(&homes)?;
        let here = answers(&on_laptop, &note, &edited).await;
        for client in clients {
            if answers(client, &note, &edited).await != here {
                return None;
            }
        }
        (settled_heads(&homes)? == heads).then_some(here)
    })
    .await;
    let Some(agreed) = agreed else {
        let here = answers(&on_laptop, &note, &edited).await;
        let there = answers(&on_desktop, &note, &edited).await;
        panic!("the devices never agreed: {here} / {there}");
    };
    // One edge for both spellings, every statement counted once: the
    // laptop's one and the desktop's two.
    let depends: Vec<&Value> = agreed["graph"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|edge| edge["relation"] == "depends_on")
        .collect();
    assert_eq!(depends.len(), 1, "{agreed}");
    assert_eq!(depends[0]["weight"], 3, "{agreed}");
    assert_eq!(depends[0]["by"], json!(["desktop", "laptop"]), "{agreed}");
    assert_eq!(agreed["graph"]["nodes"].as_array().unwrap().len(), 3, "{agreed}");
    // The forgotten memory's link is gone on both, and so is its note.
    assert_eq!(agreed["around"], 1, "{agreed}");
    for home in homes {
        assert!(
            home.files_containing(secret_note).is_empty(),
            "{:?}",
            home.files_containing(secret_note)
        );
        assert!(home.files_containing("shared build cache").is_empty());
    }
    // Both edits of the memory's bookkeeping are kept.
    assert_eq!(agreed["tags"], json!(["ops", "prod"]), "{agreed}");
    assert_eq!(agreed["confidence"], 0.6, "{agreed}");
    on_laptop.close().await;
    on_desktop.close().await;
}
