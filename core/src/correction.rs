//! Whether new free text corrects free text stored earlier: the reading a
//! careful person gives two notes about the same thing, one saying a detail
//! of the other changed. Pure; the node supplies the two texts' cosine.
//!
//! A correction needs all of:
//!
//! - **closeness in meaning** (the cosine, [`ConflictSettings::correction`]);
//! - **a word of change** in the newer text: "now", "moved from … to …",
//!   "migrated to", "switched to", "replaced … with", "changed:", "no
//!   longer", "instead of", "renamed", "turns out", "correction:",
//!   "raised to", ... ([`CHANGE_CUES`]) — or it says the opposite of the
//!   older one: the same statement but for a "not", or a "not" with a word
//!   of change about what the older text said ("…, not eu-west-3", "turns
//!   out it isn't fixed");
//! - **the same subject**: a fifth of what the older text is about is
//!   named again in the newer's claim, a common shortening naming its word
//!   ("prod" / "production", "the db" / "database"; [`Signals::kept`]; three quarters
//!   when the older text announces a change of its own), so two subjects
//!   that each changed with the same word ("we switched the logger to
//!   tracing", "we switched the HTTP client to reqwest") stay apart, and a
//!   tenth of the claim is about what the older text said (a claim about
//!   other things is news of its own);
//! - **a new value, not one beside the old**: the newer text has a detail
//!   the older lacks (a name, a number, a day); "also", "too", "alongside"
//!   in its first clause add a value rather than replace it;
//! - **statements**: a question, a plan or a wish ("thinking about moving
//!   to Munich", "we might switch") states no value to correct, nor
//!   corrects one; a leading bracketed label (`[D1:3]`, `[2024-05-01]`) says where
//!   a memory belongs, not a detail of it; and only the newer text's first
//!   sentence is its claim (what follows gives reasons; "Dr." ends no
//!   sentence);
//! - **the same kind of detail**: a number or a day ("Thursday", or
//!   "Thursdays" for every week) the older text gives
//!   is not simply dropped for a name (a timeout of 30 seconds is not
//!   corrected by the gateway now running on Graviton, nor a retro on
//!   Thursday by its move to the big room: another attribute changed);
//! - **not the same value again**: a claim that keeps every name the older
//!   text gives and brings no name, number, day, state or count of its own
//!   restates it ("These days Customer Care works the support inbox in two
//!   shifts");
//! - **not another attribute**: a day or a standalone number where the
//!   older text gave none ("the offsite moved from June to September" of
//!   "the offsite is in Lisbon"; "now runs 6 replicas" of "runs in
//!   eu-west-1"), or a state the older gives that the claim neither changes
//!   nor names, is a change of something else; and a "not" after all the
//!   older said that follows none of its words negates something else
//!   ("is now deprecated and shouldn't get new features"). "Service",
//!   "team", "app", "system" and "project" say what kind a subject is, not
//!   which, so they make no two subjects one;
//! - **not undone, not someone else's**: a change the newer text says was
//!   reverted or rolled back, keeping the older value ("…, but reverted it
//!   to 600"), or after which "nothing changed", is none; nor is news of a
//!   person the older text does not name ("my sister switched her cats to a
//!   new vet").
//!
//! Besides a word of change, one state put for another says a change when
//! the claim is mostly about the same subject ("HH-2291 resolved: …" of
//! "HH-2291 is blocked on the vendor"), and "B, not A" does when B is a
//! name the older lacks and the "not" is about the older's value.
//! Identifiers (a word with a digit or a `#`: `eu-central-1`,
//! `#pipeline-incidents`) are details of their own.
//!
//! A restatement that names nothing ("the logs now end up in the same
//! place") can still read as a change: the older text is ranked behind one
//! that says the same, which costs little.
//!
//! Events alike but for a detail ("deployed build 41", "deployed build 42";
//! "met Alice", "met Bob") say no word of change and stand side by side; so
//! do two events that each announce a change (an older text that says
//! "moved" itself is a change of its own, corrected only by a text that
//! keeps nearly all it is about).

use std::collections::BTreeSet;

use crate::{
    conflict::{ConflictSettings, lower_words},
    slots::{NEGATIONS, Slots},
    stem::stem,
};

/// Why a new free-text memory corrects an older one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Correction {
    /// A number changed (a time, a version, a count).
    Number,
    /// A day or month changed.
    Date,
    /// A name changed (a region, a tool, a person, a place, a team, a
    /// status), with a word that says so.
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

/// Words and phrases that say a detail changed. Each is a run of
/// lowercased words; `update` and `correction` count only as a text's first
/// word ("Update: …"), where they head a change rather than name one.
pub const CHANGE_CUES: &[&[&str]] = &[
    &["now"],
    &["moved"],
    &["moves"],
    &["relocated"],
    &["migrated"],
    &["switched"],
    &["replaced"],
    &["replacing"],
    &["instead"],
    &["no", "longer"],
    &["anymore"],
    &["changed"],
    &["renamed"],
    &["reassigned"],
    &["handed"],
    &["transferred"],
    &["took", "over"],
    &["taken", "over"],
    &["takes", "over"],
    &["going", "forward"],
    &["turns", "out"],
    &["turned", "out"],
    &["actually"],
    &["corrected"],
    &["updated"],
    &["rescheduled"],
    &["postponed"],
    &["delayed"],
    &["pushed", "back"],
    &["brought", "forward"],
    &["raised"],
    &["lowered"],
    &["increased"],
    &["decreased"],
    &["reduced"],
    &["bumped"],
    &["upgraded"],
    &["downgraded"],
    &["extended"],
    &["shortened"],
    &["became"],
    &["becomes"],
    &["revised"],
    &["as", "of"],
    &["no", "more"],
    &["these", "days"],
    &["nowadays"],
    &["ditched"],
    &["dropped"],
    &["retired"],
    &["swapped"],
    &["in", "favour", "of"],
    &["in", "favor", "of"],
    &["effective"],
    &["went", "from"],
    &["cut"],
    &["unblocked"],
    &["reopened"],
    &["resumed"],
    &["cancelled"],
    &["canceled"],
    &["back", "on"],
    &["is", "gone"],
    &["are", "gone"],
    &["s", "gone"],
    &["reverted"],
];

