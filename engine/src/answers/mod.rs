//! The engine's answers as Rust types, written by the node and read back by
//! every reader: each MCP tool's output schema is generated from its answer
//! type and its structured content is that type serialized, so the two
//! cannot drift apart; the terminal's commands and the end-to-end tests read
//! the same JSON back as the same types.

use std::collections::BTreeMap;

use ferrex_core::{Content, Timestamp};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod browse;
pub mod graph;
pub mod status;
pub mod telling;
pub mod working;

use crate::{
    base::clock,
    derived::index::{MemoryRow, Standing},
    engine::{
        Backlog, Contradiction, DetailedStats, Engine, HistoryEntry, Reach, Recalled, Reflection,
        Stats, Stored, ToolError, content_parts,
    },
};

/// Names devices by id (the registry's names), for answers people read.
pub type DeviceNames<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A memory's content: free text, or a fact's three parts.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct ContentFields {
    /// Free text (episodic and procedural memories).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A fact's subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// A fact's predicate (the attribute it is filed under).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    /// A fact's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
}

impl ContentFields {
    fn of(row: &MemoryRow) -> ContentFields {
        match content_parts(row) {
            Content::Text(text) => {
                ContentFields { content: Some(text), ..ContentFields::default() }
            }
            Content::Triple(triple) => ContentFields {
                content: None,
                subject: Some(triple.subject),
                predicate: Some(triple.predicate),
                object: Some(triple.object),
            },
        }
    }
}

/// A memory: its content, standing, and what was recorded with it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Memory {
    /// Its id.
    pub id: String,
    /// `episodic`, `semantic` or `procedural`; `file` for a chunk of a
    /// watched file.
    #[serde(rename = "type")]
    pub kind: String,
    /// A file chunk's file and headings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<FileRef>,
    /// Its namespace.
    pub namespace: String,
    /// When it was stored (ISO-8601).
    pub created_at: String,
    /// When what it says happened or became true (ISO-8601).
    pub t_valid: String,
    /// How sure whoever stored it was, 0 to 1.
    pub confidence: f64,
    /// How many times it was stored (duplicates add evidence).
    pub evidence: i64,
    /// What it says.
    #[serde(flatten)]
    pub content: ContentFields,
    /// Where it stands.
    #[serde(flatten)]
    pub standing: Standing,
    /// Its labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The entities it is about.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// Where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Context kept with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// Where a file chunk is.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FileRef {
    /// The file's path, relative to its watched folder.
    pub path: String,
    /// The headings above the chunk, outermost first, joined by " > "
    /// (absent for a whole config file and a file's opening text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
}

impl FileRef {
    /// The file of `row`, if it is a file chunk.
    pub fn of(row: &MemoryRow) -> Option<FileRef> {
        if !ferrex_core::chunk::is_file_chunk(row.source.as_deref()) {
            return None;
        }
        let path = ferrex_core::chunk::file_of(&row.tags)?.to_owned();
        let heading = row
            .context
            .as_deref()
            .and_then(|place| place.strip_prefix(path.as_str()))
            .and_then(|rest| rest.strip_prefix(" > "))
            .map(str::to_owned);
        Some(FileRef { path, heading })
    }
}

/// A memory as `recall` finds it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RecalledMemory {
    /// The memory.
    #[serde(flatten)]
    pub memory: Memory,
    /// Relevance to the query (higher is better).
    pub score: f64,
    /// Its confidence, lowered by staleness and contradiction.
    pub trust: f64,
    /// `fresh`, `aging` or `stale`.
    pub staleness: String,
}

/// One recalled memory.
pub fn recalled(result: &Recalled) -> RecalledMemory {
    RecalledMemory {
        memory: memory(&result.row),
        score: result.score,
        trust: result.confidence,
        staleness: result.staleness.as_str().to_owned(),
    }
}

