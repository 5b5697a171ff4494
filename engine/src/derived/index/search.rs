//! Read queries: dense and full-text candidates, rows, and counts.

use std::collections::HashMap;

use ferrex_core::MemoryKind;
use rusqlite::{OptionalExtension, params_from_iter, types::Value};

use super::{
    Index, IndexError, IndexResult, MemoryRow, NOT_EMBEDDED, PASSAGE_STRIDE, WHOLE_ONLY, fts_query,
    signs::Set, vector_bytes,
};

/// BM25 weight of a memory's context and tags against its text. Measured on
/// LoCoMo with `examples/retrieval_lab.rs`: 1.0 gave R@5 0.658 by BM25 alone,
/// 0.5 gave 0.690, 0.25 gave 0.686.
const CONTEXT_WEIGHT: f64 = 0.5;

/// Candidates taken by sign bits per result a search by meaning wants,
/// before exact ranking: for recall's dense list, and for each of its
/// memories and passages. Measured at 100k memories with node_bench
/// `--compare-exact` (recall@10 of the answers against the exact scan).
const DENSE_OVERSAMPLING: usize = 4;
/// Whole-text candidates taken by sign bits per neighbour a store's
/// judgement wants, before exact ranking.
const NEAR_OVERSAMPLING: usize = 16;

/// Counts for `stats`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexCounts {
    /// Memories per (namespace, kind).
    pub by_namespace_kind: Vec<(String, String, i64)>,
    /// Entities.
    pub entities: i64,
    /// Memories waiting for their vector.
    pub embeddings_queued: i64,
    /// Memories found by their whole text's vector, waiting for their
    /// passages'.
    pub passages_queued: i64,
    /// Tombstones.
    pub forgotten: i64,
    /// Memories of the documents this node cannot read yet (their key has
    /// not arrived from a peer).
    pub waiting_for_keys: i64,
}

impl Index {
    /// The `k` memories of `namespace` nearest to `vector` by their whole
    /// text, nearest first, with their L2 distance (on unit vectors this
    /// ranks like cosine): every vector of the namespace compared, ties
    /// broken by id, so the answer does not depend on row ids, which differ
    /// between nodes.
    pub fn dense(
        &self,
        vector: &[f32],
        namespace: &str,
        kinds: &[MemoryKind],
        k: usize,
    ) -> IndexResult<Vec<(String, f64)>> {
        self.scan(
            "memory_floats f JOIN memories m ON m.rowid = f.rowid",
            vector,
            namespace,
            kinds,
            k,
        )
    }

    /// The `k` rows of `from` (floats `f` joined to their memory `m`) of
    /// `namespace` nearest to `vector`, every one compared, nearest first,
    /// ties broken by id.
    fn scan(
        &self,
        from: &str,
        vector: &[f32],
        namespace: &str,
        kinds: &[MemoryKind],
        k: usize,
    ) -> IndexResult<Vec<(String, f64)>> {
        let mut sql = format!(
            "SELECT m.id, vec_distance_l2(f.embedding, ?1) AS distance FROM {from}
             WHERE m.namespace = ?2"
        );
        let mut values: Vec<Value> =
            vec![Value::Blob(vector_bytes(vector)), Value::Text(namespace.to_owned())];
        push_kind_filter(&mut sql, &mut values, "m.kind", kinds);
        sql.push_str(&format!(" ORDER BY distance, m.id LIMIT {k}"));
        self.id_distances(&sql, values)
    }

