//! The replica against real files: durability, forgetting, shards, and
//! documents written by earlier versions.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{fs, path::Path};

use ferrex_core::{Content, Edge, EdgeKind, Entity, MemoryKind, Namespace, Timestamp, Triple};
use ferrex_sync::{DocId, NewMemory, NewRecords, Replica, ReplicaOptions};

fn memory(id: &str, text: &str) -> NewMemory {
    NewMemory {
        confidence: 0.9,
        source: Some("test".into()),
        tags: vec!["a".into(), "b".into()],
        ..NewMemory::episode(id, text, "device-a", Timestamp(1_000))
    }
}

/// The fact `api-server / port / 8080`, its subject resolved to `entity-1`.
fn port_fact(id: &str) -> NewMemory {
    NewMemory {
        kind: MemoryKind::Semantic,
        content: Content::Triple(Triple {
            subject: "api-server".into(),
            predicate: "port".into(),
            object: "8080".into(),
        }),
        subject_entity: Some("entity-1".into()),
        ..memory(id, "")
    }
}

fn open(dir: &Path, capacity: usize) -> Replica {
    Replica::open(
        dir,
        "device-a",
        ReplicaOptions { shard_capacity: capacity, ..ReplicaOptions::default() },
    )
    .unwrap()
}

fn store(replica: &Replica, namespace: &Namespace, memories: Vec<NewMemory>) {
    replica
        .write_new(namespace, Timestamp(1_000), &NewRecords { memories, ..Default::default() })
        .unwrap();
}

fn live_ids(replica: &Replica, namespace: &Namespace) -> Vec<String> {
    let mut ids = Vec::new();
    for shard in replica.shards(namespace) {
        ids.extend(replica.read(&shard, |reader| reader.keys("memories")).unwrap());
    }
    ids.sort();
    ids
}

#[test]
fn written_memories_survive_a_reopen_field_by_field() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let replica = open(temp.path(), 100);
    let fact = port_fact("m2");
    store(&replica, &namespace, vec![memory("m1", "first memory"), fact.clone()]);
    drop(replica);

    let replica = open(temp.path(), 100);
    let shard = replica.locate("m2").unwrap();
    let stored = replica.read(&shard, |reader| reader.memory("m2")).unwrap().unwrap();
    assert_eq!(stored.memory.content, fact.content);
    assert_eq!(stored.memory.kind, MemoryKind::Semantic);
    assert_eq!(stored.memory.tags, vec!["a", "b"]);
    assert_eq!(stored.memory.confidence, 0.9);
    assert_eq!(stored.memory.evidence, 1);
    assert_eq!(stored.subject_entity.as_deref(), Some("entity-1"));
    assert_eq!(live_ids(&replica, &namespace), vec!["m1", "m2"]);
}

#[test]
fn forgetting_deletes_writes_a_tombstone_and_reports_unknown_ids() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let replica = open(temp.path(), 100);
    store(&replica, &namespace, vec![memory("m1", "one"), memory("m2", "two")]);
    let outcome =
        replica.forget(&["m1".into(), "nope".into(), "m1".into()], Timestamp(2_000)).unwrap();
    assert_eq!(outcome.forgotten, vec!["m1"]);
    assert_eq!(outcome.unknown, vec!["nope"], "a repeated id is reported once");
    assert_eq!(outcome.changes.len(), 1);
    assert!(outcome.changes[0].keys.forgotten.contains("m1"));
    drop(replica);

    let replica = open(temp.path(), 100);
    assert_eq!(live_ids(&replica, &namespace), vec!["m2"]);
    let shard = DocId::shard(&namespace, 0);
    let tombstone = replica.read(&shard, |reader| reader.tombstone("m1")).unwrap().unwrap();
    assert_eq!((tombstone.at, tombstone.by.as_str()), (Timestamp(2_000), "device-a"));
    assert!(replica.locate("m1").is_none());
}

#[test]
fn a_full_shard_opens_the_next_one() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::parse("work").unwrap();
    let replica = open(temp.path(), 2);
    for index in 0..5 {
        store(&replica, &namespace, vec![memory(&format!("m{index}"), "x")]);
    }
    assert_eq!(
        replica.shards(&namespace),
        (0..3).map(|index| DocId::shard(&namespace, index)).collect::<Vec<_>>()
    );
    assert_eq!(replica.locate("m4"), Some(DocId::shard(&namespace, 2)));
    drop(replica);
    let replica = open(temp.path(), 2);
    assert_eq!(live_ids(&replica, &namespace).len(), 5);
}

