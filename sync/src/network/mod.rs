//! The network side of a node: its iroh endpoint, pairing, authorisation,
//! the connections to paired devices, and their sync sessions.
//!
//! - **Endpoint.** In `local` mode the endpoint uses direct addresses only:
//!   no relay, no address lookup, no port mapping, so nothing leaves the
//!   networks the devices share. `internet` mode adds iroh's relays and
//!   address lookup, for devices on different networks.
//! - **Pairing** (`ferrex/pair/1`): the joiner proves a ticket's one-time
//!   secret; both sides record the pairing in their registry, which then
//!   replicates to every device.
//! - **Authorisation.** A hook on the endpoint closes every `ferrex/sync/2`
//!   connection whose remote id is not a paired, unrevoked device right after
//!   the TLS handshake, before any stream is opened.
//! - **Connections.** A supervisor dials every paired device that has no
//!   connection, with a bounded dial timeout and exponential backoff. When two
//!   devices dial each other at once, both keep the connection dialed by the
//!   smaller id. Those rules are the link table's (`link.rs`), which
//!   takes the time and randomness as arguments; this file does the I/O they
//!   decide on.

use std::{
    collections::{HashMap, HashSet},
    net::SocketAddr,
    path::PathBuf,
    sync::{
        Arc, Mutex, PoisonError, RwLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use ferrex_core::Timestamp;
use iroh::{
    EndpointAddr, EndpointId, RelayMode, TransportAddr,
    endpoint::{AfterHandshakeOutcome, Connection, EndpointHooks, PortmapperConfig, presets},
    protocol::{AcceptError, ProtocolHandler, Router},
};
use rand::RngExt;
use tokio::sync::{Notify, watch};

use crate::{
    DocChange, Identity, PairingTicket, Replica,
    link::{self, Admission, Dialer, Held, Link, RegistryAction},
    pairing::{Invites, Refusal, Throttle},
    peers::{PeerRecord, PeerStatus, doc_statuses},
    registry::{DeviceRecord, Pairing, Revocation},
    replica::lock,
    session::{self, Scope, SessionContext, SessionHandle, remote_addr, short},
    shares::Shares,
    vectors::{VECTORS_ALPN, VectorClient, VectorProtocol, VectorSource},
    wire::{
        JoinReply, JoinRequest, MAX_PAIR_BYTES, OLD_PEER_REASON, PAIR_ALPN, SHARE_ALPN, SYNC_ALPN,
        SYNC_ALPN_V1, WireError, read_frame, write_frame,
    },
};

mod shares;

pub use shares::ShareActionError;

pub use shares::{MemberStatus, RemovedMember, SharePreview, ShareStatus};

/// How long a dial may take before it counts as failed (a dead address
/// otherwise takes about 30 s to fail).
const DIAL_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the supervisor looks for devices to dial when nothing wakes it.
const SUPERVISE_EVERY: Duration = Duration::from_secs(1);
/// How often the person's connected devices tell each other of their
/// shares when nothing changed.
const TELL_OWN_EVERY: Duration = Duration::from_secs(60);
/// How long a pairing exchange may take.
const PAIR_TIMEOUT: Duration = Duration::from_secs(10);
/// Close code for a connection from a device that is not paired.
const NOT_PAIRED: u32 = 403;
/// Close code for the second of two connections between the same devices.
const DUPLICATE: u32 = 409;

/// How a node reaches its peers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkMode {
    /// Direct addresses only: no relay, no address lookup, no port mapping.
    Local,
    /// iroh's public relays and address lookup (opt-in, real deployments).
    Internet,
}

/// Settings of the network.
#[derive(Debug, Clone)]
pub struct NetworkConfig {
    /// Local or internet.
    pub mode: NetworkMode,
    /// The UDP address to bind. Port 0 reuses the port of the last run when
    /// it is free, so that peers' recorded addresses stay good.
    pub bind: SocketAddr,
    /// Where invitations, peer records and the last port are kept.
    pub state_dir: PathBuf,
    /// This device's name.
    pub name: String,
    /// The node's clock.
    pub clock: fn() -> Timestamp,
    /// The shares this device holds (shared with the engine, whose recall
    /// reads them).
    pub shares: Arc<Mutex<Shares>>,
}

/// Told about every change merged from a peer (after it is durable).
pub trait SyncObserver: Send + Sync + 'static {
    /// `change` was merged into its document.
    fn merged(&self, change: &DocChange);
}

