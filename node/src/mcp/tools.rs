//! The MCP tools: their schemas, and the translation between JSON and the
//! engine's operations. Every answer is a JSON object.

use ferrex_core::{Content, FieldError, MemoryKind, Namespace, StoreInput, validate};
use serde_json::{Map, Value, json};

use super::args::Args;
use crate::{
    clock,
    engine::{Engine, RecallRequest, Recalled, ToolError, content_parts},
};

/// A tool: its name, what it does, and its input schema.
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// What it does, for the agent.
    pub description: &'static str,
    /// JSON schema of its arguments.
    pub schema: fn() -> Value,
}

/// Every tool the server offers.
pub const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "store",
        description: "Store a memory. Give `content` (free text: an event or a how-to) or \
            `subject`+`predicate`+`object` (a fact). Answers the new memory's id.",
        schema: store_schema,
    },
    ToolSpec {
        name: "recall",
        description: "Find the memories most relevant to `query` (hybrid semantic and keyword \
            search). Answers up to `limit` results, best first.",
        schema: recall_schema,
    },
    ToolSpec {
        name: "forget",
        description: "Forget memories by id, on this device and every paired device. Answers \
            which ids were forgotten and which were unknown.",
        schema: forget_schema,
    },
    ToolSpec {
        name: "reflect",
        description: "Review a namespace: memories that have gone stale and may need re-checking.",
        schema: reflect_schema,
    },
    ToolSpec {
        name: "stats",
        description: "Counts by type and namespace, entities, documents and their size, index \
            lag, and the embedding model.",
        schema: stats_schema,
    },
];

fn properties(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn namespace_property() -> Value {
    json!({
        "type": "string",
        "description": "Namespace (default \"default\"): 1-64 characters of [A-Za-z0-9_.-].",
        "pattern": "^[A-Za-z0-9_.-]{1,64}$"
    })
}

fn store_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "Free text, up to 16 KiB.", "maxLength": 16384},
            "subject": {"type": "string", "description": "Subject of a fact, e.g. \"api-server\".", "maxLength": 512},
            "predicate": {"type": "string", "description": "Relation of a fact, e.g. \"port\".", "maxLength": 512},
            "object": {"type": "string", "description": "Value of a fact, e.g. \"8080\"."},
            "memory_type": {
                "type": "string",
                "enum": ["episodic", "semantic", "procedural"],
                "description": "Detected when omitted: a fact is semantic, text is episodic."
            },
            "namespace": namespace_property(),
            "confidence": {"type": "number", "minimum": 0, "maximum": 1, "description": "Default 1.0."},
            "entities": {"type": "array", "items": {"type": "string"}, "description": "Names of things the memory is about."},
            "tags": {"type": "array", "items": {"type": "string"}},
            "source": {"type": "string", "description": "Where this came from."},
            "context": {"type": "string", "description": "Context to keep with it."},
            "supersedes": {"type": "string", "description": "Id of a memory this one replaces."}
        },
        "additionalProperties": false
    })
}

fn recall_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in words."},
            "namespace": namespace_property(),
            "types": {
                "type": "array",
                "items": {"type": "string", "enum": ["episodic", "semantic", "procedural"]},
                "description": "Only these kinds (default: all)."
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Default 10."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn forget_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1000}
        },
        "required": ["ids"],
        "additionalProperties": false
    })
}

fn reflect_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "namespace": namespace_property(),
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Default 10."}
        },
        "additionalProperties": false
    })
}

fn stats_schema() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
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
        "stats" => stats(engine),
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
    };
    let stored = engine.store(input)?;
    let mut answer = json!({
        "id": stored.id,
        "status": "stored",
        "memory_type": stored.kind.as_str(),
        "namespace": stored.namespace.as_str(),
        "entities": stored.entity_ids,
    });
    if let Some(old) = stored.superseded {
        answer["superseded"] = json!(old);
    }
    Ok(answer)
}

