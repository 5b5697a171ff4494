//! Entity resolution against the index: the names a store mentions become
//! entity ids (matched, with an alias recorded, or new, with near misses as
//! alias candidates), and the entities a peer created are judged against
//! this node's when they arrive.

use std::collections::HashMap;

use ferrex_core::{
    Alias, Edge, EdgeKind, Entity, Namespace, Timestamp, cosine,
    entity::{self, KnownEntity, MatchMethod, Resolution},
};

use super::{Engine, EngineResult, lock, new_id};
use crate::{
    derived::index::{Index, lookup::EntityRow},
    derived::indexer::{self, KnownVectors},
};

/// The outcome of resolving the names of one store.
#[derive(Debug, Default)]
pub(super) struct Resolved {
    /// Per name as given: the entity id and how it matched (`None`: new).
    pub names: Vec<(String, String, Option<MatchMethod>)>,
    /// Entities to create.
    pub entities: Vec<Entity>,
    /// Aliases to record.
    pub aliases: Vec<Alias>,
    /// Alias-candidate edges to record.
    pub edges: Vec<Edge>,
    /// Name vectors of new entities (and of old ones that had none).
    pub vectors: Vec<(String, Vec<f32>)>,
}

impl Resolved {
    /// The entity id of `name`.
    pub fn id_of(&self, name: &str) -> Option<&str> {
        self.names.iter().find(|(given, _, _)| given == name).map(|(_, id, _)| id.as_str())
    }
}

fn known(entities: &[EntityRow], vector: Option<&[f32]>) -> Vec<KnownEntity> {
    entities
        .iter()
        .map(|entity| KnownEntity {
            id: entity.id.clone(),
            names: entity.names.clone(),
            similarity: match (vector, &entity.vector) {
                (Some(name), Some(known)) => Some(f64::from(cosine(name, known))),
                _ => None,
            },
        })
        .collect()
}

/// Vectors of texts, computed before the write lock is taken where
/// possible, so that a store holds the lock (and peers' merges wait) only
/// for the cheap part. A text not computed in advance is embedded when asked.
#[derive(Debug, Default)]
pub(super) struct Vectors(HashMap<String, Vec<f32>>);

impl Vectors {
    /// Embeds, in one batch, those of `texts` not known yet.
    pub(super) fn prefetch(&mut self, engine: &Engine, texts: &[&str]) -> EngineResult<()> {
        let mut missing: Vec<&str> =
            texts.iter().copied().filter(|text| !self.0.contains_key(*text)).collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(());
        }
        let vectors = engine.embedder.embed(&missing)?;
        for (text, vector) in missing.into_iter().zip(vectors) {
            self.0.insert(text.to_owned(), vector);
        }
        Ok(())
    }

    /// The vector of `text`.
    pub(super) fn get(&mut self, engine: &Engine, text: &str) -> EngineResult<Vec<f32>> {
        self.prefetch(engine, &[text])?;
        Ok(self.0.get(text).cloned().unwrap_or_default())
    }
}

impl Engine {
    /// Before the write lock: embeds (and keeps in the index, as they are
    /// local) the names of `namespace`'s entities that have no vector, and
    /// embeds the given names that no entity matches by name or spelling.
    pub(super) fn prepare_names(
        &self,
        namespace: &Namespace,
        names: &[String],
        vectors: &mut Vectors,
    ) -> EngineResult<()> {
        if names.is_empty() {
            return Ok(());
        }
        let settings = self.settings(namespace.as_str()).entity;
        let mut entities = lock(&self.index).entities(namespace.as_str())?;
        let unmatched: Vec<&str> = names
            .iter()
            .filter(|name| {
                matches!(
                    entity::resolve(name, &known(&entities, None), &settings),
                    Resolution::New { .. }
                )
            })
            .map(String::as_str)
            .collect();
        if unmatched.is_empty() {
            return Ok(());
        }
        let filled = self.fill_entity_vectors(&mut entities, vectors)?;
        store_entity_vectors(&mut lock(&self.index), &filled)?;
        vectors.prefetch(self, &unmatched)
    }

