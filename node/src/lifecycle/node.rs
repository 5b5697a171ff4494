//! Opening a node: the embedders, the documents, the index, and the
//! background embedding worker.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use anyhow::Context;
use ferrex_core::Embedder;
use ferrex_embed::{FastEmbedder, ModelFiles, Reranker};
use ferrex_sync::Replica;

use crate::{base::config::Config, base::device::Device, base::home::Home, lifecycle::model};
use ferrex_engine::{
    derived::embedding::{self, Foreground, WorkSignal},
    derived::index::{Index, Opened},
    derived::indexer,
    engine::{Engine, lock},
};

/// Queries whose vectors the node keeps.
const QUERY_CACHE: usize = 1024;
/// Memories the worker embeds per batch (one index transaction) when the
/// backlog is long (a rebuild, a new model, a fresh device).
pub const LONG_BATCH: usize = 32;
/// Memories waiting for vectors up to which the worker embeds in small
/// batches (a store's passages, a peer's few new memories), so that its
/// deadline below is looked at often.
const SHORT_BACKLOG: i64 = 256;
/// Memories the worker embeds per batch for a short backlog.
const SHORT_BATCH: usize = 4;
/// How long the worker keeps the request session before it looks at the
/// backlog again.
const LENT_FOR: Duration = Duration::from_secs(2);
/// How often the worker logs its progress through a long backlog.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);
/// How long requests and the worker's own embedding must both have been
/// quiet, after either, before the worker gives what they freed back to
/// the system (`allocator::release_free_memory`: a few milliseconds, once
/// a pause; a request that comes meanwhile waits for the allocator's lock
/// at most that long).
const RELEASE_AFTER: Duration = Duration::from_secs(1);

/// A running node's state.
pub struct Node {
    /// The operations.
    pub engine: Arc<Engine>,
    /// The one embedding session, for requests and, in their pauses, for
    /// the worker and a running rebuild.
    pub foreground: Arc<Foreground>,
    /// Held by whoever embeds the backlog (the worker, a running rebuild),
    /// so that two never embed the same rows.
    pub embedding_turn: Arc<Mutex<()>>,
    stop: Arc<AtomicBool>,
    /// Wakes the embedding worker.
    pub signal: Arc<WorkSignal>,
    /// What makes this node's vectors comparable with a peer's: the model
    /// id and the sha256 of the runtime and of every model file.
    pub vector_profile: String,
    /// The shares this device holds (the engine's recall and the network
    /// read them).
    pub shares: Arc<Mutex<ferrex_sync::shares::Shares>>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Node").field("engine", &self.engine).finish_non_exhaustive()
    }
}

/// One inference session of the model in `files`.
pub fn load_session(files: &ModelFiles, config: &Config) -> anyhow::Result<Box<dyn Embedder>> {
    Ok(Box::new(FastEmbedder::from_verified_files(files, &config.embedder_options())?))
}

