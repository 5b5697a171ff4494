//! The working-state tools in process: tasks, sessions, exchanges and the
//! context, called by name as an agent calls them (`tools::call`) on an
//! engine over a temporary home, with its clock moved by hand and answers
//! read as their types. What needs two devices, a hook's process or the
//! wire stays in `tests/tests/working.rs`.

use std::time::Duration;

use ferrex_engine::{
    answers::{
        ForgetAnswer, StatsAnswer,
        working::{ContextAnswer, ObserveAnswer, SessionAnswer, TaskAnswer, TaskEntry},
    },
    base::config::Config,
    engine::ToolError,
    testing::{TestEngine, WordHashTestEmbedder, files_containing},
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::Origin;
use crate::surfaces::mcp::tools;

/// An agent's calls on an engine of its own, outside any project.
struct Agent {
    test: TestEngine,
}

impl Agent {
    /// With `settings` (`key`, `value`, as `ferrex config set` takes them)
    /// and the word-hashing test embedder.
    fn with(settings: &[(&str, &str)]) -> Agent {
        let mut config = Config::default();
        for (key, value) in settings {
            config.set(key, value).expect("a valid setting");
        }
        let test = TestEngine::with("laptop", &config, Box::new(WordHashTestEmbedder))
            .expect("a test engine");
        Agent { test }
    }

    /// With the real model, for what depends on what is alike.
    fn with_model() -> Agent {
        Agent { test: TestEngine::with_model("laptop", &Config::default()).expect("the model") }
    }

    /// Tool `name`'s answer to `arguments`, or its refusal.
    fn call(&self, name: &str, arguments: Value) -> Result<Value, ToolError> {
        let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
        tools::call(&self.test.engine, &Origin::default(), name, arguments)
    }

    /// Tool `name`'s answer to `arguments`, read as its type.
    fn answer<T: DeserializeOwned>(&self, name: &str, arguments: Value) -> T {
        let answer = self.call(name, arguments).unwrap_or_else(|error| panic!("{name}: {error}"));
        serde_json::from_value(answer).unwrap_or_else(|error| panic!("{name}: {error}"))
    }

    fn task(&self, arguments: Value) -> TaskAnswer {
        self.answer("task", arguments)
    }

    fn listed(&self, arguments: Value) -> Vec<TaskEntry> {
        self.task(arguments).tasks
    }

    fn session(&self, arguments: Value) -> SessionAnswer {
        self.answer("session", arguments)
    }

    fn context(&self) -> ContextAnswer {
        self.answer("context", json!({}))
    }

    /// The ids `recall` finds for `query`, once the embedding worker has
    /// done its share, as on a node that settled.
    fn recall(&self, query: &str) -> Vec<String> {
        self.test.embed_queued().expect("embedding");
        let answer: ferrex_engine::answers::RecallAnswer =
            self.answer("recall", json!({"query": query}));
        answer.results.into_iter().map(|result| result.memory.id).collect()
    }

    /// The files of its home holding `needle`.
    fn files_containing(&self, needle: &str) -> Vec<std::path::PathBuf> {
        files_containing(self.test.home(), needle)
    }
}

/// The content of each event of a `get`, newest first.
fn contents(answer: &SessionAnswer) -> Vec<&str> {
    answer.events.iter().flatten().map(|event| event.content.as_str()).collect()
}

#[test]
fn an_untouched_task_expires_as_a_state_and_can_still_be_finished() {
    let agent = Agent::with(&[("working.task_expiry_hours", "72")]);
    let started = agent.task(json!({"action": "start", "title": "Write the release notes"}));
    assert_eq!(started.namespace, "default", "outside a repository: default");
    let id = started.tasks[0].id.clone();
    let expired = json!({"action": "list", "status": ["expired"]});
    assert!(agent.listed(expired.clone()).is_empty(), "not yet");
    agent.test.clock.advance(Duration::from_secs(71 * 3_600));
    assert!(agent.listed(expired.clone()).is_empty(), "71 hours untouched is not 72");
    agent.test.clock.advance(Duration::from_secs(2 * 3_600));
    let listed = agent.listed(expired);
    assert_eq!((listed.len(), listed[0].status.as_str()), (1, "expired"), "{listed:?}");
    // Expired is a state: the task is still there, and can be finished.
    let done = agent.task(json!({"action": "done", "id": id, "result": "Published"}));
    assert_eq!(done.tasks[0].status, "done");
    // Bad input is refused, naming what is wrong, and changes nothing.
    let refused =
        agent.call("task", json!({"action": "done", "id": "no-such-task", "result": "x"}));
    assert!(
        matches!(&refused, Err(ToolError::Invalid(error)) if error.reason.contains("no task")),
        "{refused:?}"
    );
    assert_eq!(agent.listed(json!({"action": "list", "status": ["done"]})).len(), 1);
}

#[test]
fn a_session_keeps_its_bound_and_what_it_evicts_leaves_every_file() {
    let agent = Agent::with(&[("working.session_events", "5")]);
    let mut evicted = 0;
    for index in 0..40 {
        let pushed = agent.session(
            json!({"action": "push", "session_id": "s", "content": format!("step {index}")}),
        );
        assert!(pushed.id.is_some(), "a pushed event's id");
        evicted += pushed.evicted.unwrap_or(0);
    }
    assert_eq!(evicted, 35);
    let got = agent.session(json!({"action": "get", "session_id": "s", "limit": 100}));
    assert_eq!(contents(&got), ["step 39", "step 38", "step 37", "step 36", "step 35"]);
    // The evicted are gone from every file, and leave no tombstone.
    let stats: StatsAnswer = agent.answer("stats", json!({}));
    assert_eq!((stats.memories, stats.forgotten), (5, 0));
    assert!(agent.files_containing("step 12").is_empty());
    assert!(!agent.files_containing("step 39").is_empty(), "what is kept is on disk");
    // A push without content is refused, naming the field, and the session
    // keeps serving.
    let refused = agent.call("session", json!({"action": "push", "session_id": "s"}));
    assert!(
        matches!(&refused, Err(ToolError::Invalid(error)) if error.field == "content"),
        "{refused:?}"
    );
    let cleared = agent.session(json!({"action": "clear", "session_id": "s"}));
    assert_eq!(cleared.cleared, Some(5));
    let got = agent.session(json!({"action": "get", "session_id": "s"}));
    assert!(contents(&got).is_empty(), "{got:?}");
}

#[test]
fn exchanges_are_kept_once_recalled_shown_hot_and_everything_forgets_like_a_memory() {
    let agent = Agent::with_model();
    let exchange = json!({
        "user": "Should the importer keep going after a bad row?",
        "assistant": "We decided the importer stops at the first bad row unless --keep-going is given.",
        "session_id": "s1"
    });
    let first: ObserveAnswer = agent.answer("observe", exchange.clone());
    assert_eq!(first.status, "stored", "{first:?}");
    assert!(first.importance > 0.5, "a decision weighs: {first:?}");
    let again: ObserveAnswer = agent.answer("observe", exchange);
    assert_eq!((again.status.as_str(), again.id.as_str()), ("duplicate", first.id.as_str()));
    let small_talk: ObserveAnswer = agent
        .answer("observe", json!({"user": "thanks", "assistant": "welcome", "importance": 0.1}));
    assert!((small_talk.importance - 0.1).abs() < 1e-9, "{small_talk:?}");
    let recalled = agent.recall("what happens when an import hits a bad row");
    assert_eq!(recalled.first(), Some(&first.id), "{recalled:?}");
    let shown = agent.context();
    assert!(shown.text.contains("stops at the first bad row"), "{}", shown.text);
    assert_eq!(shown.sections.len(), 5, "{shown:?}");

    // Tasks, their notes, events and exchanges are forgotten like any memory.
    let started =
        agent.task(json!({"action": "start", "title": "Purge the staging bucket quokka"}));
    let task_id = started.tasks[0].id.clone();
    let note = agent.task(
        json!({"action": "update", "id": task_id, "result": "halfway through the quokka bucket"}),
    );
    let event = agent.session(
        json!({"action": "push", "session_id": "s1", "content": "listed the quokka bucket"}),
    );
    let ids = [
        task_id,
        note.note_id.expect("a note's id"),
        event.id.expect("an event's id"),
        first.id.clone(),
    ];
    let forgotten: ForgetAnswer = agent.answer("forget", json!({"ids": ids}));
    assert_eq!(forgotten.forgotten.len(), 4, "{forgotten:?}");
    assert!(agent.listed(json!({"action": "list"})).is_empty());
    let got = agent.session(json!({"action": "get", "session_id": "s1"}));
    assert!(contents(&got).is_empty(), "{got:?}");
    assert!(agent.files_containing("quokka").is_empty(), "purged from every file");
    assert!(agent.files_containing("first bad row").is_empty(), "purged from every file");
}

#[test]
fn the_context_names_facts_likely_out_of_date() {
    let agent = Agent::with(&[]);
    let fact = |subject: &str, predicate: &str, object: &str| -> String {
        let stored: ferrex_engine::answers::StoreAnswer = agent
            .answer("store", json!({"subject": subject, "predicate": predicate, "object": object}));
        stored.id
    };
    let version = fact("billing-api", "version", "2.3.1");
    fact("billing-api", "owned_by", "the payments team");
    let title = "Facts likely out of date";
    let shown = agent.context().text;
    assert!(!shown.contains(title), "nothing is old yet: {shown}");
    // Two half-lives of a fact later, unchecked all the while.
    agent.test.clock.advance(Duration::from_secs(2 * 180 * 86_400));
    let shown = agent.context().text;
    assert!(shown.contains(title) && shown.contains(&version), "{shown}");
    assert!(!shown.contains("payments team"), "owned_by is not volatile: {shown}");
}
