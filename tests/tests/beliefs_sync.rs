//! Beliefs across devices that wrote apart: a fact replaced differently on
//! two devices, one entity created under two spellings, and one episode
//! stored twice. Once they sync, every device answers recall, reflect and
//! history alike: the same ids in the same order, the same current fact,
//! the same contradiction, one entity, and the duplicate collapsed; and a
//! text corrected in words on the other device is corrected on both.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod typed;

use std::time::Duration;

use ferrex_engine::answers::{
    HistoryAnswer, RecallAnswer, ReflectAnswer, StatsAnswer, StoreAnswer, status::DocumentHeads,
};
use ferrex_tests::{Client, TestHome, eventually, settled_heads};
use serde_json::{Value, json};
use typed::ids;

const NAMESPACE: &str = "infra";

async fn fact(client: &Client, object: &str) -> StoreAnswer {
    client
        .answer("store", json!({"subject": "db", "predicate": "version", "object": object, "namespace": NAMESPACE}))
        .await
}

async fn note(client: &Client, content: &str, entities: &[&str]) -> StoreAnswer {
    client
        .answer("store", json!({"content": content, "entities": entities, "namespace": NAMESPACE}))
        .await
}

async fn history(client: &Client, query: Value) -> HistoryAnswer {
    client.answer("history", query).await
}

/// A recalled memory as the devices must agree on it (scores carry the
/// time, so they are left out).
#[derive(Debug, PartialEq)]
struct Agreed {
    id: String,
    current: Option<bool>,
    contradicts: Vec<String>,
    superseded_by: Vec<String>,
}

/// What a device answers.
#[derive(Debug, PartialEq)]
struct Answers {
    /// Per query, what recall finds.
    recall: Vec<Vec<Agreed>>,
    /// Each contradiction's facts, as (id, current), and whether devices
    /// apart wrote them.
    contradictions: Vec<(Vec<(String, bool)>, bool)>,
    /// The database version's history, as (id, status).
    history: Vec<(String, Option<String>)>,
    /// Entity records, and distinct entities.
    entities: (usize, usize),
    duplicates: usize,
}

async fn answers(client: &Client) -> Answers {
    let mut recall = Vec::new();
    for query in ["which database version do we run", "staging cluster rebuilt", "async runtime"] {
        let found: RecallAnswer = client
            .answer(
                "recall",
                json!({"query": query, "namespace": NAMESPACE, "include_invalidated": true}),
            )
            .await;
        recall.push(
            found
                .results
                .into_iter()
                .map(|result| {
                    let standing = result.memory.standing;
                    Agreed {
                        id: result.memory.id,
                        current: standing.current,
                        contradicts: standing.contradicts,
                        superseded_by: standing.superseded_by,
                    }
                })
                .collect(),
        );
    }
    let reflection: ReflectAnswer = client.answer("reflect", json!({"namespace": NAMESPACE})).await;
    let history =
        history(client, json!({"subject": "db", "predicate": "version", "namespace": NAMESPACE}))
            .await;
    let stats: StatsAnswer = client.answer("stats", json!({"detailed": true})).await;
    let detailed = stats.detailed.expect("detailed stats");
    Answers {
        recall,
        contradictions: reflection
            .contradictions
            .into_iter()
            .map(|found| {
                let facts = found.facts.into_iter().map(|fact| (fact.id, fact.current)).collect();
                (facts, found.across_devices)
            })
            .collect(),
        history: history.history.into_iter().map(|step| (step.id, step.standing.status)).collect(),
        entities: (detailed.entities.records, detailed.entities.distinct),
        duplicates: detailed.duplicates_collapsed,
    }
}

/// Each home's documents and heads, for a failure message.
fn heads_of(homes: &[&TestHome]) -> Vec<Option<Vec<DocumentHeads>>> {
    homes.iter().map(|home| typed::sync_status(home).documents).collect()
}

