//! The `ferrex` command line as a person meets it (and, since this is an
//! integration test of the `ferrex` package, it makes cargo build the binary
//! that the end-to-end tests in `tests/` drive).

use std::process::Command;

fn ferrex(home: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_ferrex"))
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .expect("running ferrex");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn an_unknown_config_key_is_named_and_nothing_starts() {
    let home = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(home.path().join("ferrex.toml"), "[embed]\nmodle_dir = \"x\"\n").expect("write");
    let (ok, stdout, stderr) = ferrex(home.path(), &["node"]);
    assert!(!ok);
    assert!(stdout.is_empty(), "stdout is the MCP channel: {stdout}");
    assert!(stderr.contains("embed.modle_dir"), "{stderr}");
    assert!(!home.path().join("node.pid").exists());
}

#[test]
fn stop_without_a_node_says_so() {
    let home = tempfile::tempdir().expect("a temporary directory");
    let (ok, stdout, stderr) = ferrex(home.path(), &["stop"]);
    assert!(ok, "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("no node is running"), "{stderr}");
}

#[test]
fn doctor_reports_the_model_on_stderr_only() {
    let home = tempfile::tempdir().expect("a temporary directory");
    let (ok, stdout, stderr) = ferrex(home.path(), &["doctor"]);
    assert!(ok, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("embedding ok"), "{stderr}");
}
