//! Telling an agent, with its prompt, the memories that answer it: what
//! is private in a prompt, the bar a memory must clear to be told, a told
//! memory as one line, the lines fitted into a budget, and what a session
//! has been told (so nothing is told twice unless it changed).
//!
//! Pure: time comes in as milliseconds, and the engine supplies each
//! candidate's similarity to the prompt and the share of the prompt's
//! keywords it holds.

use std::collections::{BTreeMap, HashMap};

use crate::working::{clip, estimate_tokens};

/// What telling does, per namespace (`memory.tell*`).
#[derive(Debug, Clone, PartialEq)]
pub struct TellSettings {
    /// Whether memories are told with prompts at all.
    pub enabled: bool,
    /// The most one prompt is told, in tokens (counted as the session-start
    /// context counts them).
    pub tokens: usize,
    /// The similarity (cosine of the prompt's and the memory's vectors) a
    /// memory must reach to be told; `None`: the one calibrated for the
    /// model ([`default_bar`]).
    pub bar: Option<f64>,
    /// With this share of the prompt's keywords or more in the memory, a
    /// memory is told from `bar - keyword_margin` on.
    pub keyword_share: f64,
    /// How far below `bar` a memory that holds the prompt's words may be.
    pub keyword_margin: f64,
    /// The most memories one prompt is told.
    pub max_memories: usize,
}

/// The default per-prompt budget, in tokens: four to five one-line
/// memories (docs/figures.md, "Told with the prompt").
pub const DEFAULT_TELL_TOKENS: usize = 300;
/// The most a prompt may be told, in tokens.
pub const MAX_TELL_TOKENS: usize = 2_000;

impl Default for TellSettings {
    fn default() -> Self {
        TellSettings {
            enabled: true,
            tokens: DEFAULT_TELL_TOKENS,
            bar: None,
            keyword_share: 0.3,
            keyword_margin: 0.1,
            max_memories: 5,
        }
    }
}

/// The bar calibrated for the embedding model `model_id` (its name leads
/// the id): each model spreads cosines its own way, so each has its own,
/// chosen on the development part of `examples/src/prompt_cases.rs`
/// (`examples/tell_eval.rs`, docs/figures.md "Told with the prompt").
pub fn default_bar(model_id: &str) -> f64 {
    if model_id.starts_with("e5-") {
        0.85
    } else if model_id.starts_with("bge-") {
        // Measured on bge-small; bge-base and bge-large spread their
        // cosines as it does, but were not measured.
        0.65
    } else {
        0.475
    }
}

impl TellSettings {
    /// The bar for `model_id`: the one set, else the model's.
    pub fn bar_for(&self, model_id: &str) -> f64 {
        self.bar.unwrap_or_else(|| default_bar(model_id))
    }
}

/// Why a memory cleared the bar, or the figures it was judged by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Why {
    /// Cosine similarity of the prompt's vector and the memory's.
    pub similarity: f64,
    /// Share of the prompt's keywords the memory holds, 0..=1.
    pub keywords: f64,
    /// Which rule it cleared (`meaning`, `meaning and words`), if any.
    pub rule: Option<&'static str>,
}

/// Judges one candidate: `similarity` to the prompt and the share of the
/// prompt's `keywords` it holds, against `bar` and the namespace's
/// `settings`.
pub fn judge(similarity: f64, keywords: f64, bar: f64, settings: &TellSettings) -> Why {
    let rule = if similarity >= bar {
        Some("meaning")
    } else if keywords >= settings.keyword_share && similarity >= bar - settings.keyword_margin {
        Some("meaning and words")
    } else {
        None
    };
    Why { similarity, keywords, rule }
}

