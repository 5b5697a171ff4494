//! `ferrex export` and `ferrex import` between real homes, with the real
//! model: what an empty home imports from an export answers every recall of
//! a query set with the same ids in the same order, exports the same
//! records again, imports nothing twice, and a malformed file imports
//! nothing at all.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_tests::{Client, TestHome};
use serde_json::{Value, json};

/// Texts, facts (one superseded), how-tos, tags and entities, in two
/// namespaces; one memory forgotten, some confirmed, one stored twice.
async fn fill(client: &Client) -> Vec<String> {
    let texts = [
        ("the nightly backup of the home server starts at 02:00 and takes an hour", "default"),
        ("we moved the team standup to 09:30 on Tuesdays and Thursdays", "default"),
        ("the staging database was migrated to postgres 16 last sprint", "default"),
        ("Alice reviews every pull request that touches the billing code", "default"),
        ("the CI runners cache cargo registries under /var/cache/cargo", "default"),
        ("the release checklist says to tag, build, sign and then publish", "default"),
        ("Bob prefers short design documents with one diagram", "default"),
        ("the VPN certificate expires every ninety days and must be renewed", "default"),
        ("the grocery list for Saturday has apples, rice and coffee", "home"),
        ("the plumber comes on Friday morning to fix the kitchen sink", "home"),
        ("the car is due for its yearly inspection in March", "home"),
        ("our wifi password is changed whenever a guest leaves", "home"),
    ];
    let mut ids = Vec::new();
    for (text, namespace) in texts {
        ids.push(client.store_text(text, namespace).await);
    }
    let facts = [
        ("api-server", "port", "8080"),
        ("api-server", "port", "9090"),
        ("api-server", "depends on", "postgres"),
        ("api-server", "depends on", "redis"),
        ("Alice", "lives in", "Berlin"),
        ("Alice", "works on", "billing"),
    ];
    for (subject, predicate, object) in facts {
        let answer = client
            .ok("store", json!({"subject": subject, "predicate": predicate, "object": object, "entities": [subject], "tags": ["facts"]}))
            .await;
        ids.push(answer["id"].as_str().unwrap().to_owned());
    }
    let howto = client
        .ok(
            "store",
            json!({"content": "to rotate the logs run logrotate -f /etc/logrotate.conf as root", "memory_type": "procedural", "tags": ["ops"], "entities": ["logrotate"]}),
        )
        .await;
    ids.push(howto["id"].as_str().unwrap().to_owned());
    // Evidence, confirmations, a forget.
    let again = client.ok("store", json!({"content": texts[0].0})).await;
    assert_eq!(again["status"], "duplicate", "{again}");
    client.ok("recall", json!({"query": "backup", "validate_ids": [ids[1], ids[2]]})).await;
    let gone = client.store_text("a note that is forgotten before the export", "default").await;
    client.ok("forget", json!({"ids": [gone]})).await;
    ids
}

const QUERIES: [(&str, &str); 12] = [
    ("when does the backup run", "default"),
    ("what time is the standup", "default"),
    ("which postgres version does staging use", "default"),
    ("who reviews billing changes", "default"),
    ("where is the cargo cache on CI", "default"),
    ("how do I publish a release", "default"),
    ("api-server port", "default"),
    ("what does the api server depend on", "default"),
    ("where does Alice live", "default"),
    ("how to rotate logs", "default"),
    ("what do we need to buy", "home"),
    ("when is the plumber coming", "home"),
];

async fn answers(client: &Client) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for (query, namespace) in QUERIES {
        all.push(client.recall_ids(query, namespace, 10).await);
    }
    all
}

