//! LoCoMo retrieval evaluation through a real ferrex node and MCP.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example locomo_eval [-- --locomo PATH --date content|context|none --context previous|none --config TOML]`
//! (`--config` adds lines to the node's `ferrex.toml`, for example
//! `--config $'[memory]\ntext_weight = 2'`.)
//!
//! Stores every dialogue turn of the 10 LoCoMo conversations as an episodic
//! memory (`Speaker: text`, one namespace per conversation, the session date
//! in the content by default, and the turn it answers as its `context` by
//! default), then recalls each non-adversarial question
//! that has evidence and counts a hit at k when an evidence turn is among
//! the top k results. Prints R@1, R@5 and R@10 overall and per category.

use std::{collections::HashMap, path::PathBuf, time::Instant};

use anyhow::Context;
use ferrex_examples::{DEFAULT_LOCOMO, load_locomo};
use ferrex_tests::TestHome;
use serde_json::json;

const CATEGORIES: [(u64, &str); 4] =
    [(1, "multi-hop"), (2, "temporal"), (3, "open-domain"), (4, "single-hop")];

#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut locomo = PathBuf::from(DEFAULT_LOCOMO);
    let mut date_mode = "content".to_owned();
    let mut context_mode = "previous".to_owned();
    let mut config = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--locomo" => locomo = value()?.into(),
            "--date" => date_mode = value()?,
            "--context" => context_mode = value()?,
            "--config" => {
                config.push_str(&value()?);
                config.push('\n');
            }
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    anyhow::ensure!(
        ["content", "context", "none"].contains(&date_mode.as_str()),
        "--date takes content, context or none"
    );
    anyhow::ensure!(
        ["previous", "none"].contains(&context_mode.as_str()),
        "--context takes previous or none"
    );
    let conversations = load_locomo(&locomo)?;
    let home = TestHome::with_config(&config);
    let client = home.client().await;

    let started = Instant::now();
    // Memory id → the dialogue turns it holds (a turn refused as a duplicate
    // is held by the memory it duplicates).
    let mut dia_of: HashMap<String, Vec<String>> = HashMap::new();
    let mut stored = 0;
    let mut refused = 0;
    for conversation in &conversations {
        for (index, turn) in conversation.turns.iter().enumerate() {
            let text = format!("{}: {}", turn.speaker, turn.text);
            let mut arguments = json!({"namespace": conversation.id});
            let mut context = Vec::new();
            match date_mode.as_str() {
                "content" => arguments["content"] = json!(format!("[{}] {text}", turn.date)),
                "context" => {
                    arguments["content"] = json!(text);
                    context.push(format!("session of {}", turn.date));
                }
                _ => arguments["content"] = json!(text),
            }
            // The turn this one answers, when in the same session: what an
            // agent would attach as the memory's context.
            if context_mode == "previous"
                && let Some(previous) =
                    index.checked_sub(1).map(|previous| &conversation.turns[previous])
                && previous.date == turn.date
            {
                context.push(format!("{}: {}", previous.speaker, previous.text));
            }
            if !context.is_empty() {
                arguments["context"] = json!(context.join("\n"));
            }
            let answer = client.ok("store", arguments).await;
            if answer["status"] == "stored" {
                stored += 1;
            } else {
                refused += 1;
            }
            // A turn refused as a duplicate is held by the memory it duplicates.
            let id = answer["id"].as_str().unwrap_or_default().to_owned();
            dia_of.entry(id).or_default().push(turn.dia_id.clone());
        }
    }
    let store_seconds = started.elapsed().as_secs_f64();

    // hits[category][k] over questions; k in 1, 5, 10.
    let mut hits: HashMap<u64, [usize; 3]> = HashMap::new();
    let mut totals: HashMap<u64, usize> = HashMap::new();
    let started = Instant::now();
    for conversation in &conversations {
        for question in &conversation.questions {
            if question.category == 5 || question.evidence.is_empty() {
                continue;
            }
            let ids = client.recall_ids(&question.question, &conversation.id, 10).await;
            let rank = ids.iter().position(|id| {
                dia_of.get(id).is_some_and(|turns| {
                    turns
                        .iter()
                        .any(|turn| question.evidence.iter().any(|evidence| evidence == turn))
                })
            });
            *totals.entry(question.category).or_default() += 1;
            let entry = hits.entry(question.category).or_default();
            for (slot, k) in [1, 5, 10].into_iter().enumerate() {
                if rank.is_some_and(|rank| rank < k) {
                    entry[slot] += 1;
                }
            }
        }
    }
    let recall_seconds = started.elapsed().as_secs_f64();
    client.close().await;

    let total: usize = totals.values().sum();
    let overall =
        |slot: usize| hits.values().map(|counts| counts[slot]).sum::<usize>() as f64 / total as f64;
    println!(
        "LoCoMo: {stored} turns stored ({refused} refused as duplicates) in {store_seconds:.0} s; {total} questions recalled in {recall_seconds:.0} s; date in {date_mode}, context {context_mode}"
    );
    println!("{:<14} {:>5} {:>6} {:>6} {:>6}", "category", "n", "R@1", "R@5", "R@10");
    println!(
        "{:<14} {:>5} {:>6.3} {:>6.3} {:>6.3}",
        "all",
        total,
        overall(0),
        overall(1),
        overall(2)
    );
    for (category, name) in CATEGORIES {
        let count = totals.get(&category).copied().unwrap_or(0);
        let counts = hits.get(&category).copied().unwrap_or_default();
        let rate = |slot: usize| counts[slot] as f64 / count.max(1) as f64;
        println!(
            "{:<14} {:>5} {:>6.3} {:>6.3} {:>6.3}",
            format!("{category} {name}"),
            count,
            rate(0),
            rate(1),
            rate(2)
        );
    }
    Ok(())
}
