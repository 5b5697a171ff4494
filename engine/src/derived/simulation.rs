//! Invariant 2 under simulation: replicas that reach equal heads answer
//! searches equally, whatever order their changes arrived in and whatever
//! went wrong on the way.
//!
//! Three devices, their clocks off by up to a day, write, forget and add
//! evidence in two namespaces while their sync messages go through
//! `ferrex_sync::sim`'s faulty links: delivered in random interleavings
//! across documents, duplicated, swapped, lost, connections dropped
//! mid-exchange, partitions, and devices restarted from their files (the
//! replica and its index reopened) mid-exchange. Each device's index
//! catches up from its documents now and then (`indexer::catch_up_all`,
//! as a node does at start; a running node also indexes each merged change
//! as it arrives, which this simulation does not), so row ids differ
//! between them. Then the links heal and everything must agree: equal
//! heads, the same live memories read field by field, nothing lost,
//! invented or forgotten-but-alive; and every index, brought up to date and
//! embedded with a deterministic test embedder (word hashing, no model),
//! answers the same queries with the same ids in the same order by sign
//! bits (the default), by the exact scan and by keywords, in both
//! namespaces, as does a rebuild from scratch.
//!
//! `cargo test -p ferrex-engine derived::simulation` runs 24 seeds;
//! `FERREX_DERIVED_SEEDS=10000` (in release mode) runs that many,
//! `FERREX_DERIVED_FIRST=K` starts at seed number K, and
//! `FERREX_DERIVED_SEED=S` replays the one seed a failure names.

use std::sync::Mutex;

use std::path::Path;

use ferrex_core::{Embedder, Namespace, Timestamp};
use ferrex_sync::{
    NewMemory, Replica, ReplicaOptions,
    sim::{self, Network, Rng},
};

use crate::{
    derived::embedding, derived::index::Index, derived::indexer, testing::WordHashTestEmbedder,
};

const WORDS: [&str; 24] = [
    "deploy",
    "database",
    "migration",
    "alice",
    "bob",
    "rust",
    "python",
    "cache",
    "index",
    "release",
    "bug",
    "fix",
    "port",
    "server",
    "laptop",
    "backup",
    "token",
    "review",
    "meeting",
    "tuesday",
    "config",
    "timeout",
    "memory",
    "sync",
];

/// Brings `index` up to date with `replica` and embeds everything queued.
fn catch_up(index: Index, replica: &Replica) -> Index {
    let mut index = index;
    indexer::catch_up_all(&mut index, replica).unwrap();
    let index = Mutex::new(index);
    let mut embedder = WordHashTestEmbedder;
    while embedding::embed_queued(&index, &mut embedder, 64, |_| {}, &|| false, None).unwrap() > 0 {
    }
    index.into_inner().unwrap()
}

/// What every search answers on `index`, as ids in order.
fn answers(index: &Index, queries: &[String], namespaces: &[Namespace]) -> Vec<Vec<String>> {
    let mut embedder = WordHashTestEmbedder;
    let mut all = Vec::new();
    for (query, namespace) in
        queries.iter().flat_map(|query| namespaces.iter().map(move |ns| (query, ns.as_str())))
    {
        let vector = embedder.embed_one(query).unwrap();
        let ids = |found: Vec<(String, f64)>| found.into_iter().map(|(id, _)| id).collect();
        all.push(ids(index.dense_best(&vector, namespace, &[], 10).unwrap()));
        // Few candidates: ties at the limit decide what is rescored.
        all.push(ids(index.dense_best(&vector, namespace, &[], 2).unwrap()));
        all.push(ids(index.near(&vector, namespace, &[], 1).unwrap()));
        all.push(ids(index.dense_best_exact(&vector, namespace, &[], 10).unwrap()));
        all.push(ids(index.text(query, namespace, &[], 10).unwrap()));
    }
    all
}

/// A memory's text: a few of [`WORDS`], and now and then a second
/// sentence, so passages are searched too.
fn text(rng: &mut Rng) -> String {
    let words: Vec<&str> = (0..3 + rng.below(5)).map(|_| WORDS[rng.below(WORDS.len())]).collect();
    if rng.below(3) == 0 {
        let reversed: Vec<&str> = words.iter().rev().copied().collect();
        format!("{}. Then {}.", words.join(" "), reversed.join(" "))
    } else {
        words.join(" ")
    }
}

