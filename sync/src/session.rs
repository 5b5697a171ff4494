//! One sync session: a connection to one paired device, over which every
//! document is kept in sync with the Automerge sync protocol.
//!
//! The dialing side opens one bidirectional stream; both sides then send
//! [`Frame`]s on it. Three tasks share the work:
//! - the **reader** reads frames and hands them to the session loop, which
//!   takes the peer's keys ahead of the sync messages of other documents
//!   read before them;
//! - the **session loop** merges every sync message received (durably, see
//!   [`Replica::receive_sync_message`]) and queues its answer at once (the
//!   answer carries the new heads: the acknowledgement), tells the observer
//!   what changed, answers status requests, and marks documents as owing
//!   the peer a message when they change here (a local write, or a merge
//!   from another peer), and every document at the start;
//! - the **writer** sends queued answers first, and generates the next
//!   message of a marked document only when it is about to send it, so a
//!   burst of local changes makes one message per document.
//!
//! The session loop never waits on the writer, and the writer never on the
//! session loop, so two devices sending to each other at once cannot block
//! each other. Blocking work (merging, generating) runs on blocking threads.
//!
//! The per-document sync states and the peer's [`PeerRecord`] live in
//! [`SessionShared`], which status queries read; the record is saved every
//! few seconds while it changes and when the session ends.
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
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use automerge::sync;
use ferrex_core::{Namespace, Timestamp};
use iroh::{
    TransportAddr,
    endpoint::{Connection, RecvStream, SendStream},
};
use tokio::sync::{Notify, broadcast::error::RecvError, mpsc, oneshot, watch};

use crate::{
    DocChange, DocId, Replica,
    peers::{PeerRecord, encode_heads},
    replica::lock,
    wire::{DocReport, Frame, MAX_FRAME_BYTES, WireError, read_frame, write_frame},
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

/// A session's state, shared by its tasks and read by status queries. Each
/// part has its own lock, held briefly, except `states`, which is held
/// while a message is merged or generated, on a blocking thread only.
#[derive(Debug, Default)]
pub(crate) struct SessionShared {
    /// The Automerge sync state per document.
    states: Mutex<HashMap<DocId, sync::State>>,
    /// What is remembered about the peer, kept current.
    pub(crate) record: Mutex<PeerRecord>,
    /// Frame bytes sent and received.
    pub(crate) bytes_sent: AtomicU64,
    pub(crate) bytes_received: AtomicU64,
    /// Documents that owe the peer a message.
    owed: Mutex<BTreeSet<DocId>>,
    /// Frames to send first, in order: answers to sync messages, status
    /// requests and replies. At most one answer per message received, and
    /// the reader only reads what the session loop takes, so this stays short.
    control: Mutex<VecDeque<Frame>>,
    /// Wakes the writer.
    wake: Notify,
    /// Status requests waiting for their reply.
    pending: Mutex<HashMap<u64, oneshot::Sender<()>>>,
    next_request: AtomicU64,
    dirty: AtomicBool,
    /// Keys the peer asked for that this node could not send yet, per
    /// document: asked again of the replica when the document changes here.
    unanswered: Mutex<HashMap<DocId, Vec<crate::RecordRef>>>,
    /// What the peer sent that the session's scope refuses: frames of
    /// documents outside it, and changes of a member that may not write.
    pub(crate) refused: AtomicU64,
    /// Shards the peer offered before the one each follows was full here:
    /// made, and synced, once it is.
    admission: Mutex<crate::admission::Admission>,
}

impl SessionShared {
    fn owe(&self, docs: impl IntoIterator<Item = DocId>) {
        lock(&self.owed).extend(docs);
        self.wake.notify_one();
    }

    fn send_control(&self, frame: Frame) {
        lock(&self.control).push_back(frame);
        self.wake.notify_one();
    }
}

/// A handle on a running session.
#[derive(Clone)]
pub(crate) struct SessionHandle {
    pub(crate) shared: Arc<SessionShared>,
    /// This node's heads per document (for status requests).
    heads: Arc<dyn Fn() -> Vec<(String, Vec<String>)> + Send + Sync>,
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("SessionHandle").finish_non_exhaustive()
    }
}

/// This replica's heads per document the session carries, in hex.
fn all_heads(replica: &Replica, scope: &Scope) -> Vec<(String, Vec<String>)> {
    scope
        .docs(replica)
        .into_iter()
        .filter_map(|doc| Some((doc.to_string(), encode_heads(&replica.heads(&doc).ok()?))))
        .collect()
}

