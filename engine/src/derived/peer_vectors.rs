//! Vectors from and for paired devices that run the same model.
//!
//! Vectors stay derived and local: they never enter the documents. But a
//! device that arrives in a group holding 100k memories would embed for
//! half an hour before it could search them by meaning, while its peer has
//! every vector already. So a node answers `ferrex/vectors/1` requests from
//! its index ([`OfferedVectors`]), and a node with a backlog of memories that have
//! no vector at all asks a connected peer for theirs ([`take_from_peers`]):
//!
//! - only a peer whose profile (model id and the sha256 of every file the
//!   model is built from) equals this node's answers with vectors;
//! - only vectors computed from the same content (its hash) are taken, and
//!   only for memories that still have none (the worker, which embeds from
//!   the lowest row up, may have got there first: this takes from the top);
//! - every batch is checked: the right number of vectors for the text (its
//!   whole text and each passage), of the model's dimension, finite; and at
//!   least one memory of every batch, chosen at random, is embedded here
//!   and must agree (cosine ≥ [`MIN_AGREEMENT`] for each of its vectors).
//!   A peer that fails a check is not asked again while this node runs,
//!   and the worker embeds what it would have sent.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use ferrex_core::{cosine, passages::texts_to_embed};
use ferrex_sync::{
    Network,
    vectors::{MAX_WANTED, MemoryVectors, VectorReply, VectorRequest, VectorSource, Wanted},
};
use rand::RngExt;

use crate::{
    base::lock::lock,
    derived::embedding::{Foreground, WorkSignal},
    derived::index::{Index, Vectors},
};

/// A received vector must be at least this close (cosine) to the one this
/// node computes for the same text. The same model on another machine, or
/// in a batch of another shape, agrees to about 0.9999; another model's
/// vectors of the same size do not come near.
pub const MIN_AGREEMENT: f32 = 0.99;
/// Memories without a vector below which a node does not ask its peers:
/// the worker embeds that many in about a second, and checking a batch
/// costs a memory's embedding anyway.
pub const MIN_BACKLOG: i64 = 48;
/// How often the backlog is looked at.
const POLL: Duration = Duration::from_millis(250);
/// How long a peer that had nothing to give, or could not be reached, is
/// left alone.
const QUIET: Duration = Duration::from_secs(30);
/// Memories whose vectors are read under one hold of the index lock while
/// answering, so a store or a recall never waits long behind a peer.
const READ_CHUNK: usize = 64;

/// What this node offers its peers: the complete vectors of its index.
pub struct OfferedVectors {
    index: Arc<Mutex<Index>>,
    profile: Option<String>,
}

impl OfferedVectors {
    /// Shares the vectors of `index`, computed by the model `profile`
    /// names; `None` shares nothing.
    pub fn new(index: Arc<Mutex<Index>>, profile: Option<String>) -> OfferedVectors {
        OfferedVectors { index, profile }
    }
}

impl VectorSource for OfferedVectors {
    fn profile(&self) -> Option<String> {
        self.profile.clone()
    }

    fn vectors(&self, wanted: &[Wanted]) -> Vec<MemoryVectors> {
        let mut found = Vec::new();
        for chunk in wanted.chunks(READ_CHUNK) {
            let index = lock(&self.index);
            for wanted in chunk {
                match index.complete_vectors(&wanted.id, &wanted.content_hash) {
                    Ok(Some(vectors)) => found.push(MemoryVectors {
                        id: wanted.id.clone(),
                        content_hash: wanted.content_hash.clone(),
                        vectors,
                    }),
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(id = %wanted.id, "reading vectors for a peer: {}", crate::base::with_causes(&error));
                    }
                }
            }
        }
        found
    }
}

/// A memory this node has no vector for.
#[derive(Debug, Clone)]
pub(crate) struct Missing {
    pub(crate) rowid: i64,
    pub(crate) id: String,
    pub(crate) text: String,
    pub(crate) content_hash: String,
}

/// Vectors received for a memory, checked for shape.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) memory: Missing,
    pub(crate) vectors: Vectors,
}

