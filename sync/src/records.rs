//! Reading and writing ferrex's records (memories, tombstones, entities,
//! aliases, edges) in a shard document.

use std::collections::BTreeMap;

use automerge::{
    AutoCommit, AutomergeError, ObjType, ReadDoc, ScalarValue, ValueRef, transaction::Transactable,
};
use ferrex_core::{
    AccessStat, Alias, Content, Edge, EdgeKind, Entity, Memory, MemoryKind, Namespace, Timestamp,
    Tombstone, Triple, predicate::Cardinality,
};

use serde::{Deserialize, Serialize};

use crate::{
    keys::{Key, KeyId, KeyStore},
    schema::{MapView, RootMaps, Roots},
    seal,
};

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
    /// A fact's predicate's cardinality, as the storing node's settings had
    /// it (the derived view reads it from here, so that nodes with other
    /// settings agree).
    pub cardinality: Option<Cardinality>,
    /// When it was stored.
    pub created_at: Timestamp,
    /// The storing device.
    pub created_by: String,
    /// When it became true.
    pub t_valid: Timestamp,
}

impl NewMemory {
    /// An episode: free text stored by `device` at `at`, with every other
    /// field empty (confidence 1). Set others with struct update syntax.
    pub fn episode(
        id: impl Into<String>,
        text: impl Into<String>,
        device: &str,
        at: Timestamp,
    ) -> Self {
        NewMemory {
            id: id.into(),
            kind: MemoryKind::Episodic,
            content: Content::Text(text.into()),
            confidence: 1.0,
            source: None,
            context: None,
            tags: vec![],
            entity_ids: vec![],
            subject_entity: None,
            predicate_written: None,
            cardinality: None,
            created_at: at,
            created_by: device.to_owned(),
            t_valid: at,
        }
    }

    /// The entities it uses: its subject's and those it mentions, once each.
    pub fn used_entities(&self) -> Vec<String> {
        let mut used = self.entity_ids.clone();
        used.extend(self.subject_entity.clone());
        used.sort();
        used.dedup();
        used
    }
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
    /// A fact's predicate's cardinality, as recorded when it was stored
    /// (none for facts stored before cardinality was recorded).
    pub cardinality: Option<Cardinality>,
}

/// What a sealed memory hides: every field that says what it is about.
#[derive(Debug, Default, Serialize, Deserialize)]
struct MemoryPayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    predicate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    object: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    predicate_written: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cardinality: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

/// What a sealed entity or alias hides: its name.
#[derive(Debug, Serialize, Deserialize)]
struct NamePayload {
    name: String,
}

/// A record read back: readable, present but without its key here, or not
/// in the document.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<T> {
    /// Present and readable.
    Found(T),
    /// Present, but this node lacks the key to read it (not arrived yet, or
    /// deleted because the record was forgotten).
    Locked(KeyId),
    /// Not in the document (or forgotten).
    Absent,
}

impl<T> Lookup<T> {
    /// The record, when readable.
    pub fn found(self) -> Option<T> {
        match self {
            Lookup::Found(value) => Some(value),
            Lookup::Locked(_) | Lookup::Absent => None,
        }
    }

    /// Maps a readable record (a `None` from `read` reads as absent).
    pub fn and_then<U>(self, read: impl FnOnce(T) -> Option<U>) -> Lookup<U> {
        match self {
            Lookup::Found(value) => read(value).map_or(Lookup::Absent, Lookup::Found),
            Lookup::Locked(key) => Lookup::Locked(key),
            Lookup::Absent => Lookup::Absent,
        }
    }
}

/// Where a sealed value of a record lives, bound into its seal.
fn place(root: &str, id: &str) -> String {
    format!("{root}/{id}")
}

fn put_sealed(
    doc: &mut AutoCommit,
    object: &automerge::ObjId,
    key: &Key,
    place: &str,
    payload: &impl Serialize,
) -> Result<(), AutomergeError> {
    let plaintext = serde_json::to_vec(payload).unwrap_or_default();
    doc.put(object, "key", ScalarValue::Bytes(key.id().0.to_vec()))?;
    doc.put(object, "sealed", ScalarValue::Bytes(seal::seal(key, place, &plaintext)))?;
    Ok(())
}

/// The id of the key a sealed record names.
pub(crate) fn key_id_of(view: &MapView<'_>) -> Option<KeyId> {
    let bytes = view.bytes("key")?;
    Some(KeyId(bytes.as_slice().try_into().ok()?))
}

