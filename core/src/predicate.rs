//! Predicates: agents write `depends on`, `Depends-On` and `requires` for
//! one relation, `listens on port` and `port` for one attribute; facts are
//! compared on one spelling, and each predicate says whether a subject has
//! one value of it or many.
//!
//! Resolution runs in stages, the first that answers wins:
//!
//! 1. **fold**: lowercase, separators folded into `_`;
//! 2. **synonym groups**: the defaults below plus the user's, mapping a
//!    spelling to its group's name;
//! 3. **structure**: filler words go (`is hosted on` → `hosted_on`,
//!    `has skill` → `skill`), a noun after the last preposition is the head
//!    (`listens on port` → `port`), a generic last noun goes
//!    (`phone number` → `phone`, `email address` → `email`) — the last two
//!    only when what is left is a predicate ferrex knows; then the synonym
//!    groups again;
//! 4. **similarity** to the predicates already in use (this subject's
//!    first, then the namespace's): by string (Jaro–Winkler, word by word),
//!    then — in the node, which has the embeddings — by meaning
//!    ([`judge_by_meaning`]);
//! 5. otherwise the structural form is a new predicate.

use std::{collections::BTreeMap, fmt, str::FromStr};

/// The default synonym groups: the group's name, then its other spellings
/// (folded; structural forms are looked up too, so `phone number` needs no
/// entry when `phone` is the name).
pub const DEFAULT_GROUPS: &[(&str, &[&str])] = &[
    (
        "depends_on",
        &[
            "uses",
            "requires",
            "needs",
            "depends",
            "relies_on",
            "dependency",
            "dependencies",
            "imports",
        ],
    ),
    (
        "built_with",
        &["written_in", "implemented_in", "made_with", "coded_in", "programming_language"],
    ),
    ("version", &["runs_version", "at_version", "has_version", "release"]),
    ("owned_by", &["maintained_by", "managed_by", "owner", "maintainer", "owning_team"]),
    ("lives_in", &["resides_in", "home_city", "home_town", "hometown", "residence", "lives_at"]),
    ("works_at", &["works_for", "employer", "employed_by", "employed_at", "company"]),
    ("host", &["hosted_on", "runs_on", "server", "host_machine", "hosted_at", "machine"]),
    ("phone", &["telephone", "mobile", "cell", "phone_no"]),
    ("email", &["e_mail", "mail"]),
    ("role", &["title", "job_title", "position", "job"]),
    ("manager", &["reports_to", "boss", "line_manager"]),
    ("timezone", &["tz"]),
    ("member_of", &["team", "belongs_to_team", "part_of_team", "in_team"]),
    ("has_skill", &["skill", "skills", "expert_in", "proficient_in", "good_at"]),
    ("speaks", &["speaks_language", "spoken_language"]),
    ("likes", &["enjoys", "loves", "fan_of", "is_fan_of"]),
    ("deployed_to", &["deploys_to", "deployment_target", "deploy_target", "deployed_in"]),
    ("created_by", &["author", "authored_by", "creator"]),
];

/// Whether a subject has one value of a predicate or many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cardinality {
    /// Single-valued (`lives_in`, `port`, `version`): a new value replaces
    /// the old one.
    One,
    /// Multi-valued (`depends_on`, `speaks`, `member_of`): values
    /// accumulate; only the same value collapses.
    Many,
}

impl Cardinality {
    /// The name used in documents, settings and answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Cardinality::One => "one",
            Cardinality::Many => "many",
        }
    }
}

impl fmt::Display for Cardinality {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for Cardinality {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "one" | "single" => Ok(Cardinality::One),
            "many" | "multi" | "multiple" => Ok(Cardinality::Many),
            _ => Err(format!("{text:?} is not a cardinality: expected \"one\" or \"many\"")),
        }
    }
}

/// Multi-valued predicates of the default table (group names and other
/// common relations). Every predicate not here is single-valued, unless its
/// shape says otherwise (see [`default_cardinality`]).
pub const MANY: &[&str] = &[
    // Code and services.
    "depends_on",
    "built_with",
    "dependency_of",
    "integrates_with",
    "connects_to",
    "calls",
    "consumes",
    "publishes",
    "subscribes_to",
    "exposes",
    "supports",
    "includes",
    "contains",
    "has_feature",
    "feature",
    "tag",
    "label",
    "topic",
    "keyword",
    "contributor",
    "contributes_to",
    "collaborates_with",
    "works_on",
    "works_with",
    "used_by",
    "related_to",
    "relates_to",
    "alias",
    "environment",
    // People.
    "likes",
    "dislikes",
    "prefers",
    "interested_in",
    "hobby",
    "speaks",
    "has_skill",
    "member_of",
    "knows",
    "friend",
    "friend_of",
    "child",
    "parent",
    "sibling",
    "pet",
    "allergic_to",
    "allergy",
    "visited",
    "attends",
    "reads",
    "plays",
    "owns",
];

