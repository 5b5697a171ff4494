//! Working state: a session's events, tasks and exchanges, as memories.
//!
//! Every record of working state is a memory like any other (so `forget`,
//! its purge, namespaces and sync apply unchanged), told apart by its
//! `source` (`ferrex:event`, `ferrex:task`, …) and tied to its session or
//! task by tags (`session:<id>`, `task:<id>`). What a task's state is —
//! active, paused, expired, done or aborted — is derived here from its
//! records, their times and ids alone, so every device with the same
//! records says the same (invariant 2); nothing about a task is ever
//! overwritten, so two devices that close one task at once both keep their
//! report.

use std::collections::BTreeSet;

use crate::{Timestamp, stem::stem};

/// The working-state settings (`[working]` in ferrex.toml).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkingSettings {
    /// Events a session keeps; a push beyond forgets the oldest.
    pub session_events: usize,
    /// An open task untouched this long (ms) is expired.
    pub task_expiry_ms: i64,
    /// The session-start context's default budget, in tokens.
    pub context_tokens: usize,
    /// Exchanges the context shows at most (the hot set; the rest are
    /// found by recall).
    pub hot_exchanges: usize,
}

impl Default for WorkingSettings {
    fn default() -> Self {
        WorkingSettings {
            session_events: 25,
            task_expiry_ms: 7 * crate::DAY_MILLIS,
            context_tokens: 1_000,
            hot_exchanges: 5,
        }
    }
}

/// The most a context may be given, in tokens: Claude Code shows a hook's
/// additional context whole up to 10,000 characters.
pub const MAX_CONTEXT_TOKENS: usize = 2_400;

/// What a working-state memory is, by its `source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkingKind {
    /// An event of a session's working memory.
    Event,
    /// A task, as started.
    Task,
    /// Progress on a task.
    TaskUpdate,
    /// A task put aside.
    TaskPause,
    /// A task finished: what worked (recallable).
    TaskDone,
    /// A task given up: the post-mortem (recallable).
    TaskAbort,
    /// A significant exchange between the user and the agent.
    Exchange,
}

impl WorkingKind {
    /// Every role.
    pub const ALL: [WorkingKind; 7] = [
        WorkingKind::Event,
        WorkingKind::Task,
        WorkingKind::TaskUpdate,
        WorkingKind::TaskPause,
        WorkingKind::TaskDone,
        WorkingKind::TaskAbort,
        WorkingKind::Exchange,
    ];

    /// The `source` its memories carry.
    pub fn source(self) -> &'static str {
        match self {
            WorkingKind::Event => "ferrex:event",
            WorkingKind::Task => "ferrex:task",
            WorkingKind::TaskUpdate => "ferrex:task-update",
            WorkingKind::TaskPause => "ferrex:task-pause",
            WorkingKind::TaskDone => "ferrex:task-done",
            WorkingKind::TaskAbort => "ferrex:task-abort",
            WorkingKind::Exchange => "ferrex:exchange",
        }
    }

    /// The role of a memory with `source`, if it is working state.
    pub fn of_source(source: Option<&str>) -> Option<WorkingKind> {
        let source = source?;
        WorkingKind::ALL.into_iter().find(|role| role.source() == source)
    }

    /// Whether `recall` finds it. Events and a task's progress notes are
    /// read through `session` and `task`; what a task taught (its result or
    /// post-mortem), the task itself and exchanges are knowledge.
    pub fn recallable(self) -> bool {
        !matches!(self, WorkingKind::Event | WorkingKind::TaskUpdate | WorkingKind::TaskPause)
    }
}

/// Sources a memory stored through `store` may not claim.
pub fn is_reserved_source(source: &str) -> bool {
    source.starts_with("ferrex:")
}

/// The tag tying a memory to session `id`.
pub fn session_tag(id: &str) -> String {
    format!("session:{id}")
}

/// The tag tying a memory to task `id`.
pub fn task_tag(id: &str) -> String {
    format!("task:{id}")
}

/// The session a memory's tags tie it to.
pub fn session_of(tags: &[String]) -> Option<&str> {
    tags.iter().find_map(|tag| tag.strip_prefix("session:"))
}

/// The task a memory's tags tie it to.
pub fn task_of(tags: &[String]) -> Option<&str> {
    tags.iter().find_map(|tag| tag.strip_prefix("task:"))
}

