//! Exchanging records' keys with a peer, over the sync session.
//!
//! A record merged from a peer arrives sealed; its key comes separately,
//! asked for by record ([`Replica::wanted_keys`]) and answered only for
//! records the answering node holds live ([`Replica::answer_keys`]). A key
//! is accepted only for a record this node asked about and still holds live
//! ([`Replica::accept_keys`]); a forgotten memory's key is never sent, and a
//! device paired after the forget never receives it.

use std::collections::HashSet;

use crate::{
    ChangedKeys, DocChange, DocId, ReplicaError,
    keys::{Key, KeyId},
    records,
    replica::{RecordRef, Replica, SEALED_ROOTS, lock},
    schema::RootMaps,
};

impl Replica {
    /// The records of `keys` in document `id` that are live here but whose
    /// key this node lacks: what to ask the peer for. With `keys` `None`,
    /// every record of the document is considered.
    pub fn wanted_keys(
        &self,
        id: &DocId,
        keys: Option<&ChangedKeys>,
    ) -> Result<Vec<RecordRef>, ReplicaError> {
        if *id == DocId::Registry {
            return Ok(Vec::new());
        }
        let Some(document) = self.document_if_any(id)? else { return Ok(Vec::new()) };
        let document = lock(&document);
        // The live records and their keys' ids first, without the key
        // store (a merged shard has thousands, and indexing another shard
        // reads keys from the store meanwhile), then which keys are missing.
        let mut live = Vec::new();
        let maps = document.maps();
        for (number, root) in SEALED_ROOTS.iter().enumerate() {
            let candidates: Vec<String> = match (keys, *root) {
                (Some(keys), "memories") => keys.memories.iter().cloned().collect(),
                (Some(keys), "entities") => keys.entities.iter().cloned().collect(),
                (Some(keys), _) => keys.aliases.iter().cloned().collect(),
                (None, root) => document.keys(root),
            };
            for record in candidates {
                if let Some(key_id) = self.live_key(&maps, root, &record) {
                    live.push((key_id, number as u8, record));
                }
            }
        }
        let store = lock(&self.keys);
        let mut asked = lock(&self.asked);
        let mut wanted = Vec::new();
        for (key_id, number, record) in live {
            if store.contains(&key_id) {
                continue;
            }
            asked.insert(key_id, (id.clone(), number, record.clone()));
            wanted.push((number, record));
        }
        Ok(wanted)
    }

    /// The id of the key of a record that is live here: a memory not
    /// forgotten, an entity a live memory uses, an alias whose entity is
    /// used and whose memory is not forgotten.
    fn live_key(&self, maps: &RootMaps<'_>, root: &str, record: &str) -> Option<KeyId> {
        match root {
            "memories" => records::live_memory_key(maps, record),
            "entities" => {
                records::record_key(maps, root, record).filter(|_| self.entity_used(record))
            }
            _ => records::record_key(maps, root, record).filter(|_| self.alias_live(maps, record)),
        }
    }

    /// The keys of `records` of document `id` that this node holds for live
    /// records, and the records it could not answer for (not live here, or
    /// not their key either: worth asking again when keys arrive).
    pub fn answer_keys(
        &self,
        id: &DocId,
        records: &[RecordRef],
    ) -> Result<(Vec<[u8; 32]>, Vec<RecordRef>), ReplicaError> {
        let mut answer = Vec::new();
        if *id == DocId::Registry {
            return Ok((answer, Vec::new()));
        }
        // A document this node does not have yet: nothing to answer now.
        let Some(document) = self.document_if_any(id)? else {
            return Ok((answer, records.to_vec()));
        };
        let mut unanswered = Vec::new();
        let document = lock(&document);
        let maps = document.maps();
        let store = lock(&self.keys);
        // In a share, a record is answered only if it is the share's: a
        // writer that puts a record there naming another namespace's memory
        // or entity, or its key id, gets none of its keys.
        let share = id.namespace().filter(|namespace| crate::shares::is_share_namespace(namespace));
        let of_share = |root: &str, record: &str| {
            let Some(namespace) = share else { return true };
            match root {
                "memories" => {
                    self.locate(record).is_some_and(|home| home.namespace() == Some(namespace))
                }
                "entities" => self.entity_used_in(record, namespace),
                _ => records::alias_links(&maps, record)
                    .is_some_and(|(entity, _)| self.entity_used_in(&entity, namespace)),
            }
        };
        for (number, record) in records {
            let Some(root) = SEALED_ROOTS.get(*number as usize) else { continue };
            let key = self
                .live_key(&maps, root, record)
                .filter(|_| of_share(root, record))
                .and_then(|key_id| store.get_for(record, &key_id));
            match key {
                Some(key) => answer.push(key.bytes()),
                None => unanswered.push((*number, record.clone())),
            }
        }
        Ok((answer, unanswered))
    }