/// Why the network could not start or an operation failed.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// The endpoint could not bind.
    #[error("cannot bind the network endpoint to {addr}: {reason}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
    /// The documents could not be written.
    #[error(transparent)]
    Replica(#[from] crate::ReplicaError),
    /// A state file (revocations, invitations) is damaged or unreadable.
    #[error(transparent)]
    State(#[from] crate::StateFileError),
}

/// Why joining with a ticket failed.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// The ticket expired before it was used.
    #[error("the ticket expired {0} s ago; ask for a new one with `ferrex invite`")]
    Expired(i64),
    /// The ticket is this device's own.
    #[error("this ticket was printed by this device; run `ferrex join` on the other device")]
    OwnTicket,
    /// The inviting device could not be reached.
    #[error("cannot reach the inviting device at {addrs}: {source}")]
    Unreachable {
        /// The addresses tried.
        addrs: String,
        /// Why.
        source: DialError,
    },
    /// The inviting device refused.
    #[error("the inviting device refused: {0}")]
    Refused(Refusal),
    /// The pairing could not be recorded here.
    #[error(transparent)]
    Replica(#[from] crate::ReplicaError),
}

/// Why a device could not be reached, or did not answer as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DialError {
    /// What names the device is not a device id.
    #[error("{0:?} is not a device id")]
    BadId(String),
    /// Local mode knows no address of the device.
    #[error("no known address")]
    NoAddress,
    /// The device did not answer in time.
    #[error("no answer within {} s", .0.as_secs())]
    TimedOut(Duration),
    /// No connection could be made.
    #[error(transparent)]
    Connect(#[from] iroh::endpoint::ConnectError),
    /// The connection failed, or no stream could be opened on it.
    #[error(transparent)]
    Connection(#[from] iroh::endpoint::ConnectionError),
    /// A frame could not be written or read.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// The device closed the stream without answering.
    #[error("it closed the connection without answering")]
    NoAnswer,
    /// The device refused.
    #[error("it refused: {0}")]
    Refused(Refusal),
    /// The device answered out of turn.
    #[error("it answered out of turn: {0}")]
    OutOfTurn(String),
    /// What it sent could not be taken here.
    #[error("what it sent could not be taken: {0}")]
    Taking(String),
}

impl DialError {
    /// Whether the device runs a ferrex that does not speak the protocol
    /// asked for: its TLS handshake refused the application protocol
    /// (alert 120, `no_application_protocol`).
    pub fn older_protocol(&self) -> bool {
        use iroh::endpoint::{ConnectError, ConnectingError, ConnectionError, TransportErrorCode};
        let no_application_protocol = TransportErrorCode::crypto(120);
        let closed = match self {
            DialError::Connect(ConnectError::Connecting {
                source: ConnectingError::ConnectionError { source, .. },
                ..
            })
            | DialError::Connect(ConnectError::Connection { source, .. })
            | DialError::Connection(source) => source,
            _ => return false,
        };
        match closed {
            ConnectionError::ConnectionClosed(close) => close.error_code == no_application_protocol,
            ConnectionError::TransportError(error) => error.code == no_application_protocol,
            _ => false,
        }
    }
}

/// A connection the node holds to a peer.
#[derive(Debug)]
struct Live {
    connection: Connection,
    /// Who dialed it and when it was admitted, for the tie-break.
    held: Held,
    session: Option<SessionHandle>,
}

/// What the node knows of the link to one peer: the connection it holds,
/// and the link table's row that says when to dial.
#[derive(Debug, Default)]
struct Slot {
    live: Option<Live>,
    link: Link,
}

/// The randomness the link table's jitter is drawn from.
fn random() -> u64 {
    rand::rng().random()
}

/// Shared by the network's tasks.
///
/// **Lock order.** A lock of this struct is only ever taken while holding
/// locks before it in this order: `throttle` → `invites` → `slots` →
/// `allowed` → `shares`; `revoked`, `member_throttle`, `member_rate`,
/// `members_seen` and `own_scopes` are taken alone. The replica's own locks
/// come after all of them (the replica never calls back into the network
/// while holding one), and no lock here is held across an `.await`. What a
/// rule decides is asked of `crate::policy` outside any lock where it can
/// be (read the statements, drop the lock, decide).
struct Inner {
    replica: Arc<Replica>,
    /// Merged changes on their way to the observer, in the order they were
    /// merged: one thread hands them over, so a session merges the next
    /// message while the last one is indexed.
    merged: std::sync::mpsc::Sender<DocChange>,
    clock: fn() -> Timestamp,
    state_dir: PathBuf,
    stop: watch::Sender<bool>,
    identity: Identity,
    mode: NetworkMode,
    me: String,
    name: String,
    endpoint: iroh::Endpoint,
    allowed: Arc<RwLock<HashSet<EndpointId>>>,
    slots: Mutex<HashMap<String, Slot>>,
    invites: Mutex<Invites>,
    throttle: Mutex<Throttle>,
    /// Failed requests of devices that are no member of a share they name.
    member_throttle: Mutex<Throttle>,
    /// Exchanges each known member may still ask for.
    member_rate: Mutex<shares::MemberRate>,
    /// The members of each share when it last changed here, to see one go.
    members_seen: Mutex<HashMap<crate::membership::ShareId, std::collections::BTreeSet<[u8; 32]>>>,
    wake: Notify,
    /// Every device ever revoked (grow-only, also kept in `revoked.json`).
    revoked: Mutex<HashSet<String>>,
    /// The shares this device holds.
    shares: Arc<Mutex<Shares>>,
    /// The scope of each paired device's session now (what shares it is
    /// not a member of, or may only read), to end it when that changes.
    own_scopes: Mutex<HashMap<String, Scope>>,
    /// Sessions running now, and a signal when one ends.
    sessions: AtomicUsize,
    session_ended: Notify,
}

/// The network of a running node.
pub struct Network {
    inner: Arc<Inner>,
    router: Router,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Network").field("id", &short(&self.inner.me)).finish()
    }
}

/// Refuses sync connections from devices that are not paired.
#[derive(Debug)]
struct Gate {
    allowed: Arc<RwLock<HashSet<EndpointId>>>,
}

impl EndpointHooks for Gate {
    async fn after_handshake(&self, connection: &Connection) -> AfterHandshakeOutcome {
        let alpn = connection.alpn();
        if alpn != SYNC_ALPN && alpn != VECTORS_ALPN {
            return AfterHandshakeOutcome::accept();
        }
        let remote = connection.remote_id();
        let allowed = self.allowed.read().unwrap_or_else(PoisonError::into_inner).contains(&remote);
        if allowed {
            return AfterHandshakeOutcome::accept();
        }
        tracing::info!(
            peer = %remote.fmt_short(),
            alpn = %String::from_utf8_lossy(alpn),
            "refused a connection from a device that is not paired"
        );
        AfterHandshakeOutcome::Reject {
            error_code: NOT_PAIRED.into(),
            reason: b"not a paired device".to_vec(),
        }
    }
}

impl Network {
    /// Binds the endpoint and starts accepting and dialing. Paired devices
    /// that ask for vectors are answered from `vectors` (refused when
    /// `None`).
    pub async fn start(
        identity: Identity,
        replica: Arc<Replica>,
        config: NetworkConfig,
        observer: Arc<dyn SyncObserver>,
        vectors: Option<Arc<dyn VectorSource>>,
    ) -> Result<Network, NetworkError> {
        std::fs::create_dir_all(&config.state_dir).map_err(|error| NetworkError::Bind {
            addr: config.bind,
            reason: format!("cannot create {}: {error}", config.state_dir.display()),
        })?;
        let allowed = Arc::new(RwLock::new(HashSet::new()));
        let endpoint = bind(&identity, &config, allowed.clone()).await?;
        let (stop, _) = watch::channel(false);
        let me = identity.id().to_string();
        // Revocations are security state: a damaged file stops the node
        // rather than letting a revoked device back in.
        let revoked: HashSet<String> =
            crate::state_file::load_json(&config.state_dir.join("revoked.json"))?
                .unwrap_or_default();
        let invites = Invites::load(&config.state_dir.join("invites.json"))?;
        let merged = hand_over(observer).map_err(|error| NetworkError::Bind {
            addr: config.bind,
            reason: format!("cannot start the thread that indexes merged changes: {error}"),
        })?;
        let inner = Arc::new(Inner {
            replica,
            merged,
            clock: config.clock,
            invites: Mutex::new(invites),
            state_dir: config.state_dir,
            stop,
            identity,
            mode: config.mode,
            me,
            name: config.name,
            endpoint: endpoint.clone(),
            allowed,
            slots: Mutex::new(HashMap::new()),
            throttle: Mutex::new(Throttle::default()),
            member_throttle: Mutex::new(Throttle::default()),
            member_rate: Mutex::new(shares::MemberRate::default()),
            members_seen: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            revoked: Mutex::new(revoked),
            shares: config.shares,
            own_scopes: Mutex::new(HashMap::new()),
            sessions: AtomicUsize::new(0),
            session_ended: Notify::new(),
        });
        inner.registry_changed();
        inner.refresh_read_only();
        inner.publish_device_record()?;
        let router = Router::builder(endpoint)
            .accept(SYNC_ALPN, SyncProtocol(inner.clone()))
            .accept(SYNC_ALPN_V1, OldSyncProtocol)
            .accept(PAIR_ALPN, PairProtocol(inner.clone()))
            .accept(VECTORS_ALPN, VectorProtocol(vectors))
            .accept(SHARE_ALPN, shares::ShareProtocol(inner.clone()))
            .spawn();
        tokio::spawn(supervise(inner.clone()));
        tracing::info!(id = %short(&inner.me), addrs = ?inner.addrs(), "network started");
        Ok(Network { inner, router })
    }

    /// The paired devices this node has a live sync connection with.
    pub fn connected_peers(&self) -> Vec<String> {
        let mut peers = self.inner.connected_own();
        peers.sort();
        peers
    }

    /// Opens a `ferrex/vectors/1` exchange with the paired device `peer`.
    pub async fn vector_client(&self, peer: &str) -> Result<VectorClient, DialError> {
        let addr = self.inner.addr_of(peer)?;
        let connection =
            tokio::time::timeout(DIAL_TIMEOUT, self.inner.endpoint.connect(addr, VECTORS_ALPN))
                .await
                .map_err(|_| DialError::TimedOut(DIAL_TIMEOUT))??;
        Ok(VectorClient::open(connection).await?)
    }

    /// This device's id (hex).
    pub fn id(&self) -> &str {
        &self.inner.me
    }

    /// This device's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The direct addresses this device listens on.
    pub fn addrs(&self) -> Vec<SocketAddr> {
        self.inner.addrs()
    }

    /// Makes a one-time ticket that expires after `ttl`.
    pub fn invite(&self, ttl: Duration) -> PairingTicket {
        let now = (self.inner.clock)();
        let secret: [u8; 32] = rand::rng().random();
        let expires_at = Timestamp(now.0 + ttl.as_millis() as i64);
        lock(&self.inner.invites).create(&secret, expires_at, now);
        let addr = EndpointAddr::from_parts(
            self.inner.identity.id(),
            self.inner.addrs().into_iter().map(TransportAddr::Ip),
        );
        PairingTicket { addr, secret, expires_at, name: self.inner.name.clone() }
    }

    /// Pairs with the device that made `ticket`. Returns its name and id.
    pub async fn join(&self, ticket: &PairingTicket) -> Result<(String, String), JoinError> {
        let inner = &self.inner;
        let now = (inner.clock)();
        if ticket.addr.id == inner.identity.id() {
            return Err(JoinError::OwnTicket);
        }
        if now.0 >= ticket.expires_at.0 {
            return Err(JoinError::Expired((now.0 - ticket.expires_at.0) / 1000));
        }
        let request =
            JoinRequest { secret: ticket.secret, name: inner.name.clone(), addrs: inner.addrs() };
        let reply: JoinReply = inner.ask(&ticket.addr, PAIR_ALPN, &request, MAX_PAIR_BYTES).await?;
        match reply {
            JoinReply::Refused(refusal) => Err(JoinError::Refused(refusal)),
            JoinReply::Accepted { name, addrs, at } => {
                let inviter = ticket.addr.id.to_string();
                let mut inviter_addrs: Vec<SocketAddr> = addrs;
                for addr in ticket.addr.ip_addrs() {
                    if !inviter_addrs.contains(addr) {
                        inviter_addrs.push(*addr);
                    }
                }
                let pairing = Pairing {
                    inviter: inviter.clone(),
                    joiner: inner.me.clone(),
                    inviter_name: name.clone(),
                    joiner_name: inner.name.clone(),
                    inviter_addrs,
                    joiner_addrs: inner.addrs(),
                    at: Timestamp(at),
                };
                inner.replica.add_pairing(&pairing, (inner.clock)())?;
                inner.registry_changed();
                tracing::info!(peer = %short(&inviter), name, "paired");
                Ok((name, inviter))
            }
        }
    }

    /// Revokes device `id` on every node: it is refused from then on.
    pub fn remove(&self, id: &str) -> Result<bool, NetworkError> {
        let inner = &self.inner;
        let revocation =
            Revocation { id: id.to_owned(), at: (inner.clock)(), by: inner.me.clone() };
        let revoked = inner.replica.revoke(&revocation, revocation.at)?;
        inner.registry_changed();
        Ok(revoked)
    }

    /// How every paired device stands, asking connected ones how many
    /// changes this node lacks (waiting at most `timeout` for each).
    pub async fn peers(&self, timeout: Duration) -> Vec<PeerStatus> {
        let inner = &self.inner;
        let registry = inner.replica.registry();
        let mut rows = Vec::new();
        let mut asking = tokio::task::JoinSet::new();
        for id in registry.paired() {
            if id == inner.me {
                continue;
            }
            let (session, address, udp) = {
                let slots = lock(&inner.slots);
                let live = slots.get(&id).and_then(|slot| slot.live.as_ref());
                let session = live.and_then(|live| live.session.clone());
                let udp = live
                    .map(|live| live.connection.stats())
                    .map(|stats| (stats.udp_tx.bytes, stats.udp_rx.bytes));
                (
                    session,
                    live.and_then(|live| remote_addr(&live.connection)),
                    udp.unwrap_or_default(),
                )
            };
            if let Some(session) = session.clone() {
                // Every connected peer is asked at once.
                asking.spawn(async move { session.ask_status(timeout).await });
            }
            rows.push((id, session, address, udp));
        }
        while asking.join_next().await.is_some() {}
        let mut statuses = Vec::new();
        for (id, session, address, udp) in rows {
            let (record, sent, received) = match &session {
                Some(session) => (
                    lock(&session.shared.record).clone(),
                    session.shared.bytes_sent.load(Ordering::Relaxed),
                    session.shared.bytes_received.load(Ordering::Relaxed),
                ),
                None => (PeerRecord::load(&inner.state_dir, &id), 0, 0),
            };
            // Online means a session that has heard from the peer: a refused
            // dial also opens a connection, briefly.
            let online = session.is_some() && received > 0;
            let mut status =
                status_of(&inner.replica, &registry, &id, &record, online, address, sent, received);
            (status.udp_bytes_sent, status.udp_bytes_received) = udp;
            statuses.push(status);
        }
        statuses
    }

    /// Stops dialing and accepting, ends every session, and closes the
    /// endpoint.
    pub async fn shutdown(&self) {
        let _ = self.inner.stop.send(true);
        let sessions: Vec<Connection> = lock(&self.inner.slots)
            .values()
            .filter_map(|slot| slot.live.as_ref().map(|live| live.connection.clone()))
            .collect();
        for connection in sessions {
            connection.close(0u32.into(), b"node stopping");
        }
        self.inner.sessions_ended(Duration::from_secs(10)).await;
        if let Err(error) = self.router.shutdown().await {
            tracing::warn!("stopping the network: {error}");
        }
    }
}

/// The status of peer `id` from what is known about it.
#[allow(clippy::too_many_arguments, reason = "a plain constructor of a status row")]
fn status_of(
    replica: &Replica,
    registry: &crate::Registry,
    id: &str,
    record: &PeerRecord,
    online: bool,
    address: Option<SocketAddr>,
    bytes_sent: u64,
    bytes_received: u64,
) -> PeerStatus {
    PeerStatus {
        id: id.to_owned(),
        name: registry.name_of(id),
        online,
        address: address.or(record.last_addr),
        known_addrs: registry.addrs_of(id),
        last_seen: record.last_seen.map(Timestamp),
        docs: doc_statuses(replica, record),
        bytes_sent,
        bytes_received,
        udp_bytes_sent: 0,
        udp_bytes_received: 0,
    }
}

/// How every paired device stood when this node last ran (for status
/// commands while the node is stopped).
pub fn offline_peers(replica: &Replica, state_dir: &std::path::Path, me: &str) -> Vec<PeerStatus> {
    let registry = replica.registry();
    registry
        .paired()
        .into_iter()
        .filter(|id| id != me)
        .map(|id| {
            let record = PeerRecord::load(state_dir, &id);
            status_of(replica, &registry, &id, &record, false, None, 0, 0)
        })
        .collect()
}

async fn bind(
    identity: &Identity,
    config: &NetworkConfig,
    allowed: Arc<RwLock<HashSet<EndpointId>>>,
) -> Result<iroh::Endpoint, NetworkError> {
    let port_file = config.state_dir.join("last-port");
    let mut attempts = vec![config.bind];
    if config.bind.port() == 0
        && let Some(port) =
            std::fs::read_to_string(&port_file).ok().and_then(|text| text.trim().parse().ok())
    {
        attempts.insert(0, SocketAddr::new(config.bind.ip(), port));
    }
    let mut last_error = String::new();
    for addr in &attempts {
        let builder = match config.mode {
            NetworkMode::Local => iroh::Endpoint::builder(presets::Minimal)
                .relay_mode(RelayMode::Disabled)
                .clear_address_lookup()
                .portmapper_config(PortmapperConfig::Disabled),
            NetworkMode::Internet => iroh::Endpoint::builder(presets::N0),
        };
        let builder = builder
            .secret_key(identity.secret().clone())
            .alpns(vec![
                SYNC_ALPN.to_vec(),
                PAIR_ALPN.to_vec(),
                SYNC_ALPN_V1.to_vec(),
                VECTORS_ALPN.to_vec(),
                SHARE_ALPN.to_vec(),
            ])
            .hooks(Gate { allowed: allowed.clone() })
            .clear_ip_transports()
            .bind_addr(*addr)
            .map_err(|error| NetworkError::Bind { addr: *addr, reason: error.to_string() })?;
        match builder.bind().await {
            Ok(endpoint) => {
                if let Some(port) = endpoint.bound_sockets().first().map(SocketAddr::port)
                    && let Err(error) = crate::state_file::save_bytes(
                        &port_file,
                        port.to_string().as_bytes(),
                        false,
                    )
                {
                    tracing::debug!("could not remember the port: {error}");
                }
                return Ok(endpoint);
            }
            Err(error) => {
                tracing::debug!(%addr, "could not bind: {error}");
                last_error = error.to_string();
            }
        }
    }
    Err(NetworkError::Bind { addr: config.bind, reason: last_error })
}

impl Inner {
    /// Sends one `request` on `alpn` to `addr` and reads its answer (at
    /// most `max` bytes); the connection closes after. Bounded by
    /// [`PAIR_TIMEOUT`].
    async fn ask<Request: serde::Serialize, Reply: serde::de::DeserializeOwned>(
        &self,
        addr: &EndpointAddr,
        alpn: &[u8],
        request: &Request,
        max: usize,
    ) -> Result<Reply, JoinError> {
        let exchange = async {
            let connection = self.endpoint.connect(addr.clone(), alpn).await?;
            let (mut send, mut recv) = connection.open_bi().await?;
            write_frame(&mut send, request).await?;
            let _ = send.finish();
            let reply = read_frame::<Reply>(&mut recv, max)
                .await?
                .map(|(reply, _)| reply)
                .ok_or(DialError::NoAnswer)?;
            connection.close(0u32.into(), b"done");
            Ok::<_, DialError>(reply)
        };
        tokio::time::timeout(PAIR_TIMEOUT, exchange)
            .await
            .unwrap_or(Err(DialError::TimedOut(PAIR_TIMEOUT)))
            .map_err(|source| JoinError::Unreachable { addrs: addrs_text(addr), source })
    }

    /// The paired devices with a live connection now (a share member's
    /// slot is keyed `device.share`, and left out).
    fn connected_own(&self) -> Vec<String> {
        lock(&self.slots)
            .iter()
            .filter(|(key, slot)| {
                !key.contains('.')
                    && slot
                        .live
                        .as_ref()
                        .is_some_and(|live| live.connection.close_reason().is_none())
            })
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// The direct addresses this endpoint can be dialed on.
    fn addrs(&self) -> Vec<SocketAddr> {
        let mut addrs: Vec<SocketAddr> = self.endpoint.addr().ip_addrs().copied().collect();
        if addrs.is_empty() {
            addrs = self
                .endpoint
                .bound_sockets()
                .into_iter()
                .filter(|addr| !addr.ip().is_unspecified())
                .collect();
        }
        addrs.sort();
        addrs.dedup();
        addrs
    }

    /// Writes this device's name and addresses to the registry if changed.
    fn publish_device_record(&self) -> Result<(), crate::ReplicaError> {
        let record = DeviceRecord {
            id: self.me.clone(),
            name: self.name.clone(),
            addrs: self.addrs(),
            updated_at: (self.clock)(),
        };
        self.replica.put_own_device(&record, record.updated_at)?;
        Ok(())
    }

    /// Re-reads the registry: who may connect, who to dial, and which
    /// connections to drop because their device was revoked.
    fn registry_changed(&self) {
        let registry = self.replica.registry();
        let revoked = self.remember_revocations(&registry);
        let paired: HashSet<EndpointId> = registry
            .paired()
            .iter()
            .filter(|id| **id != self.me && !revoked.contains(*id))
            .filter_map(|id| id.parse().ok())
            .collect();
        *self.allowed.write().unwrap_or_else(PoisonError::into_inner) = paired;
        let mut slots = lock(&self.slots);
        for (id, slot) in slots.iter_mut() {
            let action = slot.link.registry_changed(revoked.contains(id), slot.live.is_some());
            if action == RegistryAction::Close
                && let Some(live) = slot.live.take()
            {
                tracing::info!(peer = %short(id), "closing the connection of a revoked device");
                live.connection.close(NOT_PAIRED.into(), b"device revoked");
            }
        }
        drop(slots);
        self.wake.notify_one();
    }

    /// Revocations never end: the registry's are kept in a local file too,
    /// so that a merge that deleted one (from a misbehaving device) cannot
    /// let a revoked device back in; such a revocation is written again.
    /// Returns every revoked id.
    fn remember_revocations(&self, registry: &crate::Registry) -> HashSet<String> {
        let mut known = lock(&self.revoked);
        let before = known.len();
        known.extend(registry.revoked.keys().cloned());
        if known.len() != before {
            let mut list: Vec<&String> = known.iter().collect();
            list.sort();
            let path = self.state_dir.join("revoked.json");
            if let Err(error) = crate::state_file::save_json(&path, &list, false) {
                tracing::warn!("could not save revocations: {error}");
            }
        }
        let missing: Vec<String> =
            known.iter().filter(|id| !registry.revoked.contains_key(*id)).cloned().collect();
        let all = known.clone();
        drop(known);
        for id in missing {
            tracing::warn!(peer = %short(&id), "a merge removed a revocation; writing it again");
            let revocation = Revocation { id, at: (self.clock)(), by: self.me.clone() };
            if let Err(error) = self.replica.revoke(&revocation, revocation.at) {
                tracing::warn!("could not restore a revocation: {error}");
            }
        }
        all.into_iter().collect()
    }

    /// Takes a new connection to `peer`, dialed by `dialer`, if the peer
    /// may connect at all and no better connection to it exists (which one
    /// is better is [`link::admit`]'s rule).
    fn admit(&self, peer: &str, connection: &Connection, dialer: Dialer) -> bool {
        let Ok(peer_id) = peer.parse::<EndpointId>() else { return false };
        // Checked under the slots lock: `registry_changed` updates `allowed`
        // before it looks at the slots, so a revoked device cannot slip in.
        let allowed =
            || self.allowed.read().unwrap_or_else(PoisonError::into_inner).contains(&peer_id);
        self.admit_as(peer, peer, connection, dialer, allowed)
    }

    /// Admits `connection` from `peer` into the slot `key` (the peer's id,
    /// or a share member's key) if `allowed` says so under the slots lock.
    fn admit_as(
        &self,
        key: &str,
        peer: &str,
        connection: &Connection,
        dialer: Dialer,
        allowed: impl FnOnce() -> bool,
    ) -> bool {
        let Ok(peer_id) = peer.parse::<EndpointId>() else { return false };
        let preferred = Dialer::preferred(self.identity.id().as_bytes(), peer_id.as_bytes());
        let mut slots = lock(&self.slots);
        let now = Instant::now();
        if !allowed() {
            return false;
        }
        let slot = slots.entry(key.to_owned()).or_default();
        let open = slot.live.as_ref().filter(|live| live.connection.close_reason().is_none());
        match link::admit(open.map(|live| live.held), dialer, preferred, now) {
            Admission::Take => {}
            Admission::Replace => {
                if let Some(existing) = open {
                    existing.connection.close(DUPLICATE.into(), b"replaced by a newer connection");
                }
            }
            Admission::Refuse => return false,
        }
        slot.live = Some(Live {
            connection: connection.clone(),
            held: Held { dialer, admitted_at: now },
            session: None,
        });
        true
    }

    fn attach(&self, peer: &str, connection: &Connection, handle: SessionHandle) {
        if let Some(live) = lock(&self.slots).get_mut(peer).and_then(|slot| slot.live.as_mut())
            && live.connection.stable_id() == connection.stable_id()
        {
            live.session = Some(handle);
        }
    }

    /// Forgets a connection that ended. One that never carried a frame (the
    /// peer refused it) counts as a failed dial.
    fn release(&self, peer: &str, connection: &Connection, established: bool) {
        let mut slots = lock(&self.slots);
        if let Some(slot) = slots.get_mut(peer)
            && slot
                .live
                .as_ref()
                .is_some_and(|live| live.connection.stable_id() == connection.stable_id())
        {
            slot.live = None;
            slot.link.connection_ended(established, Instant::now(), random());
        }
        drop(slots);
        self.wake.notify_one();
    }

    /// Runs a sync session on an admitted connection until it ends.
    async fn serve(
        self: &Arc<Self>,
        peer: String,
        connection: Connection,
        send: iroh::endpoint::SendStream,
        recv: iroh::endpoint::RecvStream,
    ) {
        let scope = self.own_scope(&peer);
        lock(&self.own_scopes).insert(peer.clone(), scope.clone());
        self.serve_as(peer, scope, connection, send, recv).await;
    }

    /// Runs a session of `scope` in the slot `peer` (a device id, or a
    /// share member's key) until it ends.
    async fn serve_as(
        self: &Arc<Self>,
        peer: String,
        scope: Scope,
        connection: Connection,
        send: iroh::endpoint::SendStream,
        recv: iroh::endpoint::RecvStream,
    ) {
        self.sessions.fetch_add(1, Ordering::SeqCst);
        let record = PeerRecord::load(&self.state_dir, &peer);
        tracing::debug!(peer = %short(&peer), "sync connection open");
        let inner = self.clone();
        let (peer_for_start, connection_for_start) = (peer.clone(), connection.clone());
        let established = session::run(
            self.session_context(scope),
            peer.clone(),
            connection.clone(),
            send,
            recv,
            record,
            move |handle| inner.attach(&peer_for_start, &connection_for_start, handle),
        )
        .await;
        self.release(&peer, &connection, established);
        self.sessions.fetch_sub(1, Ordering::SeqCst);
        self.session_ended.notify_waiters();
        if established {
            tracing::info!(peer = %short(&peer), "disconnected");
        } else {
            tracing::debug!(peer = %short(&peer), "the connection ended before any exchange");
        }
    }

    /// What a session needs from this node.
    fn session_context(self: &Arc<Self>, scope: Scope) -> SessionContext {
        let network = self.clone();
        SessionContext {
            replica: self.replica.clone(),
            merged: self.merged.clone(),
            clock: self.clock,
            state_dir: self.state_dir.clone(),
            stop: self.stop.subscribe(),
            registry_changed: Arc::new(move || network.registry_changed()),
            scope,
        }
    }

    /// Waits (at most `limit`) until no session runs.
    async fn sessions_ended(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.sessions.load(Ordering::SeqCst) > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                tracing::warn!("sync sessions still running at shutdown");
                return;
            }
            let ended = self.session_ended.notified();
            if self.sessions.load(Ordering::SeqCst) == 0 {
                return;
            }
            let _ = tokio::time::timeout(left.min(Duration::from_millis(100)), ended).await;
        }
    }

    /// Where `peer` can be dialed: its id and the addresses its registry
    /// record names.
    fn addr_of(&self, peer: &str) -> Result<EndpointAddr, DialError> {
        let id: EndpointId = peer.parse().map_err(|_| DialError::BadId(peer.to_owned()))?;
        let addrs = self.replica.registry().addrs_of(peer);
        // Internet mode can find a device by its id alone; local mode cannot.
        if addrs.is_empty() && self.mode == NetworkMode::Local {
            return Err(DialError::NoAddress);
        }
        Ok(EndpointAddr::from_parts(id, addrs.iter().copied().map(TransportAddr::Ip)))
    }

    /// Dials `peer` once.
    async fn dial(self: Arc<Self>, peer: String) {
        // Statements before documents: a device that comes back hears of a
        // removal from a share before it merges anything stored since, so
        // it never passes that on to the removed device (docs/sharing.md).
        let exchanged = tokio::time::timeout(DIAL_TIMEOUT, self.clone().exchange_own(peer.clone()))
            .await
            .unwrap_or(Err(DialError::TimedOut(DIAL_TIMEOUT)));
        let outcome = async {
            match exchanged {
                // A ferrex from before shares has none to tell.
                Err(error) if error.older_protocol() => {}
                Err(error) => return Err(error),
                Ok(()) => {}
            }
            let addr = self.addr_of(&peer)?;
            let connection =
                tokio::time::timeout(DIAL_TIMEOUT, self.endpoint.connect(addr, SYNC_ALPN))
                    .await
                    .map_err(|_| DialError::TimedOut(DIAL_TIMEOUT))??;
            let (send, recv) = tokio::time::timeout(DIAL_TIMEOUT, connection.open_bi())
                .await
                .map_err(|_| DialError::TimedOut(DIAL_TIMEOUT))??;
            Ok((connection, send, recv))
        }
        .await;
        {
            let mut slots = lock(&self.slots);
            let slot = slots.entry(peer.clone()).or_default();
            match &outcome {
                Ok(_) => slot.link.dial_succeeded(),
                Err(error) => {
                    slot.link.dial_failed(Instant::now(), random());
                    if error.older_protocol() {
                        tracing::warn!(
                            peer = %short(&peer),
                            "the device does not speak ferrex/sync/2: it runs an older ferrex \
                             (document format 1); upgrade ferrex there and it will sync ({error})"
                        );
                    } else {
                        tracing::debug!(peer = %short(&peer), backoff = ?slot.link.backoff(), "dial failed: {error}");
                    }
                }
            }
        }
        let Ok((connection, send, recv)) = outcome else { return };
        if !self.admit(&peer, &connection, Dialer::ThisDevice) {
            connection.close(DUPLICATE.into(), b"duplicate connection");
            return;
        }
        self.serve(peer, connection, send, recv).await;
    }

    /// Handles one join request from `from`.
    fn pair(&self, from: EndpointId, request: &JoinRequest) -> JoinReply {
        let now = (self.clock)();
        let joiner = from.to_string();
        let mut throttle = lock(&self.throttle);
        if let Err(wait) = throttle.check(&joiner, now) {
            return JoinReply::Refused(Refusal::Throttled {
                retry_after_secs: wait.as_secs().max(1),
            });
        }
        if self.replica.registry().is_revoked(&joiner) {
            throttle.failed(&joiner, now);
            return JoinReply::Refused(Refusal::Revoked);
        }
        if let Err(refusal) = lock(&self.invites).redeem(&request.secret, &joiner, now) {
            throttle.failed(&joiner, now);
            tracing::info!(peer = %short(&joiner), "refused a pairing: {refusal}");
            return JoinReply::Refused(refusal);
        }
        throttle.succeeded(&joiner);
        drop(throttle);
        let name: String = request.name.chars().filter(|c| !c.is_control()).take(64).collect();
        let pairing = Pairing {
            inviter: self.me.clone(),
            joiner: joiner.clone(),
            inviter_name: self.name.clone(),
            joiner_name: name.clone(),
            inviter_addrs: self.addrs(),
            joiner_addrs: request.addrs.iter().copied().take(16).collect(),
            at: now,
        };
        if let Err(error) = self.replica.add_pairing(&pairing, now) {
            return JoinReply::Refused(Refusal::Internal(error.to_string()));
        }
        self.registry_changed();
        // The joiner dials as soon as it has read the reply and recorded
        // the pairing; this device dials it only after a while
        // (`link::AFTER_PAIRING`), since a dial before that would be refused.
        let mut slots = lock(&self.slots);
        let slot = slots.entry(joiner.clone()).or_default();
        slot.link.paired(slot.live.is_some(), Instant::now());
        drop(slots);
        tracing::info!(peer = %short(&joiner), name, "paired a new device");
        JoinReply::Accepted { name: self.name.clone(), addrs: self.addrs(), at: now.0 }
    }
}

