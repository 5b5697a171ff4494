//! The upgrade of a documents directory from format 1 to format 2.
//!
//! Format 1 kept every record's content in the clear in document history,
//! where forgetting could not reach it. The upgrade rewrites each shard from
//! its live state, with no history, every record sealed under a new key
//! ([`crate::keys`]); memories forgotten before the upgrade keep only their
//! tombstones, and entities and aliases that only they used are dropped. The
//! registry (devices, pairings; no memory content) is carried over as it is.
//!
//! The new directory is built beside the old one (`docs.upgrading`), synced,
//! and swapped in by two renames: the old one becomes `docs.format-1` and is
//! then deleted. A crash at any point leaves either the old directory whole
//! (the upgrade starts again) or the new one whole (the clean-up finishes).

use std::{
    collections::HashSet,
    fs,
    path::{Path, PathBuf},
};

use automerge::{
    AutoCommit, ScalarValue,
    transaction::{CommitOptions, Transactable},
};

use crate::{
    DocId, ReplicaError,
    document::Document,
    keys::{Key, KeyStore},
    records::{self, Counters, NewMemory},
    schema::{self, Roots},
    storage::{self, DocFiles},
};

/// Contents of the `FORMAT` file at the root of a documents directory.
pub(crate) const FORMAT: &str = "ferrex documents 2\n";
/// What a format-1 directory's `FORMAT` file says.
pub(crate) const FORMAT_1: &str = "ferrex documents 1\n";
/// The key file, beside the documents.
pub(crate) const KEYS_FILE: &str = "keys";

/// What the upgrade from format 1 did when this replica was opened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Upgrade {
    /// Live memories carried over.
    pub memories: usize,
    /// Forgotten memories whose text the old history still held, now gone.
    pub purged: usize,
    /// Entities carried over.
    pub entities: usize,
    /// Entities dropped because only forgotten memories used them.
    pub entities_dropped: usize,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReplicaError + '_ {
    move |source| ReplicaError::Io { path: path.to_owned(), source }
}

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().map(|name| name.to_os_string()).unwrap_or_default();
    name.push(suffix);
    dir.with_file_name(name)
}

fn format_of(dir: &Path) -> Option<String> {
    fs::read_to_string(dir.join("FORMAT")).ok()
}

/// Upgrades `dir` from format 1 if it is of format 1, and finishes an upgrade
/// a crash interrupted. `Some` when this call upgraded (or finished doing so).
pub(crate) fn upgrade_if_needed(dir: &Path, device: &str) -> Result<Option<Upgrade>, ReplicaError> {
    let staging = sibling(dir, ".upgrading");
    let retired = sibling(dir, ".format-1");
    let parent = dir.parent().map(Path::to_owned).unwrap_or_else(|| PathBuf::from("."));
    // A crash between the two renames: the new directory is complete.
    if !dir.exists() && format_of(&staging).as_deref() == Some(FORMAT) {
        fs::rename(&staging, dir).map_err(io(dir))?;
        storage::sync_dir(&parent)?;
    }
    if retired.exists() && format_of(dir).as_deref() == Some(FORMAT) {
        fs::remove_dir_all(&retired).map_err(io(&retired))?;
        storage::sync_dir(&parent)?;
        return Ok(Some(Upgrade::default()));
    }
    if format_of(dir).as_deref() != Some(FORMAT_1) {
        return Ok(None);
    }
    tracing::info!(dir = %dir.display(), "upgrading the documents from format 1 to format 2");
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io(&staging))?;
    }
    fs::create_dir_all(&staging).map_err(io(&staging))?;
    let report = rewrite(dir, &staging, device)?;
    storage::write_atomically(&staging, "FORMAT", FORMAT.as_bytes())?;
    storage::sync_dir(&staging)?;
    fs::rename(dir, &retired).map_err(io(dir))?;
    fs::rename(&staging, dir).map_err(io(dir))?;
    storage::sync_dir(&parent)?;
    fs::remove_dir_all(&retired).map_err(io(&retired))?;
    storage::sync_dir(&parent)?;
    tracing::info!(
        memories = report.memories,
        purged = report.purged,
        entities = report.entities,
        entities_dropped = report.entities_dropped,
        "documents upgraded to format 2"
    );
    Ok(Some(report))
}

