//! Watched files in the index: what each file was when it was last read
//! (modification time, size, content hash), the chunks it gave, or why it
//! gave none.
//!
//! A file's chunks are rows of `memories` with source
//! [`ferrex_core::chunk::FILE_SOURCE`], so recall ranks them with memories.
//! A chunk of an unshared folder is this device's alone: its row is written
//! here, under the document name [`LOCAL_DOC`], and no document holds it.
//! A chunk of a shared folder is a memory of the namespace's documents
//! (written by the device that watches the folder). The `files` table is
//! local either way: it is what this device's disk held.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Index, IndexResult, IndexTx, MemoryRow};

/// The document name of the rows of unshared file chunks: no document
/// holds them; they are derived from this device's disk.
pub const LOCAL_DOC: &str = "files";

const FILES: &str = "
    CREATE TABLE IF NOT EXISTS files (
        namespace TEXT NOT NULL,
        path TEXT NOT NULL,
        root TEXT NOT NULL,
        shared INTEGER NOT NULL,
        modified INTEGER NOT NULL,
        size INTEGER NOT NULL,
        hash TEXT NOT NULL,
        chunks TEXT NOT NULL,
        skipped TEXT,
        PRIMARY KEY (namespace, path)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS files_by_root ON files(root);";

/// Creates the table on an index that lacks it (an older index keeps its
/// schema version: the files are read again by the next reconciliation).
pub(super) fn create(conn: &Connection) -> IndexResult<()> {
    conn.execute_batch(FILES)?;
    Ok(())
}

/// What the index knows of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    /// The namespace its chunks are in.
    pub namespace: String,
    /// Its absolute path on this device.
    pub path: String,
    /// The watched root it was found under.
    pub root: String,
    /// Whether its chunks are memories of the documents (synced).
    pub shared: bool,
    /// Its modification time when read (ms since the epoch).
    pub modified: i64,
    /// Its size when read.
    pub size: i64,
    /// The sha256 of its content when read.
    pub hash: String,
    /// The ids of its chunks.
    pub chunks: Vec<String>,
    /// Why it has no chunks, when it was skipped.
    pub skipped: Option<String>,
}

/// Counts of watched files, for `stats` and `index_files`.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct FileCounts {
    /// Files read.
    pub files: i64,
    /// Chunks they gave.
    pub chunks: i64,
    /// Files skipped (see [`Index::skipped_files`] for why).
    pub skipped: i64,
}

fn record(row: &rusqlite::Row<'_>) -> rusqlite::Result<FileRecord> {
    let chunks: String = row.get(7)?;
    Ok(FileRecord {
        namespace: row.get(0)?,
        path: row.get(1)?,
        root: row.get(2)?,
        shared: row.get(3)?,
        modified: row.get(4)?,
        size: row.get(5)?,
        hash: row.get(6)?,
        chunks: serde_json::from_str(&chunks).unwrap_or_default(),
        skipped: row.get(8)?,
    })
}

const COLUMNS: &str = "namespace, path, root, shared, modified, size, hash, chunks, skipped";