/// A memory: its content, standing, and what was recorded with it.
pub fn memory(row: &MemoryRow) -> Memory {
    let file = FileRef::of(row);
    // A chunk's source, tag and context say where it is: `file` says it once.
    let chunk = file.is_some();
    Memory {
        id: row.id.clone(),
        kind: if chunk { "file" } else { row.kind.as_str() }.to_owned(),
        file,
        namespace: row.namespace.clone(),
        created_at: clock::iso(Timestamp(row.created_at)),
        t_valid: clock::iso(Timestamp(row.t_valid)),
        confidence: row.confidence,
        evidence: row.evidence,
        content: ContentFields::of(row),
        standing: row.standing(),
        tags: if chunk { Vec::new() } else { row.tags.clone() },
        entities: row.entities.clone(),
        source: if chunk { None } else { row.source.clone() },
        context: if chunk { None } else { row.context.clone() },
    }
}

/// A name given, and the entity it resolved to.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EntityMatch {
    /// The name as given.
    pub name: String,
    /// The entity's id.
    pub id: String,
    /// How it was matched: `exact`, `fuzzy`, `embedding`, or `new`.
    #[serde(rename = "match")]
    pub method: String,
}

/// A credential replaced before the memory was stored.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Redacted {
    /// The field it was in.
    pub field: String,
    /// What it looked like.
    pub found: String,
}

/// A memory the new one corrects.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Correction {
    /// The corrected memory.
    pub id: String,
    /// Why it counts as a correction.
    pub why: String,
}

/// The answer of `store`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StoreAnswer {
    /// The new memory's id (for a duplicate, the existing memory's).
    pub id: String,
    /// `stored`, or `duplicate` when nothing new was stored.
    pub status: String,
    /// `episodic`, `semantic` or `procedural`.
    pub memory_type: String,
    /// Its namespace.
    pub namespace: String,
    /// The names given, and the entities they resolved to.
    pub entities: Vec<EntityMatch>,
    /// A fact's predicate as filed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    /// How the predicate was resolved (`new`, `synonym`, `structure`,
    /// `fuzzy`, `embedding`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate_match: Option<String>,
    /// The predicate as written, when filed under another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate_written: Option<String>,
    /// A fact predicate's cardinality: `one` or `many`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cardinality: Option<String>,
    /// Predicates of this subject the new one may mean (not taken).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predicate_candidates: Vec<String>,
    /// A duplicate: the memory it duplicates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing_id: Option<String>,
    /// A duplicate: that memory's evidence now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<i64>,
    /// Credentials replaced by `[REDACTED]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<Redacted>,
    /// Memories it supersedes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
    /// Facts it may replace but did not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ambiguous_with: Vec<String>,
    /// What to do about `ambiguous_with`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Memories it corrects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrects: Vec<Correction>,
}

/// The answer of `store`.
pub fn stored(stored: &Stored) -> StoreAnswer {
    let entities = stored
        .entities
        .iter()
        // A duplicate stored nothing: entities it would have created do not exist.
        .filter(|found| !stored.duplicate || found.method != "new")
        .map(|found| EntityMatch {
            name: found.name.clone(),
            id: found.id.clone(),
            method: found.method.to_owned(),
        })
        .collect();
    let fact = stored.predicate.is_some();
    let mut answer = StoreAnswer {
        id: stored.id.clone(),
        status: if stored.duplicate { "duplicate" } else { "stored" }.to_owned(),
        memory_type: stored.kind.as_str().to_owned(),
        namespace: stored.namespace.as_str().to_owned(),
        entities,
        predicate: stored.predicate.clone(),
        predicate_match: stored.predicate_match.filter(|_| fact).map(str::to_owned),
        predicate_written: stored.predicate_written.clone().filter(|_| fact),
        cardinality: stored
            .cardinality
            .filter(|_| fact)
            .map(|cardinality| cardinality.as_str().to_owned()),
        predicate_candidates: if fact { stored.predicate_candidates.clone() } else { Vec::new() },
        existing_id: None,
        evidence: None,
        redacted: Vec::new(),
        supersedes: Vec::new(),
        ambiguous_with: Vec::new(),
        note: None,
        corrects: Vec::new(),
    };
    if stored.duplicate {
        answer.existing_id = Some(stored.id.clone());
        answer.evidence = stored.evidence;
        return answer;
    }
    answer.redacted = stored
        .redacted
        .iter()
        .map(|redaction| Redacted {
            field: redaction.field.clone(),
            found: redaction.rule.to_owned(),
        })
        .collect();
    answer.supersedes = stored.supersedes.clone();
    answer.ambiguous_with = stored.ambiguous_with.clone();
    if !stored.ambiguous_with.is_empty() {
        answer.note = Some(
            "this subject already has a close value of this multi-valued predicate; both are \
             kept. Store again with `supersedes` if this one replaces it."
                .to_owned(),
        );
    }
    answer.corrects = stored
        .corrects
        .iter()
        .map(|(id, why)| Correction { id: id.clone(), why: (*why).to_owned() })
        .collect();
    answer
}

