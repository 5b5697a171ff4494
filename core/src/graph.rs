//! Entities and the explicit edges between records.

use std::{fmt, str::FromStr};

use crate::Timestamp;

/// Something memories are about: a person, a service, a library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    /// Random, globally unique id.
    pub id: String,
    /// The name as first written.
    pub name: String,
    /// What sort of thing it is (`person`, `service`, ...), if known.
    pub kind: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// The device that created it.
    pub created_by: String,
}

/// Another name an entity is known by, recorded by the device that matched it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// The entity the alias names.
    pub entity_id: String,
    /// The alias as written.
    pub name: String,
    /// How the match was made (`exact`, `fuzzy`, `embedding`).
    pub method: String,
    /// When it was recorded.
    pub created_at: Timestamp,
    /// The device that recorded it.
    pub created_by: String,
}

/// The kinds of edge ferrex records.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// `from` (a memory) replaces `to` (an older memory).
    Supersedes,
    /// `from` and `to` (entities) are the same thing.
    SameAs,
    /// `from` and `to` (entities) are related.
    RelatesTo,
    /// `from` (free text) corrects a detail of `to` (older free text).
    Corrects,
    /// `from` (an entity) may be the same as `to`: a near miss of entity
    /// resolution, for a person to confirm.
    AliasCandidate,
    /// The predicates of facts `from` and `to` name one attribute: a
    /// judgement on facts a peer stored under another wording.
    SamePredicate,
    /// The predicate of fact `from` may name the attribute of fact `to`'s:
    /// a near miss of predicate resolution, for a person to confirm.
    PredicateCandidate,
    /// `from` (a memory) is a newer version of `to`, written by `update`:
    /// forgetting one forgets every version.
    VersionOf,
    /// A relation type an agent named.
    Other(String),
}

impl EdgeKind {
    /// The name stored in documents.
    pub fn as_str(&self) -> &str {
        match self {
            EdgeKind::Supersedes => "supersedes",
            EdgeKind::SameAs => "same_as",
            EdgeKind::RelatesTo => "relates_to",
            EdgeKind::Corrects => "corrects",
            EdgeKind::AliasCandidate => "alias_candidate",
            EdgeKind::SamePredicate => "same_predicate",
            EdgeKind::PredicateCandidate => "predicate_candidate",
            EdgeKind::VersionOf => "version_of",
            EdgeKind::Other(name) => name,
        }
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for EdgeKind {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "supersedes" => EdgeKind::Supersedes,
            "same_as" => EdgeKind::SameAs,
            "relates_to" => EdgeKind::RelatesTo,
            "corrects" => EdgeKind::Corrects,
            "alias_candidate" => EdgeKind::AliasCandidate,
            "same_predicate" => EdgeKind::SamePredicate,
            "predicate_candidate" => EdgeKind::PredicateCandidate,
            "version_of" => EdgeKind::VersionOf,
            other => EdgeKind::Other(other.to_owned()),
        })
    }
}

/// A directed, typed edge. Edges are only ever added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// What the edge means.
    pub kind: EdgeKind,
    /// Source id.
    pub from: String,
    /// Target id.
    pub to: String,
    /// When it was recorded.
    pub created_at: Timestamp,
    /// The device that recorded it.
    pub created_by: String,
}

impl Edge {
    /// The key of the edge in its document: `kind|from|to`. Two devices that
    /// record the same edge write the same key, so the edge set stays a set.
    pub fn key(&self) -> String {
        format!("{}|{}|{}", self.kind, self.from, self.to)
    }
}

/// The record that a memory was forgotten. Tombstones never expire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tombstone {
    /// The forgotten memory.
    pub memory_id: String,
    /// When.
    pub at: Timestamp,
    /// By which device.
    pub by: String,
}
