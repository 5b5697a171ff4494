//! MCP over HTTP against stdio, on one node, through real clients.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example http_bench -- --home DIR [--clients 16 --locomo PATH]`
//!
//! DIR is a home `node_bench --home DIR` keeps (10k memories, say); the
//! bench runs on a copy of it, with `http.bind` on a free loopback port.
//!
//! 1. One stdio session (rmcp's client through `ferrex`, the bridge) and one
//!    HTTP session (rmcp's Streamable HTTP client with the bearer token):
//!    200 recalls each (distinct LoCoMo questions, none a cache hit) and 100
//!    stores each (distinct memory-sized sentences), the two transports
//!    taking turns call by call so that both see the same machine.
//! 2. `--clients` HTTP sessions at once, each recalling 25 distinct
//!    questions: the sustained rate and the p50/p95 of a call.
//!
//! The last line holds every figure as `key=value` pairs.

#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_examples::{DEFAULT_LOCOMO, copy_home, load_locomo, memory_corpus, millis, percentile};
use ferrex_tests::{Client, TestHome};
use serde_json::json;

const NAMESPACE: &str = "bench";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut kept: Option<PathBuf> = None;
    let mut clients = 16_usize;
    let mut locomo = PathBuf::from(DEFAULT_LOCOMO);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--home" => kept = Some(value()?.into()),
            "--clients" => clients = value()?.parse()?,
            "--locomo" => locomo = value()?.into(),
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    let kept = kept.context("--home DIR (a home node_bench --home kept) is required")?;
    anyhow::ensure!(kept.join("index.sqlite").exists(), "{} holds no index", kept.display());
    let questions: Vec<String> = load_locomo(&locomo)?
        .iter()
        .flat_map(|conversation| conversation.questions.iter())
        .map(|question| question.question.clone())
        .collect();
    let needed = 400 + clients * 25;
    anyhow::ensure!(
        questions.len() >= needed,
        "LoCoMo has {} questions, {needed} needed",
        questions.len()
    );

    let (home, port) = TestHome::with_http("requests_per_second = 100000\nmax_concurrent = 256");
    copy_home(&kept, home.path())?;
    let stdio = Client::connect(&home).await?;
    let token = home.http_token();
    let url = ferrex_tests::mcp_url(port);
    let http = Client::connect_http(&url, Some(&token)).await?;
    println!("http_bench: a copy of {}, {clients} concurrent HTTP clients", kept.display());

    // Warm both paths (model, statements, connections).
    for question in questions.iter().take(5) {
        stdio.ok("recall", json!({"query": question, "namespace": NAMESPACE})).await;
        http.ok("recall", json!({"query": format!("{question}?"), "namespace": NAMESPACE})).await;
    }

    // 1. Taking turns.
    let (mut stdio_recalls, mut http_recalls) = (Vec::new(), Vec::new());
    for index in 0..200 {
        for (client, times, question) in [
            (&stdio, &mut stdio_recalls, &questions[5 + index]),
            (&http, &mut http_recalls, &questions[205 + index]),
        ] {
            let started = Instant::now();
            let answer = client
                .ok("recall", json!({"query": question, "namespace": NAMESPACE, "limit": 10}))
                .await;
            times.push(started.elapsed());
            anyhow::ensure!(answer["results"].is_array(), "recall answered {answer}");
        }
    }
    let texts = memory_corpus(200);
    let (mut stdio_stores, mut http_stores) = (Vec::new(), Vec::new());
    for index in 0..100 {
        for (client, times, text) in [
            (&stdio, &mut stdio_stores, &texts[2 * index]),
            (&http, &mut http_stores, &texts[2 * index + 1]),
        ] {
            let started = Instant::now();
            let answer = client
                .ok("store", json!({"content": format!("{text} (bench {index})"), "namespace": "http-bench"}))
                .await;
            times.push(started.elapsed());
            anyhow::ensure!(answer["id"].is_string(), "store answered {answer}");
        }
    }

    // 2. Many HTTP clients at once.
    let mut sessions = Vec::new();
    for _ in 0..clients {
        sessions.push(Client::connect_http(&url, Some(&token)).await?);
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (number, session) in sessions.into_iter().enumerate() {
        let mine: Vec<String> =
            questions.iter().skip(405 + number * 25).take(25).cloned().collect();
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            for question in mine {
                let began = Instant::now();
                let answer = session
                    .ok("recall", json!({"query": question, "namespace": NAMESPACE, "limit": 10}))
                    .await;
                times.push(began.elapsed());
                assert!(answer["results"].is_array(), "recall answered {answer}");
            }
            session.close().await;
            times
        }));
    }
    let mut concurrent: Vec<Duration> = Vec::new();
    for task in tasks {
        concurrent.extend(task.await?);
    }
    let wall = started.elapsed();
    let rate = concurrent.len() as f64 / wall.as_secs_f64();

    let stdio_recall = millis(percentile(&mut stdio_recalls, 50));
    let http_recall = millis(percentile(&mut http_recalls, 50));
    let stdio_store = millis(percentile(&mut stdio_stores, 50));
    let http_store = millis(percentile(&mut http_stores, 50));
    let concurrent_p50 = millis(percentile(&mut concurrent, 50));
    let concurrent_p95 = millis(percentile(&mut concurrent, 95));
    println!(
        "recall p50: stdio {stdio_recall:.2} ms, HTTP {http_recall:.2} ms (HTTP/stdio {:.2})",
        http_recall / stdio_recall
    );
    println!(
        "store p50: stdio {stdio_store:.2} ms, HTTP {http_store:.2} ms (HTTP/stdio {:.2})",
        http_store / stdio_store
    );
    println!(
        "{clients} HTTP clients at once: {} recalls in {:.1} s, {rate:.1} recalls/s, p50 {concurrent_p50:.1} ms, p95 {concurrent_p95:.1} ms",
        concurrent.len(),
        wall.as_secs_f64()
    );
    println!(
        "figures clients={clients} stdio_recall_p50={stdio_recall:.2} http_recall_p50={http_recall:.2} recall_ratio={:.3} stdio_store_p50={stdio_store:.2} http_store_p50={http_store:.2} store_ratio={:.3} concurrent_recalls_per_s={rate:.1} concurrent_p50={concurrent_p50:.1} concurrent_p95={concurrent_p95:.1}",
        http_recall / stdio_recall,
        http_store / stdio_store
    );
    http.close().await;
    stdio.close().await;
    home.stop();
    Ok(())
}
