//! Telling memories with a prompt, measured through a real node and the
//! real model: the bar calibrated on the development part of a frozen set,
//! and the figures on the held-out part, through `ferrex hook
//! UserPromptSubmit` as Claude Code runs it.
//!
//! Usage: `cargo build -p ferrex -p ferrex-examples --examples && FERREX_BIN=$PWD/target/debug/ferrex target/debug/examples/tell_eval [-- --model minilm|e5-small|bge-small]`
//!
//! Sets:
//! - `prompt_cases` (written for this, frozen before any bar was chosen):
//!   45 memories of one repository, 37 prompts one of them answers, 25
//!   ordinary coding prompts none answers; prompt `i` is held out when
//!   `i % 3 == 2`.
//! - `paraphrase_cases` (frozen earlier for recall): 168 notes across five
//!   projects and 115 questions paraphrased away from their words, all
//!   answered; the same split. It measures hits under paraphrase in a
//!   larger, noisier memory, and was not tuned on here.
//!
//! 1. Every prompt through `ferrex tell --json` (nothing recorded): every
//!    candidate's similarity and keyword share. The bar is swept on the
//!    development prompts of `prompt_cases` and the best (hits plus
//!    abstentions) printed beside the default.
//! 2. Every prompt through `ferrex hook UserPromptSubmit`, a new session
//!    each, at the node's settings: hit (an answering memory told),
//!    abstention (nothing told), memories and tokens told per prompt, for
//!    the development and the held-out parts of both sets.
//!
//! The last line holds every figure as `key=value` pairs.

use std::{collections::BTreeMap, path::Path};

use anyhow::Context;
use ferrex_core::tell::{TellSettings, judge};
use ferrex_examples::{paraphrase_cases, prompt_cases};
use ferrex_tests::{Client, TestHome, checkout, ferrex_bin};
use serde_json::{Value, json};

/// One prompt, and the ids of the memories that answer it.
struct Case {
    text: String,
    answers: Vec<String>,
    held_out: bool,
}

/// One candidate's figures.
struct Candidate {
    id: String,
    similarity: f64,
    keywords: f64,
}

