//! Working state: a session's events, a project's tasks, and the context an
//! agent is given when a session starts. Every record is a memory (see
//! `ferrex_core::working`): written without the store pipeline's judgements
//! (two alike events are two events), embedded later by the worker, and
//! forgotten like any memory.

use std::collections::HashMap;

use ferrex_core::{
    FieldError, MemoryKind, Namespace, Staleness, Timestamp,
    secrets::{self, SecretPolicy},
    staleness, staleness_label, validate,
    working::{self, EventType, Section, TaskNote, TaskState, WorkingKind},
};
use ferrex_sync::{NewMemory, NewRecords};

use super::{Engine, EngineError, ToolError, lock, new_id, usage_of};
use crate::derived::{
    index::MemoryRow,
    indexer::{self, KnownVectors},
};

/// The longest text of one line of a context, in characters.
const LINE_CHARS: usize = 200;

/// The kinds of note a task has.
const NOTES: [WorkingKind; 4] = [
    WorkingKind::TaskUpdate,
    WorkingKind::TaskPause,
    WorkingKind::TaskDone,
    WorkingKind::TaskAbort,
];

/// A task's note, from its row.
fn note_of(row: MemoryRow) -> Option<TaskNote> {
    Some(TaskNote {
        role: WorkingKind::of_source(row.source.as_deref())?,
        id: row.id,
        at: Timestamp(row.created_at),
        by: row.created_by,
        text: row.text,
    })
}

/// A memory of working state about to be written.
struct Record<'a> {
    role: WorkingKind,
    kind: MemoryKind,
    text: &'a str,
    tags: Vec<String>,
    confidence: f64,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq)]
pub struct Pushed {
    /// The event's id.
    pub id: String,
    /// Events of the session forgotten to keep it within its bound.
    pub evicted: usize,
    /// Credentials replaced by `[REDACTED]`, by rule.
    pub redacted: Vec<&'static str>,
}

/// A task with its derived state.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The task as started.
    pub row: MemoryRow,
    /// Its title.
    pub title: String,
    /// What it is for.
    pub goal: Option<String>,
    /// When it is done.
    pub success: Option<String>,
    /// Its priority, as given.
    pub priority: Option<String>,
    /// Where it stands.
    pub state: TaskState,
}

/// The context an agent is given when a session starts.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The text, fitted to the budget.
    pub fitted: working::Fitted,
    /// The budget it was fitted to.
    pub budget: usize,
    /// The memories the text shows (decisions, exchanges, facts), which a
    /// prompt of the same session is not told again.
    pub shown: Vec<String>,
}

/// Applies the credential policy to one text field: refused (nothing is
/// written), redacted, or kept.
fn screen(
    field: &str,
    text: &str,
    policy: SecretPolicy,
) -> Result<(String, Vec<&'static str>), FieldError> {
    let findings = secrets::find(text);
    if findings.is_empty() || policy == SecretPolicy::Allow {
        return Ok((text.to_owned(), Vec::new()));
    }
    if policy == SecretPolicy::Refuse {
        return Err(FieldError::new(
            field,
            format!(
                "holds what looks like a credential ({}); ferrex refuses to store credentials \
                 (set secrets = \"redact\" under [memory] to store [REDACTED] in its place)",
                findings[0].rule
            ),
        ));
    }
    let rules = findings.iter().map(|finding| finding.rule).collect();
    Ok((secrets::redact(text, &findings), rules))
}