/// The value of the `name:` tag, if any (`event`, `priority`, `importance`).
pub fn tag_value<'a>(tags: &'a [String], name: &str) -> Option<&'a str> {
    tags.iter().find_map(|tag| tag.strip_prefix(name)?.strip_prefix(':'))
}

/// What kind of thing happened, for a session's working memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    /// Something the agent did.
    Action,
    /// Something it saw.
    Observation,
    /// Something decided, and why.
    Decision,
    /// Something that failed.
    Error,
    /// Something found to be true.
    Fact,
    /// Where the session stood (written by the hooks before a compaction
    /// and when a session ends; a newer one replaces the session's older).
    Checkpoint,
}

impl EventType {
    /// Every type, as named.
    pub const NAMES: [&'static str; 6] =
        ["action", "observation", "decision", "error", "fact", "checkpoint"];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Action => "action",
            EventType::Observation => "observation",
            EventType::Decision => "decision",
            EventType::Error => "error",
            EventType::Fact => "fact",
            EventType::Checkpoint => "checkpoint",
        }
    }

    /// The type named `name`.
    pub fn parse(name: &str) -> Option<EventType> {
        Some(match name {
            "action" => EventType::Action,
            "observation" => EventType::Observation,
            "decision" => EventType::Decision,
            "error" => EventType::Error,
            "fact" => EventType::Fact,
            "checkpoint" => EventType::Checkpoint,
            _ => return None,
        })
    }
}

/// Events of a session beyond `keep`: what a push evicts. `events` are
/// `(created_at, id, kind)`, and `keep` of them stay: the newest fifth of
/// `keep` whatever they are (what was just done), then, of the older ones,
/// the requests, decisions, errors and facts before the routine actions (a
/// tool that ran and worked), so that the next device sees what went wrong
/// and what was asked rather than the hundredth file read. Each group goes
/// oldest first; every device orders them alike (time, then id).
pub fn evicted(mut events: Vec<(Timestamp, String, EventType)>, keep: usize) -> Vec<String> {
    let excess = events.len().saturating_sub(keep);
    if excess == 0 {
        return Vec::new();
    }
    events.sort();
    let recent = (keep / 5).min(events.len());
    let older = events.len() - recent;
    let mut candidates: Vec<(bool, Timestamp, String)> = events
        .into_iter()
        .take(older)
        .map(|(time, id, kind)| (kind != EventType::Action, time, id))
        .collect();
    candidates.sort();
    candidates.into_iter().take(excess).map(|(_, _, id)| id).collect()
}

/// A task's text as stored: its title on the first line, then its goal and
/// success condition on lines of their own.
pub fn task_text(title: &str, goal: Option<&str>, success: Option<&str>) -> String {
    let mut text = title.trim().to_owned();
    if let Some(goal) = goal.map(str::trim).filter(|goal| !goal.is_empty()) {
        text.push_str("\nGoal: ");
        text.push_str(goal);
    }
    if let Some(success) = success.map(str::trim).filter(|success| !success.is_empty()) {
        text.push_str("\nDone when: ");
        text.push_str(success);
    }
    text
}

