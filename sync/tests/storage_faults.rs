//! Storage faults injected into a real replica on real files: a disk that
//! fills up (ENOSPC), breaks (EIO) or tears a write in part, at every
//! file-system operation of a workload that appends, compacts, forgets and
//! reopens. Whatever fails, the replica keeps serving what it holds, a write
//! that was acknowledged is never lost, one that failed never appears, and
//! once the disk is healthy again writes succeed without a restart.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{collections::BTreeMap, path::Path};

use ferrex_core::{Content, Namespace, Timestamp};
use ferrex_sync::{
    NewMemory, NewRecords, Replica, ReplicaOptions,
    faults::{self, Fault},
    keys::KeyStore,
};

/// Memories written by the workload: large enough (sealed, so
/// incompressible) that the log outgrows the compaction threshold (256 KiB)
/// once during the workload.
const WRITES: usize = 12;
const TEXT_BYTES: usize = 26_000;

fn text(index: usize) -> String {
    // Distinct per memory, so a memory read back under another's id shows.
    let word = format!("memory-{index:02} ");
    word.repeat(TEXT_BYTES / word.len())
}

fn open(dir: &Path) -> Result<Replica, ferrex_sync::ReplicaError> {
    Replica::open(dir, "device-a", ReplicaOptions::default())
}

fn write(replica: &Replica, namespace: &Namespace, index: usize) -> bool {
    let memory = NewMemory::episode(
        format!("m-{index:02}"),
        text(index),
        "device-a",
        Timestamp(1_000 + index as i64),
    );
    replica
        .write_new(
            namespace,
            Timestamp(1_000 + index as i64),
            &NewRecords { memories: vec![memory], ..Default::default() },
        )
        .is_ok()
}

fn text_of(replica: &Replica, id: &str) -> Option<String> {
    let shard = replica.locate(id)?;
    match replica.read(&shard, |reader| reader.memory(id)).unwrap()?.memory.content {
        Content::Text(text) => Some(text),
        other => panic!("{id} is not a text memory: {other:?}"),
    }
}

/// What one run under a fault did.
struct Run {
    /// Whether the fault fired at all (false once the countdown outlasts
    /// the workload).
    fired: bool,
    /// Writes that failed.
    failed: usize,
    /// Failed writes found whole after a restart (only when the process
    /// stopped while the disk still failed, so the failed append could not
    /// be cut: its outcome is then unknown, as after a crash mid-write).
    appeared: usize,
}

/// When the disk heals, in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heal {
    /// Before the process stops: it keeps writing, then restarts.
    ThenRestart,
    /// After: the process stops (and starts once) while the disk fails.
    AfterRestart,
}

