//! Keeping the index in step with the documents.
//!
//! Every document change reaches the index as a [`DocChange`] (heads before
//! and after, keys touched). When the index's heads for the document are the
//! change's `before`, only the touched keys are re-read; otherwise the index
//! catches up by diffing the document from the heads it has, or re-reads the
//! whole document when those heads are unknown. Text that is new or changed
//! is embedded here only when the caller already has the vector (a local
//! store); everything else is queued for the embedding worker.

use std::collections::{BTreeSet, HashMap};

use ferrex_core::EdgeKind;
use ferrex_sync::{ChangedKeys, DocChange, DocId, Lookup, Replica};

use crate::derived::{
    DeriveError,
    index::{Index, IndexTx, MemoryRow, Touched, Vectors, write::Upserted},
};

/// Vectors a caller computed already (whole text, then passages), by memory
/// id.
pub type KnownVectors = HashMap<String, Vectors>;

/// Applies one document change to the index.
pub fn apply_change(
    index: &mut Index,
    replica: &Replica,
    change: &DocChange,
    vectors: &KnownVectors,
) -> Result<(), DeriveError> {
    if change.doc == DocId::Registry {
        return Ok(());
    }
    let doc = change.doc.to_string();
    if change.is_keys_only() {
        // The document is as it was; what this node can read of it changed
        // (keys arrived, or were deleted with a forget): re-read those keys.
        if change.purged {
            return index.transaction_with(|tx| {
                apply_keys(tx, replica, &change.doc, &change.keys, vectors)
            });
        }
        // Keys arrived. Of their memories, only those the index holds as
        // waiting for a key need reading again: the others it has read
        // with their key already (merged after the key was filed, as a
        // fresh device's shards often are by the time their merge is
        // indexed), or has not seen yet, and will read when the change
        // that brought them comes.
        // (Unless the index is behind on this document: an indexing of a
        // merge that failed leaves memories only this reading brings in.)
        let mut keys = change.keys.clone();
        if index.doc_heads(&doc)?.as_ref() == Some(&change.after) {
            let waiting = index.waiting_for_keys(&keys.memories)?;
            keys.memories.retain(|id| waiting.contains(id));
        }
        if keys.is_empty() {
            return Ok(());
        }
        return index.transaction_with(|tx| apply_keys(tx, replica, &change.doc, &keys, vectors));
    }
    let follows = match index.doc_heads(&doc)? {
        Some(heads) => heads == change.before,
        // A document the index has not seen, and the change made it from
        // its genesis (a fresh device's first sync of it): the change names
        // every key it holds, and diffing it from the start again (and
        // relocating every memory again) would cost as much as the merge.
        None => change.before == ferrex_sync::schema::genesis(&change.doc).get_heads(),
    };
    if follows {
        index.transaction_with(|tx| -> Result<(), DeriveError> {
            apply_keys(tx, replica, &change.doc, &change.keys, vectors)?;
            Ok(tx.set_doc_heads(&doc, &change.after)?)
        })
    } else {
        catch_up_doc(index, replica, &change.doc, vectors)
    }
}

/// Brings the index up to date with document `id`, however far behind.
pub fn catch_up_doc(
    index: &mut Index,
    replica: &Replica,
    id: &DocId,
    vectors: &KnownVectors,
) -> Result<(), DeriveError> {
    if *id == DocId::Registry {
        return Ok(());
    }
    let doc = id.to_string();
    let since = index.doc_heads(&doc)?.unwrap_or_default();
    let (changed, heads) = replica.changes_since(id, &since)?;
    if changed.is_none() {
        tracing::warn!(%doc, "the index reflects heads the document does not know; re-reading it");
    }
    let full_read = changed.is_none();
    let keys = match changed {
        Some(keys) => keys,
        None => {
            replica.changes_since(id, &[])?.0.ok_or_else(|| DeriveError::Undiffable(doc.clone()))?
        }
    };
    index.transaction_with(|tx| -> Result<(), DeriveError> {
        if full_read {
            tx.clear_doc(&doc)?;
        }
        apply_keys(tx, replica, id, &keys, vectors)?;
        Ok(tx.set_doc_heads(&doc, &heads)?)
    })
}