/// Words that make a text a plan, a wish or a guess rather than a
/// statement: neither corrected by what happened after, nor correcting.
const TENTATIVE: &[&[&str]] = &[
    &["thinking", "about"],
    &["thinking", "of"],
    &["considering"],
    &["might"],
    &["maybe"],
    &["perhaps"],
    &["plan", "to"],
    &["plans", "to"],
    &["planning", "to"],
    &["want", "to"],
    &["wants", "to"],
    &["should"],
    &["hope", "to"],
    &["hoping"],
    &["at", "some", "point"],
];

/// Words that head a text as a change: "Update: …", "Correction: …",
/// "Starting next week …".
const HEADING_CUES: &[&str] = &["update", "correction", "changed", "change", "starting"];

/// Words that add a value beside the old one rather than replace it.
const ADDITIONS: &[&[&str]] = &[
    &["also"],
    &["too"],
    &["alongside"],
    &["additionally"],
    &["another"],
    &["second"],
    &["as", "well"],
    &["in", "addition"],
    &["both"],
];

/// Share of what the older text is about that the newer must name again.
const KEPT: f64 = 0.2;
/// Share of the newer's claim's subject words the older text must name: a
/// claim mostly about other things is news of its own, whatever word of
/// change it uses.
const ECHOED: f64 = 0.1;
/// Share of the older text's subject words the newer's claim must name for
/// one state put for another, or "B, not A", to say a change without a
/// word of change ("HH-2291 resolved: …" of "HH-2291 is blocked on the
/// vendor").
const SAME_SUBJECT: f64 = 0.5;
/// Share of the older text's subject words the newer's claim must name, and
/// of the claim's the older must name, for a "not" alone (no word of
/// change) to make one the opposite of the other: the same statement but
/// for the "not" ("can't wait", "no worries" say nothing of what was said
/// before).
const SAME_STATEMENT: (f64, f64) = (0.75, 0.5);
/// The same when the older text announces a change of its own.
const KEPT_AFTER_A_CHANGE: f64 = 0.75;

/// What the judgement reads from two texts (shown by the evaluation).
#[derive(Debug, Clone, PartialEq)]
pub struct Signals {
    /// The newer text's word of change, if it has one.
    pub cue: Option<String>,
    /// Whether the older text announces a change of its own.
    pub older_cue: bool,
    /// Whether the newer text adds a value ("also", "too", ...) that the
    /// older did not.
    pub addition: bool,
    /// Share of the older text's subject words the newer's claim names
    /// again.
    pub kept: f64,
    /// Share of the newer's claim's subject words the older text names.
    pub echoed: f64,
    /// Whether the newer text has a detail the older does not.
    pub added: bool,
    /// Whether the older text gives a number or a day (or month) that the
    /// newer's claim does not replace in kind: another attribute changed.
    pub number_dropped: bool,
    /// Whether one says "not" and the other does not.
    pub negation_flip: bool,
}

