//! One-node benchmark at 10k memories, through real processes and MCP.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example node_bench [-- --memories N --locomo PATH --model NAME --config TOML --no-baseline]`
//!
//! 1. Writes N memories (LoCoMo's dialogue turns, then synthetic ones) into a
//!    fresh home's documents, and times a bare fastembed call embedding the
//!    same work the node does (each memory's text and its passages; the
//!    baseline, in this run).
//! 2. `ferrex reindex`: rebuilds the index from those documents; its rate
//!    (memories/s, wall time including model load) is compared with the bare
//!    embedding throughput.
//! 3. Starts the node, then times through an MCP client: the stores of the
//!    notes of `paraphrase_cases` (memory-sized: 1–4 sentences, the figure
//!    of record for a store), 200 stores of one-sentence texts and 200
//!    `recall` calls (distinct LoCoMo questions: every query is embedded,
//!    none is a cache hit), and 300 stores of facts (25 services, their ports,
//!    versions, hosts, owners, dependencies, ... in a dozen wordings; the
//!    last 200 timed, when every subject has facts to be judged against).
//! 4. SIGKILLs the node and times a restart until a `recall` is answered.
//! 5. Reports the home's size on disk (documents and keys, index) and the
//!    node's resident memory after serving.
//!
//! `--no-baseline` skips the bare-embedding comparison of step 1, which at
//! large N costs more than the rest of the run.

use std::{
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_core::{Embedder, passages::texts_to_embed};
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch, ModelTier};
use ferrex_examples::{
    DEFAULT_LOCOMO, bare_fastembed, bench_texts, load_locomo, millis, paraphrase_cases, percentile,
    prefill,
};
use ferrex_tests::{TestHome, ferrex_bin};
use serde_json::json;