/// Single-valued predicates of the default table, listed for the record
/// (unknown predicates are single-valued too).
pub const ONE: &[&str] = &[
    "lives_in",
    "works_at",
    "role",
    "manager",
    "port",
    "host",
    "version",
    "owned_by",
    "email",
    "phone",
    "timezone",
    "deployed_to",
    "created_by",
    "born_in",
    "born_on",
    "birthday",
    "age",
    "status",
    "located_in",
    "region",
    "deadline",
    "priority",
    "license",
    "url",
    "database",
    "default_branch",
    "name",
    "created_at",
    "start_date",
    "end_date",
];

/// The default cardinality of a (resolved) predicate: the tables above;
/// else `Many` for a plural last word (`languages`, `tags`) or a relation
/// ending in `with` (`paired_with`); else `One`. Unknown predicates are
/// single-valued because a triple most often records an attribute of its
/// subject, and a wrongly single-valued predicate loses nothing (older
/// values stay in history, `reflect` flags the predicate when values pile
/// up, and `[cardinality]` in `ferrex.toml` fixes it), while a wrongly
/// multi-valued one keeps a stale value current forever.
pub fn default_cardinality(predicate: &str) -> Cardinality {
    if MANY.contains(&predicate) {
        return Cardinality::Many;
    }
    if ONE.contains(&predicate) {
        return Cardinality::One;
    }
    let words: Vec<&str> = predicate.split('_').collect();
    let last = words.last().copied().unwrap_or_default();
    let single_prefix = ["favorite", "favourite", "preferred", "primary", "current", "main"];
    if words.first().is_some_and(|first| single_prefix.contains(first)) {
        return Cardinality::One;
    }
    if last == "with" || is_plural(last) {
        return Cardinality::Many;
    }
    Cardinality::One
}

/// A plural English noun, roughly: `tags`, `languages`, `dependencies`
/// (not `status`, `address`, `alias`, `os`).
fn is_plural(word: &str) -> bool {
    word.len() > 3
        && word.ends_with('s')
        && !["ss", "us", "is", "as", "os"].iter().any(|end| word.ends_with(end))
}

/// Words that say nothing about which attribute a predicate names.
const FILLER: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "has",
    "have",
    "had",
    "does",
    "do",
    "did",
    "currently",
    "current",
    "now",
    "its",
    "their",
    "his",
    "her",
    "the",
    "a",
    "an",
];

/// Prepositions (a head noun follows the last of them).
const PREPOSITIONS: &[&str] = &[
    "on", "in", "at", "to", "for", "of", "by", "from", "with", "via", "under", "into", "onto",
    "as", "over",
];

/// Last nouns that add nothing to the attribute before them.
const GENERIC_TAIL: &[&str] = &["number", "address", "no", "value"];

/// How a predicate was resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicateMatch {
    /// Only folded (or already canonical): a predicate of its own.
    Folded,
    /// Mapped by a synonym group.
    Synonym,
    /// Reduced to the attribute it names (`listens on port` → `port`).
    Structure,
    /// Matched to a predicate in use by spelling (Jaro–Winkler).
    Fuzzy,
    /// Matched to a predicate this subject has by meaning (embeddings).
    Meaning,
}

impl PredicateMatch {
    /// The name shown in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            PredicateMatch::Folded => "new",
            PredicateMatch::Synonym => "synonym",
            PredicateMatch::Structure => "structure",
            PredicateMatch::Fuzzy => "fuzzy",
            PredicateMatch::Meaning => "embedding",
        }
    }
}

/// Synonym groups and cardinalities: spelling (folded) → canonical
/// predicate, and the user's cardinality for predicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateGroups {
    to_canonical: BTreeMap<String, String>,
    cardinality: BTreeMap<String, Cardinality>,
}

impl Default for PredicateGroups {
    fn default() -> Self {
        let mut groups = PredicateGroups::empty();
        for (canonical, spellings) in DEFAULT_GROUPS {
            groups.add(canonical, spellings.iter().copied());
        }
        groups
    }
}