/// Writes the format-2 form of every document of `old` into `new`.
fn rewrite(old: &Path, new: &Path, device: &str) -> Result<Upgrade, ReplicaError> {
    let mut shards = Vec::new();
    for entry in fs::read_dir(old).map_err(io(old))? {
        let entry = entry.map_err(io(old))?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let Some(id) = entry.file_name().to_str().and_then(|name| name.parse::<DocId>().ok())
        else {
            continue;
        };
        if id == DocId::Registry {
            copy_document(&path, &new.join(id.to_string()))?;
        } else {
            shards.push((
                id.clone(),
                Document::open_with(
                    &path,
                    id,
                    schema::genesis_v1,
                    storage::DEFAULT_COMPACT_LOG_BYTES,
                )?,
            ));
        }
    }
    // Entities any live memory of any shard uses (a memory may use an entity
    // of an older shard).
    let mut used: HashSet<String> = HashSet::new();
    for (_, document) in &shards {
        let maps = document.maps();
        for memory in document.keys("memories") {
            if records::read_tombstone(&maps, &memory).is_none() {
                used.extend(records::memory_refs(&maps, &memory).unwrap_or_default());
            }
        }
    }
    let mut keys = KeyStore::open(&new.join(KEYS_FILE))?;
    let mut report = Upgrade::default();
    for (id, document) in &shards {
        let (doc, filed) = rewrite_shard(id, document, &used, device, &mut report)?;
        let filed: Vec<(&str, Key)> =
            filed.iter().map(|(record, key)| (record.as_str(), key.clone())).collect();
        keys.insert(&filed)?;
        let (mut files, _) = DocFiles::open(&new.join(id.to_string()))?;
        let mut doc = doc;
        files.compact(&doc.save())?;
    }
    Ok(report)
}

type Filed = Vec<(String, Key)>;

fn rewrite_shard(
    id: &DocId,
    old: &Document,
    used: &HashSet<String>,
    device: &str,
    report: &mut Upgrade,
) -> Result<(AutoCommit, Filed), ReplicaError> {
    let write_error = |source: automerge::AutomergeError| ReplicaError::Write {
        doc: id.clone(),
        source: Box::new(source),
    };
    let mut doc = schema::genesis(id);
    let roots = Roots::find(&doc, id).ok_or_else(|| ReplicaError::MissingRoots(id.clone()))?;
    let namespace = id.namespace().cloned().unwrap_or_default();
    let mut filed: Filed = Vec::new();
    let (old_doc, old_roots) = (&old.doc, &old.roots);

    let forgotten: HashSet<String> = old.keys("forgotten").into_iter().collect();
    for memory in &forgotten {
        if let Some(tombstone) =
            records::read_tombstone(&crate::schema::RootMaps::new(old_doc, old_roots), memory)
        {
            let object = doc
                .put_object(roots.get("forgotten"), memory, automerge::ObjType::Map)
                .map_err(write_error)?;
            doc.put(&object, "at", ScalarValue::Timestamp(tombstone.at.0)).map_err(write_error)?;
            doc.put(&object, "by", tombstone.by.as_str()).map_err(write_error)?;
            report.purged += 1;
        }
    }
    for memory in old.keys("memories") {
        if forgotten.contains(&memory) {
            continue;
        }
        let Some(stored) = records::read_memory_v1(old_doc, old_roots, &namespace, &memory) else {
            continue;
        };
        let new = NewMemory {
            id: memory.clone(),
            kind: stored.memory.kind,
            content: stored.memory.content.clone(),
            confidence: stored.memory.confidence,
            source: stored.memory.source.clone(),
            context: stored.memory.context.clone(),
            tags: stored.memory.tags.clone(),
            entity_ids: stored.memory.entity_ids.clone(),
            subject_entity: stored.subject_entity.clone(),
            predicate_written: stored.predicate_written.clone(),
            cardinality: stored.cardinality,
            created_at: stored.memory.created_at,
            created_by: stored.memory.created_by.clone(),
            t_valid: stored.memory.t_valid,
        };
        let counters = Counters {
            evidence: stored.memory.evidence,
            validated: stored.memory.validated.clone(),
            access: stored.memory.access.clone(),
        };
        let key = Key::random();
        records::put_memory(&mut doc, &roots, &new, &key, &counters).map_err(write_error)?;
        filed.push((memory, key));
        report.memories += 1;
    }
    for entity in old.keys("entities") {
        if !used.contains(&entity) {
            report.entities_dropped += 1;
            continue;
        }
        let Some(record) = records::read_entity_v1(old_doc, old_roots, &entity) else { continue };
        let key = Key::random();
        records::put_entity(&mut doc, &roots, &record, &key).map_err(write_error)?;
        filed.push((entity, key));
        report.entities += 1;
    }
    for alias in old.keys("aliases") {
        let Some(record) = records::read_alias_v1(old_doc, old_roots, &alias) else { continue };
        if !used.contains(&record.entity_id) {
            continue;
        }
        let name = records::new_alias_key(&record.entity_id);
        let key = Key::random();
        records::put_alias(&mut doc, &roots, &name, &record, None, &key).map_err(write_error)?;
        filed.push((name, key));
    }
    for edge in old.keys("edges") {
        if let Some(record) = records::read_edge(old_doc, old_roots, &edge) {
            records::put_edge(&mut doc, &roots, &record).map_err(write_error)?;
        }
    }
    doc.commit_with(CommitOptions::default().with_message(format!("upgrade by {device}")));
    Ok((doc, filed))
}

