//! Beliefs through MCP on one node: that the tools carry what the engine
//! decides (staleness labels, validation, time filters) and refuse what is
//! malformed. What the engine decides about beliefs — supersession,
//! entities, near duplicates, corrections — is tested in process with the
//! real model, in `engine/tests/beliefs.rs`.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod typed;

use ferrex_engine::answers::{RecallAnswer, ReflectAnswer, StatsAnswer};
use ferrex_tests::TestHome;
use serde_json::json;
use typed::ids;

/// How staleness moves with time is the engine's, tested with a clock set
/// by hand (`engine/tests/engine.rs`); here, that MCP carries it.
#[tokio::test]
async fn recall_labels_staleness_and_validates_through_mcp() {
    let home = TestHome::new();
    let client = home.client().await;
    let id = client.store_text("The coffee machine on floor 3 was fixed.", "default").await;
    let asked: RecallAnswer =
        client.answer("recall", json!({"query": "coffee machine", "include_stale": true})).await;
    assert_eq!(ids(&asked), [id.as_str()]);
    assert_eq!(asked.results[0].staleness, "fresh");
    let reflection: ReflectAnswer = client.answer("reflect", json!({})).await;
    assert!(reflection.stale.is_empty(), "{reflection:?}");
    let validated: RecallAnswer = client
        .answer(
            "recall",
            json!({"query": "coffee machine", "include_stale": true, "validate_ids": [id]}),
        )
        .await;
    assert_eq!(validated.validated, Some(vec![id]));
    let stats: StatsAnswer = client.answer("stats", json!({"detailed": true})).await;
    assert!(stats.detailed.unwrap().staleness.contains_key("episodic"));
    client.close().await;
}

#[tokio::test]
async fn recall_filters_by_time_and_rejects_bad_ranges() {
    let home = TestHome::new();
    let client = home.client().await;
    let id = client.store_text("The quarterly report was sent to the board.", "default").await;
    let today = json!({"query": "quarterly report", "time_range": {"start": "2000-01-01", "end": "2999-01-01"}});
    assert_eq!(ids(&client.answer("recall", today).await), [id]);
    let past = json!({"query": "quarterly report", "time_range": {"end": "2000-01-01T00:00:00Z"}});
    assert_eq!(client.answer::<RecallAnswer>("recall", past).await.count, 0);
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
    let diverse: RecallAnswer =
        client.answer("recall", json!({"query": "quarterly report", "diversity": 0.5})).await;
    assert_eq!(diverse.count, 1);
    client.close().await;
}
