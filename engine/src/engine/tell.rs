//! Telling an agent, with its prompt, the memories that answer it
//! (`ferrex_core::tell` holds the judgements): recall's candidates over the
//! project, its shares and `default`, each judged against the bar by its
//! similarity to the prompt and the prompt's words it holds; what the
//! session was told already left out unless it changed; the rest fitted
//! into the budget, counted as used, and remembered for the session.
//!
//! What sessions were told lives in this node's memory only (bounded, a
//! day): it is about one agent's conversation on this machine, not a
//! memory to sync.

use std::collections::BTreeMap;

use ferrex_core::{
    MemoryKind, Namespace, cosine, rank,
    tell::{self, TellLine, Told, Why},
    working,
};

use super::{Engine, RecallRequest, Sources, ToolError, lock, working::ago};
use crate::derived::index::{IndexResult, MemoryRow};

/// Candidates judged per prompt (recall's best of each namespace).
const CANDIDATES: usize = 8;
/// The most of a prompt that is searched, in characters.
pub const PROMPT_CHARS: usize = 2_000;
/// The most of a prompt kept beside what it was told, in characters.
const PROMPT_KEPT_CHARS: usize = 200;

/// What a prompt asks to be told.
#[derive(Debug, Clone, PartialEq)]
pub struct TellRequest {
    /// The prompt, without what was private.
    pub prompt: String,
    /// The namespaces read, the project's first (as recall reads them).
    pub namespaces: Vec<Namespace>,
    /// The session, so that nothing is told twice.
    pub session: Option<String>,
    /// The budget in tokens; the project's `memory.tell_tokens` when none.
    pub budget: Option<usize>,
    /// How long the caller waits: what takes longer is not recorded as
    /// told (the caller gave up and the agent never read it).
    pub within: Option<std::time::Duration>,
}

/// One candidate and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Considered {
    /// The memory.
    pub id: String,
    /// Its namespace.
    pub namespace: String,
    /// The figures it was judged by, and the rule it cleared.
    pub why: Why,
    /// What became of it: `told`, `under the bar`, `told already`, `over
    /// the budget`.
    pub outcome: &'static str,
}

/// What a prompt was told.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Telling {
    /// The text for the agent: empty when nothing is told (no header).
    pub text: String,
    /// Its tokens, counted as the session-start context counts them.
    pub tokens: usize,
    /// The budget it was fitted into.
    pub budget: usize,
    /// What was told, in order.
    pub told: Vec<Told>,
    /// Every candidate, best first, and what became of it.
    pub considered: Vec<Considered>,
    /// Why nothing was looked for (telling off, an empty prompt).
    pub off: Option<&'static str>,
    /// Whether it took longer than the caller waits (nothing recorded).
    pub late: bool,
}

