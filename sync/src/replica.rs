//! The replica: every document of a node, opened from its home, and the
//! writes ferrex makes to them.

use std::{
    collections::{BTreeMap, HashMap},
    fs,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock},
};

use automerge::ChangeHash;
use ferrex_core::{AccessStat, Alias, Edge, Entity, Namespace, Timestamp, Tombstone};

use crate::{
    ChangedKeys, DocChange, DocId, ReplicaError, StoredMemory,
    document::Document,
    records::{self, NewMemory, alias_key},
    storage,
};

/// Document changes a slow subscriber may fall behind by before it is told
/// it lagged (and then treats every document as changed).
const ANNOUNCE_CAPACITY: usize = 1024;

/// Contents of the `FORMAT` file at the root of a documents directory.
const FORMAT: &str = "ferrex documents 1\n";

/// How a replica lays its documents out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaOptions {
    /// Memories per shard before a namespace opens its next shard.
    pub shard_capacity: usize,
}

impl Default for ReplicaOptions {
    fn default() -> Self {
        ReplicaOptions { shard_capacity: 10_000 }
    }
}

/// Records written together, as one change, to a namespace's open shard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewRecords {
    /// New memories.
    pub memories: Vec<NewMemory>,
    /// New entities.
    pub entities: Vec<Entity>,
    /// New aliases.
    pub aliases: Vec<Alias>,
    /// New edges.
    pub edges: Vec<Edge>,
}

/// The outcome of forgetting a list of ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Ids that were live memories and are now forgotten.
    pub forgotten: Vec<String>,
    /// Ids that name no live memory (never existed, or already forgotten).
    pub unknown: Vec<String>,
    /// The changes made, one per shard.
    pub changes: Vec<DocChange>,
}

/// Size figures of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocStat {
    /// Which document.
    pub id: DocId,
    /// Live memories in it.
    pub memories: usize,
    /// Entities in it.
    pub entities: usize,
    /// Bytes on disk (snapshot and log).
    pub disk_bytes: u64,
}

/// All documents of one node.
#[derive(Debug)]
pub struct Replica {
    dir: PathBuf,
    device: String,
    options: ReplicaOptions,
    docs: RwLock<BTreeMap<DocId, Arc<Mutex<Document>>>>,
    locations: RwLock<HashMap<String, DocId>>,
    creating: Mutex<()>,
    announce: tokio::sync::broadcast::Sender<DocId>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Replica {
    /// Opens every document under `dir` (creating the directory and the
    /// registry if new). `device` is recorded as the author of writes.
    pub fn open(
        dir: &Path,
        device: &str,
        options: ReplicaOptions,
    ) -> Result<Replica, ReplicaError> {
        fs::create_dir_all(dir)
            .map_err(|source| ReplicaError::Io { path: dir.to_owned(), source })?;
        let format_path = dir.join("FORMAT");
        match fs::read_to_string(&format_path) {
            Ok(format) if format == FORMAT => {}
            Ok(format) => {
                return Err(ReplicaError::UnknownFormat {
                    path: format_path,
                    found: format.trim().to_owned(),
                });
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                storage::write_atomically(dir, "FORMAT", FORMAT.as_bytes())?;
            }
            Err(source) => return Err(ReplicaError::Io { path: format_path, source }),
        }

        let mut docs = BTreeMap::new();
        let mut locations = HashMap::new();
        let entries = fs::read_dir(dir)
            .map_err(|source| ReplicaError::Io { path: dir.to_owned(), source })?;
        for entry in entries {
            let entry =
                entry.map_err(|source| ReplicaError::Io { path: dir.to_owned(), source })?;
            if !entry.path().is_dir() {
                continue;
            }
            let Some(id) = entry.file_name().to_str().and_then(|name| name.parse::<DocId>().ok())
            else {
                tracing::warn!(path = %entry.path().display(), "ignoring a directory that is not a document");
                continue;
            };
            let document = Document::open(&entry.path(), id.clone())?;
            if id.namespace().is_some() {
                for memory in document.keys("memories") {
                    locations.insert(memory, id.clone());
                }
            }
            docs.insert(id, Arc::new(Mutex::new(document)));
        }
        if let std::collections::btree_map::Entry::Vacant(entry) = docs.entry(DocId::Registry) {
            let registry = Document::open(&dir.join(DocId::Registry.to_string()), DocId::Registry)?;
            entry.insert(Arc::new(Mutex::new(registry)));
        }
        Ok(Replica {
            dir: dir.to_owned(),
            device: device.to_owned(),
            options,
            docs: RwLock::new(docs),
            locations: RwLock::new(locations),
            creating: Mutex::new(()),
            announce: tokio::sync::broadcast::channel(ANNOUNCE_CAPACITY).0,
        })
    }

    /// The device recorded as the author of this replica's writes.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Every document id, sorted.
    pub fn doc_ids(&self) -> Vec<DocId> {
        self.docs.read().unwrap_or_else(PoisonError::into_inner).keys().cloned().collect()
    }

    /// The shards of `namespace`, in order.
    pub fn shards(&self, namespace: &Namespace) -> Vec<DocId> {
        self.doc_ids().into_iter().filter(|id| id.namespace() == Some(namespace)).collect()
    }

    /// The namespaces that have at least one shard.
    pub fn namespaces(&self) -> Vec<Namespace> {
        let mut namespaces: Vec<Namespace> =
            self.doc_ids().iter().filter_map(|id| id.namespace().cloned()).collect();
        namespaces.dedup();
        namespaces
    }

    pub(crate) fn document(&self, id: &DocId) -> Result<Arc<Mutex<Document>>, ReplicaError> {
        self.docs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| ReplicaError::UnknownDocument(id.clone()))
    }

