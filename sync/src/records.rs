//! Reading and writing ferrex's records (memories, tombstones, entities,
//! aliases, edges) in a shard document.

use std::collections::BTreeMap;

use automerge::{AutoCommit, AutomergeError, ObjType, ScalarValue, transaction::Transactable};
use ferrex_core::{
    AccessStat, Alias, Content, Edge, EdgeKind, Entity, Memory, MemoryKind, Namespace, Timestamp,
    Tombstone, Triple,
};

use crate::schema::{MapView, Roots};

/// A memory as it is first written: everything but the counters and maps
/// that later writes grow.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    /// Random, globally unique id.
    pub id: String,
    /// Kind.
    pub kind: MemoryKind,
    /// Text or triple. A triple's predicate is stored as given here (the
    /// caller normalises it first).
    pub content: Content,
    /// 0..=1.
    pub confidence: f64,
    /// Where it came from.
    pub source: Option<String>,
    /// Context.
    pub context: Option<String>,
    /// Labels.
    pub tags: Vec<String>,
    /// Ids of mentioned entities.
    pub entity_ids: Vec<String>,
    /// The entity a fact's subject resolved to.
    pub subject_entity: Option<String>,
    /// The predicate as the agent wrote it, when normalisation changed it.
    pub predicate_written: Option<String>,
    /// When it was stored.
    pub created_at: Timestamp,
    /// The storing device.
    pub created_by: String,
    /// When it became true.
    pub t_valid: Timestamp,
}

/// A memory read back from a document, with its namespace and location.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMemory {
    /// The memory.
    pub memory: Memory,
    /// The entity a fact's subject resolved to.
    pub subject_entity: Option<String>,
    /// The predicate as written, when it differs from the stored one.
    pub predicate_written: Option<String>,
}

pub(crate) fn put_memory(
    doc: &mut AutoCommit,
    roots: &Roots,
    memory: &NewMemory,
) -> Result<(), AutomergeError> {
    let object = doc.put_object(roots.get("memories"), &memory.id, ObjType::Map)?;
    doc.put(&object, "kind", memory.kind.as_str())?;
    match &memory.content {
        Content::Text(text) => doc.put(&object, "text", text.as_str())?,
        Content::Triple(triple) => {
            doc.put(&object, "subject", triple.subject.as_str())?;
            doc.put(&object, "predicate", triple.predicate.as_str())?;
            doc.put(&object, "object", triple.object.as_str())?;
        }
    }
    if let Some(entity) = &memory.subject_entity {
        doc.put(&object, "subject_entity", entity.as_str())?;
    }
    if let Some(written) = &memory.predicate_written {
        doc.put(&object, "predicate_written", written.as_str())?;
    }
    doc.put(&object, "confidence", memory.confidence)?;
    if let Some(source) = &memory.source {
        doc.put(&object, "source", source.as_str())?;
    }
    if let Some(context) = &memory.context {
        doc.put(&object, "context", context.as_str())?;
    }
    if !memory.tags.is_empty() {
        doc.put(&object, "tags", encode_list(&memory.tags))?;
    }
    if !memory.entity_ids.is_empty() {
        doc.put(&object, "entities", encode_list(&memory.entity_ids))?;
    }
    doc.put(&object, "created_at", ScalarValue::Timestamp(memory.created_at.0))?;
    doc.put(&object, "created_by", memory.created_by.as_str())?;
    doc.put(&object, "t_valid", ScalarValue::Timestamp(memory.t_valid.0))?;
    doc.put(&object, "evidence", ScalarValue::counter(1))?;
    doc.put_object(&object, "validated", ObjType::Map)?;
    doc.put_object(&object, "access", ObjType::Map)?;
    Ok(())
}

