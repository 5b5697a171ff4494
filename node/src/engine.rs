//! The node's operations: what each MCP tool does, over the documents, the
//! index and the embedder.

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use anyhow::Context;
use ferrex_core::{
    Content, Edge, EdgeKind, Entity, FieldError, MemoryKind, Namespace, StalenessSettings,
    StoreInput, Timestamp, Usage, rank, staleness, staleness_label, validate,
};
use ferrex_sync::{DocStat, NewMemory, NewRecords, Replica};

use crate::{
    clock,
    embedding::Foreground,
    index::{Index, MemoryRow},
    indexer::{self, KnownVectors},
};

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The request was wrong; nothing was changed.
    #[error("invalid {0}")]
    Invalid(#[from] FieldError),
    /// The node failed; the message says where.
    #[error("internal error: {0:#}")]
    Internal(#[from] anyhow::Error),
}

impl From<ferrex_core::EmbedError> for ToolError {
    fn from(error: ferrex_core::EmbedError) -> Self {
        ToolError::Internal(error.into())
    }
}

impl From<ferrex_sync::ReplicaError> for ToolError {
    fn from(error: ferrex_sync::ReplicaError) -> Self {
        ToolError::Internal(error.into())
    }
}

/// Candidates taken from each of the dense and full-text lists.
const CANDIDATES: usize = 100;

/// A stored memory, as `store` answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The new memory's id.
    pub id: String,
    /// Kind, as given or detected.
    pub kind: MemoryKind,
    /// Namespace.
    pub namespace: Namespace,
    /// Entity ids the memory mentions.
    pub entity_ids: Vec<String>,
    /// The memory this one superseded, if any.
    pub superseded: Option<String>,
}

/// A recall request after validation.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallRequest {
    /// What to look for.
    pub query: String,
    /// Where.
    pub namespace: Namespace,
    /// Which kinds; all when empty.
    pub kinds: Vec<MemoryKind>,
    /// How many results at most.
    pub limit: usize,
}

/// One recall result.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// The memory as indexed.
    pub row: MemoryRow,
    /// Fused score (higher is better).
    pub score: f64,
    /// Its staleness label.
    pub staleness: ferrex_core::Staleness,
}

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
    /// The embedding model.
    pub model_id: String,
}

/// Everything a node serves requests from.
pub struct Engine {
    replica: Arc<Replica>,
    index: Arc<Mutex<Index>>,
    embedder: Arc<Foreground>,
    staleness: StalenessSettings,
    write_lock: Mutex<()>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Engine").field("device", &self.replica.device()).finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Engine {
    /// An engine over an open replica and index.
    pub fn new(
        replica: Arc<Replica>,
        index: Arc<Mutex<Index>>,
        embedder: Arc<Foreground>,
        staleness: StalenessSettings,
    ) -> Engine {
        Engine { replica, index, embedder, staleness, write_lock: Mutex::new(()) }
    }

    /// The replica.
    pub fn replica(&self) -> &Arc<Replica> {
        &self.replica
    }

    /// The index.
    pub fn index(&self) -> &Arc<Mutex<Index>> {
        &self.index
    }

    /// Stores a memory: validate, embed, write the document durably, index,
    /// and only then answer.
    pub fn store(&self, input: StoreInput) -> Result<Stored, ToolError> {
        let request = validate::validate_store(input)?;
        let text = request.content.text();
        let vector =
            self.embedder.embed(&[&text])?.pop().context("the embedder returned no vector")?;

        let _writing = lock(&self.write_lock);
        let now = clock::now();
        let device = self.replica.device().to_owned();
        let namespace = request.namespace.clone();
        if let Some(old) = &request.supersedes {
            let known = lock(&self.index).row(old)?;
            match known {
                Some(row) if row.namespace == namespace.as_str() => {}
                Some(row) => {
                    return Err(FieldError::new(
                        "supersedes",
                        format!(
                            "names memory {old} of namespace {:?}, not {namespace:?}",
                            row.namespace
                        ),
                    )
                    .into());
                }
                None => {
                    return Err(FieldError::new(
                        "supersedes",
                        format!("names no memory: {old} does not exist or was forgotten"),
                    )
                    .into());
                }
            }
        }
        let (entity_ids, new_entities) = self.entities_for(&namespace, &request.entities, now)?;
        let id = new_id();
        let memory = NewMemory {
            id: id.clone(),
            kind: request.kind,
            content: request.content.clone(),
            confidence: request.confidence,
            source: request.source.clone(),
            context: request.context.clone(),
            tags: request.tags.clone(),
            entity_ids: entity_ids.clone(),
            subject_entity: None,
            predicate_written: None,
            created_at: now,
            created_by: device.clone(),
            t_valid: now,
        };
        let edges = request
            .supersedes
            .iter()
            .map(|old| Edge {
                kind: EdgeKind::Supersedes,
                from: id.clone(),
                to: old.clone(),
                created_at: now,
                created_by: device.clone(),
            })
            .collect();
        let records =
            NewRecords { memories: vec![memory], entities: new_entities, aliases: vec![], edges };
        let change = self.replica.write_new(&namespace, now, &records)?;
        let vectors = KnownVectors::from([(id.clone(), vector)]);
        indexer::apply_change(&mut lock(&self.index), &self.replica, &change, &vectors)
            .with_context(|| format!("memory {id} is stored but could not be indexed"))?;
        Ok(Stored { id, kind: request.kind, namespace, entity_ids, superseded: request.supersedes })
    }

