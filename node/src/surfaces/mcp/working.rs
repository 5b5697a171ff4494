//! The working-state tools — `session`, `task`, `observe`, `context` — and
//! the origin a call runs in (the agent's project). Their answers are
//! `ferrex_engine::answers::working`'s.

use ferrex_core::{FieldError, Namespace, Timestamp, project::Project, validate, working};

use super::params;
use crate::base::clock;
use ferrex_engine::{
    answers::{
        device_names,
        working::{
            ContextAnswer, ContextSection, EventEntry, ObserveAnswer, SessionAnswer, TaskAnswer,
            device, task_entry,
        },
    },
    engine::{Engine, EngineError, ToolError, working::session_id},
};

/// Where a call comes from: the agent's project, when known (the bridge's
/// working directory, an HTTP header, a hook's `cwd`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Origin {
    /// The project the agent works in.
    pub project: Option<Project>,
}

impl Origin {
    /// A call from `project`.
    pub fn of(project: Option<Project>) -> Origin {
        Origin { project }
    }

    /// The namespace a call means: the one it names, else the project's,
    /// else `default`.
    pub fn namespace(&self, named: Option<&str>) -> Result<Namespace, FieldError> {
        match (named, &self.project) {
            (Some(name), _) => Namespace::parse(name),
            (None, Some(project)) => Ok(project.namespace.clone()),
            (None, None) => Ok(Namespace::default()),
        }
    }

    /// The namespaces a recall without a named namespace searches: the
    /// project's and `default` (the universal one), or `default` alone.
    pub fn recall_namespaces(&self, named: Option<&str>) -> Result<Vec<Namespace>, FieldError> {
        let first = self.namespace(named)?;
        let mut namespaces = vec![first.clone()];
        if named.is_none() && first != Namespace::default() {
            namespaces.push(Namespace::default());
        }
        Ok(namespaces)
    }
}

/// `session`: push, get, clear.
pub fn session(
    engine: &Engine,
    origin: &Origin,
    params: params::Session,
) -> Result<SessionAnswer, ToolError> {
    // Every parameter given is checked, whichever action uses it.
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let session =
        params.session_id.as_deref().map(|id| session_id("session_id", id)).transpose()?;
    let content = params
        .content
        .as_deref()
        .map(|content| validate::required_text("content", content, validate::MAX_CONTENT_BYTES))
        .transpose()?;
    let limit = validate::recall_limit(params.limit)?;
    let mut answer = SessionAnswer {
        action: String::new(),
        namespace: namespace.as_str().to_owned(),
        id: None,
        evicted: None,
        redacted: Vec::new(),
        events: None,
        cleared: None,
    };
    let needs_session = || FieldError::new("session_id", "is missing: name the session");
    match params.action {
        params::SessionAction::Push => {
            let session = session.ok_or_else(needs_session)?;
            let content = content
                .ok_or_else(|| FieldError::new("content", "is missing: say what happened"))?;
            let kind = params.event_type.map_or(working::EventType::Action, Into::into);
            let pushed = engine.push_event(&namespace, &session, kind, &content)?;
            answer.action = "pushed".to_owned();
            answer.id = Some(pushed.id);
            answer.evicted = Some(pushed.evicted);
            answer.redacted = pushed.redacted.into_iter().map(str::to_owned).collect();
        }
        params::SessionAction::Get => {
            let events = engine.events(&namespace, session.as_deref(), limit)?;
            answer.action = "got".to_owned();
            answer.events = Some(
                events
                    .iter()
                    .map(|row| EventEntry {
                        id: row.id.clone(),
                        session_id: working::session_of(&row.tags).map(str::to_owned),
                        event_type: working::tag_value(&row.tags, "event")
                            .unwrap_or("action")
                            .to_owned(),
                        content: row.text.clone(),
                        at: clock::iso(Timestamp(row.created_at)),
                        device: device(engine, &row.created_by),
                    })
                    .collect(),
            );
        }
        params::SessionAction::Clear => {
            let session = session.ok_or_else(needs_session)?;
            answer.action = "cleared".to_owned();
            answer.cleared = Some(engine.clear_session(&namespace, &session)?);
        }
    }
    Ok(answer)
}