/// Brings the index up to date with every document, and indexes records
/// whose key arrived while the index was not looking (a crash after a key
/// was filed and before its record was indexed).
pub fn catch_up_all(index: &mut Index, replica: &Replica) -> Result<(), DeriveError> {
    for id in replica.doc_ids() {
        let current = index.doc_heads(&id.to_string())?;
        if current.as_ref() != Some(&replica.heads(&id)?) {
            catch_up_doc(index, replica, &id, &KnownVectors::new())?;
        }
    }
    // Entities and aliases found dead when the documents were opened (a
    // crash may have come between deleting their keys and dropping them).
    for change in replica.take_dead_at_open() {
        index.transaction_with(|tx| {
            apply_keys(tx, replica, &change.doc, &change.keys, &KnownVectors::new())
        })?;
    }
    let mut pending: HashMap<String, ChangedKeys> = HashMap::new();
    for (doc, root, id) in index.pending_keys()? {
        let keys = pending.entry(doc).or_default();
        match root.as_str() {
            "memories" => keys.memories.insert(id),
            "entities" => keys.entities.insert(id),
            _ => keys.aliases.insert(id),
        };
    }
    for (doc, keys) in pending {
        let Ok(id) = doc.parse::<DocId>() else { continue };
        if replica.doc_ids().contains(&id) {
            index
                .transaction_with(|tx| apply_keys(tx, replica, &id, &keys, &KnownVectors::new()))?;
        }
    }
    Ok(())
}

fn apply_keys(
    tx: &IndexTx<'_>,
    replica: &Replica,
    id: &DocId,
    keys: &ChangedKeys,
    vectors: &KnownVectors,
) -> Result<(), DeriveError> {
    let doc = id.to_string();
    let namespace =
        id.namespace().map(|namespace| namespace.as_str().to_owned()).unwrap_or_default();
    let kept;
    let keys = match id.namespace() {
        Some(share) if ferrex_sync::shares::is_share_namespace(share) => {
            kept = within_namespace(tx, replica, id, &namespace, keys)?;
            &kept
        }
        _ => keys,
    };
    let mut touched = Touched::default();
    if !keys.entities.is_empty() || !keys.aliases.is_empty() {
        replica.read(id, |reader| -> Result<(), DeriveError> {
            for key in &keys.entities {
                let entity = reader.entity(key);
                tx.mark_pending("entities", key, &doc, matches!(entity, Lookup::Locked(_)))?;
                match entity {
                    Lookup::Found(entity) => {
                        if tx.put_entity(&namespace, &doc, &entity)? {
                            touched.new_entities.insert(key.clone());
                        }
                    }
                    // Locked: waits for its key. Absent: only forgotten memories
                    // used it, and its name goes.
                    Lookup::Locked(_) | Lookup::Absent => {
                        tx.delete_entity(key)?;
                    }
                }
                touched.entity_namespaces.insert(namespace.clone());
            }
            for key in &keys.aliases {
                let alias = reader.alias(key);
                tx.mark_pending("aliases", key, &doc, matches!(alias, Lookup::Locked(_)))?;
                match alias {
                    Lookup::Found(alias) => tx.put_alias(&namespace, key, &alias)?,
                    Lookup::Locked(_) | Lookup::Absent => tx.delete_alias(key)?,
                }
            }
            Ok(())
        })??;
    }
    let memory_keys: BTreeSet<&String> = keys.memories.union(&keys.forgotten).collect();
    read_memories(replica, id, memory_keys, |key, read| {
        // The groups it was in, before the change.
        tx.touch_memory(key, &mut touched)?;
        let memory = match read {
            MemoryRead::Forgotten(tombstone) => {
                tx.put_tombstone(&namespace, &tombstone)?;
                tx.delete_memory(key)?;
                tx.mark_pending("memories", key, &doc, false)?;
                return Ok(());
            }
            MemoryRead::Record(memory) => *memory,
        };
        tx.mark_pending("memories", key, &doc, matches!(memory, Lookup::Locked(_)))?;
        match memory {
            Lookup::Found(stored) => {
                let row = MemoryRow::from_stored(&stored, &doc);
                let (rowid, upserted) = tx.upsert_memory(&row)?;
                if upserted != Upserted::Unchanged
                    && let Some(known) = vectors.get(key)
                {
                    // A store gives its whole text's vector only.
                    let complete =
                        known.len() == 1 + ferrex_core::passages::passages(&row.text).len();
                    tx.put_vector(rowid, &row.namespace, row.kind.as_str(), known, complete)?;
                }
                // And the groups it is in now, and the edges already
                // pointing at it (they may have arrived first).
                tx.touch_memory(key, &mut touched)?;
                tx.touch_target(key, &mut touched)?;
            }
            Lookup::Locked(_) | Lookup::Absent => {
                tx.delete_memory(key)?;
            }
        }
        Ok(())
    })?;
    if !keys.edges.is_empty() {
        replica.read(id, |reader| -> Result<(), DeriveError> {
            for key in &keys.edges {
                if let Some(edge) = reader.edge(key) {
                    tx.put_edge(&namespace, &edge)?;
                    match edge.kind {
                        EdgeKind::Supersedes | EdgeKind::Corrects => {
                            tx.touch_target(&edge.to, &mut touched)?
                        }
                        EdgeKind::SameAs => {
                            touched.entity_namespaces.insert(namespace.clone());
                        }
                        EdgeKind::SamePredicate => {
                            touched.predicate_namespaces.insert(namespace.clone());
                        }
                        EdgeKind::RelatesTo
                        | EdgeKind::AliasCandidate
                        | EdgeKind::PredicateCandidate
                        | EdgeKind::VersionOf
                        | EdgeKind::Other(_) => {}
                    }
                }
            }
            Ok(())
        })??;
    }
    Ok(tx.rederive(touched)?)
}

