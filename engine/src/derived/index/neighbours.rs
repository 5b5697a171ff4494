//! What recall reaches through the graph from its best candidates: the
//! memories one step away by a link between memories, or by an entity they
//! share (an entity's class, and the classes an entity relation joins to
//! it). Read from the `links` table and the memories' entities, so every
//! node with the same documents reaches the same memories.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, OptionalExtension, params};

use super::{
    Index, IndexResult,
    links::{ENTITY_ENDS, MEMORY_ENDS},
};

/// At most this many entity classes are followed from one set of seeds
/// (those the seeds mention first, then those relations join to them).
const MAX_CLASSES: usize = 32;

/// A memory one step from a seed, and the seed it is counted for: the
/// first seed a link joins it to, else the seed that mentions (or whose
/// entity a relation joins to) the first entity class that reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    /// The memory reached.
    pub id: String,
    /// The seed it was reached from.
    pub from: String,
    /// Whether a link between memories joins the two (else an entity).
    pub linked: bool,
}

impl Index {
    /// The memories of `namespace` one step in the graph from `seeds`
    /// (best first): the other end of a link between memories that a seed
    /// is an end of (or the two ends of a seed that is such a link), then
    /// the memories that mention an entity a seed mentions, then those of
    /// an entity that a relation joins to one (newest first within each). An entity's whole class counts as it.
    /// A class mentioned by more than `hub_limit` memories brings none of
    /// them (it tells little, and ranking them would cost in proportion). Only
    /// live memories that are neither duplicates nor superseded; a seed is
    /// reached only from another seed.
    pub fn neighbours(
        &self,
        namespace: &str,
        seeds: &[String],
        hub_limit: usize,
    ) -> IndexResult<Vec<Neighbour>> {
        self.in_one_read(|conn| {
            let mut reached: Vec<Neighbour> = Vec::new();
            let mut seen: BTreeSet<String> = BTreeSet::new();
            let mut add = |id: String, from: &str, linked: bool, reached: &mut Vec<Neighbour>| {
                if id != from && seen.insert(id.clone()) {
                    reached.push(Neighbour { id, from: from.to_owned(), linked });
                }
            };
            // Each seed's classes, in seed order.
            let mut classes: Vec<(String, String)> = Vec::new();
            let mut known: BTreeSet<String> = BTreeSet::new();
            for seed in seeds {
                let Some(entities) = mentioned(conn, namespace, seed)? else { continue };
                for other in linked_memories(conn, seed)? {
                    if live(conn, namespace, &other)? {
                        add(other, seed, true, &mut reached);
                    }
                }
                for entity in entities {
                    if let Some(class) = class_of(conn, &entity)?
                        && known.insert(class.clone())
                    {
                        classes.push((class, seed.clone()));
                    }
                }
            }
            // One relation away, from the classes the seeds mention, while
            // there is room.
            let direct = classes.len();
            'relations: for at in 0..direct {
                let (class, seed) = classes[at].clone();
                // The classes a current relation joins to it, in order.
                let related: BTreeSet<String> = self
                    .entity_links(&class)?
                    .into_iter()
                    .map(|link| if link.from == class { link.to } else { link.from })
                    .filter(|other| *other != class)
                    .collect();
                for other in related {
                    if classes.len() >= MAX_CLASSES {
                        break 'relations;
                    }
                    if known.insert(other.clone()) {
                        classes.push((other, seed.clone()));
                    }
                }
            }
            classes.truncate(MAX_CLASSES);
            if classes.is_empty() {
                return Ok(reached);
            }
            // Entity id → the class it belongs to.
            let mut member_of: BTreeMap<String, usize> = BTreeMap::new();
            for (position, (class, _)) in classes.iter().enumerate() {
                let mut statement =
                    conn.prepare_cached("SELECT id FROM entities WHERE canonical = ?1")?;
                let members = statement.query_map([class], |row| row.get::<_, String>(0))?;
                for member in members {
                    member_of.insert(member?, position);
                }
            }
            // The memories that mention a member, with the classes they do,
            // newest first. (One scan of the namespace's memories: a
            // memory's entities are a JSON list, which no index reaches.)
            let members: Vec<&String> = member_of.keys().collect();
            let mut statement = conn.prepare_cached(
                "SELECT m.id, m.subject_entity, m.entities FROM memories m
                 WHERE m.namespace = ?1 AND m.duplicate_of IS NULL AND m.status != 'superseded'
                   AND (m.subject_entity IN (SELECT value FROM json_each(?2)) OR EXISTS (
                       SELECT 1 FROM json_each(m.entities)
                       WHERE json_each.value IN (SELECT value FROM json_each(?2))))
                 ORDER BY m.created_at DESC, m.id",
            )?;
            let mut by_class: Vec<Vec<String>> = vec![Vec::new(); classes.len()];
            let rows = statement
                .query_map(params![namespace, serde_json::to_string(&members)?], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?, row.get(2)?))
                })?;
            for row in rows {
                let (id, subject, entities): (String, Option<String>, String) = row?;
                let named: Vec<String> = serde_json::from_str(&entities).unwrap_or_default();
                let positions: BTreeSet<usize> = subject
                    .iter()
                    .chain(&named)
                    .filter_map(|entity| member_of.get(entity).copied())
                    .collect();
                for position in positions {
                    by_class[position].push(id.clone());
                }
            }
            for ((_, seed), memories) in classes.iter().zip(by_class) {
                if memories.len() > hub_limit {
                    continue;
                }
                for id in memories {
                    add(id, seed, false, &mut reached);
                }
            }
            Ok(reached)
        })
    }
}

