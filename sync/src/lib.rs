//! ferrex-sync: the replica.
//!
//! This crate will hold the Automerge schema of ferrex's core types, the
//! durable document storage in a node's home, the iroh endpoint, pairing
//! tickets, the device registry and the per-peer sync sessions. It never
//! touches the SQLite index: that is derived, and belongs to the node.
