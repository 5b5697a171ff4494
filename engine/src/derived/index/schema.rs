//! The index's tables.

use rusqlite::Connection;

use super::IndexResult;

/// Version of the index layout; an index of another version is rebuilt,
/// except one of `MIGRATES_FROM`, which is migrated in place.
pub const SCHEMA_VERSION: i64 = 7;

/// Passage vectors of memory `rowid` have row ids `rowid · PASSAGE_STRIDE + i`
/// (see `ferrex_core::passages`; fewer passages than the stride).
pub const PASSAGE_STRIDE: i64 = 32;

/// `memories.embedded` of a memory with no vector yet: dense search misses
/// it until the worker embeds it.
pub const NOT_EMBEDDED: i64 = 0;
/// `memories.embedded` of a memory with every vector its text needs.
pub const EMBEDDED: i64 = 1;
/// `memories.embedded` of a memory with its whole text's vector only, as a
/// store leaves it: found by meaning already, its passages still to come.
pub const WHOLE_ONLY: i64 = 2;
const _: () = assert!(ferrex_core::passages::MAX_PASSAGES < PASSAGE_STRIDE as usize);

/// The table of whole-text vectors (since schema version 7).
const MEMORY_FLOATS: &str =
    "CREATE TABLE memory_floats (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL);";

/// The schema version [`migrate`] brings to this one in place.
pub const MIGRATES_FROM: i64 = 6;

/// Brings an index of schema version `MIGRATES_FROM` to this one, in one
/// transaction: its whole-text vectors move from the vec0 table
/// `memory_vectors` to `memory_floats`, so an upgrade re-embeds nothing.
/// The pages the old table held stay in the file, free, and are reused as
/// the index grows (a VACUUM could renumber the rows of sqlite-vec's
/// metadata tables, whose `rowid` column is not the row id).
pub(crate) fn migrate(conn: &Connection) -> IndexResult<()> {
    conn.execute_batch(&format!(
        "
        BEGIN;
        {MEMORY_FLOATS}
        INSERT INTO memory_floats(rowid, embedding) SELECT rowid, embedding FROM memory_vectors;
        DROP TABLE memory_vectors;
        UPDATE meta SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version';
        COMMIT;
        "
    ))?;
    Ok(())
}

