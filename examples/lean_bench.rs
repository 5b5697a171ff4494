//! What a node costs in memory and in a store's time, so that the next
//! change that costs either shows in one run.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example lean_bench [-- --notes 1000,3000 --scale 10000,100000 --homes DIR --binary PATH --corpus notes|sentences]`
//!
//! 1. **Notes through MCP** (`--notes`, default 1000,3000): a fresh node,
//!    synthetic developer notes of two to four sentences
//!    (`developer_notes`; `--corpus sentences` stores one-sentence ones,
//!    `memory_corpus`, instead) stored one at a time through an MCP client
//!    over stdio, as an agent would; at each count, once the embedding
//!    worker has caught up and the node has rested three seconds: its
//!    resident memory (VmRSS) and its peak so far (VmHWM), the store's p50
//!    and CPU per store, and 100 recalls' p50. Beside it, in the same run,
//!    one bare embedding of each note the step stores, just before it
//!    stores them (ferrex-embed, one text a call, a session of this
//!    process): the store's p50 is given as a ratio of that p50, over the
//!    same texts (later notes are longer: against the first 300 notes, the
//!    3,000-note step's ratio read about 0.1 too high).
//! 2. **At scale** (`--scale`, default 10000,100000; `--scale none` skips
//!    it): a home prefilled with that many memories and rebuilt (`ferrex
//!    reindex`; kept under `--homes DIR` and reused when there), a node
//!    started on it, 100 notes stored and 100 recalls; its resident memory
//!    right after and three seconds later (the node between requests), its
//!    peak, store and recall p50.
//!
//! Every figure is also on the last line as `key=value` pairs. `--binary`
//! runs another build of ferrex (one from before a change, to compare in
//! one run, or a script that runs it under a profiler: the node is started
//! with `BINARY --home HOME node`, and the clients connect to it).

use std::{
    path::PathBuf,
    process::Stdio,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_core::Embedder;
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch};
use ferrex_examples::{copy_home, developer_notes, memory_corpus, millis, percentile, prefill};
use ferrex_tests::{Client, TestHome, ferrex_bin};
use serde_json::json;

