//! One sync session: a connection to one paired device, over which every
//! document is kept in sync with the Automerge sync protocol.
//!
//! What the session decides lives in its core ([`core::SessionCore`]),
//! a state machine without I/O: frames and local changes in; frames to
//! send, merged changes and a close out. This module is its driver over
//! an iroh stream; the simulation (`sim.rs`) drives the same core over
//! seeded queues.
//!
//! The dialing side opens one bidirectional stream; both sides then send
//! [`Frame`]s on it. Three tasks share the work:
//! - the **reader** reads frames and hands them to the session loop, which
//!   takes the peer's keys ahead of the sync messages of other documents
//!   read before them;
//! - the **session loop** hands every frame to the core, which merges sync
//!   messages (durably, see [`Replica::receive_sync_message`]) and queues
//!   the answer at once (it carries the new heads: the acknowledgement);
//!   the loop then tells the observer what changed, and tells the core
//!   when a document changes here (a local write, or a merge from another
//!   peer), so that it owes the peer a message;
//! - the **writer** asks the core for the next frame: queued answers first,
//!   then the next message of a document that owes one, made only when it
//!   is about to be sent, so a burst of local changes makes one message
//!   per document.
//!
//! The session loop never waits on the writer, and the writer never on the
//! session loop, so two devices sending to each other at once cannot block
//! each other. The core's steps (merging, generating) run on blocking
//! threads, one at a time.
//!
//! The peer's [`PeerRecord`] is published after each step in
//! [`SessionShared`], which status queries read; it is saved every few
//! seconds while it changes and when the session ends.
//!
//! A session knows nothing of the network that runs it: what it needs from
//! the node (the replica, the clock, the stop signal, where merged changes
//! go) comes in a [`SessionContext`] that the network builds.

use std::{
    collections::{BTreeSet, HashMap, VecDeque},
    net::SocketAddr,
    path::PathBuf,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use ferrex_core::{Namespace, Timestamp};
use iroh::{
    TransportAddr,
    endpoint::{Connection, RecvStream, SendStream},
};
use tokio::sync::{Notify, broadcast::error::RecvError, mpsc, oneshot, watch};

pub(crate) mod core;

use self::core::{SessionCore, SessionError};
use crate::{
    DocChange, DocId, Replica,
    peers::PeerRecord,
    replica::lock,
    wire::{Frame, MAX_FRAME_BYTES, WireError, read_frame, write_frame},
};

/// How often a session saves its peer record while it changes.
const SAVE_EVERY: Duration = Duration::from_secs(5);
/// Frames read ahead of the session loop.
const INBOX: usize = 64;
/// Frames read ahead of the session loop in a member's session: with
/// [`MAX_MEMBER_FRAME_BYTES`], what a member can make a device hold is
/// (8 + 8) × 16 MiB per session, and only as bytes it really sent.
const MEMBER_INBOX: usize = 8;
/// Largest frame taken from a member of a share. A whole-document sync
/// message of a full shard (10,000 memories) is about 1 MB; a shard whose
/// memories are so large that its message passes this cannot reach a
/// member whole (the person's own devices take up to [`MAX_FRAME_BYTES`]).
pub const MAX_MEMBER_FRAME_BYTES: usize = 16 << 20;

/// What a session carries. A person's own device is trusted with every
/// document; a member of a share (a teammate's device) with the documents
/// of that share alone: the registry, every other namespace and share, and
/// the keys of their records never go to it, and what it sends of them is
/// refused (docs/sharing.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// One of this person's devices (or of a teammate's, for the teammate):
    /// every document but the shares it is not a member of, read-only for
    /// those it may not write.
    Own {
        /// Shares' namespaces it is not a member of.
        withheld: BTreeSet<Namespace>,
        /// Shares' namespaces it may only read.
        read_only: BTreeSet<Namespace>,
    },
    /// A member of the share whose documents are `namespace`'s shards.
    Share {
        /// The share's namespace.
        namespace: Namespace,
        /// The member may not write: its changes are not taken (Automerge's
        /// read-only sync state; ours still go to it).
        read_only: bool,
    },
}

impl Scope {
    /// One of this person's devices, trusted with every document.
    pub fn own() -> Scope {
        Scope::Own { withheld: BTreeSet::new(), read_only: BTreeSet::new() }
    }