    /// Opens (creating it from its genesis if needed) the document `id`.
    pub fn ensure_document(&self, id: &DocId) -> Result<(), ReplicaError> {
        if self.document(id).is_ok() {
            return Ok(());
        }
        let _creating = lock(&self.creating);
        if self.document(id).is_ok() {
            return Ok(());
        }
        let document = Document::open(&self.dir.join(id.to_string()), id.clone())?;
        self.docs
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), Arc::new(Mutex::new(document)));
        Ok(())
    }

    /// The shard new memories of `namespace` go to: the last one, or a new
    /// one when the last is full.
    fn open_shard(&self, namespace: &Namespace) -> Result<DocId, ReplicaError> {
        let last = self.shards(namespace).into_iter().max_by_key(|id| match id {
            DocId::Shard { index, .. } => *index,
            DocId::Registry => 0,
        });
        let next = match last {
            None => DocId::shard(namespace, 0),
            Some(last) => {
                let document = self.document(&last)?;
                let full = lock(&document).count("memories") >= self.options.shard_capacity;
                match (&last, full) {
                    (DocId::Shard { index, .. }, true) => DocId::shard(namespace, index + 1),
                    _ => return Ok(last),
                }
            }
        };
        self.ensure_document(&next)?;
        Ok(next)
    }

    /// Writes `records` as one change to the open shard of `namespace`,
    /// durably: the change is on disk when this returns.
    pub fn write_new(
        &self,
        namespace: &Namespace,
        now: Timestamp,
        records: &NewRecords,
    ) -> Result<DocChange, ReplicaError> {
        let id = self.open_shard(namespace)?;
        let document = self.document(&id)?;
        let ((), change) = lock(&document).write(now, |doc, roots, keys| {
            for entity in &records.entities {
                records::put_entity(doc, roots, entity)?;
                keys.entities.insert(entity.id.clone());
            }
            for alias in &records.aliases {
                records::put_alias(doc, roots, alias)?;
                keys.aliases.insert(alias_key(&alias.entity_id, &alias.name));
            }
            for memory in &records.memories {
                records::put_memory(doc, roots, memory)?;
                keys.memories.insert(memory.id.clone());
            }
            for edge in &records.edges {
                records::put_edge(doc, roots, edge)?;
                keys.edges.insert(edge.key());
            }
            Ok(())
        })?;
        let mut locations = self.locations.write().unwrap_or_else(PoisonError::into_inner);
        for memory in &records.memories {
            locations.insert(memory.id.clone(), id.clone());
        }
        drop(locations);
        self.announce(&id);
        Ok(change)
    }

    /// Tells subscribers that document `id` changed.
    pub(crate) fn announce(&self, id: &DocId) {
        // No subscriber (no network running) is not an error.
        let _ = self.announce.send(id.clone());
    }

    /// A receiver of the ids of documents as they change, by a local write
    /// or a merge from a peer (after the change is on disk).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<DocId> {
        self.announce.subscribe()
    }

    /// The shard holding the live memory `id`.
    pub fn locate(&self, id: &str) -> Option<DocId> {
        self.locations.read().unwrap_or_else(PoisonError::into_inner).get(id).cloned()
    }

    /// Forgets the memories `ids`: deletes them and writes their tombstones,
    /// one change per shard, durably.
    pub fn forget(&self, ids: &[String], now: Timestamp) -> Result<Forgotten, ReplicaError> {
        let mut by_doc: BTreeMap<DocId, Vec<String>> = BTreeMap::new();
        let mut outcome = Forgotten::default();
        let mut seen = std::collections::HashSet::new();
        for id in ids.iter().filter(|id| seen.insert(id.as_str())) {
            match self.locate(id) {
                Some(doc) => by_doc.entry(doc).or_default().push(id.clone()),
                None => outcome.unknown.push(id.clone()),
            }
        }
        for (doc_id, ids) in by_doc {
            let document = self.document(&doc_id)?;
            let mut document = lock(&document);
            let (forgotten, change) = document.write(now, |doc, roots, keys| {
                let mut forgotten = Vec::new();
                for id in &ids {
                    if records::has_memory(doc, roots, id) {
                        let tombstone =
                            Tombstone { memory_id: id.clone(), at: now, by: self.device.clone() };
                        records::forget_memory(doc, roots, &tombstone)?;
                        keys.memories.insert(id.clone());
                        keys.forgotten.insert(id.clone());
                        forgotten.push(id.clone());
                    }
                }
                Ok(forgotten)
            })?;
            let mut locations = self.locations.write().unwrap_or_else(PoisonError::into_inner);
            for id in &ids {
                if forgotten.contains(id) {
                    locations.remove(id);
                } else {
                    outcome.unknown.push(id.clone());
                }
            }
            outcome.forgotten.extend(forgotten);
            if !change.keys.is_empty() {
                self.announce(&doc_id);
                outcome.changes.push(change);
            }
        }
        Ok(outcome)
    }

    /// Adds `amount` to the evidence counter of memory `id`; `None` if `id`
    /// names no live memory.
    pub fn add_evidence(
        &self,
        id: &str,
        amount: i64,
        now: Timestamp,
    ) -> Result<Option<DocChange>, ReplicaError> {
        let (done, changes) = self.per_doc(&[id.to_owned()], now, |doc, roots, id| {
            records::add_evidence(doc, roots, id, amount)
        })?;
        Ok(if done.is_empty() { None } else { changes.into_iter().next() })
    }

    /// Records that this device validated each of `ids` at `now`; returns the
    /// ids that named live memories, and the changes made.
    pub fn validate(
        &self,
        ids: &[String],
        now: Timestamp,
    ) -> Result<(Vec<String>, Vec<DocChange>), ReplicaError> {
        self.per_doc(ids, now, |doc, roots, id| {
            records::set_validated(doc, roots, id, &self.device, now)
        })
    }

    /// Folds this device's recalls since the last fold into the documents:
    /// each stat is added to the device's own counter of that memory (so a
    /// node that lost its local buffer never lowers a folded count).
    pub fn fold_access(
        &self,
        stats: &BTreeMap<String, AccessStat>,
        now: Timestamp,
    ) -> Result<(Vec<String>, Vec<DocChange>), ReplicaError> {
        let ids: Vec<String> = stats.keys().cloned().collect();
        self.per_doc(&ids, now, |doc, roots, id| match stats.get(id) {
            Some(stat) => records::add_access(doc, roots, id, &self.device, *stat),
            None => Ok(false),
        })
    }

    fn per_doc(
        &self,
        ids: &[String],
        now: Timestamp,
        apply: impl Fn(
            &mut automerge::AutoCommit,
            &crate::schema::Roots,
            &str,
        ) -> Result<bool, automerge::AutomergeError>,
    ) -> Result<(Vec<String>, Vec<DocChange>), ReplicaError> {
        let mut by_doc: BTreeMap<DocId, Vec<&String>> = BTreeMap::new();
        for id in ids {
            if let Some(doc) = self.locate(id) {
                by_doc.entry(doc).or_default().push(id);
            }
        }
        let mut applied = Vec::new();
        let mut changes = Vec::new();
        for (doc_id, ids) in by_doc {
            let document = self.document(&doc_id)?;
            let (done, change) = lock(&document).write(now, |doc, roots, keys| {
                let mut done = Vec::new();
                for id in ids {
                    if apply(doc, roots, id)? {
                        keys.memories.insert(id.clone());
                        done.push(id.clone());
                    }
                }
                Ok(done)
            })?;
            applied.extend(done);
            if !change.keys.is_empty() {
                self.announce(&doc_id);
                changes.push(change);
            }
        }
        Ok((applied, changes))
    }

    /// Adds edges to the open shard of `namespace` as one change.
    pub fn add_edges(
        &self,
        namespace: &Namespace,
        edges: Vec<Edge>,
        now: Timestamp,
    ) -> Result<DocChange, ReplicaError> {
        self.write_new(namespace, now, &NewRecords { edges, ..NewRecords::default() })
    }

    /// The current heads of document `id`.
    pub fn heads(&self, id: &DocId) -> Result<Vec<ChangeHash>, ReplicaError> {
        let document = self.document(id)?;
        let heads = lock(&document).heads();
        Ok(heads)
    }

    /// How many changes document `id` has that are not ancestors of `heads`.
    pub fn changes_count_since(
        &self,
        id: &DocId,
        heads: &[ChangeHash],
    ) -> Result<usize, ReplicaError> {
        let document = self.document(id)?;
        let count = lock(&document).changes_count_since(heads);
        Ok(count)
    }

    /// The keys changed in document `id` since `since` (and the heads they
    /// lead to), or `None` in place of the keys when `since` is unknown to
    /// the document, in which case the caller re-reads everything.
    pub fn changes_since(
        &self,
        id: &DocId,
        since: &[ChangeHash],
    ) -> Result<(Option<ChangedKeys>, Vec<ChangeHash>), ReplicaError> {
        let document = self.document(id)?;
        let mut document = lock(&document);
        let changed = document.changes_since(since);
        let heads = document.heads();
        if let Some(changed) = &changed {
            self.relocate(&document, changed);
        }
        Ok((changed, heads))
    }

    /// Updates where the memories in `changed` live after a change to
    /// `document` that this replica did not make itself.
    pub(crate) fn relocate(&self, document: &Document, changed: &ChangedKeys) {
        if document.id == DocId::Registry {
            return;
        }
        let mut locations = self.locations.write().unwrap_or_else(PoisonError::into_inner);
        for memory in &changed.memories {
            if records::has_memory(&document.doc, &document.roots, memory) {
                locations.insert(memory.clone(), document.id.clone());
            } else {
                locations.remove(memory);
            }
        }
    }

    /// Reads document `id` through `read`, holding it still meanwhile.
    pub fn read<T>(
        &self,
        id: &DocId,
        read: impl FnOnce(&ShardReader<'_>) -> T,
    ) -> Result<T, ReplicaError> {
        let document = self.document(id)?;
        let document = lock(&document);
        let namespace = id.namespace().cloned().unwrap_or_default();
        Ok(read(&ShardReader { document: &document, namespace }))
    }

    /// Size figures of every document.
    pub fn stats(&self) -> Vec<DocStat> {
        self.doc_ids()
            .into_iter()
            .filter_map(|id| {
                let document = self.document(&id).ok()?;
                let document = lock(&document);
                let (memories, entities) = match id {
                    DocId::Registry => (0, 0),
                    DocId::Shard { .. } => (document.count("memories"), document.count("entities")),
                };
                Some(DocStat { id, memories, entities, disk_bytes: document.disk_bytes() })
            })
            .collect()
    }
}

