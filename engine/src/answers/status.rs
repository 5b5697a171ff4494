//! How this device and its paired devices stand: what the node answers on
//! its socket for `ferrex peers` and `ferrex sync status`, what those print
//! with `--json`, and what the terminal's tables and the tests read back,
//! as one type. The node builds it (`node/src/surfaces/status.rs`); a field
//! that is `None` is left out of the JSON.

use serde::{Deserialize, Serialize};

use crate::answers::FilesStats;

/// `ferrex sync status --json`; `ferrex peers --json` is the same without
/// the detail ([`SyncStatus::peers_only`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct SyncStatus {
    /// Whether a node runs for the home (else this is what the documents
    /// and the sync state knew when it last ran).
    pub running: bool,
    /// This device.
    pub device: DeviceEntry,
    /// This node's documents and their heads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<DocumentHeads>>,
    /// Every paired device of this person.
    pub peers: Vec<PeerEntry>,
    /// What the index has not caught up with (a running node only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexState>,
    /// The watched folders of this device (a running node only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<FilesStats>,
    /// The shared projects this device is a member of (a running node
    /// only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shares: Option<Vec<ShareStanding>>,
}

impl SyncStatus {
    /// The status as `ferrex peers --json` prints it: the devices and the
    /// shares, without documents, per-document detail, index or files.
    pub fn peers_only(mut self) -> SyncStatus {
        self.documents = None;
        self.index = None;
        self.files = None;
        for peer in &mut self.peers {
            peer.documents = None;
        }
        self
    }

    /// The paired device `id`, if it is one.
    pub fn peer(&self, id: &str) -> Option<&PeerEntry> {
        self.peers.iter().find(|peer| peer.id == id)
    }
}

/// This device, as the status shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceEntry {
    /// Its endpoint id (hex).
    pub id: String,
    /// The first characters of the id, as people see it.
    pub short_id: String,
    /// Its name.
    pub name: String,
    /// The addresses it listens on (none when the node is not running).
    pub addrs: Vec<String>,
}

/// One document of this node and its heads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentHeads {
    /// The document (`registry`, `default/3`, …).
    pub doc: String,
    /// Its heads (hex change hashes).
    pub heads: Vec<String>,
}

/// How one paired device stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerEntry {
    /// Its endpoint id (hex).
    pub id: String,
    /// The first characters of the id.
    pub short_id: String,
    /// Its name, when known.
    pub name: Option<String>,
    /// Whether a connection to it is open now.
    pub online: bool,
    /// The address of the open connection, else the last one seen.
    pub address: Option<String>,
    /// The addresses the registry knows for it.
    pub known_addrs: Vec<String>,
    /// When a frame last came from it (RFC 3339).
    pub last_seen: Option<String>,
    /// Whether every document is in sync with it.
    pub in_sync: bool,
    /// Changes of this device it lacks, over all documents (`None`:
    /// unknown for one of them).
    pub they_lack: Option<u64>,
    /// Changes of it this device lacks.
    pub we_lack: Option<u64>,
    /// Sync frame bytes sent to it by this process.
    pub bytes_sent: u64,
    /// Sync frame bytes received from it by this process.
    pub bytes_received: u64,
    /// UDP bytes sent on the open connection (QUIC and TLS included).
    pub udp_bytes_sent: u64,
    /// UDP bytes received on it.
    pub udp_bytes_received: u64,
    /// Per document (left out of `ferrex peers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<DocumentSync>>,
}

/// How one document stands with a paired device or a share's member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentSync {
    /// The document.
    pub doc: String,
    /// Whether both had the same heads, by the last word from the other
    /// side.
    pub in_sync: bool,
    /// Changes this device has that the other lacks (`None`: the two never
    /// exchanged anything).
    pub they_lack: Option<u64>,
    /// Changes the other has that this device lacks.
    pub we_lack: Option<u64>,
    /// When the two last had equal heads (RFC 3339).
    pub last_sync: Option<String>,
}

/// What the index of a running node has not caught up with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexState {
    /// Document changes merged but not indexed yet.
    pub lag_changes: usize,
    /// Memories waiting for their vector.
    pub embeddings_queued: i64,
}

/// A shared project this device is a member of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareStanding {
    /// The project.
    pub project: String,
    /// The namespace of its documents.
    pub namespace: String,
    /// The share's id (hex).
    pub share: String,
    /// This device's role (`None`: removed from it).
    pub role: Option<String>,
    /// Membership statements held.
    pub statements: usize,
    /// Devices removed from it.
    pub removed: Vec<RemovedDevice>,
    /// Every member but this device.
    pub members: Vec<MemberStanding>,
}

/// A device removed from a share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovedDevice {
    /// Its device id (hex).
    pub id: String,
    /// Its name, when known.
    pub name: Option<String>,
}

/// How one member of a share stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberStanding {
    /// Its device id (hex).
    pub id: String,
    /// Its name, as it gave it (or as the registry has it).
    pub name: Option<String>,
    /// Its role (`read`, `write` or `admin`).
    pub role: String,
    /// The device that granted it (hex).
    pub granted_by: String,
    /// That device's name, when known.
    pub granted_by_name: Option<String>,
    /// One of this person's own devices.
    pub own: bool,
    /// Whether a session of the share runs with it now.
    pub online: bool,
    /// Frames and changes of it refused in the current session.
    pub refused: u64,
    /// Sync frame bytes sent to it in the current session.
    pub bytes_sent: u64,
    /// Sync frame bytes received from it in the current session.
    pub bytes_received: u64,
    /// Per document of the share.
    pub docs: Vec<DocumentSync>,
}
