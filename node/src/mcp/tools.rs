//! The MCP tools: what each is called and does, and the translation of its
//! JSON arguments into the engine's requests. Every answer is a JSON object.

use ferrex_core::{FieldError, MemoryKind, Namespace, StoreInput, validate};
use serde_json::{Map, Value, json};

use super::{answers, args::Args, schemas};
use crate::{
    clock,
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

/// A tool: its name, what it does, and its input schema.
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
    pub schema: fn() -> Value,
}

/// Every tool the server offers.
pub const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "store",
        title: "Store a memory",
        effect: Effect::Additive,
        description: "Store a memory. Give `content` (free text: an event or a how-to) or \
            `subject`+`predicate`+`object` (a fact). A near-duplicate is not stored (the answer \
            names the existing memory, whose evidence grows). A fact's predicate is filed under \
            the attribute it names (\"listens on port\" as port; the answer says which and \
            how); a single-valued predicate's new value (lives_in, port, version) supersedes the \
            old one, a multi-valued one's (depends_on, speaks, member_of) joins it. Text that \
            changes a detail of earlier text, or announces a fact's new value (\"Alice moved to \
            Munich\"), is recorded as its correction. Text that looks like a credential (API key, \
            token, private key, password in a URL) is refused unless `allow_secrets` is true.",
        schema: schemas::store,
    },
    ToolSpec {
        name: "recall",
        title: "Recall memories",
        effect: Effect::Marks,
        description: "Find the memories most relevant to `query` (hybrid semantic and keyword \
            search), best first, with staleness, whether a fact is current, what superseded it, \
            and contradictions. Superseded and stale memories are left out unless asked for.",
        schema: schemas::recall,
    },
    ToolSpec {
        name: "forget",
        title: "Forget memories",
        effect: Effect::Destructive,
        description: "Forget memories by id, on this device and every paired device: their \
            text leaves every file of every device (at once here, on a device offline now when \
            it next syncs). Answers which ids were forgotten and which were unknown. It cannot \
            reach copies outside ferrex: this conversation's transcript, backups or filesystem \
            snapshots, or a device that never comes back.",
        schema: schemas::forget,
    },
    ToolSpec {
        name: "reflect",
        title: "Review a namespace",
        effect: Effect::ReadOnly,
        description: "Review a namespace: stale memories to re-check, facts that contradict \
            each other (also from different devices), entities that may be the same, \
            predicates of a subject that may name one attribute, and single-valued predicates \
            whose values pile up (perhaps multi-valued).",
        schema: schemas::reflect,
    },
    ToolSpec {
        name: "history",
        title: "History of a belief",
        effect: Effect::ReadOnly,
        description: "How a belief evolved: the facts of a subject and predicate (or the text \
            linked to a memory by supersession and correction), oldest first, with when and on \
            which device each was recorded.",
        schema: schemas::history,
    },
    ToolSpec {
        name: "stats",
        title: "Memory statistics",
        effect: Effect::ReadOnly,
        description: "Counts by type and namespace, entities, documents and their size, index \
            lag, and the embedding model; with `detailed`, staleness and belief figures.",
        schema: schemas::stats,
    },
];

