//! Why an embedder could not be built.

use std::path::PathBuf;

use crate::{INSTALL_COMMAND, ModelTier};

/// Everything that can stop ferrex from loading its embedding model.
///
/// Every message names what is wrong, where, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No searched directory holds the tier's files.
    #[error(
        "embedding model {model} ({tier} tier) is not installed: no {dir}/ under {searched}. \
         Install it with `{INSTALL_COMMAND}`, or point embed.model_dir \
         (FERREX_EMBED_MODEL_DIR) at a directory that holds it",
        model = tier.model_name(),
        dir = tier.dir_name(),
        searched = display_paths(searched),
    )]
    ModelNotFound {
        /// The tier that was asked for.
        tier: ModelTier,
        /// The model directories searched, in order.
        searched: Vec<PathBuf>,
    },
    /// No searched directory holds a model that is not an embedding tier
    /// (the reranker).
    #[error(
        "model {dir} is not installed: no {dir}/ under {searched}. Install it with \
         `{INSTALL_COMMAND}`, or point embed.model_dir (FERREX_EMBED_MODEL_DIR) at \
         a directory that holds it",
        searched = display_paths(searched),
    )]
    DirNotFound {
        /// The directory asked for.
        dir: String,
        /// The model directories searched, in order.
        searched: Vec<PathBuf>,
    },
    /// No searched directory holds the ONNX Runtime library.
    #[error(
        "ONNX Runtime is not installed: no {file} under {searched}. Install it with \
         `{INSTALL_COMMAND}`, or point embed.model_dir (FERREX_EMBED_MODEL_DIR) at a \
         directory that holds it",
        searched = display_paths(searched),
    )]
    RuntimeNotFound {
        /// The library looked for, relative to a model directory.
        file: &'static str,
        /// The model directories searched, in order.
        searched: Vec<PathBuf>,
    },
    /// ferrex pins no ONNX Runtime for this platform.
    #[error(
        "ferrex has no ONNX Runtime for {platform}: it runs on Linux (x86_64 and aarch64), \
         macOS on Apple silicon and Windows x86_64 (Intel Macs are not supported: no \
         ONNX Runtime {version} is published for them)",
        version = crate::RUNTIME_VERSION,
    )]
    UnsupportedPlatform {
        /// This platform, `<os>-<arch>`.
        platform: String,
    },
    /// A model or runtime file is missing from an otherwise present directory.
    #[error("model file {} is missing; reinstall with `{INSTALL_COMMAND}`", path.display())]
    FileMissing {
        /// The file that should exist.
        path: PathBuf,
    },
    /// A file's content does not match its pinned or declared sha256.
    #[error(
        "model file {} is corrupt: sha256 is {actual}, expected {expected}; \
         reinstall with `{INSTALL_COMMAND}`",
        path.display()
    )]
    ChecksumMismatch {
        /// The file whose hash is wrong.
        path: PathBuf,
        /// The hash ferrex expected.
        expected: String,
        /// The hash of the file on disk.
        actual: String,
    },
    /// A user-supplied tier has no `SHA256SUMS` entry for one of its files.
    #[error(
        "model file {} has no entry in {}: user-supplied tiers list every file's sha256 there",
        path.display(),
        sums.display()
    )]
    ChecksumUnknown {
        /// The file without a declared hash.
        path: PathBuf,
        /// The `SHA256SUMS` file that was read (or was missing).
        sums: PathBuf,
    },
    /// Reading a file failed.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file being read.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// ONNX Runtime refused to load or to create its environment.
    #[error("cannot start ONNX Runtime from {}: {message}", path.display())]
    Runtime {
        /// The library that was loaded.
        path: PathBuf,
        /// What ONNX Runtime said.
        message: String,
    },
    /// fastembed could not build a session from the model files.
    #[error("cannot load embedding model from {}: {message}", path.display())]
    Model {
        /// The tier directory.
        path: PathBuf,
        /// What fastembed said.
        message: String,
    },
}

fn display_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "no directory (none configured)".to_owned();
    }
    paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
}