impl SessionHandle {
    /// Asks the peer where it stands (its heads, and how many changes this
    /// node lacks, per document) and records the answer; false when it does
    /// not answer within `timeout`.
    pub(crate) async fn ask_status(&self, timeout: Duration) -> bool {
        let (reply, answer) = oneshot::channel();
        let id = self.shared.next_request.fetch_add(1, Ordering::Relaxed);
        lock(&self.shared.pending).insert(id, reply);
        let heads = self.heads.clone();
        let ours = tokio::task::spawn_blocking(move || heads()).await.unwrap_or_default();
        self.shared.send_control(Frame::StatusRequest { id, heads: ours });
        let answered = tokio::time::timeout(timeout, answer).await.is_ok_and(|reply| reply.is_ok());
        lock(&self.shared.pending).remove(&id);
        answered
    }
}

/// Runs a session until the connection ends or the node stops. `record`
/// is what was remembered about the peer. Returns whether the peer ever
/// answered (a refused connection ends before it does).
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
    let shared = Arc::new(SessionShared { record: Mutex::new(record), ..SessionShared::default() });
    let (replica, scope) = (context.replica.clone(), context.scope.clone());
    on_start(SessionHandle {
        shared: shared.clone(),
        heads: Arc::new(move || all_heads(&replica, &scope)),
    });
    let mut changes = context.replica.subscribe();
    shared.owe(context.scope.docs(&context.replica));
    // Records a previous session left without their keys.
    {
        let (replica, shared, scope) =
            (context.replica.clone(), shared.clone(), context.scope.clone());
        tokio::task::spawn_blocking(move || {
            for doc in scope.docs(&replica) {
                if let Ok(records) = replica.wanted_keys(&doc, None)
                    && !records.is_empty()
                {
                    shared.send_control(Frame::KeyRequest { doc: doc.to_string(), records });
                }
            }
        });
    }
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
    let reader = tokio::spawn(read_loop(
        recv,
        incoming,
        shared.clone(),
        peer.clone(),
        context.clock,
        max_frame,
    ));

    let session = Session { context: context.clone(), shared: shared.clone() };
    let mut save = tokio::time::interval(SAVE_EVERY);
    save.tick().await;
    let mut stop = context.stop.clone();
    let mut outcome: Result<(), String> = Ok(());
    let mut established = false;
    let mut ahead = VecDeque::new();
    while outcome.is_ok() {
        tokio::select! {
            frame = next_frame(&mut frames, &mut ahead, inbox) => match frame {
                Some(frame) => {
                    if !established {
                        established = true;
                        let addr = remote_addr(&connection);
                        lock(&shared.record).last_addr = addr;
                        tracing::info!(peer = %short(&peer), ?addr, "connected");
                    }
                    outcome = session.handle(frame).await;
                }
                None => break,
            },
            changed = changes.recv() => match changed {
                Ok(doc) if context.scope.admits(&doc) => {
                    session.retry_unanswered(&doc).await;
                    session.make_deferred().await;
                    shared.owe([doc])
                }
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => shared.owe(context.scope.docs(&context.replica)),
                Err(RecvError::Closed) => break,
            },
            _ = save.tick() => session.save_if_dirty(&peer),
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
    lock(&shared.pending).clear();
    shared.dirty.store(established, Ordering::Relaxed);
    session.save_if_dirty(&peer);
    established
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

struct Session {
    context: Arc<SessionContext>,
    shared: Arc<SessionShared>,
}

/// The document a frame names, if this version knows its kind. A newer
/// peer may sync a kind of document this one does not have (a share's,
/// say): its frames are passed over and the session goes on with the
/// others, instead of ending and taking every document's sync with it.
fn known_doc(doc: &str) -> Option<DocId> {
    match doc.parse() {
        Ok(doc) => Some(doc),
        Err(error) => {
            tracing::debug!("passing over a frame: {error}");
            None
        }
    }
}

impl Session {
    /// The document a frame names, if this version knows it and the
    /// session carries it; a document outside the scope is refused (and
    /// counted), never merged, answered or given keys. So is a shard the
    /// peer may not make yet (see [`Replica::may_make`]): it is deferred,
    /// and asked for once the shard before it is full here.
    fn admitted(&self, doc: &str) -> Option<DocId> {
        use crate::admission::Verdict;
        let doc = known_doc(doc)?;
        let replica = &self.context.replica;
        let verdict = lock(&self.shared.admission)
            .judge(&self.context.scope, &doc, || replica.may_make(&doc).unwrap_or(false));
        let what = match verdict {
            Verdict::Take => return Some(doc),
            Verdict::Outside => "a document outside the session's scope",
            Verdict::NotYet => "a shard before the one it follows is full",
        };
        self.shared.refused.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(%doc, "refusing a frame of {what}");
        None
    }

    /// Makes the deferred shards the peer may make now, and owes the peer
    /// their sync: its first message was not answered, so it waits for ours.
    async fn make_deferred(&self) {
        if lock(&self.shared.admission).is_empty() {
            return;
        }
        let (replica, shared) = (self.context.replica.clone(), self.shared.clone());
        let made = tokio::task::spawn_blocking(move || {
            lock(&shared.admission).ready(|doc| {
                replica.may_make(doc).unwrap_or(false) && replica.ensure_document(doc).is_ok()
            })
        })
        .await
        .unwrap_or_default();
        if !made.is_empty() {
            self.shared.owe(made);
        }
    }

    async fn handle(&self, frame: Frame) -> Result<(), String> {
        match frame {
            Frame::Sync { doc, message } => {
                tracing::trace!(%doc, bytes = message.len(), "received a sync message");
                let Some(doc) = self.admitted(&doc) else { return Ok(()) };
                let (context, shared) = (self.context.clone(), self.shared.clone());
                let doc_for_merge = doc.clone();
                let (started, bytes) = (std::time::Instant::now(), message.len());
                let (changes, reply, wanted) = tokio::task::spawn_blocking(move || {
                    if context.scope.read_only(&doc_for_merge) {
                        // Taken as a reader's: counted, and applied to nothing.
                        let changes = sync::Message::decode(&message)
                            .map_or(0, |message| message.changes.len() as u64);
                        shared.refused.fetch_add(changes, Ordering::Relaxed);
                    }
                    let changes = {
                        let mut states = lock(&shared.states);
                        let state = state_for(
                            &mut states,
                            &shared.record,
                            &doc_for_merge,
                            &context.replica,
                            &context.scope,
                        );
                        context
                            .replica
                            .receive_sync_message(&doc_for_merge, state, &message)
                            .map_err(|error| error.to_string())?
                    };
                    // The answer is generated at once, so that it carries the
                    // heads this message led to (the acknowledgement; the
                    // merged changes are on disk by now).
                    let reply = next_message(&context, &shared, &doc_for_merge)?;
                    // What arrived sealed (or became used again): ask the
                    // peer for its keys.
                    let mut wanted = Vec::new();
                    for change in &changes {
                        let records = context
                            .replica
                            .wanted_keys(&change.doc, Some(&change.keys))
                            .map_err(|error| error.to_string())?;
                        if !records.is_empty() {
                            wanted.push((change.doc.to_string(), records));
                        }
                    }
                    Ok::<_, String>((changes, reply, wanted))
                })
                .await
                .map_err(|error| error.to_string())??;
                if !changes.is_empty() {
                    tracing::debug!(
                        %doc,
                        bytes,
                        memories = changes.iter().map(|change| change.keys.memories.len()).sum::<usize>(),
                        merge_ms = started.elapsed().as_millis() as u64,
                        "merged a sync message"
                    );
                }
                if let Some(message) = reply {
                    self.shared.send_control(Frame::Sync { doc: doc.to_string(), message });
                }
                for (doc, records) in wanted {
                    self.shared.send_control(Frame::KeyRequest { doc, records });
                }
                if !changes.is_empty() {
                    self.make_deferred().await;
                    if doc == DocId::Registry {
                        // Revocations take effect before anything else is sent.
                        (self.context.registry_changed)();
                    }
                    self.tell_observer(changes)?;
                }
            }
            // Keys are answered and filed on their own: a failure there is
            // logged and the session goes on (the records stay locked, and
            // are asked for again at the next session).
            Frame::KeyRequest { doc, records } => {
                let Some(doc) = self.admitted(&doc) else { return Ok(()) };
                if let Err(error) = self.answer_keys(doc.clone(), records).await {
                    tracing::warn!(%doc, "could not answer a key request: {error}");
                }
            }
            Frame::Keys { doc, keys } => {
                let Some(doc) = self.admitted(&doc) else { return Ok(()) };
                let replica = self.context.replica.clone();
                let doc_for_keys = doc.clone();
                let accepted =
                    tokio::task::spawn_blocking(move || replica.accept_keys(&doc_for_keys, &keys))
                        .await
                        .map_err(|error| error.to_string())?;
                match accepted {
                    Ok(Some(change)) => self.tell_observer(vec![change])?,
                    Ok(None) => {}
                    Err(error) => tracing::warn!(%doc, "could not file keys a peer sent: {error}"),
                }
            }
            Frame::StatusRequest { id, heads } => {
                let (context, shared) = (self.context.clone(), self.shared.clone());
                let docs = tokio::task::spawn_blocking(move || {
                    status_reply(&context.replica, &context.scope, &shared, &heads)
                })
                .await
                .map_err(|error| error.to_string())?;
                self.shared.send_control(Frame::StatusReply { id, docs });
            }
            Frame::StatusReply { id, docs } => {
                let now = (self.context.clock)().0;
                let ours: HashMap<String, Vec<String>> =
                    all_heads(&self.context.replica, &self.context.scope).into_iter().collect();
                {
                    let mut record = lock(&self.shared.record);
                    // Only what the session carries is remembered of a peer.
                    let scope = &self.context.scope;
                    for report in docs.iter().filter(|report| {
                        report.doc.parse::<DocId>().is_ok_and(|doc| scope.admits(&doc))
                    }) {
                        let remembered = record.docs.entry(report.doc.clone()).or_default();
                        remembered.we_lack = Some(report.missing);
                        let mut theirs = report.heads.clone();
                        theirs.sort();
                        if ours.get(&report.doc).is_some_and(|ours| {
                            let mut ours = ours.clone();
                            ours.sort();
                            ours == theirs
                        }) {
                            remembered.last_sync = Some(now);
                        }
                        remembered.their_heads = theirs;
                    }
                }
                self.shared.dirty.store(true, Ordering::Relaxed);
                if let Some(waiting) = lock(&self.shared.pending).remove(&id) {
                    let _ = waiting.send(());
                }
            }
        }
        Ok(())
    }

    /// Hands merged (and keys-only) changes to the observer, in order,
    /// without waiting for it: they are durable already, and the index
    /// catches up from the documents after a restart.
    fn tell_observer(&self, changes: Vec<DocChange>) -> Result<(), String> {
        for change in changes {
            self.context
                .merged
                .send(change)
                .map_err(|_| "the thread that indexes merged changes is gone".to_owned())?;
        }
        Ok(())
    }

    /// Sends the keys of `records` this node can send, and remembers the
    /// rest to try again when the document changes here.
    async fn answer_keys(&self, doc: DocId, records: Vec<crate::RecordRef>) -> Result<(), String> {
        let replica = self.context.replica.clone();
        let doc_for_answer = doc.clone();
        let (keys, unanswered) =
            tokio::task::spawn_blocking(move || replica.answer_keys(&doc_for_answer, &records))
                .await
                .map_err(|error| error.to_string())?
                .map_err(|error| error.to_string())?;
        if !keys.is_empty() {
            self.shared.send_control(Frame::Keys { doc: doc.to_string(), keys });
        }
        let mut waiting = lock(&self.shared.unanswered);
        if unanswered.is_empty() {
            waiting.remove(&doc);
        } else {
            waiting.insert(doc, unanswered);
        }
        Ok(())
    }

    /// Asks the replica again for keys the peer wanted of `doc`.
    async fn retry_unanswered(&self, doc: &DocId) {
        let records = lock(&self.shared.unanswered).remove(doc);
        if let Some(records) = records
            && let Err(error) = self.answer_keys(doc.clone(), records).await
        {
            tracing::debug!(%doc, "answering a key request: {error}");
        }
    }

    fn save_if_dirty(&self, peer: &str) {
        if !self.shared.dirty.swap(false, Ordering::Relaxed) {
            return;
        }
        let record = lock(&self.shared.record).clone();
        record.save(&self.context.state_dir, peer);
    }
}

/// Where this node stands, per document: its heads, and how many of its
/// changes the peer lacks by the peer's `heads` (and, for heads this node
/// does not know yet, the heads the two last agreed on).
fn status_reply(
    replica: &Replica,
    scope: &Scope,
    shared: &SessionShared,
    heads: &[(String, Vec<String>)],
) -> Vec<DocReport> {
    let agreed: HashMap<DocId, Vec<automerge::ChangeHash>> = lock(&shared.states)
        .iter()
        .map(|(doc, state)| (doc.clone(), state.shared_heads.clone()))
        .collect();
    let theirs: HashMap<&str, Vec<automerge::ChangeHash>> = heads
        .iter()
        .map(|(doc, heads)| {
            (doc.as_str(), heads.iter().filter_map(|hash| hash.parse().ok()).collect())
        })
        .collect();
    scope
        .docs(replica)
        .into_iter()
        .filter_map(|doc| {
            let their_heads = theirs.get(doc.to_string().as_str()).cloned().unwrap_or_default();
            let agreed = agreed.get(&doc).cloned().unwrap_or_default();
            let missing = replica.changes_missing_from(&doc, &their_heads, &agreed)?;
            let heads = encode_heads(&replica.heads(&doc).ok()?);
            Some(DocReport { doc: doc.to_string(), heads, missing: missing as u64 })
        })
        .collect()
}

/// The sync state of `doc`, resumed from the record on first use when this
/// replica knows the heads it remembers (after an upgrade it does not);
/// read-only when the scope refuses the peer's changes.
fn state_for<'a>(
    states: &'a mut HashMap<DocId, sync::State>,
    record: &Mutex<PeerRecord>,
    doc: &DocId,
    replica: &Replica,
    scope: &Scope,
) -> &'a mut sync::State {
    let state = states.entry(doc.clone()).or_insert_with(|| {
        lock(record)
            .docs
            .get(&doc.to_string())
            .map(|remembered| remembered.sync_state())
            .filter(|state| replica.knows_heads(doc, &state.shared_heads))
            .unwrap_or_default()
    });
    state.set_read_only(scope.read_only(doc));
    state
}

