//! The memory row: how a memory is projected into the index.

use ferrex_core::{Memory, MemoryKind};
use ferrex_sync::StoredMemory;
use rusqlite::Row;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::clock;

/// One memory as the index holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryRow {
    /// Memory id.
    pub id: String,
    /// The document (shard) holding it.
    pub doc: String,
    /// Namespace.
    pub namespace: String,
    /// Kind.
    pub kind: MemoryKind,
    /// The searchable text: the content, or the fact as a sentence.
    pub text: String,
    /// A fact's subject.
    pub subject: Option<String>,
    /// A fact's (normalised) predicate.
    pub predicate: Option<String>,
    /// A fact's object.
    pub object: Option<String>,
    /// The entity a fact's subject resolved to.
    pub subject_entity: Option<String>,
    /// The predicate as written, when normalisation changed it.
    pub predicate_written: Option<String>,
    /// A fact's predicate's cardinality as recorded (`one`, `many`).
    pub cardinality: Option<String>,
    /// 0..=1.
    pub confidence: f64,
    /// Where it came from.
    pub source: Option<String>,
    /// Context.
    pub context: Option<String>,
    /// Labels.
    pub tags: Vec<String>,
    /// Entity ids.
    pub entities: Vec<String>,
    /// Creation time (ms).
    pub created_at: i64,
    /// Creating device.
    pub created_by: String,
    /// Valid-from time (ms).
    pub t_valid: i64,
    /// Evidence counter.
    pub evidence: i64,
    /// Last validation on any device (ms).
    pub last_validated: Option<i64>,
    /// Recalls folded into the document, over all devices.
    pub access_count: i64,
    /// Last folded recall on any device (ms).
    pub last_access: Option<i64>,
    /// Hash of the kind and normalised text: equal for exact duplicates.
    pub content_hash: String,
    /// What the derived view says of it (kept by the indexer; not set by
    /// [`MemoryRow::from_stored`]).
    pub derived: Derived,
}

/// The derived view of one memory (see `ferrex_core::beliefs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// A fact's subject: its canonical entity, or `name:` and its name.
    pub subject_key: Option<String>,
    /// `active` (not a fact), `current`, `contested`, `duplicate` (a fact
    /// another standing fact already states) or `superseded`.
    pub status: String,
    /// Live memories that supersede it.
    pub superseded_by: Vec<String>,
    /// Facts it contradicts.
    pub contradicts: Vec<String>,
    /// When it stopped being valid.
    pub t_invalid: Option<i64>,
    /// The memory it is an exact duplicate of.
    pub duplicate_of: Option<String>,
    /// Newer memories that correct it.
    pub corrected_by: Vec<String>,
    /// The predicate a fact's group is filed under (its own, or its
    /// class's).
    pub predicate_key: Option<String>,
}

/// A memory's standing in the derived view: whether a fact is current, what
/// superseded or corrected it.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Standing {
    /// A fact: whether it is its subject's current value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<bool>,
    /// A fact's status (`current`, `superseded`, `contested`); text's only
    /// when superseded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Facts this one contradicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contradicts: Vec<String>,
    /// Memories that superseded this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded_by: Vec<String>,
    /// When it stopped being true (ISO-8601).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_invalid: Option<String>,
    /// Text that corrected this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrected_by: Vec<String>,
}

impl MemoryRow {
    /// Its standing, as answers tell it.
    pub fn standing(&self) -> Standing {
        let derived = &self.derived;
        let fact = self.kind == MemoryKind::Semantic;
        Standing {
            current: fact.then(|| derived.status == "current"),
            status: (fact || derived.status == "superseded").then(|| derived.status.clone()),
            contradicts: if fact { derived.contradicts.clone() } else { Vec::new() },
            superseded_by: derived.superseded_by.clone(),
            t_invalid: derived.t_invalid.map(|at| clock::iso(ferrex_core::Timestamp(at))),
            corrected_by: derived.corrected_by.clone(),
        }
    }
}

impl Default for Derived {
    fn default() -> Self {
        Derived {
            subject_key: None,
            predicate_key: None,
            status: "active".into(),
            superseded_by: vec![],
            contradicts: vec![],
            t_invalid: None,
            duplicate_of: None,
            corrected_by: vec![],
        }
    }
}

impl MemoryRow {
    /// Projects a stored memory of document `doc`.
    pub fn from_stored(stored: &StoredMemory, doc: &str) -> MemoryRow {
        let memory: &Memory = &stored.memory;
        let triple = memory.content.triple();
        let text = memory.content.text();
        MemoryRow {
            id: memory.id.clone(),
            doc: doc.to_owned(),
            namespace: memory.namespace.as_str().to_owned(),
            kind: memory.kind,
            content_hash: if ferrex_core::chunk::is_file_chunk(memory.source.as_deref()) {
                chunk_hash(&text)
            } else {
                content_hash(memory.kind, &text)
            },
            text,
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
            created_at: memory.created_at.0,
            created_by: memory.created_by.clone(),
            t_valid: memory.t_valid.0,
            evidence: memory.evidence,
            last_validated: memory.last_validated().map(|time| time.0),
            access_count: memory.access_count() as i64,
            last_access: memory.last_access().map(|time| time.0),
            derived: Derived::default(),
        }
    }

