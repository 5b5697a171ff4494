//! One node, driven through MCP by a real client: stored memories are found
//! by paraphrased queries, namespaces isolate, and forgotten memories are gone.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod typed;

use ferrex_engine::answers::{ForgetAnswer, RecallAnswer, StatsAnswer, StoreAnswer};
use ferrex_tests::TestHome;
use serde_json::json;
use typed::ids;

/// Thirty varied memories; the first ten have a paraphrased query each.
const MEMORIES: [&str; 30] = [
    "The api-server listens on port 8080 behind the nginx load balancer.",
    "Alice prefers tabs over spaces and reviews pull requests before lunch.",
    "Deploys to production happen every Wednesday after the team sync.",
    "The staging database runs PostgreSQL 16 on the host db-stage-2.",
    "To rotate the TLS certificate, run certbot renew and restart nginx.",
    "Bob is allergic to peanuts, so team lunches avoid Thai food.",
    "The nightly build failed because the integration tests timed out.",
    "Our tokio runtime uses four worker threads in production.",
    "The customer from Lisbon asked for an invoice in euros, not dollars.",
    "Carol's birthday is on the 14th of March; she likes dark chocolate.",
    "The frontend is written in TypeScript with React and Vite.",
    "Backups are stored in an S3 bucket named ferrex-backups-eu.",
    "The office wifi password changes on the first Monday of each month.",
    "We switched the CI runner from GitHub Actions to a self-hosted runner.",
    "The mobile app crashes on Android 12 when the camera permission is denied.",
    "Dave is moving to the Berlin office in September.",
    "The monthly cloud bill was 4200 dollars in October.",
    "Use cargo nextest to run the Rust test suite faster.",
    "The design review for the search page is scheduled for Friday.",
    "Redis is used as a cache with a 15 minute expiry for sessions.",
    "The legal team must approve every change to the privacy policy.",
    "Eve found a memory leak in the image resizing service.",
    "The coffee machine on the third floor is broken again.",
    "Logs are shipped to Loki and kept for thirty days.",
    "The quarterly planning meeting moved to the large conference room.",
    "Frank wrote the original parser in 2019 using nom.",
    "Feature flags are managed with Unleash.",
    "The password reset email sometimes lands in spam folders.",
    "Grace is the on-call engineer this week.",
    "The search service indexes documents with a 200 ms budget per query.",
];

/// A paraphrase of MEMORIES[i] for the first ten.
const QUERIES: [&str; 10] = [
    "which port does the api server use",
    "how does Alice like her code indented",
    "when do we ship releases to prod",
    "what version of postgres is on staging",
    "how do I renew the https certificate",
    "what food allergy does Bob have",
    "why did last night's build break",
    "how many threads does the async runtime have",
    "what currency does the Portuguese client want to be billed in",
    "what sweets should we get Carol for her birthday",
];

#[tokio::test]
async fn paraphrased_queries_find_their_memory_in_the_top_three() {
    let home = TestHome::new();
    let client = home.client().await;
    let mut ids = Vec::new();
    for memory in MEMORIES {
        ids.push(client.store_text(memory, "work").await);
    }
    for (index, query) in QUERIES.iter().enumerate() {
        let found = client.recall_ids(query, "work", 3).await;
        assert!(
            found.contains(&ids[index]),
            "query {query:?} did not find {:?} in its top 3: {found:?}",
            MEMORIES[index]
        );
    }
    client.close().await;
}

