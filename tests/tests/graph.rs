//! The knowledge graph through MCP on one node: the graph tools carry what
//! the engine decides of entities (`engine/tests/graph.rs` tests that in
//! process), `link` between memories, `update` (a new version, an edit in
//! place), forgetting that takes versions and links with it, and recall
//! that reaches through the graph.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod typed;

use ferrex_engine::answers::{
    ForgetAnswer, HistoryAnswer, RecallAnswer, StatsAnswer,
    graph::{EntityAnswer, GraphAnswer, LinkAnswer, UpdateAnswer},
};
use ferrex_tests::{Client, TestHome};
use serde_json::{Value, json};
use typed::ids;

const NAMESPACE: &str = "eng";

async fn link(client: &Client, from: &str, relation: &str, to: &str) -> LinkAnswer {
    client
        .answer(
            "link",
            json!({"from": from, "to": to, "relation": relation, "namespace": NAMESPACE}),
        )
        .await
}

async fn error(client: &Client, tool: &str, arguments: Value) -> String {
    match client.call(tool, arguments.clone()).await.unwrap() {
        Ok(answer) => panic!("{tool} {arguments} succeeded: {answer}"),
        Err(message) => message,
    }
}

async fn walk(client: &Client, from: &str) -> GraphAnswer {
    client.answer("graph", json!({"from": from, "namespace": NAMESPACE})).await
}

/// What the engine decides of entities, walks and stories is tested in
/// process (`engine/tests/graph.rs`); here, that MCP carries it, with the
/// devices named as the registry names them.
#[tokio::test]
async fn entities_are_linked_walked_and_told_through_mcp() {
    let home = TestHome::named("laptop");
    let client = home.client().await;
    let first: LinkAnswer = client
        .answer("link", json!({"from": "ferrex", "to": "Automerge", "relation": "uses", "namespace": NAMESPACE}))
        .await;
    assert_eq!((first.edge.relation.as_str(), first.edge.weight), ("depends_on", 1));
    assert_eq!(first.edge.by, ["laptop"]);
    let again: LinkAnswer = client
        .answer("link", json!({"from": "Ferrex", "to": "automerge", "relation": "depends on", "namespace": NAMESPACE}))
        .await;
    assert!(again.reinforced && again.id == first.id, "{again:?}");
    let walked = walk(&client, "ferrex").await;
    let labels: Vec<&str> = walked.nodes.iter().map(|node| node.label.as_str()).collect();
    assert_eq!(labels, ["ferrex", "Automerge"]);
    let story: EntityAnswer =
        client.answer("entity", json!({"name": "FERREX", "namespace": NAMESPACE})).await;
    assert_eq!((story.node.label.as_str(), story.relations_total), ("ferrex", 1));
    assert!(error(&client, "graph", json!({"from": "ferrex", "depth": 6})).await.contains("depth"));
    client.close().await;
}

