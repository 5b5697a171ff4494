//! What a new memory means for the memories already there: a duplicate, a
//! newer value of a fact, an ambiguous restatement, or a correction of
//! earlier free text. Pure decisions; the node supplies the similarities.

use crate::slots::Slots;

/// Thresholds of the store pipeline's judgements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConflictSettings {
    /// Cosine at or above which an episodic or procedural memory is a
    /// duplicate of one already stored.
    pub duplicate: f64,
    /// Object similarity at or above which a fact restates one already
    /// stored.
    pub fact_duplicate: f64,
    /// Object similarity below which a fact supersedes the one already
    /// stored for its subject and predicate.
    pub fact_supersede: f64,
    /// Cosine at or above which free text that changes a detail of earlier
    /// free text is taken as its correction.
    pub correction: f64,
}

impl Default for ConflictSettings {
    fn default() -> Self {
        ConflictSettings {
            duplicate: 0.95,
            fact_duplicate: 0.95,
            fact_supersede: 0.50,
            correction: 0.60,
        }
    }
}

/// How alike two fact objects are, in 0..=1: equal after normalisation is 1;
/// objects whose numbers differ (`postgres 15` and `postgres 16`, `3211`
/// and `8080`) or where one negates the other are 0, as a changed value;
/// otherwise the cosine of their embeddings.
pub fn object_similarity(left: &str, right: &str, cosine: f64) -> f64 {
    let (a, b) = (Slots::of(left), Slots::of(right));
    if a.words == b.words {
        return 1.0;
    }
    if (!a.numbers.is_empty() || !b.numbers.is_empty()) && a.numbers != b.numbers {
        return 0.0;
    }
    if a.negated != b.negated {
        return 0.0;
    }
    cosine.clamp(0.0, 1.0)
}

/// A fact's object as compared: its words, lowercased (equal keys mean
/// equal objects, as [`object_similarity`] has it).
pub fn object_key(object: &str) -> String {
    Slots::of(object).words.join(" ")
}

/// What a new fact does to the current facts of its subject and predicate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactDecision {
    /// A current fact the new one restates: store nothing, grow its evidence.
    pub duplicate_of: Option<String>,
    /// Current facts the new one replaces.
    pub supersedes: Vec<String>,
    /// Current facts too close to replace and too far to be the same.
    pub ambiguous: Vec<String>,
}

/// Decides a new fact against the current facts `existing` of its subject
/// and predicate, given as `(id, object similarity)`.
pub fn decide_fact(existing: &[(String, f64)], settings: &ConflictSettings) -> FactDecision {
    let mut decision = FactDecision::default();
    let mut best: Option<&(String, f64)> = None;
    for fact in existing {
        let (id, similarity) = fact;
        if *similarity >= settings.fact_duplicate {
            if best.is_none_or(|(best_id, top)| {
                similarity > top || (similarity == top && id < best_id)
            }) {
                best = Some(fact);
            }
        } else if *similarity < settings.fact_supersede {
            decision.supersedes.push(id.clone());
        } else {
            decision.ambiguous.push(id.clone());
        }
    }
    if let Some((id, _)) = best {
        return FactDecision { duplicate_of: Some(id.clone()), ..FactDecision::default() };
    }
    decision.supersedes.sort();
    decision.ambiguous.sort();
    decision
}

/// Why a new free-text memory corrects an older one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Correction {
    /// A number changed (a time, a version, a count).
    Number,
    /// A day or month changed.
    Date,
    /// A name changed, with a word that says so ("now", "moved to", ...).
    Name,
    /// One says the opposite of the other.
    Negation,
}

impl Correction {
    /// The name shown in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Correction::Number => "number changed",
            Correction::Date => "date changed",
            Correction::Name => "name changed",
            Correction::Negation => "negated",
        }
    }
}

/// Whether free text `new` corrects free text `old`, stored earlier, given
/// the cosine of their embeddings: the two must be about the same thing
/// (close in meaning, sharing the names they mention apart from what
/// changed) and differ in a detail — a negation, or a number, a day or
/// month or a name that `new` says has changed ("now", "moved to",
/// "raised to", ...). Without that word a changed number is as likely
/// another event as a correction (`build 41 finished`, `build 42
/// finished`). The checks are those a careful reader makes; they miss
/// unannounced corrections on purpose rather than mark unrelated memories
/// as corrected.
pub fn correction(
    new: &str,
    old: &str,
    cosine: f64,
    settings: &ConflictSettings,
) -> Option<Correction> {
    if cosine < settings.correction {
        return None;
    }
    let (new, old) = (Slots::of(new), Slots::of(old));
    if new.words == old.words {
        return None;
    }
    // The two must share some substance besides the changed detail.
    if new.content_overlap(&old) < 0.3 {
        return None;
    }
    let names_differ = !new.names.is_empty() && !old.names.is_empty() && new.names != old.names;
    // Different people or things, with nothing saying one replaced the other.
    if names_differ && !new.change_word {
        return None;
    }
    if new.negated != old.negated {
        return Some(Correction::Negation);
    }
    if !new.change_word {
        return None;
    }
    if !new.numbers.is_empty() && !old.numbers.is_empty() && new.numbers != old.numbers {
        return Some(Correction::Number);
    }
    if !new.dates.is_empty() && !old.dates.is_empty() && new.dates != old.dates {
        return Some(Correction::Date);
    }
    if names_differ {
        return Some(Correction::Name);
    }
    None
}