fn open_sealed<T: serde::de::DeserializeOwned>(
    view: &MapView<'_>,
    place: &str,
    keys: &KeyStore,
) -> Lookup<T> {
    let Some(key_id) = key_id_of(view) else { return Lookup::Absent };
    let Some(key) = keys.get(&key_id) else { return Lookup::Locked(key_id) };
    let Some(sealed) = view.bytes("sealed") else { return Lookup::Absent };
    match seal::open(key, place, &sealed).and_then(|plain| serde_json::from_slice(&plain).ok()) {
        Some(value) => Lookup::Found(value),
        None => {
            tracing::warn!(place, "a sealed record does not open with its key; it is skipped");
            Lookup::Absent
        }
    }
}

/// What later writes grow on a memory; a new memory starts with one piece of
/// evidence and empty maps, an upgraded one carries what it had.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Counters {
    pub(crate) evidence: i64,
    pub(crate) validated: BTreeMap<String, Timestamp>,
    pub(crate) access: BTreeMap<String, AccessStat>,
}

impl Default for Counters {
    fn default() -> Self {
        Counters { evidence: 1, validated: BTreeMap::new(), access: BTreeMap::new() }
    }
}

pub(crate) fn put_memory(
    doc: &mut AutoCommit,
    roots: &Roots,
    memory: &NewMemory,
    key: &Key,
    counters: &Counters,
) -> Result<(), AutomergeError> {
    let object = doc.put_object(roots.get("memories"), &memory.id, ObjType::Map)?;
    doc.put(&object, "kind", memory.kind.as_str())?;
    let mut payload = MemoryPayload {
        predicate_written: memory.predicate_written.clone(),
        cardinality: memory.cardinality.map(|cardinality| cardinality.as_str().to_owned()),
        source: memory.source.clone(),
        context: memory.context.clone(),
        tags: memory.tags.clone(),
        ..MemoryPayload::default()
    };
    match &memory.content {
        Content::Text(text) => payload.text = Some(text.clone()),
        Content::Triple(triple) => {
            payload.subject = Some(triple.subject.clone());
            payload.predicate = Some(triple.predicate.clone());
            payload.object = Some(triple.object.clone());
        }
    }
    put_sealed(doc, &object, key, &place("memories", &memory.id), &payload)?;
    if let Some(entity) = &memory.subject_entity {
        doc.put(&object, "subject_entity", entity.as_str())?;
    }
    doc.put(&object, "confidence", memory.confidence)?;
    if !memory.entity_ids.is_empty() {
        doc.put(&object, "entities", encode_list(&memory.entity_ids))?;
    }
    doc.put(&object, "created_at", ScalarValue::Timestamp(memory.created_at.0))?;
    doc.put(&object, "created_by", memory.created_by.as_str())?;
    doc.put(&object, "t_valid", ScalarValue::Timestamp(memory.t_valid.0))?;
    doc.put(&object, "evidence", ScalarValue::counter(counters.evidence))?;
    let validated = doc.put_object(&object, "validated", ObjType::Map)?;
    for (device, at) in &counters.validated {
        doc.put(&validated, device, ScalarValue::Timestamp(at.0))?;
    }
    let access = doc.put_object(&object, "access", ObjType::Map)?;
    for (device, stat) in &counters.access {
        let own = doc.put_object(&access, device, ObjType::Map)?;
        doc.put(&own, "count", ScalarValue::Uint(stat.count))?;
        if let Some(last) = stat.last {
            doc.put(&own, "last", ScalarValue::Timestamp(last.0))?;
        }
    }
    Ok(())
}

/// The entities a live memory refers to (its subject's and those it
/// mentions), read without its key; `None` when it is not a live memory.
pub(crate) fn memory_refs(maps: &RootMaps<'_>, id: &str) -> Option<Vec<String>> {
    live_memory(maps, id).map(|view| refs_of(&view.read_only(&REF_FIELDS)))
}

/// The id of the key of memory `id`, when it is a live memory here (its
/// one field read in one pass, without copying the sealed payload).
pub(crate) fn live_memory_key(maps: &RootMaps<'_>, id: &str) -> Option<KeyId> {
    live_memory(maps, id).and_then(|view| key_id_of(&view.read_only(&["key"])))
}