    /// The `k` memories of `namespace` nearest to `vector` by their whole
    /// text, like [`Index::dense`], for a store's judgements (duplicates,
    /// corrections), which only look at close neighbours: the candidates
    /// are found by sign bits (`NEAR_OVERSAMPLING` per result wanted) and
    /// ranked exactly, instead of an exact scan of every vector of the
    /// namespace, which was most of a store's time at 10k memories.
    pub fn near(
        &self,
        vector: &[f32],
        namespace: &str,
        kinds: &[MemoryKind],
        k: usize,
    ) -> IndexResult<Vec<(String, f64)>> {
        let candidates = self.signs.borrow_mut().nearest(
            self.conn(),
            Set::Memories,
            namespace,
            kinds,
            vector,
            k * NEAR_OVERSAMPLING,
        )?;
        // A file chunk is no memory to judge against (a file's words are
        // neither a duplicate nor a correction of what an agent stores).
        let mut found = self.distances_by_rowid(
            "SELECT m.id, vec_distance_l2(f.embedding, ?1) FROM memory_floats f
             JOIN memories m ON m.rowid = f.rowid
             WHERE f.rowid = ?2 AND coalesce(m.source, '') <> 'ferrex:file'",
            vector,
            &candidates,
        )?;
        sort_by_distance(&mut found);
        found.truncate(k);
        Ok(found)
    }

    /// The `k` memories of `namespace` nearest to `vector` by their nearest
    /// vector, whole text or passage (see `ferrex_core::passages`), nearest
    /// first, ties broken by id. What recall ranks by meaning.
    ///
    /// Both kinds of vector are searched by sign bits in memory
    /// (`DENSE_OVERSAMPLING` candidates per result wanted, ties kept
    /// whole, so the candidates do not depend on row ids) and the
    /// candidates ranked exactly. [`Index::dense_best_exact`] ranks every
    /// vector exactly, for comparison.
    pub fn dense_best(
        &self,
        vector: &[f32],
        namespace: &str,
        kinds: &[MemoryKind],
        k: usize,
    ) -> IndexResult<Vec<(String, f64)>> {
        let wanted = k * DENSE_OVERSAMPLING;
        let (wholes, passages) = {
            let mut signs = self.signs.borrow_mut();
            let conn = self.conn();
            (
                signs.nearest(conn, Set::Memories, namespace, kinds, vector, wanted)?,
                signs.nearest(conn, Set::Passages, namespace, kinds, vector, wanted)?,
            )
        };
        let wholes = self.whole_distances(vector, &wholes)?;
        let passages = self.passage_distances(vector, &passages)?;
        Ok(best_per_memory(wholes.into_iter().chain(passages), k))
    }

    /// Like [`Index::dense_best`], but every vector of the namespace is
    /// ranked exactly (a scan of the floats of both kinds): slower in
    /// proportion to the corpus; the reference
    /// the sign-bit search is measured against (`memory.exact_search`).
    pub fn dense_best_exact(
        &self,
        vector: &[f32],
        namespace: &str,
        kinds: &[MemoryKind],
        k: usize,
    ) -> IndexResult<Vec<(String, f64)>> {
        let wholes = self.dense(vector, namespace, kinds, k)?;
        let passages = self.scan(
            &format!("passage_floats f JOIN memories m ON m.rowid = f.rowid / {PASSAGE_STRIDE}"),
            vector,
            namespace,
            kinds,
            k,
        )?;
        Ok(best_per_memory(wholes.into_iter().chain(passages), k))
    }

    /// The exact distance from `vector` to the whole-text vector of each
    /// memory row in `rowids` (rows without one are left out).
    fn whole_distances(&self, vector: &[f32], rowids: &[i64]) -> IndexResult<Vec<(String, f64)>> {
        self.distances_by_rowid(
            "SELECT m.id, vec_distance_l2(f.embedding, ?1) FROM memory_floats f
             JOIN memories m ON m.rowid = f.rowid WHERE f.rowid = ?2",
            vector,
            rowids,
        )
    }

    /// The exact distance from `vector` to each passage row in `rowids`,
    /// as (memory id, distance).
    fn passage_distances(&self, vector: &[f32], rowids: &[i64]) -> IndexResult<Vec<(String, f64)>> {
        self.distances_by_rowid(
            &format!(
                "SELECT m.id, vec_distance_l2(f.embedding, ?1) FROM passage_floats f
                 JOIN memories m ON m.rowid = f.rowid / {PASSAGE_STRIDE} WHERE f.rowid = ?2"
            ),
            vector,
            rowids,
        )
    }