#[allow(clippy::print_stdout, reason = "an evaluation prints its figures")]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let mut model = "minilm".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--model" => model = args.next().context("--model TIER")?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let config = format!("[embed]\nmodel = \"{model}\"\n");
    println!("tell_eval with {}, model {model}", ferrex_bin().display());
    let checkouts = tempfile::tempdir()?;
    let mut figures: Vec<(String, String)> = Vec::new();

    // The repository's own set.
    let repo = checkout(&checkouts.path().join("ledger"), "git@github.com:acme/ledger.git");
    let home = TestHome::with_config(&config);
    let client = Client::connect_in(&home, &repo).await?;
    let mut ids: BTreeMap<&str, String> = BTreeMap::new();
    for memory in prompt_cases::MEMORIES {
        let arguments = match memory.triple {
            Some((subject, predicate, object)) => {
                json!({"subject": subject, "predicate": predicate, "object": object})
            }
            None => json!({"content": memory.text}),
        };
        let answer = client.ok("store", arguments).await;
        let id = answer["id"]
            .as_str()
            .or_else(|| answer["existing_id"].as_str())
            .with_context(|| format!("storing {}: {answer}", memory.key))?;
        ids.insert(memory.key, id.to_owned());
    }
    client.close().await;
    let cases = |prompts: &[prompt_cases::Prompt]| -> Vec<Case> {
        prompts
            .iter()
            .enumerate()
            .map(|(index, prompt)| Case {
                text: prompt.text.to_owned(),
                answers: prompt.answers.iter().map(|key| ids[key].clone()).collect(),
                held_out: prompt_cases::held_out(index),
            })
            .collect()
    };
    let answered = cases(prompt_cases::ANSWERED);
    let unanswered = cases(prompt_cases::UNANSWERED);

    // 1. The bar, swept on the development prompts.
    let figures_of = |cases: &[Case]| -> anyhow::Result<Vec<Vec<Candidate>>> {
        cases.iter().map(|case| candidates(&home, &repo, &case.text)).collect()
    };
    let answered_candidates = figures_of(&answered)?;
    let unanswered_candidates = figures_of(&unanswered)?;
    if let Some(path) = std::env::var_os("TELL_EVAL_DUMP") {
        let mut rows = Vec::new();
        for (cases, candidates) in
            [(&answered, &answered_candidates), (&unanswered, &unanswered_candidates)]
        {
            for (case, candidates) in cases.iter().zip(candidates) {
                rows.push(json!({
                    "prompt": case.text, "held_out": case.held_out, "answered": !case.answers.is_empty(),
                    "candidates": candidates.iter().map(|candidate| json!({
                        "similarity": candidate.similarity, "keywords": candidate.keywords,
                        "answer": case.answers.contains(&candidate.id),
                    })).collect::<Vec<_>>(),
                }));
            }
        }
        std::fs::write(path, serde_json::to_string_pretty(&rows)?)?;
    }
    let defaults = TellSettings::default();
    let model_id = match model.as_str() {
        "e5-small" => "e5-small-v2",
        "bge-small" => "bge-small-en-v1.5",
        _ => "all-minilm-l6-v2",
    };
    let default_bar = defaults.bar_for(model_id);
    println!(
        "\nbar sweep on the development prompts (keyword rule: share {:.2}, margin {:.2}):",
        defaults.keyword_share, defaults.keyword_margin
    );
    println!("  bar    hit   abstain  (held out: hit  abstain)");
    let mut best = (f64::MIN, 0.0);
    for step in 0..=30 {
        let bar = 0.20 + 0.025 * f64::from(step);
        let settings = TellSettings { bar: Some(bar), ..defaults.clone() };
        let score = |held_out: bool| {
            let hit = rate(&answered, &answered_candidates, held_out, |case, candidates| {
                told_by(candidates, &settings).iter().any(|id| case.answers.contains(id))
            });
            let abstain = rate(&unanswered, &unanswered_candidates, held_out, |_, candidates| {
                told_by(candidates, &settings).is_empty()
            });
            (hit, abstain)
        };
        let (hit, abstain) = score(false);
        let (held_hit, held_abstain) = score(true);
        println!(
            "  {bar:.3}  {:.2}  {:.2}     ({:.2}  {:.2}){}",
            hit,
            abstain,
            held_hit,
            held_abstain,
            if (bar - default_bar).abs() < 1e-9 { "  <- the default" } else { "" }
        );
        if hit + abstain > best.0 + 1e-9 {
            best = (hit + abstain, bar);
        }
    }
    println!("best on the development prompts: bar {:.3}; the default is {default_bar:.3}", best.1);
    figures.push(("best_dev_bar".into(), format!("{:.3}", best.1)));
    figures.push(("default_bar".into(), format!("{default_bar:.3}")));

    // 2. Through the hook, at the node's settings.
    println!("\nthrough `ferrex hook UserPromptSubmit`, a new session per prompt:");
    for (part, held_out) in [("development", false), ("held-out", true)] {
        let answered_told = told_through_hook(&home, &repo, &answered, held_out)?;
        let unanswered_told = told_through_hook(&home, &repo, &unanswered, held_out)?;
        let hits = answered_told
            .iter()
            .filter(|(case, told, _)| told.iter().any(|id| case.answers.contains(id)))
            .count();
        let abstained = unanswered_told.iter().filter(|(_, told, _)| told.is_empty()).count();
        let mean = |told: &[(&Case, Vec<String>, usize)],
                    of: fn(&(&Case, Vec<String>, usize)) -> f64| {
            told.iter().map(of).sum::<f64>() / told.len().max(1) as f64
        };
        let count = |entry: &(&Case, Vec<String>, usize)| entry.1.len() as f64;
        let tokens = |entry: &(&Case, Vec<String>, usize)| entry.2 as f64;
        println!(
            "  prompt_cases {part}: hit {hits}/{} ({:.0}%), abstention {abstained}/{} ({:.0}%); told per answered prompt {:.2} memories, {:.0} tokens; per unanswered prompt {:.2} memories, {:.0} tokens",
            answered_told.len(),
            100.0 * hits as f64 / answered_told.len() as f64,
            unanswered_told.len(),
            100.0 * abstained as f64 / unanswered_told.len() as f64,
            mean(&answered_told, count),
            mean(&answered_told, tokens),
            mean(&unanswered_told, count),
            mean(&unanswered_told, tokens),
        );
        let key = if held_out { "held" } else { "dev" };
        figures.push((
            format!("{key}_hit"),
            format!("{:.2}", hits as f64 / answered_told.len() as f64),
        ));
        figures.push((
            format!("{key}_abstain"),
            format!("{:.2}", abstained as f64 / unanswered_told.len() as f64),
        ));
        figures.push((
            format!("{key}_answered_tokens"),
            format!("{:.0}", mean(&answered_told, tokens)),
        ));
    }
    drop(home);

    // The paraphrase set, in a home of its own.
    let notes_repo = checkout(&checkouts.path().join("notes"), "git@github.com:acme/notes.git");
    let home = TestHome::with_config(&config);
    let client = Client::connect_in(&home, &notes_repo).await?;
    let mut note_ids: BTreeMap<&str, String> = BTreeMap::new();
    for note in paraphrase_cases::NOTES {
        let answer = client.ok("store", json!({"content": note.text})).await;
        let id = answer["id"]
            .as_str()
            .or_else(|| answer["existing_id"].as_str())
            .with_context(|| format!("storing {}: {answer}", note.key))?;
        note_ids.insert(note.key, id.to_owned());
    }
    client.close().await;
    let queries: Vec<Case> = paraphrase_cases::QUERIES
        .iter()
        .enumerate()
        .map(|(index, query)| Case {
            text: query.text.to_owned(),
            answers: query.targets.iter().map(|key| note_ids[key].clone()).collect(),
            held_out: paraphrase_cases::held_out(index),
        })
        .collect();
    for (part, held_out) in [("development", false), ("held-out", true)] {
        let told = told_through_hook(&home, &notes_repo, &queries, held_out)?;
        let hits = told
            .iter()
            .filter(|(case, told, _)| told.iter().any(|id| case.answers.contains(id)))
            .count();
        let silent = told.iter().filter(|(_, told, _)| told.is_empty()).count();
        let memories =
            told.iter().map(|(_, told, _)| told.len()).sum::<usize>() as f64 / told.len() as f64;
        let tokens =
            told.iter().map(|(_, _, tokens)| *tokens).sum::<usize>() as f64 / told.len() as f64;
        println!(
            "  paraphrase_cases {part}: hit {hits}/{} ({:.0}%), told nothing {silent}; per prompt {memories:.2} memories, {tokens:.0} tokens",
            told.len(),
            100.0 * hits as f64 / told.len() as f64
        );
        let key = if held_out { "paraphrase_held" } else { "paraphrase_dev" };
        figures.push((format!("{key}_hit"), format!("{:.2}", hits as f64 / told.len() as f64)));
    }
    let line: Vec<String> = figures.iter().map(|(key, value)| format!("{key}={value}")).collect();
    println!("\n{}", line.join(" "));
    Ok(())
}

