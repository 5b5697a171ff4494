//! What the control socket replies to the commands, typed both ways: the
//! node writes these (`control::answered`) and the commands read them
//! ([`crate::surfaces::control::ask`]), so the two cannot drift apart.
//! A reindex (`ferrex reindex`), pairing (`ferrex invite`, `join`, `peers remove`) and sharing (`ferrex
//! share`, joining with a share's ticket, `ferrex share remove`). (The MCP
//! tools' answers are `ferrex_engine::answers`'s.)

use serde::{Deserialize, Serialize};

use ferrex_engine::formats::jsonl;

/// How far a reindex is: the `progress` events of `Reindex`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReindexProgress {
    /// The phase (`reading`, `embedding`…).
    pub phase: String,
    /// Done of it so far.
    pub done: u64,
    /// Its size.
    pub total: u64,
}

/// The events of `Export`: how many records follow, then each record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ExportEvent {
    /// How many records follow.
    Start {
        /// Their count.
        records: u64,
    },
    /// One record of the export.
    Line {
        /// The record.
        line: jsonl::Line,
    },
}

/// A batch of export records restored (`Restore`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RestoreDone {
    /// What it brought back, and what was here already.
    pub restored: ferrex_sync::Restored,
}

/// A reindex done (`Reindex`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reindexed {
    /// Memories indexed.
    pub memories: u64,
    /// Of those, embedded.
    pub embedded: u64,
}

/// A pairing ticket (`Invite`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invited {
    /// The ticket (`ferrex…`).
    pub ticket: String,
    /// When it stops working (RFC 3339).
    pub expires_at: String,
    /// This device's name.
    pub name: String,
}

/// A device paired (`Join`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    /// The device this one paired with.
    pub paired_with: DeviceRef,
}

/// A paired device removed (`RemovePeer`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerRemoved {
    /// The device.
    pub removed: DeviceRef,
    /// It was removed before.
    pub already_removed: bool,
}

/// What sharing a project would move (`SharePlan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharePlanned {
    /// The project is shared already: nothing moves.
    pub shared: bool,
    /// The namespace its memories are in now.
    pub namespace: String,
    /// Memories, entities and links that would move.
    pub memories: usize,
    /// See `memories`.
    pub entities: usize,
    /// See `memories`.
    pub edges: usize,
    /// Memories that stay this person's alone (sessions' events and
    /// exchanges, watched files).
    pub kept: usize,
}

/// What was moved into a share the first time it was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    /// Memories, entities and links moved.
    pub memories: usize,
    /// See `memories`.
    pub entities: usize,
    /// See `memories`.
    pub edges: usize,
    /// Memories kept out.
    pub kept: usize,
}

/// A ticket to a share (`Share`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareInvited {
    /// The ticket (`ferrexshare…`).
    pub ticket: String,
    /// When it stops working (RFC 3339).
    pub expires_at: String,
    /// The project shared.
    pub project: String,
    /// The role it gives.
    pub role: String,
    /// The share's namespace.
    pub namespace: String,
    /// What moved, when the share was made now.
    pub moved: Option<Moved>,
}

/// What joining with a share's ticket would bring (`SharePreview`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharePreviewed {
    /// The project shared.
    pub project: String,
    /// The role the ticket gives.
    pub role: String,
    /// Memories in the share now.
    pub memories: u64,
    /// The inviting device's name.
    pub name: String,
}

/// A share joined (`JoinShare`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareJoined {
    /// The project shared.
    pub project: String,
    /// The role given.
    pub role: String,
    /// The share's namespace: what recall names its results with.
    pub namespace: String,
    /// The inviting device's name.
    pub name: String,
}

/// A device, by id (hex) and the name it goes by, when known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceRef {
    /// Its id (hex).
    pub id: String,
    /// Its name.
    pub name: Option<String>,
}

/// A member removed (`RemoveMember`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRemoved {
    /// The project whose share it was removed from.
    pub project: String,
    /// The devices removed: the member, and those granted through it.
    pub removed: Vec<DeviceRef>,
}