/// Where the first of `phrases` is found in `words`: its start and the
/// phrase.
fn find<'a>(words: &[String], phrases: &[&'a [&'a str]]) -> Option<(usize, &'a [&'a str])> {
    (0..words.len()).find_map(|at| {
        phrases.iter().find_map(|phrase| {
            let matches = words.len() >= at + phrase.len()
                && phrase.iter().zip(&words[at..]).all(|(cue, word)| cue == word);
            matches.then_some((at, *phrase))
        })
    })
}

/// The word of change `words` say, if any.
fn change_cue(words: &[String]) -> Option<String> {
    if let Some(first) = words.first()
        && HEADING_CUES.contains(&first.as_str())
    {
        return Some(first.clone());
    }
    // "For now" says how long, not that something changed.
    let mut from = 0;
    while let Some((at, phrase)) = find(&words[from..], CHANGE_CUES) {
        let at = from + at;
        if phrase != ["now"] || at == 0 || words[at - 1] != "for" {
            return Some(phrase.join(" "));
        }
        from = at + 1;
    }
    None
}

/// Whether `word` announces a change rather than names a detail (a word of
/// [`CHANGE_CUES`] that is not also a state, [`STATE_WORDS`], such as
/// "unblocked" or "retired"; or a heading).
fn announces(word: &str) -> bool {
    HEADING_CUES.contains(&word)
        || (!STATE_WORDS.contains(&word) && CHANGE_CUES.iter().any(|cue| cue.contains(&word)))
}

/// A text's subject words: its content words (no stop words, numbers, days
/// or words of change), stemmed.
fn subject_words(slots: &Slots) -> BTreeSet<String> {
    slots
        .content
        .iter()
        .filter(|word| !announces(word.as_str()) && !KINDS.contains(&word.as_str()))
        .map(|word| stem(word).to_owned())
        .collect()
}

/// Words that say what kind of thing a subject is, not which: two services
/// or two teams share them without being the same subject.
const KINDS: &[&str] = &["service", "services", "team", "teams", "app", "system", "project"];

/// Shortenings people write for a word (each as written, both forms).
const SHORTENINGS: &[(&str, &str)] = &[
    ("prod", "production"),
    ("dev", "development"),
    ("deps", "dependencies"),
    ("dep", "dependency"),
    ("db", "database"),
    ("dbs", "databases"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("config", "configuration"),
    ("env", "environment"),
    ("envs", "environments"),
    ("infra", "infrastructure"),
    ("auth", "authentication"),
    ("docs", "documentation"),
    ("admin", "administrator"),
    ("ops", "operations"),
    ("perf", "performance"),
    ("eng", "engineering"),
    ("org", "organization"),
    ("org", "organisation"),
    ("info", "information"),
    ("stats", "statistics"),
    ("spec", "specification"),
    ("specs", "specifications"),
    ("msg", "message"),
    ("msgs", "messages"),
];

/// Whether two subject words (stems) name the same thing: equal, or one a
/// common shortening of the other ("prod" / "production", "db" /
/// "database").
fn same_word(a: &str, b: &str) -> bool {
    a == b
        || SHORTENINGS.iter().any(|(short, long)| {
            let (short, long) = (stem(short), stem(long));
            (a == short && b == long) || (a == long && b == short)
        })
}

/// A text without a leading bracketed label (`[D1:3] …`, `[2024-05-01]
/// …`): a label says where a memory belongs, not a detail of it.
fn unlabelled(text: &str) -> &str {
    let text = text.trim_start();
    match text.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
        Some((_, rest)) => rest.trim_start(),
        None => text,
    }
}

/// Titles and abbreviations whose full stop ends no sentence ("Dr. Chen").
const ABBREVIATIONS: &[&str] =
    &["dr", "mr", "mrs", "ms", "prof", "st", "vs", "e.g", "i.e", "approx"];

/// A text's first sentence: what it claims (what follows gives reasons:
/// "…; Frankfurt worked out cheaper"). A full stop after a title or an
/// abbreviation ends none.
fn first_sentence(text: &str) -> &str {
    let abbreviated = |at: usize| {
        let word = text[..at].rsplit(char::is_whitespace).next().unwrap_or_default();
        ABBREVIATIONS.contains(&word.to_lowercase().as_str())
    };
    let end = text
        .match_indices(['.', '!', '?', ';'])
        .find(|&(at, mark)| text[at + 1..].starts_with(' ') && !(mark == "." && abbreviated(at)))
        .map_or(text.len(), |(at, _)| at);
    &text[..end]
}

/// Whether a text asks rather than states: its first sentence or its last
/// is a question. A question states no value to correct, nor corrects one.
fn asks(text: &str) -> bool {
    let text = unlabelled(text).trim_end();
    let claim = first_sentence(text);
    text.ends_with('?') || text[claim.len()..].starts_with('?')
}

/// Whether a text's claim is a plan, a wish or a guess ([`TENTATIVE`]).
fn tentative(text: &str) -> bool {
    find(&lower_words(first_sentence(unlabelled(text))), TENTATIVE).is_some()
}

/// Whether the older text gives a number or a day that the claim does not
/// replace in kind: it gives neither, or only the other kind (a build
/// number "corrected" by a meeting's new day is another attribute).
fn detail_dropped(old: &Slots, claim: &Slots) -> bool {
    let (old_numbers, old_dates) = (!old.numbers.is_empty(), !old.dates.is_empty());
    let (new_numbers, new_dates) = (!claim.numbers.is_empty(), !claim.dates.is_empty());
    // Lost, unless the other kind is given both times (a day and a time
    // given, the day changed).
    let number_lost = old_numbers && !new_numbers && !(old_dates && new_dates);
    let day_lost = old_dates && !new_dates && !(old_numbers && new_numbers);
    number_lost || day_lost
}

/// Words that are a value of their own: a state.
const STATE_WORDS: &[&str] = &[
    "enabled",
    "disabled",
    "blocked",
    "unblocked",
    "resolved",
    "open",
    "opened",
    "reopened",
    "closed",
    "archived",
    "deprecated",
    "paused",
    "resumed",
    "active",
    "inactive",
    "live",
    "offline",
    "online",
    "down",
    "gone",
    "failing",
    "passing",
    "shipped",
    "merged",
    "approved",
    "rejected",
    "pending",
    "frozen",
    "removed",
    "deleted",
    "stopped",
    "cancelled",
    "canceled",
    "retired",
    "dropped",
    "fixed",
    "broken",
    "off",
];

/// Counts in words: a value where the older text gives one too.
const COUNT_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];

/// Whether a text gives a count in words ([`COUNT_WORDS`]).
fn counts(slots: &Slots) -> bool {
    slots.content.iter().any(|word| COUNT_WORDS.contains(&word.as_str()))
}

/// Whether the "not" the claim says is about what the older text says:
/// the first detail after it is one of the older's ("…, not eu-west-3";
/// not "is now deprecated and shouldn't get new features" of "is
/// deprecated").
fn negates_the_older(claim: &Slots, old: &Slots) -> bool {
    let Some(at) = claim.words.iter().position(|word| NEGATIONS.contains(&word.as_str())) else {
        return false;
    };
    let detail = |word: &String| {
        claim.content.contains(word) || claim.dates.contains(word) || claim.numbers.contains(word)
    };
    let said: BTreeSet<&str> =
        old.content.iter().chain(&old.dates).chain(&old.numbers).map(|word| stem(word)).collect();
    claim.words[at + 1..]
        .iter()
        .find(|word| detail(word) && !NEGATIONS.contains(&word.as_str()) && !announces(word))
        .is_some_and(|word| said.contains(stem(word)))
}

