//! The Automerge layout of ferrex documents, and their deterministic genesis.
//!
//! A shard document's root holds five maps, all created by the genesis change:
//!
//! ```text
//! memories:  { <memory id>: { kind, key, sealed, subject_entity?, entities?, confidence,
//!                             created_at, created_by, t_valid,
//!                             evidence: Counter, validated: {<device>: Timestamp},
//!                             access: {<device>: {count: Uint, last: Timestamp}} } }
//! forgotten: { <memory id>: { at: Timestamp, by: <device> } }      tombstones, never removed
//! entities:  { <entity id>: { key, sealed, kind?, created_at, created_by } }
//! aliases:   { <entity id>|<random>: { entity, key, sealed, method, memory?, created_at,
//!                                     created_by } }
//! edges:     { <kind>|<from>|<to>: { kind, from, to, created_at, created_by } }
//! ```
//!
//! `sealed` is the record's content (a memory's text or triple, source,
//! context and tags; an entity's or alias's name) sealed under the record's
//! own key, which `key` names by id and [`crate::keys::KeyStore`] holds
//! outside the history (format 1, schema 1, kept them in the clear).
//!
//! The registry's root holds `devices`, `pairings` and `revoked` maps (see
//! [`crate::Registry`]).
//!
//! Text is stored as scalar strings, not the Text CRDT: memories are written
//! once, and scalars are much cheaper. Nested maps that several devices write
//! into (`validated`, `access`) are created with their memory, by its creator,
//! so two devices never create the same container concurrently (two
//! concurrent `put_object`s at one key would hide one of them).

use automerge::{
    ActorId, AutoCommit, ObjId, ObjType, ROOT, ReadDoc, Value, transaction::CommitOptions,
    transaction::Transactable,
};

use crate::DocId;

/// Version of the shard layout, recorded in every shard's genesis change.
/// Version 2 seals every record's content (see [`crate::keys`]); its
/// genesis differs from version 1's, so the two never share a history.
pub const SCHEMA_VERSION: i64 = 2;

/// Version of the registry layout (unchanged since version 1: the registry
/// holds no memory content, and keeps its history across the upgrade).
pub const REGISTRY_SCHEMA_VERSION: i64 = 1;

/// The actor of every genesis change. Never used for anything else: a second
/// change by this actor would collide with the genesis of other replicas.
const GENESIS_ACTOR: [u8; 16] = *b"ferrex-genesis-1";

/// Root maps of a shard document.
pub(crate) const SHARD_MAPS: [&str; 5] = ["memories", "forgotten", "entities", "aliases", "edges"];
/// Root maps of the registry document.
pub(crate) const REGISTRY_MAPS: [&str; 3] = ["devices", "pairings", "revoked"];

/// A new document holding only its genesis change, with a random actor.
///
/// The genesis change is a pure function of the document id: every replica
/// that creates the document creates the byte-identical change, so replicas
/// that start apart share their root maps instead of shadowing each other's.
pub fn genesis(id: &DocId) -> AutoCommit {
    let maps: &[&str] = match id {
        DocId::Registry => &REGISTRY_MAPS,
        DocId::Shard { .. } => &SHARD_MAPS,
    };
    // Putting into a fresh document's root cannot fail; the results are
    // checked in tests and by `Roots::find` when the document is used.
    let schema = match id {
        DocId::Registry => REGISTRY_SCHEMA_VERSION,
        DocId::Shard { .. } => SCHEMA_VERSION,
    };
    genesis_of(id, maps, schema)
}

/// A format-1 shard's genesis (for the upgrade and its tests).
pub(crate) fn genesis_v1(id: &DocId) -> AutoCommit {
    genesis_of(id, &SHARD_MAPS, 1)
}

