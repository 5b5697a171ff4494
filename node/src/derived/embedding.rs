//! The node's embedders: one for requests, one for the background queue.
//!
//! Requests (store, recall) embed on the foreground session, behind a mutex,
//! with a cache of query vectors. Text that arrives without a vector (remote
//! changes, rebuilds) is embedded by a worker thread on its own session, in
//! batches, so a long catch-up never holds a request up behind the model.
//! That session is loaded when there is a large backlog and let go after a
//! minute without work ([`Background`]); a small one (the passages of a
//! store, a peer's few new memories) borrows the request session a text at a
//! time, after any request waiting for it ([`Foreground::lend`]). So a node
//! that serves holds one copy of the model (about 100 MB for MiniLM, whose
//! weights run as floats).

use std::{
    sync::{
        Condvar, Mutex, MutexGuard, PoisonError,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use ferrex_core::{
    EmbedError, Embedder,
    passages::{passages, texts_to_embed},
};
use ferrex_embed::{QueryCache, Reranker};

use crate::derived::index::{Index, NOT_EMBEDDED, Vectors, WHOLE_ONLY};

/// The foreground embedder and its query cache, and the reranker when one
/// is configured.
pub struct Foreground {
    embedder: Mutex<(Box<dyn Embedder>, QueryCache)>,
    /// Requests waiting for `embedder`: the worker lets them go first.
    waiting: AtomicUsize,
    /// When a request last took `embedder`, in microseconds since `epoch`.
    last_request: AtomicU64,
    epoch: Instant,
    /// The pause in requests the worker waits for ([`QUIET`]), and the
    /// longest it waits for one ([`QUIET_AT_MOST`]).
    quiet: (Duration, Duration),
    model_id: String,
    dimension: usize,
    reranker: Option<Mutex<Reranker>>,
}

impl std::fmt::Debug for Foreground {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Foreground").field("model_id", &self.model_id).finish()
    }
}

impl Foreground {
    /// Wraps `embedder` with a cache of `cache_size` queries.
    pub fn new(embedder: Box<dyn Embedder>, cache_size: usize) -> Self {
        let (model_id, dimension) = (embedder.model_id().to_owned(), embedder.dimension());
        Foreground {
            embedder: Mutex::new((embedder, QueryCache::new(cache_size))),
            waiting: AtomicUsize::new(0),
            last_request: AtomicU64::new(0),
            epoch: Instant::now(),
            quiet: (QUIET, QUIET_AT_MOST),
            model_id,
            dimension,
            reranker: None,
        }
    }

    /// Adds the cross-encoder recall reorders its best candidates with.
    pub fn with_reranker(mut self, reranker: Reranker) -> Self {
        self.reranker = Some(Mutex::new(reranker));
        self
    }

    /// Whether a reranker is loaded.
    pub fn has_reranker(&self) -> bool {
        self.reranker.is_some()
    }

    /// The reranker's scores of `texts` for `query`, in their order; empty
    /// when no reranker is loaded.
    pub fn rerank(&self, query: &str, texts: &[&str]) -> Result<Vec<f32>, EmbedError> {
        match &self.reranker {
            Some(reranker) => {
                reranker.lock().unwrap_or_else(PoisonError::into_inner).scores(query, texts)
            }
            None => Ok(Vec::new()),
        }
    }

    /// The model's id.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The number of floats in the model's vectors.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Embeds texts to store.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.session().0.embed_batch(texts)
    }

    /// Embeds a query, through the cache.
    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut guard = self.session();
        let (embedder, cache) = &mut *guard;
        cache.embed(embedder.as_mut(), query)
    }

    /// The session, for a request: counted as waiting until it has it.
    fn session(&self) -> MutexGuard<'_, (Box<dyn Embedder>, QueryCache)> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let guard = self.embedder.lock().unwrap_or_else(PoisonError::into_inner);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        self.last_request.store(self.epoch.elapsed().as_micros() as u64, Ordering::SeqCst);
        guard
    }

    /// Waits until no request waits for the session and none has taken it
    /// for [`QUIET`], or [`QUIET_AT_MOST`] has passed, or `until`.
    fn wait_for_a_pause(&self, until: Instant) {
        let started = Instant::now();
        let (wanted, at_most) = self.quiet;
        while started.elapsed() < at_most && Instant::now() < until {
            let last = Duration::from_micros(self.last_request.load(Ordering::SeqCst));
            let quiet = self.epoch.elapsed().saturating_sub(last);
            if self.waiting.load(Ordering::SeqCst) == 0 && quiet >= wanted {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// This foreground with the worker waiting for pauses of `quiet`, at
    /// most `at_most`.
    #[cfg(test)]
    fn with_quiet(mut self, quiet: Duration, at_most: Duration) -> Self {
        self.quiet = (quiet, at_most);
        self
    }

    /// The request session as the worker's embedder (see [`Lent`]), which
    /// waits for pauses between requests until `until` and no longer.
    pub fn lend(&self, until: Instant) -> Lent<'_> {
        Lent { foreground: self, until }
    }
}

/// How long requests must have left the request session alone before the
/// worker borrows it for a text: a burst of requests is served first.
const QUIET: Duration = Duration::from_millis(20);
/// The longest the worker waits for such a pause: under a steady stream of
/// requests it takes a text's turn anyway (and a backlog that grows past
/// what is lent loads the background session).
const QUIET_AT_MOST: Duration = Duration::from_millis(200);

/// The request session lent to the embedding worker for a small backlog: it
/// embeds one text at a time (every tier gives the same bits one at a time
/// as in a batch), each in a pause between requests, so a request waits for
/// at most one text. Past its deadline it stops waiting for pauses, so a
/// steady stream of requests cannot hold the worker (and a node's stop,
/// which waits for it) for long.
#[derive(Debug)]
pub struct Lent<'a> {
    foreground: &'a Foreground,
    until: Instant,
}

