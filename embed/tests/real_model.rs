//! The production embedder with the real all-MiniLM-L6-v2 model.
//!
//! These tests need the model installed (`scripts/fetch-model`); `scripts/test`
//! installs it before running them.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::Path;

use ferrex_core::{Embedder, cosine};
use ferrex_embed::{EmbedderOptions, FastEmbedder, LoadError, ModelSearch, ModelTier};

fn embedder() -> FastEmbedder {
    FastEmbedder::load(&ModelSearch::from_env(), &EmbedderOptions::default())
        .unwrap_or_else(|error| panic!("{error}"))
}

fn similarity(embedder: &mut FastEmbedder, left: &str, right: &str) -> f32 {
    let vectors = embedder.embed_batch(&[left, right]).unwrap();
    cosine(&vectors[0], &vectors[1])
}

#[test]
fn paraphrases_are_close_and_unrelated_sentences_are_not() {
    let mut embedder = embedder();
    let close = similarity(&mut embedder, "The cat sits on the mat", "A cat is sitting on a rug");
    let far = similarity(&mut embedder, "The cat sits on the mat", "Quarterly revenue grew 10%");
    assert!(close > 0.6, "cat/rug cosine {close}");
    assert!(far < 0.2, "cat/revenue cosine {far}");
    assert_eq!(embedder.dimension(), 384);
    assert!(embedder.model_id().starts_with("all-MiniLM-L6-v2/mean/"), "{}", embedder.model_id());
}

#[test]
fn a_batch_gives_the_same_vectors_as_one_by_one() {
    let mut embedder = embedder();
    let texts = [
        "short",
        "The api server listens on port 8080 behind the load balancer",
        "Deploys happen on Wednesdays after the sync meeting, never on Fridays",
        "",
        "tokio runtime",
        "Alice prefers tabs over spaces and reviews every pull request before lunch",
    ];
    let batch = embedder.embed_batch(&texts).unwrap();
    assert_eq!(batch.len(), texts.len());
    for (text, batched) in texts.iter().zip(&batch) {
        let single = embedder.embed_one(text).unwrap();
        let agreement = cosine(&single, batched);
        assert!(agreement > 0.999, "{text:?}: batch vs single cosine {agreement}");
    }
}

/// Peers and index rebuilds embed in batches while a store embeds one text;
/// recall ranks alike on every node only if batching changes no bit.
#[test]
fn batching_changes_no_bit_of_any_vector() {
    let mut embedder = embedder();
    let texts = [
        "x",
        "the cat sat on a mat today",
        "a much longer sentence with many more tokens than the other ones here, padded past them",
        "",
        "tokio runtime",
    ];
    let batch = embedder.embed_batch(&texts).unwrap();
    for (text, batched) in texts.iter().zip(&batch) {
        assert_eq!(&embedder.embed_one(text).unwrap(), batched, "{text:?}");
    }
}

#[test]
fn vectors_are_unit_length() {
    let mut embedder = embedder();
    for vector in embedder.embed_batch(&["one", "two words", "a somewhat longer sentence"]).unwrap()
    {
        let norm = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "norm {norm}");
        assert_eq!(vector.len(), 384);
    }
}

#[test]
fn empty_input_list_gives_an_empty_result() {
    assert!(embedder().embed_batch(&[]).unwrap().is_empty());
}

#[test]
fn empty_and_very_long_strings_embed_by_truncation() {
    let mut embedder = embedder();
    let long = "memory ".repeat(50_000 / 7 + 1);
    let long = &long[..50_000];
    let vectors = embedder.embed_batch(&["", long]).unwrap();
    assert_eq!(vectors.len(), 2);
    assert!(vectors.iter().all(|vector| vector.len() == 384));
    assert!(vectors.iter().flatten().all(|value| value.is_finite()));
}

#[test]
fn a_missing_model_directory_gives_the_install_command() {
    let empty = tempfile::tempdir().unwrap();
    let error = FastEmbedder::load(&ModelSearch::only(empty.path()), &EmbedderOptions::default())
        .unwrap_err();
    assert!(matches!(error, LoadError::ModelNotFound { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("scripts/fetch-model"), "{message}");
    assert!(message.contains(&empty.path().display().to_string()), "{message}");
}

#[test]
fn a_file_with_a_wrong_sha256_is_refused_by_name() {
    let installed = ModelSearch::from_env().locate(ModelTier::Small).unwrap();
    let copy = tempfile::tempdir().unwrap();
    let tier_dir = copy.path().join(ModelTier::Small.dir_name());
    std::fs::create_dir_all(&tier_dir).unwrap();
    std::fs::create_dir_all(copy.path().join("onnxruntime")).unwrap();
    link(&installed.runtime, &copy.path().join(ferrex_embed::RUNTIME_FILE));
    for file in ModelTier::Small.files() {
        link(&installed.tier_dir.join(file.name), &tier_dir.join(file.name));
    }
    // Replace one small file with altered content.
    let config = tier_dir.join("config.json");
    let mut content = std::fs::read(&config).unwrap();
    std::fs::remove_file(&config).unwrap();
    content.push(b'\n');
    std::fs::write(&config, content).unwrap();

    let error = FastEmbedder::load(&ModelSearch::only(copy.path()), &EmbedderOptions::default())
        .unwrap_err();
    assert!(matches!(error, LoadError::ChecksumMismatch { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("config.json"), "{message}");
    assert!(message.contains("scripts/fetch-model"), "{message}");
}

#[test]
fn a_missing_runtime_is_reported_as_such() {
    let installed = ModelSearch::from_env().locate(ModelTier::Small).unwrap();
    let copy = tempfile::tempdir().unwrap();
    let tier_dir = copy.path().join(ModelTier::Small.dir_name());
    std::fs::create_dir_all(&tier_dir).unwrap();
    for file in ModelTier::Small.files() {
        link(&installed.tier_dir.join(file.name), &tier_dir.join(file.name));
    }
    let error = FastEmbedder::load(&ModelSearch::only(copy.path()), &EmbedderOptions::default())
        .unwrap_err();
    assert!(matches!(error, LoadError::RuntimeNotFound { .. }), "{error}");
}

fn link(from: &Path, to: &Path) {
    std::os::unix::fs::symlink(from, to).unwrap();
}