pub(crate) fn read_memory(
    doc: &AutoCommit,
    roots: &Roots,
    namespace: &Namespace,
    id: &str,
) -> Option<StoredMemory> {
    let view = MapView::new(doc, roots.get("memories").clone()).map(id)?;
    let kind: MemoryKind = view.string("kind")?.parse().ok()?;
    let content = match kind {
        MemoryKind::Semantic => Content::Triple(Triple {
            subject: view.string("subject")?,
            predicate: view.string("predicate")?,
            object: view.string("object")?,
        }),
        MemoryKind::Episodic | MemoryKind::Procedural => Content::Text(view.string("text")?),
    };
    let created_at = Timestamp(view.int("created_at")?);
    let validated = view
        .map("validated")
        .map(|map| {
            map.keys()
                .into_iter()
                .filter_map(|device| Some((device.clone(), Timestamp(map.int(&device)?))))
                .collect()
        })
        .unwrap_or_default();
    let access = view
        .map("access")
        .map(|map| {
            map.keys()
                .into_iter()
                .filter_map(|device| {
                    let stat = map.map(&device)?;
                    let count = stat.int("count").unwrap_or(0).max(0) as u64;
                    let last = stat.int("last").map(Timestamp);
                    Some((device, AccessStat { count, last }))
                })
                .collect::<BTreeMap<_, _>>()
        })
        .unwrap_or_default();
    Some(StoredMemory {
        memory: Memory {
            id: id.to_owned(),
            kind,
            content,
            namespace: namespace.clone(),
            confidence: view.float("confidence").unwrap_or(1.0),
            source: view.string("source"),
            context: view.string("context"),
            tags: view.string("tags").map(|text| decode_list(&text)).unwrap_or_default(),
            entity_ids: view.string("entities").map(|text| decode_list(&text)).unwrap_or_default(),
            created_at,
            created_by: view.string("created_by").unwrap_or_default(),
            t_valid: view.int("t_valid").map(Timestamp).unwrap_or(created_at),
            evidence: view.int("evidence").unwrap_or(1),
            validated,
            access,
        },
        subject_entity: view.string("subject_entity"),
        predicate_written: view.string("predicate_written"),
    })
}

/// Whether `id` is a live memory in this document.
pub(crate) fn has_memory(doc: &AutoCommit, roots: &Roots, id: &str) -> bool {
    MapView::new(doc, roots.get("memories").clone()).map(id).is_some()
}

/// Deletes the memory and records its tombstone.
pub(crate) fn forget_memory(
    doc: &mut AutoCommit,
    roots: &Roots,
    tombstone: &Tombstone,
) -> Result<(), AutomergeError> {
    doc.delete(roots.get("memories"), &tombstone.memory_id)?;
    let object = doc.put_object(roots.get("forgotten"), &tombstone.memory_id, ObjType::Map)?;
    doc.put(&object, "at", ScalarValue::Timestamp(tombstone.at.0))?;
    doc.put(&object, "by", tombstone.by.as_str())?;
    Ok(())
}

pub(crate) fn read_tombstone(doc: &AutoCommit, roots: &Roots, id: &str) -> Option<Tombstone> {
    let view = MapView::new(doc, roots.get("forgotten").clone()).map(id)?;
    Some(Tombstone {
        memory_id: id.to_owned(),
        at: Timestamp(view.int("at").unwrap_or(0)),
        by: view.string("by").unwrap_or_default(),
    })
}

/// Adds `amount` to a memory's evidence counter.
pub(crate) fn add_evidence(
    doc: &mut AutoCommit,
    roots: &Roots,
    id: &str,
    amount: i64,
) -> Result<bool, AutomergeError> {
    let Some(object) = memory_object(doc, roots, id) else { return Ok(false) };
    doc.increment(&object, "evidence", amount)?;
    Ok(true)
}

/// Records that `device` validated the memory at `at`.
pub(crate) fn set_validated(
    doc: &mut AutoCommit,
    roots: &Roots,
    id: &str,
    device: &str,
    at: Timestamp,
) -> Result<bool, AutomergeError> {
    let Some(object) = memory_object(doc, roots, id) else { return Ok(false) };
    let Some(validated) = child_map(doc, &object, "validated") else { return Ok(false) };
    doc.put(&validated, device, ScalarValue::Timestamp(at.0))?;
    Ok(true)
}

/// Adds `delta.count` recalls by `device` to the memory's statistics and
/// moves its last recall forward to `delta.last`.
pub(crate) fn add_access(
    doc: &mut AutoCommit,
    roots: &Roots,
    id: &str,
    device: &str,
    delta: AccessStat,
) -> Result<bool, AutomergeError> {
    let Some(object) = memory_object(doc, roots, id) else { return Ok(false) };
    let Some(access) = child_map(doc, &object, "access") else { return Ok(false) };
    let own = match child_map(doc, &access, device) {
        Some(own) => own,
        None => doc.put_object(&access, device, ObjType::Map)?,
    };
    let view = MapView::new(doc, own.clone());
    let count = view.int("count").unwrap_or(0).max(0) as u64 + delta.count;
    let last = match (view.int("last").map(Timestamp), delta.last) {
        (Some(old), Some(new)) => Some(old.max(new)),
        (old, new) => old.or(new),
    };
    doc.put(&own, "count", ScalarValue::Uint(count))?;
    if let Some(last) = last {
        doc.put(&own, "last", ScalarValue::Timestamp(last.0))?;
    }
    Ok(true)
}

