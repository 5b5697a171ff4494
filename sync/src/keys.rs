//! The key store: one random key per sealed record (memory, entity, alias),
//! kept outside document history so that deleting a key forgets the record.
//!
//! Documents keep every value ever written in their history, so a record's
//! content is stored there sealed (`seal.rs`: XChaCha20-Poly1305) under a key of its own.
//! Forgetting a record deletes its key here, and what the history keeps is
//! noise from then on (crypto-shredding).
//!
//! The file `keys` is a 64-byte header and then 64-byte slots, overwritten in
//! place so that a deleted key's bytes are gone from the file, not left in a
//! freed page or an old generation of it:
//!
//! ```text
//! slot: record tag (16) | key (32) | sha256(tag | key)[..8] | zero (8)
//! ```
//!
//! A slot of zeros is free. The record tag is a hash of the record's id, so
//! the file names no record in the clear. A write of new keys is synced
//! (`fdatasync`) before the document change that uses them is written, so a
//! record on disk always has its key on disk; a crash between the two leaves
//! an unused key, which the next start deletes ([`crate::Replica::open`]).
//! A deletion is synced before it returns.
//!
//! A slot whose checksum fails (a write torn by a power cut, or damage) is
//! reported, treated as free and overwritten on the next insert: the record
//! it held asks its peers for the key again.

use std::{
    collections::HashMap,
    fs::{File, OpenOptions},
    io::Read,
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

use crate::{
    faults::{self, Op},
    storage::{StorageError, sync_dir},
};

/// Header of the key file: magic, format version 1, zero padding.
const HEADER: [u8; 64] = {
    let mut header = [0u8; 64];
    let magic = *b"FXKEYS\x00\x01";
    let mut index = 0;
    while index < magic.len() {
        header[index] = magic[index];
        index += 1;
    }
    header
};
/// Bytes per slot.
const SLOT: usize = 64;

/// A record's key: 32 random bytes. Its `Debug` never shows them.
#[derive(Clone, PartialEq, Eq)]
pub struct Key(pub(crate) [u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Key(..)")
    }
}

impl Key {
    /// A new random key.
    pub fn random() -> Key {
        use rand::RngExt;
        Key(rand::rng().random())
    }

    /// The key's bytes, for the wire.
    pub fn bytes(&self) -> [u8; 32] {
        self.0
    }

    /// The id a sealed record names its key by: a hash of the key, so that
    /// the id says nothing of it.
    pub fn id(&self) -> KeyId {
        let digest = Sha256::new().chain_update(b"ferrex key id\0").chain_update(self.0).finalize();
        let mut id = [0u8; 16];
        id.copy_from_slice(&digest[..16]);
        KeyId(id)
    }
}

/// The id of a key, as a sealed record names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(pub [u8; 16]);

/// A hash of a record's id, under which its keys are filed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordTag([u8; 16]);

impl RecordTag {
    /// The tag of the record with id `record` (a memory, entity or alias key).
    pub fn of(record: &str) -> RecordTag {
        let digest = Sha256::new().chain_update(b"ferrex record\0").chain_update(record).finalize();
        let mut tag = [0u8; 16];
        tag.copy_from_slice(&digest[..16]);
        RecordTag(tag)
    }
}

#[derive(Debug)]
struct Entry {
    slot: u64,
    key: Key,
}

/// The open key file and every key in it.
#[derive(Debug)]
pub struct KeyStore {
    path: PathBuf,
    file: File,
    by_id: HashMap<KeyId, Entry>,
    by_tag: HashMap<RecordTag, Vec<KeyId>>,
    free: Vec<u64>,
    slots: u64,
    damaged: usize,
}

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> StorageError + 'a {
    move |source| StorageError::Io { action, path: path.to_owned(), source }
}

fn checksum(tag: &RecordTag, key: &Key) -> [u8; 8] {
    let digest = Sha256::new().chain_update(tag.0).chain_update(key.0).finalize();
    let mut sum = [0u8; 8];
    sum.copy_from_slice(&digest[..8]);
    sum
}

fn encode_slot(tag: &RecordTag, key: &Key) -> [u8; SLOT] {
    let mut slot = [0u8; SLOT];
    slot[..16].copy_from_slice(&tag.0);
    slot[16..48].copy_from_slice(&key.0);
    slot[48..56].copy_from_slice(&checksum(tag, key));
    slot
}

