//! A namespace's live records as they stand (`ferrex export`), and their
//! restoration into a replica (`ferrex import`): the same ids, times,
//! devices, counters, aliases and edges, with nothing judged again.

use std::collections::HashSet;

use ferrex_core::{Alias, Edge, Entity, Namespace, Timestamp};

use super::{Counters, Replica, Writing, lock};
use crate::{DocChange, ReplicaError, StoredMemory, records::NewMemory};

/// An alias with its key in the document and the memory that introduced it
/// (the alias dies with that memory).
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedAlias {
    /// Its key in the `aliases` map.
    pub key: String,
    /// The alias.
    pub alias: Alias,
    /// The memory that introduced it.
    pub memory: Option<String>,
}

/// Every live record of a namespace that this node can read: memories (with
/// their evidence, validations and access statistics), the entities they
/// use, the live aliases of those, and the edges between live records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Archive {
    /// Memories, oldest first.
    pub memories: Vec<StoredMemory>,
    /// Entities, oldest first.
    pub entities: Vec<Entity>,
    /// Aliases, by key.
    pub aliases: Vec<ArchivedAlias>,
    /// Edges, by key.
    pub edges: Vec<Edge>,
}

/// What a restore wrote, and what it left because it was here already or
/// was forgotten here.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Restored {
    /// Memories written.
    pub memories: usize,
    /// Entities written.
    pub entities: usize,
    /// Aliases written.
    pub aliases: usize,
    /// Edges written.
    pub edges: usize,
    /// Records left because this replica holds them already.
    pub existing: usize,
    /// Records left because they are, or belong to, a memory forgotten
    /// here (the memory itself, an alias it introduced, an edge to or from
    /// it): a restore never brings back what was forgotten.
    pub forgotten: usize,
}

impl Restored {
    /// Adds what another restore (of the same import) did.
    pub fn add(&mut self, other: &Restored) {
        self.memories += other.memories;
        self.entities += other.entities;
        self.aliases += other.aliases;
        self.edges += other.edges;
        self.existing += other.existing;
        self.forgotten += other.forgotten;
    }
}

impl Replica {
    /// Every live record of `namespace` this node can read.
    pub fn archive(&self, namespace: &Namespace) -> Result<Archive, ReplicaError> {
        let mut archive = Archive::default();
        let mut forgotten: HashSet<String> = HashSet::new();
        for shard in self.shards(namespace) {
            self.read(&shard, |reader| {
                forgotten.extend(reader.keys("forgotten"));
                archive
                    .memories
                    .extend(reader.keys("memories").iter().filter_map(|id| reader.memory(id)));
                archive.entities.extend(
                    reader.keys("entities").iter().filter_map(|id| reader.entity(id).found()),
                );
                for key in reader.keys("aliases") {
                    if let Some(alias) = reader.alias(&key).found() {
                        let memory = reader.alias_introducer(&key);
                        archive.aliases.push(ArchivedAlias { key, alias, memory });
                    }
                }
                archive
                    .edges
                    .extend(reader.keys("edges").iter().filter_map(|key| reader.edge(key)));
            })?;
        }
        archive
            .edges
            .retain(|edge| !forgotten.contains(&edge.from) && !forgotten.contains(&edge.to));
        archive.memories.sort_by(|a, b| {
            (a.memory.created_at, &a.memory.id).cmp(&(b.memory.created_at, &b.memory.id))
        });
        archive.entities.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        archive.aliases.sort_by(|a, b| a.key.cmp(&b.key));
        archive.edges.sort_by_key(Edge::key);
        Ok(archive)
    }

    /// Whether a document of `namespace` holds a record `id` in `root`
    /// (live or not, readable or not).
    fn holds(&self, namespace: &Namespace, root: &str, id: &str) -> Result<bool, ReplicaError> {
        for shard in self.shards(namespace) {
            let document = self.document(&shard)?;
            if lock(&document).maps().child(root, id).is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether memory `id` was forgotten here, in any namespace.
    fn forgotten_anywhere(&self, id: &str) -> Result<bool, ReplicaError> {
        for namespace in self.namespaces() {
            if self.holds(&namespace, "forgotten", id)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Writes the records of `archive` into `namespace` as one change, as
    /// they were (ids, times, devices, counters), except those this replica
    /// holds already and memories it forgot. `None` when nothing was new.
    pub fn restore(
        &self,
        namespace: &Namespace,
        now: Timestamp,
        archive: &Archive,
    ) -> Result<(Option<DocChange>, Restored), ReplicaError> {
        let mut restored = Restored::default();
        let mut memories: Vec<(NewMemory, Counters)> = Vec::new();
        for stored in &archive.memories {
            let id = &stored.memory.id;
            if self.forgotten_anywhere(id)? {
                restored.forgotten += 1;
            } else if self.locate(id).is_some() || self.holds(namespace, "memories", id)? {
                restored.existing += 1;
            } else {
                memories.push(new_memory(stored));
            }
        }
        let mut entities = Vec::new();
        for entity in &archive.entities {
            // An entity whose key a purge deleted here is written again (with
            // a new key): the memories restored with it use it.
            if self.holds(namespace, "entities", &entity.id)?
                && !self.entity_locked(namespace, &entity.id)?
            {
                restored.existing += 1;
            } else {
                entities.push(entity);
            }
        }
        let mut aliases = Vec::new();
        for archived in &archive.aliases {
            let introducer_forgotten = match &archived.memory {
                Some(memory) => self.forgotten_anywhere(memory)?,
                None => false,
            };
            if introducer_forgotten {
                restored.forgotten += 1;
            } else if self.holds(namespace, "aliases", &archived.key)? {
                restored.existing += 1;
            } else {
                aliases.push((archived.key.clone(), &archived.alias, archived.memory.as_deref()));
            }
        }
        let mut edges = Vec::new();
        for edge in &archive.edges {
            if self.forgotten_anywhere(&edge.from)? || self.forgotten_anywhere(&edge.to)? {
                restored.forgotten += 1;
            } else if self.holds(namespace, "edges", &edge.key())? {
                restored.existing += 1;
            } else {
                edges.push(edge);
            }
        }
        restored.memories = memories.len();
        restored.entities = entities.len();
        restored.aliases = aliases.len();
        restored.edges = edges.len();
        if memories.is_empty() && entities.is_empty() && aliases.is_empty() && edges.is_empty() {
            return Ok((None, restored));
        }
        let writing = Writing {
            memories: memories.iter().map(|(memory, counters)| (memory, counters)).collect(),
            entities,
            aliases,
            edges,
        };
        Ok((Some(self.write(namespace, now, &writing)?), restored))
    }
}

/// A stored memory as it is written again, with its counters.
fn new_memory(stored: &StoredMemory) -> (NewMemory, Counters) {
    let memory = &stored.memory;
    let new = NewMemory {
        id: memory.id.clone(),
        kind: memory.kind,
        content: memory.content.clone(),
        confidence: memory.confidence,
        source: memory.source.clone(),
        context: memory.context.clone(),
        tags: memory.tags.clone(),
        entity_ids: memory.entity_ids.clone(),
        subject_entity: stored.subject_entity.clone(),
        predicate_written: stored.predicate_written.clone(),
        cardinality: stored.cardinality,
        created_at: memory.created_at,
        created_by: memory.created_by.clone(),
        t_valid: memory.t_valid,
    };
    let counters = Counters {
        evidence: memory.evidence,
        validated: memory.validated.clone(),
        access: memory.access.clone(),
    };
    (new, counters)
}
