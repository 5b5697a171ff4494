//! Memory that speaks first, through real `ferrex hook` processes and the
//! real model: a prompt is told the memory that answers it in Claude
//! Code's and Gemini CLI's shape, never twice in a session, nothing when
//! nothing answers; a compaction tells again what still stands; what was
//! told is listed with why; and private, hostile or broken input changes
//! nothing and never stalls the prompt. (What the engine decides — the
//! bar, changes, bounds — is tested in process in `engine/tests`; the
//! bar's calibration is `examples/tell_eval.rs`.)

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{io::Write, process::Stdio, time::Duration};

use ferrex_engine::answers::{
    StoreAnswer,
    telling::{TellAnswer, ToldAnswer},
};
use ferrex_tests::{Client, TestHome, checkout, eventually, hook_input};
use serde_json::{Value, json};

const WEBHOOK: &str = "Billing webhooks from the payment provider are retried five times with a two minute backoff before they land in the dead-letter queue.";
const FREEZE: &str =
    "Production deploys are frozen from Thursday 18:00 UTC until Monday 09:00 UTC.";
const CSS: &str = "The marketing site's stylesheets are built with Tailwind 4 and purged in CI.";
const ASK: &str = "How many times does the payment provider retry a failed billing webhook?";

/// The hook's `additionalContext` for `event`, checking its shape; empty
/// when it printed nothing.
fn told(stdout: &str, event: &str) -> String {
    if stdout.is_empty() {
        return String::new();
    }
    let output: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(output["hookSpecificOutput"]["hookEventName"], event, "{stdout}");
    output["hookSpecificOutput"]["additionalContext"].as_str().unwrap().to_owned()
}

/// A home whose project (the checkout's) holds the three notes; their ids.
async fn home_with_notes() -> (TestHome, tempfile::TempDir, std::path::PathBuf, Vec<String>) {
    let home = TestHome::named("desktop");
    let checkouts = tempfile::tempdir().unwrap();
    let repo = checkout(&checkouts.path().join("ledger"), "git@github.com:acme/ledger.git");
    let client = Client::connect_in(&home, &repo).await.unwrap();
    let mut ids = Vec::new();
    for note in [WEBHOOK, FREEZE, CSS] {
        let stored: StoreAnswer = client.answer("store", json!({"content": note})).await;
        ids.push(stored.id);
    }
    client.close().await;
    (home, checkouts, repo, ids)
}

#[tokio::test]
async fn a_prompt_is_told_what_answers_it_once_a_session_and_nothing_when_nothing_does() {
    let (home, _checkouts, repo, ids) = home_with_notes().await;
    let prompt = |event: &str, session: &str, text: &str| {
        let (code, stdout, stderr) =
            home.hook(event, &hook_input(event, session, &repo, json!({"prompt": text})));
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stderr.is_empty(), "a hook writes nothing to stderr: {stderr}");
        told(&stdout, event)
    };

    // The note that answers, with its id; not the others.
    let first = prompt("UserPromptSubmit", "s1", ASK);
    assert!(first.contains(WEBHOOK) && first.contains(&ids[0]), "{first}");
    assert!(!first.contains(FREEZE) && !first.contains(CSS), "{first}");
    assert!(first.starts_with("ferrex memory"), "{first}");
    // Never twice in a session; again in a new one; Gemini CLI's event the same.
    assert_eq!(prompt("UserPromptSubmit", "s1", ASK), "");
    assert!(prompt("UserPromptSubmit", "s2", ASK).contains(WEBHOOK));
    assert!(prompt("BeforeAgent", "gemini-1", ASK).contains(WEBHOOK));
    // A prompt nothing answers: nothing at all, not even a header.
    assert_eq!(prompt("UserPromptSubmit", "s1", "rename the variable tmp to total here"), "");

    // What was told, and why.
    let (ok, stdout, stderr) = home.run(&["told", "--session", "s1", "--json"]);
    assert!(ok, "{stderr}");
    let answer: ToldAnswer = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer.sessions.len(), 1);
    let entries = &answer.sessions[0].told;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].id, ids[0]);
    assert_eq!(entries[0].prompt.as_deref(), Some(ASK));
    let why = entries[0].why.as_ref().expect("why a prompt's memory was told");
    assert_eq!(why.rule.as_deref(), Some("meaning"));
    assert!(why.similarity > 0.4, "{why:?}");
    // `ferrex tell` shows a prompt's candidates without recording anything.
    let output = home.command(&["tell", "--json", ASK]).current_dir(&repo).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let shown: TellAnswer = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown.told[0].id, ids[0]);
    assert!(shown.considered.len() >= 3, "{shown:?}");

    // A compaction tells again what the session was told and still
    // stands; a resume does not (the transcript holds it).
    let start = |source: &str| {
        let (code, stdout, _) = home.hook(
            "SessionStart",
            &hook_input("SessionStart", "s1", &repo, json!({"source": source})),
        );
        assert_eq!(code, Some(0));
        told(&stdout, "SessionStart")
    };
    let compacted = start("compact");
    assert!(compacted.contains("Told earlier in this session, still standing"), "{compacted}");
    assert!(compacted.contains(WEBHOOK), "{compacted}");
    assert!(!start("resume").contains("Told earlier"));
    // Forgotten since: not told again.
    let client = Client::connect_in(&home, &repo).await.unwrap();
    client.ok("forget", json!({"ids": [ids[0]]})).await;
    client.close().await;
    assert!(!start("compact").contains(WEBHOOK));
}

