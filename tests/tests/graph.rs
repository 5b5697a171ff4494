//! The knowledge graph through MCP on one node: `link` between entities
//! and between memories (normalised relation types, reinforcement),
//! `graph` (depth, filters, direction, cycles, the limit), `entity` (an
//! entity's whole story) and `update` (a new version, an edit in place), and
//! forgetting that takes versions and links with it.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_tests::{Client, TestHome, result_ids};
use serde_json::{Value, json};

const NAMESPACE: &str = "eng";

async fn link(client: &Client, from: &str, relation: &str, to: &str) -> Value {
    client
        .ok("link", json!({"from": from, "to": to, "relation": relation, "namespace": NAMESPACE}))
        .await
}

async fn error(client: &Client, tool: &str, arguments: Value) -> String {
    match client.call(tool, arguments.clone()).await.unwrap() {
        Ok(answer) => panic!("{tool} {arguments} succeeded: {answer}"),
        Err(message) => message,
    }
}

fn labels(answer: &Value) -> Vec<(String, u64)> {
    answer["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| (node["label"].as_str().unwrap().to_owned(), node["depth"].as_u64().unwrap()))
        .collect()
}

fn edges(answer: &Value) -> Vec<(String, i64)> {
    answer["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edge| {
            (edge["relation"].as_str().unwrap().to_owned(), edge["weight"].as_i64().unwrap())
        })
        .collect()
}

