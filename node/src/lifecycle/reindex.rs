//! `ferrex reindex`: rebuilding the index from the documents.

use std::sync::PoisonError;

use anyhow::Context;
use ferrex_sync::Replica;

use crate::{
    base::config::Config,
    base::device::Device,
    base::home::Home,
    lifecycle::model::ensure_model,
    lifecycle::node::{LONG_BATCH, Node, load_session},
};
use ferrex_engine::{derived::embedding, derived::index::Index, derived::indexer};

/// Where a rebuild is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// `reading` (projecting the documents) or `embedding`.
    pub phase: &'static str,
    /// Items done in this phase.
    pub done: usize,
    /// Items in this phase.
    pub total: usize,
}

/// What a rebuild did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Memories in the rebuilt index.
    pub memories: usize,
    /// Vectors computed.
    pub embedded: usize,
}

/// Rebuilds the index of a running node, which keeps serving meanwhile
/// (full-text results at once, dense results as vectors arrive).
pub fn rebuild_running(node: &Node, mut progress: impl FnMut(Progress)) -> anyhow::Result<Summary> {
    let engine = &node.engine;
    if let Err(error) = engine.fold_access() {
        tracing::warn!("could not fold access counts before the rebuild: {error}");
    }
    let memories = engine.with_write_lock(|| {
        let mut index = engine.index().lock().unwrap_or_else(PoisonError::into_inner);
        project(&mut index, engine.replica(), &mut progress)
    })?;
    // The rebuilt index has no file chunks: the watched folders are read again.
    engine.files().rescan();
    // On the request session, in the pauses between requests, while the
    // worker waits for its turn.
    let _turn = node.embedding_turn.lock().unwrap_or_else(PoisonError::into_inner);
    let mut lent = node.foreground.lend(&|| false);
    let embedded = embed_all(engine.index(), &mut lent, memories, &mut progress)?;
    Ok(Summary { memories, embedded })
}

/// Rebuilds the index of a home whose node is not running.
pub fn rebuild_offline(
    home: &Home,
    config: &Config,
    mut progress: impl FnMut(Progress),
) -> anyhow::Result<Summary> {
    let device = Device::load_or_create(home, config)?;
    let files = ensure_model(home, config)?;
    // The model is loaded for its id and size, and again after the
    // documents are let go: at 100k memories, holding both at once was most
    // of the rebuild's peak memory.
    let (model_id, dimension) = {
        let embedder = load_session(&files, config)?;
        (embedder.model_id().to_owned(), embedder.dimension())
    };
    let replica = Replica::open(&home.docs_dir(), &device.id, config.replica_options())
        .context("opening the documents")?;
    let (mut index, _) = Index::open(&home.index_file(), &model_id, dimension)?;
    let memories = project(&mut index, &replica, &mut progress)?;
    // Embedding reads the index alone: the documents (most of the memory
    // of a large home) can go before its long phase.
    drop(replica);
    crate::base::allocator::release_free_memory();
    let mut embedder = load_session(&files, config)?;
    let index = std::sync::Mutex::new(index);
    let embedded = embed_all(&index, embedder.as_mut(), memories, &mut progress)?;
    Ok(Summary { memories, embedded })
}

fn project(
    index: &mut Index,
    replica: &Replica,
    progress: &mut impl FnMut(Progress),
) -> anyhow::Result<usize> {
    index.reset()?;
    index.set_complete(false)?;
    let docs = replica.doc_ids();
    let total = docs.len();
    progress(Progress { phase: "reading", done: 0, total });
    for (done, id) in docs.iter().enumerate() {
        indexer::catch_up_doc(index, replica, id, &indexer::KnownVectors::new())?;
        progress(Progress { phase: "reading", done: done + 1, total });
    }
    // Derived state that spans documents (shards) is settled once all are in.
    for namespace in replica.namespaces() {
        index.transaction(|tx| tx.rederive_namespace(namespace.as_str()))?;
    }
    index.set_complete(true)?;
    Ok(index.counts()?.by_namespace_kind.iter().map(|(_, _, count)| *count as usize).sum())
}

fn embed_all(
    index: &std::sync::Mutex<Index>,
    embedder: &mut dyn ferrex_core::Embedder,
    total: usize,
    progress: &mut impl FnMut(Progress),
) -> anyhow::Result<usize> {
    progress(Progress { phase: "embedding", done: 0, total });
    embedding::embed_queued(
        index,
        embedder,
        LONG_BATCH,
        |done| progress(Progress { phase: "embedding", done, total }),
        &|| false,
        None,
    )
    .map_err(anyhow::Error::from)
}
