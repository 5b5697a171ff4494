//! Files as memory, through real `ferrex` processes: a watched folder of
//! Markdown and config files is indexed at start; an edit while the node
//! runs is read again within seconds and recall returns the new section;
//! a deleted file's chunks go; changes made while the node was down are
//! reconciled at the next start; excluded folders are never read; 2,000
//! files touched at once are read with the queue bounded. Across two
//! devices, an unshared folder's chunks stay on their device while a
//! shared one's arrive, and go when the file goes.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{path::Path, time::Duration};

use ferrex_engine::{
    answers::{FilesStats, RecallAnswer, StatsAnswer, StoreAnswer},
    engine::files::IndexFilesAnswer,
};
use ferrex_tests::{Client, TestHome, eventually, settled_heads};
use serde_json::json;

const NAMESPACE: &str = "proj";

/// The file results of a recall of `query`: (path, heading, text).
async fn file_hits(client: &Client, query: &str) -> Vec<(String, String, String)> {
    let answer: RecallAnswer = client
        .answer(
            "recall",
            json!({"query": query, "namespace": NAMESPACE, "types": ["file"], "limit": 10}),
        )
        .await;
    answer
        .results
        .into_iter()
        .map(|result| {
            let memory = result.memory;
            assert_eq!(memory.kind, "file", "{memory:?}");
            let file = memory.file.unwrap_or_else(|| panic!("a file result names no file"));
            (
                file.path,
                file.heading.unwrap_or_default(),
                memory.content.content.unwrap_or_default(),
            )
        })
        .collect()
}

