//! Working state in the index: a session's events, a project's tasks and
//! their notes, read by `source` and tag (see `ferrex_core::working`).

use rusqlite::types::Value;

use super::{Index, IndexResult, MemoryRow};

/// Created on every open (older indexes lack it; it is derived like the
/// rest, so no schema version changes): working-state memories by their
/// source, newest first.
pub(super) const BY_SOURCE: &str =
    "CREATE INDEX IF NOT EXISTS memories_by_source ON memories(namespace, source, created_at);";

impl Index {
    /// Memories of `namespace` with `source`, newest first (then by id,
    /// largest first), whose tags hold `tag` when one is given; at most
    /// `limit`.
    pub fn working(
        &self,
        namespace: &str,
        source: &str,
        tag: Option<&str>,
        limit: usize,
    ) -> IndexResult<Vec<MemoryRow>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {} FROM memories
             WHERE namespace = ?1 AND source = ?2
               AND (?3 IS NULL OR EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE value = ?3))
             ORDER BY created_at DESC, id DESC LIMIT ?4",
            MemoryRow::COLUMNS
        ))?;
        let tag = tag.map_or(Value::Null, |tag| Value::Text(tag.to_owned()));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement
            .query_map(rusqlite::params![namespace, source, tag, limit], MemoryRow::from_sql)?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Memories of `namespace` whose source is one of `sources` and whose
    /// tags hold `tag`, oldest first.
    pub fn tagged(
        &self,
        namespace: &str,
        sources: &[&str],
        tag: &str,
    ) -> IndexResult<Vec<MemoryRow>> {
        let mut rows = Vec::new();
        for source in sources {
            rows.extend(self.working(namespace, source, Some(tag), usize::MAX)?);
        }
        rows.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(rows)
    }
}

impl Index {
    /// The current facts of `namespace` whose predicate names something
    /// that goes out of date unnoticed (versions, ports, paths, hosts; see
    /// `ferrex_core::working::is_volatile`).
    pub fn volatile_facts(&self, namespace: &str) -> IndexResult<Vec<MemoryRow>> {
        // Only predicates holding one of the words are read (a word inside
        // another, like `ip` in `recipe`, is left to `is_volatile`).
        let holds_a_word: Vec<String> = ferrex_core::working::VOLATILE_WORDS
            .iter()
            .map(|word| format!("predicate LIKE '%{word}%'"))
            .collect();
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {} FROM memories
             WHERE namespace = ?1 AND kind = 'semantic' AND status != 'superseded'
               AND duplicate_of IS NULL AND ({})",
            MemoryRow::COLUMNS,
            holds_a_word.join(" OR ")
        ))?;
        let rows: Vec<MemoryRow> =
            statement.query_map([namespace], MemoryRow::from_sql)?.collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .filter(|row| row.predicate.as_deref().is_some_and(ferrex_core::working::is_volatile))
            .collect())
    }
}