/// An export's record lines (without the header and device lines, which
/// name the exporting device).
fn records(export: &str) -> Vec<Value> {
    export
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["type"] != "ferrex-export" && line["type"] != "device")
        .collect()
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn run(home: &TestHome, args: &[&str]) -> (bool, String, String) {
    home.run(args)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_imports_into_an_empty_home_as_it_was() {
    let source = TestHome::named("laptop");
    let client = source.client().await;
    fill(&client).await;
    client.caught_up().await;
    let file = source.path().join("export.jsonl");
    let (ok, stdout, stderr) = run(&source, &["export", "--out", file.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stdout.is_empty(), "--out writes nothing on stdout: {stdout}");
    let exported = std::fs::read_to_string(&file).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "an export is readable by its owner only");
    assert!(!exported.contains("forgotten before the export"), "a forgotten memory was exported");
    let (ok, to_stdout, _) = run(&source, &["export"]);
    assert!(ok);
    assert_eq!(records(&to_stdout), records(&exported), "stdout and --out differ");

    // The Markdown folder: a page per entity and per topic, linked.
    let folder = source.path().join("pages");
    let (ok, stdout, stderr) =
        run(&source, &["export", "--format", "markdown", "--out", folder.to_str().unwrap()]);
    assert!(ok && stdout.is_empty(), "{stderr}");
    let page = |path: &str| std::fs::read_to_string(folder.join(path)).unwrap_or_default();
    let api = page("default/entities/api-server.md");
    assert!(api.starts_with("---\nid: "), "{api}");
    assert!(api.contains("- **port**: 9090"), "{api}");
    assert!(api.contains("port 8080, until"), "the history keeps the old value: {api}");
    assert!(page("default/topics/ops.md").contains("logrotate"));
    assert!(page("default/index.md").contains("[api-server](entities/api-server.md)"));
    assert!(page("home/index.md").contains("plumber"), "{}", page("home/index.md"));
    assert!(page("README.md").contains("[home](home/index.md)"));
    let all: String =
        walk(&folder).iter().map(|path| std::fs::read_to_string(path).unwrap()).collect();
    assert!(!all.contains("forgotten before the export"));
    // Again into the same folder: replaced; into another folder: refused.
    assert!(run(&source, &["export", "--format", "markdown", "--out", folder.to_str().unwrap()]).0);
    let (ok, _, stderr) =
        run(&source, &["export", "--format", "markdown", "--out", source.path().to_str().unwrap()]);
    assert!(!ok && stderr.contains("not an earlier Markdown export"), "{stderr}");

    let target = TestHome::named("desktop");
    let (ok, stdout, stderr) = run(&target, &["import", file.to_str().unwrap(), "--json"]);
    assert!(ok, "{stderr}");
    let imported: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(imported["memories"], 19, "{imported}");
    let other = target.client().await;
    other.caught_up().await;

    // The same records, the same answers.
    let (ok, again, _) = run(&target, &["export"]);
    assert!(ok);
    assert_eq!(records(&again), records(&exported), "the import lost or changed something");
    assert_eq!(answers(&client).await, answers(&other).await);
    let facts = other.ok("history", json!({"subject": "api-server", "predicate": "port"})).await;
    let statuses: Vec<&str> = facts["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, vec!["superseded", "current"], "{facts}");

    // Twice is once.
    let (ok, stdout, _) = run(&target, &["import", file.to_str().unwrap(), "--json"]);
    assert!(ok);
    let twice: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (twice["memories"].clone(), twice["edges"].clone()),
        (json!(0), json!(0)),
        "{twice}"
    );

    // A memory forgotten in the target does not come back.
    let first = records(&exported).into_iter().find(|line| line["type"] == "memory").unwrap();
    other.ok("forget", json!({"ids": [first["id"]]})).await;
    let (ok, stdout, _) = run(&target, &["import", file.to_str().unwrap(), "--json"]);
    assert!(ok);
    let after: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (after["memories"].clone(), after["forgotten"].clone()),
        (json!(0), json!(1)),
        "{after}"
    );
    other.close().await;
    client.close().await;
    target.stop();
    source.stop();
}