/// Why a peer's vectors are not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum Untrusted {
    /// A memory came with vectors of the wrong number or size.
    #[error("memory {id}: {reason}")]
    Malformed {
        /// The memory.
        id: String,
        /// What was wrong.
        reason: String,
    },
    /// A vector disagrees with this node's for the same text.
    #[error("memory {id}: a vector differs from this node's (cosine {cosine:.4})")]
    Disagrees {
        /// The memory.
        id: String,
        /// The lowest cosine of its vectors.
        cosine: f32,
    },
}

/// Pairs what a peer sent with the memories asked for, checking the shape
/// of each: as many vectors as the text needs, each of `dimension` finite
/// floats. Vectors for memories not asked for, or for other content, are
/// dropped (the peer's copy differs; not an error).
pub(crate) fn match_batch(
    missing: &[Missing],
    received: Vec<MemoryVectors>,
    dimension: usize,
) -> Result<Vec<Received>, Untrusted> {
    let asked: HashMap<&str, &Missing> =
        missing.iter().map(|memory| (memory.id.as_str(), memory)).collect();
    let mut taken = Vec::with_capacity(received.len());
    let mut seen = HashSet::new();
    for memory in received {
        let Some(ours) = asked.get(memory.id.as_str()) else { continue };
        if memory.content_hash != ours.content_hash || !seen.insert(memory.id.clone()) {
            continue;
        }
        let malformed = |reason: String| Untrusted::Malformed { id: memory.id.clone(), reason };
        let needed = texts_to_embed(&ours.text).len();
        if memory.vectors.len() != needed {
            return Err(malformed(format!(
                "{} vectors for a text that needs {needed}",
                memory.vectors.len()
            )));
        }
        if let Some(vector) = memory.vectors.iter().find(|vector| vector.len() != dimension) {
            return Err(malformed(format!(
                "a vector of {} floats where the model gives {dimension}",
                vector.len()
            )));
        }
        if memory.vectors.iter().flatten().any(|value| !value.is_finite()) {
            return Err(malformed("a vector holds a value that is not a number".into()));
        }
        taken.push(Received { memory: (*ours).clone(), vectors: memory.vectors });
    }
    Ok(taken)
}

/// Checks `received` against `ours`, this node's vectors of the same texts;
/// the lowest cosine between them when they agree.
pub(crate) fn agrees(id: &str, received: &[Vec<f32>], ours: &[Vec<f32>]) -> Result<f32, Untrusted> {
    let lowest = received
        .iter()
        .zip(ours)
        .map(|(theirs, ours)| cosine(theirs, ours))
        .fold(f32::INFINITY, f32::min);
    if received.len() == ours.len() && lowest >= MIN_AGREEMENT {
        Ok(lowest)
    } else {
        Err(Untrusted::Disagrees { id: id.to_owned(), cosine: lowest.min(1.0) })
    }
}

/// What asking one peer came to.
enum Outcome {
    /// Vectors of this many memories were stored; the lowest cosine
    /// between a sampled vector and this node's own of the same text.
    Took(usize, f32),
    /// The peer runs another model, shares nothing, or is unreachable: ask
    /// again later.
    NotNow(String),
    /// The peer sent vectors that failed a check: never ask it again.
    Untrusted(Untrusted),
}

/// Asks connected peers for the vectors of memories that have none, as
/// long as the node runs (the daemon aborts it at shutdown).
pub async fn take_from_peers(
    network: Arc<Network>,
    index: Arc<Mutex<Index>>,
    foreground: Arc<Foreground>,
    signal: Arc<WorkSignal>,
    profile: String,
) {
    let mut untrusted: HashSet<String> = HashSet::new();
    let mut quiet: HashMap<String, Instant> = HashMap::new();
    loop {
        tokio::time::sleep(POLL).await;
        let backlog = {
            let index = index.clone();
            tokio::task::spawn_blocking(move || lock(&index).embedding_backlog(None))
                .await
                .ok()
                .and_then(Result::ok)
                .map_or(0, |(missing, _)| missing)
        };
        if backlog < MIN_BACKLOG {
            continue;
        }
        let now = Instant::now();
        for peer in network.connected_peers() {
            if untrusted.contains(&peer) || quiet.get(&peer).is_some_and(|until| *until > now) {
                continue;
            }
            let started = Instant::now();
            let outcome = take_from(&network, &peer, &index, &foreground, &signal, &profile).await;
            let short: String = peer.chars().take(10).collect();
            match outcome {
                Outcome::Took(0, _) => {
                    quiet.insert(peer, Instant::now() + QUIET);
                }
                Outcome::Took(memories, lowest_cosine) => {
                    tracing::info!(
                        peer = %short,
                        memories,
                        lowest_cosine,
                        elapsed_ms = started.elapsed().as_millis() as u64,
                        "took vectors from a peer running the same model"
                    );
                    signal.notify();
                }
                Outcome::NotNow(reason) => {
                    tracing::debug!(peer = %short, "no vectors from this peer for now: {reason}");
                    quiet.insert(peer, Instant::now() + QUIET);
                }
                Outcome::Untrusted(why) => {
                    tracing::warn!(
                        peer = %short,
                        "vectors from this peer failed a check ({why}); embedding here instead"
                    );
                    untrusted.insert(peer);
                }
            }
        }
    }
}

