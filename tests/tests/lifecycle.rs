//! The node's lifecycle through real processes: restarts keep everything,
//! a SIGKILL loses no acknowledged write, a deleted index is rebuilt to the
//! same answers, and several MCP sessions share one node.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{
    collections::BTreeSet,
    sync::{Arc, Mutex},
    time::Duration,
};

use ferrex_tests::{TestHome, eventually, process_alive};
use serde_json::json;

const NOTES: [&str; 8] = [
    "The api-server listens on port 8080.",
    "Deploys happen every Wednesday after the sync.",
    "Alice reviews pull requests before lunch.",
    "The staging database runs PostgreSQL 16.",
    "Backups go to the ferrex-backups-eu bucket.",
    "Grace is on call this week.",
    "The nightly build failed on integration tests.",
    "Use cargo nextest to run the tests faster.",
];

/// More notes, unlike the first ones (near-duplicates would not be stored).
const MORE_NOTES: [&str; 8] = [
    "The office plants get watered on Fridays.",
    "Invoices are due on the last day of the month.",
    "The wifi in meeting room B drops every afternoon.",
    "Dana prefers written updates over calls.",
    "The search cluster has three replicas.",
    "Our status page lives at status.example.org.",
    "The mobile release train leaves every second Tuesday.",
    "Pager duty rotates on Monday mornings.",
];

const QUERIES: [&str; 4] = [
    "which port does the server use",
    "when do deploys happen",
    "database version",
    "who is on call",
];

async fn recall_all(client: &ferrex_tests::Client, namespace: &str) -> BTreeSet<String> {
    // Every memory of a small namespace is a dense candidate, so a broad
    // query with the largest limit returns them all.
    client.recall_ids("note", namespace, 200).await.into_iter().collect()
}

#[tokio::test]
async fn everything_is_still_there_after_a_restart() {
    let home = TestHome::new();
    let client = home.client().await;
    let mut ids = BTreeSet::new();
    for note in NOTES {
        ids.insert(client.store_text(note, "work").await);
    }
    let before: Vec<Vec<String>> = {
        let mut answers = Vec::new();
        for query in QUERIES {
            answers.push(client.recall_ids(query, "work", 5).await);
        }
        answers
    };
    client.close().await;
    home.stop();
    assert!(home.node_pid().is_none(), "the pid file is removed on stop");

    let client = home.client().await;
    assert_eq!(recall_all(&client, "work").await, ids);
    for (query, expected) in QUERIES.iter().zip(&before) {
        assert_eq!(&client.recall_ids(query, "work", 5).await, expected, "{query}");
    }
    client.close().await;
}

#[tokio::test]
async fn a_killed_node_loses_no_acknowledged_store() {
    let home = TestHome::new();
    for round in 0..20 {
        let namespace = format!("crash-{round}");
        let client = Arc::new(home.client().await);
        let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
        let writer = {
            let (client, acknowledged, namespace) =
                (client.clone(), acknowledged.clone(), namespace.clone());
            tokio::spawn(async move {
                for index in 0..500 {
                    let content =
                        format!("note {index} of round {namespace}: a memory written in a loop");
                    match client
                        .call("store", json!({"content": content, "namespace": namespace}))
                        .await
                    {
                        Ok(Ok(answer)) => acknowledged
                            .lock()
                            .unwrap()
                            .push(answer["id"].as_str().unwrap().to_owned()),
                        // The node died mid-call: this store was never acknowledged.
                        _ => break,
                    }
                }
            })
        };
        // Let some stores land, then kill the node mid-loop.
        let landed = eventually(Duration::from_secs(30), || {
            let count = acknowledged.lock().unwrap().len();
            async move { (count >= 3 + round % 7).then_some(()) }
        })
        .await;
        assert!(landed.is_some(), "round {round}: no store was acknowledged");
        let pid = home.node_pid().unwrap();
        home.kill_node();
        assert!(!process_alive(pid));
        tokio::time::timeout(Duration::from_secs(30), writer).await.unwrap().unwrap();
        let acknowledged: BTreeSet<String> = acknowledged.lock().unwrap().iter().cloned().collect();
        drop(client);

        let client = home.client().await;
        let present = recall_all(&client, &namespace).await;
        let missing: Vec<&String> = acknowledged.difference(&present).collect();
        assert!(missing.is_empty(), "round {round}: acknowledged but lost: {missing:?}");
        assert!(present.len() <= acknowledged.len() + 1, "at most the in-flight store extra");
        let found = client.recall_ids("a memory written in a loop, note 1", &namespace, 3).await;
        assert!(!found.is_empty(), "round {round}: recall works after the restart");
        client.close().await;
    }
}

