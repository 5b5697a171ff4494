//! What a new memory means for the memories already there: a duplicate, a
//! newer value of a fact, another value of a multi-valued fact, a
//! correction of earlier free text, or free text that updates a fact. Pure
//! decisions; the node supplies the similarities.

use crate::{predicate::Cardinality, slots::Slots, stem::stem};

/// Thresholds of the store pipeline's judgements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConflictSettings {
    /// Cosine at or above which an episodic or procedural memory is a
    /// duplicate of one already stored.
    pub duplicate: f64,
    /// Object similarity at or above which a fact restates one already
    /// stored (the same value written differently).
    pub fact_duplicate: f64,
    /// For a multi-valued predicate, object similarity at or above which
    /// (and below `fact_duplicate`) a new value is stored and reported
    /// ambiguous: perhaps the same value, perhaps one that replaces it.
    pub fact_ambiguous: f64,
    /// Cosine at or above which free text that changes a detail of earlier
    /// free text is taken as its correction.
    pub correction: f64,
    /// Cosine (text against the fact as a sentence) at or above which free
    /// text that names a fact's subject and announces a change, without
    /// naming the fact's attribute, is taken as updating the fact.
    pub fact_update: f64,
}

impl Default for ConflictSettings {
    fn default() -> Self {
        ConflictSettings {
            duplicate: 0.95,
            fact_duplicate: 0.95,
            fact_ambiguous: 0.85,
            correction: 0.40,
            fact_update: 0.70,
        }
    }
}

/// How alike two values of `predicate` are, in 0..=1. The same value is
/// 1, however it is written: equal words once the predicate's own words and
/// a `v` before a version go (`port 3000` / `3000`, `v2.1.0` / `2.1.0`),
/// an acronym or numeronym of the other (`NYC` / `New York City`, `k8s` /
/// `Kubernetes`), or equal numbers with words that shorten each other
/// (`Postgres 16` / `PostgreSQL 16`). Values whose numbers differ
/// (`postgres 15` / `postgres 16`, `3211` / `8080`), or where one negates
/// the other, are 0: a changed value. Otherwise the cosine of their
/// embeddings, which says how close two values are in topic — for a
/// single-valued predicate never enough to make them one (`Berlin` and
/// `Munich` embed alike).
pub fn object_similarity(predicate: &str, left: &str, right: &str, cosine: f64) -> f64 {
    if numeronym(left, right) || numeronym(right, left) {
        return 1.0;
    }
    let (a, b) = (Slots::of(left), Slots::of(right));
    if a.negated != b.negated {
        return 0.0;
    }
    if (!a.numbers.is_empty() || !b.numbers.is_empty()) && a.numbers != b.numbers {
        return 0.0;
    }
    let (left_words, right_words) = (value_words(predicate, &a), value_words(predicate, &b));
    if left_words == right_words
        || abbreviates(&left_words, &right_words)
        || abbreviates(&right_words, &left_words)
    {
        return 1.0;
    }
    if !a.numbers.is_empty() && shorten_each_other(&left_words, &right_words) {
        return 1.0;
    }
    cosine.clamp(0.0, 1.0)
}

/// A value's words, without numbers, the predicate's own words, and a `v`
/// or `version` before a number.
fn value_words(predicate: &str, slots: &Slots) -> Vec<String> {
    let own: Vec<&str> = predicate.split('_').collect();
    let mut words = Vec::new();
    for (index, word) in slots.words.iter().enumerate() {
        let before_number =
            slots.words.get(index + 1).is_some_and(|next| slots.numbers.contains(next));
        if slots.numbers.contains(word)
            || own.contains(&word.as_str())
            || (before_number && (word == "v" || word == "version"))
        {
            continue;
        }
        words.push(word.clone());
    }
    words
}

/// Whether `short` is `long` with a run of its words written as their
/// initials (`nyc` / `new york city`, `vp of engineering` / `vice
/// president of engineering`).
fn abbreviates(short: &[String], long: &[String]) -> bool {
    if short.is_empty() || long.len() <= short.len() {
        return false;
    }
    let run = long.len() - short.len() + 1;
    (0..short.len()).any(|at| {
        short[..at] == long[..at]
            && short[at + 1..] == long[at + run..]
            && short[at]
                == long[at..at + run]
                    .iter()
                    .filter_map(|word| word.chars().next())
                    .collect::<String>()
    })
}