#[test]
fn changes_since_old_heads_name_every_touched_key() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let replica = open(temp.path(), 100);
    store(&replica, &namespace, vec![memory("m1", "one")]);
    let shard = DocId::shard(&namespace, 0);
    let before = replica.heads(&shard).unwrap();
    store(&replica, &namespace, vec![memory("m2", "two")]);
    replica.add_evidence("m1", 2, Timestamp(3)).unwrap().unwrap();
    let entity = Entity {
        id: "e1".into(),
        name: "Tokio".into(),
        kind: None,
        created_at: Timestamp(3),
        created_by: "device-a".into(),
    };
    let edge = Edge {
        kind: EdgeKind::Supersedes,
        from: "m2".into(),
        to: "m1".into(),
        created_at: Timestamp(3),
        created_by: "device-a".into(),
    };
    replica
        .write_new(
            &namespace,
            Timestamp(3),
            &NewRecords { entities: vec![entity], edges: vec![edge.clone()], ..Default::default() },
        )
        .unwrap();
    drop(replica);

    let replica = open(temp.path(), 100);
    let (changed, heads) = replica.changes_since(&shard, &before).unwrap();
    let changed = changed.unwrap();
    assert_eq!(changed.memories.iter().collect::<Vec<_>>(), ["m1", "m2"]);
    assert_eq!(changed.entities.iter().collect::<Vec<_>>(), ["e1"]);
    assert_eq!(changed.edges.iter().collect::<Vec<_>>(), [&edge.key()]);
    assert_eq!(heads, replica.heads(&shard).unwrap());
    let evidence = replica.read(&shard, |reader| reader.memory("m1").unwrap().memory.evidence);
    assert_eq!(evidence.unwrap(), 3);

    let unknown = [automerge::ChangeHash([7; 32])];
    assert!(replica.changes_since(&shard, &unknown).unwrap().0.is_none());
}

/// Runs the sync protocol on `doc` from `from` to `to` until quiet;
/// the changes `to` reported merging.
fn sync_doc(from: &Replica, to: &Replica, doc: &DocId) -> Vec<ferrex_sync::DocChange> {
    let (mut state_from, mut state_to) =
        (automerge::sync::State::new(), automerge::sync::State::new());
    let mut merged = Vec::new();
    for _ in 0..20 {
        let to_to = from.generate_sync_message(doc, &mut state_from).unwrap();
        let to_from = to.generate_sync_message(doc, &mut state_to).unwrap();
        if to_to.is_none() && to_from.is_none() {
            break;
        }
        if let Some(message) = to_to {
            merged.extend(to.receive_sync_message(doc, &mut state_to, &message).unwrap());
        }
        if let Some(message) = to_from {
            from.receive_sync_message(doc, &mut state_from, &message).unwrap();
        }
    }
    merged
}

#[test]
fn a_merge_names_every_key_it_touched_into_an_empty_shard_and_a_full_one() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let origin = open(&temp.path().join("origin"), 100);
    store(&origin, &namespace, vec![memory("m1", "one"), memory("m2", "two"), memory("m3", "x")]);
    origin.forget(&["m3".to_owned()], Timestamp(2)).unwrap();
    let shard = DocId::shard(&namespace, 0);

    // Into a shard that holds nothing: every key, forgotten ones too.
    let fresh = Replica::open(
        &temp.path().join("fresh"),
        "device-b",
        ReplicaOptions { shard_capacity: 100, ..ReplicaOptions::default() },
    )
    .unwrap();
    let merged = sync_doc(&origin, &fresh, &shard);
    let keys: Vec<_> = merged.iter().filter(|change| change.doc == shard).collect();
    assert_eq!(keys.len(), 1, "{merged:?}");
    assert_eq!(keys[0].keys.memories.iter().collect::<Vec<_>>(), ["m1", "m2"]);
    assert_eq!(keys[0].keys.forgotten.iter().collect::<Vec<_>>(), ["m3"]);
    assert_eq!(fresh.heads(&shard).unwrap(), origin.heads(&shard).unwrap());

    // Into one that holds records: only what changed.
    store(&origin, &namespace, vec![memory("m4", "four")]);
    origin.add_evidence("m1", 1, Timestamp(3)).unwrap().unwrap();
    let merged = sync_doc(&origin, &fresh, &shard);
    let memories: std::collections::BTreeSet<&String> = merged
        .iter()
        .filter(|change| change.doc == shard)
        .flat_map(|change| &change.keys.memories)
        .collect();
    assert_eq!(memories.into_iter().collect::<Vec<_>>(), ["m1", "m4"]);
}