    /// Whether the session carries `doc`.
    pub fn admits(&self, doc: &DocId) -> bool {
        match self {
            Scope::Own { withheld, .. } => doc.namespace().is_none_or(|ns| !withheld.contains(ns)),
            Scope::Share { namespace, .. } => doc.namespace() == Some(namespace),
        }
    }

    /// Whether the peer's changes to `doc` are refused.
    pub fn read_only(&self, doc: &DocId) -> bool {
        match self {
            Scope::Own { read_only, .. } => {
                doc.namespace().is_some_and(|ns| read_only.contains(ns))
            }
            Scope::Share { read_only, .. } => *read_only,
        }
    }

    /// The largest frame taken from the peer: a member's are smaller than
    /// the person's own devices' (`MAX_MEMBER_FRAME_BYTES`).
    pub fn max_frame_bytes(&self) -> usize {
        match self {
            Scope::Own { .. } => MAX_FRAME_BYTES,
            Scope::Share { .. } => MAX_MEMBER_FRAME_BYTES,
        }
    }

    /// Frames read ahead of the session loop at most (twice this are held:
    /// the reader's queue and the loop's).
    fn inbox(&self) -> usize {
        match self {
            Scope::Own { .. } => INBOX,
            Scope::Share { .. } => MEMBER_INBOX,
        }
    }

    /// The documents of `replica` the session carries.
    fn docs(&self, replica: &Replica) -> Vec<DocId> {
        replica.doc_ids().into_iter().filter(|doc| self.admits(doc)).collect()
    }
}

/// Why a session ended before its connection did.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionEnd {
    /// The core could not merge or make a message.
    #[error(transparent)]
    Core(#[from] SessionError),
    /// A step's blocking thread failed.
    #[error("a session step failed: {0}")]
    Step(tokio::task::JoinError),
    /// Nothing indexes merged changes any more (the node is stopping).
    #[error("the thread that indexes merged changes is gone")]
    ObserverGone,
}

/// What a session needs from the node that runs it. The network builds one
/// per session.
#[derive(Clone)]
pub(crate) struct SessionContext {
    /// The documents kept in sync.
    pub(crate) replica: Arc<Replica>,
    /// Merged changes on their way to the observer, in the order they were
    /// merged: one thread hands them over, so a session merges the next
    /// message while the last one is indexed.
    pub(crate) merged: std::sync::mpsc::Sender<DocChange>,
    /// The node's clock.
    pub(crate) clock: fn() -> Timestamp,
    /// Where the peer's record is saved.
    pub(crate) state_dir: PathBuf,
    /// Changes when the node stops; the session then saves its state and ends.
    pub(crate) stop: watch::Receiver<bool>,
    /// Called when a merge changed the registry, so that revocations take
    /// effect before anything else is sent.
    pub(crate) registry_changed: Arc<dyn Fn() + Send + Sync>,
    /// What the session carries.
    pub(crate) scope: Scope,
}

impl std::fmt::Debug for SessionContext {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SessionContext")
            .field("state_dir", &self.state_dir)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// A session's state, shared by its tasks and read by status queries. The
/// core has its own lock, held while a step runs (a merge, or making a
/// message: on a blocking thread only); what status queries read is a
/// copy, published after each step, so they never wait for a merge. Lock
/// order: `core`, then `record`; `pending` alone.
#[derive(Debug)]
pub(crate) struct SessionShared {
    /// The session itself.
    core: Mutex<SessionCore>,
    /// What is remembered about the peer, as of the last step.
    pub(crate) record: Mutex<PeerRecord>,
    /// What the peer sent that the session's scope refuses, as of the last
    /// step: frames of documents outside it, shards it may not make yet,
    /// and changes of a member that may not write.
    pub(crate) refused: AtomicU64,
    /// Frame bytes sent and received.
    pub(crate) bytes_sent: AtomicU64,
    pub(crate) bytes_received: AtomicU64,
    /// Wakes the writer.
    wake: Notify,
    /// Status requests waiting for their reply.
    pending: Mutex<HashMap<u64, oneshot::Sender<()>>>,
    next_request: AtomicU64,
}

impl SessionShared {
    fn new(core: SessionCore) -> Self {
        SessionShared {
            record: Mutex::new(core.record().clone()),
            core: Mutex::new(core),
            refused: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            bytes_received: AtomicU64::new(0),
            wake: Notify::new(),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(0),
        }
    }

