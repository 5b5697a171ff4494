//! ferrex-sync: the replica.
//!
//! A node's truth is a set of Automerge documents: a registry, and numbered
//! shards per namespace holding memories, tombstones, entities, aliases and
//! edges ([`schema`] describes the layout). [`Replica`] opens them from the
//! node's home and makes ferrex's writes to them durably ([`storage`]: an
//! append-only log synced before a write returns, compacted into snapshots).
//!
//! [`Network`] keeps the replica in sync with paired devices over iroh QUIC
//! connections: pairing with one-time tickets, authorisation at the
//! handshake, and one Automerge sync session per connected device.
//!
//! This crate never touches the SQLite index: that is derived, and belongs to
//! the node. It tells the node what changed ([`Replica::changes_since`],
//! [`SyncObserver`]).

pub mod admission;
mod doc_id;
mod doc_sync;
mod document;
mod error;
pub mod faults;
mod identity;
mod key_sync;
pub mod keys;
mod link;
pub mod membership;
mod migrate;
mod network;
mod pairing;
mod peers;
pub mod platform;
pub mod policy;
mod records;
mod registry;
mod replica;
pub mod schema;
mod seal;
mod session;
pub mod shares;
#[cfg(feature = "simulation")]
pub mod sim;
mod state_file;
pub mod statement_log;
pub mod storage;
mod ticket;
pub mod vectors;
pub mod wire;

pub use doc_id::{BadDocId, DocId};
pub use document::{ChangedKeys, DocChange};
pub use error::ReplicaError;
pub use identity::{Identity, IdentityError};
pub use iroh::SecretKey;
pub use migrate::Upgrade;
pub use network::{
    DialError, JoinError, MemberStatus, Network, NetworkConfig, NetworkError, NetworkMode,
    RemovedMember, ShareActionError, SharePreview, ShareStatus, SyncObserver, offline_peers,
};
pub use pairing::{Invites, Refusal, ShareInvite, Throttle};
pub use peers::{DocStatus, PeerRecord, PeerStatus};
pub use records::{Lookup, NewMemory, StoredMemory, new_alias_key};
pub use registry::{DeviceRecord, Pairing, Registry, Revocation};
pub use replica::{
    Archive, ArchivedAlias, DocStat, Forgotten, NewRecords, RecordRef, Replica, ReplicaOptions,
    Restored, SEALED_ROOTS, ShardReader,
};
pub use session::Scope;
pub use state_file::StateFileError;
pub use ticket::{BadShareTicket, BadTicket, PairingTicket, ShareTicket, is_share_ticket};