#[tokio::test]
async fn namespaces_isolate_and_forget_removes_from_recall() {
    let home = TestHome::new();
    let client = home.client().await;
    let work = client.store_text("The api-server listens on port 8080.", "work").await;
    let personal = client.store_text("My bike lock code is 4412.", "personal").await;

    let in_work = client.recall_ids("port of the api server", "work", 10).await;
    assert_eq!(in_work, vec![work.clone()]);
    let in_personal = client.recall_ids("port of the api server", "personal", 10).await;
    assert_eq!(in_personal, vec![personal.clone()], "only personal memories in personal");
    assert!(client.recall_ids("anything at all", "empty-namespace", 10).await.is_empty());

    let answer: ForgetAnswer = client.answer("forget", json!({"ids": [work, "no-such-id"]})).await;
    assert_eq!(answer.forgotten, [work.as_str()]);
    assert_eq!(answer.unknown, ["no-such-id"]);
    assert!(client.recall_ids("port of the api server", "work", 10).await.is_empty());
    let again: ForgetAnswer = client.answer("forget", json!({"ids": [work]})).await;
    assert_eq!(again.unknown, [work], "a forgotten id is unknown from then on");

    let stats: StatsAnswer = client.answer("stats", json!({})).await;
    assert_eq!((stats.memories, stats.forgotten), (1, 1));
    assert_eq!(stats.by_namespace.get("personal"), Some(&1));
    client.close().await;
}

#[tokio::test]
async fn a_date_in_the_query_finds_what_happened_then() {
    let home = TestHome::new();
    let client = home.client().await;
    // Standup notes of different days: alike in meaning, told apart only
    // by when they happened.
    let days = [
        ("2025-01-14", "Standup: we talked about the flaky login test on CI."),
        ("2025-02-11", "Standup: we talked about moving the database to a bigger host."),
        ("2025-03-12", "Standup: we talked about the mobile release slipping a week."),
        ("2025-04-16", "Standup: we talked about hiring a second designer."),
        ("2025-05-20", "Standup: we talked about the on-call rota for the summer."),
    ];
    let mut stored = Vec::new();
    for (day, text) in days {
        let answer: StoreAnswer = client
            .answer("store", json!({"content": text, "namespace": "team", "valid_from": day}))
            .await;
        stored.push(answer.id);
    }
    for (query, wanted) in [
        ("What did we talk about at standup on 12 March 2025?", 2),
        ("What came up in the standup of February 11, 2025?", 1),
        ("Which topics did standup cover in May 2025?", 4),
    ] {
        let found = client.recall_ids(query, "team", 5).await;
        assert_eq!(found.first(), Some(&stored[wanted]), "{query}: {found:?}");
    }
    // valid_from is what time_range filters on, too.
    let march = json!({"query": "standup", "namespace": "team",
        "time_range": {"start": "2025-03-01", "end": "2025-04-01"}});
    let found: RecallAnswer = client.answer("recall", march).await;
    assert_eq!(ids(&found), [stored[2].clone()]);
    client.close().await;
}

#[tokio::test]
async fn an_answer_is_found_through_the_question_and_what_it_asks_about() {
    let home = TestHome::new();
    let client = home.client().await;
    // A conversation stored as an agent stores it, one turn at a time: the
    // answer (the third turn) shares no word with the question asked later
    // but the speaker's name; the turn it answers asks only "how was it?".
    let turns = [
        "Caroline: I went to the pride parade downtown last Saturday.",
        "Melanie: Oh nice, how was it?",
        "Caroline: Honestly amazing, the whole town came out and we danced for hours.",
        "Melanie: I spent the weekend painting a sunset by the lake.",
        "Caroline: That sounds lovely. Did you finish it?",
        "Melanie: Almost, the water was tricky to get right.",
        "Caroline: The parade route went past the old library this year.",
        "Melanie: My kids keep asking when the next parade is.",
        "Caroline: Pride month always makes me think about my own story.",
        "Melanie: The library downtown has a new mural on its wall.",
    ];
    let mut ids = Vec::new();
    for turn in turns {
        ids.push(client.store_text(turn, "chat").await);
    }
    let found = client.recall_ids("What was the pride parade like for Caroline?", "chat", 5).await;
    let rank = found.iter().position(|id| *id == ids[2]);
    assert!(rank.is_some_and(|rank| rank < 3), "the answer in the top three: {rank:?} {found:?}");
    client.close().await;
}