/// The workload under `fault`, armed to fire after `countdown` operations:
/// writes (one compaction among them), a forget, then the disk heals
/// before or after a restart, and the checks run.
fn run(fault: Fault, countdown: u64, heal: Heal) -> Run {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("docs");
    let namespace = Namespace::parse("faults").unwrap();
    let context = format!("{fault:?} after {countdown} operations, {heal:?}");
    let mut replica = open(&dir).unwrap();
    // memory index → acknowledged
    let mut acknowledged: BTreeMap<usize, bool> = BTreeMap::new();
    let mut forget_acknowledged = false;
    let mut forget_failed = false;

    faults::arm(countdown, fault);
    for index in 0..WRITES {
        acknowledged.insert(index, write(&replica, &namespace, index));
        // Under the fault, what was acknowledged is still served.
        for (earlier, ok) in &acknowledged {
            if *earlier == 0 && forget_failed {
                // A forget that failed may have tombstoned the memory and
                // failed deleting its key (which the next open finishes).
                continue;
            }
            let id = format!("m-{earlier:02}");
            let expected = (*ok && !(*earlier == 0 && forget_acknowledged)).then(|| text(*earlier));
            assert!(
                text_of(&replica, &id) == expected,
                "{context}: {id} wrong after write {index}"
            );
        }
        if index == 3 && acknowledged[&0] {
            forget_acknowledged = replica.forget(&["m-00".to_owned()], Timestamp(2_000)).is_ok();
            forget_failed = !forget_acknowledged;
        }
    }
    let failed = acknowledged.values().filter(|ok| !**ok).count();
    let fired = match heal {
        Heal::ThenRestart => {
            let (fired, _) = faults::disarm();
            // The disk is healthy: writes succeed again without a restart.
            for index in WRITES..WRITES + 2 {
                assert!(write(&replica, &namespace, index), "{context}: no recovery");
            }
            drop(replica);
            replica = open(&dir).unwrap();
            fired
        }
        Heal::AfterRestart => {
            drop(replica);
            // A restart while the disk still fails opens or says why.
            let reopened = open(&dir);
            let (fired, _) = faults::disarm();
            replica = match reopened {
                Ok(replica) => replica,
                Err(_) => open(&dir).unwrap_or_else(|error| {
                    panic!("{context}: the replica does not open: {error}")
                }),
            };
            for index in WRITES..WRITES + 2 {
                assert!(write(&replica, &namespace, index), "{context}: no recovery");
            }
            fired
        }
    };
    let mut appeared = 0;
    for (index, ok) in &acknowledged {
        let id = format!("m-{index:02}");
        let found = text_of(&replica, &id);
        if *index == 0 && forget_acknowledged {
            assert!(found.is_none(), "{context}: an acknowledged forget was undone");
        } else if *index == 0 && forget_failed {
            assert!(found.is_none() || found == Some(text(0)), "{context}: m-00 damaged");
        } else if *ok {
            assert!(found == Some(text(*index)), "{context}: acknowledged {id} lost");
        } else if found.is_some() {
            // Never torn or mixed up: whole, or not there at all.
            assert!(found == Some(text(*index)), "{context}: failed {id} came back damaged");
            assert!(
                heal == Heal::AfterRestart && fault != Fault::NoSpace,
                "{context}: failed write {id} appeared although the disk could cut it"
            );
            appeared += 1;
        }
    }
    // A forget that failed can be finished.
    if text_of(&replica, "m-00").is_some() {
        replica.forget(&["m-00".to_owned()], Timestamp(3_000)).unwrap();
    }
    drop(replica);
    let replica = open(&dir).unwrap();
    for index in WRITES..WRITES + 2 {
        assert!(
            text_of(&replica, &format!("m-{index:02}")).is_some(),
            "{context}: lost a late write"
        );
    }
    assert!(text_of(&replica, "m-00").is_none(), "{context}: m-00 not forgotten");
    drop(replica);
    // Its key is gone from the disk too: the text cannot be read any more.
    let keys = KeyStore::open(&dir.join("keys")).unwrap();
    assert!(!keys.has_record("m-00"), "{context}: the key of forgotten m-00 is still on disk");
    assert!(keys.has_record(&format!("m-{WRITES:02}")));
    Run { fired, failed, appeared }
}

/// Runs the workload with the fault at every operation in turn, until the
/// countdown outlasts it, healing before and after a restart; returns
/// (faults injected, failed writes, failed writes that appeared whole).
#[allow(clippy::print_stderr, reason = "the figures of record, shown with --nocapture")]
fn every_point(fault: impl Fn(u64) -> Fault) -> (u64, usize, usize) {
    let (mut injected, mut failed, mut appeared) = (0, 0, 0);
    let name = format!("{:?}", fault(0));
    for heal in [Heal::ThenRestart, Heal::AfterRestart] {
        for countdown in 0.. {
            let outcome = run(fault(countdown), countdown, heal);
            if !outcome.fired {
                break;
            }
            injected += 1;
            failed += outcome.failed;
            appeared += outcome.appeared;
            assert!(countdown < 10_000, "the workload never outlasts the countdown");
        }
    }
    eprintln!(
        "{name}: {injected} faults injected, {failed} writes failed, {appeared} failed writes came back whole after a restart on a failing disk, 0 acknowledged writes lost"
    );
    (injected, failed, appeared)
}

#[test]
fn a_full_disk_at_any_operation_loses_no_acknowledged_write() {
    let (injected, failed, _) = every_point(|_| Fault::NoSpace);
    assert!(injected > 40, "only {injected} operations faulted");
    assert!(failed > 0);
}

