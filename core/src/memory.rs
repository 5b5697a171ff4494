//! What a memory is: its kind, its content, and the facts recorded about it.

use std::{collections::BTreeMap, fmt, str::FromStr};

use crate::{Namespace, Timestamp};

/// The three kinds of memory ferrex keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryKind {
    /// A free-text event: something that happened.
    Episodic,
    /// A subject–predicate–object fact, valid from `t_valid` until superseded.
    Semantic,
    /// Free-text know-how: how to do something.
    Procedural,
}

impl MemoryKind {
    /// Every kind, in a fixed order.
    pub const ALL: [MemoryKind; 3] =
        [MemoryKind::Episodic, MemoryKind::Semantic, MemoryKind::Procedural];

    /// The name used in documents and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Episodic => "episodic",
            MemoryKind::Semantic => "semantic",
            MemoryKind::Procedural => "procedural",
        }
    }
}

impl fmt::Display for MemoryKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A memory kind name that is not one of `episodic`, `semantic`, `procedural`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown memory type {0:?}: expected episodic, semantic or procedural")]
pub struct UnknownKind(pub String);

impl FromStr for MemoryKind {
    type Err = UnknownKind;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        MemoryKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| UnknownKind(text.to_owned()))
    }
}

/// A subject–predicate–object fact, as the agent wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Triple {
    /// What the fact is about, for example `api-server`.
    pub subject: String,
    /// The relation, for example `port`.
    pub predicate: String,
    /// The value, for example `8080`.
    pub object: String,
}

impl Triple {
    /// The text a triple is embedded and searched as.
    pub fn text(&self) -> String {
        format!("{} {} {}", self.subject, self.predicate.replace('_', " "), self.object)
    }
}

/// What a memory says.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Content {
    /// Free text (episodic and procedural memories).
    Text(String),
    /// A fact (semantic memories).
    Triple(Triple),
}

impl Content {
    /// The text this content is embedded and searched as.
    pub fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Triple(triple) => triple.text(),
        }
    }

    /// The free text, when this is not a fact.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Triple(_) => None,
        }
    }

    /// The triple, when this is a fact.
    pub fn triple(&self) -> Option<&Triple> {
        match self {
            Content::Triple(triple) => Some(triple),
            Content::Text(_) => None,
        }
    }
}

/// A memory with everything its document records about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    /// Random, globally unique id.
    pub id: String,
    /// Which kind of memory this is.
    pub kind: MemoryKind,
    /// What it says.
    pub content: Content,
    /// The namespace it belongs to.
    pub namespace: Namespace,
    /// How sure the writer was, 0..=1.
    pub confidence: f64,
    /// Where it came from (a file, a URL, a conversation), if given.
    pub source: Option<String>,
    /// Free-form context the agent attached, if any.
    pub context: Option<String>,
    /// Labels the agent attached.
    pub tags: Vec<String>,
    /// Ids of the entities the memory mentions.
    pub entity_ids: Vec<String>,
    /// When it was stored.
    pub created_at: Timestamp,
    /// The device that stored it.
    pub created_by: String,
    /// When the fact became true (the store time unless given).
    pub t_valid: Timestamp,
    /// How many times it was stored or confirmed (a counter in the document).
    pub evidence: i64,
    /// The last time each device validated it.
    pub validated: BTreeMap<String, Timestamp>,
    /// Recall statistics each device folded into the document.
    pub access: BTreeMap<String, AccessStat>,
}

impl Memory {
    /// When any device last validated this memory (max over devices).
    pub fn last_validated(&self) -> Option<Timestamp> {
        self.validated.values().copied().max()
    }

    /// Recalls summed over devices.
    pub fn access_count(&self) -> u64 {
        self.access.values().map(|stat| stat.count).sum()
    }

    /// The last recall on any device.
    pub fn last_access(&self) -> Option<Timestamp> {
        self.access.values().filter_map(|stat| stat.last).max()
    }
}

/// How often one device recalled a memory, and when last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccessStat {
    /// Recalls on that device.
    pub count: u64,
    /// The last one.
    pub last: Option<Timestamp>,
}