const NAMESPACE: &str = "bench";

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut count = 10_000usize;
    let mut locomo = PathBuf::from(DEFAULT_LOCOMO);
    let mut baseline = true;
    let mut tier = ModelTier::default();
    let mut config = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--memories" => count = value()?.parse()?,
            "--locomo" => locomo = value()?.into(),
            "--no-baseline" => baseline = false,
            "--model" => tier = value()?.parse()?,
            "--config" => {
                config.push_str(&value()?);
                config.push('\n');
            }
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    let conversations = load_locomo(&locomo)?;
    let texts = bench_texts(&conversations, count);
    let missing = count.saturating_sub(conversations.iter().map(|c| c.turns.len()).sum());
    let questions: Vec<String> = conversations
        .iter()
        .flat_map(|conversation| conversation.questions.iter())
        .map(|question| question.question.clone())
        .collect();
    anyhow::ensure!(questions.len() >= 400, "LoCoMo has too few questions");
    println!(
        "ferrex node benchmark: {count} memories ({} LoCoMo turns), binary {}",
        count - missing,
        ferrex_bin().display()
    );

    // 1. Documents, and the bare embedding baseline on the same texts.
    let home = TestHome::with_config(&format!("[embed]\nmodel = \"{tier}\"\n{config}"));
    prefill(&home.path().join("docs"), NAMESPACE, &texts, 100)?;
    let (bare_rate, ferrex_rate) = if !baseline {
        (f64::NAN, f64::NAN)
    } else {
        let files = ModelSearch::from_env().locate(tier)?;
        let options = EmbedderOptions { tier, ..Default::default() };
        let mut bare = bare_fastembed(&files, &options)?;
        // The same work the node does: each memory's whole text and its
        // passages.
        let all: Vec<String> = texts.iter().flat_map(|text| texts_to_embed(text)).collect();
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        println!(
            "embedding work: {} texts ({:.2} per memory: whole text and passages)",
            all.len(),
            all.len() as f64 / count as f64
        );
        let started = Instant::now();
        bare.embed(&refs, None)?;
        let bare_rate = count as f64 / started.elapsed().as_secs_f64();
        let mut embedder = FastEmbedder::from_verified_files(&files, &options)?;
        let started = Instant::now();
        embedder.embed_batch(&refs)?;
        (bare_rate, count as f64 / started.elapsed().as_secs_f64())
    };

    // 2. Rebuild.
    let started = Instant::now();
    let (ok, _, stderr) = home.run(&["reindex"]);
    anyhow::ensure!(ok, "reindex failed: {stderr}");
    let rebuild_rate = count as f64 / started.elapsed().as_secs_f64();

    // 3. Serve: store and recall through MCP.
    let client = match ferrex_tests::Client::connect(&home).await {
        Ok(client) => client,
        Err(error) => {
            let log =
                std::fs::read_to_string(home.path().join("logs/node.log")).unwrap_or_default();
            let start =
                std::fs::read_to_string(home.path().join("logs/start.log")).unwrap_or_default();
            anyhow::bail!("connecting: {error:#}\nnode.log:\n{log}\nstart.log:\n{start}");
        }
    };
    let mut note_stores = Vec::new();
    for note in paraphrase_cases::NOTES {
        let started = Instant::now();
        let answer =
            client.ok("store", json!({"content": note.text, "namespace": NAMESPACE})).await;
        note_stores.push(started.elapsed());
        anyhow::ensure!(answer["id"].is_string(), "store answered {answer}");
    }
    let mut stores = Vec::new();
    for question in questions.iter().take(200) {
        let started = Instant::now();
        let answer = client
            .ok(
                "store",
                json!({"content": format!("Open question: {question}"), "namespace": NAMESPACE}),
            )
            .await;
        stores.push(started.elapsed());
        anyhow::ensure!(answer["id"].is_string(), "store answered {answer}");
    }
    const WORDINGS: [&str; 12] = [
        "port",
        "listens on port",
        "version",
        "current version",
        "depends on",
        "uses",
        "owned by",
        "owner",
        "runs on host",
        "hosted on",
        "region",
        "max connections",
    ];
    let mut fact_stores = Vec::new();
    for index in 0..300_usize {
        let subject = format!("service-{:02}", index % 25);
        let predicate = WORDINGS[(index / 25 + index) % WORDINGS.len()];
        let started = Instant::now();
        let answer = client
            .ok(
                "store",
                json!({"subject": subject, "predicate": predicate, "object": format!("value {}", index % 7), "namespace": NAMESPACE}),
            )
            .await;
        if index >= 100 {
            fact_stores.push(started.elapsed());
        }
        anyhow::ensure!(answer["id"].is_string(), "store answered {answer}");
    }
    let mut recalls = Vec::new();
    for question in questions.iter().skip(200).take(200) {
        let started = Instant::now();
        let answer = client
            .ok("recall", json!({"query": question, "namespace": NAMESPACE, "limit": 10}))
            .await;
        recalls.push(started.elapsed());
        anyhow::ensure!(answer["count"] == 10, "recall answered {answer}");
    }
    client.close().await;
    let rss_mb = home.node_pid().and_then(resident_mb).unwrap_or(f64::NAN);

    // 4. Crash and restart until serving.
    home.kill_node();
    let started = Instant::now();
    let mut node = Command::new(ferrex_bin())
        .arg("--home")
        .arg(home.path())
        .arg("node")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let socket = home.path().join("ferrex.sock");
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        anyhow::ensure!(started.elapsed() < Duration::from_secs(120), "the node did not come back");
        anyhow::ensure!(node.try_wait()?.is_none(), "the restarted node exited");
        std::thread::sleep(Duration::from_millis(5));
    }
    let listening = started.elapsed();
    let client = match ferrex_tests::Client::connect(&home).await {
        Ok(client) => client,
        Err(error) => {
            let log =
                std::fs::read_to_string(home.path().join("logs/node.log")).unwrap_or_default();
            anyhow::bail!("connecting after the restart: {error:#}\nnode.log:\n{log}");
        }
    };
    let answer = client
        .ok(
            "recall",
            json!({"query": "what happened at the support group", "namespace": NAMESPACE}),
        )
        .await;
    let serving = started.elapsed();
    anyhow::ensure!(answer["count"] == 10, "recall after restart answered {answer}");
    client.close().await;
    home.stop();
    let _ = node.wait();
    let docs_bytes = dir_bytes(&home.path().join("docs"));
    let index_bytes = ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"]
        .iter()
        .map(|name| std::fs::metadata(home.path().join(name)).map(|meta| meta.len()).unwrap_or(0))
        .sum::<u64>();

    println!("model {tier}");
    println!(
        "store of a note p50 {:>7.2} ms   p95 {:>7.2} ms   max {:>7.2} ms   ({} memory-sized notes, 1-4 sentences)",
        millis(percentile(&mut note_stores, 50)),
        millis(percentile(&mut note_stores, 95)),
        millis(percentile(&mut note_stores, 100)),
        note_stores.len()
    );
    println!(
        "store of a sentence p50 {:>7.2} ms   p95 {:>7.2} ms   (200 calls through MCP)",
        millis(percentile(&mut stores, 50)),
        millis(percentile(&mut stores, 95))
    );
    println!(
        "store of a fact p50 {:>7.2} ms   p95 {:>7.2} ms   (200 calls, subjects with facts already)",
        millis(percentile(&mut fact_stores, 50)),
        millis(percentile(&mut fact_stores, 95))
    );
    println!(
        "recall p50 {:>7.2} ms   p95 {:>7.2} ms   (200 distinct queries, limit 10)",
        millis(percentile(&mut recalls, 50)),
        millis(percentile(&mut recalls, 95))
    );
    println!("node resident memory after serving: {rss_mb:.0} MB");
    println!(
        "restart after SIGKILL: socket open in {:.0} ms, first recall answered at {:.0} ms",
        millis(listening),
        millis(serving)
    );
    println!(
        "on disk: documents and keys {:.1} MB, index {:.1} MB ({} memories prefilled, and the run's stores)",
        docs_bytes as f64 / 1e6,
        index_bytes as f64 / 1e6,
        count
    );
    println!(
        "rebuild {rebuild_rate:.0} memories/s (ferrex reindex of {count}, wall time incl. model load)"
    );
    println!(
        "  vs bare fastembed embed(texts, None) of the same texts {bare_rate:.0} memories/s: ratio {:.3}",
        rebuild_rate / bare_rate
    );
    println!(
        "  vs ferrex-embed embed_batch alone of the same texts {ferrex_rate:.0} memories/s: ratio {:.3}",
        rebuild_rate / ferrex_rate
    );
    Ok(())
}

/// The resident memory of process `pid` in MB, from /proc.
fn resident_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kilobytes: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes / 1024.0)
}

/// Bytes of every file under `dir`.
fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| match entry.metadata() {
                    Ok(meta) if meta.is_dir() => dir_bytes(&entry.path()),
                    Ok(meta) => meta.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}
