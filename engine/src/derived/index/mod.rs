//! The node's SQLite index: a projection of the documents for fast search.
//!
//! One SQLite file per node (WAL), separate from the documents and derived
//! from them: memory rows, an FTS5 table, a sqlite-vec table of this node's
//! embeddings, entities, aliases, edges, tombstones, local access statistics,
//! and the document heads the index reflects. It can always be deleted and
//! rebuilt (`ferrex reindex`).

mod browse;
pub(crate) mod derive;
pub mod files;
mod fts_query;
mod judging;
pub(crate) mod links;
pub(crate) mod lookup;
pub(crate) mod neighbours;
mod rows;
mod schema;
mod search;
mod signs;
mod working;
pub(crate) mod write;

use std::{
    cell::RefCell,
    collections::HashSet,
    path::{Path, PathBuf},
    sync::Once,
};

use automerge::ChangeHash;
use rusqlite::{Connection, OptionalExtension};

pub use browse::{EdgeRow, MemoryFilter, Namespaces};
pub use derive::Touched;
pub use fts_query::fts_query;
pub use rows::{Derived, MemoryRow, Standing, chunk_hash, content_hash};
pub use schema::{EMBEDDED, NOT_EMBEDDED, PASSAGE_STRIDE, SCHEMA_VERSION, WHOLE_ONLY};

/// How the index failed. The index is derived from the documents, so none
/// of these loses anything: the worst case is a rebuild (`ferrex reindex`).
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// SQLite failed on the index file.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The index file could not be opened.
    #[error("opening {}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
    /// An index file that was to be replaced could not be removed.
    #[error("removing {}", path.display())]
    Remove {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The model's vectors do not fit the index's sign bits.
    #[error("the model makes {0}-d vectors; ferrex needs a positive multiple of 8")]
    Dimension(usize),
    /// An index on disk that this ferrex does not keep (it is replaced).
    #[error("{0}")]
    Unfit(Unfit),
    /// Moving an index of the previous schema to this one failed.
    #[error("moving the index to this ferrex's schema")]
    Migrate(#[source] Box<IndexError>),
    /// A list (tags, entities, chunks) could not be written as JSON.
    #[error(transparent)]
    Encode(#[from] serde_json::Error),
    /// A forget could not empty the WAL: a reader kept holding it.
    #[error("the index stayed busy: its WAL could not be emptied after a forget")]
    Busy,
    /// The index holds a document head that is not a change hash.
    #[error("bad change hash {0:?} in the index")]
    BadHead(String),
    /// The index was asked for an embedding state there is none of.
    #[error("no embedding state {0}")]
    NoEmbeddingState(i64),
    /// A memory's vectors were written without its whole-text vector.
    #[error("no vector for the memory at row {0}")]
    NoVector(i64),
    /// A memory's vectors were written with more passages than the index
    /// numbers.
    #[error("{count} passages for the memory at row {rowid}")]
    TooManyPassages {
        /// The memory's row.
        rowid: i64,
        /// Its passages.
        count: usize,
    },
}

/// Why an index on disk is not kept.
#[derive(Debug, thiserror::Error)]
pub enum Unfit {
    /// Of another schema version (or none).
    #[error("the index has schema version {}, this ferrex uses {SCHEMA_VERSION}", .0.as_deref().unwrap_or("none"))]
    Schema(Option<String>),
    /// Built with another embedding model.
    #[error("the index was built with model {built_with:?}, the node runs {runs:?}")]
    Model {
        /// The model it was built with.
        built_with: String,
        /// The model the node runs.
        runs: String,
    },
    /// Holding vectors of another size.
    #[error("the index holds {holds}-d vectors, the model makes {makes}")]
    Dimension {
        /// The size it holds.
        holds: String,
        /// The size the model makes.
        makes: usize,
    },
    /// A rebuild was interrupted.
    #[error("the index was never completely built (a rebuild was interrupted)")]
    Incomplete,
}

/// What the index's operations return.
pub type IndexResult<T> = Result<T, IndexError>;

/// A memory's vectors: its whole text's first, then its passages' (see
/// `ferrex_core::passages`).
pub type Vectors = Vec<Vec<f32>>;
pub use write::IndexTx;

/// Why an existing index file was replaced when it was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// There was no index; an empty one was created.
    Created,
    /// The existing index was kept.
    Kept,
    /// The existing index was unusable and replaced by an empty one.
    Replaced {
        /// Why, in words.
        reason: String,
    },
}

/// The open index.
pub struct Index {
    conn: Connection,
    path: PathBuf,
    model_id: String,
    dimension: usize,
    /// The sign bits of every vector of the namespaces searched so far.
    signs: RefCell<signs::Signs>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Index")
            .field("path", &self.path)
            .field("model_id", &self.model_id)
            .finish_non_exhaustive()
    }
}

/// Registers sqlite-vec with every connection this process opens.
#[allow(unsafe_code, reason = "sqlite-vec is registered through SQLite's C extension API")]
fn register_sqlite_vec() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        type ExtensionInit = unsafe extern "C" fn(
            *mut rusqlite::ffi::sqlite3,
            *mut *mut std::os::raw::c_char,
            *const rusqlite::ffi::sqlite3_api_routines,
        ) -> std::os::raw::c_int;
        // SAFETY: sqlite3_vec_init has exactly the signature SQLite expects of
        // an extension entry point; the crate declares it without arguments.
        unsafe {
            let init: ExtensionInit =
                std::mem::transmute(sqlite_vec::sqlite3_vec_init as *const ());
            rusqlite::ffi::sqlite3_auto_extension(Some(init));
        }
    });
}