const NAMESPACE: &str = "lean";
/// How long a node at scale rests after serving before its memory is read
/// again.
const REST: Duration = Duration::from_secs(3);

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut notes = vec![1_000usize, 3_000];
    let mut scales = vec![10_000usize, 100_000];
    let mut homes: Option<PathBuf> = None;
    let mut binary = ferrex_bin();
    let mut sentences = false;
    let mut args = std::env::args().skip(1);
    let counts = |text: String| -> anyhow::Result<Vec<usize>> {
        if text == "none" {
            return Ok(Vec::new());
        }
        text.split(',').map(|count| count.trim().parse().context("a count")).collect()
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--notes" => notes = counts(value()?)?,
            "--scale" => scales = counts(value()?)?,
            "--homes" => homes = Some(value()?.into()),
            "--binary" => binary = value()?.into(),
            "--corpus" => match value()?.as_str() {
                "notes" => sentences = false,
                "sentences" => sentences = true,
                other => anyhow::bail!("--corpus is notes or sentences, not {other:?}"),
            },
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    println!("lean_bench with {}", binary.display());
    let mut figures: Vec<(String, f64)> = Vec::new();

    // 1. Notes through MCP.
    if let Some(&most) = notes.iter().max() {
        let corpus = if sentences { memory_corpus(most) } else { developer_notes(most) };
        println!(
            "{}",
            if sentences { "one-sentence notes" } else { "developer notes of 2-4 sentences" }
        );
        let mut bare_embedder = bare_embedder()?;
        let home = TestHome::new().using(&binary);
        let node = start_node(&home).await?;
        let client = home.client().await;
        client.ok("stats", json!({})).await;
        let pid = home.node_pid().context("the node's pid")?;
        let idle = memory_mb(pid, "VmRSS:");
        println!("node started: {idle:.0} MB resident");
        figures.push(("idle_rss".into(), idle));
        let mut stored = 0usize;
        for &count in &notes {
            // The same texts embedded bare, while the node is idle.
            let bare = bare_embedding_p50(&mut bare_embedder, &corpus[stored..count])?;
            let mut times = Vec::new();
            let cpu_before = cpu_seconds(pid);
            for note in &corpus[stored..count] {
                let started = Instant::now();
                let answer =
                    client.ok("store", json!({"content": note, "namespace": NAMESPACE})).await;
                times.push(started.elapsed());
                anyhow::ensure!(answer["id"].is_string(), "store answered {answer}");
            }
            let stores = count - stored;
            stored = count;
            client.caught_up().await;
            let cpu_per_store = (cpu_seconds(pid) - cpu_before) * 1000.0 / stores as f64;
            // The node at rest after loading (its worker gives back what
            // the stores freed after a second's quiet).
            tokio::time::sleep(REST).await;
            let (rss, peak) = (memory_mb(pid, "VmRSS:"), memory_mb(pid, "VmHWM:"));
            let recall = recall_p50(&client, 100).await;
            let store = millis(percentile(&mut times, 50));
            println!(
                "{count} notes: resident {rss:.0} MB, peak {peak:.0} MB; store p50 {store:.2} ms \
                 (x{:.2} one bare embedding of the same notes, p50 {bare:.2} ms), CPU {cpu_per_store:.1} ms a store (worker included); recall p50 {recall:.2} ms",
                store / bare
            );
            for (key, value) in [
                ("rss", rss),
                ("peak", peak),
                ("store_p50", store),
                ("bare_embedding_p50", bare),
                ("store_vs_embedding", store / bare),
                ("cpu_per_store", cpu_per_store),
                ("recall_p50", recall),
            ] {
                figures.push((format!("{key}_{count}"), value));
            }
        }
        client.close().await;
        home.stop();
        reap(node)?;
    }

    // 2. At scale, from a rebuilt home.
    for &count in &scales {
        let home = TestHome::new().using(&binary);
        let kept = homes.as_ref().map(|dir| dir.join(format!("lean-{count}")));
        match kept.as_ref().filter(|dir| dir.join("index.sqlite").exists()) {
            Some(dir) => copy_home(dir, home.path())?,
            None => {
                let started = Instant::now();
                prefill(&home.path().join("docs"), NAMESPACE, &memory_corpus(count), 100)?;
                let status = home.command(&["reindex"]).stdout(Stdio::null()).status()?;
                anyhow::ensure!(status.success(), "reindex of {count} failed");
                println!(
                    "prefilled and rebuilt {count} memories in {:.0} s",
                    started.elapsed().as_secs_f64()
                );
                if let Some(dir) = &kept {
                    copy_home(home.path(), dir)?;
                }
            }
        }
        let node = start_node(&home).await?;
        let client = home.client().await;
        client.ok("stats", json!({})).await;
        let pid = home.node_pid().context("the node's pid")?;
        let opened = memory_mb(pid, "VmRSS:");
        let mut times = Vec::new();
        for note in memory_corpus(count + 100).iter().skip(count) {
            let started = Instant::now();
            client
                .ok("store", json!({"content": format!("Later: {note}"), "namespace": NAMESPACE}))
                .await;
            times.push(started.elapsed());
        }
        client.caught_up().await;
        let recall = recall_p50(&client, 100).await;
        let (rss, peak) = (memory_mb(pid, "VmRSS:"), memory_mb(pid, "VmHWM:"));
        // A node between requests: its worker gives back what they freed
        // after a second's quiet.
        tokio::time::sleep(REST).await;
        let rested = memory_mb(pid, "VmRSS:");
        let store = millis(percentile(&mut times, 50));
        println!(
            "{count} memories: resident {opened:.0} MB when open, {rss:.0} MB serving, {rested:.0} MB {} s later, \
             peak {peak:.0} MB; store p50 {store:.2} ms; recall p50 {recall:.2} ms",
            REST.as_secs()
        );
        for (key, value) in [
            ("open_rss", opened),
            ("rss", rss),
            ("rested_rss", rested),
            ("peak", peak),
            ("store_p50", store),
            ("recall_p50", recall),
        ] {
            figures.push((format!("{key}_{count}"), value));
        }
        client.close().await;
        home.stop();
        reap(node)?;
    }

    let line: Vec<String> =
        figures.iter().map(|(key, value)| format!("{key}={value:.2}")).collect();
    println!("figures {}", line.join(" "));
    Ok(())
}

