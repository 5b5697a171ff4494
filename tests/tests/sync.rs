//! Pairing and live sync between real `ferrex` processes on loopback: three
//! devices converge through a home server, a partition heals, and devices
//! without a valid ticket (or revoked ones) get no memory data.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{collections::BTreeSet, time::Duration};

use ferrex_engine::answers::{
    ForgetAnswer, StatsAnswer,
    status::{DocumentHeads, SyncStatus},
};
use ferrex_tests::{Client, TestHome, eventually};
use serde_json::json;

mod typed;

use typed::{peers, sync_status};

/// How long a change may take to reach another device in these tests.
const CONVERGE: Duration = Duration::from_secs(30);

/// Pairs laptop and desktop with the server, as a user would.
fn pair_three() -> (TestHome, TestHome, TestHome) {
    let server = TestHome::named("server");
    let laptop = TestHome::named("laptop");
    let desktop = TestHome::named("desktop");
    let (ok, stderr) = laptop.join(&server.invite());
    assert!(ok, "laptop could not join: {stderr}");
    assert!(stderr.contains("paired with server"), "{stderr}");
    // The desktop reads its ticket from stdin, out of sight of `ps`.
    let (ok, stderr) = desktop.join_from_stdin(&server.invite());
    assert!(ok, "desktop could not join: {stderr}");
    (server, laptop, desktop)
}

/// Waits until `client` recalls `id` for `query` in `namespace`.
async fn wait_for_recall(client: &Client, query: &str, namespace: &str, id: &str) -> bool {
    eventually(CONVERGE, || async {
        client.recall_ids(query, namespace, 10).await.contains(&id.to_owned()).then_some(())
    })
    .await
    .is_some()
}

#[tokio::test]
async fn three_devices_pair_through_the_server_and_converge() {
    let (server, laptop, desktop) = pair_three();
    let on_laptop = laptop.client().await;
    let on_desktop = desktop.client().await;

    let id = on_laptop
        .store_text("The staging cluster moved to the Frankfurt data centre on Tuesday.", "work")
        .await;
    assert!(
        wait_for_recall(&on_desktop, "where is the staging cluster now", "work", &id).await,
        "the desktop never recalled what the laptop stored"
    );

    // The laptop and the desktop learned of each other through the server,
    // and connect directly.
    let (laptop_id, desktop_id) = (laptop.device_id(), desktop.device_id());
    let connected = eventually(CONVERGE, || async {
        let on_laptop = peers(&laptop);
        let on_desktop = peers(&desktop);
        let linked = on_laptop.peer(&desktop_id)?.online && on_desktop.peer(&laptop_id)?.online;
        linked.then_some((on_laptop, on_desktop))
    })
    .await;
    let (on_laptop_peers, _) = connected.expect("laptop and desktop connect directly");
    assert_eq!(on_laptop_peers.peer(&desktop_id).unwrap().name.as_deref(), Some("desktop"));
    assert_eq!(on_laptop_peers.peers.len(), 2, "{on_laptop_peers:?}");
    // `peers` leaves out the per-document detail that `sync status` gives.
    assert!(on_laptop_peers.documents.is_none(), "{on_laptop_peers:?}");
    assert!(on_laptop_peers.peers.iter().all(|peer| peer.documents.is_none()));

    // A memory the desktop stores reaches the server too.
    let from_desktop =
        on_desktop.store_text("Bob owns the release checklist from now on.", "work").await;
    let on_server = server.client().await;
    assert!(
        wait_for_recall(&on_server, "who owns the release checklist", "work", &from_desktop).await
    );
    on_laptop.close().await;
    on_desktop.close().await;
    on_server.close().await;
}

/// The ids `client` recalls for each query, in order.
async fn answers(client: &Client, queries: &[&str]) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for query in queries {
        all.push(client.recall_ids(query, "work", 10).await);
    }
    all
}

/// This node's documents and their heads, from `sync status --json`.
fn heads(home: &TestHome) -> Vec<DocumentHeads> {
    sync_status(home).documents.expect("sync status lists the documents")
}

