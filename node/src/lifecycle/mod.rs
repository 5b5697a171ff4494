//! The node's life: opening a node (the embedders, the documents, the index
//! and the engine over them), the daemon that owns a home and serves every
//! surface, and rebuilding the index. This is where the layers are wired
//! together; the settings and files it reads are in [`crate::base`].

pub mod daemon;
pub mod model;
pub mod node;
pub mod reindex;
pub mod sharing;
pub mod watch;
