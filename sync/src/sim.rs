//! Replicas linked without a network, for deterministic simulation tests
//! (feature `simulation`): every message of the sync protocol goes through
//! queues a seeded generator reorders, duplicates and drops, links go down
//! and up, and devices restart from their files mid-exchange.
//!
//! The sync crate's own simulation (`tests/simulation.rs`) checks what the
//! documents converge to; the node's (`engine/src/derived/simulation.rs`) runs the same
//! faults and also checks that the indexes derived from them answer alike.

#![allow(clippy::unwrap_used, reason = "test support: an error fails the simulation")]

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use ferrex_core::{Namespace, Timestamp};

use crate::{
    DocId, NewMemory, NewRecords, Replica, Scope, peers::PeerRecord, session::core::SessionCore,
    wire::Frame,
};

/// A small deterministic generator (xorshift64*), so a failing seed replays.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// The seed of run `number` of a simulation: spread out, so neighbouring
/// numbers do not start alike.
fn seed(number: u64) -> u64 {
    0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(number)
}

/// A link between two devices: each end runs the node's session core
/// ([`SessionCore`]) with the other, and the frames each sends are in
/// flight per document (in order, as on a stream), where the seeded
/// traffic delays, repeats, swaps and loses them.
struct Link {
    ends: [usize; 2],
    /// `cores[0]` is `ends[0]`'s session with `ends[1]`, and the other way.
    /// What each carries is its scope: everything for the person's own
    /// device, one share's documents for a member (read-only when the
    /// peer may not write).
    cores: [SessionCore; 2],
    /// Frames each side sent, not yet delivered, per document.
    in_flight: [BTreeMap<DocId, VecDeque<Frame>>; 2],
    up: bool,
    /// Whether the link's session is refused (a device no member of the
    /// share it would carry): down until its scopes are set again.
    refused: bool,
    /// Frames each side refused of the other in sessions that ended.
    refusals: [u64; 2],
}

/// The simulation's clock: sessions remember times they never compare.
const NOW: Timestamp = Timestamp(0);

impl Link {
    fn new(ends: [usize; 2], scopes: [Scope; 2]) -> Self {
        let [of_b, of_a] = scopes;
        Link {
            ends,
            cores: [
                SessionCore::new(of_b, PeerRecord::default()),
                SessionCore::new(of_a, PeerRecord::default()),
            ],
            in_flight: Default::default(),
            up: true,
            refused: false,
            refusals: [0; 2],
        }
    }

    /// A dropped connection: frames in flight are lost, and each side
    /// starts a new session from what it remembers of the other (its
    /// record's shared heads), as a reconnect does.
    fn reset(&mut self) {
        self.reset_to(self.cores.each_ref().map(|core| core.scope().clone()));
    }

    /// As [`Link::reset`], the new sessions carrying `scopes`.
    fn reset_to(&mut self, scopes: [Scope; 2]) {
        for (which, scope) in scopes.into_iter().enumerate() {
            let core = &mut self.cores[which];
            self.refusals[which] += core.refused();
            *core = SessionCore::new(scope, core.record().clone());
            self.in_flight[which].clear();
        }
    }

    fn scopes(&self) -> [&Scope; 2] {
        self.cores.each_ref().map(SessionCore::scope)
    }

    /// Whether both sides' sessions carry `doc`.
    fn carries(&self, doc: &DocId) -> bool {
        self.scopes().iter().all(|scope| scope.admits(doc))
    }

    /// Puts a frame side `which` sent in flight, by its document.
    fn send(&mut self, which: usize, frame: Frame) {
        let doc = match &frame {
            Frame::Sync { doc, .. } | Frame::KeyRequest { doc, .. } | Frame::Keys { doc, .. } => {
                doc.parse::<DocId>().ok()
            }
            Frame::StatusRequest { .. } | Frame::StatusReply { .. } => None,
        };
        if let Some(doc) = doc {
            self.in_flight[which].entry(doc).or_default().push_back(frame);
        }
    }

    /// Sends what side `which`'s session has queued (answers, key requests
    /// and keys), without making new messages; whether it sent any.
    fn send_queued(&mut self, which: usize) -> bool {
        let queued: Vec<Frame> = self.cores[which].take_control().collect();
        let sent = !queued.is_empty();
        for frame in queued {
            self.send(which, frame);
        }
        sent
    }

    /// Lets side `which` make a message of `doc` for the other side, as its
    /// session does when the document changed there.
    fn generate(&mut self, replicas: &[Replica], which: usize, doc: &DocId) -> bool {
        let replica = &replicas[self.ends[which]];
        match self.cores[which].generate(replica, doc, NOW).unwrap() {
            Some(frame) => {
                self.send(which, frame);
                true
            }
            None => false,
        }
    }

