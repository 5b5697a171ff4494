//! The MCP tools: what each is called and does, and the translation of its
//! typed parameters into the engine's requests and of the engine's results
//! into its typed answer.

use std::sync::LazyLock;

use ferrex_core::{FieldError, MemoryKind, Namespace, StoreInput, validate};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{answers, args, params};
use crate::{
    base::clock,
    engine::{Engine, RecallRequest, ToolError},
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
        title: "Store a memory",
        effect: Effect::Additive,
        description: "Store what you learn: `content` (an event or a how-to, as text) or \
            `subject`+`predicate`+`object` (a fact). A near-duplicate is not stored again (its \
            evidence grows). A fact's predicate is filed under the attribute it names; a new \
            value of a single-valued one (port, lives_in) supersedes the old, of a multi-valued \
            one (depends_on) joins it. Text that changes a detail of earlier text is recorded as \
            its correction. Text that looks like a credential is refused unless `allow_secrets`.",
        input: args::input_schema::<params::Store>,
        output: args::output_schema::<answers::StoreAnswer>,
    },
    ToolSpec {
        name: "recall",
        title: "Recall memories",
        effect: Effect::Marks,
        description: "Find the memories most relevant to `query` (hybrid semantic and keyword \
            search), best first, with staleness, whether a fact is current, what superseded it, \
            and contradictions. Superseded and stale memories are left out unless asked for.",
        input: args::input_schema::<params::Recall>,
        output: args::output_schema::<answers::RecallAnswer>,
    },
    ToolSpec {
        name: "forget",
        title: "Forget memories",
        effect: Effect::Destructive,
        description: "Forget memories by id, on this and every paired device: their text leaves \
            every file (on a device offline now, when it next syncs). Copies outside ferrex, like \
            this transcript or backups, are not reached.",
        input: args::input_schema::<params::Forget>,
        output: args::output_schema::<answers::ForgetAnswer>,
    },
    ToolSpec {
        name: "reflect",
        title: "Review a namespace",
        effect: Effect::ReadOnly,
        description: "Review a namespace: stale memories to re-check, facts that contradict each \
            other (also across devices), entities that may be one, predicates that may name one \
            attribute or be multi-valued.",
        input: args::input_schema::<params::Reflect>,
        output: args::output_schema::<answers::ReflectAnswer>,
    },
    ToolSpec {
        name: "history",
        title: "History of a belief",
        effect: Effect::ReadOnly,
        description: "How a belief evolved: the facts of a subject and predicate (or the text \
            linked to a memory by supersession and correction), oldest first, with when and on \
            which device each was recorded.",
        input: args::input_schema::<params::History>,
        output: args::output_schema::<answers::HistoryAnswer>,
    },
    ToolSpec {
        name: "stats",
        title: "Memory statistics",
        effect: Effect::ReadOnly,
        description: "Counts by type and namespace, entities, documents and their size, index \
            lag, and the embedding model; with `detailed`, staleness and belief figures.",
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
        "store" => answer(store(engine, args::read(input, arguments)?)),
        "recall" => answer(recall(engine, args::read(input, arguments)?)),
        "forget" => answer(forget(engine, args::read(input, arguments)?)),
        "reflect" => answer(reflect(engine, args::read(input, arguments)?)),
        "history" => answer(history(engine, args::read(input, arguments)?)),
        "stats" => answer(stats(engine, args::read(input, arguments)?)),
        _ => unreachable!("every tool in TOOLS is dispatched"),
    }
}

/// A tool's answer as the JSON it returns.
pub(crate) fn answer<T: Serialize>(outcome: Result<T, ToolError>) -> Result<Value, ToolError> {
    serde_json::to_value(outcome?).map_err(|error| {
        ToolError::Internal(anyhow::Error::new(error).context("writing the answer"))
    })
}

/// The input schema of tool `name`, as generated once.
pub(crate) fn input_schema(name: &str) -> Option<&'static Map<String, Value>> {
    let index = TOOLS.iter().position(|spec| spec.name == name)?;
    Some(&schemas()[index].input)
}

