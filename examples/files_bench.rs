//! Files-as-memory benchmark: a generated docs folder indexed by a real
//! node, the latency of an edit, and the node's memory with the watch.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example files_bench [-- --files N --edits E --read-only]`
//!
//! 1. Writes a docs folder of N files (default 2,000): Markdown with h1–h3
//!    sections, paragraphs, lists and code blocks in a few folders (design
//!    notes, decision records, runbooks, guides), and one file in ten a
//!    YAML or JSON config; plus a `node_modules` folder that must not be
//!    read.
//! 2. Measures the embedder alone (ferrex-embed, and a bare fastembed
//!    call) on 300 of the chunks' texts, each with its passages, as the
//!    node embeds them: the throughput the indexing is compared with.
//! 3. Starts a node watching the folder and times, through MCP `stats`,
//!    the reading (every file read and chunked) and the whole indexing
//!    (every chunk embedded): files/s and chunks/s, and chunks/s as a share
//!    of the bare rate.
//! 4. Edits E files one at a time (default 30), each a section given new
//!    words, and times from the write until `recall` answers the new words
//!    from that file: p50 and p95.
//! 5. Reads the node's resident memory (VmRSS, VmHWM) with the watch on.
//!
//! `--read-only` stops once every file is read (chunks in the index, the
//! watch on, embedding still under way) and reports the node's memory:
//! for a watch on 10,000 files without waiting an hour for the vectors.
//!
//! The last line holds every figure as `key=value` pairs.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_core::chunk::{self, FileKind};
use ferrex_examples::{Draw, embedding_rates, millis, percentile};
use ferrex_tests::{Client, TestHome};
use serde_json::json;

const NAMESPACE: &str = "bench";
/// Chunks the embedder alone is timed on.
const SAMPLED_CHUNKS: usize = 300;

const WORDS: &[&str] = &[
    "service",
    "gateway",
    "queue",
    "worker",
    "index",
    "schema",
    "migration",
    "replica",
    "shard",
    "cache",
    "token",
    "session",
    "deploy",
    "rollback",
    "latency",
    "throughput",
    "retry",
    "backoff",
    "timeout",
    "config",
    "secret",
    "cluster",
    "node",
    "leader",
    "follower",
    "snapshot",
    "log",
    "metric",
    "alert",
    "dashboard",
    "runbook",
    "incident",
    "owner",
    "team",
    "release",
    "branch",
    "review",
    "test",
    "fixture",
    "benchmark",
    "profile",
    "allocation",
    "buffer",
    "stream",
    "batch",
    "window",
    "partition",
    "compaction",
    "checkpoint",
    "vacuum",
    "tenant",
    "quota",
    "limit",
    "budget",
    "error",
    "warning",
    "trace",
    "span",
    "sample",
    "histogram",
    "percentile",
    "storage",
    "bucket",
    "object",
    "blob",
    "volume",
    "mount",
    "container",
    "image",
    "registry",
    "pipeline",
    "stage",
    "artifact",
    "build",
    "cargo",
    "crate",
    "module",
    "function",
    "handler",
    "router",
    "endpoint",
    "request",
    "response",
    "payload",
    "header",
    "cookie",
    "auth",
    "role",
    "permission",
    "audit",
    "policy",
    "contract",
    "interface",
    "adapter",
    "driver",
    "client",
];

/// Words and sentences drawn from [`WORDS`].
trait Prose {
    fn words(&mut self, count: usize) -> String;
    fn sentence(&mut self) -> String;
    fn paragraph(&mut self) -> String;
}

impl Prose for Draw {
    fn words(&mut self, count: usize) -> String {
        (0..count).map(|_| WORDS[self.uniform(WORDS.len())]).collect::<Vec<_>>().join(" ")
    }

    fn sentence(&mut self) -> String {
        let count = 8 + self.uniform(14);
        let mut text = self.words(count);
        text[..1].make_ascii_uppercase();
        text + "."
    }

    fn paragraph(&mut self) -> String {
        let count = 2 + self.uniform(4);
        (0..count).map(|_| self.sentence()).collect::<Vec<_>>().join(" ")
    }
}

/// One generated Markdown document.
fn markdown(draw: &mut Draw, title: &str) -> String {
    let mut text = format!("# {title}\n\n{}\n", draw.paragraph());
    for _ in 0..2 + draw.uniform(4) {
        let length = 2 + draw.uniform(3);
        let heading = draw.words(length);
        text.push_str(&format!("\n## {heading}\n\n{}\n", draw.paragraph()));
        match draw.uniform(4) {
            0 => {
                let items: Vec<String> = (0..3).map(|_| format!("- {}", draw.sentence())).collect();
                text.push_str(&format!("\n{}\n", items.join("\n")));
            }
            1 => {
                let sub = draw.words(2);
                text.push_str(&format!(
                    "\n### {sub}\n\n{}\n\n```sh\n# {}\nmake {}\n```\n",
                    draw.paragraph(),
                    draw.sentence(),
                    draw.words(1)
                ));
            }
            _ => text.push_str(&format!("\n{}\n", draw.paragraph())),
        }
    }
    text
}