/// The word that marks note `index` of `round` (one token to the full-text
/// index, found in no other memory).
fn marker(round: usize, index: usize) -> String {
    format!("qz{round}mark{index}vx")
}

#[tokio::test]
async fn a_node_killed_while_storing_and_forgetting_loses_nothing_acknowledged_and_keeps_nothing_forgotten()
 {
    let home = TestHome::new();
    for round in 0..8 {
        let namespace = format!("churn-{round}");
        let client = Arc::new(home.client().await);
        // (id, marker) of acknowledged stores, and ids whose forget was
        // acknowledged.
        let stored = Arc::new(Mutex::new(Vec::<(String, String)>::new()));
        let forgotten = Arc::new(Mutex::new(BTreeSet::<String>::new()));
        let writer = {
            let (client, stored, forgotten, namespace) =
                (client.clone(), stored.clone(), forgotten.clone(), namespace.clone());
            tokio::spawn(async move {
                for index in 0..300 {
                    let word = marker(round, index);
                    let content =
                        format!("Entry {index} of the lighthouse log reads {word} today.");
                    let Ok(Ok(answer)) = client
                        .call("store", json!({"content": content, "namespace": namespace}))
                        .await
                    else {
                        break;
                    };
                    let id = answer["id"].as_str().unwrap().to_owned();
                    stored.lock().unwrap().push((id.clone(), word));
                    // Every other memory is forgotten right after it is stored.
                    if index % 2 == 1 {
                        match client.call("forget", json!({"ids": [id]})).await {
                            Ok(Ok(_)) => {
                                forgotten.lock().unwrap().insert(id);
                            }
                            _ => break,
                        }
                    }
                }
            })
        };
        let landed = eventually(Duration::from_secs(30), || {
            let count = stored.lock().unwrap().len();
            async move { (count >= 4 + round % 5).then_some(()) }
        })
        .await;
        assert!(landed.is_some(), "round {round}: no store was acknowledged");
        home.kill_node();
        tokio::time::timeout(Duration::from_secs(30), writer).await.unwrap().unwrap();
        drop(client);
        let stored = stored.lock().unwrap().clone();
        let forgotten = forgotten.lock().unwrap().clone();

        let client = home.client().await;
        let present: BTreeSet<String> =
            client.recall_ids("lighthouse log entry", &namespace, 200).await.into_iter().collect();
        // The last store may have been followed by a forget the kill cut
        // short: it may be there or not.
        let in_flight = stored
            .len()
            .checked_sub(1)
            .filter(|last| last % 2 == 1)
            .map(|last| stored[last].0.clone())
            .filter(|id| !forgotten.contains(id));
        for (id, word) in &stored {
            if forgotten.contains(id) {
                assert!(!present.contains(id), "round {round}: forgotten {id} is recalled");
                let files = home.files_containing(word);
                assert!(files.is_empty(), "round {round}: forgotten {word} is in {files:?}");
            } else if in_flight.as_ref() != Some(id) {
                assert!(present.contains(id), "round {round}: acknowledged {id} was lost");
            }
        }
        assert!(!forgotten.is_empty() || stored.len() < 2, "round {round}: nothing was forgotten");
        client.close().await;
    }
}

#[tokio::test]
async fn a_deleted_index_is_rebuilt_to_the_same_answers() {
    let home = TestHome::new();
    let client = home.client().await;
    for note in NOTES.iter().chain(MORE_NOTES.iter()) {
        client.store_text(note, "work").await;
    }
    let mut before = Vec::new();
    for query in QUERIES {
        before.push(client.recall_ids(query, "work", 10).await);
    }
    client.close().await;
    home.stop();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(home.path().join(format!("index.sqlite{suffix}")));
    }

    let client = home.client().await;
    let settled = eventually(Duration::from_secs(60), || {
        let client = &client;
        async move {
            let stats = client.ok("stats", json!({})).await;
            let lag = &stats["index_lag"];
            (lag["embeddings_queued"] == 0 && lag["changes"] == 0).then_some(stats)
        }
    })
    .await
    .expect("the rebuilt index catches up");
    assert_eq!(settled["memories"], 16);
    for (query, expected) in QUERIES.iter().zip(&before) {
        assert_eq!(&client.recall_ids(query, "work", 10).await, expected, "{query}");
    }
    client.close().await;
}

