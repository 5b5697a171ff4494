//! ferrex-core: the domain of ferrex, free of I/O.
//!
//! This crate holds what a memory *is* and how ferrex judges memories: the
//! types, and the pure functions that decide. It never reads a file, a socket
//! or the clock; time and ids come in as arguments, so every decision here can
//! be tested deterministically and computed identically on every device.

pub mod beliefs;
pub mod chunk;
pub mod conflict;
pub mod correction;
pub mod embedder;
pub mod entity;
pub mod graph;
pub mod memory;
pub mod namespace;
pub mod passages;
pub mod predicate;
pub mod project;
pub mod rank;
pub mod scoring;
pub mod secrets;
pub mod settings;
mod slots;
mod stem;
pub mod tell;
pub mod time;
pub mod validate;
pub mod walk;
pub mod when;
pub mod working;

pub use embedder::{EmbedError, Embedder, cosine};
pub use graph::{Alias, Edge, EdgeKind, Entity, Tombstone};
pub use memory::{AccessStat, Content, Memory, MemoryKind, Triple, UnknownKind};
pub use namespace::Namespace;
pub use scoring::{
    RankingSettings, Staleness, StalenessSettings, Usage, staleness, staleness_label,
};
pub use settings::MemorySettings;
pub use time::{DAY_MILLIS, Timestamp};
pub use validate::{FieldError, StoreInput, StoreRequest, validate_store};