/// Whether two texts close enough to be duplicates are really the same:
/// not when a number, a day or month, or a negation differs (`Deploys are
/// frozen on Fridays` and `Deploys are no longer frozen on Fridays` embed
/// almost alike).
pub fn is_duplicate(new: &str, old: &str, cosine: f64, settings: &ConflictSettings) -> bool {
    if cosine < settings.duplicate {
        return false;
    }
    let (new, old) = (Slots::of(new), Slots::of(old));
    new.numbers == old.numbers && new.dates == old.dates && new.negated == old.negated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_similarity_cases() {
        for (left, right, cosine, expect) in [
            ("8080", "8080", 0.2, 1.0),
            ("PostgreSQL 16", "postgresql  16", 0.2, 1.0),
            ("3211", "8080", 0.9, 0.0),
            ("postgres 15", "postgres 16", 0.97, 0.0),
            ("v1.2", "v1.3", 0.99, 0.0),
            ("enabled", "not enabled", 0.9, 0.0),
            ("Rust", "Go", 0.42, 0.42),
            ("blue", "navy blue", 0.8, 0.8),
        ] {
            assert_eq!(object_similarity(left, right, cosine), expect, "{left:?} / {right:?}");
        }
    }

    fn facts(list: &[(&str, f64)]) -> Vec<(String, f64)> {
        list.iter().map(|(id, similarity)| ((*id).to_owned(), *similarity)).collect()
    }

    #[test]
    fn each_band_of_a_fact_conflict() {
        let settings = ConflictSettings::default();
        let decide = |list: &[(&str, f64)]| decide_fact(&facts(list), &settings);
        assert_eq!(decide(&[]), FactDecision::default());
        assert_eq!(decide(&[("old", 0.96)]).duplicate_of.as_deref(), Some("old"));
        assert_eq!(decide(&[("old", 0.95)]).duplicate_of.as_deref(), Some("old"));
        assert_eq!(decide(&[("old", 0.3)]).supersedes, vec!["old"]);
        assert_eq!(decide(&[("old", 0.0)]).supersedes, vec!["old"]);
        assert_eq!(decide(&[("old", 0.5)]).ambiguous, vec!["old"]);
        assert_eq!(decide(&[("old", 0.94)]).ambiguous, vec!["old"]);
        let mixed = decide(&[("b", 0.1), ("a", 0.7), ("c", 0.2)]);
        assert_eq!(
            (mixed.supersedes, mixed.ambiguous),
            (vec!["b".into(), "c".into()], vec!["a".into()])
        );
        // A duplicate wins over everything else; the best one, then the smaller id.
        assert_eq!(
            decide(&[("x", 0.1), ("z", 0.99), ("y", 0.99)]).duplicate_of.as_deref(),
            Some("y")
        );
    }

    #[test]
    fn a_duplicate_must_not_change_a_detail() {
        let settings = ConflictSettings::default();
        assert!(is_duplicate(
            "The build failed on runner 3.",
            "The build failed on runner 3!",
            0.99,
            &settings
        ));
        assert!(!is_duplicate(
            "The build failed on runner 3.",
            "The build failed on runner 4.",
            0.99,
            &settings
        ));
        assert!(!is_duplicate(
            "Deploys are no longer frozen on Fridays.",
            "Deploys are frozen on Fridays.",
            0.97,
            &settings
        ));
        assert!(!is_duplicate(
            "The sync is on Monday.",
            "The sync is on Tuesday.",
            0.98,
            &settings
        ));
        assert!(!is_duplicate("The build failed.", "The build failed!", 0.90, &settings));
    }

    #[test]
    fn corrections_of_free_text() {
        let settings = ConflictSettings::default();
        let check = |new: &str, old: &str, cosine: f64, expect: Option<Correction>| {
            assert_eq!(correction(new, old, cosine, &settings), expect, "{new:?} / {old:?}");
        };
        check(
            "The team sync moved to Wednesday.",
            "The team sync is on Tuesday.",
            0.8,
            Some(Correction::Date),
        );
        check("Standup is now at 10:00.", "Standup is at 9:30.", 0.85, Some(Correction::Number));
        check(
            "Bob is not allergic to peanuts.",
            "Bob is allergic to peanuts.",
            0.9,
            Some(Correction::Negation),
        );
        check(
            "Carol leads the platform team now.",
            "Alice leads the platform team.",
            0.8,
            Some(Correction::Name),
        );
        // Different people, nothing says one replaced the other.
        check("Bob's birthday is on May 5.", "Alice's birthday is on March 3.", 0.75, None);
        check("Carol leads the data team.", "Alice leads the platform team.", 0.7, None);
        check("Project Heron ships in September.", "Project Falcon ships in June.", 0.8, None);
        // Not similar enough, or a duplicate rather than a correction.
        check("The build takes 12 minutes.", "The sync is on Tuesday.", 0.2, None);
        check("Standup is at 9:30.", "Standup is at 9:30!", 0.99, None);
        // Close enough to be a duplicate, but a detail changed.
        check(
            "Deploys are no longer frozen on Fridays.",
            "Deploys are frozen on Fridays.",
            0.97,
            Some(Correction::Negation),
        );
        // Same details: an elaboration, not a correction.
        check(
            "Deploys happen on Wednesday after lunch.",
            "Deploys happen on Wednesday.",
            0.9,
            None,
        );
        // Another event of the same sort, not a correction of the first:
        // nothing says the number changed.
        check(
            "The deploy of build 42 finished after the review.",
            "The deploy of build 41 finished after the review.",
            0.95,
            None,
        );
        check("The sync was on Tuesday.", "The sync was on Monday.", 0.9, None);
        // Said to have changed, it is a correction.
        check(
            "The api gateway timeout was raised to 60 seconds.",
            "The api gateway times out after 30 seconds.",
            0.8,
            Some(Correction::Number),
        );
        check(
            "Staging was upgraded to PostgreSQL 16.",
            "Staging runs PostgreSQL 14.",
            0.8,
            Some(Correction::Number),
        );
    }
}
