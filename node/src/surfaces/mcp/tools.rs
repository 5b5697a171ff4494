//! The MCP tools: what each is called and does, and the translation of its
//! typed parameters into the engine's requests and of the engine's results
//! into its typed answer.

use std::sync::LazyLock;

use ferrex_core::{FieldError, MemoryKind, Namespace, StoreInput, validate};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{args, graph, params, working, working::Origin};
use crate::base::clock;
use ferrex_engine::{
    answers,
    engine::{Engine, EngineError, RecallRequest, Sources, ToolError},
};

/// What a tool does to the memory, as MCP's tool annotations tell clients
/// (a client may run a read-only tool without asking, and ask before a
/// destructive one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads only.
    ReadOnly,
    /// Reads, and may mark what it read (recall's `validate_ids` records
    /// that memories were checked, on every device); calling it again
    /// changes nothing more.
    Marks,
    /// Adds to the memory; calling it again may add again (or grow the
    /// evidence of what it added).
    Additive,
    /// Removes from the memory, on every device; calling it again with the
    /// same ids changes nothing more.
    Destructive,
}

/// A tool: its name, what it does, and the schemas of its parameters and
/// its answer (generated from their Rust types).
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// Its name for people.
    pub title: &'static str,
    /// What it does to the memory.
    pub effect: Effect,
    /// What it does, for the agent.
    pub description: &'static str,
    /// JSON schema of its arguments.
    pub input: fn() -> Map<String, Value>,
    /// JSON schema of its answer.
    pub output: fn() -> Map<String, Value>,
}