/// A text's identifiers, lowercased: words that carry a digit or a `#`
/// (`eu-central-1`, `#pipeline-incidents`, `HH-2291`), a detail however
/// few of its letters are new.
fn identifiers(text: &str) -> BTreeSet<String> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric() && c != '#'))
        .map(|word| word.strip_suffix("'s").unwrap_or(word))
        .filter(|word| word.chars().any(|c| c.is_ascii_digit() || c == '#'))
        .map(str::to_lowercase)
        .collect()
}

/// Words that name what a change replaces ("B instead of A", "replaced A
/// with B", "from A to B"): a claim with them restates nothing.
const REPLACES: &[&[&str]] = &[
    &["instead"],
    &["replaced"],
    &["replacing"],
    &["swapped"],
    &["ditched"],
    &["favour"],
    &["favor"],
    &["from"],
    &["no", "longer"],
    &["anymore"],
];

/// People and groups other than the one who writes: a claim about them is
/// someone else's news.
const OTHERS: &[&str] = &[
    "sister",
    "brother",
    "friend",
    "friends",
    "neighbour",
    "neighbor",
    "neighbours",
    "neighbors",
    "cousin",
    "colleague",
    "rival",
    "rivals",
    "mum",
    "mom",
    "dad",
    "parents",
    "uncle",
    "aunt",
];

/// Words that say a change was undone, or none made: "reverted",
/// "rolled back", "nothing changed".
const UNDONE: &[&[&str]] = &[
    &["reverted"],
    &["rolled", "back"],
    &["rolled", "it", "back"],
    &["undid"],
    &["undone"],
    NOTHING_CHANGED,
];

/// Words that say no change was made, whatever was tried.
const NOTHING_CHANGED: &[&str] = &["nothing", "changed"];

/// Whether `text` gives a number of its own: digits not part of a name
/// (`eu-west-1`, `v2`, `k8s`).
fn has_number(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.iter().enumerate().any(|(at, c)| {
        c.is_ascii_digit()
            && at.checked_sub(1).is_none_or(|before| {
                !chars[before].is_alphanumeric() && !matches!(chars[before], '-' | '_' | '.')
            })
    })
}

/// Whether the claim says again what the older text says: it keeps every
/// name and identifier the older gives (at least one, or a day) and brings
/// no name (a capital on its first word aside), identifier, number, day,
/// state or count of its own ("These days Customer Care works the support
/// inbox in two shifts" of "the support inbox is handled by Customer
/// Care"; "Nowadays our litter picks are always Saturday mornings" of "the
/// litter-pick volunteers meet on Saturdays").
fn restates(claim: &Reading, claim_text: &str) -> bool {
    let Reading { claim, old, claim_ids, old_ids, .. } = claim;
    let first = claim_text.split_whitespace().next().unwrap_or_default().to_lowercase();
    let own_names = claim.names.iter().filter(|name| **name != first || !announces(name));
    // "Instead of", "replaced", "from": the claim names what it replaces.
    if find(&claim.words, REPLACES).is_some() {
        return false;
    }
    let old_count = counts(old);
    let new_value = claim.content.iter().any(|word| {
        let word = word.as_str();
        (STATE_WORDS.contains(&word) || (old_count && COUNT_WORDS.contains(&word)))
            && !old.content.iter().any(|old| old == word)
    });
    (!old.names.is_empty() || !old_ids.is_empty() || !old.dates.is_empty())
        && old.names.is_subset(&claim.names)
        && own_names.into_iter().all(|name| old.names.contains(name))
        && old_ids.is_subset(claim_ids)
        && claim_ids.is_subset(old_ids)
        && claim.numbers.is_subset(&old.numbers)
        && claim.dates.is_subset(&old.dates)
        && !new_value
}

/// Reads the signals of a correction from `new` and `old`: the newer
/// text's claim (its first sentence, without a label) against the whole
/// older text, without its label.
pub fn signals(new: &str, old: &str) -> Signals {
    read(new, old).signals
}

/// What [`correction`] reads of two texts: the signals, and the details of
/// the newer's claim and of the older text they were read from.
struct Reading {
    signals: Signals,
    claim: Slots,
    old: Slots,
    /// The claim's identifiers and the older text's ([`identifiers`]).
    claim_ids: BTreeSet<String>,
    old_ids: BTreeSet<String>,
}

/// Reads two texts once (see [`signals`]).
fn read(new: &str, old: &str) -> Reading {
    let (claim, old) = (first_sentence(unlabelled(new)), unlabelled(old));
    let (new_slots, old_slots) = (Slots::of(claim), Slots::of(old));
    let (new_words, old_words) = (lower_words(claim), lower_words(old));
    let (new_subject, old_subject) = (subject_words(&new_slots), subject_words(&old_slots));
    let (claim_ids, old_ids) = (identifiers(claim), identifiers(old));
    // Of one text's subject words, the share the other names.
    let share = |of: &BTreeSet<String>, other: &BTreeSet<String>| {
        let named = of.iter().filter(|word| other.iter().any(|by| same_word(word, by))).count();
        if of.is_empty() { 0.0 } else { named as f64 / of.len() as f64 }
    };
    // Details: subject words, numbers and days.
    let details = |slots: &Slots, subject: &BTreeSet<String>| -> BTreeSet<String> {
        subject.iter().chain(&slots.numbers).chain(&slots.dates).cloned().collect()
    };
    let (new_details, old_details) =
        (details(&new_slots, &new_subject), details(&old_slots, &old_subject));
    let signals = Signals {
        cue: change_cue(&new_words),
        older_cue: change_cue(&old_words).is_some(),
        addition: find(&new_words, ADDITIONS).is_some()
            && find(&lower_words(first_sentence(old)), ADDITIONS).is_none(),
        kept: share(&old_subject, &new_subject),
        echoed: share(&new_subject, &old_subject),
        added: new_details
            .iter()
            .any(|detail| !old_details.iter().any(|old| same_word(detail, old)))
            || !claim_ids.is_subset(&old_ids),
        number_dropped: detail_dropped(&old_slots, &new_slots),
        negation_flip: new_slots.negated != old_slots.negated,
    };
    Reading { signals, claim: new_slots, old: old_slots, claim_ids, old_ids }
}