/// The direct addresses of `addr`, for a message.
fn addrs_text(addr: &EndpointAddr) -> String {
    addr.ip_addrs().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// Starts the thread that hands merged changes to `observer` in order; it
/// ends when the network is gone.
fn hand_over(
    observer: Arc<dyn SyncObserver>,
) -> std::io::Result<std::sync::mpsc::Sender<DocChange>> {
    let (sender, queue) = std::sync::mpsc::channel::<DocChange>();
    std::thread::Builder::new().name("ferrex-merged".into()).spawn(move || {
        for change in queue {
            let started = Instant::now();
            observer.merged(&change);
            tracing::debug!(
                doc = %change.doc,
                memories = change.keys.memories.len(),
                observer_ms = started.elapsed().as_millis() as u64,
                "the observer took a merged change"
            );
        }
    })?;
    Ok(sender)
}

/// Dials paired devices that have no connection, when their backoff allows.
async fn supervise(inner: Arc<Inner>) {
    let mut stop = inner.stop.subscribe();
    let mut last_told = Instant::now();
    loop {
        // Addresses change when interfaces do; peers learn the new ones
        // through the registry.
        if let Err(error) = inner.publish_device_record() {
            tracing::warn!("could not record this device's addresses: {error}");
        }
        let registry = inner.replica.registry();
        let now = Instant::now();
        let mut to_dial = Vec::new();
        {
            let mut slots = lock(&inner.slots);
            for id in registry.paired() {
                if id == inner.me {
                    continue;
                }
                let slot = slots.entry(id.clone()).or_default();
                let connected =
                    slot.live.as_ref().is_some_and(|live| live.connection.close_reason().is_none());
                if slot.link.start_dial(connected, now) {
                    to_dial.push(id);
                }
            }
        }
        for peer in to_dial {
            tokio::spawn(inner.clone().dial(peer));
        }
        // The shares: the person's devices granted, and the members of
        // each dialed; the person's devices connected now told of every
        // share again once a minute (an exchange that failed is made up).
        inner.grant_own_devices();
        if last_told.elapsed() >= TELL_OWN_EVERY {
            last_told = Instant::now();
            for peer in inner.connected_own() {
                tokio::spawn(inner.clone().exchange_own(peer));
            }
        }
        for (share, peer, addrs) in inner.members_to_dial(now) {
            tokio::spawn(inner.clone().dial_member(share, peer, addrs));
        }
        tokio::select! {
            () = inner.wake.notified() => {}
            () = tokio::time::sleep(SUPERVISE_EVERY) => {}
            _ = stop.changed() => return,
        }
    }
}

#[derive(Debug, Clone)]
struct SyncProtocol(Arc<Inner>);

impl ProtocolHandler for SyncProtocol {
    async fn shutdown(&self) {
        // Sessions see the stop signal, save their state and end.
        let _ = self.0.stop.send(true);
        self.0.sessions_ended(Duration::from_secs(10)).await;
    }

    async fn accept(&self, connection: Connection) -> Result<(), AcceptError> {
        let inner = &self.0;
        let peer = connection.remote_id().to_string();
        let (send, recv) = match tokio::time::timeout(DIAL_TIMEOUT, connection.accept_bi()).await {
            Ok(Ok(streams)) => streams,
            Ok(Err(error)) => return Err(AcceptError::from_err(error)),
            Err(_) => {
                connection.close(0u32.into(), b"no stream");
                return Ok(());
            }
        };
        if !inner.admit(&peer, &connection, Dialer::Peer) {
            connection.close(DUPLICATE.into(), b"duplicate connection");
            return Ok(());
        }
        inner.serve(peer, connection, send, recv).await;
        Ok(())
    }
}

/// Answers devices that speak version 1 of the sync protocol (an older
/// ferrex, documents of format 1) by closing with a reason that names the
/// upgrade; nothing is exchanged, so neither side loses anything.
#[derive(Debug, Clone)]
struct OldSyncProtocol;

/// The error code of a connection closed because the peer is too old.
pub const OLD_PEER: u32 = 426;

impl ProtocolHandler for OldSyncProtocol {
    async fn accept(&self, connection: Connection) -> Result<(), AcceptError> {
        tracing::warn!(
            peer = %connection.remote_id().fmt_short(),
            "a device running an older ferrex (document format 1) tried to sync; \
             it must be upgraded first"
        );
        connection.close(OLD_PEER.into(), OLD_PEER_REASON.as_bytes());
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct PairProtocol(Arc<Inner>);

impl ProtocolHandler for PairProtocol {
    async fn accept(&self, connection: Connection) -> Result<(), AcceptError> {
        let exchange = async {
            let (mut send, mut recv) =
                connection.accept_bi().await.map_err(AcceptError::from_err)?;
            let Some((request, _)) = read_frame::<JoinRequest>(&mut recv, MAX_PAIR_BYTES)
                .await
                .map_err(AcceptError::from_err)?
            else {
                return Ok(());
            };
            let reply = self.0.pair(connection.remote_id(), &request);
            write_frame(&mut send, &reply).await.map_err(AcceptError::from_err)?;
            let _ = send.finish();
            // Let the reply reach the joiner before the connection goes.
            let _ = tokio::time::timeout(PAIR_TIMEOUT, connection.closed()).await;
            Ok(())
        };
        match tokio::time::timeout(PAIR_TIMEOUT, exchange).await {
            Ok(outcome) => outcome,
            Err(_) => Ok(()),
        }
    }
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Inner").field("me", &short(&self.me)).finish_non_exhaustive()
    }
}
