//! How the engine's results are written as the tools' JSON answers.

use ferrex_core::{Content, Timestamp};
use serde_json::{Map, Value, json};

use crate::{
    clock,
    engine::{
        Backlog, Contradiction, DetailedStats, HistoryEntry, Recalled, Reflection, Stats, Stored,
        content_parts,
    },
    index::MemoryRow,
};

/// Names devices by id (the registry's names), for answers people read.
pub type DeviceNames<'a> = &'a dyn Fn(&str) -> Option<String>;

fn content(item: &mut Value, row: &MemoryRow) {
    match content_parts(row) {
        Content::Text(text) => item["content"] = json!(text),
        Content::Triple(triple) => {
            item["subject"] = json!(triple.subject);
            item["predicate"] = json!(triple.predicate);
            item["object"] = json!(triple.object);
        }
    }
}

/// What every answer says of a memory's standing in the derived view.
fn standing(item: &mut Value, row: &MemoryRow) {
    let derived = &row.derived;
    if row.kind == ferrex_core::MemoryKind::Semantic {
        item["current"] = json!(derived.status == "current");
        item["status"] = json!(derived.status);
        if !derived.contradicts.is_empty() {
            item["contradicts"] = json!(derived.contradicts);
        }
    } else if derived.status == "superseded" {
        item["status"] = json!("superseded");
    }
    if !derived.superseded_by.is_empty() {
        item["superseded_by"] = json!(derived.superseded_by);
    }
    if let Some(at) = derived.t_invalid {
        item["t_invalid"] = json!(clock::iso(Timestamp(at)));
    }
    if !derived.corrected_by.is_empty() {
        item["corrected_by"] = json!(derived.corrected_by);
    }
}

/// One recalled memory.
pub fn recalled(result: &Recalled) -> Value {
    let mut item = memory(&result.row);
    item["score"] = json!(result.score);
    item["trust"] = json!(result.confidence);
    item["staleness"] = json!(result.staleness.as_str());
    item
}