fn status(status: params::TaskStatus) -> working::TaskStatus {
    use params::TaskStatus as P;
    use working::TaskStatus as S;
    match status {
        P::Active => S::Active,
        P::Paused => S::Paused,
        P::Expired => S::Expired,
        P::Done => S::Done,
        P::Aborted => S::Aborted,
    }
}

/// `task`: start, update, pause, done, abort, list.
pub fn task(
    engine: &Engine,
    origin: &Origin,
    params: params::Task,
) -> Result<TaskAnswer, ToolError> {
    // Every parameter given is checked, whichever action uses it.
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let text = |field: &str, value: &Option<String>, max: usize| {
        value.as_deref().map(|value| validate::required_text(field, value, max)).transpose()
    };
    let title = text("title", &params.title, validate::MAX_NAME_BYTES)?;
    let goal = text("goal", &params.goal, validate::MAX_CONTENT_BYTES)?;
    let success =
        text("success_condition", &params.success_condition, validate::MAX_CONTENT_BYTES)?;
    let priority = text("priority", &params.priority, 32)?;
    let result = text("result", &params.result, validate::MAX_CONTENT_BYTES)?;
    let reason = text("reason", &params.reason, validate::MAX_CONTENT_BYTES)?;
    let id = params.id.as_deref().map(|id| validate::memory_id("id", id)).transpose()?;
    let now = engine.now();
    let mut answer = TaskAnswer {
        action: String::new(),
        namespace: namespace.as_str().to_owned(),
        existing: None,
        note_id: None,
        tasks: Vec::new(),
    };
    use params::TaskAction as A;
    match params.action {
        A::Start => {
            let title =
                title.ok_or_else(|| FieldError::new("title", "is missing: name the task"))?;
            // A task of a shared project goes to its share, as a memory
            // does, unless the call names the project's namespace.
            let into = if params.namespace.is_none() {
                engine.store_target(&namespace)
            } else {
                namespace.clone()
            };
            let (id, existing) = engine.start_task_into(
                &namespace,
                &into,
                &title,
                goal.as_deref(),
                success.as_deref(),
                priority.as_deref(),
            )?;
            answer.action = if existing { "found" } else { "started" }.to_owned();
            answer.existing = Some(existing);
            let task = engine.task(&namespace, &id, now)?.ok_or_else(|| {
                ToolError::Internal(EngineError::Inconsistent(format!(
                    "task {id} is not in the index"
                )))
            })?;
            answer.tasks.push(task_entry(engine, &task, now));
        }
        A::Update | A::Pause | A::Done | A::Abort => {
            let id = id.ok_or_else(|| FieldError::new("id", "is missing: which task?"))?;
            let (role, field, value, action) = match params.action {
                A::Update => (working::WorkingKind::TaskUpdate, "result", result, "updated"),
                A::Pause => (working::WorkingKind::TaskPause, "reason", reason, "paused"),
                A::Done => (working::WorkingKind::TaskDone, "result", result, "done"),
                _ => (working::WorkingKind::TaskAbort, "reason", reason, "aborted"),
            };
            let note = match value {
                Some(note) => note,
                None if role == working::WorkingKind::TaskPause => "paused".to_owned(),
                None => {
                    return Err(FieldError::new(
                        field,
                        format!("is missing: {action} needs a {field}"),
                    )
                    .into());
                }
            };
            let (note_id, task) = engine.note_task(&namespace, &id, role, &note)?;
            answer.action = action.to_owned();
            answer.note_id = Some(note_id);
            answer.tasks.push(task_entry(engine, &task, engine.now()));
        }
        A::List => {
            let wanted: Vec<working::TaskStatus> = if params.status.is_empty() {
                vec![
                    working::TaskStatus::Active,
                    working::TaskStatus::Paused,
                    working::TaskStatus::Expired,
                ]
            } else {
                params.status.into_iter().map(status).collect()
            };
            answer.action = "listed".to_owned();
            answer.tasks = engine
                .tasks(&namespace, now)?
                .iter()
                .filter(|task| wanted.contains(&task.state.status))
                .map(|task| task_entry(engine, task, now))
                .collect();
        }
    }
    Ok(answer)
}