    /// Embeds the names of entities of `namespace` that have no vector yet.
    fn fill_entity_vectors(
        &self,
        entities: &mut [EntityRow],
        cache: &mut Vectors,
    ) -> EngineResult<Vec<(String, Vec<f32>)>> {
        let missing: Vec<usize> =
            (0..entities.len()).filter(|&index| entities[index].vector.is_none()).collect();
        if missing.is_empty() {
            return Ok(vec![]);
        }
        let names: Vec<&str> = missing.iter().map(|&index| entities[index].name.as_str()).collect();
        cache.prefetch(self, &names)?;
        let vectors: Vec<Vec<f32>> =
            names.iter().map(|name| cache.0.get(*name).cloned().unwrap_or_default()).collect();
        let mut filled = Vec::new();
        for (&index, vector) in missing.iter().zip(vectors) {
            filled.push((entities[index].id.clone(), vector.clone()));
            entities[index].vector = Some(vector);
        }
        Ok(filled)
    }

    /// Resolves `names` (as written) among the entities of `namespace`.
    /// Names already resolved in this call are known to later ones.
    pub(super) fn resolve_names(
        &self,
        namespace: &Namespace,
        names: &[String],
        now: Timestamp,
        cache: &mut Vectors,
    ) -> EngineResult<Resolved> {
        let mut resolved = Resolved::default();
        if names.is_empty() {
            return Ok(resolved);
        }
        let settings = self.settings(namespace.as_str()).entity;
        let mut entities = lock(&self.index).entities(namespace.as_str())?;
        let device = self.replica.device().to_owned();
        let mut embedded = false;
        for name in names {
            if resolved.id_of(name).is_some() {
                continue;
            }
            let mut resolution = entity::resolve(name, &known(&entities, None), &settings);
            let mut name_vector = None;
            if matches!(resolution, Resolution::New { .. }) {
                // Only now is the embedding stage worth its cost.
                if !embedded {
                    resolved.vectors.extend(self.fill_entity_vectors(&mut entities, cache)?);
                    embedded = true;
                }
                let vector = cache.get(self, name)?;
                resolution = entity::resolve(name, &known(&entities, Some(&vector)), &settings);
                name_vector = Some(vector);
            }
            match resolution {
                Resolution::Matched { id, method, .. } => {
                    let normalised = entity::normalise_name(name);
                    let is_known_name = entities
                        .iter()
                        .find(|entity| entity.id == id)
                        .is_some_and(|entity| entity.names.contains(&normalised));
                    if !is_known_name {
                        resolved.aliases.push(Alias {
                            entity_id: id.clone(),
                            name: name.clone(),
                            method: method.as_str().to_owned(),
                            created_at: now,
                            created_by: device.clone(),
                        });
                        if let Some(entity) = entities.iter_mut().find(|entity| entity.id == id) {
                            entity.names.push(normalised);
                        }
                    }
                    resolved.names.push((name.clone(), id, Some(method)));
                }
                Resolution::New { candidates } => {
                    let id = new_id();
                    for candidate in candidates {
                        resolved.edges.push(Edge {
                            kind: EdgeKind::AliasCandidate,
                            from: id.clone(),
                            to: candidate.id,
                            created_at: now,
                            created_by: device.clone(),
                        });
                    }
                    let vector = name_vector.unwrap_or_default();
                    resolved.vectors.push((id.clone(), vector.clone()));
                    entities.push(EntityRow {
                        id: id.clone(),
                        name: name.clone(),
                        names: vec![entity::normalise_name(name)],
                        canonical: id.clone(),
                        vector: Some(vector),
                        created_by: device.clone(),
                        created_at: now.0,
                    });
                    resolved.entities.push(Entity {
                        id: id.clone(),
                        name: name.clone(),
                        kind: None,
                        created_at: now,
                        created_by: device.clone(),
                    });
                    resolved.names.push((name.clone(), id, None));
                }
            }
        }
        Ok(resolved)
    }

    /// The entity filter of `names` (recall's, list's): every entity of the
    /// classes they resolve to ([`Engine::lookup_names`]); `None` for no
    /// names (no filter).
    pub(super) fn entity_filter(
        &self,
        namespace: &Namespace,
        names: &[String],
    ) -> EngineResult<Option<Vec<String>>> {
        if names.is_empty() {
            return Ok(None);
        }
        let canonical = self.lookup_names(namespace, names)?;
        let index = lock(&self.index);
        let mut members = Vec::new();
        for canonical in canonical {
            members.extend(index.class_members(&canonical)?);
        }
        Ok(Some(members))
    }