/// What a recall could not search fully yet, and what that means.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Pending {
    /// Memories of the namespace with no vector yet.
    pub without_vectors: i64,
    /// Memories whose sentences are not embedded yet.
    pub without_passages: i64,
    /// Whether results by meaning are partial.
    pub dense_partial: bool,
    /// How long the recall waited for the index, in milliseconds.
    pub waited_ms: u64,
    /// What it means, in words.
    pub note: String,
}

/// What a recall could not search fully yet, and what that means.
pub fn backlog(backlog: &Backlog) -> Pending {
    let note = if backlog.without_vectors > 0 {
        format!(
            "{} memories of this namespace have no vector yet (the index is catching up): \
             results by meaning are partial; keyword search covers them",
            backlog.without_vectors
        )
    } else {
        format!(
            "{} memories of this namespace are found by their whole text only until \
             their sentences are embedded",
            backlog.without_passages
        )
    };
    Pending {
        without_vectors: backlog.without_vectors,
        without_passages: backlog.without_passages,
        dense_partial: backlog.without_vectors > 0,
        waited_ms: u64::try_from(backlog.waited.as_millis()).unwrap_or(u64::MAX),
        note,
    }
}

/// The answer of `recall`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RecallAnswer {
    /// The query, as searched.
    pub query: String,
    /// The namespace searched first.
    pub namespace: String,
    /// Every namespace searched: a project's recall searches `default` too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// How many results.
    pub count: usize,
    /// The memories found, best first.
    pub results: Vec<RecalledMemory>,
    /// What could not be searched fully yet (only when something could not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
    /// Of `validate_ids`, those marked confirmed (only when some were given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validated: Option<Vec<String>>,
}

/// The answer of `forget`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ForgetAnswer {
    /// Ids forgotten, here and (as they sync) on every device.
    pub forgotten: Vec<String>,
    /// Ids that name no memory (never stored, or already forgotten).
    pub unknown: Vec<String>,
}

/// A device, by id and name.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Device {
    /// Its id.
    pub id: String,
    /// Its name (null when this device does not know it).
    pub name: Option<String>,
}

fn device(id: &str, names: DeviceNames<'_>) -> Device {
    Device { id: id.to_owned(), name: names(id) }
}

/// An entity, by id and name.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EntityRef {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// Two entities that may be one.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AliasCandidate {
    /// The entity.
    pub entity: EntityRef,
    /// The entity it may be.
    pub candidate: EntityRef,
    /// The device that noticed.
    pub recorded_by: Device,
}

/// A fact's predicate.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PredicateRef {
    /// The predicate.
    pub name: String,
    /// A fact filed under it.
    pub fact: String,
}

/// Two predicates of a subject that may name one attribute.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PredicateCandidate {
    /// The subject.
    pub subject: String,
    /// The newer fact's predicate.
    pub predicate: PredicateRef,
    /// The older fact's predicate it may mean.
    pub candidate: PredicateRef,
    /// The device that noticed.
    pub recorded_by: Device,
    /// What to do if they are one.
    pub hint: String,
}

/// A single-valued predicate whose values pile up on one subject.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CardinalitySuspect {
    /// The subject.
    pub subject: String,
    /// The predicate.
    pub predicate: String,
    /// Its cardinality now (`one`).
    pub cardinality: String,
    /// Distinct values stored.
    pub values: usize,
    /// Of those, contested now.
    pub contested: usize,
    /// Hours between the first value and the last.
    pub hours: i64,
    /// What to do if it is multi-valued.
    pub hint: String,
}

