//! Looking back over what is stored: `reflect` (stale memories, facts that
//! contradict, alias candidates), `history` (how a belief evolved), and the
//! detailed `stats`.

use std::collections::{BTreeMap, BTreeSet};

use ferrex_core::{
    FieldError, MemoryKind, Namespace, Staleness, entity::normalise_name, staleness,
    staleness_label,
};

use super::{Engine, Recalled, ToolError, lock, usage_of};
use crate::derived::index::MemoryRow;

/// Facts of one subject and predicate that disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Contradiction {
    /// The current fact, then the contested ones.
    pub facts: Vec<MemoryRow>,
    /// Whether they were written on different devices (concurrently, as
    /// far as any of them knew).
    pub across_devices: bool,
}

/// What `reflect` finds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reflection {
    /// Stale memories, stalest first.
    pub stale: Vec<Recalled>,
    /// Contradicting facts.
    pub contradictions: Vec<Contradiction>,
    /// Entities that may be one.
    pub alias_candidates: Vec<crate::derived::index::lookup::AliasCandidate>,
    /// Predicates of one subject that may name one attribute.
    pub predicate_candidates: Vec<crate::derived::index::lookup::PredicateCandidate>,
    /// Single-valued predicates whose values pile up on a subject.
    pub cardinality_suspects: Vec<crate::derived::index::lookup::CardinalitySuspect>,
}

/// Values of one subject's single-valued predicate from which it looks
/// multi-valued (with two contested, or all stored within a day).
const SUSPECT_VALUES: usize = 3;
const SUSPECT_HOURS: i64 = 24;

/// One step of a belief's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    /// The memory.
    pub row: MemoryRow,
    /// Memories it supersedes or corrects.
    pub replaces: Vec<String>,
}

/// The detailed `stats`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DetailedStats {
    /// Per kind: memories labelled fresh, aging, stale.
    pub staleness: BTreeMap<String, [usize; 3]>,
    /// Facts per status (`current`, `contested`, `superseded`).
    pub facts: BTreeMap<String, usize>,
    /// Entity records, and the distinct entities they make.
    pub entities: (usize, usize),
    /// Alias candidates not yet joined.
    pub alias_candidates: usize,
    /// Subjects and predicates with contradicting facts.
    pub contradictions: usize,
    /// Memories collapsed into an exact duplicate.
    pub duplicates: usize,
    /// Free text corrected by newer text.
    pub corrected: usize,
}

impl Engine {
    /// Stale memories of a namespace, stalest first.
    pub fn stale(&self, namespace: &Namespace, limit: usize) -> Result<Vec<Recalled>, ToolError> {
        let now = self.now();
        let settings = self.settings(namespace.as_str()).staleness;
        let index = lock(&self.index);
        let mut stale: Vec<Recalled> = index
            .namespace_rows(namespace.as_str())?
            .into_iter()
            .filter(|row| row.derived.duplicate_of.is_none() && row.derived.status != "superseded")
            // A file chunk is what the file says now: never stale.
            .filter(|row| !ferrex_core::chunk::is_file_chunk(row.source.as_deref()))
            .filter_map(|row| {
                let score = staleness(&usage_of(&row), now, &settings);
                let label = staleness_label(score, &settings);
                (label == Staleness::Stale).then_some(Recalled {
                    row,
                    score,
                    staleness: label,
                    confidence: 0.0,
                })
            })
            .collect();
        stale.sort_by(|left, right| {
            right.score.total_cmp(&left.score).then_with(|| left.row.id.cmp(&right.row.id))
        });
        stale.truncate(limit);
        Ok(stale)
    }

    /// What needs a person's (or an agent's) attention in a namespace.
    pub fn reflect(
        &self,
        namespace: &Namespace,
        limit: usize,
        include_stale: bool,
        include_contradictions: bool,
    ) -> Result<Reflection, ToolError> {
        let mut reflection = Reflection::default();
        if include_stale {
            reflection.stale = self.stale(namespace, limit)?;
        }
        let index = lock(&self.index);
        if include_contradictions {
            for facts in index.contradictions(namespace.as_str())?.into_iter().take(limit) {
                let devices: BTreeSet<&str> =
                    facts.iter().map(|row| row.created_by.as_str()).collect();
                let across_devices = devices.len() > 1;
                reflection.contradictions.push(Contradiction { facts, across_devices });
            }
        }
        reflection.alias_candidates = index.alias_candidates(namespace.as_str())?;
        reflection.alias_candidates.truncate(limit);
        reflection.predicate_candidates = index.predicate_candidates(namespace.as_str())?;
        reflection.predicate_candidates.truncate(limit);
        reflection.cardinality_suspects =
            index.cardinality_suspects(namespace.as_str(), SUSPECT_VALUES, SUSPECT_HOURS)?;
        reflection.cardinality_suspects.truncate(limit);
        Ok(reflection)
    }

