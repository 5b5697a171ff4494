//! The knowledge graph, as agents write and read it: `link` (a relation
//! between two entities or two memories), `graph` (a bounded walk from an
//! entity or a memory), `entity` (an entity's whole story) and `update`
//! (a memory edited: a new version when its meaning changes, in place when
//! only its bookkeeping does).
//!
//! A link is itself a memory: a fact whose subject and object are the two
//! ends and whose predicate is the relation, with source
//! [`LINK_SOURCE`], a note as its context
//! and its confidence. So it is sealed, synced, forgotten and versioned like
//! any memory, and stating it again grows its evidence (a counter: two
//! devices that each state it count twice). A fact stored with `store`
//! whose object names an entity is a relation too.

use std::{
    cell::RefCell,
    collections::{BTreeMap, BTreeSet, HashMap},
};

use ferrex_core::{
    Content, Edge, EdgeKind, FieldError, MemoryKind, Namespace, StoreInput, Triple,
    entity::normalise_name,
    predicate::Cardinality,
    validate,
    walk::{self, Direction, Hop, LINK_SOURCE, Walk},
};
use ferrex_sync::{NewMemory, NewRecords};

use super::{
    Engine, EngineError, EngineResult, RecallRequest, Recalled, ToolError, entities::Vectors, lock,
    new_id,
};
use crate::derived::{
    index::{
        MemoryRow,
        links::{ENTITY_ENDS, LinkRow, MEMORY_ENDS},
    },
    indexer::{self, KnownVectors},
};

/// Bytes a walk's answer may take (its nodes and edges as JSON, about
/// 3,000 tokens): an answer never floods the agent's context.
pub const GRAPH_BUDGET_BYTES: usize = 12_000;

/// Nodes a walk returns when the agent names no limit.
const DEFAULT_GRAPH_LIMIT: usize = 25;

/// The most characters of a memory's text a node shows.
const LABEL_CHARS: usize = 120;

/// Memories an entity's story shows.
const STORY_MEMORIES: usize = 5;

/// Relations an entity's story shows (a hub has thousands).
pub const STORY_RELATIONS: usize = 25;

/// One end of a link or the start of a walk.
#[derive(Debug, Clone, PartialEq)]
pub enum GraphNode {
    /// An entity: its canonical id and name.
    Entity {
        /// Canonical id.
        id: String,
        /// Name.
        name: String,
    },
    /// A memory.
    Memory {
        /// Id.
        id: String,
        /// Its text, cut short.
        label: String,
    },
}

impl GraphNode {
    /// Its id.
    pub fn id(&self) -> &str {
        match self {
            GraphNode::Entity { id, .. } | GraphNode::Memory { id, .. } => id,
        }
    }

    /// `entity` or `memory`.
    pub fn kind(&self) -> &'static str {
        match self {
            GraphNode::Entity { .. } => ENTITY_ENDS,
            GraphNode::Memory { .. } => MEMORY_ENDS,
        }
    }

    /// Its name or text.
    pub fn label(&self) -> &str {
        match self {
            GraphNode::Entity { name, .. } => name,
            GraphNode::Memory { label, .. } => label,
        }
    }
}

/// A `link` request.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRequest {
    /// Entity name or memory id.
    pub from: String,
    /// Entity name or memory id.
    pub to: String,
    /// The relation type, as written.
    pub relation: String,
    /// Why, or anything to keep with it.
    pub note: Option<String>,
    /// 0..=1.
    pub confidence: Option<f64>,
    /// Where entity names are resolved (a link between memories lives in
    /// theirs).
    pub namespace: Namespace,
}

/// What `link` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Linked {
    /// The memory that states the relation (for a reinforcement, the one
    /// stated before).
    pub id: String,
    /// Source.
    pub from: GraphNode,
    /// Target.
    pub to: GraphNode,
    /// Whether it was stated before: its evidence grew, nothing new stored.
    pub reinforced: bool,
    /// The edge now: its relation type, normalised, and every statement of
    /// it, on every device.
    pub edge: Hop,
    /// Where it lives.
    pub namespace: Namespace,
}