#[tokio::test]
async fn memories_linked_updated_and_forgotten_with_their_versions_and_links() {
    let home = TestHome::named("laptop");
    let client = home.client().await;
    let bug = client
        .store_text("The nightly build fails on the ARM runner with a linker error.", NAMESPACE)
        .await;
    let fix = client
        .store_text("Pinned the linker to lld 17 in the ARM toolchain file.", NAMESPACE)
        .await;
    let postmortem = client
        .store_text("Postmortem: toolchain drift broke ARM builds for two days.", NAMESPACE)
        .await;
    let fixed = link(&client, &bug, "fixed by", &fix).await;
    assert_eq!(fixed.edge.relation, "fixed_by", "{fixed:?}");
    assert_eq!(fixed.nodes[1].kind, "memory");
    link(&client, &postmortem, "derived_from", &bug).await;
    let walked = walk(&client, &bug).await;
    assert_eq!(walked.nodes.len(), 3, "{walked:?}");
    // A link between memories is read through graph, not recalled.
    let recalled = client.recall_ids("linker ARM fixed_by", NAMESPACE, 10).await;
    assert!(!recalled.contains(&fixed.id), "{recalled:?}");
    assert!(
        error(&client, "link", json!({"from": bug, "to": "ferrex", "relation": "relates_to"}))
            .await
            .contains("both")
    );

    // A change of bookkeeping edits in place.
    let edited: UpdateAnswer = client
        .answer(
            "update",
            json!({"id": fix, "tags": ["arm", "toolchain"], "confidence": 0.8, "importance": 0.9}),
        )
        .await;
    assert_eq!(edited.id, fix, "{edited:?}");
    assert!(edited.replaces.is_none());
    let shown = typed::recall(&client, "linker lld toolchain", NAMESPACE, 10).await;
    let row = &shown.results.iter().find(|row| row.memory.id == fix).unwrap().memory;
    let mut tags: Vec<&str> = row.tags.iter().map(String::as_str).collect();
    tags.sort_unstable();
    assert_eq!(tags, ["arm", "importance:0.90", "toolchain"], "{row:?}");
    assert!((row.confidence - 0.8).abs() < 1e-9, "{row:?}");
    // A change of meaning is a new version; history keeps the old.
    let version: UpdateAnswer = client
        .answer(
            "update",
            json!({"id": fix, "content": "Pinned the linker to lld 18 in the ARM toolchain file."}),
        )
        .await;
    let new_fix = version.id.clone();
    assert_eq!(version.replaces.as_deref(), Some(fix.as_str()), "{version:?}");
    let history: HistoryAnswer =
        client.answer("history", json!({"id": new_fix, "namespace": NAMESPACE})).await;
    assert_eq!(history.count, 2, "{history:?}");
    let found = client.recall_ids("which lld version pins the ARM linker", NAMESPACE, 5).await;
    assert_eq!(found.first(), Some(&new_fix), "{found:?}");
    assert!(!found.contains(&fix), "the old version is superseded: {found:?}");

    // Clear errors, nothing changed.
    assert!(
        error(
            &client,
            "update",
            json!({"id": "0190b0a0-0000-7000-8000-000000000000", "content": "x"})
        )
        .await
        .contains("does not exist")
    );
    assert!(
        error(&client, "update", json!({"id": new_fix, "subject": "x"})).await.contains("content")
    );
    assert!(
        error(
            &client,
            "update",
            json!({"id": new_fix, "tags": ["arm", "toolchain", "importance:0.90"]})
        )
        .await
        .contains("nothing to change")
    );

    // Forgetting the new version forgets the old, and the link that named the old.
    let forgotten: ForgetAnswer = client.answer("forget", json!({"ids": [new_fix]})).await;
    assert_eq!(forgotten.forgotten, [new_fix.as_str()], "{forgotten:?}");
    assert!(
        error(&client, "update", json!({"id": fix, "confidence": 0.1})).await.contains("forgotten")
    );
    let walked = walk(&client, &bug).await;
    assert_eq!(walked.nodes.len(), 2, "only the postmortem stays linked: {walked:?}");
    assert!(home.files_containing("lld 17").is_empty(), "{:?}", home.files_containing("lld 17"));
    assert!(home.files_containing("lld 18").is_empty());
    let stats: StatsAnswer = client.answer("stats", json!({})).await;
    assert_eq!(stats.forgotten, 3, "both versions and the link");
    client.close().await;
}

#[tokio::test]
async fn an_update_that_races_a_forget_leaves_no_version_behind() {
    let home = TestHome::named("laptop");
    let writer = home.client().await;
    let forgetter = home.client().await;
    // Bounded: ten rounds, each a race of one update and one forget.
    for round in 0..10 {
        let id = writer
            .store_text(
                &format!("Round {round}: the staging database is db-{round}.internal."),
                NAMESPACE,
            )
            .await;
        let content = format!("Round {round}: the staging database moved to pg-{round}.internal.");
        let (updated, forgot) = tokio::join!(
            writer.call("update", json!({"id": id, "content": content})),
            forgetter.call("forget", json!({"ids": [id]})),
        );
        let forgot: ForgetAnswer = serde_json::from_value(forgot.unwrap().unwrap()).unwrap();
        assert_eq!(forgot.forgotten, [id.as_str()]);
        match updated.unwrap() {
            Ok(answer) => {
                // The update won the race: its version went with the forget.
                let new = serde_json::from_value::<UpdateAnswer>(answer.clone()).unwrap().id;
                let again =
                    writer.call("update", json!({"id": new, "confidence": 0.5})).await.unwrap();
                assert!(
                    again.is_err(),
                    "round {round}: the new version outlived the forget: {answer}"
                );
            }
            Err(message) => assert!(message.contains("forgotten"), "round {round}: {message}"),
        }
        assert!(home.files_containing(&format!("pg-{round}.internal")).is_empty(), "round {round}");
    }
    writer.close().await;
    forgetter.close().await;
}

