//! The knowledge graph's edges as the index keeps them: one row per fact
//! that joins two nodes. A `link` between entities, and any fact whose
//! subject is an entity and whose object names one (`ferrex depends_on
//! automerge`), join two entities; a `link` between memories joins two
//! memories. Rows are derived from memories as they are indexed, and go
//! with them; the walk joins them to live memories and entities, so an end
//! that was forgotten (here, or on a device this one merged) is no edge.

use rusqlite::{OptionalExtension, params};

use super::{Index, IndexResult, MemoryRow, write::IndexTx};
use ferrex_core::{MemoryKind, entity::normalise_name, walk::LINK_SOURCE};

/// Created on every open (derived like the rest: an index from before it
/// fills it from its facts, see [`create`]).
const LINKS: &str = "
    CREATE TABLE links (
        memory_id TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        relation TEXT NOT NULL,
        from_id TEXT NOT NULL,
        to_id TEXT NOT NULL,
        -- 'entity' or 'memory': what the two ends are.
        ends TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX links_from ON links(from_id, relation);
    CREATE INDEX links_to ON links(to_id, relation);
    CREATE INDEX links_between_memories ON links(from_id, to_id) WHERE ends = 'memory';";

/// The oldest entity of a namespace with a normalised name (`?1`, `?2`):
/// its id and its class's canonical entity.
const ENTITY_NAMED: &str =
    "SELECT id, canonical FROM entities WHERE namespace = ?1 AND norm_name = ?2
     ORDER BY created_at, id LIMIT 1";

/// What the two ends of a link are.
pub const ENTITY_ENDS: &str = "entity";
/// What the two ends of a link between memories are.
pub const MEMORY_ENDS: &str = "memory";

/// Creates the table when missing, and then fills it from the facts the
/// index holds.
pub(super) fn create(conn: &rusqlite::Connection) -> IndexResult<()> {
    // What a merged forget takes with it is looked up after every merge:
    // these keep that to the links between memories and the versions.
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS edges_versions ON edges(to_id, from_id)
             WHERE kind = 'version_of';",
    )?;
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'links')",
        [],
        |row| row.get(0),
    )?;
    if exists {
        return Ok(());
    }
    let tx = conn.unchecked_transaction()?;
    tx.execute_batch(LINKS)?;
    let facts: Vec<Fact> = {
        let mut statement = tx.prepare(
            "SELECT id, namespace, predicate, subject, object, subject_entity, source, entities
             FROM memories WHERE kind = 'semantic'",
        )?;
        let rows = statement.query_map([], |row| {
            let entities: String = row.get(7)?;
            Ok(Fact {
                id: row.get(0)?,
                namespace: row.get(1)?,
                predicate: row.get(2)?,
                subject: row.get(3)?,
                object: row.get(4)?,
                subject_entity: row.get(5)?,
                source: row.get(6)?,
                entities: serde_json::from_str(&entities).unwrap_or_default(),
            })
        })?;
        rows.collect::<Result<_, _>>()?
    };
    for fact in &facts {
        insert(&tx, fact)?;
    }
    tx.commit()?;
    Ok(())
}

/// The parts of a fact its link is derived from.
struct Fact {
    id: String,
    namespace: String,
    predicate: String,
    subject: String,
    object: String,
    subject_entity: Option<String>,
    source: Option<String>,
    entities: Vec<String>,
}

/// Inserts the link fact `fact` makes, if it makes one.
fn insert(conn: &rusqlite::Connection, fact: &Fact) -> IndexResult<()> {
    let link = fact.source.as_deref() == Some(LINK_SOURCE);
    let (from, to, ends) = match &fact.subject_entity {
        None if link => (fact.subject.clone(), fact.object.clone(), MEMORY_ENDS),
        None => return Ok(()),
        Some(subject) => {
            let to = if link {
                fact.entities.first().cloned()
            } else {
                conn.prepare_cached(ENTITY_NAMED)?
                    .query_row(params![fact.namespace, normalise_name(&fact.object)], |row| {
                        row.get(0)
                    })
                    .optional()?
            };
            let Some(to) = to else { return Ok(()) };
            (subject.clone(), to, ENTITY_ENDS)
        }
    };
    conn.prepare_cached(
        "INSERT OR REPLACE INTO links (memory_id, namespace, relation, from_id, to_id, ends)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![fact.id, fact.namespace, fact.predicate, from, to, ends])?;
    Ok(())
}

impl IndexTx<'_> {
    /// Derives the link of memory `row` (none for text, or for a fact that
    /// joins no two nodes).
    pub(crate) fn put_link(&self, row: &MemoryRow) -> IndexResult<()> {
        // Text never has a link row (and a memory's kind never changes
        // under its id): nothing to write on the path of every text upsert.
        if row.kind != MemoryKind::Semantic {
            return Ok(());
        }
        self.execute("DELETE FROM links WHERE memory_id = ?1", [&row.id])?;
        let (Some(predicate), Some(subject), Some(object)) =
            (&row.predicate, &row.subject, &row.object)
        else {
            return Ok(());
        };
        let fact = Fact {
            id: row.id.clone(),
            namespace: row.namespace.clone(),
            predicate: predicate.clone(),
            subject: subject.clone(),
            object: object.clone(),
            subject_entity: row.subject_entity.clone(),
            source: row.source.clone(),
            entities: row.entities.clone(),
        };
        insert(self.tx, &fact)
    }
}