pub(crate) fn create(conn: &Connection, model_id: &str, dimension: usize) -> IndexResult<()> {
    let tokenizer = ferrex_core::rank::FTS_TOKENIZER;
    conn.execute_batch(&format!(
        "
        BEGIN;
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE doc_heads (doc TEXT PRIMARY KEY, heads TEXT NOT NULL);
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            doc TEXT NOT NULL,
            namespace TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            subject TEXT,
            predicate TEXT,
            object TEXT,
            subject_entity TEXT,
            predicate_written TEXT,
            -- A fact's predicate's cardinality as recorded with it (one, many).
            cardinality TEXT,
            confidence REAL NOT NULL,
            source TEXT,
            context TEXT,
            tags TEXT NOT NULL,
            entities TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            t_valid INTEGER NOT NULL,
            evidence INTEGER NOT NULL,
            last_validated INTEGER,
            access_count INTEGER NOT NULL,
            last_access INTEGER,
            content_hash TEXT NOT NULL,
            embedded INTEGER NOT NULL DEFAULT 0,
            -- How many passage vectors it has (see PASSAGE_STRIDE).
            passages INTEGER NOT NULL DEFAULT 0,
            -- The derived view (see ferrex_core::beliefs), kept up to date
            -- by the indexer: what the fact is about, whether it is current,
            -- contested or superseded, and whether it duplicates another.
            subject_key TEXT,
            -- The predicate its group is filed under: its own, or the
            -- canonical predicate of its class (same_predicate edges).
            predicate_key TEXT,
            status TEXT NOT NULL DEFAULT 'active',
            superseded_by TEXT NOT NULL DEFAULT '[]',
            contradicts TEXT NOT NULL DEFAULT '[]',
            t_invalid INTEGER,
            duplicate_of TEXT,
            corrected_by TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX memories_by_namespace ON memories(namespace, kind, created_at);
        CREATE INDEX memories_by_hash ON memories(namespace, kind, content_hash);
        CREATE INDEX memories_by_fact ON memories(namespace, subject_key, predicate_key);
        CREATE INDEX memories_by_predicate ON memories(namespace, predicate);
        -- Predicates joined to another by same_predicate edges (derived):
        -- only those whose canonical predicate is not themselves.
        CREATE TABLE predicate_classes (
            namespace TEXT NOT NULL,
            predicate TEXT NOT NULL,
            canonical TEXT NOT NULL,
            PRIMARY KEY (namespace, predicate)
        );
        -- What the worker still has to embed, by state (the queries name
        -- the state as a literal, so these partial indexes serve them).
        CREATE INDEX memories_not_embedded ON memories(embedded, namespace) WHERE embedded = 0;
        CREATE INDEX memories_whole_only ON memories(embedded, namespace) WHERE embedded = 2;
        CREATE VIRTUAL TABLE memory_text USING fts5(
            text, context, tokenize = '{tokenizer}'
        );
        -- A deleted row's terms leave the full-text index at once (with
        -- PRAGMA secure_delete, set on every connection, and a truncating
        -- checkpoint after a forget, no byte of a forgotten memory stays in
        -- the database or its WAL).
        INSERT INTO memory_text(memory_text, rank) VALUES ('secure-delete', 1);
        -- Each memory's whole-text vector, a row of its own: a candidate is
        -- ranked exactly by reading one row (a vec0 table keeps 1,024
        -- vectors in one blob, and reading one of them walks that blob's
        -- overflow pages up to it, which mapped most of the file into
        -- memory at 100k memories).
        {MEMORY_FLOATS}
        -- The sign bits of the same vectors: a store's judgements find
        -- close neighbours by them, then rank those exactly.
        CREATE VIRTUAL TABLE memory_bits USING vec0(
            namespace TEXT PARTITION KEY,
            embedding BIT[{dimension}],
            kind TEXT
        );
        -- The sentences of longer memories, each its own vector: searched
        -- by sign bits (fast), then rescored exactly from passage_floats.
        CREATE VIRTUAL TABLE passage_vectors USING vec0(
            namespace TEXT PARTITION KEY,
            embedding BIT[{dimension}],
            kind TEXT
        );
        CREATE TABLE passage_floats (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
        CREATE TABLE tombstones (
            id TEXT PRIMARY KEY, namespace TEXT NOT NULL, at INTEGER NOT NULL, by TEXT NOT NULL
        );
        CREATE TABLE entities (
            id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            doc TEXT NOT NULL,
            name TEXT NOT NULL,
            norm_name TEXT NOT NULL,
            kind TEXT,
            created_at INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            -- The oldest entity of its class (derived: same names, same_as edges).
            canonical TEXT NOT NULL
        );
        CREATE INDEX entities_by_namespace ON entities(namespace, norm_name);
        CREATE INDEX entities_by_canonical ON entities(canonical);
        -- This node's embeddings of entity names (local, like every vector).
        CREATE TABLE entity_vectors (id TEXT PRIMARY KEY, vector BLOB NOT NULL);
        CREATE TABLE aliases (
            key TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            entity_id TEXT NOT NULL,
            name TEXT NOT NULL,
            method TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            created_by TEXT NOT NULL
        );
        CREATE INDEX aliases_by_namespace ON aliases(namespace);
        CREATE INDEX aliases_by_entity ON aliases(entity_id);
        CREATE TABLE edges (
            key TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            kind TEXT NOT NULL,
            from_id TEXT NOT NULL,
            to_id TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            created_by TEXT NOT NULL
        );
        CREATE INDEX edges_from ON edges(from_id, kind);
        CREATE INDEX edges_to ON edges(to_id, kind);
        CREATE INDEX edges_by_kind ON edges(namespace, kind);
        -- Records of the documents this node cannot read yet: their key has
        -- not arrived from a peer. Indexed when it does.
        CREATE TABLE pending_keys (
            root TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (root, id)
        );
        CREATE TABLE access_local (
            id TEXT PRIMARY KEY,
            count INTEGER NOT NULL,
            last INTEGER NOT NULL,
            folded INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO meta(key, value) VALUES
            ('schema_version', '{SCHEMA_VERSION}'),
            ('dimension', '{dimension}'),
            ('complete', '0');
        COMMIT;
        "
    ))?;
    conn.execute("INSERT INTO meta(key, value) VALUES ('model_id', ?1)", [model_id])?;
    Ok(())
}