/// A `graph` request.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphRequest {
    /// Entity name or memory id.
    pub from: String,
    /// How far, which relations, which way, how many nodes.
    pub walk: Walk,
    /// Where entity names are resolved.
    pub namespace: Namespace,
}

/// An edge of a walk's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphEdge {
    /// The edge.
    pub hop: Hop,
    /// The depth of the hop that crossed it.
    pub depth: usize,
}

/// What `graph` found.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Nodes with their depth, the start first.
    pub nodes: Vec<(GraphNode, usize)>,
    /// Edges with their depth.
    pub edges: Vec<GraphEdge>,
    /// Whether the limit or the size budget left something out.
    pub truncated: bool,
}

/// An entity's whole story.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityStory {
    /// The canonical entity.
    pub id: String,
    /// Its canonical name.
    pub name: String,
    /// Every other name its class is known by.
    pub aliases: Vec<String>,
    /// Its kind, if known.
    pub kind: Option<String>,
    /// Facts about it (current ones; every one, oldest first, with history).
    pub facts: Vec<MemoryRow>,
    /// Its relations, out and in, with the other end: the
    /// [`STORY_RELATIONS`] heaviest.
    pub relations: Vec<(Hop, GraphNode)>,
    /// How many relations it has in all.
    pub relations_total: usize,
    /// The most relevant memories that mention it.
    pub memories: Vec<Recalled>,
}

/// An `update` request: the fields given change.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UpdateRequest {
    /// The memory.
    pub id: String,
    /// New text (text memories).
    pub content: Option<String>,
    /// New subject (facts).
    pub subject: Option<String>,
    /// New predicate (facts).
    pub predicate: Option<String>,
    /// New object (facts).
    pub object: Option<String>,
    /// The new tag set.
    pub tags: Option<Vec<String>>,
    /// New confidence.
    pub confidence: Option<f64>,
    /// New importance (the `importance:` tag).
    pub importance: Option<f64>,
}

/// What `update` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Updated {
    /// The memory as it is now: a new version's id, or the same id.
    pub id: String,
    /// The version it replaced (a change of meaning).
    pub replaces: Option<String>,
    /// Whether an existing memory already said the new text: nothing new
    /// was stored, and `id` names that memory.
    pub duplicate: bool,
    /// What changed.
    pub changed: Vec<&'static str>,
}

