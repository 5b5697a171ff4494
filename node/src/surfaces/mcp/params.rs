//! Each tool's parameters as one Rust type: its input schema is generated
//! from it (descriptions from these doc comments, numeric limits from
//! core's constants), and a call's arguments are read into it after
//! [`super::args::read`] has checked them against that schema.
//!
//! Lengths of strings and lists are core's alone ([`ferrex_core::validate`]:
//! its errors name the limit): the schemas do not repeat them, since agents
//! pay for every byte of the tool list at the start of each session.

use ferrex_core::MemoryKind;
use schemars::JsonSchema;
use serde::Deserialize;

/// The recall limit's bounds, as the schema states them.
const MAX_LIMIT: usize = ferrex_core::validate::MAX_RECALL_LIMIT;

/// A kind of memory: episodic (something that happened), semantic (a
/// fact) or procedural (how to do something).
// The variants have no doc comments: with them the schema would be a
// `oneOf` of constants rather than an `enum`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the enum's doc names each kind")]
pub enum Kind {
    Episodic,
    Semantic,
    Procedural,
}

impl From<Kind> for MemoryKind {
    fn from(kind: Kind) -> MemoryKind {
        match kind {
            Kind::Episodic => MemoryKind::Episodic,
            Kind::Semantic => MemoryKind::Semantic,
            Kind::Procedural => MemoryKind::Procedural,
        }
    }
}

/// What a recall searches: memories of a kind, or chunks of watched files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the enum's doc names each type")]
pub enum RecallType {
    Episodic,
    Semantic,
    Procedural,
    File,
}

/// `store`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Store {
    /// Free text: an event or a how-to.
    pub content: Option<String>,
    /// Subject of a fact, e.g. "api-server".
    pub subject: Option<String>,
    /// Relation of a fact, e.g. "port".
    pub predicate: Option<String>,
    /// Value of a fact, e.g. "8080".
    pub object: Option<String>,
    /// Default: semantic for a fact, else episodic.
    pub memory_type: Option<Kind>,
    /// For every project (stored in "default").
    #[serde(default)]
    pub universal: bool,
    /// Default: the project's.
    pub namespace: Option<String>,
    /// Default 1.0.
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    /// Names it is about (known or new entities).
    #[serde(default)]
    pub entities: Vec<String>,
    /// Labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Where this came from.
    pub source: Option<String>,
    /// Context to keep with it.
    pub context: Option<String>,
    /// Id of a memory this replaces (no duplicate or conflict checks).
    pub supersedes: Option<String>,
    /// When it happened or became true (ISO-8601; default now).
    pub valid_from: Option<String>,
    /// Store credentials as given.
    #[serde(default)]
    pub allow_secrets: bool,
}

/// A span of time: from `start`, before `end`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    /// ISO-8601 time or date, inclusive.
    pub start: Option<String>,
    /// ISO-8601 time or date, exclusive.
    pub end: Option<String>,
}

/// `recall`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Recall {
    /// What to look for, in words.
    pub query: String,
    /// Default: the project's.
    pub namespace: Option<String>,
    /// Only these (default all; file: watched files).
    #[serde(default)]
    pub types: Vec<RecallType>,
    /// Only chunks of files under this path.
    pub path: Option<String>,
    /// How many results, at most (default 10).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
    /// Only memories about these entities (aliases match).
    #[serde(default)]
    pub entities: Vec<String>,
    /// Only memories valid from start and before end.
    pub time_range: Option<TimeRange>,
    /// Also memories labelled stale (default false).
    #[serde(default)]
    pub include_stale: bool,
    /// Also superseded facts and text (default false).
    #[serde(default)]
    pub include_invalidated: bool,
    /// Ids you confirmed still true: kept fresh.
    #[serde(default)]
    pub validate_ids: Vec<String>,
    /// 0 (default) to 1: relevance traded for variety (MMR).
    #[schemars(range(min = 0, max = 1))]
    pub diversity: Option<f64>,
}

/// `forget`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Forget {
    /// The memories to forget, by id.
    pub ids: Vec<String>,
}

/// `reflect`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reflect {
    /// Default: the project's.
    pub namespace: Option<String>,
    /// How many of each finding, at most (default 10).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
    /// List contradicting facts (default true).
    pub include_contradictions: Option<bool>,
    /// List stale memories (default true).
    pub include_stale: Option<bool>,
}

/// `history`'s parameters: `id`, or `subject` and `predicate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct History {
    /// A memory: its fact's history, or its text's.
    pub id: Option<String>,
    /// With predicate, instead of id.
    pub subject: Option<String>,
    /// With subject, instead of id.
    pub predicate: Option<String>,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// `stats`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stats {
    /// Also staleness, fact states, entities and contradictions.
    #[serde(default)]
    pub detailed: bool,
    /// Also the project's most used tags and entities.
    #[serde(default)]
    pub topics: bool,
}