impl Index {
    /// Opens the index at `path` for vectors of `model_id` with `dimension`
    /// floats. An index that is missing, unreadable, of another schema
    /// version (but `schema::MIGRATES_FROM`, migrated in place), or built
    /// with another model is replaced by an empty one; the caller then
    /// rebuilds it from the documents.
    pub fn open(path: &Path, model_id: &str, dimension: usize) -> IndexResult<(Index, Opened)> {
        // Passages are searched by sign bits, stored a byte per 8 dimensions.
        if !dimension.is_multiple_of(8) || dimension == 0 {
            return Err(IndexError::Dimension(dimension));
        }
        register_sqlite_vec();
        let existed = path.exists();
        let opened = if existed {
            match Self::open_existing(path, model_id, dimension) {
                Ok(index) => return Ok((index, Opened::Kept)),
                Err(reason) => {
                    remove_index_files(path)?;
                    // The reason with its causes, as a person reads it.
                    Opened::Replaced { reason: crate::base::with_causes(&reason) }
                }
            }
        } else {
            Opened::Created
        };
        let conn = connect(path)?;
        schema::create(&conn, model_id, dimension)?;
        create_unversioned(&conn)?;
        let index = Index {
            conn,
            path: path.to_owned(),
            model_id: model_id.to_owned(),
            dimension,
            signs: RefCell::default(),
        };
        Ok((index, opened))
    }

    fn open_existing(path: &Path, model_id: &str, dimension: usize) -> IndexResult<Index> {
        let conn = connect(path)?;
        let meta = |key: &str| -> IndexResult<Option<String>> {
            Ok(conn
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0))
                .optional()?)
        };
        let version = meta("schema_version")?;
        let migrates = version.as_deref() == Some(&schema::MIGRATES_FROM.to_string());
        if !migrates && version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
            return Err(IndexError::Unfit(Unfit::Schema(version)));
        }
        let built_with = meta("model_id")?.unwrap_or_default();
        if built_with != model_id {
            return Err(IndexError::Unfit(Unfit::Model { built_with, runs: model_id.to_owned() }));
        }
        let holds = meta("dimension")?.unwrap_or_default();
        if holds != dimension.to_string() {
            return Err(IndexError::Unfit(Unfit::Dimension { holds, makes: dimension }));
        }
        if meta("complete")?.as_deref() != Some("1") {
            return Err(IndexError::Unfit(Unfit::Incomplete));
        }
        if migrates {
            let started = std::time::Instant::now();
            schema::migrate(&conn).map_err(|error| IndexError::Migrate(Box::new(error)))?;
            tracing::info!(
                from = schema::MIGRATES_FROM,
                to = SCHEMA_VERSION,
                ms = started.elapsed().as_millis() as u64,
                "index schema migrated in place"
            );
        }
        create_unversioned(&conn)?;
        Ok(Index {
            conn,
            path: path.to_owned(),
            model_id: model_id.to_owned(),
            dimension,
            signs: RefCell::default(),
        })
    }

    /// Reads the sign bits of every namespace into memory now, rather than
    /// on each namespace's first search (see `signs.rs`).
    pub fn load_signs(&self) -> IndexResult<()> {
        self.signs.borrow_mut().load_all(&self.conn, self.dimension.div_ceil(64))
    }

    /// Runs `work` in one SQLite transaction; nothing is written on error.
    /// The in-memory sign bits follow what the transaction wrote once it
    /// has committed.
    pub fn transaction<T>(
        &mut self,
        work: impl FnOnce(&IndexTx<'_>) -> IndexResult<T>,
    ) -> IndexResult<T> {
        self.transaction_with(work)
    }

    /// [`Index::transaction`] of `work` that fails with errors of its own
    /// (`E`), the index's among them.
    pub fn transaction_with<T, E: From<IndexError>>(
        &mut self,
        work: impl FnOnce(&IndexTx<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self.conn.transaction().map_err(IndexError::from)?;
        let index_tx = IndexTx::new(&tx);
        let outcome = work(&index_tx)?;
        let edits = index_tx.into_edits();
        tx.commit().map_err(IndexError::from)?;
        self.signs.get_mut().apply(edits);
        Ok(outcome)
    }

    /// Empties the index (every table dropped and created again): the
    /// virtual tables first (which drops their shadow tables), then every
    /// other table there is, so a table added to the schema cannot be missed.
    pub fn reset(&mut self) -> IndexResult<()> {
        self.signs.get_mut().clear();
        for virtual_only in [true, false] {
            let names: Vec<String> = {
                let mut statement = self.conn.prepare(
                    "SELECT name FROM sqlite_master WHERE type = 'table'
                     AND name NOT LIKE 'sqlite_%' AND (sql LIKE 'CREATE VIRTUAL%') = ?1",
                )?;
                statement.query_map([virtual_only], |row| row.get(0))?.collect::<Result<_, _>>()?
            };
            for name in names {
                let quoted = name.replace('"', "\"\"");
                self.conn.execute_batch(&format!("DROP TABLE IF EXISTS \"{quoted}\";"))?;
            }
        }
        schema::create(&self.conn, &self.model_id, self.dimension)?;
        create_unversioned(&self.conn)?;
        Ok(())
    }

    /// Marks whether the index reflects all documents (set after a rebuild);
    /// an index left incomplete by a crash is rebuilt on the next start.
    pub fn set_complete(&self, complete: bool) -> IndexResult<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('complete', ?1)",
            [if complete { "1" } else { "0" }],
        )?;
        Ok(())
    }

    /// Moves everything in the WAL into the database and empties the WAL
    /// file, so that deleted rows (overwritten in the database by
    /// `secure_delete`) leave no older copy in the WAL either. Retried while
    /// a reader holds the WAL; an error if it stays busy.
    pub fn checkpoint_truncate(&self) -> IndexResult<()> {
        for attempt in 0..50 {
            let busy: i64 =
                self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))?;
            if busy == 0 {
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_millis(2 * (attempt + 1)));
        }
        Err(IndexError::Busy)
    }

    /// Records waiting for their key, per document: `(root, id)`.
    pub fn pending_keys(&self) -> IndexResult<Vec<(String, String, String)>> {
        let mut statement =
            self.conn.prepare("SELECT doc, root, id FROM pending_keys ORDER BY doc")?;
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Those of memories `ids` that wait for their key.
    pub fn waiting_for_keys<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a String>,
    ) -> IndexResult<HashSet<String>> {
        let sql = "SELECT EXISTS (SELECT 1 FROM pending_keys WHERE root = 'memories' AND id = ?1)";
        Ok(self.ids_where(sql, true, ids)?.into_iter().collect())
    }

    /// Those of `ids` for which `exists` (a query of one row and column,
    /// the id its `?1`) answers `answer`, in order, all in one read
    /// transaction.
    pub(crate) fn ids_where<'a>(
        &self,
        exists: &str,
        answer: bool,
        ids: impl IntoIterator<Item = &'a String>,
    ) -> IndexResult<Vec<String>> {
        self.in_one_read(|conn| {
            let mut statement = conn.prepare_cached(exists)?;
            let mut kept = Vec::new();
            for id in ids {
                if statement.query_row([id], |row| row.get::<_, bool>(0))? == answer {
                    kept.push(id.clone());
                }
            }
            Ok(kept)
        })
    }

    /// The heads of document `doc` this index reflects.
    pub fn doc_heads(&self, doc: &str) -> IndexResult<Option<Vec<ChangeHash>>> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT heads FROM doc_heads WHERE doc = ?1", [doc], |row| row.get(0))
            .optional()?;
        text.map(|text| decode_heads(&text)).transpose()
    }

    /// The connection, for the read queries in `search.rs`.
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `read` in one read transaction: a query each outside of one
    /// takes and releases the WAL's locks every time (thousands of times
    /// for a synced shard's memories).
    pub(crate) fn in_one_read<T, E: From<IndexError>>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self.conn.unchecked_transaction().map_err(IndexError::from)?;
        let outcome = read(&tx)?;
        tx.commit().map_err(IndexError::from)?;
        Ok(outcome)
    }
}