/// `text` without what lies between `<private>` and `</private>` (tags
/// matched in any case; an unclosed `<private>` hides the rest), the tags
/// themselves removed too. Whether anything was hidden is returned beside.
pub fn strip_private(text: &str) -> (String, bool) {
    // Cutting can join two halves into a new tag (`<priv</private>ate>`):
    // cut again until nothing changes. A prompt built to need pass after
    // pass (a CPU cost that grows with its square) is private whole.
    let (mut kept, mut hidden) = strip_private_once(text);
    for _ in 0..MAX_PRIVATE_PASSES {
        let (again, more) = strip_private_once(&kept);
        if !more {
            return (kept, hidden);
        }
        kept = again;
        hidden = true;
    }
    (String::new(), true)
}

/// Passes of [`strip_private`] after the first; past them, nothing is kept.
const MAX_PRIVATE_PASSES: usize = 8;

fn strip_private_once(text: &str) -> (String, bool) {
    const OPEN: &str = "<private>";
    const CLOSE: &str = "</private>";
    // ASCII lowering keeps byte offsets.
    let lower = text.to_ascii_lowercase();
    let mut kept = String::with_capacity(text.len());
    let mut at = 0;
    let mut hidden = false;
    while let Some(start) = lower[at..].find(OPEN).map(|offset| at + offset) {
        hidden = true;
        kept.push_str(&text[at..start]);
        match lower[start + OPEN.len()..].find(CLOSE) {
            Some(offset) => at = start + OPEN.len() + offset + CLOSE.len(),
            None => {
                at = text.len();
                break;
            }
        }
    }
    kept.push_str(&text[at..]);
    // A stray closing tag says nothing private but should not be stored.
    if lower.contains(CLOSE) {
        hidden = true;
        let lower_kept = kept.to_ascii_lowercase();
        let mut cleaned = String::with_capacity(kept.len());
        let mut from = 0;
        while let Some(offset) = lower_kept[from..].find(CLOSE) {
            cleaned.push_str(&kept[from..from + offset]);
            from += offset + CLOSE.len();
        }
        cleaned.push_str(&kept[from..]);
        kept = cleaned;
    }
    (kept, hidden)
}

/// What a told line says of one memory.
#[derive(Debug, Clone, PartialEq)]
pub struct TellLine<'a> {
    /// Its id.
    pub id: &'a str,
    /// What it says: a fact as `subject · predicate: object`, else its text.
    pub text: String,
    /// Its type: `fact`, `episodic`, `procedural`, or a file's chunk.
    pub kind: &'a str,
    /// How old, as people say it (`3 d`).
    pub age: String,
    /// Where it came from, when not this device's own project: a device's
    /// name, a teammate's share.
    pub origin: Option<String>,
    /// The id of what it replaces that this session was told.
    pub replaces: Option<&'a str>,
}

/// The longest text a told line carries, in characters.
pub const LINE_TEXT_CHARS: usize = 280;

/// One memory as a line: `[type, age, origin] text (id …)`, with
/// `changed:` first when it replaces something this session was told.
pub fn line(item: &TellLine<'_>) -> String {
    let mut label = format!("{}, {} old", item.kind, item.age);
    if let Some(origin) = &item.origin {
        label.push_str(&format!(", {origin}"));
    }
    let changed = match item.replaces {
        Some(old) => format!("changed (replaces {old}): "),
        None => String::new(),
    };
    format!("{changed}[{label}] {} (id {})", clip(&item.text, LINE_TEXT_CHARS), item.id)
}

/// The header a prompt's told memories come under.
pub const HEADER: &str =
    "ferrex memory (stored earlier on this user's devices) that may bear on this prompt:";

/// The text of the lines that fit `budget` tokens under [`HEADER`], in
/// their order (a line that does not fit is left out, and a shorter later
/// one may still fit), and the indices of the lines kept; nothing at all
/// (no header) when none fits.
pub fn fit(lines: &[String], budget: usize) -> (String, Vec<usize>) {
    let mut text = HEADER.to_owned();
    let mut kept = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let candidate = format!("{text}\n- {line}");
        if estimate_tokens(&candidate) <= budget {
            text = candidate;
            kept.push(index);
        }
    }
    if kept.is_empty() {
        return (String::new(), kept);
    }
    (text, kept)
}