#[tokio::test]
async fn devices_that_wrote_apart_answer_alike_once_synced() {
    let server = TestHome::named("server");
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(laptop.join(&server.invite()).0);
    assert!(desktop.join(&server.invite()).0);

    // Before the partition: postgres 14, known everywhere.
    let on_laptop = laptop.client().await;
    let pg14 = fact(&on_laptop, "postgres 14").await.id;
    let on_desktop = desktop.client().await;
    let arrived = eventually(Duration::from_secs(30), || async {
        on_desktop.recall_ids("database version", NAMESPACE, 5).await.contains(&pg14).then_some(())
    })
    .await;
    assert!(arrived.is_some());
    on_desktop.close().await;

    // Partition: the laptop alone.
    server.stop();
    desktop.stop();
    let pg15 = fact(&on_laptop, "postgres 15").await;
    assert_eq!(pg15.supersedes, [pg14.as_str()], "{pg15:?}");
    let tokio_laptop =
        note(&on_laptop, "The scheduler service runs on the Tokio runtime.", &["Tokio runtime"])
            .await;
    let episode_laptop =
        note(&on_laptop, "The staging cluster was rebuilt from scratch on Friday.", &[]).await;
    let port_laptop: StoreAnswer = on_laptop
        .answer("store", json!({"subject": "api", "predicate": "port", "object": "8080", "namespace": NAMESPACE}))
        .await;
    on_laptop.close().await;
    laptop.stop();

    // Then the desktop alone, a little later.
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let pg16 = fact(&on_desktop, "postgres 16").await;
    assert_eq!(pg16.supersedes, [pg14.as_str()], "{pg16:?}");
    let tokio_desktop =
        note(&on_desktop, "Blocking inside async tasks stalls tokio.", &["tokio"]).await;
    assert_eq!(tokio_desktop.entities[0].method, "new", "the desktop has never seen the entity");
    let episode_desktop =
        note(&on_desktop, "The staging cluster was rebuilt from scratch on Friday.", &[]).await;
    assert_eq!(episode_desktop.status, "stored", "the desktop never saw the laptop's copy");
    let port_desktop: StoreAnswer = on_desktop
        .answer("store", json!({"subject": "api", "predicate": "port", "object": "8080", "namespace": NAMESPACE}))
        .await;
    assert_eq!(port_desktop.status, "stored");

    // Everyone back.
    let on_server = server.client().await;
    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop, &on_server];
    let homes = [&laptop, &desktop, &server];
    // Settled: equal heads everywhere, unchanged while the answers are
    // read, and the answers equal and as counted below.
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        let mut seen = Vec::new();
        for client in clients {
            seen.push(answers(client).await);
        }
        let counted = seen.iter().all(|answer| answer.entities == (5, 3) && answer.duplicates == 2);
        let same = seen.iter().all(|answer| *answer == seen[0]);
        (counted && same && settled_heads(&homes)? == heads).then(|| seen.remove(0))
    })
    .await;
    let Some(answer) = agreed else {
        let mut seen = Vec::new();
        for client in clients {
            seen.push(answers(client).await);
        }
        panic!("the devices never settled: heads {:?}, answers {seen:?}", heads_of(&homes));
    };

    // The same current fact everywhere: postgres 16, stored last; postgres
    // 15 contradicts it; postgres 14 was replaced by both.
    // The same fact stored on both is one fact, not a contradiction.
    assert_eq!(
        answer.contradictions,
        [(vec![(pg16.id.clone(), true), (pg15.id.clone(), false)], true)],
        "{answer:?}"
    );
    let history: Vec<&str> = answer.history.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(history, [pg14.as_str(), &pg15.id, &pg16.id], "{answer:?}");
    // One entity for the two spellings of tokio, one for the api created
    // on both devices, and the database's own: 5 records, 3 entities.
    assert_eq!(answer.entities, (5, 3), "{answer:?}");
    // The episode and the fact stored on both devices are one memory each:
    // the older copy.
    assert_eq!(answer.duplicates, 2, "{answer:?}");
    for client in clients {
        let found = typed::recall(client, "api port", NAMESPACE, 10).await;
        let ports: Vec<(&str, Option<bool>)> = found
            .results
            .iter()
            .filter(|result| result.memory.content.subject.as_deref() == Some("api"))
            .map(|result| (result.memory.id.as_str(), result.memory.standing.current))
            .collect();
        assert_eq!(ports, [(port_laptop.id.as_str(), Some(true))], "the older copy stands");
    }
    let episode_ids: Vec<&str> = answer.recall[1].iter().map(|result| result.id.as_str()).collect();
    assert!(episode_ids.contains(&episode_laptop.id.as_str()), "{answer:?}");
    assert!(
        !episode_ids.contains(&episode_desktop.id.as_str()),
        "the younger copy is collapsed: {answer:?}"
    );
    // Both tokio memories are found through either spelling.
    for client in clients {
        let found: RecallAnswer = client
            .answer("recall", json!({"query": "tokio", "namespace": NAMESPACE, "entities": ["tokio"], "limit": 10}))
            .await;
        let found_ids = ids(&found);
        assert!(
            found_ids.contains(&tokio_laptop.id) && found_ids.contains(&tokio_desktop.id),
            "{found_ids:?}"
        );
    }
    on_laptop.close().await;
    on_desktop.close().await;
    on_server.close().await;
}

/// A history's steps as (id, status, object).
type Steps = Vec<(String, Option<String>, Option<String>)>;

