//! Errors of the replica.

use std::path::PathBuf;

use crate::{DocId, storage::StorageError};

/// What can go wrong opening, reading or writing documents.
#[derive(Debug, thiserror::Error)]
pub enum ReplicaError {
    /// The document files could not be read or written.
    #[error(transparent)]
    Storage(#[from] Box<StorageError>),
    /// A directory could not be read or created.
    #[error("cannot use {}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The documents directory was written by an incompatible ferrex.
    #[error(
        "{} says {found:?}; this ferrex reads \"ferrex documents 2\" (and upgrades 1). Was it written by a newer ferrex?",
        path.display()
    )]
    UnknownFormat {
        /// The FORMAT file.
        path: PathBuf,
        /// What it says.
        found: String,
    },
    /// Automerge refused the stored bytes of a document.
    #[error("cannot load document {doc}: {source}")]
    Load {
        /// The document.
        doc: DocId,
        /// What Automerge said.
        source: Box<automerge::AutomergeError>,
    },
    /// Automerge refused a write.
    #[error("cannot write to document {doc}: {source}")]
    Write {
        /// The document.
        doc: DocId,
        /// What Automerge said.
        source: Box<automerge::AutomergeError>,
    },
    /// A document lacks a root map its genesis creates.
    #[error("document {0} lacks its root maps: it was not created by ferrex")]
    MissingRoots(DocId),
    /// A peer sent a sync message Automerge cannot decode.
    #[error("a peer sent a malformed sync message for document {doc}: {reason}")]
    BadSyncMessage {
        /// The document.
        doc: DocId,
        /// What was wrong.
        reason: String,
    },
    /// A write uses an entity whose key is gone: the last memory that used
    /// it was forgotten (here or on a peer) since the entity was resolved.
    #[error("entity {0} was forgotten while this memory was being stored; store it again")]
    EntityForgotten(String),
    /// The namespace is a share this device may only read: what it wrote
    /// there would be refused by every other member.
    #[error(
        "this device may only read the shared project of {0}: a change there would be refused by every other member"
    )]
    ReadOnly(String),
    /// No such document on this node.
    #[error("no document {0} on this node")]
    UnknownDocument(DocId),
}

impl From<StorageError> for ReplicaError {
    fn from(error: StorageError) -> Self {
        ReplicaError::Storage(Box::new(error))
    }
}