    /// Runs `sql` (answering a memory id and a distance for the query
    /// vector `?1` and the row id `?2`) once per row id.
    fn distances_by_rowid(
        &self,
        sql: &str,
        vector: &[f32],
        rowids: &[i64],
    ) -> IndexResult<Vec<(String, f64)>> {
        let mut statement = self.conn().prepare_cached(sql)?;
        let query = vector_bytes(vector);
        let mut found = Vec::with_capacity(rowids.len());
        for rowid in rowids {
            let exact = statement
                .query_row(rusqlite::params![query, rowid], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            found.extend(exact);
        }
        Ok(found)
    }

    /// Runs a query answering (memory id, distance) rows.
    fn id_distances(&self, sql: &str, values: Vec<Value>) -> IndexResult<Vec<(String, f64)>> {
        let mut statement = self.conn().prepare_cached(sql)?;
        let found = statement
            .query_map(params_from_iter(values), |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(found)
    }

    /// The `k` memories of `namespace` whose text best matches `query` by
    /// BM25, best first. The query is never interpreted as FTS syntax.
    pub fn text(
        &self,
        query: &str,
        namespace: &str,
        kinds: &[MemoryKind],
        k: usize,
    ) -> IndexResult<Vec<(String, f64)>> {
        let Some(fts) = fts_query(query) else { return Ok(Vec::new()) };
        let mut sql = format!(
            "SELECT m.id, bm25(memory_text, 1.0, {CONTEXT_WEIGHT}) AS score FROM memory_text
             JOIN memories m ON m.rowid = memory_text.rowid
             WHERE memory_text MATCH ?1 AND m.namespace = ?2"
        );
        let mut values: Vec<Value> = vec![Value::Text(fts), Value::Text(namespace.to_owned())];
        push_kind_filter(&mut sql, &mut values, "m.kind", kinds);
        sql.push_str(&format!(" ORDER BY score, m.id LIMIT {k}"));
        let mut statement = self.conn().prepare_cached(&sql)?;
        let found = statement
            .query_map(params_from_iter(values), |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(found)
    }

    /// The rows of `ids` that exist.
    pub fn rows(&self, ids: &[String]) -> IndexResult<HashMap<String, MemoryRow>> {
        let mut rows = HashMap::with_capacity(ids.len());
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {} FROM memories WHERE id = ?1",
            MemoryRow::COLUMNS
        ))?;
        for id in ids {
            if let Some(row) = statement.query_row([id], MemoryRow::from_sql).optional()? {
                rows.insert(id.clone(), row);
            }
        }
        Ok(rows)
    }

    /// The row of one memory.
    pub fn row(&self, id: &str) -> IndexResult<Option<MemoryRow>> {
        Ok(self.rows(&[id.to_owned()])?.remove(id))
    }

    /// Those of `ids` the index holds no memory for (no row is read).
    pub fn unheld<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a String>,
    ) -> IndexResult<Vec<String>> {
        self.ids_where("SELECT EXISTS (SELECT 1 FROM memories WHERE id = ?1)", false, ids)
    }