impl Embedder for Lent<'_> {
    fn model_id(&self) -> &str {
        &self.foreground.model_id
    }

    fn dimension(&self) -> usize {
        self.foreground.dimension
    }

    fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for text in texts {
            self.foreground.wait_for_a_pause(self.until);
            let mut guard = self.foreground.embedder.lock().unwrap_or_else(PoisonError::into_inner);
            vectors.push(guard.0.embed_one(text)?);
        }
        Ok(vectors)
    }
}

/// Loads a session of the node's model.
pub type LoadSession = Box<dyn Fn() -> anyhow::Result<Box<dyn Embedder>> + Send + Sync>;

/// The background session: loaded on first use, let go when idle.
pub struct Background {
    session: Mutex<Option<Box<dyn Embedder>>>,
    load: LoadSession,
    last_used: Mutex<Instant>,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Background").finish_non_exhaustive()
    }
}

impl Background {
    /// A background session that `load` makes when it is first needed.
    pub fn new(load: LoadSession) -> Background {
        Background { session: Mutex::new(None), load, last_used: Mutex::new(Instant::now()) }
    }

    /// Runs `work` on the session, loading it first if it is not loaded.
    pub fn with<T>(
        &self,
        work: impl FnOnce(&mut dyn Embedder) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let embedder = match &mut *session {
            Some(embedder) => embedder,
            empty => {
                let started = Instant::now();
                let loaded = empty.insert((self.load)()?);
                tracing::debug!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "loaded the background session"
                );
                loaded
            }
        };
        let result = work(embedder.as_mut());
        *self.last_used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        result
    }

    /// Lets the session go if it has not been used for `idle`.
    pub(crate) fn unload_if_idle(&self, idle: Duration) {
        let Ok(mut session) = self.session.try_lock() else { return };
        let last_used = *self.last_used.lock().unwrap_or_else(PoisonError::into_inner);
        if session.is_some() && last_used.elapsed() >= idle {
            *session = None;
            drop(session);
            crate::base::allocator::release_free_memory();
            tracing::debug!("let the idle background session go");
        }
    }

    /// Whether the session is loaded now.
    pub(crate) fn is_loaded(&self) -> bool {
        self.session.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }
}

/// Wakes the embedding worker when rows are queued, and knows how fast it
/// works (so a recall can tell whether waiting for it is worth it).
#[derive(Debug, Default)]
pub struct WorkSignal {
    pending: Mutex<bool>,
    wake: Condvar,
    /// Microseconds the worker took per memory in its last batch; 0 until
    /// it has worked.
    micros_per_memory: AtomicU64,
    /// Memories whose vectors came from a peer since the node started.
    from_peers: AtomicU64,
    /// Merged changes being indexed now: the worker waits for them, so
    /// what arrives is searchable by its words before embedding starts.
    indexing: AtomicU64,
}

/// What a memory is assumed to cost the worker before it has measured
/// itself: a text of a few sentences and its passages on a small model.
const ASSUMED_PER_MEMORY: Duration = Duration::from_millis(40);