/// `observe`: records an exchange.
pub fn observe(
    engine: &Engine,
    origin: &Origin,
    params: params::Observe,
) -> Result<ObserveAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let user = validate::required_text("user", &params.user, validate::MAX_CONTENT_BYTES)?;
    let assistant =
        validate::required_text("assistant", &params.assistant, validate::MAX_CONTENT_BYTES)?;
    let session =
        params.session_id.as_deref().map(|id| session_id("session_id", id)).transpose()?;
    let importance =
        params.importance.map(|value| validate::unit_interval("importance", value)).transpose()?;
    let (stored, importance) =
        engine.observe(&namespace, &user, &assistant, session.as_deref(), importance)?;
    Ok(ObserveAnswer {
        id: stored.id,
        status: if stored.duplicate { "duplicate" } else { "stored" }.to_owned(),
        importance,
        namespace: namespace.as_str().to_owned(),
    })
}

/// `context`: what an agent should know when a session starts.
pub fn context(
    engine: &Engine,
    origin: &Origin,
    params: params::Context,
) -> Result<ContextAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let budget = token_budget(params.budget, working::MAX_CONTEXT_TOKENS)?;
    let project = project_of(origin, params.namespace.as_deref(), &namespace);
    let context = context_in(engine, &namespace, project.as_deref(), budget)?;
    Ok(ContextAnswer {
        namespace: namespace.as_str().to_owned(),
        project,
        text: context.fitted.text,
        tokens: context.fitted.tokens,
        budget: context.budget,
        sections: context
            .fitted
            .kept
            .into_iter()
            .map(|(title, items)| ContextSection { title, items })
            .collect(),
        left_out: context.fitted.left_out,
    })
}

/// A `budget` in tokens, if given: from 50 to `max`.
pub fn token_budget(budget: Option<i64>, max: usize) -> Result<Option<usize>, FieldError> {
    match budget {
        None => Ok(None),
        Some(budget) if (50..=max as i64).contains(&budget) => Ok(Some(budget as usize)),
        Some(budget) => {
            Err(FieldError::new("budget", format!("must be between 50 and {max}, not {budget}")))
        }
    }
}

/// The project a context names: the origin's, unless another namespace
/// was named.
fn project_of(origin: &Origin, named: Option<&str>, namespace: &Namespace) -> Option<String> {
    origin
        .project
        .as_ref()
        .filter(|project| named.is_none() || project.namespace == *namespace)
        .map(|project| project.name.clone())
}

/// The session-start context of the origin's project (the default budget
/// when `budget` is `None`).
pub fn context_of(
    engine: &Engine,
    origin: &Origin,
    budget: Option<usize>,
) -> Result<ferrex_engine::engine::working::SessionContext, ToolError> {
    let namespace = origin.namespace(None)?;
    let project = project_of(origin, None, &namespace);
    context_in(engine, &namespace, project.as_deref(), budget)
}

fn context_in(
    engine: &Engine,
    namespace: &Namespace,
    project: Option<&str>,
    budget: Option<usize>,
) -> Result<ferrex_engine::engine::working::SessionContext, ToolError> {
    let budget = budget.unwrap_or(engine.working_settings().context_tokens);
    let names = device_names(engine);
    let me = engine.replica().device().to_owned();
    let name = |id: &str| {
        if id == me {
            "this device".to_owned()
        } else {
            names(id).unwrap_or_else(|| format!("device {}", &id[..id.len().min(8)]))
        }
    };
    engine.session_context(namespace, project, budget, &name)
}

#[cfg(test)]
mod agent_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_namespace_wins_then_the_project_then_default() {
        let project = Project::of_remote("git@github.com:acme/api.git");
        let origin = Origin::of(project);
        assert_eq!(origin.namespace(None).unwrap().as_str(), "github.com.acme.api");
        assert_eq!(origin.namespace(Some("notes")).unwrap().as_str(), "notes");
        assert_eq!(
            origin.recall_namespaces(None).unwrap(),
            [Namespace::parse("github.com.acme.api").unwrap(), Namespace::default()]
        );
        assert_eq!(origin.recall_namespaces(Some("notes")).unwrap().len(), 1);
        let nowhere = Origin::default();
        assert_eq!(nowhere.namespace(None).unwrap(), Namespace::default());
        assert_eq!(nowhere.recall_namespaces(None).unwrap(), [Namespace::default()]);
        assert!(origin.namespace(Some("bad name")).is_err());
    }
}