    /// Resolves `names` without creating anything: the canonical entities of
    /// those that match by name, alias or spelling (for recall's filter and
    /// history's subject). Meaning is not used here: it would depend on this
    /// node's vectors, and filters must answer alike on every node.
    pub(super) fn lookup_names(
        &self,
        namespace: &Namespace,
        names: &[String],
    ) -> EngineResult<Vec<String>> {
        let mut found = Vec::new();
        // An entity's own name, normalised, is found by the index at once:
        // the answer resolution gives (entities of one name are one class).
        let mut rest = Vec::new();
        {
            let index = lock(&self.index);
            for name in names {
                match index.canonical_named(namespace.as_str(), &entity::normalise_name(name))? {
                    Some(canonical) => {
                        if !found.contains(&canonical) {
                            found.push(canonical);
                        }
                    }
                    None => rest.push(name),
                }
            }
        }
        if rest.is_empty() {
            return Ok(found);
        }
        let settings = self.settings(namespace.as_str()).entity;
        let entities = lock(&self.index).entity_names(namespace.as_str())?;
        let candidates = known(&entities, None);
        for name in rest {
            if let Resolution::Matched { id, .. } = entity::resolve(name, &candidates, &settings)
                && let Some(entity) = entities.iter().find(|entity| entity.id == id)
                && !found.contains(&entity.canonical)
            {
                found.push(entity.canonical.clone());
            }
        }
        Ok(found)
    }

    /// Judges entities a peer created (`ids`) against the other entities of
    /// `namespace`: a match by spelling or meaning is recorded as a
    /// `same_as` edge from the younger entity to the older (so two nodes
    /// that judge alike write the same edge), a near miss as an alias
    /// candidate. Entities with equal normalised names need no edge: the
    /// derived view joins them.
    pub(super) fn reconcile_entities(
        &self,
        namespace: &Namespace,
        ids: &[String],
    ) -> EngineResult<()> {
        let settings = self.settings(namespace.as_str()).entity;
        let mut entities = lock(&self.index).entities(namespace.as_str())?;
        let vectors = self.fill_entity_vectors(&mut entities, &mut Vectors::default())?;
        let now = self.now();
        let device = self.replica.device().to_owned();
        let mut edges = Vec::new();
        for id in ids {
            let Some(arrived) = entities.iter().find(|entity| entity.id == *id).cloned() else {
                continue;
            };
            let others: Vec<EntityRow> = entities
                .iter()
                .filter(|entity| entity.canonical != arrived.canonical)
                .cloned()
                .collect();
            let resolution = entity::resolve(
                &arrived.name,
                &known(&others, arrived.vector.as_deref()),
                &settings,
            );
            let older_first = |other: &EntityRow| {
                if (other.created_at, other.id.as_str()) < (arrived.created_at, arrived.id.as_str())
                {
                    (arrived.id.clone(), other.id.clone())
                } else {
                    (other.id.clone(), arrived.id.clone())
                }
            };
            match resolution {
                Resolution::Matched { id: matched, .. } => {
                    if let Some(other) = others.iter().find(|entity| entity.id == matched) {
                        let (from, to) = older_first(other);
                        edges.push(Edge {
                            kind: EdgeKind::SameAs,
                            from,
                            to,
                            created_at: now,
                            created_by: device.clone(),
                        });
                    }
                }
                Resolution::New { candidates } => {
                    for candidate in candidates {
                        edges.push(Edge {
                            kind: EdgeKind::AliasCandidate,
                            from: arrived.id.clone(),
                            to: candidate.id,
                            created_at: now,
                            created_by: device.clone(),
                        });
                    }
                }
            }
        }
        let _writing = lock(&self.write_lock);
        let mut index = lock(&self.index);
        if !edges.is_empty() {
            tracing::info!(count = edges.len(), namespace = %namespace, "recording judgements on entities a peer created");
            let change = self.replica.add_edges(namespace, edges, now)?;
            indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
        }
        store_entity_vectors(&mut index, &vectors)
    }
}

/// Stores entity name vectors in the index.
pub(super) fn store_entity_vectors(
    index: &mut Index,
    vectors: &[(String, Vec<f32>)],
) -> EngineResult<()> {
    if vectors.is_empty() {
        return Ok(());
    }
    Ok(index.transaction(|tx| {
        for (id, vector) in vectors {
            if !vector.is_empty() {
                tx.put_entity_vector(id, vector)?;
            }
        }
        Ok(())
    })?)
}