    /// What full-text search matches besides the text: the context and the
    /// tags (weighted half as much as the text; see `search.rs`).
    pub fn keyword_context(&self) -> String {
        let mut context = self.context.clone().unwrap_or_default();
        for tag in &self.tags {
            context.push(' ');
            context.push_str(tag);
        }
        context
    }

    /// The columns `SELECT`ed by [`MemoryRow::from_sql`], in order.
    pub(crate) const COLUMNS: &'static str = "id, doc, namespace, kind, text, subject, predicate, \
        object, subject_entity, predicate_written, cardinality, confidence, source, context, tags, \
        entities, created_at, created_by, t_valid, evidence, last_validated, access_count, last_access, \
        content_hash, subject_key, status, superseded_by, contradicts, t_invalid, duplicate_of, \
        corrected_by, predicate_key";

    pub(crate) fn from_sql(row: &Row<'_>) -> rusqlite::Result<MemoryRow> {
        let kind: String = row.get(3)?;
        let list = |index: usize| -> rusqlite::Result<Vec<String>> {
            let text: String = row.get(index)?;
            Ok(serde_json::from_str(&text).unwrap_or_default())
        };
        Ok(MemoryRow {
            id: row.get(0)?,
            doc: row.get(1)?,
            namespace: row.get(2)?,
            kind: kind.parse().unwrap_or(MemoryKind::Episodic),
            text: row.get(4)?,
            subject: row.get(5)?,
            predicate: row.get(6)?,
            object: row.get(7)?,
            subject_entity: row.get(8)?,
            predicate_written: row.get(9)?,
            cardinality: row.get(10)?,
            confidence: row.get(11)?,
            source: row.get(12)?,
            context: row.get(13)?,
            tags: list(14)?,
            entities: list(15)?,
            created_at: row.get(16)?,
            created_by: row.get(17)?,
            t_valid: row.get(18)?,
            evidence: row.get(19)?,
            last_validated: row.get(20)?,
            access_count: row.get(21)?,
            last_access: row.get(22)?,
            content_hash: row.get(23)?,
            derived: Derived {
                subject_key: row.get(24)?,
                status: row.get(25)?,
                superseded_by: list(26)?,
                contradicts: list(27)?,
                t_invalid: row.get(28)?,
                duplicate_of: row.get(29)?,
                corrected_by: list(30)?,
                predicate_key: row.get(31)?,
            },
        })
    }
}

/// The content hash of a file chunk's text: apart from every memory's, so
/// that a memory with the same words is never the duplicate of a chunk
/// (nor a chunk of a memory).
pub fn chunk_hash(text: &str) -> String {
    content_hash(MemoryKind::Procedural, &format!("{} {text}", ferrex_core::chunk::FILE_SOURCE))
}

/// The hash exact duplicates share: kind plus text, case- and
/// whitespace-insensitive.
pub fn content_hash(kind: MemoryKind, text: &str) -> String {
    // Words lowercased and joined by one space, built in one buffer (a
    // synced shard hashes thousands of texts); `str::to_lowercase` for a
    // word that is not ASCII, for its final sigma.
    let mut normalised = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !normalised.is_empty() {
            normalised.push(' ');
        }
        if word.is_ascii() {
            normalised.extend(word.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            normalised.push_str(&word.to_lowercase());
        }
    }
    let mut hasher = Sha256::new();
    hasher.update(kind.as_str().as_bytes());
    hasher.update([0]);
    hasher.update(normalised.as_bytes());
    hex::encode(&hasher.finalize()[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash as it was first written (one allocation per word), which
    /// the faster one must match to the bit: the duplicate groups of an
    /// index built before it hold these values.
    fn content_hash_as_first_written(kind: MemoryKind, text: &str) -> String {
        let normalised: String =
            text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ");
        let mut hasher = Sha256::new();
        hasher.update(kind.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(normalised.as_bytes());
        hasher.finalize()[..16].iter().map(|byte| format!("{byte:02x}")).collect()
    }

    #[test]
    fn the_content_hash_is_the_one_first_written() {
        let texts = [
            "",
            "   ",
            "Deploy  with\tMAKE release\n",
            "ΟΔΥΣΣΕΥΣ sailed home",
            "Straße ÎLE Ǆemal İstanbul",
            "mixed Ascii and ÜNICODE words, punctuation!",
        ];
        for text in texts {
            for kind in [MemoryKind::Episodic, MemoryKind::Semantic] {
                assert_eq!(
                    content_hash(kind, text),
                    content_hash_as_first_written(kind, text),
                    "{text:?}"
                );
            }
        }
        assert_eq!(
            content_hash(MemoryKind::Episodic, "Hello   World"),
            content_hash(MemoryKind::Episodic, "hello world")
        );
    }
}
