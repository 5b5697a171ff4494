//! One document: its Automerge state, its files, and what has been persisted.

use std::{collections::BTreeSet, path::Path};

use automerge::{
    AutoCommit, AutomergeError, ChangeHash, PatchAction, Prop, ROOT, ReadDoc,
    transaction::CommitOptions,
};
use ferrex_core::Timestamp;

use crate::{
    DocId, ReplicaError,
    schema::{self, Roots},
    storage::DocFiles,
};

/// The keys of each root map that a set of changes touched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedKeys {
    /// Memory ids written, changed or deleted.
    pub memories: BTreeSet<String>,
    /// Memory ids that gained a tombstone.
    pub forgotten: BTreeSet<String>,
    /// Entity ids written or changed.
    pub entities: BTreeSet<String>,
    /// Alias keys written.
    pub aliases: BTreeSet<String>,
    /// Edge keys written.
    pub edges: BTreeSet<String>,
    /// Registry: device ids written or changed.
    pub devices: BTreeSet<String>,
    /// Registry: device ids revoked.
    pub revoked: BTreeSet<String>,
    /// Registry: pairings written.
    pub pairings: BTreeSet<String>,
}

impl ChangedKeys {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.memories.is_empty()
            && self.forgotten.is_empty()
            && self.entities.is_empty()
            && self.aliases.is_empty()
            && self.edges.is_empty()
            && self.devices.is_empty()
            && self.revoked.is_empty()
            && self.pairings.is_empty()
    }

    /// Adds every key of `other`.
    pub fn extend(&mut self, other: ChangedKeys) {
        self.memories.extend(other.memories);
        self.forgotten.extend(other.forgotten);
        self.entities.extend(other.entities);
        self.aliases.extend(other.aliases);
        self.edges.extend(other.edges);
        self.devices.extend(other.devices);
        self.revoked.extend(other.revoked);
        self.pairings.extend(other.pairings);
    }

    fn set_for(&mut self, root: &str) -> Option<&mut BTreeSet<String>> {
        Some(match root {
            "memories" => &mut self.memories,
            "forgotten" => &mut self.forgotten,
            "entities" => &mut self.entities,
            "aliases" => &mut self.aliases,
            "edges" => &mut self.edges,
            "devices" => &mut self.devices,
            "revoked" => &mut self.revoked,
            "pairings" => &mut self.pairings,
            _ => return None,
        })
    }
}

/// One change to a document: the heads before and after, and the keys it
/// touched. The index follows a document by applying these in order; when
/// its heads are not `before` it diffs instead ([`crate::Replica::changes_since`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocChange {
    /// The document changed.
    pub doc: DocId,
    /// Its heads before the change.
    pub before: Vec<ChangeHash>,
    /// Its heads after the change.
    pub after: Vec<ChangeHash>,
    /// What the change touched.
    pub keys: ChangedKeys,
    /// A keys-only change made by a forget: keys were deleted, and what
    /// they opened must leave the index (and its WAL).
    pub purged: bool,
}

impl DocChange {
    /// Whether the change moved no heads: the document is as it was, but
    /// what this node can read of it changed (keys arrived or were deleted).
    pub fn is_keys_only(&self) -> bool {
        self.before == self.after
    }
}

/// What a document unloaded from memory still answers for: it is not
/// written while unloaded (every access loads it again first), so these
/// stay true until then.
#[derive(Debug, Clone)]
pub(crate) struct Unloaded {
    /// Its heads.
    pub(crate) heads: Vec<ChangeHash>,
    /// The actor its writes were made as, taken up again on loading: all
    /// of its changes are on disk, so its sequence continues safely.
    pub(crate) actor: automerge::ActorId,
    /// Keys in its `memories` map.
    pub(crate) memories: usize,
    /// Its entities' record tags, to know without loading it whether it
    /// holds an entity.
    pub(crate) entities: std::collections::HashSet<crate::keys::RecordTag>,
    /// Bytes on disk.
    pub(crate) disk_bytes: u64,
}

/// A loaded document with its files.
#[derive(Debug)]
pub(crate) struct Document {
    pub(crate) id: DocId,
    pub(crate) doc: AutoCommit,
    pub(crate) roots: Roots,
    files: DocFiles,
    persisted: Vec<ChangeHash>,
}

