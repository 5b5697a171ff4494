//! Read queries of the store, recall, reflect and history pipelines:
//! entities and their names, facts of a subject, exact duplicates, filters.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};

use super::{EMBEDDED, Index, IndexResult, MemoryRow, PASSAGE_STRIDE};

/// An entity with everything resolution needs.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityRow {
    /// Id.
    pub id: String,
    /// Name as first written.
    pub name: String,
    /// Its normalised name and aliases.
    pub names: Vec<String>,
    /// The canonical entity of its class.
    pub canonical: String,
    /// This node's embedding of its name, if computed.
    pub vector: Option<Vec<f32>>,
    /// The device that created it.
    pub created_by: String,
    /// When.
    pub created_at: i64,
}

/// Two predicates of one subject that may name one attribute, as predicate
/// resolution found them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateCandidate {
    /// The subject, as the newer fact names it.
    pub subject: String,
    /// The newer fact and its predicate.
    pub fact: (String, String),
    /// The older fact and the predicate it may mean.
    pub candidate: (String, String),
    /// The device that noticed.
    pub recorded_by: String,
}

/// A single-valued predicate whose values pile up on one subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardinalitySuspect {
    /// The subject, as its latest fact names it.
    pub subject: String,
    /// The predicate.
    pub predicate: String,
    /// Distinct values stored.
    pub values: usize,
    /// Of those, contested now.
    pub contested: usize,
    /// Hours between the first value and the last.
    pub hours: i64,
}

/// Two entities that may be one, as entity resolution found them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasCandidate {
    /// The entity.
    pub entity: String,
    /// Its name.
    pub entity_name: String,
    /// The entity it may be.
    pub candidate: String,
    /// That entity's name.
    pub candidate_name: String,
    /// The device that noticed.
    pub recorded_by: String,
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect()
}

impl Index {
    /// Every entity of `namespace`, with its aliases and vector.
    pub fn entities(&self, namespace: &str) -> IndexResult<Vec<EntityRow>> {
        self.entities_with(
            namespace,
            "SELECT e.id, e.name, e.norm_name, e.canonical, v.vector, e.created_by, e.created_at
             FROM entities e LEFT JOIN entity_vectors v ON v.id = e.id
             WHERE e.namespace = ?1 ORDER BY e.created_at, e.id",
        )
    }

    /// Every entity of `namespace`, with its aliases but without its vector
    /// (for matching by name, on every store of a fact or of changed text).
    pub fn entity_names(&self, namespace: &str) -> IndexResult<Vec<EntityRow>> {
        self.entities_with(
            namespace,
            "SELECT e.id, e.name, e.norm_name, e.canonical, NULL, e.created_by, e.created_at
             FROM entities e WHERE e.namespace = ?1 ORDER BY e.created_at, e.id",
        )
    }