impl Engine {
    /// Tells `request.prompt` what answers it (see the module's comment).
    /// `names` names a device (`None` for this one).
    pub fn tell(
        &self,
        request: &TellRequest,
        names: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Telling, ToolError> {
        let started = std::time::Instant::now();
        let Some(project) = request.namespaces.first() else {
            return Ok(Telling { off: Some("no namespace"), ..Telling::default() });
        };
        let settings = self.settings(project.as_str()).tell.clone();
        let bar = settings.bar_for(self.embedder.model_id());
        let budget = request.budget.unwrap_or(settings.tokens);
        if !settings.enabled {
            return Ok(Telling { budget, off: Some("telling is off here"), ..Telling::default() });
        }
        let prompt = working::clip(&request.prompt, PROMPT_CHARS);
        let words = rank::keywords(&prompt);
        if prompt.is_empty() || words.is_empty() {
            return Ok(Telling {
                budget,
                off: Some("a prompt without words"),
                ..Telling::default()
            });
        }
        let recall = RecallRequest {
            query: prompt.clone(),
            namespace: project.clone(),
            limit: CANDIDATES,
            sources: Sources::Both,
            ..RecallRequest::default()
        };
        let mut candidates = Vec::new();
        let mut namespaces = request.namespaces.clone();
        for share in self.shares_of(project) {
            if !namespaces.contains(&share) {
                namespaces.push(share);
            }
        }
        for namespace in &namespaces {
            let request = RecallRequest { namespace: namespace.clone(), ..recall.clone() };
            candidates.extend(self.ranked(&request)?.0);
        }
        let vector = self.embedder.embed_query(&prompt)?;
        let now = self.now();
        let session = request.session.as_deref();
        let told_before: Vec<Told> = session
            .map(|session| {
                let mut sessions = lock(&self.told);
                sessions.touch(session, now.millis());
                sessions.of(session, now.millis()).to_vec()
            })
            .unwrap_or_default();
        let index = lock(&self.index);
        // What replaces a memory this session was told.
        let earlier: Vec<String> = told_before.iter().map(|told| told.id.clone()).collect();
        let earlier_rows = index.rows(&earlier)?;
        let replaced_by: BTreeMap<String, Vec<String>> = earlier_rows
            .values()
            .map(|row| {
                let newer = row.derived.superseded_by.iter().chain(&row.derived.corrected_by);
                (row.id.clone(), newer.cloned().collect())
            })
            .collect();
        let replaces = tell::replacements(&told_before, &replaced_by);
        let stored: Vec<Option<Vec<f32>>> = candidates
            .iter()
            .map(|candidate| index.vector(&candidate.row.id))
            .collect::<IndexResult<_>>()?;
        drop(index);
        let mut judged: Vec<(Why, MemoryRow)> = Vec::new();
        for (candidate, stored) in candidates.into_iter().zip(stored) {
            // A memory not embedded yet (one a peer just sent) is embedded
            // here, as the worker would: at most the few candidates.
            let stored = match stored {
                Some(stored) => stored,
                None => self.embedder.embed(&[candidate.row.text.as_str()])?.remove(0),
            };
            let similarity = f64::from(cosine(&vector, &stored));
            let context = candidate.row.context.as_deref().unwrap_or_default();
            let keywords =
                rank::keyword_coverage(&words, &format!("{} {context}", candidate.row.text));
            judged.push((tell::judge(similarity, keywords, bar, &settings), candidate.row));
        }
        // Best by meaning first; one memory once (a project and `default`
        // never hold the same id, but be sure).
        judged.sort_by(|a, b| {
            b.0.similarity.total_cmp(&a.0.similarity).then_with(|| a.1.id.cmp(&b.1.id))
        });
        judged.dedup_by(|a, b| a.1.id == b.1.id);
        let mut telling = Telling { budget, ..Telling::default() };
        let mut lines = Vec::new();
        let mut chosen = Vec::new();
        for (why, row) in judged {
            let fingerprint = fingerprint(&row);
            let outcome = if why.rule.is_none() {
                "under the bar"
            } else if told_before
                .iter()
                .any(|told| told.id == row.id && told.fingerprint == fingerprint)
            {
                "told already"
            } else if chosen.len() >= settings.max_memories {
                "over the budget"
            } else {
                let replaces = replaces.get(&row.id).cloned();
                let line = tell::line(&self.item(&row, now.millis(), replaces.as_deref(), names));
                lines.push(line.clone());
                chosen.push(Told {
                    id: row.id.clone(),
                    fingerprint,
                    at: now.millis(),
                    prompt: Some(working::clip(&prompt, PROMPT_KEPT_CHARS)),
                    why: Some(why),
                    line,
                    replaces,
                });
                "told"
            };
            telling.considered.push(Considered {
                id: row.id.clone(),
                namespace: row.namespace.clone(),
                why,
                outcome,
            });
        }
        let (text, fitted) = tell::fit(&lines, budget);
        // Lines that did not fit were not told.
        let mut kept = Vec::new();
        for (index, told) in chosen.into_iter().enumerate() {
            if fitted.contains(&index) {
                kept.push(told);
            } else if let Some(considered) =
                telling.considered.iter_mut().find(|considered| considered.id == told.id)
            {
                considered.outcome = "over the budget";
            }
        }
        // Told to a session, and in time for the caller to pass it on: the
        // memories count as used, and the session knows them. A look from
        // a terminal (no session) records nothing.
        let in_time = request.within.is_none_or(|within| started.elapsed() < within);
        if let Some(session) = session.filter(|_| in_time && !kept.is_empty()) {
            lock(&self.index).transaction(|tx| {
                for told in &kept {
                    tx.record_access(&told.id, now.0)?;
                }
                Ok(())
            })?;
            let mut sessions = lock(&self.told);
            for told in &kept {
                sessions.record(session, told.clone(), now.millis());
            }
        }
        telling.late = !in_time;
        telling.tokens = working::estimate_tokens(&text);
        telling.text = text;
        telling.told = kept;
        Ok(telling)
    }

    /// Records that `session` was shown memories `ids` (the session-start
    /// context), so a prompt does not tell them again.
    pub fn note_shown(&self, session: &str, ids: &[String]) -> Result<(), ToolError> {
        if ids.is_empty() {
            return Ok(());
        }
        let rows = lock(&self.index).rows(ids)?;
        let now = self.now().millis();
        let mut sessions = lock(&self.told);
        for id in ids {
            let Some(row) = rows.get(id) else { continue };
            sessions.record(
                session,
                Told {
                    id: id.clone(),
                    fingerprint: fingerprint(row),
                    at: now,
                    prompt: None,
                    why: None,
                    line: working::clip(&row.text, tell::LINE_TEXT_CHARS),
                    replaces: None,
                },
                now,
            );
        }
        Ok(())
    }

    /// What `session` was told that still stands, as lines to tell again
    /// (after a compaction or a clear): a memory forgotten since is left
    /// out, one superseded or corrected since is replaced by what replaced
    /// it, marked as a change.
    /// Newest first, each with the id of the told memory it stands for;
    /// what the session-start context showed is left out (the context is
    /// given again beside it).
    pub fn told_standing(
        &self,
        session: &str,
        names: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<(String, String)>, ToolError> {
        let now = self.now().millis();
        let told: Vec<Told> = lock(&self.told)
            .of(session, now)
            .iter()
            .filter(|told| told.prompt.is_some())
            .cloned()
            .collect();
        let ids: Vec<String> = told.iter().map(|told| told.id.clone()).collect();
        let index = lock(&self.index);
        let rows = index.rows(&ids)?;
        let mut newer: Vec<String> = Vec::new();
        for row in rows.values() {
            newer
                .extend(row.derived.superseded_by.iter().chain(&row.derived.corrected_by).cloned());
        }
        let newer_rows = index.rows(&newer)?;
        drop(index);
        let mut lines = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for told in told.iter().rev() {
            let Some(row) = rows.get(&told.id) else { continue };
            let replacement = row
                .derived
                .superseded_by
                .iter()
                .chain(&row.derived.corrected_by)
                .find_map(|id| newer_rows.get(id));
            let (row, replaces) = match replacement {
                Some(newer) => (newer, Some(told.id.as_str())),
                None if row.derived.status == "superseded" => continue,
                None => (row, None),
            };
            if seen.insert(row.id.clone()) {
                lines.push((told.id.clone(), tell::line(&self.item(row, now, replaces, names))));
            }
        }
        Ok(lines)
    }

    /// Forgets that `session` was told `ids`: they did not fit when they
    /// were to be told again, so a prompt may tell them.
    pub fn unmark_told(&self, session: &str, ids: &[String]) {
        lock(&self.told).forget(session, ids);
    }

    /// What each session remembered was told, most recently active first
    /// (only `session` when given).
    pub fn told(&self, session: Option<&str>) -> Vec<(String, i64, Vec<Told>)> {
        let mut sessions = lock(&self.told);
        sessions.expire(self.now().millis());
        sessions
            .all()
            .into_iter()
            .filter(|(id, ..)| session.is_none_or(|session| session == *id))
            .map(|(id, last, told)| (id.to_owned(), last, told.to_vec()))
            .collect()
    }

    /// Forgets what `session` was told (it ended); how many memories.
    pub fn end_told(&self, session: &str) -> usize {
        lock(&self.told).end(session)
    }

    fn item<'a>(
        &self,
        row: &'a MemoryRow,
        now: i64,
        replaces: Option<&'a str>,
        names: &dyn Fn(&str) -> Option<String>,
    ) -> TellLine<'a> {
        let text = match (&row.subject, &row.predicate, &row.object) {
            (Some(subject), Some(predicate), Some(object)) => {
                let predicate = row.predicate_written.as_deref().unwrap_or(predicate);
                format!("{subject} · {predicate}: {object}")
            }
            _ => row.text.clone(),
        };
        let kind = if ferrex_core::chunk::is_file_chunk(row.source.as_deref()) {
            "file"
        } else if row.kind == MemoryKind::Semantic {
            "fact"
        } else {
            row.kind.as_str()
        };
        let mut origin = Vec::new();
        if row.namespace.starts_with(ferrex_sync::shares::SHARE_NAMESPACE_PREFIX) {
            origin.push("shared project".to_owned());
        }
        if row.created_by != self.replica.device() {
            let name = names(&row.created_by).unwrap_or_else(|| {
                format!("device {}", row.created_by.chars().take(8).collect::<String>())
            });
            origin.push(format!("from {name}"));
        }
        TellLine {
            id: &row.id,
            text,
            kind,
            age: ago(now - row.created_at),
            origin: (!origin.is_empty()).then(|| origin.join(", ")),
            replaces,
        }
    }
}

/// What identifies a memory's content as told: its text's hash and its
/// standing (a fact's status changes when it is superseded or contested).
fn fingerprint(row: &MemoryRow) -> String {
    format!("{}:{}", row.content_hash, row.derived.status)
}
