//! Memory that speaks first: the views the hooks call so that an agent is
//! told, with each prompt, what answers it (`tell`), is given the working
//! state and what it lost when a session starts or is compacted
//! (`session_start`), and stops being remembered when a session ends
//! (`session_end`); and what a person asks of it (`told`: each told
//! memory, the prompt it came with and why). None is an MCP tool: the
//! agents' tool list does not grow. Their answers are
//! `ferrex_engine::answers::telling`'s.

use ferrex_core::{FieldError, Timestamp, tell as rules, working};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    base::clock,
    surfaces::mcp::working::{Origin, token_budget},
};
use ferrex_engine::{
    answers::{
        device_names,
        telling::{
            ConsideredEntry, SessionEndAnswer, SessionStartAnswer, TellAnswer, ToldAnswer,
            ToldEntry, ToldSession,
        },
    },
    engine::{Engine, ToolError, tell::TellRequest, working::session_id},
};

/// `tell`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TellParams {
    /// The prompt, without what was private.
    pub prompt: String,
    /// The session (nothing is told twice in one).
    pub session_id: Option<String>,
    /// The budget in tokens (default `memory.tell_tokens`).
    #[schemars(range(min = 50, max = rules::MAX_TELL_TOKENS))]
    pub budget: Option<i64>,
    /// A namespace instead of the project's and `default`.
    pub namespace: Option<String>,
    /// How long the caller waits, in milliseconds: told later than that,
    /// nothing is recorded as told.
    #[schemars(range(min = 1, max = 60_000))]
    pub within_ms: Option<u64>,
}

/// `told`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToldParams {
    /// One session; every remembered session when absent.
    pub session_id: Option<String>,
}

/// `session_start`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionStartParams {
    /// The session.
    pub session_id: Option<String>,
    /// How it started: startup, resume, clear, compact.
    pub source: Option<String>,
}

/// `session_end`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionEndParams {
    /// The session.
    pub session_id: String,
}

fn session(field: &str, id: Option<&str>) -> Result<Option<String>, FieldError> {
    id.map(|id| session_id(field, id)).transpose()
}

/// `tell`: what answers the prompt, in the budget, never twice.
pub fn tell(engine: &Engine, origin: &Origin, params: TellParams) -> Result<TellAnswer, ToolError> {
    let session = session("session_id", params.session_id.as_deref())?;
    let budget = token_budget(params.budget, rules::MAX_TELL_TOKENS)?;
    let namespaces = origin.recall_namespaces(params.namespace.as_deref())?;
    let (prompt, _) = rules::strip_private(&params.prompt);
    let within = params.within_ms.map(|ms| std::time::Duration::from_millis(ms.min(60_000)));
    let request = TellRequest { prompt, namespaces: namespaces.clone(), session, budget, within };
    let names = device_names(engine);
    let telling = engine.tell(&request, &names)?;
    Ok(TellAnswer {
        text: telling.text,
        tokens: telling.tokens,
        budget: telling.budget,
        namespaces: namespaces.iter().map(|namespace| namespace.as_str().to_owned()).collect(),
        told: telling.told.iter().map(ToldEntry::from).collect(),
        considered: telling
            .considered
            .into_iter()
            .map(|considered| ConsideredEntry {
                id: considered.id,
                namespace: considered.namespace,
                why: considered.why.into(),
                outcome: considered.outcome.to_owned(),
            })
            .collect(),
        off: telling.off.map(str::to_owned),
    })
}

/// `told`: what sessions were told, and why.
pub fn told(engine: &Engine, params: ToldParams) -> Result<ToldAnswer, ToolError> {
    let session = session("session_id", params.session_id.as_deref())?;
    Ok(ToldAnswer {
        sessions: engine
            .told(session.as_deref())
            .into_iter()
            .map(|(session_id, last, told)| ToldSession {
                session_id,
                last: clock::iso(Timestamp(last)),
                told: told.iter().map(ToldEntry::from).collect(),
            })
            .collect(),
    })
}

/// The heading of what a compacted or cleared session is told again.
const RETOLD: &str = "Told earlier in this session, still standing";

/// `session_start`: the project's context (the memories it shows count as
/// told); after a compaction or a clear, also what the session was told
/// that still stands, since the model lost it. A resumed session replays
/// what its prompts were told (Claude Code keeps hook context in the
/// transcript), so it is given the context alone.
pub fn session_start(
    engine: &Engine,
    origin: &Origin,
    params: SessionStartParams,
) -> Result<SessionStartAnswer, ToolError> {
    let session = session("session_id", params.session_id.as_deref())?;
    let context = super::mcp::working::context_of(engine, origin, None)?;
    if let Some(session) = &session {
        engine.note_shown(session, &context.shown)?;
    }
    let mut text = context.fitted.text;
    let mut retold = 0;
    let lost = matches!(params.source.as_deref(), Some("compact" | "clear"));
    if lost && let Some(session) = &session {
        let names = device_names(engine);
        let standing = engine.told_standing(session, &names)?;
        let budget = engine.working_settings().context_tokens;
        let used = working::estimate_tokens(&text);
        let (ids, lines): (Vec<String>, Vec<String>) = standing.into_iter().unzip();
        let section = working::Section { title: RETOLD.to_owned(), lines: lines.clone() };
        let fitted = working::fit("", &[section], budget.max(used + 50) - used);
        // What did not fit is not known to the model any more: a prompt
        // may tell it again.
        let dropped: Vec<String> = ids
            .into_iter()
            .zip(&lines)
            .filter(|(_, line)| !fitted.text.contains(line.as_str()))
            .map(|(id, _)| id)
            .collect();
        engine.unmark_told(session, &dropped);
        if !fitted.text.is_empty() {
            retold = fitted.kept.iter().map(|(_, count)| count).sum();
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&fitted.text);
        }
    }
    Ok(SessionStartAnswer { tokens: working::estimate_tokens(&text), text, retold })
}

/// `session_end`: the session's told memories are forgotten.
pub fn session_end(
    engine: &Engine,
    params: SessionEndParams,
) -> Result<SessionEndAnswer, ToolError> {
    let session = session_id("session_id", &params.session_id)?;
    Ok(SessionEndAnswer { forgotten: engine.end_told(&session) })
}