/// Runs the prompt hook with raw bytes on stdin.
fn raw_hook(home: &TestHome, bytes: &[u8]) -> (Option<i32>, String) {
    let mut child = home
        .command(&["hook", "UserPromptSubmit"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[tokio::test]
async fn private_hostile_or_broken_prompts_change_nothing_and_never_stall() {
    let (home, _checkouts, repo, _) = home_with_notes().await;
    let log = || std::fs::read_to_string(home.path().join("logs/hook.log")).unwrap_or_default();

    // Private text is in no file of the home — documents, index, logs —
    // while the rest of the prompt is remembered.
    let secret = "Zebra-Quartz-7731";
    let private = format!(
        "Fix the login flow <private>the admin password is {secret}</private> #remember the login service listens on port 9443"
    );
    let (code, _, _) = home.hook(
        "UserPromptSubmit",
        &hook_input("UserPromptSubmit", "p1", &repo, json!({"prompt": private})),
    );
    assert_eq!(code, Some(0));
    let client = Client::connect_in(&home, &repo).await.unwrap();
    let found =
        client.ok("recall", json!({"query": "which port does the login service listen on"})).await;
    assert!(found.to_string().contains("9443"), "{found}");
    let events = client.ok("session", json!({"action": "get", "session_id": "p1"})).await;
    assert!(events.to_string().contains("Fix the login flow"), "{events}");
    client.close().await;
    assert!(home.files_containing(secret).is_empty(), "{:?}", home.files_containing(secret));

    // A prompt of 1 MB: at most the budget, exit 0.
    let huge = "webhook retries ".repeat(65_536);
    let (code, stdout, _) = home.hook(
        "UserPromptSubmit",
        &hook_input("UserPromptSubmit", "p2", &repo, json!({"prompt": huge})),
    );
    assert_eq!(code, Some(0));
    assert!(told(&stdout, "UserPromptSubmit").chars().count() <= 1_200 + 100, "{stdout}");
    // Invalid UTF-8, an empty prompt, an input missing every field: nothing, exit 0.
    let mut invalid =
        br#"{"session_id":"p3","hook_event_name":"UserPromptSubmit","prompt":""#.to_vec();
    invalid.extend([0xff, 0xfe, b'"', b'}']);
    assert_eq!(raw_hook(&home, &invalid), (Some(0), String::new()));
    assert_eq!(raw_hook(&home, br#"{"prompt": ""}"#), (Some(0), String::new()));
    assert_eq!(raw_hook(&home, b"{}"), (Some(0), String::new()));
    assert_eq!(raw_hook(&home, b""), (Some(0), String::new()));
    assert!(log().contains("is not the JSON Claude Code sends"), "{}", log());
    // A session id never seen: told as any.
    let (_, stdout, _) = home.hook(
        "UserPromptSubmit",
        &hook_input("UserPromptSubmit", "from-another-device", &repo, json!({"prompt": ASK})),
    );
    assert!(told(&stdout, "UserPromptSubmit").contains(WEBHOOK));

    // The node stopped: nothing told, exit 0, a line in the log, and a
    // node started in the background for the next prompt.
    home.stop();
    assert!(home.node_pid().is_none());
    let (code, stdout, _) = home.hook(
        "UserPromptSubmit",
        &hook_input("UserPromptSubmit", "p4", &repo, json!({"prompt": ASK})),
    );
    assert_eq!((code, stdout.as_str()), (Some(0), ""));
    assert!(log().contains("nothing is told"), "{}", log());
    let started = eventually(Duration::from_secs(60), || async { home.node_pid() }).await;
    assert!(started.is_some(), "no node was started in the background");
    let mut attempt = 0;
    let told_again = eventually(Duration::from_secs(60), || {
        attempt += 1;
        let session = format!("p5-{attempt}");
        let line = hook_input("UserPromptSubmit", &session, &repo, json!({"prompt": ASK}));
        let (_, stdout, _) = home.hook("UserPromptSubmit", &line);
        let text = told(&stdout, "UserPromptSubmit");
        async move { text.contains(WEBHOOK).then_some(()) }
    })
    .await;
    assert!(told_again.is_some(), "the node started in the background never told: {}", log());
}