/// [`memory_refs`] of every memory of the document, in one pass over its
/// memories (a start reads them all: one lookup of each in the memories
/// and forgotten maps cost as much as the rest).
pub(crate) fn all_memory_refs(
    doc: &AutoCommit,
    roots: &Roots,
) -> Vec<(String, Option<Vec<String>>)> {
    let forgotten: std::collections::HashSet<String> = doc.keys(roots.get("forgotten")).collect();
    doc.map_range(roots.get("memories"), ..)
        .map(|item| {
            let id = item.key.to_string();
            let live =
                !forgotten.contains(&id) && matches!(item.value, ValueRef::Object(ObjType::Map));
            let refs = live.then(|| refs_of(&MapView::new(doc, item.id()).read_only(&REF_FIELDS)));
            (id, refs)
        })
        .collect()
}

/// The fields of a memory's record that name the entities it refers to,
/// read in one pass over the record (a seek each cost twice as much, and
/// a start reads them for every memory).
const REF_FIELDS: [&str; 2] = ["entities", "subject_entity"];

/// The entities the memory whose map `view` is refers to, sorted.
fn refs_of(view: &MapView<'_>) -> Vec<String> {
    let mut refs: Vec<String> =
        view.string("entities").map(|text| decode_list(&text)).unwrap_or_default();
    if let Some(subject) = view.string("subject_entity") {
        refs.push(subject);
    }
    refs.sort();
    refs.dedup();
    refs
}

pub(crate) fn read_memory(
    maps: &RootMaps<'_>,
    namespace: &Namespace,
    id: &str,
    keys: &KeyStore,
) -> Lookup<StoredMemory> {
    let Some(view) = live_memory(maps, id) else {
        return Lookup::Absent;
    };
    // Read whole at once: one pass over a record costs about what one seek
    // for its key's id did, and that seek came before every record read.
    let view = view.read_whole();
    open_sealed::<MemoryPayload>(&view, &place("memories", id), keys).and_then(|mut payload| {
        apply_tag_edits(&view, id, keys, &mut payload.tags);
        memory_from(&view, namespace, id, payload)
    })
}

/// The prefix of a memory's fields that each hold one edit of its tags.
const TAG_EDIT: &str = "tag:";

/// One edit of a memory's tags, sealed under the memory's key: the slot it
/// fills (a plain tag, or `name:` for every `name:value` tag, so that
/// `importance:0.9` replaces `importance:0.4`) and what fills it (`None`:
/// removed).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TagEdit {
    slot: String,
    tag: Option<String>,
}

/// The slot a tag fills: `name:` for a `name:value` tag, else the tag.
fn tag_slot(tag: &str) -> String {
    match tag.split_once(':') {
        Some((name, _)) if !name.is_empty() => format!("{name}:"),
        _ => tag.to_owned(),
    }
}

/// The field holding the edits of `slot`: named by a hash of the slot under
/// the memory's key, so the document names no tag in the clear. Each slot
/// is its own last-writer-wins register: two devices that edit different
/// tags at once both keep their edit.
fn tag_field(key: &Key, slot: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new().chain_update(key.0).chain_update(slot.as_bytes()).finalize();
    let hex: String = digest.iter().take(8).map(|byte| format!("{byte:02x}")).collect();
    format!("{TAG_EDIT}{hex}")
}

/// Applies the tag edits recorded on a memory to the tags it was written
/// with, in the order of their slots.
fn apply_tag_edits(view: &MapView<'_>, id: &str, keys: &KeyStore, tags: &mut Vec<String>) {
    let Some(key) = key_id_of(view).and_then(|key_id| keys.get(&key_id)) else { return };
    let mut edits: Vec<TagEdit> = view
        .keys()
        .into_iter()
        .filter(|field| field.starts_with(TAG_EDIT))
        .filter_map(|field| {
            let sealed = view.bytes(&field)?;
            let plain = seal::open(key, &place("memories", &format!("{id}/{field}")), &sealed)?;
            serde_json::from_slice(&plain).ok()
        })
        .collect();
    edits.sort_by(|a, b| a.slot.cmp(&b.slot));
    for edit in edits {
        tags.retain(|tag| tag_slot(tag) != edit.slot);
        if let Some(tag) = edit.tag {
            tags.push(tag);
        }
    }
}

