//! What the tests that read answers as their types share. Only the test
//! binaries that include this module (or name an answer type) link the
//! engine library, where the answer types live; the others stay small and
//! link fast.

#![allow(dead_code, reason = "each test file uses a part of it")]

use ferrex_engine::answers::{RecallAnswer, status::SyncStatus};
use ferrex_tests::{Client, TestHome};
use serde_json::json;

/// The ids of a `recall` answer's results, best first.
pub fn ids(answer: &RecallAnswer) -> Vec<String> {
    answer.results.iter().map(|result| result.memory.id.clone()).collect()
}

/// `recall` of `query` in `namespace`, at most `limit` results.
pub async fn recall(client: &Client, query: &str, namespace: &str, limit: usize) -> RecallAnswer {
    client.answer("recall", json!({"query": query, "namespace": namespace, "limit": limit})).await
}

/// `ferrex peers --json`, read as its type.
pub fn peers(home: &TestHome) -> SyncStatus {
    serde_json::from_value(home.peers_json()).expect("ferrex peers --json reads as SyncStatus")
}

/// `ferrex sync status --json`, read as its type.
pub fn sync_status(home: &TestHome) -> SyncStatus {
    serde_json::from_value(home.sync_status_json())
        .expect("ferrex sync status --json reads as SyncStatus")
}