#[tokio::test]
async fn reindex_rebuilds_a_running_node_and_a_stopped_one() {
    let home = TestHome::new();
    let client = home.client().await;
    for note in NOTES {
        client.store_text(note, "work").await;
    }
    let before = client.recall_ids(QUERIES[0], "work", 8).await;
    let (ok, stdout, stderr) = home.run(&["reindex"]);
    assert!(ok, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("reindexed 8 memories (8 embedded)"), "{stderr}");
    assert_eq!(client.recall_ids(QUERIES[0], "work", 8).await, before);
    client.close().await;

    home.stop();
    let (ok, _, stderr) = home.run(&["reindex"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("reindexed 8 memories (8 embedded)"), "{stderr}");
    let client = home.client().await;
    assert_eq!(client.recall_ids(QUERIES[0], "work", 8).await, before);
    client.close().await;
}

#[tokio::test]
async fn two_sessions_share_one_node_and_see_each_others_writes() {
    let home = TestHome::new();
    let first = home.client().await;
    let second = home.client().await;
    let from_first =
        first.store_text("The first session stored this note about kites.", "shared").await;
    let from_second =
        second.store_text("The second session stored this note about boats.", "shared").await;
    assert_eq!(second.recall_ids("kites", "shared", 1).await, vec![from_first]);
    assert_eq!(first.recall_ids("boats", "shared", 1).await, vec![from_second]);
    let pid = home.node_pid().unwrap();
    first.close().await;
    // The node outlives a session; the other session keeps working.
    assert!(process_alive(pid));
    assert_eq!(second.recall_ids("boats", "shared", 1).await.len(), 1);
    second.close().await;
    assert!(process_alive(pid), "the node keeps running without sessions");
}

#[tokio::test]
async fn a_second_node_for_the_same_home_is_refused() {
    let home = TestHome::new();
    let client = home.client().await;
    client.store_text("something", "default").await;
    let (ok, stdout, stderr) = home.run(&["node"]);
    assert!(!ok);
    assert!(stdout.is_empty());
    assert!(stderr.contains("already running"), "{stderr}");
    client.close().await;
}

#[tokio::test]
async fn a_home_of_format_1_is_upgraded_on_its_first_start_and_serves_what_it_held() {
    // The frozen format-1 fixture: m1 and m2 live ("fixture memory"), m0
    // forgotten, and the entity Tokio that no memory uses.
    let home = TestHome::new();
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sync/tests/fixtures/docs-v1");
    copy_dir(&fixture, &home.path().join("docs"));
    let client = home.client().await;
    let stats = client.ok("stats", json!({})).await;
    assert_eq!(stats["by_namespace"]["fixture"], 2, "{stats}");
    assert_eq!(stats["entities"], 0, "{stats}");
    // Written in 1970, they are stale: asked for as such.
    let answer = client
        .ok(
            "recall",
            json!({"query": "fixture memory", "namespace": "fixture", "include_stale": true}),
        )
        .await;
    let found: Vec<&str> =
        answer["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(found, ["m2"], "{answer}");
    assert!(home.files_containing("Tokio").is_empty());
    assert_eq!(
        std::fs::read_to_string(home.path().join("docs/FORMAT")).unwrap(),
        "ferrex documents 2\n"
    );
    client.close().await;
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn peers_and_sync_status_on_a_home_never_used_show_this_device_alone() {
    // As a person's first command may be: nothing of the home exists yet.
    let parent = TestHome::named("parent");
    let fresh = parent.path().join("never-used");
    for command in [&["peers", "--json"][..], &["sync", "status", "--json"]] {
        let output = std::process::Command::new(ferrex_tests::ferrex_bin())
            .arg("--home")
            .arg(&fresh)
            .args(command)
            .current_dir(parent.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{command:?}: {stderr}");
        let status: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(status["running"], false, "{status}");
        assert_eq!(status["peers"], json!([]), "{status}");
        assert!(status["device"]["id"].as_str().is_some_and(|id| id.len() == 64), "{status}");
    }
    assert!(fresh.join("device.key").exists(), "this device was not made");
}