impl KeyStore {
    /// Opens (creating if needed) the key file at `path`.
    pub fn open(path: &Path) -> Result<KeyStore, StorageError> {
        let mut file = faults::check(Op::Create)
            .and_then(|()| {
                OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)
            })
            .map_err(io_error("opening", path))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io_error("reading", path))?;
        // Empty, or part of the header: the file was being created when
        // the process stopped or the write failed. It held no key yet.
        if bytes.len() < HEADER.len() && HEADER.starts_with(&bytes) {
            faults::write_all_at(&file, &HEADER, 0).map_err(io_error("writing", path))?;
            faults::check(Op::Sync)
                .and_then(|()| file.sync_all())
                .map_err(io_error("syncing", path))?;
            if let Some(parent) = path.parent() {
                sync_dir(parent)?;
            }
            bytes = HEADER.to_vec();
        }
        if bytes.len() < HEADER.len() || bytes[..8] != HEADER[..8] {
            return Err(StorageError::UnknownFormat {
                path: path.to_owned(),
                header: bytes[..bytes.len().min(8)].to_vec(),
            });
        }
        let mut store = KeyStore {
            path: path.to_owned(),
            file,
            by_id: HashMap::new(),
            by_tag: HashMap::new(),
            free: Vec::new(),
            slots: 0,
            damaged: 0,
        };
        // A partial last slot (a crash while the file grew) counts as free.
        let body = &bytes[HEADER.len()..];
        store.slots = body.len().div_ceil(SLOT) as u64;
        for (index, slot) in body.chunks(SLOT).enumerate() {
            let index = index as u64;
            if slot.len() < SLOT || slot.iter().all(|byte| *byte == 0) {
                store.free.push(index);
                continue;
            }
            let mut tag = [0u8; 16];
            tag.copy_from_slice(&slot[..16]);
            let mut key = [0u8; 32];
            key.copy_from_slice(&slot[16..48]);
            let (tag, key) = (RecordTag(tag), Key(key));
            if checksum(&tag, &key) != slot[48..56] {
                store.damaged += 1;
                store.free.push(index);
                continue;
            }
            store.remember(index, tag, key);
        }
        if store.damaged > 0 {
            tracing::warn!(
                path = %path.display(),
                damaged = store.damaged,
                "key slots with a bad checksum were dropped; their records will ask peers for their keys"
            );
        }
        // Free slots are reused from the lowest.
        store.free.reverse();
        Ok(store)
    }

    fn remember(&mut self, slot: u64, tag: RecordTag, key: Key) {
        let id = key.id();
        self.by_tag.entry(tag).or_default().push(id);
        self.by_id.insert(id, Entry { slot, key });
    }

    /// The key with id `id`.
    pub fn get(&self, id: &KeyId) -> Option<&Key> {
        self.by_id.get(id).map(|entry| &entry.key)
    }

    /// The key with id `id`, if it is filed for `record` (a memory, entity
    /// or alias key): a record naming another record's key id gets nothing.
    pub fn get_for(&self, record: &str, id: &KeyId) -> Option<&Key> {
        let filed = self.by_tag.get(&RecordTag::of(record))?;
        filed.contains(id).then(|| self.get(id)).flatten()
    }

    /// Whether the key `id` is here.
    pub fn contains(&self, id: &KeyId) -> bool {
        self.by_id.contains_key(id)
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Slots found damaged when the file was opened.
    pub fn damaged(&self) -> usize {
        self.damaged
    }

    /// Bytes of the key file.
    pub fn file_bytes(&self) -> u64 {
        HEADER.len() as u64 + self.slots * SLOT as u64
    }

    /// Writes the keys of `records` (record id, key), each once, and syncs
    /// the file before returning.
    pub fn insert(&mut self, records: &[(&str, Key)]) -> Result<(), StorageError> {
        let mut written: Vec<(u64, RecordTag, Key)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (record, key) in records {
            let id = key.id();
            if self.by_id.contains_key(&id) || !seen.insert(id) {
                continue;
            }
            let tag = RecordTag::of(record);
            let slot = match self.free.pop() {
                Some(slot) => slot,
                None => {
                    self.slots += 1;
                    self.slots - 1
                }
            };
            written.push((slot, tag, key.clone()));
            let offset = HEADER.len() as u64 + slot * SLOT as u64;
            if let Err(error) = faults::write_all_at(&self.file, &encode_slot(&tag, key), offset) {
                self.release(&written);
                return Err(io_error("writing", &self.path)(error));
            }
        }
        if written.is_empty() {
            return Ok(());
        }
        if let Err(error) = faults::check(Op::Sync).and_then(|()| self.file.sync_data()) {
            self.release(&written);
            return Err(io_error("syncing", &self.path)(error));
        }
        for (slot, tag, key) in written {
            self.remember(slot, tag, key);
        }
        Ok(())
    }

    /// Gives back the slots of keys whose write failed, to be written
    /// again: a slot holding part of a key reads as damaged, hence free.
    fn release(&mut self, written: &[(u64, RecordTag, Key)]) {
        self.free.extend(written.iter().rev().map(|(slot, _, _)| *slot));
    }

    /// Overwrites with zeros every key filed under the records `ids`, syncs
    /// the file, and returns how many keys went.
    pub fn remove_records<'a>(
        &mut self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize, StorageError> {
        let tags: Vec<RecordTag> = ids.into_iter().map(RecordTag::of).collect();
        self.remove_tags(&tags)
    }

    /// Whether any key is filed under record `id`.
    pub fn has_record(&self, id: &str) -> bool {
        self.by_tag.contains_key(&RecordTag::of(id))
    }

    /// The tags of every record that has a key, for the clean-up of keys
    /// whose record is gone.
    pub fn tags(&self) -> Vec<RecordTag> {
        self.by_tag.keys().copied().collect()
    }

    /// Overwrites with zeros every key filed under `tags` (see
    /// [`KeyStore::tags`]), syncs the file, and returns how many keys went.
    pub fn remove_tags(&mut self, tags: &[RecordTag]) -> Result<usize, StorageError> {
        let mut removed = 0;
        for tag in tags {
            let Some(keys) = self.by_tag.get(tag).cloned() else { continue };
            for id in keys {
                if let Some(entry) = self.by_id.get(&id) {
                    let offset = HEADER.len() as u64 + entry.slot * SLOT as u64;
                    faults::write_all_at(&self.file, &[0u8; SLOT], offset)
                        .map_err(io_error("overwriting", &self.path))?;
                    removed += 1;
                }
            }
        }
        if removed == 0 {
            return Ok(0);
        }
        faults::check(Op::Sync)
            .and_then(|()| self.file.sync_data())
            .map_err(io_error("syncing", &self.path))?;
        for tag in tags {
            for id in self.by_tag.remove(tag).unwrap_or_default() {
                if let Some(entry) = self.by_id.remove(&id) {
                    self.free.push(entry.slot);
                }
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &Path) -> KeyStore {
        KeyStore::open(&dir.join("keys")).unwrap()
    }

    #[test]
    fn keys_survive_a_reopen_and_removed_keys_leave_no_byte_behind() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (Key::random(), Key::random());
        {
            let mut store = open(dir.path());
            store.insert(&[("memory-1", first.clone()), ("memory-2", second.clone())]).unwrap();
            assert_eq!(store.remove_records(["memory-1"]).unwrap(), 1);
        }
        let store = open(dir.path());
        assert_eq!(store.get(&second.id()), Some(&second));
        assert!(store.get(&first.id()).is_none());
        assert!(!store.has_record("memory-1") && store.has_record("memory-2"));
        let bytes = std::fs::read(dir.path().join("keys")).unwrap();
        assert!(!bytes.windows(32).any(|window| window == first.0), "a removed key is on disk");
        assert!(bytes.windows(32).any(|window| window == second.0));
    }

    #[test]
    fn a_freed_slot_is_reused_and_the_file_does_not_grow() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(dir.path());
        store.insert(&[("a", Key::random())]).unwrap();
        let size = store.file_bytes();
        store.remove_records(["a"]).unwrap();
        store.insert(&[("b", Key::random())]).unwrap();
        assert_eq!(store.file_bytes(), size);
        assert_eq!(std::fs::metadata(dir.path().join("keys")).unwrap().len(), size);
    }

    #[test]
    fn a_damaged_slot_is_dropped_and_its_neighbours_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (Key::random(), Key::random());
        open(dir.path()).insert(&[("a", first.clone()), ("b", second.clone())]).unwrap();
        let path = dir.path().join("keys");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER.len() + 20] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let store = open(dir.path());
        assert_eq!(store.damaged(), 1);
        assert_eq!(store.len(), 1);
        assert_eq!(store.get(&second.id()), Some(&second));
    }

    #[test]
    fn a_file_of_another_kind_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keys"), b"not a key file at all").unwrap();
        assert!(matches!(
            KeyStore::open(&dir.path().join("keys")),
            Err(StorageError::UnknownFormat { .. })
        ));
    }

    #[test]
    fn a_key_filed_twice_is_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let key = Key::random();
        let mut store = open(dir.path());
        store.insert(&[("a", key.clone()), ("a", key.clone())]).unwrap();
        store.insert(&[("a", key)]).unwrap();
        assert_eq!(store.len(), 1);
        assert_eq!(store.file_bytes(), (HEADER.len() + SLOT) as u64);
    }
}
