//! Telling memories with a prompt, timed as Claude Code times it: `ferrex
//! hook UserPromptSubmit`, a new process reading the hook's JSON on stdin,
//! against a running node, process start included.
//!
//! Usage: `cargo build --release -p ferrex -p ferrex-examples --examples && FERREX_BIN=target/release/ferrex target/release/examples/tell_bench [-- --sizes 1000,10000 --runs N]`
//!
//! For each size N (default 1,000 and 10,000): a project's home with N
//! memories (LoCoMo's turns, then synthetic ones, written into its
//! documents and indexed with `ferrex reindex`) and the 45 memories of
//! `prompt_cases` stored through MCP; then every prompt of `prompt_cases`
//! (answered and not) through the hook, each in a session of its own,
//! `--runs` rounds (default 3): p50 and p95 of the hook's wall time, and
//! the tokens told per prompt. Then a scripted session of ten prompts
//! (SessionStart, then the ten prompts in one session): the tokens it was
//! given in all, with telling on and with it off (`memory.tell = false`).
//!
//! The last line holds every figure as `key=value` pairs.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_core::working::estimate_tokens;
use ferrex_examples::{
    DEFAULT_LOCOMO, bench_texts, load_locomo, millis, percentile, prefill, prompt_cases,
};
use ferrex_tests::{Client, TestHome, checkout, ferrex_bin, hook_input};
use serde_json::{Value, json};

const PROJECT: &str = "github.com.acme.ledger";

/// The scripted session's prompts, as a developer would type them.
const SESSION: [&str; 10] = [
    "How many times does the payment provider retry a failed billing webhook?",
    "ok, and how do I resend the ones that failed overnight?",
    "rename the variable tmp to invoiceTotal in this function",
    "write a migration that adds a refunds table",
    "what column type should the amount get?",
    "run the tests",
    "who should review my change to the stripe client code",
    "can I ship this to prod on friday afternoon?",
    "fix the typo in the README heading",
    "how many times does the provider retry a failed billing webhook again?",
];

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut sizes = vec![1_000usize, 10_000];
    let mut runs = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sizes" => {
                sizes = args
                    .next()
                    .context("--sizes N,N")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--runs" => runs = args.next().context("--runs N")?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    println!("tell_bench with {}", ferrex_bin().display());
    let checkouts = tempfile::tempdir()?;
    let repo = checkout(&checkouts.path().join("ledger"), "git@github.com:acme/ledger.git");
    let conversations = load_locomo(Path::new(DEFAULT_LOCOMO)).unwrap_or_default();
    let mut figures: Vec<(String, String)> = Vec::new();
    for size in sizes {
        let home = TestHome::named("laptop");
        prefill(&home.path().join("docs"), PROJECT, &bench_texts(&conversations, size), 500)?;
        let (ok, _, stderr) = home.run(&["reindex"]);
        anyhow::ensure!(ok, "reindex: {stderr}");
        store_cases(&home, &repo).await?;
        let prompts: Vec<&str> = prompt_cases::ANSWERED
            .iter()
            .chain(prompt_cases::UNANSWERED)
            .map(|prompt| prompt.text)
            .collect();
        // One round first, untimed: the node's caches warm as an agent's
        // first prompts warm them.
        let mut times: Vec<Duration> = Vec::new();
        let mut tokens: Vec<f64> = Vec::new();
        for round in 0..=runs {
            for (index, prompt) in prompts.iter().enumerate() {
                let session = format!("bench-{size}-{round}-{index}");
                let begun = Instant::now();
                let text = prompt_hook(&home, &repo, &session, prompt)?;
                if round > 0 {
                    times.push(begun.elapsed());
                    tokens.push(estimate_tokens(&text) as f64);
                }
            }
        }
        let told = tokens.iter().filter(|tokens| **tokens > 0.0).count();
        let mean_tokens = tokens.iter().sum::<f64>() / tokens.len() as f64;
        let (p50, p95) = (millis(percentile(&mut times, 50)), millis(percentile(&mut times, 95)));
        println!(
            "at {size} memories: UserPromptSubmit p50 {p50:.1} ms, p95 {p95:.1} ms ({} runs, process start included); {told} told something, {mean_tokens:.0} tokens told per prompt",
            times.len()
        );
        figures.push((format!("p50_ms_{size}"), format!("{p50:.1}")));
        figures.push((format!("p95_ms_{size}"), format!("{p95:.1}")));
        figures.push((format!("tokens_per_prompt_{size}"), format!("{mean_tokens:.0}")));
        drop(home);
    }

    // A scripted ten-prompt session, telling on and off.
    for (label, config) in [("on", ""), ("off", "[memory]\ntell = false\n")] {
        let home = TestHome::with_config(config);
        store_cases(&home, &repo).await?;
        let session = format!("scripted-{label}");
        let start = hook_input("SessionStart", &session, &repo, json!({"source": "startup"}));
        let (code, stdout, _) = home.hook("SessionStart", &start);
        anyhow::ensure!(code == Some(0), "SessionStart exited {code:?}");
        let start_tokens = estimate_tokens(&context_of(&stdout)?);
        let mut prompt_tokens = 0;
        let mut told_prompts = 0;
        for prompt in SESSION {
            let text = prompt_hook(&home, &repo, &session, prompt)?;
            prompt_tokens += estimate_tokens(&text);
            told_prompts += usize::from(!text.is_empty());
        }
        println!(
            "scripted session of ten prompts, telling {label}: {} tokens in all ({start_tokens} at session start, {prompt_tokens} with {told_prompts} of the prompts)",
            start_tokens + prompt_tokens
        );
        figures
            .push((format!("session_tokens_{label}"), (start_tokens + prompt_tokens).to_string()));
    }
    let line: Vec<String> = figures.iter().map(|(key, value)| format!("{key}={value}")).collect();
    println!("{}", line.join(" "));
    Ok(())
}

/// Stores `prompt_cases`' memories in the project of `repo`.
async fn store_cases(home: &TestHome, repo: &Path) -> anyhow::Result<()> {
    let client = Client::connect_in(home, repo).await?;
    for memory in prompt_cases::MEMORIES {
        let arguments = match memory.triple {
            Some((subject, predicate, object)) => {
                json!({"subject": subject, "predicate": predicate, "object": object})
            }
            None => json!({"content": memory.text}),
        };
        client.ok("store", arguments).await;
    }
    client.close().await;
    Ok(())
}

/// The hook's `additionalContext`, or empty.
fn context_of(stdout: &str) -> anyhow::Result<String> {
    if stdout.trim().is_empty() {
        return Ok(String::new());
    }
    let output: Value = serde_json::from_str(stdout)?;
    Ok(output["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default().to_owned())
}

/// Runs the UserPromptSubmit hook for `prompt`; what it told.
fn prompt_hook(
    home: &TestHome,
    repo: &Path,
    session: &str,
    prompt: &str,
) -> anyhow::Result<String> {
    let input = hook_input(
        "UserPromptSubmit",
        session,
        repo,
        json!({"prompt": prompt, "permission_mode": "default"}),
    );
    let (code, stdout, _) = home.hook("UserPromptSubmit", &input);
    anyhow::ensure!(code == Some(0), "UserPromptSubmit exited {code:?}");
    context_of(&stdout)
}