    /// Runs one step of the core on a blocking thread, then publishes what
    /// status queries read and wakes the writer when something is due.
    /// `Err` when the step's thread failed.
    async fn step<T: Send + 'static>(
        self: &Arc<Self>,
        replica: &Arc<Replica>,
        step: impl FnOnce(&mut SessionCore, &Replica) -> T + Send + 'static,
    ) -> Result<T, SessionEnd> {
        let (shared, replica) = (self.clone(), replica.clone());
        tokio::task::spawn_blocking(move || {
            let mut core = lock(&shared.core);
            let out = step(&mut core, &replica);
            if let Some(record) = core.take_record_to_publish() {
                *lock(&shared.record) = record.clone();
            }
            shared.refused.store(core.refused(), Ordering::Relaxed);
            if core.wants_to_send() {
                shared.wake.notify_one();
            }
            out
        })
        .await
        .map_err(SessionEnd::Step)
    }
}

/// A handle on a running session.
#[derive(Clone)]
pub(crate) struct SessionHandle {
    pub(crate) shared: Arc<SessionShared>,
    replica: Arc<Replica>,
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("SessionHandle").finish_non_exhaustive()
    }
}

impl SessionHandle {
    /// Asks the peer where it stands (its heads, and how many changes this
    /// node lacks, per document) and records the answer; false when it does
    /// not answer within `timeout`.
    pub(crate) async fn ask_status(&self, timeout: Duration) -> bool {
        let (reply, answer) = oneshot::channel();
        let id = self.shared.next_request.fetch_add(1, Ordering::Relaxed);
        lock(&self.shared.pending).insert(id, reply);
        let asked =
            self.shared.step(&self.replica, move |core, replica| core.ask_status(replica, id));
        let answered = asked.await.is_ok()
            && tokio::time::timeout(timeout, answer).await.is_ok_and(|reply| reply.is_ok());
        lock(&self.shared.pending).remove(&id);
        answered
    }
}

/// Runs a session until the connection ends or the node stops: the driver
/// of [`SessionCore`] over an iroh stream. `record` is what was remembered
/// about the peer. Returns whether the peer ever answered (a refused
/// connection ends before it does).
pub(crate) async fn run(
    context: SessionContext,
    peer: String,
    connection: Connection,
    send: SendStream,
    recv: RecvStream,
    record: PeerRecord,
    on_start: impl FnOnce(SessionHandle),
) -> bool {
    let context = Arc::new(context);
    let replica = context.replica.clone();
    let shared = Arc::new(SessionShared::new(SessionCore::new(context.scope.clone(), record)));
    on_start(SessionHandle { shared: shared.clone(), replica: replica.clone() });
    let mut changes = replica.subscribe();
    let mut outcome = shared.step(&replica, |core, replica| core.start(replica)).await;
    let writer = tokio::spawn(write_loop(
        context.clone(),
        send,
        shared.clone(),
        connection.clone(),
        peer.clone(),
    ));
    let inbox = context.scope.inbox();
    let (incoming, mut frames) = mpsc::channel::<Frame>(inbox);
    let max_frame = context.scope.max_frame_bytes();
    let reader = tokio::spawn(read_loop(recv, incoming, shared.clone(), peer.clone(), max_frame));

    let mut save = tokio::time::interval(SAVE_EVERY);
    save.tick().await;
    let mut stop = context.stop.clone();
    let mut established = false;
    let mut ahead = VecDeque::new();
    while outcome.is_ok() {
        tokio::select! {
            frame = next_frame(&mut frames, &mut ahead, inbox) => match frame {
                Some(frame) => {
                    if !established {
                        established = true;
                        let addr = remote_addr(&connection);
                        tracing::info!(peer = %short(&peer), ?addr, "connected");
                        outcome = shared.step(&replica, move |core, _| core.connected(addr)).await;
                    }
                    if outcome.is_ok() {
                        outcome = handle(&context, &shared, frame).await;
                    }
                }
                None => break,
            },
            changed = changes.recv() => match changed {
                Ok(doc) if context.scope.admits(&doc) => {
                    outcome = shared.step(&replica, move |core, replica| core.changed(replica, &doc)).await;
                }
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => {
                    outcome = shared.step(&replica, |core, replica| core.lagged(replica)).await;
                }
                Err(RecvError::Closed) => break,
            },
            _ = save.tick() => {
                let record = shared.step(&replica, |core, _| core.take_record_to_save()).await;
                if let Ok(Some(record)) = record {
                    record.save(&context.state_dir, &peer);
                }
            }
            _ = connection.closed() => break,
            _ = stop.changed() => break,
        }
    }
    if let Err(reason) = &outcome {
        tracing::warn!(peer = %short(&peer), "closing the sync session: {reason}");
        connection.close(1u32.into(), reason.to_string().as_bytes());
    }
    reader.abort();
    writer.abort();
    lock(&shared.pending).clear();
    // A connection that never carried a frame leaves no record.
    if established && let Ok(record) = shared.step(&replica, |core, _| core.record().clone()).await
    {
        record.save(&context.state_dir, &peer);
    }
    established
}

