//! The session core: one sync session with one peer as a state machine,
//! without network, tasks, timers or locks. What comes in: the peer's
//! frames ([`SessionCore::receive`]), local changes
//! ([`SessionCore::changed`]), and the driver asking what to send next
//! ([`SessionCore::poll_send`]); what goes out: frames to send, the
//! [`Effects`] of a merge (changes for the observer, a registry changed,
//! a status request answered), and, by an error, a close with its reason.
//! Time comes in as an argument.
//!
//! The documents themselves are the [`Replica`] each call is given: a
//! merge is durable on disk before the call returns, as
//! [`Replica::receive_sync_message`] promises. Everything else a session
//! decides, the core decides: what the scope admits and refuses
//! ([`crate::admission`]), the sync state per document, what is owed to
//! the peer, which keys to ask for and answer, what is remembered of the
//! peer ([`PeerRecord`]).
//!
//! Two drivers run it, so the simulation checks the node's session rather
//! than a copy of it: the node's ([`super::run`], over an iroh stream) and
//! the simulation's links (`sim.rs`, over seeded queues). samod's sans-IO
//! hub and iroh-gossip's `proto` are the models.

use std::{
    collections::{BTreeSet, HashMap, VecDeque},
    net::SocketAddr,
};

use automerge::sync;
use ferrex_core::Timestamp;

use crate::{
    DocChange, DocId, RecordRef, Replica, ReplicaError,
    admission::{Admission, Verdict},
    peers::{PeerRecord, encode_heads},
    session::Scope,
    wire::{DocReport, Frame},
};

/// What a frame taken asks of the session's driver, besides sending.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Changes merged (or records opened by keys), durable already: for
    /// the observer to index, in order.
    pub(crate) merged: Vec<DocChange>,
    /// A merge changed the registry: revocations take effect before
    /// anything else is sent.
    pub(crate) registry_changed: bool,
    /// The peer answered this status request; the record holds its answer.
    pub(crate) answered: Option<u64>,
}

/// Why a session ends: a merge or a message that could not be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    /// A peer's sync message could not be merged.
    #[error("cannot merge a sync message of {doc}: {source}")]
    Merge {
        /// The document.
        doc: DocId,
        /// What the replica said.
        source: ReplicaError,
    },
    /// The next message of a document could not be made.
    #[error("cannot make a sync message of {doc}: {source}")]
    Generate {
        /// The document.
        doc: DocId,
        /// What the replica said.
        source: ReplicaError,
    },
}

/// One session's state: what [`super::run`] and the simulation drive.
#[derive(Debug)]
pub(crate) struct SessionCore {
    /// What the session carries.
    scope: Scope,
    /// The Automerge sync state per document.
    states: HashMap<DocId, sync::State>,
    /// What is remembered about the peer, kept current.
    record: PeerRecord,
    /// The record changed since it was last taken to save.
    dirty: bool,
    /// The record changed since it was last published.
    unpublished: bool,
    /// Documents that owe the peer a message.
    owed: BTreeSet<DocId>,
    /// Frames to send first, in order: answers to sync messages, key
    /// requests and keys, status requests and replies. At most one answer
    /// per message received, and the driver reads only what it hands
    /// here, so this stays short.
    control: VecDeque<Frame>,
    /// Keys the peer asked for that this node could not send yet, per
    /// document: asked again of the replica when the document changes here.
    unanswered: HashMap<DocId, Vec<RecordRef>>,
    /// Shards the peer offered before the one each follows was full here.
    admission: Admission,
    /// What the peer sent that the scope refuses: frames of documents
    /// outside it, shards it may not make yet, and changes of a member
    /// that may not write.
    refused: u64,
}

impl SessionCore {
    /// A session carrying `scope`, resuming from what was remembered of
    /// the peer.
    pub(crate) fn new(scope: Scope, record: PeerRecord) -> Self {
        SessionCore {
            scope,
            states: HashMap::new(),
            record,
            dirty: false,
            unpublished: false,
            owed: BTreeSet::new(),
            control: VecDeque::new(),
            unanswered: HashMap::new(),
            admission: Admission::default(),
            refused: 0,
        }
    }

    /// What the session carries.
    #[cfg(any(test, feature = "simulation"))]
    pub(crate) fn scope(&self) -> &Scope {
        &self.scope
    }

