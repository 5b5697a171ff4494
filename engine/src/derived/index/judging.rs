//! Text that arrived from a peer and waits to be judged against what this
//! node holds (is it a correction of a memory stored here, or corrected by
//! one?) once it has a vector: the store pipeline's judgement, made for
//! memories two devices stored apart.

use rusqlite::params;

use super::{Index, IndexResult};

/// Created on every open (older indexes lack it; it is derived like the
/// rest, so no schema version changes): the ids of memories merged from a
/// peer and waiting to be judged. A rebuilt index starts with none (what it
/// had not judged yet is judged by the other device, which merged the
/// other text too); text read while catching up on a document, rather than
/// from a merge, is not queued.
pub(super) const QUEUE: &str =
    "CREATE TABLE IF NOT EXISTS to_judge (id TEXT PRIMARY KEY) WITHOUT ROWID;";

impl Index {
    /// Queues the free-text memories among `ids` (facts are judged when
    /// merged, see `reconcile_predicates`).
    pub fn queue_judgements(&self, ids: &[String]) -> IndexResult<()> {
        let mut statement = self.conn().prepare_cached(
            "INSERT OR IGNORE INTO to_judge (id)
             SELECT id FROM memories WHERE id = ?1 AND predicate IS NULL",
        )?;
        for id in ids {
            statement.execute([id])?;
        }
        Ok(())
    }

    /// Up to `limit` queued memories that have their vector now, oldest
    /// first, after those whose memory is gone (forgotten): the caller
    /// finds no row for these, and takes them off the queue with the rest.
    pub fn judgements_ready(&self, limit: usize) -> IndexResult<Vec<String>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT q.id FROM to_judge q LEFT JOIN memories m ON m.id = q.id
             WHERE m.id IS NULL OR m.embedded != 0
             ORDER BY m.created_at IS NOT NULL, m.created_at, q.id LIMIT ?1",
        )?;
        let ids = statement
            .query_map(params![limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// Takes judged memories off the queue.
    pub fn judged(&self, ids: &[String]) -> IndexResult<()> {
        let mut statement = self.conn().prepare_cached("DELETE FROM to_judge WHERE id = ?1")?;
        for id in ids {
            statement.execute([id])?;
        }
        Ok(())
    }
}