/// Edits a live memory in place: its tags become `tags` (recorded as one
/// edit per slot that changed) and its confidence `confidence`. `Ok(false)`
/// when `id` is no live memory here.
pub(crate) fn edit_memory(
    doc: &mut AutoCommit,
    roots: &Roots,
    id: &str,
    key: &Key,
    current: &[String],
    tags: Option<&[String]>,
    confidence: Option<f64>,
) -> Result<bool, AutomergeError> {
    if is_forgotten(&RootMaps::new(doc, roots), id) {
        return Ok(false);
    }
    let Some(object) = memory_object(doc, roots, id) else { return Ok(false) };
    if let Some(tags) = tags {
        let mut slots: BTreeMap<String, Option<String>> = BTreeMap::new();
        for tag in current {
            slots.insert(tag_slot(tag), None);
        }
        for tag in tags {
            slots.insert(tag_slot(tag), Some(tag.clone()));
        }
        for (slot, tag) in slots {
            let unchanged = match &tag {
                Some(tag) => current.contains(tag),
                None => false,
            };
            if unchanged {
                continue;
            }
            let field = tag_field(key, &slot);
            let plain = serde_json::to_vec(&TagEdit { slot, tag }).unwrap_or_default();
            let sealed = seal::seal(key, &place("memories", &format!("{id}/{field}")), &plain);
            doc.put(&object, field, ScalarValue::Bytes(sealed))?;
        }
    }
    if let Some(confidence) = confidence {
        doc.put(&object, "confidence", confidence)?;
    }
    Ok(true)
}

/// Reads a memory of a format-1 document, where every field is in the clear
/// (for the upgrade only).
pub(crate) fn read_memory_v1(
    doc: &AutoCommit,
    roots: &Roots,
    namespace: &Namespace,
    id: &str,
) -> Option<StoredMemory> {
    let view = MapView::new(doc, roots.get("memories").clone()).map(id)?;
    let plain = MemoryPayload {
        text: view.string("text"),
        subject: view.string("subject"),
        predicate: view.string("predicate"),
        object: view.string("object"),
        predicate_written: view.string("predicate_written"),
        cardinality: None,
        source: view.string("source"),
        context: view.string("context"),
        tags: view.string("tags").map(|text| decode_list(&text)).unwrap_or_default(),
    };
    memory_from(&view, namespace, id, plain)
}

fn memory_from(
    view: &MapView<'_>,
    namespace: &Namespace,
    id: &str,
    plain: MemoryPayload,
) -> Option<StoredMemory> {
    let kind: MemoryKind = view.string("kind")?.parse().ok()?;
    let content = match kind {
        MemoryKind::Semantic => Content::Triple(Triple {
            subject: plain.subject?,
            predicate: plain.predicate?,
            object: plain.object?,
        }),
        MemoryKind::Episodic | MemoryKind::Procedural => Content::Text(plain.text?),
    };
    let created_at = Timestamp(view.int("created_at")?);
    let validated = view
        .map("validated")
        .map(MapView::read_whole)
        .map(|map| {
            map.keys()
                .into_iter()
                .filter_map(|device| Some((device.clone(), Timestamp(map.int(&device)?))))
                .collect()
        })
        .unwrap_or_default();
    let access = view
        .map("access")
        .map(MapView::read_whole)
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
            source: plain.source,
            context: plain.context,
            tags: plain.tags,
            entity_ids: view.string("entities").map(|text| decode_list(&text)).unwrap_or_default(),
            created_at,
            created_by: view.string("created_by").unwrap_or_default(),
            t_valid: view.int("t_valid").map(Timestamp).unwrap_or(created_at),
            evidence: view.int("evidence").unwrap_or(1),
            validated,
            access,
        },
        subject_entity: view.string("subject_entity"),
        predicate_written: plain.predicate_written,
        cardinality: plain.cardinality.and_then(|text| text.parse().ok()),
    })
}

/// Whether `id` is a live memory in this document.
pub(crate) fn has_memory(maps: &RootMaps<'_>, id: &str) -> bool {
    live_memory(maps, id).is_some()
}

/// Whether memory `id` has a tombstone.
pub(crate) fn is_forgotten(maps: &RootMaps<'_>, id: &str) -> bool {
    maps.child("forgotten", id).is_some()
}

/// The map of memory `id`, unless it is absent or forgotten. A tombstone
/// wins over an object that survived it: one written concurrently with the
/// forget, or by another device's upgrade of the same memory.
fn live_memory<'a>(maps: &RootMaps<'a>, id: &str) -> Option<MapView<'a>> {
    if is_forgotten(maps, id) {
        return None;
    }
    maps.child("memories", id)
}