impl Document {
    /// Lookups of records by id in this document's root maps.
    pub(crate) fn maps(&self) -> crate::schema::RootMaps<'_> {
        crate::schema::RootMaps::new(&self.doc, &self.roots)
    }

    /// Opens the document in `dir`, creating it from its genesis if new; its
    /// log is compacted once larger than `compact_log_bytes` (and a quarter
    /// of the snapshot).
    pub(crate) fn open(
        dir: &Path,
        id: DocId,
        compact_log_bytes: u64,
    ) -> Result<Document, ReplicaError> {
        Self::open_with(dir, id, schema::genesis, compact_log_bytes)
    }

    /// Opens the document in `dir`, whose history starts from `genesis`.
    pub(crate) fn open_with(
        dir: &Path,
        id: DocId,
        genesis: fn(&DocId) -> AutoCommit,
        compact_log_bytes: u64,
    ) -> Result<Document, ReplicaError> {
        let (mut files, loaded) = DocFiles::open(dir)?;
        files.set_compact_log_bytes(compact_log_bytes);
        let load_error = |source: AutomergeError| ReplicaError::Load {
            doc: id.clone(),
            source: Box::new(source),
        };
        let mut doc = match &loaded.snapshot {
            Some(snapshot) => AutoCommit::load(snapshot).map_err(load_error)?,
            None => genesis(&id),
        };
        if !loaded.records.is_empty() {
            let log: Vec<u8> = loaded.records.concat();
            doc.load_incremental(&log).map_err(load_error)?;
        }
        // A fresh actor for every process: never reuse an actor whose last
        // changes might not have been persisted before a crash.
        doc.set_actor(automerge::ActorId::random());
        let roots = Roots::find(&doc, &id).ok_or_else(|| ReplicaError::MissingRoots(id.clone()))?;
        let persisted = doc.get_heads();
        let mut document = Document { id, doc, roots, files, persisted };
        document.compact_if_due();
        Ok(document)
    }

    /// Applies `write` as one change at `now`, then persists it. On error
    /// nothing is committed. `write` records the keys it touches in the
    /// [`ChangedKeys`] it is given; they come back in the [`DocChange`], so
    /// that the index can follow a local write without diffing the document.
    pub(crate) fn write<T>(
        &mut self,
        now: Timestamp,
        write: impl FnOnce(&mut AutoCommit, &Roots, &mut ChangedKeys) -> Result<T, AutomergeError>,
    ) -> Result<(T, DocChange), ReplicaError> {
        let before = self.doc.get_heads();
        let mut keys = ChangedKeys::default();
        let outcome = match write(&mut self.doc, &self.roots, &mut keys) {
            Ok(outcome) => outcome,
            Err(source) => {
                self.doc.rollback();
                return Err(ReplicaError::Write { doc: self.id.clone(), source: Box::new(source) });
            }
        };
        self.doc.commit_with(CommitOptions::default().with_time(now.0.div_euclid(1000)));
        if let Err(error) = self.persist() {
            // Not on disk, so not acknowledged: take the change back out of
            // memory too, or it would be sent to peers and persisted with a
            // later write after its writer was told it failed. A fork at
            // the heads before it keeps everything else (changes merged
            // from peers and not yet persisted included) and starts a fresh
            // actor, so the change's sequence number is never reused.
            match self.doc.fork_at(&before) {
                Ok(doc) => self.doc = doc,
                Err(fork) => tracing::error!(
                    doc = %self.id,
                    %fork,
                    "could not take a failed write back out of memory; it may still sync"
                ),
            }
            return Err(error);
        }
        let after = self.doc.get_heads();
        Ok((outcome, DocChange { doc: self.id.clone(), before, after, keys, purged: false }))
    }

    /// Writes every change not yet on disk to the log and syncs it; compacts
    /// when the log has outgrown the snapshot. Once the append is synced the
    /// changes are durable: a compaction that fails after it is logged and
    /// tried again after a later append, not reported as a failed write.
    pub(crate) fn persist(&mut self) -> Result<(), ReplicaError> {
        let heads = self.doc.get_heads();
        if heads == self.persisted {
            return Ok(());
        }
        let bytes = self.doc.save_after(&self.persisted);
        self.files.append(&bytes)?;
        self.persisted = heads;
        self.compact_if_due();
        Ok(())
    }

    /// Makes every change durable as one snapshot (and an empty log), as a
    /// compaction does; for a merge that filled an empty document.
    pub(crate) fn persist_whole(&mut self) -> Result<(), ReplicaError> {
        let heads = self.doc.get_heads();
        if heads == self.persisted {
            return Ok(());
        }
        let snapshot = self.doc.save();
        self.files.compact(&snapshot)?;
        self.persisted = heads;
        Ok(())
    }

    /// Becomes `doc`, whose saved form is `saved`: made durable as the
    /// snapshot first, so that a failure leaves this document as it was.
    /// For a document that is a superset of this one (a peer's whole copy of
    /// a document that is its genesis here).
    pub(crate) fn adopt(&mut self, doc: AutoCommit, saved: &[u8]) -> Result<(), ReplicaError> {
        self.files.compact(saved)?;
        self.doc = doc;
        self.persisted = self.doc.get_heads();
        Ok(())
    }

    /// Compacts when the log has outgrown its share of the snapshot. A
    /// failure is logged, not returned: the log still holds every change,
    /// and compaction is tried again after a later append.
    fn compact_if_due(&mut self) {
        if self.files.should_compact() {
            let snapshot = self.doc.save();
            if let Err(error) = self.files.compact(&snapshot) {
                tracing::warn!(
                    doc = %self.id,
                    %error,
                    "compaction failed; the log keeps every change, and compaction is tried again later"
                );
            }
        }
    }

    /// Frees the document's Automerge state, when every change of it is on
    /// disk and its files are clean, and says what it still answers for;
    /// `None` (and nothing changed) otherwise. The document must be
    /// loaded again ([`Document::reload`]) before any other use.
    pub(crate) fn unload(&mut self) -> Option<Unloaded> {
        let heads = self.doc.get_heads();
        if heads != self.persisted || !self.files.clean() {
            return None;
        }
        let unloaded = Unloaded {
            heads,
            actor: self.doc.get_actor().clone(),
            memories: self.count("memories"),
            entities: self
                .doc
                .keys(self.roots.get("entities"))
                .map(|entity| crate::keys::RecordTag::of(&entity))
                .collect(),
            disk_bytes: self.disk_bytes(),
        };
        self.doc = AutoCommit::new();
        Some(unloaded)
    }

    /// Loads an unloaded document from its files again, as its writer was.
    /// `actor` is the one it was written as ([`Unloaded::actor`]).
    pub(crate) fn reload(
        &mut self,
        dir: &Path,
        actor: automerge::ActorId,
        compact_log_bytes: u64,
    ) -> Result<(), ReplicaError> {
        let mut loaded = Document::open(dir, self.id.clone(), compact_log_bytes)?;
        loaded.doc.set_actor(actor);
        *self = loaded;
        Ok(())
    }

    /// The current heads.
    pub(crate) fn heads(&mut self) -> Vec<ChangeHash> {
        self.doc.get_heads()
    }

    /// How many changes are not ancestors of `heads` (all changes when
    /// `heads` is empty or unknown).
    pub(crate) fn changes_count_since(&mut self, heads: &[ChangeHash]) -> usize {
        if self.doc.get_heads() == heads {
            return 0;
        }
        self.doc.get_changes_meta(heads).len()
    }

    /// Whether every hash in `heads` is part of this document's history.
    pub(crate) fn knows(&mut self, heads: &[ChangeHash]) -> bool {
        heads.iter().all(|hash| self.doc.get_change_meta_by_hash(hash).is_some())
    }

    /// The keys changed between `since` and now, or `None` when `since` is not
    /// part of this document's history (the caller must then rebuild).
    ///
    /// This diffs the whole document (a scan of every op), so it is for
    /// catching up after a start or a missed change; local writes and merged
    /// sync messages report their keys directly.
    pub(crate) fn changes_since(&mut self, since: &[ChangeHash]) -> Option<ChangedKeys> {
        if !self.knows(since) {
            return None;
        }
        let heads = self.doc.get_heads();
        if since == heads.as_slice() {
            return Some(ChangedKeys::default());
        }
        if since.is_empty() {
            // From nothing, what changed is every key there is: listing the
            // root maps costs a fraction of a diff, which builds a patch
            // for every field of every record (at 100k memories, most of a
            // rebuild's memory).
            return Some(every_key(&self.doc, &self.roots));
        }
        Some(keys_of_patches(self.doc.diff(since, &heads)))
    }

    /// Every key of one root map.
    pub(crate) fn keys(&self, root: &str) -> Vec<String> {
        self.doc.keys(self.roots.get(root)).collect()
    }

    /// Number of keys in one root map.
    pub(crate) fn count(&self, root: &str) -> usize {
        self.doc.length(self.roots.get(root))
    }

    /// The document's current state as JSON (for tests that look for what
    /// it names).
    #[cfg(test)]
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(&automerge::AutoSerde::from(&self.doc)).unwrap_or_default()
    }

    /// Operations in the document's history: never fewer after any change,
    /// a deletion included.
    pub(crate) fn ops(&self) -> u64 {
        self.doc.stats().num_ops
    }

    /// Bytes on disk: snapshot and log.
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.files.snapshot_bytes() + self.files.log_bytes()
    }
}

