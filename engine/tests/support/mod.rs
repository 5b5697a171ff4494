//! What the tests with the real model share: an engine asked as the MCP
//! tools ask it and answered with the tools' answer types
//! (`ferrex_engine::answers`), so an assertion reads a field, not a string.

#![allow(dead_code, reason = "each test file uses a part of it")]

use ferrex_core::{Namespace, StoreInput};
use ferrex_engine::{
    answers::{
        self, HistoryAnswer, RecalledMemory, ReflectAnswer, StoreAnswer,
        graph::{EntityAnswer, GraphAnswer, LinkAnswer},
    },
    base::config::Config,
    engine::{
        RecallRequest, Sources, ToolError,
        graph::{GraphRequest, LinkRequest, walk_settings},
    },
    testing::TestEngine,
};

/// An engine with the real model, asked as the tools ask it; its facts go
/// to one namespace, its free text to `default` unless told otherwise.
pub struct Tools {
    /// The engine and its clock.
    pub test: TestEngine,
    facts: &'static str,
}

impl Tools {
    /// Default settings; facts in `facts`.
    pub fn new(facts: &'static str) -> Tools {
        Tools::with(facts, &Config::default())
    }

    /// `config`'s settings; facts in `facts`.
    pub fn with(facts: &'static str, config: &Config) -> Tools {
        Tools { test: TestEngine::with_model("laptop", config).unwrap(), facts }
    }

    /// `store`, answered as the tool answers.
    pub fn store(&self, input: StoreInput) -> StoreAnswer {
        answers::stored(&self.test.engine.store(input, false).unwrap())
    }

    /// Free text in `default`.
    pub fn text(&self, content: &str) -> StoreAnswer {
        self.text_in(content, "default")
    }

    /// Free text in `namespace`.
    pub fn text_in(&self, content: &str, namespace: &str) -> StoreAnswer {
        self.store(StoreInput {
            content: Some(content.to_owned()),
            namespace: Some(namespace.to_owned()),
            ..StoreInput::default()
        })
    }

    /// A fact, in the facts' namespace.
    pub fn fact(&self, subject: &str, predicate: &str, object: &str) -> StoreAnswer {
        self.store(self.fact_input(subject, predicate, object))
    }

    /// What [`Tools::fact`] stores.
    pub fn fact_input(&self, subject: &str, predicate: &str, object: &str) -> StoreInput {
        StoreInput {
            subject: Some(subject.to_owned()),
            predicate: Some(predicate.to_owned()),
            object: Some(object.to_owned()),
            namespace: Some(self.facts.to_owned()),
            ..StoreInput::default()
        }
    }

    /// `recall` as the tool asks it (ten results, memories and files),
    /// changed by `adjust`, once the embedding worker has done its share,
    /// as on a node that settled.
    pub fn recall(
        &self,
        query: &str,
        namespace: &str,
        adjust: impl Fn(&mut RecallRequest),
    ) -> Recall {
        self.test.embed_queued().unwrap();
        let mut request = RecallRequest {
            query: query.to_owned(),
            namespace: Namespace::parse(namespace).unwrap(),
            limit: 10,
            sources: Sources::Both,
            ..RecallRequest::default()
        };
        adjust(&mut request);
        let (results, _, _) = self.test.engine.recall(&request).unwrap();
        Recall(results.iter().map(answers::recalled).collect())
    }

    /// `history` of a memory (`id`) or of a subject and predicate.
    pub fn history(
        &self,
        namespace: &str,
        id: Option<&str>,
        pair: Option<(&str, &str)>,
    ) -> HistoryAnswer {
        let namespace = Namespace::parse(namespace).unwrap();
        let entries = self.test.engine.history(&namespace, id, pair).unwrap();
        answers::history(namespace.as_str(), &entries, &answers::device_names(&self.test.engine))
    }

    /// `reflect` on `namespace` as the tool asks it (stale memories too).
    pub fn reflect(&self, namespace: &str) -> ReflectAnswer {
        let namespace = Namespace::parse(namespace).unwrap();
        let reflection = self.test.engine.reflect(&namespace, 10, true, true).unwrap();
        answers::reflection(
            namespace.as_str(),
            &reflection,
            &answers::device_names(&self.test.engine),
        )
    }
}

/// A walk of the graph as the `graph` tool asks it.
#[derive(Debug, Default)]
pub struct WalkFrom<'a> {
    pub from: &'a str,
    pub depth: Option<i64>,
    pub relations: &'a [&'a str],
    pub direction: Option<&'a str>,
    pub limit: Option<i64>,
}

impl Tools {
    fn namespace(&self) -> Namespace {
        Namespace::parse(self.facts).unwrap()
    }

    /// `link` in the facts' namespace.
    pub fn link(&self, from: &str, relation: &str, to: &str) -> Result<LinkAnswer, ToolError> {
        let linked = self.test.engine.link(LinkRequest {
            from: from.to_owned(),
            to: to.to_owned(),
            relation: relation.to_owned(),
            note: None,
            confidence: None,
            namespace: self.namespace(),
        })?;
        Ok(answers::graph::linked(&linked, &answers::device_names(&self.test.engine)))
    }

    /// `graph` in the facts' namespace.
    pub fn walk(&self, walk: &WalkFrom<'_>) -> Result<GraphAnswer, ToolError> {
        let namespace = self.namespace();
        let settings = walk_settings(
            walk.depth,
            walk.relations.iter().map(|relation| (*relation).to_owned()).collect(),
            walk.direction,
            walk.limit,
            &self.test.engine.settings(namespace.as_str()).predicates,
        )?;
        let request = GraphRequest { from: walk.from.to_owned(), walk: settings, namespace };
        let found = self.test.engine.graph(&request)?;
        Ok(answers::graph::walked(&found, &answers::device_names(&self.test.engine)))
    }

    /// `entity` in the facts' namespace.
    pub fn story(&self, name: &str, include_history: bool) -> Result<EntityAnswer, ToolError> {
        let story = self.test.engine.entity_story(&self.namespace(), name, include_history)?;
        Ok(answers::graph::story(story, &answers::device_names(&self.test.engine)))
    }
}

/// A recall's results, best first.
pub struct Recall(pub Vec<RecalledMemory>);

impl Recall {
    /// Their ids, best first.
    pub fn ids(&self) -> Vec<&str> {
        self.0.iter().map(|result| result.memory.id.as_str()).collect()
    }

    /// Where `id` ranks (it must be there).
    pub fn rank(&self, id: &str) -> usize {
        self.ids().iter().position(|found| *found == id).unwrap_or_else(|| {
            panic!("{id} was not recalled: {:?}", self.ids());
        })
    }

    /// The result that is `id`.
    pub fn of(&self, id: &str) -> &RecalledMemory {
        &self.0[self.rank(id)]
    }
}