/// What `session` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the tool's description names each action")]
pub enum SessionAction {
    Push,
    Get,
    Clear,
}

/// A working-memory event's type.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the tool's description names each type")]
pub enum EventKind {
    Action,
    Observation,
    Decision,
    Error,
    Fact,
    Checkpoint,
}

impl From<EventKind> for ferrex_core::working::EventType {
    fn from(kind: EventKind) -> Self {
        use ferrex_core::working::EventType as E;
        match kind {
            EventKind::Action => E::Action,
            EventKind::Observation => E::Observation,
            EventKind::Decision => E::Decision,
            EventKind::Error => E::Error,
            EventKind::Fact => E::Fact,
            EventKind::Checkpoint => E::Checkpoint,
        }
    }
}

/// `session`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// push, get or clear.
    pub action: SessionAction,
    /// The session (push, clear; get: omit for every session).
    pub session_id: Option<String>,
    /// The event (push).
    pub content: Option<String>,
    /// Default action.
    pub event_type: Option<EventKind>,
    /// Events to get (default 10).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// What `task` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the tool's description names each action")]
pub enum TaskAction {
    Start,
    Update,
    Pause,
    Done,
    Abort,
    List,
}

/// A task's state, as `list` filters.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the tool's description names each state")]
pub enum TaskStatus {
    Active,
    Paused,
    Expired,
    Done,
    Aborted,
}

/// `task`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// start, update, pause, done, abort or list.
    pub action: TaskAction,
    /// start.
    pub title: Option<String>,
    /// start.
    pub goal: Option<String>,
    /// start.
    pub success_condition: Option<String>,
    /// start.
    pub priority: Option<String>,
    /// The task (update, pause, done, abort).
    pub id: Option<String>,
    /// Progress (update), what worked (done).
    pub result: Option<String>,
    /// Why (abort, pause).
    pub reason: Option<String>,
    /// list: these states (default open ones).
    #[serde(default)]
    pub status: Vec<TaskStatus>,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// `observe`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Observe {
    /// What the user said.
    pub user: String,
    /// What you answered or did.
    pub assistant: String,
    /// The session.
    pub session_id: Option<String>,
    /// 0-1 (default estimated).
    #[schemars(range(min = 0, max = 1))]
    pub importance: Option<f64>,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// `context`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Context {
    /// Default: the project's.
    pub namespace: Option<String>,
    /// In tokens (chars/4; default 1000).
    #[schemars(range(min = 50, max = 2400))]
    pub budget: Option<i64>,
}

/// `link`'s parameters. String limits are checked by the tool, not
/// stated here: the four graph tools keep the tool list small.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Entity name or memory id.
    pub from: String,
    /// Of the same sort as from.
    pub to: String,
    /// E.g. depends_on, part_of, owned_by, caused_by, fixed_by, derived_from.
    pub relation: String,
    /// Why.
    pub note: Option<String>,
    /// 0 to 1.
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// `graph`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Graph {
    /// Entity name or memory id.
    pub from: String,
    /// Default 2.
    #[schemars(range(min = 0, max = ferrex_core::walk::MAX_DEPTH))]
    pub depth: Option<i64>,
    /// Only these.
    #[serde(default)]
    pub relations: Vec<String>,
    /// Default both.
    pub direction: Option<Direction>,
    /// Most nodes, default 25.
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// Which way a walk follows edges.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the names say it")]
pub enum Direction {
    Out,
    In,
    Both,
}

/// `entity`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entity {
    /// A name or alias.
    pub name: String,
    /// Also superseded facts.
    #[serde(default)]
    pub include_history: bool,
    /// Default: the project's.
    pub namespace: Option<String>,
}

/// `update`'s parameters: the fields given change.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs, reason = "named as in store; the tool's description says the rest")]
pub struct Update {
    pub id: String,
    pub content: Option<String>,
    pub subject: Option<String>,
    pub predicate: Option<String>,
    pub object: Option<String>,
    /// The new set.
    pub tags: Option<Vec<String>>,
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    #[schemars(range(min = 0, max = 1))]
    pub importance: Option<f64>,
}

/// `index_files`' parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexFiles {
    /// A folder or file to watch (absolute, or ~/).
    pub path: Option<String>,
    /// Default: its repository's project.
    pub namespace: Option<String>,
    /// Sync its chunks to your other devices.
    #[serde(default)]
    pub share: bool,
    /// A watched path to stop watching.
    pub remove: Option<String>,
    /// Read every watched folder again now.
    #[serde(default)]
    pub reindex: bool,
}
