//! The knowledge graph's answers: `link`, `graph`, `entity` and `update`.
//! They share shapes: a node is `{id, kind, label}`, an edge `{relation,
//! from, to, weight, by, statements}`.

use ferrex_core::walk::Hop;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DeviceNames, Memory, RecalledMemory, memory, recalled};
use crate::engine::graph::{EntityStory, Graph, GraphNode, Linked};

/// A node of the graph.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct NodeAnswer {
    /// An entity's canonical id, or a memory's id.
    pub id: String,
    /// `entity` or `memory`.
    pub kind: String,
    /// An entity's name, or the start of a memory's text.
    pub label: String,
    /// Hops from the start (graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
}

/// A node as the answers show it; `depth` in a walk.
pub fn node(node: &GraphNode, depth: Option<usize>) -> NodeAnswer {
    NodeAnswer {
        id: node.id().to_owned(),
        kind: node.kind().to_owned(),
        label: node.label().to_owned(),
        depth,
    }
}

/// An edge of the graph: every statement of one relation between two nodes.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
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

/// An edge as the answers show it, its devices by name; `depth` in a walk.
pub fn edge(hop: &Hop, depth: Option<usize>, names: DeviceNames<'_>) -> EdgeAnswer {
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
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GraphAnswer {
    /// Nodes, the start first, with their depth.
    pub nodes: Vec<NodeAnswer>,
    /// Edges crossed.
    pub edges: Vec<EdgeAnswer>,
    /// Whether the limit or the size budget left nodes or edges out.
    pub truncated: bool,
}

/// The answer of `entity`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EntityAnswer {
    /// The entity.
    pub node: NodeAnswer,
    /// Its other names.
    pub aliases: Vec<String>,
    /// Its kind, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_kind: Option<String>,
    /// Facts about it (current; every one with include_history).
    pub facts: Vec<Memory>,
    /// Its relations, out and in: the 25 heaviest.
    pub edges: Vec<EdgeAnswer>,
    /// How many relations it has in all.
    pub relations_total: usize,
    /// The other ends of its relations.
    pub nodes: Vec<NodeAnswer>,
    /// The most relevant memories that mention it.
    pub memories: Vec<RecalledMemory>,
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

/// The answer of `link`.
pub fn linked(linked: &Linked, names: DeviceNames<'_>) -> LinkAnswer {
    LinkAnswer {
        id: linked.id.clone(),
        reinforced: linked.reinforced,
        edge: edge(&linked.edge, None, names),
        nodes: vec![node(&linked.from, None), node(&linked.to, None)],
    }
}

/// The answer of `graph`: the nodes with their depth, the edges crossed.
pub fn walked(found: &Graph, names: DeviceNames<'_>) -> GraphAnswer {
    GraphAnswer {
        nodes: found.nodes.iter().map(|(found, depth)| node(found, Some(*depth))).collect(),
        edges: found.edges.iter().map(|found| edge(&found.hop, Some(found.depth), names)).collect(),
        truncated: found.truncated,
    }
}

/// The answer of `entity`: the entity's whole story.
pub fn story(story: EntityStory, names: DeviceNames<'_>) -> EntityAnswer {
    let me = GraphNode::Entity { id: story.id.clone(), name: story.name.clone() };
    EntityAnswer {
        node: node(&me, None),
        aliases: story.aliases,
        entity_kind: story.kind,
        facts: story.facts.iter().map(memory).collect(),
        edges: story.relations.iter().map(|(hop, _)| edge(hop, None, names)).collect(),
        nodes: story.relations.iter().map(|(_, other)| node(other, None)).collect(),
        relations_total: story.relations_total,
        memories: story.memories.iter().map(recalled).collect(),
    }
}
