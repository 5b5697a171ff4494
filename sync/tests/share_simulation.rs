//! Deterministic simulation of a shared project between three people's
//! devices (five members, without a network): Ann's laptop and server and
//! Bob's laptop and desktop write into the share and into their own
//! projects, Carol's device reads the share and, as a device modified to
//! ignore its role would, writes and forgets in its own copy of it; Carol's
//! tablet, removed from the share, syncs her own project with her device. Sessions
//! carry what a node's do (`Scope`): everything between a person's own
//! devices, the share alone between people, read-only toward the reader.
//! Messages are reordered, duplicated and dropped, links drop and partition,
//! devices restart from their files; then the links heal and:
//!
//! - Ann's and Bob's devices hold the share alike: equal heads, exactly the
//!   memories the writers left alive, each read alike;
//! - Carol holds every change of theirs, and none of hers reached them;
//! - the tablet never gets the share, and Carol's project is alike on her
//!   two devices;
//! - each person's own project is on that person's devices only.
//!
//! `cargo test -p ferrex-sync --test share_simulation` runs 8 seeds;
//! `FERREX_SHARE_SIM_SEEDS=N`, `FERREX_SHARE_SIM_FIRST=K` and
//! `FERREX_SHARE_SIM_SEED=S` work as for the simulation of one person's
//! devices (`tests/simulation.rs`).

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::collections::BTreeSet;

use ferrex_core::{Namespace, Timestamp};
use ferrex_sync::{
    DocId, NewMemory, NewRecords, Replica, ReplicaOptions, Scope,
    sim::{self, Network, Rng},
};

const DEVICES: [&str; 6] =
    ["ann-laptop", "ann-server", "bob-laptop", "bob-desktop", "carol", "carol-tablet"];
/// Whose device each is: Ann 0, Bob 1, Carol 2.
const PERSON: [usize; 6] = [0, 0, 1, 1, 2, 2];
const CAROL: usize = 4;
/// Carol's tablet: paired with her device, and no member of the share (it
/// was removed), so her device's session with it withholds the share.
const TABLET: usize = 5;

fn open(dir: &tempfile::TempDir, device: &str) -> Replica {
    Replica::open(
        dir.path(),
        device,
        ReplicaOptions { shard_capacity: 15, ..ReplicaOptions::default() },
    )
    .unwrap()
}