impl PredicateGroups {
    /// No groups at all.
    pub fn empty() -> Self {
        PredicateGroups { to_canonical: BTreeMap::new(), cardinality: BTreeMap::new() }
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

    /// Sets the cardinality of `predicate` (resolved like any predicate, so
    /// `uses` sets that of `depends_on`).
    pub fn set_cardinality(&mut self, predicate: &str, cardinality: Cardinality) {
        let (resolved, _) = self.resolve_alone(predicate);
        self.cardinality.insert(resolved, cardinality);
    }

    /// The cardinality of a resolved predicate: the user's, else the
    /// default ([`default_cardinality`]).
    pub fn cardinality(&self, predicate: &str) -> Cardinality {
        self.cardinality.get(predicate).copied().unwrap_or_else(|| default_cardinality(predicate))
    }

    /// The other spellings of the group `canonical` (none when it is no
    /// group's name).
    pub fn spellings_of(&self, canonical: &str) -> Vec<String> {
        self.to_canonical
            .iter()
            .filter(|(spelling, name)| *name == canonical && *spelling != canonical)
            .map(|(spelling, _)| spelling.clone())
            .collect()
    }

    /// The canonical names of every group.
    pub fn canonical_names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.to_canonical.values().map(String::as_str).collect();
        names.sort_unstable();
        names.dedup();
        names.into_iter()
    }

    /// Whether `predicate` is one ferrex knows: a group's spelling or a
    /// predicate of the cardinality tables.
    fn is_known(&self, predicate: &str) -> bool {
        self.to_canonical.contains_key(predicate)
            || MANY.contains(&predicate)
            || ONE.contains(&predicate)
            || self.cardinality.contains_key(predicate)
    }

    /// Stages 1–3, which need nothing but the predicate: fold, synonym
    /// group, structure (then the groups again).
    pub fn resolve_alone(&self, predicate: &str) -> (String, PredicateMatch) {
        let folded = fold(predicate);
        if let Some(canonical) = self.to_canonical.get(&folded) {
            let how =
                if *canonical == folded { PredicateMatch::Folded } else { PredicateMatch::Synonym };
            return (canonical.clone(), how);
        }
        let reduced = self.structure(&folded);
        if let Some(canonical) = self.to_canonical.get(&reduced) {
            return (canonical.clone(), PredicateMatch::Synonym);
        }
        if reduced != folded {
            return (reduced, PredicateMatch::Structure);
        }
        (folded, PredicateMatch::Folded)
    }

    /// Stage 3 on a folded predicate: filler words dropped; then, when what
    /// is left is a predicate ferrex knows, the noun after the last
    /// preposition, or the words before a generic last noun.
    pub fn structure(&self, folded: &str) -> String {
        let mut words: Vec<&str> = folded.split('_').filter(|word| !word.is_empty()).collect();
        while words.len() > 1 && FILLER.contains(&words[0]) {
            words.remove(0);
        }
        if let Some(at) = words.iter().rposition(|word| PREPOSITIONS.contains(word))
            && at > 0
            && at + 1 < words.len()
        {
            let head = words[at + 1..].join("_");
            if self.is_known(&head) {
                return head;
            }
        }
        if words.len() > 1 && words.last().is_some_and(|last| GENERIC_TAIL.contains(last)) {
            let rest = words[..words.len() - 1].join("_");
            if self.is_known(&rest) {
                return rest;
            }
        }
        words.join("_")
    }

    /// Stages 1–4 by string: [`Self::resolve_alone`], then the closest of
    /// `known` (predicates in use, the subject's first) with Jaro–Winkler
    /// above `fuzzy`, word by word. Stage 4 by meaning is
    /// [`judge_by_meaning`], in the node.
    pub fn normalise<'a>(
        &self,
        predicate: &str,
        known: impl IntoIterator<Item = &'a str>,
        fuzzy: f64,
    ) -> (String, PredicateMatch) {
        let (resolved, how) = self.resolve_alone(predicate);
        if how == PredicateMatch::Synonym {
            return (resolved, how);
        }
        let mut best: Option<(f64, String)> = None;
        for candidate in
            known.into_iter().map(fold).chain(self.canonical_names().map(str::to_owned))
        {
            if candidate == resolved {
                return (resolved, how);
            }
            let score = strsim::jaro_winkler(&resolved, &candidate);
            if score > fuzzy
                && alike_word_by_word(&resolved, &candidate, fuzzy)
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
            None => (resolved, how),
        }
    }
}

/// Thresholds of predicate resolution by meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PredicateSettings {
    /// Jaro–Winkler above which a predicate is taken as one in use.
    pub fuzzy: f64,
    /// Cosine at or above which a predicate is taken as one this subject
    /// has, by meaning.
    pub embedding: f64,
    /// Cosine at or above which a predicate that did not match is recorded
    /// as a candidate alias of one this subject has.
    pub candidate: f64,
}