#[test]
fn an_io_error_at_any_operation_loses_no_acknowledged_write() {
    let (injected, failed, _) = every_point(|_| Fault::Io);
    assert!(injected > 40, "only {injected} operations faulted");
    assert!(failed > 0);
}

#[test]
fn a_torn_write_at_any_point_loses_no_acknowledged_write() {
    // The write that fails keeps its first byte, half its bytes, or all but
    // its last byte, in turn.
    let (injected, failed, _) =
        every_point(|countdown| Fault::Torn([0, 128, 255][countdown as usize % 3]));
    assert!(injected > 40, "only {injected} operations faulted");
    assert!(failed > 0);
}

/// Syncs `from` into `into` until neither has anything to say (bounded);
/// returns the heads `into` acknowledged per document (those of every
/// message it received without error).
fn sync_into(from: &Replica, into: &Replica) -> BTreeMap<String, Vec<automerge::ChangeHash>> {
    use automerge::sync::State;
    let mut acknowledged = BTreeMap::new();
    for doc in from.doc_ids() {
        let (mut theirs, mut ours) = (State::new(), State::new());
        for _ in 0..20 {
            let mut said = false;
            if let Ok(Some(message)) = from.generate_sync_message(&doc, &mut theirs) {
                said = true;
                if into.receive_sync_message(&doc, &mut ours, &message).is_ok() {
                    acknowledged.insert(doc.to_string(), into.heads(&doc).unwrap_or_default());
                }
            }
            if let Ok(Some(message)) = into.generate_sync_message(&doc, &mut ours) {
                said = true;
                let _ = from.receive_sync_message(&doc, &mut theirs, &message);
            }
            if !said {
                break;
            }
        }
    }
    acknowledged
}

#[test]
#[allow(clippy::print_stderr, reason = "the figure of record, shown with --nocapture")]
fn a_merge_that_fills_an_empty_document_is_durable_when_acknowledged_whatever_fails() {
    // The first message of a shard to a fresh device is the whole document,
    // made durable as one snapshot; a fault at any operation of it either
    // fails the merge or leaves it on disk, and the next sync completes.
    let temp = tempfile::tempdir().unwrap();
    let source = open(&temp.path().join("source")).unwrap();
    let namespace = Namespace::parse("faults").unwrap();
    for index in 0..WRITES {
        assert!(write(&source, &namespace, index));
    }
    let mut injected = 0;
    for fault in [Fault::NoSpace, Fault::Io, Fault::Torn(128)] {
        for countdown in 0.. {
            let dir = temp.path().join(format!("fresh-{fault:?}-{countdown}"));
            let fresh = open(&dir).unwrap();
            faults::arm(countdown, fault);
            let acknowledged = sync_into(&source, &fresh);
            let (fired, _) = faults::disarm();
            drop(fresh);
            let context = format!("{fault:?} after {countdown} operations");
            let fresh = open(&dir).unwrap_or_else(|error| panic!("{context}: {error}"));
            for (doc, heads) in &acknowledged {
                let doc = doc.parse().unwrap();
                assert!(fresh.knows_heads(&doc, heads), "{context}: lost what {doc} acknowledged");
            }
            // Healed: the documents sync, then the keys, and every memory reads.
            sync_into(&source, &fresh);
            for doc in source.doc_ids() {
                let wanted = fresh.wanted_keys(&doc, None).unwrap();
                let (keys, _) = source.answer_keys(&doc, &wanted).unwrap();
                fresh.accept_keys(&doc, &keys).unwrap();
            }
            for index in 0..WRITES {
                let id = format!("m-{index:02}");
                assert!(text_of(&fresh, &id) == Some(text(index)), "{context}: {id} after healing");
            }
            if !fired {
                break;
            }
            injected += 1;
            assert!(countdown < 10_000, "the sync never outlasts the countdown");
        }
    }
    eprintln!(
        "a fresh device's first merge: {injected} faults injected, 0 acknowledged merges lost"
    );
    assert!(injected > 10, "only {injected} operations faulted");
}
