//! A project shared with a teammate's devices, between real `ferrex`
//! processes on loopback with the real model (docs/sharing.md): the
//! teammate gets the share and nothing else of the person's, a reader
//! changes nothing, a removed member gets nothing new, and tickets work
//! once, expire and name one share.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use ferrex_engine::answers::{
    RecallAnswer, RecalledMemory, StatsAnswer,
    status::{MemberStanding, ShareStanding, SyncStatus},
};
use ferrex_tests::{Client, TestHome, eventually};
use serde_json::json;

mod typed;

use typed::{peers, sync_status};

/// How long a change may take to reach another device in these tests.
const CONVERGE: Duration = Duration::from_secs(60);

/// `ferrex share <project> [args]` on `home`; the ticket it prints.
fn share(home: &TestHome, project: &str, args: &[&str]) -> String {
    let mut command = vec!["share", project, "--yes"];
    command.extend_from_slice(args);
    let (ok, stdout, stderr) = home.run(&command);
    assert!(ok, "ferrex share failed: {stderr}");
    let ticket = stdout.trim().to_owned();
    assert!(ticket.starts_with("ferrexshare") && !ticket.contains('\n'), "{stdout}");
    ticket
}

/// `ferrex join <ticket> --yes` on `home`; (ok, stderr).
fn join(home: &TestHome, ticket: &str) -> (bool, String) {
    let (ok, stdout, stderr) = home.run(&["join", ticket, "--yes"]);
    assert!(stdout.is_empty(), "join prints to stderr only: {stdout}");
    (ok, stderr)
}

/// The share of `project` in `status`, if it holds one.
fn share_of<'a>(status: &'a SyncStatus, project: &str) -> Option<&'a ShareStanding> {
    status.shares.as_ref()?.iter().find(|share| share.project == project)
}

/// The member named `name` of `share`, if it has one.
fn member<'a>(share: &'a ShareStanding, name: &str) -> Option<&'a MemberStanding> {
    share.members.iter().find(|member| member.name.as_deref() == Some(name))
}

/// The namespace of the share of `project` on `home`.
fn share_namespace(home: &TestHome, project: &str) -> String {
    let status = peers(home);
    share_of(&status, project)
        .unwrap_or_else(|| panic!("no share of {project}: {status:?}"))
        .namespace
        .clone()
}

/// The contents of a recall's results.
fn contents(answer: &RecallAnswer) -> Vec<&str> {
    answer.results.iter().filter_map(|result| result.memory.content.content.as_deref()).collect()
}

/// Stores `content` in `namespace` through `client`; its id.
async fn store(client: &Client, content: &str, namespace: &str) -> String {
    client.store_text(content, namespace).await
}

/// Waits until `client`'s recall of `query` in `project` has a result
/// with `text`; that result.
async fn recalled(
    client: &Client,
    query: &str,
    project: &str,
    text: &str,
) -> Option<RecalledMemory> {
    eventually(CONVERGE, || async {
        let answer = typed::recall(client, query, project, 10).await;
        answer.results.into_iter().find(|result| {
            result.memory.content.content.as_deref().is_some_and(|content| content.contains(text))
        })
    })
    .await
}

/// Waits until `home`'s node log says it refused a device that is no
/// member of the share (a removed one dialing again).
async fn refuses_a_removed_member(home: &TestHome) -> bool {
    let log = home.path().join("logs/node.log");
    eventually(CONVERGE, || async {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.contains("refused a device that is not a member of the share").then_some(())
    })
    .await
    .is_some()
}