    /// Resolves entity names to ids by exact (case-insensitive) name within
    /// the namespace, creating entities for names not seen before.
    fn entities_for(
        &self,
        namespace: &Namespace,
        names: &[String],
        now: Timestamp,
    ) -> anyhow::Result<(Vec<String>, Vec<Entity>)> {
        let index = lock(&self.index);
        let mut ids = Vec::new();
        let mut created: Vec<Entity> = Vec::new();
        for name in names {
            if let Some(existing) = index.entity_by_name(namespace.as_str(), name)? {
                ids.push(existing);
            } else if let Some(entity) =
                created.iter().find(|entity| entity.name.eq_ignore_ascii_case(name))
            {
                ids.push(entity.id.clone());
            } else {
                let entity = Entity {
                    id: new_id(),
                    name: name.clone(),
                    kind: None,
                    created_at: now,
                    created_by: self.replica.device().to_owned(),
                };
                ids.push(entity.id.clone());
                created.push(entity);
            }
        }
        Ok((ids, created))
    }

    /// Hybrid search: dense and BM25 candidates fused by reciprocal rank.
    pub fn recall(&self, request: &RecallRequest) -> Result<Vec<Recalled>, ToolError> {
        let vector = self.embedder.embed_query(&request.query)?;
        let now = clock::now();
        let mut index = lock(&self.index);
        let namespace = request.namespace.as_str();
        let dense = index.dense(&vector, namespace, &request.kinds, CANDIDATES)?;
        let text = index.text(&request.query, namespace, &request.kinds, CANDIDATES)?;
        let dense_ids: Vec<String> = dense.into_iter().map(|(id, _)| id).collect();
        let text_ids: Vec<String> = text.into_iter().map(|(id, _)| id).collect();
        let fused = rank::reciprocal_rank_fusion(&[&dense_ids, &text_ids], rank::RRF_K);
        let top: Vec<(String, f64)> = fused.into_iter().take(request.limit).collect();
        let ids: Vec<String> = top.iter().map(|(id, _)| id.clone()).collect();
        let mut rows = index.rows(&ids)?;
        let results: Vec<Recalled> = top
            .into_iter()
            .filter_map(|(id, score)| {
                let row = rows.remove(&id)?;
                let label = staleness_label(
                    staleness(&usage_of(&row), now, &self.staleness),
                    &self.staleness,
                );
                Some(Recalled { row, score, staleness: label })
            })
            .collect();
        index.transaction(|tx| {
            for result in &results {
                tx.record_access(&result.row.id, now.0)?;
            }
            Ok(())
        })?;
        Ok(results)
    }

    /// Brings the index up to date with a change merged from a peer. New and
    /// changed text is queued for the embedding worker.
    pub fn apply_merged(&self, change: &ferrex_sync::DocChange) -> anyhow::Result<()> {
        let _writing = lock(&self.write_lock);
        indexer::apply_change(&mut lock(&self.index), &self.replica, change, &KnownVectors::new())
    }

    /// Forgets memories everywhere: tombstones in the documents, rows gone
    /// from the index.
    pub fn forget(&self, ids: &[String]) -> Result<ferrex_sync::Forgotten, ToolError> {
        let _writing = lock(&self.write_lock);
        let outcome = self.replica.forget(ids, clock::now())?;
        let mut index = lock(&self.index);
        for change in &outcome.changes {
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
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
            model_id: self.embedder.model_id().to_owned(),
        })
    }

    /// Stale memories of a namespace, stalest first.
    pub fn stale(&self, namespace: &Namespace, limit: usize) -> Result<Vec<Recalled>, ToolError> {
        let now = clock::now();
        let index = lock(&self.index);
        let mut stale: Vec<Recalled> = index
            .namespace_rows(namespace.as_str())?
            .into_iter()
            .filter_map(|row| {
                let score = staleness(&usage_of(&row), now, &self.staleness);
                let label = staleness_label(score, &self.staleness);
                (label == ferrex_core::Staleness::Stale).then_some(Recalled {
                    row,
                    score,
                    staleness: label,
                })
            })
            .collect();
        stale.sort_by(|left, right| {
            right.score.total_cmp(&left.score).then_with(|| left.row.id.cmp(&right.row.id))
        });
        stale.truncate(limit);
        Ok(stale)
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
        let (done, changes) = self.replica.fold_access(&pending, clock::now())?;
        let mut index = lock(&self.index);
        for change in &changes {
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
        }
        index.mark_folded(&pending)?;
        Ok(done.len())
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