/// What every open creates when missing, outside the schema's version
/// (derived like the rest): the working-state index and the queue of text
/// to judge.
fn create_unversioned(conn: &Connection) -> IndexResult<()> {
    conn.execute_batch(working::BY_SOURCE)?;
    conn.execute_batch(judging::QUEUE)?;
    links::create(conn)?;
    files::create(conn)?;
    Ok(())
}

/// The page cache the connection keeps between transactions, in KiB (a
/// transaction's dirty pages may take more, see `cache_spill` below).
/// 16 MiB of it was 16 MiB of a node's resident memory at 100k memories,
/// where recalls read their pages from the system's file cache as fast.
const PAGE_CACHE_KIB: i64 = 4 * 1024;

/// Prepared statements the connection keeps.
const STATEMENT_CACHE: usize = 256;

fn connect(path: &Path) -> IndexResult<Connection> {
    let conn = Connection::open(path)
        .map_err(|source| IndexError::Open { path: path.to_owned(), source })?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Deleted content is overwritten with zeros, not left in free pages.
    conn.pragma_update(None, "secure_delete", "ON")?;
    // The file is read, not mapped (`mmap_size` stays 0): every page a
    // mapping touched stayed in the process's resident memory, the whole
    // index after a while of recalls (300 MB at 100k memories), while a
    // search reads a few pages per candidate (`memory_floats`), which
    // copying costs nothing measurable.
    // A synced shard is indexed in one transaction of thousands of rows:
    // with a small cache its pages spilled to the WAL before the commit.
    // Without spilling, the cache holds a transaction's dirty pages however
    // many, and gives back what is above its size once they are written.
    conn.pragma_update(None, "cache_size", -PAGE_CACHE_KIB)?;
    conn.pragma_update(None, "cache_spill", false)?;
    // Writes and reads go through cached statements; the index has more
    // distinct ones than rusqlite's default of 16 keeps.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Plans do not depend on the values bound. Without this, a statement
    // whose plan looked at a bound value (here the live edges into a
    // memory, through the partial indexes) was prepared again every time
    // it came out of the cache, which clears its bindings: a fifth of a
    // fresh device's indexing at 100k memories.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(conn)
}

fn remove_index_files(path: &Path) -> IndexResult<()> {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(IndexError::Remove { path: path.to_owned(), source: error });
            }
        }
    }
    Ok(())
}

pub(crate) fn encode_heads(heads: &[ChangeHash]) -> String {
    heads.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

pub(crate) fn decode_heads(text: &str) -> IndexResult<Vec<ChangeHash>> {
    text.split(',')
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().map_err(|_| IndexError::BadHead(part.to_owned())))
        .collect()
}