/// Every tool the server offers.
pub const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "store",
        title: "Store",
        effect: Effect::Additive,
        description: "Store what you learn: `content` (an event, a how-to) or \
            `subject`+`predicate`+`object` (a fact). Repeats add evidence; a new value of a \
            single-valued fact supersedes the old; changed details correct earlier text. \
            Credentials refused unless `allow_secrets`.",
        input: args::input_schema::<params::Store>,
        output: args::output_schema::<answers::StoreAnswer>,
    },
    ToolSpec {
        name: "recall",
        title: "Recall",
        effect: Effect::Marks,
        description: "Find what is most relevant to `query` (by meaning and keywords) among \
            memories and watched files, best first, with staleness and whether a fact is \
            current. Superseded and stale ones are left out unless asked for.",
        input: args::input_schema::<params::Recall>,
        output: args::output_schema::<answers::RecallAnswer>,
    },
    ToolSpec {
        name: "forget",
        title: "Forget",
        effect: Effect::Destructive,
        description: "Forget memories by id on every paired device: their text leaves every \
            file (an offline device's when it syncs). Copies outside ferrex (transcripts, \
            backups) are not reached.",
        input: args::input_schema::<params::Forget>,
        output: args::output_schema::<answers::ForgetAnswer>,
    },
    ToolSpec {
        name: "reflect",
        title: "Reflect",
        effect: Effect::ReadOnly,
        description: "Review a namespace: stale memories, contradicting facts (also across \
            devices), entities and predicates that may be one.",
        input: args::input_schema::<params::Reflect>,
        output: args::output_schema::<answers::ReflectAnswer>,
    },
    ToolSpec {
        name: "history",
        title: "History",
        effect: Effect::ReadOnly,
        description: "How a belief evolved: the facts of a subject and predicate, or a \
            memory's versions and corrections, oldest first, with when and where.",
        input: args::input_schema::<params::History>,
        output: args::output_schema::<answers::HistoryAnswer>,
    },
    ToolSpec {
        name: "session",
        title: "Session",
        effect: Effect::Additive,
        description: "A session's working memory on every device: `push` an event, `get` the \
            latest (of one session or all), `clear`.",
        input: args::input_schema::<params::Session>,
        output: args::output_schema::<answers::working::SessionAnswer>,
    },
    ToolSpec {
        name: "task",
        title: "Tasks",
        effect: Effect::Additive,
        description: "Tasks on every device: `start` (or get a like open one), `update`, \
            `pause`, `done` with what worked, `abort` with why, `list`.",
        input: args::input_schema::<params::Task>,
        output: args::output_schema::<answers::working::TaskAnswer>,
    },
    ToolSpec {
        name: "observe",
        title: "Observe",
        effect: Effect::Additive,
        description: "Record a significant exchange (a decision, preference, fix); `recall` \
            finds it.",
        input: args::input_schema::<params::Observe>,
        output: args::output_schema::<answers::working::ObserveAnswer>,
    },
    ToolSpec {
        name: "context",
        title: "Context",
        effect: Effect::ReadOnly,
        description: "Call first in a session: open tasks, latest activity on any device, \
            decisions, facts likely out of date, contradictions; in a token budget.",
        input: args::input_schema::<params::Context>,
        output: args::output_schema::<answers::working::ContextAnswer>,
    },
    ToolSpec {
        name: "link",
        title: "Link",
        effect: Effect::Additive,
        description: "Relate two entities (created if new) or two memory ids. Stating it \
            again adds weight.",
        input: args::input_schema::<params::Link>,
        output: args::output_schema::<answers::graph::LinkAnswer>,
    },
    ToolSpec {
        name: "graph",
        title: "Graph",
        effect: Effect::ReadOnly,
        description: "Walk out from an entity or memory: nodes, and edges with weight and \
            who stated them.",
        input: args::input_schema::<params::Graph>,
        output: args::output_schema::<answers::graph::GraphAnswer>,
    },
    ToolSpec {
        name: "entity",
        title: "Entity",
        effect: Effect::ReadOnly,
        description: "Everything about an entity: aliases, facts, relations, memories \
            mentioning it.",
        input: args::input_schema::<params::Entity>,
        output: args::output_schema::<answers::graph::EntityAnswer>,
    },
    ToolSpec {
        name: "update",
        title: "Update",
        effect: Effect::Additive,
        description: "Edit a memory: new text or triple makes a new version (history keeps \
            the old); tags, confidence, importance change in place.",
        input: args::input_schema::<params::Update>,
        output: args::output_schema::<answers::graph::UpdateAnswer>,
    },
    ToolSpec {
        name: "index_files",
        title: "Index files",
        effect: Effect::Additive,
        description: "Make a folder's docs recallable on this device (Markdown by heading; \
            JSON, YAML, TOML whole), kept current: add a `path`, `remove` one, `reindex`.",
        input: args::input_schema::<params::IndexFiles>,
        output: args::output_schema::<ferrex_engine::engine::files::IndexFilesAnswer>,
    },
    ToolSpec {
        name: "stats",
        title: "Stats",
        effect: Effect::ReadOnly,
        description: "Counts by type and namespace, documents, index lag, watched files, the \
            model; `detailed` adds staleness and belief figures.",
        input: args::input_schema::<params::Stats>,
        output: args::output_schema::<answers::StatsAnswer>,
    },
];

/// A tool's schemas, as generated.
pub struct Schemas {
    /// Of its arguments.
    pub input: Map<String, Value>,
    /// Of its answer.
    pub output: Map<String, Value>,
}

/// Each tool's schemas, generated once, in the order of [`TOOLS`].
pub fn schemas() -> &'static [Schemas] {
    static SCHEMAS: LazyLock<Vec<Schemas>> = LazyLock::new(|| {
        TOOLS
            .iter()
            .map(|spec| Schemas { input: (spec.input)(), output: (spec.output)() })
            .collect()
    });
    &SCHEMAS
}

