//! Working state, measured through real processes: sessions, the
//! session-start context at scale, Claude Code's hooks with process start,
//! a tool use on one device reaching the other's session start, and what
//! working memory costs the documents.
//!
//! Usage: `cargo build --release -p ferrex -p ferrex-examples --examples && FERREX_BIN=target/release/ferrex target/release/examples/working_bench [-- --memories N --pushes N]`
//!
//! 1. A project's home with N memories (default 10,000; LoCoMo's turns,
//!    then synthetic ones, written into its documents and indexed with
//!    `ferrex reindex`), 8 tasks and 40 facts: `session` push and get,
//!    `context` (its time and its size in tokens).
//! 2. Each hook (`ferrex hook EVENT` as Claude Code runs it: a new process
//!    reading JSON on stdin) against that node: p50 and p95, process start
//!    included.
//! 3. Two paired devices: a PostToolUse hook on the laptop, then the
//!    desktop's SessionStart hook run until its context shows that event:
//!    the time between the two.
//! 4. A fresh home and one session, pushed `--pushes` times (default
//!    10,000; 25 kept): after every 1,000, the live events, the tombstones
//!    the evicted left, the documents' size on disk (snapshot and log, with
//!    Automerge's history) and the live records' size (the export).
//!
//! The last line holds every figure as `key=value` pairs.

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_examples::{DEFAULT_LOCOMO, bench_texts, load_locomo, millis, percentile, prefill};
use ferrex_tests::{Client, TestHome, ferrex_bin, hook_input};
use serde_json::{Value, json};