#[test]
fn a_write_torn_by_a_crash_loses_only_itself() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let replica = open(temp.path(), 100);
    store(&replica, &namespace, vec![memory("m1", "acknowledged")]);
    store(&replica, &namespace, vec![memory("m2", "torn")]);
    drop(replica);
    let log = temp.path().join("ns.default.0").join("log");
    let length = fs::metadata(&log).unwrap().len();
    fs::OpenOptions::new().write(true).open(&log).unwrap().set_len(length - 5).unwrap();

    let replica = open(temp.path(), 100);
    assert_eq!(live_ids(&replica, &namespace), vec!["m1"]);
    store(&replica, &namespace, vec![memory("m3", "after the crash")]);
    drop(replica);
    let replica = open(temp.path(), 100);
    assert_eq!(live_ids(&replica, &namespace), vec!["m1", "m3"]);
}

#[test]
fn compaction_keeps_every_memory() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let replica = open(temp.path(), 10_000);
    let text = "a memory long enough to fill the log quickly ".repeat(40);
    for index in 0..200 {
        store(&replica, &namespace, vec![memory(&format!("m{index:03}"), &text)]);
    }
    drop(replica);
    let shard_dir = temp.path().join("ns.default.0");
    assert!(shard_dir.join("snapshot").exists(), "the log outgrew 256 KiB and was compacted");
    let replica = open(temp.path(), 10_000);
    assert_eq!(live_ids(&replica, &namespace).len(), 200);
}

#[test]
fn a_documents_directory_from_a_newer_ferrex_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("FORMAT"), "ferrex documents 9\n").unwrap();
    let error = Replica::open(temp.path(), "d", ReplicaOptions::default()).unwrap_err();
    assert!(error.to_string().contains("newer ferrex"), "{error}");
}

/// Documents written by ferrex 0.1 (storage format 1, schema 1: memories,
/// tombstones, validation, entities, aliases, every edge kind, and the
/// registry's pairings, devices and revocations) must load in every later
/// version. The fixture is regenerated only by hand:
/// `FERREX_WRITE_FIXTURES=1 cargo test -p ferrex-sync --test replica`.
#[test]
fn documents_written_by_format_1_still_load() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs-v1");
    let namespace = Namespace::parse("fixture").unwrap();
    // The fixture was written by format 1 (commit 84c052f, with
    // FERREX_WRITE_FIXTURES set): three memories m0..m2 of "fixture memory",
    // m0 forgotten, m1 with four more pieces of evidence and validated, an
    // entity Tokio with the alias "tokio runtime" that no memory uses, edges
    // of every kind, a pairing, a device record and a revocation. It is
    // frozen: this code writes format 2.
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&fixture, copy.path());
    let replica = open(copy.path(), 2);
    assert_eq!(live_ids(&replica, &namespace), vec!["m1", "m2"]);
    let shard = replica.locate("m1").unwrap();
    let stored = replica.read(&shard, |reader| reader.memory("m1")).unwrap().unwrap();
    assert_eq!(stored.memory.evidence, 5);
    assert_eq!(stored.memory.content, Content::Text("fixture memory".into()));
    assert_eq!(stored.memory.last_validated(), Some(Timestamp(8_000)));
    let (entities, aliases, edges) = replica
        .shards(&namespace)
        .iter()
        .map(|shard| {
            replica
                .read(shard, |reader| {
                    let entities: Vec<_> = reader
                        .keys("entities")
                        .iter()
                        .filter_map(|key| reader.entity(key).found())
                        .collect();
                    let aliases: Vec<_> = reader
                        .keys("aliases")
                        .iter()
                        .filter_map(|key| reader.alias(key).found())
                        .collect();
                    let edges: Vec<_> =
                        reader.keys("edges").iter().filter_map(|key| reader.edge(key)).collect();
                    (entities, aliases, edges)
                })
                .unwrap()
        })
        .fold((vec![], vec![], vec![]), |mut all, (e, a, d)| {
            all.0.extend(e);
            all.1.extend(a);
            all.2.extend(d);
            all
        });
    // The upgrade to format 2 keeps only what live memories use: no memory
    // of the fixture mentions Tokio, so its name and alias are gone, from
    // the records and from every file.
    assert!(entities.is_empty(), "{entities:?}");
    assert!(aliases.is_empty(), "{aliases:?}");
    for needle in ["Tokio", "tokio runtime"] {
        assert_eq!(files_containing(copy.path(), needle.as_bytes()), Vec::<String>::new());
    }
    assert!(replica.upgrade().is_some_and(|upgrade| upgrade.purged == 1 && upgrade.memories == 2));
    let mut kinds: Vec<EdgeKind> = edges.iter().map(|edge| edge.kind.clone()).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [EdgeKind::Supersedes, EdgeKind::SameAs, EdgeKind::Corrects, EdgeKind::AliasCandidate]
    );
    let registry = replica.registry();
    assert!(registry.is_paired("device-b"));
    assert!(registry.is_revoked("device-c"));
    assert_eq!(registry.name_of("device-a").as_deref(), Some("laptop"));
    assert_eq!(registry.addrs_of("device-a"), vec!["127.0.0.1:7650".parse().unwrap()]);
}

