//! Predicate normalisation: agents write `depends on`, `Depends-On` and
//! `requires` for one relation; facts are compared on one spelling.
//!
//! A predicate is lowercased and its separators folded into `_`; then a
//! synonym group maps it to the group's name (the defaults below, plus the
//! user's groups); failing that, a predicate already in use that is close
//! enough by Jaro–Winkler is taken; else the folded form stands.

use std::collections::BTreeMap;

/// The default synonym groups: the group's name, then its other spellings.
pub const DEFAULT_GROUPS: &[(&str, &[&str])] = &[
    ("depends_on", &["uses", "requires", "needs", "depends"]),
    ("built_with", &["written_in", "implemented_in", "made_with"]),
    ("version", &["runs_version", "at_version", "has_version"]),
    ("owned_by", &["maintained_by", "managed_by"]),
];

/// How a predicate was normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicateMatch {
    /// Only folded (or already canonical).
    Folded,
    /// Mapped by a synonym group.
    Synonym,
    /// Matched to a predicate in use by Jaro–Winkler.
    Fuzzy,
}

/// Synonym groups: spelling (folded) → canonical predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateGroups {
    to_canonical: BTreeMap<String, String>,
}

impl Default for PredicateGroups {
    fn default() -> Self {
        let mut groups = PredicateGroups { to_canonical: BTreeMap::new() };
        for (canonical, spellings) in DEFAULT_GROUPS {
            groups.add(canonical, spellings.iter().copied());
        }
        groups
    }
}

impl PredicateGroups {
    /// No groups at all.
    pub fn empty() -> Self {
        PredicateGroups { to_canonical: BTreeMap::new() }
    }

    /// Adds (or extends) the group `canonical` with `spellings`. A spelling
    /// already in another group moves to this one: later groups win, so a
    /// user's group overrides a default.
    pub fn add<'a>(&mut self, canonical: &str, spellings: impl IntoIterator<Item = &'a str>) {
        let canonical = fold(canonical);
        self.to_canonical.insert(canonical.clone(), canonical.clone());
        for spelling in spellings {
            self.to_canonical.insert(fold(spelling), canonical.clone());
        }
    }

    /// The canonical names of every group.
    pub fn canonical_names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.to_canonical.values().map(String::as_str).collect();
        names.dedup();
        names.into_iter()
    }

    /// Normalises `predicate`: fold, then synonym group, then the closest of
    /// `known` (predicates in use) with Jaro–Winkler above `fuzzy`.
    pub fn normalise<'a>(
        &self,
        predicate: &str,
        known: impl IntoIterator<Item = &'a str>,
        fuzzy: f64,
    ) -> (String, PredicateMatch) {
        let folded = fold(predicate);
        if let Some(canonical) = self.to_canonical.get(&folded) {
            let how =
                if *canonical == folded { PredicateMatch::Folded } else { PredicateMatch::Synonym };
            return (canonical.clone(), how);
        }
        let mut best: Option<(f64, String)> = None;
        for candidate in
            known.into_iter().map(fold).chain(self.canonical_names().map(str::to_owned))
        {
            if candidate == folded {
                return (folded, PredicateMatch::Folded);
            }
            let score = strsim::jaro_winkler(&folded, &candidate);
            if score > fuzzy
                && alike_word_by_word(&folded, &candidate, fuzzy)
                && best
                    .as_ref()
                    .is_none_or(|(top, name)| score > *top || (score == *top && candidate < *name))
            {
                best = Some((score, candidate));
            }
        }
        match best {
            Some((_, candidate)) => {
                let canonical = self.to_canonical.get(&candidate).cloned().unwrap_or(candidate);
                (canonical, PredicateMatch::Fuzzy)
            }
            None => (folded, PredicateMatch::Folded),
        }
    }
}

/// Whether two folded predicates differ only in spelling, word by word:
/// the same words run together (`dependson`, `depends_on`), or as many words
/// with each pair close (`listens_on_port`, `listen_on_port`). `born_on` and
/// `born_in`, or `created_at` and `created_by`, are close as strings but
/// differ in a word: different relations.
fn alike_word_by_word(left: &str, right: &str, fuzzy: f64) -> bool {
    if left.replace('_', "") == right.replace('_', "") {
        return true;
    }
    let (left, right): (Vec<&str>, Vec<&str>) =
        (left.split('_').collect(), right.split('_').collect());
    left.len() == right.len()
        && left.iter().zip(&right).all(|(a, b)| a == b || strsim::jaro_winkler(a, b) > fuzzy)
}

/// Lowercases and folds runs of separators (spaces, `-`, `.`, `/`, `_`)
/// into one `_`, trimmed at both ends.
pub fn fold(predicate: &str) -> String {
    let mut folded = String::with_capacity(predicate.len());
    let mut pending = false;
    for c in predicate.trim().chars() {
        if c.is_alphanumeric() {
            if pending && !folded.is_empty() {
                folded.push('_');
            }
            pending = false;
            folded.extend(c.to_lowercase());
        } else {
            pending = true;
        }
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(predicate: &str, known: &[&str], expect: &str, how: PredicateMatch) {
        let groups = PredicateGroups::default();
        let got = groups.normalise(predicate, known.iter().copied(), 0.85);
        assert_eq!(got, (expect.to_owned(), how), "{predicate:?} with known {known:?}");
    }

    #[test]
    fn folding() {
        for (input, expect) in [
            ("Depends On", "depends_on"),
            ("depends-on", "depends_on"),
            ("  DEPENDS__ON ", "depends_on"),
            ("runs.version", "runs_version"),
            ("a/b c", "a_b_c"),
            ("port", "port"),
            ("--", ""),
        ] {
            assert_eq!(fold(input), expect, "{input:?}");
        }
    }

    #[test]
    fn normalisation_stages() {
        use PredicateMatch::*;
        check("port", &[], "port", Folded);
        check("Depends-On", &[], "depends_on", Folded);
        check("uses", &[], "depends_on", Synonym);
        check("Requires", &[], "depends_on", Synonym);
        check("needs", &[], "depends_on", Synonym);
        check("written in", &[], "built_with", Synonym);
        check("implemented_in", &[], "built_with", Synonym);
        check("runs version", &[], "version", Synonym);
        check("at-version", &[], "version", Synonym);
        check("maintained by", &[], "owned_by", Synonym);
        check("managed_by", &[], "owned_by", Synonym);
        // Fuzzy against predicates in use, and against group names.
        check("listens_on_port", &["listen_on_port"], "listen_on_port", Fuzzy);
        check("dependson", &[], "depends_on", Fuzzy);
        check("colour", &["color"], "color", Fuzzy);
        check("lives in", &["works_at"], "lives_in", Folded);
        // Close as strings, different in a word: different relations.
        check("born in", &["born_on"], "born_in", Folded);
        check("created_by", &["created_at"], "created_by", Folded);
        check("start_time", &["start_date"], "start_time", Folded);
    }

    #[test]
    fn user_groups_extend_and_override_the_defaults() {
        let mut groups = PredicateGroups::default();
        groups.add("lives_in", ["resides in", "home city"]);
        groups.add("uses_library", ["uses"]);
        assert_eq!(groups.normalise("Resides-In", [], 0.85).0, "lives_in");
        assert_eq!(groups.normalise("home_city", [], 0.85).0, "lives_in");
        assert_eq!(groups.normalise("uses", [], 0.85).0, "uses_library");
        assert_eq!(groups.normalise("requires", [], 0.85).0, "depends_on");
    }
}
