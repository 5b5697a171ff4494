//! The node's one embedding session, for requests and for the worker.
//!
//! Requests (store, recall) embed on it behind a mutex, with a cache of
//! query vectors. Text that arrives without a vector (a store's passages,
//! remote changes, rebuilds) is embedded by a worker thread that borrows
//! the same session a text at a time, after any request waiting for it
//! ([`Foreground::lend`]), so a request waits for one text at most. A node
//! holds one copy of the model (about 90 MB for MiniLM, whose weights run
//! as floats): a second session for the worker cost that again, and twice
//! as much while it loaded (heaptrack, 3,000 notes: 415 MB peak with it).
//! One text at a time is as fast as a batch for memory-sized text
//! (embed_bench: 104 against 93 sentences/s in batches of 32).

use std::{
    sync::{
        Condvar, Mutex, PoisonError,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use ferrex_core::{
    EmbedError, Embedder,
    passages::{passages, texts_to_embed},
};
use ferrex_embed::{QueryCache, Reranker};

use crate::derived::{
    DeriveError,
    index::{Index, NOT_EMBEDDED, Vectors, WHOLE_ONLY},
};

/// The foreground embedder and its query cache, and the reranker when one
/// is configured.
pub struct Foreground {
    embedder: Mutex<(Box<dyn Embedder>, QueryCache)>,
    /// Requests waiting for `embedder` or using it: the worker lets them go
    /// first.
    requests: AtomicUsize,
    /// When a request last let `embedder` go, in microseconds since `epoch`.
    last_request: AtomicU64,
    epoch: Instant,
    /// The pause in requests the worker waits for ([`QUIET`]), and the
    /// longest it waits for one: for text that has no vector yet
    /// (`QUIET_AT_MOST`) and for passages (`PASSAGES_AT_MOST`).
    quiet: (Duration, Duration, Duration),
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
            requests: AtomicUsize::new(0),
            last_request: AtomicU64::new(0),
            epoch: Instant::now(),
            quiet: (QUIET, QUIET_AT_MOST, PASSAGES_AT_MOST),
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
        self.with_session(|(embedder, _)| embedder.embed_batch(texts))
    }

    /// Embeds a query, through the cache.
    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.with_session(|(embedder, cache)| cache.embed(embedder.as_mut(), query))
    }

    /// Runs `work` on the session, for a request: counted while it waits
    /// for the session and uses it, and as the last request when it is done
    /// with it (the worker's pause is counted from then: counted from when
    /// a request took the session, the worker found a pause in most long
    /// stores and made the next one wait for its text).
    fn with_session<T>(&self, work: impl FnOnce(&mut (Box<dyn Embedder>, QueryCache)) -> T) -> T {
        /// Uncounts the request when it is done, even by a panic.
        struct Counted<'a>(&'a Foreground);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                let foreground = self.0;
                let now = foreground.epoch.elapsed().as_micros() as u64;
                foreground.last_request.store(now, Ordering::SeqCst);
                foreground.requests.fetch_sub(1, Ordering::SeqCst);
            }
        }
        self.requests.fetch_add(1, Ordering::SeqCst);
        let _counted = Counted(self);
        let mut guard = self.embedder.lock().unwrap_or_else(PoisonError::into_inner);
        work(&mut guard)
    }

    /// The pause requests are in: how long since the last request let the
    /// session go (`None` while one waits for it or uses it; the worker's
    /// own embedding is no request), and when that was, as a mark that
    /// moves with each request (microseconds since the foreground began).
    pub fn pause(&self) -> (Option<Duration>, u64) {
        // A request stamps its end before it is uncounted: read in the
        // other order, a request that just ended could show an old pause.
        let busy = self.requests.load(Ordering::SeqCst) > 0;
        let last = self.last_request.load(Ordering::SeqCst);
        let quiet = self.epoch.elapsed().saturating_sub(Duration::from_micros(last));
        ((!busy).then_some(quiet), last)
    }

    /// Waits until no request waits for the session and none has taken it
    /// for [`QUIET`], or `QUIET_AT_MOST` (`PASSAGES_AT_MOST` if `passages`)
    /// has passed, or `stop` says so.
    fn wait_for_a_pause(&self, stop: &(dyn Fn() -> bool + Sync), passages: bool) {
        let started = Instant::now();
        let (wanted, at_most, passages_at_most) = self.quiet;
        let at_most = if passages { passages_at_most } else { at_most };
        while started.elapsed() < at_most && !stop() {
            if self.pause().0.is_some_and(|quiet| quiet >= wanted) {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// This foreground with the worker waiting for pauses of `quiet`, at
    /// most `at_most`.
    #[cfg(test)]
    fn with_quiet(mut self, quiet: Duration, at_most: Duration) -> Self {
        self.quiet = (quiet, at_most, at_most);
        self
    }

    /// This foreground with the worker waiting at most `at_most` for a
    /// pause before a passage.
    #[cfg(test)]
    fn with_passages_at_most(mut self, at_most: Duration) -> Self {
        self.quiet.2 = at_most;
        self
    }

    /// The request session as the worker's embedder (see [`Lent`]), which
    /// waits for pauses between requests until `stop` says to finish.
    pub fn lend<'a>(&'a self, stop: &'a (dyn Fn() -> bool + Sync)) -> Lent<'a> {
        Lent { foreground: self, stop }
    }
}

/// How long requests must have left the request session alone before the
/// worker borrows it for a text: a burst of requests is served first.
const QUIET: Duration = Duration::from_millis(20);
/// The longest the worker waits for such a pause before it embeds text
/// that has no vector yet (dense search misses it): under a steady stream
/// of requests it takes a text's turn anyway.
const QUIET_AT_MOST: Duration = Duration::from_millis(200);
/// The same for the passages of a memory that has its whole text's vector
/// (found by it and by its words meanwhile). A turn every 200 ms made a
/// steady stream of note stores 1.5-2 ms slower at the median (each waited
/// for the passage in progress, and the passages accumulated): lean_bench,
/// 1,000 notes, store p50 20.8 against 18.9 ms with turns 5 s apart.
const PASSAGES_AT_MOST: Duration = Duration::from_secs(2);

/// The request session lent to the embedding worker: it embeds one text at
/// a time (every tier gives the same bits one at a time as in a batch),
/// each in a pause between requests, so a request waits for at most one
/// text, and a steady stream of requests gives it one text's turn every
/// `QUIET_AT_MOST` (passages: `PASSAGES_AT_MOST`). Once told to stop it
/// waits for no pause, so that a node's stop, which waits for the worker,
/// is not held up.
pub struct Lent<'a> {
    foreground: &'a Foreground,
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl std::fmt::Debug for Lent<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Lent").field("foreground", self.foreground).finish_non_exhaustive()
    }
}