    /// Files the keys a peer sent for records of document `id` that this node
    /// asked about and still holds live (any other key is dropped), durably;
    /// returns a keys-only change naming the records that became readable.
    pub fn accept_keys(
        &self,
        id: &DocId,
        keys: &[[u8; 32]],
    ) -> Result<Option<DocChange>, ReplicaError> {
        // The document first: a key is taken off the asked list only once
        // it can be filed (a document that failed to load keeps them asked).
        let Some(document) = self.document_if_any(id)? else { return Ok(None) };
        let mut accepted: Vec<(u8, String, Key)> = Vec::new();
        {
            let mut asked = lock(&self.asked);
            for bytes in keys {
                let key = Key(*bytes);
                let key_id = key.id();
                match asked.get(&key_id) {
                    Some((doc, number, record)) if doc == id => {
                        accepted.push((*number, record.clone(), key));
                        asked.remove(&key_id);
                    }
                    _ => {}
                }
            }
        }
        if accepted.is_empty() {
            return Ok(None);
        }
        let mut document = lock(&document);
        // Still live, and still naming this key (a record forgotten while its
        // key travelled must not become readable again).
        {
            let maps = document.maps();
            accepted.retain(|(number, record, key)| {
                self.live_key(&maps, SEALED_ROOTS[*number as usize], record) == Some(key.id())
            });
        }
        let filed: Vec<(&str, Key)> =
            accepted.iter().map(|(_, record, key)| (record.as_str(), key.clone())).collect();
        lock(&self.keys).insert(&filed)?;
        let mut changed = ChangedKeys::default();
        let mut seen = HashSet::new();
        for (number, record, _) in &accepted {
            if !seen.insert((*number, record.clone())) {
                continue;
            }
            match SEALED_ROOTS[*number as usize] {
                "memories" => changed.memories.insert(record.clone()),
                "entities" => changed.entities.insert(record.clone()),
                _ => changed.aliases.insert(record.clone()),
            };
        }
        if changed.is_empty() {
            return Ok(None);
        }
        let heads = document.heads();
        drop(document);
        self.announce(id);
        Ok(Some(DocChange {
            doc: id.clone(),
            before: heads.clone(),
            after: heads,
            keys: changed,
            purged: false,
        }))
    }
}

#[cfg(test)]
mod tests {
    use automerge::{ObjType, ScalarValue, transaction::Transactable};
    use ferrex_core::{Namespace, Timestamp};

    use crate::{DocId, NewMemory, NewRecords, Replica, ReplicaOptions, replica::lock};

    #[test]
    fn a_share_record_naming_another_records_key_gets_no_key() {
        let temp = tempfile::tempdir().unwrap();
        let person = Replica::open(temp.path(), "person", ReplicaOptions::default()).unwrap();
        let (work, share) = (
            Namespace::parse("work").unwrap(),
            Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap(),
        );
        let write = |namespace: &Namespace, id: &str| {
            let memory = NewMemory::episode(id, format!("text of {id}"), "person", Timestamp(1));
            let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
            person.write_new(namespace, Timestamp(1), &records).unwrap();
        };
        write(&work, "x1");
        write(&share, "s1");
        let home = person.locate("x1").unwrap();
        let private_key = {
            let document = person.document(&home).unwrap();
            let document = lock(&document);
            crate::records::live_memory_key(&document.maps(), "x1").unwrap()
        };
        // As merged from a writer of the share: a record `y` naming x1's
        // key id, and one under x1's own id naming it (x1 stays in `work`).
        let shard = DocId::shard(&share, 0);
        {
            let document = person.document(&shard).unwrap();
            let mut document = lock(&document);
            document
                .write(Timestamp(2), |doc, roots, _| {
                    for id in ["y", "x1"] {
                        let object = doc.put_object(roots.get("memories"), id, ObjType::Map)?;
                        doc.put(&object, "kind", "episode")?;
                        doc.put(&object, "key", ScalarValue::Bytes(private_key.0.to_vec()))?;
                        doc.put(&object, "sealed", ScalarValue::Bytes(vec![0; 40]))?;
                    }
                    Ok(())
                })
                .unwrap();
        }
        assert_eq!(person.locate("x1"), Some(home));
        let asked = [(0, "y".to_owned()), (0, "x1".to_owned()), (0, "s1".to_owned())];
        let (keys, unanswered) = person.answer_keys(&shard, &asked).unwrap();
        // Only the share's own record is answered.
        assert_eq!(keys.len(), 1);
        assert_eq!(unanswered, asked[..2]);
    }
}
