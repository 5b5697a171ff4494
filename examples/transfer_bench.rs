//! Export and import rates with real `ferrex` processes and the real model.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example transfer_bench -- --from-home DIR [--runs 3]`
//!
//! DIR is a home with memories and a complete index (as `node_bench --home`
//! keeps); it is copied first and left as it is. Prints, as medians of
//! `--runs` runs: `ferrex export` (JSON Lines and Markdown) in memories per
//! second, its node already running; `ferrex import` of that export into an
//! empty home (node running) until it returns, when every memory is
//! searchable by its words; and, once, the time until the importing node has
//! embedded everything, as a rate and as a share of ferrex-embed's rate and
//! of a bare fastembed call's on the same work (each memory's text and its
//! passages) in this run.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Context, ensure};
use ferrex_examples::{copy_home, embedding_rates, median};
use ferrex_tests::{Client, TestHome};
use serde_json::{Value, json};

fn run(home: &TestHome, args: &[&str]) -> anyhow::Result<String> {
    let (ok, stdout, stderr) = home.run(args);
    ensure!(ok, "ferrex {args:?}: {stderr}");
    Ok(stdout)
}

/// Starts the node of `home` and waits until it answers.
async fn started(home: &TestHome) -> anyhow::Result<Client> {
    let client = Client::connect(home).await?;
    client.ok("stats", json!({})).await;
    Ok(client)
}

#[allow(clippy::print_stdout, reason = "the benchmark's figures")]
#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let mut from: Option<PathBuf> = None;
    let mut runs = 3;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--from-home" => from = args.next().map(PathBuf::from),
            "--runs" => runs = args.next().context("--runs N")?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let from = from.context("--from-home DIR (a home with memories and a complete index)")?;
    let source = TestHome::new();
    copy_home(&from, source.path())?;
    let client = started(&source).await?;
    let count = client.ok("stats", json!({})).await["memories"].as_u64().unwrap_or(0);
    ensure!(count > 0, "{} holds no memories", from.display());
    let file = source.path().join("export.jsonl");
    let file_arg = file.to_str().context("a UTF-8 path")?.to_owned();

    let mut export_rates = Vec::new();
    let mut markdown_rates = Vec::new();
    for run_index in 0..runs {
        let started = Instant::now();
        run(&source, &["export", "--out", &file_arg])?;
        export_rates.push(count as f64 / started.elapsed().as_secs_f64());
        let pages = source.path().join(format!("pages-{run_index}"));
        let started = Instant::now();
        run(
            &source,
            &["export", "--format", "markdown", "--out", pages.to_str().context("path")?],
        )?;
        markdown_rates.push(count as f64 / started.elapsed().as_secs_f64());
    }
    let bytes = std::fs::metadata(&file)?.len();
    println!(
        "export jsonl    {:.0} memories/s (median of {runs}; {count} memories, {:.1} MB)",
        median(&mut export_rates),
        bytes as f64 / 1e6
    );
    println!("export markdown {:.0} memories/s (median of {runs})", median(&mut markdown_rates));

    let mut import_rates = Vec::new();
    let mut embedded_after = Duration::ZERO;
    for run_index in 0..runs {
        let target = TestHome::new();
        let other = started(&target).await?;
        let started = Instant::now();
        let answer: Value = serde_json::from_str(&run(&target, &["import", &file_arg, "--json"])?)?;
        let imported = started.elapsed();
        ensure!(answer["memories"].as_u64() == Some(count), "imported {answer}");
        import_rates.push(count as f64 / imported.as_secs_f64());
        if run_index == 0 {
            other.caught_up().await;
            embedded_after = started.elapsed();
        }
        other.close().await;
        target.stop();
    }
    println!(
        "import jsonl    {:.0} memories/s until searchable by keywords (median of {runs})",
        median(&mut import_rates)
    );
    let texts = texts_of(&file)?;
    let (bare_rate, embed_rate) = embedding_rates(&texts)?;
    let rate = count as f64 / embedded_after.as_secs_f64();
    println!(
        "import jsonl    every vector after {:.1} s: {rate:.0} memories/s; on the same work ferrex-embed alone {embed_rate:.0} memories/s (ratio {:.2}), a bare fastembed call {bare_rate:.0} memories/s (ratio {:.2})",
        embedded_after.as_secs_f64(),
        rate / embed_rate,
        rate / bare_rate
    );
    client.close().await;
    source.stop();
    Ok(())
}

/// The text of every memory of an export (a fact as the node embeds it,
/// `Triple::text`).
fn texts_of(file: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(file)?;
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "memory")
        .map(|line| match line["content"].as_str() {
            Some(content) => content.to_owned(),
            None => ferrex_core::Triple {
                subject: line["subject"].as_str().unwrap_or("").to_owned(),
                predicate: line["predicate"].as_str().unwrap_or("").to_owned(),
                object: line["object"].as_str().unwrap_or("").to_owned(),
            }
            .text(),
        })
        .collect())
}