fn open_replica(dir: &Path, device: &str) -> Replica {
    Replica::open(dir, device, ReplicaOptions { shard_capacity: 40, ..ReplicaOptions::default() })
        .unwrap()
}

fn open_index(path: &Path) -> Index {
    Index::open(path, "word-hash-test", 64).unwrap().0
}

const DAY: usize = 86_400_000;

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let temp = tempfile::tempdir().unwrap();
    let devices = ["laptop", "server", "desktop"];
    let dirs: Vec<_> = devices.iter().map(|device| temp.path().join(device)).collect();
    let index_paths: Vec<_> =
        devices.iter().map(|device| temp.path().join(format!("{device}.sqlite"))).collect();
    let mut replicas: Vec<Replica> =
        dirs.iter().zip(devices).map(|(dir, device)| open_replica(dir, device)).collect();
    let mut indexes: Vec<Option<Index>> =
        index_paths.iter().map(|path| Some(open_index(path))).collect();
    // Each device's clock is off by up to a day either way.
    let skew: Vec<i64> = (0..3).map(|_| rng.below(2 * DAY + 1) as i64 - DAY as i64).collect();
    let namespaces = [Namespace::default(), Namespace::parse("work").unwrap()];
    let mut network = Network::full_mesh(3);
    let mut ledger = sim::Ledger::default();
    for step in 0..200_i64 {
        let node = rng.below(3);
        let now = Timestamp(1_700_000_000_000 + step * 1_000 + skew[node]);
        match rng.below(12) {
            0..=4 => {
                let id = format!("m{step:03}-{}", devices[node]);
                let namespace = &namespaces[rng.below(2)];
                let memory = NewMemory::episode(id, text(&mut rng), devices[node], now);
                ledger.write(&replicas[node], namespace, memory, now);
            }
            5 if ledger.any_written() => ledger.forget_one(&replicas[node], &mut rng, now),
            6 if ledger.any_written() => ledger.add_evidence_to_one(&replicas[node], &mut rng, now),
            7 => network.disturb(&mut rng),
            8 if rng.chance(20) => {
                // The device restarts from its files mid-exchange: replica
                // and index reopened, connections dropped.
                drop(indexes[node].take());
                replicas[node] = open_replica(&dirs[node], devices[node]);
                indexes[node] = Some(open_index(&index_paths[node]));
                network.restarted(node);
            }
            9 | 10 => {
                // The device's index catches up, as a running node's does.
                let index = indexes[node].take().unwrap();
                indexes[node] = Some(catch_up(index, &replicas[node]));
            }
            _ => {}
        }
        network.traffic(&replicas, &mut rng);
    }

    let expected = ledger.expected();
    if let Err(difference) = sim::converge(&mut network, &replicas, &expected) {
        panic!("seed {seed}: {difference}");
    }

    let queries: Vec<String> = (0..8)
        .map(|_| (0..3).map(|_| WORDS[rng.below(WORDS.len())]).collect::<Vec<_>>().join(" "))
        .collect();
    let indexes: Vec<Index> = indexes
        .into_iter()
        .zip(&replicas)
        .map(|(index, replica)| catch_up(index.unwrap(), replica))
        .collect();
    let found: Vec<Vec<Vec<String>>> =
        indexes.iter().map(|index| answers(index, &queries, &namespaces)).collect();
    assert!(found[0].iter().any(|ids| !ids.is_empty()), "seed {seed}: nothing was found");
    for ids in found[0].iter().flatten() {
        assert!(expected.contains(ids), "seed {seed}: {ids} was found but is not alive");
    }
    assert_eq!(found[0], found[1], "seed {seed}: laptop and server answer differently");
    assert_eq!(found[1], found[2], "seed {seed}: server and desktop answer differently");
    // And a rebuild from scratch answers the same.
    let rebuilt = catch_up(open_index(&temp.path().join("rebuilt.sqlite")), &replicas[2]);
    assert_eq!(
        answers(&rebuilt, &queries, &namespaces),
        found[0],
        "seed {seed}: a rebuild answers differently"
    );
}

#[test]
fn replicas_with_equal_heads_answer_equally_whatever_the_order_of_their_changes_and_faults() {
    sim::run_seeds(
        &sim::seeds("FERREX_DERIVED", 24),
        "FERREX_DERIVED_SEED={seed} cargo test --release -p ferrex-engine derived::simulation",
        run,
    );
}
