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
    AutoCommit, ChangeHash, PatchLog, ReadDoc,
    sync::{self, SyncDoc},
};

use crate::{
    DocChange, DocId, ReplicaError,
    document::{ChangedKeys, Document, every_key, keys_of_patches},
    replica::{Replica, lock},
    schema::genesis,
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
    /// are keys-only changes naming what became unreadable; so are the keys
    /// of memories it deleted without a tombstone ([`Replica::evict`]).
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
        let Some(mut change) = document.receive(state, message)? else { return Ok(Vec::new()) };
        self.keep_within_share(id, &mut change.keys);
        let (orphaned, revived) = self.relocate(&document, &change.keys);
        // Memories the merge deleted without a tombstone (evicted: see
        // `Replica::evict`) lose their keys here too.
        let evicted: Vec<String> = {
            let maps = document.maps();
            change
                .keys
                .memories
                .iter()
                .filter(|memory| {
                    !change.keys.forgotten.contains(*memory)
                        && maps.child("memories", memory).is_none()
                        && !crate::records::is_forgotten(&maps, memory)
                })
                .cloned()
                .collect()
        };
        drop(document);
        let mut changes = Vec::new();
        if let Some(namespace) = id.namespace() {
            if !change.keys.forgotten.is_empty() || !orphaned.is_empty() {
                let mut forgotten: Vec<String> = change.keys.forgotten.iter().cloned().collect();
                forgotten.extend(evicted.iter().cloned());
                changes = self.purge(namespace, &forgotten, &orphaned)?;
            } else if !evicted.is_empty() {
                lock(&self.keys).remove_records(evicted.iter().map(String::as_str))?;
            }
            if !evicted.is_empty() {
                // What they opened leaves the index and its WAL.
                changes.push(DocChange {
                    doc: id.clone(),
                    before: change.after.clone(),
                    after: change.after.clone(),
                    keys: ChangedKeys {
                        memories: evicted.into_iter().collect(),
                        ..ChangedKeys::default()
                    },
                    purged: true,
                });
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
        let message = match self.receive_whole(state, message, &before, empty_before)? {
            Ok(change) => return Ok(change),
            Err(message) => message,
        };
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

    /// Takes a peer's whole document in place of a shard that is its
    /// genesis alone (a fresh device's first sync of it): the peer sends
    /// its document saved whole (in a sync message V2) when this side lacks
    /// more than a third of it. Loading those bytes costs a third
    /// of merging the changes they hold into the genesis, and they are
    /// made durable as they came, as the snapshot, where a merge would save
    /// the document again. Gives the message back when it is not such a
    /// case (or the bytes do not load: the merge then says why).
    fn receive_whole(
        &mut self,
        state: &mut sync::State,
        mut message: sync::Message,
        before: &[ChangeHash],
        empty: bool,
    ) -> Result<Result<Option<DocChange>, sync::Message>, ReplicaError> {
        // A V2 message carries its changes as one chunk: the whole saved
        // document, or (when this side lacks less) a run of changes, which
        // does not load into a document holding the genesis. `empty` (a
        // shard holding no record) is looked at before the genesis is built.
        let whole = empty
            && !state.read_only
            && message.version == sync::MessageVersion::V2
            && message.changes.len() == 1
            && before == genesis(&self.id).get_heads().as_slice();
        let Some(bytes) = message.changes.iter().next().filter(|_| whole) else {
            return Ok(Err(message));
        };
        let Ok(mut loaded) = AutoCommit::load(bytes) else { return Ok(Err(message)) };
        // It must hold this document's genesis: the same document.
        if !before.iter().all(|hash| loaded.get_change_meta_by_hash(hash).is_some()) {
            return Ok(Err(message));
        }
        loaded.set_actor(self.doc.get_actor().clone());
        self.adopt(loaded, bytes)?;
        // The rest of the message (heads, needs, bloom filter) goes through
        // the protocol as usual. Without changes, and with heads equal to
        // ours now, it would also record that we last sent those heads: we
        // did not, and the reply must carry them (the acknowledgement).
        message.changes = sync::ChunkList::empty();
        let last_sent = state.last_sent_heads.clone();
        self.doc.sync().receive_sync_message(state, message).map_err(|source| {
            ReplicaError::Write { doc: self.id.clone(), source: Box::new(source) }
        })?;
        state.last_sent_heads = last_sent;
        let after = self.doc.get_heads();
        if after == before {
            return Ok(Ok(None));
        }
        let keys = every_key(&self.doc, &self.roots);
        Ok(Ok(Some(DocChange {
            doc: self.id.clone(),
            before: before.to_vec(),
            after,
            keys,
            purged: false,
        })))
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

    use automerge::{
        sync::{Message, MessageVersion, State, SyncDoc},
        transaction::Transactable,
    };

    use super::*;
    use crate::schema::Roots;

    /// Shard `id` with `records` memories after its genesis, a change each.
    fn shard_with(id: &DocId, records: usize) -> AutoCommit {
        let mut doc = genesis(id);
        let memories = Roots::find(&doc, id).unwrap().get("memories").clone();
        for record in 0..records {
            doc.put(&memories, format!("m-{record}"), record as i64).unwrap();
            doc.commit();
        }
        doc
    }

    /// Runs the sync protocol on `doc` between `a` and `b` until quiet;
    /// the changes `b` merged.
    fn sync_pair(a: &Replica, b: &Replica, doc: &DocId) -> Vec<DocChange> {
        let (mut state_a, mut state_b) = (State::new(), State::new());
        let mut merged = Vec::new();
        for _ in 0..20 {
            let to_b = a.generate_sync_message(doc, &mut state_a).unwrap();
            let to_a = b.generate_sync_message(doc, &mut state_b).unwrap();
            if to_b.is_none() && to_a.is_none() {
                break;
            }
            if let Some(message) = to_b {
                merged.extend(b.receive_sync_message(doc, &mut state_b, &message).unwrap());
            }
            if let Some(message) = to_a {
                a.receive_sync_message(doc, &mut state_a, &message).unwrap();
            }
        }
        merged
    }

    #[test]
    fn an_eviction_leaves_no_tombstone_and_takes_the_key_wherever_it_is_merged() {
        use ferrex_core::{Namespace, Timestamp};

        use crate::{NewMemory, NewRecords, ReplicaOptions, records::Lookup};

        let temp = tempfile::tempdir().unwrap();
        let open = |name: &str| {
            Replica::open(&temp.path().join(name), name, ReplicaOptions::default()).unwrap()
        };
        let (laptop, desktop, offline) = (open("laptop"), open("desktop"), open("offline"));
        let namespace = Namespace::parse("work").unwrap();
        let shard = DocId::shard(&namespace, 0);
        let events: Vec<NewMemory> = (0..3)
            .map(|n| {
                NewMemory::episode(format!("e{n}"), format!("event {n}"), "laptop", Timestamp(n))
            })
            .collect();
        let records = NewRecords { memories: events, ..NewRecords::default() };
        laptop.write_new(&namespace, Timestamp(10), &records).unwrap();
        for peer in [&desktop, &offline] {
            sync_pair(&laptop, peer, &shard);
            let wanted = peer.wanted_keys(&shard, None).unwrap();
            let (keys, _) = laptop.answer_keys(&shard, &wanted).unwrap();
            peer.accept_keys(&shard, &keys).unwrap();
            assert!(lock(&peer.keys).has_record("e0"));
        }

        let evicted = laptop.evict(&["e0".to_owned(), "nope".to_owned()], Timestamp(20)).unwrap();
        assert_eq!(
            (evicted.forgotten, evicted.unknown),
            (vec!["e0".to_owned()], vec!["nope".to_owned()])
        );
        assert!(!lock(&laptop.keys).has_record("e0"));
        let merged = sync_pair(&laptop, &desktop, &shard);
        assert!(
            merged.iter().any(|change| change.purged && change.keys.memories.contains("e0")),
            "{merged:?}"
        );
        assert!(!lock(&desktop.keys).has_record("e0") && lock(&desktop.keys).has_record("e1"));
        // A device offline during the eviction brings nothing back: its
        // older state merges into the deletion.
        sync_pair(&offline, &laptop, &shard);
        assert!(!lock(&offline.keys).has_record("e0"));
        for replica in [&laptop, &desktop, &offline] {
            replica
                .read(&shard, |reader| {
                    assert!(reader.tombstone("e0").is_none(), "no tombstone: nothing stays");
                    assert!(matches!(reader.memory_lookup("e0"), Lookup::Absent));
                    assert!(matches!(reader.memory_lookup("e1"), Lookup::Found(_)));
                })
                .unwrap();
        }
        assert_eq!(laptop.heads(&shard).unwrap(), offline.heads(&shard).unwrap());
    }

    #[test]
    fn a_share_document_naming_a_private_memory_moves_forgets_and_unlocks_nothing_of_it() {
        use ferrex_core::{Namespace, Timestamp};

        use crate::{NewMemory, NewRecords, ReplicaOptions, records::Lookup};

        let temp = tempfile::tempdir().unwrap();
        let open = |name: &str| {
            Replica::open(&temp.path().join(name), name, ReplicaOptions::default()).unwrap()
        };
        let (person, teammate) = (open("person"), open("teammate"));
        let project = Namespace::parse("acme-api").unwrap();
        let share = Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap();
        let private = NewMemory::episode("x1", "the private one", "person", Timestamp(1));
        person
            .write_new(
                &project,
                Timestamp(1),
                &NewRecords { memories: vec![private], ..NewRecords::default() },
            )
            .unwrap();
        let home = person.locate("x1").unwrap();
        // The teammate writes a record under the same id into the share,
        // then forgets it: a tombstone of x1 in the share's document.
        let forged = NewMemory::episode("x1", "forged", "teammate", Timestamp(2));
        teammate
            .write_new(
                &share,
                Timestamp(2),
                &NewRecords { memories: vec![forged], ..NewRecords::default() },
            )
            .unwrap();
        let shard = teammate.locate("x1").unwrap();
        assert_eq!(shard.namespace(), Some(&share));
        let merged = sync_pair(&teammate, &person, &shard);
        teammate.forget(&["x1".to_owned()], Timestamp(3)).unwrap();
        let merged: Vec<DocChange> =
            merged.into_iter().chain(sync_pair(&teammate, &person, &shard)).collect();
        assert!(!merged.is_empty());
        for change in &merged {
            assert!(
                !change.keys.memories.contains("x1") && !change.keys.forgotten.contains("x1"),
                "the index was told of x1: {change:?}"
            );
        }
        assert_eq!(person.locate("x1"), Some(home.clone()), "x1 moved");
        assert!(lock(&person.keys).has_record("x1"), "x1's key was deleted");
        person
            .read(&home, |reader| {
                assert!(matches!(reader.memory_lookup("x1"), Lookup::Found(_)));
            })
            .unwrap();
        // Reopened, the person's own document still holds x1's place.
        drop(person);
        assert_eq!(open("person").locate("x1"), Some(home));
    }

    /// [`sync_pair`] with `a`'s state for `b` read-only: `a` sends its
    /// changes and applies none of `b`'s (the session a member will hold
    /// with a share's reader); then, the same states kept, `a` takes `b`'s
    /// changes again (a promotion).
    #[test]
    fn a_read_only_peer_gets_our_changes_and_none_of_its_own_reach_us() {
        use ferrex_core::{Namespace, Timestamp};

        use crate::{NewMemory, NewRecords, ReplicaOptions, records::Lookup};

        let temp = tempfile::tempdir().unwrap();
        let open = |name: &str| {
            Replica::open(&temp.path().join(name), name, ReplicaOptions::default()).unwrap()
        };
        let (person, reader) = (open("person"), open("reader"));
        let namespace = Namespace::parse("shared").unwrap();
        let shard = DocId::shard(&namespace, 0);
        let write = |replica: &Replica, id: &str, at: i64| {
            let memory =
                NewMemory::episode(id.to_owned(), format!("text {id}"), "x", Timestamp(at));
            let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
            replica.write_new(&namespace, Timestamp(at), &records).unwrap();
        };
        // In the document, readable or not (keys are exchanged apart).
        let found = |replica: &Replica, id: &str| {
            replica
                .read(&shard, |reader| !matches!(reader.memory_lookup(id), Lookup::Absent))
                .unwrap()
        };
        let (mut on_person, mut on_reader) = (State::new_read_only(), State::new());
        let run = |on_person: &mut State, on_reader: &mut State| {
            for _ in 0..40 {
                let to_reader = person.generate_sync_message(&shard, on_person).unwrap();
                let to_person = reader.generate_sync_message(&shard, on_reader).unwrap();
                if to_reader.is_none() && to_person.is_none() {
                    return;
                }
                if let Some(message) = to_reader {
                    reader.receive_sync_message(&shard, on_reader, &message).unwrap();
                }
                if let Some(message) = to_person {
                    person.receive_sync_message(&shard, on_person, &message).unwrap();
                }
            }
            panic!("sync did not go quiet in 40 rounds");
        };
        // The reader starts fresh: the person's first message is the whole
        // document, which the reader adopts.
        for n in 0..30 {
            write(&person, &format!("p{n}"), n);
        }
        run(&mut on_person, &mut on_reader);
        assert!(found(&reader, "p0") && found(&reader, "p29"));
        assert_eq!(reader.heads(&shard).unwrap(), person.heads(&shard).unwrap());
        // Then both write: the person's reach the reader, the reader's stay
        // with it.
        let before = person.heads(&shard).unwrap();
        write(&reader, "r0", 100);
        run(&mut on_person, &mut on_reader);
        assert_eq!(person.heads(&shard).unwrap(), before, "a reader's change reached the person");
        write(&person, "p30", 200);
        write(&reader, "r1", 201);
        run(&mut on_person, &mut on_reader);
        assert!(found(&reader, "p30"));
        assert!(!found(&person, "r0") && !found(&person, "r1"));
        // Promoted: what the reader wrote meanwhile arrives.
        on_person.set_read_only(false);
        run(&mut on_person, &mut on_reader);
        assert!(found(&person, "r0") && found(&person, "r1"));
        assert_eq!(person.heads(&shard).unwrap(), reader.heads(&shard).unwrap());
    }

    #[test]
    fn a_fresh_shard_takes_a_peers_whole_document_as_a_merge_of_it_would() {
        let id: DocId = "ns.whole.0".parse().unwrap();
        let mut source = shard_with(&id, 40);
        let dir = tempfile::tempdir().unwrap();
        let mut fresh =
            Document::open(dir.path(), id.clone(), crate::storage::DEFAULT_COMPACT_LOG_BYTES)
                .unwrap();
        // The same messages merged by Automerge into a bare genesis: what
        // the protocol would have done without the shortcut.
        let mut reference = genesis(&id);
        let (mut theirs, mut ours, mut reference_state) =
            (State::new(), State::new(), State::new());
        let mut whole = 0;
        for _ in 0..10 {
            let Some(message) = source.sync().generate_sync_message(&mut theirs) else { break };
            reference.sync().receive_sync_message(&mut reference_state, message.clone()).unwrap();
            if message.version == MessageVersion::V2 {
                whole += 1;
                let before = fresh.doc.get_heads();
                let taken = fresh.receive_whole(&mut ours, message, &before, true).unwrap();
                let change = taken.unwrap_or_else(|_| panic!("the whole document was not taken"));
                assert_eq!(change.unwrap().keys.memories.len(), 40);
            } else {
                fresh.receive(&mut ours, message).unwrap();
            }
            // Same heads, same reply (the acknowledgement among it).
            assert_eq!(fresh.doc.get_heads(), reference.get_heads());
            let reply = fresh.doc.sync().generate_sync_message(&mut ours);
            let expected = reference.sync().generate_sync_message(&mut reference_state);
            assert_eq!(reply.clone().map(Message::encode), expected.map(Message::encode));
            let Some(reply) = reply else { break };
            source.sync().receive_sync_message(&mut theirs, reply).unwrap();
        }
        assert_eq!(whole, 1, "the peer sent its whole document once");
        assert_eq!(fresh.doc.get_heads(), source.get_heads());
        // Durable as it was acknowledged, and this device's own changes
        // go on under its own actor.
        assert_ne!(fresh.doc.get_actor(), source.get_actor());
        drop(fresh);
        let mut reopened =
            Document::open(dir.path(), id, crate::storage::DEFAULT_COMPACT_LOG_BYTES).unwrap();
        assert_eq!(reopened.doc.get_heads(), source.get_heads());
    }

    #[test]
    fn a_whole_document_is_merged_as_usual_when_the_shard_is_not_fresh_or_not_the_same() {
        let id: DocId = "ns.whole.0".parse().unwrap();
        let whole = |doc: &mut AutoCommit| Message {
            heads: doc.get_heads(),
            need: Vec::new(),
            have: Vec::new(),
            changes: doc.save().into(),
            flags: None,
            version: MessageVersion::V2,
        };
        let dir = tempfile::tempdir().unwrap();
        // Another shard's document does not hold this one's genesis.
        let mut fresh = Document::open(
            &dir.path().join("a"),
            id.clone(),
            crate::storage::DEFAULT_COMPACT_LOG_BYTES,
        )
        .unwrap();
        let before = fresh.doc.get_heads();
        let other = whole(&mut shard_with(&"ns.whole.1".parse().unwrap(), 3));
        assert!(fresh.receive_whole(&mut State::new(), other, &before, true).unwrap().is_err());
        // A shard that holds a record already merges.
        let mut written = Document::open(
            &dir.path().join("b"),
            id.clone(),
            crate::storage::DEFAULT_COMPACT_LOG_BYTES,
        )
        .unwrap();
        written.doc = shard_with(&id, 1);
        let before = written.doc.get_heads();
        let message = whole(&mut shard_with(&id, 3));
        assert!(written.receive_whole(&mut State::new(), message, &before, true).unwrap().is_err());
    }
}