/// Runs tool `name` with `arguments`; `Err` is a message for the agent.
pub fn call(
    engine: &Engine,
    origin: &Origin,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<Value, ToolError> {
    let Some(input) = input_schema(name) else {
        let names: Vec<&str> = TOOLS.iter().map(|spec| spec.name).collect();
        return Err(FieldError::new(
            "name",
            format!("{name:?} is not a tool; tools: {}", names.join(", ")),
        )
        .into());
    };
    match name {
        "store" => answer(store(engine, origin, args::read(input, arguments)?)),
        "recall" => answer(recall(engine, origin, args::read(input, arguments)?)),
        "forget" => answer(forget(engine, args::read(input, arguments)?)),
        "reflect" => answer(reflect(engine, origin, args::read(input, arguments)?)),
        "history" => answer(history(engine, origin, args::read(input, arguments)?)),
        "session" => answer(working::session(engine, origin, args::read(input, arguments)?)),
        "task" => answer(working::task(engine, origin, args::read(input, arguments)?)),
        "observe" => answer(working::observe(engine, origin, args::read(input, arguments)?)),
        "context" => answer(working::context(engine, origin, args::read(input, arguments)?)),
        "link" => answer(graph::link(engine, origin, args::read(input, arguments)?)),
        "graph" => answer(graph::graph(engine, origin, args::read(input, arguments)?)),
        "entity" => answer(graph::entity(engine, origin, args::read(input, arguments)?)),
        "update" => answer(graph::update(engine, args::read(input, arguments)?)),
        "index_files" => answer(index_files(engine, origin, args::read(input, arguments)?)),
        "stats" => answer(stats(engine, origin, args::read(input, arguments)?)),
        _ => unreachable!("every tool in TOOLS is dispatched"),
    }
}

/// A tool's answer as the JSON it returns.
pub(crate) fn answer<T: Serialize>(outcome: Result<T, ToolError>) -> Result<Value, ToolError> {
    serde_json::to_value(outcome?).map_err(|error| ToolError::Internal(EngineError::Answer(error)))
}

/// The input schema of tool `name`, as generated once.
pub(crate) fn input_schema(name: &str) -> Option<&'static Map<String, Value>> {
    let index = TOOLS.iter().position(|spec| spec.name == name)?;
    Some(&schemas()[index].input)
}

/// An ISO-8601 time or date given as `field`.
pub(crate) fn time(
    field: &str,
    text: Option<&str>,
) -> Result<Option<ferrex_core::Timestamp>, FieldError> {
    text.map(|text| {
        clock::parse(text).ok_or_else(|| {
            FieldError::new(
                field,
                format!(
                    "{text:?} is not an ISO-8601 time or date, like 2026-11-23 or 2026-11-23T09:30:00Z"
                ),
            )
        })
    })
    .transpose()
}

/// A store request from `store`'s parameters, and whether it may hold
/// credentials.
pub(crate) fn store_input(
    origin: &Origin,
    params: params::Store,
) -> Result<(StoreInput, bool), FieldError> {
    if params.source.as_deref().is_some_and(ferrex_core::working::is_reserved_source) {
        return Err(FieldError::new(
            "source",
            "sources starting with \"ferrex:\" are ferrex's own (sessions, tasks, exchanges)",
        ));
    }
    let namespace = match (params.universal, params.namespace.as_deref()) {
        (true, Some(_)) => {
            return Err(FieldError::new(
                "universal",
                "give namespace or universal, not both (universal memories are in \"default\")",
            ));
        }
        (true, None) => Namespace::default(),
        (false, named) => origin.namespace(named)?,
    };
    let input = StoreInput {
        valid_from: time("valid_from", params.valid_from.as_deref())?,
        content: params.content,
        subject: params.subject,
        predicate: params.predicate,
        object: params.object,
        kind: params.memory_type.map(MemoryKind::from),
        namespace: Some(namespace.as_str().to_owned()),
        confidence: params.confidence,
        entities: params.entities,
        tags: params.tags,
        source: params.source,
        context: params.context,
        supersedes: params.supersedes,
    };
    Ok((input, params.allow_secrets))
}

fn store(
    engine: &Engine,
    origin: &Origin,
    params: params::Store,
) -> Result<answers::StoreAnswer, ToolError> {
    let unnamed = params.namespace.is_none() && !params.universal;
    let (mut input, allow_secrets) = store_input(origin, params)?;
    // In a shared project, a memory goes to the share when this device may
    // write it; naming the project's namespace keeps one personal
    // (docs/sharing.md).
    if unnamed
        && let Some(project) = input.namespace.as_deref().map(Namespace::parse).transpose()?
    {
        input.namespace = Some(engine.store_target(&project).as_str().to_owned());
    }
    Ok(answers::stored(&engine.store(input, allow_secrets)?))
}

fn recall(
    engine: &Engine,
    origin: &Origin,
    params: params::Recall,
) -> Result<answers::RecallAnswer, ToolError> {
    let namespaces = origin.recall_namespaces(params.namespace.as_deref())?;
    recall_over(engine, namespaces, params)
}

