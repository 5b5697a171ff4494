//! `ferrex import` from other memory servers and from notes, with fixtures
//! written here from each format's published structure: the official MCP
//! memory server's `memory.jsonl` (entities with observations, relations),
//! an mcp-memory-service SQLite database (its `memories` table), and a
//! folder of Markdown notes. Each goes through the store pipeline, keeps its
//! times, reports what it stored, found already here or refused, and
//! imports nothing twice; a malformed source imports nothing.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::Path;

use ferrex_tests::TestHome;
use serde_json::{Value, json};

fn import(home: &TestHome, path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["import", path.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = home.run(&args);
    assert!(ok, "import {}: {stderr}", path.display());
    serde_json::from_str(&stdout).unwrap()
}

fn refused(home: &TestHome, path: &Path, extra: &[&str]) -> String {
    let mut args = vec!["import", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = home.run(&args);
    assert!(!ok, "import {} succeeded: {stdout}", path.display());
    assert!(stdout.is_empty(), "{stdout}");
    stderr
}

fn listed(home: &TestHome, namespace: &str) -> Value {
    let (ok, stdout, stderr) = home.run(&[
        "list",
        "--namespace",
        namespace,
        "--status",
        "any",
        "--limit",
        "100",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn the_mcp_memory_servers_knowledge_graph() {
    let home = TestHome::new();
    let path = home.path().join("memory.jsonl");
    let graph = [
        json!({"type": "entity", "name": "Ada_Lovelace", "entityType": "person", "observations": ["writes the analytical engine notes", "prefers tea to coffee"]}),
        json!({"type": "entity", "name": "Analytical_Engine", "entityType": "machine", "observations": ["was designed by Charles Babbage"]}),
        json!({"type": "entity", "name": "London", "entityType": "city", "observations": []}),
        json!({"type": "relation", "from": "Ada_Lovelace", "to": "London", "relationType": "lives_in"}),
        json!({"type": "relation", "from": "Ada_Lovelace", "to": "Analytical_Engine", "relationType": "works_on"}),
    ];
    let text: String = graph.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let first = import(&home, &path, &["--namespace", "graph"]);
    // Three types, three observations, two relations.
    assert_eq!(first["stored"], 8, "{first}");
    assert_eq!(first["refused"], json!([]), "{first}");
    let all = listed(&home, "graph");
    assert_eq!(all["total"], 8, "{all}");
    let (ok, stdout, _) =
        home.run(&["recall", "who prefers tea", "--namespace", "graph", "--json"]);
    assert!(ok);
    let recalled: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        recalled["results"][0]["content"], "Ada_Lovelace: prefers tea to coffee",
        "{recalled}"
    );
    let (ok, stdout, _) = home.run(&["topics", "--namespace", "graph", "--json"]);
    assert!(ok);
    let topics: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(topics["entities"][0]["name"], "Ada_Lovelace", "{topics}");
    // Twice is once: nothing stored, nothing's evidence grown.
    let again = import(&home, &path, &["--namespace", "graph"]);
    assert_eq!(
        (again["stored"].clone(), again["duplicates"].clone()),
        (json!(0), json!(8)),
        "{again}"
    );
    let evidence: Vec<i64> = listed(&home, "graph")["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|memory| memory["evidence"].as_i64().unwrap())
        .collect();
    assert!(evidence.iter().all(|count| *count == 1), "{evidence:?}");
    // A malformed graph names its line and imports nothing.
    let bad = home.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{}\n{{\"type\":\"relation\",\"from\":\"x\"}}\n", graph[0]))
        .unwrap();
    let error = refused(&home, &bad, &["--from", "mcp-memory", "--namespace", "bad"]);
    assert!(error.contains("line 2: to is missing"), "{error}");
    assert_eq!(listed(&home, "bad")["total"], 0);
    home.stop();
}

/// A row of mcp-memory-service's `memories` table: content, tags, type,
/// metadata, created (seconds), deleted (seconds).
type ServiceRow<'a> = (&'a str, &'a str, &'a str, &'a str, f64, Option<f64>);

/// An mcp-memory-service database with its `memories` table as that
/// server creates it.
fn service_database(path: &Path, rows: &[ServiceRow<'_>]) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE memories (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            content_hash TEXT UNIQUE NOT NULL,
            content TEXT NOT NULL,
            tags TEXT,
            memory_type TEXT,
            metadata TEXT,
            created_at REAL,
            updated_at REAL,
            created_at_iso TEXT,
            updated_at_iso TEXT,
            deleted_at REAL DEFAULT NULL
        )",
    )
    .unwrap();
    for (index, (content, tags, kind, metadata, created, deleted)) in rows.iter().enumerate() {
        conn.execute(
            "INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at,
             updated_at, created_at_iso, updated_at_iso, deleted_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, '', '', ?7)",
            rusqlite::params![
                format!("hash{index}"),
                content,
                tags,
                kind,
                metadata,
                created,
                deleted
            ],
        )
        .unwrap();
    }
}

#[test]
fn an_mcp_memory_service_database() {
    let home = TestHome::new();
    let path = home.path().join("sqlite_vec.db");
    // 2024-03-01T12:00:00Z and later.
    let march = 1_709_294_400.0;
    service_database(
        &path,
        &[
            (
                "The deploy pipeline runs integration tests before every release",
                "ci,release",
                "note",
                "{}",
                march,
                None,
            ),
            (
                "To restart the queue worker run systemctl restart worker",
                "ops",
                "procedural",
                "{\"host\":\"app-1\"}",
                march + 86_400.0,
                None,
            ),
            (
                "Lunch on Friday is at the noodle place near the station",
                "",
                "",
                "",
                march + 172_800.0,
                None,
            ),
            ("This one was deleted in the service", "old", "note", "{}", march, Some(march + 10.0)),
            (
                "The office wifi is called ferrex-guest",
                "office",
                "reference",
                "{}",
                march + 259_200.0,
                None,
            ),
        ],
    );
    let first = import(&home, &path, &[]);
    assert_eq!(first["stored"], 4, "{first}");
    let all = listed(&home, "default");
    let memories = all["memories"].as_array().unwrap();
    assert_eq!(memories.len(), 4, "the deleted row is not imported: {all}");
    let deploy =
        memories.iter().find(|m| m["content"].as_str().unwrap().starts_with("The deploy")).unwrap();
    assert_eq!(
        deploy["t_valid"], "2024-03-01T12:00:00.000Z",
        "the source's time is kept: {deploy}"
    );
    assert_eq!(deploy["tags"], json!(["ci", "release", "note"]));
    let restart =
        memories.iter().find(|m| m["content"].as_str().unwrap().starts_with("To restart")).unwrap();
    assert_eq!(restart["type"], "procedural");
    assert_eq!(restart["context"], "{\"host\":\"app-1\"}");
    let again = import(&home, &path, &[]);
    assert_eq!(
        (again["stored"].clone(), again["duplicates"].clone()),
        (json!(0), json!(4)),
        "{again}"
    );
    // A row without content names its row; nothing is imported.
    let bad = home.path().join("bad.db");
    service_database(&bad, &[("fine", "", "", "", march, None), ("   ", "", "", "", march, None)]);
    let error = refused(&home, &bad, &["--namespace", "bad"]);
    assert!(error.contains("row 2: content is empty"), "{error}");
    assert_eq!(listed(&home, "bad")["total"], 0);
    // Not this format.
    let other = home.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes (x TEXT)")
        .unwrap();
    assert!(refused(&home, &other, &[]).contains("not an mcp-memory-service database"));
    home.stop();
}

#[test]
fn a_folder_of_markdown_notes() {
    let home = TestHome::new();
    let notes = home.path().join("notes");
    std::fs::create_dir_all(notes.join("projects")).unwrap();
    std::fs::write(
        notes.join("ops.md"),
        "---\ntitle: Operations\ntags: [ops, backup]\ndate: 2025-03-01\n---\n# Backups\nThe backup job runs at 02:00 and keeps 30 days.\n\n# Restores\nRestore with restic from the NAS.\n",
    )
    .unwrap();
    std::fs::write(
        notes.join("projects/ferrex.md"),
        "ferrex syncs memories between my laptop and desktop.\n",
    )
    .unwrap();
    std::fs::write(notes.join(".hidden.md"), "not imported\n").unwrap();
    std::fs::write(notes.join("readme.txt"), "not a note\n").unwrap();
    let first = import(&home, &notes, &["--namespace", "notes"]);
    assert_eq!(first["stored"], 3, "{first}");
    let all = listed(&home, "notes");
    let backups = all["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["content"].as_str().unwrap().starts_with("# Backups"))
        .unwrap()
        .clone();
    assert_eq!(backups["tags"], json!(["ops", "backup"]), "{backups}");
    assert_eq!(backups["t_valid"], "2025-03-01T00:00:00.000Z");
    assert_eq!(backups["source"], "ops.md");
    assert!(!all.to_string().contains("not imported"));
    let again = import(&home, &notes, &["--namespace", "notes"]);
    assert_eq!(again["stored"], 0, "{again}");
    // Bad front matter names its file; nothing is imported.
    let bad = home.path().join("bad-notes");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("a.md"), "fine\n").unwrap();
    std::fs::write(bad.join("b.md"), "---\ntags: [unclosed\n---\nbody\n").unwrap();
    let error = refused(&home, &bad, &["--namespace", "bad"]);
    assert!(error.contains("b.md: front matter is not YAML"), "{error}");
    assert_eq!(listed(&home, "bad")["total"], 0);
    let kept = import(&home, &bad, &["--namespace", "bad", "--keep-going"]);
    assert_eq!(kept["stored"], 1, "{kept}");
    assert!(kept["skipped"][0].as_str().unwrap().starts_with("b.md: front matter"), "{kept}");
    assert!(refused(&home, &notes, &["--from", "evernote"]).contains("--from \"evernote\""));
    home.stop();
}