impl Node {
    /// Opens everything and brings the index up to date with the documents.
    pub fn open(home: &Home, config: &Config, device: &Device) -> anyhow::Result<Node> {
        let started = Instant::now();
        // The model and then the index (its sign bits read into memory)
        // load while the documents do: each is a good part of a start (at
        // 100k memories about 0.6, 0.6 and 1.3 s).
        let (sessions, replica) = std::thread::scope(|scope| {
            let sessions = scope.spawn(|| -> anyhow::Result<_> {
                let files = model::ensure_model(home, config)?;
                let session = load_session(&files, config)?;
                let model_time = started.elapsed();
                let (model_id, dimension) = (session.model_id(), session.dimension());
                let profile = format!("{model_id} {}", files.hashes()?.join(" "));
                let (index, opened) = Index::open(&home.index_file(), model_id, dimension)
                    .context("opening the index")?;
                index.load_signs().context("reading the index's sign bits")?;
                Ok((session, index, opened, model_time, profile))
            });
            let replica = Replica::open(&home.docs_dir(), &device.id, config.replica_options())
                .context("opening the documents");
            let documents = started.elapsed();
            let sessions = sessions
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("loading the model panicked")));
            (sessions, replica.map(|replica| (replica, documents)))
        });
        let (foreground, mut index, opened, model_time, vector_profile) = sessions?;
        let (replica, documents_time) = replica?;
        let (model_ms, documents_ms) =
            (model_time.as_millis() as u64, documents_time.as_millis() as u64);
        match &opened {
            Opened::Kept => {}
            Opened::Created => tracing::info!("building the index from the documents"),
            Opened::Replaced { reason } => {
                tracing::warn!("rebuilding the index from the documents: {reason}")
            }
        }
        let ready_ms = started.elapsed().as_millis() as u64;
        index.set_complete(false)?;
        indexer::catch_up_all(&mut index, &replica).context("bringing the index up to date")?;
        index.set_complete(true)?;
        // A crash during a forget may have left older copies of the rows it
        // deleted in the WAL: empty it before serving.
        index.checkpoint_truncate()?;
        // Full shards were unloaded once the documents were read: their
        // pages go back to the system now, or most would stay.
        crate::base::allocator::release_free_memory();
        let elapsed_ms = started.elapsed().as_millis() as u64;
        tracing::info!(
            elapsed_ms,
            model_ms,
            documents_ms,
            index_ms = elapsed_ms - ready_ms,
            "node open (the model and index load beside the documents)"
        );

        let replica = Arc::new(replica);
        let index = Arc::new(Mutex::new(index));
        let signal = Arc::new(WorkSignal::default());
        let mut foreground = Foreground::new(foreground, QUERY_CACHE);
        let settings = ferrex_engine::engine::Settings::from_config(config);
        if config.reranks() {
            let reranker = Reranker::load(&model::model_search(home, config), config.threads)
                .context("memory.rerank_depth is set: loading the reranker")?;
            foreground = foreground.with_reranker(reranker);
        }
        let foreground = Arc::new(foreground);
        let shares = Arc::new(Mutex::new(
            ferrex_sync::shares::Shares::open(&home.shares_dir())
                .context("reading the shares this device holds")?,
        ));
        let engine = Arc::new(
            Engine::new(replica, index.clone(), foreground.clone(), settings, signal.clone())
                .with_shares(shares.clone()),
        );
        // A project's move into its share that a stop interrupted.
        match engine.finish_moves() {
            Ok(0) => {}
            Ok(count) => tracing::info!(count, "finished moving projects into their shares"),
            Err(error) => tracing::error!("finishing a move into a share: {error}"),
        }
        let embedding_turn = Arc::new(Mutex::new(()));
        let stop = Arc::new(AtomicBool::new(false));
        let worker = {
            let (index, turn, signal, stop) =
                (index, embedding_turn.clone(), signal.clone(), stop.clone());
            let (foreground, engine) = (foreground.clone(), engine.clone());
            let peer_vectors_wait = config.peer_vectors_wait;
            std::thread::Builder::new().name("ferrex-embed".into()).spawn(move || {
                // Since when memories have waited without any vector.
                let mut missing_since: Option<Instant> = None;
                // When the worker last embedded, if it did since memory was
                // last given back, and the last request then.
                let (mut worked_at, mut released_after): (Option<Instant>, u64) = (None, 0);
                while !stop.load(Ordering::Relaxed) {
                    let (missing, passages) =
                        lock(&index).embedding_backlog(None).unwrap_or((i64::MAX, 0));
                    let backlog = missing.saturating_add(passages);
                    if missing == 0 {
                        missing_since = None;
                    } else {
                        missing_since.get_or_insert_with(Instant::now);
                    }
                    let for_peers =
                        missing_since.is_some_and(|since| since.elapsed() < peer_vectors_wait);
                    if backlog > 0 && !for_peers {
                        let stopping = || stop.load(Ordering::Relaxed);
                        // A long backlog (a new model, a rebuild, a fresh
                        // device) reports its progress every few seconds.
                        let mut reported = Instant::now();
                        let report = |done: usize| {
                            if reported.elapsed() >= PROGRESS_EVERY {
                                reported = Instant::now();
                                let left = lock(&index).embedding_backlog(None).ok();
                                tracing::info!(done, left = ?left, "embedding the backlog");
                            }
                        };
                        // The request session is lent, in the pauses between
                        // requests: a node holds one copy of the model.
                        let batch = if backlog <= SHORT_BACKLOG { SHORT_BATCH } else { LONG_BATCH };
                        // Every LENT_FOR it looks at the backlog and at
                        // what arrived from peers again.
                        let until = Instant::now() + LENT_FOR;
                        let lent_stopping = || stopping() || Instant::now() >= until;
                        let _turn = lock(&turn);
                        let embedded = embedding::embed_queued(
                            &index,
                            &mut foreground.lend(&stopping),
                            batch,
                            report,
                            &lent_stopping,
                            Some(&signal),
                        );
                        match embedded {
                            Ok(0) => {}
                            Ok(count) => {
                                tracing::debug!(count, "embedded queued memories");
                                worked_at = Some(Instant::now());
                            }
                            Err(error) => tracing::error!(
                                "embedding queued memories: {}",
                                ferrex_engine::base::with_causes(&error)
                            ),
                        }
                    }
                    // Text from peers, embedded now: does it correct, or is
                    // it corrected by, text stored here?
                    match engine.judge_arrivals() {
                        Ok(0) => {}
                        Ok(count) => {
                            tracing::debug!(count, "judged text that arrived from peers");
                            signal.notify();
                        }
                        Err(error) => tracing::error!(
                            "judging text from peers: {}",
                            ferrex_engine::base::with_causes(&error)
                        ),
                    }
                    // Requests and the worker both quiet for a while after
                    // either worked: what they freed goes back to the
                    // system, once a pause.
                    let (quiet, mark) = foreground.pause();
                    let worker_quiet =
                        worked_at.is_none_or(|worked| worked.elapsed() >= RELEASE_AFTER);
                    if (worked_at.is_some() || mark != released_after)
                        && worker_quiet
                        && quiet.is_some_and(|quiet| quiet >= RELEASE_AFTER)
                        && !stop.load(Ordering::Relaxed)
                    {
                        crate::base::allocator::release_free_memory();
                        (worked_at, released_after) = (None, mark);
                    }
                    signal.wait(Duration::from_millis(500));
                }
            })?
        };
        signal.notify();
        Ok(Node {
            engine,
            foreground,
            embedding_turn,
            stop,
            signal,
            vector_profile,
            shares,
            worker: Some(worker),
        })
    }

    /// Stops the worker and folds buffered access counts into the documents.
    pub fn close(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.signal.notify();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
        if let Err(error) = self.engine.fold_access() {
            tracing::warn!("could not fold access counts at shutdown: {error}");
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if self.worker.is_some() {
            self.close();
        }
    }
}
