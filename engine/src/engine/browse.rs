//! What a person browses: memories listed by filters, one memory with all
//! that is known of it, and the tags and entities with their counts.

use ferrex_core::{MemoryKind, Namespace, Timestamp};

use super::{Engine, HistoryEntry, Recalled, ToolError, lock, recall::judge};
use crate::derived::index::{EdgeRow, MemoryFilter, Namespaces};

/// The namespaces a person's read spans: a project's and `default` (as an
/// agent's recall there), one named, or every one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// These.
    Of(Vec<Namespace>),
    /// Every namespace of this node.
    Every,
}

impl Default for Reach {
    fn default() -> Self {
        Reach::Of(vec![Namespace::default()])
    }
}

/// What `list` lists.
#[derive(Debug, Clone, Default)]
pub struct ListRequest {
    /// The namespaces.
    pub reach: Reach,
    /// Of these kinds (any when empty).
    pub kinds: Vec<MemoryKind>,
    /// With this tag.
    pub tag: Option<String>,
    /// About these entities (names; any of them).
    pub entities: Vec<String>,
    /// Valid from this time on.
    pub since: Option<Timestamp>,
    /// Valid before this time.
    pub until: Option<Timestamp>,
    /// With this derived status; `None` is any but superseded, `any` any.
    pub status: Option<String>,
    /// How many at most.
    pub limit: usize,
    /// How many to skip first.
    pub offset: usize,
}

/// A page of memories and how many there are in all.
#[derive(Debug)]
pub struct Listed {
    /// The page, newest first (by when each became true).
    pub memories: Vec<Recalled>,
    /// How many memories the filters let through.
    pub total: usize,
}

/// A memory with all that is known of it.
#[derive(Debug)]
pub struct Shown {
    /// The memory, its staleness and trust (no score).
    pub memory: Recalled,
    /// The entities it is about: id and name.
    pub entities: Vec<(String, String)>,
    /// Every edge that starts or ends at it.
    pub edges: Vec<EdgeRow>,
    /// Its belief's history (see [`Engine::history`]).
    pub history: Vec<HistoryEntry>,
}

/// An entity with the memories about it and its neighbours.
#[derive(Debug)]
pub struct EntityView {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
    /// The memories about it (any of its class), newest first, superseded
    /// ones too.
    pub memories: Vec<Recalled>,
    /// Other entities those memories are about: id, name, how many.
    pub neighbours: Vec<(String, String, usize)>,
    /// Its relations (links, and facts whose object is an entity), out and
    /// in: the edge, the other end's name, and whether it goes out.
    pub relations: Vec<(ferrex_core::walk::Hop, String, bool)>,
}

/// Tags and entities of a namespace with their counts.
#[derive(Debug)]
pub struct Topics {
    /// Tag and how many memories carry it.
    pub tags: Vec<(String, usize)>,
    /// Entity (canonical id, name) and how many memories are about it.
    pub entities: Vec<(String, String, usize)>,
}

impl Engine {
    /// The namespaces `reach` spans, by name: those it names, or every one
    /// this node holds a memory of.
    pub fn spanned(&self, reach: &Reach) -> Result<Vec<String>, ToolError> {
        Ok(match reach {
            Reach::Of(namespaces) => {
                namespaces.iter().map(|name| name.as_str().to_owned()).collect()
            }
            Reach::Every => lock(&self.index).namespaces()?,
        })
    }

    /// A page of the memories that pass `request`'s filters.
    pub fn list(&self, request: &ListRequest) -> Result<Listed, ToolError> {
        let names = self.spanned(&request.reach)?;
        // Entities are resolved in each namespace spanned.
        let entity_ids = if request.entities.is_empty() {
            None
        } else {
            let mut ids = Vec::new();
            for name in &names {
                let namespace = Namespace::parse(name)?;
                ids.extend(self.entity_filter(&namespace, &request.entities)?.unwrap_or_default());
            }
            Some(ids)
        };
        let namespaces = match request.reach {
            Reach::Of(_) => Namespaces::Of(&names),
            Reach::Every => Namespaces::Every,
        };
        let any = request.status.as_deref() == Some("any");
        let filter = MemoryFilter {
            namespaces,
            kinds: &request.kinds,
            entities: entity_ids.as_deref(),
            tag: request.tag.as_deref(),
            start: request.since.map(|time| time.0),
            end: request.until.map(|time| time.0),
            status: request.status.as_deref().filter(|_| !any),
            invalidated: any,
        };
        let (rows, total) = lock(&self.index).list(&filter, request.limit, request.offset)?;
        Ok(Listed { memories: self.judged(rows), total })
    }