#[tokio::test]
async fn entities_linked_walked_and_told_whole() {
    let home = TestHome::named("laptop");
    let client = home.client().await;
    // Entities are created on first mention; `uses` is filed under depends_on.
    let first = link(&client, "ferrex", "uses", "Automerge").await;
    assert_eq!(first["reinforced"], false, "{first}");
    assert_eq!(first["edge"]["relation"], "depends_on", "{first}");
    assert_eq!(first["edge"]["weight"], 1);
    assert_eq!(first["edge"]["by"], json!(["laptop"]));
    assert_eq!(first["nodes"][0]["kind"], "entity");
    // Stated again, in another spelling of both the relation and a name:
    // reinforced, not duplicated.
    let again = link(&client, "Ferrex", "depends on", "automerge").await;
    assert_eq!(again["reinforced"], true, "{again}");
    assert_eq!(again["id"], first["id"]);
    assert_eq!(again["edge"]["weight"], 2, "{again}");
    link(&client, "ferrex", "depends_on", "iroh").await;
    link(&client, "automerge", "built_with", "rust").await;
    link(&client, "iroh", "built with", "Rust").await;
    link(&client, "ferrex", "owned_by", "platform team").await;
    // A cycle: rust depends on ferrex (it does not, but the walk must end).
    link(&client, "rust", "relates_to", "ferrex").await;
    // A fact whose object is an entity is a relation too.
    client
        .ok(
            "store",
            json!({"subject": "platform team", "predicate": "part of", "object": "engineering", "entities": ["engineering"], "namespace": NAMESPACE}),
        )
        .await;

    let walked = client
        .ok(
            "graph",
            json!({"from": "ferrex", "depth": 1, "direction": "out", "namespace": NAMESPACE}),
        )
        .await;
    assert_eq!(
        labels(&walked),
        [
            ("ferrex".to_owned(), 0),
            ("Automerge".to_owned(), 1),
            ("iroh".to_owned(), 1),
            ("platform team".to_owned(), 1)
        ],
        "{walked}"
    );
    assert!(edges(&walked).contains(&("depends_on".to_owned(), 2)), "{walked}");
    assert_eq!(walked["truncated"], false);

    // Deeper, only depends_on and built_with, both ways: rust is reached at
    // depth 2 once, and the relates_to edge back to ferrex is not followed.
    let deep = client
        .ok(
            "graph",
            json!({"from": "ferrex", "depth": 5, "relations": ["depends_on", "built-with"], "namespace": NAMESPACE}),
        )
        .await;
    assert_eq!(
        labels(&deep),
        [
            ("ferrex".to_owned(), 0),
            ("Automerge".to_owned(), 1),
            ("iroh".to_owned(), 1),
            ("rust".to_owned(), 2)
        ],
        "{deep}"
    );
    assert_eq!(deep["edges"].as_array().unwrap().len(), 4, "{deep}");
    // Every way: the cycle through rust ends, each edge reported once.
    let all =
        client.ok("graph", json!({"from": "ferrex", "depth": 5, "namespace": NAMESPACE})).await;
    assert_eq!(all["nodes"].as_array().unwrap().len(), 6, "{all}");
    assert_eq!(all["edges"].as_array().unwrap().len(), 7, "{all}");
    // Into the team: the fact stored with `store` makes it part of engineering.
    let team = client
        .ok(
            "graph",
            json!({"from": "engineering", "direction": "in", "depth": 2, "namespace": NAMESPACE}),
        )
        .await;
    assert_eq!(
        labels(&team),
        [("engineering".to_owned(), 0), ("platform team".to_owned(), 1), ("ferrex".to_owned(), 2)],
        "{team}"
    );
    // The limit truncates, and says so.
    let limited = client
        .ok("graph", json!({"from": "ferrex", "depth": 5, "limit": 2, "namespace": NAMESPACE}))
        .await;
    assert_eq!(limited["nodes"].as_array().unwrap().len(), 2);
    assert_eq!(limited["truncated"], true);

    // The entity's story.
    client
        .ok(
            "store",
            json!({"subject": "ferrex", "predicate": "version", "object": "0.3", "namespace": NAMESPACE}),
        )
        .await;
    client
        .ok(
            "store",
            json!({"subject": "ferrex", "predicate": "version", "object": "0.4", "namespace": NAMESPACE}),
        )
        .await;
    let note = client
        .ok(
            "store",
            json!({"content": "Shipped the ferrex sync fix to the home server today.", "entities": ["ferrex"], "namespace": NAMESPACE}),
        )
        .await;
    let story = client.ok("entity", json!({"name": "FERREX", "namespace": NAMESPACE})).await;
    assert_eq!(story["node"]["label"], "ferrex", "{story}");
    let facts: Vec<&str> = story["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fact| fact["object"].as_str().unwrap())
        .collect();
    assert_eq!(facts, ["0.4"], "the current version only: {story}");
    let relations: Vec<(&str, &str, i64)> = story["edges"]
        .as_array()
        .unwrap()
        .iter()
        .zip(story["nodes"].as_array().unwrap())
        .map(|(edge, other)| {
            (
                edge["relation"].as_str().unwrap(),
                other["label"].as_str().unwrap(),
                edge["weight"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(relations.contains(&("depends_on", "Automerge", 2)), "{story}");
    assert!(relations.contains(&("relates_to", "rust", 1)), "the relation in: {story}");
    assert_eq!(relations.len(), 4, "{story}");
    assert_eq!(result_ids(&json!({"results": story["memories"]})), [note["id"].as_str().unwrap()]);
    let history = client
        .ok("entity", json!({"name": "ferrex", "include_history": true, "namespace": NAMESPACE}))
        .await;
    assert_eq!(history["facts"].as_array().unwrap().len(), 2, "{history}");

    // Bad input changes nothing and says what to do.
    assert!(
        error(&client, "link", json!({"from": "a", "to": "b", "relation": "supersedes"}))
            .await
            .contains("update")
    );
    assert!(
        error(&client, "link", json!({"from": "a", "to": "b", "relation": "--"}))
            .await
            .contains("relation")
    );
    assert!(
        error(
            &client,
            "link",
            json!({"from": "ferrex", "to": "Ferrex", "relation": "uses", "namespace": NAMESPACE})
        )
        .await
        .contains("same node")
    );
    assert!(
        error(&client, "graph", json!({"from": "nobody", "namespace": NAMESPACE}))
            .await
            .contains("nobody")
    );
    assert!(error(&client, "graph", json!({"from": "ferrex", "depth": 6})).await.contains("depth"));
    assert!(
        error(&client, "entity", json!({"name": "nobody", "namespace": NAMESPACE}))
            .await
            .contains("nobody")
    );
    assert_eq!(story["relations_total"], 4, "{story}");
    // Other spellings of its own name are not aliases.
    assert_eq!(story["aliases"], json!([]), "{story}");
    // A hub: a walk stays within its budget, each node with the edge that
    // reached it; the story shows the heaviest relations and counts all.
    for index in 0..60_u64 {
        // Names no fuzzy match joins: ten letters drawn from the index.
        let mut state = index.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let name: String = (0..10)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                char::from(b'a' + (state % 26) as u8)
            })
            .collect();
        link(&client, &format!("{name} package"), "part of", "monorepo").await;
    }
    let hub = client
        .ok("graph", json!({"from": "monorepo", "depth": 1, "limit": 200, "namespace": NAMESPACE}))
        .await;
    let (nodes, hub_edges) = (hub["nodes"].as_array().unwrap(), hub["edges"].as_array().unwrap());
    assert_eq!(hub["truncated"], true, "{hub}");
    assert!(nodes.len() > 10 && nodes.len() < 61, "{}", nodes.len());
    assert_eq!(hub_edges.len(), nodes.len() - 1, "every node comes with its edge");
    assert!(hub.to_string().len() <= 13_000, "{} bytes", hub.to_string().len());
    let hub_story = client.ok("entity", json!({"name": "monorepo", "namespace": NAMESPACE})).await;
    assert_eq!(hub_story["edges"].as_array().unwrap().len(), 25, "{hub_story}");
    assert_eq!(hub_story["relations_total"], 60);
    let unlinked = client.ok("entity", json!({"name": "iroh", "namespace": NAMESPACE})).await;
    assert_eq!(unlinked["edges"].as_array().unwrap().len(), 2, "{unlinked}");
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
    assert_eq!(fixed["edge"]["relation"], "fixed_by", "{fixed}");
    assert_eq!(fixed["nodes"][1]["kind"], "memory");
    link(&client, &postmortem, "derived_from", &bug).await;
    let walked = client.ok("graph", json!({"from": bug, "namespace": NAMESPACE})).await;
    assert_eq!(walked["nodes"].as_array().unwrap().len(), 3, "{walked}");
    // A link between memories is read through graph, not recalled.
    let recalled = client.recall_ids("linker ARM fixed_by", NAMESPACE, 10).await;
    assert!(!recalled.contains(&fixed["id"].as_str().unwrap().to_owned()), "{recalled:?}");
    assert!(
        error(&client, "link", json!({"from": bug, "to": "ferrex", "relation": "relates_to"}))
            .await
            .contains("both")
    );

    // A change of bookkeeping edits in place.
    let edited = client
        .ok(
            "update",
            json!({"id": fix, "tags": ["arm", "toolchain"], "confidence": 0.8, "importance": 0.9}),
        )
        .await;
    assert_eq!(edited["id"], fix.as_str(), "{edited}");
    assert!(edited.get("replaces").is_none());
    let shown =
        client.ok("recall", json!({"query": "linker lld toolchain", "namespace": NAMESPACE})).await;
    let row = shown["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["id"] == fix.as_str())
        .unwrap()
        .clone();
    let mut tags: Vec<&str> =
        row["tags"].as_array().unwrap().iter().map(|tag| tag.as_str().unwrap()).collect();
    tags.sort_unstable();
    assert_eq!(tags, ["arm", "importance:0.90", "toolchain"], "{row}");
    assert_eq!(row["confidence"], 0.8);
    // A change of meaning is a new version; history keeps the old.
    let version = client
        .ok(
            "update",
            json!({"id": fix, "content": "Pinned the linker to lld 18 in the ARM toolchain file."}),
        )
        .await;
    let new_fix = version["id"].as_str().unwrap().to_owned();
    assert_eq!(version["replaces"], fix.as_str(), "{version}");
    let history = client.ok("history", json!({"id": new_fix, "namespace": NAMESPACE})).await;
    assert_eq!(history["count"], 2, "{history}");
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
    let forgotten = client.ok("forget", json!({"ids": [new_fix]})).await;
    assert_eq!(forgotten["forgotten"], json!([new_fix]), "{forgotten}");
    assert!(
        error(&client, "update", json!({"id": fix, "confidence": 0.1})).await.contains("forgotten")
    );
    let walked = client.ok("graph", json!({"from": bug, "namespace": NAMESPACE})).await;
    assert_eq!(labels(&walked).len(), 2, "only the postmortem stays linked: {walked}");
    assert!(home.files_containing("lld 17").is_empty(), "{:?}", home.files_containing("lld 17"));
    assert!(home.files_containing("lld 18").is_empty());
    let stats = client.ok("stats", json!({})).await;
    assert_eq!(stats["forgotten"], 3, "both versions and the link: {stats}");
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
        assert_eq!(forgot.unwrap().unwrap()["forgotten"], json!([id]));
        match updated.unwrap() {
            Ok(answer) => {
                // The update won the race: its version went with the forget.
                let new = answer["id"].as_str().unwrap();
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
                let answer = client
                    .ok(
                        "store",
                        json!({"content": content, "entities": entities, "namespace": NAMESPACE}),
                    )
                    .await;
                answer["id"].as_str().unwrap().to_owned()
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
                let answer = client
                    .ok("recall", json!({"query": query, "namespace": NAMESPACE, "limit": 10}))
                    .await;
                let texts: Vec<String> = answer["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|result| result["content"].to_string())
                    .collect();
                let ids = result_ids(&answer);
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
        assert!(!found.contains(&linked["id"].as_str().unwrap().to_owned()));
        if weighed {
            client.ok("forget", json!({"ids": [linked["id"]]})).await;
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