/// Whether `short` is a numeronym of the one word `long` (`k8s` /
/// `Kubernetes`, `i18n` / `internationalization`).
fn numeronym(short: &str, long: &str) -> bool {
    let (short, long) = (short.trim().to_lowercase(), long.trim().to_lowercase());
    let letters: Vec<char> = short.chars().collect();
    let (Some(first), Some(last)) = (letters.first(), letters.last()) else { return false };
    let middle: String = letters[1..letters.len().saturating_sub(1).max(1)].iter().collect();
    let Ok(count) = middle.parse::<usize>() else { return false };
    first.is_alphabetic()
        && last.is_alphabetic()
        && long.chars().all(char::is_alphabetic)
        && long.chars().count() == count + 2
        && long.starts_with(*first)
        && long.ends_with(*last)
}

/// Whether every word of one list starts (or is) a word of the other and
/// back, pairing them in order (`postgres` / `postgresql`).
fn shorten_each_other(left: &[String], right: &[String]) -> bool {
    left.len() == right.len()
        && !left.is_empty()
        && left
            .iter()
            .zip(right)
            .all(|(a, b)| a.starts_with(b.as_str()) || b.starts_with(a.as_str()))
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
    /// Values of a multi-valued predicate so close to the new one that it
    /// may replace them: stored alongside, and reported.
    pub ambiguous: Vec<String>,
}

/// Decides a new fact against the current facts `existing` of its subject
/// and predicate, given as `(id, object similarity)`. The same value is a
/// duplicate whatever the cardinality; otherwise a single-valued
/// predicate's new value replaces every current one, and a multi-valued
/// one's joins them (reported ambiguous when close to one).
pub fn decide_fact(
    existing: &[(String, f64)],
    cardinality: Cardinality,
    settings: &ConflictSettings,
) -> FactDecision {
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
        } else if cardinality == Cardinality::One {
            decision.supersedes.push(id.clone());
        } else if *similarity >= settings.fact_ambiguous {
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

/// Verbs that announce a new value of an attribute, by the attribute's
/// words: a move is news of where someone lives or something runs.
const ATTRIBUTE_VERBS: &[(&[&str], &[&str])] = &[
    (
        &["lives", "located", "host", "region", "deployed", "based", "office", "city"],
        &["moved", "relocated", "migrated"],
    ),
    (&["works", "employer", "company"], &["joined", "left", "quit"]),
    (&["version", "release"], &["upgraded", "downgraded", "bumped", "released"]),
    (
        &["depends", "built", "database", "uses", "editor", "language", "framework"],
        &["switched", "migrated", "replaced", "rewrote", "ported"],
    ),
    (
        &["owned", "manager", "role", "lead", "title"],
        &["took", "promoted", "handed", "transferred"],
    ),
];

/// Whether `text` announces a change ("now", "moved", "no longer", ...):
/// free text that does not cannot update a fact.
pub fn announces_change(text: &str) -> bool {
    Slots::of(text).change_word
}

/// A current fact, as [`updates_fact`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct FactView<'a> {
    /// Every name of its subject (the entity's name and aliases).
    pub subject_names: &'a [String],
    /// Its predicate, resolved.
    pub predicate: &'a str,
    /// Other spellings of its predicate (its synonym group).
    pub spellings: &'a [String],
    /// Its object.
    pub object: &'a str,
}

/// What free text says of a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactUpdate {
    /// Nothing new about it.
    No,
    /// A new value of it.
    Yes,
    /// A new value of it if the text is about it: it names neither the
    /// fact's attribute nor its old value, so its meaning decides (cosine of
    /// the text and the fact as a sentence at least
    /// [`ConflictSettings::fact_update`]).
    IfAboutIt,
}

