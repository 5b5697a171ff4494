//! The production embedder with the real models: every pinned tier
//! (all-MiniLM-L6-v2, e5-small-v2, bge-small-en-v1.5).
//!
//! These tests need the models installed (`scripts/fetch-model`);
//! `scripts/test` installs them before running them.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::Path;

use ferrex_core::{Embedder, cosine};
use ferrex_embed::{EmbedderOptions, FastEmbedder, LoadError, ModelSearch, ModelTier};

const PINNED: [ModelTier; 3] = [ModelTier::MiniLm, ModelTier::E5Small, ModelTier::BgeSmall];

fn embedder() -> FastEmbedder {
    load(ModelTier::default())
}

fn load(tier: ModelTier) -> FastEmbedder {
    FastEmbedder::load(&ModelSearch::from_env(), &EmbedderOptions { tier, ..Default::default() })
        .unwrap_or_else(|error| panic!("{tier}: {error}"))
}

fn similarity(embedder: &mut FastEmbedder, left: &str, right: &str) -> f32 {
    let vectors = embedder.embed_batch(&[left, right]).unwrap();
    cosine(&vectors[0], &vectors[1])
}

/// Each tier loads from its verified files, names itself, and finds a
/// paraphrase closer than an unrelated sentence, by a margin, and a query
/// closer to the note that answers it than to another note.
#[test]
fn every_tier_passes_the_sanity_pairs() {
    for tier in PINNED {
        let mut embedder = load(tier);
        assert_eq!(embedder.dimension(), 384, "{tier}");
        assert!(embedder.model_id().starts_with(tier.model_name()), "{}", embedder.model_id());
        let close =
            similarity(&mut embedder, "The cat sits on the mat", "A cat is sitting on a rug");
        let far =
            similarity(&mut embedder, "The cat sits on the mat", "Quarterly revenue grew 10%");
        assert!(close > far + 0.15, "{tier}: cat/rug {close}, cat/revenue {far}");
        let query = embedder.embed_query("which port does the api listen on?").unwrap();
        let notes = embedder
            .embed_batch(&[
                "The api server listens on 8080 behind the load balancer.",
                "Alice prefers tabs over spaces in every repository.",
            ])
            .unwrap();
        let (right, wrong) = (cosine(&query, &notes[0]), cosine(&query, &notes[1]));
        assert!(right > wrong + 0.05, "{tier}: answering note {right}, other note {wrong}");
    }
    let mut minilm = load(ModelTier::MiniLm);
    let close = similarity(&mut minilm, "The cat sits on the mat", "A cat is sitting on a rug");
    let far = similarity(&mut minilm, "The cat sits on the mat", "Quarterly revenue grew 10%");
    assert!(close > 0.6 && far < 0.2, "all-MiniLM-L6-v2: cat/rug {close}, cat/revenue {far}");
}

/// e5 and bge see a query with their query prefix, MiniLM sees it as is.
#[test]
fn queries_get_the_tier_s_prefix() {
    for tier in PINNED {
        let mut embedder = load(tier);
        let as_query = embedder.embed_query("deploy freeze").unwrap();
        let as_text = embedder.embed_one("deploy freeze").unwrap();
        let agreement = cosine(&as_query, &as_text);
        if tier.prefixes().0.is_empty() {
            assert_eq!(as_query, as_text, "{tier}");
        } else {
            assert!(agreement < 0.999, "{tier}: query and text vectors agree {agreement}");
        }
    }
}

/// Peers and index rebuilds embed in batches while a store embeds one text;
/// recall ranks alike on every node, and after a rebuild, only if batching
/// changes no bit. A tier that quantises per call runs one text at a time
/// for this reason.
#[test]
fn batching_changes_no_bit_of_any_vector() {
    let texts = [
        "x",
        "the cat sat on a mat today",
        "a much longer sentence with many more tokens than the other ones here, padded past them",
        "",
        "tokio runtime",
        "Alice prefers tabs over spaces and reviews every pull request before lunch",
    ];
    for tier in PINNED {
        let mut embedder = load(tier);
        let batch = embedder.embed_batch(&texts).unwrap();
        assert_eq!(batch.len(), texts.len());
        for (text, batched) in texts.iter().zip(&batch) {
            assert_eq!(&embedder.embed_one(text).unwrap(), batched, "{tier}: {text:?}");
        }
    }
}