    /// Delivers the next frame in flight from side `which` for `doc` to the
    /// other side's session, and sends what it answers.
    fn deliver(&mut self, replicas: &[Replica], which: usize, doc: &DocId) -> bool {
        let Some(frame) = self.in_flight[which].get_mut(doc).and_then(VecDeque::pop_front) else {
            return false;
        };
        let receiver = 1 - which;
        let replica = &replicas[self.ends[receiver]];
        self.cores[receiver].receive(replica, frame, NOW).unwrap();
        self.send_queued(receiver);
        true
    }

    /// Makes the shards side `which` deferred that it may make now, and
    /// offers them (the peer waits for its first message).
    fn make_deferred(&mut self, replicas: &[Replica], which: usize) {
        let replica = &replicas[self.ends[which]];
        for doc in self.cores[which].make_deferred(replica) {
            self.generate(replicas, which, &doc);
        }
    }
}

/// Every pair of devices linked, each link with its own sync states and
/// messages in flight.
pub struct Network {
    links: Vec<Link>,
}

impl Network {
    /// Links between every pair of `devices` devices, all up.
    pub fn full_mesh(devices: usize) -> Self {
        let links = (0..devices)
            .flat_map(|a| (a + 1..devices).map(move |b| [a, b]))
            .map(|ends| Link::new(ends, [Scope::own(), Scope::own()]))
            .collect();
        Network { links }
    }

    /// Links between the pairs of `links`, each end's session with the
    /// other of its scope: `(a, b, a's scope of b, b's scope of a)`.
    pub fn scoped(links: Vec<(usize, usize, Scope, Scope)>) -> Self {
        let links =
            links.into_iter().map(|(a, b, of_b, of_a)| Link::new([a, b], [of_b, of_a])).collect();
        Network { links }
    }

    /// The links' ends, in order.
    pub fn ends(&self) -> Vec<[usize; 2]> {
        self.links.iter().map(|link| link.ends).collect()
    }

    /// Sets what link `at`'s sessions carry, as each end's policy decides
    /// from the statements it holds: `None` when either end refuses the
    /// other (the link then carries nothing). A change ends the session
    /// (a new one starts with the new scopes), as a statement taken ends a
    /// node's sessions of the share.
    pub fn set_scopes(&mut self, at: usize, scopes: Option<[Scope; 2]>) {
        let link = &mut self.links[at];
        match scopes {
            None => {
                if !link.refused {
                    link.refused = true;
                    link.reset();
                }
            }
            Some(scopes) => {
                if link.refused || link.scopes() != scopes.each_ref() {
                    link.refused = false;
                    link.reset_to(scopes);
                }
            }
        }
    }

    /// Frames refused over every link, by the receiving device.
    pub fn refusals(&self, devices: usize) -> Vec<u64> {
        let mut refused = vec![0; devices];
        for link in &self.links {
            for (which, end) in link.ends.iter().enumerate() {
                refused[*end] += link.refusals[which] + link.cores[which].refused();
            }
        }
        refused
    }

    /// Side `which` of link `at` offers `doc` (generating its message), as a
    /// peer may whatever it holds: a hostile peer offering shard after shard.
    pub fn offer(&mut self, replicas: &[Replica], at: usize, which: usize, doc: &DocId) {
        let link = &mut self.links[at];
        if link.up && !link.refused && link.generate(replicas, which, doc) {
            while link.deliver(replicas, which, doc) {}
        }
    }

    /// A partition begins or ends on a random link, or its connection drops.
    pub fn disturb(&mut self, rng: &mut Rng) {
        let at = rng.below(self.links.len());
        let link = &mut self.links[at];
        if rng.chance(50) {
            link.up = !link.up;
        }
        link.reset();
    }

    /// Device `device` restarted: its connections dropped, and the
    /// messages to and from it are lost.
    pub fn restarted(&mut self, device: usize) {
        for link in self.links.iter_mut().filter(|link| link.ends.contains(&device)) {
            link.reset();
        }
    }