/// A task's title, goal and success condition, read back from its text.
pub fn parse_task_text(text: &str) -> (String, Option<String>, Option<String>) {
    let mut lines = text.split('\n');
    let title = lines.next().unwrap_or_default().to_owned();
    let (mut goal, mut success): (Option<String>, Option<String>) = (None, None);
    for line in lines {
        if let Some(rest) = line.strip_prefix("Goal: ") {
            goal = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("Done when: ") {
            success = Some(rest.to_owned());
        } else if let Some(open) = success.as_mut().or(goal.as_mut()) {
            // A goal or condition written over several lines keeps them.
            open.push('\n');
            open.push_str(line);
        }
    }
    (title, goal, success)
}

/// Whether two task titles name one task: their words (folded, stemmed,
/// short words left out) mostly the same.
pub fn same_task(a: &str, b: &str) -> bool {
    let (a, b) = (title_words(a), title_words(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let shared = a.intersection(&b).count();
    let union = a.union(&b).count();
    shared * 10 >= union * 7 || (shared == a.len().min(b.len()) && shared >= 2)
}

fn title_words(title: &str) -> BTreeSet<String> {
    title
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|word| word.len() >= 3 && !matches!(word.as_str(), "the" | "and" | "for" | "with"))
        .map(|word| stem(&word).to_owned())
        .collect()
}

/// A note on a task: progress, a pause, its result or its post-mortem.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskNote {
    /// The note's memory id.
    pub id: String,
    /// Which kind of note (`TaskUpdate`, `TaskPause`, `TaskDone`, `TaskAbort`).
    pub role: WorkingKind,
    /// When it was written.
    pub at: Timestamp,
    /// The device that wrote it.
    pub by: String,
    /// What it says.
    pub text: String,
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskStatus {
    /// Being worked on.
    Active,
    /// Put aside.
    Paused,
    /// Untouched for longer than the expiry (a state: nothing is deleted,
    /// and an update makes it active again).
    Expired,
    /// Finished.
    Done,
    /// Given up.
    Aborted,
}

impl TaskStatus {
    /// Every status, as named.
    pub const NAMES: [&'static str; 5] = ["active", "paused", "expired", "done", "aborted"];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Active => "active",
            TaskStatus::Paused => "paused",
            TaskStatus::Expired => "expired",
            TaskStatus::Done => "done",
            TaskStatus::Aborted => "aborted",
        }
    }

    /// The status named `name`.
    pub fn parse(name: &str) -> Option<TaskStatus> {
        Some(match name {
            "active" => TaskStatus::Active,
            "paused" => TaskStatus::Paused,
            "expired" => TaskStatus::Expired,
            "done" => TaskStatus::Done,
            "aborted" => TaskStatus::Aborted,
            _ => return None,
        })
    }

    /// Whether the task is still open (active, paused or expired).
    pub fn is_open(self) -> bool {
        matches!(self, TaskStatus::Active | TaskStatus::Paused | TaskStatus::Expired)
    }
}

/// A task's state, derived from its notes.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    /// Where it stands.
    pub status: TaskStatus,
    /// Its latest note of any kind, or its start.
    pub last_activity: Timestamp,
    /// The latest progress note's text.
    pub progress: Option<String>,
    /// The note that closed it (for done and aborted): with two closing
    /// notes from two devices, a result wins over a post-mortem (someone
    /// finished it), then the earlier, then the smaller id.
    pub outcome: Option<TaskNote>,
    /// Every closing note, oldest first: both reports when two devices
    /// closed it at once.
    pub reports: Vec<TaskNote>,
}

/// The state of a task started at `started` with `notes`, at `now`; an open
/// task untouched for `expire_after` milliseconds or more is expired.
pub fn task_state(
    started: Timestamp,
    notes: &[TaskNote],
    now: Timestamp,
    expire_after: i64,
) -> TaskState {
    let mut notes: Vec<&TaskNote> = notes.iter().collect();
    notes.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
    let last_activity = notes.iter().map(|note| note.at).fold(started, Timestamp::max);
    let reports: Vec<TaskNote> = notes
        .iter()
        .filter(|note| matches!(note.role, WorkingKind::TaskDone | WorkingKind::TaskAbort))
        .map(|note| (*note).clone())
        .collect();
    let outcome = reports
        .iter()
        .find(|note| note.role == WorkingKind::TaskDone)
        .or_else(|| reports.first())
        .cloned();
    let progress = notes
        .iter()
        .rev()
        .find(|note| note.role == WorkingKind::TaskUpdate)
        .map(|note| note.text.clone());
    let status = match &outcome {
        Some(note) if note.role == WorkingKind::TaskDone => TaskStatus::Done,
        Some(_) => TaskStatus::Aborted,
        None => {
            let paused = notes
                .iter()
                .rev()
                .find(|note| matches!(note.role, WorkingKind::TaskUpdate | WorkingKind::TaskPause))
                .is_some_and(|note| note.role == WorkingKind::TaskPause);
            if now.millis().saturating_sub(last_activity.millis()) >= expire_after {
                TaskStatus::Expired
            } else if paused {
                TaskStatus::Paused
            } else {
                TaskStatus::Active
            }
        }
    };
    TaskState { status, last_activity, progress, outcome, reports }
}

/// A text's length in tokens, estimated as its characters / 4, rounded up:
/// the usual figure for English prose and code with the tokenisers agents
/// use (it overcounts a little for plain words, so a budget holds).
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// `text` cut to at most `max` characters, on a character boundary, with
/// `…` where it was cut; line breaks become spaces.
pub fn clip(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// A part of a session-start context: a heading and its lines, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Its heading.
    pub title: String,
    /// Its lines, best first; each is one item.
    pub lines: Vec<String>,
}

