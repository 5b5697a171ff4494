//! A device still on document format 1 (protocol `ferrex/sync/1`) that dials
//! an upgraded node is told, in the close reason, to upgrade; the upgraded
//! node's documents are untouched.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{sync::Arc, time::Duration};

use ferrex_core::{Namespace, Timestamp};
use ferrex_sync::{
    DialError, DocChange, Identity, Network, NetworkConfig, NetworkMode, NewMemory, NewRecords,
    Replica, ReplicaOptions, SyncObserver,
    wire::{OLD_PEER_REASON, SYNC_ALPN_V1},
};
use iroh::{
    EndpointAddr, RelayMode, TransportAddr,
    endpoint::{ConnectionError, PortmapperConfig, presets},
};

struct Quiet;

impl SyncObserver for Quiet {
    fn merged(&self, _change: &DocChange) {}
}

fn now() -> Timestamp {
    Timestamp(1_700_000_000_000)
}

/// A node of this version in `home`, on loopback.
async fn upgraded_node(home: &std::path::Path) -> (Network, Arc<Replica>) {
    let identity = Identity::load_or_create(&home.join("device.key")).unwrap();
    let replica = Arc::new(
        Replica::open(&home.join("docs"), &identity.id().to_string(), ReplicaOptions::default())
            .unwrap(),
    );
    let config = NetworkConfig {
        mode: NetworkMode::Local,
        bind: "127.0.0.1:0".parse().unwrap(),
        state_dir: home.join("sync"),
        name: "upgraded".into(),
        clock: now,
        shares: Arc::new(std::sync::Mutex::new(
            ferrex_sync::shares::Shares::open(&home.join("sync/shares")).unwrap(),
        )),
    };
    let network =
        Network::start(identity, replica.clone(), config, Arc::new(Quiet), None).await.unwrap();
    (network, replica)
}

#[tokio::test]
async fn a_format_1_device_is_told_to_upgrade_and_nothing_is_exchanged() {
    let home = tempfile::tempdir().unwrap();
    let (network, replica) = upgraded_node(home.path()).await;
    let memory = NewMemory::episode("m1", "kept through it all", network.id(), now());
    let records = NewRecords { memories: vec![memory], ..Default::default() };
    replica.write_new(&Namespace::default(), now(), &records).unwrap();
    let shard = replica.locate("m1").unwrap();
    let heads = replica.heads(&shard).unwrap();

    // An old device: a plain endpoint that speaks only ferrex/sync/1.
    let old = iroh::Endpoint::builder(presets::Minimal)
        .relay_mode(RelayMode::Disabled)
        .clear_address_lookup()
        .portmapper_config(PortmapperConfig::Disabled)
        .alpns(vec![SYNC_ALPN_V1.to_vec()])
        .clear_ip_transports()
        .bind_addr("127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap())
        .unwrap()
        .bind()
        .await
        .unwrap();
    let addr = EndpointAddr::from_parts(
        network.id().parse().unwrap(),
        network.addrs().into_iter().map(TransportAddr::Ip),
    );
    let connection = tokio::time::timeout(Duration::from_secs(10), old.connect(addr, SYNC_ALPN_V1))
        .await
        .unwrap()
        .unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(10), connection.closed()).await.unwrap();
    match closed {
        ConnectionError::ApplicationClosed(close) => {
            let reason = String::from_utf8_lossy(&close.reason);
            assert_eq!(reason, OLD_PEER_REASON);
            assert!(reason.contains("upgrade ferrex on the other device"), "{reason}");
        }
        other => panic!("closed without the upgrade reason: {other:?}"),
    }
    assert_eq!(replica.heads(&shard).unwrap(), heads, "nothing was merged");
    old.close().await;
    network.shutdown().await;
}

#[tokio::test]
async fn a_device_that_does_not_speak_the_protocol_asked_for_is_told_apart_by_kind() {
    let home = tempfile::tempdir().unwrap();
    let (network, _replica) = upgraded_node(home.path()).await;
    // A device of another version: it asks for a protocol this one never spoke.
    let other = iroh::Endpoint::builder(presets::Minimal)
        .relay_mode(RelayMode::Disabled)
        .clear_address_lookup()
        .portmapper_config(PortmapperConfig::Disabled)
        .clear_ip_transports()
        .bind_addr("127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap())
        .unwrap()
        .bind()
        .await
        .unwrap();
    let addr = EndpointAddr::from_parts(
        network.id().parse().unwrap(),
        network.addrs().into_iter().map(TransportAddr::Ip),
    );
    let refused =
        tokio::time::timeout(Duration::from_secs(10), other.connect(addr, b"ferrex/sync/9"))
            .await
            .unwrap()
            .expect_err("a protocol nobody speaks was taken");
    let error = DialError::from(refused);
    assert!(error.older_protocol(), "not told apart: {error:?}");
    // Whatever its message says, another failure is not that.
    for error in [
        DialError::NoAddress,
        DialError::TimedOut(Duration::from_secs(10)),
        DialError::OutOfTurn("no application protocol (ALPN)".into()),
    ] {
        assert!(!error.older_protocol(), "{error:?}");
    }
    other.close().await;
    network.shutdown().await;
}