/// Takes what `peer` has for the memories without a vector, a batch at a
/// time from the highest row down.
async fn take_from(
    network: &Network,
    peer: &str,
    index: &Arc<Mutex<Index>>,
    foreground: &Arc<Foreground>,
    signal: &Arc<WorkSignal>,
    profile: &str,
) -> Outcome {
    let mut client = match network.vector_client(peer).await {
        Ok(client) => client,
        Err(error) => return Outcome::NotNow(error.to_string()),
    };
    let mut below = i64::MAX;
    let mut stored = 0;
    let mut lowest_cosine = 1.0f32;
    let mut batches = 0usize;
    let outcome = loop {
        // Merged changes being indexed go first (as for the embedding
        // worker): what arrives is searchable by its words before vectors
        // are stored for it. A steady stream of merges delays this, at
        // most a few seconds a batch.
        let yielding = Instant::now();
        while signal.is_indexing() && yielding.elapsed() < crate::derived::embedding::YIELD_LIMIT {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let missing = {
            let index = index.clone();
            let read = tokio::task::spawn_blocking(move || {
                lock(&index).missing_vectors_from_top(MAX_WANTED, below)
            })
            .await;
            match read {
                Ok(Ok(missing)) => missing,
                Ok(Err(error)) => {
                    break Outcome::NotNow(format!(
                        "reading the index: {}",
                        crate::base::with_causes(&error)
                    ));
                }
                Err(error) => break Outcome::NotNow(error.to_string()),
            }
        };
        let Some(&(lowest, ..)) = missing.last() else {
            break Outcome::Took(stored, lowest_cosine);
        };
        below = lowest;
        let missing: Vec<Missing> = missing
            .into_iter()
            .map(|(rowid, id, text, content_hash)| Missing { rowid, id, text, content_hash })
            .collect();
        let request = VectorRequest {
            profile: profile.to_owned(),
            wanted: missing
                .iter()
                .map(|memory| Wanted {
                    id: memory.id.clone(),
                    content_hash: memory.content_hash.clone(),
                })
                .collect(),
        };
        let received = match client.request(&request).await {
            Ok(VectorReply::Vectors(received)) => received,
            Ok(VectorReply::OtherModel(theirs)) => {
                break Outcome::NotNow(format!("it runs another model ({theirs})"));
            }
            Ok(VectorReply::Refused(reason)) => break Outcome::NotNow(reason),
            Err(error) => break Outcome::NotNow(error.to_string()),
        };
        batches += 1;
        match check_and_store(missing, received, index, foreground, signal, batches == 1).await {
            Ok((count, cosine)) => {
                stored += count;
                lowest_cosine = lowest_cosine.min(cosine);
            }
            Err(why) => break Outcome::Untrusted(why),
        }
    };
    client.close();
    outcome
}

/// Checks a batch (its shape, and one or two memories embedded here, at
/// random; two in the first batch from a peer) and stores what passes.
/// Returns how many memories got their vectors (counted in `signal`
/// before the index is let go, so `stats` never sees them uncounted) and
/// the lowest cosine of the samples.
async fn check_and_store(
    missing: Vec<Missing>,
    received: Vec<MemoryVectors>,
    index: &Arc<Mutex<Index>>,
    foreground: &Arc<Foreground>,
    signal: &Arc<WorkSignal>,
    first: bool,
) -> Result<(usize, f32), Untrusted> {
    let (foreground, index, signal) = (foreground.clone(), index.clone(), signal.clone());
    let checked = tokio::task::spawn_blocking(move || -> Result<(usize, f32), Untrusted> {
        let received = match_batch(&missing, received, foreground.dimension())?;
        if received.is_empty() {
            return Ok((0, 1.0));
        }
        let mut lowest = 1.0f32;
        let samples = if first { 2 } else { 1 };
        let mut rng = rand::rng();
        for _ in 0..samples.min(received.len()) {
            let sample = &received[rng.random_range(0..received.len())];
            let texts = texts_to_embed(&sample.memory.text);
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            match foreground.embed(&texts) {
                Ok(ours) => lowest = lowest.min(agrees(&sample.memory.id, &sample.vectors, &ours)?),
                Err(error) => {
                    // Not the peer's fault: leave the batch to the worker.
                    tracing::warn!("embedding a sample of a peer's vectors: {error}");
                    return Ok((0, 1.0));
                }
            }
        }
        let mut index = lock(&index);
        let stored = index
            .transaction(|tx| {
                let mut stored = 0;
                for Received { memory, vectors } in &received {
                    if tx.put_vectors_if_missing(memory.rowid, &memory.content_hash, vectors)? {
                        stored += 1;
                    }
                }
                Ok(stored)
            })
            .unwrap_or_else(|error| {
                tracing::warn!("storing vectors from a peer: {}", crate::base::with_causes(&error));
                0
            });
        signal.record_from_peers(stored);
        drop(index);
        Ok((stored, lowest))
    })
    .await;
    checked.unwrap_or(Ok((0, 1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(id: &str, text: &str) -> Missing {
        Missing {
            rowid: 1,
            id: id.into(),
            text: text.into(),
            content_hash: format!("hash of {id}"),
        }
    }

    fn sent(id: &str, vectors: Vec<Vec<f32>>) -> MemoryVectors {
        MemoryVectors { id: id.into(), content_hash: format!("hash of {id}"), vectors }
    }

    const TWO_SENTENCES: &str = "The deploy runs on Fridays. It needs the staging key.";

    #[test]
    fn vectors_of_the_right_shape_are_taken_and_others_dropped() {
        let asked = [missing("a", "One sentence."), missing("b", TWO_SENTENCES)];
        let needed = texts_to_embed(TWO_SENTENCES).len();
        assert!(needed > 1, "a two-sentence text has passages");
        let mut other_content = sent("a", vec![vec![0.5; 4]]);
        other_content.content_hash = "another text".into();
        let received = vec![
            other_content,
            sent("b", vec![vec![0.5; 4]; needed]),
            sent("not asked", vec![vec![0.5; 4]]),
        ];
        let taken = match_batch(&asked, received, 4).unwrap();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].memory.content_hash, "hash of b");
        assert_eq!(taken[0].vectors.len(), needed);
    }

    #[test]
    fn a_wrong_count_size_or_value_makes_the_peer_untrusted() {
        let asked = [missing("a", TWO_SENTENCES)];
        let needed = texts_to_embed(TWO_SENTENCES).len();
        let too_few = vec![sent("a", vec![vec![0.5; 4]; needed - 1])];
        let too_short = vec![sent("a", vec![vec![0.5; 3]; needed])];
        let mut not_a_number = vec![vec![0.5; 4]; needed];
        not_a_number[0][2] = f32::NAN;
        let not_a_number = vec![sent("a", not_a_number)];
        for received in [too_few, too_short, not_a_number] {
            let error = match_batch(&asked, received, 4).unwrap_err();
            assert!(matches!(error, Untrusted::Malformed { .. }), "{error}");
        }
    }

    #[test]
    fn agreement_needs_every_vector_close() {
        let ours = vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]];
        let nearly = vec![vec![1.0, 0.01, 0.0], vec![0.0, 1.0, 0.01]];
        assert!(agrees("m", &nearly, &ours).is_ok());
        let one_off = vec![vec![1.0, 0.01, 0.0], vec![0.0, 0.6, 0.8]];
        let Err(Untrusted::Disagrees { id, cosine }) = agrees("m", &one_off, &ours) else {
            panic!("a vector at cosine 0.6 agrees")
        };
        assert_eq!(id, "m");
        assert!((cosine - 0.6).abs() < 1e-4, "the lowest cosine is reported: {cosine}");
        assert!(agrees("m", &nearly[..1], &ours).is_err(), "a missing vector disagrees");
    }
}