/// `stats`' files section once the worker is idle with `files` read;
/// else the last one seen.
async fn settled_files(
    client: &Client,
    files: i64,
    limit: Duration,
) -> Result<FilesStats, Option<FilesStats>> {
    let last = std::cell::RefCell::new(None);
    let settled = eventually(limit, || async {
        let stats: StatsAnswer = client.answer("stats", json!({})).await;
        let section = stats.files;
        let settled = section.counts.files == files
            && section.status.state == "watching"
            && section.status.queued == 0
            && !section.status.rescan_pending;
        if settled {
            return Some(section);
        }
        *last.borrow_mut() = Some(section);
        None
    })
    .await;
    settled.ok_or_else(|| last.into_inner())
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const AGENT: &str = "# Project\n\nThe gateway of the Orrery service.\n\n## Backend Structure\n\nThe backend is three crates: orrery-core holds the domain, orrery-store the persistence, orrery-api the HTTP layer.\n\n## Releases\n\nWe release on Thursdays after the smoke tests pass.\n";

#[tokio::test]
async fn a_watched_folder_is_indexed_kept_current_and_reconciled() {
    let docs = tempfile::tempdir().unwrap();
    let root = docs.path();
    write(&root.join("AGENT.md"), AGENT);
    write(&root.join("config/app.toml"), "[server]\nport = 7443 # the orrery gateway port\n");
    write(
        &root.join("docs/adr/0001-sqlite.md"),
        "# Use SQLite\n\nThe index is SQLite with FTS5 and sqlite-vec.\n",
    );
    // Never read: excluded folders, and what the patterns leave out.
    write(&root.join("node_modules/pkg/README.md"), "# Pkg\n\nquokkaflux in node_modules.\n");
    write(&root.join("target/notes.md"), "# Notes\n\nquokkaflux in target.\n");
    write(&root.join("drafts/idea.md"), "# Idea\n\nquokkaflux in drafts.\n");
    write(&root.join("src/main.rs"), "// quokkaflux in source code\n");
    // Skipped, with a reason: binary, and a config file too large.
    std::fs::write(root.join("logo.md"), b"# Logo\n\0\x01\x02").unwrap();
    write(&root.join("big.json"), &format!("{{\"blob\": \"{}\"}}", "x".repeat(20_000)));
    // One watched file, apart from the folder.
    let alone = tempfile::tempdir().unwrap();
    let single = alone.path().join("NOTES.md");
    write(&single, "# Notes\n\nThe ibis feeder is empty.\n");
    let home = TestHome::with_config(&format!(
        "[namespaces.{NAMESPACE}]\nwatch = [\"{}\", \"{}\"]\nexclude = [\"drafts/**\", \"late/private/**\"]\n",
        root.display(),
        single.display()
    ));
    let client = home.client().await;
    let files = settled_files(&client, 6, Duration::from_secs(60)).await;
    let files = files.unwrap_or_else(|last| panic!("never reconciled: {last:?}"));
    assert_eq!(files.counts.skipped, 2, "{files:?}");
    let skipped: Vec<&str> = files.skipped_files.iter().map(|file| file.reason.as_str()).collect();
    assert!(skipped.iter().any(|reason| reason.starts_with("binary")), "{files:?}");
    assert_eq!(files.watched, 2, "{files:?}");

    // Recall finds a section by meaning and words, with its file and headings.
    let hits = file_hits(&client, "how is the backend split into crates").await;
    assert_eq!(hits[0].0, "AGENT.md", "{hits:?}");
    assert_eq!(hits[0].1, "Project > Backend Structure", "{hits:?}");
    assert!(hits[0].2.contains("orrery-store"), "{hits:?}");
    // Memories and file chunks rank in one list.
    let mixed: RecallAnswer = client
        .answer("recall", json!({"query": "orrery gateway port", "namespace": NAMESPACE}))
        .await;
    let first = mixed.results[0].memory.file.as_ref().map(|file| file.path.as_str());
    assert_eq!(first, Some("config/app.toml"), "{mixed:?}");
    // Excluded folders and other files were never read.
    let never = file_hits(&client, "quokkaflux").await;
    assert!(never.iter().all(|hit| !hit.2.contains("quokkaflux")), "{never:?}");
    // A watched file is watched too.
    write(&single, "# Notes\n\nThe ibis feeder was filled with sunflower seeds.\n");
    let refilled = eventually(Duration::from_secs(30), || async {
        let hits = file_hits(&client, "ibis feeder sunflower seeds").await;
        hits.iter().any(|hit| hit.0 == "NOTES.md" && hit.2.contains("sunflower")).then_some(())
    })
    .await;
    assert!(refilled.is_some(), "an edit of a watched file was never read");
    let listed: IndexFilesAnswer = client.answer("index_files", json!({})).await;
    let reasons: Vec<&str> = listed.skipped.iter().map(|file| file.reason.as_str()).collect();
    assert!(reasons.iter().any(|reason| reason.starts_with("binary")), "{listed:?}");
    assert!(reasons.iter().any(|reason| reason.starts_with("too large")), "{listed:?}");
    // A memory with a chunk's words is a memory of its own, and a chunk
    // is not forgotten through `forget`.
    let same = "We release on Thursdays after the smoke tests pass.";
    let stored: StoreAnswer =
        client.answer("store", json!({"content": same, "namespace": NAMESPACE})).await;
    assert_eq!(stored.status, "stored", "{stored:?}");
    let chunk: RecallAnswer = client
        .answer(
            "recall",
            json!({"query": "release day", "namespace": NAMESPACE, "types": ["file"]}),
        )
        .await;
    let chunk_id = chunk.results[0].memory.id.clone();
    let refused = client.call("forget", json!({"ids": [chunk_id]})).await.unwrap();
    assert!(refused.unwrap_err().contains("chunk of watched file AGENT.md"));

    // An edit while the node runs: read again within seconds.
    write(
        &root.join("AGENT.md"),
        &AGENT.replace(
            "Thursdays after the smoke tests pass",
            "Mondays once the zeppelin hangar rota is signed",
        ),
    );
    let edited = eventually(Duration::from_secs(30), || async {
        let hits = file_hits(&client, "zeppelin hangar rota").await;
        hits.first().filter(|hit| hit.2.contains("zeppelin hangar rota")).cloned()
    })
    .await;
    let edited = edited.expect("the edited section was never recalled");
    assert_eq!(edited.1, "Project > Releases");
    let old = file_hits(&client, "release on Thursdays smoke tests").await;
    assert!(old.iter().all(|hit| !hit.2.contains("Thursdays")), "the old section stayed: {old:?}");
    // A deleted file's chunks go.
    std::fs::remove_file(root.join("config/app.toml")).unwrap();
    let gone = eventually(Duration::from_secs(30), || async {
        let hits = file_hits(&client, "orrery gateway port 7443").await;
        hits.iter().all(|hit| hit.0 != "config/app.toml").then_some(())
    })
    .await;
    assert!(gone.is_some(), "a deleted file's chunks stayed");
    // A folder made while the node runs is read with the watch's patterns,
    // relative to the watched folder: its excluded part is never read.
    write(&root.join("late/private/secret.md"), "# Private\n\nquokkaflux plans.\n");
    write(&root.join("late/public.md"), "# Public\n\nThe heron timetable is public.\n");
    let late = eventually(Duration::from_secs(30), || async {
        let hits = file_hits(&client, "heron timetable").await;
        hits.iter().any(|hit| hit.0 == "late/public.md").then_some(())
    })
    .await;
    assert!(late.is_some(), "a folder made at run time was never read");
    let never = file_hits(&client, "quokkaflux").await;
    assert!(never.iter().all(|hit| !hit.2.contains("quokkaflux")), "{never:?}");

    // Changes while the node is down are reconciled at the next start.
    client.close().await;
    home.stop();
    std::fs::remove_file(root.join("docs/adr/0001-sqlite.md")).unwrap();
    write(
        &root.join("docs/runbook.md"),
        "# Runbook\n\n## Failover\n\nPromote the standby with the marmot lever.\n",
    );
    let client = home.client().await;
    let reconciled = settled_files(&client, 6, Duration::from_secs(60)).await;
    reconciled.unwrap_or_else(|last| panic!("the restart never reconciled: {last:?}"));
    let hits = file_hits(&client, "marmot lever failover").await;
    assert_eq!(hits[0].0, "docs/runbook.md", "{hits:?}");
    assert_eq!(hits[0].1, "Runbook > Failover", "{hits:?}");
    assert!(
        file_hits(&client, "FTS5 sqlite-vec index")
            .await
            .iter()
            .all(|hit| !hit.0.starts_with("docs/adr"))
    );

    // A burst: 2,000 files at once (a checkout), read with the queue bounded.
    for index in 0..2_000 {
        write(
            &root.join(format!("burst/{:02}/note-{index:04}.md", index % 40)),
            &format!("# Note {index}\n\nBurst note number {index} about topic {}.\n", index % 7),
        );
    }
    let burst = settled_files(&client, 2_006, Duration::from_secs(120)).await;
    let burst = burst.unwrap_or_else(|last| panic!("the burst was never read: {last:?}"));
    assert!(burst.status.queued <= 10_000, "{burst:?}");
    let hits = file_hits(&client, "Burst note number 1234").await;
    assert!(hits.iter().any(|hit| hit.0 == "burst/34/note-1234.md"), "{hits:?}");
    // The node's peak memory stayed bounded.
    let pid = home.node_pid().unwrap();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(peak_kib < 1_500_000, "peak RSS {peak_kib} KiB");
    client.close().await;
}

#[tokio::test]
async fn unshared_chunks_stay_local_and_a_shared_folders_arrive_and_go() {
    let docs = tempfile::tempdir().unwrap();
    let notes = tempfile::tempdir().unwrap();
    write(
        &docs.path().join("README.md"),
        "# Local\n\nThe pelican checkout lives only on the laptop.\n",
    );
    write(
        &notes.path().join("ideas.md"),
        "# Ideas\n\n## Garden\n\nPlant the walrus tomatoes in May.\n",
    );
    write(&notes.path().join("todo.md"), "# Todo\n\nRepaint the narwhal shed.\n");
    let laptop = TestHome::with_config(&format!(
        "[node]\nname = \"laptop\"\n[namespaces.{NAMESPACE}]\nwatch = [\"{}\", {{ path = \"{}\", share = true }}]\n",
        docs.path().display(),
        notes.path().display()
    ));
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    let on_laptop = laptop.client().await;
    settled_files(&on_laptop, 3, Duration::from_secs(60))
        .await
        .unwrap_or_else(|last| panic!("never reconciled: {last:?}"));
    let on_desktop = desktop.client().await;
    let arrived = eventually(Duration::from_secs(90), || async {
        settled_heads(&[&laptop, &desktop])?;
        let hits = file_hits(&on_desktop, "walrus tomatoes garden").await;
        hits.iter().any(|hit| hit.0 == "ideas.md" && hit.1 == "Ideas > Garden").then_some(())
    })
    .await;
    assert!(arrived.is_some(), "the shared folder's chunks never arrived");
    // The unshared folder's chunks stayed on the laptop.
    assert!(file_hits(&on_laptop, "pelican checkout").await.iter().any(|hit| hit.0 == "README.md"));
    assert!(
        file_hits(&on_desktop, "pelican checkout").await.iter().all(|hit| hit.0 != "README.md")
    );
    // A shared file deleted on the laptop: its chunks go on both.
    std::fs::remove_file(notes.path().join("todo.md")).unwrap();
    let gone = eventually(Duration::from_secs(90), || async {
        settled_heads(&[&laptop, &desktop])?;
        let here = file_hits(&on_laptop, "narwhal shed").await;
        let there = file_hits(&on_desktop, "narwhal shed").await;
        (here.iter().chain(&there).all(|hit| hit.0 != "todo.md")).then_some(())
    })
    .await;
    assert!(gone.is_some(), "a deleted shared file's chunks stayed");
    assert!(desktop.files_containing("narwhal").is_empty(), "the deleted text stayed on disk");
    // A rebuilt index reads the shared folder again and finds the chunks
    // it wrote: none is written twice.
    let (ok, _, stderr) = laptop.run(&["reindex"]);
    assert!(ok, "{stderr}");
    settled_files(&on_laptop, 2, Duration::from_secs(60))
        .await
        .unwrap_or_else(|last| panic!("the rebuilt index never read the folders: {last:?}"));
    // README.md's one chunk and ideas.md's one (a heading alone is none);
    // a copy would be collapsed from recall as a duplicate, so count rows.
    let stats: StatsAnswer = on_laptop.answer("stats", json!({})).await;
    assert_eq!(stats.by_type.get("file"), Some(&2), "{stats:?}");
    let walrus = file_hits(&on_laptop, "walrus tomatoes garden").await;
    assert!(walrus.iter().any(|hit| hit.2.contains("walrus tomatoes")), "{walrus:?}");
    on_laptop.close().await;
    on_desktop.close().await;
}