/// Lowercased words: runs of letters and digits.
pub(crate) fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether free text `text` states a new value of `fact` ("Alice moved to
/// Munich" of `Alice / lives_in / Berlin`): it names the fact's subject —
/// not as another's (`Alice's sister moved`) — announces a change ("moved
/// to", "now", "switched to", "no longer", ...), names the fact's
/// attribute (a word of its predicate or a spelling of it, or a verb that
/// changes it: "moved" for where one lives) or, failing that, is about the
/// fact by meaning ([`FactUpdate::IfAboutIt`]), and does not restate the
/// old value (unless it says it no longer holds, or what it changed from).
pub fn updates_fact(text: &str, fact: FactView<'_>) -> FactUpdate {
    let slots = Slots::of(text);
    if !slots.change_word {
        return FactUpdate::No;
    }
    let words = lower_words(text);
    let named = fact.subject_names.iter().any(|name| {
        let name = lower_words(name);
        !name.is_empty()
            && words.windows(name.len()).enumerate().any(|(at, window)| {
                window == name.as_slice()
                    && words.get(at + name.len()).is_none_or(|next| next != "s")
            })
    });
    if !named {
        return FactUpdate::No;
    }
    // The old value, said to hold no longer, or to be what changed: about
    // the fact whatever words it uses; restated otherwise, no news.
    let old = Slots::of(fact.object);
    let restated = !old.words.is_empty()
        && slots.words.windows(old.words.len()).any(|window| window == old.words.as_slice());
    if restated {
        let says_no_longer = slots.negated || words.iter().any(|word| word == "longer");
        let says_from = words
            .iter()
            .any(|word| ["from", "instead", "off", "away", "left"].contains(&word.as_str()));
        return if says_no_longer || says_from { FactUpdate::Yes } else { FactUpdate::No };
    }
    let mut cues: Vec<&str> = fact.predicate.split('_').collect();
    cues.extend(fact.spellings.iter().flat_map(|spelling| spelling.split('_')));
    cues.retain(|cue| cue.len() > 2 && !["the", "has", "for", "with", "from"].contains(cue));
    let mut verbs: Vec<&str> = Vec::new();
    for (attribute, changes) in ATTRIBUTE_VERBS {
        if cues.iter().any(|cue| attribute.iter().any(|word| stem(word) == stem(cue))) {
            verbs.extend(changes.iter());
        }
    }
    // A cue's word, inflected (`lives`, `lived`) or derived (`ownership`).
    let about_attribute = words.iter().any(|word| {
        cues.iter().any(|cue| stem(cue) == stem(word) || (cue.len() >= 5 && word.starts_with(cue)))
            || verbs.contains(&word.as_str())
    });
    if about_attribute { FactUpdate::Yes } else { FactUpdate::IfAboutIt }
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
        for (predicate, left, right, cosine, expect) in [
            ("port", "8080", "8080", 0.2, 1.0),
            ("database", "PostgreSQL 16", "postgresql  16", 0.2, 1.0),
            // The same value, written differently.
            ("port", "port 3000", "3000", 0.5, 1.0),
            ("version", "v2.1.0", "2.1.0", 0.5, 1.0),
            ("version", "version 2.1.0", "2.1.0", 0.5, 1.0),
            ("database", "Postgres 16", "PostgreSQL 16", 0.8, 1.0),
            ("lives_in", "NYC", "New York City", 0.4, 1.0),
            ("role", "VP of Engineering", "Vice President of Engineering", 0.6, 1.0),
            ("role", "VP of Sales", "Vice President of Engineering", 0.6, 0.6),
            ("host", "AWS", "Amazon Web Services", 0.4, 1.0),
            ("runs_on", "k8s", "Kubernetes", 0.3, 1.0),
            // Changed values, however alike they look.
            ("port", "3211", "8080", 0.9, 0.0),
            ("database", "postgres 15", "postgres 16", 0.97, 0.0),
            ("version", "v1.2", "v1.3", 0.99, 0.0),
            ("enabled", "enabled", "not enabled", 0.9, 0.0),
            ("database", "Postgres 16", "MySQL 16", 0.6, 0.6),
            // Otherwise the cosine, which decides nothing alone.
            ("built_with", "Rust", "Go", 0.42, 0.42),
            ("lives_in", "Berlin", "Munich", 0.7, 0.7),
            ("likes", "blue", "navy blue", 0.8, 0.8),
            ("lives_in", "NY", "New York City", 0.5, 0.5),
        ] {
            assert_eq!(
                object_similarity(predicate, left, right, cosine),
                expect,
                "{left:?} / {right:?}"
            );
        }
    }

    fn facts(list: &[(&str, f64)]) -> Vec<(String, f64)> {
        list.iter().map(|(id, similarity)| ((*id).to_owned(), *similarity)).collect()
    }

    #[test]
    fn each_band_of_a_fact_conflict() {
        use Cardinality::*;
        let settings = ConflictSettings::default();
        let decide =
            |list: &[(&str, f64)], cardinality| decide_fact(&facts(list), cardinality, &settings);
        let ids = |list: &[&str]| -> Vec<String> { list.iter().map(|id| (*id).into()).collect() };
        for cardinality in [One, Many] {
            assert_eq!(decide(&[], cardinality), FactDecision::default());
            assert_eq!(decide(&[("old", 0.96)], cardinality).duplicate_of.as_deref(), Some("old"));
            assert_eq!(decide(&[("old", 0.95)], cardinality).duplicate_of.as_deref(), Some("old"));
        }
        // Single-valued: any other value replaces, however alike.
        for similarity in [0.0, 0.3, 0.5, 0.94] {
            let decision = decide(&[("old", similarity)], One);
            assert_eq!((decision.supersedes, decision.ambiguous), (ids(&["old"]), vec![]));
        }
        let mixed = decide(&[("b", 0.1), ("a", 0.9), ("c", 0.2)], One);
        assert_eq!((mixed.supersedes, mixed.ambiguous), (ids(&["a", "b", "c"]), vec![]));
        // Multi-valued: values accumulate; a close one is reported.
        let mixed = decide(&[("b", 0.1), ("a", 0.9), ("c", 0.2)], Many);
        assert_eq!((mixed.supersedes, mixed.ambiguous), (vec![], ids(&["a"])));
        assert_eq!(decide(&[("old", 0.84)], Many), FactDecision::default());
        // A duplicate wins over everything else; the best one, then the smaller id.
        assert_eq!(
            decide(&[("x", 0.1), ("z", 0.99), ("y", 0.99)], One).duplicate_of.as_deref(),
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
    fn text_that_updates_a_fact() {
        let settings = ConflictSettings::default();
        let lives = &["resides_in", "home_city"][..];
        /// Text, subject, predicate, its spellings, old object, cosine, updates.
        type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a str, f64, bool);
        let cases: &[Case<'_>] = &[
            ("Alice moved to Munich last week.", "Alice", "lives_in", lives, "Berlin", 0.5, true),
            (
                "billing-api now listens on port 9090.",
                "billing-api",
                "port",
                &[],
                "8080",
                0.5,
                true,
            ),
            (
                "The staging db was upgraded to PostgreSQL 16.",
                "staging db",
                "version",
                &[],
                "PostgreSQL 15",
                0.6,
                true,
            ),
            ("Bob switched from MySQL to Postgres.", "Bob", "database", &[], "MySQL", 0.5, true),
            (
                "Aisha is no longer at Shopify.",
                "Aisha",
                "works_at",
                &["employer"],
                "Shopify",
                0.5,
                true,
            ),
            ("Ownership of api moved to Sam.", "api", "owned_by", &["owner"], "Kim", 0.3, true),
            // By meaning, when the attribute is not named.
            ("Dana is now based in Lisbon.", "Dana", "lives_in", lives, "Porto", 0.75, true),
            ("Dana is now based in Lisbon.", "Dana", "lives_in", lives, "Porto", 0.5, false),
            // Look-alikes: another's, no change announced, another subject,
            // the old value restated, an addition, another attribute.
            ("Alice's sister moved to Munich.", "Alice", "lives_in", lives, "Berlin", 0.6, false),
            ("Alice visited Munich last week.", "Alice", "lives_in", lives, "Berlin", 0.6, false),
            ("Carol moved to Munich.", "Alice", "lives_in", lives, "Berlin", 0.6, false),
            (
                "Alice moved to a bigger flat in Berlin.",
                "Alice",
                "lives_in",
                lives,
                "Berlin",
                0.7,
                false,
            ),
            (
                "billing-api also exposes metrics on port 9100.",
                "billing-api",
                "port",
                &[],
                "8080",
                0.7,
                false,
            ),
            ("Alice changed her hair colour.", "Alice", "lives_in", lives, "Berlin", 0.3, false),
        ];
        for (text, subject, predicate, spellings, object, cosine, expect) in cases {
            let subject_names = [(*subject).to_owned()];
            let spellings: Vec<String> = spellings.iter().map(|s| (*s).to_owned()).collect();
            let fact = FactView {
                subject_names: &subject_names,
                predicate,
                spellings: &spellings,
                object,
            };
            assert_eq!(
                match updates_fact(text, fact) {
                    FactUpdate::Yes => true,
                    FactUpdate::No => false,
                    FactUpdate::IfAboutIt => *cosine >= settings.fact_update,
                },
                *expect,
                "{text:?} of {subject} / {predicate} / {object}"
            );
        }
    }
}