#[test]
fn vectors_are_unit_length() {
    for tier in PINNED {
        let mut embedder = load(tier);
        for vector in
            embedder.embed_batch(&["one", "two words", "a somewhat longer sentence"]).unwrap()
        {
            let norm = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{tier}: norm {norm}");
            assert_eq!(vector.len(), 384);
        }
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
    assert!(message.contains(ferrex_embed::INSTALL_COMMAND), "{message}");
    assert!(message.contains(&empty.path().display().to_string()), "{message}");
}

#[test]
fn a_file_with_a_wrong_sha256_is_refused_by_name() {
    for tier in PINNED {
        let installed = ModelSearch::from_env().locate(tier).unwrap();
        let copy = tempfile::tempdir().unwrap();
        let tier_dir = copy.path().join(tier.dir_name());
        std::fs::create_dir_all(&tier_dir).unwrap();
        std::fs::create_dir_all(copy.path().join("onnxruntime")).unwrap();
        link(&installed.runtime, &copy.path().join(ferrex_embed::runtime_pin().unwrap().file));
        for file in tier.files() {
            link(&installed.tier_dir.join(file.name), &tier_dir.join(file.name));
        }
        // Replace one small file with altered content.
        let config = tier_dir.join("tokenizer_config.json");
        let mut content = std::fs::read(&config).unwrap();
        std::fs::remove_file(&config).unwrap();
        content.push(b'\n');
        std::fs::write(&config, content).unwrap();

        let options = EmbedderOptions { tier, ..Default::default() };
        let error = FastEmbedder::load(&ModelSearch::only(copy.path()), &options).unwrap_err();
        assert!(matches!(error, LoadError::ChecksumMismatch { .. }), "{tier}: {error}");
        let message = error.to_string();
        assert!(message.contains("tokenizer_config.json"), "{message}");
        assert!(message.contains(ferrex_embed::INSTALL_COMMAND), "{message}");
    }
}

#[test]
fn a_missing_runtime_is_reported_as_such() {
    let installed = ModelSearch::from_env().locate(ModelTier::default()).unwrap();
    let copy = tempfile::tempdir().unwrap();
    let tier_dir = copy.path().join(ModelTier::default().dir_name());
    std::fs::create_dir_all(&tier_dir).unwrap();
    for file in ModelTier::default().files() {
        link(&installed.tier_dir.join(file.name), &tier_dir.join(file.name));
    }
    let error = FastEmbedder::load(&ModelSearch::only(copy.path()), &EmbedderOptions::default())
        .unwrap_err();
    assert!(matches!(error, LoadError::RuntimeNotFound { .. }), "{error}");
}

fn link(from: &Path, to: &Path) {
    std::os::unix::fs::symlink(from, to).unwrap();
}

/// The cross-encoder scores the note that answers a question above one that
/// does not, the same alone as among others, and a corrupt file is refused.
#[test]
fn the_reranker_prefers_the_answer_and_refuses_a_corrupt_file() {
    let mut reranker = ferrex_embed::Reranker::load(&ModelSearch::from_env(), 1).unwrap();
    let notes = [
        "Alice prefers tabs over spaces in every repository.",
        "The api server listens on 8080 behind the load balancer.",
    ];
    let scores = reranker.scores("which port does the api listen on?", &notes).unwrap();
    assert!(scores[1] > scores[0] + 1.0, "{scores:?}");
    let alone = reranker.scores("which port does the api listen on?", &notes[1..]).unwrap();
    assert_eq!(alone[0], scores[1]);

    let installed = ModelSearch::from_env().locate(ModelTier::default()).unwrap();
    let copy = tempfile::tempdir().unwrap();
    let dir = copy.path().join(ferrex_embed::RERANKER_DIR);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(copy.path().join("onnxruntime")).unwrap();
    link(&installed.runtime, &copy.path().join(ferrex_embed::runtime_pin().unwrap().file));
    let source = installed.tier_dir.parent().unwrap().join(ferrex_embed::RERANKER_DIR);
    for file in ferrex_embed::RERANKER_FILES {
        link(&source.join(file.name), &dir.join(file.name));
    }
    std::fs::remove_file(dir.join("config.json")).unwrap();
    std::fs::write(dir.join("config.json"), "{}").unwrap();
    let error = ferrex_embed::Reranker::load(&ModelSearch::only(copy.path()), 1).unwrap_err();
    assert!(matches!(error, LoadError::ChecksumMismatch { .. }), "{error}");
    let empty = tempfile::tempdir().unwrap();
    let error = ferrex_embed::Reranker::load(&ModelSearch::only(empty.path()), 1).unwrap_err();
    assert!(error.to_string().contains(ferrex_embed::RERANKER_DIR), "{error}");
}
