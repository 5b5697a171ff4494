//! The answers of memory that speaks first: what a prompt is told
//! (`tell`), what sessions were told and why (`told`), what a session start
//! or end did.

use ferrex_core::{Timestamp, tell as rules};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::clock;

/// Why a memory cleared the bar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WhyEntry {
    /// Cosine similarity of the prompt and the memory, -1..=1.
    pub similarity: f64,
    /// Share of the prompt's keywords the memory holds, 0..=1.
    pub keywords: f64,
    /// The rule it cleared (`meaning`, `meaning and words`), if any.
    pub rule: Option<String>,
}

impl From<rules::Why> for WhyEntry {
    fn from(why: rules::Why) -> Self {
        WhyEntry {
            similarity: (why.similarity * 1_000.0).round() / 1_000.0,
            keywords: (why.keywords * 1_000.0).round() / 1_000.0,
            rule: why.rule.map(str::to_owned),
        }
    }
}

/// One memory a session was told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToldEntry {
    /// The memory.
    pub id: String,
    /// The line told.
    pub line: String,
    /// When (ISO-8601).
    pub at: String,
    /// The prompt it came with (clipped, without what was private); absent
    /// for the session-start context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Why it cleared the bar; absent for the session-start context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<WhyEntry>,
    /// The told memory it replaces (superseded or corrected since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

impl From<&rules::Told> for ToldEntry {
    fn from(told: &rules::Told) -> Self {
        ToldEntry {
            id: told.id.clone(),
            line: told.line.clone(),
            at: clock::iso(Timestamp(told.at)),
            prompt: told.prompt.clone(),
            why: told.why.map(WhyEntry::from),
            replaces: told.replaces.clone(),
        }
    }
}

/// A candidate a prompt considered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConsideredEntry {
    /// The memory.
    pub id: String,
    /// Its namespace.
    pub namespace: String,
    /// The figures it was judged by.
    pub why: WhyEntry,
    /// told, under the bar, told already, over the budget.
    pub outcome: String,
}

/// `tell`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TellAnswer {
    /// The text for the agent; empty when nothing is told.
    pub text: String,
    /// Its tokens.
    pub tokens: usize,
    /// The budget.
    pub budget: usize,
    /// The namespaces read.
    pub namespaces: Vec<String>,
    /// What was told.
    pub told: Vec<ToldEntry>,
    /// Every candidate, best by meaning first, and what became of it.
    pub considered: Vec<ConsideredEntry>,
    /// Why nothing was looked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
}

/// One session and what it was told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToldSession {
    /// The session.
    pub session_id: String,
    /// When it was last told something (ISO-8601).
    pub last: String,
    /// What it was told, oldest first.
    pub told: Vec<ToldEntry>,
}

/// `told`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToldAnswer {
    /// The sessions remembered (a day at most), most recent first.
    pub sessions: Vec<ToldSession>,
}

/// `session_start`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionStartAnswer {
    /// The text for the agent; empty when there is nothing to say.
    pub text: String,
    /// Its tokens.
    pub tokens: usize,
    /// Memories told again (a compaction or a clear).
    pub retold: usize,
}

/// `session_end`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionEndAnswer {
    /// Memories the session had been told, now forgotten.
    pub forgotten: usize,
}