/// One memory a session was told.
#[derive(Debug, Clone, PartialEq)]
pub struct Told {
    /// The memory.
    pub id: String,
    /// What identified its content when told (changed content is told
    /// again).
    pub fingerprint: String,
    /// When (ms).
    pub at: i64,
    /// The prompt it came with, clipped and without what was private;
    /// `None` for the session-start context.
    pub prompt: Option<String>,
    /// Why it cleared the bar (none for the session-start context).
    pub why: Option<Why>,
    /// The line told.
    pub line: String,
    /// What it replaced that the session was told before.
    pub replaces: Option<String>,
}

/// Memories a session keeps as told, at most; the oldest go first.
pub const MAX_TOLD_PER_SESSION: usize = 200;
/// Sessions remembered at once, at most; the least recently active go.
/// With [`MAX_TOLD_PER_SESSION`], a prompt's 200 characters and a line's
/// 280 each, at most about 10 MB.
pub const MAX_SESSIONS: usize = 64;
/// A session untouched this long (ms) is forgotten: a day.
pub const SESSION_EXPIRY_MS: i64 = crate::DAY_MILLIS;
/// The longest session id kept.
pub const MAX_SESSION_ID: usize = 200;

/// What each session has been told, bounded in sessions, memories per
/// session and time.
#[derive(Debug, Default, Clone)]
pub struct ToldSessions {
    sessions: HashMap<String, Session>,
}

#[derive(Debug, Default, Clone)]
struct Session {
    last: i64,
    told: Vec<Told>,
}

impl ToldSessions {
    /// Forgets sessions untouched for a day at `now`.
    pub fn expire(&mut self, now: i64) {
        self.sessions.retain(|_, session| now - session.last < SESSION_EXPIRY_MS);
    }

    /// What `session` was told, oldest first (empty for one never seen,
    /// or untouched for a day at `now`).
    pub fn of(&self, session: &str, now: i64) -> &[Told] {
        self.sessions
            .get(session)
            .filter(|session| now - session.last < SESSION_EXPIRY_MS)
            .map_or(&[], |session| &session.told)
    }

    /// Whether `session` was told memory `id` with this `fingerprint`.
    pub fn knows(&self, session: &str, id: &str, fingerprint: &str, now: i64) -> bool {
        self.of(session, now).iter().any(|told| told.id == id && told.fingerprint == fingerprint)
    }

    /// Marks `session` active at `now` (a prompt of it was judged), so it
    /// is kept a day from its last prompt, told something or not.
    pub fn touch(&mut self, session: &str, now: i64) {
        self.expire(now);
        if let Some(entry) = self.sessions.get_mut(session) {
            entry.last = now;
        }
    }

    /// Forgets that `session` was told `ids` (they were not told again
    /// when they should have been).
    pub fn forget(&mut self, session: &str, ids: &[String]) {
        if let Some(entry) = self.sessions.get_mut(session) {
            entry.told.retain(|told| !ids.contains(&told.id));
        }
    }

    /// Records that `session` was told `told` at `now` (replacing an
    /// earlier record of the same memory), within the bounds.
    pub fn record(&mut self, session: &str, told: Told, now: i64) {
        if session.len() > MAX_SESSION_ID {
            return;
        }
        self.expire(now);
        if !self.sessions.contains_key(session) && self.sessions.len() >= MAX_SESSIONS {
            let oldest = self
                .sessions
                .iter()
                .min_by(|a, b| a.1.last.cmp(&b.1.last).then_with(|| a.0.cmp(b.0)))
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.sessions.remove(&oldest);
            }
        }
        let entry = self.sessions.entry(session.to_owned()).or_default();
        entry.last = now;
        entry.told.retain(|earlier| earlier.id != told.id);
        entry.told.push(told);
        if entry.told.len() > MAX_TOLD_PER_SESSION {
            let excess = entry.told.len() - MAX_TOLD_PER_SESSION;
            entry.told.drain(..excess);
        }
    }

    /// Forgets `session` (it ended), returning how many memories it had
    /// been told.
    pub fn end(&mut self, session: &str) -> usize {
        self.sessions.remove(session).map_or(0, |session| session.told.len())
    }

    /// Every session remembered, most recently active first, with what it
    /// was told.
    pub fn all(&self) -> Vec<(&str, i64, &[Told])> {
        let mut all: Vec<(&str, i64, &[Told])> = self
            .sessions
            .iter()
            .map(|(id, session)| (id.as_str(), session.last, session.told.as_slice()))
            .collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        all
    }
}

