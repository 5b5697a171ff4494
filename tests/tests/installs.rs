//! The install routes when something is wrong, through real processes:
//! the plugin's and extension's launcher (`plugins/*/scripts/run-ferrex`)
//! with no ferrex on the PATH or one of another version, and beside
//! `ferrex setup`'s entries; a node that must install the model first; a
//! client older than the one tried, or missing; `ferrex setup` beside the
//! plugin. Each gets one sentence naming the fix, changes no file of the
//! person's, and never fails the agent's session. (The routes themselves
//! run with the real clients: scripts/claude-code, scripts/gemini-cli,
//! scripts/codex-cli.)

#![cfg(unix)]
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use ferrex_tests::{TestHome, installed_models};
use serde_json::{Value, json};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Runs the launcher of `agent` (`claude-code` or `gemini`) with `args`,
/// `input` on stdin, in an environment of only `env` (and a PATH without
/// any ferrex); (exit code, stdout, stderr).
fn launcher(
    agent: &str,
    args: &[&str],
    input: &str,
    env: &[(&str, &Path)],
) -> (i32, String, String) {
    let script = repository().join("plugins").join(agent).join("scripts/run-ferrex");
    let mut command = Command::new("sh");
    command.arg(script).arg(agent).args(args).env_clear().env("PATH", "/usr/bin:/bin");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The sentence of a hook's notice (its `systemMessage`, the same as its
/// additional context).
fn notice(stdout: &str, event: &str) -> String {
    let output: Value = serde_json::from_str(stdout).unwrap_or_else(|_| panic!("JSON: {stdout}"));
    assert_eq!(output["hookSpecificOutput"]["hookEventName"], event);
    assert_eq!(output["hookSpecificOutput"]["additionalContext"], output["systemMessage"]);
    output["systemMessage"].as_str().unwrap().to_owned()
}

#[test]
fn without_ferrex_the_first_hook_names_the_install_and_nothing_breaks() {
    let user = tempfile::tempdir().unwrap();
    for agent in ["claude-code", "gemini"] {
        let env = [("HOME", user.path())];
        let (code, stdout, _) = launcher(agent, &["hook", "SessionStart"], "{}", &env);
        assert_eq!(code, 0, "a hook never fails the session");
        let sentence = notice(&stdout, "SessionStart");
        assert!(sentence.contains("ferrex is not installed"), "{sentence}");
        assert!(sentence.contains(&format!("pip install ferrex-memory=={VERSION}")), "{sentence}");
        assert!(!sentence.contains('\n'), "one sentence: {sentence}");
        // The other hooks say nothing more; the server exits, saying why.
        let (code, stdout, _) = launcher(agent, &["hook", "UserPromptSubmit"], "{}", &env);
        assert_eq!((code, stdout.as_str()), (0, ""));
        let (code, stdout, stderr) = launcher(agent, &["mcp"], "", &env);
        assert_eq!(code, 1);
        assert!(stdout.is_empty(), "stdout is the protocol's: {stdout}");
        assert!(stderr.contains("uv tool install ferrex-memory"), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(user.path()).unwrap().count(), 0, "nothing written");
}

#[test]
fn a_ferrex_of_another_version_is_named_with_both_fixes() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("ferrex");
    std::fs::write(&old, "#!/bin/sh\necho 'ferrex 0.0.9'\n").unwrap();
    make_executable(&old);
    let env = [("HOME", dir.path()), ("FERREX_BIN", old.as_path())];
    let (code, stdout, _) = launcher("claude-code", &["hook", "SessionStart"], "{}", &env);
    assert_eq!(code, 0);
    let sentence = notice(&stdout, "SessionStart");
    assert!(sentence.starts_with("ferrex 0.0.9 is installed"), "{sentence}");
    assert!(sentence.contains(&format!("for ferrex {VERSION}")), "{sentence}");
    assert!(sentence.contains("claude plugin update ferrex@ferrex"), "{sentence}");
    let (_, stdout, _) = launcher("gemini", &["hook", "SessionStart"], "{}", &env);
    assert!(notice(&stdout, "SessionStart").contains("gemini extensions update ferrex"));
    // The other version is not run at all: no hook, no server.
    let (code, stdout, _) = launcher("claude-code", &["hook", "PostToolUse"], "{}", &env);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let (code, stdout, stderr) = launcher("claude-code", &["mcp"], "", &env);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(stderr.contains("ferrex 0.0.9 is installed"), "{stderr}");
    // A FERREX_BIN that is no program is named as such.
    let missing = dir.path().join("nowhere/ferrex");
    let env = [("HOME", dir.path()), ("FERREX_BIN", missing.as_path())];
    let (_, stdout, _) = launcher("claude-code", &["hook", "SessionStart"], "{}", &env);
    assert!(notice(&stdout, "SessionStart").starts_with("FERREX_BIN names"), "{stdout}");
}

#[test]
fn the_plugin_beside_setups_hooks_stays_quiet_and_names_what_to_remove() {
    let home = TestHome::new();
    let user = tempfile::tempdir().unwrap();
    let settings = user.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let hooks = json!({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": format!("'{}' hook Stop", ferrex_tests::ferrex_bin().display())}]}]}});
    std::fs::write(&settings, hooks.to_string()).unwrap();
    let before = std::fs::read(&settings).unwrap();
    let bin = ferrex_tests::ferrex_bin();
    let env = [("HOME", user.path()), ("FERREX_BIN", bin.as_path()), ("FERREX_HOME", home.path())];
    let (code, stdout, _) = launcher("claude-code", &["hook", "SessionStart"], "{}", &env);
    assert_eq!(code, 0);
    let sentence = notice(&stdout, "SessionStart");
    assert!(sentence.contains("installed twice"), "{sentence}");
    assert!(sentence.contains("`ferrex setup claude-code --remove`"), "{sentence}");
    // Its other hooks leave the work to setup's: nothing said, no node started.
    let input =
        json!({"session_id": "s1", "prompt": "where was I?", "cwd": user.path()}).to_string();
    let (code, stdout, _) = launcher("claude-code", &["hook", "UserPromptSubmit"], &input, &env);
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert!(!home.path().join("ferrex.sock").exists(), "no node started");
    assert_eq!(std::fs::read(&settings).unwrap(), before, "the person's file as it was");
    let log = std::fs::read_to_string(home.path().join("logs/hook.log")).unwrap();
    assert_eq!(log.matches("installed twice").count(), 2, "both hooks stayed quiet: {log}");
}

#[test]
fn a_first_session_does_not_wait_for_the_model_to_install() {
    // No model where this home looks, and an installer that takes its time
    // (a stand-in for pip fetching 125 MB) and then fails.
    let models = tempfile::tempdir().unwrap();
    let home = TestHome::with_config(&format!(
        "[embed]\nmodel_dir = \"{}\"\n",
        models.path().join("models").display()
    ));
    let python = models.path().join("slow-python");
    std::fs::write(&python, "#!/bin/sh\nsleep 10\necho 'no network here' >&2\nexit 1\n").unwrap();
    make_executable(&python);
    let started = Instant::now();
    let mut child = home
        .command(&["hook", "SessionStart"])
        .env("FERREX_PYTHON", &python)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"{\"session_id\": \"s1\"}").unwrap();
    let output = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(output.status.success());
    let sentence = notice(&String::from_utf8_lossy(&output.stdout), "SessionStart");
    assert!(sentence.contains("installing its embedding model in the background"), "{sentence}");
    assert!(sentence.contains("ferrex doctor"), "{sentence}");
    assert!(took < Duration::from_secs(8), "the hook waited for the install: {took:?}");
    // The node it started gives up when the install fails, and says why.
    let log = home.path().join("logs/start.log");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("no network here") {
        assert!(Instant::now() < deadline, "the node never reported the failed install");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The next session is told it failed, with the command that shows why,
    // and no node is started to fail again.
    let deadline = Instant::now() + Duration::from_secs(30);
    let sentence = loop {
        let (code, stdout, _) = home.hook("SessionStart", "{\"session_id\": \"s2\"}");
        assert_eq!(code, Some(0));
        let said = notice(&stdout, "SessionStart");
        if said.contains("could not install") {
            break said;
        }
        assert!(Instant::now() < deadline, "the failure was never told: {said}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(sentence.contains("`ferrex setup model`"), "{sentence}");
    let starts = std::fs::read_to_string(&log)
        .unwrap()
        .matches("ferrex: the embedding model is not installed")
        .count();
    assert_eq!(starts, 1, "one install tried, not one a session");
}

#[test]
fn setup_names_an_old_or_missing_client_and_refuses_beside_the_plugin() {
    let home = TestHome::new();
    let user = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let claude = tools.path().join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '2.0.1 (Claude Code)'\n").unwrap();
    make_executable(&claude);
    let setup = |path: &str, extra: &[&str]| {
        let mut args = vec!["setup", "claude-code"];
        args.extend(extra);
        home.command(&args)
            .env("HOME", user.path())
            .env("PATH", path)
            .env("FERREX_EMBED_MODEL_DIR", installed_models())
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap()
    };
    let with_old = format!("{}:/usr/bin:/bin", tools.path().display());
    let output = setup(&with_old, &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("note: claude 2.0.1 is older than 2.1.332"), "{said}");
    assert!(said.contains("`claude update`"), "{said}");
    assert!(setup(&with_old, &["--remove"]).status.success());
    let output = setup("/usr/bin:/bin", &[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("note: `claude` is not on the PATH"), "{said}");
    assert!(setup("/usr/bin:/bin", &["--remove"]).status.success());

    // The plugin enabled: setup changes nothing and says what to remove.
    let settings = user.path().join(".claude/settings.json");
    let enabled = json!({"enabledPlugins": {"ferrex@ferrex": true}, "theme": "dark"}).to_string();
    std::fs::write(&settings, &enabled).unwrap();
    let state = std::fs::read(user.path().join(".claude.json")).unwrap();
    let output = setup(&with_old, &[]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("claude plugin uninstall ferrex@ferrex"), "{error}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), enabled);
    assert_eq!(
        std::fs::read(user.path().join(".claude.json")).unwrap(),
        state,
        "no MCP server added"
    );
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
