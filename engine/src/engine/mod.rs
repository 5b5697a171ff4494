//! The node's operations: what each MCP tool does, over the documents, the
//! index and the embedder. `store.rs` is the store pipeline, `recall.rs`
//! the search, `review.rs` reflect, history and detailed stats,
//! `entities.rs` entity resolution against the index, `predicates.rs`
//! predicate resolution against the index, `browse.rs` what a person lists and shows,
//! and `transfer.rs` the export and its import; forget, stats and indexing
//! what a peer sent (`apply_merged`) are here.

mod arrivals;
mod browse;
mod entities;
pub mod files;
pub mod graph;
mod predicates;
mod recall;
mod review;
mod sharing;
mod store;
pub mod tell;
mod transfer;
pub mod working;

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
};

use ferrex_core::{Content, FieldError, MemorySettings, Timestamp, Usage};
use ferrex_sync::{DocStat, Replica};

pub use browse::{ListRequest, Reach};
pub use recall::{Backlog, RecallRequest, Recalled, Sources};
pub use review::{Contradiction, DetailedStats, HistoryEntry, Reflection};
pub use sharing::{ShareMove, ShareStat};
pub use store::Stored;

use crate::{
    base::clock::{Clock, SystemClock},
    derived::DeriveError,
    derived::embedding::{Foreground, WorkSignal},
    derived::index::{Index, IndexError, MemoryRow},
    derived::indexer::{self, KnownVectors},
};

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The request was wrong; nothing was changed.
    #[error("invalid {0}")]
    Invalid(#[from] FieldError),
    /// The node failed; [`EngineError`] says which part.
    #[error("internal error: {}", crate::base::with_causes(.0))]
    Internal(#[source] EngineError),
    /// The request met a concurrent change (an entity it uses was just
    /// forgotten); nothing was written, and the same request may succeed.
    #[error("{0}")]
    Conflict(String),
}

/// Why the engine failed on its own part (not the request's): a part below
/// it, or a check of what it keeps in step. Matched by kind; its `Display`
/// is the part's, its `source()` the part's causes.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The index failed (it is derived: the worst case is a rebuild).
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The documents failed.
    #[error(transparent)]
    Documents(#[from] ferrex_sync::ReplicaError),
    /// The embedder failed.
    #[error(transparent)]
    Embed(#[from] ferrex_core::EmbedError),
    /// Keeping the index in step with the documents failed.
    #[error(transparent)]
    Derive(#[from] DeriveError),
    /// Watching or reading files failed.
    #[error(transparent)]
    Files(#[from] files::FilesError),
    /// A name the engine was given (from its configuration, or a peer's
    /// document) that it cannot use.
    #[error("invalid {0}")]
    Field(#[from] FieldError),
    /// A memory was written to its document but indexing it failed: it is
    /// kept, and indexed at the next catch-up (a restart at the latest).
    #[error("memory {id} is stored but could not be indexed")]
    NotIndexed {
        /// The memory.
        id: String,
        /// Why.
        #[source]
        source: DeriveError,
    },
    /// A share's records failed (its file, or the storage under it).
    #[error(transparent)]
    Shares(#[from] ferrex_sync::shares::ShareError),
    /// A share was asked of a node that keeps none (one opened without
    /// its shares' keys, as the tests' engines are).
    #[error("this node keeps no shares")]
    NoShares,
    /// A long change stopped (the node is shutting down) before it was
    /// done: what it wrote is consistent, and it can be asked again.
    #[error("interrupted {0}")]
    Interrupted(String),
    /// An answer that could not be written as JSON.
    #[error("writing the answer")]
    Answer(#[source] serde_json::Error),
    /// What the engine keeps in step disagreed with itself (a link whose
    /// end resolves to nothing, one stored but not indexed): the message
    /// says what.
    #[error("{0}")]
    Inconsistent(String),
}

impl From<EngineError> for ToolError {
    fn from(error: EngineError) -> Self {
        match error {
            EngineError::Documents(error) => error.into(),
            EngineError::Field(error) => ToolError::Invalid(error),
            other => ToolError::Internal(other),
        }
    }
}

impl From<files::FilesError> for ToolError {
    fn from(error: files::FilesError) -> Self {
        ToolError::Internal(error.into())
    }
}

impl From<ferrex_core::EmbedError> for ToolError {
    fn from(error: ferrex_core::EmbedError) -> Self {
        ToolError::Internal(error.into())
    }
}

impl From<IndexError> for ToolError {
    fn from(error: IndexError) -> Self {
        ToolError::Internal(error.into())
    }
}

impl From<DeriveError> for ToolError {
    fn from(error: DeriveError) -> Self {
        match error {
            DeriveError::Documents(error) => error.into(),
            other => ToolError::Internal(other.into()),
        }
    }
}

impl From<ferrex_sync::ReplicaError> for ToolError {
    fn from(error: ferrex_sync::ReplicaError) -> Self {
        if let ferrex_sync::ReplicaError::EntityForgotten(_) = error {
            return ToolError::Conflict(error.to_string());
        }
        if let ferrex_sync::ReplicaError::ReadOnly(_) = error {
            return FieldError::new("namespace", error.to_string()).into();
        }
        ToolError::Internal(error.into())
    }
}

/// A result of the engine's own work.
pub(crate) type EngineResult<T> = Result<T, EngineError>;

/// What `stats` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Memories per (namespace, kind).
    pub by_namespace_kind: Vec<(String, String, i64)>,
    /// Entities.
    pub entities: i64,
    /// Forgotten memories (tombstones).
    pub forgotten: i64,
    /// Documents and their sizes.
    pub docs: Vec<DocStat>,
    /// Document changes the index does not reflect yet.
    pub index_lag_changes: usize,
    /// Memories waiting for their vector.
    pub embeddings_queued: i64,
    /// Memories waiting for their passages' vectors (found by their whole
    /// text's already).
    pub passages_queued: i64,
    /// Memories synced from a peer whose key has not arrived yet.
    pub waiting_for_keys: i64,
    /// Memories whose vectors came from a peer running the same model
    /// since the node started.
    pub vectors_from_peers: u64,
    /// The embedding model.
    pub model_id: String,
    /// Watched folders on this device.
    pub watched: usize,
    /// Their files, chunks and skipped files.
    pub files: crate::derived::index::files::FileCounts,
    /// Where the watcher and the file worker are.
    pub watch: files::WatchStatus,
    /// The first skipped files, with why.
    pub skipped_files: Vec<files::SkippedFile>,
    /// The shared projects this device holds.
    pub shares: Vec<ShareStat>,
}

/// The settings of every namespace: the defaults and the namespaces with
/// their own.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// For namespaces without their own.
    pub default: MemorySettings,
    /// Namespaces with their own.
    pub namespaces: BTreeMap<String, MemorySettings>,
    /// A recall waits for memories of its namespace that have no vector yet
    /// when the embedding worker should be done with everything ahead of
    /// them within this long (and never waits a third longer).
    pub recall_backlog_wait: std::time::Duration,
    /// Sessions, tasks and the session-start context.
    pub working: ferrex_core::working::WorkingSettings,
}

impl Settings {
    /// The settings of every namespace `config` names, and the default.
    pub fn from_config(config: &crate::base::config::Config) -> Settings {
        Settings {
            default: config.memory.clone(),
            namespaces: config
                .namespace_overrides
                .keys()
                .map(|namespace| (namespace.clone(), config.memory_for(namespace)))
                .collect(),
            recall_backlog_wait: config.recall_backlog_wait,
            working: config.working.clone(),
        }
    }

    /// The settings of `namespace`.
    pub fn of(&self, namespace: &str) -> &MemorySettings {
        self.namespaces.get(namespace).unwrap_or(&self.default)
    }
}

/// Everything a node serves requests from.
pub struct Engine {
    replica: Arc<Replica>,
    index: Arc<Mutex<Index>>,
    embedder: Arc<Foreground>,
    settings: Settings,
    write_lock: Mutex<()>,
    /// The embedding worker's signal: a store wakes it for its passages, a
    /// recall asks it how long a backlog will take.
    work: Arc<WorkSignal>,
    /// The watched folders of this device (see `files.rs`).
    files: files::FileWatch,
    /// Where every judgement of time reads it.
    clock: Arc<dyn Clock>,
    /// The shares this device holds, if it keeps any (see `sharing.rs`).
    shares: Option<Arc<Mutex<ferrex_sync::shares::Shares>>>,
    /// What each agent session was told with its prompts (`tell.rs`).
    told: Mutex<ferrex_core::tell::ToldSessions>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Engine").field("device", &self.replica.device()).finish()
    }
}

pub use crate::base::lock::lock;

impl Engine {
    /// An engine over an open replica and index.
    pub fn new(
        replica: Arc<Replica>,
        index: Arc<Mutex<Index>>,
        embedder: Arc<Foreground>,
        settings: Settings,
        work: Arc<WorkSignal>,
    ) -> Engine {
        Engine {
            replica,
            index,
            embedder,
            settings,
            write_lock: Mutex::new(()),
            work,
            files: files::FileWatch::default(),
            clock: Arc::new(SystemClock),
            shares: None,
            told: Mutex::default(),
        }
    }

    /// This engine reading the time from `clock` (the system's by default).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Engine {
        self.clock = clock;
        self
    }

    /// Now, by the engine's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// The replica.
    pub fn replica(&self) -> &Arc<Replica> {
        &self.replica
    }

    /// The index.
    pub fn index(&self) -> &Arc<Mutex<Index>> {
        &self.index
    }

    /// The foreground embedder.
    pub fn foreground(&self) -> &Arc<Foreground> {
        &self.embedder
    }

    /// The working-state settings.
    pub fn working_settings(&self) -> &ferrex_core::working::WorkingSettings {
        &self.settings.working
    }

    /// The settings of `namespace`.
    pub fn settings(&self, namespace: &str) -> &MemorySettings {
        self.settings.of(namespace)
    }

    /// Brings the index up to date with a change merged from a peer (new
    /// and changed text is queued for the embedding worker, and new text
    /// for a judgement of corrections once embedded), then judges the
    /// entities the peer created against this node's (a write-time judgement
    /// recorded as `same_as` edges or alias candidates), and the predicates
    /// of the facts it stored against those their subjects have here
    /// (`same_predicate` edges).
    pub fn apply_merged(&self, change: &ferrex_sync::DocChange) -> EngineResult<()> {
        let (new_entities, new_facts): (Vec<String>, Vec<MemoryRow>) = {
            let _writing = lock(&self.write_lock);
            let mut index = lock(&self.index);
            let known: Vec<String> = change
                .keys
                .entities
                .iter()
                .filter(|id| index.entity(id).ok().flatten().is_none())
                .cloned()
                .collect();
            // Which are new decides only which facts are judged: a failed
            // read takes them all as new rather than fail the indexing.
            let new_memories = index.unheld(&change.keys.memories).unwrap_or_else(|error| {
                tracing::warn!(
                    "reading which merged memories are new: {}",
                    crate::base::with_causes(&error)
                );
                change.keys.memories.iter().cloned().collect()
            });
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
            if !change.keys.forgotten.is_empty() || change.purged {
                // Forgotten text must leave the WAL too (see `forget`).
                checkpoint(&index);
            }
            // The free text among them waits for its vectors to be judged
            // (`judge_arrivals`); the facts are judged now (their rows
            // exist now that the change is indexed).
            index.queue_judgements(&new_memories)?;
            (known, index.fact_rows(&new_memories)?)
        };
        // What a forget merged here takes with it (versions and links
        // made on this device, or merged, while the forget was apart).
        let orphans = lock(&self.index).orphaned_by_forgetting()?;
        if !orphans.is_empty() {
            tracing::info!(
                count = orphans.len(),
                "forgetting versions and links of forgotten memories"
            );
            self.forget_as_engine(&orphans)?;
        }
        if let Some(namespace) = change.doc.namespace() {
            if !new_entities.is_empty() {
                self.reconcile_entities(namespace, &new_entities)?;
            }
            // After the entities: their classes decide which facts share a subject.
            if !new_facts.is_empty() {
                self.reconcile_predicates(namespace, &new_facts)?;
            }
        }
        Ok(())
    }

    /// Forgets memories everywhere: tombstones in the documents, their keys
    /// (and those of entities and aliases only they used) deleted, their rows
    /// and vectors overwritten in the index, and the index's WAL emptied, so
    /// that no file of the home holds their text when this returns.
    /// Every version of a memory goes with it (`update`'s `version_of`
    /// edges, either way), and so do the links between memories that name
    /// any of them; the answer lists the ids asked for only.
    pub fn forget(&self, ids: &[String]) -> Result<ferrex_sync::Forgotten, ToolError> {
        Ok(self.forget_as_engine(ids)?)
    }

    /// [`Engine::forget`] of ids the engine found itself (orphans, a
    /// file's old chunks): a failure is the engine's.
    fn forget_as_engine(&self, ids: &[String]) -> EngineResult<ferrex_sync::Forgotten> {
        let _writing = lock(&self.write_lock);
        self.forget_locked(ids)
    }

    /// [`Engine::forget`], the write lock held.
    fn forget_locked(&self, ids: &[String]) -> EngineResult<ferrex_sync::Forgotten> {
        let all = self.forget_closure(ids)?;
        let mut outcome = self.replica.forget(&all, self.now())?;
        let asked: std::collections::HashSet<&String> = ids.iter().collect();
        outcome.forgotten.retain(|id| asked.contains(id));
        outcome.unknown.retain(|id| asked.contains(id));
        let mut index = lock(&self.index);
        for change in &outcome.changes {
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
        }
        if !outcome.forgotten.is_empty() {
            checkpoint(&index);
        }
        Ok(outcome)
    }

    /// Counts, sizes and lag.
    pub fn stats(&self) -> Result<Stats, ToolError> {
        let index = lock(&self.index);
        let counts = index.counts()?;
        let mut lag = 0;
        for id in self.replica.doc_ids() {
            if id == ferrex_sync::DocId::Registry {
                continue;
            }
            let heads = index.doc_heads(&id.to_string())?.unwrap_or_default();
            lag += self.replica.changes_count_since(&id, &heads)?;
        }
        Ok(Stats {
            by_namespace_kind: counts.by_namespace_kind,
            entities: counts.entities,
            forgotten: counts.forgotten,
            docs: self.replica.stats(),
            index_lag_changes: lag,
            embeddings_queued: counts.embeddings_queued,
            passages_queued: counts.passages_queued,
            waiting_for_keys: counts.waiting_for_keys,
            vectors_from_peers: self.work.taken_from_peers(),
            model_id: self.embedder.model_id().to_owned(),
            watched: self.files.roots().len(),
            files: index.file_counts(None)?,
            watch: self.files.status(),
            skipped_files: index
                .skipped_files(files::SKIPPED_SHOWN)?
                .into_iter()
                .map(|(path, reason)| files::SkippedFile { path, reason })
                .collect(),
            shares: self.share_stats(),
        })
    }

    /// Runs `work` while no write can start.
    pub fn with_write_lock<T>(&self, work: impl FnOnce() -> T) -> T {
        let _writing = lock(&self.write_lock);
        work()
    }

    /// Folds this node's buffered recall counts into the documents.
    pub fn fold_access(&self) -> Result<usize, ToolError> {
        let _writing = lock(&self.write_lock);
        let pending: BTreeMap<String, ferrex_core::AccessStat> =
            lock(&self.index).unfolded_access()?;
        if pending.is_empty() {
            return Ok(0);
        }
        // Shards out of memory go back out once their counts are written.
        let unloaded = self.replica.unloaded();
        let (done, changes) = self.replica.fold_access(&pending, self.now())?;
        let mut index = lock(&self.index);
        for change in &changes {
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
        }
        // Counts of a share where this device writes as a stand-in stay in
        // the index, unfolded: written down, they would name the device.
        let mut pending = pending;
        pending.retain(|id, _| !self.replica.kept_here(id));
        index.mark_folded(&pending)?;
        drop(index);
        self.replica.unload(&unloaded);
        Ok(done.len())
    }

    /// The live memory `id` as the index holds it, if there is one.
    pub fn memory(&self, id: &str) -> Result<Option<MemoryRow>, ToolError> {
        Ok(lock(&self.index).row(id)?)
    }

    /// Marks `ids` validated by this device now (for staleness); returns the
    /// ids that named live memories.
    pub fn validate(&self, ids: &[String]) -> Result<Vec<String>, ToolError> {
        if ids.is_empty() {
            return Ok(vec![]);
        }
        let _writing = lock(&self.write_lock);
        let (done, changes) = self.replica.validate(ids, self.now())?;
        let mut index = lock(&self.index);
        for change in &changes {
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
        }
        Ok(done)
    }
}

/// Empties the index's WAL after a forget. The forget is durable already, so
/// a failure is logged (the next forget or start tries again), not returned.
fn checkpoint(index: &Index) {
    if let Err(error) = index.checkpoint_truncate() {
        tracing::error!(
            "after a forget: {}; the next forget or start retries",
            crate::base::with_causes(&error)
        );
    }
}

/// The usage figures staleness is computed from.
pub fn usage_of(row: &MemoryRow) -> Usage {
    Usage {
        kind: row.kind,
        created_at: Timestamp(row.created_at),
        access_count: row.access_count.max(0) as u64,
        last_access: row.last_access.map(Timestamp),
        last_validated: row.last_validated.map(Timestamp),
        evidence: row.evidence,
    }
}

/// A new random, time-ordered id (UUID v7).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Content as JSON-friendly parts, for tool answers.
pub fn content_parts(row: &MemoryRow) -> Content {
    match (&row.subject, &row.predicate, &row.object) {
        (Some(subject), Some(predicate), Some(object)) => Content::Triple(ferrex_core::Triple {
            subject: subject.clone(),
            predicate: predicate.clone(),
            object: object.clone(),
        }),
        _ => Content::Text(row.text.clone()),
    }
}