/// Starts `home`'s node in the foreground of a child process and waits
/// until it serves (its log says so).
async fn start_node(home: &TestHome) -> anyhow::Result<std::process::Child> {
    let mut node = home
        .command(&["node"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting the node")?;
    let log = home.path().join("logs").join("node.log");
    let started = Instant::now();
    loop {
        if std::fs::read_to_string(&log).is_ok_and(|text| text.contains("serving socket=")) {
            return Ok(node);
        }
        if let Some(status) = node.try_wait()? {
            anyhow::bail!("the node exited ({status}); see {}", log.display());
        }
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(600),
            "the node did not serve in 600 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for the node that `ferrex stop` was asked to end, a minute at
/// most (then it is killed, and that is an error).
fn reap(mut node: std::process::Child) -> anyhow::Result<()> {
    let started = Instant::now();
    while node.try_wait()?.is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            node.kill()?;
            node.wait()?;
            anyhow::bail!("the node had not exited 60 s after ferrex stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// A session of the default model in this process, as the node loads it.
fn bare_embedder() -> anyhow::Result<FastEmbedder> {
    let files = ModelSearch::from_env().locate(Default::default())?;
    Ok(FastEmbedder::from_verified_files(&files, &EmbedderOptions::default())?)
}

/// The p50 of one embedding of each of `texts`, one call a text, in ms.
fn bare_embedding_p50(embedder: &mut FastEmbedder, texts: &[String]) -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for text in texts {
        let started = Instant::now();
        embedder.embed_one(text)?;
        times.push(started.elapsed());
    }
    Ok(millis(percentile(&mut times, 50)))
}

/// The p50 of `count` recalls of distinct questions (no query vector
/// cached), in ms.
async fn recall_p50(client: &Client, count: usize) -> f64 {
    const ASKED: [&str; 10] = [
        "what does the api server depend on",
        "where was the deploy pipeline moved",
        "which problem did customer support report",
        "what did the postgres database replace",
        "who met Alice from the platform team",
        "what runs on port 8080",
        "which test is flaky",
        "what happened after the outage",
        "where is the new staging cluster",
        "which certificate expired",
    ];
    let mut times: Vec<Duration> = Vec::new();
    for index in 0..count {
        let query = format!("{} (question {index})", ASKED[index % ASKED.len()]);
        let started = Instant::now();
        client.ok("recall", json!({"query": query, "namespace": NAMESPACE, "limit": 10})).await;
        times.push(started.elapsed());
    }
    millis(percentile(&mut times, 50))
}

/// A figure in kB of `/proc/<pid>/status` (`VmRSS:`, `VmHWM:`), in MB.
fn memory_mb(pid: u32, key: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with(key))?.to_owned();
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// The CPU time process `pid` has used (user and system), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return f64::NAN };
    // Fields after the command's closing parenthesis: utime is the 14th
    // field of the line, stime the 15th (11th and 12th after it).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: f64 = fields.get(11).and_then(|t| t.parse::<f64>().ok()).unwrap_or(f64::NAN)
        + fields.get(12).and_then(|t| t.parse::<f64>().ok()).unwrap_or(f64::NAN);
    ticks / 100.0
}
