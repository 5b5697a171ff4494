//! A word's crude stem, shared by the judgements that compare words (a
//! predicate's wording, a correction's cue words) and by keyword ranking.

/// A word's stem, roughly: `lives`, `lived` and `living` are `liv`.
pub(crate) fn stem(word: &str) -> &str {
    for suffix in ["ing", "ed", "es", "s", "e"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.len() >= 3
        {
            return stem;
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn inflections_share_a_stem_and_short_words_keep_theirs() {
        for (word, expect) in [
            ("lives", "liv"),
            ("lived", "liv"),
            ("living", "liv"),
            ("deploys", "deploy"),
            ("uses", "use"),
            ("bus", "bus"),
            ("red", "red"),
        ] {
            assert_eq!(stem(word), expect, "{word}");
        }
    }
}