/// Typed reads of one shard, handed out by [`Replica::read`].
pub struct ShardReader<'a> {
    document: &'a Document,
    namespace: Namespace,
}

impl ShardReader<'_> {
    /// The live memory `id`.
    pub fn memory(&self, id: &str) -> Option<StoredMemory> {
        records::read_memory(&self.document.doc, &self.document.roots, &self.namespace, id)
    }

    /// The tombstone of `id`, if it was forgotten.
    pub fn tombstone(&self, id: &str) -> Option<Tombstone> {
        records::read_tombstone(&self.document.doc, &self.document.roots, id)
    }

    /// The entity `id`.
    pub fn entity(&self, id: &str) -> Option<Entity> {
        records::read_entity(&self.document.doc, &self.document.roots, id)
    }

    /// The alias stored under `key`.
    pub fn alias(&self, key: &str) -> Option<Alias> {
        records::read_alias(&self.document.doc, &self.document.roots, key)
    }

    /// The edge stored under `key`.
    pub fn edge(&self, key: &str) -> Option<Edge> {
        records::read_edge(&self.document.doc, &self.document.roots, key)
    }

    /// Every key of a root map (`memories`, `forgotten`, `entities`,
    /// `aliases`, `edges`).
    pub fn keys(&self, root: &str) -> Vec<String> {
        self.document.keys(root)
    }
}