/// A vector as the little-endian bytes sqlite-vec reads.
pub(crate) fn vector_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|value| value.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &Path, model: &str) -> Opened {
        let (index, opened) = Index::open(path, model, 8).unwrap();
        index.set_complete(true).unwrap();
        opened
    }

    #[test]
    fn an_index_of_another_model_schema_or_an_unfinished_build_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        assert_eq!(open(&path, "model-a"), Opened::Created);
        assert_eq!(open(&path, "model-a"), Opened::Kept);
        assert!(
            matches!(open(&path, "model-b"), Opened::Replaced { reason } if reason.contains("model-a"))
        );

        let conn = Connection::open(&path).unwrap();
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'", []).unwrap();
        drop(conn);
        assert!(
            matches!(open(&path, "model-b"), Opened::Replaced { reason } if reason.contains("schema version 1"))
        );

        let (index, _) = Index::open(&path, "model-b", 8).unwrap();
        index.set_complete(false).unwrap();
        drop(index);
        assert!(
            matches!(open(&path, "model-b"), Opened::Replaced { reason } if reason.contains("never completely built"))
        );

        std::fs::write(&path, b"not a database").unwrap();
        assert!(matches!(open(&path, "model-b"), Opened::Replaced { .. }));
        assert_eq!(open(&path, "model-b"), Opened::Kept);
    }

    #[test]
    fn an_unfit_index_is_told_apart_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        open(&path, "model-a");
        assert!(matches!(
            Index::open_existing(&path, "model-b", 8),
            Err(IndexError::Unfit(Unfit::Model { built_with, runs }))
                if built_with == "model-a" && runs == "model-b"
        ));
        assert!(matches!(
            Index::open_existing(&path, "model-a", 16),
            Err(IndexError::Unfit(Unfit::Dimension { makes: 16, .. }))
        ));
        assert!(matches!(Index::open(&path, "model-a", 12), Err(IndexError::Dimension(12))));
        assert!(Index::open_existing(&path, "model-a", 8).is_ok());
    }

    #[test]
    fn an_index_of_the_previous_schema_keeps_its_vectors_in_its_new_table() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        let vectors = |i: usize| {
            let mut vector = vec![0.0f32; 8];
            vector[i % 8] = 1.0;
            vector[(i + 3) % 8] = 0.5 + i as f32 / 100.0;
            vector
        };
        let (mut index, _) = Index::open(&path, "model", 8).unwrap();
        index
            .transaction(|tx| {
                for i in 0..20 {
                    let (rowid, _) = tx.upsert_memory(&memory_row(&format!("m{i:02}"), "text"))?;
                    tx.put_vector(rowid, "default", "episodic", &vec![vectors(i)], true)?;
                }
                Ok(())
            })
            .unwrap();
        index.set_complete(true).unwrap();
        let query = vectors(7);
        let answer = index.dense(&query, "default", &[], 5).unwrap();
        drop(index);

        // The same index as schema version 6 kept it: the whole-text
        // vectors in a vec0 table.
        register_sqlite_vec();
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE memory_vectors USING vec0(
                 namespace TEXT PARTITION KEY, embedding FLOAT[8], kind TEXT);
             INSERT INTO memory_vectors(rowid, namespace, embedding, kind)
                 SELECT f.rowid, m.namespace, f.embedding, m.kind
                 FROM memory_floats f JOIN memories m ON m.rowid = f.rowid;
             DROP TABLE memory_floats;
             UPDATE meta SET value = '{}' WHERE key = 'schema_version';",
            schema::MIGRATES_FROM
        ))
        .unwrap();
        drop(conn);

        let (index, opened) = Index::open(&path, "model", 8).unwrap();
        assert_eq!(opened, Opened::Kept);
        assert_eq!(index.dense(&query, "default", &[], 5).unwrap(), answer);
        for i in [0, 7, 19] {
            assert_eq!(index.vector(&format!("m{i:02}")).unwrap(), Some(vectors(i)));
        }
        let tables: i64 = index
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'memory_vectors'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(tables, 0);
        drop(index);
        assert_eq!(open(&path, "model"), Opened::Kept);
    }

    #[test]
    fn a_statement_run_with_other_values_is_not_prepared_again() {
        // Planned with the values bound, the live edges into a memory were
        // prepared again on every run (a fifth of a fresh device's indexing).
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let sql = "SELECT e.from_id, m.t_valid FROM edges e JOIN memories m ON m.id = e.from_id
                   WHERE e.to_id = ?1 AND e.kind = ?2";
        for (to, kind) in [("a", "corrects"), ("b", "supersedes"), ("c", "corrects")] {
            let mut statement = index.conn().prepare_cached(sql).unwrap();
            let rows = statement.query_map([to, kind], |row| row.get::<_, String>(0)).unwrap();
            assert_eq!(rows.count(), 0);
        }
        let statement = index.conn().prepare_cached(sql).unwrap();
        assert_eq!(statement.get_status(rusqlite::StatementStatus::RePrepare), 0);
    }

    #[test]
    fn an_index_of_the_previous_schema_that_cannot_migrate_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        assert_eq!(open(&path, "model"), Opened::Created);
        // Version 6 by its number, but without the table the migration reads.
        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
            [schema::MIGRATES_FROM.to_string()],
        )
        .unwrap();
        drop(conn);
        assert!(matches!(
            open(&path, "model"),
            Opened::Replaced { reason } if reason.contains("moving the index to this ferrex's schema")
        ));
        assert_eq!(open(&path, "model"), Opened::Kept);
    }

    #[test]
    fn held_memories_and_the_facts_among_them() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let mut fact = memory_row("f", "");
        fact.kind = ferrex_core::MemoryKind::Semantic;
        index
            .transaction(|tx| {
                tx.upsert_memory(&memory_row("t", "a text"))?;
                tx.upsert_memory(&fact)?;
                Ok(())
            })
            .unwrap();
        let ids = ["absent", "f", "t"].map(str::to_owned);
        assert_eq!(index.unheld(&ids).unwrap(), ["absent"]);
        let facts: Vec<String> =
            index.fact_rows(&ids).unwrap().into_iter().map(|row| row.id).collect();
        assert_eq!(facts, ["f"]);
    }

    #[test]
    fn a_memory_stored_right_after_another_by_its_device_follows_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let minute = 60_000;
        // (id, created at, device, context): a thread a1 → a2 → a3, then a
        // memory too late to follow a3; b1 by another device after a1 is
        // what comes next to a1 by time, so a1 has no follower.
        let rows = [
            ("a1", 0, "laptop", None),
            ("b1", 1, "desktop", None),
            ("a2", 2, "laptop", None),
            ("a3", 3 * minute, "laptop", Some("a context of its own")),
            ("a4", 30 * minute, "laptop", None),
            ("a5", 31 * minute, "laptop", None),
        ];
        index
            .transaction(|tx| {
                for (id, at, device, context) in rows {
                    let mut row = memory_row_with(id, id, context.map(str::to_owned), Vec::new());
                    row.created_at = at;
                    row.created_by = device.to_owned();
                    tx.upsert_memory(&row)?;
                }
                Ok(())
            })
            .unwrap();
        let ids = ["a1", "b1", "a2", "a3", "a4", "a5", "absent"].map(str::to_owned);
        let found = index.followers(&ids, 10 * minute).unwrap();
        let pairs: Vec<(&str, &str)> =
            found.iter().map(|(next, before)| (next.as_str(), before.as_str())).collect();
        // a2 follows b1 by time but not by device; a3 has a context of its
        // own; a4 came too late after a3; a5 follows a4; a5 is the last.
        assert_eq!(pairs, [("a5", "a4")]);
        let found = index.followers(&["b1".to_owned()], 10 * minute).unwrap();
        assert!(found.is_empty(), "{found:?}");
        // A thread of one device, a second apart, with a session's event
        // stored between the two: working state is no turn of a thread.
        index
            .transaction(|tx| {
                let mut event = memory_row("e1", "edited src/main.rs: ok");
                event.created_at = 31 * minute + 500;
                event.created_by = "laptop".to_owned();
                event.source = Some("ferrex:event".to_owned());
                tx.upsert_memory(&event)?;
                let mut row = memory_row("a6", "a6");
                row.created_at = 31 * minute + 1_000;
                row.created_by = "laptop".to_owned();
                tx.upsert_memory(&row)?;
                Ok(())
            })
            .unwrap();
        let found = index.followers(&["a5".to_owned()], 10 * minute).unwrap();
        assert_eq!(found, [("a6".to_owned(), "a5".to_owned())]);
    }

    #[test]
    fn an_answer_to_a_question_that_follows_a_match_follows_too() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        // (id, text): one device, a second apart. q asks, so what follows
        // it (r) is read with it; s follows r, which asks nothing.
        let rows = [
            ("p", "Caroline: I went to the pride parade on Sunday."),
            ("q", "Melanie: Wow, how was it?"),
            ("r", "Caroline: Amazing, the whole town came out."),
            ("s", "Melanie: So glad to hear it."),
        ];
        index
            .transaction(|tx| {
                for (at, (id, text)) in (0_i64..).zip(rows) {
                    let mut row = memory_row_with(id, text, None, Vec::new());
                    row.created_at = at * 1_000;
                    row.created_by = "laptop".to_owned();
                    tx.upsert_memory(&row)?;
                }
                Ok(())
            })
            .unwrap();
        let pairs = |ids: &[&str]| -> Vec<(String, String)> {
            let ids: Vec<String> = ids.iter().map(|id| (*id).to_owned()).collect();
            index.followers(&ids, 600_000).unwrap()
        };
        let pair = |next: &str, before: &str| (next.to_owned(), before.to_owned());
        assert_eq!(pairs(&["p"]), [pair("q", "p"), pair("r", "q")]);
        // r asks nothing: only s follows it.
        assert_eq!(pairs(&["r"]), [pair("s", "r")]);
        // An answer that also follows a match of its own is listed once.
        assert_eq!(pairs(&["p", "q"]), [pair("q", "p"), pair("r", "q")]);
    }

    #[test]
    fn recall_reaches_links_shared_entities_and_related_ones_but_not_through_hubs() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let entity = |id: &str| ferrex_core::Entity {
            id: id.to_owned(),
            name: id.to_owned(),
            kind: None,
            created_at: ferrex_core::Timestamp(1),
            created_by: "device".to_owned(),
        };
        let mentioning = |id: &str, entities: &[&str]| {
            let mut row = memory_row(id, id);
            row.entities = entities.iter().map(|entity| (*entity).to_owned()).collect();
            row
        };
        let fact = |id: &str, subject: &str, object: &str, subject_entity: Option<&str>| {
            let mut row = memory_row(id, id);
            row.kind = ferrex_core::MemoryKind::Semantic;
            row.subject = Some(subject.to_owned());
            row.predicate = Some("relates_to".to_owned());
            row.object = Some(object.to_owned());
            row.subject_entity = subject_entity.map(str::to_owned);
            row.entities = subject_entity.map(|_| vec![object.to_owned()]).unwrap_or_default();
            row.source = Some(ferrex_core::walk::LINK_SOURCE.to_owned());
            row
        };
        index
            .transaction(|tx| {
                for id in ["ledger", "priya", "hub", "payments"] {
                    tx.put_entity("default", "doc", &entity(id))?;
                }
                for row in [
                    // The seed mentions the ledger and the hub.
                    mentioning("seed", &["ledger", "hub"]),
                    mentioning("owner", &["ledger", "priya"]),
                    // The hub is named by more memories than the limit.
                    mentioning("hub-1", &["hub"]),
                    mentioning("hub-2", &["hub"]),
                    mentioning("hub-3", &["hub"]),
                    // One relation from the ledger: payments.
                    fact("ledger-payments", "ledger", "payments", Some("ledger")),
                    mentioning("payments-note", &["payments"]),
                    // A link between memories, and one whose end is gone.
                    mentioning("fix", &[]),
                    fact("seed-fix", "seed", "fix", None),
                    fact("seed-gone", "seed", "gone", None),
                    mentioning("unrelated", &[]),
                ] {
                    tx.upsert_memory(&row)?;
                }
                Ok(())
            })
            .unwrap();
        // The ledger is named by 3 memories, the hub by 4.
        let reached = index.neighbours("default", &["seed".to_owned()], 3).unwrap();
        let found: Vec<(&str, &str, bool)> = reached
            .iter()
            .map(|reached| (reached.id.as_str(), reached.from.as_str(), reached.linked))
            .collect();
        // Links first, then the memories of the seed's entities (the
        // relation that names the ledger among them), then of the entity
        // one relation away; not the hub's, not a gone end, not the seed.
        assert_eq!(
            found,
            [
                ("fix", "seed", true),
                ("ledger-payments", "seed", false),
                ("owner", "seed", false),
                ("payments-note", "seed", false),
            ],
            "{reached:?}"
        );
        // With room for the hub, its memories come too; another seed is
        // reached from the first, never from itself.
        let reached =
            index.neighbours("default", &["seed".to_owned(), "owner".to_owned()], 4).unwrap();
        let ids: Vec<&str> = reached.iter().map(|reached| reached.id.as_str()).collect();
        for id in ["owner", "hub-1", "hub-2", "hub-3"] {
            assert!(ids.contains(&id), "{id}: {ids:?}");
        }
        assert!(!ids.contains(&"seed") && !ids.contains(&"unrelated"), "{ids:?}");
        // Another namespace reaches nothing here.
        assert!(index.neighbours("elsewhere", &["seed".to_owned()], 4).unwrap().is_empty());
    }

    fn memory_row(id: &str, text: &str) -> MemoryRow {
        memory_row_with(id, text, None, Vec::new())
    }

    fn memory_row_with(
        id: &str,
        text: &str,
        context: Option<String>,
        tags: Vec<String>,
    ) -> MemoryRow {
        let memory = ferrex_core::Memory {
            id: id.to_owned(),
            kind: ferrex_core::MemoryKind::Episodic,
            content: ferrex_core::Content::Text(text.to_owned()),
            namespace: ferrex_core::Namespace::parse("default").unwrap(),
            confidence: 1.0,
            source: None,
            context,
            tags,
            entity_ids: Vec::new(),
            created_at: ferrex_core::Timestamp(1),
            created_by: "device".to_owned(),
            t_valid: ferrex_core::Timestamp(1),
            evidence: 1,
            validated: Default::default(),
            access: Default::default(),
        };
        let stored = ferrex_sync::StoredMemory {
            memory,
            subject_entity: None,
            predicate_written: None,
            cardinality: None,
        };
        MemoryRow::from_stored(&stored, "doc")
    }

    /// Passages indexed, asserting both of their tables agree.
    fn passage_rows(index: &Index) -> i64 {
        let count = |table: &str| -> i64 {
            index
                .conn()
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0))
                .unwrap()
        };
        assert_eq!(count("passage_vectors"), count("passage_floats"));
        count("passage_floats")
    }

    #[test]
    fn a_memory_is_found_by_its_nearest_passage_and_its_passages_go_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let put = |index: &mut Index, id: &str, text: &str, vectors: Vectors| {
            index
                .transaction(|tx| {
                    let (rowid, _) = tx.upsert_memory(&memory_row(id, text))?;
                    tx.put_vector(rowid, "default", "episodic", &vectors, true)
                })
                .unwrap();
        };
        // "a" is far from the query as a whole but has a passage on it; "b"
        // is nearer as a whole and has no passages.
        put(
            &mut index,
            "a",
            "two. sentences here",
            vec![
                vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ],
        );
        put(&mut index, "b", "one", vec![vec![0.6, 0.8, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]);
        assert_eq!(passage_rows(&index), 2);
        let query = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let whole: Vec<String> =
            index.dense(&query, "default", &[], 2).unwrap().into_iter().map(|(id, _)| id).collect();
        assert_eq!(whole, ["b", "a"]);
        let best = index.dense_best(&query, "default", &[], 2).unwrap();
        assert_eq!(best[0].0, "a");
        assert!(best[0].1 < 1e-6, "{best:?}");
        assert_eq!(best.len(), 2);
        assert_eq!(index.vectors("a").unwrap().len(), 3);
        assert_eq!(index.vectors("b").unwrap().len(), 1);

        // New vectors replace the old ones, passages included.
        put(
            &mut index,
            "a",
            "two. sentences here",
            vec![
                vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            ],
        );
        assert_eq!(passage_rows(&index), 1);
        assert_eq!(index.vectors("a").unwrap().len(), 2);
        // Forgetting a memory removes its passages.
        index.transaction(|tx| tx.delete_memory("a")).unwrap();
        assert_eq!(passage_rows(&index), 0);
        assert!(index.vectors("a").unwrap().is_empty());
    }

    #[test]
    fn a_stored_memory_with_its_whole_vector_waits_for_its_passages_only() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let text = "The billing worker retries three times. Then it emails the customer.";
        let whole = vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let (stored, _) = index
            .transaction(|tx| {
                let (rowid, _) = tx.upsert_memory(&memory_row("stored", text))?;
                tx.put_vector(rowid, "default", "episodic", &vec![whole.clone()], false)?;
                // And one from a peer, with no vector at all.
                tx.upsert_memory(&memory_row("merged", "Sam reviews in the mornings."))?;
                Ok((rowid, ()))
            })
            .unwrap();
        assert_eq!(index.embedding_backlog(Some("default")).unwrap(), (1, 1));
        assert_eq!(index.embedding_backlog(Some("other")).unwrap(), (0, 0));
        // Found by meaning already, by its whole text.
        let found = index.dense_best(&whole, "default", &[], 1).unwrap();
        assert_eq!(found[0].0, "stored");
        let waiting = index.pending_embeddings(WHOLE_ONLY, 10, 0).unwrap();
        assert_eq!(waiting.len(), 1);
        let (rowid, waiting_text, hash) = &waiting[0];
        assert_eq!((*rowid, waiting_text.as_str()), (stored, text));
        assert_eq!(index.pending_embeddings(NOT_EMBEDDED, 10, 0).unwrap().len(), 1);

        let passages = ferrex_core::passages::passages(text);
        assert_eq!(passages.len(), 2);
        let vectors = vec![vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]; passages.len()];
        // Computed from text that has changed since: not stored.
        let stale = index.transaction(|tx| tx.put_passages_if_current(stored, "x", &vectors));
        assert!(!stale.unwrap());
        let added = index.transaction(|tx| tx.put_passages_if_current(stored, hash, &vectors));
        assert!(added.unwrap());
        assert_eq!(index.embedding_backlog(None).unwrap(), (1, 0));
        assert_eq!(passage_rows(&index), 2);
        // The whole text's vector is kept.
        assert_eq!(index.vectors("stored").unwrap()[0], whole);
        // Twice is a no-op.
        let again = index.transaction(|tx| tx.put_passages_if_current(stored, hash, &vectors));
        assert!(!again.unwrap());
    }

    #[test]
    fn vectors_from_a_peer_fill_only_memories_without_any_and_only_complete_ones_are_offered() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 8).unwrap();
        let two = "The billing worker retries three times. Then it emails the customer.";
        let axis = |at: usize| {
            let mut vector = vec![0.0; 8];
            vector[at] = 1.0;
            vector
        };
        let rowids: Vec<i64> = index
            .transaction(|tx| {
                let mut rowids = Vec::new();
                for (id, text) in [("low", "One line."), ("mid", two), ("high", "Another line.")] {
                    rowids.push(tx.upsert_memory(&memory_row(id, text))?.0);
                }
                Ok(rowids)
            })
            .unwrap();
        // Taken from the top down, in pages.
        let page = index.missing_vectors_from_top(2, i64::MAX).unwrap();
        let ids: Vec<&str> = page.iter().map(|(_, id, _, _)| id.as_str()).collect();
        assert_eq!(ids, ["high", "mid"]);
        let rest = index.missing_vectors_from_top(2, page[1].0).unwrap();
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].1, "low");
        let hash_of = |id: &str| index.row(id).unwrap().unwrap().content_hash;
        let (mid_hash, high_hash) = (hash_of("mid"), hash_of("high"));
        // Nothing is offered before it is complete.
        assert!(index.complete_vectors("mid", &mid_hash).unwrap().is_none());

        let mid_vectors: Vectors = (0..3).map(axis).collect();
        let stored = index.transaction(|tx| {
            Ok((
                tx.put_vectors_if_missing(rowids[1], "another text", &mid_vectors)?,
                tx.put_vectors_if_missing(rowids[1], &mid_hash, &mid_vectors)?,
                tx.put_vectors_if_missing(rowids[1], &mid_hash, &mid_vectors)?,
            ))
        });
        assert_eq!(stored.unwrap(), (false, true, false), "other content, then once only");
        assert_eq!(index.embedding_backlog(None).unwrap(), (2, 0));
        assert_eq!(index.complete_vectors("mid", &mid_hash).unwrap(), Some(mid_vectors.clone()));
        assert!(index.complete_vectors("mid", "another text").unwrap().is_none());
        // Found by meaning at once, by a passage too.
        assert_eq!(index.dense_best(&axis(2), "default", &[], 1).unwrap()[0].0, "mid");

        // One the worker got to first (a store's whole text only) is kept.
        index
            .transaction(|tx| {
                tx.put_vector(rowids[2], "default", "episodic", &vec![axis(5)], false)
            })
            .unwrap();
        let late = index
            .transaction(|tx| tx.put_vectors_if_missing(rowids[2], &high_hash, &vec![axis(6)]));
        assert!(!late.unwrap());
        assert_eq!(index.vectors("high").unwrap(), vec![axis(5)]);
        assert!(index.complete_vectors("high", &high_hash).unwrap().is_none(), "passages pending");
    }

    #[test]
    fn near_finds_close_neighbours_by_sign_bits_and_ranks_them_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.sqlite"), "model", 64).unwrap();
        // Deterministic pseudo-random unit vectors.
        let mut seed = 7_u64;
        let mut random = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let unit = |values: Vec<f32>| {
            let norm = values.iter().map(|value| value * value).sum::<f32>().sqrt();
            values.into_iter().map(|value| value / norm).collect::<Vec<f32>>()
        };
        let vectors: Vec<Vec<f32>> =
            (0..200).map(|_| unit((0..64).map(|_| random()).collect())).collect();
        index
            .transaction(|tx| {
                for (at, vector) in vectors.iter().enumerate() {
                    let (rowid, _) = tx.upsert_memory(&memory_row(&format!("m{at:03}"), "one"))?;
                    tx.put_vector(rowid, "default", "episodic", &vec![vector.clone()], true)?;
                }
                Ok(())
            })
            .unwrap();
        for target in [0, 17, 199] {
            // A near copy of one stored vector.
            let query = unit(vectors[target].iter().map(|value| value + 0.01 * random()).collect());
            let near = index.near(&query, "default", &[], 5).unwrap();
            let exact = index.dense(&query, "default", &[], 200).unwrap();
            assert_eq!(near[0].0, format!("m{target:03}"));
            assert_eq!(near[0].0, exact[0].0);
            assert_eq!(near.len(), 5);
            for (id, distance) in &near {
                let (_, expected) = exact.iter().find(|(other, _)| other == id).unwrap();
                assert!((distance - expected).abs() < 1e-5, "{id}: {distance} vs {expected}");
            }
        }
        // Forgetting a memory removes its sign bits too.
        index.transaction(|tx| tx.delete_memory("m017")).unwrap();
        let near = index.near(&vectors[17], "default", &[], 5).unwrap();
        assert!(near.iter().all(|(id, _)| id != "m017"), "{near:?}");
    }

    #[test]
    fn sign_bits_in_memory_follow_committed_writes_only_and_match_a_fresh_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        let (mut index, _) = Index::open(&path, "model", 64).unwrap();
        index.set_complete(true).unwrap();
        let mut seed = 11_u64;
        let mut random = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let mut vector = move || (0..64).map(|_| random()).collect::<Vec<f32>>();
        let put = |index: &mut Index, id: &str, vectors: Vec<Vec<f32>>| {
            index
                .transaction(|tx| {
                    let (rowid, _) = tx.upsert_memory(&memory_row(id, id))?;
                    tx.put_vector(rowid, "default", "episodic", &vectors, true)
                })
                .unwrap();
        };
        for at in 0..60 {
            let vectors = (0..1 + at % 3).map(|_| vector()).collect();
            put(&mut index, &format!("m{at:02}"), vectors);
        }
        let queries: Vec<Vec<f32>> = (0..20).map(|_| vector()).collect();
        // The first search loads the namespace; later writes update it.
        index.dense_best(&queries[0], "default", &[], 5).unwrap();
        for at in 60..80 {
            put(&mut index, &format!("m{at:02}"), vec![vector(), vector()]);
        }
        put(&mut index, "m03", vec![vector()]);
        index.transaction(|tx| tx.delete_memory("m10")).unwrap();
        // A transaction that fails leaves the bits as they were.
        let failed: anyhow::Result<()> = index.transaction_with(|tx| {
            let (rowid, _) = tx.upsert_memory(&memory_row("ghost", "ghost"))?;
            tx.put_vector(rowid, "default", "episodic", &vec![queries[1].clone()], true)?;
            tx.delete_memory("m11")?;
            anyhow::bail!("rolled back")
        });
        assert!(failed.is_err());
        let (fresh, opened) = Index::open(&path, "model", 64).unwrap();
        assert_eq!(opened, Opened::Kept);
        for query in &queries {
            // With every vector a candidate (4 × 30 ≥ 80 memories), the
            // fast path is the exact ranking.
            let followed = index.dense_best(query, "default", &[], 30).unwrap();
            let loaded = fresh.dense_best(query, "default", &[], 30).unwrap();
            let exact = fresh.dense_best_exact(query, "default", &[], 30).unwrap();
            assert_eq!(followed, loaded);
            let ids = |found: &[(String, f64)]| {
                found.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>()
            };
            assert_eq!(ids(&followed), ids(&exact));
            assert!(followed.iter().all(|(id, _)| id != "ghost" && id != "m10"));
        }
        assert!(
            index
                .dense_best(&queries[1], "default", &[], 80)
                .unwrap()
                .iter()
                .any(|(id, _)| id == "m11")
        );
    }

    // What a forget leaves in the index files: nothing.

    fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|entry| {
                std::fs::read(entry.path())
                    .is_ok_and(|bytes| bytes.windows(needle.len()).any(|window| window == needle))
            })
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_deleted_memory_leaves_no_text_term_or_vector_in_the_database_its_wal_or_shm() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        let (mut index, _) = Index::open(&path, "model", 8).unwrap();
        // Distinctive vectors: their bytes are looked for too (a vector can
        // reveal its text).
        let whole = vec![0.123_456_7, -0.765_432_1, 0.5, 0.25, -0.125, 0.333, 0.444, 0.555];
        let passage = vec![0.918_273_6, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
        let text = "The vault opens with tangerine octopus. Nobody else knows the word marmalade.";
        let keep = "The release train leaves on Thursdays.";
        index
            .transaction(|tx| {
                for (id, text, vectors, secret) in [
                    ("secret", text, vec![whole.clone(), passage.clone()], true),
                    ("kept", keep, vec![vec![0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1]], false),
                ] {
                    let row = if secret {
                        let context = Some("said over coffee, tangerine".to_owned());
                        memory_row_with(id, text, context, vec!["marmalade".into()])
                    } else {
                        memory_row(id, text)
                    };
                    let (rowid, _) = tx.upsert_memory(&row)?;
                    tx.put_vector(rowid, "default", "episodic", &vectors, true)?;
                }
                Ok(())
            })
            .unwrap();
        let needles: Vec<Vec<u8>> = vec![
            // Stems, as the full-text index keeps them.
            b"tangerin".to_vec(),
            b"marmalad".to_vec(),
            vector_bytes(&whole)[..16].to_vec(),
            vector_bytes(&passage)[..16].to_vec(),
        ];
        assert!(needles.iter().all(|needle| !files_holding(dir.path(), needle).is_empty()));
        index.transaction(|tx| tx.delete_memory("secret").map(|_| ())).unwrap();
        index.checkpoint_truncate().unwrap();
        for needle in &needles {
            assert_eq!(files_holding(dir.path(), needle), Vec::<String>::new(), "{needle:?}");
        }
        // The other memory is untouched.
        assert!(!files_holding(dir.path(), b"Thursdays").is_empty());
        assert!(index.row("kept").unwrap().is_some());
    }
}
