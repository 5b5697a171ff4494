//! Rank fusion: combining the dense and the full-text candidate lists.

use std::collections::HashMap;

/// The `k` of reciprocal rank fusion; 60 as in Cormack et al. (2009).
pub const RRF_K: f64 = 60.0;

/// The FTS5 tokenizer of the index's full-text table: Porter stems of
/// Unicode words, accents folded. The labs build their tables with it.
pub const FTS_TOKENIZER: &str = "porter unicode61 remove_diacritics 2";

/// Fuses ranked lists of ids by reciprocal rank fusion: each id scores
/// `sum(1 / (k + rank))` over the lists it appears in (rank starting at 1).
///
/// The result is sorted by score, highest first, and ties are broken by id so
/// that the order is the same on every node whatever order the lists' inputs
/// had.
pub fn reciprocal_rank_fusion(lists: &[&[String]], k: f64) -> Vec<(String, f64)> {
    let weighted: Vec<(&[String], f64)> = lists.iter().map(|list| (*list, 1.0)).collect();
    weighted_rank_fusion(&weighted, k)
}

/// Reciprocal rank fusion with a weight per list: each id scores
/// `sum(weight / (k + rank))`. Sorted like [`reciprocal_rank_fusion`].
pub fn weighted_rank_fusion(lists: &[(&[String], f64)], k: f64) -> Vec<(String, f64)> {
    let unscaled: &dyn Fn(&str) -> f64 = &|_| 1.0;
    let scaled: Vec<ScaledList<'_>> =
        lists.iter().map(|(list, weight)| (*list, *weight, unscaled)).collect();
    scaled_rank_fusion(&scaled, k)
}

/// A ranked list of ids, its weight, and what scales each id's share.
pub type ScaledList<'a> = (&'a [String], f64, &'a dyn Fn(&str) -> f64);

/// Weighted reciprocal rank fusion in which each list also scales each of
/// its ids: `sum(weight · scale(id) / (k + rank))`. Sorted like
/// [`reciprocal_rank_fusion`].
pub fn scaled_rank_fusion(lists: &[ScaledList<'_>], k: f64) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for (list, weight, scale) in lists {
        for (index, id) in list.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() +=
                weight * scale(id) / (k + index as f64 + 1.0);
        }
    }
    let mut fused: Vec<(String, f64)> =
        scores.into_iter().map(|(id, score)| (id.to_owned(), score)).collect();
    sort_by_score(&mut fused);
    fused
}

/// Words too common to tell texts apart: left out of keyword search and of
/// [`keyword_coverage`].
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "then",
    "there", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "why", "will", "with", "you", "your",
];

/// The words of `text` as keyword search sees them: lowercased runs of
/// letters and digits.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// The keyword a word stands for, if it is not a stop word: its crude stem
/// (`deploys` / `deployed` / `deploying` → `deploy`).
fn keyword(word: &str) -> Option<&str> {
    (!STOP_WORDS.contains(&word)).then(|| crate::stem::stem(word))
}

/// The distinct keywords of `text`, in order of first appearance: its
/// [`words`] but stop words, each cut to a crude stem.
pub fn keywords(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    words(text)
        .filter_map(|word| keyword(&word).map(str::to_owned))
        .filter(|keyword| seen.insert(keyword.clone()))
        .collect()
}

/// The share of `query_words` ([`keywords`] of a query) that `text` holds,
/// 0..=1. A keyword match on one common word of a long question is weak
/// evidence; one on most of its words is strong. One pass over `text`,
/// stopping once every query word is found.
pub fn keyword_coverage(query_words: &[String], text: &str) -> f64 {
    if query_words.is_empty() {
        return 0.0;
    }
    let mut held = vec![false; query_words.len()];
    let mut shared = 0;
    for word in words(text) {
        let Some(keyword) = keyword(&word) else { continue };
        if let Some(at) = query_words.iter().position(|wanted| wanted == keyword)
            && !held[at]
        {
            held[at] = true;
            shared += 1;
            if shared == query_words.len() {
                break;
            }
        }
    }
    shared as f64 / query_words.len() as f64
}

/// Sorts `(id, score)` pairs by score descending, then id ascending.
pub fn sort_by_score(scored: &mut [(String, f64)]) {
    scored.sort_by(|left, right| right.1.total_cmp(&left.1).then_with(|| left.0.cmp(&right.0)));
}