/// Everything two devices answer about one attribute, scores left out:
/// its history under either wording, and the values recall finds current.
#[derive(Debug, PartialEq)]
struct Colours {
    histories: Vec<Steps>,
    current: Vec<Option<String>>,
}

async fn colour_answers(client: &Client) -> Colours {
    let mut histories = Vec::new();
    for predicate in ["favourite colour", "favorite color"] {
        let history = history(
            client,
            json!({"subject": "Zed", "predicate": predicate, "namespace": NAMESPACE}),
        )
        .await;
        histories.push(
            history
                .history
                .into_iter()
                .map(|step| (step.id, step.standing.status, step.content.object))
                .collect(),
        );
    }
    let found = typed::recall(client, "Zed favourite colour", NAMESPACE, 10).await;
    let current = found
        .results
        .into_iter()
        .map(|result| result.memory)
        .filter(|memory| {
            memory
                .content
                .subject
                .as_deref()
                .is_some_and(|subject| subject.eq_ignore_ascii_case("zed"))
                && memory.standing.current == Some(true)
        })
        .map(|memory| memory.content.object)
        .collect();
    Colours { histories, current }
}

#[tokio::test]
async fn one_attribute_stored_under_two_wordings_apart_is_one_fact_once_synced() {
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    // Apart: the laptop writes British, then the desktop, later, American.
    desktop.stop();
    let on_laptop = laptop.client().await;
    let blue: StoreAnswer = on_laptop
        .answer("store", json!({"subject": "Zed", "predicate": "favourite colour", "object": "blue", "namespace": NAMESPACE}))
        .await;
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let green: StoreAnswer = on_desktop
        .answer("store", json!({"subject": "zed", "predicate": "favorite color", "object": "green", "namespace": NAMESPACE}))
        .await;
    assert_eq!(
        green.predicate.as_deref(),
        Some("favorite_color"),
        "the desktop never saw the other wording"
    );
    assert_eq!(green.predicate_match.as_deref(), Some("new"));

    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop];
    let homes = [&laptop, &desktop];
    // Settled: equal heads on both, unchanged while the answers are read,
    // and both wordings joined on both.
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        let mut seen = Vec::new();
        for client in clients {
            seen.push(colour_answers(client).await);
        }
        let joined =
            seen[0].histories[0].len() == 2 && seen[0].histories[0] == seen[0].histories[1];
        (joined && seen[0] == seen[1] && settled_heads(&homes)? == heads).then(|| seen.remove(0))
    })
    .await;
    let Some(answer) = agreed else {
        let (here, there) = (colour_answers(&on_laptop).await, colour_answers(&on_desktop).await);
        panic!("the devices never settled: heads {:?}, {here:?} / {there:?}", heads_of(&homes));
    };
    // One attribute: either wording shows both values, the later current,
    // the other contested (written apart, so neither replaced the other).
    assert_eq!(answer.histories[0], answer.histories[1], "{answer:?}");
    let steps: Vec<(&str, Option<&str>)> = answer.histories[0]
        .iter()
        .map(|(id, status, _)| (id.as_str(), status.as_deref()))
        .collect();
    assert_eq!(
        steps,
        [(blue.id.as_str(), Some("contested")), (green.id.as_str(), Some("current"))],
        "{answer:?}"
    );
    assert_eq!(answer.current, [Some("green".to_owned())], "{answer:?}");
    // And a third store on either device is filed under the older wording.
    let red: StoreAnswer = on_laptop
        .answer("store", json!({"subject": "Zed", "predicate": "favorite color", "object": "red", "namespace": NAMESPACE}))
        .await;
    let mut replaced = red.supersedes.clone();
    replaced.sort_unstable();
    let mut both = [blue.id, green.id];
    both.sort_unstable();
    assert_eq!(replaced, both, "{red:?}");
    on_laptop.close().await;
    on_desktop.close().await;
}

/// The facts of `predicate` about Kit, as (object, status).
async fn stack(client: &Client, predicate: &str) -> Vec<(Option<String>, Option<String>)> {
    let query = json!({"subject": "Kit", "predicate": predicate, "namespace": NAMESPACE});
    history(client, query)
        .await
        .history
        .into_iter()
        .map(|step| (step.content.object, step.standing.status))
        .collect()
}