/// `recall` over `namespaces` (the first is the answer's `namespace`); the
/// terminal's `--all` passes every one.
pub fn recall_over(
    engine: &Engine,
    mut namespaces: Vec<Namespace>,
    params: params::Recall,
) -> Result<answers::RecallAnswer, ToolError> {
    // A shared project's recall reads its shares too (each result names
    // its namespace).
    if let Some(project) = namespaces.first() {
        for share in engine.shares_of(project) {
            if !namespaces.contains(&share) {
                namespaces.push(share);
            }
        }
    }
    if namespaces.is_empty() {
        return Ok(answers::RecallAnswer {
            namespace: String::new(),
            namespaces: Vec::new(),
            count: 0,
            results: Vec::new(),
            pending: None,
            validated: None,
            query: params.query,
        });
    }
    let query = validate::query_text("query", &params.query)?;
    let entities = validate::name_list("entities", params.entities)?;
    let (start, end) = match &params.time_range {
        None => (None, None),
        Some(range) => {
            let start = time("time_range.start", range.start.as_deref())?;
            let end = time("time_range.end", range.end.as_deref())?;
            if let (Some(start), Some(end)) = (start, end)
                && start >= end
            {
                return Err(FieldError::new("time_range", "start must be before end").into());
            }
            (start, end)
        }
    };
    let validate_ids = validate::memory_ids("validate_ids", &params.validate_ids)?;
    let diversity = match params.diversity {
        None => 0.0,
        Some(value) => validate::unit_interval("diversity", value)?,
    };
    let request = RecallRequest {
        query,
        namespace: namespaces[0].clone(),
        kinds: params
            .types
            .iter()
            .filter_map(|kind| match kind {
                params::RecallType::Episodic => Some(MemoryKind::Episodic),
                params::RecallType::Semantic => Some(MemoryKind::Semantic),
                params::RecallType::Procedural => Some(MemoryKind::Procedural),
                params::RecallType::File => None,
            })
            .collect(),
        sources: match (
            params.types.is_empty(),
            params.types.contains(&params::RecallType::File),
            params.types.iter().all(|kind| *kind == params::RecallType::File),
        ) {
            (true, ..) => Sources::Both,
            (false, true, true) => Sources::Files,
            (false, true, false) => Sources::Both,
            (false, false, _) => Sources::Memories,
        },
        path: params.path.clone(),
        limit: validate::recall_limit(params.limit)?,
        entities,
        start,
        end,
        include_stale: params.include_stale,
        include_invalidated: params.include_invalidated,
        validate_ids,
        diversity,
    };
    // A project's recall also searches the universal namespace.
    let (results, validated, backlog) = engine.recall_across(&request, &namespaces[1..])?;
    Ok(answers::RecallAnswer {
        count: results.len(),
        results: results.iter().map(answers::recalled).collect(),
        pending: (!backlog.is_empty()).then(|| answers::backlog(&backlog)),
        validated: (!request.validate_ids.is_empty()).then_some(validated),
        namespace: request.namespace.as_str().to_owned(),
        namespaces: namespaces.iter().map(|namespace| namespace.as_str().to_owned()).collect(),
        query: request.query,
    })
}

fn forget(engine: &Engine, params: params::Forget) -> Result<answers::ForgetAnswer, ToolError> {
    if params.ids.is_empty() {
        return Err(FieldError::new("ids", "must list at least one memory id").into());
    }
    let ids = validate::memory_ids("ids", &params.ids)?;
    for id in &ids {
        if let Some(row) = engine.memory(id)?
            && let Some(file) = ferrex_core::chunk::file_of(&row.tags)
                .filter(|_| ferrex_core::chunk::is_file_chunk(row.source.as_deref()))
        {
            return Err(FieldError::new(
                "ids",
                format!(
                    "{id} is a chunk of watched file {file}: change or delete the file, or \
                     exclude it (nothing was forgotten)"
                ),
            )
            .into());
        }
    }
    let outcome = engine.forget(&ids)?;
    Ok(answers::ForgetAnswer { forgotten: outcome.forgotten, unknown: outcome.unknown })
}