/// Maximal marginal relevance: re-orders `candidates` (`(id, relevance,
/// vector)`, best first) so that each next pick balances relevance against
/// similarity to what was already picked: `lambda · relevance − (1 − lambda)
/// · max cosine to the picked`. Relevance is scaled to 0..=1 first. With
/// `lambda` 1 the order is unchanged. Ties go to the earlier candidate.
pub fn maximal_marginal_relevance(
    candidates: &[(String, f64, Vec<f32>)],
    lambda: f64,
    k: usize,
) -> Vec<String> {
    let top = candidates.iter().map(|(_, score, _)| *score).fold(f64::MIN, f64::max);
    let bottom = candidates.iter().map(|(_, score, _)| *score).fold(f64::MAX, f64::min);
    let spread = (top - bottom).max(f64::EPSILON);
    let mut picked: Vec<usize> = Vec::new();
    let mut left: Vec<usize> = (0..candidates.len()).collect();
    while picked.len() < k && !left.is_empty() {
        let mut best: Option<(usize, f64)> = None;
        for (position, &index) in left.iter().enumerate() {
            let (_, score, vector) = &candidates[index];
            let relevance = if top == bottom { 1.0 } else { (score - bottom) / spread };
            let redundancy = picked
                .iter()
                .map(|&other| f64::from(crate::cosine(vector, &candidates[other].2)))
                .fold(0.0, f64::max);
            let value = lambda * relevance - (1.0 - lambda) * redundancy;
            if best.is_none_or(|(_, top)| value > top) {
                best = Some((position, value));
            }
        }
        let Some((position, _)) = best else { break };
        picked.push(left.remove(position));
    }
    picked.into_iter().map(|index| candidates[index].0.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn keywords_drop_stop_words_repeats_and_endings() {
        assert_eq!(
            keywords("When did we deploy the API? Deploys of the api-server, deployed today"),
            ids(&["deploy", "api", "server", "today"])
        );
        assert!(keywords("what is it").is_empty());
    }

    #[test]
    fn coverage_is_the_share_of_the_query_s_keywords_a_text_holds() {
        let query = keywords("which port does the billing api listen on");
        assert_eq!(query.len(), 4);
        let all = keyword_coverage(&query, "The billing API listens on port 8080.");
        let one = keyword_coverage(&query, "Billing reports are mailed on Fridays.");
        assert!((all - 1.0).abs() < 1e-9, "{all}");
        assert!((one - 0.25).abs() < 1e-9, "{one}");
        assert_eq!(keyword_coverage(&query, "nothing shared here"), 0.0);
        assert_eq!(keyword_coverage(&[], "anything"), 0.0);
    }

    #[test]
    fn an_id_in_both_lists_beats_ids_in_one() {
        let dense = ids(&["a", "b", "c"]);
        let text = ids(&["c", "d"]);
        let fused = reciprocal_rank_fusion(&[&dense, &text], RRF_K);
        assert_eq!(fused[0].0, "c");
        let expected = 1.0 / 63.0 + 1.0 / 61.0;
        assert!((fused[0].1 - expected).abs() < 1e-12);
        assert_eq!(fused.len(), 4);
    }

    #[test]
    fn weights_scale_each_list() {
        let dense = ids(&["a", "b"]);
        let text = ids(&["b", "a"]);
        let fused = weighted_rank_fusion(&[(&dense, 1.0), (&text, 2.0)], RRF_K);
        assert_eq!(fused[0].0, "b");
        assert!((fused[0].1 - (1.0 / 62.0 + 2.0 / 61.0)).abs() < 1e-12);
    }

    #[test]
    fn ties_are_broken_by_id() {
        let left = ids(&["b"]);
        let right = ids(&["a"]);
        let fused = reciprocal_rank_fusion(&[&left, &right], RRF_K);
        assert_eq!(fused.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn mmr_trades_relevance_for_variety() {
        let candidates = vec![
            ("a".to_owned(), 1.0, vec![1.0, 0.0]),
            ("a-again".to_owned(), 0.95, vec![0.99, 0.01]),
            ("b".to_owned(), 0.6, vec![0.0, 1.0]),
        ];
        let order = |lambda| maximal_marginal_relevance(&candidates, lambda, 3);
        assert_eq!(order(1.0), ["a", "a-again", "b"]);
        assert_eq!(order(0.5), ["a", "b", "a-again"]);
        assert_eq!(maximal_marginal_relevance(&candidates, 0.5, 1), ["a"]);
        assert!(maximal_marginal_relevance(&[], 0.5, 3).is_empty());
    }

    #[test]
    fn empty_lists_fuse_to_nothing() {
        assert!(reciprocal_rank_fusion(&[&[], &[]], RRF_K).is_empty());
    }
}