/// The entities memory `id` of `namespace` mentions (as an entity, as a
/// fact's subject, as an end of the relation it states), or `None` when it
/// is not a live memory there.
fn mentioned(conn: &Connection, namespace: &str, id: &str) -> IndexResult<Option<Vec<String>>> {
    let row: Option<(Option<String>, String)> = conn
        .prepare_cached(
            "SELECT subject_entity, entities FROM memories WHERE id = ?1 AND namespace = ?2",
        )?
        .query_row(params![id, namespace], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((subject, entities)) = row else { return Ok(None) };
    let mut mentioned: Vec<String> = subject.into_iter().collect();
    mentioned.extend(serde_json::from_str::<Vec<String>>(&entities).unwrap_or_default());
    let mut statement =
        conn.prepare_cached("SELECT from_id, to_id FROM links WHERE memory_id = ?1 AND ends = ?2")?;
    let ends = statement.query_map(params![id, ENTITY_ENDS], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
    })?;
    for end in ends {
        let (from, to) = end?;
        mentioned.extend([from, to]);
    }
    mentioned.sort();
    mentioned.dedup();
    Ok(Some(mentioned))
}

/// The memories a current link between memories joins to `id`, and the
/// two ends of `id` when it is such a link.
fn linked_memories(conn: &Connection, id: &str) -> IndexResult<Vec<String>> {
    let mut statement = conn.prepare_cached(
        "SELECT CASE WHEN l.memory_id = ?1 THEN l.from_id ELSE l.to_id END
         FROM links l JOIN memories m ON m.id = l.memory_id AND m.status != 'superseded'
         WHERE l.ends = ?2 AND (l.from_id = ?1 OR l.memory_id = ?1)
         UNION ALL
         SELECT CASE WHEN l.memory_id = ?1 THEN l.to_id ELSE l.from_id END
         FROM links l JOIN memories m ON m.id = l.memory_id AND m.status != 'superseded'
         WHERE l.ends = ?2 AND (l.to_id = ?1 OR l.memory_id = ?1)
         ORDER BY 1",
    )?;
    let ids = statement.query_map(params![id, MEMORY_ENDS], |row| row.get(0))?;
    Ok(ids.collect::<Result<_, _>>()?)
}

/// Whether memory `id` is in `namespace`, live, and neither a duplicate nor
/// superseded.
fn live(conn: &Connection, namespace: &str, id: &str) -> IndexResult<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM memories WHERE id = ?1 AND namespace = ?2
                 AND duplicate_of IS NULL AND status != 'superseded')",
        )?
        .query_row(params![id, namespace], |row| row.get(0))?)
}

/// The canonical entity of entity `id`'s class.
fn class_of(conn: &Connection, id: &str) -> IndexResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT canonical FROM entities WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?)
}