/// A memory: its content, standing, and what was recorded with it.
pub fn memory(row: &MemoryRow) -> Value {
    let mut item = json!({
        "id": row.id,
        "type": row.kind.as_str(),
        "namespace": row.namespace,
        "created_at": clock::iso(Timestamp(row.created_at)),
        "confidence": row.confidence,
        "evidence": row.evidence,
    });
    content(&mut item, row);
    standing(&mut item, row);
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

/// The answer of `store`.
pub fn stored(stored: &Stored) -> Value {
    let mut answer = json!({
        "id": stored.id,
        "status": if stored.duplicate { "duplicate" } else { "stored" },
        "memory_type": stored.kind.as_str(),
        "namespace": stored.namespace.as_str(),
        "entities": stored.entities.iter().map(|found| json!({"name": found.name, "id": found.id, "match": found.method})).collect::<Vec<_>>(),
    });
    if let Some(predicate) = &stored.predicate {
        answer["predicate"] = json!(predicate);
        answer["predicate_match"] = json!(stored.predicate_match);
        if let Some(written) = &stored.predicate_written {
            answer["predicate_written"] = json!(written);
        }
        answer["cardinality"] = json!(stored.cardinality.map(|cardinality| cardinality.as_str()));
        if !stored.predicate_candidates.is_empty() {
            answer["predicate_candidates"] = json!(stored.predicate_candidates);
        }
    }
    if stored.duplicate {
        // Nothing was stored: entities the request would have created do not exist.
        let known: Vec<Value> = stored
            .entities
            .iter()
            .filter(|found| found.method != "new")
            .map(|found| json!({"name": found.name, "id": found.id, "match": found.method}))
            .collect();
        answer["entities"] = json!(known);
        answer["existing_id"] = json!(stored.id);
        answer["evidence"] = json!(stored.evidence);
        return answer;
    }
    if !stored.redacted.is_empty() {
        answer["redacted"] = json!(
            stored
                .redacted
                .iter()
                .map(|redaction| json!({"field": redaction.field, "found": redaction.rule}))
                .collect::<Vec<_>>()
        );
    }
    if !stored.supersedes.is_empty() {
        answer["supersedes"] = json!(stored.supersedes);
    }
    if !stored.ambiguous_with.is_empty() {
        answer["ambiguous_with"] = json!(stored.ambiguous_with);
        answer["note"] = json!(
            "this subject already has a close value of this multi-valued predicate; both are kept. Store again with `supersedes` if this one replaces it."
        );
    }
    if !stored.corrects.is_empty() {
        answer["corrects"] = json!(
            stored
                .corrects
                .iter()
                .map(|(id, why)| json!({"id": id, "why": why}))
                .collect::<Vec<_>>()
        );
    }
    answer
}

fn device(id: &str, names: DeviceNames<'_>) -> Value {
    json!({"id": id, "name": names(id)})
}

/// The answer of `reflect`.
pub fn reflection(namespace: &str, reflection: &Reflection, names: DeviceNames<'_>) -> Value {
    json!({
        "namespace": namespace,
        "stale": reflection.stale.iter().map(recalled).collect::<Vec<_>>(),
        "contradictions": reflection.contradictions.iter().map(|found| contradiction(found, names)).collect::<Vec<_>>(),
        "alias_candidates": reflection.alias_candidates.iter().map(|found| json!({
            "entity": {"id": found.entity, "name": found.entity_name},
            "candidate": {"id": found.candidate, "name": found.candidate_name},
            "recorded_by": device(&found.recorded_by, names),
        })).collect::<Vec<_>>(),
        "predicate_candidates": reflection.predicate_candidates.iter().map(|found| json!({
            "subject": found.subject,
            "predicate": {"name": found.fact.1, "fact": found.fact.0},
            "candidate": {"name": found.candidate.1, "fact": found.candidate.0},
            "recorded_by": device(&found.recorded_by, names),
            "hint": format!("if they name one attribute, add \"{}\" to the group of {} under [predicates] in ferrex.toml", found.fact.1.replace('_', " "), found.candidate.1),
        })).collect::<Vec<_>>(),
        "cardinality_suspects": reflection.cardinality_suspects.iter().map(|found| json!({
            "subject": found.subject,
            "predicate": found.predicate,
            "cardinality": "one",
            "values": found.values,
            "contested": found.contested,
            "hours": found.hours,
            "hint": format!("a subject seems to have several values of {}: set {} = \"many\" under [cardinality] in ferrex.toml if so", found.predicate, found.predicate),
        })).collect::<Vec<_>>(),
    })
}

fn contradiction(found: &Contradiction, names: DeviceNames<'_>) -> Value {
    let first = &found.facts[0];
    json!({
        "subject": first.subject,
        "predicate": first.predicate,
        "across_devices": found.across_devices,
        "facts": found.facts.iter().map(|row| json!({
            "id": row.id,
            "object": row.object,
            "current": row.derived.status == "current",
            "t_valid": clock::iso(Timestamp(row.t_valid)),
            "device": device(&row.created_by, names),
        })).collect::<Vec<_>>(),
    })
}

/// The answer of `history`.
pub fn history(entries: &[HistoryEntry], names: DeviceNames<'_>) -> Value {
    let chain: Vec<Value> = entries
        .iter()
        .map(|entry| {
            let row = &entry.row;
            let mut item = json!({
                "id": row.id,
                "type": row.kind.as_str(),
                "t_valid": clock::iso(Timestamp(row.t_valid)),
                "created_at": clock::iso(Timestamp(row.created_at)),
                "device": device(&row.created_by, names),
            });
            content(&mut item, row);
            standing(&mut item, row);
            if !entry.replaces.is_empty() {
                item["replaces"] = json!(entry.replaces);
            }
            item
        })
        .collect();
    json!({"count": chain.len(), "history": chain})
}

/// The answer of `stats`.
pub fn stats(stats: &Stats, detailed: Option<&DetailedStats>) -> Value {
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
        .map(|doc| json!({"id": doc.id.to_string(), "memories": doc.memories, "bytes": doc.disk_bytes}))
        .collect();
    let mut answer = json!({
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
            "passages_queued": stats.passages_queued,
            "waiting_for_keys": stats.waiting_for_keys,
            "vectors_from_peers": stats.vectors_from_peers,
        },
        "model": stats.model_id,
    });
    if let Some(detailed) = detailed {
        let staleness: Map<String, Value> = detailed
            .staleness
            .iter()
            .map(|(kind, [fresh, aging, stale])| {
                (kind.clone(), json!({"fresh": fresh, "aging": aging, "stale": stale}))
            })
            .collect();
        answer["detailed"] = json!({
            "staleness": staleness,
            "facts": detailed.facts,
            "entities": {"records": detailed.entities.0, "distinct": detailed.entities.1},
            "alias_candidates": detailed.alias_candidates,
            "contradictions": detailed.contradictions,
            "duplicates_collapsed": detailed.duplicates,
            "corrected": detailed.corrected,
        });
    }
    answer
}

/// What a recall could not search fully yet, and what that means.
pub fn backlog(backlog: &Backlog) -> Value {
    let note = if backlog.without_vectors > 0 {
        format!(
            "{} memories of this namespace have no vector yet (the index is catching up): \
             results by meaning are partial; keyword search covers them",
            backlog.without_vectors
        )
    } else {
        format!(
            "{} memories of this namespace are found by their whole text only until \
             their sentences are embedded",
            backlog.without_passages
        )
    };
    json!({
        "without_vectors": backlog.without_vectors,
        "without_passages": backlog.without_passages,
        "dense_partial": backlog.without_vectors > 0,
        "waited_ms": backlog.waited.as_millis() as u64,
        "note": note,
    })
}
