//! Scoring: how stale a memory is, how much recency lifts it, how much to
//! trust it. Every function takes `now`; none reads a clock.

use crate::{MemoryKind, Timestamp};

/// Per-kind half-lives and the label thresholds of staleness.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StalenessSettings {
    /// Half-life of an episodic memory's freshness, in days.
    pub episodic_half_life_days: f64,
    /// Half-life of a semantic memory's freshness, in days.
    pub semantic_half_life_days: f64,
    /// Half-life of a procedural memory's freshness, in days.
    pub procedural_half_life_days: f64,
    /// Scores at or above this are `aging`.
    pub aging_threshold: f64,
    /// Scores at or above this are `stale`.
    pub stale_threshold: f64,
}

impl Default for StalenessSettings {
    fn default() -> Self {
        StalenessSettings {
            episodic_half_life_days: 30.0,
            semantic_half_life_days: 180.0,
            procedural_half_life_days: 365.0,
            aging_threshold: 0.5,
            stale_threshold: 0.75,
        }
    }
}

impl StalenessSettings {
    /// The half-life of `kind`, in days.
    pub fn half_life_days(&self, kind: MemoryKind) -> f64 {
        match kind {
            MemoryKind::Episodic => self.episodic_half_life_days,
            MemoryKind::Semantic => self.semantic_half_life_days,
            MemoryKind::Procedural => self.procedural_half_life_days,
        }
    }
}

/// What staleness is computed from: document content only (access counts
/// are the values folded into the document, not a node's local buffer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usage {
    /// Kind of memory.
    pub kind: MemoryKind,
    /// When it was stored.
    pub created_at: Timestamp,
    /// Recalls folded into the document, over all devices.
    pub access_count: u64,
    /// The last folded recall.
    pub last_access: Option<Timestamp>,
    /// The last validation on any device.
    pub last_validated: Option<Timestamp>,
    /// The evidence counter (1 when stored once).
    pub evidence: i64,
}

/// A memory's staleness label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Staleness {
    /// Recent, used or confirmed.
    Fresh,
    /// Getting old without use or confirmation.
    Aging,
    /// Old, unused and unconfirmed: worth re-checking before relying on it.
    Stale,
}

impl Staleness {
    /// The label's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Staleness::Fresh => "fresh",
            Staleness::Aging => "aging",
            Staleness::Stale => "stale",
        }
    }
}

/// `1 - 2^(-days / half_life)`: 0 for now, 0.5 after one half-life, towards 1.
fn decayed(days: f64, half_life_days: f64) -> f64 {
    if days <= 0.0 || half_life_days <= 0.0 {
        return 0.0;
    }
    1.0 - (-days * std::f64::consts::LN_2 / half_life_days).exp()
}

/// Staleness in 0..=1:
/// `0.40·age + 0.25·access + 0.25·validation + 0.10·count`, where age,
/// access and validation are the decayed time since creation, last recall
/// and last validation (creation when never), with the kind's half-life, and
/// count is `1 / (recalls + evidence)`.
pub fn staleness(usage: &Usage, now: Timestamp, settings: &StalenessSettings) -> f64 {
    let half_life = settings.half_life_days(usage.kind);
    let since = |time: Option<Timestamp>| now.days_since(time.unwrap_or(usage.created_at));
    let age = decayed(now.days_since(usage.created_at), half_life);
    let access = decayed(since(usage.last_access), half_life);
    let validation = decayed(since(usage.last_validated), half_life);
    let uses = usage.access_count as f64 + usage.evidence.max(1) as f64;
    let count = 1.0 / uses;
    (0.40 * age + 0.25 * access + 0.25 * validation + 0.10 * count).clamp(0.0, 1.0)
}