fn genesis_of(id: &DocId, maps: &[&str], schema: i64) -> AutoCommit {
    let mut doc = AutoCommit::new().with_actor(ActorId::from(GENESIS_ACTOR));
    let _ = doc.put(ROOT, "doc", id.to_string());
    let _ = doc.put(ROOT, "schema", schema);
    for map in maps {
        let _ = doc.put_object(ROOT, *map, ObjType::Map);
    }
    doc.commit_with(CommitOptions::default().with_time(0));
    doc.set_actor(ActorId::random());
    doc
}

/// The object ids of a document's root maps.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    maps: Vec<(&'static str, ObjId)>,
}

impl Roots {
    /// Looks the root maps up; `None` when the document lacks one.
    pub(crate) fn find(doc: &AutoCommit, id: &DocId) -> Option<Roots> {
        let names: &[&'static str] = match id {
            DocId::Registry => &REGISTRY_MAPS,
            DocId::Shard { .. } => &SHARD_MAPS,
        };
        let mut maps = Vec::with_capacity(names.len());
        for name in names {
            match doc.get(ROOT, *name).ok().flatten() {
                Some((Value::Object(ObjType::Map), object)) => maps.push((*name, object)),
                _ => return None,
            }
        }
        Some(Roots { maps })
    }

    /// Every root map, with its name.
    pub(crate) fn all(&self) -> impl Iterator<Item = (&'static str, &ObjId)> {
        self.maps.iter().map(|(name, object)| (*name, object))
    }

    /// The root map called `name`.
    pub(crate) fn get(&self, name: &str) -> &ObjId {
        self.maps
            .iter()
            .find(|(candidate, _)| *candidate == name)
            .map(|(_, object)| object)
            .unwrap_or(&ROOT)
    }
}

/// How many lookups in one root map before [`RootMaps`] reads it whole:
/// a seek in a root map of 10k records costs about as much as a hundredth
/// of a pass over it.
const LOOKUPS_BEFORE_WHOLE: usize = 64;

/// Looks records up by id in a document's root maps. The first lookups in
/// a root map are seeks in the document; once there have been
/// [`LOOKUPS_BEFORE_WHOLE`], the map is read whole in one pass and the rest
/// are searches in memory. Work over a whole shard (a fresh device's keys,
/// and indexing what they make readable) made a seek per record in two or
/// three root maps: at 100k memories, a third of a fresh device's time.
///
/// It borrows the document, so the document cannot change while it is
/// alive and what it has read stays true.
pub(crate) struct RootMaps<'a> {
    doc: &'a AutoCommit,
    roots: &'a Roots,
    read: std::cell::RefCell<Vec<RootRead<'a>>>,
}

/// What [`RootMaps`] knows of one root map.
struct RootRead<'a> {
    name: &'static str,
    /// Lookups made in it by seeking.
    lookups: usize,
    /// The map, once read whole.
    whole: Option<MapView<'a>>,
}

impl<'a> RootMaps<'a> {
    pub(crate) fn new(doc: &'a AutoCommit, roots: &'a Roots) -> Self {
        RootMaps { doc, roots, read: std::cell::RefCell::new(Vec::new()) }
    }

    /// How many root maps have been read whole.
    #[cfg(test)]
    pub(crate) fn read_whole_count(&self) -> usize {
        self.read.borrow().iter().filter(|root| root.whole.is_some()).count()
    }

    /// The map stored at `key` of root map `root`.
    pub(crate) fn child(&self, root: &str, key: &str) -> Option<MapView<'a>> {
        let mut read = self.read.borrow_mut();
        let at = match read.iter().position(|known| known.name == root) {
            Some(at) => at,
            None => {
                let Some((name, _)) = self.roots.all().find(|(name, _)| *name == root) else {
                    return MapView::new(self.doc, ROOT).map(key);
                };
                read.push(RootRead { name, lookups: 0, whole: None });
                read.len() - 1
            }
        };
        let known = &mut read[at];
        if known.whole.is_none() {
            let view = MapView::new(self.doc, self.roots.get(root).clone());
            known.lookups += 1;
            if known.lookups < LOOKUPS_BEFORE_WHOLE {
                return view.map(key);
            }
            known.whole = Some(view.read_whole());
        }
        known.whole.as_ref().and_then(|whole| whole.map(key))
    }
}