/// Hands a peer's frame to the core and does what it asks: merged changes
/// to the observer, in order, without waiting for it (they are durable
/// already, and the index catches up from the documents after a restart),
/// revocations into effect, status requests answered.
async fn handle(
    context: &SessionContext,
    shared: &Arc<SessionShared>,
    frame: Frame,
) -> Result<(), SessionEnd> {
    let (now, started) = ((context.clock)(), std::time::Instant::now());
    let effects = shared
        .step(&context.replica, move |core, replica| core.receive(replica, frame, now))
        .await??;
    if !effects.merged.is_empty() {
        tracing::debug!(merge_ms = started.elapsed().as_millis() as u64, "took a frame's changes");
    }
    if effects.registry_changed {
        (context.registry_changed)();
    }
    for change in effects.merged {
        context.merged.send(change).map_err(|_| SessionEnd::ObserverGone)?;
    }
    if let Some(id) = effects.answered
        && let Some(waiting) = lock(&shared.pending).remove(&id)
    {
        let _ = waiting.send(());
    }
    Ok(())
}

/// The next frame to handle, from those read so far (at most [`INBOX`]
/// held here besides the reader's): the oldest of the peer's keys that no
/// sync message of its own document was read before, else the oldest
/// frame. Keys answer requests made after a merge, so they never come
/// before what they open; handled ahead of the sync messages of other
/// documents queued in front of them (a fresh device's shards, a second or
/// so each), what was merged becomes readable, and is indexed, while the
/// rest merges. A sync message of the keys' own document may forget a
/// record they open, so they wait for it. Cancel-safe: nothing is awaited
/// once a frame is taken.
async fn next_frame(
    frames: &mut mpsc::Receiver<Frame>,
    ahead: &mut VecDeque<Frame>,
    inbox: usize,
) -> Option<Frame> {
    if ahead.is_empty() {
        ahead.push_back(frames.recv().await?);
    }
    while ahead.len() < inbox {
        match frames.try_recv() {
            Ok(frame) => ahead.push_back(frame),
            Err(_) => break,
        }
    }
    let keys_first = ahead.iter().enumerate().position(|(at, frame)| match frame {
        Frame::Keys { doc, .. } => !ahead
            .iter()
            .take(at)
            .any(|earlier| matches!(earlier, Frame::Sync { doc: synced, .. } if synced == doc)),
        _ => false,
    });
    ahead.remove(keys_first.unwrap_or(0))
}

/// The first characters of a device id, for logs.
pub(crate) fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// The address the connection's selected path reaches the peer at, when it
/// is an IP address.
pub(crate) fn remote_addr(connection: &Connection) -> Option<SocketAddr> {
    let paths = connection.paths();
    let selected = paths.iter().find(|path| path.is_selected())?;
    match selected.remote_addr() {
        TransportAddr::Ip(addr) => Some(*addr),
        _ => None,
    }
}