impl WorkSignal {
    /// Records that the worker embedded `memories` in `elapsed`.
    pub(crate) fn record_rate(&self, memories: usize, elapsed: Duration) {
        if memories > 0 {
            let micros = elapsed.as_micros() / memories as u128;
            self.micros_per_memory.store(micros.max(1) as u64, Ordering::Relaxed);
        }
    }

    /// Records that `memories` memories got their vectors from a peer.
    pub(crate) fn record_from_peers(&self, memories: usize) {
        self.from_peers.fetch_add(memories as u64, Ordering::Relaxed);
    }

    /// Memories whose vectors came from a peer since the node started.
    pub fn taken_from_peers(&self) -> u64 {
        self.from_peers.load(Ordering::Relaxed)
    }

    /// Runs `index`, the indexing of a merged change, with the worker
    /// holding back its next batch until it is done.
    pub fn indexing<T>(&self, index: impl FnOnce() -> T) -> T {
        self.indexing.fetch_add(1, Ordering::SeqCst);
        let result = index();
        self.indexing.fetch_sub(1, Ordering::SeqCst);
        result
    }

    /// Whether merged changes are being indexed now.
    pub(crate) fn is_indexing(&self) -> bool {
        self.indexing.load(Ordering::SeqCst) > 0
    }

    /// Waits while merged changes are being indexed, at most `limit`: a
    /// steady stream of merges delays embedding, it does not stop it.
    pub(crate) fn yield_to_indexing(&self, limit: Duration) {
        let started = Instant::now();
        while self.is_indexing() && started.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// How long the worker should take for `memories` memories.
    pub fn estimate(&self, memories: i64) -> Duration {
        let per_memory = match self.micros_per_memory.load(Ordering::Relaxed) {
            0 => ASSUMED_PER_MEMORY,
            micros => Duration::from_micros(micros),
        };
        per_memory.saturating_mul(u32::try_from(memories.max(0)).unwrap_or(u32::MAX))
    }

    /// Tells the worker there may be work.
    pub fn notify(&self) {
        *self.pending.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.wake.notify_all();
    }

    /// Waits until notified or `timeout` passes.
    pub(crate) fn wait(&self, timeout: Duration) {
        let pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut pending, _) = self
            .wake
            .wait_timeout_while(pending, timeout, |pending| !*pending)
            .unwrap_or_else(PoisonError::into_inner);
        *pending = false;
    }
}

/// The longest the worker holds back a batch for merged changes being
/// indexed.
pub(crate) const YIELD_LIMIT: Duration = Duration::from_secs(5);