/// Deletes the memory without a tombstone (see [`crate::Replica::evict`]).
pub(crate) fn delete_memory(
    doc: &mut AutoCommit,
    roots: &Roots,
    id: &str,
) -> Result<(), AutomergeError> {
    doc.delete(roots.get("memories"), id)
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

pub(crate) fn read_tombstone(maps: &RootMaps<'_>, id: &str) -> Option<Tombstone> {
    let view = maps.child("forgotten", id)?;
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
    key: &Key,
) -> Result<(), AutomergeError> {
    let object = doc.put_object(roots.get("entities"), &entity.id, ObjType::Map)?;
    let payload = NamePayload { name: entity.name.clone() };
    put_sealed(doc, &object, key, &place("entities", &entity.id), &payload)?;
    if let Some(kind) = &entity.kind {
        doc.put(&object, "kind", kind.as_str())?;
    }
    doc.put(&object, "created_at", ScalarValue::Timestamp(entity.created_at.0))?;
    doc.put(&object, "created_by", entity.created_by.as_str())?;
    Ok(())
}

pub(crate) fn read_entity(
    doc: &AutoCommit,
    roots: &Roots,
    id: &str,
    keys: &KeyStore,
) -> Lookup<Entity> {
    let Some(view) = MapView::new(doc, roots.get("entities").clone()).map(id) else {
        return Lookup::Absent;
    };
    open_sealed::<NamePayload>(&view, &place("entities", id), keys)
        .and_then(|payload| Some(entity_from(&view, id, payload.name)))
}

/// Reads an entity of a format-1 document (for the upgrade only).
pub(crate) fn read_entity_v1(doc: &AutoCommit, roots: &Roots, id: &str) -> Option<Entity> {
    let view = MapView::new(doc, roots.get("entities").clone()).map(id)?;
    let name = view.string("name")?;
    Some(entity_from(&view, id, name))
}

fn entity_from(view: &MapView<'_>, id: &str, name: String) -> Entity {
    Entity {
        id: id.to_owned(),
        name,
        kind: view.string("kind"),
        created_at: Timestamp(view.int("created_at").unwrap_or(0)),
        created_by: view.string("created_by").unwrap_or_default(),
    }
}

/// A new document key for an alias of `entity_id`: random, so that the key
/// names no spelling.
pub fn new_alias_key(entity_id: &str) -> String {
    use rand::RngExt;
    let suffix: u64 = rand::rng().random();
    format!("{entity_id}|{suffix:016x}")
}

pub(crate) fn put_alias(
    doc: &mut AutoCommit,
    roots: &Roots,
    key_name: &str,
    alias: &Alias,
    memory: Option<&str>,
    key: &Key,
) -> Result<(), AutomergeError> {
    let object = doc.put_object(roots.get("aliases"), key_name, ObjType::Map)?;
    doc.put(&object, "entity", alias.entity_id.as_str())?;
    let payload = NamePayload { name: alias.name.clone() };
    put_sealed(doc, &object, key, &place("aliases", key_name), &payload)?;
    doc.put(&object, "method", alias.method.as_str())?;
    if let Some(memory) = memory {
        doc.put(&object, "memory", memory)?;
    }
    doc.put(&object, "created_at", ScalarValue::Timestamp(alias.created_at.0))?;
    doc.put(&object, "created_by", alias.created_by.as_str())?;
    Ok(())
}

pub(crate) fn read_alias(
    doc: &AutoCommit,
    roots: &Roots,
    key_name: &str,
    keys: &KeyStore,
) -> Lookup<Alias> {
    let Some(view) = MapView::new(doc, roots.get("aliases").clone()).map(key_name) else {
        return Lookup::Absent;
    };
    open_sealed::<NamePayload>(&view, &place("aliases", key_name), keys)
        .and_then(|payload| alias_from(&view, payload.name))
}

/// An alias's entity and the memory that introduced it, read without its key.
pub(crate) fn alias_links(maps: &RootMaps<'_>, key_name: &str) -> Option<(String, Option<String>)> {
    let view = maps.child("aliases", key_name)?;
    Some((view.string("entity")?, view.string("memory")))
}

/// Reads an alias of a format-1 document (for the upgrade only).
pub(crate) fn read_alias_v1(doc: &AutoCommit, roots: &Roots, key_name: &str) -> Option<Alias> {
    let view = MapView::new(doc, roots.get("aliases").clone()).map(key_name)?;
    let name = view.string("name")?;
    alias_from(&view, name)
}

fn alias_from(view: &MapView<'_>, name: String) -> Option<Alias> {
    Some(Alias {
        entity_id: view.string("entity")?,
        name,
        method: view.string("method").unwrap_or_default(),
        created_at: Timestamp(view.int("created_at").unwrap_or(0)),
        created_by: view.string("created_by").unwrap_or_default(),
    })
}

/// The id of the key a record of `root` names, read without its key.
pub(crate) fn record_key(maps: &RootMaps<'_>, root: &str, id: &str) -> Option<KeyId> {
    key_id_of(&maps.child(root, id)?)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DocId, keys::Key, schema::genesis};

    #[test]
    fn the_refs_of_every_memory_read_in_one_pass_equal_those_read_one_by_one() {
        let shard = DocId::shard(&Namespace::default(), 0);
        let mut doc = genesis(&shard);
        let roots = Roots::find(&doc, &shard).unwrap();
        let key = Key::random();
        for (id, entities, subject) in [
            ("m1", vec!["e2".to_owned(), "e1".to_owned()], None),
            ("m2", Vec::new(), Some("e3".to_owned())),
            ("m3", vec!["e1".to_owned()], Some("e1".to_owned())),
            ("m4", vec!["e4".to_owned()], None),
        ] {
            let mut memory = NewMemory::episode(id, "text", "device", Timestamp(1));
            memory.entity_ids = entities;
            memory.subject_entity = subject;
            put_memory(&mut doc, &roots, &memory, &key, &Counters::default()).unwrap();
        }
        let tombstone = Tombstone { memory_id: "m4".into(), at: Timestamp(2), by: "device".into() };
        forget_memory(&mut doc, &roots, &tombstone).unwrap();
        // A memory that survived its forget (written concurrently with it):
        // the tombstone wins.
        let survivor = NewMemory::episode("m5", "text", "device", Timestamp(1));
        put_memory(&mut doc, &roots, &survivor, &key, &Counters::default()).unwrap();
        doc.put_object(roots.get("forgotten"), "m5", ObjType::Map).unwrap();

        let all = all_memory_refs(&doc, &roots);
        let one_by_one: Vec<(String, Option<Vec<String>>)> = ["m1", "m2", "m3", "m5"]
            .iter()
            .map(|id| ((*id).to_owned(), memory_refs(&RootMaps::new(&doc, &roots), id)))
            .collect();
        assert_eq!(all, one_by_one, "a forgotten memory is gone from the map");
        assert_eq!(all[3], ("m5".to_owned(), None));
        assert_eq!(all[0].1.as_deref(), Some(&["e1".to_owned(), "e2".to_owned()][..]));
        assert_eq!(all[2].1.as_deref(), Some(&["e1".to_owned()][..]));

        // What changed since nothing, listed from the root maps, is what a
        // diff from nothing finds.
        let heads = doc.get_heads();
        let listed = crate::document::every_key(&doc, &roots);
        let diffed = crate::document::keys_of_patches(doc.diff(&[], &heads));
        assert_eq!(listed, diffed);
        assert_eq!(listed.forgotten.len(), 2, "{listed:?}");
    }

    #[test]
    fn lookups_after_a_root_map_is_read_whole_answer_as_seeks_do() {
        let shard = DocId::shard(&Namespace::default(), 0);
        let mut doc = crate::schema::genesis(&shard);
        let roots = Roots::find(&doc, &shard).unwrap();
        let key = Key::random();
        for number in 0..300 {
            let id = format!("m{number:03}");
            let mut memory = NewMemory::episode(&id, "text", "device", Timestamp(1));
            memory.entity_ids = vec![format!("e{}", number % 7)];
            put_memory(&mut doc, &roots, &memory, &key, &Counters::default()).unwrap();
            if number % 5 == 0 {
                let at = Timestamp(2);
                let tombstone = Tombstone { memory_id: id, at, by: "device".into() };
                forget_memory(&mut doc, &roots, &tombstone).unwrap();
            }
        }
        // Ids that exist, were forgotten, or never were, in an order that
        // is not the map's.
        let ids: Vec<String> = (0..400).rev().map(|number| format!("m{number:03}")).collect();
        let bulk = RootMaps::new(&doc, &roots);
        for id in &ids {
            let seek = RootMaps::new(&doc, &roots);
            assert_eq!(memory_refs(&bulk, id), memory_refs(&seek, id), "{id}");
            assert_eq!(
                record_key(&bulk, "memories", id),
                record_key(&seek, "memories", id),
                "{id}"
            );
            assert_eq!(is_forgotten(&bulk, id), is_forgotten(&seek, id), "{id}");
        }
        let live = ids.iter().filter(|id| memory_refs(&bulk, id).is_some()).count();
        assert_eq!(live, 240, "300 written, 60 forgotten");
        assert_eq!(bulk.read_whole_count(), 2, "memories and forgotten are read whole");
    }
}
