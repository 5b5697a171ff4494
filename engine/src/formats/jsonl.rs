//! ferrex's own export format, JSON Lines: a header line, then one line per
//! record — devices (for reading), entities, aliases, memories, edges —
//! holding everything the documents hold of it, so that an import into an
//! empty home restores the records as they were (ids, times, devices,
//! counters, judgements). A person can read it and `jq` it.
//!
//! ```text
//! {"type":"ferrex-export","version":1,"exported_at":"…","device":"…"}
//! {"type":"device","id":"…","name":"laptop"}
//! {"type":"entity","namespace":"default","id":"…","name":"api-server",…}
//! {"type":"alias","namespace":"default","key":"…","entity":"…","name":"the api",…}
//! {"type":"memory","namespace":"default","id":"…","kind":"semantic","subject":"api-server",…}
//! {"type":"edge","namespace":"default","kind":"supersedes","from":"…","to":"…",…}
//! ```

use std::collections::BTreeMap;

use ferrex_core::{
    AccessStat, Alias, Content, Edge, EdgeKind, Entity, Memory, MemoryKind, Namespace, Timestamp,
    Triple, predicate::Cardinality,
};
use ferrex_sync::{Archive, ArchivedAlias, StoredMemory};
use serde::{Deserialize, Serialize};

use crate::{base::clock, formats::Reading};

/// The `type` of the first line.
pub const HEADER_TYPE: &str = "ferrex-export";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// A time as the format writes it: ISO-8601 in UTC with milliseconds
/// (exact: the documents keep milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time(pub Timestamp);

impl Serialize for Time {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&clock::iso(self.0))
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        clock::parse(&text)
            .map(Time)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not an ISO-8601 time")))
    }
}

/// One line of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    /// The first line: what this is.
    #[serde(rename = "ferrex-export")]
    Header {
        /// The format version.
        version: u32,
        /// When it was written.
        exported_at: Time,
        /// The device that wrote it.
        device: String,
    },
    /// A device that wrote some of the records, and its name.
    Device {
        /// Its id.
        id: String,
        /// Its name.
        name: Option<String>,
    },
    /// An entity.
    Entity(Box<EntityLine>),
    /// An alias of an entity.
    Alias(Box<AliasLine>),
    /// A memory with its counters.
    Memory(Box<MemoryLine>),
    /// An edge.
    Edge(Box<EdgeLine>),
}

/// An entity's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityLine {
    /// Its namespace.
    pub namespace: String,
    /// Its id.
    pub id: String,
    /// Its name as first written.
    pub name: String,
    /// What sort of thing it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// When it was created.
    pub created_at: Time,
    /// By which device.
    pub created_by: String,
}

/// An alias's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AliasLine {
    /// Its namespace.
    pub namespace: String,
    /// Its key in the document.
    pub key: String,
    /// The entity it names.
    pub entity: String,
    /// The alias as written.
    pub name: String,
    /// How it was matched.
    pub method: String,
    /// The memory that introduced it (it dies with that memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// When it was recorded.
    pub created_at: Time,
    /// By which device.
    pub created_by: String,
}

/// How often one device recalled a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessLine {
    /// Recalls.
    pub count: u64,
    /// The last one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Time>,
}

/// A memory's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryLine {
    /// Its namespace.
    pub namespace: String,
    /// Its id.
    pub id: String,
    /// `episodic`, `semantic` or `procedural`.
    pub kind: String,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A fact's subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// A fact's predicate (as filed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    /// A fact's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// The entity a fact's subject resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject_entity: Option<String>,
    /// The predicate as written, when it was filed under another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicate_written: Option<String>,
    /// A fact's predicate's cardinality when it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cardinality: Option<String>,
    /// 0 to 1.
    pub confidence: f64,
    /// Where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Context kept with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Ids of the entities it mentions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// When it was stored.
    pub created_at: Time,
    /// By which device.
    pub created_by: String,
    /// When what it says happened or became true.
    pub t_valid: Time,
    /// How many times it was stored or confirmed.
    pub evidence: i64,
    /// When each device last confirmed it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub validated: BTreeMap<String, Time>,
    /// Each device's recalls of it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub access: BTreeMap<String, AccessLine>,
}