/// Generates the next message of `doc` and brings the record up to date with
/// the sync state.
fn next_message(
    context: &SessionContext,
    shared: &SessionShared,
    doc: &DocId,
) -> Result<Option<Vec<u8>>, String> {
    let (replica, clock) = (&context.replica, context.clock);
    let mut states = lock(&shared.states);
    let state = state_for(&mut states, &shared.record, doc, replica, &context.scope);
    let message = replica.generate_sync_message(doc, state).map_err(|error| error.to_string())?;
    let shared_heads = encode_heads(&state.shared_heads);
    let their_heads = state.their_heads.clone();
    drop(states);
    let ours = replica.heads(doc).map_err(|error| error.to_string())?;
    let mut record = lock(&shared.record);
    let remembered = record.docs.entry(doc.to_string()).or_default();
    if let Some(their_heads) = their_heads {
        if their_heads == ours {
            remembered.last_sync = Some(clock().0);
            remembered.we_lack = Some(0);
        }
        remembered.their_heads = encode_heads(&their_heads);
    }
    remembered.shared_heads = shared_heads;
    shared.dirty.store(true, Ordering::Relaxed);
    Ok(message)
}

/// Sends queued frames first (answers and status), then the next message of
/// each document that owes one, generated just before it is sent. A failure
/// closes the connection, which ends the session.
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
        let control = lock(&shared.control).pop_front();
        let frame = match control {
            Some(frame) => Some(frame),
            None => {
                let next = lock(&shared.owed).pop_first();
                match next {
                    Some(doc) => {
                        let (context, shared) = (context.clone(), shared.clone());
                        let doc_for_message = doc.clone();
                        let message = tokio::task::spawn_blocking(move || {
                            next_message(&context, &shared, &doc_for_message)
                        })
                        .await
                        .map_err(|error| WireError::Stream(error.to_string()))?
                        .map_err(WireError::Stream)?;
                        message.map(|message| Frame::Sync { doc: doc.to_string(), message })
                    }
                    None => {
                        shared.wake.notified().await;
                        continue;
                    }
                }
            }
        };
        if let Some(frame) = frame {
            if let Frame::Sync { doc, message } = &frame {
                tracing::trace!(%doc, bytes = message.len(), "sending a sync message");
            }
            let written = write_frame(&mut send, &frame).await?;
            shared.bytes_sent.fetch_add(written as u64, Ordering::Relaxed);
        }
    }
}