/// One of the facts that contradict each other.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ContradictingFact {
    /// The fact.
    pub id: String,
    /// Its value.
    pub object: Option<String>,
    /// Whether it is the current value.
    pub current: bool,
    /// When it became true (ISO-8601).
    pub t_valid: String,
    /// The device that recorded it.
    pub device: Device,
}

/// Facts of one subject and predicate that contradict each other.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ContradictionAnswer {
    /// The subject.
    pub subject: Option<String>,
    /// The predicate.
    pub predicate: Option<String>,
    /// Whether different devices recorded them.
    pub across_devices: bool,
    /// The facts.
    pub facts: Vec<ContradictingFact>,
}

/// The answer of `reflect`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ReflectAnswer {
    /// The namespace reviewed.
    pub namespace: String,
    /// Stale memories to re-check.
    pub stale: Vec<RecalledMemory>,
    /// Facts that contradict each other.
    pub contradictions: Vec<ContradictionAnswer>,
    /// Entities that may be the same.
    pub alias_candidates: Vec<AliasCandidate>,
    /// Predicates of a subject that may name one attribute.
    pub predicate_candidates: Vec<PredicateCandidate>,
    /// Single-valued predicates whose values pile up.
    pub cardinality_suspects: Vec<CardinalitySuspect>,
}

/// The answer of `reflect`.
pub fn reflection(
    namespace: &str,
    reflection: &Reflection,
    names: DeviceNames<'_>,
) -> ReflectAnswer {
    ReflectAnswer {
        namespace: namespace.to_owned(),
        stale: reflection.stale.iter().map(recalled).collect(),
        contradictions: reflection.contradictions.iter().map(|found| contradiction(found, names)).collect(),
        alias_candidates: reflection
            .alias_candidates
            .iter()
            .map(|found| AliasCandidate {
                entity: EntityRef { id: found.entity.clone(), name: found.entity_name.clone() },
                candidate: EntityRef { id: found.candidate.clone(), name: found.candidate_name.clone() },
                recorded_by: device(&found.recorded_by, names),
            })
            .collect(),
        predicate_candidates: reflection
            .predicate_candidates
            .iter()
            .map(|found| PredicateCandidate {
                subject: found.subject.clone(),
                predicate: PredicateRef { name: found.fact.1.clone(), fact: found.fact.0.clone() },
                candidate: PredicateRef { name: found.candidate.1.clone(), fact: found.candidate.0.clone() },
                recorded_by: device(&found.recorded_by, names),
                hint: format!(
                    "if they name one attribute, add \"{}\" to the group of {} under [predicates] in ferrex.toml",
                    found.fact.1.replace('_', " "),
                    found.candidate.1
                ),
            })
            .collect(),
        cardinality_suspects: reflection
            .cardinality_suspects
            .iter()
            .map(|found| CardinalitySuspect {
                subject: found.subject.clone(),
                predicate: found.predicate.clone(),
                cardinality: "one".to_owned(),
                values: found.values,
                contested: found.contested,
                hours: found.hours,
                hint: format!(
                    "a subject seems to have several values of {}: set {} = \"many\" under [cardinality] in ferrex.toml if so",
                    found.predicate, found.predicate
                ),
            })
            .collect(),
    }
}

fn contradiction(found: &Contradiction, names: DeviceNames<'_>) -> ContradictionAnswer {
    let first = found.facts.first();
    ContradictionAnswer {
        subject: first.and_then(|row| row.subject.clone()),
        predicate: first.and_then(|row| row.predicate.clone()),
        across_devices: found.across_devices,
        facts: found
            .facts
            .iter()
            .map(|row| ContradictingFact {
                id: row.id.clone(),
                object: row.object.clone(),
                current: row.derived.status == "current",
                t_valid: clock::iso(Timestamp(row.t_valid)),
                device: device(&row.created_by, names),
            })
            .collect(),
    }
}

