//! Derived state: what a node computes from its documents and keeps only
//! locally, and can always rebuild (invariant 1): the SQLite index (FTS5 and
//! sqlite-vec), the indexer that follows the documents, the embedders, and
//! vectors taken from paired devices. Nothing here decides a judgement that
//! other devices must share; that is core's, recorded in the documents.

pub mod embedding;
pub mod index;
pub mod indexer;
pub mod peer_vectors;
#[cfg(test)]
mod simulation;