impl Engine {
    /// Links two entities or two memories by `relation`; a relation stated
    /// before is reinforced.
    pub fn link(&self, request: LinkRequest) -> Result<Linked, ToolError> {
        let from = validate::required_text("from", &request.from, validate::MAX_NAME_BYTES)?;
        let to = validate::required_text("to", &request.to, validate::MAX_NAME_BYTES)?;
        let from_memory = self.memory_end("from", &from)?;
        let to_memory = self.memory_end("to", &to)?;
        let namespace = match (&from_memory, &to_memory) {
            (Some(a), Some(b)) if a.namespace != b.namespace => {
                return Err(FieldError::new(
                    "to",
                    format!(
                        "is a memory of namespace {:?} and from one of {:?}: links join \
                         memories of one namespace",
                        b.namespace, a.namespace
                    ),
                )
                .into());
            }
            (Some(a), Some(_)) => Namespace::parse(&a.namespace)?,
            (None, None) => request.namespace.clone(),
            _ => {
                return Err(FieldError::new(
                    "to",
                    "from and to must both be memory ids or both entity names",
                )
                .into());
            }
        };
        let settings = self.settings(namespace.as_str()).clone();
        let relation = walk::relation("relation", &request.relation, &settings.predicates)?;
        // Validated and screened for credentials as a store of the same fact.
        let mut checked = validate::validate_store(StoreInput {
            subject: Some(from.clone()),
            predicate: Some(relation.clone()),
            object: Some(to.clone()),
            kind: Some(MemoryKind::Semantic),
            namespace: Some(namespace.as_str().to_owned()),
            confidence: request.confidence,
            context: request.note.clone(),
            source: Some(LINK_SOURCE.to_owned()),
            ..StoreInput::default()
        })
        .map_err(|error| match error.field.as_str() {
            "context" => FieldError::new("note", error.reason),
            _ => error,
        })?;
        ferrex_core::secrets::screen(&mut checked, settings.secrets).map_err(
            |error| match error.field.as_str() {
                "context" => FieldError::new("note", error.reason),
                _ => error,
            },
        )?;
        let entity_link = from_memory.is_none();
        let mut cache = Vectors::default();
        if entity_link {
            self.prepare_names(&namespace, &[from.clone(), to.clone()], &mut cache)?;
        }

        let _writing = lock(&self.write_lock);
        let now = self.now();
        let device = self.replica.device().to_owned();
        let (resolved, from_id, to_id) = if entity_link {
            let resolved =
                self.resolve_names(&namespace, &[from.clone(), to.clone()], now, &mut cache)?;
            let from_id = resolved.id_of(&from).map(str::to_owned);
            let to_id = resolved.id_of(&to).map(str::to_owned);
            let (Some(from_id), Some(to_id)) = (from_id, to_id) else {
                return Err(EngineError::Inconsistent(
                    "an end of the link resolved to no entity".into(),
                )
                .into());
            };
            (Some(resolved), from_id, to_id)
        } else {
            (None, from.clone(), to.clone())
        };
        let ends = if entity_link { ENTITY_ENDS } else { MEMORY_ENDS };
        let same = from_id == to_id || {
            // Two names of one entity class (new entities have no class yet).
            let index = lock(&self.index);
            let canonical = |id: &str| index.entity(id).map(|found| found.map(|(_, c)| c));
            entity_link
                && canonical(&from_id)?.is_some_and(|a| Some(a) == canonical(&to_id).ok().flatten())
        };
        if same {
            return Err(
                FieldError::new("to", "names the same node as from: nothing to link").into()
            );
        }
        let pair = |index: &crate::derived::index::Index| {
            index.pair_links(namespace.as_str(), &relation, &from_id, &to_id, ends)
        };
        let stated = pair(&lock(&self.index))?;
        let existing = stated
            .into_iter()
            .find(|(_, source)| source.as_deref() == Some(LINK_SOURCE))
            .map(|(row, _)| row.statement);
        let (id, reinforced) = if let Some(existing) = existing {
            if let Some(change) = self.replica.add_evidence(&existing, 1, now)? {
                let mut index = lock(&self.index);
                indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
            }
            (existing, true)
        } else {
            let id = new_id();
            let resolved = resolved.unwrap_or_default();
            let written = ferrex_core::predicate::fold(&request.relation);
            let memory = NewMemory {
                id: id.clone(),
                kind: MemoryKind::Semantic,
                content: Content::Triple(Triple {
                    subject: from.clone(),
                    predicate: relation.clone(),
                    object: to.clone(),
                }),
                confidence: checked.confidence,
                source: Some(LINK_SOURCE.to_owned()),
                context: checked.context.clone(),
                tags: vec![],
                entity_ids: if entity_link { vec![to_id.clone()] } else { vec![] },
                subject_entity: entity_link.then(|| from_id.clone()),
                predicate_written: (written != relation).then_some(written),
                cardinality: Some(Cardinality::Many),
                created_at: now,
                created_by: device,
                t_valid: now,
            };
            let records = NewRecords {
                memories: vec![memory],
                entities: resolved.entities.clone(),
                aliases: resolved.aliases.clone(),
                edges: resolved.edges.clone(),
            };
            let change = self.replica.write_new(&namespace, now, &records)?;
            let mut index = lock(&self.index);
            super::entities::store_entity_vectors(&mut index, &resolved.vectors)?;
            indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
            drop(index);
            // Its vector is the worker's.
            self.work.notify();
            (id, false)
        };
        let index = lock(&self.index);
        let (from_node, to_node) = if entity_link {
            (self.entity_node(&index, &from_id)?, self.entity_node(&index, &to_id)?)
        } else {
            (self.memory_node(&index, &from_id)?, self.memory_node(&index, &to_id)?)
        };
        // The edge: every statement of this relation between the two.
        let statements = pair(&index)?.into_iter().map(|(row, _)| row).collect();
        let edge = fold_hops(statements).pop().ok_or_else(|| {
            EngineError::Inconsistent(format!("the link {id} is stored but not indexed"))
        })?;
        Ok(Linked { id, from: from_node, to: to_node, reinforced, edge, namespace })
    }

