//! What acting in a share (a ticket made, a member removed) refuses, told
//! apart by kind: a real node on loopback, its share made here.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use ferrex_core::{Namespace, Timestamp};
use ferrex_sync::{
    DocChange, Identity, Network, NetworkConfig, NetworkMode, Replica, ReplicaOptions,
    ShareActionError, SyncObserver,
    membership::{Role, ShareId},
    shares::Shares,
};

struct Quiet;

impl SyncObserver for Quiet {
    fn merged(&self, _change: &DocChange) {}
}

fn now() -> Timestamp {
    Timestamp(1_700_000_000_000)
}

#[tokio::test]
async fn acting_in_a_share_refuses_by_kind() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let identity = Identity::load_or_create(&home.join("device.key")).unwrap();
    let me = identity.id().to_string();
    let replica =
        Arc::new(Replica::open(&home.join("docs"), &me, ReplicaOptions::default()).unwrap());
    let shares = Arc::new(Mutex::new(Shares::open(&home.join("sync/shares")).unwrap()));
    let share = {
        let mut shares = shares.lock().unwrap();
        let project = Namespace::parse("acme-api").unwrap();
        shares.create(&project, identity.secret(), &[], now()).unwrap().id
    };
    let config = NetworkConfig {
        mode: NetworkMode::Local,
        bind: "127.0.0.1:0".parse().unwrap(),
        state_dir: home.join("sync"),
        name: "laptop".into(),
        clock: now,
        shares,
    };
    let network = Network::start(identity, replica, config, Arc::new(Quiet), None).await.unwrap();
    network.share_changed(&share);
    let ttl = Duration::from_secs(600);

    // The creator invites a reader; a share it does not hold, nobody.
    let ticket = network.share_invite(&share, Role::Read, ttl).await.unwrap();
    assert_eq!(ticket.role, Role::Read);
    let elsewhere = ShareId([7; 32]);
    assert!(matches!(
        network.share_invite(&elsewhere, Role::Read, ttl).await,
        Err(ShareActionError::NotHeld)
    ));

    // Removing: nobody by that name, this device itself, a share not held.
    assert!(matches!(
        network.remove_member(&share, "nobody").await,
        Err(ShareActionError::NoSuchMember(words)) if words == "nobody"
    ));
    assert!(matches!(network.remove_member(&share, &me).await, Err(ShareActionError::ThisDevice)));
    assert!(matches!(network.remove_member(&elsewhere, &me).await, Err(ShareActionError::NotHeld)));
    network.shutdown().await;
}
