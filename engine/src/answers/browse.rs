//! What a person browses, in the terminal and on the web page: a `list`
//! page, a memory `show`n whole, an entity's page, and what became of each
//! memory `ingest`ed.

use serde::{Deserialize, Serialize};

use super::{EntityCount, EntityRef, HistoryStep, Memory, memory};
use crate::engine::Recalled;

/// An entity's page (the terminal's and the web page's `entity`; the
/// MCP tool's is [`super::graph::EntityAnswer`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct EntityPage {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
    /// The memories about it, newest first (superseded ones too).
    pub memories: Vec<Browsed>,
    /// Entities those memories are also about, with how many.
    pub neighbours: Vec<EntityCount>,
    /// Its relations, out and in.
    pub relations: Vec<Relation>,
}

/// A relation of an entity, as its page shows it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Relation {
    /// The relation type.
    pub relation: String,
    /// `out` (this entity is its source) or `in`.
    pub direction: String,
    /// The other end (canonical).
    pub id: String,
    /// Its name.
    pub name: String,
    /// How often it was stated, on every device.
    pub weight: i64,
    /// The devices that stated it, by name.
    pub by: Vec<String>,
}

/// What became of one ingested memory.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ingested {
    /// `stored`, `duplicate` (of a memory here, left as it was) or
    /// `refused`.
    pub status: String,
    /// The new memory, or the one it duplicates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Why it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A memory as a person browses it: no score, its staleness and trust.
#[derive(Debug, Serialize, Deserialize)]
pub struct Browsed {
    /// The memory.
    #[serde(flatten)]
    pub memory: Memory,
    /// Its confidence, grown by evidence, fading since last confirmed.
    pub trust: f64,
    /// `fresh`, `aging` or `stale`.
    pub staleness: String,
}

/// A recalled memory as a person browses it.
pub fn browsed(recalled: &Recalled) -> Browsed {
    Browsed {
        memory: memory(&recalled.row),
        trust: recalled.confidence,
        staleness: recalled.staleness.as_str().to_owned(),
    }
}

/// `list`'s answer.
#[derive(Debug, Serialize, Deserialize)]
pub struct ListAnswer {
    /// The namespaces listed.
    pub namespaces: Vec<String>,
    /// How many memories pass the filters.
    pub total: usize,
    /// How many were skipped.
    pub offset: usize,
    /// How many this page holds.
    pub count: usize,
    /// The page, newest first.
    pub memories: Vec<Browsed>,
}

/// An edge of a shown memory.
#[derive(Debug, Serialize, Deserialize)]
pub struct MemoryEdge {
    /// Its kind.
    pub kind: String,
    /// Where it starts.
    pub from: String,
    /// Where it ends.
    pub to: String,
}

/// `show`'s answer.
#[derive(Debug, Serialize, Deserialize)]
pub struct ShowAnswer {
    /// The memory.
    pub memory: Browsed,
    /// The entities it is about.
    pub entities: Vec<EntityRef>,
    /// The edges that start or end at it.
    pub edges: Vec<MemoryEdge>,
    /// Its belief's history, oldest first.
    pub history: Vec<HistoryStep>,
}
