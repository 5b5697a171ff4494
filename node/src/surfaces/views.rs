//! What a person asks of their memory besides the agents' tools: a page of
//! memories by filters (`list`), one memory with all that is known of it
//! (`show`), and the tags and entities with their counts (`topics`). The
//! terminal commands and the web page call these and the tools by name
//! through [`call`], with the tools' argument checks and error contract.
//!
//! A read spans what an agent's would in the same place: the project of
//! the caller's origin and `default`, a namespace named instead, or with
//! `all` every namespace (`recall` takes `all` here too, though the agents'
//! tool does not).

use std::sync::LazyLock;

use ferrex_core::{FieldError, MemoryKind, validate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use ferrex_engine::{
    answers::{
        self, EntityCount, TopicsAnswer,
        browse::{EntityPage, Ingested, ListAnswer, MemoryEdge, Relation, ShowAnswer, browsed},
        topics_of,
    },
    engine::{Engine, ListRequest, Reach, ToolError},
};

use crate::surfaces::{
    mcp::{
        args,
        params::{self, Kind},
        tools::{self, time},
        working::Origin,
    },
    telling,
};

/// The most memories one `list` page holds.
pub const MAX_PAGE: usize = 1000;
/// A `list` page's size when none is given.
pub const DEFAULT_PAGE: usize = 50;

/// A derived status to list by.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the statuses are described where they are used")]
pub enum Status {
    Active,
    Current,
    Contested,
    Superseded,
    Any,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Current => "current",
            Status::Contested => "contested",
            Status::Superseded => "superseded",
            Status::Any => "any",
        }
    }
}

/// `list`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Namespace (default: the project's and "default").
    pub namespace: Option<String>,
    /// Every namespace.
    #[serde(default)]
    pub all: bool,
    /// Only these kinds (default: all).
    #[serde(default)]
    pub types: Vec<Kind>,
    /// Only memories with this tag.
    pub tag: Option<String>,
    /// Only memories about these entities (names).
    #[serde(default)]
    pub entities: Vec<String>,
    /// Only memories valid from this ISO-8601 time or date on.
    pub since: Option<String>,
    /// Only memories valid before this ISO-8601 time or date.
    pub until: Option<String>,
    /// Only memories of this status: active (text), current, contested or
    /// superseded (facts), or any; default any but superseded.
    pub status: Option<Status>,
    /// Page size (default 50).
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<i64>,
    /// Memories to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

/// `show`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// The memory.
    pub id: String,
}

/// `entity`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityParams {
    /// The entity.
    pub id: String,
    /// How many memories about it, at most (default 50).
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<i64>,
}

/// `topics`'s parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopicsParams {
    /// Namespace (default: the project's and "default").
    pub namespace: Option<String>,
    /// Every namespace.
    #[serde(default)]
    pub all: bool,
    /// How many tags and how many entities, at most (default 50).
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<i64>,
}

/// `ingest`'s parameters: memories brought in from elsewhere, each as the
/// `store` tool's parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestParams {
    /// The memories.
    #[schemars(length(max = MAX_PAGE))]
    pub items: Vec<Map<String, Value>>,
}

/// The views' input schemas, generated once.
struct Schemas {
    recall: Map<String, Value>,
    list: Map<String, Value>,
    show: Map<String, Value>,
    entity: Map<String, Value>,
    topics: Map<String, Value>,
    ingest: Map<String, Value>,
    tell: Map<String, Value>,
    told: Map<String, Value>,
    session_start: Map<String, Value>,
    session_end: Map<String, Value>,
}

