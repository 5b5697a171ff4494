//! Turning whatever an agent typed into a safe FTS5 query.
//!
//! No user string is ever FTS5 syntax: the query is split into words (runs
//! of letters and digits), common English stop words are dropped, and each
//! word is quoted and OR-ed. `C++`, `"unbalanced`, `foo OR`, `NEAR(`, `*`
//! and `-x` are all searched as the words they contain.

use ferrex_core::rank::{STOP_WORDS, words};

/// Most words a query contributes.
const MAX_WORDS: usize = 64;

/// The FTS5 query for `text`, or `None` when it has no searchable word.
pub fn fts_query(text: &str) -> Option<String> {
    let mut kept: Vec<String> = Vec::new();
    for word in words(text) {
        if STOP_WORDS.contains(&word.as_str()) || kept.contains(&word) {
            continue;
        }
        kept.push(word);
        if kept.len() == MAX_WORDS {
            break;
        }
    }
    if kept.is_empty() {
        // A query of nothing but stop words still deserves an answer.
        kept = words(text).take(MAX_WORDS).collect();
    }
    if kept.is_empty() {
        return None;
    }
    Some(kept.iter().map(|word| format!("\"{word}\"")).collect::<Vec<_>>().join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::fts_query;

    fn check(input: &str, expect: Option<&str>) {
        assert_eq!(fts_query(input).as_deref(), expect, "{input:?}");
    }

    #[test]
    fn user_text_never_becomes_syntax() {
        check("C++", Some("\"c\""));
        check("\"unbalanced", Some("\"unbalanced\""));
        check("foo OR", Some("\"foo\""));
        check("NEAR(a b)", Some("\"near\" OR \"b\""));
        check("*", None);
        check("-x", Some("\"x\""));
        check("the", Some("\"the\""));
        check("", None);
        check("Où est l'hôtel?", Some("\"où\" OR \"est\" OR \"l\" OR \"hôtel\""));
        check("port port PORT", Some("\"port\""));
    }
}