impl Default for PredicateSettings {
    fn default() -> Self {
        PredicateSettings { fuzzy: 0.85, embedding: 0.60, candidate: 0.45 }
    }
}

/// What stage 4 by meaning found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeaningMatch {
    /// The predicate in use taken for the new one.
    pub matched: Option<String>,
    /// Near misses, for a person to confirm.
    pub candidates: Vec<String>,
}

/// Stage 4 by meaning: `predicate` (after stages 1–3) against the
/// predicates this subject has, given as `(predicate, cosine of the two
/// phrases)`. The best at or above `settings.embedding` matches; others at
/// or above `settings.candidate` are candidates. Never matched, whatever
/// the cosine: predicates that [`differ_in_a_word`].
pub fn judge_by_meaning(
    predicate: &str,
    known: &[(String, f64)],
    settings: &PredicateSettings,
) -> MeaningMatch {
    let mut outcome = MeaningMatch::default();
    let mut best: Option<&(String, f64)> = None;
    for pair in known {
        let (other, cosine) = pair;
        if other == predicate || differ_in_a_word(predicate, other) {
            continue;
        }
        if *cosine >= settings.embedding {
            if best.is_none_or(|(name, top)| cosine > top || (cosine == top && other < name)) {
                best = Some(pair);
            }
        } else if *cosine >= settings.candidate {
            outcome.candidates.push(other.clone());
        }
    }
    if let Some((name, _)) = best {
        outcome.matched = Some(name.clone());
    }
    outcome.candidates.sort();
    outcome
}

/// Whether two predicates name different attributes by their very words,
/// however alike they embed: they share a word but not all
/// (`start_date` / `end_date`, `email` / `backup_email`), or end in
/// different prepositions (`born_in` / `born_on`, `depends_on` /
/// `dependency_of`), or share a stem and only one ends in a preposition —
/// the same relation the other way round (`mentors` / `mentored_by`).
pub fn differ_in_a_word(left: &str, right: &str) -> bool {
    let words = |predicate: &str| -> Vec<String> {
        predicate.split('_').filter(|word| !word.is_empty()).map(str::to_owned).collect()
    };
    let (left, right) = (words(left), words(right));
    let content = |list: &[String]| -> Vec<String> {
        list.iter().filter(|word| !PREPOSITIONS.contains(&word.as_str())).cloned().collect()
    };
    let (left_content, right_content) = (content(&left), content(&right));
    let shared = left_content.iter().any(|word| right_content.contains(word));
    if shared && left_content != right_content {
        return true;
    }
    let shared_stem = left_content.iter().any(|word| {
        right_content.iter().any(|other| crate::stem::stem(word) == crate::stem::stem(other))
    });
    let last_preposition =
        |list: &[String]| list.last().filter(|word| PREPOSITIONS.contains(&word.as_str())).cloned();
    let (left_end, right_end) = (last_preposition(&left), last_preposition(&right));
    left_end != right_end && (shared_stem || (left_end.is_some() && right_end.is_some()))
}

/// Whether two resolved predicates differ only in spelling (`favourite_colour`
/// / `favorite_color`): close by Jaro–Winkler, and word by word.
pub fn alike_by_spelling(left: &str, right: &str, fuzzy: f64) -> bool {
    left == right
        || (strsim::jaro_winkler(left, right) > fuzzy && alike_word_by_word(left, right, fuzzy))
}