/// Runs operation `op` (a tool or a view) with `arguments`.
pub fn call(
    engine: &Engine,
    origin: &Origin,
    op: &str,
    arguments: Map<String, Value>,
) -> Result<Value, ToolError> {
    static SCHEMAS: LazyLock<Schemas> = LazyLock::new(|| Schemas {
        recall: args::input_schema::<params::Recall>(),
        list: args::input_schema::<ListParams>(),
        show: args::input_schema::<ShowParams>(),
        entity: args::input_schema::<EntityParams>(),
        topics: args::input_schema::<TopicsParams>(),
        ingest: args::input_schema::<IngestParams>(),
        tell: args::input_schema::<telling::TellParams>(),
        told: args::input_schema::<telling::ToldParams>(),
        session_start: args::input_schema::<telling::SessionStartParams>(),
        session_end: args::input_schema::<telling::SessionEndParams>(),
    });
    match op {
        "recall" if arguments.get("all") == Some(&Value::Bool(true)) => {
            let mut arguments = arguments;
            arguments.remove("all");
            tools::answer(recall_everywhere(engine, args::read(&SCHEMAS.recall, arguments)?))
        }
        "list" => tools::answer(list(engine, origin, args::read(&SCHEMAS.list, arguments)?)),
        "show" => tools::answer(show(engine, args::read(&SCHEMAS.show, arguments)?)),
        "entity" => tools::answer(entity(engine, args::read(&SCHEMAS.entity, arguments)?)),
        "topics" => tools::answer(topics(engine, origin, args::read(&SCHEMAS.topics, arguments)?)),
        "ingest" => {
            let params: IngestParams = args::read(&SCHEMAS.ingest, arguments)?;
            let outcomes: Vec<Ingested> =
                params.items.into_iter().map(|item| ingest(engine, origin, item)).collect();
            tools::answer(Ok(outcomes))
        }
        "tell" => {
            tools::answer(telling::tell(engine, origin, args::read(&SCHEMAS.tell, arguments)?))
        }
        "told" => tools::answer(telling::told(engine, args::read(&SCHEMAS.told, arguments)?)),
        "session_start" => tools::answer(telling::session_start(
            engine,
            origin,
            args::read(&SCHEMAS.session_start, arguments)?,
        )),
        "session_end" => tools::answer(telling::session_end(
            engine,
            args::read(&SCHEMAS.session_end, arguments)?,
        )),
        tool => tools::call(engine, origin, tool, arguments),
    }
}

/// Stores one memory from elsewhere through the store pipeline; a
/// duplicate leaves what it duplicates as it was.
fn ingest(engine: &Engine, origin: &Origin, item: Map<String, Value>) -> Ingested {
    let refused =
        |reason: String| Ingested { status: "refused".to_owned(), id: None, reason: Some(reason) };
    let schema = tools::input_schema("store").expect("store is a tool");
    let params = match args::read::<params::Store>(schema, item) {
        Ok(params) => params,
        Err(error) => return refused(format!("invalid {error}")),
    };
    let (input, allow_secrets) = match tools::store_input(origin, params) {
        Ok(input) => input,
        Err(error) => return refused(format!("invalid {error}")),
    };
    match engine.store_with(input, allow_secrets, false) {
        Ok(stored) => Ingested {
            status: if stored.duplicate { "duplicate" } else { "stored" }.to_owned(),
            id: Some(stored.id),
            reason: None,
        },
        Err(error) => refused(error.to_string()),
    }
}

fn bounded(field: &str, value: Option<i64>, default: usize, min: i64) -> Result<usize, FieldError> {
    match value {
        None => Ok(default),
        Some(value) if (min..=MAX_PAGE as i64).contains(&value) => Ok(value as usize),
        Some(value) => Err(FieldError::new(
            field,
            format!("must be between {min} and {MAX_PAGE}, not {value}"),
        )),
    }
}

/// The namespaces a person's read spans: with `all` every one (not with a
/// `namespace` too); else the one named, or the origin's project and
/// `default`.
fn reach(origin: &Origin, named: Option<&str>, all: bool) -> Result<Reach, FieldError> {
    match (all, named) {
        (true, Some(_)) => {
            Err(FieldError::new("all", "spans every namespace: give it or namespace, not both"))
        }
        (true, None) => Ok(Reach::Every),
        (false, named) => Ok(Reach::Of(origin.recall_namespaces(named)?)),
    }
}

