//! Deterministic simulation of a shared project with a hostile member and a
//! stolen admin (without a network). Each device holds the share's
//! statements in its own log, and what a link between two devices carries
//! is what each end's access policy decides from the statements it holds
//! (`ferrex_sync::policy`): links are not given scopes by hand, and
//! membership changes during the run.
//!
//! - Ann's laptop created the share; her server takes part without a grant
//!   and writes into it as the laptop (its stand-in).
//! - Bob's laptop, an admin, writes; it grants his desktop partway through.
//! - Carol reads, and writes into her own copy anyway.
//! - Mallory writes, then turns hostile: she grants read to fresh keys by the
//!   dozen, floods statements from throwaway keys and junk, offers shard
//!   after shard far ahead, and, removed by Ann's laptop, keeps signing
//!   through her revoked grant and keeps writing.
//! - Dave, an admin as senior as Bob's laptop, is stolen: Bob's laptop
//!   removes him, and he then removes Carol.
//!
//! Messages are reordered, duplicated and dropped, links drop; then
//! everything heals and:
//!
//! - every honest device (Ann's two, Bob's two, Carol) holds the same
//!   members: Ann's laptop, Bob's two devices and Carol, so a device removed
//!   removed no one, and none of Mallory's keys got in (at any time, her
//!   line counted at most `MAX_LINE_DEVICES`, and no log held more than a
//!   bounded number of statements);
//! - the writers hold the share alike, with exactly what the honest devices
//!   left alive, plus what Mallory and Dave wrote before their removal and
//!   none of Carol's;
//! - nothing an honest device wrote after a removal reached the removed
//!   device;
//! - no honest device holds a shard beyond what the memories written fill,
//!   and Mallory's far shards were refused;
//! - Ann's server is named in none of the share's memories and never faced a
//!   teammate.
//!
//! `cargo test -p ferrex-sync --test hostile_simulation` runs 100 seeds;
//! `FERREX_HOSTILE_SIM_SEEDS=10000` (with `--release`),
//! `FERREX_HOSTILE_SIM_FIRST=K` and `FERREX_HOSTILE_SIM_SEED=S` work as for
//! the other simulations.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::collections::{BTreeMap, BTreeSet};

use ferrex_core::{Namespace, Timestamp};
use ferrex_sync::{
    DocId, NewMemory, NewRecords, Replica, ReplicaOptions, Scope, SecretKey,
    membership::{Action, MAX_LINE_DEVICES, Role, Statement},
    policy::{self, ShareFacts},
    sim::{self, Network, Rng},
    statement_log::StatementLog,
};

const DEVICES: [&str; 7] =
    ["ann-laptop", "ann-server", "bob-laptop", "bob-desktop", "carol", "mallory", "dave"];
/// Whose device each is.
const PERSON: [usize; 7] = [0, 0, 1, 1, 2, 3, 4];
const ANN: usize = 0;
const SERVER: usize = 1;
const BOB: usize = 2;
const DESKTOP: usize = 3;
const CAROL: usize = 4;
const MALLORY: usize = 5;
const DAVE: usize = 6;
const HONEST: [usize; 5] = [ANN, SERVER, BOB, DESKTOP, CAROL];
const WRITERS: [usize; 4] = [ANN, SERVER, BOB, DESKTOP];
const CAPACITY: usize = 15;
/// Statements a hostile device offers at most besides its log.
const MAX_EXTRA: usize = 60;

fn key(device: usize) -> SecretKey {
    SecretKey::from_bytes(&[device as u8 + 1; 32])
}

fn id(device: usize) -> [u8; 32] {
    *key(device).public().as_bytes()
}

fn open(dir: &tempfile::TempDir, device: &str) -> Replica {
    let options = ReplicaOptions { shard_capacity: CAPACITY, ..ReplicaOptions::default() };
    Replica::open(&dir.path().join("docs"), device, options).unwrap()
}

struct World {
    replicas: Vec<Replica>,
    logs: Vec<StatementLog>,
    /// What a hostile device offers besides its log (statements its own
    /// log would refuse, junk).
    extra: Vec<Vec<Vec<u8>>>,
    network: Network,
    share: Namespace,
    create: Statement,
}