#[tokio::test]
async fn a_shared_project_reaches_a_teammate_and_nothing_else_of_the_persons_does() {
    // The person: a laptop and a home server, and a phone paired then
    // removed (its id and name are in the person's registry only).
    let server = TestHome::named("ann-server");
    let laptop = TestHome::named("ann-laptop");
    let phone = TestHome::named("ann-old-phone-kestrel");
    assert!(laptop.join(&server.invite()).0);
    assert!(phone.join(&server.invite()).0);
    let phone_id = phone.device_id();
    phone.stop();
    let known = eventually(CONVERGE, || async { peers(&laptop).peer(&phone_id).map(|_| ()) }).await;
    assert!(known.is_some(), "the laptop never heard of the phone");
    let (ok, _, stderr) = laptop.run(&["peers", "remove", "ann-old-phone-kestrel"]);
    assert!(ok, "{stderr}");

    let on_laptop = laptop.client().await;
    let shared_text = "The acme api deploys with blue green switching on Thursdays.";
    let original = store(&on_laptop, shared_text, "acme-api").await;
    let planted = [
        ("default", "Quartz ferret keeps the default notes of the person."),
        ("secret-proj", "Obsidian walrus is the codename of the secret project."),
        ("other-shared", "Velvet heron belongs to a second shared project."),
    ];
    let mut planted_ids = Vec::new();
    for (namespace, text) in planted {
        planted_ids.push(store(&on_laptop, text, namespace).await);
    }
    // A second share, which the teammate is not invited to.
    share(&laptop, "other-shared", &[]);
    let other_share = share_namespace(&laptop, "other-shared");

    // The teammate's device has private memories of the same project, and
    // the teammate's desktop is paired with it.
    let teammate = TestHome::named("bob-laptop");
    let teammate_desktop = TestHome::named("bob-desktop");
    assert!(teammate_desktop.join(&teammate.invite()).0);
    let on_teammate = teammate.client().await;
    let private = "Zebra lantern is the teammate's own note on the acme api.";
    store(&on_teammate, private, "acme-api").await;

    let ticket = share(&laptop, "acme-api", &["--role", "write"]);
    let (ok, stderr) = join(&teammate, &ticket);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("acme-api") && stderr.contains("write"), "{stderr}");
    assert!(stderr.contains("1 memories"), "the count of what joining brings: {stderr}");
    let namespace = share_namespace(&laptop, "acme-api");
    assert_eq!(share_namespace(&teammate, "acme-api"), namespace);

    // The teammate recalls the shared memory, from the share.
    let found = recalled(&on_teammate, "how does the acme api deploy", "acme-api", "blue green")
        .await
        .expect("the teammate never recalled the shared memory");
    assert_eq!(found.memory.namespace, namespace, "{found:?}");
    // And the person's recall finds it once, in the share.
    let on_person: RecallAnswer = on_laptop
        .answer("recall", json!({"query": "how does the acme api deploy", "namespace": "acme-api"}))
        .await;
    let hits: Vec<&RecalledMemory> = on_person
        .results
        .iter()
        .filter(|result| result.memory.content.content.as_deref() == Some(shared_text))
        .collect();
    assert_eq!(hits.len(), 1, "{on_person:?}");
    assert_eq!(hits[0].memory.namespace, namespace);

    // The teammate's desktop gets the share too: the laptop added it, with
    // its own role.
    let on_teammate_desktop = teammate_desktop.client().await;
    let found = recalled(&on_teammate_desktop, "acme api deploy", "acme-api", "blue green").await;
    assert!(found.is_some(), "the teammate's other device never got the share");

    // What the teammate writes into the share reaches the person's devices,
    // the server through the laptop.
    let from_teammate = "Bob found that the acme api rate limit is 900 requests per minute.";
    store(&on_teammate, from_teammate, &namespace).await;
    let on_server = server.client().await;
    for client in [&on_laptop, &on_server] {
        let found = recalled(client, "what is the acme api rate limit", "acme-api", "900").await;
        assert!(found.is_some(), "a person's device never recalled the teammate's memory");
    }

    // The server, which takes part without a grant, writes into the share,
    // recalls and validates there, and forgets there; its recall counts are
    // folded into the documents when its node stops. None of it names it.
    let by_server = "The server noted that the acme api canary listens on port 7714.";
    let server_note = store(&on_server, by_server, &namespace).await;
    let dropped =
        store(&on_server, "A passing acme api remark the server forgets.", &namespace).await;
    on_server.ok("forget", json!({"ids": [dropped]})).await;
    let validated = on_server
        .ok(
            "recall",
            json!({"query": "acme api canary port", "namespace": "acme-api",
                   "validate_ids": [server_note.clone()]}),
        )
        .await;
    assert!(validated.to_string().contains("7714"), "{validated}");
    on_server.close().await;
    server.stop();
    let on_server = server.client().await;
    // Written after the fold, in the same document: the teammate has the
    // fold once it has this.
    let after_fold = "After the fold the acme api canary moved to port 7715.";
    store(&on_server, after_fold, &namespace).await;
    let found = recalled(&on_teammate, "acme api canary port", "acme-api", "7715").await;
    assert!(found.is_some(), "the teammate never got what the server wrote after its fold");

    // Every file of the teammate's home, its names and its bytes: nothing of
    // the person's but the share.
    let mut needles: Vec<String> = planted.iter().map(|(_, text)| text[..20].to_owned()).collect();
    needles.extend(planted_ids);
    needles.push(original);
    needles.extend(["secret-proj".into(), "other-shared".into(), other_share.clone()]);
    needles.extend([phone_id.clone(), "ann-old-phone-kestrel".into()]);
    // Nor the person's other device: it takes part in the share without a
    // grant, and never faces the teammate.
    let server_status = peers(&server);
    needles.push(server_status.device.id.clone());
    needles.push("ann-server".into());
    needles.extend(server_status.device.addrs.iter().cloned());
    // What the teammate's own node answers: its export of every namespace,
    // and its recall in each of them.
    let (ok, export, stderr) = teammate.run(&["export"]);
    assert!(ok, "{stderr}");
    assert!(export.contains("7714"), "the export holds the share: {export}");
    let mut answers = export;
    let teammate_namespaces = ["acme-api", "default", namespace.as_str()];
    for (scope, query) in teammate_namespaces.iter().flat_map(|scope| {
        ["acme api canary port", "who wrote about the acme api", "codename default notes"]
            .map(|query| (*scope, query))
    }) {
        let answer = on_teammate.ok("recall", json!({"query": query, "namespace": scope})).await;
        answers.push_str(&answer.to_string());
    }
    for needle in &needles {
        let found = teammate.files_containing(needle);
        assert!(found.is_empty(), "{needle:?} is in the teammate's home: {found:?}");
        assert!(
            !answers.to_lowercase().contains(&needle.to_lowercase()),
            "{needle:?} is in what the teammate's node answers"
        );
    }
    assert!(!teammate.files_containing("blue green switching").is_empty(), "the share is there");
    // And the teammate's own memories of the project stay its own.
    for home in [&laptop, &server] {
        assert!(home.files_containing("Zebra lantern").is_empty(), "a private note leaked");
    }

    // `peers` lists the teammate apart from the person's devices, with its
    // role; `sync status` says, per member, what each side lacks.
    let status = sync_status(&laptop);
    let share_status = share_of(&status, "acme-api").unwrap();
    let teammate_entry = member(share_status, "bob-laptop")
        .unwrap_or_else(|| panic!("the teammate is not listed: {share_status:?}"));
    assert_eq!(teammate_entry.role, "write");
    assert!(!teammate_entry.own);
    assert!(status.peers.iter().all(|peer| peer.name.as_deref() != Some("bob-laptop")));
    // The desktop is a member, with the role its laptop holds (its name is
    // known once it has reached the laptop itself).
    let desktop = eventually(CONVERGE, || async {
        let status = sync_status(&laptop);
        member(share_of(&status, "acme-api")?, "bob-desktop").cloned()
    })
    .await
    .expect("the teammate's desktop is not listed as a member");
    assert_eq!(desktop.role, "write");
    // MCP `stats` names the shared projects.
    let stats: StatsAnswer = on_teammate.answer("stats", json!({})).await;
    assert_eq!(stats.shares.len(), 1, "{stats:?}");
    let named = &stats.shares[0];
    assert_eq!((named.project.as_str(), named.role.as_str()), ("acme-api", "write"));
    assert_eq!(named.namespace, namespace);
    // The person's own device is removed by unpairing it, not from a share.
    let (ok, _, stderr) = laptop.run(&["share", "remove", "ann-server", "--project", "acme-api"]);
    assert!(!ok && stderr.contains("peers remove"), "{stderr}");
    let (ok, table, _) = laptop.run(&["peers"]);
    assert!(ok && table.contains("Shared project acme-api") && table.contains("bob-laptop"));

    // When the server acts (invites), it is granted `admin` by the laptop
    // first, and from then on is a member teammates know.
    let ticket = share(&server, "acme-api", &["--role", "read"]);
    assert!(ticket.starts_with("ferrexshare"));
    let status = sync_status(&laptop);
    let acme = share_of(&status, "acme-api").unwrap();
    assert_eq!(
        member(acme, "ann-server").map(|server| server.role.as_str()),
        Some("admin"),
        "{acme:?}"
    );

    on_laptop.close().await;
    on_teammate.close().await;
    on_teammate_desktop.close().await;
    on_server.close().await;
}