    /// What is remembered of the peer.
    pub(crate) fn record(&self) -> &PeerRecord {
        &self.record
    }

    /// Frames refused so far.
    pub(crate) fn refused(&self) -> u64 {
        self.refused
    }

    /// The record, when it changed since last taken: what to save.
    pub(crate) fn take_record_to_save(&mut self) -> Option<PeerRecord> {
        std::mem::take(&mut self.dirty).then(|| self.record.clone())
    }

    /// The record, when it changed since last taken: what status queries
    /// read.
    pub(crate) fn take_record_to_publish(&mut self) -> Option<&PeerRecord> {
        std::mem::take(&mut self.unpublished).then_some(&self.record)
    }

    /// Whether a frame waits to be sent or a document owes the peer one.
    pub(crate) fn wants_to_send(&self) -> bool {
        !self.control.is_empty() || !self.owed.is_empty()
    }

    fn touch(&mut self) {
        self.dirty = true;
        self.unpublished = true;
    }

    /// The session starts: every document it carries owes the peer a
    /// message, and records a previous session left without their keys
    /// are asked for.
    pub(crate) fn start(&mut self, replica: &Replica) {
        let docs = self.scope.docs(replica);
        for doc in &docs {
            if let Ok(records) = replica.wanted_keys(doc, None)
                && !records.is_empty()
            {
                self.control.push_back(Frame::KeyRequest { doc: doc.to_string(), records });
            }
        }
        self.owed.extend(docs);
    }

    /// The first frame arrived, over `addr`.
    pub(crate) fn connected(&mut self, addr: Option<SocketAddr>) {
        self.record.last_addr = addr;
        self.touch();
    }

    /// `doc` changed here (a local write, or a merge from another peer):
    /// keys the peer wanted of it are asked for again, deferred shards
    /// made if they may be now, and the document owes the peer a message.
    pub(crate) fn changed(&mut self, replica: &Replica, doc: &DocId) {
        if !self.scope.admits(doc) {
            return;
        }
        if let Some(records) = self.unanswered.remove(doc) {
            self.answer_keys(replica, doc, records);
        }
        self.make_deferred(replica);
        self.owed.insert(doc.clone());
    }

    /// Changes were missed: every document the session carries owes one.
    pub(crate) fn lagged(&mut self, replica: &Replica) {
        self.owed.extend(self.scope.docs(replica));
    }

    /// Asks the peer where it stands, as request `id`.
    pub(crate) fn ask_status(&mut self, replica: &Replica, id: u64) {
        let heads = all_heads(replica, &self.scope);
        self.control.push_back(Frame::StatusRequest { id, heads });
    }

    /// The next frame to send: queued answers first, then the next message
    /// of a document that owes one, generated now, so a burst of local
    /// changes makes one message per document. `None` when nothing is due.
    pub(crate) fn poll_send(
        &mut self,
        replica: &Replica,
        now: Timestamp,
    ) -> Result<Option<Frame>, SessionError> {
        if let Some(frame) = self.control.pop_front() {
            return Ok(Some(frame));
        }
        while let Some(doc) = self.owed.pop_first() {
            if let Some(frame) = self.generate(replica, &doc, now)? {
                return Ok(Some(frame));
            }
        }
        Ok(None)
    }

