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

use anyhow::Context;
use ferrex_core::EdgeKind;
use ferrex_sync::{ChangedKeys, DocChange, DocId, Lookup, Replica};

use crate::index::{Index, IndexTx, MemoryRow, Touched, Vectors, write::Upserted};

/// Vectors a caller computed already (whole text, then passages), by memory
/// id.
pub type KnownVectors = HashMap<String, Vectors>;

/// Applies one document change to the index.
pub fn apply_change(
    index: &mut Index,
    replica: &Replica,
    change: &DocChange,
    vectors: &KnownVectors,
) -> anyhow::Result<()> {
    if change.doc == DocId::Registry {
        return Ok(());
    }
    let doc = change.doc.to_string();
    if change.is_keys_only() {
        // The document is as it was; what this node can read of it changed
        // (keys arrived, or were deleted with a forget): re-read those keys.
        return index.transaction(|tx| apply_keys(tx, replica, &change.doc, &change.keys, vectors));
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
        index.transaction(|tx| {
            apply_keys(tx, replica, &change.doc, &change.keys, vectors)?;
            tx.set_doc_heads(&doc, &change.after)
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
) -> anyhow::Result<()> {
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
        None => replica.changes_since(id, &[])?.0.context("diffing a document from its start")?,
    };
    index.transaction(|tx| {
        if full_read {
            tx.clear_doc(&doc)?;
        }
        apply_keys(tx, replica, id, &keys, vectors)?;
        tx.set_doc_heads(&doc, &heads)
    })
}

/// Brings the index up to date with every document, and indexes records
/// whose key arrived while the index was not looking (a crash after a key
/// was filed and before its record was indexed).
pub fn catch_up_all(index: &mut Index, replica: &Replica) -> anyhow::Result<()> {
    for id in replica.doc_ids() {
        let current = index.doc_heads(&id.to_string())?;
        if current.as_ref() != Some(&replica.heads(&id)?) {
            catch_up_doc(index, replica, &id, &KnownVectors::new())?;
        }
    }
    // Entities and aliases found dead when the documents were opened (a
    // crash may have come between deleting their keys and dropping them).
    for change in replica.take_dead_at_open() {
        index.transaction(|tx| {
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
            index.transaction(|tx| apply_keys(tx, replica, &id, &keys, &KnownVectors::new()))?;
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
) -> anyhow::Result<()> {
    let doc = id.to_string();
    let namespace =
        id.namespace().map(|namespace| namespace.as_str().to_owned()).unwrap_or_default();
    let memory_keys: BTreeSet<&String> = keys.memories.union(&keys.forgotten).collect();
    let mut touched = Touched::default();
    replica.read(id, |reader| -> anyhow::Result<()> {
        for key in &keys.entities {
            let entity = reader.entity(key);
            tx.mark_pending("entities", key, &doc, matches!(entity, Lookup::Locked(_)))?;
            match entity {
                Lookup::Found(entity) => tx.put_entity(&namespace, &doc, &entity)?,
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
        for key in memory_keys {
            // The groups it was in, before the change.
            tx.touch_memory(key, &mut touched)?;
            if let Some(tombstone) = reader.tombstone(key) {
                tx.put_tombstone(&namespace, &tombstone)?;
                tx.delete_memory(key)?;
                tx.mark_pending("memories", key, &doc, false)?;
                continue;
            }
            let memory = reader.memory_lookup(key);
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
        }
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
                    | EdgeKind::Other(_) => {}
                }
            }
        }
        Ok(())
    })??;
    tx.rederive(touched)
}