/// Whether free text `new` corrects free text `old`, stored earlier, given
/// the cosine of their embeddings (the module's rules), and why.
pub fn correction(
    new: &str,
    old: &str,
    cosine: f64,
    settings: &ConflictSettings,
) -> Option<Correction> {
    if cosine < settings.correction {
        return None;
    }
    if asks(new) || asks(old) || tentative(new) || tentative(old) {
        return None;
    }
    let reading = read(new, old);
    let Reading { signals, claim: new_slots, old: old_slots, claim_ids, old_ids } = &reading;
    if new_slots.words == old_slots.words {
        return None;
    }
    let needed = if signals.older_cue { KEPT_AFTER_A_CHANGE } else { KEPT };
    if signals.kept < needed || signals.addition {
        return None;
    }
    let claim_text = first_sentence(unlabelled(new));
    // Someone else's: the claim is about a person the older text does not
    // name ("my sister switched her cats to a new vet" of "our vet is Dr.
    // Moreau"; "the rival club moved their home matches").
    let others =
        |slots: &Slots| slots.content.iter().filter(|word| OTHERS.contains(&word.as_str())).count();
    if others(new_slots) > others(old_slots) {
        return None;
    }
    // A change undone, or none made, changes nothing: "reverted it to 600"
    // of "the limit is 600", "rolled it back, so nothing changed".
    let new_words = lower_words(unlabelled(new));
    if find(&new_words, UNDONE).is_some() {
        let kept_value = old_slots.numbers.is_subset(&new_slots.numbers)
            && old_slots.names.is_subset(&new_slots.names)
            && old_ids.is_subset(claim_ids);
        if kept_value || find(&new_words, &[NOTHING_CHANGED]).is_some() {
            return None;
        }
    }
    let new_name = !new_slots.names.is_subset(&old_slots.names) || !claim_ids.is_subset(old_ids);
    // A state for another is a change, said or not ("HH-2291 resolved" of
    // "… is blocked on the vendor").
    let states = |slots: &Slots| -> BTreeSet<String> {
        slots.content.iter().filter(|word| STATE_WORDS.contains(&word.as_str())).cloned().collect()
    };
    let (old_states, new_states) = (states(old_slots), states(new_slots));
    let state_replaced = signals.kept >= SAME_SUBJECT
        && !old_states.is_empty()
        && !new_states.is_subset(&old_states)
        && !old_states.is_subset(&new_states);
    let announced = signals.cue.is_some() || state_replaced;
    // The opposite: the same statement, but for a "not".
    if signals.negation_flip {
        let about_the_older = !new_slots.negated || negates_the_older(new_slots, old_slots);
        // A claim that says all the older says and a "not" about something
        // else ("is not affected by the us-east-1 outage").
        if !about_the_older && signals.kept >= SAME_STATEMENT.0 {
            return None;
        }
        // "B, not A": a new name (not only a capital on the first word), a
        // "not" about the older's, and mostly the older's subject
        // ("password reset emails come from Keycloak, not from
        // notif-worker" is no news of notif-worker's order emails).
        let inner_names = Slots::of(claim_text.split_once(' ').map_or("", |(_, rest)| rest)).names;
        let named = !inner_names.is_subset(&old_slots.names) || !claim_ids.is_subset(old_ids);
        if new_slots.negated && about_the_older && named && signals.kept >= SAME_SUBJECT {
            return Some(Correction::Negation);
        }
        let same_statement = signals.kept >= SAME_STATEMENT.0 && signals.echoed >= SAME_STATEMENT.1;
        // Said with a word of change, it must be about what the older text
        // said ("…, not the small one" is no news of a retro's day).
        let said = signals.cue.is_some() && signals.echoed >= ECHOED && !signals.number_dropped;
        return (same_statement || said).then_some(Correction::Negation);
    }
    if !announced || signals.echoed < ECHOED || !signals.added || signals.number_dropped {
        return None;
    }
    if state_replaced {
        return Some(Correction::Name);
    }
    // Another attribute: a day or month where the older text gave none,
    // and no new name ("the offsite moved from June to September" of "the
    // offsite is in Lisbon"; not "design relocated to Lisbon in March").
    if !new_slots.dates.is_empty()
        && old_slots.dates.is_empty()
        && old_slots.numbers.is_empty()
        && !new_name
    {
        return None;
    }
    if restates(&reading, claim_text) {
        return None;
    }
    // Another attribute: the older text gives a state the claim neither
    // changes nor names ("now stores its data in SQLite" of "offline mode
    // is enabled").
    if !old_states.is_subset(&new_states) && new_states.is_subset(&old_states) {
        return None;
    }
    // Another attribute: a number of its own where the older text gave no
    // number, count or day ("now runs 6 replicas" of "runs in eu-west-1",
    // whose 1 is a name's).
    if has_number(claim_text)
        && !has_number(unlabelled(old))
        && !counts(old_slots)
        && old_slots.dates.is_empty()
    {
        return None;
    }
    if !new_slots.numbers.is_empty() && new_slots.numbers != old_slots.numbers {
        return Some(Correction::Number);
    }
    // (A day where the older gave none says when a name changed.)
    if !new_slots.dates.is_empty()
        && !old_slots.dates.is_empty()
        && new_slots.dates != old_slots.dates
    {
        return Some(Correction::Date);
    }
    Some(Correction::Name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `(newer, older, cosine, expected)` cases.
    fn check(cases: &[(&str, &str, f64, Option<Correction>)]) {
        let settings = ConflictSettings::default();
        for (new, old, cosine, expect) in cases {
            assert_eq!(
                correction(new, old, *cosine, &settings),
                *expect,
                "{new:?} / {old:?}: {:?}",
                signals(new, old)
            );
        }
    }

    use Correction::*;

    #[test]
    fn each_kind_of_value_changed_in_words() {
        check(&[
            // A region.
            (
                "Billing now runs in eu-central-1, which is cheaper.",
                "The billing service is deployed in eu-west-1.",
                0.7,
                Some(Name),
            ),
            // A tool.
            ("We migrated the build to Gradle.", "The build uses Maven.", 0.6, Some(Name)),
            // A person.
            (
                "Carol leads the platform team now.",
                "Alice leads the platform team.",
                0.8,
                Some(Name),
            ),
            // A day, as a word.
            ("The team sync moved to Wednesday.", "The team sync is on Tuesday.", 0.8, Some(Date)),
            // A day and a time given, the day changed.
            (
                "The weekly team sync moved to Wednesday.",
                "The weekly team sync is on Tuesday at 10:00.",
                0.8,
                Some(Date),
            ),
            // A place.
            ("Sam moved from Lisbon to Porto.", "Sam lives in Lisbon.", 0.8, Some(Name)),
            // A team.
            (
                "Ownership of the search service was transferred to the Ranking team.",
                "The search service is owned by the Discovery team.",
                0.6,
                Some(Name),
            ),
            // A status.
            (
                "The Kafka migration is now unblocked.",
                "The Kafka migration is blocked on review.",
                0.8,
                Some(Name),
            ),
            // A number, said to have changed.
            ("Standup is now at 10:00.", "Standup is at 9:30.", 0.85, Some(Number)),
            (
                "The api gateway timeout was raised to 60 seconds.",
                "The api gateway times out after 30 seconds.",
                0.8,
                Some(Number),
            ),
            (
                "Staging was upgraded to PostgreSQL 16.",
                "Staging runs PostgreSQL 14.",
                0.8,
                Some(Number),
            ),
            // The opposite.
            ("Bob is not allergic to peanuts.", "Bob is allergic to peanuts.", 0.9, Some(Negation)),
            (
                "Deploys are no longer frozen on Fridays.",
                "Deploys are frozen on Fridays.",
                0.97,
                Some(Negation),
            ),
            (
                "The VPN endpoint is in eu-south-1, not eu-west-3.",
                "The VPN endpoint is in eu-west-3.",
                0.9,
                Some(Negation),
            ),
        ]);
    }

    #[test]
    fn each_wording_of_change() {
        let old = "The web app's dependencies are managed with npm.";
        for new in [
            "The web app's dependencies are now managed with pnpm.",
            "The web app's dependencies moved from npm to pnpm.",
            "The web app's dependencies migrated to pnpm.",
            "We switched the web app's dependencies to pnpm.",
            "Replaced npm with pnpm for the web app's dependencies.",
            "Changed: the web app's dependencies are managed with pnpm.",
            "The web app's dependencies use pnpm instead of npm.",
            "Going forward the web app's dependencies are managed with pnpm.",
            "Turns out the web app's dependencies are managed with pnpm.",
            "Correction: the web app's dependencies are managed with pnpm.",
            "Update: the web app's dependencies are managed with pnpm.",
            "The web app's dependencies are actually managed with pnpm.",
        ] {
            check(&[(new, old, 0.7, Some(Name))]);
        }
        // "No longer" says the old value holds no more.
        check(&[(
            "The web app's dependencies are no longer managed with npm but pnpm.",
            old,
            0.8,
            Some(Negation),
        )]);
        // Without a word of change a new value is another memory.
        check(&[("The web app's dependencies are managed with pnpm.", old, 0.8, None)]);
    }

    #[test]
    fn look_alikes_stand_side_by_side() {
        check(&[
            // Events alike but for a detail: nothing says a value changed.
            ("Deployed build 42 to staging.", "Deployed build 41 to staging.", 0.9, None),
            ("Met Bob for lunch.", "Met Alice for lunch.", 0.8, None),
            (
                "The deploy of build 42 finished after the review.",
                "The deploy of build 41 finished after the review.",
                0.95,
                None,
            ),
            ("The sync was on Tuesday.", "The sync was on Monday.", 0.9, None),
            ("Bob's birthday is on May 5.", "Alice's birthday is on March 3.", 0.75, None),
            ("Carol leads the data team.", "Alice leads the platform team.", 0.7, None),
            // Two subjects, each changed with the same word.
            (
                "We switched the HTTP client to reqwest.",
                "We switched the logger to tracing.",
                0.7,
                None,
            ),
            ("Bob moved to Munich.", "Alice moved to Berlin.", 0.7, None),
            (
                "On Tuesday we moved the roadmap to Linear.",
                "On Monday we moved the docs to Notion.",
                0.7,
                None,
            ),
            // An addition keeps the old value.
            ("We also deploy to us-east-1 now.", "We deploy to eu-west-1.", 0.8, None),
            (
                "Carla is now a second reviewer, alongside Hugo.",
                "Hugo reviews all Terraform changes.",
                0.7,
                None,
            ),
            // An elaboration or a restatement changes nothing.
            ("Deploys happen on Wednesday after lunch.", "Deploys happen on Wednesday.", 0.9, None),
            ("Datadog is where all our logs end up.", "Logs ship to Datadog.", 0.8, None),
            ("Standup is at 9:30.", "Standup is at 9:30!", 0.99, None),
            // Another attribute of the same subject: the number is dropped,
            // not changed.
            (
                "The API gateway now runs on Graviton instances.",
                "The API gateway's timeout is 30 seconds.",
                0.6,
                None,
            ),
            // Another's move, a plan: not what the newer text changes.
            (
                "Alice moved to Munich last week.",
                "Alice's sister moved to Munich last year.",
                0.8,
                None,
            ),
            (
                "Alice moved to Munich last week.",
                "Alice is thinking about moving to Munich.",
                0.8,
                None,
            ),
            ("Thinking about switching the monorepo to pnpm.", "The monorepo uses npm.", 0.7, None),
            // A "not" about another detail negates nothing of the older text.
            (
                "The retro now happens in the big room, not the small one.",
                "The retro is on Thursday.",
                0.7,
                None,
            ),
            // One word in common is a topic, not a subject.
            (
                "The design review moved to Wednesday.",
                "The deploy of build 41 finished after the review.",
                0.5,
                None,
            ),
            // Not close enough in meaning.
            ("The build takes 12 minutes now.", "The sync is on Tuesday.", 0.2, None),
        ]);
    }

    #[test]
    fn a_change_after_a_change_needs_the_same_subject() {
        check(&[
            // The same subject: a correction of the first change.
            ("Standup moved to 10:30 instead.", "Standup moved to 10:00.", 0.9, Some(Number)),
            // Other subjects, both announced as changes.
            (
                "The notification service has migrated to us-west-2.",
                "The auth service migrated to eu-central-1 last week.",
                0.7,
                None,
            ),
        ]);
    }

    #[test]
    fn a_question_or_a_label_is_no_detail() {
        check(&[
            // A question states nothing to correct, nor corrects.
            (
                "I've been playing for four months now.",
                "How long have you been playing professionally?",
                0.8,
                None,
            ),
            ("Does billing now run in eu-central-1?", "Billing runs in eu-west-1.", 0.8, None),
            // Labels are not details: the numbers in them changed nothing.
            ("[D2:4] Standup is at 9:30.", "[D1:3] Standup is at 9:30.", 0.9, None),
            (
                "[2024-06-01] Standup now starts at 10:00.",
                "[2024-05-01] Standup starts at 9:30.",
                0.85,
                Some(Number),
            ),
            // The claim is the first sentence; a reason after it adds nothing.
            (
                "The database upgrade got postponed to Sunday night; the vendor needs another day.",
                "The database upgrade window is this Saturday night.",
                0.75,
                Some(Date),
            ),
        ]);
    }

    #[test]
    fn shortened_words_days_said_weekly_and_titles() {
        check(&[
            // "prod" names production, "deploys" shipping there.
            (
                "We ship to prod on Thursday now.",
                "Deploys to production happen on Tuesday.",
                0.55,
                Some(Date),
            ),
            // "the db" is the database.
            (
                "The orders db now runs on Postgres.",
                "The orders database runs on MySQL.",
                0.7,
                Some(Name),
            ),
            // A shortening is not a new detail: this says nothing new.
            ("The orders db is now backed up.", "The orders database is backed up.", 0.8, None),
            // Days said weekly ("on Fridays") are days: the day changed,
            // none was dropped.
            (
                "My one-on-ones with my manager are on Fridays from now on.",
                "The weekly one-on-one with my manager is on Thursday.",
                0.7,
                Some(Date),
            ),
            // "Dr." ends no sentence: the claim goes on to the new dentist.
            (
                "Dr. Alvarez retired, so I've moved to Dr. Chen for check-ups.",
                "My dentist is Dr. Alvarez.",
                0.6,
                Some(Name),
            ),
        ]);
        assert_eq!(first_sentence("Ask Dr. Chen. She knows."), "Ask Dr. Chen");
        assert_eq!(first_sentence("Use e.g. Loki; it is cheap."), "Use e.g. Loki");
    }

    #[test]
    fn another_attribute_or_the_same_value_is_no_correction() {
        check(&[
            // The same value said again, with "these days".
            (
                "These days Customer Care works the support inbox in two shifts.",
                "The support inbox is handled by Customer Care.",
                0.7,
                None,
            ),
            // ... but a state of its own is a new value.
            (
                "The Kafka migration is now unblocked.",
                "The Kafka migration is blocked.",
                0.8,
                Some(Name),
            ),
            // ... and so is a count where the older gave one.
            (
                "The Kafka cluster now has two brokers.",
                "The Kafka cluster has three brokers.",
                0.8,
                Some(Name),
            ),
            // A day or month where the older gave none, and no new name.
            (
                "The team offsite moved from June to September.",
                "The team offsite is in Lisbon.",
                0.6,
                None,
            ),
            // With a new name, the month says when.
            (
                "Design relocated to Lisbon in March.",
                "The design team sits in the Barcelona office.",
                0.6,
                Some(Name),
            ),
            // A number of its own where the older gave none (its 1 is a
            // region's).
            (
                "The payments service now runs 6 replicas instead of 4.",
                "The payments service runs in eu-west-1.",
                0.6,
                None,
            ),
            // A region for a region is a name changed.
            (
                "The payments service now runs in eu-central-1.",
                "The payments service runs in eu-west-1.",
                0.8,
                Some(Name),
            ),
            // The older's state, neither changed nor named.
            (
                "Offline mode was rewritten by the Sync team and now stores its data in SQLite.",
                "Offline mode is enabled for all users.",
                0.7,
                None,
            ),
            // A "not" about something else, after all the older said.
            (
                "The legacy reporting service is now deprecated and shouldn't get new features.",
                "The legacy reporting service is deprecated.",
                0.9,
                None,
            ),
            // A "not" about what the older said, a day.
            (
                "CRM db maintenance is Sunday night, not Saturday.",
                "Maintenance windows for the CRM database are on Saturday night.",
                0.8,
                Some(Negation),
            ),
            // "Service" and "team" say what kind, not which.
            (
                "The loyalty points service moved to the Retention team.",
                "The checkout service belongs to the Payments team.",
                0.5,
                None,
            ),
        ]);
        assert!(has_number("6 replicas") && has_number("(4)") && !has_number("eu-west-1 and v2"));
    }

    #[test]
    fn identifiers_states_undone_changes_and_someone_else() {
        check(&[
            // An identifier is a new value, however few of its letters are
            // new, and no restatement.
            (
                "Helpdesk Hive's ticket-routing worker was moved from eu-west-1 to eu-central-1.",
                "The ticket-routing worker for Helpdesk Hive runs in eu-west-1.",
                0.85,
                Some(Name),
            ),
            (
                "We renamed #genomics-ops to #pipeline-incidents.",
                "Incidents for the genome pipeline are discussed in #genomics-ops.",
                0.8,
                Some(Name),
            ),
            // One state for another says the change, same subject.
            (
                "HH-2291 resolved: the vendor fixed their webhook and the duplicate \
                 notifications stopped.",
                "Ticket HH-2291 (duplicate notifications) is blocked on the mail vendor.",
                0.65,
                Some(Name),
            ),
            // "B, not A": a new name, a "not" about the older's value, the
            // same subject.
            (
                "Checkout bugs are triaged by the new Payments squad, not the Web team.",
                "Checkout bugs on the bakery site are triaged by the Web team.",
                0.7,
                Some(Negation),
            ),
            // ... not another subject that shares a name.
            (
                "Customer password reset emails come from Keycloak, not from notif-worker.",
                "notif-worker consumes order-events and sends order confirmation emails through \
                 Postmark.",
                0.6,
                None,
            ),
            // A "not" about something else, after all the older said.
            (
                "The Helpdesk Hive API is not affected by today's us-east-1 storage outage.",
                "The Helpdesk Hive API runs in us-east-1.",
                0.75,
                None,
            ),
            // A change undone keeps the older value.
            (
                "We raised the Drizzle API rate limit to 1000 yesterday, but reverted it to 600 \
                 this morning.",
                "The Drizzle API's rate limit is 600 requests per minute.",
                0.85,
                None,
            ),
            (
                "Tried moving the results bucket to us-east-1, but rolled it back the same day, \
                 so nothing changed in the end.",
                "The genome pipeline's results bucket is in us-west-2.",
                0.55,
                None,
            ),
            // Reverted to a value the older did not give is a change.
            (
                "The rate limit was reverted to 600 requests per minute.",
                "The rate limit was raised to 1000 requests per minute.",
                0.85,
                Some(Number),
            ),
            // Someone else's news.
            (
                "My sister switched her cats to a new vet in town, Dr. Abadi.",
                "Our family's vet is Dr. Moreau at Pine Lane.",
                0.6,
                None,
            ),
            ("My mum moved to Leeds in the spring.", "My mum lives in York.", 0.7, Some(Name)),
            // The same day again, with "nowadays".
            (
                "Nowadays our litter picks are always Saturday mornings, rain or shine.",
                "The litter-pick volunteers meet on Saturdays.",
                0.7,
                None,
            ),
            // "Instead of" names what it replaces: no restatement.
            (
                "Litter picks start at the library steps instead of the Riverside car park.",
                "The volunteer group's litter picks start at the Riverside car park.",
                0.8,
                Some(Name),
            ),
        ]);
        assert_eq!(
            identifiers("Moved eu-west-1's jobs to #ops-2, see HH-22. Not two-factor."),
            ["#ops-2", "eu-west-1", "hh-22"].map(str::to_owned).into()
        );
    }

    #[test]
    fn words_of_change_are_found_as_phrases() {
        let cue = |text: &str| change_cue(&lower_words(text));
        assert_eq!(cue("Lena handed the release over to Omar").as_deref(), Some("handed"));
        assert_eq!(cue("It turns out the offsite is in Rotterdam").as_deref(), Some("turns out"));
        assert_eq!(cue("Update: alerts go to #incidents").as_deref(), Some("update"));
        // "update" inside a sentence names a thing, it announces nothing.
        assert_eq!(cue("Incident updates are posted in #status"), None);
        assert_eq!(cue("The logs are no longer kept").as_deref(), Some("no longer"));
        assert_eq!(cue("Spun up a new test cluster"), None);
        assert_eq!(cue("Bye for now"), None);
        assert_eq!(cue("That is it for now; the logs now go to Loki").as_deref(), Some("now"));
    }
}
