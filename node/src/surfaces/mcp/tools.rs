//! The MCP tools: what each is called and does, and the translation of its
//! typed parameters into the engine's requests and of the engine's results
//! into its typed answer.

use std::sync::LazyLock;

use ferrex_core::{FieldError, MemoryKind, Namespace, StoreInput, validate};
use schemars::JsonSchema;
use serde::{Serialize, de::DeserializeOwned};
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
    /// Its schemas and how it runs, from its parameters' type.
    pub call: Call,
}

/// A tool's parameters, and the answer the tool gives for them. A tool in
/// [`TOOLS`] names only its parameters' type (`Call::of`): its input
/// schema, its output schema and its dispatch all come from this one
/// pairing, so a tool's output schema is generated from the very type it
/// returns, and the compiler keeps the two together.
pub(crate) trait ToolCall: DeserializeOwned + JsonSchema {
    /// What the tool answers.
    type Answer: Serialize + JsonSchema;

    /// Runs the tool for an agent at `origin`.
    fn run(self, engine: &Engine, origin: &Origin) -> Result<Self::Answer, ToolError>;
}

/// How a tool is described and run, generated from its parameters' type.
#[derive(Clone, Copy)]
pub struct Call {
    /// JSON schema of its arguments.
    input: fn() -> Map<String, Value>,
    /// JSON schema of its answer.
    output: fn() -> Map<String, Value>,
    /// Reads its arguments and runs it.
    run: Run,
}

/// Reads a tool's arguments (checked against its input schema, the
/// `&Map`) and runs it for an agent at the `Origin`.
type Run =
    fn(&Engine, &Origin, &Map<String, Value>, Map<String, Value>) -> Result<Value, ToolError>;

impl Call {
    /// The tool whose parameters are `C`.
    const fn of<C: ToolCall>() -> Call {
        Call {
            input: args::input_schema::<C>,
            output: args::output_schema::<C::Answer>,
            run: |engine, origin, input, arguments| {
                answer(args::read::<C>(input, arguments)?.run(engine, origin))
            },
        }
    }
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
        call: Call::of::<params::Store>(),
    },
    ToolSpec {
        name: "recall",
        title: "Recall",
        effect: Effect::Marks,
        description: "Find what is most relevant to `query` (by meaning and keywords) among \
            memories and watched files, best first, with staleness and whether a fact is \
            current. Superseded and stale ones are left out unless asked for.",
        call: Call::of::<params::Recall>(),
    },
    ToolSpec {
        name: "forget",
        title: "Forget",
        effect: Effect::Destructive,
        description: "Forget memories by id on every paired device: their text leaves every \
            file (an offline device's when it syncs). Copies outside ferrex (transcripts, \
            backups) are not reached.",
        call: Call::of::<params::Forget>(),
    },
    ToolSpec {
        name: "reflect",
        title: "Reflect",
        effect: Effect::ReadOnly,
        description: "Review a namespace: stale memories, contradicting facts (also across \
            devices), entities and predicates that may be one.",
        call: Call::of::<params::Reflect>(),
    },
    ToolSpec {
        name: "history",
        title: "History",
        effect: Effect::ReadOnly,
        description: "How a belief evolved: the facts of a subject and predicate, or a \
            memory's versions and corrections, oldest first, with when and where.",
        call: Call::of::<params::History>(),
    },
    ToolSpec {
        name: "session",
        title: "Session",
        effect: Effect::Additive,
        description: "A session's working memory on every device: `push` an event, `get` the \
            latest (of one session or all), `clear`.",
        call: Call::of::<params::Session>(),
    },
    ToolSpec {
        name: "task",
        title: "Tasks",
        effect: Effect::Additive,
        description: "Tasks on every device: `start` (or get a like open one), `update`, \
            `pause`, `done` with what worked, `abort` with why, `list`.",
        call: Call::of::<params::Task>(),
    },
    ToolSpec {
        name: "observe",
        title: "Observe",
        effect: Effect::Additive,
        description: "Record a significant exchange (a decision, preference, fix); `recall` \
            finds it.",
        call: Call::of::<params::Observe>(),
    },
    ToolSpec {
        name: "context",
        title: "Context",
        effect: Effect::ReadOnly,
        description: "Call first in a session: open tasks, latest activity on any device, \
            decisions, facts likely out of date, contradictions; in a token budget.",
        call: Call::of::<params::Context>(),
    },
    ToolSpec {
        name: "link",
        title: "Link",
        effect: Effect::Additive,
        description: "Relate two entities (created if new) or two memory ids. Stating it \
            again adds weight.",
        call: Call::of::<params::Link>(),
    },
    ToolSpec {
        name: "graph",
        title: "Graph",
        effect: Effect::ReadOnly,
        description: "Walk out from an entity or memory: nodes, and edges with weight and \
            who stated them.",
        call: Call::of::<params::Graph>(),
    },
    ToolSpec {
        name: "entity",
        title: "Entity",
        effect: Effect::ReadOnly,
        description: "Everything about an entity: aliases, facts, relations, memories \
            mentioning it.",
        call: Call::of::<params::Entity>(),
    },
    ToolSpec {
        name: "update",
        title: "Update",
        effect: Effect::Additive,
        description: "Edit a memory: new text or triple makes a new version (history keeps \
            the old); tags, confidence, importance change in place.",
        call: Call::of::<params::Update>(),
    },
    ToolSpec {
        name: "index_files",
        title: "Index files",
        effect: Effect::Additive,
        description: "Make a folder's docs recallable on this device (Markdown by heading; \
            JSON, YAML, TOML whole), kept current: add a `path`, `remove` one, `reindex`.",
        call: Call::of::<params::IndexFiles>(),
    },
    ToolSpec {
        name: "stats",
        title: "Stats",
        effect: Effect::ReadOnly,
        description: "Counts by type and namespace, documents, index lag, watched files, the \
            model; `detailed` adds staleness and belief figures.",
        call: Call::of::<params::Stats>(),
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
            .map(|spec| Schemas { input: (spec.call.input)(), output: (spec.call.output)() })
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
    let Some(index) = TOOLS.iter().position(|spec| spec.name == name) else {
        let names: Vec<&str> = TOOLS.iter().map(|spec| spec.name).collect();
        return Err(FieldError::new(
            "name",
            format!("{name:?} is not a tool; tools: {}", names.join(", ")),
        )
        .into());
    };
    (TOOLS[index].call.run)(engine, origin, &schemas()[index].input, arguments)
}

