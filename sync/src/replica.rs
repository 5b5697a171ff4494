//! The replica: every document of a node, opened from its home, and the
//! writes ferrex makes to them.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    fs,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock},
    time::{Duration, Instant},
};

use automerge::ChangeHash;
use ferrex_core::{AccessStat, Alias, Edge, Entity, Namespace, Timestamp, Tombstone};

use crate::{
    ChangedKeys, DocChange, DocId, ReplicaError, StoredMemory,
    document::{Document, Unloaded},
    keys::{Key, KeyId, KeyStore, RecordTag},
    migrate::{self, FORMAT, KEYS_FILE, Upgrade},
    records::{self, Counters, Lookup, NewMemory, new_alias_key},
    schema::RootMaps,
    shares::is_share_namespace,
    storage,
};

mod archive;

pub use archive::{Archive, ArchivedAlias, Restored};

/// Document changes a slow subscriber may fall behind by before it is told
/// it lagged (and then treats every document as changed).
const ANNOUNCE_CAPACITY: usize = 1024;

/// How a replica lays its documents out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaOptions {
    /// Memories per shard before a namespace opens its next shard.
    pub shard_capacity: usize,
    /// Bytes a document's log may hold before it is compacted into the
    /// snapshot (once the log is also larger than a quarter of the snapshot).
    pub compact_log_bytes: u64,
}

impl Default for ReplicaOptions {
    fn default() -> Self {
        ReplicaOptions {
            shard_capacity: 10_000,
            compact_log_bytes: storage::DEFAULT_COMPACT_LOG_BYTES,
        }
    }
}

/// The fewest operations a memory's record takes in a shard's history (its
/// map and the fields every memory has): a shard whose history holds this
/// many per memory of its capacity is full, whatever was deleted since.
pub const MIN_OPS_PER_MEMORY: u64 = 8;

/// The root maps whose records are sealed, by their number on the wire.
pub const SEALED_ROOTS: [&str; 3] = ["memories", "entities", "aliases"];

/// A sealed record, as a key request names it: its root map's number in
/// [`SEALED_ROOTS`] and its key in that map.
pub type RecordRef = (u8, String);

/// Live memories per entity, kept from the documents' plain fields so that
/// an entity no live memory uses is known at once.
#[derive(Debug, Default)]
struct Refs {
    of_memory: HashMap<String, Vec<String>>,
    users: HashMap<String, std::collections::HashSet<String>>,
}

impl Refs {
    /// Records what memory `id` refers to now (`None`: it is gone); returns
    /// the entities that no live memory refers to any more.
    fn set(&mut self, id: &str, refs: Option<Vec<String>>) -> Vec<String> {
        self.set_both(id, refs).0
    }

    /// As [`Refs::set`], and also returns the entities that no live memory
    /// used before and one does now.
    fn set_both(&mut self, id: &str, refs: Option<Vec<String>>) -> (Vec<String>, Vec<String>) {
        let mut revived = Vec::new();
        let mut orphaned = Vec::new();
        if let Some(old) = self.of_memory.remove(id) {
            for entity in old {
                if let Some(users) = self.users.get_mut(&entity)
                    && users.remove(id)
                    && users.is_empty()
                {
                    self.users.remove(&entity);
                    orphaned.push(entity);
                }
            }
        }
        if let Some(refs) = refs {
            for entity in &refs {
                let users = self.users.entry(entity.clone()).or_default();
                if users.insert(id.to_owned()) && users.len() == 1 && !orphaned.contains(entity) {
                    revived.push(entity.clone());
                }
            }
            orphaned.retain(|entity| !self.users.contains_key(entity));
            self.of_memory.insert(id.to_owned(), refs);
        }
        (orphaned, revived)
    }

    pub(crate) fn used(&self, entity: &str) -> bool {
        self.users.contains_key(entity)
    }

    /// The live memories that use `entity`.
    fn users_of(&self, entity: &str) -> impl Iterator<Item = &String> {
        self.users.get(entity).into_iter().flatten()
    }
}

/// A document opened by [`open_documents`], with its memories and the
/// entities each live one uses (`None`: forgotten).
struct OpenedDocument {
    id: DocId,
    document: Document,
    memories: Vec<(String, Option<Vec<String>>)>,
}

/// Opens the documents in `found` (id, directory), on as many threads as
/// there are cores (loading a document is most of a start: at 100k
/// memories, 1.9 s on one thread), in the order given.
fn open_documents(
    found: &[(DocId, PathBuf)],
    compact_log_bytes: u64,
) -> Vec<Result<OpenedDocument, ReplicaError>> {
    let open = |(id, path): &(DocId, PathBuf)| -> Result<OpenedDocument, ReplicaError> {
        let document = Document::open(path, id.clone(), compact_log_bytes)?;
        let memories = if id.namespace().is_some() {
            records::all_memory_refs(&document.doc, &document.roots)
        } else {
            Vec::new()
        };
        Ok(OpenedDocument { id: id.clone(), document, memories })
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(found.len());
    if workers <= 1 {
        return found.iter().map(open).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<OpenedDocument, ReplicaError>>>> =
        found.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(entry) = found.get(at) else { break };
                    *lock(&slots[at]) = Some(open(entry));
                }
            });
        }
    });
    slots
        .into_iter()
        .zip(found)
        .map(|(slot, (id, _))| {
            slot.into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .unwrap_or_else(|| Err(ReplicaError::MissingRoots(id.clone())))
        })
        .collect()
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

/// Records to write in one change, with what `write_new` fills in for new
/// records given: counters, alias keys and the memories aliases die with.
struct Writing<'a> {
    memories: Vec<(&'a NewMemory, &'a Counters)>,
    entities: Vec<&'a Entity>,
    aliases: Vec<(String, &'a Alias, Option<&'a str>)>,
    edges: Vec<&'a Edge>,
}