/// Every key of every root map of `doc`: what changed since nothing.
pub(crate) fn every_key(doc: &AutoCommit, roots: &crate::schema::Roots) -> ChangedKeys {
    let mut keys = ChangedKeys::default();
    for (root, object) in roots.all() {
        if let Some(set) = keys.set_for(root) {
            set.extend(doc.keys(object));
        }
    }
    keys
}

/// Which keys of which root maps a list of patches touched.
pub(crate) fn keys_of_patches(patches: Vec<automerge::Patch>) -> ChangedKeys {
    let mut changed = ChangedKeys::default();
    for patch in patches {
        let Some((parent, Prop::Map(root))) = patch.path.first() else {
            continue;
        };
        if *parent != ROOT {
            continue;
        }
        let Some(set) = changed.set_for(root) else { continue };
        match patch.path.get(1) {
            Some((_, Prop::Map(key))) => {
                set.insert(key.clone());
            }
            Some(_) => {}
            None => match &patch.action {
                PatchAction::PutMap { key, .. } | PatchAction::DeleteMap { key } => {
                    set.insert(key.clone());
                }
                PatchAction::Increment { prop: Prop::Map(key), .. }
                | PatchAction::Conflict { prop: Prop::Map(key) } => {
                    set.insert(key.clone());
                }
                _ => {}
            },
        }
    }
    changed
}