/// What of `keys`, of a share's document `id`, touches only `namespace`:
/// a share's members write its documents, and anything they name that this
/// device holds in another namespace (a memory, a tombstone, an entity, an
/// alias or edge, or an edge to one of those) is left alone, and logged
/// (docs/sharing.md).
fn within_namespace(
    tx: &IndexTx<'_>,
    replica: &Replica,
    id: &DocId,
    namespace: &str,
    keys: &ChangedKeys,
) -> Result<ChangedKeys, DeriveError> {
    let mut kept = keys.clone();
    let mut refused = 0usize;
    let mut keep_ids = |ids: &mut BTreeSet<String>| -> Result<(), DeriveError> {
        let before = ids.len();
        let mut held = Vec::new();
        for key in ids.iter() {
            if tx.held_elsewhere(key, namespace)? {
                held.push(key.clone());
            }
        }
        ids.retain(|key| !held.contains(key));
        refused += before - ids.len();
        Ok(())
    };
    keep_ids(&mut kept.memories)?;
    keep_ids(&mut kept.forgotten)?;
    keep_ids(&mut kept.entities)?;
    let mut foreign_keys = Vec::new();
    for key in kept.aliases.iter() {
        if tx.key_held_elsewhere(key, namespace)? {
            foreign_keys.push(key.clone());
        }
    }
    let edges: Vec<String> = kept.edges.iter().cloned().collect();
    replica.read(id, |reader| -> Result<(), DeriveError> {
        for key in &edges {
            let foreign = match reader.edge(key) {
                Some(edge) => {
                    tx.key_held_elsewhere(key, namespace)?
                        || tx.held_elsewhere(&edge.from, namespace)?
                        || tx.held_elsewhere(&edge.to, namespace)?
                }
                None => tx.key_held_elsewhere(key, namespace)?,
            };
            if foreign {
                foreign_keys.push(key.clone());
            }
        }
        Ok(())
    })??;
    kept.aliases.retain(|key| !foreign_keys.contains(key));
    kept.edges.retain(|key| !foreign_keys.contains(key));
    refused += foreign_keys.len();
    if refused > 0 {
        tracing::warn!(
            doc = %id,
            refused,
            "a share's document names records this device holds elsewhere; they are left alone"
        );
    }
    Ok(kept)
}

