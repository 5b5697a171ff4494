//! Crash loops across devices: three paired `ferrex` processes on loopback,
//! two of them storing large notes (with a compaction threshold of 16 KiB,
//! their logs and the server's outgrow it every few notes, so kills land
//! before, during and after compactions), while the server, which
//! merges both, is SIGKILLed mid-exchange every round, and a writer too
//! every other round. Afterwards no acknowledged write is lost anywhere and
//! all three devices hold equal documents.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use ferrex_tests::{Client, TestHome, eventually};
use serde_json::{Value, json};

const ROUNDS: usize = 5;
const PER_ROUND: usize = 12;

/// Words for notes that differ in meaning (near-duplicates are not stored).
const WORDS: [&str; 40] = [
    "kernel",
    "invoice",
    "garden",
    "violin",
    "satellite",
    "harbour",
    "compiler",
    "recipe",
    "glacier",
    "tram",
    "ledger",
    "orchid",
    "turbine",
    "novel",
    "canyon",
    "pixel",
    "saddle",
    "lantern",
    "quarry",
    "sonnet",
    "meadow",
    "reactor",
    "bakery",
    "comet",
    "ferry",
    "helmet",
    "island",
    "jacket",
    "magnet",
    "nectar",
    "oyster",
    "pepper",
    "quartz",
    "ribbon",
    "signal",
    "thunder",
    "umbrella",
    "velvet",
    "walnut",
    "zeppelin",
];

/// A note of about 6 KB: a marker word found in no other note, then
/// sentences of words picked by `seed`.
fn note(marker: &str, seed: usize) -> String {
    let mut state = (seed as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut word = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        WORDS[(state % WORDS.len() as u64) as usize]
    };
    let mut text = format!("Note {marker}.");
    while text.len() < 6_000 {
        let sentence: Vec<&str> = (0..80).map(|_| word()).collect();
        text.push(' ');
        text.push_str(&sentence.join(" "));
        text.push('.');
    }
    text
}

/// Stores `PER_ROUND` notes through `client` into `namespace`; returns the
/// ids acknowledged (a store interrupted by the node's death is not).
async fn write_round(client: Arc<Client>, namespace: String, round: usize) -> Vec<String> {
    let mut acknowledged = Vec::new();
    for index in 0..PER_ROUND {
        let marker = format!("{namespace}r{round}n{index}");
        let content = note(&marker, round * 1_000 + index + namespace.len() * 100_000);
        match client.call("store", json!({"content": content, "namespace": namespace})).await {
            Ok(Ok(answer)) => acknowledged.push(answer["id"].as_str().unwrap().to_owned()),
            _ => break,
        }
    }
    acknowledged
}

/// Every memory of a small namespace (see `lifecycle.rs`).
async fn recall_all(client: &Client, namespace: &str) -> BTreeSet<String> {
    client.recall_ids("note", namespace, 200).await.into_iter().collect()
}

fn heads(home: &TestHome) -> Value {
    home.sync_status_json()["documents"].clone()
}

/// A home for the device `name` whose documents compact once their log
/// passes 16 KiB (three notes), so that every device surely compacts each
/// namespace several times while it is being killed, however many stores a
/// round's kills let through (at the default 256 KiB, whether it did at all
/// depended on timing).
fn compacting_home(name: &str) -> TestHome {
    TestHome::with_config(&format!(
        "[node]\nname = \"{name}\"\n[memory]\ncompact_log_bytes = 16384\n"
    ))
}

#[tokio::test]
async fn devices_killed_during_merges_and_compactions_lose_nothing_and_converge() {
    let server = compacting_home("server");
    let laptop = compacting_home("laptop");
    let desktop = compacting_home("desktop");
    assert!(laptop.join(&server.invite()).0);
    assert!(desktop.join(&server.invite()).0);
    let mut acknowledged: [BTreeSet<String>; 2] = Default::default();
    let namespaces = ["crash-laptop", "crash-desktop"];

    for round in 0..ROUNDS {
        let server_client = server.client().await;
        let writers = [Arc::new(laptop.client().await), Arc::new(desktop.client().await)];
        let tasks: Vec<_> = writers
            .iter()
            .zip(namespaces)
            .map(|(client, namespace)| {
                tokio::spawn(write_round(client.clone(), namespace.to_owned(), round))
            })
            .collect();
        // The server dies while it merges what the writers send; every
        // other round the laptop dies too, in the middle of its stores.
        let killer = {
            let (server_home, laptop_home) = (server.path().to_owned(), laptop.path().to_owned());
            tokio::task::spawn_blocking(move || {
                std::thread::sleep(Duration::from_millis(300 + 250 * (round as u64 % 4)));
                kill(&server_home);
                if round % 2 == 1 {
                    std::thread::sleep(Duration::from_millis(200));
                    kill(&laptop_home);
                }
            })
        };
        for (task, ids) in tasks.into_iter().zip(&mut acknowledged) {
            ids.extend(
                tokio::time::timeout(Duration::from_secs(120), task).await.unwrap().unwrap(),
            );
        }
        killer.await.unwrap();
        drop(server_client);
        drop(writers);
    }

    // Everyone back up: every acknowledged note reaches every device, and
    // the documents end equal.
    let clients = [server.client().await, laptop.client().await, desktop.client().await];
    assert!(acknowledged.iter().all(|ids| ids.len() >= ROUNDS), "too few stores landed");
    for (client, name) in clients.iter().zip(["server", "laptop", "desktop"]) {
        for (namespace, ids) in namespaces.iter().zip(&acknowledged) {
            let complete = eventually(Duration::from_secs(90), || async {
                let present = recall_all(client, namespace).await;
                ids.is_subset(&present).then_some(present.len())
            })
            .await;
            let present = recall_all(client, namespace).await;
            let missing: Vec<&String> = ids.difference(&present).collect();
            assert!(
                complete.is_some(),
                "{name} lacks acknowledged notes of {namespace}: {missing:?}"
            );
            // A store cut off by a kill may have landed unacknowledged.
            assert!(present.len() <= ids.len() + ROUNDS, "{name}: {namespace} holds extra notes");
        }
    }
    let equal = eventually(Duration::from_secs(60), || async {
        let all = [heads(&server), heads(&laptop), heads(&desktop)];
        (all[0] == all[1] && all[1] == all[2]).then_some(())
    })
    .await;
    assert!(
        equal.is_some(),
        "documents differ: {} / {} / {}",
        heads(&server),
        heads(&laptop),
        heads(&desktop)
    );
    for client in clients {
        client.close().await;
    }
    // The logs did outgrow the threshold: every device compacted each
    // namespace's document at least once during the kills.
    for home in [&server, &laptop, &desktop] {
        for namespace in namespaces {
            let snapshot = home.path().join(format!("docs/ns.{namespace}.0/snapshot"));
            assert!(snapshot.exists(), "{} was never compacted", snapshot.display());
        }
    }
}

/// SIGKILLs the node of the home at `path`, if it runs.
fn kill(path: &std::path::Path) {
    let Ok(pid) = std::fs::read_to_string(path.join("node.pid")) else { return };
    let pid = pid.trim().to_owned();
    let _ = std::process::Command::new("kill").args(["-9", &pid]).status();
    if let Ok(pid) = pid.parse() {
        // A killed process ends once every thread leaves the kernel; one in
        // an uninterruptible wait (a sync to a busy disk) holds it up.
        assert!(
            ferrex_tests::wait_for_exit(pid, Duration::from_secs(60)),
            "node {pid} still runs 60 s after SIGKILL; its threads: {}",
            ferrex_tests::thread_states(pid)
        );
    }
}