/// The records of a [`Writing`], each written by `device` naming another
/// writer instead (its stand-in: [`Replica::set_stand_ins`]).
struct Rewritten<'a> {
    memories: Vec<(NewMemory, &'a Counters)>,
    entities: Vec<Entity>,
    aliases: Vec<(String, Alias, Option<&'a str>)>,
    edges: Vec<Edge>,
}

impl<'a> Rewritten<'a> {
    fn of(writing: &Writing<'a>, device: &str, stand_in: &str) -> Rewritten<'a> {
        let writer = |by: &str| if by == device { stand_in } else { by }.to_owned();
        Rewritten {
            memories: writing
                .memories
                .iter()
                .map(|(memory, counters)| {
                    let created_by = writer(&memory.created_by);
                    (NewMemory { created_by, ..(*memory).clone() }, *counters)
                })
                .collect(),
            entities: writing
                .entities
                .iter()
                .map(|entity| Entity {
                    created_by: writer(&entity.created_by),
                    ..(*entity).clone()
                })
                .collect(),
            aliases: writing
                .aliases
                .iter()
                .map(|(name, alias, introducer)| {
                    let created_by = writer(&alias.created_by);
                    (name.clone(), Alias { created_by, ..(*alias).clone() }, *introducer)
                })
                .collect(),
            edges: writing
                .edges
                .iter()
                .map(|edge| Edge { created_by: writer(&edge.created_by), ..(*edge).clone() })
                .collect(),
        }
    }

    fn writing(&self) -> Writing<'_> {
        Writing {
            memories: self.memories.iter().map(|(memory, counters)| (memory, *counters)).collect(),
            entities: self.entities.iter().collect(),
            aliases: self
                .aliases
                .iter()
                .map(|(name, alias, introducer)| (name.clone(), alias, *introducer))
                .collect(),
            edges: self.edges.iter().collect(),
        }
    }
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

/// What [`Replica::delete_memories`] did, before any key is deleted.
struct Deleted {
    /// The outcome.
    outcome: Forgotten,
    /// Entities no live memory uses any more.
    orphaned: Vec<String>,
    /// The memories deleted, per namespace.
    by_namespace: BTreeMap<Namespace, Vec<String>>,
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
    /// Documents whose Automerge state is not in memory ([`Replica::unload_idle`]),
    /// and what each still answers for. [`Replica::document`] loads one again
    /// before handing it out.
    unloaded: Mutex<HashMap<DocId, Unloaded>>,
    /// When each document was last handed out.
    used: Mutex<HashMap<DocId, Instant>>,
    locations: RwLock<HashMap<String, DocId>>,
    creating: Mutex<()>,
    announce: tokio::sync::broadcast::Sender<DocId>,
    pub(crate) keys: Mutex<KeyStore>,
    refs: Mutex<Refs>,
    /// Records this node asked a peer for the keys of, by key id.
    pub(crate) asked: Mutex<HashMap<KeyId, (DocId, u8, String)>>,
    upgrade: Option<Upgrade>,
    dead_at_open: Mutex<Vec<DocChange>>,
    /// Held while a purge decides which entities are dead and deletes their
    /// keys, and while a write checks the keys of the entities it uses and
    /// records that it uses them: a store never uses an entity whose key a
    /// purge is deleting.
    purging: Mutex<()>,
    /// Namespaces of shares this device may only read: every write there
    /// is refused ([`Replica::set_read_only`]).
    read_only: RwLock<BTreeSet<Namespace>>,
    /// Per share's namespace where this device takes part without a grant,
    /// the member it writes as ([`Replica::set_stand_ins`]).
    stand_ins: RwLock<BTreeMap<Namespace, String>>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Replica {
    /// Whether entity `id` of `namespace` is in a document without its key
    /// here (deleted by a purge, or not arrived yet).
    fn entity_locked(&self, namespace: &Namespace, id: &str) -> Result<bool, ReplicaError> {
        let tag = RecordTag::of(id);
        for shard in self.shards(namespace) {
            if self.if_unloaded(&shard, |unloaded| unloaded.entities.contains(&tag)) == Some(false)
            {
                continue;
            }
            let document = self.document(&shard)?;
            let document = lock(&document);
            if let Some(key) = records::record_key(&document.maps(), "entities", id) {
                return Ok(!lock(&self.keys).contains(&key));
            }
        }
        Ok(false)
    }

    /// Whether a live memory uses entity `id`.
    pub(crate) fn entity_used(&self, id: &str) -> bool {
        lock(&self.refs).used(id)
    }

    /// Whether a live memory of `namespace` uses the entity `id`: what a
    /// share's key answer asks, so that a record in a share naming one of
    /// another namespace's entities gets none of its keys.
    pub(crate) fn entity_used_in(&self, id: &str, namespace: &Namespace) -> bool {
        let locations = self.locations.read().unwrap_or_else(PoisonError::into_inner);
        lock(&self.refs).users_of(id).any(|memory| {
            locations.get(memory).is_some_and(|home| home.namespace() == Some(namespace))
        })
    }

    /// Whether the alias `key` of `document` is live: its entity is used and
    /// the memory that introduced it (if it names one) is not forgotten.
    pub(crate) fn alias_live(&self, maps: &RootMaps<'_>, key: &str) -> bool {
        records::alias_links(maps, key).is_some_and(|(entity, memory)| {
            self.entity_used(&entity)
                && !memory.is_some_and(|memory| records::is_forgotten(maps, &memory))
        })
    }

    /// Opens every document under `dir` (creating the directory and the
    /// registry if new). `device` is recorded as the author of writes.
    pub fn open(
        dir: &Path,
        device: &str,
        options: ReplicaOptions,
    ) -> Result<Replica, ReplicaError> {
        let upgrade = migrate::upgrade_if_needed(dir, device)?;
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

        let started = std::time::Instant::now();
        let keys = KeyStore::open(&dir.join(KEYS_FILE))?;
        let mut found = Vec::new();
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
            found.push((id, entry.path()));
        }
        let mut docs = BTreeMap::new();
        let mut locations = HashMap::new();
        let mut refs = Refs::default();
        for opened in open_documents(&found, options.compact_log_bytes) {
            let OpenedDocument { id, document, memories } = opened?;
            for (memory, used) in memories {
                // A share's document naming one of the person's memories
                // (see `keep_within_share`) never takes its place.
                let in_share = |doc: &DocId| doc.namespace().is_some_and(is_share_namespace);
                if in_share(&id)
                    && locations.get(&memory).is_some_and(|held: &DocId| !in_share(held))
                {
                    continue;
                }
                refs.set(&memory, used);
                locations.insert(memory, id.clone());
            }
            docs.insert(id, Arc::new(Mutex::new(document)));
        }
        if let std::collections::btree_map::Entry::Vacant(entry) = docs.entry(DocId::Registry) {
            let registry = Document::open(
                &dir.join(DocId::Registry.to_string()),
                DocId::Registry,
                options.compact_log_bytes,
            )?;
            entry.insert(Arc::new(Mutex::new(registry)));
        }
        let replica = Replica {
            dir: dir.to_owned(),
            device: device.to_owned(),
            options,
            docs: RwLock::new(docs),
            unloaded: Mutex::new(HashMap::new()),
            used: Mutex::new(HashMap::new()),
            locations: RwLock::new(locations),
            creating: Mutex::new(()),
            announce: tokio::sync::broadcast::channel(ANNOUNCE_CAPACITY).0,
            keys: Mutex::new(keys),
            refs: Mutex::new(refs),
            asked: Mutex::new(HashMap::new()),
            upgrade,
            dead_at_open: Mutex::new(Vec::new()),
            purging: Mutex::new(()),
            read_only: RwLock::new(BTreeSet::new()),
            stand_ins: RwLock::new(BTreeMap::new()),
        };
        let loaded = started.elapsed();
        replica.delete_unused_keys()?;
        tracing::info!(
            documents_ms = loaded.as_millis() as u64,
            unused_keys_ms = (started.elapsed() - loaded).as_millis() as u64,
            memories = replica.locations.read().unwrap_or_else(PoisonError::into_inner).len(),
            "documents open"
        );
        // Full shards are written again only when one of their memories
        // changes: they wait on disk until then, as does whatever nothing
        // has used for a while afterwards (see `unload_idle`).
        lock(&replica.used).clear();
        replica.unload_where(|_, document| document.count("memories") >= options.shard_capacity);
        Ok(replica)
    }

    /// What the upgrade from format 1 did, when this open upgraded.
    pub fn upgrade(&self) -> Option<&Upgrade> {
        self.upgrade.as_ref()
    }

    /// Deletes every key no live record uses: those of forgotten memories
    /// (a crash may have come between a tombstone and its key's deletion),
    /// of entities and aliases only forgotten memories used, and keys of
    /// writes that never reached their document. The entities and aliases
    /// found dead are kept as keys-only changes for the index
    /// ([`Replica::take_dead_at_open`]): a crash may also have come before
    /// the index dropped their names.
    fn delete_unused_keys(&self) -> Result<(), ReplicaError> {
        // The live memories are those with references recorded (none for
        // a forgotten one).
        let mut used: HashSet<RecordTag> =
            lock(&self.refs).of_memory.keys().map(|memory| RecordTag::of(memory)).collect();
        let mut dead = Vec::new();
        for id in self.doc_ids() {
            if id == DocId::Registry {
                continue;
            }
            let document = self.document(&id)?;
            let mut document = lock(&document);
            let mut keys = ChangedKeys::default();
            for entity in document.keys("entities") {
                if self.entity_used(&entity) {
                    used.insert(RecordTag::of(&entity));
                } else {
                    keys.entities.insert(entity);
                }
            }
            let maps = document.maps();
            for alias in document.keys("aliases") {
                if self.alias_live(&maps, &alias) {
                    used.insert(RecordTag::of(&alias));
                } else {
                    keys.aliases.insert(alias);
                }
            }
            if !keys.is_empty() {
                let heads = document.heads();
                dead.push(DocChange {
                    doc: id.clone(),
                    before: heads.clone(),
                    after: heads,
                    keys,
                    purged: true,
                });
            }
        }
        let mut keys = lock(&self.keys);
        let unused: Vec<RecordTag> =
            keys.tags().into_iter().filter(|tag| !used.contains(tag)).collect();
        let deleted = keys.remove_tags(&unused)?;
        drop(keys);
        if deleted > 0 {
            tracing::info!(deleted, "deleted keys no live record uses");
        }
        *lock(&self.dead_at_open) = dead;
        Ok(())
    }

    /// Keys-only changes naming the entities and aliases found dead when
    /// the replica was opened (once; empty afterwards), for the index to
    /// drop what it still holds of them.
    pub fn take_dead_at_open(&self) -> Vec<DocChange> {
        std::mem::take(&mut *lock(&self.dead_at_open))
    }

    /// The device recorded as the author of this replica's writes.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Every document id, sorted.
    pub fn doc_ids(&self) -> Vec<DocId> {
        self.docs.read().unwrap_or_else(PoisonError::into_inner).keys().cloned().collect()
    }

    /// Whether this replica holds document `doc`.
    pub fn has_document(&self, doc: &DocId) -> bool {
        self.docs.read().unwrap_or_else(PoisonError::into_inner).contains_key(doc)
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

    /// Document `id`, loaded (again, if it was unloaded).
    pub(crate) fn document(&self, id: &DocId) -> Result<Arc<Mutex<Document>>, ReplicaError> {
        let document = self
            .docs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| ReplicaError::UnknownDocument(id.clone()))?;
        // When it was last used (its id cloned only the first time).
        let now = Instant::now();
        let mut used = lock(&self.used);
        match used.get_mut(id) {
            Some(at) => *at = now,
            None => {
                used.insert(id.clone(), now);
            }
        }
        drop(used);
        if lock(&self.unloaded).contains_key(id) {
            // Nobody else holds an unloaded document: whoever got it since
            // came through here and waits on this lock. Its entry leaves
            // `unloaded` only once it is loaded, so a caller that finds no
            // entry finds it loaded, and a failed load leaves it unloaded
            // for the next caller to try again.
            let mut loading = lock(&document);
            let actor = lock(&self.unloaded).get(id).map(|unloaded| unloaded.actor.clone());
            if let Some(actor) = actor {
                let started = Instant::now();
                loading.reload(
                    &self.dir.join(id.to_string()),
                    actor,
                    self.options.compact_log_bytes,
                )?;
                lock(&self.unloaded).remove(id);
                tracing::debug!(doc = %id, ms = started.elapsed().as_millis() as u64, "document loaded again");
            }
            drop(loading);
        }
        Ok(document)
    }

    /// Document `id` as [`Replica::document`] gives it, or `None` when this
    /// replica has no such document (any other failure, such as a load
    /// that failed, is an error, not an absence).
    pub(crate) fn document_if_any(
        &self,
        id: &DocId,
    ) -> Result<Option<Arc<Mutex<Document>>>, ReplicaError> {
        match self.document(id) {
            Ok(document) => Ok(Some(document)),
            Err(ReplicaError::UnknownDocument(_)) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// What unloaded document `id` still answers for, if it is unloaded.
    fn if_unloaded<T>(&self, id: &DocId, read: impl FnOnce(&Unloaded) -> T) -> Option<T> {
        lock(&self.unloaded).get(id).map(read)
    }

    /// Frees the Automerge state of every document nothing has used for
    /// `idle` (all of whose changes are on disk, and which nobody holds):
    /// a node serving 100k memories writes to one shard per namespace, and
    /// the others held most of its memory besides the model. A document is
    /// loaded again from its files when next used. Returns how many were
    /// unloaded.
    pub fn unload_idle(&self, idle: Duration) -> usize {
        let now = Instant::now();
        let used = lock(&self.used).clone();
        self.unload_where(|id, _| used.get(id).is_none_or(|at| now.duration_since(*at) >= idle))
    }

    /// Unloads each document for which `wanted(id, document)` holds and
    /// that can be unloaded (never the registry).
    fn unload_where(&self, wanted: impl Fn(&DocId, &Document) -> bool) -> usize {
        // The write lock keeps `document` from handing one out meanwhile; a
        // document only the map holds is in use by nobody.
        let docs = self.docs.write().unwrap_or_else(PoisonError::into_inner);
        let mut unloaded = lock(&self.unloaded);
        let mut count = 0;
        for (id, document) in docs.iter() {
            if id == &DocId::Registry
                || unloaded.contains_key(id)
                || Arc::strong_count(document) != 1
            {
                continue;
            }
            let Ok(mut document) = document.try_lock() else { continue };
            if !wanted(id, &document) {
                continue;
            }
            if let Some(summary) = document.unload() {
                unloaded.insert(id.clone(), summary);
                count += 1;
            }
        }
        if count > 0 {
            tracing::debug!(count, "documents unloaded");
        }
        count
    }

    /// The documents unloaded from memory now.
    pub fn unloaded(&self) -> Vec<DocId> {
        lock(&self.unloaded).keys().cloned().collect()
    }

    /// Unloads those of `ids` that can be (as [`Replica::unload_idle`]
    /// does): for work that loaded documents only to write a few fields,
    /// to leave them as it found them. Returns how many were unloaded.
    pub fn unload(&self, ids: &[DocId]) -> usize {
        self.unload_where(|id, _| ids.contains(id))
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
        let document = Document::open(
            &self.dir.join(id.to_string()),
            id.clone(),
            self.options.compact_log_bytes,
        )?;
        self.docs
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), Arc::new(Mutex::new(document)));
        Ok(())
    }

    /// Whether a peer's sync message may make `doc` here: a document held,
    /// the registry, a namespace's first shard, or the shard after the last
    /// one held once that one is full. A full shard holds
    /// [`ReplicaOptions::shard_capacity`] memories, forgotten ones counted,
    /// or, since evicted memories leave no trace in the live state, has a
    /// history of at least `MIN_OPS_PER_MEMORY` operations per memory it
    /// could hold: the most a shard had before the next was opened can only
    /// grow. So a peer cannot step through shards (each a document, a
    /// directory, a log and an open file on every device) faster than it
    /// fills them.
    pub fn may_make(&self, doc: &DocId) -> Result<bool, ReplicaError> {
        let DocId::Shard { namespace, index } = doc else { return Ok(true) };
        if *index == 0 || self.document(doc).is_ok() {
            return Ok(true);
        }
        let previous = DocId::shard(namespace, index - 1);
        let Ok(document) = self.document(&previous) else { return Ok(false) };
        let document = lock(&*document);
        let capacity = self.options.shard_capacity;
        Ok(document.count("memories") + document.count("forgotten") >= capacity
            || document.ops() >= (capacity as u64).saturating_mul(MIN_OPS_PER_MEMORY))
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
                let memories = match self.if_unloaded(&last, |unloaded| unloaded.memories) {
                    Some(memories) => memories,
                    None => lock(&*self.document(&last)?).count("memories"),
                };
                let full = memories >= self.options.shard_capacity;
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
        // An alias is introduced by the memory written with it, if any: it
        // dies with that memory.
        let introducer = records.memories.first().map(|memory| memory.id.as_str());
        let aliases: Vec<(String, &Alias, Option<&str>)> = records
            .aliases
            .iter()
            .map(|alias| (new_alias_key(&alias.entity_id), alias, introducer))
            .collect();
        let counters = Counters::default();
        let writing = Writing {
            memories: records.memories.iter().map(|memory| (memory, &counters)).collect(),
            entities: records.entities.iter().collect(),
            aliases,
            edges: records.edges.iter().collect(),
        };
        self.write(namespace, now, &writing)
    }

    /// Writes `writing` as one change to the open shard of `namespace`.
    fn write(
        &self,
        namespace: &Namespace,
        now: Timestamp,
        writing: &Writing<'_>,
    ) -> Result<DocChange, ReplicaError> {
        let id = self.open_shard(namespace)?;
        let document = self.document(&id)?;
        // Every sealed record's key is on disk before the change that uses
        // it (see `keys`).
        let memory_keys: Vec<Key> = writing.memories.iter().map(|_| Key::random()).collect();
        let entity_keys: Vec<Key> = writing.entities.iter().map(|_| Key::random()).collect();
        let alias_keys: Vec<Key> = writing.aliases.iter().map(|_| Key::random()).collect();
        let mut filed: Vec<(&str, Key)> = Vec::new();
        filed.extend(writing.memories.iter().map(|(m, _)| m.id.as_str()).zip(memory_keys.clone()));
        filed.extend(writing.entities.iter().map(|e| e.id.as_str()).zip(entity_keys.clone()));
        filed
            .extend(writing.aliases.iter().map(|(name, ..)| name.as_str()).zip(alias_keys.clone()));
        lock(&self.keys).insert(&filed)?;
        let _purging = lock(&self.purging);
        // Entities the memories use that exist already must still have their
        // key: a purge may have deleted it since the caller resolved them.
        // (An id no document holds yet cannot have been purged.)
        let new_entities: HashSet<&str> = writing.entities.iter().map(|e| e.id.as_str()).collect();
        let used: Vec<Vec<String>> =
            writing.memories.iter().map(|(memory, _)| memory.used_entities()).collect();
        for entity in used.iter().flatten() {
            if !new_entities.contains(entity.as_str()) && self.entity_locked(namespace, entity)? {
                return Err(ReplicaError::EntityForgotten(entity.clone()));
            }
        }
        self.writable(&lock(&document).id)?;
        // Written as the stand-in, where this device has one (records
        // copied only then).
        let rewritten;
        let writing = match self.stand_in(namespace) {
            None => writing,
            Some(stand_in) => {
                rewritten = Rewritten::of(writing, &self.device, &stand_in);
                &rewritten.writing()
            }
        };
        let ((), change) = lock(&document).write(now, |doc, roots, keys| {
            for (entity, key) in writing.entities.iter().zip(&entity_keys) {
                records::put_entity(doc, roots, entity, key)?;
                keys.entities.insert(entity.id.clone());
            }
            for ((name, alias, introducer), key) in writing.aliases.iter().zip(&alias_keys) {
                records::put_alias(doc, roots, name, alias, *introducer, key)?;
                keys.aliases.insert(name.clone());
            }
            for ((memory, counters), key) in writing.memories.iter().zip(&memory_keys) {
                records::put_memory(doc, roots, memory, key, counters)?;
                keys.memories.insert(memory.id.clone());
            }
            for edge in &writing.edges {
                records::put_edge(doc, roots, edge)?;
                keys.edges.insert(edge.key());
            }
            Ok(())
        })?;
        let mut locations = self.locations.write().unwrap_or_else(PoisonError::into_inner);
        let mut refs = lock(&self.refs);
        for ((memory, _), used) in writing.memories.iter().zip(used) {
            locations.insert(memory.id.clone(), id.clone());
            refs.set(&memory.id, Some(used));
        }
        drop((locations, refs));
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

    /// Makes the namespaces in `namespaces` (shares this device may only
    /// read) refuse every write, and the others take them again.
    pub fn set_read_only(&self, namespaces: BTreeSet<Namespace>) {
        *self.read_only.write().unwrap_or_else(PoisonError::into_inner) = namespaces;
    }

    /// Sets, per share's namespace where this device takes part without a
    /// grant (one of the person's devices in a share the person created),
    /// the member it writes as: the share's creator. Its id then appears in
    /// none of the share's documents, so teammates never learn of it: the
    /// records it writes name the creator as their writer, its tombstones
    /// too, and its validations and recall counts stay here (they are kept
    /// per device; under the creator's name they would overwrite the
    /// creator's).
    pub fn set_stand_ins(&self, stand_ins: BTreeMap<Namespace, String>) {
        *self.stand_ins.write().unwrap_or_else(PoisonError::into_inner) = stand_ins;
    }

    /// The id this device writes as in `namespace`: its own, or its stand-in
    /// there ([`Replica::set_stand_ins`]).
    pub fn writer_in(&self, namespace: &Namespace) -> String {
        self.stand_in(namespace).unwrap_or_else(|| self.device.clone())
    }

    /// Whether what this device keeps per device of memory `id` (its
    /// validations and recall counts) stays here: the memory lives where
    /// the device writes as a stand-in ([`Replica::set_stand_ins`]).
    pub fn kept_here(&self, id: &str) -> bool {
        self.locate(id)
            .and_then(|doc| doc.namespace().cloned())
            .is_some_and(|namespace| self.stand_in(&namespace).is_some())
    }

    fn stand_in(&self, namespace: &Namespace) -> Option<String> {
        self.stand_ins.read().unwrap_or_else(PoisonError::into_inner).get(namespace).cloned()
    }

    /// Whether `namespace` refuses writes here (a share this device may
    /// only read).
    pub fn is_read_only(&self, namespace: &Namespace) -> bool {
        self.read_only.read().unwrap_or_else(PoisonError::into_inner).contains(namespace)
    }

    /// Refuses a write to `doc` when its namespace is read-only here.
    fn writable(&self, doc: &DocId) -> Result<(), ReplicaError> {
        match doc.namespace() {
            Some(namespace)
                if self
                    .read_only
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .contains(namespace) =>
            {
                Err(ReplicaError::ReadOnly(namespace.to_string()))
            }
            _ => Ok(()),
        }
    }

    /// The shard holding the live memory `id`.
    pub fn locate(&self, id: &str) -> Option<DocId> {
        self.locations.read().unwrap_or_else(PoisonError::into_inner).get(id).cloned()
    }

    /// Forgets the memories `ids`: deletes them and writes their tombstones,
    /// one change per shard, durably; then deletes their keys, and those of
    /// the entities and aliases only they used. `changes` holds the
    /// tombstones' changes and then changes whose heads did not move (what
    /// became unreadable: see [`DocChange::is_keys_only`]).
    pub fn forget(&self, ids: &[String], now: Timestamp) -> Result<Forgotten, ReplicaError> {
        let Deleted { mut outcome, orphaned, by_namespace } =
            self.delete_memories(ids, now, true)?;
        for (namespace, forgotten) in by_namespace {
            outcome.changes.extend(self.purge(&namespace, &forgotten, &orphaned)?);
        }
        Ok(outcome)
    }

    /// Deletes the live memories among `ids`, one change per shard, durably,
    /// writing their tombstones when `tombstones` ([`Replica::forget`]) or
    /// not ([`Replica::evict`]); their keys are the caller's to delete.
    fn delete_memories(
        &self,
        ids: &[String],
        now: Timestamp,
        tombstones: bool,
    ) -> Result<Deleted, ReplicaError> {
        let mut by_doc: BTreeMap<DocId, Vec<String>> = BTreeMap::new();
        let mut outcome = Forgotten::default();
        let mut orphaned = Vec::new();
        let mut by_namespace: BTreeMap<Namespace, Vec<String>> = BTreeMap::new();
        let mut seen = std::collections::HashSet::new();
        for id in ids.iter().filter(|id| seen.insert(id.as_str())) {
            match self.locate(id) {
                Some(doc) => by_doc.entry(doc).or_default().push(id.clone()),
                None => outcome.unknown.push(id.clone()),
            }
        }
        for (doc_id, ids) in by_doc {
            self.writable(&doc_id)?;
            let document = self.document(&doc_id)?;
            let mut document = lock(&document);
            let by =
                doc_id.namespace().map_or_else(|| self.device.clone(), |ns| self.writer_in(ns));
            let (deleted, change) = document.write(now, |doc, roots, keys| {
                let mut deleted = Vec::new();
                for id in &ids {
                    if records::has_memory(&RootMaps::new(doc, roots), id) {
                        if tombstones {
                            let tombstone =
                                Tombstone { memory_id: id.clone(), at: now, by: by.clone() };
                            records::forget_memory(doc, roots, &tombstone)?;
                            keys.forgotten.insert(id.clone());
                        } else {
                            records::delete_memory(doc, roots, id)?;
                        }
                        keys.memories.insert(id.clone());
                        deleted.push(id.clone());
                    }
                }
                Ok(deleted)
            })?;
            let mut locations = self.locations.write().unwrap_or_else(PoisonError::into_inner);
            let mut refs = lock(&self.refs);
            for id in &ids {
                if deleted.contains(id) {
                    locations.remove(id);
                    orphaned.extend(refs.set(id, None));
                } else {
                    outcome.unknown.push(id.clone());
                }
            }
            drop((locations, refs));
            if let Some(namespace) = doc_id.namespace() {
                by_namespace.entry(namespace.clone()).or_default().extend(deleted.clone());
            }
            outcome.forgotten.extend(deleted);
            if !change.keys.is_empty() {
                self.announce(&doc_id);
                outcome.changes.push(change);
            }
        }
        Ok(Deleted { outcome, orphaned, by_namespace })
    }

    /// Evicts the memories `ids`: deletes their records without tombstones,
    /// one change per shard, durably, then their keys (and those of entities
    /// no live memory uses any more). For records that nothing can bring
    /// back and nothing else refers to — a session's working-memory events:
    /// written once by one device, never changed, with no aliases or edges —
    /// so that evicting them leaves nothing in the live state: a merge cannot
    /// undo the deletion (it is causally after the record's only write), and
    /// a device that merges it deletes their keys too
    /// ([`Replica::receive_sync_message`]). Their sealed bytes stay in the
    /// history, unreadable, as a forgotten memory's do. `changes` holds the
    /// deletions and then keys-only changes (as [`Replica::forget`]'s).
    pub fn evict(&self, ids: &[String], now: Timestamp) -> Result<Forgotten, ReplicaError> {
        let Deleted { mut outcome, orphaned, by_namespace } =
            self.delete_memories(ids, now, false)?;
        if orphaned.is_empty() {
            // Nothing else lost its last user: their own keys alone, without
            // looking through the namespace's entities and aliases.
            lock(&self.keys).remove_records(outcome.forgotten.iter().map(String::as_str))?;
        } else {
            for (namespace, evicted) in by_namespace {
                outcome.changes.extend(self.purge(&namespace, &evicted, &orphaned)?);
            }
        }
        Ok(outcome)
    }

    /// Deletes the keys of the memories `forgotten` of `namespace`, of the
    /// entities in `orphaned` (no live memory uses them any more) and of the
    /// aliases that only forgotten memories or orphaned entities used. Returns
    /// one keys-only change per document whose entities or aliases became
    /// unreadable, for the index to drop them.
    pub(crate) fn purge(
        &self,
        namespace: &Namespace,
        forgotten: &[String],
        orphaned: &[String],
    ) -> Result<Vec<DocChange>, ReplicaError> {
        let _purging = lock(&self.purging);
        let forgotten_set: HashSet<&str> = forgotten.iter().map(String::as_str).collect();
        let refs_used = |entity: &str| lock(&self.refs).used(entity);
        let orphaned: HashSet<&str> =
            orphaned.iter().map(String::as_str).filter(|entity| !refs_used(entity)).collect();
        let mut doomed: Vec<String> = forgotten.to_vec();
        let mut changes = Vec::new();
        for id in self.shards(namespace) {
            let document = self.document(&id)?;
            let mut document = lock(&document);
            let mut keys = ChangedKeys::default();
            for entity in document.keys("entities") {
                if orphaned.contains(entity.as_str()) {
                    keys.entities.insert(entity);
                }
            }
            let maps = document.maps();
            for alias in document.keys("aliases") {
                let dead = records::alias_links(&maps, &alias).is_some_and(|(entity, memory)| {
                    orphaned.contains(entity.as_str())
                        || memory
                            .as_ref()
                            .is_some_and(|memory| forgotten_set.contains(memory.as_str()))
                });
                if dead {
                    keys.aliases.insert(alias);
                }
            }
            if keys.is_empty() {
                continue;
            }
            doomed.extend(keys.entities.iter().cloned());
            doomed.extend(keys.aliases.iter().cloned());
            let heads = document.heads();
            changes.push(DocChange {
                doc: id.clone(),
                before: heads.clone(),
                after: heads,
                keys,
                purged: true,
            });
        }
        lock(&self.keys).remove_records(doomed.iter().map(String::as_str))?;
        Ok(changes)
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

    /// Edits the live memory `id` in place: its tags become `tags`, its
    /// confidence `confidence` (each when given). Each tag slot and the
    /// confidence are registers of their own, so two devices that edit at
    /// once keep both edits where they touch different ones. `None` when `id`
    /// names no live memory this node can read.
    pub fn edit_memory(
        &self,
        id: &str,
        tags: Option<&[String]>,
        confidence: Option<f64>,
        now: Timestamp,
    ) -> Result<Option<DocChange>, ReplicaError> {
        let Some(doc_id) = self.locate(id) else { return Ok(None) };
        let document = self.document(&doc_id)?;
        let mut document = lock(&document);
        let namespace = doc_id.namespace().cloned().unwrap_or_default();
        let (key, current) = {
            let maps = document.maps();
            let keys = lock(&self.keys);
            let Some(key_id) = records::live_memory_key(&maps, id) else { return Ok(None) };
            let Some(key) = keys.get(&key_id).cloned() else { return Ok(None) };
            let Some(stored) = records::read_memory(&maps, &namespace, id, &keys).found() else {
                return Ok(None);
            };
            (key, stored.memory.tags)
        };
        self.writable(&document.id)?;
        let (edited, change) = document.write(now, |doc, roots, keys| {
            let edited = records::edit_memory(doc, roots, id, &key, &current, tags, confidence)?;
            if edited {
                keys.memories.insert(id.to_owned());
            }
            Ok(edited)
        })?;
        drop(document);
        if !edited || change.keys.is_empty() {
            return Ok(None);
        }
        self.announce(&doc_id);
        Ok(Some(change))
    }

    /// Records that this device validated each of `ids` at `now`; returns the
    /// ids that named live memories, and the changes made.
    pub fn validate(
        &self,
        ids: &[String],
        now: Timestamp,
    ) -> Result<(Vec<String>, Vec<DocChange>), ReplicaError> {
        self.per_doc_as_this_device(ids, now, |doc, roots, id| {
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
        self.per_doc_as_this_device(&ids, now, |doc, roots, id| match stats.get(id) {
            Some(stat) => records::add_access(doc, roots, id, &self.device, *stat),
            None => Ok(false),
        })
    }

    /// [`Replica::per_doc`] for what is kept per device, under the device's
    /// own id: passed over in a namespace where it writes as a stand-in.
    fn per_doc_as_this_device(
        &self,
        ids: &[String],
        now: Timestamp,
        apply: impl Fn(
            &mut automerge::AutoCommit,
            &crate::schema::Roots,
            &str,
        ) -> Result<bool, automerge::AutomergeError>,
    ) -> Result<(Vec<String>, Vec<DocChange>), ReplicaError> {
        let ids: Vec<String> = ids.iter().filter(|id| !self.kept_here(id)).cloned().collect();
        self.per_doc(&ids, now, apply)
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
            if self.writable(&doc_id).is_err() {
                continue;
            }
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
        // What this node derives of a share it may only read (corrections,
        // classes of entities and predicates) stays in its index: written,
        // it would be refused everywhere.
        if self.read_only.read().unwrap_or_else(PoisonError::into_inner).contains(namespace) {
            return Ok(DocChange {
                doc: DocId::shard(namespace, 0),
                before: Vec::new(),
                after: Vec::new(),
                keys: ChangedKeys::default(),
                purged: false,
            });
        }
        self.write_new(namespace, now, &NewRecords { edges, ..NewRecords::default() })
    }

    /// The current heads of document `id`.
    pub fn heads(&self, id: &DocId) -> Result<Vec<ChangeHash>, ReplicaError> {
        if let Some(heads) = self.if_unloaded(id, |unloaded| unloaded.heads.clone()) {
            return Ok(heads);
        }
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
        if self.if_unloaded(id, |unloaded| unloaded.heads == heads) == Some(true) {
            return Ok(0);
        }
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
        let mut changed = document.changes_since(since);
        let heads = document.heads();
        if let Some(changed) = &mut changed {
            self.keep_within_share(id, changed);
            self.relocate(&document, changed);
        }
        Ok((changed, heads))
    }

    /// Leaves out of `changed`, a change to a share's document `id`, the
    /// memories that live in another namespace: a share's members write its
    /// documents, and a record or a tombstone under the id of one of the
    /// person's own memories must not move it, delete its key or reach the
    /// index (docs/sharing.md). Logged when it happens.
    pub(crate) fn keep_within_share(&self, id: &DocId, changed: &mut ChangedKeys) {
        let Some(namespace) = id.namespace() else { return };
        if !crate::shares::is_share_namespace(namespace) {
            return;
        }
        let locations = self.locations.read().unwrap_or_else(PoisonError::into_inner);
        let elsewhere = |memory: &String| {
            locations.get(memory).is_some_and(|home| home.namespace() != Some(namespace))
        };
        let before = changed.memories.len() + changed.forgotten.len();
        changed.memories.retain(|memory| !elsewhere(memory));
        changed.forgotten.retain(|memory| !elsewhere(memory));
        let refused = before - changed.memories.len() - changed.forgotten.len();
        if refused > 0 {
            tracing::warn!(doc = %id, refused, "a share's document names memories held elsewhere; left alone");
        }
    }

    /// Updates where the memories in `changed` live, and which entities
    /// they use, after a change to `document` that this replica did not make
    /// itself; returns the entities no live memory uses any more, and those
    /// a live memory uses now and none did before (they may live in another
    /// shard, whose records the index must now read).
    pub(crate) fn relocate(
        &self,
        document: &Document,
        changed: &ChangedKeys,
    ) -> (Vec<String>, Vec<String>) {
        if document.id == DocId::Registry {
            return (Vec::new(), Vec::new());
        }
        let mut locations = self.locations.write().unwrap_or_else(PoisonError::into_inner);
        let mut refs = lock(&self.refs);
        let (mut orphaned, mut revived) = (Vec::new(), Vec::new());
        let maps = document.maps();
        for memory in changed.memories.iter().chain(&changed.forgotten) {
            let used = records::memory_refs(&maps, memory);
            if used.is_some() {
                locations.insert(memory.clone(), document.id.clone());
            } else {
                locations.remove(memory);
            }
            let (gone, back) = refs.set_both(memory, used);
            orphaned.extend(gone);
            revived.extend(back);
        }
        (orphaned, revived)
    }

    /// Keys-only changes naming the entities of `namespace` in `entities`,
    /// per document that holds them (for the index to read them again).
    pub(crate) fn entity_changes(
        &self,
        namespace: &Namespace,
        entities: &[String],
    ) -> Result<Vec<DocChange>, ReplicaError> {
        let mut changes = Vec::new();
        let tags: Vec<RecordTag> = entities.iter().map(|entity| RecordTag::of(entity)).collect();
        for id in self.shards(namespace) {
            let holds_none = self.if_unloaded(&id, |unloaded| {
                !tags.iter().any(|tag| unloaded.entities.contains(tag))
            });
            if holds_none == Some(true) {
                continue;
            }
            let document = self.document(&id)?;
            let mut document = lock(&document);
            let held = {
                let maps = document.maps();
                entities
                    .iter()
                    .filter(|entity| records::record_key(&maps, "entities", entity).is_some())
                    .cloned()
                    .collect()
            };
            let keys = ChangedKeys { entities: held, ..ChangedKeys::default() };
            if !keys.entities.is_empty() {
                let heads = document.heads();
                changes.push(DocChange {
                    doc: id,
                    before: heads.clone(),
                    after: heads,
                    keys,
                    purged: false,
                });
            }
        }
        Ok(changes)
    }

    /// Reads document `id` through `read`, holding it still meanwhile. The
    /// key store is locked for each record read, not for the whole read: a
    /// shard's worth of records takes most of a second to index, and merges
    /// of other documents (which ask whether keys are here) and keys
    /// arriving for them need the store meanwhile.
    pub fn read<T>(
        &self,
        id: &DocId,
        read: impl FnOnce(&ShardReader<'_>) -> T,
    ) -> Result<T, ReplicaError> {
        let document = self.document(id)?;
        let document = lock(&document);
        let namespace = id.namespace().cloned().unwrap_or_default();
        Ok(read(&ShardReader {
            document: &document,
            maps: document.maps(),
            namespace,
            keys: &self.keys,
            replica: self,
        }))
    }

    /// Size figures of every document.
    pub fn stats(&self) -> Vec<DocStat> {
        self.doc_ids()
            .into_iter()
            .filter_map(|id| {
                if let Some(stat) = self.if_unloaded(&id, |unloaded| DocStat {
                    id: id.clone(),
                    memories: unloaded.memories,
                    entities: unloaded.entities.len(),
                    disk_bytes: unloaded.disk_bytes,
                }) {
                    return Some(stat);
                }
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
    /// Lookups by id in the document's root maps, read whole once a reader
    /// has looked many records up.
    maps: RootMaps<'a>,
    namespace: Namespace,
    keys: &'a Mutex<KeyStore>,
    replica: &'a Replica,
}

impl ShardReader<'_> {
    /// The live memory `id`, if this node can read it.
    pub fn memory(&self, id: &str) -> Option<StoredMemory> {
        self.memory_lookup(id).found()
    }

    /// The memory `id`: readable, locked (its key is not here), or absent.
    pub fn memory_lookup(&self, id: &str) -> Lookup<StoredMemory> {
        records::read_memory(&self.maps, &self.namespace, id, &lock(self.keys))
    }

    /// The tombstone of `id`, if it was forgotten.
    pub fn tombstone(&self, id: &str) -> Option<Tombstone> {
        records::read_tombstone(&self.maps, id)
    }

    /// The entity `id`: readable, locked, or absent (also when no live
    /// memory uses it: only forgotten memories did, and its name is gone).
    pub fn entity(&self, id: &str) -> Lookup<Entity> {
        if !self.replica.entity_used(id) {
            return Lookup::Absent;
        }
        records::read_entity(&self.document.doc, &self.document.roots, id, &lock(self.keys))
    }

    /// The alias stored under `key`: readable, locked, or absent (also when
    /// its entity is unused or the memory that introduced it is forgotten).
    pub fn alias(&self, key: &str) -> Lookup<Alias> {
        if !self.replica.alias_live(&self.maps, key) {
            return Lookup::Absent;
        }
        records::read_alias(&self.document.doc, &self.document.roots, key, &lock(self.keys))
    }

    /// The memory that introduced the alias stored under `key` (the alias
    /// dies with it), if it names one.
    pub fn alias_introducer(&self, key: &str) -> Option<String> {
        records::alias_links(&self.maps, key).and_then(|(_, memory)| memory)
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

#[cfg(test)]
mod tests {
    use ferrex_core::{AccessStat, Edge, EdgeKind};

    use super::*;

    #[test]
    fn a_device_without_a_grant_names_itself_in_none_of_a_shares_documents() {
        let temp = tempfile::tempdir().unwrap();
        let server = Replica::open(temp.path(), "own-server", ReplicaOptions::default()).unwrap();
        let share = Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap();
        server.set_stand_ins(BTreeMap::from([(share.clone(), "the-creator".to_owned())]));
        assert_eq!(server.writer_in(&share), "the-creator");
        let write = |id: &str| {
            let memory =
                NewMemory::episode(id, format!("text of {id}"), "own-server", Timestamp(1));
            let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
            server.write_new(&share, Timestamp(1), &records).unwrap();
        };
        write("m1");
        write("m2");
        let edge = Edge {
            kind: EdgeKind::Supersedes,
            from: "m2".into(),
            to: "m1".into(),
            created_at: Timestamp(2),
            created_by: "own-server".into(),
        };
        server.add_edges(&share, vec![edge], Timestamp(2)).unwrap();
        server.validate(&["m1".to_owned()], Timestamp(3)).unwrap();
        let stats =
            BTreeMap::from([("m1".to_owned(), AccessStat { count: 4, last: Some(Timestamp(4)) })]);
        server.fold_access(&stats, Timestamp(4)).unwrap();
        server.forget(&["m2".to_owned()], Timestamp(5)).unwrap();
        let document = server.document(&DocId::shard(&share, 0)).unwrap();
        let json = lock(&document).to_json();
        assert!(json.contains("the-creator"), "{json}");
        assert!(!json.contains("own-server"), "the device named itself in the share: {json}");
        // Elsewhere it writes as itself.
        let work = Namespace::parse("work").unwrap();
        assert_eq!(server.writer_in(&work), "own-server");
    }
}