impl World {
    /// What device `me` decides link `(me, peer)` carries, by the
    /// statements it holds.
    fn scope(&self, me: usize, peer: usize) -> Option<Scope> {
        let membership = self.logs[me].membership();
        let facts = [ShareFacts { namespace: self.share.clone(), membership: &membership }];
        if PERSON[me] == PERSON[peer] {
            let own =
                |device: &[u8; 32]| (0..7).any(|d| PERSON[d] == PERSON[me] && id(d) == *device);
            let held = self.replicas[me].namespaces();
            Some(policy::scope_for_paired(&facts, &held, &id(peer), own))
        } else {
            policy::scope_for_member(&facts[0], &id(me), &id(peer))
        }
    }

    /// The statements `from` offers `to`: what `to` lacks of its log, and
    /// whatever else it is up to.
    fn offered(&self, from: usize, to: usize) -> Vec<Vec<u8>> {
        let mut offered: Vec<Vec<u8>> = self.logs[from]
            .lacking_from(&self.logs[to].ids())
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect();
        offered.extend(self.extra[from].iter().cloned());
        offered
    }

    /// The exchange that opens a connection from `a` to `b`, as the share
    /// protocol runs it: between a person's own devices, each takes the
    /// other's; otherwise `b` takes `a`'s only if they make `a` a member,
    /// and answers (with its own) only if both are members then. Returns
    /// whether either took anything.
    fn exchange(&mut self, a: usize, b: usize) -> bool {
        let to_b = self.offered(a, b);
        if PERSON[a] == PERSON[b] {
            let to_a = self.offered(b, a);
            let taken = self.logs[b].take(to_b.iter().map(Vec::as_slice)).unwrap();
            return taken + self.logs[a].take(to_a.iter().map(Vec::as_slice)).unwrap() > 0;
        }
        let (me, peer) = (id(b), id(a));
        let taken = self.logs[b]
            .take_if(to_b.iter().map(Vec::as_slice), |trial| {
                trial.role_of(&me).is_some() && trial.role_of(&peer).is_some()
            })
            .unwrap();
        let membership = self.logs[b].membership();
        if membership.role_of(&me).is_none() || membership.role_of(&peer).is_none() {
            return taken > 0;
        }
        let to_a = self.offered(b, a);
        taken + self.logs[a].take(to_a.iter().map(Vec::as_slice)).unwrap() > 0
    }

    /// Every link exchanges statements until none is taken (bounded), then
    /// carries what both ends' policies decide.
    fn settle(&mut self) {
        let ends = self.network.ends();
        for _ in 0..10 {
            let mut taken = false;
            for [a, b] in &ends {
                taken |= self.exchange(*a, *b);
            }
            if !taken {
                break;
            }
        }
        for (at, [a, b]) in ends.iter().enumerate() {
            let scopes =
                self.scope(*a, *b).zip(self.scope(*b, *a)).map(|(of_b, of_a)| [of_b, of_a]);
            self.network.set_scopes(at, scopes);
        }
        // The server writes as the share's creator while it holds no grant.
        let membership = self.logs[SERVER].membership();
        let stand_ins = match policy::stand_in(&membership, &id(SERVER)) {
            Some(_) => BTreeMap::from([(self.share.clone(), DEVICES[ANN].to_owned())]),
            None => BTreeMap::new(),
        };
        self.replicas[SERVER].set_stand_ins(stand_ins);
    }

    /// Signs `action` as `device` with `proof`, into its own log.
    fn sign(
        &mut self,
        device: usize,
        proof: &Statement,
        action: Action,
        now: Timestamp,
    ) -> Statement {
        let statement =
            Statement::sign(&key(device), self.create.body.share, Some(proof.id), action, now);
        self.logs[device].take([statement.bytes.as_slice()]).unwrap();
        statement
    }

