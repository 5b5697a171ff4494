//! `ferrex/vectors/1` between real endpoints on loopback: a paired device
//! gets the vectors its peer holds for the content it names, and is told
//! when it runs another model or asks too much; a device that is not paired
//! is refused after the handshake and never reaches the vectors.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use ferrex_core::Timestamp;
use ferrex_sync::{
    DocChange, Identity, Network, NetworkConfig, NetworkMode, Replica, ReplicaOptions,
    SyncObserver,
    vectors::{
        MAX_WANTED, MemoryVectors, VECTORS_ALPN, VectorReply, VectorRequest, VectorSource, Wanted,
    },
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

const PROFILE: &str = "test-model/mean/256 model.onnx=abc";

/// Holds vectors for memory `m1` with content hash `h1`, and counts calls.
#[derive(Default)]
struct Source {
    calls: Mutex<usize>,
}

impl VectorSource for Source {
    fn profile(&self) -> Option<String> {
        Some(PROFILE.into())
    }

    fn vectors(&self, wanted: &[Wanted]) -> Vec<MemoryVectors> {
        *self.calls.lock().unwrap() += 1;
        wanted
            .iter()
            .filter(|wanted| wanted.id == "m1" && wanted.content_hash == "h1")
            .map(|wanted| MemoryVectors {
                id: wanted.id.clone(),
                content_hash: wanted.content_hash.clone(),
                vectors: vec![vec![0.25; 8], vec![-0.5; 8]],
            })
            .collect()
    }
}

struct Device {
    network: Network,
    _home: tempfile::TempDir,
}

async fn device(name: &str, vectors: Option<Arc<dyn VectorSource>>) -> Device {
    let home = tempfile::tempdir().unwrap();
    let identity = Identity::load_or_create(&home.path().join("device.key")).unwrap();
    let replica = Arc::new(
        Replica::open(
            &home.path().join("docs"),
            &identity.id().to_string(),
            ReplicaOptions::default(),
        )
        .unwrap(),
    );
    let config = NetworkConfig {
        mode: NetworkMode::Local,
        bind: "127.0.0.1:0".parse().unwrap(),
        state_dir: home.path().join("sync"),
        name: name.into(),
        clock: now,
        shares: Arc::new(std::sync::Mutex::new(
            ferrex_sync::shares::Shares::open(&home.path().join("sync/shares")).unwrap(),
        )),
    };
    let network =
        Network::start(identity, replica, config, Arc::new(Quiet), vectors).await.unwrap();
    Device { network, _home: home }
}

fn wanted(id: &str, content_hash: &str) -> Wanted {
    Wanted { id: id.into(), content_hash: content_hash.into() }
}

#[tokio::test]
async fn a_paired_device_gets_the_vectors_of_the_content_it_names() {
    let source = Arc::new(Source::default());
    let server = device("server", Some(source.clone())).await;
    let laptop = device("laptop", None).await;
    let ticket = server.network.invite(Duration::from_secs(60));
    laptop.network.join(&ticket).await.unwrap();

    let mut client = laptop.network.vector_client(server.network.id()).await.unwrap();
    let request = VectorRequest {
        profile: PROFILE.into(),
        wanted: vec![wanted("m1", "h1"), wanted("m1", "an older text"), wanted("m2", "h2")],
    };
    match client.request(&request).await.unwrap() {
        VectorReply::Vectors(found) => {
            assert_eq!(found.len(), 1, "only the memory with that content: {found:?}");
            assert_eq!(found[0].vectors, vec![vec![0.25; 8], vec![-0.5; 8]]);
        }
        other => panic!("no vectors: {other:?}"),
    }
    // Another model: told which, nothing read.
    let calls = *source.calls.lock().unwrap();
    let other = VectorRequest { profile: "another-model".into(), ..request.clone() };
    match client.request(&other).await.unwrap() {
        VectorReply::OtherModel(profile) => assert_eq!(profile, PROFILE),
        other => panic!("{other:?}"),
    }
    // Too much at once: refused with the limit, nothing read.
    let greedy = VectorRequest {
        profile: PROFILE.into(),
        wanted: (0..=MAX_WANTED).map(|index| wanted(&format!("m{index}"), "h")).collect(),
    };
    match client.request(&greedy).await.unwrap() {
        VectorReply::Refused(reason) => assert!(reason.contains("at most"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(*source.calls.lock().unwrap(), calls);
    client.close();

    // The laptop shares nothing: the server is told so.
    let mut client = server.network.vector_client(laptop.network.id()).await.unwrap();
    match client.request(&request).await.unwrap() {
        VectorReply::Refused(reason) => assert!(reason.contains("does not share"), "{reason}"),
        other => panic!("{other:?}"),
    }
    client.close();
    laptop.network.shutdown().await;
    server.network.shutdown().await;
}

#[tokio::test]
async fn a_device_that_is_not_paired_is_refused_before_any_request() {
    let source = Arc::new(Source::default());
    let server = device("server", Some(source.clone())).await;
    let stranger = iroh::Endpoint::builder(presets::Minimal)
        .relay_mode(RelayMode::Disabled)
        .clear_address_lookup()
        .portmapper_config(PortmapperConfig::Disabled)
        .alpns(vec![VECTORS_ALPN.to_vec()])
        .clear_ip_transports()
        .bind_addr("127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap())
        .unwrap()
        .bind()
        .await
        .unwrap();
    let addr = EndpointAddr::from_parts(
        server.network.id().parse().unwrap(),
        server.network.addrs().into_iter().map(TransportAddr::Ip),
    );
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        match stranger.connect(addr, VECTORS_ALPN).await {
            Ok(connection) => {
                // A request sent anyway is never answered.
                if let Ok((mut send, _recv)) = connection.open_bi().await {
                    let _ = send.write_all(b"\0\0\0\x01\0").await;
                }
                Some(connection.closed().await)
            }
            Err(error) => panic!("the handshake itself failed: {error}"),
        }
    })
    .await
    .unwrap();
    match closed {
        Some(ConnectionError::ApplicationClosed(close)) => {
            assert_eq!(u64::from(close.error_code), 403, "{close:?}");
        }
        other => panic!("closed for another reason: {other:?}"),
    }
    assert_eq!(*source.calls.lock().unwrap(), 0, "the stranger reached the vectors");
    stranger.close().await;
    server.network.shutdown().await;
}
