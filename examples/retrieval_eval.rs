//! Retrieval evaluation through a real ferrex node and MCP, on two sets:
//! LoCoMo (dialogue turns, public) and `paraphrase_cases` (coding-agent
//! notes, queries paraphrased away from their words; written before any
//! tuning and frozen). Each set has a development split, the only one
//! choices were made on, and a held-out split reported beside it.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example retrieval_eval [-- --model NAME --config TOML --home DIR --sets locomo,notes --locomo PATH --undated]`
//!
//! - `--model` picks the embedding model (`embed.model`; default: ferrex's).
//! - `--config` adds lines to the node's `ferrex.toml`, for example
//!   `--config $'[memory]\ntext_weight = 2'`.
//! - `--undated` stores LoCoMo turns without their date in the text (it is
//!   still their `valid_from`), as an agent storing what it heard would:
//!   then only the query's dates (`memory.date_weight`) can find a day.
//! - `--home DIR` keeps the node's home in DIR: a second run with the same
//!   DIR stores nothing and only recalls (a different `--model` re-embeds
//!   what is stored, as a node whose model changed does), so ranking
//!   settings can be compared quickly. Without it a temporary home is used.
//!
//! LoCoMo: every dialogue turn of the 10 conversations is stored as a
//! memory (`[date] Speaker: text`, valid from the session's time, one namespace per conversation, the turn
//! it answers as its `context`); each non-adversarial question with evidence
//! is recalled and hits at k when an evidence turn is in the top k.
//! Conversations 3, 6 and 9 (index % 3 == 2) are held out.
//!
//! Notes: every note is stored in namespace `notes`; a query hits at k when
//! one of its targets is in the top k. Every third query is held out.
//!
//! Prints R@1, R@5, R@10 and MRR (over the top 10) per set and split, and
//! per LoCoMo category; store latency (p50/p95/max) when it stored.

