//! One-node benchmark at 10k memories, through real processes and MCP.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example node_bench [-- --memories N --locomo PATH --model NAME --config TOML --no-baseline --home DIR --compare-exact]`
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
//! large N costs more than the rest of the run. `--home DIR` keeps a copy of
//! the prefilled and rebuilt home in DIR, and when DIR already holds one,
//! starts from a copy of it instead of steps 1 and 2 (a 100k rebuild takes
//! about 20 minutes); the run's stores never touch DIR.
//!
//! `--compare-exact` then restarts the node with `memory.exact_search` on
//! and runs the same recalls: their time, and how much of each exact top
//! 10 the default's answer held (recall@10 of the fast path).
//!
//! The last line of the output holds every figure as `key=value` pairs, in
//! a fixed order, for scripts comparing runs.

use std::{
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_core::{Embedder, passages::texts_to_embed};
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch, ModelTier};
use ferrex_examples::{
    DEFAULT_LOCOMO, bare_fastembed, bench_texts, copy_home, load_locomo, millis, paraphrase_cases,
    percentile, prefill,
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
    let mut kept: Option<PathBuf> = None;
    let mut compare_exact = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--memories" => count = value()?.parse()?,
            "--locomo" => locomo = value()?.into(),
            "--no-baseline" => baseline = false,
            "--model" => tier = value()?.parse()?,
            "--home" => kept = Some(value()?.into()),
            "--compare-exact" => compare_exact = true,
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

    let home = TestHome::with_config(&format!("[embed]\nmodel = \"{tier}\"\n{config}"));
    let reused = kept.as_ref().filter(|dir| dir.join("index.sqlite").exists());
    let Built { bare_rate, ferrex_rate, rebuild_rate, rebuild_peak_mb } = if let Some(dir) = reused
    {
        println!("starting from a copy of {} (no prefill, no rebuild)", dir.display());
        copy_home(dir, home.path())?;
        Built {
            bare_rate: f64::NAN,
            ferrex_rate: f64::NAN,
            rebuild_rate: f64::NAN,
            rebuild_peak_mb: f64::NAN,
        }
    } else {
        let rates = prefill_and_rebuild(&home, &texts, tier, baseline)?;
        if let Some(dir) = &kept {
            copy_home(home.path(), dir)?;
            println!("kept a copy of the rebuilt home in {}", dir.display());
        }
        rates
    };

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
    let recall_questions: Vec<&String> = questions.iter().skip(200).take(200).collect();
    let (mut recalls, answers) = timed_recalls(&client, &recall_questions).await?;
    client.close().await;
    let rss_mb = home.node_pid().and_then(resident_mb).unwrap_or(f64::NAN);
    // Of which the process's own memory, without the pages of files it
    // maps (the index), which the kernel can drop and read again.
    let anon_mb =
        home.node_pid().and_then(|pid| proc_status_mb(pid, "RssAnon:")).unwrap_or(f64::NAN);

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

    // 6. The same recalls with every vector ranked exactly.
    let (agreement, mut exact_recalls) = if compare_exact {
        let mut node = Command::new(ferrex_bin())
            .arg("--home")
            .arg(home.path())
            .arg("node")
            .env("FERREX_MEMORY_EXACT_SEARCH", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let client = ferrex_tests::Client::connect(&home).await?;
        let (exact_recalls, exact_answers) = timed_recalls(&client, &recall_questions).await?;
        client.close().await;
        home.stop();
        let _ = node.wait();
        let overlap: usize = answers
            .iter()
            .zip(&exact_answers)
            .map(|(fast, exact)| exact.iter().filter(|id| fast.contains(id)).count())
            .sum();
        let total: usize = exact_answers.iter().map(Vec::len).sum();
        (overlap as f64 / total.max(1) as f64, exact_recalls)
    } else {
        (f64::NAN, Vec::new())
    };
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
    if compare_exact {
        println!(
            "recall with every vector ranked exactly p50 {:>7.2} ms   p95 {:>7.2} ms; the default's answers hold {:.4} of its top 10 (recall@10 against the exact scan, same 200 queries)",
            millis(percentile(&mut exact_recalls, 50)),
            millis(percentile(&mut exact_recalls, 95)),
            agreement
        );
    }
    println!(
        "node resident memory after serving: {rss_mb:.0} MB, of which {anon_mb:.0} MB its own (the rest mapped index pages)"
    );
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
    println!("  peak resident memory of the rebuild: {rebuild_peak_mb:.0} MB");
    // The stable last line: every figure, fixed keys in a fixed order
    // (milliseconds, MB, memories per second; NaN when not measured).
    println!(
        "figures memories={count} model={tier} note_p50={:.2} note_p95={:.2} sentence_p50={:.2} sentence_p95={:.2} fact_p50={:.2} fact_p95={:.2} recall_p50={:.2} recall_p95={:.2} serving_rss={rss_mb:.0} serving_anon={anon_mb:.0} restart_listening={:.0} restart_first_answer={:.0} docs_mb={:.1} index_mb={:.1} rebuild_rate={rebuild_rate:.0} rebuild_peak_rss={rebuild_peak_mb:.0} exact_recall_p50={:.2} recall_at_10_vs_exact={agreement:.4}",
        millis(percentile(&mut note_stores, 50)),
        millis(percentile(&mut note_stores, 95)),
        millis(percentile(&mut stores, 50)),
        millis(percentile(&mut stores, 95)),
        millis(percentile(&mut fact_stores, 50)),
        millis(percentile(&mut fact_stores, 95)),
        millis(percentile(&mut recalls, 50)),
        millis(percentile(&mut recalls, 95)),
        millis(listening),
        millis(serving),
        docs_bytes as f64 / 1e6,
        index_bytes as f64 / 1e6,
        if exact_recalls.is_empty() {
            f64::NAN
        } else {
            millis(percentile(&mut exact_recalls, 50))
        },
    );
    Ok(())
}

/// Recalls `questions` (limit 10) through `client`; returns each call's
/// time and its answer's ids.
async fn timed_recalls(
    client: &ferrex_tests::Client,
    questions: &[&String],
) -> anyhow::Result<(Vec<Duration>, Vec<Vec<String>>)> {
    let mut times = Vec::new();
    let mut answers = Vec::new();
    for question in questions {
        let started = Instant::now();
        let answer = client
            .ok("recall", json!({"query": question, "namespace": NAMESPACE, "limit": 10}))
            .await;
        times.push(started.elapsed());
        anyhow::ensure!(answer["count"] == 10, "recall answered {answer}");
        answers.push(ferrex_tests::result_ids(&answer));
    }
    Ok((times, answers))
}

/// What steps 1 and 2 measured.
struct Built {
    /// A bare fastembed call on the same work, memories per second.
    bare_rate: f64,
    /// ferrex-embed's `embed_batch` alone, memories per second.
    ferrex_rate: f64,
    /// `ferrex reindex`, memories per second (wall time incl. model load).
    rebuild_rate: f64,
    /// The reindex process's peak resident memory, MB.
    rebuild_peak_mb: f64,
}

/// Steps 1 and 2: writes `texts` into the home's documents, times the bare
/// embedding of the same work (unless `baseline` is off) and `ferrex
/// reindex`.
#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
fn prefill_and_rebuild(
    home: &TestHome,
    texts: &[String],
    tier: ModelTier,
    baseline: bool,
) -> anyhow::Result<Built> {
    let count = texts.len();
    // 1. Documents, and the bare embedding baseline on the same texts.
    prefill(&home.path().join("docs"), NAMESPACE, texts, 100)?;
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
    let mut reindex =
        home.command(&["reindex"]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn()?;
    let mut rebuild_peak_mb = f64::NAN;
    let status = loop {
        // VmHWM is the process's peak so far: the last reading before it
        // exits is its peak within one polling interval's growth.
        if let Some(peak) = proc_status_mb(reindex.id(), "VmHWM:") {
            rebuild_peak_mb = peak;
        }
        if let Some(status) = reindex.try_wait()? {
            break status;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let rebuild_rate = count as f64 / started.elapsed().as_secs_f64();
    if !status.success() {
        let mut stderr = String::new();
        if let Some(mut pipe) = reindex.stderr.take() {
            std::io::Read::read_to_string(&mut pipe, &mut stderr)?;
        }
        anyhow::bail!("reindex failed: {stderr}");
    }
    Ok(Built { bare_rate, ferrex_rate, rebuild_rate, rebuild_peak_mb })
}

/// The resident memory of process `pid` in MB, from /proc.
fn resident_mb(pid: u32) -> Option<f64> {
    proc_status_mb(pid, "VmRSS:")
}

/// A figure in kB from `/proc/<pid>/status` (`VmRSS:`, `VmHWM:`), in MB.
fn proc_status_mb(pid: u32, key: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(key))?;
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