/// Copies a document's files (the registry) into `to`, synced.
fn copy_document(from: &Path, to: &Path) -> Result<(), ReplicaError> {
    fs::create_dir_all(to).map_err(io(to))?;
    for name in ["snapshot", "log"] {
        let source = from.join(name);
        if source.exists() {
            let bytes = fs::read(&source).map_err(io(&source))?;
            storage::write_atomically(to, name, &bytes)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use automerge::ObjType;
    use ferrex_core::{Content, Namespace};

    use super::*;
    use crate::{Replica, ReplicaOptions};

    /// Writes a format-1 shard as the format-1 code did: every field in the
    /// clear, the forgotten memory deleted from the map (its text still in
    /// the history) with a tombstone.
    fn write_format_1(dir: &Path) {
        let id = DocId::shard(&Namespace::default(), 0);
        let mut doc = schema::genesis_v1(&id);
        let roots = Roots::find(&doc, &id).unwrap();
        let memories = roots.get("memories").clone();
        for (memory, text, entity) in [
            ("kept", "The release train leaves on Thursdays.", Some("e-kept")),
            ("secret", "The vault combination is tangerine octopus.", Some("e-secret")),
        ] {
            let object = doc.put_object(&memories, memory, ObjType::Map).unwrap();
            doc.put(&object, "kind", "episodic").unwrap();
            doc.put(&object, "text", text).unwrap();
            doc.put(&object, "source", "chat about the vault").unwrap();
            doc.put(&object, "confidence", 1.0).unwrap();
            doc.put(&object, "entities", format!("[\"{}\"]", entity.unwrap())).unwrap();
            doc.put(&object, "created_at", ScalarValue::Timestamp(1_000)).unwrap();
            doc.put(&object, "created_by", "device-a").unwrap();
            doc.put(&object, "t_valid", ScalarValue::Timestamp(1_000)).unwrap();
            doc.put(&object, "evidence", ScalarValue::counter(3)).unwrap();
            doc.put_object(&object, "validated", ObjType::Map).unwrap();
            doc.put_object(&object, "access", ObjType::Map).unwrap();
        }
        for (entity, name) in [("e-kept", "Release Train"), ("e-secret", "Quixotic Vault")] {
            let object = doc.put_object(roots.get("entities"), entity, ObjType::Map).unwrap();
            doc.put(&object, "name", name).unwrap();
            doc.put(&object, "created_at", ScalarValue::Timestamp(1_000)).unwrap();
            doc.put(&object, "created_by", "device-a").unwrap();
        }
        let alias =
            doc.put_object(roots.get("aliases"), "e-secret|the quixotic", ObjType::Map).unwrap();
        doc.put(&alias, "entity", "e-secret").unwrap();
        doc.put(&alias, "name", "the quixotic").unwrap();
        doc.commit();
        doc.delete(&memories, "secret").unwrap();
        let tombstone = doc.put_object(roots.get("forgotten"), "secret", ObjType::Map).unwrap();
        doc.put(&tombstone, "at", ScalarValue::Timestamp(2_000)).unwrap();
        doc.put(&tombstone, "by", "device-a").unwrap();
        doc.commit();
        let (mut files, _) = DocFiles::open(&dir.join(id.to_string())).unwrap();
        // Uncompressed, so that the test can see the plaintext it must purge.
        files.append(&doc.save_nocompress()).unwrap();
        storage::write_atomically(dir, "FORMAT", FORMAT_1.as_bytes()).unwrap();
    }

    fn files_with(dir: &Path, needle: &[u8]) -> usize {
        let mut count = 0;
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                count += files_with(&path, needle);
            } else if fs::read(&path).unwrap().windows(needle.len()).any(|window| window == needle)
            {
                count += 1;
            }
        }
        count
    }

    #[test]
    fn upgrading_purges_what_was_forgotten_before_and_keeps_the_rest() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("docs");
        write_format_1(&dir);
        for needle in ["tangerine", "Quixotic", "the quixotic"] {
            assert_eq!(files_with(&dir, needle.as_bytes()), 1, "the fixture holds {needle}");
        }
        let replica = Replica::open(&dir, "device-b", ReplicaOptions::default()).unwrap();
        let upgrade = replica.upgrade().cloned().unwrap();
        assert_eq!(
            (upgrade.memories, upgrade.purged, upgrade.entities, upgrade.entities_dropped),
            (1, 1, 1, 1)
        );
        for needle in [
            "tangerine",
            "Quixotic",
            "the quixotic",
            "Release Train",
            "release train leaves",
            "chat about",
        ] {
            assert_eq!(files_with(home.path(), needle.as_bytes()), 0, "{needle} is still on disk");
        }
        let shard = replica.locate("kept").unwrap();
        let kept = replica.read(&shard, |reader| reader.memory("kept")).unwrap().unwrap();
        assert_eq!(
            kept.memory.content,
            Content::Text("The release train leaves on Thursdays.".into())
        );
        assert_eq!(kept.memory.evidence, 3);
        assert_eq!(kept.memory.source.as_deref(), Some("chat about the vault"));
        let entity =
            replica.read(&shard, |reader| reader.entity("e-kept").found()).unwrap().unwrap();
        assert_eq!(entity.name, "Release Train");
        assert!(replica.read(&shard, |reader| reader.tombstone("secret")).unwrap().is_some());
        drop(replica);
        // A second open finds format 2 and changes nothing.
        let again = Replica::open(&dir, "device-b", ReplicaOptions::default()).unwrap();
        assert!(again.upgrade().is_none());
        assert!(!home.path().join("docs.format-1").exists());
    }

    #[test]
    fn an_upgrade_cut_between_its_two_renames_is_finished_on_the_next_open() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("docs");
        write_format_1(&dir);
        drop(Replica::open(&dir, "device-b", ReplicaOptions::default()).unwrap());
        // As if the process died after renaming docs away and before
        // renaming the new directory in: both siblings exist, docs does not.
        fs::rename(&dir, sibling(&dir, ".upgrading")).unwrap();
        write_format_1(&sibling(&dir, ".format-1"));
        let replica = Replica::open(&dir, "device-b", ReplicaOptions::default()).unwrap();
        assert!(replica.locate("kept").is_some());
        assert!(!sibling(&dir, ".format-1").exists() && !sibling(&dir, ".upgrading").exists());
        assert_eq!(files_with(home.path(), b"tangerine"), 0);
    }

    /// Runs the sync protocol for document `id` between two replicas until
    /// neither has anything to say.
    fn sync_pair(a: &Replica, b: &Replica, id: &DocId) {
        let (mut a_state, mut b_state) =
            (automerge::sync::State::new(), automerge::sync::State::new());
        for _ in 0..20 {
            let mut quiet = true;
            if let Some(message) = a.generate_sync_message(id, &mut a_state).unwrap() {
                b.receive_sync_message(id, &mut b_state, &message).unwrap();
                quiet = false;
            }
            if let Some(message) = b.generate_sync_message(id, &mut b_state).unwrap() {
                a.receive_sync_message(id, &mut a_state, &message).unwrap();
                quiet = false;
            }
            if quiet {
                return;
            }
        }
        panic!("the replicas never went quiet");
    }

    #[test]
    fn a_memory_forgotten_after_two_devices_upgraded_apart_stays_forgotten_on_both() {
        // Two devices upgrade the same format-1 home apart: each rewrites
        // the memory as its own object. One forgets it; once they sync, the
        // other's object must not bring it back, nor its key travel.
        let (home_a, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write_format_1(&home_a.path().join("docs"));
        write_format_1(&home_b.path().join("docs"));
        let a = Replica::open(&home_a.path().join("docs"), "device-a", ReplicaOptions::default())
            .unwrap();
        let b = Replica::open(&home_b.path().join("docs"), "device-b", ReplicaOptions::default())
            .unwrap();
        let shard = DocId::shard(&Namespace::default(), 0);
        a.forget(&["kept".into()], ferrex_core::Timestamp(3_000)).unwrap();
        sync_pair(&a, &b, &shard);
        for replica in [&a, &b] {
            let lookup = replica.read(&shard, |reader| reader.memory_lookup("kept")).unwrap();
            assert_eq!(lookup, crate::Lookup::Absent);
            assert!(replica.locate("kept").is_none());
            let (keys, _) = replica.answer_keys(&shard, &[(0, "kept".into())]).unwrap();
            assert!(keys.is_empty(), "a key of a forgotten memory would be sent");
        }
        drop((a, b));
        for home in [&home_a, &home_b] {
            assert_eq!(files_with(home.path(), b"release train leaves"), 0);
        }
        // And a reopen finds no key of it to keep.
        let b = Replica::open(&home_b.path().join("docs"), "device-b", ReplicaOptions::default())
            .unwrap();
        assert_eq!(
            b.read(&shard, |reader| reader.memory_lookup("kept")).unwrap(),
            crate::Lookup::Absent
        );
    }
}
