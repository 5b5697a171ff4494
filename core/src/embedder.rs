//! The embedding seam: the one trait through which ferrex turns text into vectors.

use std::fmt;

/// Turns text into dense vectors.
///
/// The production implementation lives in `ferrex-embed` (fastembed over ONNX
/// Runtime). Implementations return one L2-normalised vector of
/// [`Embedder::dimension`] floats per input text, in input order.
///
/// `embed_batch` takes `&mut self` because ONNX sessions are not shareable
/// across threads without a lock; callers give the embedder its own thread or
/// a mutex.
pub trait Embedder: Send {
    /// A stable identifier of the model and its settings, for example
    /// `"all-MiniLM-L6-v2/int8/mean/256"`. Vectors from different model ids
    /// are not comparable; an index records the id it was built with.
    fn model_id(&self) -> &str;

    /// The number of floats in every vector this embedder returns.
    fn dimension(&self) -> usize;

    /// Embeds `texts` to be found later (memories, their passages, phrases
    /// compared with each other) in one call. An empty slice gives an empty
    /// result.
    fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// [`Embedder::embed_batch`] for texts search can do without for a
    /// while (the passages of memories found by their whole text
    /// meanwhile): an embedder that shares its session with requests gives
    /// the requests longer before it takes a turn for them.
    fn embed_batch_when_quiet(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_batch(texts)
    }

    /// Embeds a search query. Models trained with distinct query and passage
    /// prefixes (e5) give it the query's; by default it is embedded as any
    /// text.
    fn embed_query(&mut self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed_one(query)
    }

    /// Embeds a single text.
    fn embed_one(&mut self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut vectors = self.embed_batch(&[text])?;
        vectors.pop().ok_or(EmbedError::WrongCount { expected: 1, got: 0 })
    }
}

/// Why an embedding call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    /// The model runtime failed while running inference; the text says why.
    #[error("embedding inference failed: {0}")]
    Inference(String),
    /// The model returned a different number of vectors than texts given.
    #[error("embedding model returned {got} vectors for {expected} texts")]
    WrongCount {
        /// How many texts went in.
        expected: usize,
        /// How many vectors came out.
        got: usize,
    },
}

/// Cosine similarity of two vectors of equal length; 0.0 when either is zero
/// or the lengths differ.
pub fn cosine(left: &[f32], right: &[f32]) -> f32 {
    if left.len() != right.len() || left.is_empty() {
        return 0.0;
    }
    let mut dot = 0.0f32;
    let mut left_norm = 0.0f32;
    let mut right_norm = 0.0f32;
    for (a, b) in left.iter().zip(right) {
        dot += a * b;
        left_norm += a * a;
        right_norm += b * b;
    }
    if left_norm == 0.0 || right_norm == 0.0 {
        return 0.0;
    }
    dot / (left_norm.sqrt() * right_norm.sqrt())
}

impl fmt::Debug for dyn Embedder {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Embedder")
            .field("model_id", &self.model_id())
            .field("dimension", &self.dimension())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::cosine;

    fn check(left: &[f32], right: &[f32], expect: f32) {
        let got = cosine(left, right);
        assert!((got - expect).abs() < 1e-6, "cosine({left:?}, {right:?}) = {got}, want {expect}");
    }

    #[test]
    fn cosine_cases() {
        check(&[1.0, 0.0], &[1.0, 0.0], 1.0);
        check(&[1.0, 0.0], &[0.0, 1.0], 0.0);
        check(&[1.0, 0.0], &[-1.0, 0.0], -1.0);
        check(&[3.0, 4.0], &[6.0, 8.0], 1.0);
        check(&[0.0, 0.0], &[1.0, 0.0], 0.0);
        check(&[1.0], &[1.0, 0.0], 0.0);
        check(&[], &[], 0.0);
    }
}