#[tokio::test]
async fn a_partition_heals_and_a_forgotten_memory_stays_forgotten_everywhere() {
    let (server, laptop, desktop) = pair_three();
    let on_laptop = laptop.client().await;
    let on_desktop = desktop.client().await;
    let doomed = on_laptop.store_text("The old VPN password is hunter2.", "work").await;
    let kept = on_laptop.store_text("Standup is at 9:30 every weekday.", "work").await;
    assert!(wait_for_recall(&on_desktop, "what is the vpn password", "work", &doomed).await);
    assert!(wait_for_recall(&on_desktop, "when is standup", "work", &kept).await);
    let server_id = server.device_id();
    let in_sync =
        eventually(CONVERGE, || async { peers(&laptop).peer(&server_id)?.in_sync.then_some(()) })
            .await;
    assert!(in_sync.is_some(), "laptop and server report in sync: {:?}", peers(&laptop));

    // Partition: the server goes away; the laptop and desktop write apart.
    server.stop();
    let from_laptop =
        on_laptop.store_text("The laptop's battery was replaced in November.", "work").await;
    let from_desktop =
        on_desktop.store_text("The desktop got a second monitor for reviews.", "work").await;
    let forgotten: ForgetAnswer = on_laptop.answer("forget", json!({"ids": [doomed]})).await;
    assert_eq!(forgotten.forgotten, std::slice::from_ref(&doomed));

    // While the server is away, the laptop reports what it lacks (once it
    // has seen the connection go).
    let offline = eventually(CONVERGE, || async {
        let status = peers(&laptop);
        (!status.peer(&server_id)?.online).then_some(status)
    })
    .await;
    let status = offline.unwrap_or_else(|| peers(&laptop));
    let server_entry = status.peer(&server_id).unwrap();
    assert!(!server_entry.online, "{status:?}");
    assert!(server_entry.they_lack.unwrap() > 0, "{status:?}");
    assert!(!server_entry.in_sync, "{status:?}");
    let detail = sync_status(&laptop);
    let documents = detail.peer(&server_id).unwrap().documents.as_ref().unwrap();
    let behind: u64 = documents.iter().map(|doc| doc.they_lack.unwrap()).sum();
    assert!(behind > 0, "{detail:?}");

    // The server returns (with the memory it never heard was forgotten).
    let on_server = server.client().await;
    let queries = [
        "what is the vpn password",
        "when is standup",
        "laptop battery",
        "second monitor",
        "what hardware changed",
    ];
    let converged = eventually(Duration::from_secs(60), || async {
        let (l, d, s) = (heads(&laptop), heads(&desktop), heads(&server));
        if l != d || l != s || l.is_empty() {
            return None;
        }
        let expected = answers(&on_laptop, &queries).await;
        let same = expected == answers(&on_desktop, &queries).await
            && expected == answers(&on_server, &queries).await;
        same.then_some(expected)
    })
    .await;
    let answers = converged.expect("all three devices converge to equal heads and equal answers");
    let everything: BTreeSet<&String> = answers.iter().flatten().collect();
    assert!(!everything.contains(&doomed), "the forgotten memory came back: {answers:?}");
    for id in [&kept, &from_laptop, &from_desktop] {
        assert!(everything.contains(id), "{id} is missing from {answers:?}");
    }
    for client in [&on_laptop, &on_desktop, &on_server] {
        let stats: StatsAnswer = client.answer("stats", json!({})).await;
        assert_eq!((stats.memories, stats.forgotten), (3, 1), "{stats:?}");
    }
    // The status follows the last message each way, which may trail the
    // heads by a moment.
    let settled = eventually(CONVERGE, || async {
        let status = peers(&laptop);
        status.peers.iter().all(|entry| entry.in_sync).then_some(status)
    })
    .await;
    let status = settled.unwrap_or_else(|| peers(&laptop));
    for entry in &status.peers {
        assert!(entry.in_sync, "{status:?}");
        assert_eq!((entry.they_lack, entry.we_lack), (Some(0), Some(0)), "{status:?}");
    }
    let all_in_sync = |detail: &SyncStatus| {
        detail.peers.iter().all(|entry| {
            entry.documents.as_ref().is_some_and(|docs| docs.iter().all(|doc| doc.in_sync))
        })
    };
    let detail = eventually(CONVERGE, || async {
        let detail = sync_status(&desktop);
        all_in_sync(&detail).then_some(detail)
    })
    .await
    .unwrap_or_else(|| sync_status(&desktop));
    assert!(all_in_sync(&detail), "{detail:?}");
    assert_eq!(detail.index.as_ref().map(|index| index.lag_changes), Some(0), "{detail:?}");
    on_laptop.close().await;
    on_desktop.close().await;
    on_server.close().await;
}