/// `recall` with `all`: every namespace, ranked together.
fn recall_everywhere(
    engine: &Engine,
    params: params::Recall,
) -> Result<answers::RecallAnswer, ToolError> {
    if params.namespace.is_some() {
        return Err(FieldError::new(
            "all",
            "spans every namespace: give it or namespace, not both",
        )
        .into());
    }
    let namespaces = engine
        .spanned(&Reach::Every)?
        .iter()
        .map(|name| ferrex_core::Namespace::parse(name))
        .collect::<Result<Vec<_>, _>>()?;
    tools::recall_over(engine, namespaces, params)
}

fn list(engine: &Engine, origin: &Origin, params: ListParams) -> Result<ListAnswer, ToolError> {
    let offset = match params.offset {
        None => 0,
        Some(offset) if offset >= 0 => usize::try_from(offset).unwrap_or(usize::MAX),
        Some(offset) => {
            return Err(
                FieldError::new("offset", format!("must be 0 or more, not {offset}")).into()
            );
        }
    };
    let request = ListRequest {
        reach: reach(origin, params.namespace.as_deref(), params.all)?,
        kinds: params.types.into_iter().map(MemoryKind::from).collect(),
        tag: params.tag,
        entities: validate::name_list("entities", params.entities)?,
        since: time("since", params.since.as_deref())?,
        until: time("until", params.until.as_deref())?,
        status: params.status.map(|status| status.as_str().to_owned()),
        limit: bounded("limit", params.limit, DEFAULT_PAGE, 1)?,
        offset,
    };
    let listed = engine.list(&request)?;
    Ok(ListAnswer {
        namespaces: engine.spanned(&request.reach)?,
        total: listed.total,
        offset,
        count: listed.memories.len(),
        memories: listed.memories.iter().map(browsed).collect(),
    })
}

fn show(engine: &Engine, params: ShowParams) -> Result<ShowAnswer, ToolError> {
    let id = validate::memory_id("id", &params.id)?;
    let Some(shown) = engine.show(&id)? else {
        return Err(FieldError::new(
            "id",
            format!("{id:?} names no memory (never stored, or forgotten)"),
        )
        .into());
    };
    let names = answers::device_names(engine);
    let history = answers::history(&shown.memory.row.namespace, &shown.history, &names).history;
    Ok(ShowAnswer {
        memory: browsed(&shown.memory),
        entities: shown
            .entities
            .into_iter()
            .map(|(id, name)| answers::EntityRef { id, name })
            .collect(),
        edges: shown
            .edges
            .into_iter()
            .map(|edge| MemoryEdge { kind: edge.kind, from: edge.from, to: edge.to })
            .collect(),
        history,
    })
}

fn entity(engine: &Engine, params: EntityParams) -> Result<EntityPage, ToolError> {
    let id = validate::memory_id("id", &params.id)?;
    let limit = bounded("limit", params.limit, DEFAULT_PAGE, 1)?;
    let Some(view) = engine.entity(&id, limit)? else {
        return Err(FieldError::new("id", format!("{id:?} names no entity")).into());
    };
    let names = answers::device_names(engine);
    Ok(EntityPage {
        memories: view.memories.iter().map(browsed).collect(),
        neighbours: view
            .neighbours
            .into_iter()
            .map(|(id, name, count)| EntityCount { id, name, count })
            .collect(),
        relations: view
            .relations
            .into_iter()
            .map(|(hop, name, out)| {
                let mut by: Vec<String> =
                    hop.by.iter().map(|id| names(id).unwrap_or_else(|| id.clone())).collect();
                by.sort();
                Relation {
                    direction: if out { "out" } else { "in" }.to_owned(),
                    id: if out { hop.to } else { hop.from },
                    name,
                    weight: hop.weight,
                    relation: hop.relation,
                    by,
                }
            })
            .collect(),
        id: view.id,
        name: view.name,
        namespace: view.namespace,
    })
}

fn topics(
    engine: &Engine,
    origin: &Origin,
    params: TopicsParams,
) -> Result<TopicsAnswer, ToolError> {
    let reach = reach(origin, params.namespace.as_deref(), params.all)?;
    topics_of(engine, &reach, bounded("limit", params.limit, DEFAULT_PAGE, 1)?)
}
