//! A namespace's live records as they stand (`ferrex export`), and their
//! restoration into a replica (`ferrex import`): the same ids, times,
//! devices, counters, aliases and edges, with nothing judged again.

use std::collections::HashSet;

use ferrex_core::{Alias, Content, Edge, Entity, Namespace, Timestamp};

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

impl Archive {
    /// Whether `memory` stays its person's own when its project is shared:
    /// a session's events and exchanges, a watched file's chunks.
    pub fn stays_personal(memory: &ferrex_core::Memory) -> bool {
        use ferrex_core::working::WorkingKind;
        ferrex_core::chunk::is_file_chunk(memory.source.as_deref())
            || matches!(
                WorkingKind::of_source(memory.source.as_deref()),
                Some(WorkingKind::Event | WorkingKind::Exchange)
            )
    }

    /// This archive as it goes into a share of its project
    /// (docs/sharing.md): what the person keeps to themselves stays out
    /// (a session's events and exchanges, a watched file's chunks) with
    /// the aliases and edges of what stays out, and the entities no memory
    /// that goes uses; every record gets a new id from `new_id`, and what
    /// refers to one follows (entities and subjects, aliases, edges, the
    /// `task:` tags of a task's notes; `new_id` gives a record's new id
    /// from its old), so the share and the person's namespace never hold
    /// the same record; and no other device of the
    /// person is named: every record is `device`'s, and validations and
    /// access counts are left out.
    ///
    /// Returns it with the ids the memories that went had, in the order of
    /// its memories (what the person's namespace then forgets).
    pub fn for_share(
        &self,
        device: &str,
        mut new_id: impl FnMut(&str) -> String,
    ) -> (Archive, Vec<String>) {
        use ferrex_core::working::task_tag;
        let mut going: Vec<&StoredMemory> = self
            .memories
            .iter()
            .filter(|stored| !Archive::stays_personal(&stored.memory))
            .collect();
        // A link between memories (a fact whose subject and object are
        // memory ids) goes when both its ends do.
        let ends: HashSet<&str> = going.iter().map(|stored| stored.memory.id.as_str()).collect();
        going.retain(|stored| {
            memory_link_ends(stored)
                .is_none_or(|(from, to)| ends.contains(from) && ends.contains(to))
        });
        let used: HashSet<&str> = going
            .iter()
            .flat_map(|stored| stored.memory.entity_ids.iter().chain(stored.subject_entity.iter()))
            .map(String::as_str)
            .collect();
        let entities: Vec<&Entity> =
            self.entities.iter().filter(|entity| used.contains(entity.id.as_str())).collect();
        // Old id to new, for every record that goes.
        let mut ids: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
        for id in going
            .iter()
            .map(|stored| stored.memory.id.as_str())
            .chain(entities.iter().map(|entity| entity.id.as_str()))
        {
            ids.insert(id, new_id(id));
        }
        let renamed = |id: &str| ids.get(id).cloned();
        let went: Vec<String> = going.iter().map(|stored| stored.memory.id.clone()).collect();
        let memories = going
            .into_iter()
            .map(|stored| {
                let link = is_memory_link(stored);
                let mut stored = stored.clone();
                let memory = &mut stored.memory;
                memory.id = ids[memory.id.as_str()].clone();
                memory.entity_ids = memory.entity_ids.iter().filter_map(|id| renamed(id)).collect();
                memory.tags = memory
                    .tags
                    .iter()
                    .map(|tag| match tag.strip_prefix("task:").and_then(renamed) {
                        Some(task) => task_tag(&task),
                        None => tag.clone(),
                    })
                    .collect();
                if let Content::Triple(triple) = &mut memory.content
                    && link
                {
                    // A link between memories names its ends by id.
                    for end in [&mut triple.subject, &mut triple.object] {
                        if let Some(new) = renamed(end) {
                            *end = new;
                        }
                    }
                }
                memory.created_by = device.to_owned();
                memory.validated.clear();
                memory.access.clear();
                stored.subject_entity = stored.subject_entity.as_deref().and_then(renamed);
                stored
            })
            .collect();
        let entities = entities
            .into_iter()
            .map(|entity| Entity {
                id: ids[entity.id.as_str()].clone(),
                created_by: device.to_owned(),
                ..entity.clone()
            })
            .collect();
        let aliases = self
            .aliases
            .iter()
            .filter_map(|archived| {
                let entity = renamed(&archived.alias.entity_id)?;
                let memory = match &archived.memory {
                    Some(memory) => Some(renamed(memory)?),
                    None => None,
                };
                // The old key's random part kept: the same key on every
                // attempt of a move.
                let key = match archived.key.split_once('|') {
                    Some((_, suffix)) => format!("{entity}|{suffix}"),
                    None => crate::records::new_alias_key(&entity),
                };
                Some(ArchivedAlias {
                    key,
                    alias: Alias {
                        entity_id: entity,
                        created_by: device.to_owned(),
                        ..archived.alias.clone()
                    },
                    memory,
                })
            })
            .collect();
        let edges = self
            .edges
            .iter()
            .filter_map(|edge| {
                Some(Edge {
                    from: renamed(&edge.from)?,
                    to: renamed(&edge.to)?,
                    created_by: device.to_owned(),
                    ..edge.clone()
                })
            })
            .collect();
        (Archive { memories, entities, aliases, edges }, went)
    }
}

/// Whether `stored` is a link between memories (`link`: a fact, of source
/// `ferrex:link`, whose subject and object are memory ids; a link between
/// entities has a subject entity).
fn is_memory_link(stored: &StoredMemory) -> bool {
    stored.memory.source.as_deref() == Some(ferrex_core::walk::LINK_SOURCE)
        && stored.subject_entity.is_none()
}

