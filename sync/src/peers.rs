//! What a node remembers about each peer between sessions, and how far apart
//! they are: the facts behind `ferrex peers` and `ferrex sync status`.
//!
//! Per peer, one JSON file `<state dir>/peers/<id>.json` holds when it was
//! last seen and where, and per document the heads both sides last agreed on
//! (the persisted Automerge sync state, so a reconnect starts from there),
//! the peer's last known heads, when the two were last in sync, and how many
//! changes the peer last said we lack. It is local bookkeeping, not truth:
//! losing it only makes the next sync slower.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::{Path, PathBuf},
};

use automerge::{ChangeHash, sync};
use ferrex_core::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{DocId, Replica};

/// What is remembered about one peer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PeerRecord {
    /// The last time a frame arrived from it (ms since the epoch).
    pub last_seen: Option<i64>,
    /// The address it was last connected from.
    pub last_addr: Option<SocketAddr>,
    /// Per document id.
    pub docs: BTreeMap<String, PeerDocRecord>,
}

/// What is remembered about one document with one peer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PeerDocRecord {
    /// Heads both sides had when they last agreed (hex).
    pub shared_heads: Vec<String>,
    /// The peer's heads as it last reported them (hex).
    pub their_heads: Vec<String>,
    /// When the two last had equal heads (ms since the epoch).
    pub last_sync: Option<i64>,
    /// How many changes the peer last said this node lacks.
    pub we_lack: Option<u64>,
}

impl PeerDocRecord {
    /// A sync state that resumes from the shared heads.
    pub fn sync_state(&self) -> sync::State {
        let mut state = sync::State::new();
        state.shared_heads = decode_heads(&self.shared_heads);
        state
    }

    /// The peer's last known heads.
    pub fn their_heads(&self) -> Vec<ChangeHash> {
        decode_heads(&self.their_heads)
    }

    /// The heads both sides last agreed on.
    pub fn shared(&self) -> Vec<ChangeHash> {
        decode_heads(&self.shared_heads)
    }
}

pub(crate) fn encode_heads(heads: &[ChangeHash]) -> Vec<String> {
    heads.iter().map(ToString::to_string).collect()
}

fn decode_heads(heads: &[String]) -> Vec<ChangeHash> {
    heads.iter().filter_map(|hash| hash.parse().ok()).collect()
}

/// The directory of peer files.
pub(crate) fn peers_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("peers")
}

impl PeerRecord {
    /// Loads the record of peer `id` (empty when there is none). The record
    /// is a cache: a damaged one is reported in the log and started afresh,
    /// which costs one slower sync.
    pub fn load(state_dir: &Path, id: &str) -> PeerRecord {
        let path = peers_dir(state_dir).join(format!("{id}.json"));
        match crate::state_file::load_json(&path) {
            Ok(record) => record.unwrap_or_default(),
            Err(error) => {
                tracing::error!("{error}; starting this peer's sync state afresh");
                PeerRecord::default()
            }
        }
    }

    /// Saves the record of peer `id`, durably and atomically (errors are
    /// logged, since the record is only a cache).
    pub fn save(&self, state_dir: &Path, id: &str) {
        let path = peers_dir(state_dir).join(format!("{id}.json"));
        if let Err(error) = crate::state_file::save_json(&path, self, false) {
            tracing::warn!("could not save the peer's sync state: {error}");
        }
    }
}

/// How one document stands with one peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocStatus {
    /// The document.
    pub doc: DocId,
    /// Changes this node has that the peer lacks, as far as this node knows;
    /// `None` when the two never exchanged anything.
    pub they_lack: Option<u64>,
    /// Changes the peer has that this node lacks; `None` when unknown.
    pub we_lack: Option<u64>,
    /// Whether both have the same heads, by the last word from the peer.
    pub in_sync: bool,
    /// When the two last had equal heads.
    pub last_sync: Option<Timestamp>,
}

/// How one paired device stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerStatus {
    /// Its endpoint id (hex).
    pub id: String,
    /// Its name.
    pub name: Option<String>,
    /// Whether a connection to it is open now.
    pub online: bool,
    /// The address of the open connection, else the last one seen.
    pub address: Option<SocketAddr>,
    /// Addresses the registry knows for it.
    pub known_addrs: Vec<SocketAddr>,
    /// When a frame last came from it.
    pub last_seen: Option<Timestamp>,
    /// Per document.
    pub docs: Vec<DocStatus>,
    /// Frame bytes sent to it by this process.
    pub bytes_sent: u64,
    /// Frame bytes received from it by this process.
    pub bytes_received: u64,
    /// UDP bytes sent on the open connection (QUIC and TLS included).
    pub udp_bytes_sent: u64,
    /// UDP bytes received on the open connection.
    pub udp_bytes_received: u64,
}

impl PeerStatus {
    /// Changes the peer lacks, over all documents; `None` when unknown for
    /// any of them.
    pub fn they_lack(&self) -> Option<u64> {
        self.docs.iter().map(|doc| doc.they_lack).sum()
    }

    /// Changes this node lacks, over all documents; `None` when unknown for
    /// any of them.
    pub fn we_lack(&self) -> Option<u64> {
        self.docs.iter().map(|doc| doc.we_lack).sum()
    }

    /// Whether every document is in sync.
    pub fn in_sync(&self) -> bool {
        self.docs.iter().all(|doc| doc.in_sync)
    }
}

/// The status of every document of `replica` with a peer, from `record`
/// (and, for a connected peer, the live heads and reports in it).
///
/// What the peer lacks is counted from its last known heads; a document it
/// never mentioned, after the two were in contact, it lacks entirely. What
/// this node lacks is 0 when it has all of the peer's last known heads, else
/// what the peer last reported; both are unknown for a peer never met.
pub(crate) fn doc_statuses(replica: &Replica, record: &PeerRecord) -> Vec<DocStatus> {
    let contacted = record.last_seen.is_some();
    replica
        .doc_ids()
        .into_iter()
        .map(|doc| {
            let remembered = record.docs.get(&doc.to_string()).cloned().unwrap_or_default();
            let their_heads = remembered.their_heads();
            let heard = !their_heads.is_empty();
            let they_lack = (heard || contacted)
                .then(|| replica.changes_missing_from(&doc, &their_heads, &remembered.shared()))
                .flatten()
                .map(|count| count as u64);
            let we_lack = if heard && replica.knows_heads(&doc, &their_heads) {
                Some(0)
            } else if contacted {
                remembered.we_lack
            } else {
                None
            };
            DocStatus {
                in_sync: they_lack == Some(0) && we_lack == Some(0),
                they_lack,
                we_lack,
                last_sync: remembered.last_sync.map(Timestamp),
                doc,
            }
        })
        .collect()
}