/// The ids a bar of `settings` would tell of `candidates` (best by
/// meaning first, at most `max_memories`; the budget aside).
fn told_by(candidates: &[Candidate], settings: &TellSettings) -> Vec<String> {
    let mut passing: Vec<&Candidate> = candidates
        .iter()
        .filter(|candidate| {
            let bar = settings.bar.unwrap_or_default();
            judge(candidate.similarity, candidate.keywords, bar, settings).rule.is_some()
        })
        .collect();
    passing.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    passing.into_iter().take(settings.max_memories).map(|candidate| candidate.id.clone()).collect()
}

/// The share of `cases` of one part (held out or not) for which `passes`.
fn rate(
    cases: &[Case],
    candidates: &[Vec<Candidate>],
    held_out: bool,
    passes: impl Fn(&Case, &[Candidate]) -> bool,
) -> f64 {
    let mut total = 0;
    let mut passed = 0;
    for (case, candidates) in cases.iter().zip(candidates) {
        if case.held_out == held_out {
            total += 1;
            passed += usize::from(passes(case, candidates));
        }
    }
    passed as f64 / total.max(1) as f64
}

/// Every candidate `ferrex tell --json` judges for `prompt` in `repo`.
fn candidates(home: &TestHome, repo: &Path, prompt: &str) -> anyhow::Result<Vec<Candidate>> {
    let output = home.command(&["tell", "--json", prompt]).current_dir(repo).output()?;
    anyhow::ensure!(
        output.status.success(),
        "ferrex tell: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout)?;
    Ok(answer["considered"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|considered| Candidate {
            id: considered["id"].as_str().unwrap_or_default().to_owned(),
            similarity: considered["why"]["similarity"].as_f64().unwrap_or(0.0),
            keywords: considered["why"]["keywords"].as_f64().unwrap_or(0.0),
        })
        .collect())
}

/// For each case of one part, the ids told through the hook (a new
/// session each) and the tokens told.
fn told_through_hook<'a>(
    home: &TestHome,
    repo: &Path,
    cases: &'a [Case],
    held_out: bool,
) -> anyhow::Result<Vec<(&'a Case, Vec<String>, usize)>> {
    let mut told = Vec::new();
    for (index, case) in cases.iter().enumerate().filter(|(_, case)| case.held_out == held_out) {
        let input = json!({
            "session_id": format!("eval-{held_out}-{index}-{}", case.text.len()),
            "transcript_path": "/dev/null",
            "cwd": repo,
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": case.text,
        });
        let (code, stdout, _) = home.hook("UserPromptSubmit", &input.to_string());
        anyhow::ensure!(code == Some(0), "the hook exited {code:?}");
        let text = if stdout.trim().is_empty() {
            String::new()
        } else {
            let output: Value = serde_json::from_str(&stdout)?;
            output["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        let ids: Vec<String> = text
            .lines()
            .filter_map(|line| {
                line.rsplit_once("(id ").map(|(_, id)| id.trim_end_matches(')').to_owned())
            })
            .collect();
        told.push((case, ids, ferrex_core::working::estimate_tokens(&text)));
    }
    Ok(told)
}