/// The files under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if fs::read(&path).unwrap().windows(needle.len()).any(|window| window == needle) {
            found.push(path.display().to_string());
        }
    }
    found
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn an_archive_restores_into_an_empty_replica_as_it_was_and_only_once() {
    use ferrex_core::{AccessStat, Alias};
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::parse("work").unwrap();
    let source = open(&temp.path().join("source"), 2);
    let entity = Entity {
        id: "entity-1".into(),
        name: "api-server".into(),
        kind: Some("service".into()),
        created_at: Timestamp(500),
        created_by: "device-a".into(),
    };
    let alias = Alias {
        entity_id: "entity-1".into(),
        name: "the api".into(),
        method: "fuzzy".into(),
        created_at: Timestamp(600),
        created_by: "device-b".into(),
    };
    let fact = NewMemory { entity_ids: vec!["entity-1".into()], ..port_fact("fact") };
    let edge = Edge {
        kind: EdgeKind::Supersedes,
        from: "fact".into(),
        to: "old".into(),
        created_at: Timestamp(700),
        created_by: "device-b".into(),
    };
    source
        .write_new(
            &namespace,
            Timestamp(1_000),
            &NewRecords {
                memories: vec![fact, memory("old", "the old note"), memory("gone", "forget me")],
                entities: vec![entity],
                aliases: vec![alias],
                edges: vec![edge],
            },
        )
        .unwrap();
    // Counters grow after the write: evidence, validations, access.
    source.add_evidence("old", 2, Timestamp(2_000)).unwrap();
    source.validate(&["fact".into()], Timestamp(3_000)).unwrap();
    let access = [("fact".to_owned(), AccessStat { count: 4, last: Some(Timestamp(4_000)) })];
    source.fold_access(&access.into_iter().collect(), Timestamp(4_000)).unwrap();
    source.forget(&["gone".into()], Timestamp(5_000)).unwrap();
    let archive = source.archive(&namespace).unwrap();
    let ids: Vec<&str> = archive.memories.iter().map(|m| m.memory.id.as_str()).collect();
    assert_eq!(ids, vec!["fact", "old"], "forgotten memories are not archived");
    assert_eq!(archive.memories[1].memory.evidence, 3);
    assert_eq!(archive.entities.len(), 1);
    assert_eq!(archive.aliases.len(), 1);
    assert_eq!(archive.edges.len(), 1);

    // Another device's replica, empty: everything comes back as it was.
    let target =
        Replica::open(&temp.path().join("target"), "device-c", ReplicaOptions::default()).unwrap();
    let (change, restored) = target.restore(&namespace, Timestamp(9_000), &archive).unwrap();
    assert!(change.is_some());
    assert_eq!(
        (restored.memories, restored.entities, restored.aliases, restored.edges),
        (2, 1, 1, 1)
    );
    assert_eq!(target.archive(&namespace).unwrap(), archive);
    // Again: nothing new.
    let (change, again) = target.restore(&namespace, Timestamp(9_500), &archive).unwrap();
    assert!(change.is_none(), "{again:?}");
    assert_eq!(again.existing, 5);
    // A memory forgotten here is not brought back, nor is the edge to it,
    // also into another namespace.
    target.forget(&["old".into()], Timestamp(10_000)).unwrap();
    let (_, after) = target.restore(&namespace, Timestamp(11_000), &archive).unwrap();
    assert_eq!((after.memories, after.forgotten), (0, 2), "the memory and the edge to it");
    let elsewhere = Namespace::parse("elsewhere").unwrap();
    let (_, moved) = target.restore(&elsewhere, Timestamp(11_500), &archive).unwrap();
    assert_eq!((moved.memories, moved.edges, moved.forgotten), (0, 0, 2), "{moved:?}");
    // Nor is it after the target reopens.
    drop(target);
    let target =
        Replica::open(&temp.path().join("target"), "device-c", ReplicaOptions::default()).unwrap();
    let ids: Vec<String> =
        target.archive(&namespace).unwrap().memories.into_iter().map(|m| m.memory.id).collect();
    assert_eq!(ids, vec!["fact"]);
}