    /// The live memory `text` names when it is a memory id; an error when
    /// it has a memory id's form but names none.
    fn memory_end(&self, field: &str, text: &str) -> Result<Option<MemoryRow>, ToolError> {
        if uuid::Uuid::parse_str(text).is_err() {
            return Ok(None);
        }
        let row = lock(&self.index).row(text)?;
        match row {
            Some(row) => Ok(Some(row)),
            None => Err(self.missing_memory(field, text)),
        }
    }

    /// The error for a memory id that names no live memory.
    fn missing_memory(&self, field: &str, id: &str) -> ToolError {
        let forgotten = lock(&self.index).is_forgotten(id).unwrap_or(false);
        let reason = if forgotten {
            format!("{id} was forgotten")
        } else {
            format!("names no memory: {id} does not exist")
        };
        FieldError::new(field, reason).into()
    }

    fn entity_node(
        &self,
        index: &crate::derived::index::Index,
        id: &str,
    ) -> EngineResult<GraphNode> {
        let canonical = index.entity(id)?.map_or_else(|| id.to_owned(), |(_, canonical)| canonical);
        let name = index.entity(&canonical)?.map(|(name, _)| name).unwrap_or_default();
        Ok(GraphNode::Entity { id: canonical, name })
    }

    fn memory_node(
        &self,
        index: &crate::derived::index::Index,
        id: &str,
    ) -> EngineResult<GraphNode> {
        let label = index.row(id)?.map(|row| label_of(&row.text)).unwrap_or_default();
        Ok(GraphNode::Memory { id: id.to_owned(), label })
    }

    /// Walks out from an entity or a memory.
    pub fn graph(&self, request: &GraphRequest) -> Result<Graph, ToolError> {
        let from = validate::required_text("from", &request.from, validate::MAX_NAME_BYTES)?;
        let start = match self.memory_end("from", &from)? {
            Some(row) => GraphNode::Memory { id: row.id.clone(), label: label_of(&row.text) },
            None => {
                let canonical = self.entity_named("from", &request.namespace, &from)?;
                self.entity_node(&lock(&self.index), &canonical)?
            }
        };
        let entities = matches!(start, GraphNode::Entity { .. });
        let index = lock(&self.index);
        // Labels are read for the nodes the walk keeps only (a hub's edges
        // name thousands of nodes it does not).
        let labels: RefCell<HashMap<String, GraphNode>> =
            RefCell::new(HashMap::from([(start.id().to_owned(), start.clone())]));
        let failed: RefCell<Option<EngineError>> = RefCell::new(None);
        let label = |id: &str| -> GraphNode {
            if let Some(node) = labels.borrow().get(id) {
                return node.clone();
            }
            let read =
                if entities { self.entity_node(&index, id) } else { self.memory_node(&index, id) };
            let node = read.unwrap_or_else(|error| {
                failed.borrow_mut().get_or_insert(error);
                GraphNode::Memory { id: id.to_owned(), label: String::new() }
            });
            labels.borrow_mut().insert(id.to_owned(), node.clone());
            node
        };
        let walked = walk::walk(
            start.id(),
            &request.walk,
            |node| -> EngineResult<Vec<Hop>> {
                let rows =
                    if entities { index.entity_links(node)? } else { index.memory_links(node)? };
                Ok(fold_hops(rows))
            },
            |id| node_cost(&label(id)),
            hop_cost,
        )?;
        let nodes =
            walked.nodes.iter().map(|reached| (label(&reached.id), reached.depth)).collect();
        if let Some(error) = failed.take() {
            return Err(error.into());
        }
        let graph = Graph {
            nodes,
            edges: walked
                .edges
                .into_iter()
                .map(|crossed| GraphEdge { hop: crossed.hop, depth: crossed.depth })
                .collect(),
            truncated: walked.truncated,
        };
        Ok(graph)
    }