    /// Up to five random events on the links that are up: a message
    /// generated, delivered (and answered), delivered twice, swapped with
    /// the next, or lost.
    pub fn traffic(&mut self, replicas: &[Replica], rng: &mut Rng) {
        let docs: Vec<DocId> = all_docs(replicas).into_iter().collect();
        if docs.is_empty() {
            return;
        }
        for _ in 0..rng.below(6) {
            let at = rng.below(self.links.len());
            let link = &mut self.links[at];
            if !link.up || link.refused {
                continue;
            }
            let doc = &docs[rng.below(docs.len())];
            if !link.carries(doc) {
                continue;
            }
            let which = rng.below(2);
            let queue = link.in_flight[which].entry(doc.clone()).or_default();
            match rng.below(20) {
                0 => {
                    if let Some(first) = queue.front().cloned() {
                        queue.push_front(first);
                    }
                }
                1 if queue.len() >= 2 => queue.swap(0, 1),
                2 => {
                    queue.pop_front();
                }
                roll if roll < 11 => {
                    link.generate(replicas, which, doc);
                }
                _ => {
                    link.deliver(replicas, which, doc);
                }
            }
        }
    }

    /// Every link up and reconnected, then messages exchanged until none
    /// is in flight or generated, at most `rounds` times over every
    /// document; whether it went quiet.
    pub fn heal(&mut self, replicas: &[Replica], rounds: usize) -> bool {
        for link in &mut self.links {
            link.up = true;
            link.reset();
        }
        for _round in 0..rounds {
            let docs = all_docs(replicas);
            let mut busy = false;
            for link in self.links.iter_mut().filter(|link| !link.refused) {
                // A shard deferred on this link whose predecessor filled
                // through another: made and offered now.
                for which in 0..2 {
                    link.make_deferred(replicas, which);
                }
                for doc in &docs {
                    for which in 0..2 {
                        busy |= link.generate(replicas, which, doc);
                        while link.deliver(replicas, which, doc) {
                            busy = true;
                        }
                    }
                }
            }
            if !busy {
                return true;
            }
        }
        false
    }
}

impl Network {
    /// Keys travel beside the documents, in the sessions that carry them:
    /// over every link, each side asks the other for the keys of the records
    /// it cannot read, of the documents the link carries and both hold.
    pub fn exchange_keys(&self, replicas: &[Replica]) {
        for link in self.links.iter().filter(|link| !link.refused) {
            for (asking, answering) in [(link.ends[0], link.ends[1]), (link.ends[1], link.ends[0])]
            {
                let held = replicas[answering].doc_ids();
                for doc in replicas[asking].doc_ids() {
                    if !link.carries(&doc) || !held.contains(&doc) {
                        continue;
                    }
                    let wanted = replicas[asking].wanted_keys(&doc, None).unwrap();
                    let (keys, _) = replicas[answering].answer_keys(&doc, &wanted).unwrap();
                    replicas[asking].accept_keys(&doc, &keys).unwrap();
                }
            }
        }
    }
}

/// What the devices wrote and forgot, from which what must be alive in
/// the end follows.
#[derive(Debug, Default)]
pub struct Ledger {
    written: Vec<String>,
    forgotten: BTreeSet<String>,
}

impl Ledger {
    /// Writes `memory` on `replica`, in `namespace`, at `now`.
    pub fn write(
        &mut self,
        replica: &Replica,
        namespace: &Namespace,
        memory: NewMemory,
        now: Timestamp,
    ) {
        let id = memory.id.clone();
        let records = NewRecords { memories: vec![memory], ..NewRecords::default() };
        replica.write_new(namespace, now, &records).unwrap();
        self.written.push(id);
    }

    /// Whether anything was written yet.
    pub fn any_written(&self) -> bool {
        !self.written.is_empty()
    }

    /// Forgets on `replica` a memory any device wrote, chosen by `rng`.
    pub fn forget_one(&mut self, replica: &Replica, rng: &mut Rng, now: Timestamp) {
        let id = self.written[rng.below(self.written.len())].clone();
        let outcome = replica.forget(std::slice::from_ref(&id), now).unwrap();
        self.forgotten.extend(outcome.forgotten);
    }

    /// Adds evidence on `replica` to a memory any device wrote, chosen by
    /// `rng`.
    pub fn add_evidence_to_one(&self, replica: &Replica, rng: &mut Rng, now: Timestamp) {
        let id = &self.written[rng.below(self.written.len())];
        replica.add_evidence(id, 1, now).unwrap();
    }

    /// What must be alive: written and not forgotten.
    pub fn expected(&self) -> BTreeSet<String> {
        self.written.iter().filter(|id| !self.forgotten.contains(*id)).cloned().collect()
    }
}

