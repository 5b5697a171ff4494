//! An engine over a temporary home, for tests at the engine's boundary:
//! real documents and a real SQLite index on disk, a clock set by hand, and
//! a deterministic test embedder where the model does not matter (or the
//! real one, given). Built with the `testing` feature.

use std::sync::{Arc, Mutex};

use ferrex_core::{EmbedError, Embedder, Timestamp};
use ferrex_sync::{Replica, ReplicaOptions};

use crate::{
    Engine,
    base::{clock::ManualClock, config::Config},
    derived::{
        embedding::{self, Foreground, WorkSignal},
        index::Index,
        indexer,
    },
    engine::Settings,
};

/// Unit vectors from hashed words: texts sharing words are near. For tests
/// of pure logic only; no model.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordHashTestEmbedder;

impl Embedder for WordHashTestEmbedder {
    fn model_id(&self) -> &str {
        "word-hash-test"
    }

    fn dimension(&self) -> usize {
        64
    }

    fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|text| {
                let mut vector = vec![0.0f32; 64];
                for word in text.split_whitespace() {
                    let word = word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
                    let hash = word.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                        (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
                    });
                    for bit in 0..8 {
                        let dimension = ((hash >> (bit * 8)) % 64) as usize;
                        vector[dimension] += if (hash >> (bit + 56)) & 1 == 0 { 1.0 } else { -1.0 };
                    }
                }
                let norm = vector.iter().map(|value| value * value).sum::<f32>().sqrt().max(1e-6);
                vector.into_iter().map(|value| value / norm).collect()
            })
            .collect())
    }
}

/// When a test engine's clock starts: 2026-01-01T00:00:00Z.
pub const START: Timestamp = Timestamp(1_767_225_600_000);

/// An engine over a temporary home (removed when dropped).
#[derive(Debug)]
pub struct TestEngine {
    /// The engine.
    pub engine: Engine,
    /// Its clock, which moves only when a test moves it.
    pub clock: Arc<ManualClock>,
    home: tempfile::TempDir,
}

impl TestEngine {
    /// An engine with the default settings and the word-hashing test
    /// embedder.
    pub fn new() -> anyhow::Result<TestEngine> {
        TestEngine::on("device-test")
    }

    /// As [`TestEngine::new`], as device `device` (two test engines that
    /// exchange documents are two devices).
    pub fn on(device: &str) -> anyhow::Result<TestEngine> {
        TestEngine::with(device, &Config::default(), Box::new(WordHashTestEmbedder))
    }

    /// An engine of device `device` with `config`'s settings and the real
    /// embedding model, loaded as a node loads it (found as a node finds
    /// it: `FERREX_EMBED_MODEL_DIR`, else the cache `scripts/fetch-model`
    /// fills), for tests whose outcome depends on the model: what is alike,
    /// a duplicate, a correction.
    pub fn with_model(device: &str, config: &Config) -> anyhow::Result<TestEngine> {
        let files = ferrex_embed::ModelSearch::from_env().locate(config.tier)?;
        let model =
            ferrex_embed::FastEmbedder::from_verified_files(&files, &config.embedder_options())?;
        TestEngine::with(device, config, Box::new(model))
    }

