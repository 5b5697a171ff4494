//! Read queries of what a person browses (`ferrex list`, `show`, `topics`,
//! the web page), and the memory filter they share with recall.

use rusqlite::{params_from_iter, types::Value};

use super::{Index, IndexResult, MemoryRow};

/// The namespaces a read spans.
#[derive(Debug, Clone, Copy)]
pub enum Namespaces<'a> {
    /// These (none: nothing passes).
    Of(&'a [String]),
    /// Every namespace.
    Every,
}

impl Default for Namespaces<'_> {
    /// None at all: a filter that names no namespace lets nothing through.
    fn default() -> Self {
        Namespaces::Of(&[])
    }
}

impl Namespaces<'_> {
    /// The condition on `m.namespace`, its values added to `values`.
    fn clause(self, values: &mut Vec<Value>) -> String {
        match self {
            Namespaces::Every => "1".to_owned(),
            Namespaces::Of([]) => "0".to_owned(),
            Namespaces::Of(names) => {
                let slots: Vec<String> = names
                    .iter()
                    .map(|name| {
                        values.push(Value::Text(name.clone()));
                        format!("?{}", values.len())
                    })
                    .collect();
                format!("m.namespace IN ({})", slots.join(", "))
            }
        }
    }
}

/// Which memories: every condition that is set must hold. Collapsed
/// duplicates never pass.
#[derive(Debug, Clone, Default)]
pub struct MemoryFilter<'a> {
    /// The namespaces (by default none: set them).
    pub namespaces: Namespaces<'a>,
    /// Of one of these kinds (any when empty).
    pub kinds: &'a [ferrex_core::MemoryKind],
    /// Mentioning one of these entities (ids), as an entity or a fact's
    /// subject.
    pub entities: Option<&'a [String]>,
    /// Labelled with this tag.
    pub tag: Option<&'a str>,
    /// Valid from this time on (inclusive, milliseconds).
    pub start: Option<i64>,
    /// Valid before this time (milliseconds).
    pub end: Option<i64>,
    /// With this derived status (`active`, `current`, `contested`,
    /// `superseded`); `None` means any but superseded.
    pub status: Option<&'a str>,
    /// Also superseded memories, when `status` is `None`.
    pub invalidated: bool,
}

impl MemoryFilter<'_> {
    /// The `WHERE` clause (over `memories m`) and its values.
    fn clause(&self) -> (String, Vec<Value>) {
        let mut values: Vec<Value> = Vec::new();
        let mut sql = format!("{} AND m.duplicate_of IS NULL", self.namespaces.clause(&mut values));
        let next = |values: &mut Vec<Value>, value: Value| {
            values.push(value);
            format!("?{}", values.len())
        };
        match self.status {
            Some(status) => {
                let slot = next(&mut values, Value::Text(status.to_owned()));
                sql.push_str(&format!(" AND m.status = {slot}"));
            }
            None if !self.invalidated => sql.push_str(" AND m.status != 'superseded'"),
            None => {}
        }
        if let Some(start) = self.start {
            let slot = next(&mut values, Value::Integer(start));
            sql.push_str(&format!(" AND m.t_valid >= {slot}"));
        }
        if let Some(end) = self.end {
            let slot = next(&mut values, Value::Integer(end));
            sql.push_str(&format!(" AND m.t_valid < {slot}"));
        }
        if !self.kinds.is_empty() {
            let slots: Vec<String> = self
                .kinds
                .iter()
                .map(|kind| next(&mut values, Value::Text(kind.as_str().to_owned())))
                .collect();
            sql.push_str(&format!(" AND m.kind IN ({})", slots.join(", ")));
        }
        if let Some(tag) = self.tag {
            let slot = next(&mut values, Value::Text(tag.to_owned()));
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = {slot})"
            ));
        }
        if let Some(entities) = self.entities {
            let slots: Vec<String> =
                entities.iter().map(|id| next(&mut values, Value::Text(id.clone()))).collect();
            let list = slots.join(", ");
            sql.push_str(&format!(
                " AND (m.subject_entity IN ({list}) OR EXISTS (
                    SELECT 1 FROM json_each(m.entities) WHERE json_each.value IN ({list})))"
            ));
        }
        (sql, values)
    }
}

/// An edge as stored: its kind and ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRow {
    /// `supersedes`, `corrects`, `same_as`, …
    pub kind: String,
    /// Where it starts.
    pub from: String,
    /// Where it ends.
    pub to: String,
}

