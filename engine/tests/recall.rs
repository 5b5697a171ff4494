//! Recall's quality, decided by the engine and tested here in process with
//! the real model: paraphrased queries find their memory, namespaces
//! isolate and a forgotten memory leaves recall, a date in the query finds
//! what happened then, and an answer is found through the question it
//! answers.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use ferrex_core::StoreInput;
use ferrex_engine::base::clock;
use support::Tools;

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

/// The ids `tools` recalls for `query` in `namespace`, at most `limit`.
fn recall_ids(tools: &Tools, query: &str, namespace: &str, limit: usize) -> Vec<String> {
    let found = tools.recall(query, namespace, |request| request.limit = limit);
    found.ids().into_iter().map(str::to_owned).collect()
}

#[test]
fn paraphrased_queries_find_their_memory_in_the_top_three() {
    let tools = Tools::new("work");
    let ids: Vec<String> = MEMORIES.iter().map(|memory| tools.text_in(memory, "work").id).collect();
    for (index, query) in QUERIES.iter().enumerate() {
        let found = recall_ids(&tools, query, "work", 3);
        assert!(
            found.contains(&ids[index]),
            "query {query:?} did not find {:?} in its top 3: {found:?}",
            MEMORIES[index]
        );
    }
}

#[test]
fn namespaces_isolate_and_forget_removes_from_recall() {
    let tools = Tools::new("work");
    let work = tools.text_in("The api-server listens on port 8080.", "work").id;
    let personal = tools.text_in("My bike lock code is 4412.", "personal").id;

    assert_eq!(recall_ids(&tools, "port of the api server", "work", 10), [work.as_str()]);
    let in_personal = recall_ids(&tools, "port of the api server", "personal", 10);
    assert_eq!(in_personal, [personal.as_str()], "only personal memories in personal");
    assert!(recall_ids(&tools, "anything at all", "empty-namespace", 10).is_empty());

    let engine = &tools.test.engine;
    let forgotten = engine.forget(&[work.clone(), "no-such-id".to_owned()]).unwrap();
    assert_eq!(forgotten.forgotten, [work.as_str()]);
    assert_eq!(forgotten.unknown, ["no-such-id"]);
    assert!(recall_ids(&tools, "port of the api server", "work", 10).is_empty());
    let again = engine.forget(std::slice::from_ref(&work)).unwrap();
    assert_eq!(again.unknown, [work], "a forgotten id is unknown from then on");

    let stats = engine.stats().unwrap();
    assert_eq!((stats.forgotten, stats.by_namespace_kind.len()), (1, 1), "{stats:?}");
    assert_eq!(stats.by_namespace_kind[0].0, "personal");
}

#[test]
fn a_date_in_the_query_finds_what_happened_then() {
    let tools = Tools::new("team");
    // Standup notes of different days: alike in meaning, told apart only
    // by when they happened.
    let days = [
        ("2025-01-14", "Standup: we talked about the flaky login test on CI."),
        ("2025-02-11", "Standup: we talked about moving the database to a bigger host."),
        ("2025-03-12", "Standup: we talked about the mobile release slipping a week."),
        ("2025-04-16", "Standup: we talked about hiring a second designer."),
        ("2025-05-20", "Standup: we talked about the on-call rota for the summer."),
    ];
    let stored: Vec<String> = days
        .iter()
        .map(|(day, text)| {
            let input = StoreInput {
                content: Some((*text).to_owned()),
                namespace: Some("team".to_owned()),
                valid_from: clock::parse(day),
                ..StoreInput::default()
            };
            tools.store(input).id
        })
        .collect();
    for (query, wanted) in [
        ("What did we talk about at standup on 12 March 2025?", 2),
        ("What came up in the standup of February 11, 2025?", 1),
        ("Which topics did standup cover in May 2025?", 4),
    ] {
        let found = recall_ids(&tools, query, "team", 5);
        assert_eq!(found.first(), Some(&stored[wanted]), "{query}: {found:?}");
    }
    // The time a memory is valid from is what a time range filters on, too.
    let march = tools.recall("standup", "team", |request| {
        request.start = clock::parse("2025-03-01");
        request.end = clock::parse("2025-04-01");
    });
    assert_eq!(march.ids(), [stored[2].as_str()]);
}

#[test]
fn an_answer_is_found_through_the_question_and_what_it_asks_about() {
    let tools = Tools::new("chat");
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
    let ids: Vec<String> = turns.iter().map(|turn| tools.text_in(turn, "chat").id).collect();
    let found = recall_ids(&tools, "What was the pride parade like for Caroline?", "chat", 5);
    let rank = found.iter().position(|id| *id == ids[2]);
    assert!(rank.is_some_and(|rank| rank < 3), "the answer in the top three: {rank:?} {found:?}");
}