    /// An engine of device `device` with `config`'s settings and `embedder`.
    pub fn with(
        device: &str,
        config: &Config,
        embedder: Box<dyn Embedder>,
    ) -> anyhow::Result<TestEngine> {
        // In memory where the system offers a folder there (Linux's
        // /dev/shm): what is tested here is what the engine decides, not
        // the disk's sync, and a workload of thousands of durable writes
        // then takes seconds.
        // `FERREX_TEST_DIR` chooses another folder.
        let shared_memory = std::path::PathBuf::from("/dev/shm");
        let folder = std::env::var_os("FERREX_TEST_DIR")
            .map(std::path::PathBuf::from)
            .or_else(|| shared_memory.is_dir().then_some(shared_memory));
        let mut builder = tempfile::Builder::new();
        builder.prefix("ferrex-test-");
        let home = match folder {
            Some(folder) => builder.tempdir_in(folder)?,
            None => builder.tempdir()?,
        };
        let replica = Replica::open(&home.path().join("docs"), device, ReplicaOptions::default())?;
        let (model, dimension) = (embedder.model_id().to_owned(), embedder.dimension());
        let (mut index, _) = Index::open(&home.path().join("index.sqlite"), &model, dimension)?;
        indexer::catch_up_all(&mut index, &replica)?;
        index.set_complete(true)?;
        let clock = Arc::new(ManualClock::new(START));
        let engine = Engine::new(
            Arc::new(replica),
            Arc::new(Mutex::new(index)),
            Arc::new(Foreground::new(embedder, 64)),
            Settings::from_config(config),
            Arc::new(WorkSignal::default()),
        )
        .with_clock(clock.clone())
        .with_shares(std::sync::Arc::new(std::sync::Mutex::new(
            ferrex_sync::shares::Shares::open(&home.path().join("shares"))?,
        )));
        Ok(TestEngine { engine, clock, home })
    }

    /// Sends every document of this engine to `other` by Automerge's sync
    /// protocol and the records' keys as a session does, in this process, and has `other` index what it merged as
    /// a node does with what a peer sends; returns the changes merged.
    pub fn send_to(&self, other: &TestEngine) -> anyhow::Result<usize> {
        let (ours, theirs) = (self.engine.replica(), other.engine.replica());
        let mut merged = 0;
        for doc in ours.doc_ids() {
            let (mut sending, mut receiving) =
                (automerge::sync::State::new(), automerge::sync::State::new());
            // Bounded: two documents converge in a few round trips.
            let mut quiet = false;
            for _round in 0..20 {
                let to_other = ours.generate_sync_message(&doc, &mut sending)?;
                let back = theirs.generate_sync_message(&doc, &mut receiving)?;
                if to_other.is_none() && back.is_none() {
                    quiet = true;
                    break;
                }
                if let Some(message) = to_other {
                    for change in theirs.receive_sync_message(&doc, &mut receiving, &message)? {
                        other.engine.apply_merged(&change)?;
                        merged += 1;
                    }
                }
                if let Some(message) = back {
                    ours.receive_sync_message(&doc, &mut sending, &message)?;
                }
            }
            anyhow::ensure!(quiet, "document {doc} did not converge in 20 round trips");
            // The records' keys, asked for and answered as a session does.
            let wanted = theirs.wanted_keys(&doc, None)?;
            if !wanted.is_empty() {
                let (keys, _) = ours.answer_keys(&doc, &wanted)?;
                if let Some(change) = theirs.accept_keys(&doc, &keys)? {
                    other.engine.apply_merged(&change)?;
                    merged += 1;
                }
            }
        }
        Ok(merged)
    }

    /// The temporary home.
    pub fn home(&self) -> &std::path::Path {
        self.home.path()
    }

    /// Does the embedding worker's work now (every passage queued by the
    /// stores so far), as the node's worker does in the pauses between
    /// requests; returns how many memories it embedded.
    pub fn embed_queued(&self) -> anyhow::Result<usize> {
        let no_pauses = || true;
        let go_on = || false;
        embedding::embed_queued(
            self.engine.index(),
            &mut self.engine.foreground().lend(&no_pauses),
            32,
            |_| {},
            &go_on,
            None,
        )
        .map_err(anyhow::Error::from)
    }
}

/// The files under `dir` whose bytes or whose names (a directory's too)
/// contain `needle` (ASCII letters compared case-insensitively, as
/// full-text indexes fold case): where a forgotten text must not be.
pub fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let needle = needle.to_ascii_lowercase().into_bytes();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_ascii_lowercase().into_bytes();
        if name.windows(needle.len()).any(|window| window == needle.as_slice()) {
            found.push(path);
        } else if path.is_dir() {
            found.extend(files_containing(&path, &String::from_utf8_lossy(&needle)));
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes
                .windows(needle.len())
                .any(|window| window.iter().map(u8::to_ascii_lowercase).eq(needle.iter().copied()))
        {
            found.push(path);
        }
    }
    found
}
