//! The Automerge sync protocol, one document and one peer at a time: the
//! replica's side of it, free of any network.
//!
//! A session keeps one `automerge::sync::State` per document for its peer
//! and calls [`Replica::generate_sync_message`] whenever the document changed
//! or a message arrived, and [`Replica::receive_sync_message`] for every
//! message from the peer. A received message's changes are on disk before it
//! returns, so the next message generated (which tells the peer our new
//! heads, and so acknowledges them) never claims changes a crash could lose.

use automerge::{
    PatchLog, ReadDoc,
    sync::{self, SyncDoc},
};

use crate::{
    DocChange, DocId, ReplicaError,
    document::{Document, every_key, keys_of_patches},
    replica::{Replica, lock},
};

impl Replica {
    /// The next sync message of document `id` for the peer whose state is
    /// `state`, encoded; `None` when there is nothing to say. A document this
    /// replica does not have yet is created from its genesis.
    pub fn generate_sync_message(
        &self,
        id: &DocId,
        state: &mut sync::State,
    ) -> Result<Option<Vec<u8>>, ReplicaError> {
        self.ensure_document(id)?;
        let document = self.document(id)?;
        let mut document = lock(&document);
        Ok(document.doc.sync().generate_sync_message(state).map(sync::Message::encode))
    }

    /// Applies an encoded sync message from a peer to document `id`
    /// (created from its genesis if this replica does not have it), makes
    /// what it merged durable, and says what changed; `None` when the message
    /// brought no new change. When it brought tombstones, the keys of the
    /// forgotten memories (and of entities and aliases only they used) are
    /// deleted before this returns, and the changes that follow the first
    /// are keys-only changes naming what became unreadable.
    pub fn receive_sync_message(
        &self,
        id: &DocId,
        state: &mut sync::State,
        message: &[u8],
    ) -> Result<Vec<DocChange>, ReplicaError> {
        let message = sync::Message::decode(message).map_err(|error| {
            ReplicaError::BadSyncMessage { doc: id.clone(), reason: error.to_string() }
        })?;
        self.ensure_document(id)?;
        let document = self.document(id)?;
        let mut document = lock(&document);
        let Some(change) = document.receive(state, message)? else { return Ok(Vec::new()) };
        let (orphaned, revived) = self.relocate(&document, &change.keys);
        drop(document);
        let mut changes = Vec::new();
        if let Some(namespace) = id.namespace() {
            if !change.keys.forgotten.is_empty() || !orphaned.is_empty() {
                let forgotten: Vec<String> = change.keys.forgotten.iter().cloned().collect();
                changes = self.purge(namespace, &forgotten, &orphaned)?;
            }
            // Entities of other shards (or older changes) that a merged
            // memory uses now: read them (and ask for their keys) again.
            // Those this change brought are read with it already.
            let revived: Vec<String> = revived
                .into_iter()
                .filter(|entity| !change.keys.entities.contains(entity))
                .collect();
            if !revived.is_empty() {
                changes.extend(self.entity_changes(namespace, &revived)?);
            }
        }
        self.announce(id);
        changes.insert(0, change);
        Ok(changes)
    }

    /// Whether document `id` has every change in `heads` (false when this
    /// replica lacks the document).
    pub fn knows_heads(&self, id: &DocId, heads: &[automerge::ChangeHash]) -> bool {
        match self.document(id) {
            Ok(document) => lock(&document).knows(heads),
            Err(_) => false,
        }
    }

    /// How many changes of document `id` a peer lacks, from its `heads` and
    /// the heads both sides last agreed on (`shared`): the changes that are
    /// ancestors of neither. Hashes this replica does not know are skipped;
    /// every change counts when both are empty. `None` when this replica
    /// lacks the document.
    pub fn changes_missing_from(
        &self,
        id: &DocId,
        heads: &[automerge::ChangeHash],
        shared: &[automerge::ChangeHash],
    ) -> Option<usize> {
        let document = self.document(id).ok()?;
        let mut document = lock(&document);
        Some(document.changes_missing_from(heads, shared))
    }
}

impl Document {
    /// Merges a sync message and persists what it brought.
    pub(crate) fn receive(
        &mut self,
        state: &mut sync::State,
        message: sync::Message,
    ) -> Result<Option<DocChange>, ReplicaError> {
        let before = self.doc.get_heads();
        // A shard that holds no record yet (a fresh device's first message
        // of it is the whole document) changes in every key it holds after:
        // listing the root maps costs a fraction of the patches, one per
        // field of every record.
        let empty_before = self.id != DocId::Registry
            && self.roots.all().all(|(_, object)| self.doc.length(object) == 0);
        let mut log = if empty_before { PatchLog::inactive() } else { PatchLog::active() };
        self.doc.sync().receive_sync_message_log_patches(state, message, &mut log).map_err(
            |source| ReplicaError::Write { doc: self.id.clone(), source: Box::new(source) },
        )?;
        let after = self.doc.get_heads();
        if after == before {
            return Ok(None);
        }
        if empty_before {
            // All it holds is new: one snapshot, instead of its changes
            // appended and then (the log now outgrowing the snapshot) all
            // of it saved again by a compaction.
            self.persist_whole()?;
        } else {
            self.persist()?;
        }
        let keys = if empty_before {
            every_key(&self.doc, &self.roots)
        } else {
            keys_of_patches(self.doc.make_patches(&mut log))
        };
        Ok(Some(DocChange { doc: self.id.clone(), before, after, keys, purged: false }))
    }

    /// Changes that are ancestors of none of the known hashes of `heads`
    /// and `shared`.
    pub(crate) fn changes_missing_from(
        &mut self,
        heads: &[automerge::ChangeHash],
        shared: &[automerge::ChangeHash],
    ) -> usize {
        let mut known: Vec<automerge::ChangeHash> = heads
            .iter()
            .chain(shared)
            .copied()
            .filter(|hash| self.doc.get_change_meta_by_hash(hash).is_some())
            .collect();
        known.sort();
        known.dedup();
        let mut ours = self.doc.get_heads();
        ours.sort();
        if known == ours {
            return 0;
        }
        self.doc.get_changes_meta(&known).len()
    }
}
