//! The production embedder: fastembed on a dynamically loaded ONNX Runtime.

use std::borrow::Cow;

use fastembed::{InitOptionsUserDefined, TextEmbedding, UserDefinedEmbeddingModel};
use ferrex_core::{EmbedError, Embedder};

use crate::{LoadError, ModelFiles, ModelSearch, ModelTier, runtime};

/// How to build and run a [`FastEmbedder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedderOptions {
    /// Which model to run.
    pub tier: ModelTier,
    /// ONNX Runtime intra-op threads. One is fastest on a small machine
    /// shared with other work (two were twice as slow on two cores).
    pub intra_threads: usize,
    /// Tokens per text; longer texts are truncated.
    pub max_length: usize,
    /// Texts per inference call. Texts are grouped by length first, so a batch
    /// pads little. A model that quantises per call
    /// ([`ModelTier::quantises_per_call`]) is always run one text at a time.
    pub batch_size: usize,
}

impl Default for EmbedderOptions {
    fn default() -> Self {
        EmbedderOptions {
            tier: ModelTier::default(),
            intra_threads: 1,
            max_length: 256,
            batch_size: 8,
        }
    }
}

/// fastembed behind [`Embedder`].
pub struct FastEmbedder {
    model: TextEmbedding,
    model_id: String,
    dimension: usize,
    batch_size: usize,
    query_prefix: &'static str,
    passage_prefix: &'static str,
}

impl std::fmt::Debug for FastEmbedder {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("FastEmbedder")
            .field("model_id", &self.model_id)
            .field("dimension", &self.dimension)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

impl FastEmbedder {
    /// Finds, verifies and loads the model `options.tier` names.
    pub fn load(search: &ModelSearch, options: &EmbedderOptions) -> Result<Self, LoadError> {
        let files = search.locate(options.tier)?;
        files.verify()?;
        Self::from_verified_files(&files, options)
    }

    /// Loads from files the caller has already located and verified.
    pub fn from_verified_files(
        files: &ModelFiles,
        options: &EmbedderOptions,
    ) -> Result<Self, LoadError> {
        let environment = runtime::environment(&files.runtime)?;
        let tokenizer_files = crate::locate::tokenizer_files(&files.tier_dir)?;
        let tier = files.tier;
        let model = UserDefinedEmbeddingModel::new(files.read("model.onnx")?, tokenizer_files)
            .with_pooling(tier.pooling());
        let init = InitOptionsUserDefined::new()
            .with_environment(environment)
            .with_execution_providers(vec![crate::runtime::cpu_without_arena()])
            .with_intra_threads(options.intra_threads.max(1))
            .with_max_length(options.max_length);
        let model = TextEmbedding::try_new_from_user_defined(model, init).map_err(|error| {
            LoadError::Model { path: files.tier_dir.clone(), message: error.to_string() }
        })?;
        let pooling = match tier.pooling() {
            fastembed::Pooling::Cls => "cls",
            fastembed::Pooling::Mean => "mean",
        };
        let (query_prefix, passage_prefix) = tier.prefixes();
        let batch_size = if tier.quantises_per_call() { 1 } else { options.batch_size.max(1) };
        Ok(FastEmbedder {
            model,
            model_id: format!("{}/{pooling}/{}", tier.model_name(), options.max_length),
            dimension: tier.dimension(),
            batch_size,
            query_prefix,
            passage_prefix,
        })
    }

    /// Embeds `texts`, each led by `prefix`, `batch_size` at a time.
    fn embed_prefixed(
        &mut self,
        texts: &[&str],
        prefix: &str,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let prefixed: Vec<Cow<'_, str>> = texts
            .iter()
            .map(|text| {
                if prefix.is_empty() {
                    Cow::Borrowed(*text)
                } else {
                    format!("{prefix}{text}").into()
                }
            })
            .collect();
        let texts: Vec<&str> = prefixed.iter().map(|text| text.as_ref()).collect();
        // Group texts of similar length so each inference call pads little,
        // then put the vectors back in input order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&index| texts[index].len());
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for chunk in order.chunks(self.batch_size) {
            let batch: Vec<&str> = chunk.iter().map(|&index| texts[index]).collect();
            let embedded = self
                .model
                .embed(&batch, Some(batch.len()))
                .map_err(|error| EmbedError::Inference(error.to_string()))?;
            if embedded.len() != batch.len() {
                return Err(EmbedError::WrongCount { expected: batch.len(), got: embedded.len() });
            }
            for (&index, vector) in chunk.iter().zip(embedded) {
                vectors[index] = Some(vector);
            }
        }
        let expected = texts.len();
        let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
        if vectors.len() != expected {
            return Err(EmbedError::WrongCount { expected, got: vectors.len() });
        }
        Ok(vectors)
    }
}

impl Embedder for FastEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_prefixed(texts, self.passage_prefix)
    }

    fn embed_query(&mut self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut vectors = self.embed_prefixed(&[query], self.query_prefix)?;
        vectors.pop().ok_or(EmbedError::WrongCount { expected: 1, got: 0 })
    }
}