fn memory(id: &str, device: &str, at: i64) -> NewMemory {
    NewMemory::episode(id, format!("memory {id} written by {device}"), device, Timestamp(at))
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let dirs: Vec<tempfile::TempDir> = (0..6).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut replicas: Vec<Replica> =
        dirs.iter().zip(DEVICES).map(|(dir, device)| open(dir, device)).collect();
    let share = Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap();
    let own = [
        Namespace::parse("ann-work").unwrap(),
        Namespace::parse("bob-work").unwrap(),
        Namespace::parse("carol-work").unwrap(),
    ];
    let member = |read_only| Scope::Share { namespace: share.clone(), read_only };
    let mut network = Network::scoped(vec![
        (0, 1, Scope::own(), Scope::own()),
        (2, 3, Scope::own(), Scope::own()),
        (0, 2, member(false), member(false)),
        (1, 3, member(false), member(false)),
        // The reader: its peers take none of its changes.
        (0, CAROL, member(true), member(false)),
        (3, CAROL, member(true), member(false)),
        (
            CAROL,
            TABLET,
            Scope::Own { withheld: BTreeSet::from([share.clone()]), read_only: BTreeSet::new() },
            Scope::own(),
        ),
    ]);
    let mut written = sim::Ledger::default();
    let mut carol_wrote = BTreeSet::new();
    let mut carol_forgot = BTreeSet::new();

    for step in 0..400 {
        let node = rng.below(6);
        let device = DEVICES[node];
        let now = Timestamp(1_700_000_000_000 + step * 1_000);
        let id = format!("m{step}-{device}");
        match rng.below(10) {
            0..=2 if node != CAROL && node != TABLET => {
                written.write(&replicas[node], &share, memory(&id, device, now.0), now);
            }
            3 => {
                let records = NewRecords {
                    memories: vec![memory(&id, device, now.0)],
                    ..NewRecords::default()
                };
                replicas[node].write_new(&own[PERSON[node]], now, &records).unwrap();
            }
            4 if node < CAROL && written.any_written() => {
                written.forget_one(&replicas[node], &mut rng, now);
            }
            5 if node == CAROL => {
                // Carol writes into her copy of the share anyway, and
                // forgets what she can see of it.
                let records = NewRecords {
                    memories: vec![memory(&id, device, now.0)],
                    ..NewRecords::default()
                };
                replicas[CAROL].write_new(&share, now, &records).unwrap();
                carol_wrote.insert(id);
                let seen: Vec<String> = sim::live_in(&replicas[CAROL], &share)
                    .into_iter()
                    .filter(|id| !carol_wrote.contains(id))
                    .collect();
                if !seen.is_empty() {
                    let target = seen[rng.below(seen.len())].clone();
                    let outcome = replicas[CAROL].forget(&[target], now).unwrap();
                    carol_forgot.extend(outcome.forgotten);
                }
            }
            6 => network.disturb(&mut rng),
            7 if rng.chance(20) => {
                replicas[node] = open(&dirs[node], device);
                network.restarted(node);
            }
            8 => {
                replicas[node].unload_idle(std::time::Duration::ZERO);
            }
            _ => {}
        }
        network.traffic(&replicas, &mut rng);
    }

    assert!(network.heal(&replicas, 200), "seed {seed}: the replicas never went quiet");
    network.exchange_keys(&replicas);
    let expected = written.expected();
    let writers = 0..4;
    // The share: alike on every writer's device (a shard a device has not
    // made is as its genesis: a reader's shard it was offered and refused).
    let heads_of = |replica: &Replica, doc: &DocId| {
        replica.heads(doc).unwrap_or_else(|_| ferrex_sync::schema::genesis(doc).get_heads())
    };
    let shards: BTreeSet<DocId> =
        writers.clone().flat_map(|node| replicas[node].shards(&share)).collect();
    for doc in shards {
        let heads = heads_of(&replicas[0], &doc);
        for other in writers.clone() {
            assert_eq!(heads_of(&replicas[other], &doc), heads, "seed {seed}: {doc} differs");
        }
        assert!(
            replicas[CAROL].knows_heads(&doc, &heads),
            "seed {seed}: the reader lacks changes of {doc}"
        );
    }
    for node in writers.clone() {
        let live = sim::live_in(&replicas[node], &share);
        assert_eq!(
            live, expected,
            "seed {seed}: {} holds the share unlike the ledger",
            DEVICES[node]
        );
        assert!(live.is_disjoint(&carol_wrote), "seed {seed}: a reader's write was taken");
    }
    for id in &expected {
        let read: Vec<String> = writers
            .clone()
            .map(|node| {
                let doc = replicas[node].locate(id).unwrap();
                format!("{:?}", replicas[node].read(&doc, |reader| reader.memory(id)).unwrap())
            })
            .collect();
        assert!(
            read.iter().all(|r| *r == read[0]) && read[0].starts_with("Some"),
            "seed {seed}: {id} reads differently or not at all: {read:?}"
        );
    }
    // The reader has every memory the writers left alive, but those it
    // forgot in its own copy.
    let at_carol = sim::live_in(&replicas[CAROL], &share);
    for id in expected.difference(&carol_forgot) {
        assert!(at_carol.contains(id), "seed {seed}: the reader lacks {id}");
    }
    // The tablet never got the share; Carol's own project is alike on both.
    assert!(replicas[TABLET].shards(&share).is_empty(), "seed {seed}: the tablet holds the share");
    for doc in replicas[CAROL].shards(&own[2]) {
        assert_eq!(
            heads_of(&replicas[CAROL], &doc),
            heads_of(&replicas[TABLET], &doc),
            "seed {seed}: {doc} differs between Carol's devices"
        );
    }
    // Each person's own project stays on that person's devices.
    for (node, replica) in replicas.iter().enumerate() {
        for (person, namespace) in own.iter().enumerate() {
            let held: Vec<DocId> = replica.shards(namespace);
            assert!(
                person == PERSON[node] || held.is_empty(),
                "seed {seed}: {} holds {namespace}",
                DEVICES[node]
            );
        }
    }
}

#[test]
fn three_peoples_devices_converge_on_a_share_and_keep_the_rest_to_themselves() {
    sim::run_seeds(
        &sim::seeds("FERREX_SHARE_SIM", 8),
        "FERREX_SHARE_SIM_SEED={seed} cargo test --release -p ferrex-sync --test share_simulation",
        run,
    );
}