/// The two ends of `stored` if it is a link between memories.
fn memory_link_ends(stored: &StoredMemory) -> Option<(&str, &str)> {
    match &stored.memory.content {
        Content::Triple(triple) if is_memory_link(stored) => {
            Some((triple.subject.as_str(), triple.object.as_str()))
        }
        _ => None,
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use ferrex_core::{
        EdgeKind,
        working::{WorkingKind, task_tag},
    };

    use super::*;
    use crate::{NewRecords, ReplicaOptions};

    #[test]
    fn a_project_goes_into_a_share_with_new_ids_and_without_what_stays_personal() {
        let temp = tempfile::tempdir().unwrap();
        let replica =
            Replica::open(&temp.path().join("home"), "laptop-device", ReplicaOptions::default())
                .unwrap();
        let work = Namespace::parse("work").unwrap();
        let at = Timestamp(10);
        let memory = |id: &str, source: Option<&str>, tags: Vec<String>| {
            let mut memory = NewMemory::episode(id, format!("text of {id}"), "desktop-device", at);
            memory.source = source.map(str::to_owned);
            memory.tags = tags;
            memory
        };
        let mut fact = memory("fact", None, vec!["deploy".into()]);
        fact.entity_ids = vec!["alice".into()];
        let memories = vec![
            fact,
            memory("task", Some(WorkingKind::Task.source()), Vec::new()),
            memory("note", Some(WorkingKind::TaskUpdate.source()), vec![task_tag("task")]),
            memory("event", Some(WorkingKind::Event.source()), Vec::new()),
            memory("exchange", Some(WorkingKind::Exchange.source()), Vec::new()),
            memory("chunk", Some(ferrex_core::chunk::FILE_SOURCE), Vec::new()),
        ];
        let entity = Entity {
            id: "alice".into(),
            name: "Alice".into(),
            kind: None,
            created_at: at,
            created_by: "desktop-device".into(),
        };
        let alias = Alias {
            entity_id: "alice".into(),
            name: "Al".into(),
            method: "exact".into(),
            created_at: at,
            created_by: "desktop-device".into(),
        };
        let edge = |from: &str, to: &str| Edge {
            kind: EdgeKind::RelatesTo,
            from: from.into(),
            to: to.into(),
            created_at: at,
            created_by: "desktop-device".into(),
        };
        let edges = vec![edge("fact", "task"), edge("event", "fact"), edge("fact", "alice")];
        let records = NewRecords { memories, entities: vec![entity], aliases: vec![alias], edges };
        replica.write_new(&work, at, &records).unwrap();
        replica.add_evidence("fact", 2, at).unwrap();

        let archive = replica.archive(&work).unwrap();
        assert_eq!(archive.memories.len(), 6);
        let mut count = 0;
        let (shared, went) = archive.for_share("sharer", |_| {
            count += 1;
            format!("new-{count}")
        });
        assert_eq!(
            went.iter().map(String::as_str).collect::<BTreeSet<_>>(),
            BTreeSet::from(["fact", "task", "note"])
        );
        let texts: BTreeSet<String> =
            shared.memories.iter().map(|stored| stored.memory.content.text()).collect();
        assert_eq!(
            texts,
            BTreeSet::from(["text of fact", "text of task", "text of note"].map(String::from))
        );
        // No old id and no device of the person's, anywhere in it.
        let written = format!("{shared:?}");
        for old in ["fact", "task", "note", "event", "exchange", "chunk", "alice", "task:task"] {
            assert!(!written.contains(&format!("{old:?}")), "{old} in {written}");
        }
        assert!(!written.contains("desktop-device") && !written.contains("laptop-device"));
        // What refers to a record follows it.
        let id_of = |text: &str| {
            shared.memories.iter().find(|stored| stored.memory.content.text() == text).unwrap()
        };
        let (fact, task, note) =
            (id_of("text of fact"), id_of("text of task"), id_of("text of note"));
        let alice = &shared.entities[0].id;
        assert_eq!(fact.memory.entity_ids, std::slice::from_ref(alice));
        assert_eq!(fact.memory.evidence, 3, "evidence is the memory's own");
        assert!(fact.memory.access.is_empty() && fact.memory.validated.is_empty());
        assert_eq!(note.memory.tags, [task_tag(&task.memory.id)]);
        assert_eq!(shared.aliases.len(), 1);
        assert_eq!(&shared.aliases[0].alias.entity_id, alice);
        assert_eq!(shared.aliases[0].memory.as_ref(), Some(&fact.memory.id));
        let ends: BTreeSet<(String, String)> =
            shared.edges.iter().map(|edge| (edge.from.clone(), edge.to.clone())).collect();
        assert_eq!(
            ends,
            BTreeSet::from([
                (fact.memory.id.clone(), task.memory.id.clone()),
                (fact.memory.id.clone(), alice.clone()),
            ])
        );

        // It restores into the share's namespace as it is, and the
        // person's namespace keeps its own.
        let share = Namespace::parse("share.0123456789abcdef").unwrap();
        let (_, restored) = replica.restore(&share, at, &shared).unwrap();
        assert_eq!(
            (restored.memories, restored.entities, restored.aliases, restored.edges),
            (3, 1, 1, 2)
        );
        let back = replica.archive(&share).unwrap();
        let ids = |archive: &Archive| -> BTreeSet<String> {
            archive.memories.iter().map(|stored| stored.memory.id.clone()).collect()
        };
        assert_eq!(ids(&back), ids(&shared));
        assert_eq!(replica.archive(&work).unwrap().memories.len(), 6);
    }
}
