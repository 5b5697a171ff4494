//! The knowledge graph's tools: `link`, `graph`, `entity` and `update`.
//! They share parameter names (`from`, `to`, `relation`, `namespace`); their
//! answers are `ferrex_engine::answers::graph`'s.

use super::{params, working::Origin};
use ferrex_engine::{
    answers::{
        self,
        graph::{EntityAnswer, GraphAnswer, LinkAnswer, UpdateAnswer},
    },
    engine::{
        Engine, ToolError,
        graph::{self, GraphRequest, LinkRequest, UpdateRequest},
    },
};

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
    Ok(answers::graph::linked(&linked, &answers::device_names(engine)))
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
    Ok(answers::graph::walked(&found, &answers::device_names(engine)))
}

pub(super) fn entity(
    engine: &Engine,
    origin: &Origin,
    params: params::Entity,
) -> Result<EntityAnswer, ToolError> {
    let namespace = origin.namespace(params.namespace.as_deref())?;
    let story = engine.entity_story(&namespace, &params.name, params.include_history)?;
    Ok(answers::graph::story(story, &answers::device_names(engine)))
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
