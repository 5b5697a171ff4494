//! Does a correction outrank what it corrects? Free-text corrections and
//! look-alikes that are not corrections, through a real node and MCP.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example belief_eval`
//!
//! Each case gets its own namespace: the older memory, two unrelated ones,
//! then the newer memory; then a question. For corrections, it counts how
//! often the store recorded the correction and how often the newer memory
//! ranks above the older one; for look-alikes (a different person or thing,
//! or an addition), how often a correction was wrongly recorded and whether
//! the older memory is still recalled. Also prints the same ranking with the
//! correction check turned off (`memory.correction_threshold = 1`), so the
//! effect of recency alone is measured in the same run.

use ferrex_tests::{Client, TestHome};
use serde_json::json;

/// (older, newer, question, is it a correction).
const CASES: &[(&str, &str, &str, bool)] = &[
    (
        "The weekly team sync is on Tuesday.",
        "The weekly team sync moved to Wednesday.",
        "when is the team sync",
        true,
    ),
    (
        "Standup starts at 9:30 every morning.",
        "Standup now starts at 10:00.",
        "what time is standup",
        true,
    ),
    (
        "The staging database runs PostgreSQL 14.",
        "The staging database was upgraded to PostgreSQL 16.",
        "which postgres version does staging run",
        true,
    ),
    (
        "Bob is allergic to peanuts.",
        "Bob is not allergic to peanuts after all; it was shellfish.",
        "is Bob allergic to peanuts",
        true,
    ),
    (
        "Alice leads the platform team.",
        "Carol leads the platform team now that Alice moved to research.",
        "who leads the platform team",
        true,
    ),
    (
        "The office wifi password is blue-otter-42.",
        "The office wifi password changed to green-heron-17.",
        "what is the wifi password",
        true,
    ),
    (
        "Backups run every night at 2 am.",
        "Backups now run every night at 4 am.",
        "when do backups run",
        true,
    ),
    (
        "The quarterly planning meeting is in March.",
        "The quarterly planning meeting was rescheduled to April.",
        "when is quarterly planning",
        true,
    ),
    (
        "The api gateway times out after 30 seconds.",
        "The api gateway timeout was raised to 60 seconds.",
        "what is the api gateway timeout",
        true,
    ),
    (
        "Deploys are frozen on Fridays.",
        "Deploys are no longer frozen on Fridays.",
        "can we deploy on Friday",
        true,
    ),
    (
        "The design review is on Thursday.",
        "The design review moved to Monday.",
        "when is the design review",
        true,
    ),
    (
        "Our CI uses 4 parallel runners.",
        "Our CI now uses 8 parallel runners.",
        "how many CI runners do we have",
        true,
    ),
    (
        "Dave is the on-call engineer this week.",
        "Grace replaced Dave as the on-call engineer this week.",
        "who is on call this week",
        true,
    ),
    (
        "The cache keeps sessions for 15 minutes.",
        "The cache now keeps sessions for 30 minutes.",
        "how long are sessions cached",
        true,
    ),
    (
        "Alice's birthday is on March 3.",
        "Bob's birthday is on May 5.",
        "when is Alice's birthday",
        false,
    ),
    (
        "Alice leads the platform team.",
        "Carol leads the data team.",
        "who leads the platform team",
        false,
    ),
    (
        "The frontend is written in TypeScript.",
        "The backend is written in Rust.",
        "what language is the frontend written in",
        false,
    ),
    (
        "Deploys happen on Wednesday.",
        "Deploys happen on Wednesday after the team sync.",
        "when do deploys happen",
        false,
    ),
    (
        "The staging database runs PostgreSQL 16.",
        "The analytics warehouse runs ClickHouse 23.",
        "which database does staging run",
        false,
    ),
    (
        "Eve found a memory leak in the image service.",
        "Frank found a race condition in the billing service.",
        "who found the memory leak",
        false,
    ),
    (
        "The London office opens at 8:00.",
        "The Berlin office opens at 9:00.",
        "when does the London office open",
        false,
    ),
    (
        "Project Falcon ships in June.",
        "Project Heron ships in September.",
        "when does project Falcon ship",
        false,
    ),
    (
        "The deploy of build 41 finished after the review.",
        "The deploy of build 42 finished after the review.",
        "when did the deploy of build 41 finish",
        false,
    ),
    (
        "Invoice 1043 was paid on Monday.",
        "Invoice 1044 was paid on Tuesday.",
        "when was invoice 1043 paid",
        false,
    ),
];

const FILLER: [&str; 2] = [
    "The coffee machine on the third floor is broken again.",
    "Logs are shipped to Loki and kept for thirty days.",
];

struct Tally {
    corrections: usize,
    recorded: usize,
    newer_first: usize,
    lookalikes: usize,
    false_recorded: usize,
    false_cases: Vec<String>,
    older_kept: usize,
}

async fn run(client: &Client, prefix: &str) -> anyhow::Result<Tally> {
    let mut tally = Tally {
        corrections: 0,
        recorded: 0,
        newer_first: 0,
        lookalikes: 0,
        false_recorded: 0,
        false_cases: vec![],
        older_kept: 0,
    };
    for (index, (older, newer, question, correction)) in CASES.iter().enumerate() {
        let namespace = format!("{prefix}-{index}");
        let older_id = client.store_text(older, &namespace).await;
        for filler in FILLER {
            client.store_text(filler, &namespace).await;
        }
        let answer = client.ok("store", json!({"content": newer, "namespace": namespace})).await;
        anyhow::ensure!(answer["status"] == "stored", "{answer}");
        let newer_id = answer["id"].as_str().unwrap_or_default().to_owned();
        let recorded = answer["corrects"]
            .as_array()
            .is_some_and(|list| list.iter().any(|item| item["id"] == older_id.as_str()));
        let found = client.recall_ids(question, &namespace, 5).await;
        let rank = |id: &str| found.iter().position(|found| found == id);
        if *correction {
            tally.corrections += 1;
            tally.recorded += usize::from(recorded);
            if rank(&newer_id)
                .is_some_and(|newer| rank(&older_id).is_none_or(|older| newer < older))
            {
                tally.newer_first += 1;
            }
        } else {
            tally.lookalikes += 1;
            tally.false_recorded += usize::from(recorded);
            if recorded {
                tally.false_cases.push(format!("{newer:?} / {older:?}"));
            }
            tally.older_kept += usize::from(rank(&older_id).is_some());
        }
    }
    Ok(tally)
}

#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    println!("corrections of free text: {} cases", CASES.len());
    for (label, config) in [
        ("with correction detection", ""),
        ("recency only (correction_threshold = 1)", "[memory]\ncorrection_threshold = 1\n"),
    ] {
        let home = TestHome::with_config(config);
        let client = home.client().await;
        let tally = run(&client, "case").await?;
        client.close().await;
        println!("{label}:");
        println!(
            "  corrections: recorded {}/{}, newer memory ranked above the older {}/{}",
            tally.recorded, tally.corrections, tally.newer_first, tally.corrections
        );
        println!(
            "  look-alikes: wrongly recorded as corrections {}/{}, older memory still recalled {}/{}",
            tally.false_recorded, tally.lookalikes, tally.older_kept, tally.lookalikes
        );
        for case in &tally.false_cases {
            println!("    wrongly: {case}");
        }
    }
    Ok(())
}