    /// Checks the bounds every honest log keeps at all times.
    fn check_bounds(&self, seed: u64) {
        for node in HONEST {
            let membership = self.logs[node].membership();
            let mallorys_line = membership
                .members()
                .iter()
                .filter(|member| member.granted_by == id(MALLORY) || member.device == id(MALLORY))
                .count();
            assert!(
                mallorys_line <= MAX_LINE_DEVICES,
                "seed {seed}: Mallory's line holds {mallorys_line}"
            );
            assert!(
                self.logs[node].len() <= 64,
                "seed {seed}: {} holds {} statements",
                DEVICES[node],
                self.logs[node].len()
            );
        }
    }
}

fn memory(id: &str, device: &str, at: i64) -> NewMemory {
    NewMemory::episode(id, format!("memory {id}"), device, Timestamp(at))
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let dirs: Vec<tempfile::TempDir> = (0..7).map(|_| tempfile::tempdir().unwrap()).collect();
    let now = |step: i64| Timestamp(1_700_000_000_000 + step * 1_000);
    let create = Statement::create(&key(ANN), [9; 16], now(0));
    let share_id = create.body.share;
    let share = Namespace::parse(&format!("share.{}", &share_id.to_hex()[..32])).unwrap();
    let logs: Vec<StatementLog> = dirs
        .iter()
        .map(|dir| StatementLog::open(&dir.path().join("statements"), share_id).unwrap())
        .collect();
    let replicas: Vec<Replica> =
        dirs.iter().zip(DEVICES).map(|(dir, device)| open(dir, device)).collect();
    let links: Vec<(usize, usize, Scope, Scope)> =
        (0..7).flat_map(|a| (a + 1..7).map(move |b| (a, b, Scope::own(), Scope::own()))).collect();
    let mut world = World {
        replicas,
        logs,
        extra: vec![Vec::new(); 7],
        network: Network::scoped(links),
        share: share.clone(),
        create: create.clone(),
    };
    world.logs[ANN].take([create.bytes.as_slice()]).unwrap();
    let grant = |role| move |device| Action::Grant { device: id(device), role };
    let bob_grant = world.sign(ANN, &create, grant(Role::Admin)(BOB), now(0));
    world.sign(ANN, &create, grant(Role::Read)(CAROL), now(0));
    let mallory_grant = world.sign(ANN, &create, grant(Role::Write)(MALLORY), now(0));
    let dave_grant = world.sign(ANN, &create, grant(Role::Admin)(DAVE), now(0));
    world.settle();

    let desktop_at = 20 + rng.below(100) as i64;
    let mallory_out_at = 80 + rng.below(120) as i64;
    let dave_out_at = 80 + rng.below(120) as i64;
    let mut removed_at: BTreeMap<usize, i64> = BTreeMap::new();
    let mut honest = sim::Ledger::default();
    // What Mallory and Dave wrote, with when; what the honest devices wrote
    // when.
    let mut hostile_written: BTreeMap<String, (usize, i64)> = BTreeMap::new();
    let mut honest_at: BTreeMap<String, i64> = BTreeMap::new();
    let mut carol_wrote = BTreeSet::new();
    let mut minted = 0u32;
    let mut share_writes = 0usize;

    for step in 1..240i64 {
        let at = now(step);
        if step == desktop_at {
            world.sign(BOB, &bob_grant, grant(Role::Write)(DESKTOP), at);
            world.settle();
        }
        if step == mallory_out_at {
            for again in world.logs[ANN].membership().revoked_through(&[mallory_grant.id]) {
                world.sign(ANN, &create, Action::Revoke { grant: again }, at);
            }
            world.sign(ANN, &create, Action::Revoke { grant: mallory_grant.id }, at);
            removed_at.insert(MALLORY, step);
            world.settle();
        }
        if step == dave_out_at {
            // Bob's laptop, an admin as senior as Dave, removes him.
            world.sign(BOB, &bob_grant, Action::Revoke { grant: dave_grant.id }, at);
            removed_at.insert(DAVE, step);
            // Stolen, he removes Carol, after his own removal (and before
            // every device heard of it: some take his revocation).
            let carol_grant =
                world.logs[ANN].membership().grants_to(&id(CAROL)).first().copied().unwrap();
            let revocation = Statement::sign(
                &key(DAVE),
                share_id,
                Some(dave_grant.id),
                Action::Revoke { grant: carol_grant },
                at,
            );
            world.extra[DAVE].push(revocation.bytes);
            world.settle();
        }
        let node = rng.below(7);
        let name = format!("m{step}-n{node}");
        match rng.below(12) {
            0..=3 if WRITERS.contains(&node) || node == MALLORY || node == DAVE => {
                // A hostile device writes whatever its role; an honest one
                // only while it may.
                let held = world.logs[node].membership();
                let may = node == SERVER
                    || node == MALLORY
                    || node == DAVE
                    || held.role_of(&id(node)).is_some_and(|r| r >= Role::Write);
                if may {
                    let records = NewRecords {
                        memories: vec![memory(&name, DEVICES[node], at.0)],
                        ..NewRecords::default()
                    };
                    if WRITERS.contains(&node) {
                        honest.write(
                            &world.replicas[node],
                            &share,
                            memory(&name, DEVICES[node], at.0),
                            at,
                        );
                        honest_at.insert(name, step);
                    } else {
                        world.replicas[node].write_new(&share, at, &records).unwrap();
                        hostile_written.insert(name, (node, step));
                    }
                    share_writes += 1;
                }
            }
            4 if WRITERS.contains(&node) && honest.any_written() => {
                honest.forget_one(&world.replicas[node], &mut rng, at);
            }
            5 if node == CAROL => {
                let records = NewRecords {
                    memories: vec![memory(&name, DEVICES[node], at.0)],
                    ..NewRecords::default()
                };
                world.replicas[CAROL].write_new(&share, at, &records).unwrap();
                carol_wrote.insert(name);
            }
            6 if node == MALLORY => {
                // Mints keys: grants of `read` through her grant, revoked
                // or not, a dozen at a time.
                for _ in 0..6 {
                    minted += 1;
                    let mut seed_bytes = [0u8; 32];
                    seed_bytes[..4].copy_from_slice(&minted.to_le_bytes());
                    seed_bytes[31] = 0xee;
                    let fresh = SecretKey::from_bytes(&seed_bytes);
                    let statement = Statement::sign(
                        &key(MALLORY),
                        share_id,
                        Some(mallory_grant.id),
                        Action::Grant { device: *fresh.public().as_bytes(), role: Role::Read },
                        at,
                    );
                    if world.extra[MALLORY].len() < MAX_EXTRA {
                        world.extra[MALLORY].push(statement.bytes);
                    }
                }
                world.settle();
            }
            7 if node == MALLORY => {
                // Floods: statements from throwaway keys naming proofs
                // that do not exist, and junk.
                for n in 0..10u32 {
                    let throwaway = SecretKey::from_bytes(&[(n % 200) as u8 + 30; 32]);
                    let mut proof = [0u8; 32];
                    proof[..4].copy_from_slice(&(step as u32 * 100 + n).to_le_bytes());
                    let statement = Statement::sign(
                        &throwaway,
                        share_id,
                        Some(ferrex_sync::membership::StatementId(proof)),
                        Action::Grant { device: [n as u8; 32], role: Role::Admin },
                        at,
                    );
                    if world.extra[MALLORY].len() < MAX_EXTRA {
                        world.extra[MALLORY].push(statement.bytes);
                        world.extra[MALLORY].push(vec![n as u8; 90]);
                    }
                }
                world.settle();
            }
            8 if node == MALLORY => {
                // Steps shards far ahead, offered on every link she has.
                for index in 40..44 {
                    let doc = DocId::shard(&share, index);
                    world.replicas[MALLORY].ensure_document(&doc).unwrap();
                    for (at_link, [a, b]) in world.network.ends().into_iter().enumerate() {
                        if a == MALLORY || b == MALLORY {
                            let which = usize::from(b == MALLORY);
                            world.network.offer(&world.replicas, at_link, which, &doc);
                        }
                    }
                }
            }
            9 => world.network.disturb(&mut rng),
            10 if rng.chance(20) => {
                world.replicas[node] = open(&dirs[node], DEVICES[node]);
                world.network.restarted(node);
                world.settle();
            }
            _ => {}
        }
        world.network.traffic(&world.replicas, &mut rng);
        world.check_bounds(seed);
    }

    world.settle();
    assert!(world.network.heal(&world.replicas, 300), "seed {seed}: the replicas never went quiet");
    world.network.exchange_keys(&world.replicas);

    // Members: alike on every honest device; the removed removed no one.
    let expected_members = BTreeSet::from([id(ANN), id(BOB), id(DESKTOP), id(CAROL)]);
    for node in HONEST {
        let members: BTreeSet<[u8; 32]> =
            world.logs[node].membership().members().iter().map(|member| member.device).collect();
        assert_eq!(members, expected_members, "seed {seed}: {} holds other members", DEVICES[node]);
    }

    // The writers hold the share alike.
    let heads_of = |replica: &Replica, doc: &DocId| {
        replica.heads(doc).unwrap_or_else(|_| ferrex_sync::schema::genesis(doc).get_heads())
    };
    let shards: BTreeSet<DocId> =
        WRITERS.iter().flat_map(|node| world.replicas[*node].shards(&share)).collect();
    for doc in &shards {
        let heads = heads_of(&world.replicas[ANN], doc);
        for node in WRITERS {
            assert_eq!(
                heads_of(&world.replicas[node], doc),
                heads,
                "seed {seed}: {doc} differs on {}",
                DEVICES[node]
            );
        }
    }
    let expected = honest.expected();
    for node in WRITERS {
        let live = sim::live_in(&world.replicas[node], &share);
        for id in &expected {
            assert!(live.contains(id), "seed {seed}: {} lacks {id}", DEVICES[node]);
        }
        for id in live.difference(&expected) {
            // Forgotten by an honest device, or a hostile device's, written
            // before its removal.
            let Some((writer, step)) = hostile_written.get(id) else {
                panic!("seed {seed}: {} holds {id}, which no one should", DEVICES[node]);
            };
            assert!(
                removed_at.get(writer).is_none_or(|out| step < out),
                "seed {seed}: {id}, written by {} after its removal, was taken",
                DEVICES[*writer]
            );
        }
        assert!(live.is_disjoint(&carol_wrote), "seed {seed}: a reader's write was taken");
    }
    // Nothing an honest device wrote after a removal reached the removed.
    for (removed, out) in &removed_at {
        let live = sim::live_in(&world.replicas[*removed], &share);
        for (id, step) in &honest_at {
            assert!(
                step <= out || !live.contains(id),
                "seed {seed}: {} got {id}, written after its removal",
                DEVICES[*removed]
            );
        }
    }
    // Shards: none beyond what the memories written fill, on any honest
    // device; Mallory's far ones refused.
    let most = share_writes / CAPACITY + 1;
    for node in HONEST {
        for doc in world.replicas[node].shards(&share) {
            let DocId::Shard { index, .. } = doc else { continue };
            assert!(
                index as usize <= most,
                "seed {seed}: {} holds {doc} (at most .{most})",
                DEVICES[node]
            );
        }
    }
    // The server is named in none of the share's memories and never faced
    // a teammate.
    for id in &expected {
        let doc = world.replicas[ANN].locate(id).unwrap();
        let read =
            format!("{:?}", world.replicas[ANN].read(&doc, |reader| reader.memory(id)).unwrap());
        assert!(
            !read.contains(DEVICES[SERVER]),
            "seed {seed}: the server is named in {id}: {read}"
        );
    }
    for (at, [a, b]) in world.network.ends().into_iter().enumerate() {
        if (a == SERVER || b == SERVER) && PERSON[a] != PERSON[b] {
            assert!(
                world.scope(a, b).is_none() || world.scope(b, a).is_none(),
                "seed {seed}: link {at}"
            );
        }
    }
}

#[test]
fn a_share_holds_against_a_hostile_member_and_a_stolen_admin() {
    sim::run_seeds(
        &sim::seeds("FERREX_HOSTILE_SIM", 100),
        "FERREX_HOSTILE_SIM_SEED={seed} cargo test --release -p ferrex-sync --test hostile_simulation",
        run,
    );
}