    /// The canonical entity `name` resolves to in `namespace` (by name,
    /// alias or spelling); an error naming `field` when none does.
    fn entity_named(
        &self,
        field: &str,
        namespace: &Namespace,
        name: &str,
    ) -> Result<String, ToolError> {
        self.lookup_names(namespace, &[name.to_owned()])?.pop().ok_or_else(|| {
            FieldError::new(
                field,
                format!("names no entity or memory of namespace {namespace:?}: {name:?}"),
            )
            .into()
        })
    }

    /// Everything about an entity.
    pub fn entity_story(
        &self,
        namespace: &Namespace,
        name: &str,
        include_history: bool,
    ) -> Result<EntityStory, ToolError> {
        let name = validate::required_text("name", name, validate::MAX_NAME_BYTES)?;
        let canonical = self.entity_named("name", namespace, &name)?;
        let (node, aliases, kind, facts, relations) = {
            let index = lock(&self.index);
            let node = self.entity_node(&index, &canonical)?;
            // Other names, one spelling each (the first in order).
            let mut names = index.class_names(&canonical)?;
            names.sort();
            let mut seen = BTreeSet::from([normalise_name(node.label())]);
            let aliases: Vec<String> =
                names.into_iter().filter(|name| seen.insert(normalise_name(name))).collect();
            let kind = index.entity_kind(&canonical)?;
            let statuses: &[&str] =
                if include_history { &[] } else { &["active", "contested", "current"] };
            let facts: Vec<MemoryRow> = index
                .facts_about(namespace.as_str(), &canonical, statuses)?
                .into_iter()
                .filter(|row| row.source.as_deref() != Some(LINK_SOURCE))
                .filter(|row| row.derived.duplicate_of.is_none())
                .collect();
            let mut hops: Vec<Hop> = fold_hops(index.entity_links(&canonical)?)
                .into_iter()
                .filter(|hop| hop.from != hop.to)
                .collect();
            let total = hops.len();
            // The heaviest first; ties by type and ends, alike on every device.
            hops.sort_by(|a, b| {
                b.weight
                    .cmp(&a.weight)
                    .then_with(|| (&a.relation, &a.from, &a.to).cmp(&(&b.relation, &b.from, &b.to)))
            });
            hops.truncate(STORY_RELATIONS);
            let mut relations = Vec::new();
            for hop in hops {
                let other = if hop.from == canonical { &hop.to } else { &hop.from };
                let other = self.entity_node(&index, other)?;
                relations.push((hop, other));
            }
            (node, aliases, kind, facts, (relations, total))
        };
        let (memories, _, _) = self.recall(&RecallRequest {
            query: node.label().to_owned(),
            namespace: namespace.clone(),
            kinds: vec![MemoryKind::Episodic, MemoryKind::Procedural],
            limit: STORY_MEMORIES,
            entities: vec![node.label().to_owned()],
            start: None,
            end: None,
            include_stale: true,
            include_invalidated: false,
            validate_ids: vec![],
            diversity: 0.0,
            sources: super::Sources::Memories,
            path: None,
        })?;
        Ok(EntityStory {
            id: canonical,
            name: node.label().to_owned(),
            aliases,
            kind,
            facts,
            relations: relations.0,
            relations_total: relations.1,
            memories,
        })
    }