/// A context fitted into a token budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The text, Markdown.
    pub text: String,
    /// Its estimated tokens ([`estimate_tokens`]).
    pub tokens: usize,
    /// Lines kept of each section, in order.
    pub kept: Vec<(String, usize)>,
    /// Lines left out for the budget.
    pub left_out: usize,
}

/// The sections under `header`, in their order, as many lines of each as
/// fit `budget` tokens: a section comes in only with its first line, and a
/// line that does not fit is left out (a shorter later one may still fit).
/// With no line to show the text is empty, header and all: a context that
/// says nothing is not given.
pub fn fit(header: &str, sections: &[Section], budget: usize) -> Fitted {
    let mut text = String::new();
    let mut left_out = 0;
    let mut kept = Vec::new();
    if estimate_tokens(header) <= budget {
        text.push_str(header);
    }
    for section in sections {
        let heading = format!("\n\n## {}\n", section.title);
        let mut count = 0;
        for line in &section.lines {
            let addition =
                if count == 0 { format!("{heading}- {line}") } else { format!("\n- {line}") };
            let candidate = format!("{text}{addition}");
            if estimate_tokens(&candidate) <= budget {
                text = candidate;
                count += 1;
            } else {
                left_out += 1;
            }
        }
        kept.push((section.title.clone(), count));
    }
    if kept.iter().all(|(_, count)| *count == 0) {
        text.clear();
    }
    let text = text.trim_start().to_owned();
    Fitted { tokens: estimate_tokens(&text), text, kept, left_out }
}

/// How much an exchange is worth keeping, 0..=1, estimated from its words
/// when the agent gives none: decisions, preferences and rules weigh most,
/// then errors and their fixes, then concrete detail (paths, numbers,
/// code); small talk weighs little.
pub fn estimate_importance(user: &str, assistant: &str) -> f64 {
    let text = format!("{user}\n{assistant}").to_lowercase();
    let has = |words: &[&str]| words.iter().any(|word| text.contains(word));
    let mut score: f64 = 0.3;
    if has(&[
        "decid",
        "decision",
        "we chose",
        "let's use",
        "prefer",
        "always ",
        "never ",
        "must ",
        "convention",
        "instead of",
        "from now on",
        "agreed",
        "remember",
    ]) {
        score += 0.3;
    }
    if has(&["error", "fail", "bug", "crash", "broke", "fix", "exception", "panic", "regression"]) {
        score += 0.15;
    }
    if text.contains('/') || text.contains('`') || text.chars().any(|c| c.is_ascii_digit()) {
        score += 0.1;
    }
    let length = text.chars().count();
    if length > 300 {
        score += 0.1;
    }
    if length < 40 {
        score -= 0.2;
    }
    score.clamp(0.0, 1.0)
}

/// Whether a predicate names something that goes out of date without
/// anyone saying so: versions, ports, paths, hosts, addresses.
pub fn is_volatile(predicate: &str) -> bool {
    predicate.split(|c: char| !c.is_alphanumeric()).any(|word| VOLATILE_WORDS.contains(&word))
}

/// The words of a predicate that make it volatile ([`is_volatile`]).
pub const VOLATILE_WORDS: [&str; 12] = [
    "version", "port", "path", "host", "url", "address", "ip", "endpoint", "dir", "server",
    "location", "release",
];

/// An event of a session, as a checkpoint reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEvent {
    /// Its type.
    pub kind: EventType,
    /// Its text.
    pub text: String,
}

