//! Keeping the derived view in the index: entity classes, each fact's
//! subject, which facts are current, contested or superseded, which text
//! was corrected, and which memories are exact duplicates.
//!
//! The decisions are `ferrex_core`'s pure functions over document content
//! projected into the index (memories, entities, edges), never over local
//! embeddings or clocks, so every node with the same document heads writes
//! the same columns. The indexer collects what a change touched in a
//! [`Touched`]; [`IndexTx::rederive`] recomputes just those groups.

use std::collections::{BTreeMap, BTreeSet};

use ferrex_core::{
    Timestamp,
    beliefs::{self, DuplicateNode, FactNode},
    entity::{self, EntityNode},
    predicate,
};
use rusqlite::{OptionalExtension, params};

use super::{IndexResult, IndexTx};

/// What a change touched, for the derived view.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Touched {
    /// Namespaces whose entity classes may have changed (all their facts are
    /// re-keyed).
    pub entity_namespaces: BTreeSet<String>,
    /// Entities whose record newly appeared: a fact indexed before its
    /// subject's record could be read (its key not yet arrived) is filed
    /// under the name until then, and is re-keyed.
    pub new_entities: BTreeSet<String>,
    /// Namespaces whose predicate classes may have changed.
    pub predicate_namespaces: BTreeSet<String>,
    /// Semantic memories whose subject key must be (re)computed.
    pub facts: BTreeSet<String>,
    /// `(namespace, subject key, predicate key)` groups to re-derive.
    pub fact_groups: BTreeSet<(String, String, String)>,
    /// `(namespace, kind, content hash)` duplicate groups to re-derive.
    pub duplicate_groups: BTreeSet<(String, String, String)>,
    /// Memories whose incoming `supersedes` or `corrects` edges may have
    /// changed (their status when they are not facts, their corrections).
    pub targets: BTreeSet<String>,
}

/// A memory's groups: namespace, kind, content hash, subject key, predicate key.
type Groups = (String, String, String, Option<String>, Option<String>);
/// A fact's subject: namespace, subject, predicate, the subject entity's class.
type Subject = (String, Option<String>, Option<String>, Option<String>);
/// Edges `(from, to)` and the validity of each live source.
type LiveEdges = (Vec<(String, String)>, BTreeMap<String, Timestamp>);

fn json_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}