fn memory_object(doc: &AutoCommit, roots: &Roots, id: &str) -> Option<automerge::ObjId> {
    child_map(doc, roots.get("memories"), id)
}

fn child_map(doc: &AutoCommit, parent: &automerge::ObjId, key: &str) -> Option<automerge::ObjId> {
    use automerge::{ReadDoc, Value};
    match doc.get(parent, key).ok().flatten() {
        Some((Value::Object(ObjType::Map), object)) => Some(object),
        _ => None,
    }
}

pub(crate) fn put_entity(
    doc: &mut AutoCommit,
    roots: &Roots,
    entity: &Entity,
) -> Result<(), AutomergeError> {
    let object = doc.put_object(roots.get("entities"), &entity.id, ObjType::Map)?;
    doc.put(&object, "name", entity.name.as_str())?;
    if let Some(kind) = &entity.kind {
        doc.put(&object, "kind", kind.as_str())?;
    }
    doc.put(&object, "created_at", ScalarValue::Timestamp(entity.created_at.0))?;
    doc.put(&object, "created_by", entity.created_by.as_str())?;
    Ok(())
}

pub(crate) fn read_entity(doc: &AutoCommit, roots: &Roots, id: &str) -> Option<Entity> {
    let view = MapView::new(doc, roots.get("entities").clone()).map(id)?;
    Some(Entity {
        id: id.to_owned(),
        name: view.string("name")?,
        kind: view.string("kind"),
        created_at: Timestamp(view.int("created_at").unwrap_or(0)),
        created_by: view.string("created_by").unwrap_or_default(),
    })
}

/// The document key of an alias: one per (entity, alias) pair.
pub fn alias_key(entity_id: &str, name: &str) -> String {
    format!("{entity_id}|{name}")
}

pub(crate) fn put_alias(
    doc: &mut AutoCommit,
    roots: &Roots,
    alias: &Alias,
) -> Result<(), AutomergeError> {
    let key = alias_key(&alias.entity_id, &alias.name);
    if child_map(doc, roots.get("aliases"), &key).is_some() {
        return Ok(());
    }
    let object = doc.put_object(roots.get("aliases"), &key, ObjType::Map)?;
    doc.put(&object, "entity", alias.entity_id.as_str())?;
    doc.put(&object, "name", alias.name.as_str())?;
    doc.put(&object, "method", alias.method.as_str())?;
    doc.put(&object, "created_at", ScalarValue::Timestamp(alias.created_at.0))?;
    doc.put(&object, "created_by", alias.created_by.as_str())?;
    Ok(())
}

pub(crate) fn read_alias(doc: &AutoCommit, roots: &Roots, key: &str) -> Option<Alias> {
    let view = MapView::new(doc, roots.get("aliases").clone()).map(key)?;
    Some(Alias {
        entity_id: view.string("entity")?,
        name: view.string("name")?,
        method: view.string("method").unwrap_or_default(),
        created_at: Timestamp(view.int("created_at").unwrap_or(0)),
        created_by: view.string("created_by").unwrap_or_default(),
    })
}

pub(crate) fn put_edge(
    doc: &mut AutoCommit,
    roots: &Roots,
    edge: &Edge,
) -> Result<(), AutomergeError> {
    let key = edge.key();
    if child_map(doc, roots.get("edges"), &key).is_some() {
        return Ok(());
    }
    let object = doc.put_object(roots.get("edges"), &key, ObjType::Map)?;
    doc.put(&object, "kind", edge.kind.as_str())?;
    doc.put(&object, "from", edge.from.as_str())?;
    doc.put(&object, "to", edge.to.as_str())?;
    doc.put(&object, "created_at", ScalarValue::Timestamp(edge.created_at.0))?;
    doc.put(&object, "created_by", edge.created_by.as_str())?;
    Ok(())
}

pub(crate) fn read_edge(doc: &AutoCommit, roots: &Roots, key: &str) -> Option<Edge> {
    let view = MapView::new(doc, roots.get("edges").clone()).map(key)?;
    let kind: EdgeKind = view.string("kind")?.parse().unwrap_or(EdgeKind::RelatesTo);
    Some(Edge {
        kind,
        from: view.string("from")?,
        to: view.string("to")?,
        created_at: Timestamp(view.int("created_at").unwrap_or(0)),
        created_by: view.string("created_by").unwrap_or_default(),
    })
}

fn encode_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_owned())
}

fn decode_list(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}