#[tokio::test]
async fn devices_with_other_synonym_groups_agree_on_one_attribute() {
    // Only the laptop knows that "tech stack" is "stack".
    let laptop = TestHome::with_config(
        "[node]\nname = \"laptop\"\n[predicates]\nstack = [\"tech stack\"]\n",
    );
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    desktop.stop();
    let on_laptop = laptop.client().await;
    let rust: StoreAnswer = on_laptop
        .answer("store", json!({"subject": "Kit", "predicate": "tech stack", "object": "Rust", "namespace": NAMESPACE}))
        .await;
    assert_eq!(rust.predicate.as_deref(), Some("stack"), "{rust:?}");
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let go: StoreAnswer = on_desktop
        .answer("store", json!({"subject": "Kit", "predicate": "tech stack", "object": "Go", "namespace": NAMESPACE}))
        .await;
    assert_eq!(go.predicate.as_deref(), Some("tech_stack"), "{go:?}");

    let on_laptop = laptop.client().await;
    let homes = [&laptop, &desktop];
    // Settled: equal heads on both, unchanged while the histories are read,
    // and equal under either wording on the desktop.
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        let (here, there) =
            (stack(&on_laptop, "tech stack").await, stack(&on_desktop, "tech stack").await);
        let other_wording = stack(&on_desktop, "stack").await;
        (here.len() == 2
            && here == there
            && other_wording == here
            && settled_heads(&homes)? == heads)
            .then_some(here)
    })
    .await;
    let Some(history) = agreed else {
        let (here, there) =
            (stack(&on_laptop, "tech stack").await, stack(&on_desktop, "tech stack").await);
        panic!("the devices never settled: heads {:?}, {here:?} / {there:?}", heads_of(&homes));
    };
    // The laptop judged the desktop's wording its own attribute; the
    // desktop, which could not, took the laptop's word for it.
    let seen: Vec<(Option<&str>, Option<&str>)> =
        history.iter().map(|(object, status)| (object.as_deref(), status.as_deref())).collect();
    assert_eq!(
        seen,
        [(Some("Rust"), Some("contested")), (Some("Go"), Some("current"))],
        "{history:?}"
    );
    assert_eq!(stack(&on_desktop, "stack").await, history);
    on_laptop.close().await;
    on_desktop.close().await;
}

/// What a device says of a text and its correction in words: which comes
/// first for the question, what corrected the older, how many versions
/// its history holds.
#[derive(Debug, PartialEq)]
struct Corrected {
    first: Option<String>,
    corrected_by: Option<Vec<String>>,
    versions: usize,
}

async fn correction_answers(client: &Client, old: &str) -> Corrected {
    let found =
        typed::recall(client, "which region is the analytics warehouse in", NAMESPACE, 10).await;
    let older = found.results.iter().find(|result| result.memory.id == old);
    let history = history(client, json!({"id": old, "namespace": NAMESPACE})).await;
    Corrected {
        first: found.results.first().map(|result| result.memory.id.clone()),
        corrected_by: older.map(|result| result.memory.standing.corrected_by.clone()),
        versions: history.count,
    }
}

#[tokio::test]
async fn text_corrected_in_words_while_apart_is_corrected_on_both_once_synced() {
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&laptop.invite()).0);
    // Apart: the laptop stores where the warehouse runs; the desktop, later,
    // that it moved, never having seen the first.
    desktop.stop();
    let on_laptop = laptop.client().await;
    let old = note(&on_laptop, "The analytics warehouse runs in GCP's us-central1.", &[]).await;
    note(&on_laptop, "The release checklist lives in the wiki.", &[]).await;
    on_laptop.close().await;
    laptop.stop();
    // What follows is stamped later than all of it.
    ferrex_tests::clock_past(ferrex_tests::now_millis()).await;
    let on_desktop = desktop.client().await;
    let new = note(
        &on_desktop,
        "The analytics warehouse migrated to europe-west4 last quarter for data residency.",
        &[],
    )
    .await;
    assert!(new.corrects.is_empty(), "the desktop never saw the older text: {new:?}");

    let on_laptop = laptop.client().await;
    let clients = [&on_laptop, &on_desktop];
    let homes = [&laptop, &desktop];
    let expected = Corrected {
        first: Some(new.id.clone()),
        corrected_by: Some(vec![new.id.clone()]),
        versions: 2,
    };
    let agreed = eventually(Duration::from_secs(60), || async {
        let heads = settled_heads(&homes)?;
        for client in clients {
            if correction_answers(client, &old.id).await != expected {
                return None;
            }
        }
        (settled_heads(&homes)? == heads).then_some(())
    })
    .await;
    if agreed.is_none() {
        let here = correction_answers(&on_laptop, &old.id).await;
        let there = correction_answers(&on_desktop, &old.id).await;
        panic!(
            "the devices never agreed on {expected:?}: {here:?} / {there:?}, heads {:?}",
            heads_of(&homes)
        );
    }
    on_laptop.close().await;
    on_desktop.close().await;
}