impl Index {
    /// The record of file `path` of `namespace`.
    pub fn file(&self, namespace: &str, path: &str) -> IndexResult<Option<FileRecord>> {
        Ok(self
            .conn()
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM files WHERE namespace = ?1 AND path = ?2"
            ))?
            .query_row(params![namespace, path], record)
            .optional()?)
    }

    /// Every file recorded under `root` for `namespace`.
    pub fn files_under(&self, namespace: &str, root: &str) -> IndexResult<Vec<FileRecord>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {COLUMNS} FROM files WHERE root = ?1 AND namespace = ?2 ORDER BY path"
        ))?;
        Ok(statement.query_map(params![root, namespace], record)?.collect::<Result<_, _>>()?)
    }

    /// The files recorded under `root` for `namespace` at `path`: the file
    /// there, or every file of the folder there (found by the primary
    /// key, not by reading every file of the root).
    pub fn files_at(
        &self,
        namespace: &str,
        root: &str,
        path: &str,
    ) -> IndexResult<Vec<FileRecord>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {COLUMNS} FROM files WHERE namespace = ?1 AND root = ?2
             AND (path = ?3 OR (path > ?4 AND path < ?5)) ORDER BY path"
        ))?;
        // Every path under the folder sorts between "folder/" and "folder0"
        // ('0' follows '/').
        let (under, past) = (format!("{path}/"), format!("{path}0"));
        Ok(statement
            .query_map(params![namespace, root, path, under, past], record)?
            .collect::<Result<_, _>>()?)
    }

    /// Every file recorded, of every root.
    pub fn all_files(&self) -> IndexResult<Vec<FileRecord>> {
        let mut statement =
            self.conn().prepare_cached(&format!("SELECT {COLUMNS} FROM files ORDER BY path"))?;
        Ok(statement.query_map([], record)?.collect::<Result<_, _>>()?)
    }

    /// Files, chunks and skipped files of `root` (of every root when
    /// `None`).
    pub fn file_counts(&self, root: Option<&str>) -> IndexResult<FileCounts> {
        let sql = "SELECT count(*), coalesce(sum(json_array_length(chunks)), 0),
                          count(skipped)
                   FROM files WHERE ?1 IS NULL OR root = ?1";
        Ok(self.conn().prepare_cached(sql)?.query_row([root], |row| {
            Ok(FileCounts { files: row.get(0)?, chunks: row.get(1)?, skipped: row.get(2)? })
        })?)
    }

    /// Skipped files with why (at most `limit`), of every root.
    pub fn skipped_files(&self, limit: usize) -> IndexResult<Vec<(String, String)>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT path, skipped FROM files WHERE skipped IS NOT NULL ORDER BY path LIMIT ?1",
        )?;
        Ok(statement
            .query_map([limit as i64], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?)
    }

    /// The file chunks of `namespace` whose file's path (relative to its
    /// watched folder) starts with `prefix`.
    pub fn chunks_under(&self, namespace: &str, prefix: &str) -> IndexResult<Vec<String>> {
        let tag = format!("{}{}", ferrex_core::chunk::FILE_TAG, prefix.trim_start_matches("./"));
        let mut statement = self.conn().prepare_cached(
            "SELECT m.id FROM memories m WHERE m.namespace = ?1 AND m.source = 'ferrex:file'
             AND EXISTS (SELECT 1 FROM json_each(m.tags) t
                         WHERE substr(t.value, 1, length(?2)) = ?2)
             ORDER BY m.id",
        )?;
        Ok(statement
            .query_map(params![namespace, tag], |row| row.get(0))?
            .collect::<Result<_, _>>()?)
    }

    /// The chunks of file `relative` (its path in its watched folder) of
    /// `namespace` that device `device` wrote to the documents: a shared
    /// file's chunks, found again when the `files` table was rebuilt.
    pub fn shared_chunks_of(
        &self,
        namespace: &str,
        relative: &str,
        device: &str,
    ) -> IndexResult<Vec<String>> {
        let tag = format!("{}{relative}", ferrex_core::chunk::FILE_TAG);
        let mut statement = self.conn().prepare_cached(
            "SELECT m.id FROM memories m WHERE m.namespace = ?1 AND m.source = 'ferrex:file'
             AND m.doc <> ?3 AND m.created_by = ?4
             AND EXISTS (SELECT 1 FROM json_each(m.tags) t WHERE t.value = ?2)
             ORDER BY m.id",
        )?;
        Ok(statement
            .query_map(params![namespace, tag, LOCAL_DOC, device], |row| row.get(0))?
            .collect::<Result<_, _>>()?)
    }

    /// The rows of `ids` that are file chunks with an embedded whole text,
    /// by content hash: vectors a re-read file can take instead of
    /// embedding text it already had (a moved file, a section moved within
    /// it).
    pub fn chunk_with_hash(&self, namespace: &str, hash: &str) -> IndexResult<Option<String>> {
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT id FROM memories WHERE namespace = ?1 AND kind = 'procedural'
                 AND content_hash = ?2 AND source = 'ferrex:file' AND embedded = 1 LIMIT 1",
            )?
            .query_row(params![namespace, hash], |row| row.get(0))
            .optional()?)
    }
}

impl IndexTx<'_> {
    /// Records what `file` held when it was read.
    pub fn put_file(&self, file: &FileRecord) -> IndexResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO files (namespace, path, root, shared, modified, size, hash,
                chunks, skipped) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                file.namespace,
                file.path,
                file.root,
                file.shared,
                file.modified,
                file.size,
                file.hash,
                serde_json::to_string(&file.chunks)?,
                file.skipped
            ],
        )?;
        Ok(())
    }

    /// The chunk ids file `path` of `namespace` had (none if unrecorded).
    pub fn file_chunks(&self, namespace: &str, path: &str) -> IndexResult<Vec<String>> {
        let chunks: Option<String> = self
            .query_row(
                "SELECT chunks FROM files WHERE namespace = ?1 AND path = ?2",
                params![namespace, path],
                |row| row.get(0),
            )
            .optional()?;
        Ok(chunks.and_then(|chunks| serde_json::from_str(&chunks).ok()).unwrap_or_default())
    }

    /// Forgets the record of file `path` of `namespace` (its chunks are
    /// the caller's).
    pub fn delete_file(&self, namespace: &str, path: &str) -> IndexResult<()> {
        self.execute(
            "DELETE FROM files WHERE namespace = ?1 AND path = ?2",
            params![namespace, path],
        )?;
        Ok(())
    }

    /// Writes the row of an unshared chunk (document [`LOCAL_DOC`]); its
    /// vector is the worker's, unless `vectors` come with it.
    pub fn put_local_chunk(
        &self,
        row: &MemoryRow,
        vectors: Option<&super::Vectors>,
    ) -> IndexResult<()> {
        let (rowid, upserted) = self.upsert_memory(row)?;
        if let (Some(vectors), super::write::Upserted::New | super::write::Upserted::TextChanged) =
            (vectors, upserted)
        {
            self.put_vector(rowid, &row.namespace, row.kind.as_str(), vectors, true)?;
        }
        Ok(())
    }
}