fn recall(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let query = validate::query_text("query", &args.required_string("query")?)?;
    let kinds = args
        .strings("types")?
        .iter()
        .enumerate()
        .map(|(index, text)| kind(&format!("types[{index}]"), text))
        .collect::<Result<Vec<_>, _>>()?;
    let request = RecallRequest {
        query,
        namespace: namespace(args)?,
        kinds,
        limit: validate::recall_limit(args.integer("limit")?)?,
    };
    let results = engine.recall(&request)?;
    Ok(json!({
        "query": request.query,
        "namespace": request.namespace.as_str(),
        "count": results.len(),
        "results": results.iter().map(result_json).collect::<Vec<_>>(),
    }))
}

/// One memory as tools answer it.
pub fn result_json(result: &Recalled) -> Value {
    let row = &result.row;
    let mut item = json!({
        "id": row.id,
        "type": row.kind.as_str(),
        "namespace": row.namespace,
        "score": result.score,
        "created_at": clock::iso(ferrex_core::Timestamp(row.created_at)),
        "confidence": row.confidence,
        "staleness": result.staleness.as_str(),
    });
    match content_parts(row) {
        Content::Text(text) => item["content"] = json!(text),
        Content::Triple(triple) => {
            item["subject"] = json!(triple.subject);
            item["predicate"] = json!(triple.predicate);
            item["object"] = json!(triple.object);
        }
    }
    if !row.tags.is_empty() {
        item["tags"] = json!(row.tags);
    }
    if !row.entities.is_empty() {
        item["entities"] = json!(row.entities);
    }
    if let Some(source) = &row.source {
        item["source"] = json!(source);
    }
    if let Some(context) = &row.context {
        item["context"] = json!(context);
    }
    item
}

fn forget(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let ids = args.strings("ids")?;
    if ids.is_empty() {
        return Err(FieldError::new("ids", "must list at least one memory id").into());
    }
    if ids.len() > validate::MAX_FORGET_IDS {
        return Err(FieldError::new(
            "ids",
            format!("lists {} ids; at most {} at a time", ids.len(), validate::MAX_FORGET_IDS),
        )
        .into());
    }
    let ids = ids
        .iter()
        .enumerate()
        .map(|(index, id)| validate::memory_id(&format!("ids[{index}]"), id))
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = engine.forget(&ids)?;
    Ok(json!({"forgotten": outcome.forgotten, "unknown": outcome.unknown}))
}

fn reflect(engine: &Engine, args: &Args) -> Result<Value, ToolError> {
    let namespace = namespace(args)?;
    let limit = validate::recall_limit(args.integer("limit")?)?;
    let stale = engine.stale(&namespace, limit)?;
    Ok(json!({
        "namespace": namespace.as_str(),
        "stale": stale.iter().map(result_json).collect::<Vec<_>>(),
    }))
}

fn stats(engine: &Engine) -> Result<Value, ToolError> {
    let stats = engine.stats()?;
    let mut by_type = Map::new();
    let mut by_namespace = Map::new();
    let mut total = 0;
    for (namespace, kind, count) in &stats.by_namespace_kind {
        total += count;
        let entry = by_type.entry(kind.clone()).or_insert(json!(0));
        *entry = json!(entry.as_i64().unwrap_or(0) + count);
        let entry = by_namespace.entry(namespace.clone()).or_insert(json!(0));
        *entry = json!(entry.as_i64().unwrap_or(0) + count);
    }
    let documents: Vec<Value> = stats
        .docs
        .iter()
        .map(|doc| {
            json!({"id": doc.id.to_string(), "memories": doc.memories, "bytes": doc.disk_bytes})
        })
        .collect();
    Ok(json!({
        "memories": total,
        "by_type": by_type,
        "by_namespace": by_namespace,
        "entities": stats.entities,
        "forgotten": stats.forgotten,
        "documents": {
            "count": stats.docs.len(),
            "bytes": stats.docs.iter().map(|doc| doc.disk_bytes).sum::<u64>(),
            "list": documents,
        },
        "index_lag": {
            "changes": stats.index_lag_changes,
            "embeddings_queued": stats.embeddings_queued,
        },
        "model": stats.model_id,
    }))
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