/// Typed reads of one map object.
pub(crate) struct MapView<'a> {
    doc: &'a AutoCommit,
    object: ObjId,
    /// Every entry (key, winning value, its id), when the view was made by
    /// [`MapView::read_whole`]: reads then cost no lookup in the document.
    entries: Option<Vec<(String, Value<'static>, ObjId)>>,
}

impl<'a> MapView<'a> {
    pub(crate) fn new(doc: &'a AutoCommit, object: ObjId) -> Self {
        MapView { doc, object, entries: None }
    }

    /// This view with every entry read in one pass over the map. A record
    /// read field by field costs a seek in the document per field (at
    /// 100k memories, most of what indexing a synced shard spent); one
    /// pass costs about one. For a root map, which holds thousands, only
    /// through [`RootMaps`], when many of them are looked up.
    pub(crate) fn read_whole(self) -> Self {
        self.read_where(|_| true)
    }

    /// [`Self::read_whole`] keeping only `keys`: one pass over the map,
    /// without copying the values of the other keys (a record's sealed
    /// payload among them).
    pub(crate) fn read_only(self, keys: &[&str]) -> Self {
        self.read_where(|key| keys.contains(&key))
    }

    /// This view with the entries whose key `keep` accepts read in one pass.
    fn read_where(self, keep: impl Fn(&str) -> bool) -> Self {
        let mut entries: Vec<(String, Value<'static>, ObjId)> = self
            .doc
            .map_range(&self.object, ..)
            .filter(|item| keep(item.key.as_ref()))
            .map(|item| {
                let value = item.value.clone().into_value();
                let id = if value.is_object() { item.id() } else { ROOT };
                (item.key.into_owned(), value, id)
            })
            .collect();
        // Keys come in order; sorting makes the lookups' order certain.
        entries.sort_by(|left, right| left.0.cmp(&right.0));
        MapView { entries: Some(entries), ..self }
    }

    /// The winning value of `key`, and its id.
    fn entry(&self, key: &str) -> Option<(Value<'a>, ObjId)> {
        match &self.entries {
            Some(entries) => entries
                .binary_search_by(|(candidate, _, _)| candidate.as_str().cmp(key))
                .ok()
                .map(|at| (entries[at].1.clone(), entries[at].2.clone())),
            None => self.doc.get(&self.object, key).ok().flatten(),
        }
    }

    fn value(&self, key: &str) -> Option<Value<'a>> {
        self.entry(key).map(|(value, _)| value)
    }

    pub(crate) fn string(&self, key: &str) -> Option<String> {
        self.value(key).and_then(|value| value.as_str().map(str::to_owned))
    }

    pub(crate) fn bytes(&self, key: &str) -> Option<Vec<u8>> {
        match self.value(key)? {
            Value::Scalar(scalar) => match scalar.as_ref() {
                automerge::ScalarValue::Bytes(bytes) => Some(bytes.clone()),
                _ => None,
            },
            Value::Object(_) => None,
        }
    }

    pub(crate) fn int(&self, key: &str) -> Option<i64> {
        self.value(key).and_then(|value| value.as_i64())
    }

    pub(crate) fn float(&self, key: &str) -> Option<f64> {
        self.value(key).and_then(|value| value.as_f64())
    }

    /// The map's object id.
    pub(crate) fn object(&self) -> ObjId {
        self.object.clone()
    }