    /// Edits a memory: a change of meaning (text, triple) stores a new
    /// version that supersedes it; a change of bookkeeping (tags,
    /// confidence, importance) edits it in place.
    pub fn update(&self, request: UpdateRequest) -> Result<Updated, ToolError> {
        let id = validate::memory_id("id", &request.id)?;
        // Every parameter is checked before the memory is looked up.
        let confidence = request
            .confidence
            .map(|value| validate::unit_interval("confidence", value))
            .transpose()?;
        let importance = request
            .importance
            .map(|value| validate::unit_interval("importance", value))
            .transpose()?;
        let given_tags =
            request.tags.clone().map(|tags| validate::name_list("tags", tags)).transpose()?;
        let row = lock(&self.index).row(&id)?;
        let Some(row) = row else { return Err(self.missing_memory("id", &id)) };
        if ferrex_core::chunk::is_file_chunk(row.source.as_deref()) {
            return Err(FieldError::new(
                "id",
                "is a chunk of a watched file: edit the file (its chunks follow it)",
            )
            .into());
        }
        if row.source.as_deref().is_some_and(|source| {
            source != LINK_SOURCE && ferrex_core::working::is_reserved_source(source)
        }) {
            return Err(FieldError::new(
                "id",
                "is working state (a session event, task or exchange): use session, task or observe",
            )
            .into());
        }
        let triple_given =
            request.subject.is_some() || request.predicate.is_some() || request.object.is_some();
        if triple_given
            && row.source.as_deref() == Some(LINK_SOURCE)
            && row.subject_entity.is_none()
        {
            return Err(FieldError::new(
                "id",
                "is a link between memories: link the new pair and forget this one",
            )
            .into());
        }
        match (row.kind, &request.content, triple_given) {
            (MemoryKind::Semantic, Some(_), _) => {
                return Err(FieldError::new(
                    "content",
                    "the memory is a fact: give subject, predicate or object",
                )
                .into());
            }
            (MemoryKind::Episodic | MemoryKind::Procedural, _, true) => {
                return Err(
                    FieldError::new("subject", "the memory is text: give its new content").into()
                );
            }
            _ => {}
        }
        let mut tags = given_tags.unwrap_or_else(|| row.tags.clone());
        if let Some(importance) = importance {
            tags.retain(|tag| !tag.starts_with("importance:"));
            tags.push(format!("importance:{importance:.2}"));
        }
        let mut changed = Vec::new();
        let text_changes =
            request.content.as_deref().is_some_and(|content| content.trim() != row.text.trim());
        let field_changes = |new: &Option<String>, old: &Option<String>| {
            new.as_deref().is_some_and(|new| Some(new.trim()) != old.as_deref().map(str::trim))
        };
        let triple_changes = field_changes(&request.subject, &row.subject)
            || field_changes(&request.predicate, &row.predicate)
            || field_changes(&request.object, &row.object);
        if text_changes {
            changed.push("content");
        }
        if triple_changes {
            changed.push("triple");
        }
        let as_set = |tags: &[String]| tags.iter().cloned().collect::<BTreeSet<String>>();
        if as_set(&tags) != as_set(&row.tags) {
            changed.push(if request.tags.is_some() { "tags" } else { "importance" });
            if request.tags.is_some() && importance.is_some() {
                changed.push("importance");
            }
        }
        if confidence.is_some_and(|value| value != row.confidence) {
            changed.push("confidence");
        }
        if changed.is_empty() {
            return Err(FieldError::new(
                "id",
                "nothing to change: give content, subject/predicate/object, tags, confidence or \
                 importance that differ from the memory's",
            )
            .into());
        }
        if !text_changes && !triple_changes {
            let writing = lock(&self.write_lock);
            let change = self.replica.edit_memory(&id, Some(&tags), confidence, self.now())?;
            let Some(change) = change else {
                drop(writing);
                return Err(self.missing_memory("id", &id));
            };
            let mut index = lock(&self.index);
            indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
            return Ok(Updated { id, replaces: None, duplicate: false, changed });
        }
        let namespace = Namespace::parse(&row.namespace)?;
        let names: Vec<String> = {
            let index = lock(&self.index);
            let mut names = Vec::new();
            for entity in &row.entities {
                if let Some((name, _)) = index.entity(entity)? {
                    names.push(name);
                }
            }
            names
        };
        let new_or =
            |new: &Option<String>, old: &Option<String>| new.clone().or_else(|| old.clone());
        let input = StoreInput {
            content: (row.kind != MemoryKind::Semantic)
                .then(|| request.content.clone().unwrap_or_else(|| row.text.clone())),
            subject: new_or(&request.subject, &row.subject),
            predicate: new_or(&request.predicate, &row.predicate),
            object: new_or(&request.object, &row.object),
            kind: Some(row.kind),
            namespace: Some(namespace.as_str().to_owned()),
            confidence: Some(confidence.unwrap_or(row.confidence)),
            entities: names,
            tags,
            source: row.source.clone(),
            context: row.context.clone(),
            supersedes: Some(id.clone()),
            valid_from: None,
        };
        let stored = match self.store(input, false) {
            Ok(stored) => stored,
            Err(error) => {
                let gone = lock(&self.index).row(&id)?.is_none();
                // Forgotten while the new version was prepared.
                return Err(if gone { self.missing_memory("id", &id) } else { error });
            }
        };
        if stored.duplicate {
            return Ok(Updated { id: stored.id, replaces: None, duplicate: true, changed });
        }
        let edge = Edge {
            kind: EdgeKind::VersionOf,
            from: stored.id.clone(),
            to: id.clone(),
            created_at: self.now(),
            created_by: self.replica.device().to_owned(),
        };
        let _writing = lock(&self.write_lock);
        // The old version may have been forgotten meanwhile: then the new
        // one goes with it (every version goes).
        let gone = lock(&self.index).row(&id)?.is_none();
        if gone {
            drop(_writing);
            self.forget(std::slice::from_ref(&stored.id))?;
            return Err(self.missing_memory("id", &id));
        }
        let change = self.replica.add_edges(&namespace, vec![edge], self.now())?;
        let mut index = lock(&self.index);
        indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
        Ok(Updated { id: stored.id, replaces: Some(id), duplicate: false, changed })
    }