/// One step of a belief's history.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HistoryStep {
    /// The memory.
    pub id: String,
    /// `episodic`, `semantic` or `procedural`.
    #[serde(rename = "type")]
    pub kind: String,
    /// When it became true (ISO-8601).
    pub t_valid: String,
    /// When it was stored (ISO-8601).
    pub created_at: String,
    /// The device that recorded it.
    pub device: Device,
    /// What it says.
    #[serde(flatten)]
    pub content: ContentFields,
    /// Where it stands.
    #[serde(flatten)]
    pub standing: Standing,
    /// The memories it replaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<String>,
}

/// The answer of `history`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HistoryAnswer {
    /// The namespace.
    pub namespace: String,
    /// How many steps.
    pub count: usize,
    /// The steps, oldest first.
    pub history: Vec<HistoryStep>,
}

/// The answer of `history`.
pub fn history(namespace: &str, entries: &[HistoryEntry], names: DeviceNames<'_>) -> HistoryAnswer {
    let history: Vec<HistoryStep> = entries
        .iter()
        .map(|entry| {
            let row = &entry.row;
            HistoryStep {
                id: row.id.clone(),
                kind: row.kind.as_str().to_owned(),
                t_valid: clock::iso(Timestamp(row.t_valid)),
                created_at: clock::iso(Timestamp(row.created_at)),
                device: device(&row.created_by, names),
                content: ContentFields::of(row),
                standing: row.standing(),
                replaces: entry.replaces.clone(),
            }
        })
        .collect();
    HistoryAnswer { namespace: namespace.to_owned(), count: history.len(), history }
}

/// One Automerge document.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DocumentStat {
    /// Its id.
    pub id: String,
    /// Memories in it.
    pub memories: usize,
    /// Its size on disk, in bytes.
    pub bytes: u64,
}

/// The documents that hold the memories.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Documents {
    /// How many.
    pub count: usize,
    /// Their size on disk, in bytes.
    pub bytes: u64,
    /// Each of them.
    pub list: Vec<DocumentStat>,
}

/// How far the index is behind the documents.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct IndexLag {
    /// Document changes not yet indexed.
    pub changes: usize,
    /// Memories waiting for their vector.
    pub embeddings_queued: i64,
    /// Memories waiting for their sentences' vectors.
    pub passages_queued: i64,
    /// Memories whose text key has not arrived from a peer.
    pub waiting_for_keys: i64,
    /// Vectors taken from peers instead of computed here.
    pub vectors_from_peers: u64,
}

/// Memories of one kind by staleness.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StalenessCounts {
    /// Recent, used or confirmed.
    pub fresh: usize,
    /// Getting old without use or confirmation.
    pub aging: usize,
    /// Worth re-checking.
    pub stale: usize,
}

/// Entity records and the distinct entities they name.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EntityCounts {
    /// Records.
    pub records: usize,
    /// Distinct entities.
    pub distinct: usize,
}

/// `stats` with `detailed`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Detailed {
    /// By kind.
    pub staleness: BTreeMap<String, StalenessCounts>,
    /// Facts by status.
    pub facts: BTreeMap<String, usize>,
    /// Entities.
    pub entities: EntityCounts,
    /// Pairs of entities that may be one.
    pub alias_candidates: usize,
    /// Sets of facts that contradict each other.
    pub contradictions: usize,
    /// Duplicates collapsed into an existing memory.
    pub duplicates_collapsed: usize,
    /// Memories corrected by later text.
    pub corrected: usize,
}

/// The answer of `stats`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StatsAnswer {
    /// Memories in all.
    pub memories: i64,
    /// Memories by kind.
    pub by_type: BTreeMap<String, i64>,
    /// Memories by namespace.
    pub by_namespace: BTreeMap<String, i64>,
    /// Entities.
    pub entities: i64,
    /// Memories forgotten.
    pub forgotten: i64,
    /// The documents.
    pub documents: Documents,
    /// The index's lag.
    pub index_lag: IndexLag,
    /// The embedding model.
    pub model: String,
    /// With `detailed`: staleness and belief figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detailed: Option<Detailed>,
    /// Watched folders on this device, their files, and the watcher.
    pub files: FilesStats,
    /// With `topics`: the namespace's most used tags and entities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<TopicsAnswer>,
    /// Shared projects: a recall there reads the share's namespace too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<ShareEntry>,
}