/// Embeds every queued row of `index` with `embedder`, `batch` rows at a
/// time, calling `progress(done)` after each batch: first the memories with
/// no vector at all (dense search misses them), then the passages of those
/// a store left with their whole text's vector only. Returns how many
/// memories were completed. The index lock is held only to read a batch and
/// to write it.
pub fn embed_queued(
    index: &Mutex<Index>,
    embedder: &mut dyn Embedder,
    batch: usize,
    mut progress: impl FnMut(usize),
    stop: &dyn Fn() -> bool,
    signal: Option<&WorkSignal>,
) -> anyhow::Result<usize> {
    let mut done = 0;
    for state in [NOT_EMBEDDED, WHOLE_ONLY] {
        let mut skip_below = 0i64;
        loop {
            if stop() {
                return Ok(done);
            }
            if let Some(signal) = signal {
                signal.yield_to_indexing(YIELD_LIMIT);
            }
            let pending = {
                let index = index.lock().unwrap_or_else(PoisonError::into_inner);
                index.pending_embeddings(state, batch, skip_below)?
            };
            if pending.is_empty() {
                break;
            }
            let started = Instant::now();
            // Each memory's whole text (unless it has its vector) and its
            // passages, in one call.
            let per_memory: Vec<Vec<String>> = pending
                .iter()
                .map(
                    |(_, text, _)| {
                        if state == NOT_EMBEDDED { texts_to_embed(text) } else { passages(text) }
                    },
                )
                .collect();
            let texts: Vec<&str> = per_memory.iter().flatten().map(String::as_str).collect();
            let mut vectors = embedder.embed_batch(&texts)?.into_iter();
            {
                let mut index = index.lock().unwrap_or_else(PoisonError::into_inner);
                index.transaction(|tx| {
                    for ((rowid, _, hash), texts) in pending.iter().zip(&per_memory) {
                        let own: Vectors = vectors.by_ref().take(texts.len()).collect();
                        anyhow::ensure!(
                            own.len() == texts.len(),
                            "the embedder returned too few vectors"
                        );
                        if state == NOT_EMBEDDED {
                            tx.put_vector_if_current(*rowid, hash, &own)?;
                        } else {
                            tx.put_passages_if_current(*rowid, hash, &own)?;
                        }
                    }
                    Ok(())
                })?;
            }
            skip_below = pending.last().map_or(skip_below, |(rowid, _, _)| *rowid + 1);
            // The rate of memories that had no vector: what a recall waits for.
            if state == NOT_EMBEDDED
                && let Some(signal) = signal
            {
                signal.record_rate(pending.len(), started.elapsed());
            }
            done += pending.len();
            progress(done);
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, atomic::AtomicUsize};

    use super::*;

    /// A deterministic test embedder: one float, the text's length.
    struct LengthTestEmbedder;

    impl Embedder for LengthTestEmbedder {
        fn model_id(&self) -> &str {
            "length-test-embedder"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            Ok(texts.iter().map(|text| vec![text.len() as f32]).collect())
        }
    }

    #[test]
    fn the_background_session_loads_on_first_use_and_goes_when_idle() {
        let loads = Arc::new(AtomicUsize::new(0));
        let counted = loads.clone();
        let background = Background::new(Box::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(Box::new(LengthTestEmbedder) as Box<dyn Embedder>)
        }));
        assert!(!background.is_loaded(), "nothing is loaded before there is work");
        let vectors = background.with(|embedder| Ok(embedder.embed_batch(&["four"])?)).unwrap();
        assert_eq!(vectors, vec![vec![4.0]]);
        background.with(|_| Ok(())).unwrap();
        assert_eq!(loads.load(Ordering::SeqCst), 1, "loaded once for both");
        background.unload_if_idle(Duration::from_secs(60));
        assert!(background.is_loaded(), "used just now");
        background.unload_if_idle(Duration::ZERO);
        assert!(!background.is_loaded());
        background.with(|_| Ok(())).unwrap();
        assert_eq!(loads.load(Ordering::SeqCst), 2, "loaded again for new work");
    }

    /// A deterministic test embedder that logs each text it embeds.
    struct LoggingTestEmbedder(Arc<Mutex<Vec<String>>>);

    impl Embedder for LoggingTestEmbedder {
        fn model_id(&self) -> &str {
            "logging-test-embedder"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.lock().unwrap().extend(texts.iter().map(|text| (*text).to_owned()));
            Ok(texts.iter().map(|text| vec![text.len() as f32]).collect())
        }
    }

    #[test]
    fn the_lent_session_gives_the_vectors_of_a_batch() {
        let foreground = Foreground::new(Box::new(LengthTestEmbedder), 8);
        let until = Instant::now() + Duration::from_secs(5);
        let vectors = foreground.lend(until).embed_batch(&["a", "three", ""]).unwrap();
        assert_eq!(vectors, vec![vec![1.0], vec![5.0], vec![0.0]]);
    }

    #[test]
    fn the_worker_lets_requests_in_a_burst_go_first_until_its_deadline() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let foreground = Arc::new(
            Foreground::new(Box::new(LoggingTestEmbedder(log.clone())), 8)
                .with_quiet(Duration::from_secs(3), Duration::from_secs(10)),
        );
        // A request, then the worker asks for the session, and a second
        // request comes well within the pause the worker waits for (3 s: a
        // test thread descheduled for half a second must not pass for a
        // pause).
        foreground.embed(&["first request"]).unwrap();
        let worker = {
            let foreground = foreground.clone();
            std::thread::spawn(move || {
                let until = Instant::now() + Duration::from_secs(30);
                foreground.lend(until).embed_batch(&["passage"]).unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(60));
        foreground.embed(&["second request"]).unwrap();
        worker.join().unwrap();
        assert_eq!(*log.lock().unwrap(), ["first request", "second request", "passage"]);

        // Past its deadline the worker waits for no pause.
        log.lock().unwrap().clear();
        foreground.embed(&["third request"]).unwrap();
        foreground.lend(Instant::now()).embed_batch(&["late passage"]).unwrap();
        foreground.embed(&["fourth request"]).unwrap();
        assert_eq!(*log.lock().unwrap(), ["third request", "late passage", "fourth request"]);
    }

    #[test]
    fn a_session_that_cannot_load_is_an_error_and_is_tried_again() {
        let background = Background::new(Box::new(|| anyhow::bail!("no model here")));
        let error = background.with(|_| Ok(())).unwrap_err();
        assert!(error.to_string().contains("no model here"), "{error}");
        assert!(!background.is_loaded());
    }
}