/// A predicate as words, for embedding: `listens_on_port` → `listens on port`.
pub fn phrase(predicate: &str) -> String {
    predicate.replace('_', " ")
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
        && left.iter().zip(&right).all(|(a, b)| {
            a == b
                || (!PREPOSITIONS.contains(a)
                    && !PREPOSITIONS.contains(b)
                    && strsim::jaro_winkler(a, b) > fuzzy)
        })
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
    fn each_stage_of_resolution() {
        use PredicateMatch::*;
        for (predicate, known, expect, how) in [
            // Folded: a predicate of its own.
            ("port", &[][..], "port", Folded),
            ("Depends-On", &[], "depends_on", Folded),
            ("lives in", &["works_at"], "lives_in", Folded),
            // Synonym groups.
            ("uses", &[], "depends_on", Synonym),
            ("Requires", &[], "depends_on", Synonym),
            ("written in", &[], "built_with", Synonym),
            ("runs version", &[], "version", Synonym),
            ("maintained by", &[], "owned_by", Synonym),
            ("resides in", &[], "lives_in", Synonym),
            ("employer", &[], "works_at", Synonym),
            ("reports to", &[], "manager", Synonym),
            // Structure, then the groups again.
            ("listens on port", &[], "port", Structure),
            ("phone number", &[], "phone", Synonym),
            ("email address", &[], "email", Synonym),
            ("is hosted on", &[], "host", Synonym),
            ("runs on host", &[], "host", Synonym),
            ("has skill", &[], "has_skill", Folded),
            ("skills", &[], "has_skill", Synonym),
            ("current version", &[], "version", Synonym),
            ("is member of team", &[], "member_of", Synonym),
            ("is_deprecated", &[], "deprecated", Structure),
            // Structure only towards attributes ferrex knows.
            ("born in city", &[], "born_in_city", Folded),
            ("street address", &[], "street_address", Folded),
            // Spelling, against predicates in use and group names.
            ("favourite colour", &["favorite_color"], "favorite_color", Fuzzy),
            ("dependson", &[], "depends_on", Fuzzy),
            ("colour", &["color"], "color", Fuzzy),
            // Close as strings, different in a word: different relations.
            ("born in", &["born_on"], "born_in", Folded),
            ("created_by", &["created_at"], "created_by", Folded),
            ("start_time", &["start_date"], "start_time", Folded),
        ] {
            check(predicate, known, expect, how);
        }
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

    #[test]
    fn cardinality_of_predicates() {
        use Cardinality::*;
        let groups = PredicateGroups::default();
        for (predicate, expect) in [
            ("depends_on", Many),
            ("speaks", Many),
            ("member_of", Many),
            ("has_skill", Many),
            ("likes", Many),
            ("tag", Many),
            ("lives_in", One),
            ("port", One),
            ("version", One),
            ("owned_by", One),
            // Shapes: plural or `with`, many; a favourite, one; else one.
            ("languages", Many),
            ("paired_with", Many),
            ("favourite_languages", One),
            ("status", One),
            ("address", One),
            ("shoe_size", One),
        ] {
            assert_eq!(groups.cardinality(predicate), expect, "{predicate}");
        }
        let mut groups = PredicateGroups::default();
        groups.set_cardinality("uses", One);
        groups.set_cardinality("Lives In", Many);
        assert_eq!(groups.cardinality("depends_on"), One);
        assert_eq!(groups.cardinality("lives_in"), Many);
        assert_eq!(groups.cardinality("speaks"), Many);
        assert_eq!("MANY".parse::<Cardinality>(), Ok(Many));
        assert!("some".parse::<Cardinality>().is_err());
    }

    #[test]
    fn matching_by_meaning() {
        let settings = PredicateSettings::default();
        let known = |list: &[(&str, f64)]| -> Vec<(String, f64)> {
            list.iter().map(|(name, cosine)| ((*name).to_owned(), *cosine)).collect()
        };
        let judge = |predicate: &str, list: &[(&str, f64)]| {
            judge_by_meaning(predicate, &known(list), &settings)
        };
        assert_eq!(judge("home_base", &[]), MeaningMatch::default());
        let found = judge("home_base", &[("lives_in", 0.83), ("works_at", 0.81), ("age", 0.1)]);
        assert_eq!(found.matched.as_deref(), Some("lives_in"));
        let near = judge("home_base", &[("lives_in", 0.5), ("age", 0.2)]);
        assert_eq!((near.matched, near.candidates), (None, vec!["lives_in".to_owned()]));
        // However alike they embed, their words keep these apart.
        assert_eq!(judge("end_date", &[("start_date", 0.95)]).matched, None);
        assert_eq!(judge("backup_email", &[("email", 0.9)]).candidates, Vec::<String>::new());
        assert_eq!(judge("born_on", &[("born_in", 0.97)]).matched, None);
        assert_eq!(judge("dependency_of", &[("depends_on", 0.9)]).matched, None);
    }

    #[test]
    fn words_that_keep_predicates_apart() {
        for (left, right, expect) in [
            ("start_date", "end_date", true),
            ("port", "admin_port", true),
            ("max_connections", "min_connections", true),
            ("born_in", "born_on", true),
            ("depends_on", "dependency_of", true),
            ("mentors", "mentored_by", true),
            ("emergency_contact", "emergency_contact_for", true),
            ("lives_in", "works_in", false),
            ("hosted_on", "server", false),
            ("home_base", "lives_in", false),
            ("port", "port", false),
        ] {
            assert_eq!(differ_in_a_word(left, right), expect, "{left} / {right}");
        }
    }
}