/// Each tool's handler, for its parameters' type.
macro_rules! tool_calls {
    ($($params:ty => $answer:ty: $handler:expr;)*) => {$(
        impl ToolCall for $params {
            type Answer = $answer;

            fn run(self, engine: &Engine, origin: &Origin) -> Result<$answer, ToolError> {
                $handler(engine, origin, self)
            }
        }
    )*};
}

tool_calls! {
    params::Store => answers::StoreAnswer: store;
    params::Recall => answers::RecallAnswer: recall;
    params::Forget => answers::ForgetAnswer: |engine, _, params| forget(engine, params);
    params::Reflect => answers::ReflectAnswer: reflect;
    params::History => answers::HistoryAnswer: history;
    params::Session => answers::working::SessionAnswer: working::session;
    params::Task => answers::working::TaskAnswer: working::task;
    params::Observe => answers::working::ObserveAnswer: working::observe;
    params::Context => answers::working::ContextAnswer: working::context;
    params::Link => answers::graph::LinkAnswer: graph::link;
    params::Graph => answers::graph::GraphAnswer: graph::graph;
    params::Entity => answers::graph::EntityAnswer: graph::entity;
    params::Update => answers::graph::UpdateAnswer: |engine, _, params| graph::update(engine, params);
    params::IndexFiles => ferrex_engine::engine::files::IndexFilesAnswer: index_files;
    params::Stats => answers::StatsAnswer: stats;
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
    use serde_json::json;

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

    /// Every tool, called by name as an agent calls it on a real engine,
    /// answers with each field its output schema requires, of the JSON type
    /// the schema gives it, and its answer reads back as the type the table
    /// pairs with it, unchanged. (The schemas come from the types and the
    /// dispatch from the same pairing, `Call::of`; this shows the pairing is
    /// the one each tool's answer really has.)
    #[test]
    fn every_tool_answers_in_the_shape_its_output_schema_states() {
        let test = ferrex_engine::testing::TestEngine::new().expect("a test engine");
        let (engine, origin) = (&test.engine, Origin::default());
        let folder = tempfile::tempdir().expect("a folder of docs");
        std::fs::write(folder.path().join("notes.md"), "# Gateway\n\nIt listens on 8443.\n")
            .expect("a doc");
        let answer = |name, arguments| answered(engine, &origin, name, arguments);
        let stored = answer(
            "store",
            json!({"content": "The staging gateway's certificate expires in March."}),
        );
        let id = stored["id"].as_str().expect("an id").to_owned();
        answer(
            "store",
            json!({"subject": "staging gateway", "predicate": "port", "object": "8443"}),
        );
        answer("recall", json!({"query": "staging gateway certificate"}));
        answer("reflect", json!({}));
        answer("history", json!({"id": id}));
        answer("history", json!({"subject": "staging gateway", "predicate": "port"}));
        answer("session", json!({"action": "push", "session_id": "s1", "content": "Began."}));
        answer("session", json!({"action": "get", "session_id": "s1"}));
        let task = answer("task", json!({"action": "start", "title": "Renew the certificate"}));
        answer(
            "task",
            json!({"action": "done", "id": task["tasks"][0]["id"], "result": "Renewed."}),
        );
        answer("task", json!({"action": "list"}));
        answer("observe", json!({"user": "Use port 8443?", "assistant": "Yes, 8443."}));
        answer("context", json!({}));
        answer("link", json!({"from": "staging gateway", "to": "nginx", "relation": "runs_on"}));
        answer("graph", json!({"from": "staging gateway"}));
        answer("entity", json!({"name": "staging gateway"}));
        answer("update", json!({"id": id, "tags": ["tls"]}));
        let path = folder.path().to_str().expect("a UTF-8 path");
        answer("index_files", json!({"path": path}));
        answer("index_files", json!({}));
        answer("stats", json!({"detailed": true, "topics": true}));
        answer("forget", json!({"ids": [id]}));
        answer("session", json!({"action": "clear", "session_id": "s1"}));
    }

    /// Calls tool `name`, checks its answer against the tool's output schema
    /// and reads it back as `C::Answer`, where `C` must be the tool's
    /// parameters in the table; the answer.
    fn answered(engine: &Engine, origin: &Origin, name: &str, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else { panic!("{name}: arguments are an object") };
        let answer = call(engine, origin, name, arguments)
            .unwrap_or_else(|error| panic!("{name} failed: {error}"));
        let index = TOOLS.iter().position(|spec| spec.name == name).expect("a tool");
        let schema = &schemas()[index].output;
        for field in schema["required"].as_array().expect("required fields") {
            let field = field.as_str().expect("a field name");
            let value = answer.get(field).unwrap_or_else(|| panic!("{name}: no {field:?}"));
            let kinds = &schema["properties"][field]["type"];
            let kinds: Vec<&str> = match kinds {
                Value::String(kind) => vec![kind.as_str()],
                Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
                _ => panic!("{name}: {field:?} has no type in {schema:?}"),
            };
            assert!(
                kinds.iter().any(|kind| is_of(value, kind)),
                "{name}: {field:?} is {value}, not {kinds:?}"
            );
        }
        read_back(name, &answer);
        answer
    }

    /// Whether `value` is of JSON schema type `kind`.
    fn is_of(value: &Value, kind: &str) -> bool {
        match kind {
            "null" => value.is_null(),
            "boolean" => value.is_boolean(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "string" => value.is_string(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => false,
        }
    }

    /// Reads `answer` back as the answer type the table pairs with tool
    /// `name` (the one its schemas come from) and writes it again.
    fn read_back(name: &str, answer: &Value) {
        /// `answer` read back as `C::Answer` and written again, and the
        /// output schema of the tool whose parameters are `C`.
        fn again<C: ToolCall>(answer: &Value) -> (Value, Map<String, Value>)
        where
            C::Answer: serde::de::DeserializeOwned,
        {
            let typed: C::Answer = serde_json::from_value(answer.clone())
                .unwrap_or_else(|error| panic!("{error}: {answer:#}"));
            (serde_json::to_value(typed).expect("an answer"), (Call::of::<C>().output)())
        }
        let (again, output) = match name {
            "store" => again::<params::Store>(answer),
            "recall" => again::<params::Recall>(answer),
            "forget" => again::<params::Forget>(answer),
            "reflect" => again::<params::Reflect>(answer),
            "history" => again::<params::History>(answer),
            "session" => again::<params::Session>(answer),
            "task" => again::<params::Task>(answer),
            "observe" => again::<params::Observe>(answer),
            "context" => again::<params::Context>(answer),
            "link" => again::<params::Link>(answer),
            "graph" => again::<params::Graph>(answer),
            "entity" => again::<params::Entity>(answer),
            "update" => again::<params::Update>(answer),
            "index_files" => again::<params::IndexFiles>(answer),
            "stats" => again::<params::Stats>(answer),
            other => panic!("{other} is not a tool"),
        };
        // The type read here is the one the table's schema for `name` is
        // generated from.
        let index = TOOLS.iter().position(|spec| spec.name == name).expect("a tool");
        assert_eq!(output, schemas()[index].output, "{name}");
        assert_eq!(&again, answer, "{name} reads back unchanged");
    }
}
