//! The ferrex engine: what a node does with its memories, as a library.
//!
//! [`engine`] holds the pipelines (store, recall, working state, the graph,
//! watched files) over a node's documents ([`ferrex_sync`]), its local index
//! ([`derived`]: SQLite with FTS5 and sqlite-vec, the indexer, the
//! embedders) and the formats a memory travels in ([`formats`]); [`base`]
//! is what they stand on (settings, the clock, the poison-ignoring lock).
//! [`answers`] gives what the pipelines return the types every surface
//! writes and every reader (the terminal, the tests) reads back.
//! The `ferrex` binary puts commands, the node's lifecycle and the surfaces
//! (MCP, HTTP, hooks, the web page) on top; nothing here knows them, and
//! the crate line keeps it so.

pub mod answers;
pub mod base;
pub mod derived;
pub mod engine;
pub mod formats;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use engine::Engine;