impl IndexTx<'_> {
    /// Records the groups memory `id` belongs to now (call before and after
    /// changing it, so both its old and its new groups are re-derived).
    /// A memory the index does not hold belongs to none, and is no live
    /// source of any edge (`live_edges_into` joins the memories).
    pub fn touch_memory(&self, id: &str, touched: &mut Touched) -> IndexResult<()> {
        let row: Option<Groups> = self.query_row(
                "SELECT namespace, kind, content_hash, subject_key, predicate_key FROM memories WHERE id = ?1",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)),
            )
            .optional()?;
        let Some((namespace, kind, hash, subject_key, predicate)) = row else { return Ok(()) };
        if kind == "semantic" {
            touched.facts.insert(id.to_owned());
            // Predicate classes depend on the facts their edges join being alive.
            let mut statement = self.tx.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM edges WHERE kind = 'same_predicate'
                 AND (from_id = ?1 OR to_id = ?1))",
            )?;
            if statement.query_row([id], |row| row.get::<_, bool>(0))? {
                touched.predicate_namespaces.insert(namespace.clone());
            }
            if let (Some(subject_key), Some(predicate)) = (subject_key, predicate) {
                touched.fact_groups.insert((namespace.clone(), subject_key, predicate));
            }
        }
        touched.duplicate_groups.insert((namespace, kind, hash));
        // Memories this one supersedes or corrects depend on it being alive.
        // (The kinds are told apart here: an `IN` list in the query made
        // SQLite open an ephemeral table for every memory touched.)
        let mut statement =
            self.tx.prepare_cached("SELECT to_id, kind FROM edges WHERE from_id = ?1")?;
        let edges: Vec<(String, String)> = statement
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (target, kind) in edges {
            if kind == "supersedes" || kind == "corrects" {
                self.touch_target(&target, touched)?;
            }
        }
        Ok(())
    }

    /// Records that the incoming edges of memory `id` changed (or may have:
    /// an edge can arrive before the memory it points at).
    pub fn touch_target(&self, id: &str, touched: &mut Touched) -> IndexResult<()> {
        touched.targets.insert(id.to_owned());
        let text: Option<(String, String, String)> = self.query_row(
                "SELECT namespace, kind, content_hash FROM memories WHERE id = ?1 AND kind != 'semantic'",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()?;
        if let Some(group) = text {
            // Whether it may stand for its duplicates depends on its edges.
            touched.duplicate_groups.insert(group);
        }
        let group: Option<(String, Option<String>, Option<String>)> = self.query_row(
                "SELECT namespace, subject_key, predicate_key FROM memories WHERE id = ?1 AND kind = 'semantic'",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()?;
        if let Some((namespace, Some(subject_key), Some(predicate))) = group {
            touched.fact_groups.insert((namespace, subject_key, predicate));
        }
        Ok(())
    }

    /// Recomputes the derived view of everything `touched` names.
    pub fn rederive(&self, mut touched: Touched) -> IndexResult<()> {
        for namespace in std::mem::take(&mut touched.entity_namespaces) {
            // Only facts about entities whose class changed move groups.
            let moved = self.rederive_entity_classes(&namespace)?;
            let mut statement = self.tx.prepare_cached(
                "SELECT id FROM memories WHERE subject_entity = ?1 AND kind = 'semantic'",
            )?;
            for entity in moved {
                let facts: Vec<String> =
                    statement.query_map([&entity], |row| row.get(0))?.collect::<Result<_, _>>()?;
                for fact in facts {
                    self.touch_memory(&fact, &mut touched)?;
                }
            }
        }
        // And facts about a new entity still filed under a name: only the
        // namespace's facts keyed `name:…` are read (a range of
        // `memories_by_fact`), not every memory.
        let mut statement = self.tx.prepare_cached(
            "SELECT m.id FROM entities e JOIN memories m ON m.namespace = e.namespace
             WHERE e.id = ?1 AND m.subject_key >= 'name:' AND m.subject_key < 'name;'
             AND m.subject_entity = e.id AND m.kind = 'semantic'",
        )?;
        for entity in std::mem::take(&mut touched.new_entities) {
            let facts: Vec<String> =
                statement.query_map([&entity], |row| row.get(0))?.collect::<Result<_, _>>()?;
            for fact in facts {
                self.touch_memory(&fact, &mut touched)?;
            }
        }
        for namespace in std::mem::take(&mut touched.predicate_namespaces) {
            for fact in self.rederive_predicate_classes(&namespace)? {
                // Its old group now, its new one when it is re-keyed below.
                self.touch_memory(&fact, &mut touched)?;
            }
        }
        for fact in std::mem::take(&mut touched.facts) {
            if let Some(group) = self.rekey_fact(&fact)? {
                touched.fact_groups.insert(group);
            }
        }
        for (namespace, subject_key, predicate) in &touched.fact_groups {
            self.rederive_fact_group(namespace, subject_key, predicate)?;
        }
        for target in &touched.targets {
            self.rederive_target(target)?;
        }
        for (namespace, kind, hash) in &touched.duplicate_groups {
            self.rederive_duplicates(namespace, kind, hash)?;
        }
        Ok(())
    }

    /// Recomputes everything derived in `namespace` (after a rebuild).
    pub fn rederive_namespace(&self, namespace: &str) -> IndexResult<()> {
        let mut touched = Touched::default();
        touched.entity_namespaces.insert(namespace.to_owned());
        touched.predicate_namespaces.insert(namespace.to_owned());
        let mut statement = self
            .tx
            .prepare("SELECT id FROM memories WHERE namespace = ?1 AND kind = 'semantic'")?;
        let facts: Vec<String> =
            statement.query_map([namespace], |row| row.get(0))?.collect::<Result<_, _>>()?;
        for fact in facts {
            self.touch_memory(&fact, &mut touched)?;
        }
        let mut statement = self.tx.prepare(
            "SELECT kind, content_hash FROM memories WHERE namespace = ?1
             GROUP BY kind, content_hash HAVING count(*) > 1",
        )?;
        let groups: Vec<(String, String)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (kind, hash) in groups {
            touched.duplicate_groups.insert((namespace.to_owned(), kind, hash));
        }
        let mut statement = self.tx.prepare(
            "SELECT DISTINCT to_id FROM edges WHERE namespace = ?1 AND kind IN ('supersedes', 'corrects')",
        )?;
        let targets: Vec<String> =
            statement.query_map([namespace], |row| row.get(0))?.collect::<Result<_, _>>()?;
        touched.targets.extend(targets);
        self.rederive(touched)
    }

    /// Recomputes the classes of `namespace`'s entities; returns the
    /// entities whose canonical entity changed.
    fn rederive_entity_classes(&self, namespace: &str) -> IndexResult<Vec<String>> {
        let mut statement = self.tx.prepare_cached(
            "SELECT id, norm_name, created_at, canonical FROM entities WHERE namespace = ?1",
        )?;
        let rows: Vec<(String, String, i64, String)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))?
            .collect::<Result<_, _>>()?;
        let nodes: Vec<EntityNode> = rows
            .iter()
            .map(|(id, name, at, _)| EntityNode {
                id: id.clone(),
                name: name.clone(),
                created_at: Timestamp(*at),
            })
            .collect();
        let mut statement = self.tx.prepare_cached(
            "SELECT from_id, to_id FROM edges WHERE namespace = ?1 AND kind = 'same_as'",
        )?;
        let same_as: Vec<(String, String)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let classes = entity::entity_classes(&nodes, &same_as);
        let mut moved = Vec::new();
        for (id, _, _, old) in &rows {
            if let Some(canonical) = classes.get(id)
                && canonical != old
            {
                self.execute(
                    "UPDATE entities SET canonical = ?2 WHERE id = ?1",
                    params![id, canonical],
                )?;
                moved.push(id.clone());
            }
        }
        Ok(moved)
    }

    /// Recomputes the predicate classes of `namespace` (see
    /// [`predicate_classes`]); returns the facts whose predicate key changed.
    /// Only the facts at the ends of `same_predicate` edges count (when one
    /// comes or goes, this runs again), so a fact without an edge never
    /// changes which predicate a class is filed under.
    fn rederive_predicate_classes(&self, namespace: &str) -> IndexResult<Vec<String>> {
        let mut statement = self.tx.prepare_cached(
            "SELECT m.predicate, min(m.t_valid) FROM memories m
             WHERE m.namespace = ?1 AND m.kind = 'semantic' AND m.predicate IS NOT NULL
             AND EXISTS (SELECT 1 FROM edges e WHERE e.kind = 'same_predicate'
                 AND (e.from_id = m.id OR e.to_id = m.id))
             GROUP BY m.predicate",
        )?;
        let first_use: BTreeMap<String, i64> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut statement = self.tx.prepare_cached(
            "SELECT a.predicate, b.predicate FROM edges e
             JOIN memories a ON a.id = e.from_id JOIN memories b ON b.id = e.to_id
             WHERE e.namespace = ?1 AND e.kind = 'same_predicate'",
        )?;
        let joins: Vec<(String, String)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let classes = predicate_classes(&first_use, &joins);
        self.execute("DELETE FROM predicate_classes WHERE namespace = ?1", [namespace])?;
        for (predicate, canonical) in &classes {
            self.execute(
                "INSERT INTO predicate_classes (namespace, predicate, canonical) VALUES (?1, ?2, ?3)",
                params![namespace, predicate, canonical],
            )?;
        }
        let mut statement = self.tx.prepare_cached(
            "SELECT id, predicate, predicate_key FROM memories
             WHERE namespace = ?1 AND kind = 'semantic' AND predicate IS NOT NULL",
        )?;
        let facts: Vec<(String, String, Option<String>)> = statement
            .query_map([namespace], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        Ok(facts
            .into_iter()
            .filter(|(_, predicate, key)| {
                let wanted = classes.get(predicate).unwrap_or(predicate);
                key.as_ref() != Some(wanted)
            })
            .map(|(id, _, _)| id)
            .collect())
    }

    /// Sets a fact's subject key and predicate key; returns its group.
    fn rekey_fact(&self, id: &str) -> IndexResult<Option<(String, String, String)>> {
        let row: Option<Subject> = self
            .query_row(
                "SELECT m.namespace, m.subject, m.predicate, e.canonical FROM memories m
                 LEFT JOIN entities e ON e.id = m.subject_entity
                 WHERE m.id = ?1 AND m.kind = 'semantic'",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .optional()?;
        let Some((namespace, subject, Some(predicate), canonical)) = row else { return Ok(None) };
        let key = match canonical {
            Some(canonical) => canonical,
            None => {
                format!("name:{}", entity::normalise_name(subject.as_deref().unwrap_or_default()))
            }
        };
        let predicate_key: String = self
            .query_row(
                "SELECT canonical FROM predicate_classes WHERE namespace = ?1 AND predicate = ?2",
                params![namespace, predicate],
                |row| row.get(0),
            )
            .optional()?
            .unwrap_or(predicate);
        self.execute(
            "UPDATE memories SET subject_key = ?2, predicate_key = ?3 WHERE id = ?1",
            params![id, key, predicate_key],
        )?;
        Ok(Some((namespace, key, predicate_key)))
    }

    /// The supersedes edges into `ids` whose source is alive, with the
    /// source's validity.
    fn live_edges_into(&self, kind: &str, ids: &[String]) -> IndexResult<LiveEdges> {
        let mut edges = Vec::new();
        let mut live = BTreeMap::new();
        let mut statement = self.tx.prepare_cached(
            "SELECT e.from_id, m.t_valid FROM edges e JOIN memories m ON m.id = e.from_id
             WHERE e.to_id = ?1 AND e.kind = ?2",
        )?;
        for id in ids {
            let sources: Vec<(String, i64)> = statement
                .query_map(params![id, kind], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (from, t_valid) in sources {
                live.insert(from.clone(), Timestamp(t_valid));
                edges.push((from, id.clone()));
            }
        }
        Ok((edges, live))
    }

    fn rederive_fact_group(
        &self,
        namespace: &str,
        subject_key: &str,
        predicate: &str,
    ) -> IndexResult<()> {
        let mut statement = self.tx.prepare_cached(
            "SELECT id, t_valid, object, cardinality, predicate FROM memories
             WHERE namespace = ?1 AND subject_key = ?2 AND predicate_key = ?3 AND kind = 'semantic'",
        )?;
        let facts: Vec<FactNode> = statement
            .query_map(params![namespace, subject_key, predicate], |row| {
                let object: Option<String> = row.get(2)?;
                let cardinality: Option<String> = row.get(3)?;
                let own: Option<String> = row.get(4)?;
                // Facts stored before cardinality was recorded: the built-in
                // table for their own predicate, the same on every node
                // (never this node's settings).
                let cardinality =
                    cardinality.and_then(|text| text.parse().ok()).unwrap_or_else(|| {
                        predicate::default_cardinality(own.as_deref().unwrap_or(predicate))
                    });
                Ok(FactNode {
                    id: row.get(0)?,
                    subject_key: subject_key.to_owned(),
                    predicate: predicate.to_owned(),
                    object_key: ferrex_core::conflict::object_key(
                        object.as_deref().unwrap_or_default(),
                    ),
                    t_valid: Timestamp(row.get(1)?),
                    cardinality,
                })
            })?
            .collect::<Result<_, _>>()?;
        let ids: Vec<String> = facts.iter().map(|fact| fact.id.clone()).collect();
        let (edges, live) = self.live_edges_into("supersedes", &ids)?;
        let states = beliefs::derive_facts(&facts, &edges, &|id| live.get(id).copied());
        for (id, state) in states {
            let status = if !state.superseded_by.is_empty() {
                "superseded"
            } else if state.duplicate_of.is_some() {
                "duplicate"
            } else if state.current {
                "current"
            } else {
                "contested"
            };
            self.execute(
                "UPDATE memories SET status = ?2, superseded_by = ?3, contradicts = ?4, t_invalid = ?5,
                    duplicate_of = ?6
                 WHERE id = ?1",
                params![
                    id,
                    status,
                    json_list(&state.superseded_by),
                    json_list(&state.contradicts),
                    state.t_invalid.map(|time| time.0),
                    state.duplicate_of
                ],
            )?;
        }
        Ok(())
    }

    /// The status of a memory that is not a fact (explicitly superseded or
    /// not), and the corrections of any memory.
    fn rederive_target(&self, id: &str) -> IndexResult<()> {
        let kind: Option<String> = self
            .query_row("SELECT kind FROM memories WHERE id = ?1", [id], |row| row.get(0))
            .optional()?;
        let Some(kind) = kind else { return Ok(()) };
        let target = [id.to_owned()];
        let (corrections, _) = self.live_edges_into("corrects", &target)?;
        let mut corrected_by: Vec<String> = corrections.into_iter().map(|(from, _)| from).collect();
        corrected_by.sort();
        self.execute(
            "UPDATE memories SET corrected_by = ?2 WHERE id = ?1 AND corrected_by IS NOT ?2",
            params![id, json_list(&corrected_by)],
        )?;
        if kind == "semantic" {
            return Ok(());
        }
        let (edges, live) = self.live_edges_into("supersedes", &target)?;
        let mut superseded_by: Vec<String> = edges.into_iter().map(|(from, _)| from).collect();
        superseded_by.sort();
        let t_invalid = live.values().min().map(|time| time.0);
        let status = if superseded_by.is_empty() { "active" } else { "superseded" };
        self.execute(
            "UPDATE memories SET status = ?2, superseded_by = ?3, t_invalid = ?4 WHERE id = ?1
             AND (status IS NOT ?2 OR superseded_by IS NOT ?3 OR t_invalid IS NOT ?4)",
            params![id, status, json_list(&superseded_by), t_invalid],
        )?;
        Ok(())
    }

    /// Exact duplicates of free text: only memories that stand (nothing
    /// superseded or corrected them) stand for their duplicates; facts are
    /// collapsed within their group instead (see `rederive_fact_group`).
    fn rederive_duplicates(&self, namespace: &str, kind: &str, hash: &str) -> IndexResult<()> {
        if kind == "semantic" {
            return Ok(());
        }
        let mut statement = self.tx.prepare_cached(
            "SELECT id, created_at, duplicate_of, status = 'superseded' OR corrected_by != '[]'
             FROM memories WHERE namespace = ?1 AND kind = ?2 AND content_hash = ?3",
        )?;
        let rows: Vec<(String, i64, Option<String>, bool)> = statement
            .query_map(params![namespace, kind, hash], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })?
            .collect::<Result<_, _>>()?;
        let nodes: Vec<DuplicateNode> = rows
            .iter()
            .filter(|(_, _, _, invalidated)| !invalidated)
            .map(|(id, at, _, _)| DuplicateNode {
                id: id.clone(),
                key: hash.to_owned(),
                created_at: Timestamp(*at),
            })
            .collect();
        let found = beliefs::duplicates(&nodes);
        for (id, _, old, _) in &rows {
            let new = found.get(id);
            if new != old.as_ref() {
                self.execute(
                    "UPDATE memories SET duplicate_of = ?2 WHERE id = ?1",
                    params![id, new],
                )?;
            }
        }
        Ok(())
    }
}

/// Predicate classes: predicates joined by `same_predicate` edges between
/// their facts are one; each class is filed under the predicate used first
/// (`first_use`: the earliest validity among the facts the edges join, then
/// the smallest name). Only predicates filed under another are returned. A
/// pure function of document content, like entity classes. A class holds
/// for the whole namespace, like a synonym group: a wording judged to name
/// one subject's attribute names it for every subject.
pub fn predicate_classes(
    first_use: &BTreeMap<String, i64>,
    joins: &[(String, String)],
) -> BTreeMap<String, String> {
    // Entity classes over predicates: the same union, the oldest (then the
    // smallest name) standing for its class; names are distinct, so only
    // the edges join.
    let nodes: Vec<EntityNode> = first_use
        .iter()
        .map(|(name, at)| EntityNode {
            id: name.clone(),
            name: name.clone(),
            created_at: Timestamp(*at),
        })
        .collect();
    entity::entity_classes(&nodes, joins)
        .into_iter()
        .filter(|(predicate, canonical)| predicate != canonical)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_joined_by_edges_are_filed_under_the_first_used() {
        let first_use: BTreeMap<String, i64> =
            [("favorite_color", 5), ("favourite_colour", 3), ("fav_colour", 9), ("port", 1)]
                .into_iter()
                .map(|(name, at)| (name.to_owned(), at))
                .collect();
        let join = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
        };
        assert!(predicate_classes(&first_use, &[]).is_empty());
        let classes = predicate_classes(
            &first_use,
            &join(&[("favorite_color", "fav_colour"), ("fav_colour", "favourite_colour")]),
        );
        assert_eq!(classes.len(), 2);
        assert_eq!(classes["favorite_color"], "favourite_colour");
        assert_eq!(classes["fav_colour"], "favourite_colour");
        // The same edges in any order, either direction: the same classes.
        let reversed = predicate_classes(
            &first_use,
            &join(&[("favourite_colour", "fav_colour"), ("fav_colour", "favorite_color")]),
        );
        assert_eq!(reversed, classes);
        // An edge to a predicate no live fact uses joins nothing.
        assert!(predicate_classes(&first_use, &join(&[("port", "gone")])).is_empty());
    }
}