/// Writes `count` files under `root`; returns the Markdown files' paths.
fn generate(root: &Path, count: usize) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let mut draw = Draw(31);
    let folders = ["design", "adr", "runbooks", "guides/backend", "guides/frontend", "notes"];
    let mut markdown_files = Vec::new();
    for index in 0..count {
        let folder = folders[index % folders.len()];
        let path = if index % 10 == 9 {
            let name = if index % 20 == 9 { "yaml" } else { "json" };
            let path = root.join(format!("config/{folder}/service-{index:05}.{name}"));
            let body = if name == "yaml" {
                format!(
                    "service: {}\nreplicas: {}\ntimeout_ms: {}\nowner: {}\n",
                    draw.words(1),
                    1 + draw.uniform(9),
                    100 * draw.uniform(50),
                    draw.words(1)
                )
            } else {
                format!(
                    "{{\"service\": \"{}\", \"replicas\": {}, \"retry\": \"{}\"}}\n",
                    draw.words(1),
                    1 + draw.uniform(9),
                    draw.words(2)
                )
            };
            std::fs::create_dir_all(path.parent().context("a parent")?)?;
            std::fs::write(&path, body)?;
            continue;
        } else {
            root.join(format!("{folder}/doc-{index:05}.md"))
        };
        std::fs::create_dir_all(path.parent().context("a parent")?)?;
        let title = draw.words(3);
        std::fs::write(&path, markdown(&mut draw, &title))?;
        markdown_files.push(path);
    }
    // Never read.
    for index in 0..200 {
        let path = root.join(format!("node_modules/pkg-{index}/README.md"));
        std::fs::create_dir_all(path.parent().context("a parent")?)?;
        std::fs::write(&path, markdown(&mut draw, "a dependency"))?;
    }
    Ok(markdown_files)
}

/// Every chunk text of the folder, as the node reads it.
fn chunk_texts(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut texts = Vec::new();
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry?;
        let name = entry.path().to_string_lossy();
        if !entry.file_type().is_file() || name.contains("node_modules") {
            continue;
        }
        let Some(kind) = FileKind::of(&name) else { continue };
        let bytes = std::fs::read(entry.path())?;
        if let Ok(chunks) = chunk::chunks(kind, &bytes) {
            texts.extend(chunks.into_iter().map(|chunk| chunk.text));
        }
    }
    Ok(texts)
}

/// `stats`' files section and index lag.
async fn stats(client: &Client) -> (i64, i64, i64, String) {
    let answer = client.ok("stats", json!({})).await;
    (
        answer["files"]["files"].as_i64().unwrap_or(0),
        answer["files"]["chunks"].as_i64().unwrap_or(0),
        answer["index_lag"]["embeddings_queued"].as_i64().unwrap_or(0)
            + answer["index_lag"]["passages_queued"].as_i64().unwrap_or(0),
        answer["files"]["status"]["state"].as_str().unwrap_or("").to_owned(),
    )
}