    fn entities_with(&self, namespace: &str, query: &str) -> IndexResult<Vec<EntityRow>> {
        let mut statement = self.conn().prepare_cached(query)?;
        let mut entities: Vec<EntityRow> = statement
            .query_map([namespace], |row| {
                let vector: Option<Vec<u8>> = row.get(4)?;
                Ok(EntityRow {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    names: vec![row.get(2)?],
                    canonical: row.get(3)?,
                    vector: vector.map(|bytes| floats(&bytes)),
                    created_by: row.get(5)?,
                    created_at: row.get(6)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        let mut statement = self
            .conn()
            .prepare_cached("SELECT entity_id, name FROM aliases WHERE namespace = ?1")?;
        let aliases: Vec<(String, String)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let position: BTreeMap<String, usize> =
            entities.iter().enumerate().map(|(index, entity)| (entity.id.clone(), index)).collect();
        for (entity, alias) in aliases {
            if let Some(&index) = position.get(&entity) {
                let alias = ferrex_core::entity::normalise_name(&alias);
                if !entities[index].names.contains(&alias) {
                    entities[index].names.push(alias);
                }
            }
        }
        Ok(entities)
    }

    /// The entity `id`: its name and canonical entity.
    pub fn entity(&self, id: &str) -> IndexResult<Option<(String, String)>> {
        Ok(self
            .conn()
            .query_row("SELECT name, canonical FROM entities WHERE id = ?1", [id], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?)
    }

    /// Every entity of the class of canonical entity `canonical`.
    pub fn class_members(&self, canonical: &str) -> IndexResult<Vec<String>> {
        let mut statement = self
            .conn()
            .prepare_cached("SELECT id FROM entities WHERE canonical = ?1 ORDER BY id")?;
        let ids = statement.query_map([canonical], |row| row.get(0))?.collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// The predicates the facts of `namespace` use.
    pub fn predicates(&self, namespace: &str) -> IndexResult<Vec<String>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT DISTINCT predicate FROM memories
             WHERE namespace = ?1 AND kind = 'semantic' AND predicate IS NOT NULL ORDER BY predicate",
        )?;
        let predicates =
            statement.query_map([namespace], |row| row.get(0))?.collect::<Result<_, _>>()?;
        Ok(predicates)
    }

    /// The predicates the facts about subject `subject_key` are filed under.
    pub fn predicates_of(&self, namespace: &str, subject_key: &str) -> IndexResult<Vec<String>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT DISTINCT predicate_key FROM memories
             WHERE namespace = ?1 AND subject_key = ?2 AND kind = 'semantic'
             AND predicate_key IS NOT NULL ORDER BY predicate_key",
        )?;
        let predicates = statement
            .query_map(params![namespace, subject_key], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(predicates)
    }

    /// The facts about subject `subject_key`, whatever their predicate,
    /// oldest first; only those with one of `statuses`.
    pub fn facts_about(
        &self,
        namespace: &str,
        subject_key: &str,
        statuses: &[&str],
    ) -> IndexResult<Vec<MemoryRow>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {} FROM memories WHERE namespace = ?1 AND subject_key = ?2
             AND kind = 'semantic' ORDER BY t_valid, created_at, id",
            MemoryRow::COLUMNS
        ))?;
        let rows: Vec<MemoryRow> = statement
            .query_map(params![namespace, subject_key], MemoryRow::from_sql)?
            .collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .filter(|row| statuses.is_empty() || statuses.contains(&row.derived.status.as_str()))
            .collect())
    }

    /// The facts of a subject and predicate, oldest first; only those with
    /// one of `statuses` when given.
    pub fn facts(
        &self,
        namespace: &str,
        subject_key: &str,
        predicate: &str,
        statuses: &[&str],
    ) -> IndexResult<Vec<MemoryRow>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {} FROM memories WHERE namespace = ?1 AND subject_key = ?2
             AND predicate_key = coalesce(
                (SELECT canonical FROM predicate_classes WHERE namespace = ?1 AND predicate = ?3), ?3)
             AND kind = 'semantic' ORDER BY t_valid, created_at, id",
            MemoryRow::COLUMNS
        ))?;
        let rows: Vec<MemoryRow> = statement
            .query_map(params![namespace, subject_key, predicate], MemoryRow::from_sql)?
            .collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .filter(|row| statuses.is_empty() || statuses.contains(&row.derived.status.as_str()))
            .collect())
    }

    /// A memory of `namespace` and `kind` with content hash `hash` that stands
    /// (not superseded, corrected or itself a duplicate).
    pub fn by_hash(&self, namespace: &str, kind: &str, hash: &str) -> IndexResult<Option<String>> {
        // Asked at every store: prepared once (preparing it was most of its time).
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT id FROM memories WHERE namespace = ?1 AND kind = ?2 AND content_hash = ?3
                 AND status != 'superseded' AND corrected_by = '[]' AND duplicate_of IS NULL
                 AND coalesce(source, '') <> 'ferrex:file'
                 ORDER BY created_at, id LIMIT 1",
            )?
            .query_row(params![namespace, kind, hash], |row| row.get(0))
            .optional()?)
    }

    /// This node's vector of memory `id`, if it has one.
    pub fn vector(&self, id: &str) -> IndexResult<Option<Vec<f32>>> {
        let bytes: Option<Vec<u8>> = self
            .conn()
            .query_row(
                "SELECT f.embedding FROM memories m JOIN memory_floats f ON f.rowid = m.rowid
                 WHERE m.id = ?1",
                [id],
                |row| row.get(0),
            )
            .optional()?;
        Ok(bytes.map(|bytes| floats(&bytes)))
    }

    /// This node's vectors of memory `id`: its whole text's, then its
    /// passages' (empty when it has none yet).
    pub fn vectors(&self, id: &str) -> IndexResult<Vec<Vec<f32>>> {
        let Some(whole) = self.vector(id)? else { return Ok(Vec::new()) };
        // Passage rows of a memory are a contiguous range (PASSAGE_STRIDE).
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT f.embedding FROM memories m JOIN passage_floats f
                ON f.rowid >= m.rowid * {PASSAGE_STRIDE} AND f.rowid < (m.rowid + 1) * {PASSAGE_STRIDE}
             WHERE m.id = ?1 ORDER BY f.rowid"
        ))?;
        let mut vectors = vec![whole];
        for bytes in statement.query_map([id], |row| row.get::<_, Vec<u8>>(0))? {
            vectors.push(floats(&bytes?));
        }
        Ok(vectors)
    }

    /// Every vector of memory `id` (as [`Index::vectors`]) if it has them
    /// all and they were computed from content with `content_hash`: what a
    /// peer running the same model may take instead of embedding.
    pub fn complete_vectors(
        &self,
        id: &str,
        content_hash: &str,
    ) -> IndexResult<Option<Vec<Vec<f32>>>> {
        let passages: Option<i64> = self
            .conn()
            .prepare_cached(&format!(
                "SELECT passages FROM memories
                 WHERE id = ?1 AND content_hash = ?2 AND embedded = {EMBEDDED}"
            ))?
            .query_row([id, content_hash], |row| row.get(0))
            .optional()?;
        let Some(passages) = passages else { return Ok(None) };
        let vectors = self.vectors(id)?;
        Ok((vectors.len() as i64 == passages + 1).then_some(vectors))
    }

    /// Facts of `namespace` that contradict the current fact of their
    /// subject and predicate, grouped: `(subject_key, predicate)` → rows,
    /// current first.
    pub fn contradictions(&self, namespace: &str) -> IndexResult<Vec<Vec<MemoryRow>>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT DISTINCT subject_key, predicate_key FROM memories
             WHERE namespace = ?1 AND status = 'contested' ORDER BY subject_key, predicate_key",
        )?;
        let groups: Vec<(String, String)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut found = Vec::new();
        for (subject_key, predicate) in groups {
            let mut rows =
                self.facts(namespace, &subject_key, &predicate, &["current", "contested"])?;
            rows.sort_by(|a, b| {
                (b.derived.status == "current")
                    .cmp(&(a.derived.status == "current"))
                    .then_with(|| a.id.cmp(&b.id))
            });
            found.push(rows);
        }
        Ok(found)
    }

    /// Predicate candidates of `namespace` whose facts are not filed under
    /// one predicate (yet).
    pub fn predicate_candidates(&self, namespace: &str) -> IndexResult<Vec<PredicateCandidate>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT a.subject, a.id, a.predicate, b.id, b.predicate, e.created_by FROM edges e
             JOIN memories a ON a.id = e.from_id JOIN memories b ON b.id = e.to_id
             WHERE e.namespace = ?1 AND e.kind = 'predicate_candidate'
             AND a.predicate_key != b.predicate_key ORDER BY a.id, b.id",
        )?;
        let rows = statement
            .query_map([namespace], |row| {
                Ok(PredicateCandidate {
                    subject: row.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    fact: (row.get(1)?, row.get(2)?),
                    candidate: (row.get(3)?, row.get(4)?),
                    recorded_by: row.get(5)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Subjects whose single-valued predicate has at least `min_values`
    /// distinct values of which two or more are contested, or all stored
    /// within `burst_hours`: what a multi-valued predicate filed as
    /// single-valued looks like.
    pub fn cardinality_suspects(
        &self,
        namespace: &str,
        min_values: usize,
        burst_hours: i64,
    ) -> IndexResult<Vec<CardinalitySuspect>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT subject_key, predicate_key, count(DISTINCT lower(object)),
                    sum(status = 'contested'), (max(t_valid) - min(t_valid)) / 3600000
             FROM memories WHERE namespace = ?1 AND kind = 'semantic' AND duplicate_of IS NULL
             AND predicate_key IS NOT NULL
             GROUP BY subject_key, predicate_key HAVING count(DISTINCT lower(object)) >= ?2
             ORDER BY subject_key, predicate_key",
        )?;
        let groups: Vec<(String, String, i64, i64, i64)> = statement
            .query_map(params![namespace, min_values as i64], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
            })?
            .collect::<Result<_, _>>()?;
        let mut found = Vec::new();
        for (subject_key, predicate, values, contested, hours) in groups {
            if contested < 2 && hours > burst_hours {
                continue;
            }
            // As the derived view has it: the latest standing fact decides.
            let facts =
                self.facts(namespace, &subject_key, &predicate, &["current", "contested"])?;
            let Some(latest) =
                facts.iter().max_by(|a, b| (a.t_valid, &a.id).cmp(&(b.t_valid, &b.id)))
            else {
                continue;
            };
            let single = latest.cardinality.as_deref().map_or_else(
                || ferrex_core::predicate::default_cardinality(&predicate).as_str() == "one",
                |cardinality| cardinality == "one",
            );
            if single {
                found.push(CardinalitySuspect {
                    subject: latest.subject.clone().unwrap_or_default(),
                    predicate,
                    values: values as usize,
                    contested: contested as usize,
                    hours,
                });
            }
        }
        Ok(found)
    }

    /// Alias candidates of `namespace` whose entities are not one yet.
    pub fn alias_candidates(&self, namespace: &str) -> IndexResult<Vec<AliasCandidate>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT a.id, a.name, b.id, b.name, e.created_by FROM edges e
             JOIN entities a ON a.id = e.from_id JOIN entities b ON b.id = e.to_id
             WHERE e.namespace = ?1 AND e.kind = 'alias_candidate' AND a.canonical != b.canonical
             ORDER BY a.id, b.id",
        )?;
        let rows = statement
            .query_map([namespace], |row| {
                Ok(AliasCandidate {
                    entity: row.get(0)?,
                    entity_name: row.get(1)?,
                    candidate: row.get(2)?,
                    candidate_name: row.get(3)?,
                    recorded_by: row.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The edges of `kind` that start or end at `id`: `(from, to)`.
    pub fn edges_of(&self, id: &str, kind: &str) -> IndexResult<Vec<(String, String)>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT from_id, to_id FROM edges WHERE kind = ?2 AND (from_id = ?1 OR to_id = ?1)
             ORDER BY from_id, to_id",
        )?;
        let edges = statement
            .query_map(params![id, kind], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(edges)
    }
}