/// A memory as its document has it now.
enum MemoryRead {
    /// Forgotten: its tombstone.
    Forgotten(ferrex_core::Tombstone),
    /// Its record: readable, waiting for its key, or absent.
    Record(Box<Lookup<ferrex_sync::StoredMemory>>),
}

/// From how many memories a batch is read on a thread of its own, while
/// the caller writes what was read to the index: reading (the document,
/// the record's key, the sealed payload) is about half of indexing a
/// synced shard's memories. Also how far the reading may run ahead.
#[cfg(not(test))]
const READ_AHEAD_FROM: usize = 256;
/// Small in tests, so that the simulations (shards of 40) read ahead too.
#[cfg(test)]
const READ_AHEAD_FROM: usize = 4;

/// Reads memories `keys` of document `id` and hands each to `take`, in
/// order. A large batch is read on a scoped thread a bounded channel ahead
/// of `take`; an error of `take` stops the reading.
fn read_memories<'k>(
    replica: &Replica,
    id: &DocId,
    keys: BTreeSet<&'k String>,
    mut take: impl FnMut(&'k String, MemoryRead) -> Result<(), DeriveError>,
) -> Result<(), DeriveError> {
    let read_one = |reader: &ferrex_sync::ShardReader<'_>, key: &str| match reader.tombstone(key) {
        Some(tombstone) => MemoryRead::Forgotten(tombstone),
        None => MemoryRead::Record(Box::new(reader.memory_lookup(key))),
    };
    if keys.len() < READ_AHEAD_FROM {
        return replica.read(id, |reader| {
            keys.into_iter().try_for_each(|key| take(key, read_one(reader, key)))
        })?;
    }
    std::thread::scope(|scope| {
        let (sender, read) = std::sync::mpsc::sync_channel(READ_AHEAD_FROM);
        let reading = std::thread::Builder::new()
            .name("ferrex-read-ahead".into())
            .spawn_scoped(scope, move || {
                replica.read(id, |reader| {
                    for key in keys {
                        // The taker stopped (an error): so does the reading.
                        if sender.send((key, read_one(reader, key))).is_err() {
                            break;
                        }
                    }
                })
            })
            .map_err(DeriveError::ReadAhead)?;
        // Ends with an error, or when the reading is done (the channel
        // closes); either way the channel is dropped here.
        let taken = read.into_iter().try_for_each(|(key, memory)| take(key, memory));
        let outcome = reading.join().map_err(|_| DeriveError::ReadAheadPanicked)?;
        taken?;
        Ok(outcome?)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

    use std::path::Path;

    use ferrex_core::{Namespace, Timestamp};
    use ferrex_sync::{NewMemory, NewRecords, ReplicaOptions};

    use super::*;

    /// A memory written on one device and merged into a fresh one whose
    /// index has not followed yet: the fresh replica, the shard, and the
    /// changes the merge gave (its keys not asked for yet).
    fn merged_sealed(dir: &Path) -> (Replica, Replica, DocId, Vec<DocChange>) {
        let source = Replica::open(&dir.join("a"), "device-a", ReplicaOptions::default()).unwrap();
        let namespace = Namespace::parse("keys").unwrap();
        let memory = NewMemory::episode(
            "m-1",
            "the staging database moved to port 5433",
            "device-a",
            Timestamp(1_000),
        );
        source
            .write_new(
                &namespace,
                Timestamp(1_000),
                &NewRecords { memories: vec![memory], ..Default::default() },
            )
            .unwrap();
        let fresh = Replica::open(&dir.join("b"), "device-b", ReplicaOptions::default()).unwrap();
        let shard = source.locate("m-1").unwrap();
        let merged = sync_shard(&source, &fresh, &shard);
        (source, fresh, shard, merged)
    }

    /// Syncs `shard` from `source` into `fresh` (at most ten rounds); the
    /// changes the merge gave.
    fn sync_shard(source: &Replica, fresh: &Replica, shard: &DocId) -> Vec<DocChange> {
        let (mut theirs, mut ours) = (automerge::sync::State::new(), automerge::sync::State::new());
        let mut merged = Vec::new();
        for _ in 0..10 {
            let mut said = false;
            if let Some(message) = source.generate_sync_message(shard, &mut theirs).unwrap() {
                said = true;
                merged.extend(fresh.receive_sync_message(shard, &mut ours, &message).unwrap());
            }
            if let Some(message) = fresh.generate_sync_message(shard, &mut ours).unwrap() {
                said = true;
                source.receive_sync_message(shard, &mut theirs, &message).unwrap();
            }
            if !said {
                break;
            }
        }
        assert!(!merged.is_empty());
        merged
    }

    #[test]
    fn a_shard_read_ahead_of_its_indexing_is_indexed_as_read_in_line() {
        let temp = tempfile::tempdir().unwrap();
        let source =
            Replica::open(&temp.path().join("a"), "device-a", ReplicaOptions::default()).unwrap();
        let namespace = Namespace::parse("ahead").unwrap();
        let memories: Vec<NewMemory> = (0..3 * READ_AHEAD_FROM + 1)
            .map(|n| {
                NewMemory::episode(
                    format!("m-{n:03}"),
                    format!("note {n}"),
                    "device-a",
                    Timestamp(n as i64),
                )
            })
            .collect();
        let count = memories.len();
        source
            .write_new(&namespace, Timestamp(1), &NewRecords { memories, ..Default::default() })
            .unwrap();
        let shard = source.locate("m-000").unwrap();
        // One memory forgotten: read ahead as a tombstone.
        source.forget(&["m-002".to_owned()], Timestamp(2)).unwrap();
        let all = ChangedKeys {
            memories: (0..count).map(|n| format!("m-{n:03}")).collect(),
            ..ChangedKeys::default()
        };
        let mut index = Index::open(&temp.path().join("index.sqlite"), "test", 8).unwrap().0;
        index
            .transaction_with(|tx| apply_keys(tx, &source, &shard, &all, &KnownVectors::new()))
            .unwrap();
        for n in 0..count {
            let row = index.row(&format!("m-{n:03}")).unwrap();
            if n == 2 {
                assert!(row.is_none(), "the forgotten memory is not indexed");
            } else {
                assert_eq!(row.unwrap().text, format!("note {n}"));
            }
        }
        assert_eq!(index.counts().unwrap().forgotten, 1);
        // A document the replica does not have: the reading's error comes back.
        let missing: DocId = "ns.ahead.9".parse().unwrap();
        assert!(
            index
                .transaction_with(|tx| apply_keys(
                    tx,
                    &source,
                    &missing,
                    &all,
                    &KnownVectors::new()
                ))
                .is_err()
        );
    }

    /// Files the keys the fresh replica lacks; the change that says so.
    fn keys_arrive(source: &Replica, fresh: &Replica, shard: &DocId) -> DocChange {
        let wanted = fresh.wanted_keys(shard, None).unwrap();
        let (keys, _) = source.answer_keys(shard, &wanted).unwrap();
        fresh.accept_keys(shard, &keys).unwrap().expect("keys were filed")
    }

    fn assert_indexed(index: &Index) {
        let row = index.row("m-1").unwrap().expect("the memory is indexed");
        assert_eq!(row.text, "the staging database moved to port 5433");
        assert!(index.waiting_for_keys(&[String::from("m-1")]).unwrap().is_empty());
    }

    #[test]
    fn a_memory_is_indexed_once_readable_whichever_of_its_merge_and_its_key_the_index_takes_first()
    {
        let temp = tempfile::tempdir().unwrap();
        let open = |name: &str| Index::open(&temp.path().join(name), "test", 8).unwrap().0;

        // The merge first: the memory waits for its key, then is read.
        let (source, fresh, shard, merged) = merged_sealed(&temp.path().join("1"));
        let mut index = open("1.sqlite");
        for change in &merged {
            apply_change(&mut index, &fresh, change, &KnownVectors::new()).unwrap();
        }
        assert!(index.row("m-1").unwrap().is_none());
        assert!(index.waiting_for_keys(&[String::from("m-1")]).unwrap().contains("m-1"));
        let arrived = keys_arrive(&source, &fresh, &shard);
        apply_change(&mut index, &fresh, &arrived, &KnownVectors::new()).unwrap();
        assert_indexed(&index);

        // The key filed before the merge is indexed: the merge reads it,
        // and the arrival has nothing left to do.
        let (source, fresh, shard, merged) = merged_sealed(&temp.path().join("2"));
        let arrived = keys_arrive(&source, &fresh, &shard);
        let mut index = open("2.sqlite");
        for change in merged.iter().chain([&arrived]) {
            apply_change(&mut index, &fresh, change, &KnownVectors::new()).unwrap();
        }
        assert_indexed(&index);

        // The arrival taken before the merge that brought the memory (two
        // peers' sessions racing, or an indexing of the merge that failed):
        // the index is behind on the document, so the arrival reads what
        // its keys open, and the merge after it changes nothing.
        let (source, fresh, shard, merged) = merged_sealed(&temp.path().join("3"));
        let arrived = keys_arrive(&source, &fresh, &shard);
        let mut index = open("3.sqlite");
        apply_change(&mut index, &fresh, &arrived, &KnownVectors::new()).unwrap();
        assert_indexed(&index);
        for change in &merged {
            apply_change(&mut index, &fresh, change, &KnownVectors::new()).unwrap();
        }
        assert_indexed(&index);
    }

    /// Regression (found by `beliefs_sync.rs`, one run in five): a fact
    /// whose key reached a device before its subject entity's key was filed
    /// under the subject's name, and stayed there when the entity's record
    /// became readable, since that entity (the oldest of its class) did not
    /// change class. The same fact stored on another device, filed under the
    /// entity, then stood beside it as a second current value: that device
    /// alone counted one duplicate fewer.
    #[test]
    fn a_fact_read_before_its_subject_entity_is_filed_under_the_entity_once_it_is_read() {
        let temp = tempfile::tempdir().unwrap();
        let source =
            Replica::open(&temp.path().join("a"), "device-a", ReplicaOptions::default()).unwrap();
        let namespace = Namespace::parse("facts").unwrap();
        let entity = ferrex_core::Entity {
            id: "e-1".into(),
            name: "api".into(),
            kind: None,
            created_at: Timestamp(1_000),
            created_by: "device-a".into(),
        };
        let mut fact = NewMemory::episode("f-1", "", "device-a", Timestamp(1_000));
        fact.kind = ferrex_core::MemoryKind::Semantic;
        fact.content = ferrex_core::Content::Triple(ferrex_core::Triple {
            subject: "api".into(),
            predicate: "port".into(),
            object: "8080".into(),
        });
        fact.subject_entity = Some("e-1".into());
        fact.entity_ids = vec!["e-1".into()];
        let records =
            NewRecords { memories: vec![fact], entities: vec![entity], ..Default::default() };
        source.write_new(&namespace, Timestamp(1_000), &records).unwrap();
        let fresh =
            Replica::open(&temp.path().join("b"), "device-b", ReplicaOptions::default()).unwrap();
        let shard = source.locate("f-1").unwrap();
        let mut index = Index::open(&temp.path().join("b.sqlite"), "test", 8).unwrap().0;
        for change in sync_shard(&source, &fresh, &shard) {
            apply_change(&mut index, &fresh, &change, &KnownVectors::new()).unwrap();
        }
        // The fact's key first, then the entity's.
        let wanted = fresh.wanted_keys(&shard, None).unwrap();
        let (memories, entities): (Vec<_>, Vec<_>) = wanted
            .into_iter()
            .partition(|(root, _)| ferrex_sync::SEALED_ROOTS[*root as usize] == "memories");
        assert!(!entities.is_empty(), "the entity is sealed too");
        for refs in [memories, entities] {
            let (keys, _) = source.answer_keys(&shard, &refs).unwrap();
            let arrived = fresh.accept_keys(&shard, &keys).unwrap().expect("keys were filed");
            apply_change(&mut index, &fresh, &arrived, &KnownVectors::new()).unwrap();
        }
        let row = index.row("f-1").unwrap().expect("the fact is indexed");
        assert_eq!(row.derived.subject_key.as_deref(), Some("e-1"), "filed under its entity");
    }
}