/// An edge's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeLine {
    /// Its namespace.
    pub namespace: String,
    /// What it means (`supersedes`, `corrects`, `same_as`, …).
    pub kind: String,
    /// Where it starts.
    pub from: String,
    /// Where it ends.
    pub to: String,
    /// When it was recorded.
    pub created_at: Time,
    /// By which device.
    pub created_by: String,
}

/// The lines of `archive` (of `namespace`): entities, aliases, memories,
/// edges.
pub fn lines(namespace: &Namespace, archive: &Archive) -> Vec<Line> {
    let ns = || namespace.as_str().to_owned();
    let mut lines = Vec::new();
    lines.extend(archive.entities.iter().map(|entity| {
        Line::Entity(Box::new(EntityLine {
            namespace: ns(),
            id: entity.id.clone(),
            name: entity.name.clone(),
            kind: entity.kind.clone(),
            created_at: Time(entity.created_at),
            created_by: entity.created_by.clone(),
        }))
    }));
    lines.extend(archive.aliases.iter().map(|archived| {
        Line::Alias(Box::new(AliasLine {
            namespace: ns(),
            key: archived.key.clone(),
            entity: archived.alias.entity_id.clone(),
            name: archived.alias.name.clone(),
            method: archived.alias.method.clone(),
            memory: archived.memory.clone(),
            created_at: Time(archived.alias.created_at),
            created_by: archived.alias.created_by.clone(),
        }))
    }));
    lines.extend(
        archive
            .memories
            .iter()
            .map(|stored| Line::Memory(Box::new(memory_line(namespace, stored)))),
    );
    lines.extend(archive.edges.iter().map(|edge| {
        Line::Edge(Box::new(EdgeLine {
            namespace: ns(),
            kind: edge.kind.as_str().to_owned(),
            from: edge.from.clone(),
            to: edge.to.clone(),
            created_at: Time(edge.created_at),
            created_by: edge.created_by.clone(),
        }))
    }));
    lines
}

fn memory_line(namespace: &Namespace, stored: &StoredMemory) -> MemoryLine {
    let memory = &stored.memory;
    let triple = memory.content.triple();
    MemoryLine {
        namespace: namespace.as_str().to_owned(),
        id: memory.id.clone(),
        kind: memory.kind.as_str().to_owned(),
        content: memory.content.as_text().map(str::to_owned),
        subject: triple.map(|triple| triple.subject.clone()),
        predicate: triple.map(|triple| triple.predicate.clone()),
        object: triple.map(|triple| triple.object.clone()),
        subject_entity: stored.subject_entity.clone(),
        predicate_written: stored.predicate_written.clone(),
        cardinality: stored.cardinality.map(|cardinality| cardinality.as_str().to_owned()),
        confidence: memory.confidence,
        source: memory.source.clone(),
        context: memory.context.clone(),
        tags: memory.tags.clone(),
        entities: memory.entity_ids.clone(),
        created_at: Time(memory.created_at),
        created_by: memory.created_by.clone(),
        t_valid: Time(memory.t_valid),
        evidence: memory.evidence,
        validated: memory
            .validated
            .iter()
            .map(|(device, at)| (device.clone(), Time(*at)))
            .collect(),
        access: memory
            .access
            .iter()
            .map(|(device, stat)| {
                (device.clone(), AccessLine { count: stat.count, last: stat.last.map(Time) })
            })
            .collect(),
    }
}