    /// What forgetting `ids` takes with it: every version of them, and the
    /// links between memories that name any of those.
    pub(super) fn forget_closure(&self, ids: &[String]) -> EngineResult<Vec<String>> {
        let index = lock(&self.index);
        let mut all: BTreeSet<String> = ids.iter().cloned().collect();
        all.extend(index.versions_of(ids)?);
        let versions: Vec<String> = all.iter().cloned().collect();
        all.extend(index.links_naming(&versions)?);
        let mut ordered: Vec<String> = ids.to_vec();
        ordered.extend(all.into_iter().filter(|id| !ids.contains(id)));
        Ok(ordered)
    }
}

/// Statements of one relation between the same two nodes folded into one
/// edge: weights summed, devices and statements sorted.
pub fn fold_hops(rows: Vec<LinkRow>) -> Vec<Hop> {
    let mut folded: BTreeMap<(String, String, String), Hop> = BTreeMap::new();
    for row in rows {
        let hop = folded
            .entry((row.relation.clone(), row.from.clone(), row.to.clone()))
            .or_insert_with(|| Hop {
                relation: row.relation.clone(),
                from: row.from.clone(),
                to: row.to.clone(),
                weight: 0,
                by: vec![],
                statements: vec![],
            });
        if hop.statements.contains(&row.statement) {
            continue;
        }
        hop.weight += row.evidence.max(1);
        hop.statements.push(row.statement);
        if !hop.by.contains(&row.by) {
            hop.by.push(row.by);
        }
    }
    folded
        .into_values()
        .map(|mut hop| {
            hop.by.sort();
            hop.statements.sort();
            hop
        })
        .collect()
}