    /// How a belief evolved, oldest first: the facts of the subject and
    /// predicate of memory `id` (or of the given ones), or for free text the
    /// memories linked to it by supersession and correction.
    pub fn history(
        &self,
        namespace: &Namespace,
        id: Option<&str>,
        subject_predicate: Option<(&str, &str)>,
    ) -> Result<Vec<HistoryEntry>, ToolError> {
        let (subject_key, predicate) = match (id, subject_predicate) {
            (Some(id), _) => {
                let row = lock(&self.index).row(id)?.ok_or_else(|| {
                    FieldError::new(
                        "id",
                        format!("names no memory: {id} does not exist or was forgotten"),
                    )
                })?;
                if row.namespace != namespace.as_str() {
                    return Err(FieldError::new(
                        "id",
                        format!(
                            "names a memory of namespace {:?}, not {namespace:?}",
                            row.namespace
                        ),
                    )
                    .into());
                }
                match (&row.derived.subject_key, &row.predicate, row.kind) {
                    (Some(key), Some(predicate), MemoryKind::Semantic) => {
                        (key.clone(), predicate.clone())
                    }
                    _ => return self.text_history(row),
                }
            }
            (None, Some((subject, predicate))) => {
                let settings = self.settings(namespace.as_str());
                let known = lock(&self.index).predicates(namespace.as_str())?;
                let (predicate, _) = settings.predicates.normalise(
                    predicate,
                    known.iter().map(String::as_str),
                    settings.predicate.fuzzy,
                );
                let key =
                    match self.lookup_names(namespace, &[subject.to_owned()])?.into_iter().next() {
                        Some(canonical) => canonical,
                        None => format!("name:{}", normalise_name(subject)),
                    };
                (key, predicate)
            }
            (None, None) => {
                return Err(
                    FieldError::new("id", "is missing: give id, or subject and predicate").into()
                );
            }
        };
        let index = lock(&self.index);
        let rows = index.facts(namespace.as_str(), &subject_key, &predicate, &[])?;
        let mut entries = Vec::new();
        // Text that announced a new value of one of the facts.
        let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in rows {
            let replaces = index
                .edges_of(&row.id, "supersedes")?
                .into_iter()
                .filter(|(from, _)| *from == row.id)
                .map(|(_, to)| to)
                .collect();
            for (from, _) in
                index.edges_of(&row.id, "corrects")?.into_iter().filter(|(_, to)| *to == row.id)
            {
                texts.entry(from).or_default().push(row.id.clone());
            }
            entries.push(HistoryEntry { row, replaces });
        }
        let ids: Vec<String> = texts.keys().cloned().collect();
        for (id, row) in index.rows(&ids)? {
            let replaces = texts.remove(&id).unwrap_or_default();
            entries.push(HistoryEntry { row, replaces });
        }
        entries.sort_by(|a, b| {
            (a.row.t_valid, a.row.created_at, &a.row.id).cmp(&(
                b.row.t_valid,
                b.row.created_at,
                &b.row.id,
            ))
        });
        Ok(entries)
    }

    /// The memories linked to free text by supersession or correction, in
    /// either direction, oldest first.
    fn text_history(&self, start: MemoryRow) -> Result<Vec<HistoryEntry>, ToolError> {
        let index = lock(&self.index);
        let mut seen: BTreeSet<String> = BTreeSet::from([start.id.clone()]);
        let mut queue = vec![start.id.clone()];
        let mut links: Vec<(String, String)> = Vec::new();
        // Bounded: a chain of corrections is short; stop at 1000 memories.
        while let Some(id) = queue.pop() {
            if seen.len() > 1000 {
                break;
            }
            for kind in ["supersedes", "corrects"] {
                for (from, to) in index.edges_of(&id, kind)? {
                    links.push((from.clone(), to.clone()));
                    for next in [from, to] {
                        if seen.insert(next.clone()) {
                            queue.push(next);
                        }
                    }
                }
            }
        }
        let ids: Vec<String> = seen.into_iter().collect();
        let mut rows: Vec<MemoryRow> = index.rows(&ids)?.into_values().collect();
        rows.sort_by(|a, b| {
            a.t_valid
                .cmp(&b.t_valid)
                .then_with(|| a.created_at.cmp(&b.created_at))
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(rows
            .into_iter()
            .map(|row| {
                let mut replaces: Vec<String> = links
                    .iter()
                    .filter(|(from, _)| *from == row.id)
                    .map(|(_, to)| to.clone())
                    .collect();
                replaces.sort();
                replaces.dedup();
                HistoryEntry { row, replaces }
            })
            .collect())
    }

    /// Counts that need a look at every memory: staleness per kind, facts
    /// per status, entities, alias candidates, contradictions.
    pub fn detailed_stats(&self) -> Result<DetailedStats, ToolError> {
        let now = self.now();
        let index = lock(&self.index);
        let mut stats = DetailedStats::default();
        let mut namespaces: BTreeSet<String> = BTreeSet::new();
        for (namespace, _, _) in index.counts()?.by_namespace_kind {
            namespaces.insert(namespace);
        }
        for namespace in &namespaces {
            let settings = self.settings(namespace).staleness;
            for row in index.namespace_rows(namespace)? {
                if row.derived.duplicate_of.is_some() {
                    stats.duplicates += 1;
                    continue;
                }
                if !row.derived.corrected_by.is_empty() {
                    stats.corrected += 1;
                }
                if row.kind == MemoryKind::Semantic {
                    *stats.facts.entry(row.derived.status.clone()).or_default() += 1;
                }
                let label = if ferrex_core::chunk::is_file_chunk(row.source.as_deref()) {
                    Staleness::Fresh
                } else {
                    staleness_label(staleness(&usage_of(&row), now, &settings), &settings)
                };
                let slot = match label {
                    Staleness::Fresh => 0,
                    Staleness::Aging => 1,
                    Staleness::Stale => 2,
                };
                stats.staleness.entry(row.kind.as_str().to_owned()).or_default()[slot] += 1;
            }
            stats.contradictions += index.contradictions(namespace)?.len();
            stats.alias_candidates += index.alias_candidates(namespace)?.len();
            let entities = index.entities(namespace)?;
            let classes: BTreeSet<&str> =
                entities.iter().map(|entity| entity.canonical.as_str()).collect();
            stats.entities.0 += entities.len();
            stats.entities.1 += classes.len();
        }
        Ok(stats)
    }
}