#[test]
fn a_malformed_file_imports_nothing_and_names_its_line() {
    let home = TestHome::new();
    let header = r#"{"type":"ferrex-export","version":1,"exported_at":"2026-11-24T10:00:00.000Z","device":"d"}"#;
    let memory = |id: &str, changes: Value| {
        let mut line = json!({
            "type": "memory", "namespace": "default", "id": id, "kind": "episodic",
            "content": format!("note {id}"), "confidence": 1.0, "evidence": 1,
            "created_at": "2026-11-24T10:00:00.000Z", "created_by": "d",
            "t_valid": "2026-11-24T10:00:00.000Z",
        });
        for (key, value) in changes.as_object().unwrap() {
            line[key] = value.clone();
        }
        line.to_string()
    };
    let none = json!({});
    let cases = [
        (format!("{header}\n{}\n{{not json\n", memory("a", none.clone())), "line 3"),
        (
            format!(
                "{header}\n{}\n{}\n",
                memory("a", none.clone()),
                memory("b", json!({"confidence": 7.0}))
            ),
            "line 3: memory b: confidence 7",
        ),
        (
            format!("{header}\n{}\n", memory("a", json!({"kind": "dream"}))),
            "line 2: memory a: kind \"dream\"",
        ),
        (format!("{}\n", memory("a", none.clone())), "cannot tell what"),
        (header.replace("\"version\":1", "\"version\":9"), "line 1: format version 9"),
        (format!("{header}\n{}\n", memory("a", json!({"created_at": "yesterday"}))), "line 2"),
        (
            format!("{header}\n{}\n", memory("a", json!({"surprise": 1}))),
            "line 2: unknown field `surprise`",
        ),
        (
            format!("{header}\n{}\n", memory("a", json!({"entities": ["no-such-entity"]}))),
            "neither the file nor this home holds",
        ),
        (String::new(), "cannot tell what"),
    ];
    for (index, (text, needle)) in cases.iter().enumerate() {
        let path = home.path().join(format!("bad-{index}.jsonl"));
        std::fs::write(&path, text).unwrap();
        let (ok, stdout, stderr) = run(&home, &["import", path.to_str().unwrap()]);
        assert!(!ok, "case {index} was imported: {stdout}");
        assert!(stderr.contains(needle), "case {index}: {stderr:?} lacks {needle:?}");
        assert!(stdout.is_empty(), "case {index}: {stdout}");
    }
    let (ok, stdout, stderr) = run(&home, &["list", "--status", "any", "--json"]);
    assert!(ok, "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listed["total"], 0, "a malformed file imported something: {listed}");
    // An entity missing for a memory past the first request's 500: still
    // nothing imported (the whole file is checked before any write).
    let mut text = format!("{header}\n");
    for index in 0..501 {
        let changes = if index == 500 { json!({"entities": ["nowhere"]}) } else { json!({}) };
        text.push_str(&memory(&format!("m{index}"), changes));
        text.push('\n');
    }
    let path = home.path().join("late.jsonl");
    std::fs::write(&path, &text).unwrap();
    let (ok, _, stderr) = run(&home, &["import", path.to_str().unwrap()]);
    assert!(!ok && stderr.contains("line 502: memory m500 uses entity nowhere"), "{stderr}");
    let (_, stdout, _) = run(&home, &["list", "--status", "any", "--json"]);
    assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap()["total"], 0);
    // Asked to keep going, the good lines are imported and the bad ones listed.
    let path = home.path().join("bad-1.jsonl");
    let (ok, stdout, stderr) =
        run(&home, &["import", path.to_str().unwrap(), "--keep-going", "--json"]);
    assert!(ok, "{stderr}");
    let kept: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(kept["memories"], 1, "{kept}");
    assert!(
        kept["skipped"][0].as_str().unwrap().starts_with("line 3: memory b: confidence 7"),
        "{kept}"
    );
    let (ok, _, stderr) =
        run(&home, &["import", home.path().join("missing.jsonl").to_str().unwrap()]);
    assert!(!ok && stderr.contains("missing.jsonl"), "{stderr}");
    home.stop();
}