/// A memory line as a stored memory of `namespace`.
fn stored_memory(namespace: &Namespace, line: &MemoryLine) -> Result<StoredMemory, String> {
    let kind: MemoryKind = line
        .kind
        .parse()
        .map_err(|_| format!("kind {:?} is not episodic, semantic or procedural", line.kind))?;
    let content = match (&line.content, &line.subject, &line.predicate, &line.object) {
        (Some(text), None, None, None) if kind != MemoryKind::Semantic => {
            Content::Text(text.clone())
        }
        (None, Some(subject), Some(predicate), Some(object)) if kind == MemoryKind::Semantic => {
            Content::Triple(Triple {
                subject: subject.clone(),
                predicate: predicate.clone(),
                object: object.clone(),
            })
        }
        _ => {
            return Err("a memory has content (episodic, procedural) or subject, predicate and \
                 object (semantic)"
                .to_owned());
        }
    };
    if !(0.0..=1.0).contains(&line.confidence) {
        return Err(format!("confidence {} is not between 0 and 1", line.confidence));
    }
    if line.evidence < 1 {
        return Err(format!("evidence {} is less than 1", line.evidence));
    }
    let cardinality = line.cardinality.as_deref().map(str::parse::<Cardinality>).transpose()?;
    Ok(StoredMemory {
        memory: Memory {
            id: line.id.clone(),
            kind,
            content,
            namespace: namespace.clone(),
            confidence: line.confidence,
            source: line.source.clone(),
            context: line.context.clone(),
            tags: line.tags.clone(),
            entity_ids: line.entities.clone(),
            created_at: line.created_at.0,
            created_by: line.created_by.clone(),
            t_valid: line.t_valid.0,
            evidence: line.evidence,
            validated: line.validated.iter().map(|(device, at)| (device.clone(), at.0)).collect(),
            access: line
                .access
                .iter()
                .map(|(device, stat)| {
                    (
                        device.clone(),
                        AccessStat { count: stat.count, last: stat.last.map(|at| at.0) },
                    )
                })
                .collect(),
        },
        subject_entity: line.subject_entity.clone(),
        predicate_written: line.predicate_written.clone(),
        cardinality,
    })
}

/// Why an export could not be read: the first line that makes no sense
/// (`None`: the file as a whole) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", line.map(|number| format!("line {number}: ")).unwrap_or_default())]
pub struct BadLine {
    /// The line's number in its file, from 1.
    pub line: Option<usize>,
    /// What is wrong with it.
    pub reason: String,
}

impl BadLine {
    /// Line `line` of the file, and why it is bad.
    pub fn at(line: usize, reason: String) -> BadLine {
        BadLine { line: Some(line), reason }
    }
}

/// Reads an export's lines: the first must be the header, and every other
/// line must parse and make sense, or the error names the first that does
/// not and why (keeping going, `reading` notes it and skips it). The
/// records, with their line numbers, by the namespace they go into (their
/// own, or `into`).
pub fn parse(
    text: &str,
    into: Option<&Namespace>,
    reading: &mut Reading,
) -> Result<BTreeMap<Namespace, Vec<(usize, Line)>>, BadLine> {
    let mut records: BTreeMap<Namespace, Vec<(usize, Line)>> = BTreeMap::new();
    let mut header = false;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = match serde_json::from_str(raw) {
            Ok(line) => line,
            // Without a header, this is not an export at all.
            Err(error) if !header => return Err(BadLine::at(number, error.to_string())),
            Err(error) => {
                reading.bad(BadLine::at(number, error.to_string()))?;
                continue;
            }
        };
        let namespace = match (&line, header) {
            (Line::Header { version, .. }, false) if *version == VERSION => {
                header = true;
                continue;
            }
            (Line::Header { version, .. }, false) => {
                return Err(BadLine::at(
                    number,
                    format!("format version {version}; this ferrex reads version {VERSION}"),
                ));
            }
            (_, false) => {
                return Err(BadLine::at(
                    number,
                    format!("a ferrex export starts with a {HEADER_TYPE:?} line"),
                ));
            }
            (Line::Header { .. }, true) => {
                reading.bad(BadLine::at(number, "a second header".into()))?;
                continue;
            }
            (Line::Device { .. }, true) => continue,
            (Line::Entity(entity), true) => &entity.namespace,
            (Line::Alias(alias), true) => &alias.namespace,
            (Line::Memory(memory), true) => &memory.namespace,
            (Line::Edge(edge), true) => &edge.namespace,
        };
        let namespace = match into {
            Some(namespace) => namespace.clone(),
            None => match Namespace::parse(namespace) {
                Ok(namespace) => namespace,
                Err(error) => {
                    reading.bad(BadLine::at(number, error.to_string()))?;
                    continue;
                }
            },
        };
        let record = (number, line);
        if let Err(why) = archive(&namespace, std::slice::from_ref(&record)) {
            reading.bad(why)?;
            continue;
        }
        records.entry(namespace).or_default().push(record);
    }
    if !header {
        return Err(BadLine {
            line: None,
            reason: format!(
                "the file is empty: a ferrex export starts with a {HEADER_TYPE:?} line"
            ),
        });
    }
    Ok(records)
}