impl Embedder for Lent<'_> {
    fn model_id(&self) -> &str {
        &self.foreground.model_id
    }

    fn dimension(&self) -> usize {
        self.foreground.dimension
    }

    fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_in_pauses(texts, false)
    }

    fn embed_batch_when_quiet(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_in_pauses(texts, true)
    }
}

impl Lent<'_> {
    /// Embeds `texts` one at a time, each in a pause between requests.
    fn embed_in_pauses(
        &mut self,
        texts: &[&str],
        passages: bool,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for text in texts {
            self.foreground.wait_for_a_pause(self.stop, passages);
            let mut guard = self.foreground.embedder.lock().unwrap_or_else(PoisonError::into_inner);
            vectors.push(guard.0.embed_one(text)?);
        }
        Ok(vectors)
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
    pub fn wait(&self, timeout: Duration) {
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
) -> Result<usize, DeriveError> {
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
            let mut vectors = if state == NOT_EMBEDDED {
                embedder.embed_batch(&texts)?
            } else {
                embedder.embed_batch_when_quiet(&texts)?
            }
            .into_iter();
            {
                let mut index = index.lock().unwrap_or_else(PoisonError::into_inner);
                index.transaction_with(|tx| -> Result<(), DeriveError> {
                    for ((rowid, _, hash), texts) in pending.iter().zip(&per_memory) {
                        let own: Vectors = vectors.by_ref().take(texts.len()).collect();
                        if own.len() != texts.len() {
                            return Err(EmbedError::WrongCount {
                                expected: texts.len(),
                                got: own.len(),
                            }
                            .into());
                        }
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
    use std::sync::Arc;

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

    /// A deterministic test embedder that logs each text as it starts on
    /// it, and holds the session for `hold` on texts that start with "long".
    struct HoldingTestEmbedder {
        log: Arc<Mutex<Vec<String>>>,
        hold: Duration,
    }

    impl Embedder for HoldingTestEmbedder {
        fn model_id(&self) -> &str {
            "holding-test-embedder"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            for text in texts {
                self.log.lock().unwrap().push((*text).to_owned());
                if text.starts_with("long") {
                    std::thread::sleep(self.hold);
                }
            }
            Ok(texts.iter().map(|text| vec![text.len() as f32]).collect())
        }
    }

    #[test]
    fn a_request_that_holds_the_session_long_is_no_pause_for_the_worker() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let embedder = HoldingTestEmbedder { log: log.clone(), hold: Duration::from_millis(1500) };
        let foreground = Arc::new(
            Foreground::new(Box::new(embedder), 8)
                .with_quiet(Duration::from_secs(1), Duration::from_secs(30)),
        );
        // A request holds the session longer than the pause the worker
        // waits for; the worker asks for it meanwhile; the next request
        // comes as soon as the first is done. The pause is counted from
        // when the first let the session go, so the second goes first.
        let first = {
            let foreground = foreground.clone();
            std::thread::spawn(move || foreground.embed(&["long request"]).unwrap())
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while log.lock().unwrap().is_empty() {
            assert!(Instant::now() < deadline, "the first request never took the session");
            std::thread::sleep(Duration::from_millis(1));
        }
        let worker = {
            let foreground = foreground.clone();
            std::thread::spawn(move || {
                foreground.lend(&|| false).embed_batch(&["passage"]).unwrap();
            })
        };
        first.join().unwrap();
        foreground.embed(&["second request"]).unwrap();
        worker.join().unwrap();
        assert_eq!(*log.lock().unwrap(), ["long request", "second request", "passage"]);
    }

    /// A deterministic test embedder that holds the session on texts that
    /// start with "held" until the test lets it go: `entered` and `leave`
    /// are met once each per held text.
    struct GatedTestEmbedder {
        entered: Arc<std::sync::Barrier>,
        leave: Arc<std::sync::Barrier>,
    }

    impl Embedder for GatedTestEmbedder {
        fn model_id(&self) -> &str {
            "gated-test-embedder"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            if texts.iter().any(|text| text.starts_with("held")) {
                self.entered.wait();
                self.leave.wait();
            }
            Ok(texts.iter().map(|text| vec![text.len() as f32]).collect())
        }
    }

    #[test]
    fn a_pause_counts_from_the_end_of_the_last_request_and_only_requests_move_it() {
        let (entered, leave) =
            (Arc::new(std::sync::Barrier::new(2)), Arc::new(std::sync::Barrier::new(2)));
        let embedder = GatedTestEmbedder { entered: entered.clone(), leave: leave.clone() };
        let foreground = Arc::new(
            Foreground::new(Box::new(embedder), 8)
                .with_quiet(Duration::from_millis(1), Duration::from_secs(30)),
        );
        let (_, start) = foreground.pause();
        let holding = {
            let foreground = foreground.clone();
            std::thread::spawn(move || foreground.embed(&["held request"]).unwrap())
        };
        entered.wait();
        let held_for = Instant::now();
        assert_eq!(foreground.pause().0, None, "a request holds the session");
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(foreground.pause().0, None, "a request holds the session");
        leave.wait();
        holding.join().unwrap();
        let (quiet, first) = foreground.pause();
        let quiet = quiet.expect("no request holds the session");
        assert_ne!(first, start, "the request moved the mark");
        // Counted from when the request let the session go, not from when
        // it took it.
        assert!(quiet < held_for.elapsed(), "{quiet:?}");
        // The worker's own embedding is no request.
        foreground.lend(&|| false).embed_batch(&["passage"]).unwrap();
        assert_eq!(foreground.pause().1, first, "the worker moved the mark");
        std::thread::sleep(Duration::from_millis(2));
        foreground.embed(&["next request"]).unwrap();
        assert_ne!(foreground.pause().1, first, "the next request moved the mark");
    }

    #[test]
    fn under_a_stream_of_requests_text_without_a_vector_takes_its_turn_and_passages_wait() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let foreground = Arc::new(
            Foreground::new(Box::new(LoggingTestEmbedder(log.clone())), 8)
                .with_quiet(Duration::from_secs(2), Duration::from_millis(50))
                .with_passages_at_most(Duration::from_secs(60)),
        );
        let logged = |text: &str| log.lock().unwrap().iter().any(|logged| logged == text);
        let request = |count: usize| foreground.embed(&[&format!("request {count}")]).unwrap();
        let mut count = 0;
        request(count);
        let workers: Vec<_> = [false, true]
            .into_iter()
            .map(|passages| {
                let foreground = foreground.clone();
                std::thread::spawn(move || {
                    let mut lent = foreground.lend(&|| false);
                    if passages {
                        lent.embed_batch_when_quiet(&["passage"]).unwrap();
                    } else {
                        lent.embed_batch(&["no vector yet"]).unwrap();
                    }
                })
            })
            .collect();
        // Requests every 2 ms, never the 2 s pause: the text without a
        // vector gets its turn anyway (within 50 ms of asking) ...
        let deadline = Instant::now() + Duration::from_secs(20);
        while !logged("no vector yet") {
            assert!(Instant::now() < deadline, "the worker never took a turn");
            count += 1;
            request(count);
            std::thread::sleep(Duration::from_millis(2));
        }
        // ... and the passage waits on for its pause.
        for _ in 0..100 {
            count += 1;
            request(count);
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(!logged("passage"), "a passage took a turn under a stream of requests");
        for worker in workers {
            worker.join().unwrap();
        }
        assert_eq!(log.lock().unwrap().last().map(String::as_str), Some("passage"));
    }

    #[test]
    fn the_lent_session_gives_the_vectors_of_a_batch() {
        let foreground = Foreground::new(Box::new(LengthTestEmbedder), 8);
        let vectors = foreground.lend(&|| false).embed_batch(&["a", "three", ""]).unwrap();
        assert_eq!(vectors, vec![vec![1.0], vec![5.0], vec![0.0]]);
    }

    #[test]
    fn the_worker_lets_requests_in_a_burst_go_first_until_it_is_stopped() {
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
                foreground.lend(&|| false).embed_batch(&["passage"]).unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(60));
        foreground.embed(&["second request"]).unwrap();
        worker.join().unwrap();
        assert_eq!(*log.lock().unwrap(), ["first request", "second request", "passage"]);

        // Told to stop, the worker waits for no pause.
        log.lock().unwrap().clear();
        foreground.embed(&["third request"]).unwrap();
        foreground.lend(&|| true).embed_batch(&["late passage"]).unwrap();
        foreground.embed(&["fourth request"]).unwrap();
        assert_eq!(*log.lock().unwrap(), ["third request", "late passage", "fourth request"]);
    }
}