/// Sends what the core says is due, asking it again each time a frame is
/// written, and waits to be woken when nothing is. A failure closes the
/// connection, which ends the session.
async fn write_loop(
    context: Arc<SessionContext>,
    send: SendStream,
    shared: Arc<SessionShared>,
    connection: Connection,
    peer: String,
) {
    if let Err(error) = write_frames(context, send, shared).await {
        tracing::debug!(peer = %short(&peer), "sync stream write failed: {error}");
        connection.close(1u32.into(), b"write failed");
    }
}

async fn write_frames(
    context: Arc<SessionContext>,
    mut send: SendStream,
    shared: Arc<SessionShared>,
) -> Result<(), WireError> {
    loop {
        let now = (context.clock)();
        let frame = shared
            .step(&context.replica, move |core, replica| core.poll_send(replica, now))
            .await
            .and_then(|frame| Ok(frame?))
            .map_err(|error| WireError::Stream(error.to_string()))?;
        let Some(frame) = frame else {
            shared.wake.notified().await;
            continue;
        };
        if let Frame::Sync { doc, message } = &frame {
            tracing::trace!(%doc, bytes = message.len(), "sending a sync message");
        }
        let written = write_frame(&mut send, &frame).await?;
        shared.bytes_sent.fetch_add(written as u64, Ordering::Relaxed);
    }
}

async fn read_loop(
    mut recv: RecvStream,
    incoming: mpsc::Sender<Frame>,
    shared: Arc<SessionShared>,
    peer: String,
    max_frame: usize,
) {
    loop {
        match read_frame::<Frame>(&mut recv, max_frame).await {
            Ok(Some((frame, read))) => {
                shared.bytes_received.fetch_add(read as u64, Ordering::Relaxed);
                if incoming.send(frame).await.is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(error) => {
                tracing::debug!(peer = %short(&peer), "sync stream ended: {error}");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sync(doc: &str) -> Frame {
        Frame::Sync { doc: doc.to_owned(), message: Vec::new() }
    }

    fn keys(doc: &str) -> Frame {
        Frame::Keys { doc: doc.to_owned(), keys: Vec::new() }
    }

    fn name(frame: &Frame) -> String {
        match frame {
            Frame::Sync { doc, .. } => format!("sync {doc}"),
            Frame::Keys { doc, .. } => format!("keys {doc}"),
            other => format!("{other:?}"),
        }
    }

    /// The order in which the session loop takes `sent`, all read at once.
    async fn taken(sent: Vec<Frame>) -> Vec<String> {
        let (incoming, mut frames) = mpsc::channel(INBOX);
        for frame in sent {
            incoming.send(frame).await.unwrap();
        }
        drop(incoming);
        let mut ahead = VecDeque::new();
        let mut order = Vec::new();
        while let Some(frame) = next_frame(&mut frames, &mut ahead, INBOX).await {
            order.push(name(&frame));
        }
        order
    }

    #[tokio::test]
    async fn keys_are_taken_ahead_of_other_documents_sync_messages_read_before_them() {
        let order = taken(vec![sync("a"), sync("b"), keys("c"), sync("d"), keys("e")]).await;
        assert_eq!(order, ["keys c", "keys e", "sync a", "sync b", "sync d"]);
    }

    #[tokio::test]
    async fn keys_wait_for_a_sync_message_of_their_own_document_read_before_them() {
        // That message may forget a record the keys open.
        let order = taken(vec![sync("a"), sync("b"), keys("b"), keys("a"), sync("c")]).await;
        assert_eq!(order, ["sync a", "keys a", "sync b", "keys b", "sync c"]);
    }

    #[tokio::test]
    async fn frames_read_ahead_stay_bounded() {
        let (incoming, mut frames) = mpsc::channel(INBOX);
        let sender = tokio::spawn(async move {
            for n in 0..3 * INBOX {
                incoming.send(sync(&n.to_string())).await.unwrap();
            }
        });
        let mut ahead = VecDeque::new();
        let mut order = Vec::new();
        while let Some(frame) = next_frame(&mut frames, &mut ahead, INBOX).await {
            assert!(ahead.len() < INBOX, "{} frames held", ahead.len());
            order.push(name(&frame));
        }
        sender.await.unwrap();
        let expected: Vec<String> = (0..3 * INBOX).map(|n| format!("sync {n}")).collect();
        assert_eq!(order, expected);
    }
}