impl Index {
    /// Ids of the memories `filter` lets through.
    pub fn filtered(&self, filter: &MemoryFilter<'_>) -> IndexResult<Vec<String>> {
        let (clause, values) = filter.clause();
        let mut statement =
            self.conn().prepare(&format!("SELECT m.id FROM memories m WHERE {clause}"))?;
        let ids = statement
            .query_map(params_from_iter(values), |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// A page of the memories `filter` lets through, newest (by validity)
    /// first, and how many it lets through in all.
    pub fn list(
        &self,
        filter: &MemoryFilter<'_>,
        limit: usize,
        offset: usize,
    ) -> IndexResult<(Vec<MemoryRow>, usize)> {
        let (clause, mut values) = filter.clause();
        let total: i64 = self.conn().query_row(
            &format!("SELECT COUNT(*) FROM memories m WHERE {clause}"),
            params_from_iter(values.iter()),
            |row| row.get(0),
        )?;
        values.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        values.push(Value::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
        let mut statement = self.conn().prepare(&format!(
            "SELECT {} FROM memories m WHERE {clause}
             ORDER BY m.t_valid DESC, m.id LIMIT ?{} OFFSET ?{}",
            MemoryRow::COLUMNS,
            values.len() - 1,
            values.len()
        ))?;
        let rows = statement
            .query_map(params_from_iter(values), MemoryRow::from_sql)?
            .collect::<Result<_, _>>()?;
        Ok((rows, usize::try_from(total).unwrap_or(0)))
    }

    /// The tags of the memories of `namespaces` (superseded ones aside)
    /// with how many carry each, most used first.
    pub fn tag_counts(
        &self,
        namespaces: Namespaces<'_>,
        limit: usize,
    ) -> IndexResult<Vec<(String, usize)>> {
        let mut values = Vec::new();
        let spanned = namespaces.clause(&mut values);
        values.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT t.value, COUNT(*) FROM memories m, json_each(m.tags) t
             WHERE {spanned} AND m.duplicate_of IS NULL AND m.status != 'superseded'
             GROUP BY t.value ORDER BY COUNT(*) DESC, t.value LIMIT ?{}",
            values.len()
        ))?;
        let counts = statement
            .query_map(params_from_iter(values), |row| {
                Ok((row.get(0)?, row.get::<_, i64>(1)? as usize))
            })?
            .collect::<Result<_, _>>()?;
        Ok(counts)
    }

    /// The entities of `namespaces` (one per class: its canonical entity's
    /// id and name) with how many memories (superseded ones aside) are about
    /// each, most mentioned first.
    pub fn entity_counts(
        &self,
        namespaces: Namespaces<'_>,
        limit: usize,
    ) -> IndexResult<Vec<(String, String, usize)>> {
        let mut values = Vec::new();
        let spanned = namespaces.clause(&mut values);
        values.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        let mut statement = self.conn().prepare_cached(&format!(
            "WITH mentions AS (
                 SELECT m.id AS memory, m.subject_entity AS entity FROM memories m
                 WHERE {spanned} AND m.duplicate_of IS NULL
                   AND m.status != 'superseded' AND m.subject_entity IS NOT NULL
                 UNION
                 SELECT m.id, j.value FROM memories m, json_each(m.entities) j
                 WHERE {spanned} AND m.duplicate_of IS NULL AND m.status != 'superseded'
             )
             SELECT e.canonical, c.name, COUNT(DISTINCT mentions.memory)
             FROM mentions JOIN entities e ON e.id = mentions.entity
             JOIN entities c ON c.id = e.canonical
             GROUP BY e.canonical ORDER BY COUNT(DISTINCT mentions.memory) DESC, c.name
             LIMIT ?{}",
            values.len()
        ))?;
        let counts = statement
            .query_map(params_from_iter(values), |row| {
                Ok((row.get(0)?, row.get(1)?, row.get::<_, i64>(2)? as usize))
            })?
            .collect::<Result<_, _>>()?;
        Ok(counts)
    }

    /// Every namespace the index holds a memory of, by name.
    pub fn namespaces(&self) -> IndexResult<Vec<String>> {
        let mut statement = self
            .conn()
            .prepare_cached("SELECT DISTINCT namespace FROM memories ORDER BY namespace")?;
        let names = statement.query_map([], |row| row.get(0))?.collect::<Result<_, _>>()?;
        Ok(names)
    }

    /// The namespace, name and canonical entity of entity `id`.
    pub fn entity_place(&self, id: &str) -> IndexResult<Option<(String, String, String)>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn()
            .query_row(
                "SELECT namespace, name, canonical FROM entities WHERE id = ?1",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()?)
    }

    /// Every edge that starts or ends at `id`, by kind.
    pub fn edges_touching(&self, id: &str) -> IndexResult<Vec<EdgeRow>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT kind, from_id, to_id FROM edges WHERE from_id = ?1 OR to_id = ?1
             ORDER BY kind, from_id, to_id",
        )?;
        let edges = statement
            .query_map([id], |row| {
                Ok(EdgeRow { kind: row.get(0)?, from: row.get(1)?, to: row.get(2)? })
            })?
            .collect::<Result<_, _>>()?;
        Ok(edges)
    }
}