    /// The queued frames, without generating anything: what the
    /// simulation routes after each delivery.
    #[cfg(any(test, feature = "simulation"))]
    pub(crate) fn take_control(&mut self) -> impl Iterator<Item = Frame> + '_ {
        self.control.drain(..)
    }

    /// The next message of `doc` for the peer, if there is something to
    /// say and the session carries a document this replica holds
    /// (generating a message would otherwise create it here).
    pub(crate) fn generate(
        &mut self,
        replica: &Replica,
        doc: &DocId,
        now: Timestamp,
    ) -> Result<Option<Frame>, SessionError> {
        if !self.scope.admits(doc) || !replica.has_document(doc) {
            return Ok(None);
        }
        let message = self.next_message(replica, doc, now)?;
        Ok(message.map(|message| Frame::Sync { doc: doc.to_string(), message }))
    }

    /// Makes the deferred shards the peer may make now, and owes the peer
    /// their sync: its first message went unanswered, so it waits for
    /// ours. Returns them.
    pub(crate) fn make_deferred(&mut self, replica: &Replica) -> Vec<DocId> {
        if self.admission.is_empty() {
            return Vec::new();
        }
        let made = self.admission.ready(|doc| {
            replica.may_make(doc).unwrap_or(false) && replica.ensure_document(doc).is_ok()
        });
        self.owed.extend(made.iter().cloned());
        made
    }

    /// Takes a frame from the peer, which arrived at `now`. What to send
    /// back is queued ([`SessionCore::poll_send`]); what the driver must do
    /// is returned. An error ends the session.
    pub(crate) fn receive(
        &mut self,
        replica: &Replica,
        frame: Frame,
        now: Timestamp,
    ) -> Result<Effects, SessionError> {
        self.record.last_seen = Some(now.0);
        self.touch();
        match frame {
            Frame::Sync { doc, message } => {
                let Some(doc) = self.admitted(replica, &doc) else { return Ok(Effects::default()) };
                self.merge(replica, doc, &message, now)
            }
            // Keys are answered and filed on their own: a failure there is
            // logged and the session goes on (the records stay locked, and
            // are asked for again at the next session).
            Frame::KeyRequest { doc, records } => {
                if let Some(doc) = self.admitted(replica, &doc) {
                    self.answer_keys(replica, &doc, records);
                }
                Ok(Effects::default())
            }
            Frame::Keys { doc, keys } => {
                let Some(doc) = self.admitted(replica, &doc) else { return Ok(Effects::default()) };
                match replica.accept_keys(&doc, &keys) {
                    Ok(change) => {
                        Ok(Effects { merged: change.into_iter().collect(), ..Effects::default() })
                    }
                    Err(error) => {
                        tracing::warn!(%doc, "could not file keys a peer sent: {error}");
                        Ok(Effects::default())
                    }
                }
            }
            Frame::StatusRequest { id, heads } => {
                let docs = self.status_reply(replica, &heads);
                self.control.push_back(Frame::StatusReply { id, docs });
                Ok(Effects::default())
            }
            Frame::StatusReply { id, docs } => {
                self.remember_status(replica, &docs, now);
                Ok(Effects { answered: Some(id), ..Effects::default() })
            }
        }
    }

    /// Merges a sync message of `doc` (admitted), queues its answer and
    /// the key requests for what arrived sealed.
    fn merge(
        &mut self,
        replica: &Replica,
        doc: DocId,
        message: &[u8],
        now: Timestamp,
    ) -> Result<Effects, SessionError> {
        tracing::trace!(%doc, bytes = message.len(), "received a sync message");
        if self.scope.read_only(&doc) {
            // Taken as a reader's: counted, and applied to nothing.
            self.refused +=
                sync::Message::decode(message).map_or(0, |message| message.changes.len() as u64);
        }
        let state = self.state_for(replica, &doc);
        let changes = replica
            .receive_sync_message(&doc, state, message)
            .map_err(|source| SessionError::Merge { doc: doc.clone(), source })?;
        // The answer is made at once, so that it carries the heads this
        // message led to (the acknowledgement; the merged changes are on
        // disk by now).
        if let Some(message) = self.next_message(replica, &doc, now)? {
            self.control.push_back(Frame::Sync { doc: doc.to_string(), message });
        }
        // What arrived sealed (or became used again): ask for its keys.
        for change in &changes {
            match replica.wanted_keys(&change.doc, Some(&change.keys)) {
                Ok(records) if !records.is_empty() => self
                    .control
                    .push_back(Frame::KeyRequest { doc: change.doc.to_string(), records }),
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(doc = %change.doc, "cannot list keys to ask for: {error}")
                }
            }
        }
        if changes.is_empty() {
            return Ok(Effects::default());
        }
        tracing::debug!(
            %doc,
            bytes = message.len(),
            memories = changes.iter().map(|change| change.keys.memories.len()).sum::<usize>(),
            "merged a sync message"
        );
        self.make_deferred(replica);
        Ok(Effects { registry_changed: doc == DocId::Registry, merged: changes, answered: None })
    }

    /// The document a frame names, if this version knows it and the
    /// session takes it; a document outside the scope is refused (and
    /// counted), never merged, answered or given keys. So is a shard the
    /// peer may not make yet ([`Replica::may_make`]): it is deferred, and
    /// made once the shard before it is full here.
    fn admitted(&mut self, replica: &Replica, doc: &str) -> Option<DocId> {
        let doc = known_doc(doc)?;
        let verdict =
            self.admission.judge(&self.scope, &doc, || replica.may_make(&doc).unwrap_or(false));
        let what = match verdict {
            Verdict::Take => return Some(doc),
            Verdict::Outside => "a document outside the session's scope",
            Verdict::NotYet => "a shard before the one it follows is full",
        };
        self.refused += 1;
        tracing::debug!(%doc, "refusing a frame of {what}");
        None
    }

    /// Queues the keys of `records` this node can send, and remembers the
    /// rest to try again when the document changes here.
    fn answer_keys(&mut self, replica: &Replica, doc: &DocId, records: Vec<RecordRef>) {
        let (keys, unanswered) = match replica.answer_keys(doc, &records) {
            Ok(answer) => answer,
            Err(error) => {
                tracing::warn!(%doc, "could not answer a key request: {error}");
                return;
            }
        };
        if !keys.is_empty() {
            self.control.push_back(Frame::Keys { doc: doc.to_string(), keys });
        }
        if unanswered.is_empty() {
            self.unanswered.remove(doc);
        } else {
            self.unanswered.insert(doc.clone(), unanswered);
        }
    }

    /// The sync state of `doc`, resumed from the record on first use when
    /// this replica knows the heads it remembers (after an upgrade it does
    /// not); read-only when the scope refuses the peer's changes.
    fn state_for(&mut self, replica: &Replica, doc: &DocId) -> &mut sync::State {
        let record = &self.record;
        let state = self.states.entry(doc.clone()).or_insert_with(|| {
            record
                .docs
                .get(&doc.to_string())
                .map(|remembered| remembered.sync_state())
                .filter(|state| replica.knows_heads(doc, &state.shared_heads))
                .unwrap_or_default()
        });
        state.set_read_only(self.scope.read_only(doc));
        state
    }

    /// Generates the next message of `doc` and brings the record up to
    /// date with the sync state.
    fn next_message(
        &mut self,
        replica: &Replica,
        doc: &DocId,
        now: Timestamp,
    ) -> Result<Option<Vec<u8>>, SessionError> {
        let failed = |source| SessionError::Generate { doc: doc.clone(), source };
        let state = self.state_for(replica, doc);
        let message = replica.generate_sync_message(doc, state).map_err(failed)?;
        let shared_heads = encode_heads(&state.shared_heads);
        let their_heads = state.their_heads.clone();
        let ours = replica.heads(doc).map_err(failed)?;
        let remembered = self.record.docs.entry(doc.to_string()).or_default();
        if let Some(their_heads) = their_heads {
            if their_heads == ours {
                remembered.last_sync = Some(now.0);
                remembered.we_lack = Some(0);
            }
            remembered.their_heads = encode_heads(&their_heads);
        }
        remembered.shared_heads = shared_heads;
        self.touch();
        Ok(message)
    }

    /// Where this node stands, per document: its heads, and how many of
    /// its changes the peer lacks by the peer's `heads` (and, for heads
    /// this node does not know yet, the heads the two last agreed on).
    fn status_reply(&self, replica: &Replica, heads: &[(String, Vec<String>)]) -> Vec<DocReport> {
        let theirs: HashMap<&str, Vec<automerge::ChangeHash>> = heads
            .iter()
            .map(|(doc, heads)| {
                (doc.as_str(), heads.iter().filter_map(|hash| hash.parse().ok()).collect())
            })
            .collect();
        self.scope
            .docs(replica)
            .into_iter()
            .filter_map(|doc| {
                let their_heads = theirs.get(doc.to_string().as_str()).cloned().unwrap_or_default();
                let agreed = self
                    .states
                    .get(&doc)
                    .map(|state| state.shared_heads.clone())
                    .unwrap_or_default();
                let missing = replica.changes_missing_from(&doc, &their_heads, &agreed)?;
                let heads = encode_heads(&replica.heads(&doc).ok()?);
                Some(DocReport { doc: doc.to_string(), heads, missing: missing as u64 })
            })
            .collect()
    }

    /// Records the peer's answer to a status request: only what the
    /// session carries is remembered of a peer.
    fn remember_status(&mut self, replica: &Replica, docs: &[DocReport], now: Timestamp) {
        let ours: HashMap<String, Vec<String>> =
            all_heads(replica, &self.scope).into_iter().collect();
        let scope = &self.scope;
        for report in docs
            .iter()
            .filter(|report| report.doc.parse::<DocId>().is_ok_and(|doc| scope.admits(&doc)))
        {
            let remembered = self.record.docs.entry(report.doc.clone()).or_default();
            remembered.we_lack = Some(report.missing);
            let mut theirs = report.heads.clone();
            theirs.sort();
            if ours.get(&report.doc).is_some_and(|ours| {
                let mut ours = ours.clone();
                ours.sort();
                ours == theirs
            }) {
                remembered.last_sync = Some(now.0);
            }
            remembered.their_heads = theirs;
        }
        self.touch();
    }
}