/// The namespace `name` names (the default one when absent).
pub(crate) fn namespace(name: Option<&str>) -> Result<Namespace, FieldError> {
    name.map_or_else(|| Ok(Namespace::default()), Namespace::parse)
}

/// Names devices by id: the registry's names, and this device's.
pub(crate) fn device_names(engine: &Engine) -> impl Fn(&str) -> Option<String> {
    let registry = engine.replica().registry();
    let me = engine.replica().device().to_owned();
    move |id: &str| registry.name_of(id).or_else(|| (id == me).then(|| "this device".to_owned()))
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
pub(crate) fn store_input(params: params::Store) -> Result<(StoreInput, bool), FieldError> {
    let input = StoreInput {
        valid_from: time("valid_from", params.valid_from.as_deref())?,
        content: params.content,
        subject: params.subject,
        predicate: params.predicate,
        object: params.object,
        kind: params.memory_type.map(MemoryKind::from),
        namespace: params.namespace,
        confidence: params.confidence,
        entities: params.entities,
        tags: params.tags,
        source: params.source,
        context: params.context,
        supersedes: params.supersedes,
    };
    Ok((input, params.allow_secrets))
}

fn store(engine: &Engine, params: params::Store) -> Result<answers::StoreAnswer, ToolError> {
    let (input, allow_secrets) = store_input(params)?;
    Ok(answers::stored(&engine.store(input, allow_secrets)?))
}

fn recall(engine: &Engine, params: params::Recall) -> Result<answers::RecallAnswer, ToolError> {
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
        namespace: namespace(params.namespace.as_deref())?,
        kinds: params.types.into_iter().map(MemoryKind::from).collect(),
        limit: validate::recall_limit(params.limit)?,
        entities,
        start,
        end,
        include_stale: params.include_stale,
        include_invalidated: params.include_invalidated,
        validate_ids,
        diversity,
    };
    let (results, validated, backlog) = engine.recall(&request)?;
    Ok(answers::RecallAnswer {
        count: results.len(),
        results: results.iter().map(answers::recalled).collect(),
        pending: (!backlog.is_empty()).then(|| answers::backlog(&backlog)),
        validated: (!request.validate_ids.is_empty()).then_some(validated),
        namespace: request.namespace.as_str().to_owned(),
        query: request.query,
    })
}

fn forget(engine: &Engine, params: params::Forget) -> Result<answers::ForgetAnswer, ToolError> {
    if params.ids.is_empty() {
        return Err(FieldError::new("ids", "must list at least one memory id").into());
    }
    let ids = validate::memory_ids("ids", &params.ids)?;
    let outcome = engine.forget(&ids)?;
    Ok(answers::ForgetAnswer { forgotten: outcome.forgotten, unknown: outcome.unknown })
}

fn reflect(engine: &Engine, params: params::Reflect) -> Result<answers::ReflectAnswer, ToolError> {
    let namespace = namespace(params.namespace.as_deref())?;
    let limit = validate::recall_limit(params.limit)?;
    let reflection = engine.reflect(
        &namespace,
        limit,
        params.include_stale.unwrap_or(true),
        params.include_contradictions.unwrap_or(true),
    )?;
    Ok(answers::reflection(namespace.as_str(), &reflection, &device_names(engine)))
}

fn history(engine: &Engine, params: params::History) -> Result<answers::HistoryAnswer, ToolError> {
    let namespace = namespace(params.namespace.as_deref())?;
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
    Ok(answers::history(namespace.as_str(), &entries, &device_names(engine)))
}

fn stats(engine: &Engine, params: params::Stats) -> Result<answers::StatsAnswer, ToolError> {
    let stats = engine.stats()?;
    let detailed = if params.detailed { Some(engine.detailed_stats()?) } else { None };
    Ok(answers::stats(&stats, detailed.as_ref()))
}

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