use std::{
    collections::HashMap,
    path::PathBuf,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_examples::{DEFAULT_LOCOMO, load_locomo, millis, paraphrase_cases, percentile};
use ferrex_tests::{Client, TestHome};
use serde_json::{Value, json};

const CATEGORIES: [(u64, &str); 4] =
    [(1, "multi-hop"), (2, "temporal"), (3, "open-domain"), (4, "single-hop")];

/// Where a kept home records which memory holds which turn or note.
const MAP_FILE: &str = "eval-map.json";

/// Ranks (0-based, within the top 10) of the first relevant result, or
/// `None` when none is in the top 10, grouped by a label.
#[derive(Default)]
struct Tally {
    ranks: Vec<Option<usize>>,
}

impl Tally {
    fn add(&mut self, rank: Option<usize>) {
        self.ranks.push(rank);
    }

    fn recall_at(&self, k: usize) -> f64 {
        let hits = self.ranks.iter().filter(|rank| rank.is_some_and(|rank| rank < k)).count();
        hits as f64 / self.ranks.len().max(1) as f64
    }

    fn mrr(&self) -> f64 {
        let sum: f64 = self.ranks.iter().flatten().map(|rank| 1.0 / (rank + 1) as f64).sum();
        sum / self.ranks.len().max(1) as f64
    }

    #[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
    fn print(&self, label: &str) {
        println!(
            "{label:<26} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
            self.ranks.len(),
            self.recall_at(1),
            self.recall_at(5),
            self.recall_at(10),
            self.mrr()
        );
    }
}

#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut locomo = PathBuf::from(DEFAULT_LOCOMO);
    let mut config = String::new();
    let mut home_dir: Option<PathBuf> = None;
    let mut sets = vec!["locomo".to_owned(), "notes".to_owned()];
    let mut undated = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--locomo" => locomo = value()?.into(),
            "--model" => config.push_str(&format!("[embed]\nmodel = \"{}\"\n", value()?)),
            "--config" => {
                config.push_str(&value()?);
                config.push('\n');
            }
            "--home" => home_dir = Some(value()?.into()),
            "--sets" => sets = value()?.split(',').map(str::to_owned).collect(),
            "--undated" => undated = true,
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    let home = match &home_dir {
        Some(dir) => TestHome::kept_at(dir, &config),
        None => TestHome::with_config(&config),
    };
    let map_path = home.path().join(MAP_FILE);
    // Memory id → the LoCoMo turns or note keys it holds (a text refused as
    // a duplicate is held by the memory it duplicates).
    let mut held: HashMap<String, Vec<String>> = match std::fs::read(&map_path) {
        Ok(bytes) => serde_json::from_slice(&bytes).context("reading the eval map")?,
        Err(_) => HashMap::new(),
    };
    let client = home.client().await;
    let conversations = load_locomo(&locomo)?;

    if held.is_empty() {
        let started = Instant::now();
        let mut latencies = Vec::new();
        for conversation in &conversations {
            for (index, turn) in conversation.turns.iter().enumerate() {
                let content = if undated {
                    format!("{}: {}", turn.speaker, turn.text)
                } else {
                    format!("[{}] {}: {}", turn.date, turn.speaker, turn.text)
                };
                let mut arguments = json!({"namespace": conversation.id, "content": content});
                // When it was said: what a query's dates are matched against.
                if let Some(time) = turn.iso_time() {
                    arguments["valid_from"] = json!(time);
                }
                // The turn this one answers, when in the same session: what
                // an agent would attach as the memory's context.
                if let Some(previous) =
                    index.checked_sub(1).map(|previous| &conversation.turns[previous])
                    && previous.date == turn.date
                {
                    arguments["context"] =
                        json!(format!("{}: {}", previous.speaker, previous.text));
                }
                let id = store(&client, arguments, &mut latencies).await;
                held.entry(id).or_default().push(turn.dia_id.clone());
            }
        }
        for note in paraphrase_cases::NOTES {
            let arguments = json!({"namespace": "notes", "content": note.text});
            let id = store(&client, arguments, &mut latencies).await;
            held.entry(id).or_default().push(note.key.to_owned());
        }
        println!(
            "stored {} texts in {:.0} s; store p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            latencies.len(),
            started.elapsed().as_secs_f64(),
            millis(percentile(&mut latencies, 50)),
            millis(percentile(&mut latencies, 95)),
            millis(percentile(&mut latencies, 100)),
        );
        std::fs::write(&map_path, serde_json::to_vec(&held)?)?;
    }
    wait_until_embedded(&client).await?;

    let started = Instant::now();
    let mut latencies: Vec<Duration> = Vec::new();
    let holds = |id: &String, wanted: &[String]| {
        held.get(id).is_some_and(|keys| keys.iter().any(|key| wanted.contains(key)))
    };
    println!(
        "{:<26} {:>5} {:>6} {:>6} {:>6} {:>6}",
        "set / split", "n", "R@1", "R@5", "R@10", "MRR"
    );
    if sets.iter().any(|set| set == "locomo") {
        let mut splits: [Tally; 2] = Default::default();
        let mut categories: HashMap<(u64, bool), Tally> = HashMap::new();
        for (number, conversation) in conversations.iter().enumerate() {
            let held_out = number % 3 == 2;
            for question in &conversation.questions {
                if question.category == 5 || question.evidence.is_empty() {
                    continue;
                }
                let asked = Instant::now();
                let ids = client.recall_ids(&question.question, &conversation.id, 10).await;
                latencies.push(asked.elapsed());
                let rank = ids.iter().position(|id| holds(id, &question.evidence));
                splits[usize::from(held_out)].add(rank);
                categories.entry((question.category, held_out)).or_default().add(rank);
            }
        }
        splits[0].print("locomo dev");
        splits[1].print("locomo held-out");
        for (category, name) in CATEGORIES {
            for (held_out, split) in [(false, "dev"), (true, "held-out")] {
                if let Some(tally) = categories.get(&(category, held_out)) {
                    tally.print(&format!("  {name} {split}"));
                }
            }
        }
    }
    if sets.iter().any(|set| set == "notes") {
        let mut splits: [Tally; 2] = Default::default();
        for (number, query) in paraphrase_cases::QUERIES.iter().enumerate() {
            let asked = Instant::now();
            let ids = client.recall_ids(query.text, "notes", 10).await;
            latencies.push(asked.elapsed());
            let targets: Vec<String> = query.targets.iter().map(|key| (*key).to_owned()).collect();
            let rank = ids.iter().position(|id| holds(id, &targets));
            splits[usize::from(paraphrase_cases::held_out(number))].add(rank);
        }
        splits[0].print("notes dev");
        splits[1].print("notes held-out");
    }
    println!(
        "{} recalls in {:.0} s; recall p50 {:.1} ms, p95 {:.1} ms",
        latencies.len(),
        started.elapsed().as_secs_f64(),
        millis(percentile(&mut latencies, 50)),
        millis(percentile(&mut latencies, 95)),
    );
    client.close().await;
    Ok(())
}

/// Stores one text, timing the call; returns the id that holds it.
async fn store(client: &Client, arguments: Value, latencies: &mut Vec<Duration>) -> String {
    let started = Instant::now();
    let answer = client.ok("store", arguments).await;
    latencies.push(started.elapsed());
    answer["id"].as_str().unwrap_or_default().to_owned()
}

/// Waits (bounded, an hour) until the node has embedded everything, passages
/// included, as it does after its model changed; prints progress to stderr.
#[allow(clippy::print_stderr, reason = "progress of a long wait")]
async fn wait_until_embedded(client: &Client) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut reported = Instant::now();
    while started.elapsed() < Duration::from_secs(3600) {
        let stats = client.ok("stats", json!({})).await;
        let lag = &stats["index_lag"];
        // Passages too: a memory without them is found less well.
        let queued = lag["embeddings_queued"].as_i64().unwrap_or(0)
            + lag["passages_queued"].as_i64().unwrap_or(0);
        if queued == 0 {
            return Ok(());
        }
        if reported.elapsed() > Duration::from_secs(20) {
            eprintln!("waiting for {queued} memories to be embedded");
            reported = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    anyhow::bail!("the node was still embedding after an hour")
}