/// Look-alikes of the two questions below: they share the questions' words
/// and none of them answers either.
const LOOK_ALIKES: &[&str] = &[
    "Checkout times out on CI when the test runner is overloaded.",
    "Call the card vendor's support line when checkout fails with declined cards.",
    "The checkout timeout is set to 30 seconds in the gateway config.",
    "When the checkout page is slow, look at the CDN cache hit rate first.",
    "Who to call for VPN problems: the IT helpdesk.",
    "Checkout page load times doubled after the new font was added.",
    "Call timeouts in the SDK default to ten seconds.",
    "Database timeouts during checkout were traced to a missing index.",
    "The nightly export job runs at 02:00 on the reporting host.",
    "Export crashes on Windows were caused by paths longer than 260 characters.",
    "Resolved the crash in the PDF renderer by upgrading the library.",
    "The reporting host has 8 GB of memory and no swap.",
    "The nightly backup job crashed twice last month and was resolved by a retry.",
];

/// Graph-aware recall (on by default): a question whose words name one
/// memory also finds what the graph joins to it (through an entity both
/// mention, or a link between them), which shares none of its words; with
/// `graph_weight = 0` it ranks lower, out of the first three; a forgotten
/// link joins nothing (the fix ranks as without the graph).
#[tokio::test]
async fn recall_reaches_through_entities_and_links_when_the_graph_is_weighed() {
    // Where the owner and the fix rank (0-based, of ten), without the graph
    // and with it.
    let mut ranks: Vec<(usize, usize)> = Vec::new();
    for weighed in [false, true] {
        let home = match weighed {
            false => TestHome::with_config("[memory]\ngraph_weight = 0\n"),
            true => TestHome::new(),
        };
        let client = home.client().await;
        let store = |content: &'static str, entities: &'static [&'static str]| {
            let client = &client;
            async move {
                client
                    .answer::<ferrex_engine::answers::StoreAnswer>(
                        "store",
                        json!({"content": content, "entities": entities, "namespace": NAMESPACE}),
                    )
                    .await
                    .id
            }
        };
        for look_alike in LOOK_ALIKES {
            store(look_alike, &[]).await;
        }
        store(
            "The checkout page times out whenever the ledger service is slow.",
            &["checkout page", "ledger service"],
        )
        .await;
        let owner = store(
            "Priya Raman owns the ledger service and is the person to page about it.",
            &["ledger service", "Priya Raman"],
        )
        .await;
        let incident = store(
            "Nightly export job crashed with an out-of-memory error on the reporting host.",
            &[],
        )
        .await;
        let fix = store(
            "Capped the worker pool at four threads and streamed rows instead of buffering them.",
            &[],
        )
        .await;
        let linked = link(&client, &incident, "fixed by", &fix).await;
        client.caught_up().await;
        // Where `id` ranks for `query` (10 when not in the first ten), and
        // the texts, for a failure.
        let rank = |query: &'static str, id: String| {
            let client = &client;
            async move {
                let answer: RecallAnswer = typed::recall(client, query, NAMESPACE, 10).await;
                let texts: Vec<String> = answer
                    .results
                    .iter()
                    .map(|result| result.memory.content.content.clone().unwrap_or_default())
                    .collect();
                let ids = ids(&answer);
                (ids.iter().position(|found| *found == id).unwrap_or(10), ids, texts)
            }
        };
        let who = "Who do I call when checkout times out?";
        let how = "How was the nightly export crash resolved?";
        let (owner_rank, _, texts) = rank(who, owner.clone()).await;
        assert!(owner_rank < 10, "{texts:#?}");
        let (fix_rank, found, texts) = rank(how, fix.clone()).await;
        assert!(fix_rank < 10, "{texts:#?}");
        ranks.push((owner_rank, fix_rank));
        // The link between memories is never a result itself.
        assert!(!found.contains(&linked.id));
        if weighed {
            client.ok("forget", json!({"ids": [linked.id]})).await;
            let (after, _, texts) = rank(how, fix.clone()).await;
            assert_eq!(after, ranks[0].1, "a forgotten link joins nothing: {texts:#?}");
        }
        client.close().await;
    }
    let [(owner_alone, fix_alone), (owner_graph, fix_graph)] = ranks[..] else { unreachable!() };
    // Alone, their words do not find them among the first three; through
    // the graph, each ranks higher, among the first five.
    assert!(owner_alone >= 3 && fix_alone >= 3, "{ranks:?}");
    assert!(owner_graph < owner_alone && fix_graph < fix_alone, "{ranks:?}");
    assert!(owner_graph < 5 && fix_graph < 5, "{ranks:?}");
}