/// A shared project.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ShareEntry {
    /// The project.
    pub project: String,
    /// The share's namespace.
    pub namespace: String,
    /// read, write, admin, or removed.
    pub role: String,
    /// Member devices.
    pub members: usize,
}

/// Watched folders on this device.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FilesStats {
    /// Folders watched.
    pub watched: usize,
    /// Files read, chunks, skipped files.
    #[serde(flatten)]
    pub counts: crate::derived::index::files::FileCounts,
    /// The watcher and the file worker: state, queued paths, progress.
    pub status: crate::engine::files::WatchStatus,
    /// The first skipped files, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<crate::engine::files::SkippedFile>,
}

/// The answer of `stats`.
pub fn stats(stats: &Stats, detailed: Option<&DetailedStats>) -> StatsAnswer {
    let mut by_type = BTreeMap::new();
    let mut by_namespace = BTreeMap::new();
    let mut total = 0;
    for (namespace, kind, count) in &stats.by_namespace_kind {
        total += count;
        *by_type.entry(kind.clone()).or_insert(0) += count;
        *by_namespace.entry(namespace.clone()).or_insert(0) += count;
    }
    StatsAnswer {
        memories: total,
        by_type,
        by_namespace,
        entities: stats.entities,
        forgotten: stats.forgotten,
        documents: Documents {
            count: stats.docs.len(),
            bytes: stats.docs.iter().map(|doc| doc.disk_bytes).sum(),
            list: stats
                .docs
                .iter()
                .map(|doc| DocumentStat {
                    id: doc.id.to_string(),
                    memories: doc.memories,
                    bytes: doc.disk_bytes,
                })
                .collect(),
        },
        index_lag: IndexLag {
            changes: stats.index_lag_changes,
            embeddings_queued: stats.embeddings_queued,
            passages_queued: stats.passages_queued,
            waiting_for_keys: stats.waiting_for_keys,
            vectors_from_peers: stats.vectors_from_peers,
        },
        model: stats.model_id.clone(),
        detailed: detailed.map(|detailed| Detailed {
            staleness: detailed
                .staleness
                .iter()
                .map(|(kind, [fresh, aging, stale])| {
                    (kind.clone(), StalenessCounts { fresh: *fresh, aging: *aging, stale: *stale })
                })
                .collect(),
            facts: detailed.facts.clone(),
            entities: EntityCounts { records: detailed.entities.0, distinct: detailed.entities.1 },
            alias_candidates: detailed.alias_candidates,
            contradictions: detailed.contradictions,
            duplicates_collapsed: detailed.duplicates,
            corrected: detailed.corrected,
        }),
        files: FilesStats {
            watched: stats.watched,
            counts: stats.files.clone(),
            status: stats.watch.clone(),
            skipped_files: stats.skipped_files.clone(),
        },
        topics: None,
        shares: stats
            .shares
            .iter()
            .map(|share| ShareEntry {
                project: share.project.clone(),
                namespace: share.namespace.clone(),
                role: share.role.map_or("removed", |role| role.as_str()).to_owned(),
                members: share.members,
            })
            .collect(),
    }
}

/// Names devices by id: the registry's names, and this device's.
pub fn device_names(engine: &Engine) -> impl Fn(&str) -> Option<String> {
    let registry = engine.replica().registry();
    let me = engine.replica().device().to_owned();
    move |id: &str| registry.name_of(id).or_else(|| (id == me).then(|| "this device".to_owned()))
}

/// A tag and its count.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TagCount {
    /// The tag.
    pub tag: String,
    /// Memories carrying it.
    pub count: usize,
}

/// An entity and its count.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EntityCount {
    /// The entity (the canonical one of its class).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Memories about it.
    pub count: usize,
}

/// `topics`'s answer.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TopicsAnswer {
    /// The namespaces counted.
    pub namespaces: Vec<String>,
    /// Tags, most used first.
    pub tags: Vec<TagCount>,
    /// Entities, most mentioned first.
    pub entities: Vec<EntityCount>,
}