/// How much recency and trust move a memory's rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankingSettings {
    /// Lift of a brand-new episodic memory (it fades with the kind's half-life).
    pub episodic_recency: f64,
    /// Lift of a brand-new semantic memory.
    pub semantic_recency: f64,
    /// Lift of a brand-new procedural memory.
    pub procedural_recency: f64,
    /// Factor on the score of free text that a newer memory corrected.
    pub corrected_penalty: f64,
    /// Weight of the dense (meaning) list in rank fusion.
    pub dense_weight: f64,
    /// Weight of the full-text (keyword) list in rank fusion, before
    /// [`Self::keyword_coverage`] scales each match.
    pub text_weight: f64,
    /// How much a keyword match's weight depends on the share of the
    /// query's keywords it holds: its contribution to the fusion is scaled
    /// by `coverage ^ keyword_coverage` (0: not at all). A match on one
    /// word of a question is weak evidence, and a paraphrased question
    /// shares few words with what answers it: plain weighted fusion (text
    /// weight 3) put the right note first for 18% of the paraphrase set's
    /// development queries where meaning alone managed 55%. Chosen with
    /// `examples/retrieval_eval.rs --config` on the development splits of
    /// both sets (mean MRR of the two, all-MiniLM-L6-v2): power 0 / weight
    /// 3 → 0.395, 2 / 2 → 0.561, 3 / 2 → 0.600, 4 / 3 → 0.607, 6 / 4 →
    /// 0.603; the README gives the held-out figures.
    pub keyword_coverage: f64,
    /// How many of the best candidates the cross-encoder reorders (0: it
    /// is not used). About 12 ms per candidate on one thread.
    pub rerank_depth: usize,
    /// Weight in rank fusion of the memories of the time a query names
    /// ("on 8 May 2023", "last week": see [`crate::when`]), ranked by
    /// meaning (0: dates in queries are not looked at).
    pub date_weight: f64,
    /// Weight in rank fusion of the memories that follow a keyword match
    /// in a thread: stored right after it (same namespace and kind, same
    /// device, within [`THREAD_WINDOW_MS`]) with no context of their own,
    /// as an agent storing a conversation turn by turn stores them. Such
    /// a memory is read with the one before it as its context, as a
    /// memory given its `context` is (the answer to a question shares
    /// few words with what was asked; the question shares them). When the
    /// memory after a keyword match [`asks`], the one after it is its
    /// answer and follows too, read with both. Scaled by the coverage of
    /// the query by the texts together (0: threads are not looked at).
    pub thread_weight: f64,
    /// How far the memories one step in the knowledge graph from the five
    /// best candidates are lifted: a candidate's three best neighbours (a
    /// memory a link joins to it first, then memories that mention an
    /// entity it mentions, or one a relation joins to that, by meaning)
    /// are worth this share of its score, then a half and a third of it,
    /// unless their own is better (0: the graph is not looked at). What
    /// answers the second hop of a question whose words name the first
    /// comes up behind what reaches it. Chosen on the development half of
    /// `graph_cases` (multi-hop R@5 0.182 at 0; 0.318 at 0.8; 0.409 at
    /// 0.9, 0.95 and 0.99; the single-memory controls unchanged); the
    /// held-out figures are in docs/figures.md.
    pub graph_weight: f64,
    /// Rank every vector of the namespace exactly for recall's list by
    /// meaning, instead of the nearest by sign bits first: slower in
    /// proportion to the corpus; for checking the fast path's answers.
    pub exact_search: bool,
}

/// How soon after a memory the next one of its device must be stored to
/// follow it in a thread (see [`RankingSettings::thread_weight`]).
pub const THREAD_WINDOW_MS: i64 = 10 * 60 * 1000;

/// Whether a memory in a thread asks: a sentence of it ends with a `?`
/// ("Oh nice, how was it?"), not only holds one (`/customers?id=`). What
/// follows it is its answer, read with what it asks about.
pub fn asks(text: &str) -> bool {
    let text = text.trim_end();
    text.ends_with('?') || text.contains("? ")
}

impl Default for RankingSettings {
    fn default() -> Self {
        RankingSettings {
            episodic_recency: 0.30,
            semantic_recency: 0.10,
            procedural_recency: 0.0,
            corrected_penalty: 0.5,
            dense_weight: 1.0,
            text_weight: 3.0,
            keyword_coverage: 4.0,
            rerank_depth: 0,
            date_weight: 1.0,
            thread_weight: 1.0,
            graph_weight: 0.95,
            exact_search: false,
        }
    }
}

impl RankingSettings {
    /// The recency lift of `kind`.
    pub fn recency_weight(&self, kind: MemoryKind) -> f64 {
        match kind {
            MemoryKind::Episodic => self.episodic_recency,
            MemoryKind::Semantic => self.semantic_recency,
            MemoryKind::Procedural => self.procedural_recency,
        }
    }
}

/// `2^(-days / half_life)`: 1 at `since`, 0.5 one half-life later.
pub fn freshness(since: Timestamp, now: Timestamp, half_life_days: f64) -> f64 {
    1.0 - decayed(now.days_since(since), half_life_days)
}

/// The factor recency multiplies a score by: `1 + weight · freshness`, with
/// the kind's weight and half-life.
pub fn recency_boost(
    kind: MemoryKind,
    created_at: Timestamp,
    now: Timestamp,
    staleness: &StalenessSettings,
    ranking: &RankingSettings,
) -> f64 {
    1.0 + ranking.recency_weight(kind) * freshness(created_at, now, staleness.half_life_days(kind))
}