/// A checkpoint of a session, extractive (no model): what it was last asked,
/// the files it touched, the commands it ran, its errors and decisions,
/// from its events (oldest first) and the user's last request. At most
/// `max` characters.
pub fn checkpoint(
    trigger: &str,
    last_request: Option<&str>,
    events: &[SessionEvent],
    max: usize,
) -> String {
    let mut parts = vec![format!("Checkpoint ({trigger}).")];
    if let Some(request) = last_request.map(str::trim).filter(|request| !request.is_empty()) {
        parts.push(format!("Last request: {}", clip(request, 240)));
    }
    let mut files: Vec<&str> = Vec::new();
    let mut commands: Vec<&str> = Vec::new();
    for event in events.iter().rev() {
        // A tool use reads "<tool> file <path> → <outcome>" or "<tool> ran
        // <command> → <outcome>"; the outcome (an error's "No such file or
        // directory") names no file.
        let head = event.text.split(" → ").next().unwrap_or("");
        for (prefix, into) in [(" file ", &mut files), (" ran ", &mut commands)] {
            if let Some(at) = head.find(prefix) {
                let value = head[at + prefix.len()..].trim();
                if !value.is_empty() && !into.contains(&value) && into.len() < 8 {
                    into.push(value);
                }
            }
        }
    }
    if !files.is_empty() {
        parts.push(format!("Files: {}.", files.join(", ")));
    }
    if !commands.is_empty() {
        let commands: Vec<String> = commands.iter().map(|command| clip(command, 80)).collect();
        parts.push(format!("Commands: {}.", commands.join("; ")));
    }
    for (kind, label) in [(EventType::Error, "Errors"), (EventType::Decision, "Decisions")] {
        let texts: Vec<String> = events
            .iter()
            .rev()
            .filter(|event| event.kind == kind)
            .take(3)
            .map(|event| clip(&event.text, 160))
            .collect();
        if !texts.is_empty() {
            parts.push(format!("{label}: {}.", texts.join("; ")));
        }
    }
    clip(&parts.join(" "), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed command's event, as Claude Code 2.1.332's hook gives it,
    /// made the checkpoint list "Files: or directory." (from the error's
    /// "No such file or directory").
    #[test]
    fn a_checkpoint_reads_files_and_commands_from_what_was_done_not_from_its_outcome() {
        let events = [
            SessionEvent {
                kind: EventType::Error,
                text: "Bash ran ls db/m.sql → exit 2: ls: cannot access 'db/m.sql': No such file or directory".into(),
            },
            SessionEvent { kind: EventType::Action, text: "Edit file src/db.rs → ok".into() },
        ];
        let text = checkpoint("Stop", None, &events, 1_000);
        assert!(text.contains("Files: src/db.rs."), "{text}");
        assert!(text.contains("Commands: ls db/m.sql."), "{text}");
        assert!(!text.contains("Files: or directory"), "{text}");
    }

    fn note(id: &str, role: WorkingKind, at: i64, by: &str) -> TaskNote {
        TaskNote { id: id.into(), role, at: Timestamp(at), by: by.into(), text: id.into() }
    }

    const HOUR: i64 = 3_600_000;

    #[test]
    fn roles_round_trip_through_their_source_and_only_notes_hide_from_recall() {
        for role in WorkingKind::ALL {
            assert_eq!(WorkingKind::of_source(Some(role.source())), Some(role));
            assert!(is_reserved_source(role.source()));
        }
        assert_eq!(WorkingKind::of_source(Some("notes.md")), None);
        assert_eq!(WorkingKind::of_source(None), None);
        let hidden: Vec<WorkingKind> =
            WorkingKind::ALL.into_iter().filter(|role| !role.recallable()).collect();
        assert_eq!(hidden, [WorkingKind::Event, WorkingKind::TaskUpdate, WorkingKind::TaskPause]);
    }

    #[test]
    fn tags_name_sessions_and_tasks() {
        let tags = vec![session_tag("s-1"), "event:decision".to_owned(), task_tag("t9")];
        assert_eq!(session_of(&tags), Some("s-1"));
        assert_eq!(task_of(&tags), Some("t9"));
        assert_eq!(tag_value(&tags, "event"), Some("decision"));
        assert_eq!(tag_value(&tags, "priority"), None);
    }

    #[test]
    fn eviction_keeps_the_newest_and_orders_ties_by_id() {
        let action = EventType::Action;
        let events = vec![
            (Timestamp(3), "c".to_owned(), action),
            (Timestamp(1), "b".to_owned(), action),
            (Timestamp(1), "a".to_owned(), action),
            (Timestamp(2), "d".to_owned(), action),
        ];
        assert_eq!(evicted(events.clone(), 2), ["a", "b"]);
        assert_eq!(evicted(events.clone(), 4), Vec::<String>::new());
        assert_eq!(evicted(events, 0).len(), 4);
    }

    #[test]
    fn routine_actions_go_before_what_failed_or_was_asked_but_the_newest_stay() {
        use EventType::{Action, Error, Observation};
        // Ten events, five kept: one (a fifth) is kept for being newest.
        let kinds =
            [Error, Action, Observation, Action, Action, Error, Action, Action, Action, Action];
        let events: Vec<_> = kinds
            .iter()
            .enumerate()
            .map(|(at, kind)| (Timestamp(at as i64), format!("e{at}"), *kind))
            .collect();
        let gone = evicted(events.clone(), 5);
        assert_eq!(gone, ["e1", "e3", "e4", "e6", "e7"]);
        let kept: Vec<_> = events.iter().filter(|(_, id, _)| !gone.contains(id)).collect();
        assert_eq!(kept.len(), 5);
        assert!(kept.iter().any(|(_, id, _)| id == "e9"), "the newest stays, an action as it is");
        // Only errors and requests left to evict: the oldest go.
        let asked: Vec<_> =
            (0..6).map(|at| (Timestamp(at), format!("q{at}"), Observation)).collect();
        assert_eq!(evicted(asked, 5), ["q0"]);
    }

    #[test]
    fn task_text_round_trips() {
        let text = task_text("Migrate the DB", Some("move to Postgres 16"), Some("all tests pass"));
        assert_eq!(
            parse_task_text(&text),
            (
                "Migrate the DB".to_owned(),
                Some("move to Postgres 16".to_owned()),
                Some("all tests pass".to_owned())
            )
        );
        assert_eq!(parse_task_text("Just a title"), ("Just a title".to_owned(), None, None));
        let multi = task_text("T", Some("line one\nline two"), None);
        assert_eq!(parse_task_text(&multi).1.as_deref(), Some("line one\nline two"));
    }

    #[test]
    fn like_titles_are_one_task_and_others_are_not() {
        let cases = [
            ("Migrate the users table to Postgres", "migrate users table to postgres", true),
            ("Migrate users table to Postgres", "Migrating the users tables to Postgres 16", true),
            ("Fix login bug", "fix the login bug on mobile", true),
            ("Fix login bug", "Write release notes", false),
            ("Migrate users table", "Migrate orders table", false),
            ("", "anything", false),
        ];
        for (a, b, same) in cases {
            assert_eq!(same_task(a, b), same, "{a:?} / {b:?}");
        }
    }

    #[test]
    fn a_task_moves_through_its_states() {
        let expiry = 24 * HOUR;
        let start = Timestamp(0);
        let active = task_state(start, &[], Timestamp(HOUR), expiry);
        assert_eq!(active.status, TaskStatus::Active);
        let paused = task_state(
            start,
            &[note("p", WorkingKind::TaskPause, 10, "a")],
            Timestamp(HOUR),
            expiry,
        );
        assert_eq!(paused.status, TaskStatus::Paused);
        let resumed = [
            note("p", WorkingKind::TaskPause, 10, "a"),
            note("u", WorkingKind::TaskUpdate, 20, "a"),
        ];
        let resumed = task_state(start, &resumed, Timestamp(HOUR), expiry);
        assert_eq!((resumed.status, resumed.progress.as_deref()), (TaskStatus::Active, Some("u")));
        let expired = task_state(
            start,
            &[note("u", WorkingKind::TaskUpdate, 20, "a")],
            Timestamp(20 + expiry),
            expiry,
        );
        assert_eq!(expired.status, TaskStatus::Expired);
        assert_eq!(expired.last_activity, Timestamp(20));
        let not_yet = task_state(
            start,
            &[note("u", WorkingKind::TaskUpdate, 20, "a")],
            Timestamp(19 + expiry),
            expiry,
        );
        assert_eq!(not_yet.status, TaskStatus::Active);
        // A closed task never expires.
        let done = task_state(
            start,
            &[note("d", WorkingKind::TaskDone, 5, "a")],
            Timestamp(100 * expiry),
            expiry,
        );
        assert_eq!(done.status, TaskStatus::Done);
    }

    #[test]
    fn closing_one_task_on_two_devices_converges_and_keeps_both_reports() {
        let done = note("z-done", WorkingKind::TaskDone, 50, "laptop");
        let abort = note("a-abort", WorkingKind::TaskAbort, 40, "desktop");
        for notes in [vec![done.clone(), abort.clone()], vec![abort.clone(), done.clone()]] {
            let state = task_state(Timestamp(0), &notes, Timestamp(60), HOUR);
            assert_eq!(state.status, TaskStatus::Done, "a result wins over a post-mortem");
            assert_eq!(state.outcome.as_ref().map(|n| n.id.as_str()), Some("z-done"));
            assert_eq!(state.reports.len(), 2);
        }
        let second = note("b-abort", WorkingKind::TaskAbort, 40, "laptop");
        let state = task_state(Timestamp(0), &[second.clone(), abort.clone()], Timestamp(60), HOUR);
        assert_eq!(state.status, TaskStatus::Aborted);
        assert_eq!(state.outcome.map(|n| n.id), Some("a-abort".to_owned()), "tie: smaller id");
    }

    #[test]
    fn fitting_respects_the_budget_and_the_order() {
        let sections = vec![
            Section { title: "Open tasks".into(), lines: vec!["a".repeat(40), "b".repeat(40)] },
            Section { title: "Latest events".into(), lines: vec!["c".repeat(400), "d".repeat(20)] },
        ];
        let fitted = fit("# Context", &sections, 50);
        assert!(fitted.tokens <= 50, "{}", fitted.tokens);
        assert_eq!(fitted.kept, [("Open tasks".to_owned(), 2), ("Latest events".to_owned(), 1)]);
        assert_eq!(fitted.left_out, 1);
        assert!(fitted.text.contains(&"d".repeat(20)) && !fitted.text.contains(&"c".repeat(400)));
        let all = fit("# Context", &sections, 10_000);
        assert_eq!(all.left_out, 0);
        assert_eq!(all.tokens, estimate_tokens(&all.text));
        assert_eq!(fit("# Context", &sections, 0).text, "");
        // Nothing to say: no header either.
        let empty = vec![Section { title: "Open tasks".into(), lines: Vec::new() }];
        let nothing = fit("# Context", &empty, 10_000);
        assert_eq!((nothing.text.as_str(), nothing.tokens, nothing.left_out), ("", 0, 0));
        let too_long = vec![Section { title: "Open tasks".into(), lines: vec!["a".repeat(400)] }];
        assert_eq!(fit("# Context", &too_long, 20).text, "", "a header alone is not a context");
    }

    #[test]
    fn tokens_and_clips() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(clip("a\n b   c", 10), "a b c");
        assert_eq!(clip("abcdefghij", 5), "abcd…");
        assert_eq!(clip("ééééé", 3).chars().count(), 3);
    }

    #[test]
    fn importance_follows_what_an_exchange_holds() {
        let decision = estimate_importance(
            "Should we keep SQLite or move to Postgres?",
            "We decided to stay on SQLite 3.45 and never run migrations at startup.",
        );
        let small_talk = estimate_importance("thanks!", "You're welcome.");
        let error = estimate_importance("the build fails", "It was a missing feature flag; fixed.");
        assert!(decision > error && error > small_talk, "{decision} {error} {small_talk}");
        assert!((0.0..=1.0).contains(&small_talk) && decision <= 1.0);
    }

    #[test]
    fn volatile_predicates() {
        for predicate in ["version", "port", "install_path", "db_host", "api_url", "runs_version"] {
            assert!(is_volatile(predicate), "{predicate}");
        }
        for predicate in ["owned_by", "depends_on", "prefers", "support"] {
            assert!(!is_volatile(predicate), "{predicate}");
        }
    }

    #[test]
    fn a_checkpoint_extracts_files_commands_errors_and_decisions() {
        let event = |kind, text: &str| SessionEvent { kind, text: text.to_owned() };
        let events = [
            event(EventType::Action, "Edit file src/db.rs → ok"),
            event(EventType::Action, "Bash ran cargo test → exit 101"),
            event(EventType::Error, "Bash ran cargo test → failed: 2 tests"),
            event(EventType::Decision, "keep the old column until the backfill ends"),
            event(EventType::Action, "Edit file src/db.rs → ok"),
        ];
        let text = checkpoint("PreCompact", Some("finish the\nmigration"), &events, 1_000);
        assert!(text.starts_with("Checkpoint (PreCompact). Last request: finish the migration"));
        assert!(text.contains("Files: src/db.rs."), "{text}");
        assert!(text.contains("Commands: cargo test."), "{text}");
        assert!(text.contains("Errors: Bash ran cargo test → failed: 2 tests."), "{text}");
        assert!(text.contains("Decisions: keep the old column"), "{text}");
        assert!(checkpoint("Stop", None, &events, 30).chars().count() <= 30);
    }
}
