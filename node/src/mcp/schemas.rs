//! The JSON schemas of the tools' parameters.

use serde_json::{Value, json};

fn namespace_property() -> Value {
    json!({
        "type": "string",
        "description": "Namespace (default \"default\"): 1-64 characters of [A-Za-z0-9_.-].",
        "pattern": "^[A-Za-z0-9_.-]{1,64}$"
    })
}

fn limit_property() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 200, "description": "Default 10."})
}

/// `store`.
pub fn store() -> Value {
    json!({
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "Free text, up to 16 KiB.", "maxLength": 16384},
            "subject": {"type": "string", "description": "Subject of a fact, e.g. \"api-server\".", "maxLength": 512},
            "predicate": {"type": "string", "description": "Relation of a fact, e.g. \"port\" (resolved to the attribute it names: \"uses\" and \"requires\" become \"depends_on\", \"listens on port\" becomes \"port\").", "maxLength": 512},
            "object": {"type": "string", "description": "Value of a fact, e.g. \"8080\"."},
            "memory_type": {
                "type": "string",
                "enum": ["episodic", "semantic", "procedural"],
                "description": "Detected when omitted: a fact is semantic, text is episodic."
            },
            "namespace": namespace_property(),
            "confidence": {"type": "number", "minimum": 0, "maximum": 1, "description": "Default 1.0."},
            "entities": {"type": "array", "items": {"type": "string"}, "description": "Names of things the memory is about; matched to known entities (exact, spelling, meaning) or created."},
            "tags": {"type": "array", "items": {"type": "string"}},
            "source": {"type": "string", "description": "Where this came from."},
            "context": {"type": "string", "description": "Context to keep with it."},
            "supersedes": {"type": "string", "description": "Id of a memory this one replaces (skips the duplicate and conflict checks)."},
            "valid_from": {"type": "string", "description": "ISO-8601 time or date when what the text tells happened or became true (default: now; text only). A recall whose query names a date (\"on 8 May\", \"last week\") favours memories of that time."},
            "allow_secrets": {"type": "boolean", "description": "Store text that looks like a credential (API key, token, private key, password in a URL) as it is; refused by default."}
        },
        "additionalProperties": false
    })
}

/// `recall`.
pub fn recall() -> Value {
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
            "limit": limit_property(),
            "entities": {"type": "array", "items": {"type": "string"}, "description": "Only memories about these entities (names; aliases and spellings match)."},
            "time_range": {
                "type": "object",
                "properties": {
                    "start": {"type": "string", "description": "ISO-8601 time or date, inclusive."},
                    "end": {"type": "string", "description": "ISO-8601 time or date, exclusive."}
                },
                "additionalProperties": false,
                "description": "Only memories valid from start and before end."
            },
            "include_stale": {"type": "boolean", "description": "Also memories labelled stale (default false)."},
            "include_invalidated": {"type": "boolean", "description": "Also superseded facts and text (default false)."},
            "validate_ids": {"type": "array", "items": {"type": "string"}, "description": "Ids of memories you confirmed are still true: they stay fresh."},
            "diversity": {"type": "number", "minimum": 0, "maximum": 1, "description": "0 (default) to 1: trade relevance for variety among the results (MMR)."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// `forget`.
pub fn forget() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1000}
        },
        "required": ["ids"],
        "additionalProperties": false
    })
}

/// `reflect`.
pub fn reflect() -> Value {
    json!({
        "type": "object",
        "properties": {
            "namespace": namespace_property(),
            "limit": limit_property(),
            "include_contradictions": {"type": "boolean", "description": "List facts that contradict the current one (default true)."},
            "include_stale": {"type": "boolean", "description": "List stale memories (default true)."}
        },
        "additionalProperties": false
    })
}

/// `history`.
pub fn history() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "A memory; its fact's subject and predicate, or the text linked to it."},
            "subject": {"type": "string", "description": "With predicate, instead of id."},
            "predicate": {"type": "string"},
            "namespace": namespace_property()
        },
        "additionalProperties": false
    })
}

/// `stats`.
pub fn stats() -> Value {
    json!({
        "type": "object",
        "properties": {
            "detailed": {"type": "boolean", "description": "Also staleness per type, fact states, entities, alias candidates, contradictions (default false)."}
        },
        "additionalProperties": false
    })
}