/// The project's namespace, as the checkout's remote names it.
const PROJECT: &str = "github.com.acme.api";

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut memories = 10_000usize;
    let mut pushes = 10_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--memories" => memories = args.next().context("--memories N")?.parse()?,
            "--pushes" => pushes = args.next().context("--pushes N")?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    println!("working_bench with {}", ferrex_bin().display());
    let checkouts = tempfile::tempdir()?;
    let repo = checkout(&checkouts.path().join("laptop/api"), "git@github.com:acme/api.git")?;
    let other =
        checkout(&checkouts.path().join("desktop/acme-api"), "https://github.com/acme/api")?;
    let mut figures: Vec<(String, String)> = Vec::new();

    // 1. At scale.
    let home = TestHome::named("laptop");
    let conversations = load_locomo(Path::new(DEFAULT_LOCOMO)).unwrap_or_default();
    let texts = bench_texts(&conversations, memories);
    prefill(&home.path().join("docs"), PROJECT, &texts, 500)?;
    let started = Instant::now();
    let (ok, _, stderr) = home.run(&["reindex"]);
    anyhow::ensure!(ok, "reindex: {stderr}");
    println!("{memories} memories indexed in {:.0} s", started.elapsed().as_secs_f64());
    let client = Client::connect_in(&home, &repo).await?;
    for index in 0..8 {
        client
            .ok("task", json!({"action": "start", "title": format!("Bench task {index}: migrate shard {index} of the orders table"), "goal": "no downtime", "priority": "high"}))
            .await;
    }
    for index in 0..40 {
        let predicate = ["version", "port", "host", "owned_by"][index % 4];
        client
            .ok("store", json!({"subject": format!("service-{index}"), "predicate": predicate, "object": format!("value {index}")}))
            .await;
    }
    let mut push_times = Vec::new();
    for index in 0..300 {
        let begun = Instant::now();
        client
            .ok("session", json!({"action": "push", "session_id": "bench", "content": format!("Edit file src/module_{index}.rs → ok")}))
            .await;
        push_times.push(begun.elapsed());
    }
    let mut get_times = Vec::new();
    for _ in 0..200 {
        let begun = Instant::now();
        client.ok("session", json!({"action": "get", "limit": 10})).await;
        get_times.push(begun.elapsed());
    }
    let mut context_times = Vec::new();
    let mut tokens = 0;
    for _ in 0..50 {
        let begun = Instant::now();
        let context = client.ok("context", json!({})).await;
        context_times.push(begun.elapsed());
        tokens = context["tokens"].as_u64().unwrap_or(0);
    }
    client.close().await;
    let p = |times: &mut Vec<Duration>, percent| millis(percentile(times, percent));
    println!(
        "at {memories} memories: push p50 {:.1} ms p95 {:.1}; get p50 {:.1} ms p95 {:.1}; context p50 {:.1} ms p95 {:.1}, {tokens} tokens",
        p(&mut push_times, 50),
        p(&mut push_times, 95),
        p(&mut get_times, 50),
        p(&mut get_times, 95),
        p(&mut context_times, 50),
        p(&mut context_times, 95)
    );
    figures.push(("push_p50_ms".into(), format!("{:.1}", p(&mut push_times, 50))));
    figures.push(("get_p50_ms".into(), format!("{:.1}", p(&mut get_times, 50))));
    figures.push(("context_p50_ms".into(), format!("{:.1}", p(&mut context_times, 50))));
    figures.push(("context_tokens".into(), tokens.to_string()));

    // 2. Each hook, process start included.
    let session = "bench-hooks";
    let cases: [(&str, Value, usize); 5] = [
        ("SessionStart", json!({"source": "startup"}), 30),
        ("UserPromptSubmit", json!({"prompt": "Finish the orders migration"}), 60),
        (
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test -p orders"}, "tool_response": {"stdout": "ok", "stderr": "", "exit_code": 0}}),
            100,
        ),
        ("PreCompact", json!({"trigger": "auto", "custom_instructions": ""}), 30),
        ("Stop", json!({"stop_hook_active": false}), 30),
    ];
    for (event, extra, runs) in cases {
        let input = hook_input(event, session, &repo, extra);
        let mut times = Vec::new();
        for _ in 0..runs {
            let begun = Instant::now();
            let (code, _) = hook(&home, event, &input)?;
            times.push(begun.elapsed());
            anyhow::ensure!(code == Some(0), "{event} exited {code:?}");
        }
        println!(
            "hook {event}: p50 {:.1} ms, p95 {:.1} ms ({runs} runs)",
            p(&mut times, 50),
            p(&mut times, 95)
        );
        figures.push((format!("hook_{event}_p50_ms"), format!("{:.1}", p(&mut times, 50))));
        figures.push((format!("hook_{event}_p95_ms"), format!("{:.1}", p(&mut times, 95))));
    }
    drop(home);

    // 3. From a tool use on the laptop to the desktop's session start.
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    let (ok, stderr) = laptop.join(&desktop.invite());
    anyhow::ensure!(ok, "pairing: {stderr}");
    hook(&desktop, "SessionStart", &hook_input("SessionStart", "d", &other, json!({})))?;
    let mut lags = Vec::new();
    for step in 0..20 {
        let marker = format!("cargo run --bin step-{step}");
        let input = hook_input(
            "PostToolUse",
            "laptop-session",
            &repo,
            json!({"tool_name": "Bash", "tool_input": {"command": marker}, "tool_response": {"exit_code": 0}}),
        );
        let begun = Instant::now();
        hook(&laptop, "PostToolUse", &input)?;
        let start =
            hook_input("SessionStart", "desktop-session", &other, json!({"source": "startup"}));
        loop {
            let (_, stdout) = hook(&desktop, "SessionStart", &start)?;
            if stdout.contains(&marker) {
                break;
            }
            anyhow::ensure!(begun.elapsed() < Duration::from_secs(60), "step {step} never arrived");
        }
        lags.push(begun.elapsed());
    }
    println!(
        "PostToolUse on the laptop to the desktop's SessionStart context: p50 {:.0} ms, p95 {:.0} ms (20 runs, each a hook process polled back to back)",
        p(&mut lags, 50),
        p(&mut lags, 95)
    );
    figures.push(("cross_device_p50_ms".into(), format!("{:.0}", p(&mut lags, 50))));
    drop(laptop);
    drop(desktop);

    // 4. What working memory costs the documents.
    let home = TestHome::new();
    let client = Client::connect(&home).await?;
    let mut last_disk = docs_bytes(home.path())?;
    println!("pushes   live  tombstones  documents on disk  live records (export)");
    let mut growth = Vec::new();
    for index in 0..pushes {
        client
            .ok("session", json!({"action": "push", "session_id": "long", "content": format!("Bash ran cargo test --workspace (step {index}) → exit 0")}))
            .await;
        if (index + 1) % 1_000 == 0 {
            let stats = client.ok("stats", json!({})).await;
            let disk = docs_bytes(home.path())?;
            let (ok, export, _) = home.run(&["export"]);
            anyhow::ensure!(ok, "export");
            println!(
                "{:>6} {:>6} {:>11} {:>15} B {:>15} B",
                index + 1,
                stats["memories"],
                stats["forgotten"],
                disk,
                export.len()
            );
            growth.push(disk.saturating_sub(last_disk));
            last_disk = disk;
        }
    }
    client.close().await;
    if !growth.is_empty() {
        let mut sorted = growth.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        println!(
            "documents grow {median} B per 1,000 events (median of {} thousands)",
            growth.len()
        );
        figures.push(("doc_growth_per_1k_bytes".into(), median.to_string()));
    }
    let line: Vec<String> = figures.iter().map(|(key, value)| format!("{key}={value}")).collect();
    println!("{}", line.join(" "));
    Ok(())
}

fn checkout(path: &Path, url: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(path.join(".git"))?;
    std::fs::write(path.join(".git/config"), format!("[remote \"origin\"]\n\turl = {url}\n"))?;
    Ok(path.to_owned())
}

/// Runs `ferrex hook EVENT` as Claude Code does: exit code and stdout.
fn hook(home: &TestHome, event: &str, input: &str) -> anyhow::Result<(Option<i32>, String)> {
    use std::io::Write;
    let mut child = Command::new(ferrex_bin())
        .arg("--home")
        .arg(home.path())
        .args(["hook", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    child.stdin.take().context("stdin")?.write_all(input.as_bytes())?;
    let output = child.wait_with_output()?;
    Ok((output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned()))
}

/// Bytes of the home's documents and keys on disk.
fn docs_bytes(home: &Path) -> anyhow::Result<u64> {
    fn walk(dir: &Path) -> std::io::Result<u64> {
        let mut total = 0;
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            total += if kind.is_dir() { walk(&entry.path())? } else { entry.metadata()?.len() };
        }
        Ok(total)
    }
    Ok(walk(&home.join("docs"))?)
}