fn properties(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Runs tool `name` with `arguments`; `Err` is a message for the agent.
pub fn call(
    engine: &Engine,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<Value, ToolError> {
    let Some(spec) = TOOLS.iter().find(|spec| spec.name == name) else {
        let names: Vec<&str> = TOOLS.iter().map(|spec| spec.name).collect();
        return Err(FieldError::new(
            "name",
            format!("{name:?} is not a tool; tools: {}", names.join(", ")),
        )
        .into());
    };
    let schema = (spec.schema)();
    let args = Args::new(arguments, &properties(&schema))?;
    match name {
        "store" => store(engine, &args),
        "recall" => recall(engine, &args),
        "forget" => forget(engine, &args),
        "reflect" => reflect(engine, &args),
        "history" => history(engine, &args),
        "stats" => stats(engine, &args),
        _ => unreachable!("every tool in TOOLS is dispatched"),
    }
}

fn kind(field: &str, text: &str) -> Result<MemoryKind, FieldError> {
    text.parse().map_err(|_| {
        FieldError::new(field, format!("must be episodic, semantic or procedural, not {text:?}"))
    })
}

fn namespace(args: &Args) -> Result<Namespace, FieldError> {
    match args.string("namespace")? {
        None => Ok(Namespace::default()),
        Some(name) => Namespace::parse(&name),
    }
}

fn device_names(engine: &Engine) -> impl Fn(&str) -> Option<String> {
    let registry = engine.replica().registry();
    let me = engine.replica().device().to_owned();
    move |id: &str| registry.name_of(id).or_else(|| (id == me).then(|| "this device".to_owned()))
}

fn store(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let input = StoreInput {
        content: args.string("content")?,
        subject: args.string("subject")?,
        predicate: args.string("predicate")?,
        object: args.string("object")?,
        kind: args.string("memory_type")?.map(|text| kind("memory_type", &text)).transpose()?,
        namespace: args.string("namespace")?,
        confidence: args.number("confidence")?,
        entities: args.strings("entities")?,
        tags: args.strings("tags")?,
        source: args.string("source")?,
        context: args.string("context")?,
        supersedes: args.string("supersedes")?,
        valid_from: time("valid_from", args.value("valid_from"))?,
    };
    let allow_secrets = args.boolean("allow_secrets")?.unwrap_or(false);
    Ok(answers::stored(&engine.store(input, allow_secrets)?))
}

fn time(field: &str, text: Option<&Value>) -> Result<Option<ferrex_core::Timestamp>, FieldError> {
    match text {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => clock::parse(text).map(Some).ok_or_else(|| {
            FieldError::new(field, format!("{text:?} is not an ISO-8601 time or date, like 2026-11-23 or 2026-11-23T09:30:00Z"))
        }),
        Some(_) => Err(FieldError::new(field, "must be a string (an ISO-8601 time or date)")),
    }
}

fn recall(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let query = validate::query_text("query", &args.required_string("query")?)?;
    let kinds = args
        .strings("types")?
        .iter()
        .enumerate()
        .map(|(index, text)| kind(&format!("types[{index}]"), text))
        .collect::<Result<Vec<_>, _>>()?;
    let entities = validate::name_list("entities", args.strings("entities")?)?;
    let (start, end) = match args.object("time_range")? {
        None => (None, None),
        Some(range) => {
            if let Some(unknown) =
                range.keys().find(|key| !["start", "end"].contains(&key.as_str()))
            {
                return Err(FieldError::new(
                    format!("time_range.{unknown}"),
                    "is not a field of time_range; it has start and end",
                )
                .into());
            }
            let start = time("time_range.start", range.get("start"))?;
            let end = time("time_range.end", range.get("end"))?;
            if let (Some(start), Some(end)) = (start, end)
                && start >= end
            {
                return Err(FieldError::new("time_range", "start must be before end").into());
            }
            (start, end)
        }
    };
    let validate_ids = validate::memory_ids("validate_ids", &args.strings("validate_ids")?)?;
    let diversity = match args.number("diversity")? {
        None => 0.0,
        Some(value) => validate::unit_interval("diversity", value)?,
    };
    let request = RecallRequest {
        query,
        namespace: namespace(args)?,
        kinds,
        limit: validate::recall_limit(args.integer("limit")?)?,
        entities,
        start,
        end,
        include_stale: args.boolean("include_stale")?.unwrap_or(false),
        include_invalidated: args.boolean("include_invalidated")?.unwrap_or(false),
        validate_ids,
        diversity,
    };
    let (results, validated, backlog) = engine.recall(&request)?;
    let mut answer = json!({
        "query": request.query,
        "namespace": request.namespace.as_str(),
        "count": results.len(),
        "results": results.iter().map(answers::recalled).collect::<Vec<_>>(),
    });
    if !backlog.is_empty() {
        answer["pending"] = answers::backlog(&backlog);
    }
    if !request.validate_ids.is_empty() {
        answer["validated"] = json!(validated);
    }
    Ok(answer)
}

fn forget(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let ids = args.strings("ids")?;
    if ids.is_empty() {
        return Err(FieldError::new("ids", "must list at least one memory id").into());
    }
    let ids = validate::memory_ids("ids", &ids)?;
    let outcome = engine.forget(&ids)?;
    Ok(json!({"forgotten": outcome.forgotten, "unknown": outcome.unknown}))
}

fn reflect(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let namespace = namespace(args)?;
    let limit = validate::recall_limit(args.integer("limit")?)?;
    let reflection = engine.reflect(
        &namespace,
        limit,
        args.boolean("include_stale")?.unwrap_or(true),
        args.boolean("include_contradictions")?.unwrap_or(true),
    )?;
    Ok(answers::reflection(namespace.as_str(), &reflection, &device_names(engine)))
}

fn history(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let namespace = namespace(args)?;
    let id = args.string("id")?.map(|id| validate::memory_id("id", &id)).transpose()?;
    let subject = args.string("subject")?;
    let predicate = args.string("predicate")?;
    let pair = match (&id, subject, predicate) {
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
    let mut answer = answers::history(&entries, &device_names(engine));
    answer["namespace"] = json!(namespace.as_str());
    Ok(answer)
}

fn stats(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let stats = engine.stats()?;
    let detailed = if args.boolean("detailed")?.unwrap_or(false) {
        Some(engine.detailed_stats()?)
    } else {
        None
    };
    Ok(answers::stats(&stats, detailed.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_closed_object() {
        for spec in TOOLS {
            let schema = (spec.schema)();
            assert_eq!(schema["type"], "object", "{}", spec.name);
            assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
        }
    }
}