#[tokio::test]
async fn a_reader_changes_nothing_and_a_removed_member_gets_nothing_new() {
    let laptop = TestHome::named("ann-laptop");
    let writer = TestHome::named("bob");
    let reader = TestHome::named("carol");
    let on_laptop = laptop.client().await;
    store(&on_laptop, "The acme api deploys with blue green switching on Thursdays.", "acme-api")
        .await;
    let (ok, stderr) = join(&writer, &share(&laptop, "acme-api", &[]));
    assert!(ok, "{stderr}");
    let reader_ticket = share(&laptop, "acme-api", &["--role", "read"]);
    let (ok, stderr) = join(&reader, &reader_ticket);
    assert!(ok && stderr.contains("read"), "{stderr}");
    let namespace = share_namespace(&laptop, "acme-api");

    // A ticket works once, expires, and is for the share it names.
    let stranger = TestHome::named("dave");
    let (ok, stderr) = join(&stranger, &reader_ticket);
    assert!(!ok && stderr.contains("already used"), "{stderr}");
    let expiring = share(&laptop, "acme-api", &["--ttl", "1s"]);
    let expires = expiring.parse::<ferrex_sync::ShareTicket>().unwrap().expires_at;
    ferrex_tests::clock_past(expires.0).await;
    let (ok, stderr) = join(&stranger, &expiring);
    assert!(!ok && stderr.contains("expired"), "{stderr}");
    let mut forged: ferrex_sync::ShareTicket =
        share(&laptop, "other-project", &[]).parse().unwrap();
    forged.share = expiring.parse::<ferrex_sync::ShareTicket>().unwrap().share;
    let (ok, stderr) = join(&stranger, &forged.to_string());
    assert!(!ok && stderr.contains("another shared project"), "{stderr}");
    assert_eq!(peers(&stranger).shares.map(|shares| shares.len()), Some(0));

    // The reader gets the share; its own node refuses to write into it.
    let on_reader = reader.client().await;
    assert!(
        recalled(&on_reader, "how does the acme api deploy", "acme-api", "blue green")
            .await
            .is_some()
    );
    let refused = on_reader
        .call(
            "store",
            json!({"content": "The reader's note in the share.", "namespace": namespace}),
        )
        .await
        .unwrap();
    let message = refused.expect_err("a reader stored into the share");
    assert!(message.contains("may only read"), "{message}");
    // What it stores in the project without naming the share stays its own.
    store(&on_reader, "Carol's own reading notes on the acme api.", "acme-api").await;

    // The writer is removed while the reader is offline.
    let on_writer = writer.client().await;
    assert!(recalled(&on_writer, "acme api deploy", "acme-api", "blue green").await.is_some());
    on_writer.close().await;
    on_reader.close().await;
    reader.stop();
    let (ok, _, stderr) = laptop.run(&["share", "remove", "bob"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("bob") && stderr.contains("stays with them"), "{stderr}");
    let status = peers(&laptop);
    let acme = share_of(&status, "acme-api").unwrap();
    assert!(acme.removed.iter().any(|device| device.name.as_deref() == Some("bob")), "{acme:?}");
    assert!(member(acme, "bob").is_none(), "{acme:?}");
    let after = "After the removal the acme api moved to port 8443.";
    store(&on_laptop, after, &namespace).await;
    // The writer dials the laptop again and is refused.
    assert!(refuses_a_removed_member(&laptop).await, "the laptop never refused the removed writer");
    // The reader comes back: it may meet the writer before the laptop, but
    // once it holds what was stored after the removal, it has heard of the
    // removal, and the writer has none of it.
    let on_reader = reader.client().await;
    let found = recalled(&on_reader, "which port does the acme api use", "acme-api", "8443").await;
    assert!(found.is_some(), "the reader never got what was stored after the removal");
    let on_writer = writer.client().await;
    let answer =
        typed::recall(&on_writer, "which port does the acme api use", "acme-api", 10).await;
    // (By content: a share's namespace is hex, and may hold any digits.)
    assert!(contents(&answer).iter().all(|content| !content.contains("8443")), "{answer:?}");
    assert!(writer.files_containing("port 8443").is_empty());
    // Nothing the reader wrote reached the laptop.
    assert!(laptop.files_containing("reading notes").is_empty());
    on_writer.close().await;
    on_reader.close().await;
    on_laptop.close().await;
}

#[tokio::test]
async fn a_removed_member_gets_nothing_new_and_the_persons_other_device_never_faces_it() {
    let laptop = TestHome::named("ann-laptop");
    let server = TestHome::named("ann-server");
    assert!(server.join(&laptop.invite()).0);
    let server_id = server.device_id();
    let on_laptop = laptop.client().await;
    store(&on_laptop, "The acme api deploys with blue green switching on Thursdays.", "acme-api")
        .await;
    let teammate = TestHome::named("bob");
    let (ok, stderr) = join(&teammate, &share(&laptop, "acme-api", &[]));
    assert!(ok, "{stderr}");
    let namespace = share_namespace(&laptop, "acme-api");
    let on_teammate = teammate.client().await;
    assert!(recalled(&on_teammate, "acme api deploy", "acme-api", "blue green").await.is_some());
    // The server holds the share through its own sessions with the laptop.
    let on_server = server.client().await;
    assert!(recalled(&on_server, "acme api deploy", "acme-api", "blue green").await.is_some());
    assert_eq!(share_namespace(&server, "acme-api"), namespace);

    // The server is away while the teammate is removed and the laptop
    // stores something new; it comes back and gets it.
    on_server.close().await;
    server.stop();
    // A ticket made before the removal, given to nobody yet.
    let spare = share(&laptop, "acme-api", &[]);
    let (ok, _, stderr) = laptop.run(&["share", "remove", "bob"]);
    assert!(ok, "{stderr}");
    // It admits nobody after: the removed teammate's other device, say.
    let (joined, stderr) = join(&TestHome::named("bob-phone"), &spare);
    assert!(!joined, "a ticket made before the removal admitted a device after it");
    assert!(stderr.contains("made before a member of the shared project was removed"), "{stderr}");
    let after = "After the removal the acme api moved to port 8443.";
    store(&on_laptop, after, &namespace).await;
    let on_server = server.client().await;
    let found = recalled(&on_server, "which port does the acme api use", "acme-api", "8443").await;
    assert!(found.is_some(), "the server never got what was stored after the removal");
    // The removed teammate dials the laptop again and is refused; it has
    // nothing stored after its removal, and never met the server.
    assert!(refuses_a_removed_member(&laptop).await, "the laptop never refused the teammate");
    let answer =
        typed::recall(&on_teammate, "which port does the acme api use", "acme-api", 10).await;
    // (By content: a share's namespace is hex, and may hold any digits.)
    assert!(contents(&answer).iter().all(|content| !content.contains("8443")), "{answer:?}");
    assert!(teammate.files_containing("port 8443").is_empty());
    assert!(teammate.files_containing(&server_id).is_empty(), "the teammate met the server");
    on_server.close().await;
    on_teammate.close().await;
    on_laptop.close().await;
}