/// How much to trust a memory now: the confidence it was stored with, times
/// the larger of its freshness since it was last confirmed (stored again,
/// validated) and an evidence floor `evidence / (evidence + 1)`, which never
/// decays: a memory confirmed often stays credible however old.
pub fn confidence(
    stated: f64,
    evidence: i64,
    last_confirmed: Timestamp,
    now: Timestamp,
    half_life_days: f64,
) -> f64 {
    let evidence = evidence.max(1) as f64;
    let floor = evidence / (evidence + 1.0);
    stated.clamp(0.0, 1.0) * freshness(last_confirmed, now, half_life_days).max(floor)
}

/// The label of a staleness score.
pub fn staleness_label(score: f64, settings: &StalenessSettings) -> Staleness {
    if score >= settings.stale_threshold {
        Staleness::Stale
    } else if score >= settings.aging_threshold {
        Staleness::Aging
    } else {
        Staleness::Fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DAY_MILLIS;

    fn usage(kind: MemoryKind) -> Usage {
        Usage {
            kind,
            created_at: Timestamp(0),
            access_count: 0,
            last_access: None,
            last_validated: None,
            evidence: 1,
        }
    }

    fn at_day(days: i64) -> Timestamp {
        Timestamp(days * DAY_MILLIS)
    }

    fn check(usage: Usage, day: i64, score: f64, label: Staleness) {
        let settings = StalenessSettings::default();
        let got = staleness(&usage, at_day(day), &settings);
        assert!((got - score).abs() < 0.005, "{usage:?} at day {day}: {got}, want {score}");
        assert_eq!(staleness_label(got, &settings), label, "{usage:?} at day {day}");
    }

    #[test]
    fn staleness_at_chosen_ages() {
        check(usage(MemoryKind::Episodic), 0, 0.10, Staleness::Fresh);
        check(usage(MemoryKind::Episodic), 30, 0.55, Staleness::Aging);
        check(usage(MemoryKind::Episodic), 90, 0.8875, Staleness::Stale);
        check(usage(MemoryKind::Semantic), 90, 0.364, Staleness::Fresh);
        check(usage(MemoryKind::Semantic), 365, 0.779, Staleness::Stale);
        check(usage(MemoryKind::Procedural), 365, 0.55, Staleness::Aging);
    }

    #[test]
    fn use_and_validation_keep_a_memory_fresh() {
        let used = Usage {
            access_count: 9,
            last_access: Some(at_day(89)),
            last_validated: Some(at_day(88)),
            ..usage(MemoryKind::Episodic)
        };
        check(
            used,
            90,
            0.40 * 0.875 + 0.25 * decayed(1.0, 30.0) + 0.25 * decayed(2.0, 30.0) + 0.01,
            Staleness::Fresh,
        );
    }

    #[test]
    fn recency_lifts_new_episodes_most_and_procedures_not_at_all() {
        let (staleness, ranking) = (StalenessSettings::default(), RankingSettings::default());
        let boost = |kind, days| recency_boost(kind, at_day(0), at_day(days), &staleness, &ranking);
        for (kind, days, expect) in [
            (MemoryKind::Episodic, 0, 1.30),
            (MemoryKind::Episodic, 30, 1.15),
            (MemoryKind::Episodic, 300, 1.0003),
            (MemoryKind::Semantic, 0, 1.10),
            (MemoryKind::Semantic, 180, 1.05),
            (MemoryKind::Procedural, 0, 1.0),
            (MemoryKind::Procedural, 1000, 1.0),
        ] {
            let got = boost(kind, days);
            assert!((got - expect).abs() < 0.001, "{kind} at day {days}: {got}, want {expect}");
        }
    }

    #[test]
    fn confidence_decays_to_an_evidence_floor_that_grows_with_evidence() {
        for (stated, evidence, days, expect) in [
            (1.0, 1, 0, 1.0),
            (1.0, 1, 30, 0.5),
            (1.0, 1, 3650, 0.5),
            (1.0, 3, 3650, 0.75),
            (1.0, 9, 3650, 0.9),
            (0.8, 1, 0, 0.8),
            (0.8, 0, 3650, 0.4),
        ] {
            let got = confidence(stated, evidence, at_day(0), at_day(days), 30.0);
            assert!((got - expect).abs() < 1e-9, "{stated}/{evidence} at day {days}: {got}");
        }
    }

    #[test]
    fn a_question_asks_a_question_mark_in_a_link_does_not() {
        assert!(asks("Melanie: Oh nice, how was it?"));
        assert!(asks("Did you finish it? I loved the colours."));
        assert!(!asks("GET /customers?external_id= took 8 seconds."));
        assert!(!asks("Caroline: Amazing, the whole town came out."));
    }

    #[test]
    fn a_future_creation_time_is_not_negative_staleness() {
        let future = Usage { created_at: at_day(10), ..usage(MemoryKind::Episodic) };
        check(future, 0, 0.10, Staleness::Fresh);
    }
}