impl Engine {
    fn write_working(
        &self,
        namespace: &Namespace,
        record: Record<'_>,
    ) -> Result<String, ToolError> {
        let _writing = lock(&self.write_lock);
        let now = self.now();
        let device = self.replica.device().to_owned();
        let id = new_id();
        let memory = NewMemory {
            kind: record.kind,
            source: Some(record.role.source().to_owned()),
            tags: record.tags,
            confidence: record.confidence,
            ..NewMemory::episode(id.clone(), record.text, &device, now)
        };
        let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
        let change = self.replica.write_new(namespace, now, &records)?;
        let mut index = lock(&self.index);
        indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())
            .map_err(|source| EngineError::NotIndexed { id: id.clone(), source })?;
        drop(index);
        self.work.notify();
        Ok(id)
    }

    /// Pushes an event to `session`'s working memory, then forgets the
    /// session's oldest events beyond its bound (and, for a checkpoint, the
    /// session's older checkpoints).
    pub fn push_event(
        &self,
        namespace: &Namespace,
        session: &str,
        kind: EventType,
        text: &str,
    ) -> Result<Pushed, ToolError> {
        let policy = self.settings(namespace.as_str()).secrets;
        let (text, redacted) = screen("content", text, policy)?;
        let session_tag = working::session_tag(session);
        let id = self.write_working(
            namespace,
            Record {
                role: WorkingKind::Event,
                kind: MemoryKind::Episodic,
                text: &text,
                tags: vec![session_tag.clone(), format!("event:{}", kind.as_str())],
                confidence: 1.0,
            },
        )?;
        let events = lock(&self.index).working(
            namespace.as_str(),
            WorkingKind::Event.source(),
            Some(&session_tag),
            usize::MAX,
        )?;
        let kind_of = |row: &MemoryRow| {
            working::tag_value(&row.tags, "event")
                .and_then(EventType::parse)
                .unwrap_or(EventType::Action)
        };
        let mut evicted = working::evicted(
            events
                .iter()
                .map(|row| (Timestamp(row.created_at), row.id.clone(), kind_of(row)))
                .collect(),
            self.settings.working.session_events,
        );
        if kind == EventType::Checkpoint {
            let older: Vec<String> = events
                .iter()
                .filter(|row| {
                    row.id != id
                        && working::tag_value(&row.tags, "event") == Some("checkpoint")
                        && !evicted.contains(&row.id)
                })
                .map(|row| row.id.clone())
                .collect();
            evicted.extend(older);
        }
        if !evicted.is_empty() {
            self.evict(&evicted)?;
        }
        Ok(Pushed { id, evicted: evicted.len(), redacted })
    }

    /// Evicts events: gone from every view, index and file like forgotten
    /// memories, but without tombstones (see `ferrex_sync::Replica::evict`),
    /// so a session's bound bounds what its documents keep live.
    fn evict(&self, ids: &[String]) -> Result<(), ToolError> {
        let _writing = lock(&self.write_lock);
        let outcome = self.replica.evict(ids, self.now())?;
        let mut index = lock(&self.index);
        for change in &outcome.changes {
            indexer::apply_change(&mut index, &self.replica, change, &KnownVectors::new())?;
        }
        if !outcome.forgotten.is_empty() {
            super::checkpoint(&index);
        }
        Ok(())
    }

    /// The latest `limit` events of `session`, or of every session of the
    /// namespace, newest first.
    pub fn events(
        &self,
        namespace: &Namespace,
        session: Option<&str>,
        limit: usize,
    ) -> Result<Vec<MemoryRow>, ToolError> {
        let tag = session.map(working::session_tag);
        Ok(lock(&self.index).working(
            namespace.as_str(),
            WorkingKind::Event.source(),
            tag.as_deref(),
            limit,
        )?)
    }

    /// Forgets every event of `session`; returns how many.
    pub fn clear_session(&self, namespace: &Namespace, session: &str) -> Result<usize, ToolError> {
        let ids: Vec<String> = self
            .events(namespace, Some(session), usize::MAX)?
            .into_iter()
            .map(|row| row.id)
            .collect();
        if ids.is_empty() {
            return Ok(0);
        }
        Ok(self.forget(&ids)?.forgotten.len())
    }

    /// Starts a task, or points at the open task it is like: the task's
    /// id, and whether it already existed.
    pub fn start_task(
        &self,
        namespace: &Namespace,
        title: &str,
        goal: Option<&str>,
        success: Option<&str>,
        priority: Option<&str>,
    ) -> Result<(String, bool), ToolError> {
        self.start_task_into(namespace, namespace, title, goal, success, priority)
    }

    /// As [`Engine::start_task`], the new task written into `into` (the
    /// project's share, for a task of a shared project that names no
    /// namespace: docs/sharing.md).
    pub fn start_task_into(
        &self,
        namespace: &Namespace,
        into: &Namespace,
        title: &str,
        goal: Option<&str>,
        success: Option<&str>,
        priority: Option<&str>,
    ) -> Result<(String, bool), ToolError> {
        let now = self.now();
        if let Some(existing) = self
            .tasks(namespace, now)?
            .into_iter()
            .find(|task| task.state.status.is_open() && working::same_task(&task.title, title))
        {
            return Ok((existing.row.id, true));
        }
        let policy = self.settings(namespace.as_str()).secrets;
        let (text, _) = screen("title", &working::task_text(title, goal, success), policy)?;
        let mut tags = vec!["task".to_owned()];
        tags.extend(priority.map(|priority| format!("priority:{priority}")));
        let id = self.write_working(
            into,
            Record {
                role: WorkingKind::Task,
                kind: MemoryKind::Procedural,
                text: &text,
                tags,
                confidence: 1.0,
            },
        )?;
        Ok((id, false))
    }

    /// Adds a note to task `id`: progress, a pause, its result (a memory of
    /// what worked, recallable) or its post-mortem (recallable too).
    pub fn note_task(
        &self,
        namespace: &Namespace,
        id: &str,
        role: WorkingKind,
        text: &str,
    ) -> Result<(String, Task), ToolError> {
        let task = self.task(namespace, id, self.now())?.ok_or_else(|| {
            FieldError::new("id", format!("{id:?} is no task of namespace {namespace:?}"))
        })?;
        let policy = self.settings(namespace.as_str()).secrets;
        let (text, _) = screen("text", text, policy)?;
        let (kind, text) = match role {
            WorkingKind::TaskDone => {
                (MemoryKind::Procedural, format!("What worked for \"{}\": {text}", task.title))
            }
            WorkingKind::TaskAbort => {
                (MemoryKind::Episodic, format!("Post-mortem of \"{}\": {text}", task.title))
            }
            _ => (MemoryKind::Episodic, text),
        };
        // With the task: in its share, when it moved there (in the project's
        // own namespace when this device may only read the share).
        let home = Namespace::parse(&task.row.namespace)?;
        let home = if self.replica.is_read_only(&home) { namespace.clone() } else { home };
        let note = self.write_working(
            &home,
            Record { role, kind, text: &text, tags: vec![working::task_tag(id)], confidence: 1.0 },
        )?;
        let task = self
            .task(namespace, id, self.now())?
            .ok_or_else(|| ToolError::Conflict("the task was forgotten".into()))?;
        Ok((note, task))
    }

    /// The namespace and its project's shares (whose tasks and facts are
    /// the project's too: docs/sharing.md).
    fn and_its_shares(&self, namespace: &Namespace) -> Vec<Namespace> {
        let mut namespaces = vec![namespace.clone()];
        namespaces.extend(self.shares_of(namespace));
        namespaces
    }

    /// Every task of the namespace (and of its shares) with its state at
    /// `now`, newest first.
    pub fn tasks(&self, namespace: &Namespace, now: Timestamp) -> Result<Vec<Task>, ToolError> {
        let namespaces = self.and_its_shares(namespace);
        let index = lock(&self.index);
        let mut rows = Vec::new();
        // Every task's notes at once: a query per kind of note, not per task.
        let mut notes: HashMap<String, Vec<TaskNote>> = HashMap::new();
        for namespace in &namespaces {
            rows.extend(index.working(
                namespace.as_str(),
                WorkingKind::Task.source(),
                None,
                usize::MAX,
            )?);
            for role in NOTES {
                for row in index.working(namespace.as_str(), role.source(), None, usize::MAX)? {
                    if let Some(task) = working::task_of(&row.tags).map(str::to_owned) {
                        notes.entry(task).or_default().extend(note_of(row));
                    }
                }
            }
        }
        drop(index);
        rows.sort_by_key(|row| std::cmp::Reverse(row.created_at));
        Ok(rows
            .into_iter()
            .map(|row| {
                let notes = notes.remove(&row.id).unwrap_or_default();
                self.task_with(row, &notes, now)
            })
            .collect())
    }

    /// Task `id` with its state at `now`.
    pub fn task(
        &self,
        namespace: &Namespace,
        id: &str,
        now: Timestamp,
    ) -> Result<Option<Task>, ToolError> {
        let namespaces = self.and_its_shares(namespace);
        let index = lock(&self.index);
        let Some(row) = index.row(id)? else { return Ok(None) };
        if !namespaces.iter().any(|namespace| row.namespace == namespace.as_str())
            || WorkingKind::of_source(row.source.as_deref()) != Some(WorkingKind::Task)
        {
            return Ok(None);
        }
        let mut notes: Vec<TaskNote> = Vec::new();
        for namespace in &namespaces {
            notes.extend(
                index
                    .tagged(
                        namespace.as_str(),
                        &NOTES.map(WorkingKind::source),
                        &working::task_tag(id),
                    )?
                    .into_iter()
                    .filter_map(note_of),
            );
        }
        drop(index);
        Ok(Some(self.task_with(row, &notes, now)))
    }

    /// The task `row` is, with its `notes`, as of `now`.
    fn task_with(&self, row: MemoryRow, notes: &[TaskNote], now: Timestamp) -> Task {
        let state = working::task_state(
            Timestamp(row.created_at),
            notes,
            now,
            self.settings.working.task_expiry_ms,
        );
        let (title, goal, success) = working::parse_task_text(&row.text);
        let priority = working::tag_value(&row.tags, "priority").map(str::to_owned);
        Task { title, goal, success, priority, state, row }
    }

    /// Records an exchange between the user and the agent, with its
    /// importance (given, or estimated from its words): through the store
    /// pipeline, so an exchange recorded twice is recorded once.
    pub fn observe(
        &self,
        namespace: &Namespace,
        user: &str,
        assistant: &str,
        session: Option<&str>,
        importance: Option<f64>,
    ) -> Result<(super::store::Stored, f64), ToolError> {
        let importance =
            importance.unwrap_or_else(|| working::estimate_importance(user, assistant));
        let mut tags = vec![format!("importance:{importance:.2}")];
        tags.extend(session.map(working::session_tag));
        let input = ferrex_core::StoreInput {
            content: Some(format!("User: {}\nAssistant: {}", user.trim(), assistant.trim())),
            kind: Some(MemoryKind::Episodic),
            namespace: Some(namespace.as_str().to_owned()),
            tags,
            source: Some(WorkingKind::Exchange.source().to_owned()),
            ..ferrex_core::StoreInput::default()
        };
        Ok((self.store(input, false)?, importance))
    }

    /// What an agent should know when it starts a session in `namespace`,
    /// within `budget` tokens: open tasks, the latest events from any
    /// device, recent decisions and exchanges, facts likely out of date,
    /// and open contradictions. `names` names devices.
    pub fn session_context(
        &self,
        namespace: &Namespace,
        project: Option<&str>,
        budget: usize,
        names: &dyn Fn(&str) -> String,
    ) -> Result<SessionContext, ToolError> {
        let now = self.now();
        let mut tasks = self.tasks(namespace, now)?;
        tasks.retain(|task| task.state.status.is_open());
        tasks.sort_by_key(|task| std::cmp::Reverse(task.state.last_activity));
        let events = self.events(namespace, None, 12)?;
        let index = lock(&self.index);
        let decisions = index.working(
            namespace.as_str(),
            WorkingKind::Event.source(),
            Some("event:decision"),
            5,
        )?;
        let exchanges =
            index.working(namespace.as_str(), WorkingKind::Exchange.source(), None, 200)?;
        let (mut contradictions, mut facts) = (Vec::new(), Vec::new());
        for namespace in self.and_its_shares(namespace) {
            contradictions.extend(index.contradictions(namespace.as_str())?);
            facts.extend(index.volatile_facts(namespace.as_str())?);
        }
        drop(index);
        // What the text may show of memories a prompt could be told.
        let mut showable: Vec<(String, String)> = Vec::new();
        for row in
            decisions.iter().chain(&exchanges).chain(&facts).chain(contradictions.iter().flatten())
        {
            showable.push((row.id.clone(), working::clip(&row.text, LINE_CHARS)));
        }
        let lines = Lines { now, names };
        let sections = vec![
            Section { title: "Open tasks".into(), lines: lines.tasks(&tasks) },
            Section { title: "Latest activity (any device)".into(), lines: lines.events(&events) },
            Section {
                title: "Recent decisions and exchanges".into(),
                lines: lines.decisions(
                    &decisions,
                    &events,
                    exchanges,
                    self.settings.working.hot_exchanges,
                ),
            },
            Section {
                title: "Facts likely out of date (check before relying on them)".into(),
                lines: lines.stale_facts(&facts, self.settings(namespace.as_str())),
            },
            Section {
                title: "Open contradictions".into(),
                lines: lines.contradictions(&contradictions),
            },
        ];
        let header = match project {
            Some(project) => format!(
                "# ferrex: where work stands in project {project} (namespace {namespace}), on this user's devices"
            ),
            None => format!(
                "# ferrex: where work stands in namespace {namespace}, on this user's devices"
            ),
        };
        let fitted = working::fit(&header, &sections, budget);
        let shown = showable
            .into_iter()
            .filter(|(id, text)| {
                fitted.text.contains(id.as_str()) || fitted.text.contains(text.as_str())
            })
            .map(|(id, _)| id)
            .collect();
        Ok(SessionContext { fitted, budget, shown })
    }
}