/// Full shards leave memory when the replica opens, and whatever needs one
/// loads it again as it was; heads and figures are answered without loading
/// it, and a store that uses none of its entities leaves it on disk.
#[test]
fn unloaded_shards_answer_as_loaded_ones_and_load_only_when_needed() {
    let temp = tempfile::tempdir().unwrap();
    let namespace = Namespace::default();
    let entity = Entity {
        id: "entity-1".into(),
        name: "api-server".into(),
        kind: None,
        created_at: Timestamp(500),
        created_by: "device-a".into(),
    };
    let replica = open(temp.path(), 2);
    replica
        .write_new(
            &namespace,
            Timestamp(1_000),
            &NewRecords {
                memories: vec![port_fact("m0"), memory("m1", "one")],
                entities: vec![entity],
                ..Default::default()
            },
        )
        .unwrap();
    let full = DocId::shard(&namespace, 0);
    let (heads, stats) = (replica.heads(&full).unwrap(), replica.stats());
    assert!(replica.unloaded().is_empty(), "nothing unloads while it is in use");
    drop(replica);

    let replica = open(temp.path(), 2);
    assert_eq!(replica.unloaded(), vec![full.clone()], "the full shard waits on disk");
    assert_eq!(replica.heads(&full).unwrap(), heads);
    assert_eq!(replica.stats(), stats);
    assert_eq!(replica.changes_count_since(&full, &heads).unwrap(), 0);
    assert_eq!(replica.unloaded(), vec![full.clone()], "answered without loading it");

    // A new memory that uses no entity of the full shard goes to the next
    // shard and leaves it unloaded.
    store(&replica, &namespace, vec![memory("m2", "two")]);
    assert_eq!(replica.locate("m2"), Some(DocId::shard(&namespace, 1)));
    assert_eq!(replica.unloaded(), vec![full.clone()]);

    // Reads and writes load it again.
    let stored = replica.read(&full, |reader| reader.memory("m1")).unwrap().unwrap();
    assert_eq!(stored.memory.content, Content::Text("one".into()));
    assert!(replica.unloaded().is_empty());
    assert_eq!(replica.unload_idle(std::time::Duration::ZERO), 2, "both shards, not the registry");
    assert!(replica.add_evidence("m0", 2, Timestamp(2_000)).unwrap().is_some());
    assert_ne!(replica.heads(&full).unwrap(), heads);
    replica.unload_idle(std::time::Duration::ZERO);
    // A memory that uses an entity of an unloaded shard checks its key there.
    store(&replica, &namespace, vec![port_fact("m3")]);
    assert!(!replica.unloaded().contains(&full));
    // An idle time not yet passed unloads nothing.
    assert_eq!(replica.unload_idle(std::time::Duration::from_secs(3_600)), 0);
    drop(replica);

    let replica = open(temp.path(), 2);
    // A load that fails (here every file operation fails once) is an
    // error, and leaves the document unloaded for the next caller to load,
    // never handed out empty.
    assert!(replica.unloaded().contains(&full));
    ferrex_sync::faults::arm(0, ferrex_sync::faults::Fault::Io);
    let failed = replica.read(&full, |reader| reader.memory("m0"));
    let (fired, _) = ferrex_sync::faults::disarm();
    assert!(fired && failed.is_err(), "{failed:?}");
    assert!(replica.unloaded().contains(&full));
    let stored = replica.read(&full, |reader| reader.memory("m0")).unwrap().unwrap();
    assert_eq!(stored.memory.evidence, 3);
    assert_eq!(live_ids(&replica, &namespace), vec!["m0", "m1", "m2", "m3"]);
}
