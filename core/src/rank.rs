//! Rank fusion: combining the dense and the full-text candidate lists.

use std::collections::HashMap;

/// The `k` of reciprocal rank fusion; 60 as in Cormack et al. (2009).
pub const RRF_K: f64 = 60.0;

/// Fuses ranked lists of ids by reciprocal rank fusion: each id scores
/// `sum(1 / (k + rank))` over the lists it appears in (rank starting at 1).
///
/// The result is sorted by score, highest first, and ties are broken by id so
/// that the order is the same on every node whatever order the lists' inputs
/// had.
pub fn reciprocal_rank_fusion(lists: &[&[String]], k: f64) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for list in lists {
        for (index, id) in list.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() += 1.0 / (k + index as f64 + 1.0);
        }
    }
    let mut fused: Vec<(String, f64)> =
        scores.into_iter().map(|(id, score)| (id.to_owned(), score)).collect();
    sort_by_score(&mut fused);
    fused
}

/// Sorts `(id, score)` pairs by score descending, then id ascending.
pub fn sort_by_score(scored: &mut [(String, f64)]) {
    scored.sort_by(|left, right| right.1.total_cmp(&left.1).then_with(|| left.0.cmp(&right.0)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
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
    fn ties_are_broken_by_id() {
        let left = ids(&["b"]);
        let right = ids(&["a"]);
        let fused = reciprocal_rank_fusion(&[&left, &right], RRF_K);
        assert_eq!(fused.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn empty_lists_fuse_to_nothing() {
        assert!(reciprocal_rank_fusion(&[&[], &[]], RRF_K).is_empty());
    }
}
