//! A small LRU cache of query vectors: agents repeat queries often.

use std::num::NonZeroUsize;

use ferrex_core::{EmbedError, Embedder};
use lru::LruCache;

/// Remembers the vectors of recent query texts.
#[derive(Debug)]
pub struct QueryCache {
    entries: LruCache<String, Vec<f32>>,
    hits: u64,
    misses: u64,
}

impl QueryCache {
    /// A cache holding at most `capacity` queries (at least one).
    pub fn new(capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        QueryCache { entries: LruCache::new(capacity), hits: 0, misses: 0 }
    }

    /// The vector of `query`, embedding it with `embedder` on a miss.
    pub fn embed(
        &mut self,
        embedder: &mut dyn Embedder,
        query: &str,
    ) -> Result<Vec<f32>, EmbedError> {
        if let Some(vector) = self.entries.get(query) {
            self.hits += 1;
            return Ok(vector.clone());
        }
        self.misses += 1;
        let vector = embedder.embed_query(query)?;
        self.entries.put(query.to_owned(), vector.clone());
        Ok(vector)
    }

    /// Forgets every cached vector (after a model change).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many lookups were served from the cache and how many were not.
    pub fn hit_counts(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic test embedder: counts calls, returns the text length.
    struct CountingTestEmbedder {
        calls: usize,
    }

    impl Embedder for CountingTestEmbedder {
        fn model_id(&self) -> &str {
            "counting-test-embedder"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls += 1;
            Ok(texts.iter().map(|text| vec![text.len() as f32]).collect())
        }
    }

    #[test]
    fn repeated_queries_are_served_from_the_cache() {
        let mut embedder = CountingTestEmbedder { calls: 0 };
        let mut cache = QueryCache::new(2);
        assert_eq!(cache.embed(&mut embedder, "abc").unwrap(), vec![3.0]);
        assert_eq!(cache.embed(&mut embedder, "abc").unwrap(), vec![3.0]);
        assert_eq!(embedder.calls, 1);
        cache.embed(&mut embedder, "de").unwrap();
        cache.embed(&mut embedder, "f").unwrap();
        cache.embed(&mut embedder, "abc").unwrap();
        assert_eq!(embedder.calls, 4, "abc was evicted by two newer queries");
        assert_eq!(cache.hit_counts(), (1, 4));
    }
}