/// This replica's heads per document the session carries, in hex.
pub(crate) fn all_heads(replica: &Replica, scope: &Scope) -> Vec<(String, Vec<String>)> {
    scope
        .docs(replica)
        .into_iter()
        .filter_map(|doc| Some((doc.to_string(), encode_heads(&replica.heads(&doc).ok()?))))
        .collect()
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ferrex_core::Namespace;

    use super::*;

    #[test]
    fn a_document_this_version_does_not_know_is_passed_over_and_the_session_goes_on() {
        use ferrex_core::{Namespace, Timestamp};

        use crate::{NewMemory, NewRecords, ReplicaOptions};

        let temp = tempfile::tempdir().unwrap();
        let open = |name: &str| {
            Arc::new(
                Replica::open(&temp.path().join(name), name, ReplicaOptions::default()).unwrap(),
            )
        };
        let (ours, theirs) = (open("ours"), open("theirs"));
        let mut session = session_over(&ours, Scope::own(), temp.path());
        for doc in ["members.0123abcd", "share.x.y.z", ""] {
            for frame in [
                Frame::Sync { doc: doc.to_owned(), message: vec![1, 2, 3] },
                Frame::KeyRequest { doc: doc.to_owned(), records: vec![(0, "k".into())] },
                Frame::Keys { doc: doc.to_owned(), keys: vec![[0; 32]] },
            ] {
                session.handle(frame);
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
        assert!(session.core.control.is_empty(), "an unknown document was answered");
        session.handle(Frame::Sync { doc: shard.to_string(), message });
        let answered: Vec<String> = session
            .core
            .control
            .iter()
            .map(|frame| match frame {
                Frame::Sync { doc, .. } => format!("sync {doc}"),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(answered, [format!("sync {shard}")]);
    }

    /// A session of `replica` with a peer, run by hand: frames go to
    /// `handle`, and what it queues is read from `core.control`.
    struct Harness {
        core: SessionCore,
        replica: Arc<Replica>,
    }

    impl Harness {
        fn handle(&mut self, frame: Frame) {
            self.core.receive(&self.replica, frame, Timestamp(1)).unwrap();
        }
    }

    fn session_over(replica: &Arc<Replica>, scope: Scope, _dir: &std::path::Path) -> Harness {
        Harness { core: SessionCore::new(scope, PeerRecord::default()), replica: replica.clone() }
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
    fn exchange(session: &mut Harness, peer: &Replica, doc: &DocId, pushy: bool) {
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
                session.handle(Frame::Sync { doc: doc.to_string(), message });
            }
            let replies: Vec<Frame> = session.core.take_control().collect();
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

    #[test]
    fn a_share_session_carries_the_shares_documents_and_nothing_else() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = person_and_teammate(temp.path());
        let scope = Scope::Share { namespace: share.clone(), read_only: false };
        let shard = DocId::shard(&share, 0);
        assert_eq!(scope.docs(&ours), std::slice::from_ref(&shard), "{:?}", ours.doc_ids());
        let mut session = session_over(&ours, scope, temp.path());

        // Where this node stands is told of the share alone.
        session.handle(Frame::StatusRequest { id: 1, heads: Vec::new() });
        let reply = session.core.control.pop_front();
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
            session.handle(Frame::Sync { doc: doc.to_string(), message });
            session.handle(Frame::KeyRequest {
                doc: doc.to_string(),
                records: vec![(0, "our-private-work".into())],
            });
        }
        assert!(session.core.control.is_empty(), "a refused document was answered");
        assert_eq!(ours.heads(&private).unwrap(), before);
        assert!(!ours.doc_ids().contains(&other_share), "another share's document was made");
        assert_eq!(session.core.refused(), 6);

        // The share converges both ways, and its keys are answered.
        exchange(&mut session, &theirs, &shard, false);
        assert_eq!(ours.heads(&shard).unwrap(), theirs.heads(&shard).unwrap());
        session.handle(Frame::KeyRequest {
            doc: shard.to_string(),
            records: vec![(0, "our-shared".into())],
        });
        let answer = session.core.control.pop_front();
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

    #[test]
    fn no_peer_steps_a_device_through_empty_shards() {
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
            let mut session = session_over(&ours, scope.clone(), temp.path());
            for n in 1..=5 {
                session.handle(first_message(&theirs, &DocId::shard(&share, n)));
            }
            assert_eq!(ours.shards(&share), [DocId::shard(&share, 0)], "{scope:?}");
            assert_eq!(session.core.refused(), 5, "{scope:?}");
            assert!(session.core.control.is_empty(), "a refused shard was answered");
        }
        // Another namespace's shards still come from the person's devices.
        let work = Namespace::parse("work").unwrap();
        theirs.ensure_document(&DocId::shard(&work, 4)).unwrap();
        let mut session = session_over(&ours, Scope::own(), temp.path());
        session.handle(first_message(&theirs, &DocId::shard(&work, 4)));
        assert!(ours.doc_ids().contains(&DocId::shard(&work, 4)));
    }

    #[test]
    fn a_shard_offered_before_the_last_is_full_here_is_synced_once_it_is() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = small_shards(temp.path(), 3);
        // Theirs filled the first shard and opened the next.
        write_each(&theirs, &share, &["m1", "m2", "m3", "m4"]);
        let (first, next) = (DocId::shard(&share, 0), DocId::shard(&share, 1));
        assert_eq!(theirs.shards(&share), [first.clone(), next.clone()]);
        let mut session = session_over(
            &ours,
            Scope::Share { namespace: share.clone(), read_only: false },
            temp.path(),
        );
        // The next shard's first message arrives before the first shard.
        session.handle(first_message(&theirs, &next));
        assert!(!ours.doc_ids().contains(&next));
        exchange(&mut session, &theirs, &first, false);
        assert_eq!(ours.heads(&first).unwrap(), theirs.heads(&first).unwrap());
        // Made once the first shard is full here, and owed to the peer.
        assert!(ours.doc_ids().contains(&next));
        assert!(session.core.owed.contains(&next));
        exchange(&mut session, &theirs, &next, false);
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

    #[test]
    fn a_reader_gets_the_share_and_none_of_its_changes_are_taken() {
        let temp = tempfile::tempdir().unwrap();
        let (ours, theirs, share) = person_and_teammate(temp.path());
        let shard = DocId::shard(&share, 0);
        let mut session =
            session_over(&ours, Scope::Share { namespace: share, read_only: true }, temp.path());
        let (ours_before, theirs_before) =
            (ours.heads(&shard).unwrap(), theirs.heads(&shard).unwrap());
        exchange(&mut session, &theirs, &shard, false);
        // Ours reached the reader; the reader's memory did not reach us,
        // and an honest reader, told so, did not send it.
        assert_eq!(ours.heads(&shard).unwrap(), ours_before);
        assert_ne!(theirs.heads(&shard).unwrap(), theirs_before, "the reader got nothing");
        assert!(theirs.knows_heads(&shard, &ours_before), "the reader lacks our changes");
        assert!(!ours.knows_heads(&shard, &theirs_before), "the reader's change was taken");
        assert_eq!(session.core.refused(), 0);
        // A reader that sends its changes anyway: none taken, each counted.
        exchange(&mut session, &theirs, &shard, true);
        assert_eq!(ours.heads(&shard).unwrap(), ours_before);
        assert!(!ours.knows_heads(&shard, &theirs_before), "the reader's change was taken");
        assert!(session.core.refused() >= 1);
    }
}
