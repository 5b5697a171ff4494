//! Forgetting that forgets: a forgotten memory's text leaves every file of
//! every home — on the device that forgot it at once, on online peers within
//! seconds, on a device that was offline when it comes back, and a device
//! paired afterwards never receives it — while every other memory stays,
//! recalled alike everywhere.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use ferrex_tests::{Client, TestHome, eventually};
use serde_json::json;

/// How long a change may take to reach another device in these tests.
const CONVERGE: Duration = Duration::from_secs(30);

/// Words of the secret that appear in no other memory: the full-text index
/// keeps words, so each is looked for on its own.
const SECRET_WORDS: [&str; 3] = ["tangerine", "octopus", "Quixotic"];

/// Memories that must survive on every device.
const KEPT: [&str; 4] = [
    "The staging cluster moved to the Frankfurt data centre on Tuesday.",
    "Bob owns the release checklist from now on.",
    "Run cargo nextest with the ci profile before pushing to main.",
    "The invoice service retries failed webhooks three times with backoff.",
];

const QUERIES: [&str; 4] = [
    "where is the staging cluster",
    "who owns the release checklist",
    "how do I run the tests before pushing",
    "what happens when a webhook fails",
];

fn secret_files(home: &TestHome) -> Vec<String> {
    SECRET_WORDS
        .iter()
        .flat_map(|word| home.files_containing(word))
        .map(|path| path.display().to_string())
        .collect()
}

async fn answers(client: &Client) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for query in QUERIES {
        all.push(client.recall_ids(query, "work", 10).await);
    }
    all
}

/// Waits until a device holds every kept memory and no secret.
async fn settled(client: &Client, kept: &[String], secret: &[String]) -> bool {
    eventually(CONVERGE, || async {
        let stats = client.ok("stats", json!({})).await;
        let held = stats["by_namespace"]["work"].as_u64().unwrap_or(0) as usize;
        let mut recalled = Vec::new();
        for query in QUERIES {
            recalled.extend(client.recall_ids(query, "work", 10).await);
        }
        let all_kept = kept.iter().all(|id| recalled.contains(id));
        let none_secret = !secret.iter().any(|id| recalled.contains(id));
        (held == kept.len() && all_kept && none_secret).then_some(())
    })
    .await
    .is_some()
}

#[tokio::test]
async fn a_forgotten_secret_leaves_every_file_of_every_device_and_nothing_else_goes() {
    let server = TestHome::named("server");
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    assert!(laptop.join(&server.invite()).0);
    assert!(desktop.join(&server.invite()).0);
    let on_laptop = laptop.client().await;
    let on_desktop = desktop.client().await;

    let mut kept = Vec::new();
    for text in KEPT {
        kept.push(on_laptop.store_text(text, "work").await);
    }
    let text = on_laptop
        .ok(
            "store",
            json!({"content": "The garage vault opens with tangerine octopus, says the Quixotic Vault manual.",
                   "namespace": "work", "entities": ["Quixotic Vault"], "tags": ["octopus"],
                   "source": "a tangerine notebook", "context": "Quixotic errands"}),
        )
        .await;
    let fact = on_laptop
        .ok(
            "store",
            json!({"subject": "Quixotic Vault", "predicate": "combination",
                   "object": "tangerine octopus", "namespace": "work"}),
        )
        .await;
    let secret =
        vec![text["id"].as_str().unwrap().to_owned(), fact["id"].as_str().unwrap().to_owned()];
    let mut everything = kept.clone();
    everything.extend(secret.clone());
    assert!(settled(&on_desktop, &everything, &[]).await, "the desktop never got everything");
    assert!(!secret_files(&desktop).is_empty(), "the desktop should hold the secret by now");

    // The desktop goes offline; the server's agent forgets the secret.
    on_desktop.close().await;
    desktop.stop();
    let on_server = server.client().await;
    assert!(settled(&on_server, &everything, &[]).await);
    let forgotten = on_server.ok("forget", json!({"ids": secret})).await;
    assert_eq!(forgotten["forgotten"].as_array().unwrap().len(), 2, "{forgotten}");

    // Gone from every file of the server at once, and of the laptop within
    // seconds, while both run.
    assert_eq!(secret_files(&server), Vec::<String>::new(), "on the server right after forget");
    let purged_on_laptop =
        eventually(CONVERGE, || async { secret_files(&laptop).is_empty().then_some(()) }).await;
    assert!(purged_on_laptop.is_some(), "still on the laptop: {:?}", secret_files(&laptop));
    assert!(settled(&on_laptop, &kept, &secret).await);

    // A device paired after the forget gets everything else, and never the
    // secret.
    let tablet = TestHome::named("tablet");
    assert!(tablet.join(&server.invite()).0);
    let on_tablet = tablet.client().await;
    assert!(settled(&on_tablet, &kept, &secret).await, "the tablet never got the kept memories");
    assert_eq!(secret_files(&tablet), Vec::<String>::new(), "the tablet received the secret");

    // The desktop comes back, learns of the forget, and purges it.
    let on_desktop = desktop.client().await;
    assert!(settled(&on_desktop, &kept, &secret).await, "the desktop never caught up");
    let purged_on_desktop =
        eventually(CONVERGE, || async { secret_files(&desktop).is_empty().then_some(()) }).await;
    assert!(purged_on_desktop.is_some(), "still on the desktop: {:?}", secret_files(&desktop));

    // Everything else is recalled identically on every device.
    let expected = answers(&on_server).await;
    for kept_id in &kept {
        assert!(expected.iter().flatten().any(|id| id == kept_id), "{kept_id} not recalled");
    }
    for client in [&on_laptop, &on_desktop, &on_tablet] {
        let answered = eventually(CONVERGE, || async {
            let got = answers(client).await;
            (got == expected).then_some(())
        })
        .await;
        assert!(
            answered.is_some(),
            "a device answers differently: {:?} vs {expected:?}",
            answers(client).await
        );
    }
    for client in [on_laptop, on_desktop, on_server, on_tablet] {
        client.close().await;
    }
    // And once every node has stopped (its files closed), no file of any
    // home holds a word of it.
    for home in [&server, &laptop, &desktop, &tablet] {
        home.stop();
        assert_eq!(secret_files(home), Vec::<String>::new(), "in {}", home.path().display());
    }
}
