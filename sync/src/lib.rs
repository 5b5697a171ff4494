//! ferrex-sync: the replica.
//!
//! A node's truth is a set of Automerge documents: a registry, and numbered
//! shards per namespace holding memories, tombstones, entities, aliases and
//! edges ([`schema`] describes the layout). [`Replica`] opens them from the
//! node's home and makes ferrex's writes to them durably ([`storage`]: an
//! append-only log synced before a write returns, compacted into snapshots).
//!
//! This crate never touches the SQLite index: that is derived, and belongs to
//! the node. It tells the node what changed ([`Replica::changes_since`]).

mod doc_id;
mod document;
mod error;
mod records;
mod replica;
pub mod schema;
pub mod storage;

pub use doc_id::{BadDocId, DocId};
pub use document::{ChangedKeys, DocChange};
pub use error::ReplicaError;
pub use records::{NewMemory, StoredMemory, alias_key};
pub use replica::{DocStat, Forgotten, NewRecords, Replica, ReplicaOptions, ShardReader};
