//! Vectors from a peer: a fresh device takes the vectors of what it
//! receives from a paired device running the same model (checked by
//! embedding a sample itself) instead of embedding everything, and embeds
//! by itself when the peer shares none or runs another model. Real
//! `ferrex` processes on loopback, the real models.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use ferrex_tests::{Client, TestHome, eventually, look_alike_notes as texts};
use serde_json::{Value, json};

/// How long a fresh device may take to receive and embed what it is sent.
const CATCH_UP: Duration = Duration::from_secs(120);

async fn stats_of(client: &Client) -> Value {
    client.ok("stats", json!({})).await
}

/// Waits until `client`'s node holds `count` memories, every one with all
/// its vectors; returns its stats then.
async fn caught_up(client: &Client, count: u64) -> Option<Value> {
    eventually(CATCH_UP, || async {
        let stats = stats_of(client).await;
        let lag = &stats["index_lag"];
        (stats["memories"] == count && lag["embeddings_queued"] == 0 && lag["passages_queued"] == 0)
            .then_some(stats)
    })
    .await
}

const QUERIES: [&str; 4] = [
    "who is responsible for billing now",
    "which system had trouble with an expired certificate",
    "where do we keep the operational procedures",
    "what fills up the disk",
];

async fn answers(client: &Client) -> Vec<Vec<String>> {
    let mut answers = Vec::new();
    for query in QUERIES {
        answers.push(client.recall_ids(query, "work", 10).await);
    }
    answers
}

/// Stores `count` memories on a device, and has a fresh device join it.
async fn fresh_device_joins(source: &TestHome, fresh: &TestHome, count: usize) -> (Client, Client) {
    let on_source = source.client().await;
    for text in texts(count) {
        on_source.store_text(&text, "work").await;
    }
    assert!(caught_up(&on_source, count as u64).await.is_some(), "the source never embedded");
    let on_fresh = fresh.client().await;
    let (ok, stderr) = fresh.join(&source.invite());
    assert!(ok, "could not join: {stderr}");
    (on_source, on_fresh)
}

#[tokio::test]
async fn a_fresh_device_takes_vectors_from_a_peer_running_the_same_model() {
    let source = TestHome::named("source");
    // The fresh device leaves what it lacks to its peer for up to two
    // minutes before embedding it itself, so what it takes does not depend
    // on which of the two is faster.
    let fresh =
        TestHome::with_config("[node]\nname = \"fresh\"\n[embed]\npeer_vectors_wait_ms = 120000\n");
    let count = 200;
    let (on_source, on_fresh) = fresh_device_joins(&source, &fresh, count).await;
    let stats = caught_up(&on_fresh, count as u64).await.expect("the fresh device caught up");
    let from_peers = stats["index_lag"]["vectors_from_peers"].as_u64().unwrap();
    // Vectors are taken from the highest row and the worker (had it not
    // waited) embeds from the lowest: most of them arrive from the peer.
    assert!(
        from_peers >= count as u64 / 2 && from_peers <= count as u64,
        "{from_peers} of {count} memories got their vectors from the peer: {stats}"
    );
    assert_eq!(stats_of(&on_source).await["index_lag"]["vectors_from_peers"], 0);
    // Same documents, same answers (invariant 2): the vectors taken are
    // as good as those computed here.
    let (here, there) = (answers(&on_fresh).await, answers(&on_source).await);
    assert!(here.iter().all(|ids| !ids.is_empty()), "{here:?}");
    assert_eq!(here, there, "the fresh device answers as its peer does");
    on_fresh.close().await;
    on_source.close().await;
}

#[tokio::test]
async fn a_device_that_shares_no_vectors_leaves_the_fresh_device_to_embed_everything() {
    let source = TestHome::with_config("share_vectors = false\n[node]\nname = \"source\"\n");
    let fresh = TestHome::named("fresh");
    let count = 120;
    let (on_source, on_fresh) = fresh_device_joins(&source, &fresh, count).await;
    let stats = caught_up(&on_fresh, count as u64).await.expect("the fresh device caught up");
    assert_eq!(stats["index_lag"]["vectors_from_peers"], 0, "{stats}");
    let (here, there) = (answers(&on_fresh).await, answers(&on_source).await);
    assert!(here.iter().all(|ids| !ids.is_empty()), "{here:?}");
    assert_eq!(here, there);
    on_fresh.close().await;
    on_source.close().await;
}

#[tokio::test]
async fn devices_running_different_models_each_embed_what_they_receive() {
    let source =
        TestHome::with_config("[node]\nname = \"source\"\n[embed]\nmodel = \"bge-small\"\n");
    let fresh = TestHome::named("fresh");
    // Enough for the fresh device to ask its peer for vectors (a backlog of
    // at least `peer_vectors::MIN_BACKLOG`, 48): the peer runs another model.
    let count = 120;
    let (on_source, on_fresh) = fresh_device_joins(&source, &fresh, count).await;
    let stats = caught_up(&on_fresh, count as u64).await.expect("the fresh device caught up");
    assert!(stats["model"].as_str().unwrap().starts_with("all-MiniLM-L6-v2"), "{stats}");
    assert_eq!(
        stats["index_lag"]["vectors_from_peers"], 0,
        "took another model's vectors: {stats}"
    );

    // What one device stores reaches the other, which embeds it with its
    // own model and finds it by meaning (a few memories: too few to ask
    // for). Their own namespace, away from the look-alike notes.
    let ops = [
        "The staging database is refreshed from a production snapshot every Sunday night.",
        "New engineers get VPN access from the IT helpdesk after their first week.",
        "The on-call rotation changes every Monday at ten and is posted in the team channel.",
        "Our office plants are watered by the facilities team on Wednesdays.",
    ];
    let mut ids = Vec::new();
    for text in ops {
        ids.push(on_fresh.store_text(text, "ops").await);
    }
    // No word in common with the memory it asks about.
    let query = "how current is the data in the pre-prod DB";
    let found = eventually(CATCH_UP, || async {
        let stats = stats_of(&on_source).await;
        let lag = &stats["index_lag"];
        let all = (count + ops.len()) as u64;
        if stats["memories"] != all || lag["embeddings_queued"] != 0 {
            return None;
        }
        Some(on_source.recall_ids(query, "ops", 4).await)
    })
    .await
    .expect("the memories reached the source and were embedded there");
    assert_eq!(found.first(), Some(&ids[0]), "{query:?} on the bge-small device: {found:?}");
    assert_eq!(found.len(), ops.len(), "every memory has its vector there: {found:?}");
    let source_stats = stats_of(&on_source).await;
    assert!(source_stats["model"].as_str().unwrap().starts_with("bge-small-en-v1.5"));
    assert_eq!(source_stats["index_lag"]["vectors_from_peers"], 0, "{source_stats}");
    let here = on_fresh.recall_ids(query, "ops", 4).await;
    assert_eq!(here.first(), Some(&ids[0]), "{query:?} on the minilm device: {here:?}");
    on_fresh.close().await;
    on_source.close().await;
}
