//! Sharing a project with a teammate, with real `ferrex` processes on
//! loopback: how long a teammate's device takes from `ferrex join` to its
//! first recall of the share, how fast what the person stores afterwards
//! reaches it, and the bytes on the wire per shared memory.
//!
//! Usage: `cargo build --release -p ferrex && cargo run --release -p ferrex-examples --example share_bench [-- --counts 1000,10000 --trials 30 --homes DIR --binary PATH]`
//!
//! For each count N:
//!
//! 1. The person's home holds N memories in the project `lean` (prefilled
//!    and rebuilt, or copied from `DIR/lean-N` as `lean_bench --homes`
//!    keeps them). `ferrex share lean --yes` moves them into a share (timed:
//!    the move writes the share's copies with their vectors and forgets the
//!    originals).
//! 2. A fresh teammate's device joins with the ticket. Timed from the start
//!    of `ferrex join` until its recall in the project returns the last
//!    memory moved (by its words: the teammate embeds the share itself),
//!    and until its index holds all N.
//! 3. The bytes of sync frames the teammate received from the person's
//!    device over that first sync, per memory.
//! 4. Propagation: each trial stores a memory with a unique word on the
//!    person's device through MCP, into the share, and polls the teammate's
//!    recall every 5 ms until it returns it.
//!
//! Signatures: a document change carries none (the QUIC connection
//! authenticates the device; a member's role decides what is taken); a
//! share's statements are checked one by one when they are exchanged
//! (`membership_bench` gives the cost of each).

use std::{
    path::PathBuf,
    process::Stdio,
    time::{Duration, Instant},
};

use anyhow::{Context, ensure};
use ferrex_examples::{copy_home, millis, percentile, prefill};
use ferrex_tests::{Client, TestHome, ferrex_bin};
use serde_json::{Value, json};

const PROJECT: &str = "lean";
/// How long a step may take before the benchmark gives up.
const LIMIT: Duration = Duration::from_secs(1800);

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut counts = vec![1_000usize, 10_000];
    let mut trials = 30usize;
    let mut homes: Option<PathBuf> = None;
    let mut binary = ferrex_bin();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--counts" => {
                counts = value()?
                    .split(',')
                    .map(|count| count.trim().parse().context("a count"))
                    .collect::<anyhow::Result<_>>()?;
            }
            "--trials" => trials = value()?.parse()?,
            "--homes" => homes = Some(value()?.into()),
            "--binary" => binary = value()?.into(),
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }
    println!("share_bench with {}", binary.display());
    for count in counts {
        let person = TestHome::named("ann-laptop").using(&binary);
        let kept = homes.as_ref().map(|dir| dir.join(format!("lean-{count}")));
        match kept.as_ref().filter(|dir| dir.join("index.sqlite").exists()) {
            Some(dir) => copy_home(dir, person.path())?,
            None => {
                let started = Instant::now();
                let texts: Vec<String> = (0..count).map(note).collect();
                prefill(&person.path().join("docs"), PROJECT, &texts, 100)?;
                let status = person.command(&["reindex"]).stdout(Stdio::null()).status()?;
                ensure!(status.success(), "reindex of {count} failed");
                println!("prefilled and rebuilt {count} memories in {:.0} s", secs(started));
            }
        }
        let on_person = person.client().await;
        // A memory of the project, whose words the teammate will look for.
        let sought = on_person
            .ok("recall", json!({"query": "deploy", "namespace": PROJECT, "limit": 1}))
            .await
            .pointer("/results/0/content")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .context("the person's recall found nothing in the project")?;

        // 1. The move.
        let started = Instant::now();
        let (ok, ticket, stderr) = person.run(&["share", PROJECT, "--yes"]);
        ensure!(ok, "ferrex share failed: {stderr}");
        let moved = secs(started);
        let ticket = ticket.trim().to_owned();

        // 2. Join to first recall, and to all indexed.
        let teammate = TestHome::named("bob-laptop").using(&binary);
        let on_teammate = teammate.client().await;
        let started = Instant::now();
        let (ok, _, stderr) = teammate.run(&["join", &ticket, "--yes"]);
        ensure!(ok, "ferrex join failed: {stderr}");
        let joined = secs(started);
        let first = until(&started, || async {
            let answer =
                on_teammate.ok("recall", json!({"query": sought, "namespace": PROJECT})).await;
            answer["results"].as_array().is_some_and(|results| {
                results.iter().any(|result| result["content"].as_str() == Some(sought.as_str()))
            })
        })
        .await?;
        let all = until(&started, || async {
            let stats = on_teammate.ok("stats", json!({})).await;
            let held: i64 = stats["by_namespace"]
                .as_object()
                .map(|by| {
                    by.iter()
                        .filter(|(namespace, _)| namespace.starts_with("share."))
                        .filter_map(|(_, count)| count.as_i64())
                        .sum()
                })
                .unwrap_or(0);
            held >= count as i64
        })
        .await?;

        // 3. Bytes per memory over the first sync.
        let status = teammate.sync_status_json();
        let received = status["shares"][0]["members"]
            .as_array()
            .and_then(|members| members.iter().find(|member| member["name"] == "ann-laptop"))
            .and_then(|member| member["bytes_received"].as_u64())
            .unwrap_or(0);

        // 4. Propagation, into the share (an agent names it, or stores
        // without a namespace in the project's directory).
        let namespace = status["shares"][0]["namespace"]
            .as_str()
            .context("the teammate holds no share")?
            .to_owned();
        let mut times = Vec::new();
        for trial in 0..trials {
            let word = format!("zq{trial}x{count}");
            let text = format!("Propagation trial {trial}: the marker word is {word}.");
            let started = Instant::now();
            on_person.ok("store", json!({"content": text, "namespace": namespace})).await;
            let arrived = propagated(&on_teammate, &word).await;
            ensure!(arrived, "trial {trial} never reached the teammate");
            times.push(started.elapsed());
        }
        let (p50, p95) = (millis(percentile(&mut times, 50)), millis(percentile(&mut times, 95)));
        println!(
            "{count} shared memories: move {moved:.1} s; join {joined:.1} s, join to first recall \
             {first:.1} s, to all {count} indexed {all:.1} s; {received} frame bytes received, \
             {:.0} a memory; propagation p50 {p50:.0} ms, p95 {p95:.0} ms ({trials} trials)",
            received as f64 / count as f64
        );
        on_person.close().await;
        on_teammate.close().await;
        teammate.stop();
        person.stop();
    }
    Ok(())
}

/// The text of note `index`: words of its own, so a recall finds it.
fn note(index: usize) -> String {
    format!(
        "Note {index}: the deploy of service {} runs on host {} with flag {}.",
        index * 7 % 1000,
        index * 13 % 997,
        index
    )
}

fn secs(started: Instant) -> f64 {
    started.elapsed().as_secs_f64()
}

/// Seconds from `started` until `check` holds (polled every 20 ms).
async fn until<F, Fut>(started: &Instant, mut check: F) -> anyhow::Result<f64>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    while started.elapsed() < LIMIT {
        if check().await {
            return Ok(secs(*started));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    anyhow::bail!("not within {} s", LIMIT.as_secs())
}

/// Whether the teammate's recall returns the memory with `word` (polled
/// every 5 ms, at most 60 s).
async fn propagated(client: &Client, word: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let answer = client.ok("recall", json!({"query": word, "namespace": PROJECT})).await;
        if answer.to_string().contains(word) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    false
}