/// One statement of an edge at a node, as the index has it.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRow {
    /// The relation type.
    pub relation: String,
    /// Source node: an entity's canonical id, or a memory id.
    pub from: String,
    /// Target node.
    pub to: String,
    /// The memory that states it (or, for ferrex's own edges between
    /// memories, the edge's key).
    pub statement: String,
    /// How often it was stated (the statement's evidence).
    pub evidence: i64,
    /// The device that stated it.
    pub by: String,
}

impl Index {
    /// The edges at entity class `canonical`, both ends as canonical ids,
    /// from facts that are not superseded.
    pub fn entity_links(&self, canonical: &str) -> IndexResult<Vec<LinkRow>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT l.relation, ef.canonical, et.canonical, l.memory_id, m.evidence, m.created_by
             FROM links l
             JOIN entities ef ON ef.id = l.from_id
             JOIN entities et ON et.id = l.to_id
             JOIN memories m ON m.id = l.memory_id
             WHERE l.ends = 'entity' AND m.status != 'superseded'
               AND (l.from_id IN (SELECT id FROM entities WHERE canonical = ?1)
                 OR l.to_id IN (SELECT id FROM entities WHERE canonical = ?1))",
        )?;
        let rows = statement.query_map([canonical], link_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The edges at memory `id` whose other end is a live memory: links
    /// between memories, and ferrex's own supersessions and corrections.
    pub fn memory_links(&self, id: &str) -> IndexResult<Vec<LinkRow>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT l.relation, l.from_id, l.to_id, l.memory_id, m.evidence, m.created_by
             FROM links l JOIN memories m ON m.id = l.memory_id
             WHERE l.ends = 'memory' AND m.status != 'superseded'
               AND (l.from_id = ?1 OR l.to_id = ?1)
               AND EXISTS (SELECT 1 FROM memories f WHERE f.id = l.from_id)
               AND EXISTS (SELECT 1 FROM memories t WHERE t.id = l.to_id)
             UNION ALL
             SELECT e.kind, e.from_id, e.to_id, e.key, 1, e.created_by FROM edges e
             WHERE e.kind IN ('supersedes', 'corrects') AND (e.from_id = ?1 OR e.to_id = ?1)
               AND EXISTS (SELECT 1 FROM memories f WHERE f.id = e.from_id)
               AND EXISTS (SELECT 1 FROM memories t WHERE t.id = e.to_id)",
        )?;
        let rows = statement.query_map([id], link_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The current statements of `relation` from `from` to `to` in
    /// `namespace` (entity ends compared by class, and given as canonical
    /// ids), oldest first, with their source: what `link` reinforces, and
    /// the edge it answers.
    pub fn pair_links(
        &self,
        namespace: &str,
        relation: &str,
        from: &str,
        to: &str,
        ends: &str,
    ) -> IndexResult<Vec<(LinkRow, Option<String>)>> {
        let sql = if ends == ENTITY_ENDS {
            "SELECT l.relation, ef.canonical, et.canonical, l.memory_id, m.evidence, m.created_by,
                    m.source
             FROM links l
             JOIN memories m ON m.id = l.memory_id
             JOIN entities ef ON ef.id = l.from_id
             JOIN entities et ON et.id = l.to_id
             WHERE l.namespace = ?1 AND l.relation = ?2 AND l.ends = 'entity'
               AND m.status != 'superseded'
               AND ef.canonical = (SELECT canonical FROM entities WHERE id = ?3)
               AND et.canonical = (SELECT canonical FROM entities WHERE id = ?4)
             ORDER BY m.created_at, l.memory_id"
        } else {
            "SELECT l.relation, l.from_id, l.to_id, l.memory_id, m.evidence, m.created_by, m.source
             FROM links l JOIN memories m ON m.id = l.memory_id
             WHERE l.namespace = ?1 AND l.relation = ?2 AND l.ends = 'memory'
               AND l.from_id = ?3 AND l.to_id = ?4 AND m.status != 'superseded'
             ORDER BY m.created_at, l.memory_id"
        };
        let mut statement = self.conn().prepare_cached(sql)?;
        let rows = statement.query_map(params![namespace, relation, from, to], |row| {
            Ok((link_row(row)?, row.get(6)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether memory `id` has a tombstone here.
    pub fn is_forgotten(&self, id: &str) -> IndexResult<bool> {
        Ok(self
            .conn()
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM tombstones WHERE id = ?1)")?
            .query_row([id], |row| row.get(0))?)
    }

    /// The canonical entity of the class of the entities of `namespace`
    /// named `norm_name` (normalised), if any.
    pub fn canonical_named(&self, namespace: &str, norm_name: &str) -> IndexResult<Option<String>> {
        Ok(self
            .conn()
            .prepare_cached(ENTITY_NAMED)?
            .query_row(params![namespace, norm_name], |row| row.get(1))
            .optional()?)
    }

    /// Every name the class of canonical entity `canonical` is known by:
    /// its entities' names and their aliases, as written.
    pub fn class_names(&self, canonical: &str) -> IndexResult<Vec<String>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT name FROM entities WHERE canonical = ?1
             UNION
             SELECT a.name FROM aliases a JOIN entities e ON e.id = a.entity_id
             WHERE e.canonical = ?1",
        )?;
        let rows = statement.query_map([canonical], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The kind of entity `id` (`person`, `service`, ...), if known.
    pub fn entity_kind(&self, id: &str) -> IndexResult<Option<String>> {
        Ok(self
            .conn()
            .prepare_cached("SELECT kind FROM entities WHERE id = ?1")?
            .query_row([id], |row| row.get(0))
            .optional()?
            .flatten())
    }

    /// Live links between memories that name one of `ids` as an end: they
    /// go when the memory does.
    pub fn links_naming(&self, ids: &[String]) -> IndexResult<Vec<String>> {
        let mut found = Vec::new();
        let mut statement = self.conn().prepare_cached(
            "SELECT memory_id FROM links WHERE ends = 'memory' AND (from_id = ?1 OR to_id = ?1)",
        )?;
        for id in ids {
            let rows = statement.query_map([id], |row| row.get::<_, String>(0))?;
            for row in rows {
                found.push(row?);
            }
        }
        found.sort();
        found.dedup();
        Ok(found)
    }

    /// Live memories that a forgotten memory takes with it: links between
    /// memories with a forgotten end, and versions of a forgotten memory.
    pub fn orphaned_by_forgetting(&self) -> IndexResult<Vec<String>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT l.memory_id FROM links l WHERE l.ends = 'memory'
               AND (EXISTS (SELECT 1 FROM tombstones t WHERE t.id = l.from_id)
                 OR EXISTS (SELECT 1 FROM tombstones t WHERE t.id = l.to_id))
             UNION
             SELECT e.from_id FROM edges e
             WHERE e.kind = 'version_of'
               AND EXISTS (SELECT 1 FROM tombstones t WHERE t.id = e.to_id)
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = e.from_id)
             UNION
             SELECT e.to_id FROM edges e
             WHERE e.kind = 'version_of'
               AND EXISTS (SELECT 1 FROM tombstones t WHERE t.id = e.from_id)
               AND EXISTS (SELECT 1 FROM memories m WHERE m.id = e.to_id)",
        )?;
        let rows = statement.query_map([], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Live memories joined to any of `ids` by `version_of` edges, either
    /// way, transitively: every version of them.
    pub fn versions_of(&self, ids: &[String]) -> IndexResult<Vec<String>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT e.from_id FROM edges e WHERE e.kind = 'version_of' AND e.to_id = ?1
             UNION SELECT e.to_id FROM edges e WHERE e.kind = 'version_of' AND e.from_id = ?1",
        )?;
        let mut seen: std::collections::BTreeSet<String> = ids.iter().cloned().collect();
        let mut frontier: Vec<String> = ids.to_vec();
        // Bounded: each id is visited once.
        while let Some(id) = frontier.pop() {
            let rows = statement.query_map([&id], |row| row.get::<_, String>(0))?;
            for row in rows {
                let other = row?;
                if seen.insert(other.clone()) {
                    frontier.push(other);
                }
            }
        }
        let mut live = Vec::new();
        for id in seen {
            if !ids.contains(&id) && self.row(&id)?.is_some() {
                live.push(id);
            }
        }
        Ok(live)
    }
}

fn link_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<LinkRow> {
    Ok(LinkRow {
        relation: row.get(0)?,
        from: row.get(1)?,
        to: row.get(2)?,
        statement: row.get(3)?,
        evidence: row.get(4)?,
        by: row.get(5)?,
    })
}
