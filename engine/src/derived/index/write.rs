//! Writes to the index, inside one transaction.

use std::cell::RefCell;

use automerge::ChangeHash;
use ferrex_core::{Alias, Edge, Entity, MemoryKind, Tombstone};
use rusqlite::{OptionalExtension, Transaction, params};

use super::{
    EMBEDDED, IndexError, IndexResult, MemoryRow, NOT_EMBEDDED, PASSAGE_STRIDE, Vectors,
    WHOLE_ONLY, encode_heads,
    signs::{Edit, Set, sign_bits},
    vector_bytes,
};

/// The index inside one transaction (see [`super::Index::transaction`]).
pub struct IndexTx<'a> {
    pub(super) tx: &'a Transaction<'a>,
    /// What the transaction did to vectors, for the in-memory sign bits
    /// once it commits.
    edits: RefCell<Vec<Edit>>,
}

/// What an upsert did to a memory's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upserted {
    /// A new row; it needs a vector.
    New,
    /// The text changed; it needs a new vector.
    TextChanged,
    /// Only metadata (counters, validation) changed; the vector stands.
    Unchanged,
}

impl<'a> IndexTx<'a> {
    /// Whether `id` is held in a namespace other than `namespace`: a
    /// memory, a forgotten memory's tombstone or an entity of it (what a
    /// share's documents may not touch: docs/sharing.md).
    pub fn held_elsewhere(&self, id: &str, namespace: &str) -> IndexResult<bool> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM memories WHERE id = ?1 AND namespace <> ?2)
                     OR EXISTS(SELECT 1 FROM tombstones WHERE id = ?1 AND namespace <> ?2)
                     OR EXISTS(SELECT 1 FROM entities WHERE id = ?1 AND namespace <> ?2)",
            )?
            .query_row(params![id, namespace], |row| row.get(0))?)
    }

    /// Whether the alias or edge `key` is held in a namespace other than
    /// `namespace`.
    pub fn key_held_elsewhere(&self, key: &str, namespace: &str) -> IndexResult<bool> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM aliases WHERE key = ?1 AND namespace <> ?2)
                     OR EXISTS(SELECT 1 FROM edges WHERE key = ?1 AND namespace <> ?2)",
            )?
            .query_row(params![key, namespace], |row| row.get(0))?)
    }

    pub(crate) fn new(tx: &'a Transaction<'a>) -> Self {
        IndexTx { tx, edits: RefCell::default() }
    }

    /// What the transaction did to vectors.
    /// Runs one statement through the connection's cache of prepared
    /// statements: indexing a synced shard runs the same few statements
    /// tens of thousands of times, and preparing them each time was a tenth
    /// of the work.
    pub(crate) fn execute<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> rusqlite::Result<usize> {
        self.tx.prepare_cached(sql)?.execute(params)
    }

    /// One row of a query, through the cache of prepared statements.
    pub(crate) fn query_row<T, P, F>(&self, sql: &str, params: P, read: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    {
        self.tx.prepare_cached(sql)?.query_row(params, read)
    }

    pub(crate) fn into_edits(self) -> Vec<Edit> {
        self.edits.into_inner()
    }

    /// Records that row `rowid` of `set` now has `vector`.
    fn record_put(&self, set: Set, rowid: i64, namespace: &str, kind: &str, vector: &[f32]) {
        // Kinds in the index are always ferrex's own.
        if let Ok(kind) = kind.parse::<MemoryKind>() {
            let bits = sign_bits(vector);
            let namespace = namespace.to_owned();
            self.edits.borrow_mut().push(Edit::Put { set, rowid, namespace, kind, bits });
        }
    }

    /// Inserts or updates a memory row and its full-text entry. The vector is
    /// dropped when the text changed; `put_vector` or the embedding queue
    /// provides a new one.
    pub fn upsert_memory(&self, row: &MemoryRow) -> IndexResult<(i64, Upserted)> {
        let existing: Option<(i64, String)> = self
            .query_row("SELECT rowid, content_hash FROM memories WHERE id = ?1", [&row.id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        let tags = serde_json::to_string(&row.tags)?;
        let entities = serde_json::to_string(&row.entities)?;
        match existing {
            Some((rowid, hash)) if hash == row.content_hash => {
                self.execute(
                    "UPDATE memories SET doc = ?2, confidence = ?3, source = ?4, context = ?5,
                        tags = ?6, entities = ?7, evidence = ?8, last_validated = ?9,
                        access_count = ?10, last_access = ?11, subject_entity = ?12
                     WHERE rowid = ?1",
                    params![
                        rowid,
                        row.doc,
                        row.confidence,
                        row.source,
                        row.context,
                        tags,
                        entities,
                        row.evidence,
                        row.last_validated,
                        row.access_count,
                        row.last_access,
                        row.subject_entity
                    ],
                )?;
                self.put_link(row)?;
                Ok((rowid, Upserted::Unchanged))
            }
            existing => {
                if let Some((rowid, _)) = existing {
                    self.delete_rowid(rowid)?;
                }
                self.execute(
                    "INSERT INTO memories (id, doc, namespace, kind, text, subject, predicate,
                        object, subject_entity, predicate_written, confidence, source, context,
                        tags, entities, created_at, created_by, t_valid, evidence,
                        last_validated, access_count, last_access, content_hash, cardinality,
                        embedded)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                        ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, 0)",
                    params![
                        row.id,
                        row.doc,
                        row.namespace,
                        row.kind.as_str(),
                        row.text,
                        row.subject,
                        row.predicate,
                        row.object,
                        row.subject_entity,
                        row.predicate_written,
                        row.confidence,
                        row.source,
                        row.context,
                        tags,
                        entities,
                        row.created_at,
                        row.created_by,
                        row.t_valid,
                        row.evidence,
                        row.last_validated,
                        row.access_count,
                        row.last_access,
                        row.content_hash,
                        row.cardinality
                    ],
                )?;
                let rowid = self.tx.last_insert_rowid();
                self.execute(
                    "INSERT INTO memory_text(rowid, text, context) VALUES (?1, ?2, ?3)",
                    params![rowid, row.text, row.keyword_context()],
                )?;
                self.put_link(row)?;
                let outcome =
                    if existing.is_some() { Upserted::TextChanged } else { Upserted::New };
                Ok((rowid, outcome))
            }
        }
    }

    /// Stores the vectors of the memory at `rowid` (its whole text's, then
    /// its passages', as [`Vectors`]). It is marked embedded when they are
    /// `complete` (every vector its text needs), else [`WHOLE_ONLY`] (the
    /// whole text's only, as a store acknowledges): found by meaning
    /// already, its passages embedded by the worker.
    pub fn put_vector(
        &self,
        rowid: i64,
        namespace: &str,
        kind: &str,
        vectors: &Vectors,
        complete: bool,
    ) -> IndexResult<()> {
        let [whole, passages @ ..] = vectors.as_slice() else {
            return Err(IndexError::NoVector(rowid));
        };
        self.delete_vectors(rowid)?;
        self.execute(
            "INSERT INTO memory_floats(rowid, embedding) VALUES (?1, ?2)",
            params![rowid, vector_bytes(whole)],
        )?;
        self.execute(
            "INSERT INTO memory_bits(rowid, namespace, embedding, kind)
             VALUES (?1, ?2, vec_quantize_binary(?3), ?4)",
            params![rowid, namespace, vector_bytes(whole), kind],
        )?;
        self.record_put(Set::Memories, rowid, namespace, kind, whole);
        self.insert_passages(rowid, namespace, kind, passages)?;
        self.execute(
            "UPDATE memories SET embedded = ?2, passages = ?3 WHERE rowid = ?1",
            params![rowid, if complete { EMBEDDED } else { WHOLE_ONLY }, passages.len() as i64],
        )?;
        Ok(())
    }

    /// Inserts the passage vectors of the memory at `rowid`.
    fn insert_passages(
        &self,
        rowid: i64,
        namespace: &str,
        kind: &str,
        passages: &[Vec<f32>],
    ) -> IndexResult<()> {
        if passages.len() >= PASSAGE_STRIDE as usize {
            return Err(IndexError::TooManyPassages { rowid, count: passages.len() });
        }
        for (index, passage) in passages.iter().enumerate() {
            let passage_rowid = rowid * PASSAGE_STRIDE + index as i64;
            let bytes = vector_bytes(passage);
            self.execute(
                "INSERT INTO passage_vectors(rowid, namespace, embedding, kind)
                 VALUES (?1, ?2, vec_quantize_binary(?3), ?4)",
                params![passage_rowid, namespace, bytes, kind],
            )?;
            self.execute(
                "INSERT INTO passage_floats(rowid, embedding) VALUES (?1, ?2)",
                params![passage_rowid, bytes],
            )?;
            self.record_put(Set::Passages, passage_rowid, namespace, kind, passage);
        }
        Ok(())
    }

    /// Adds the passage vectors of a memory that has its whole text's
    /// vector only ([`WHOLE_ONLY`]), computed from text with `content_hash`,
    /// if it still has that text and still lacks them. Returns whether they
    /// were stored.
    pub fn put_passages_if_current(
        &self,
        rowid: i64,
        content_hash: &str,
        passages: &[Vec<f32>],
    ) -> IndexResult<bool> {
        let current = self.embedding_state(rowid)?;
        match current {
            Some((namespace, kind, hash, WHOLE_ONLY)) if hash == content_hash => {
                self.delete_passages(rowid)?;
                self.insert_passages(rowid, &namespace, &kind, passages)?;
                self.execute(
                    "UPDATE memories SET embedded = ?2, passages = ?3 WHERE rowid = ?1",
                    params![rowid, EMBEDDED, passages.len() as i64],
                )?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The namespace, kind, content hash and embedding state of the memory
    /// at `rowid`, if it is there.
    fn embedding_state(&self, rowid: i64) -> IndexResult<Option<(String, String, String, i64)>> {
        Ok(self
            .query_row(
                "SELECT namespace, kind, content_hash, embedded FROM memories WHERE rowid = ?1",
                [rowid],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .optional()?)
    }

    /// Removes the vectors of the memory at `rowid`.
    fn delete_vectors(&self, rowid: i64) -> IndexResult<()> {
        self.execute("DELETE FROM memory_floats WHERE rowid = ?1", [rowid])?;
        self.execute("DELETE FROM memory_bits WHERE rowid = ?1", [rowid])?;
        self.edits.borrow_mut().push(Edit::Remove { set: Set::Memories, rowid });
        self.delete_passages(rowid)
    }

    /// Removes the passage vectors of the memory at `rowid`.
    fn delete_passages(&self, rowid: i64) -> IndexResult<()> {
        let passages: i64 = self
            .query_row("SELECT passages FROM memories WHERE rowid = ?1", [rowid], |row| row.get(0))
            .optional()?
            .unwrap_or(0);
        for index in 0..passages {
            let passage_rowid = rowid * PASSAGE_STRIDE + index;
            self.execute("DELETE FROM passage_vectors WHERE rowid = ?1", [passage_rowid])?;
            self.execute("DELETE FROM passage_floats WHERE rowid = ?1", [passage_rowid])?;
            self.edits.borrow_mut().push(Edit::Remove { set: Set::Passages, rowid: passage_rowid });
        }
        Ok(())
    }

    /// Stores a vector computed from text with `content_hash`, if the memory
    /// still has that text (it may have been forgotten or changed while the
    /// vector was computed). Returns whether it was stored.
    pub fn put_vector_if_current(
        &self,
        rowid: i64,
        content_hash: &str,
        vectors: &Vectors,
    ) -> IndexResult<bool> {
        match self.embedding_state(rowid)? {
            Some((namespace, kind, hash, _)) if hash == content_hash => {
                self.put_vector(rowid, &namespace, &kind, vectors, true)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Stores every vector of the memory at `rowid` (as [`Self::put_vector`]
    /// with `complete`), computed elsewhere from content with
    /// `content_hash`, if it still has that content and still has no vector
    /// at all (the worker may have embedded it meanwhile). Returns whether
    /// they were stored.
    pub fn put_vectors_if_missing(
        &self,
        rowid: i64,
        content_hash: &str,
        vectors: &Vectors,
    ) -> IndexResult<bool> {
        let current = self.embedding_state(rowid)?;
        match current {
            Some((namespace, kind, hash, NOT_EMBEDDED)) if hash == content_hash => {
                self.put_vector(rowid, &namespace, &kind, vectors, true)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Removes a memory and everything indexed about it. True if it was there.
    pub fn delete_memory(&self, id: &str) -> IndexResult<bool> {
        let rowid: Option<i64> = self
            .query_row("SELECT rowid FROM memories WHERE id = ?1", [id], |row| row.get(0))
            .optional()?;
        match rowid {
            Some(rowid) => {
                self.delete_rowid(rowid)?;
                self.execute("DELETE FROM access_local WHERE id = ?1", [id])?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn delete_rowid(&self, rowid: i64) -> IndexResult<()> {
        self.execute(
            "DELETE FROM links WHERE memory_id = (SELECT id FROM memories WHERE rowid = ?1)",
            [rowid],
        )?;
        self.execute("DELETE FROM memory_text WHERE rowid = ?1", [rowid])?;
        self.delete_vectors(rowid)?;
        self.execute("DELETE FROM memories WHERE rowid = ?1", [rowid])?;
        Ok(())
    }

    /// Records a tombstone.
    pub fn put_tombstone(&self, namespace: &str, tombstone: &Tombstone) -> IndexResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO tombstones(id, namespace, at, by) VALUES (?1, ?2, ?3, ?4)",
            params![tombstone.memory_id, namespace, tombstone.at.0, tombstone.by],
        )?;
        Ok(())
    }

    /// Inserts or updates an entity (its class is re-derived afterwards).
    pub fn put_entity(&self, namespace: &str, doc: &str, entity: &Entity) -> IndexResult<bool> {
        let known = self
            .tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM entities WHERE id = ?1)")?
            .query_row([&entity.id], |row| row.get::<_, bool>(0))?;
        self.execute(
            "INSERT INTO entities(id, namespace, doc, name, norm_name, kind, created_at, created_by,
                canonical) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?1)
             ON CONFLICT(id) DO UPDATE SET namespace = ?2, doc = ?3, name = ?4, norm_name = ?5,
                kind = ?6, created_at = ?7, created_by = ?8",
            params![
                entity.id,
                namespace,
                doc,
                entity.name,
                ferrex_core::entity::normalise_name(&entity.name),
                entity.kind,
                entity.created_at.0,
                entity.created_by
            ],
        )?;
        Ok(!known)
    }

    /// Removes an entity and this node's vector of its name (its key went:
    /// only forgotten memories used it). True if it was there.
    pub fn delete_entity(&self, id: &str) -> IndexResult<bool> {
        self.execute("DELETE FROM entity_vectors WHERE id = ?1", [id])?;
        Ok(self.execute("DELETE FROM entities WHERE id = ?1", [id])? > 0)
    }

    /// Removes the alias stored under `key`.
    pub fn delete_alias(&self, key: &str) -> IndexResult<()> {
        self.execute("DELETE FROM aliases WHERE key = ?1", [key])?;
        Ok(())
    }

    /// Records whether a record of `root` in `doc` waits for its key.
    pub fn mark_pending(&self, root: &str, id: &str, doc: &str, waiting: bool) -> IndexResult<()> {
        if waiting {
            self.execute(
                "INSERT OR REPLACE INTO pending_keys(root, id, doc) VALUES (?1, ?2, ?3)",
                params![root, id, doc],
            )?;
        } else {
            self.execute(
                "DELETE FROM pending_keys WHERE root = ?1 AND id = ?2",
                params![root, id],
            )?;
        }
        Ok(())
    }

    /// Stores this node's embedding of an entity's name.
    pub fn put_entity_vector(&self, id: &str, vector: &[f32]) -> IndexResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO entity_vectors(id, vector) VALUES (?1, ?2)",
            params![id, vector_bytes(vector)],
        )?;
        Ok(())
    }

    /// Inserts or replaces an alias stored under `key`.
    pub fn put_alias(&self, namespace: &str, key: &str, alias: &Alias) -> IndexResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO aliases(key, namespace, entity_id, name, method, created_at,
                created_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                key,
                namespace,
                alias.entity_id,
                alias.name,
                alias.method,
                alias.created_at.0,
                alias.created_by
            ],
        )?;
        Ok(())
    }

    /// Inserts or replaces an edge.
    pub fn put_edge(&self, namespace: &str, edge: &Edge) -> IndexResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO edges(key, namespace, kind, from_id, to_id, created_at,
                created_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                edge.key(),
                namespace,
                edge.kind.as_str(),
                edge.from,
                edge.to,
                edge.created_at.0,
                edge.created_by
            ],
        )?;
        Ok(())
    }

    /// Records the heads of `doc` that the index now reflects.
    pub fn set_doc_heads(&self, doc: &str, heads: &[ChangeHash]) -> IndexResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO doc_heads(doc, heads) VALUES (?1, ?2)",
            params![doc, encode_heads(heads)],
        )?;
        Ok(())
    }

    /// Forgets everything indexed from `doc` (before re-reading it whole).
    pub fn clear_doc(&self, doc: &str) -> IndexResult<()> {
        let rowids: Vec<i64> = self
            .tx
            .prepare("SELECT rowid FROM memories WHERE doc = ?1")?
            .query_map([doc], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        for rowid in rowids {
            self.delete_rowid(rowid)?;
        }
        self.execute(
            "DELETE FROM entity_vectors WHERE id IN (SELECT id FROM entities WHERE doc = ?1)",
            [doc],
        )?;
        self.execute("DELETE FROM entities WHERE doc = ?1", [doc])?;
        self.execute("DELETE FROM pending_keys WHERE doc = ?1", [doc])?;
        self.execute("DELETE FROM doc_heads WHERE doc = ?1", [doc])?;
        Ok(())
    }

    /// Moves the fold mark of `id` forward by `count` recalls.
    pub fn mark_folded(&self, id: &str, count: u64) -> IndexResult<()> {
        self.execute(
            "UPDATE access_local SET folded = min(count, folded + ?2) WHERE id = ?1",
            params![id, count as i64],
        )?;
        Ok(())
    }

    /// Adds one local recall of memory `id` at `now` to the access buffer.
    pub fn record_access(&self, id: &str, now: i64) -> IndexResult<()> {
        self.execute(
            "INSERT INTO access_local(id, count, last) VALUES (?1, 1, ?2)
             ON CONFLICT(id) DO UPDATE SET count = count + 1, last = max(last, ?2)",
            params![id, now],
        )?;
        Ok(())
    }
}