fn reflect(
    engine: &Engine,
    origin: &Origin,
    params: params::Reflect,
) -> Result<answers::ReflectAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let limit = validate::recall_limit(params.limit)?;
    let reflection = engine.reflect(
        &namespace,
        limit,
        params.include_stale.unwrap_or(true),
        params.include_contradictions.unwrap_or(true),
    )?;
    Ok(answers::reflection(namespace.as_str(), &reflection, &answers::device_names(engine)))
}

fn history(
    engine: &Engine,
    origin: &Origin,
    params: params::History,
) -> Result<answers::HistoryAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let id = params.id.map(|id| validate::memory_id("id", &id)).transpose()?;
    let pair = match (&id, params.subject, params.predicate) {
        (Some(_), None, None) => None,
        (Some(_), _, _) => {
            return Err(FieldError::new(
                "id",
                "give either id, or subject and predicate, not both",
            )
            .into());
        }
        (None, Some(subject), Some(predicate)) => Some((
            validate::required_text("subject", &subject, validate::MAX_NAME_BYTES)?,
            validate::required_text("predicate", &predicate, validate::MAX_NAME_BYTES)?,
        )),
        (None, Some(_), None) => {
            return Err(FieldError::new("predicate", "is missing: give it with subject").into());
        }
        (None, None, Some(_)) => {
            return Err(FieldError::new("subject", "is missing: give it with predicate").into());
        }
        (None, None, None) => {
            return Err(
                FieldError::new("id", "is missing: give id, or subject and predicate").into()
            );
        }
    };
    let entries = engine.history(
        &namespace,
        id.as_deref(),
        pair.as_ref().map(|(subject, predicate)| (subject.as_str(), predicate.as_str())),
    )?;
    Ok(answers::history(namespace.as_str(), &entries, &answers::device_names(engine)))
}

fn index_files(
    engine: &Engine,
    origin: &Origin,
    params: params::IndexFiles,
) -> Result<ferrex_engine::engine::files::IndexFilesAnswer, ToolError> {
    let path = |field: &str, text: &str| {
        crate::base::config::absolute_path(text.trim())
            .map_err(|error| FieldError::new(field, format!("{error:#}")))
    };
    let add = match params.path.as_deref() {
        Some(text) => {
            let path = path("path", text)?;
            // A repository's docs belong to its project, as the agent
            // working in it finds it.
            let namespace = match params.namespace.as_deref() {
                Some(named) => Namespace::parse(named)?,
                None => match crate::base::project::find(&path, None) {
                    Some(project) => project.namespace,
                    None => origin.namespace(None)?,
                },
            };
            Some(crate::base::config::Watch {
                namespace: namespace.as_str().to_owned(),
                path,
                share: params.share,
                include: Vec::new(),
                exclude: Vec::new(),
            })
        }
        None if params.namespace.is_some() || params.share => {
            return Err(FieldError::new(
                "path",
                "namespace and share describe a path to add: give path too",
            )
            .into());
        }
        None => None,
    };
    let remove = params.remove.as_deref().map(|text| path("remove", text)).transpose()?;
    engine.index_files(&ferrex_engine::engine::files::IndexFilesRequest {
        add,
        remove,
        reindex: params.reindex,
    })
}

fn stats(
    engine: &Engine,
    origin: &Origin,
    params: params::Stats,
) -> Result<answers::StatsAnswer, ToolError> {
    let stats = engine.stats()?;
    let detailed = if params.detailed { Some(engine.detailed_stats()?) } else { None };
    let mut answer = answers::stats(&stats, detailed.as_ref());
    if params.topics {
        let reach = ferrex_engine::engine::Reach::Of(vec![origin.namespace(None)?]);
        answer.topics = Some(answers::topics_of(engine, &reach, TOPICS)?);
    }
    Ok(answer)
}

/// Tags and entities `stats` lists with `topics`.
const TOPICS: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_closed_object() {
        for (spec, Schemas { input, output }) in TOOLS.iter().zip(schemas()) {
            assert_eq!(input["type"], "object", "{}", spec.name);
            assert_eq!(input["additionalProperties"], false, "{}", spec.name);
            assert_eq!(output["type"], "object", "{}", spec.name);
            assert!(
                output["properties"].as_object().is_some_and(|map| !map.is_empty()),
                "{}",
                spec.name
            );
        }
    }
}