/// The `limit` most used tags (file chunks' `file:` tags among them) and
/// entities of the namespaces `reach` spans.
pub fn topics_of(engine: &Engine, reach: &Reach, limit: usize) -> Result<TopicsAnswer, ToolError> {
    let topics = engine.topics(reach, limit)?;
    Ok(TopicsAnswer {
        namespaces: engine.spanned(reach)?,
        tags: topics.tags.into_iter().map(|(tag, count)| TagCount { tag, count }).collect(),
        entities: topics
            .entities
            .into_iter()
            .map(|(id, name, count)| EntityCount { id, name, count })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_memory(kind: &str, file: Option<FileRef>) -> Memory {
        Memory {
            id: "m1".into(),
            kind: kind.into(),
            file,
            namespace: "acme-api".into(),
            created_at: "2026-12-03T08:00:00Z".into(),
            t_valid: "2026-12-03T08:00:00Z".into(),
            confidence: 0.9,
            evidence: 2,
            content: ContentFields {
                subject: Some("api-server".into()),
                predicate: Some("port".into()),
                object: Some("8443".into()),
                ..ContentFields::default()
            },
            standing: Standing {
                current: Some(true),
                status: Some("current".into()),
                superseded_by: vec!["m0".into()],
                ..Standing::default()
            },
            tags: vec!["ops".into()],
            entities: Vec::new(),
            source: None,
            context: Some("deploy".into()),
        }
    }

    /// What the commands read back is what the tool wrote: the answer
    /// serialized, read as its type and serialized again, is the same
    /// JSON, with every optional part present and absent.
    #[test]
    fn recall_answers_read_back_as_written() {
        let file = FileRef { path: "docs/deploy.md".into(), heading: Some("Ports".into()) };
        for (namespaces, pending, file) in [
            (vec![], None, None),
            (
                vec!["acme-api".to_owned(), "default".to_owned()],
                Some(Pending {
                    without_vectors: 3,
                    without_passages: 1,
                    dense_partial: true,
                    waited_ms: 20,
                    note: "3 memories still being embedded".into(),
                }),
                Some(file),
            ),
        ] {
            let answer = RecallAnswer {
                query: "api-server port".into(),
                namespace: "acme-api".into(),
                namespaces,
                count: 1,
                results: vec![RecalledMemory {
                    memory: sample_memory("semantic", file),
                    score: 0.5,
                    trust: 0.8,
                    staleness: "fresh".into(),
                }],
                pending,
                validated: None,
            };
            reads_back_as_written(&answer);
        }
    }

    /// `answer` serialized, read as its type and serialized again, is the
    /// same JSON.
    fn reads_back_as_written<T: Serialize + serde::de::DeserializeOwned>(answer: &T) {
        let written = serde_json::to_value(answer).unwrap();
        let read: T = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), written);
    }

    #[test]
    fn store_answers_read_back_as_written() {
        let duplicate = StoreAnswer {
            id: "m1".into(),
            status: "duplicate".into(),
            memory_type: "episodic".into(),
            namespace: "default".into(),
            entities: Vec::new(),
            predicate: None,
            predicate_match: None,
            predicate_written: None,
            cardinality: None,
            predicate_candidates: Vec::new(),
            existing_id: Some("m1".into()),
            evidence: Some(2),
            redacted: Vec::new(),
            supersedes: Vec::new(),
            ambiguous_with: Vec::new(),
            note: None,
            corrects: Vec::new(),
        };
        reads_back_as_written(&duplicate);
        let stored = StoreAnswer {
            id: "m2".into(),
            status: "stored".into(),
            memory_type: "semantic".into(),
            entities: vec![EntityMatch {
                name: "api".into(),
                id: "e1".into(),
                method: "new".into(),
            }],
            predicate: Some("port".into()),
            predicate_match: Some("synonym".into()),
            predicate_written: Some("listens_on".into()),
            cardinality: Some("one".into()),
            predicate_candidates: vec!["port_number".into()],
            existing_id: None,
            evidence: None,
            redacted: vec![Redacted { field: "object".into(), found: "token".into() }],
            supersedes: vec!["m0".into()],
            ambiguous_with: vec!["m3".into()],
            note: Some("both are kept".into()),
            corrects: vec![Correction { id: "m4".into(), why: "value changed".into() }],
            ..duplicate
        };
        reads_back_as_written(&stored);
    }
}
