//! One sync session: a connection to one paired device, over which every
//! document is kept in sync with the Automerge sync protocol.
//!
//! The dialing side opens one bidirectional stream; both sides then send
//! [`Frame`]s on it. A reader task and a writer task move frames between the
//! stream and the session loop, which:
//! - at the start, sends a sync message for every document it has (a peer
//!   that lacks a document creates it from its genesis when the first
//!   message for it arrives);
//! - for every message received, merges it (durably, see
//!   [`Replica::receive_sync_message`]), tells the observer what changed,
//!   and answers with the next message for that document;
//! - whenever a document changes here (a local write, or a merge from
//!   another peer), sends that document's next message;
//! - answers status requests with how many changes the peer lacks.
//!
//! The per-document sync states live in [`SessionShared`], with the peer's
//! [`PeerRecord`], so that status queries can read them; the record is saved
//! every few seconds while it changes and when the session ends.

use std::{
    collections::{BTreeSet, HashMap},
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use automerge::sync;
use iroh::endpoint::{Connection, RecvStream, SendStream};
use tokio::sync::{broadcast::error::RecvError, mpsc, oneshot};

use crate::{
    DocId, Replica,
    network::Inner,
    peers::{PeerRecord, encode_heads},
    wire::{Frame, MAX_FRAME_BYTES, WireError, read_frame, write_frame},
};

/// How often a session saves its peer record while it changes.
const SAVE_EVERY: Duration = Duration::from_secs(5);
/// Frames queued for the writer before senders wait.
const OUTBOX: usize = 64;

/// A session's state that status queries read.
#[derive(Debug, Default)]
pub(crate) struct SessionShared {
    /// What is remembered about the peer, kept current.
    pub(crate) record: PeerRecord,
    /// The Automerge sync state per document.
    states: HashMap<DocId, sync::State>,
    /// Frame bytes sent and received.
    pub(crate) bytes_sent: u64,
    pub(crate) bytes_received: u64,
    /// Status requests waiting for their reply.
    pending: HashMap<u64, oneshot::Sender<Vec<(String, u64)>>>,
    next_request: u64,
    dirty: bool,
}

/// A handle on a running session.
#[derive(Debug, Clone)]
pub(crate) struct SessionHandle {
    pub(crate) shared: Arc<Mutex<SessionShared>>,
    outbox: mpsc::Sender<Frame>,
}

fn lock(shared: &Mutex<SessionShared>) -> std::sync::MutexGuard<'_, SessionShared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SessionHandle {
    /// Asks the peer how many changes this node lacks, per document.
    pub(crate) async fn ask_status(&self, timeout: Duration) -> Option<Vec<(String, u64)>> {
        let (reply, answer) = oneshot::channel();
        let id = {
            let mut shared = lock(&self.shared);
            shared.next_request += 1;
            let id = shared.next_request;
            shared.pending.insert(id, reply);
            id
        };
        self.outbox.send(Frame::StatusRequest { id }).await.ok()?;
        tokio::time::timeout(timeout, answer).await.ok()?.ok()
    }
}

