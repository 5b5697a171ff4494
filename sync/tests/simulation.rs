//! Deterministic simulation of the sync protocol between replicas, without
//! a network: seeded random writes, forgets and evidence on three replicas
//! whose clocks disagree (each device's clock is off by up to a day),
//! messages delivered in random interleavings across documents, duplicated,
//! reordered and dropped one by one, connections dropped mid-exchange
//! (states resumed from their shared heads, as a reconnect does),
//! partitions, and devices restarted from their files mid-exchange; then the
//! links heal and everything must converge: equal heads, equal live
//! memories read field by field (text, evidence, times), no forgotten
//! memory alive, nothing lost or invented, and the same after a reopen.
//!
//! `cargo test -p ferrex-sync --test simulation` runs 12 seeds;
//! `FERREX_SIM_SEEDS=10000` (in release mode: `cargo test --release`) runs
//! that many, `FERREX_SIM_FIRST=K` starts at seed number K, and
//! `FERREX_SIM_SEED=S` replays the one seed a failure names.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_core::{Namespace, Timestamp};
use ferrex_sync::{
    NewMemory, Replica, ReplicaOptions,
    sim::{self, Network, Rng},
};

fn memory(id: String, device: &str, at: i64) -> NewMemory {
    let text = format!("memory {id} written by {device}");
    NewMemory::episode(id, text, device, Timestamp(at))
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let devices = ["laptop", "server", "desktop"];
    let mut replicas: Vec<Replica> =
        dirs.iter().zip(devices).map(|(dir, device)| open(dir, device)).collect();
    // Each device's clock is off by up to a day either way.
    let skew: Vec<i64> = (0..3).map(|_| rng.below(2 * DAY + 1) as i64 - DAY as i64).collect();
    let namespaces = [Namespace::default(), Namespace::parse("work").unwrap()];
    let mut network = Network::full_mesh(3);
    let mut ledger = sim::Ledger::default();

    for step in 0..400 {
        let node = rng.below(3);
        let now = Timestamp(1_700_000_000_000 + step * 1_000 + skew[node]);
        match rng.below(10) {
            0..=3 => {
                let id = format!("m{step}-{}", devices[node]);
                let namespace = &namespaces[rng.below(2)];
                ledger.write(&replicas[node], namespace, memory(id, devices[node], now.0), now);
            }
            4 if ledger.any_written() => ledger.forget_one(&replicas[node], &mut rng, now),
            5 if ledger.any_written() => ledger.add_evidence_to_one(&replicas[node], &mut rng, now),
            6 => network.disturb(&mut rng),
            7 if rng.chance(20) => {
                // A device restarts from its files: its connections drop,
                // messages to and from it are lost.
                let node = rng.below(3);
                replicas[node] = open(&dirs[node], devices[node]);
                network.restarted(node);
            }
            8 => {
                // Its documents leave memory, as an idle node's do, and
                // are loaded again by whatever needs them next.
                replicas[node].unload_idle(std::time::Duration::ZERO);
            }
            _ => {}
        }
        // Some traffic on the links that are up, in random order.
        network.traffic(&replicas, &mut rng);
    }

    // Heal, and everything must agree.
    let expected = ledger.expected();
    if let Err(difference) = sim::converge(&mut network, &replicas, &expected) {
        panic!("seed {seed}: {difference}");
    }
    // And it survives a reopen from disk.
    drop(replicas);
    for (dir, device) in dirs.iter().zip(devices) {
        let reopened = open(dir, device);
        assert_eq!(sim::live_memories(&reopened), expected, "seed {seed}: lost on reopen");
    }
}

const DAY: usize = 86_400_000;

fn open(dir: &tempfile::TempDir, device: &str) -> Replica {
    Replica::open(
        dir.path(),
        device,
        ReplicaOptions { shard_capacity: 15, ..ReplicaOptions::default() },
    )
    .unwrap()
}

#[test]
fn replicas_converge_under_random_interleavings_faults_restarts_and_skew() {
    sim::run_seeds(
        &sim::seeds("FERREX_SIM", 12),
        "FERREX_SIM_SEED={seed} cargo test --release -p ferrex-sync --test simulation",
        run,
    );
}