/// The lines of each section of a context, best first, as of `now`.
struct Lines<'a> {
    now: Timestamp,
    names: &'a dyn Fn(&str) -> String,
}

impl Lines<'_> {
    fn ago(&self, at: i64) -> String {
        ago(self.now.millis() - at)
    }

    /// Open tasks, most recently touched first (at most 8).
    fn tasks(&self, tasks: &[Task]) -> Vec<String> {
        tasks
            .iter()
            .take(8)
            .map(|task| {
                let mut line = format!(
                    "[{}] {} (id {}; {}, on {}, last touched {} ago)",
                    task.state.status.as_str(),
                    working::clip(&task.title, 100),
                    task.row.id,
                    task.priority
                        .as_deref()
                        .map_or("no priority".to_owned(), |p| format!("priority {p}")),
                    (self.names)(&task.row.created_by),
                    self.ago(task.state.last_activity.millis()),
                );
                if let Some(progress) = &task.state.progress {
                    line.push_str(&format!(": {}", working::clip(progress, 120)));
                } else if let Some(goal) = &task.goal {
                    line.push_str(&format!(": goal {}", working::clip(goal, 120)));
                }
                line
            })
            .collect()
    }

    /// The latest events, newest first, with their device and type.
    fn events(&self, events: &[MemoryRow]) -> Vec<String> {
        events
            .iter()
            .map(|row| {
                format!(
                    "{} ago on {} [{}]: {}",
                    self.ago(row.created_at),
                    (self.names)(&row.created_by),
                    working::tag_value(&row.tags, "event").unwrap_or("event"),
                    working::clip(&row.text, LINE_CHARS)
                )
            })
            .collect()
    }

    /// Decisions not among the latest events, then the `hot` exchanges
    /// worth most: importance times freshness (a 14-day half-life).
    fn decisions(
        &self,
        decisions: &[MemoryRow],
        shown: &[MemoryRow],
        mut exchanges: Vec<MemoryRow>,
        hot: usize,
    ) -> Vec<String> {
        let importance = |row: &MemoryRow| {
            working::tag_value(&row.tags, "importance")
                .and_then(|value| value.parse::<f64>().ok())
                .unwrap_or(0.5)
                * ferrex_core::scoring::freshness(Timestamp(row.created_at), self.now, 14.0)
        };
        exchanges
            .sort_by(|a, b| importance(b).total_cmp(&importance(a)).then_with(|| a.id.cmp(&b.id)));
        let line = |row: &MemoryRow| {
            format!("{} ago: {}", self.ago(row.created_at), working::clip(&row.text, LINE_CHARS))
        };
        decisions
            .iter()
            .filter(|row| !shown.iter().any(|event| event.id == row.id))
            .map(line)
            .chain(exchanges.iter().take(hot).map(line))
            .collect()
    }

    /// Volatile facts no longer fresh, stalest first (at most 5).
    fn stale_facts(
        &self,
        facts: &[MemoryRow],
        settings: &ferrex_core::MemorySettings,
    ) -> Vec<String> {
        let mut stale: Vec<(f64, String)> = facts
            .iter()
            .filter_map(|row| {
                let score = staleness(&usage_of(row), self.now, &settings.staleness);
                (staleness_label(score, &settings.staleness) != Staleness::Fresh).then(|| {
                    let checked = row.last_validated.unwrap_or(row.created_at);
                    let text = working::clip(&row.text, 140);
                    (
                        score,
                        format!("{text} (id {}; not checked for {})", row.id, self.ago(checked)),
                    )
                })
            })
            .collect();
        stale.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        stale.into_iter().take(5).map(|(_, line)| line).collect()
    }

    /// Contradicting facts, the current one first (at most 3 groups).
    fn contradictions(&self, contradictions: &[Vec<MemoryRow>]) -> Vec<String> {
        contradictions
            .iter()
            .take(3)
            .map(|facts| {
                let texts: Vec<String> = facts
                    .iter()
                    .map(|row| format!("{} (id {})", working::clip(&row.text, 80), row.id))
                    .collect();
                texts.join(" vs ")
            })
            .collect()
    }
}

/// A span of milliseconds as people say it: `40 s`, `5 min`, `3 h`, `2 d`.
pub fn ago(millis: i64) -> String {
    let seconds = millis.max(0) / 1_000;
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3_600 => format!("{} min", seconds / 60),
        3_600..86_400 => format!("{} h", seconds / 3_600),
        _ => format!("{} d", seconds / 86_400),
    }
}

/// A session id as given: 1 to 128 characters, no control characters.
pub fn session_id(field: &str, id: &str) -> Result<String, FieldError> {
    let id = validate::required_text(field, id, 128)?;
    if id.chars().any(char::is_control) {
        return Err(FieldError::new(field, "must not hold control characters"));
    }
    Ok(id)
}
