//! What the tests that read answers as their types share. Only the test
//! binaries that include this module (or name an answer type) link the
//! engine library, where the answer types live; the others stay small and
//! link fast.

#![allow(dead_code, reason = "each test file uses a part of it")]

use ferrex_engine::answers::RecallAnswer;
use ferrex_tests::Client;
use serde_json::json;

/// The ids of a `recall` answer's results, best first.
pub fn ids(answer: &RecallAnswer) -> Vec<String> {
    answer.results.iter().map(|result| result.memory.id.clone()).collect()
}

/// `recall` of `query` in `namespace`, at most `limit` results.
pub async fn recall(client: &Client, query: &str, namespace: &str, limit: usize) -> RecallAnswer {
    client.answer("recall", json!({"query": query, "namespace": namespace, "limit": limit})).await
}