/// Runs a session until the connection ends or the node stops. `record`
/// is what was remembered about the peer. Returns whether the peer ever
/// answered (a refused connection ends before it does).
pub(crate) async fn run(
    inner: Arc<Inner>,
    peer: String,
    connection: Connection,
    send: SendStream,
    recv: RecvStream,
    record: PeerRecord,
    on_start: impl FnOnce(SessionHandle),
) -> bool {
    let (outbox, queued) = mpsc::channel::<Frame>(OUTBOX);
    let shared = Arc::new(Mutex::new(SessionShared { record, ..SessionShared::default() }));
    on_start(SessionHandle { shared: shared.clone(), outbox: outbox.clone() });
    let writer = tokio::spawn(write_loop(send, queued, shared.clone()));
    let (incoming, mut frames) = mpsc::channel::<Frame>(OUTBOX);
    let reader = tokio::spawn(read_loop(recv, incoming, shared.clone(), peer.clone(), inner.clock));

    let session =
        Session { inner: inner.clone(), peer: peer.clone(), shared: shared.clone(), outbox };
    let mut changes = inner.replica.subscribe();
    let mut save = tokio::time::interval(SAVE_EVERY);
    save.tick().await;
    let mut stop = inner.stop.subscribe();
    let all = inner.replica.doc_ids();
    let mut outcome: Result<(), String> = session.push(all.into_iter().collect()).await;
    let mut established = false;
    while outcome.is_ok() {
        tokio::select! {
            frame = frames.recv() => match frame {
                Some(frame) => {
                    if !established {
                        established = true;
                        let addr = crate::network::remote_addr(&connection);
                        lock(&session.shared).record.last_addr = addr;
                        tracing::info!(peer = %short(&peer), ?addr, "connected");
                    }
                    outcome = session.handle(frame).await;
                }
                None => break,
            },
            changed = changes.recv() => {
                let mut docs = BTreeSet::new();
                match changed {
                    Ok(doc) => { docs.insert(doc); }
                    Err(RecvError::Lagged(_)) => docs.extend(inner.replica.doc_ids()),
                    Err(RecvError::Closed) => break,
                }
                // Coalesce a burst of writes into one message per document.
                while let Ok(doc) = changes.try_recv() {
                    docs.insert(doc);
                }
                outcome = session.push(docs).await;
            }
            _ = save.tick() => session.save_if_dirty(),
            _ = connection.closed() => break,
            _ = stop.changed() => break,
        }
    }
    if let Err(reason) = outcome {
        tracing::warn!(peer = %short(&peer), "closing the sync session: {reason}");
        connection.close(1u32.into(), reason.as_bytes());
    }
    reader.abort();
    writer.abort();
    {
        let mut shared = lock(&session.shared);
        shared.dirty = established;
        shared.pending.clear();
    }
    session.save_if_dirty();
    established
}

/// The first characters of a device id, for logs.
pub(crate) fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

struct Session {
    inner: Arc<Inner>,
    peer: String,
    shared: Arc<Mutex<SessionShared>>,
    outbox: mpsc::Sender<Frame>,
}

impl Session {
    /// Sends the next sync message of each of `docs`, where there is one.
    async fn push(&self, docs: BTreeSet<DocId>) -> Result<(), String> {
        let (replica, shared, clock) =
            (self.inner.replica.clone(), self.shared.clone(), self.inner.clock);
        let frames = tokio::task::spawn_blocking(move || {
            let mut shared = lock(&shared);
            let mut frames = Vec::new();
            for doc in docs {
                if let Some(message) = next_message(&replica, &mut shared, &doc, clock)? {
                    frames.push(Frame::Sync { doc: doc.to_string(), message });
                }
            }
            Ok::<_, String>(frames)
        })
        .await
        .map_err(|error| error.to_string())??;
        for frame in frames {
            self.outbox.send(frame).await.map_err(|_| "the connection closed".to_owned())?;
        }
        Ok(())
    }

