//! Derived state: what a node computes from its documents and keeps only
//! locally, and can always rebuild (invariant 1): the SQLite index (FTS5 and
//! sqlite-vec), the indexer that follows the documents, the embedders, and
//! vectors taken from paired devices. Nothing here decides a judgement that
//! other devices must share; that is core's, recorded in the documents.

use ferrex_core::EmbedError;
use ferrex_sync::ReplicaError;

use crate::derived::index::IndexError;

pub mod embedding;
pub mod index;
pub mod indexer;
pub mod peer_vectors;
#[cfg(test)]
mod simulation;

/// Why keeping the index in step with the documents failed. Nothing is
/// lost by it: the index is derived, and what failed is read again (the
/// change at the next catch-up, the vector by the next batch).
#[derive(Debug, thiserror::Error)]
pub enum DeriveError {
    /// The index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Reading the documents failed.
    #[error(transparent)]
    Documents(#[from] ReplicaError),
    /// The embedder failed, or returned fewer vectors than texts.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// A document that could not be diffed from its genesis.
    #[error("document {0} could not be diffed from its start")]
    Undiffable(String),
    /// The thread that reads a large batch of memories ahead could not
    /// start.
    #[error("starting the thread that reads memories ahead")]
    ReadAhead(#[source] std::io::Error),
    /// That thread panicked (the log has its message).
    #[error("the thread reading memories ahead panicked")]
    ReadAheadPanicked,
}