async fn read_loop(
    mut recv: RecvStream,
    incoming: mpsc::Sender<Frame>,
    shared: Arc<SessionShared>,
    peer: String,
    clock: fn() -> Timestamp,
    max_frame: usize,
) {
    loop {
        match read_frame::<Frame>(&mut recv, max_frame).await {
            Ok(Some((frame, read))) => {
                shared.bytes_received.fetch_add(read as u64, Ordering::Relaxed);
                lock(&shared.record).last_seen = Some(clock().0);
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

    #[tokio::test]
    async fn a_document_this_version_does_not_know_is_passed_over_and_the_session_goes_on() {
        use ferrex_core::{Namespace, Timestamp};

        use crate::{NewMemory, NewRecords, ReplicaOptions};

        let temp = tempfile::tempdir().unwrap();
        let open = |name: &str| {
            Arc::new(
                Replica::open(&temp.path().join(name), name, ReplicaOptions::default()).unwrap(),
            )
        };
        let (ours, theirs) = (open("ours"), open("theirs"));
        let session = session_over(&ours, Scope::own(), temp.path());
        for doc in ["members.0123abcd", "share.x.y.z", ""] {
            for frame in [
                Frame::Sync { doc: doc.to_owned(), message: vec![1, 2, 3] },
                Frame::KeyRequest { doc: doc.to_owned(), records: vec![(0, "k".into())] },
                Frame::Keys { doc: doc.to_owned(), keys: vec![[0; 32]] },
            ] {
                session.handle(frame).await.unwrap();
            }
        }
        // A document it knows still syncs on the same session.
        let namespace = Namespace::parse("work").unwrap();
        let memory = NewMemory::episode("m1", "text", "theirs", Timestamp(5));
        let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
        theirs.write_new(&namespace, Timestamp(5), &records).unwrap();
        let shard = DocId::shard(&namespace, 0);
        let message = theirs
            .generate_sync_message(&shard, &mut automerge::sync::State::new())
            .unwrap()
            .unwrap();
        assert!(lock(&session.shared.control).is_empty(), "an unknown document was answered");
        session.handle(Frame::Sync { doc: shard.to_string(), message }).await.unwrap();
        let answered: Vec<String> = lock(&session.shared.control).iter().map(name).collect();
        assert_eq!(answered, [format!("sync {shard}")]);
    }

    /// A session of `replica` with a peer, run by hand: frames go to
    /// `handle`, and what it queues is read from `shared.control`.
    fn session_over(replica: &Arc<Replica>, scope: Scope, dir: &std::path::Path) -> Session {
        let (merged, received) = std::sync::mpsc::channel();
        // What is merged is indexed nowhere here.
        std::mem::forget(received);
        let (stop_sender, stop) = watch::channel(false);
        std::mem::forget(stop_sender);
        Session {
            context: Arc::new(SessionContext {
                replica: replica.clone(),
                merged,
                clock: || Timestamp(1),
                state_dir: dir.to_owned(),
                stop,
                registry_changed: Arc::new(|| {}),
                scope,
            }),
            shared: Arc::new(SessionShared::default()),
        }
    }

    /// Replicas of a person ("ours", holding a private project, `default`
    /// and a share) and of a teammate ("theirs", with its own memories of
    /// the same project and of the share).
    fn person_and_teammate(dir: &std::path::Path) -> (Arc<Replica>, Arc<Replica>, Namespace) {
        use crate::{NewMemory, NewRecords, ReplicaOptions};
        let open = |name: &str| {
            Arc::new(Replica::open(&dir.join(name), name, ReplicaOptions::default()).unwrap())
        };
        let (ours, theirs) = (open("ours"), open("theirs"));
        let share = Namespace::parse("share.0123456789abcdef").unwrap();
        let write = |replica: &Replica, namespace: &str, id: &str| {
            let device = replica.device().to_owned();
            let memory = NewMemory::episode(id, format!("text of {id}"), &device, Timestamp(5));
            let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
            replica
                .write_new(&Namespace::parse(namespace).unwrap(), Timestamp(5), &records)
                .unwrap();
        };
        write(&ours, "work", "our-private-work");
        write(&ours, "default", "our-default");
        write(&ours, share.as_str(), "our-shared");
        write(&theirs, "work", "their-private-work");
        write(&theirs, share.as_str(), "their-shared");
        write(&theirs, "share.fedcba9876543210", "their-other-share");
        (ours, theirs, share)
    }

    /// Runs the sync of `doc` between the session (over one replica) and
    /// `peer`, until neither side has anything to send (bounded). A `pushy`
    /// peer ignores being told that its changes are not taken (an honest
    /// one then holds them back), and sends them every round, 20 rounds.
    async fn exchange(session: &Session, peer: &Replica, doc: &DocId, pushy: bool) {
        let mut state = automerge::sync::State::new();
        for _ in 0..20 {
            if pushy {
                // As if told that we have nothing of theirs, and never told
                // that we take none of it.
                state.peer_read_only = false;
                state.their_heads = Some(Vec::new());
                state.their_need = Some(Vec::new());
                state.their_have = Some(vec![automerge::sync::Have::default()]);
                state.sent_hashes.clear();
                state.in_flight = false;
            }
            let message = peer.generate_sync_message(doc, &mut state).unwrap();
            let sent = message.is_some();
            if let Some(message) = message {
                session.handle(Frame::Sync { doc: doc.to_string(), message }).await.unwrap();
            }
            let replies: Vec<Frame> = lock(&session.shared.control).drain(..).collect();
            let answered = !replies.is_empty();
            for reply in replies {
                if let Frame::Sync { message, .. } = reply {
                    peer.receive_sync_message(doc, &mut state, &message).unwrap();
                }
            }
            if !sent && !answered {
                return;
            }
        }
        // A pushy peer sends its changes again every round.
        assert!(pushy, "the sync of {doc} did not settle in 20 rounds");
    }

    #[tokio::test]
    async fn a_share_session_carries_the_shares_documents_and_nothing_else() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = person_and_teammate(temp.path());
        let scope = Scope::Share { namespace: share.clone(), read_only: false };
        let shard = DocId::shard(&share, 0);
        assert_eq!(scope.docs(&ours), std::slice::from_ref(&shard), "{:?}", ours.doc_ids());
        let session = session_over(&ours, scope, temp.path());

        // Where this node stands is told of the share alone.
        session.handle(Frame::StatusRequest { id: 1, heads: Vec::new() }).await.unwrap();
        let reply = lock(&session.shared.control).pop_front();
        let Some(Frame::StatusReply { docs, .. }) = reply else { panic!("{reply:?}") };
        let told: Vec<&str> = docs.iter().map(|report| report.doc.as_str()).collect();
        assert_eq!(told, [shard.to_string()]);

        // Another namespace's document, the registry and another share's:
        // nothing merged, answered or given keys.
        let private = DocId::shard(&Namespace::parse("work").unwrap(), 0);
        let other_share = DocId::shard(&Namespace::parse("share.fedcba9876543210").unwrap(), 0);
        let before = ours.heads(&private).unwrap();
        for doc in [&private, &DocId::Registry, &other_share] {
            let message = theirs
                .generate_sync_message(doc, &mut automerge::sync::State::new())
                .unwrap()
                .unwrap();
            session.handle(Frame::Sync { doc: doc.to_string(), message }).await.unwrap();
            session
                .handle(Frame::KeyRequest {
                    doc: doc.to_string(),
                    records: vec![(0, "our-private-work".into())],
                })
                .await
                .unwrap();
        }
        assert!(lock(&session.shared.control).is_empty(), "a refused document was answered");
        assert_eq!(ours.heads(&private).unwrap(), before);
        assert!(!ours.doc_ids().contains(&other_share), "another share's document was made");
        assert_eq!(session.shared.refused.load(Ordering::Relaxed), 6);

        // The share converges both ways, and its keys are answered.
        exchange(&session, &theirs, &shard, false).await;
        assert_eq!(ours.heads(&shard).unwrap(), theirs.heads(&shard).unwrap());
        session
            .handle(Frame::KeyRequest {
                doc: shard.to_string(),
                records: vec![(0, "our-shared".into())],
            })
            .await
            .unwrap();
        let answer = lock(&session.shared.control).pop_front();
        assert!(
            matches!(answer, Some(Frame::Keys { ref keys, .. }) if keys.len() == 1),
            "{answer:?}"
        );
    }

    /// Replicas of a person and a teammate whose shards hold `capacity`
    /// memories, and the share's namespace.
    fn small_shards(
        dir: &std::path::Path,
        capacity: usize,
    ) -> (Arc<Replica>, Arc<Replica>, Namespace) {
        let options = crate::ReplicaOptions { shard_capacity: capacity, ..Default::default() };
        let open = |name: &str| Arc::new(Replica::open(&dir.join(name), name, options).unwrap());
        (open("ours"), open("theirs"), Namespace::parse("share.0123456789abcdef").unwrap())
    }

    /// Writes memories `ids` to `namespace`, one change each.
    fn write_each(replica: &Replica, namespace: &Namespace, ids: &[&str]) {
        use crate::{NewMemory, NewRecords};
        for id in ids {
            let memory = NewMemory::episode(*id, format!("text of {id}"), "d", Timestamp(5));
            let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
            replica.write_new(namespace, Timestamp(5), &records).unwrap();
        }
    }

    /// The first sync message of a document `peer` holds.
    fn first_message(peer: &Replica, doc: &DocId) -> Frame {
        let message =
            peer.generate_sync_message(doc, &mut automerge::sync::State::new()).unwrap().unwrap();
        Frame::Sync { doc: doc.to_string(), message }
    }

    #[tokio::test]
    async fn no_peer_steps_a_device_through_empty_shards() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = small_shards(temp.path(), 3);
        write_each(&ours, &share, &["ours"]);
        for n in 1..=5 {
            theirs.ensure_document(&DocId::shard(&share, n)).unwrap();
        }
        // A member (a reader too) and the person's own devices alike: each
        // step is a shard whose predecessor is not full.
        for scope in [
            Scope::Share { namespace: share.clone(), read_only: true },
            Scope::Share { namespace: share.clone(), read_only: false },
            Scope::own(),
        ] {
            let session = session_over(&ours, scope.clone(), temp.path());
            for n in 1..=5 {
                session.handle(first_message(&theirs, &DocId::shard(&share, n))).await.unwrap();
            }
            assert_eq!(ours.shards(&share), [DocId::shard(&share, 0)], "{scope:?}");
            assert_eq!(session.shared.refused.load(Ordering::Relaxed), 5, "{scope:?}");
            assert!(lock(&session.shared.control).is_empty(), "a refused shard was answered");
        }
        // Another namespace's shards still come from the person's devices.
        let work = Namespace::parse("work").unwrap();
        theirs.ensure_document(&DocId::shard(&work, 4)).unwrap();
        let session = session_over(&ours, Scope::own(), temp.path());
        session.handle(first_message(&theirs, &DocId::shard(&work, 4))).await.unwrap();
        assert!(ours.doc_ids().contains(&DocId::shard(&work, 4)));
    }

    #[tokio::test]
    async fn a_shard_offered_before_the_last_is_full_here_is_synced_once_it_is() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = small_shards(temp.path(), 3);
        // Theirs filled the first shard and opened the next.
        write_each(&theirs, &share, &["m1", "m2", "m3", "m4"]);
        let (first, next) = (DocId::shard(&share, 0), DocId::shard(&share, 1));
        assert_eq!(theirs.shards(&share), [first.clone(), next.clone()]);
        let session = session_over(
            &ours,
            Scope::Share { namespace: share.clone(), read_only: false },
            temp.path(),
        );
        // The next shard's first message arrives before the first shard.
        session.handle(first_message(&theirs, &next)).await.unwrap();
        assert!(!ours.doc_ids().contains(&next));
        exchange(&session, &theirs, &first, false).await;
        assert_eq!(ours.heads(&first).unwrap(), theirs.heads(&first).unwrap());
        // Made once the first shard is full here, and owed to the peer.
        assert!(ours.doc_ids().contains(&next));
        assert!(lock(&session.shared.owed).contains(&next));
        exchange(&session, &theirs, &next, false).await;
        assert_eq!(ours.heads(&next).unwrap(), theirs.heads(&next).unwrap());
    }

    #[test]
    fn a_shard_whose_memories_were_evicted_is_still_full() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = small_shards(temp.path(), 3);
        write_each(&theirs, &share, &["m1", "m2", "m3", "m4"]);
        theirs.evict(&["m1".to_owned(), "m2".to_owned()], Timestamp(6)).unwrap();
        let (first, next) = (DocId::shard(&share, 0), DocId::shard(&share, 1));
        // Ours takes the first shard as theirs holds it now: one memory.
        let (mut to_ours, mut to_theirs) =
            (automerge::sync::State::new(), automerge::sync::State::new());
        for _ in 0..10 {
            if let Some(message) = theirs.generate_sync_message(&first, &mut to_ours).unwrap() {
                ours.receive_sync_message(&first, &mut to_theirs, &message).unwrap();
            }
            if let Some(message) = ours.generate_sync_message(&first, &mut to_theirs).unwrap() {
                theirs.receive_sync_message(&first, &mut to_ours, &message).unwrap();
            }
        }
        assert_eq!(ours.heads(&first).unwrap(), theirs.heads(&first).unwrap());
        assert!(ours.may_make(&next).unwrap(), "the evicted shard's history says it was full");
        assert!(!ours.may_make(&DocId::shard(&share, 2)).unwrap());
    }

    #[tokio::test]
    async fn a_reader_gets_the_share_and_none_of_its_changes_are_taken() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = person_and_teammate(temp.path());
        let shard = DocId::shard(&share, 0);
        let session =
            session_over(&ours, Scope::Share { namespace: share, read_only: true }, temp.path());
        let (ours_before, theirs_before) =
            (ours.heads(&shard).unwrap(), theirs.heads(&shard).unwrap());
        exchange(&session, &theirs, &shard, false).await;
        // Ours reached the reader; the reader's memory did not reach us,
        // and an honest reader, told so, did not send it.
        assert_eq!(ours.heads(&shard).unwrap(), ours_before);
        assert_ne!(theirs.heads(&shard).unwrap(), theirs_before, "the reader got nothing");
        assert!(theirs.knows_heads(&shard, &ours_before), "the reader lacks our changes");
        assert!(!ours.knows_heads(&shard, &theirs_before), "the reader's change was taken");
        assert_eq!(session.shared.refused.load(Ordering::Relaxed), 0);
        // A reader that sends its changes anyway: none taken, each counted.
        exchange(&session, &theirs, &shard, true).await;
        assert_eq!(ours.heads(&shard).unwrap(), ours_before);
        assert!(!ours.knows_heads(&shard, &theirs_before), "the reader's change was taken");
        assert!(session.shared.refused.load(Ordering::Relaxed) >= 1);
    }

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