    async fn handle(&self, frame: Frame) -> Result<(), String> {
        match frame {
            Frame::Sync { doc, message } => {
                let doc: DocId = doc.parse().map_err(|error| format!("{error}"))?;
                let (inner, shared) = (self.inner.clone(), self.shared.clone());
                let reply = tokio::task::spawn_blocking(move || {
                    let mut shared = lock(&shared);
                    let state = state_for(&mut shared, &doc);
                    let change = inner
                        .replica
                        .receive_sync_message(&doc, state, &message)
                        .map_err(|error| error.to_string())?;
                    let reply = next_message(&inner.replica, &mut shared, &doc, inner.clock)?;
                    drop(shared);
                    if let Some(change) = &change {
                        inner.observer.merged(change);
                        if doc == DocId::Registry {
                            inner.registry_changed();
                        }
                    }
                    Ok::<_, String>(
                        reply.map(|message| Frame::Sync { doc: doc.to_string(), message }),
                    )
                })
                .await
                .map_err(|error| error.to_string())??;
                if let Some(frame) = reply {
                    self.outbox
                        .send(frame)
                        .await
                        .map_err(|_| "the connection closed".to_owned())?;
                }
            }
            Frame::StatusRequest { id } => {
                let (replica, shared) = (self.inner.replica.clone(), self.shared.clone());
                let docs = tokio::task::spawn_blocking(move || {
                    let their: Vec<(DocId, Vec<automerge::ChangeHash>)> = {
                        let shared = lock(&shared);
                        replica
                            .doc_ids()
                            .into_iter()
                            .map(|doc| {
                                let heads = shared
                                    .states
                                    .get(&doc)
                                    .and_then(|state| state.their_heads.clone())
                                    .unwrap_or_default();
                                (doc, heads)
                            })
                            .collect()
                    };
                    their
                        .into_iter()
                        .filter_map(|(doc, heads)| {
                            let missing = replica.changes_missing_from(&doc, &heads)?;
                            Some((doc.to_string(), missing as u64))
                        })
                        .collect::<Vec<_>>()
                })
                .await
                .map_err(|error| error.to_string())?;
                self.outbox
                    .send(Frame::StatusReply { id, docs })
                    .await
                    .map_err(|_| "the connection closed".to_owned())?;
            }
            Frame::StatusReply { id, docs } => {
                let mut shared = lock(&self.shared);
                for (doc, missing) in &docs {
                    shared.record.docs.entry(doc.clone()).or_default().we_lack = Some(*missing);
                }
                if let Some(waiting) = shared.pending.remove(&id) {
                    let _ = waiting.send(docs);
                }
            }
        }
        Ok(())
    }

    fn save_if_dirty(&self) {
        let record = {
            let mut shared = lock(&self.shared);
            if !shared.dirty {
                return;
            }
            shared.dirty = false;
            shared.record.clone()
        };
        record.save(&self.inner.state_dir, &self.peer);
    }
}

/// The sync state of `doc`, resumed from the record on first use.
fn state_for<'a>(shared: &'a mut SessionShared, doc: &DocId) -> &'a mut sync::State {
    let SessionShared { states, record, .. } = shared;
    states.entry(doc.clone()).or_insert_with(|| {
        record
            .docs
            .get(&doc.to_string())
            .map(|remembered| remembered.sync_state())
            .unwrap_or_default()
    })
}

/// Generates the next message of `doc` and brings the record up to date with
/// the sync state.
fn next_message(
    replica: &Replica,
    shared: &mut SessionShared,
    doc: &DocId,
    clock: fn() -> ferrex_core::Timestamp,
) -> Result<Option<Vec<u8>>, String> {
    let state = state_for(shared, doc);
    let message = replica.generate_sync_message(doc, state).map_err(|error| error.to_string())?;
    let shared_heads = encode_heads(&state.shared_heads);
    let their_heads = state.their_heads.clone();
    let ours = replica.heads(doc).map_err(|error| error.to_string())?;
    let remembered = shared.record.docs.entry(doc.to_string()).or_default();
    if let Some(their_heads) = their_heads {
        if their_heads == ours {
            remembered.last_sync = Some(clock().0);
            remembered.we_lack = Some(0);
        }
        remembered.their_heads = encode_heads(&their_heads);
    }
    remembered.shared_heads = shared_heads;
    shared.dirty = true;
    Ok(message)
}

async fn write_loop(
    mut send: SendStream,
    mut queued: mpsc::Receiver<Frame>,
    shared: Arc<Mutex<SessionShared>>,
) -> Result<(), WireError> {
    while let Some(frame) = queued.recv().await {
        let written = write_frame(&mut send, &frame).await?;
        lock(&shared).bytes_sent += written as u64;
    }
    let _ = send.finish();
    Ok(())
}

async fn read_loop(
    mut recv: RecvStream,
    incoming: mpsc::Sender<Frame>,
    shared: Arc<Mutex<SessionShared>>,
    peer: String,
    clock: fn() -> ferrex_core::Timestamp,
) {
    loop {
        match read_frame::<Frame>(&mut recv, MAX_FRAME_BYTES).await {
            Ok(Some((frame, read))) => {
                {
                    let mut shared = lock(&shared);
                    shared.bytes_received += read as u64;
                    shared.record.last_seen = Some(clock().0);
                }
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