fn memory_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(field))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[tokio::main(flavor = "current_thread")]
#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
async fn main() -> anyhow::Result<()> {
    let mut count = 2_000;
    let mut edits = 30;
    let mut read_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--files" => count = value()?.parse()?,
            "--edits" => edits = value()?.parse()?,
            "--read-only" => read_only = true,
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    let folder = tempfile::tempdir()?;
    let root = folder.path();
    let markdown_files = generate(root, count)?;
    let texts = chunk_texts(root)?;
    println!("folder: {count} files, {} chunks (and 200 files in node_modules)", texts.len());
    // The embedder alone on a sample of the chunks (a bare fastembed call
    // batches 256 texts padded alike, slower on long chunks: both shown).
    let step = (texts.len() / SAMPLED_CHUNKS).max(1);
    let sample: Vec<String> = texts.iter().step_by(step).take(SAMPLED_CHUNKS).cloned().collect();
    let (fastembed_rate, embedder_rate) =
        if read_only { (0.0, 0.0) } else { embedding_rates(&sample)? };
    if !read_only {
        println!(
            "embedding alone, {} chunks each with its passages: ferrex-embed {embedder_rate:.1} \
             chunks/s, a bare fastembed call {fastembed_rate:.1}",
            sample.len()
        );
    }

    let home = TestHome::with_config(&format!(
        "[namespaces.{NAMESPACE}]\nwatch = [\"{}\"]\n",
        root.display()
    ));
    let started = Instant::now();
    let client = home.client().await;
    let pid = home.node_pid().context("the node's pid")?;
    let idle_kib = memory_kib(pid, "VmRSS:");
    let mut read_at = None;
    let deadline = Instant::now() + Duration::from_secs(3_600);
    let (files, chunks) = loop {
        anyhow::ensure!(Instant::now() < deadline, "the folder was not indexed within an hour");
        let (files, chunks, queued, state) = stats(&client).await;
        if files == count as i64 && state == "watching" && read_at.is_none() {
            read_at = Some(started.elapsed());
        }
        if read_at.is_some() && (queued == 0 || read_only) {
            break (files, chunks);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let indexed = started.elapsed();
    let read = read_at.unwrap_or(indexed);
    if read_only {
        println!(
            "read: {files} files, {chunks} chunks in {:.1} s ({:.0} files/s); embedding under way",
            read.as_secs_f64(),
            files as f64 / read.as_secs_f64()
        );
    }
    let files_rate = files as f64 / indexed.as_secs_f64();
    let chunks_rate = chunks as f64 / indexed.as_secs_f64();
    if !read_only {
        println!(
            "initial index: {files} files, {chunks} chunks; read in {:.1} s ({:.0} files/s), \
         indexed in {:.1} s: {files_rate:.1} files/s, {chunks_rate:.1} chunks/s = {:.2} of the embedder alone",
            read.as_secs_f64(),
            files as f64 / read.as_secs_f64(),
            indexed.as_secs_f64(),
            chunks_rate / embedder_rate
        );
    }
    let indexed_kib = memory_kib(pid, "VmRSS:");
    let peak_kib = memory_kib(pid, "VmHWM:");
    if read_only {
        println!(
            "figures: files={files} chunks={chunks} read_s={:.1} rss_start_mib={:.0} \
             rss_read_mib={:.0} rss_peak_mib={:.0}",
            read.as_secs_f64(),
            idle_kib as f64 / 1024.0,
            indexed_kib as f64 / 1024.0,
            peak_kib as f64 / 1024.0
        );
        client.close().await;
        return Ok(());
    }

    let mut latencies = Vec::new();
    let mut draw = Draw(77);
    for edit in 0..edits {
        let path = &markdown_files[draw.uniform(markdown_files.len())];
        let marker = format!("zebracrossing{edit} quartzlantern{edit}");
        let text = std::fs::read_to_string(path)?;
        std::fs::write(path, format!("{text}\n## Edit {edit}\n\nThe {marker} note.\n"))?;
        let written = Instant::now();
        let relative = path.strip_prefix(root)?.to_string_lossy().into_owned();
        loop {
            anyhow::ensure!(
                written.elapsed() < Duration::from_secs(60),
                "edit {edit} never recalled"
            );
            let answer = client
                .ok(
                    "recall",
                    json!({"query": marker, "namespace": NAMESPACE, "types": ["file"], "limit": 1}),
                )
                .await;
            let first = &answer["results"][0];
            if first["file"]["path"] == relative.as_str()
                && first["content"].as_str().is_some_and(|content| content.contains(&marker))
            {
                latencies.push(written.elapsed());
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let p50 = millis(percentile(&mut latencies, 50));
    let p95 = millis(percentile(&mut latencies, 95));
    println!(
        "re-index after one edit (write to recalled, {edits} edits): p50 {p50:.0} ms, p95 {p95:.0} ms"
    );
    let watching_kib = memory_kib(pid, "VmRSS:");
    println!(
        "node RSS: {:.0} MiB at start, {:.0} MiB indexed, {:.0} MiB watching (peak {:.0} MiB)",
        idle_kib as f64 / 1024.0,
        indexed_kib as f64 / 1024.0,
        watching_kib as f64 / 1024.0,
        peak_kib as f64 / 1024.0
    );
    println!(
        "figures: files={files} chunks={chunks} embedder_chunks_per_s={embedder_rate:.1} fastembed_chunks_per_s={fastembed_rate:.1} read_s={:.1} \
         index_s={:.1} files_per_s={files_rate:.1} chunks_per_s={chunks_rate:.1} \
         share_of_embedder={:.2} edit_p50_ms={p50:.0} edit_p95_ms={p95:.0} rss_start_mib={:.0} \
         rss_watching_mib={:.0} rss_peak_mib={:.0}",
        read.as_secs_f64(),
        indexed.as_secs_f64(),
        chunks_rate / embedder_rate,
        idle_kib as f64 / 1024.0,
        watching_kib as f64 / 1024.0,
        peak_kib as f64 / 1024.0
    );
    client.close().await;
    Ok(())
}
