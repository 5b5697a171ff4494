//! The working-state tools' answers: `session`, `task`, `observe`,
//! `context`.

use ferrex_core::{Timestamp, working};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Device, device_names};
use crate::{
    base::clock,
    engine::{
        Engine,
        working::{Task, ago},
    },
};

/// Device `id`, named as the registry names it.
pub fn device(engine: &Engine, id: &str) -> Device {
    Device { id: id.to_owned(), name: device_names(engine)(id) }
}

/// An event of a session's working memory.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EventEntry {
    /// Its id (forget it by this).
    pub id: String,
    /// Its session.
    pub session_id: Option<String>,
    /// action, observation, decision, error, fact or checkpoint.
    pub event_type: String,
    /// What happened.
    pub content: String,
    /// When (ISO-8601).
    pub at: String,
    /// Where.
    pub device: Device,
}

/// The answer of `session`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SessionAnswer {
    /// What was done.
    pub action: String,
    /// Namespace.
    pub namespace: String,
    /// push: the event's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// push: older events forgotten to keep the session within its bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted: Option<usize>,
    /// push: credentials replaced by `[REDACTED]`, by kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// get: events, newest first, from every device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<EventEntry>>,
    /// clear: events forgotten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleared: Option<usize>,
}

/// A note that closed a task: its result or post-mortem.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// The note's memory id.
    pub id: String,
    /// done or aborted.
    pub outcome: String,
    /// What it says.
    pub text: String,
    /// When (ISO-8601).
    pub at: String,
    /// Where.
    pub device: Device,
}

/// A task and where it stands.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TaskEntry {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// When it is done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_condition: Option<String>,
    /// As given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// active, paused, expired, done or aborted.
    pub status: String,
    /// Started (ISO-8601).
    pub started_at: String,
    /// Last touched (ISO-8601).
    pub last_activity: String,
    /// Since it started (until it closed), e.g. `3 h`.
    pub elapsed: String,
    /// Started on.
    pub device: Device,
    /// The latest progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
    /// What closed it (a result wins over a post-mortem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Report>,
    /// Every closing note, oldest first (two when two devices closed it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reports: Vec<Report>,
}

/// The answer of `task`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TaskAnswer {
    /// What was done.
    pub action: String,
    /// Namespace.
    pub namespace: String,
    /// start: true when an open task like it existed (nothing was started).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing: Option<bool>,
    /// update, pause, done, abort: the note's memory id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note_id: Option<String>,
    /// The task (start and notes), or those listed.
    pub tasks: Vec<TaskEntry>,
}

fn report(engine: &Engine, note: &working::TaskNote) -> Report {
    Report {
        id: note.id.clone(),
        outcome: if note.role == working::WorkingKind::TaskDone { "done" } else { "aborted" }
            .to_owned(),
        text: note.text.clone(),
        at: clock::iso(note.at),
        device: device(engine, &note.by),
    }
}

/// A task and where it stands at `now`.
pub fn task_entry(engine: &Engine, task: &Task, now: Timestamp) -> TaskEntry {
    let end = match task.state.status {
        working::TaskStatus::Done | working::TaskStatus::Aborted => {
            task.state.outcome.as_ref().map_or(now, |note| note.at)
        }
        _ => now,
    };
    TaskEntry {
        id: task.row.id.clone(),
        title: task.title.clone(),
        goal: task.goal.clone(),
        success_condition: task.success.clone(),
        priority: task.priority.clone(),
        status: task.state.status.as_str().to_owned(),
        started_at: clock::iso(Timestamp(task.row.created_at)),
        last_activity: clock::iso(task.state.last_activity),
        elapsed: ago(end.millis() - task.row.created_at),
        device: device(engine, &task.row.created_by),
        progress: task.state.progress.clone(),
        outcome: task.state.outcome.as_ref().map(|note| report(engine, note)),
        reports: task.state.reports.iter().map(|note| report(engine, note)).collect(),
    }
}

/// The answer of `observe`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ObserveAnswer {
    /// The exchange's memory id (for a duplicate, the one recorded before).
    pub id: String,
    /// stored, or duplicate.
    pub status: String,
    /// As given or estimated, 0..1.
    pub importance: f64,
    /// Namespace.
    pub namespace: String,
}

/// A part of the context.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ContextSection {
    /// Its heading.
    pub title: String,
    /// Items of it in the text.
    pub items: usize,
}

/// The answer of `context`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ContextAnswer {
    /// Namespace.
    pub namespace: String,
    /// The project, when the call came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// What to know, Markdown.
    pub text: String,
    /// Its size in tokens (characters / 4, rounded up).
    pub tokens: usize,
    /// The budget it was fitted to.
    pub budget: usize,
    /// Its sections.
    pub sections: Vec<ContextSection>,
    /// Items left out for the budget.
    pub left_out: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task is read back as written, with its optional parts absent
    /// (regression: `reports`, left out when empty, could not be read).
    #[test]
    fn task_answers_read_back_as_written() {
        let device = || Device { id: "d1".into(), name: Some("laptop".into()) };
        let report = Report {
            id: "n1".into(),
            outcome: "done".into(),
            text: "Published".into(),
            at: "2026-12-03T08:00:00Z".into(),
            device: device(),
        };
        for (progress, outcome, reports) in
            [(None, None, Vec::new()), (Some("halfway".to_owned()), Some(report), Vec::new())]
        {
            let answer = TaskAnswer {
                action: "listed".into(),
                namespace: "default".into(),
                existing: None,
                note_id: None,
                tasks: vec![TaskEntry {
                    id: "t1".into(),
                    title: "Write the release notes".into(),
                    goal: None,
                    success_condition: None,
                    priority: None,
                    status: "active".into(),
                    started_at: "2026-12-03T08:00:00Z".into(),
                    last_activity: "2026-12-03T08:00:00Z".into(),
                    elapsed: "0 s".into(),
                    device: device(),
                    progress,
                    outcome,
                    reports,
                }],
            };
            let written = serde_json::to_value(&answer).unwrap();
            let read: TaskAnswer = serde_json::from_value(written.clone()).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), written);
        }
    }
}