    /// `rows` with their staleness and trust now, as recall judges them in
    /// each one's namespace (no score: nothing was searched).
    fn judged(&self, rows: Vec<crate::derived::index::MemoryRow>) -> Vec<Recalled> {
        let now = self.now();
        rows.into_iter()
            .map(|row| {
                let (staleness, confidence) = judge(&row, now, self.settings(&row.namespace));
                Recalled { row, score: 0.0, staleness, confidence }
            })
            .collect()
    }

    /// Memory `id` with its entities, edges and history; `None` if no
    /// memory has that id (never stored, or forgotten).
    pub fn show(&self, id: &str) -> Result<Option<Shown>, ToolError> {
        let Some(row) = self.memory(id)? else { return Ok(None) };
        let namespace = Namespace::parse(&row.namespace)?;
        let (staleness, confidence) = judge(&row, self.now(), self.settings(&row.namespace));
        let (entities, edges) = {
            let index = lock(&self.index);
            let mut ids = row.entities.clone();
            ids.extend(row.subject_entity.clone());
            ids.sort();
            ids.dedup();
            let mut entities = Vec::new();
            for entity in ids {
                if let Some((name, _)) = index.entity(&entity)? {
                    entities.push((entity, name));
                }
            }
            (entities, index.edges_touching(id)?)
        };
        let history = self.history(&namespace, Some(id), None)?;
        Ok(Some(Shown {
            memory: Recalled { row, score: 0.0, staleness, confidence },
            entities,
            edges,
            history,
        }))
    }

    /// Entity `id` with (up to `limit` of) the memories about it and the
    /// entities they share; `None` if no entity has that id.
    pub fn entity(&self, id: &str, limit: usize) -> Result<Option<EntityView>, ToolError> {
        let index = lock(&self.index);
        let Some((namespace, name, canonical)) = index.entity_place(id)? else {
            return Ok(None);
        };
        let members = index.class_members(&canonical)?;
        let only = [namespace.clone()];
        let filter = MemoryFilter {
            namespaces: Namespaces::Of(&only),
            entities: Some(&members),
            invalidated: true,
            ..MemoryFilter::default()
        };
        let (rows, _) = index.list(&filter, limit, 0)?;
        let mut counts: std::collections::BTreeMap<String, usize> =
            std::collections::BTreeMap::new();
        for row in &rows {
            let mut others: Vec<&String> =
                row.entities.iter().chain(row.subject_entity.iter()).collect();
            others.sort();
            others.dedup();
            for other in others {
                if !members.contains(other) {
                    *counts.entry(other.clone()).or_default() += 1;
                }
            }
        }
        let mut neighbours = Vec::new();
        for (other, count) in counts {
            if let Some((other_name, _)) = index.entity(&other)? {
                neighbours.push((other, other_name, count));
            }
        }
        neighbours.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
        let mut relations = Vec::new();
        for hop in super::graph::fold_hops(index.entity_links(&canonical)?) {
            let out = hop.from == canonical;
            let other = if out { &hop.to } else { &hop.from };
            let other_name = index.entity(other)?.map(|(name, _)| name).unwrap_or_default();
            relations.push((hop, other_name, out));
        }
        drop(index);
        let memories = self.judged(rows);
        Ok(Some(EntityView { id: id.to_owned(), name, namespace, memories, neighbours, relations }))
    }

    /// The `limit` most used tags and entities of the namespaces `reach`
    /// spans.
    pub fn topics(&self, reach: &Reach, limit: usize) -> Result<Topics, ToolError> {
        let names = self.spanned(reach)?;
        let namespaces = match reach {
            Reach::Of(_) => Namespaces::Of(&names),
            Reach::Every => Namespaces::Every,
        };
        let index = lock(&self.index);
        Ok(Topics {
            tags: index.tag_counts(namespaces, limit)?,
            entities: index.entity_counts(namespaces, limit)?,
        })
    }
}
