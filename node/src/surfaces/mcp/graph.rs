//! The knowledge graph's tools: `link`, `graph`, `entity` and `update`.
//! They share parameter names (`from`, `to`, `relation`, `namespace`) and
//! answer shapes: a node is `{id, kind, label}`, an edge `{relation, from,
//! to, weight, by, statements}`.

use ferrex_core::walk::Hop;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{answers, params, working::Origin};
use ferrex_engine::engine::{
    Engine, ToolError,
    graph::{self, GraphRequest, LinkRequest, Node, UpdateRequest},
};

/// A node of the graph.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NodeAnswer {
    /// An entity's canonical id, or a memory's id.
    pub id: String,
    /// `entity` or `memory`.
    pub kind: &'static str,
    /// An entity's name, or the start of a memory's text.
    pub label: String,
    /// Hops from the start (graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
}

fn node(node: &Node, depth: Option<usize>) -> NodeAnswer {
    NodeAnswer {
        id: node.id().to_owned(),
        kind: node.kind(),
        label: node.label().to_owned(),
        depth,
    }
}

/// An edge of the graph: every statement of one relation between two nodes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EdgeAnswer {
    /// The relation type.
    pub relation: String,
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
    /// How often it was stated, on every device.
    pub weight: i64,
    /// The devices that stated it, by name (id when unnamed), sorted.
    pub by: Vec<String>,
    /// The memories that state it.
    pub statements: Vec<String>,
    /// The depth of the hop that crossed it (graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
}

fn edge(hop: &Hop, depth: Option<usize>, names: answers::DeviceNames<'_>) -> EdgeAnswer {
    let mut by: Vec<String> =
        hop.by.iter().map(|id| names(id).unwrap_or_else(|| id.clone())).collect();
    by.sort();
    EdgeAnswer {
        relation: hop.relation.clone(),
        from: hop.from.clone(),
        to: hop.to.clone(),
        weight: hop.weight,
        by,
        statements: hop.statements.clone(),
        depth,
    }
}

/// The answer of `link`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkAnswer {
    /// The memory that states the relation.
    pub id: String,
    /// Whether it was stated before (its weight grew; nothing new stored).
    pub reinforced: bool,
    /// The edge as it stands now.
    pub edge: EdgeAnswer,
    /// Its two ends.
    pub nodes: Vec<NodeAnswer>,
}

/// The answer of `graph`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphAnswer {
    /// Nodes, the start first, with their depth.
    pub nodes: Vec<NodeAnswer>,
    /// Edges crossed.
    pub edges: Vec<EdgeAnswer>,
    /// Whether the limit or the size budget left nodes or edges out.
    pub truncated: bool,
}

/// The answer of `entity`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EntityAnswer {
    /// The entity.
    pub node: NodeAnswer,
    /// Its other names.
    pub aliases: Vec<String>,
    /// Its kind, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_kind: Option<String>,
    /// Facts about it (current; every one with include_history).
    pub facts: Vec<answers::Memory>,
    /// Its relations, out and in: the 25 heaviest.
    pub edges: Vec<EdgeAnswer>,
    /// How many relations it has in all.
    pub relations_total: usize,
    /// The other ends of its relations.
    pub nodes: Vec<NodeAnswer>,
    /// The most relevant memories that mention it.
    pub memories: Vec<answers::RecalledMemory>,
}

/// The answer of `update`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct UpdateAnswer {
    /// The memory now: a new version's id, or the same id.
    pub id: String,
    /// The version it replaced (text or triple changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// The new text was already stored: id names that memory.
    pub duplicate: bool,
    /// What changed.
    pub changed: Vec<String>,
}

pub(super) fn link(
    engine: &Engine,
    origin: &Origin,
    params: params::Link,
) -> Result<LinkAnswer, ToolError> {
    // Every field is checked by the engine (the confidence as a store's).
    let linked = engine.link(LinkRequest {
        from: params.from,
        to: params.to,
        relation: params.relation,
        note: params.note,
        confidence: params.confidence,
        namespace: origin.namespace(params.namespace.as_deref())?,
    })?;
    let names = answers::device_names(engine);
    Ok(LinkAnswer {
        id: linked.id,
        reinforced: linked.reinforced,
        edge: edge(&linked.edge, None, &names),
        nodes: vec![node(&linked.from, None), node(&linked.to, None)],
    })
}

pub(super) fn graph(
    engine: &Engine,
    origin: &Origin,
    params: params::Graph,
) -> Result<GraphAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let direction = params.direction.map(|direction| match direction {
        params::Direction::Out => "out",
        params::Direction::In => "in",
        params::Direction::Both => "both",
    });
    let walk = graph::walk_settings(
        params.depth,
        params.relations,
        direction,
        params.limit,
        &engine.settings(namespace.as_str()).predicates,
    )?;
    let found = engine.graph(&GraphRequest { from: params.from, walk, namespace })?;
    let names = answers::device_names(engine);
    Ok(GraphAnswer {
        nodes: found.nodes.iter().map(|(found, depth)| node(found, Some(*depth))).collect(),
        edges: found
            .edges
            .iter()
            .map(|found| edge(&found.hop, Some(found.depth), &names))
            .collect(),
        truncated: found.truncated,
    })
}

pub(super) fn entity(
    engine: &Engine,
    origin: &Origin,
    params: params::Entity,
) -> Result<EntityAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let story = engine.entity_story(&namespace, &params.name, params.include_history)?;
    let names = answers::device_names(engine);
    let me = Node::Entity { id: story.id.clone(), name: story.name.clone() };
    Ok(EntityAnswer {
        node: node(&me, None),
        aliases: story.aliases,
        entity_kind: story.kind,
        facts: story.facts.iter().map(answers::memory).collect(),
        edges: story.relations.iter().map(|(hop, _)| edge(hop, None, &names)).collect(),
        nodes: story.relations.iter().map(|(_, other)| node(other, None)).collect(),
        relations_total: story.relations_total,
        memories: story.memories.iter().map(answers::recalled).collect(),
    })
}

pub(super) fn update(engine: &Engine, params: params::Update) -> Result<UpdateAnswer, ToolError> {
    if let Some(content) = &params.content {
        ferrex_core::validate::required_text(
            "content",
            content,
            ferrex_core::validate::MAX_CONTENT_BYTES,
        )?;
    }
    for (field, value) in
        [("subject", &params.subject), ("predicate", &params.predicate), ("object", &params.object)]
    {
        if let Some(value) = value {
            ferrex_core::validate::required_text(
                field,
                value,
                ferrex_core::validate::MAX_NAME_BYTES,
            )?;
        }
    }
    let updated = engine.update(UpdateRequest {
        id: params.id,
        content: params.content,
        subject: params.subject,
        predicate: params.predicate,
        object: params.object,
        tags: params.tags,
        confidence: params.confidence,
        importance: params.importance,
    })?;
    Ok(UpdateAnswer {
        id: updated.id,
        replaces: updated.replaces,
        duplicate: updated.duplicate,
        changed: updated.changed.into_iter().map(str::to_owned).collect(),
    })
}