/// Whether the home holds any memory data at all: a namespace shard on disk,
/// or a memory in its index.
async fn holds_memories(home: &TestHome) -> bool {
    let shards = std::fs::read_dir(home.path().join("docs"))
        .map(|entries| {
            entries.flatten().any(|entry| entry.file_name().to_string_lossy().starts_with("ns."))
        })
        .unwrap_or(false);
    let client = home.client().await;
    let stats: StatsAnswer = client.answer("stats", json!({})).await;
    client.close().await;
    shards || stats.memories != 0
}

#[tokio::test]
async fn devices_without_a_valid_ticket_get_nothing_and_a_revoked_device_stops_syncing() {
    let server = TestHome::named("server");
    let laptop = TestHome::named("laptop");
    let used_ticket = server.invite();
    assert!(laptop.join(&used_ticket).0);
    let on_laptop = laptop.client().await;
    let secret = on_laptop.store_text("The launch codename is BLUE HERON.", "work").await;
    let on_server = server.client().await;
    assert!(wait_for_recall(&on_server, "launch codename", "work", &secret).await);

    // A device that was never paired but believes it is: it knows the
    // server's id and address and dials its sync protocol.
    let stranger = TestHome::named("stranger");
    let server_status = peers(&server);
    let server_id = server_status.device.id.clone();
    let server_addrs: Vec<std::net::SocketAddr> =
        server_status.device.addrs.iter().map(|addr| addr.parse().unwrap()).collect();
    {
        let identity =
            ferrex_sync::Identity::load_or_create(&stranger.path().join("device.key")).unwrap();
        let replica = ferrex_sync::Replica::open(
            &stranger.path().join("docs"),
            &identity.id().to_string(),
            ferrex_sync::ReplicaOptions::default(),
        )
        .unwrap();
        let pairing = ferrex_sync::Pairing {
            inviter: server_id.clone(),
            joiner: identity.id().to_string(),
            inviter_name: "server".into(),
            joiner_name: "stranger".into(),
            inviter_addrs: server_addrs,
            joiner_addrs: vec![],
            at: ferrex_core::Timestamp(1),
        };
        replica.add_pairing(&pairing, ferrex_core::Timestamp(1)).unwrap();
    }
    let stranger_id = stranger.device_id();
    // Its node runs (a session starts it) and dials the server, which
    // refuses it: wait until the server's log says so.
    let on_stranger = stranger.client().await;
    let refusal = "refused a connection from a device that is not paired";
    let stranger_field = format!("peer={}", &stranger_id[..10]);
    let server_log = server.path().join("logs/node.log");
    let refused = eventually(CONVERGE, || async {
        let log = std::fs::read_to_string(&server_log).unwrap_or_default();
        let refused = |line: &str| line.contains(refusal) && line.contains(&stranger_field);
        log.lines().any(refused).then_some(())
    })
    .await;
    assert!(
        refused.is_some(),
        "the server's log never shows it refused the stranger ({stranger_field}): {}",
        std::fs::read_to_string(&server_log).unwrap_or_default()
    );
    on_stranger.close().await;
    assert!(peers(&server).peer(&stranger_id).is_none());

    // A wrong secret: a real ticket with its secret altered.
    let mut forged: ferrex_sync::PairingTicket = server.invite().parse().unwrap();
    forged.secret[0] ^= 0xff;
    let (ok, stderr) = stranger.join(&forged.to_string());
    assert!(!ok);
    assert!(stderr.contains("secret is not one this device issued"), "{stderr}");

    // An expired ticket.
    let expiring = server.invite_for("1s");
    let expires = expiring.parse::<ferrex_sync::PairingTicket>().unwrap().expires_at;
    ferrex_tests::clock_past(expires.0).await;
    let (ok, stderr) = stranger.join(&expiring);
    assert!(!ok);
    assert!(stderr.contains("expired"), "{stderr}");

    // A ticket that was already used.
    let (ok, stderr) = stranger.join(&used_ticket);
    assert!(!ok);
    assert!(stderr.contains("already used"), "{stderr}");

    // Malformed tickets are refused before anything is dialed.
    let (ok, stderr) = stranger.join("ferrexnotaticket");
    assert!(!ok);
    assert!(stderr.contains("not a ferrex pairing ticket"), "{stderr}");

    assert!(!holds_memories(&stranger).await, "the stranger got memory data");
    assert!(peers(&server).peer(&stranger_id).is_none());

    // Revocation: a paired desktop is removed; it syncs nothing afterwards.
    let desktop = TestHome::named("desktop");
    assert!(desktop.join(&server.invite()).0);
    let on_desktop = desktop.client().await;
    assert!(wait_for_recall(&on_desktop, "launch codename", "work", &secret).await);
    let desktop_id = desktop.device_id();
    let (ok, _, stderr) = laptop.run(&["peers", "remove", &desktop_id[..12]]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("removed desktop"), "{stderr}");
    // The revocation reaches the server, which drops the desktop.
    let dropped =
        eventually(CONVERGE, || async { peers(&server).peer(&desktop_id).is_none().then_some(()) })
            .await;
    assert!(dropped.is_some(), "the server still lists the desktop: {:?}", peers(&server));
    let after = on_laptop.store_text("The new launch date is the 3rd of March.", "work").await;
    assert!(wait_for_recall(&on_server, "new launch date", "work", &after).await);
    // The desktop's node stops, and where the others' logs stand is noted:
    // a refusal after this point is of the node started next, which dials
    // both at once, after the memory existed. Both must refuse it before
    // its absence means anything.
    on_desktop.close().await;
    desktop.stop();
    let logs = [&server, &laptop].map(|home| home.path().join("logs/node.log"));
    let before: Vec<usize> =
        logs.iter().map(|log| std::fs::read_to_string(log).unwrap_or_default().len()).collect();
    let on_desktop = desktop.client().await;
    let refusal = "refused a connection from a device that is not paired";
    let desktop_field = format!("peer={}", &desktop_id[..10]);
    let refused = eventually(CONVERGE, || async {
        logs.iter()
            .zip(&before)
            .all(|(log, &from)| {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                text.get(from..).is_some_and(|new| {
                    new.lines().any(|line| line.contains(refusal) && line.contains(&desktop_field))
                })
            })
            .then_some(())
    })
    .await;
    assert!(refused.is_some(), "the server and laptop never refused the revoked desktop");
    assert!(
        !on_desktop.recall_ids("new launch date", "work", 10).await.contains(&after),
        "a revoked device still receives memories"
    );
    // Its connections close (the desktop may take a moment to see it).
    let disconnected = eventually(CONVERGE, || async {
        let status = peers(&desktop);
        status.peers.iter().all(|entry| !entry.online).then_some(status)
    })
    .await;
    let status = disconnected.unwrap_or_else(|| peers(&desktop));
    for entry in &status.peers {
        assert!(!entry.online, "the revoked desktop is still connected: {status:?}");
    }
    on_laptop.close().await;
    on_server.close().await;
    on_desktop.close().await;
}

#[tokio::test]
async fn a_killed_peer_is_back_in_sync_within_seconds_of_its_restart() {
    // The laptop's old connection to a killed server lingers until QUIC's
    // idle timeout (tens of seconds); the restarted server's new connection
    // must replace it rather than be refused as a duplicate.
    let server = TestHome::named("server");
    let laptop = TestHome::named("laptop");
    assert!(laptop.join(&server.invite()).0);
    let on_laptop = laptop.client().await;
    let first = on_laptop.store_text("The backup job runs at midnight.", "work").await;
    let on_server = server.client().await;
    assert!(wait_for_recall(&on_server, "when does the backup run", "work", &first).await);
    on_server.close().await;
    server.kill_node();

    // "Within seconds": the store reaches the restarted server within the
    // wait's bound, 10 s from its acknowledgement.
    let on_server = server.client().await;
    let second = on_laptop.store_text("The backup job moved to 2 am.", "work").await;
    let arrived = eventually(Duration::from_secs(10), || async {
        on_server.recall_ids("backup job 2 am", "work", 10).await.contains(&second).then_some(())
    })
    .await;
    assert!(arrived.is_some(), "the restarted server did not catch up within 10 s");
    on_laptop.close().await;
    on_server.close().await;
}