    /// The memory that follows each of `ids` in a thread, if any: the next
    /// free text of its namespace and kind (by creation time, then id; not
    /// a fact, a duplicate or working state, which a session's events
    /// stored between two turns would be), when the same device stored it
    /// within `window_ms`, with no context of its own. When that follower
    /// asks ([`ferrex_core::scoring::asks`]), what follows it is its
    /// answer, and follows too ("I went to the parade" / "How was it?" / "Amazing…").
    /// Returns `(follower, followed)` in the order of `ids`.
    pub fn followers(&self, ids: &[String], window_ms: i64) -> IndexResult<Vec<(String, String)>> {
        self.in_one_read(|conn| {
            let mut statement = conn.prepare_cached(
                "SELECT n.id, n.created_by = p.created_by AND n.created_at <= p.created_at + ?2
                        AND coalesce(n.context, '') = '',
                        n.text
                 FROM memories p JOIN memories n
                   ON n.namespace = p.namespace AND n.kind = p.kind
                  AND n.created_at >= p.created_at
                  AND (n.created_at > p.created_at OR n.id > p.id)
                  -- What the window leaves out could never follow (the
                  -- first after the match must be within it): bounds the
                  -- rows read when no text follows for long.
                  AND n.created_at <= p.created_at + ?2
                  AND n.predicate IS NULL AND n.duplicate_of IS NULL
                  AND coalesce(n.source, '') NOT LIKE 'ferrex:%'
                 WHERE p.id = ?1 AND coalesce(p.source, '') <> 'ferrex:file'
                 ORDER BY n.created_at, n.id LIMIT 1",
            )?;
            let mut next = |id: &String| -> rusqlite::Result<Option<(String, bool)>> {
                let next: Option<(String, bool, String)> = statement
                    .query_row(rusqlite::params![id, window_ms], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })
                    .optional()?;
                Ok(next.and_then(|(follower, threaded, text)| {
                    threaded.then(|| (follower, ferrex_core::scoring::asks(&text)))
                }))
            };
            let mut found: Vec<(String, String)> = Vec::new();
            // A follower once: an answer may also follow a match of its own.
            let mut listed = std::collections::HashSet::new();
            let mut push = |follower: String, followed: String| {
                if listed.insert(follower.clone()) {
                    found.push((follower, followed));
                }
            };
            for id in ids {
                let Some((follower, asks)) = next(id)? else { continue };
                let answer = if asks { next(&follower)? } else { None };
                push(follower.clone(), id.clone());
                if let Some((answer, _)) = answer {
                    push(answer, follower);
                }
            }
            Ok(found)
        })
    }

    /// The rows of the facts among `ids`, in their order (text memories
    /// are not read: a synced shard brings thousands).
    pub fn fact_rows(&self, ids: &[String]) -> IndexResult<Vec<MemoryRow>> {
        self.in_one_read(|conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {} FROM memories WHERE id = ?1 AND kind = 'semantic'",
                MemoryRow::COLUMNS
            ))?;
            let mut rows = Vec::new();
            for id in ids {
                rows.extend(statement.query_row([id], MemoryRow::from_sql).optional()?);
            }
            Ok(rows)
        })
    }

    /// Memories in embedding state `state` ([`NOT_EMBEDDED`]: waiting for
    /// every vector; [`WHOLE_ONLY`]: for their passages'), from row `from`
    /// on: `(rowid, text, content_hash)`, oldest first.
    pub fn pending_embeddings(
        &self,
        state: i64,
        limit: usize,
        from: i64,
    ) -> IndexResult<Vec<(i64, String, String)>> {
        let index = match state {
            NOT_EMBEDDED => "memories_not_embedded",
            WHOLE_ONLY => "memories_whole_only",
            other => return Err(IndexError::NoEmbeddingState(other)),
        };
        // The state's partial index, so that a queue of none costs nothing
        // at any size (a scan by row id read every memory).
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT rowid, text, content_hash FROM memories INDEXED BY {index}
             WHERE embedded = {state} AND rowid >= ?2 ORDER BY rowid LIMIT ?1"
        ))?;
        let pending = statement
            .query_map([limit as i64, from], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        Ok(pending)
    }

    /// Up to `limit` memories with no vector at all, of row id below
    /// `below`, highest first (the worker takes them from the lowest, so
    /// the two meet rather than race): row id, memory id, text and content
    /// hash.
    pub fn missing_vectors_from_top(
        &self,
        limit: usize,
        below: i64,
    ) -> IndexResult<Vec<(i64, String, String, String)>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT rowid, id, text, content_hash FROM memories INDEXED BY memories_not_embedded
             WHERE embedded = {NOT_EMBEDDED} AND rowid < ?2 ORDER BY rowid DESC LIMIT ?1"
        ))?;
        let missing = statement
            .query_map([limit as i64, below], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })?
            .collect::<Result<_, _>>()?;
        Ok(missing)
    }

    /// How many memories of `namespace` (all namespaces when `None`) have no
    /// vector yet, and how many have their whole text's only.
    pub fn embedding_backlog(&self, namespace: Option<&str>) -> IndexResult<(i64, i64)> {
        let mut statement = self.conn().prepare_cached(
            "SELECT
               (SELECT count(*) FROM memories INDEXED BY memories_not_embedded
                WHERE embedded = 0 AND (?1 IS NULL OR namespace = ?1)),
               (SELECT count(*) FROM memories INDEXED BY memories_whole_only
                WHERE embedded = 2 AND (?1 IS NULL OR namespace = ?1))",
        )?;
        Ok(statement.query_row([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?)
    }

    /// Counts for `stats`.
    pub fn counts(&self) -> IndexResult<IndexCounts> {
        let mut statement = self.conn().prepare_cached(
            "SELECT namespace, CASE WHEN source = 'ferrex:file' THEN 'file' ELSE kind END AS type,
                    count(*)
             FROM memories GROUP BY namespace, type ORDER BY namespace, type",
        )?;
        let by_namespace_kind = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let count = |sql: &str| -> IndexResult<i64> {
            Ok(self.conn().query_row(sql, [], |row| row.get(0))?)
        };
        Ok(IndexCounts {
            by_namespace_kind,
            entities: count("SELECT count(*) FROM entities")?,
            embeddings_queued: count("SELECT count(*) FROM memories WHERE embedded = 0")?,
            passages_queued: count("SELECT count(*) FROM memories WHERE embedded = 2")?,
            forgotten: count("SELECT count(*) FROM tombstones")?,
            waiting_for_keys: count("SELECT count(*) FROM pending_keys WHERE root = 'memories'")?,
        })
    }

    /// Every memory row of `namespace`.
    pub fn namespace_rows(&self, namespace: &str) -> IndexResult<Vec<MemoryRow>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {} FROM memories WHERE namespace = ?1 ORDER BY id",
            MemoryRow::COLUMNS
        ))?;
        let rows =
            statement.query_map([namespace], MemoryRow::from_sql)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Local recalls not yet folded into the documents: per memory, how many
    /// since the last fold and when the last one was.
    pub fn unfolded_access(
        &self,
    ) -> IndexResult<std::collections::BTreeMap<String, ferrex_core::AccessStat>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT id, count - folded, last FROM access_local WHERE count > folded ORDER BY id",
        )?;
        let pending = statement
            .query_map([], |row| {
                let count: i64 = row.get(1)?;
                let last: i64 = row.get(2)?;
                Ok((
                    row.get::<_, String>(0)?,
                    ferrex_core::AccessStat {
                        count: count.max(0) as u64,
                        last: Some(ferrex_core::Timestamp(last)),
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(pending)
    }

    /// Records that `folded` recalls were written to the documents.
    pub fn mark_folded(
        &mut self,
        folded: &std::collections::BTreeMap<String, ferrex_core::AccessStat>,
    ) -> IndexResult<()> {
        self.transaction(|tx| {
            for (id, stat) in folded {
                tx.mark_folded(id, stat.count)?;
            }
            Ok(())
        })
    }
}

fn push_kind_filter(sql: &mut String, values: &mut Vec<Value>, column: &str, kinds: &[MemoryKind]) {
    if kinds.is_empty() || kinds.len() == MemoryKind::ALL.len() {
        return;
    }
    let first = values.len() + 1;
    let placeholders: Vec<String> =
        (0..kinds.len()).map(|offset| format!("?{}", first + offset)).collect();
    sql.push_str(&format!(" AND {column} IN ({})", placeholders.join(", ")));
    values.extend(kinds.iter().map(|kind| Value::from(kind.as_str().to_owned())));
}

/// Each memory once, at its nearest distance in `found`; the `k` nearest,
/// nearest first, ties broken by id.
fn best_per_memory(found: impl Iterator<Item = (String, f64)>, k: usize) -> Vec<(String, f64)> {
    let mut nearest: HashMap<String, f64> = HashMap::new();
    for (id, distance) in found {
        let best = nearest.entry(id).or_insert(distance);
        *best = best.min(distance);
    }
    let mut found: Vec<(String, f64)> = nearest.into_iter().collect();
    sort_by_distance(&mut found);
    found.truncate(k);
    found
}

/// Nearest first, ties broken by id.
fn sort_by_distance(found: &mut [(String, f64)]) {
    found.sort_by(|left, right| left.1.total_cmp(&right.1).then_with(|| left.0.cmp(&right.0)));
}