/// Heals the network and checks that `replicas` converged: quiet within
/// 200 rounds, equal heads, and, once keys are exchanged, exactly the
/// memories of `expected` alive on each, every one of them readable and
/// read alike field by field. `Err` says what differs.
pub fn converge(
    network: &mut Network,
    replicas: &[Replica],
    expected: &BTreeSet<String>,
) -> Result<(), String> {
    if !network.heal(replicas, 200) {
        return Err("the replicas never went quiet".into());
    }
    for doc in &all_docs(replicas) {
        let heads: Vec<_> = replicas.iter().map(|replica| replica.heads(doc).unwrap()).collect();
        if heads.iter().any(|h| *h != heads[0]) {
            return Err(format!("{doc} differs: {heads:?}"));
        }
    }
    exchange_keys(replicas);
    for (number, replica) in replicas.iter().enumerate() {
        let live = live_memories(replica);
        if live != *expected {
            let lost: Vec<_> = expected.difference(&live).collect();
            let invented: Vec<_> = live.difference(expected).collect();
            return Err(format!(
                "replica {number} lost {lost:?} and holds {invented:?} unexpectedly"
            ));
        }
    }
    for id in expected {
        let read: Vec<String> = replicas.iter().map(|replica| read_memory(replica, id)).collect();
        if read.iter().any(|r| *r != read[0]) || !read[0].starts_with("Some") {
            return Err(format!("{id} reads differently or not at all: {read:?}"));
        }
    }
    Ok(())
}

/// Every document any of `replicas` holds.
fn all_docs(replicas: &[Replica]) -> BTreeSet<DocId> {
    replicas.iter().flat_map(Replica::doc_ids).collect()
}

/// Keys travel beside the documents: each replica asks every other for the
/// keys of the records it cannot read.
fn exchange_keys(replicas: &[Replica]) {
    for doc in &all_docs(replicas) {
        for asking in 0..replicas.len() {
            let wanted = replicas[asking].wanted_keys(doc, None).unwrap();
            for answering in (0..replicas.len()).filter(|other| *other != asking) {
                let (keys, _) = replicas[answering].answer_keys(doc, &wanted).unwrap();
                replicas[asking].accept_keys(doc, &keys).unwrap();
            }
        }
    }
}

/// The ids of the memories `replica` holds alive in `namespace`.
pub fn live_in(replica: &Replica, namespace: &Namespace) -> BTreeSet<String> {
    replica
        .shards(namespace)
        .iter()
        .flat_map(|doc| replica.read(doc, |reader| reader.keys("memories")).unwrap())
        .collect()
}

/// The ids of the memories `replica` holds alive, in every namespace.
pub fn live_memories(replica: &Replica) -> BTreeSet<String> {
    replica
        .doc_ids()
        .iter()
        .filter(|doc| doc.namespace().is_some())
        .flat_map(|doc| replica.read(doc, |reader| reader.keys("memories")).unwrap())
        .collect()
}

/// Memory `id` as `replica` reads it, every field.
fn read_memory(replica: &Replica, id: &str) -> String {
    let doc = replica.locate(id).unwrap();
    format!("{:?}", replica.read(&doc, |reader| reader.memory(id)).unwrap())
}

/// A number from environment variable `name`, if set.
fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{name}={value:?} is not a number")))
}

/// The seeds a simulation runs: `{prefix}_SEED=S` replays one seed;
/// otherwise `{prefix}_SEEDS` (default `default_count`) from seed number
/// `{prefix}_FIRST` (default 1).
pub fn seeds(prefix: &str, default_count: u64) -> Vec<u64> {
    match env_number(&format!("{prefix}_SEED")) {
        Some(seed) => vec![seed],
        None => {
            let first = env_number(&format!("{prefix}_FIRST")).unwrap_or(1);
            let count = env_number(&format!("{prefix}_SEEDS")).unwrap_or(default_count);
            (first..first + count).map(seed).collect()
        }
    }
}

/// Runs `run` for every seed of `seeds`; a failure prints the command
/// that replays it (`replay`, with `{seed}` replaced) and fails.
pub fn run_seeds(seeds: &[u64], replay: &str, run: impl Fn(u64) + std::panic::RefUnwindSafe) {
    for &seed in seeds {
        if let Err(panic) = std::panic::catch_unwind(|| run(seed)) {
            #[allow(clippy::print_stderr, reason = "how to replay the failing seed")]
            {
                eprintln!(
                    "seed {seed} failed; replay it with: {}",
                    replay.replace("{seed}", &seed.to_string())
                );
            }
            std::panic::resume_unwind(panic);
        }
    }
    #[allow(clippy::print_stderr, reason = "the figure of record, shown with --nocapture")]
    {
        eprintln!("{} seeds passed", seeds.len());
    }
}