/// A memory's text cut to [`LABEL_CHARS`] characters.
fn label_of(text: &str) -> String {
    match text.char_indices().nth(LABEL_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// About what a node takes in the answer, as JSON.
fn node_cost(node: &GraphNode) -> usize {
    60 + node.id().len() + node.label().len()
}

/// About what an edge takes in the answer, as JSON.
fn hop_cost(hop: &Hop) -> usize {
    90 + hop.relation.len()
        + hop.from.len()
        + hop.to.len()
        + hop.by.iter().map(|by| by.len() + 3).sum::<usize>()
        + hop.statements.iter().map(|id| id.len() + 3).sum::<usize>()
}

/// Where a walk's parameters become a [`Walk`].
pub fn walk_settings(
    depth: Option<i64>,
    relations: Vec<String>,
    direction: Option<&str>,
    limit: Option<i64>,
    groups: &ferrex_core::predicate::PredicateGroups,
) -> Result<Walk, FieldError> {
    let depth = match depth {
        None => 2,
        Some(depth) if (0..=walk::MAX_DEPTH as i64).contains(&depth) => depth as usize,
        Some(depth) => {
            return Err(FieldError::new(
                "depth",
                format!("must be between 0 and {}, not {depth}", walk::MAX_DEPTH),
            ));
        }
    };
    let direction = match direction {
        None => Direction::Both,
        Some(text) => {
            text.parse().map_err(|reason: String| FieldError::new("direction", reason))?
        }
    };
    let limit = match limit {
        None => DEFAULT_GRAPH_LIMIT,
        limit => validate::recall_limit(limit)?,
    };
    if relations.len() > validate::MAX_LIST_ITEMS {
        return Err(FieldError::new(
            "relations",
            format!("lists {}; at most {}", relations.len(), validate::MAX_LIST_ITEMS),
        ));
    }
    let relations = relations
        .iter()
        .enumerate()
        .map(|(index, text)| {
            walk::relation(&format!("relations[{index}]"), text, groups).or_else(|error| {
                // ferrex's own edges between memories may be walked.
                let folded = ferrex_core::predicate::fold(text);
                if folded == "supersedes" || folded == "corrects" { Ok(folded) } else { Err(error) }
            })
        })
        .collect::<Result<BTreeSet<String>, FieldError>>()?;
    Ok(Walk { depth, relations, direction, limit, budget: GRAPH_BUDGET_BYTES })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        relation: &str,
        from: &str,
        to: &str,
        statement: &str,
        evidence: i64,
        by: &str,
    ) -> LinkRow {
        LinkRow {
            relation: relation.to_owned(),
            from: from.to_owned(),
            to: to.to_owned(),
            statement: statement.to_owned(),
            evidence,
            by: by.to_owned(),
        }
    }

    #[test]
    fn statements_of_one_relation_fold_into_one_edge_weighted_by_every_statement() {
        let hops = fold_hops(vec![
            // The laptop stated it once; the desktop twice (one statement,
            // its evidence grown), and the same row seen twice counts once.
            row("depends_on", "ferrex", "automerge", "s1", 1, "laptop"),
            row("depends_on", "ferrex", "automerge", "s2", 2, "desktop"),
            row("depends_on", "ferrex", "automerge", "s2", 2, "desktop"),
            // Another relation between the same two, and the other way.
            row("built_with", "ferrex", "automerge", "s3", 1, "laptop"),
            row("depends_on", "automerge", "ferrex", "s4", 1, "laptop"),
        ]);
        type Summary<'a> = (&'a str, &'a str, i64, Vec<&'a str>, Vec<&'a str>);
        let summary: Vec<Summary<'_>> = hops
            .iter()
            .map(|hop| {
                (
                    hop.relation.as_str(),
                    hop.from.as_str(),
                    hop.weight,
                    hop.by.iter().map(String::as_str).collect(),
                    hop.statements.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("built_with", "ferrex", 1, vec!["laptop"], vec!["s3"]),
                ("depends_on", "automerge", 1, vec!["laptop"], vec!["s4"]),
                ("depends_on", "ferrex", 3, vec!["desktop", "laptop"], vec!["s1", "s2"]),
            ]
        );
    }

    #[test]
    fn walk_parameters_are_checked_and_relation_filters_folded() {
        let groups = ferrex_core::predicate::PredicateGroups::default();
        let walk =
            walk_settings(None, vec!["Uses".into(), "supersedes".into()], None, None, &groups)
                .expect("valid");
        assert_eq!((walk.depth, walk.limit, walk.direction), (2, 25, Direction::Both));
        assert_eq!(walk.relations, BTreeSet::from(["depends_on".into(), "supersedes".into()]));
        assert_eq!(walk_settings(Some(6), vec![], None, None, &groups).unwrap_err().field, "depth");
        assert_eq!(
            walk_settings(Some(-1), vec![], None, None, &groups).unwrap_err().field,
            "depth"
        );
        assert_eq!(
            walk_settings(None, vec![], Some("up"), None, &groups).unwrap_err().field,
            "direction"
        );
        assert_eq!(walk_settings(None, vec![], None, Some(0), &groups).unwrap_err().field, "limit");
        assert_eq!(
            walk_settings(None, vec!["same_as".into()], None, None, &groups).unwrap_err().field,
            "relations[0]"
        );
    }
}