/// The records of `lines` (numbered as in their file) as an archive of
/// `namespace`; the error names the first line that makes no sense.
pub fn archive(namespace: &Namespace, lines: &[(usize, Line)]) -> Result<Archive, BadLine> {
    let mut archive = Archive::default();
    for (number, line) in lines {
        let at = |what: String| BadLine::at(*number, what);
        match line {
            Line::Header { .. } | Line::Device { .. } => {}
            Line::Entity(entity) => {
                non_empty(&entity.id, "id").map_err(at)?;
                archive.entities.push(Entity {
                    id: entity.id.clone(),
                    name: entity.name.clone(),
                    kind: entity.kind.clone(),
                    created_at: entity.created_at.0,
                    created_by: entity.created_by.clone(),
                });
            }
            Line::Alias(alias) => {
                non_empty(&alias.key, "key").map_err(at)?;
                archive.aliases.push(ArchivedAlias {
                    key: alias.key.clone(),
                    alias: Alias {
                        entity_id: alias.entity.clone(),
                        name: alias.name.clone(),
                        method: alias.method.clone(),
                        created_at: alias.created_at.0,
                        created_by: alias.created_by.clone(),
                    },
                    memory: alias.memory.clone(),
                });
            }
            Line::Memory(memory) => {
                non_empty(&memory.id, "id").map_err(at)?;
                let stored = stored_memory(namespace, memory)
                    .map_err(|error| at(format!("memory {}: {error}", memory.id)))?;
                archive.memories.push(stored);
            }
            Line::Edge(edge) => {
                let kind = edge
                    .kind
                    .parse::<EdgeKind>()
                    .map_err(|_| at(format!("edge kind {:?} is unknown", edge.kind)))?;
                archive.edges.push(Edge {
                    kind,
                    from: edge.from.clone(),
                    to: edge.to.clone(),
                    created_at: edge.created_at.0,
                    created_by: edge.created_by.clone(),
                });
            }
        }
    }
    Ok(archive)
}

fn non_empty(text: &str, field: &str) -> Result<(), String> {
    if text.trim().is_empty() { Err(format!("{field} is empty")) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

    use super::{BadLine, parse};
    use crate::formats::Reading;

    const HEADER: &str = r#"{"type":"ferrex-export","version":1,"exported_at":"2026-11-24T10:00:00.000Z","device":"d"}"#;

    #[test]
    fn a_bad_export_names_its_first_bad_line_or_the_file() {
        let mut reading = Reading::default();
        let empty = parse("\n\n", None, &mut reading).unwrap_err();
        assert_eq!(empty.line, None, "{empty}");
        assert!(empty.to_string().starts_with("the file is empty"), "{empty}");
        let headless = parse(r#"{"type":"edge"}"#, None, &mut reading).unwrap_err();
        assert_eq!(headless.line, Some(1), "{headless}");
        let newer = HEADER.replace(r#""version":1"#, r#""version":9"#);
        let BadLine { line, reason } = parse(&newer, None, &mut reading).unwrap_err();
        assert_eq!((line, reason.contains("version 9")), (Some(1), true));
        let text = format!("{HEADER}\nnot json\n{HEADER}\n");
        let bad = parse(&text, None, &mut reading).unwrap_err();
        assert_eq!(bad.line, Some(2), "{bad}");
        assert!(bad.to_string().starts_with("line 2: "), "{bad}");
        // Keeping going, each bad line is noted by its number and skipped.
        let mut going = Reading { keep_going: true, ..Reading::default() };
        let records = parse(&text, None, &mut going).unwrap();
        assert!(records.is_empty());
        assert_eq!(going.skipped.len(), 2, "{:?}", going.skipped);
        assert!(going.skipped[0].starts_with("line 2: "), "{:?}", going.skipped);
        assert_eq!(going.skipped[1], "line 3: a second header");
    }
}