/// For each memory id, the told memory it replaces: `replaced_by` maps a
/// told memory to the memories that supersede or correct it now.
pub fn replacements(
    told: &[Told],
    replaced_by: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, String> {
    let mut replaces = BTreeMap::new();
    for earlier in told {
        for newer in replaced_by.get(&earlier.id).into_iter().flatten() {
            replaces.entry(newer.clone()).or_insert_with(|| earlier.id.clone());
        }
    }
    replaces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_text_is_cut_out_whatever_its_case() {
        assert_eq!(strip_private("plain"), ("plain".to_owned(), false));
        assert_eq!(
            strip_private("deploy <private>token abc</private> now"),
            ("deploy  now".to_owned(), true)
        );
        assert_eq!(
            strip_private("a <PRIVATE>x</Private> b <private>y</private> c"),
            ("a  b  c".to_owned(), true)
        );
        // Unclosed: the rest is private.
        assert_eq!(strip_private("keep <private>secret to the end"), ("keep ".to_owned(), true));
        // A stray closing tag is dropped, and what is around it kept.
        assert_eq!(strip_private("a </private> b"), ("a  b".to_owned(), true));
        // Multi-byte text around the tags.
        assert_eq!(strip_private("é<private>ü</private>ß"), ("éß".to_owned(), true));
        // A tag made by cutting is cut too.
        assert_eq!(strip_private("<priv</private>ate>secret"), (String::new(), true));
        // Nested to need a pass per level: bounded, and private whole.
        let mut nested = "secret".to_owned();
        for _ in 0..1_000 {
            nested = format!("<priv{nested}ate>");
            nested = nested.replacen("ate>", "</private>ate>", 1);
        }
        assert_eq!(strip_private(&format!("keep {nested}")), (String::new(), true));
    }

    #[test]
    fn the_bar_takes_meaning_or_meaning_near_it_with_the_words() {
        let settings =
            TellSettings { keyword_share: 0.5, keyword_margin: 0.1, ..TellSettings::default() };
        assert_eq!(judge(0.55, 0.0, 0.5, &settings).rule, Some("meaning"));
        assert_eq!(judge(0.42, 0.6, 0.5, &settings).rule, Some("meaning and words"));
        assert_eq!(judge(0.42, 0.3, 0.5, &settings).rule, None);
        assert_eq!(judge(0.35, 1.0, 0.5, &settings).rule, None);
        // A bar set wins over the model's; each model has its own.
        assert_eq!(
            TellSettings { bar: Some(0.3), ..settings.clone() }.bar_for("e5-small-v2/mean/256"),
            0.3
        );
        assert!(
            settings.bar_for("e5-small-v2/mean/256")
                > settings.bar_for("all-minilm-l6-v2/mean/256")
        );
    }

    #[test]
    fn lines_fit_the_budget_and_nothing_fits_means_no_header() {
        let item = TellLine {
            id: "0193-a",
            text: "Billing webhooks are retried five times".into(),
            kind: "episodic",
            age: "2 d".into(),
            origin: Some("from laptop".into()),
            replaces: None,
        };
        let told = line(&item);
        assert_eq!(
            told,
            "[episodic, 2 d old, from laptop] Billing webhooks are retried five times (id 0193-a)"
        );
        let changed = line(&TellLine { replaces: Some("0193-0"), ..item });
        assert!(changed.starts_with("changed (replaces 0193-0): ["), "{changed}");
        let (text, kept) = fit(&[told.clone(), told.clone()], 60);
        assert_eq!(kept, [0]);
        assert!(text.starts_with(HEADER) && estimate_tokens(&text) <= 60);
        // A line too long is left out, and a shorter one after it kept.
        let long = "x".repeat(400);
        let (text, kept) = fit(&[long, told.clone()], 60);
        assert_eq!(kept, [1]);
        assert!(text.ends_with(&told));
        assert_eq!(fit(&[told], 10), (String::new(), vec![]));
        assert_eq!(fit(&[], 1_000), (String::new(), vec![]));
    }

    fn told(id: &str, fingerprint: &str) -> Told {
        Told {
            id: id.into(),
            fingerprint: fingerprint.into(),
            at: 0,
            prompt: None,
            why: None,
            line: String::new(),
            replaces: None,
        }
    }

    #[test]
    fn a_session_knows_what_it_was_told_within_its_bounds() {
        let mut sessions = ToldSessions::default();
        sessions.record("s1", told("a", "1"), 1_000);
        assert!(sessions.knows("s1", "a", "1", 1_000));
        assert!(!sessions.knows("s1", "a", "2", 1_000), "changed content is not known");
        assert!(!sessions.knows("s2", "a", "1", 1_000), "another session knows nothing");
        // Told again with new content: one record, the new one.
        sessions.record("s1", told("a", "2"), 2_000);
        assert_eq!(sessions.of("s1", 2_000).len(), 1);
        assert!(sessions.knows("s1", "a", "2", 2_000));
        // A prompt that was told nothing keeps the session a day longer.
        sessions.touch("s1", 2_000 + SESSION_EXPIRY_MS / 2);
        assert!(sessions.knows("s1", "a", "2", 2_000 + SESSION_EXPIRY_MS));
        // A day untouched: forgotten, read or not.
        assert!(sessions.of("s1", 3_000 + SESSION_EXPIRY_MS * 3 / 2).is_empty());
        sessions.record("s2", told("b", "1"), 3_000 + SESSION_EXPIRY_MS * 3 / 2);
        assert!(sessions.all().iter().all(|(id, ..)| *id != "s1"));
        sessions.forget("s2", &["b".to_owned()]);
        assert!(sessions.of("s2", 3_000 + SESSION_EXPIRY_MS * 3 / 2).is_empty());
        // Bounded per session.
        for index in 0..MAX_TOLD_PER_SESSION + 10 {
            sessions.record("s3", told(&index.to_string(), "f"), 4_000 + SESSION_EXPIRY_MS * 2);
        }
        let at = 4_000 + SESSION_EXPIRY_MS * 2;
        assert_eq!(sessions.of("s3", at).len(), MAX_TOLD_PER_SESSION);
        assert!(!sessions.knows("s3", "0", "f", at) && sessions.knows("s3", "209", "f", at));
        // Bounded in sessions: the least recently active go.
        for index in 0..MAX_SESSIONS + 5 {
            sessions.record(&format!("many-{index}"), told("x", "f"), at + index as i64);
        }
        assert_eq!(sessions.all().len(), MAX_SESSIONS);
        let last = format!("many-{}", MAX_SESSIONS + 4);
        assert!(
            sessions.of("many-0", at + 100).is_empty() && !sessions.of(&last, at + 100).is_empty()
        );
        // An overlong id is never kept; an ended session is forgotten.
        sessions.record(&"x".repeat(MAX_SESSION_ID + 1), told("y", "f"), at + 100);
        assert!(sessions.all().iter().all(|(id, ..)| id.len() <= MAX_SESSION_ID));
        assert_eq!(sessions.end(&last), 1);
        assert!(sessions.of(&last, at + 100).is_empty());
    }

    #[test]
    fn what_replaces_a_told_memory_is_found() {
        let told = [told("old", "1"), told("other", "1")];
        let replaced_by: BTreeMap<String, Vec<String>> =
            [("old".to_owned(), vec!["new".to_owned()])].into();
        let replaces = replacements(&told, &replaced_by);
        assert_eq!(replaces.get("new").map(String::as_str), Some("old"));
        assert_eq!(replaces.len(), 1);
    }
}