    pub(crate) fn map(&self, key: &str) -> Option<MapView<'a>> {
        match self.entry(key) {
            Some((Value::Object(ObjType::Map), object)) => Some(MapView::new(self.doc, object)),
            _ => None,
        }
    }

    /// The keys of this map, sorted.
    pub(crate) fn keys(&self) -> Vec<String> {
        match &self.entries {
            Some(entries) => entries.iter().map(|(key, _, _)| key.clone()).collect(),
            None => self.doc.keys(&self.object).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use automerge::ChangeHash;
    use ferrex_core::Namespace;

    use super::*;

    fn heads(mut doc: AutoCommit) -> Vec<ChangeHash> {
        doc.get_heads()
    }

    #[test]
    fn a_map_read_whole_reads_as_field_by_field_conflicts_and_counters_included() {
        use automerge::{ScalarValue, transaction::Transactable};
        let shard = DocId::shard(&Namespace::default(), 0);
        let mut left = genesis(&shard);
        left.set_actor(ActorId::from(b"left".to_vec()));
        let roots = Roots::find(&left, &shard).unwrap();
        let record = left.put_object(roots.get("memories"), "m1", ObjType::Map).unwrap();
        left.put(&record, "kind", "episodic").unwrap();
        left.put(&record, "evidence", ScalarValue::counter(1)).unwrap();
        let nested = left.put_object(&record, "validated", ObjType::Map).unwrap();
        left.put(&nested, "device-a", 5).unwrap();
        let mut right = left.fork().with_actor(ActorId::from(b"right".to_vec()));
        left.put(&record, "confidence", 0.5).unwrap();
        right.put(&record, "confidence", 0.75).unwrap();
        left.increment(&record, "evidence", 2).unwrap();
        right.increment(&record, "evidence", 4).unwrap();
        right.put(&nested, "device-b", 7).unwrap();
        left.merge(&mut right).unwrap();

        let by_field = MapView::new(&left, record.clone());
        let whole = MapView::new(&left, record).read_whole();
        assert_eq!(whole.keys(), by_field.keys());
        for key in by_field.keys() {
            assert_eq!(whole.value(&key), by_field.value(&key), "{key}");
        }
        assert_eq!(whole.int("evidence"), Some(7));
        let (nested_whole, nested_by_field) =
            (whole.map("validated").unwrap().read_whole(), by_field.map("validated").unwrap());
        assert_eq!(nested_whole.keys(), ["device-a", "device-b"]);
        assert_eq!(nested_whole.int("device-b"), nested_by_field.int("device-b"));
        assert!(whole.value("absent").is_none());
        // Some fields only: as read field by field, and nothing else.
        let some = MapView::new(&left, by_field.object.clone()).read_only(&["confidence", "kind"]);
        assert_eq!(some.keys(), ["confidence", "kind"]);
        for key in ["confidence", "kind"] {
            assert_eq!(some.value(key), by_field.value(key), "{key}");
        }
        assert!(some.value("evidence").is_none());
    }

    #[test]
    fn genesis_is_identical_on_every_replica_and_differs_per_document() {
        let shard = DocId::shard(&Namespace::default(), 0);
        let other = DocId::shard(&Namespace::default(), 1);
        assert_eq!(heads(genesis(&shard)), heads(genesis(&shard)));
        assert_ne!(heads(genesis(&shard)), heads(genesis(&other)));
        assert_ne!(heads(genesis(&shard)), heads(genesis(&DocId::Registry)));
    }

    #[test]
    fn genesis_creates_every_root_map() {
        let shard = DocId::shard(&Namespace::default(), 0);
        assert!(Roots::find(&genesis(&shard), &shard).is_some());
        assert!(Roots::find(&genesis(&DocId::Registry), &DocId::Registry).is_some());
    }

    #[test]
    fn two_replicas_writing_after_genesis_share_one_memories_map() {
        let shard = DocId::shard(&Namespace::default(), 0);
        let mut left = genesis(&shard);
        let mut right = genesis(&shard);
        for (doc, key) in [(&mut left, "from-left"), (&mut right, "from-right")] {
            let roots = Roots::find(doc, &shard).unwrap();
            doc.put(roots.get("memories"), key, "x").unwrap();
            doc.commit();
        }
        left.merge(&mut right).unwrap();
        let roots = Roots::find(&left, &shard).unwrap();
        assert_eq!(
            left.keys(roots.get("memories")).collect::<Vec<_>>(),
            ["from-left", "from-right"]
        );
    }
}
