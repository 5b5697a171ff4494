//! Who belongs to a share, and with what role: signed statements, each
//! checked on its own, resolved the same way on every device.
//!
//! A share (a project shared with a teammate's devices) is created by one
//! device, which signs a `Create` statement; the share's id is a hash of
//! that device's key and a random nonce, so no other key can create it
//! again. Every later statement is a `Grant` of a role (`read`, `write`,
//! `admin`) to a device or a `Revoke` of a grant, signed by the device that
//! makes it and naming, as its `proof`, the grant (or the `Create`) that
//! entitles it. Statements are opaque bytes to whoever relays them: a device
//! takes a statement into account only if its signature, its share and its
//! proof hold up, so anyone may carry them and only valid signatures count.
//!
//! The rules (after Keyhive's delegations, inkandswitch/keyhive, and
//! p2panda-auth's strong removal; docs/research in the closing notes):
//! - A grant gives at most the role of the grant that is its proof: a
//!   member adds devices up to their own role, never above it.
//! - An admin may revoke any grant but the `Create`; any member may revoke
//!   the grants made through their own grant (what they granted, directly
//!   or through the devices they added).
//! - A grant is live while its whole chain of proofs back to the `Create`
//!   is unrevoked: revoking a grant revokes what it granted, made before or
//!   after the revocation.
//! - Revocations apply in order of their issuer's seniority (the length of
//!   the issuer's chain to the `Create`): one whose issuer was revoked by a
//!   strictly more senior one is void. Among equally senior ones, one whose
//!   issuer another counting revocation removed is void too, made before or
//!   after that removal (no statement proves when it was made), so a device
//!   removed cannot remove anyone; revocations that remove each other's
//!   issuers all count (both go), and none wins by its id. A grant made by
//!   an admin concurrently with that admin's revocation is void with it.
//!   What a remover wants kept of the removed device's revocations, it signs
//!   again in its own name (`ferrex share remove` does).
//! - A chain of proofs is at most [`MAX_CHAIN`] long.
//!
//! [`Membership::resolve`] is a function of the set of statements only, not
//! of the order they arrived in: every device that holds the same
//! statements computes the same members.

use std::collections::{BTreeMap, BTreeSet};

use ferrex_core::Timestamp;
use iroh::{PublicKey, SecretKey, Signature};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What a statement's signature covers, before its body: no signature made
/// for anything else can pass for a statement.
const SIGNED_DOMAIN: &[u8] = b"ferrex/membership/1\0";
/// What a share's id is hashed from, before the creator's key and nonce.
const SHARE_DOMAIN: &[u8] = b"ferrex/share/1\0";
/// The version of a statement's body.
const VERSION: u8 = 1;
/// A signature's length in bytes; a statement is its signature, then its body.
const SIGNATURE_LENGTH: usize = Signature::LENGTH;
/// The most bytes a statement may have (one is about 200).
const MAX_STATEMENT_BYTES: usize = 1024;

/// What a member may do in a share. Ordered: each role can do what the
/// ones before it can.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Receives the share's documents; its changes are refused.
    Read,
    /// Also writes memories into the share.
    Write,
    /// Also grants and revokes any member's roles.
    Admin,
}

impl Role {
    /// The role's name as the terminal and MCP write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Write => "write",
            Role::Admin => "admin",
        }
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(text: &str) -> Result<Role, String> {
        match text {
            "read" => Ok(Role::Read),
            "write" => Ok(Role::Write),
            "admin" => Ok(Role::Admin),
            other => Err(format!("a role is read, write or admin, not {other:?}")),
        }
    }
}

/// A share's id: the hash of its creator's key and a nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShareId(pub [u8; 32]);

impl ShareId {
    /// The id of the share `creator` creates with `nonce`.
    pub fn of(creator: &PublicKey, nonce: &[u8; 16]) -> ShareId {
        let mut hasher = Sha256::new();
        hasher.update(SHARE_DOMAIN);
        hasher.update(creator.as_bytes());
        hasher.update(nonce);
        ShareId(hasher.finalize().into())
    }

    /// The id in hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

/// A statement's id: the hash of its bytes (signature and body).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct StatementId(pub [u8; 32]);

impl StatementId {
    /// The id in hex, as the membership document keys a statement.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

/// What a statement says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// The share begins, with its creator as its first admin.
    Create {
        /// Makes the share's id (with the creator's key) new.
        nonce: [u8; 16],
    },
    /// `device` gets `role`.
    Grant {
        /// The device's public key.
        device: [u8; 32],
        /// What it may do.
        role: Role,
    },
    /// A grant (and what was granted through it) ends.
    Revoke {
        /// The grant's statement.
        grant: StatementId,
    },
}

/// The signed part of a statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Body {
    /// The body's version (1).
    pub version: u8,
    /// The share it is about.
    pub share: ShareId,
    /// The device that signed it.
    pub issuer: [u8; 32],
    /// When it was made (for people reading it; the rules do not use it).
    pub issued_at: i64,
    /// The `Create` or grant that entitles the issuer; none for a `Create`.
    pub proof: Option<StatementId>,
    /// What it says.
    pub action: Action,
}

/// A statement checked on its own: its signature is the issuer's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// Its id.
    pub id: StatementId,
    /// What it says.
    pub body: Body,
    /// Its bytes, as relayed and stored.
    pub bytes: Vec<u8>,
}

/// Why a statement was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Its bytes are not a statement.
    #[error("not a membership statement: {0}")]
    Malformed(String),
    /// Its signature is not its issuer's.
    #[error("its signature is not its issuer's")]
    BadSignature,
    /// It is about another share.
    #[error("it is about another share")]
    OtherShare,
}

impl Statement {
    /// Signs `action` for `share` as `issuer`, entitled by `proof`.
    pub fn sign(
        issuer: &SecretKey,
        share: ShareId,
        proof: Option<StatementId>,
        action: Action,
        now: Timestamp,
    ) -> Statement {
        let body = Body {
            version: VERSION,
            share,
            issuer: *issuer.public().as_bytes(),
            issued_at: now.0,
            proof,
            action,
        };
        let encoded = postcard::to_stdvec(&body).expect("a statement's body always encodes");
        let signature = issuer.sign(&signed_message(&encoded));
        let mut bytes = signature.to_bytes().to_vec();
        bytes.extend_from_slice(&encoded);
        Statement { id: id_of(&bytes), body, bytes }
    }

    /// Creates a share: its `Create` statement, whose share is the new
    /// share's id.
    pub fn create(creator: &SecretKey, nonce: [u8; 16], now: Timestamp) -> Statement {
        let share = ShareId::of(&creator.public(), &nonce);
        Statement::sign(creator, share, None, Action::Create { nonce }, now)
    }

    /// Reads and checks `bytes` as a statement of `share`.
    pub fn verify(bytes: &[u8], share: ShareId) -> Result<Statement, Refused> {
        if bytes.len() <= SIGNATURE_LENGTH || bytes.len() > MAX_STATEMENT_BYTES {
            return Err(Refused::Malformed(format!(
                "{} bytes is no statement's size",
                bytes.len()
            )));
        }
        let (signature, encoded) = bytes.split_at(SIGNATURE_LENGTH);
        let (body, rest): (Body, &[u8]) = postcard::take_from_bytes(encoded)
            .map_err(|error| Refused::Malformed(error.to_string()))?;
        if !rest.is_empty() {
            return Err(Refused::Malformed(format!("{} bytes after the body", rest.len())));
        }
        if body.version != VERSION {
            return Err(Refused::Malformed(format!("version {} is not known", body.version)));
        }
        if body.share != share {
            return Err(Refused::OtherShare);
        }
        let issuer = PublicKey::from_bytes(&body.issuer)
            .map_err(|error| Refused::Malformed(format!("issuer: {error}")))?;
        let signature = Signature::from_bytes(
            signature.try_into().map_err(|_| Refused::Malformed("signature".into()))?,
        );
        issuer.verify(&signed_message(encoded), &signature).map_err(|_| Refused::BadSignature)?;
        Ok(Statement { id: id_of(bytes), body, bytes: bytes.to_vec() })
    }

    /// The device and role this statement gives, if it is a `Create` or a
    /// grant.
    pub fn grants(&self) -> Option<([u8; 32], Role)> {
        match &self.body.action {
            Action::Create { .. } => Some((self.body.issuer, Role::Admin)),
            Action::Grant { device, role } => Some((*device, *role)),
            Action::Revoke { .. } => None,
        }
    }
}

fn signed_message(encoded: &[u8]) -> Vec<u8> {
    let mut message = SIGNED_DOMAIN.to_vec();
    message.extend_from_slice(encoded);
    message
}

/// The id of the statement `bytes` would be, without checking it: a hash,
/// so what is held already costs no signature check.
pub fn id_of(bytes: &[u8]) -> StatementId {
    StatementId(Sha256::digest(bytes).into())
}

/// A member: a device with a live grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The device's public key.
    pub device: [u8; 32],
    /// Its highest role over its live grants.
    pub role: Role,
    /// Who granted it that role (its own key for the creator).
    pub granted_by: [u8; 32],
    /// Its live grants (the `Create` for the creator).
    pub grants: Vec<StatementId>,
}

/// A share's members, resolved from its statements.
#[derive(Debug, Clone, Default)]
pub struct Membership {
    statements: BTreeMap<StatementId, Statement>,
    /// The live grants (the `Create` among them), each with its seniority:
    /// the length of its chain to the `Create`.
    live: BTreeMap<StatementId, usize>,
    revoked: BTreeSet<StatementId>,
    /// The revocations that count.
    counting: BTreeSet<StatementId>,
    /// Statements refused: bytes that do not verify, and statements whose
    /// proof does not entitle them.
    refused: usize,
    /// Statements whose proof has not arrived yet.
    waiting: usize,
    /// Statements whose every link to the `Create` entitles the next
    /// (revoked since or not), and those whose proof has not arrived.
    entitled: BTreeSet<StatementId>,
    waiting_for_proof: BTreeSet<StatementId>,
}

impl Membership {
    /// Resolves the members of `share` from `statements` (each as relayed:
    /// unchecked bytes, in any order, repeats allowed).
    pub fn resolve<'a>(share: ShareId, statements: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let mut checked = Vec::new();
        let mut refused = BTreeSet::new();
        for bytes in statements {
            match Statement::verify(bytes, share) {
                Ok(statement) => checked.push(statement),
                Err(_) => {
                    refused.insert(id_of(bytes));
                }
            }
        }
        let mut membership = Membership::of_checked(share, checked);
        membership.refused += refused.len();
        membership
    }

    /// [`Membership::resolve`] for statements already checked for `share`
    /// (each [`Statement::verify`]'d against it): their signatures are not
    /// checked again.
    pub(crate) fn of_checked(
        share: ShareId,
        statements: impl IntoIterator<Item = Statement>,
    ) -> Self {
        let mut membership = Membership {
            statements: statements.into_iter().map(|statement| (statement.id, statement)).collect(),
            ..Membership::default()
        };
        membership.settle(share);
        membership
    }

    /// Works out which grants are live.
    fn settle(&mut self, share: ShareId) {
        let statements = &self.statements;
        // A statement's standing: its chain of proofs back to the
        // `Create`, if it has one whose every link holds; otherwise whether
        // a proof is missing (waiting) or does not entitle it (refused).
        let mut chains: BTreeMap<StatementId, Result<Vec<StatementId>, Standing>> = BTreeMap::new();
        for id in statements.keys() {
            let _ = chain(*id, statements, share, &mut chains);
        }
        // Grants past their line's quota count for nothing, and neither
        // does what was signed through them.
        let over = over_quota(statements, &chains);
        for standing in chains.values_mut() {
            if standing.as_ref().is_ok_and(|chain| chain.iter().any(|link| over.contains(link))) {
                *standing = Err(Standing::OverQuota);
            }
        }
        let (mut waiting, mut refused) = (0, 0);
        // (`chains` also holds the proofs that have not arrived.)
        for (id, standing) in statements.keys().filter_map(|id| Some((id, chains.get(id)?))) {
            match standing {
                Err(Standing::Waiting) => {
                    waiting += 1;
                    self.waiting_for_proof.insert(*id);
                }
                Err(Standing::Refused | Standing::OverQuota) => refused += 1,
                Ok(_) => {
                    self.entitled.insert(*id);
                }
            }
        }
        // Revocations, the most senior issuer first.
        let mut revocations: Vec<(usize, StatementId, StatementId)> = statements
            .values()
            .filter_map(|statement| {
                let Action::Revoke { grant } = statement.body.action else { return None };
                let chain = chains.get(&statement.id)?.as_ref().ok()?;
                Some((chain.len(), statement.id, grant))
            })
            .collect();
        revocations.sort();
        let mut revoked = BTreeSet::new();
        // A level of seniority at a time, the most senior first: a
        // revocation is void if a more senior one that counts took a link of
        // its issuer's chain; within a level, by `removals_that_count`.
        for level in revocations.chunk_by(|a, b| a.0 == b.0) {
            let standing: Vec<(StatementId, StatementId, &[StatementId])> = level
                .iter()
                .filter_map(|(_, id, grant)| {
                    let Some(Ok(chain)) = chains.get(id) else { return None };
                    let cut = chain.iter().skip(1).any(|link| revoked.contains(link));
                    (!cut).then_some((*id, *grant, &chain[1..]))
                })
                .collect();
            let counting = removals_that_count(&standing);
            revoked.extend(standing.iter().filter(|(id, ..)| counting.contains(id)).map(|r| r.1));
            self.counting.extend(counting);
        }
        self.live = chains
            .iter()
            .filter_map(|(id, standing)| {
                let chain = standing.as_ref().ok()?;
                statements[id].grants()?;
                // The chain starts with the grant itself.
                (!chain.iter().any(|link| revoked.contains(link))).then_some((*id, chain.len()))
            })
            .collect();
        self.revoked = revoked;
        self.refused += refused;
        self.waiting = waiting;
    }

    /// The role of `device`, if it is a member.
    pub fn role_of(&self, device: &[u8; 32]) -> Option<Role> {
        self.members().into_iter().find(|member| &member.device == device).map(|m| m.role)
    }

    /// Every member, by device.
    pub fn members(&self) -> Vec<Member> {
        self.members_among(self.live.keys())
    }

    /// The members that the grants `live` make.
    fn members_among<'a>(&self, live: impl Iterator<Item = &'a StatementId>) -> Vec<Member> {
        let mut members: BTreeMap<[u8; 32], Member> = BTreeMap::new();
        for id in live {
            let statement = &self.statements[id];
            let Some((device, role)) = statement.grants() else { continue };
            let member = members.entry(device).or_insert(Member {
                device,
                role,
                granted_by: statement.body.issuer,
                grants: Vec::new(),
            });
            if role > member.role {
                member.role = role;
                member.granted_by = statement.body.issuer;
            }
            member.grants.push(*id);
        }
        members.into_values().collect()
    }

    /// The live grants to `device`: what `ferrex share remove` revokes.
    pub fn grants_to(&self, device: &[u8; 32]) -> Vec<StatementId> {
        self.members()
            .into_iter()
            .find(|member| &member.device == device)
            .map(|member| member.grants)
            .unwrap_or_default()
    }

    /// The devices that would stop being members if `grants` were revoked
    /// (those devices and whoever holds only grants made through them).
    pub fn falls_with(&self, grants: &[StatementId]) -> Vec<[u8; 32]> {
        let through_none = |id: &&StatementId| {
            let mut link = Some(**id);
            while let Some(current) = link {
                if grants.contains(&current) {
                    return false;
                }
                link = self.statements[&current].body.proof;
            }
            true
        };
        let remaining: BTreeSet<[u8; 32]> = self
            .members_among(self.live.keys().filter(through_none))
            .into_iter()
            .map(|member| member.device)
            .collect();
        self.members()
            .into_iter()
            .map(|member| member.device)
            .filter(|device| !remaining.contains(device))
            .collect()
    }

    /// The live grants to `device`, each with its role and seniority.
    fn live_grants_to<'a>(
        &'a self,
        device: &'a [u8; 32],
    ) -> impl Iterator<Item = (StatementId, Role, usize)> + 'a {
        self.live.iter().filter_map(move |(id, depth)| {
            let (to, role) = self.statements.get(id)?.grants()?;
            (to == *device).then_some((*id, role, *depth))
        })
    }

    /// The proof of a grant `device` signs: its live grant with the
    /// highest role, the most senior of those (the shortest chain to the
    /// `Create`: what a revocation of its issuer must reach).
    pub fn proof_for(&self, device: &[u8; 32]) -> Option<(StatementId, Role)> {
        self.live_grants_to(device)
            .max_by_key(|(id, role, depth)| {
                (*role, std::cmp::Reverse(*depth), std::cmp::Reverse(*id))
            })
            .map(|(id, role, _)| (id, role))
    }

    /// The proof of `device` revoking `grant`: its most senior live admin
    /// grant (revocations apply by their issuer's seniority), else its own
    /// live grant that `grant` was made through, or `grant` itself (giving
    /// it up); `None` if `device` may not revoke it. A non-admin's highest
    /// grant may be another line than the one `grant` came through.
    pub fn proof_for_revoking(
        &self,
        device: &[u8; 32],
        grant: &StatementId,
    ) -> Option<StatementId> {
        let admin = self
            .live_grants_to(device)
            .filter(|(_, role, _)| *role == Role::Admin)
            .min_by_key(|(id, _, depth)| (*depth, *id));
        if let Some((id, _, _)) = admin {
            return Some(id);
        }
        let mut link = Some(*grant);
        for _ in 0..MAX_CHAIN {
            let current = link?;
            let statement = self.statements.get(&current)?;
            if self.live.contains_key(&current)
                && statement.grants().is_some_and(|(to, _)| to == *device)
            {
                return Some(current);
            }
            link = statement.body.proof;
        }
        None
    }

    /// The grants that counting revocations made through `grants` took
    /// (revocations by the devices they granted, or by devices those added),
    /// and that no other counting revocation took: what stops counting when
    /// `grants` are revoked, so what a device removing them signs again in
    /// its own name, for those grants to stay revoked.
    pub fn revoked_through(&self, grants: &[StatementId]) -> Vec<StatementId> {
        let through = |revocation: &Statement| {
            let mut link = revocation.body.proof;
            for _ in 0..MAX_CHAIN {
                let Some(current) = link else { return false };
                if grants.contains(&current) {
                    return true;
                }
                link = self.statements.get(&current).and_then(|statement| statement.body.proof);
            }
            false
        };
        let target = |statement: &Statement| match statement.body.action {
            Action::Revoke { grant } => Some(grant),
            _ => None,
        };
        let (mut lost, mut kept) = (BTreeSet::new(), BTreeSet::new());
        for revocation in self.counting.iter().filter_map(|id| self.statements.get(id)) {
            let Some(grant) = target(revocation) else { continue };
            if through(revocation) {
                lost.insert(grant)
            } else {
                kept.insert(grant)
            };
        }
        lost.into_iter().filter(|grant| !kept.contains(grant) && !grants.contains(grant)).collect()
    }

    /// Whether statement `id` counts: the `Create`, a live grant, or a
    /// revocation that counts. What a device takes of what it is offered:
    /// a grant through a revoked link, a revocation by a removed device, a
    /// grant past its line's quota, none is kept.
    pub fn counts(&self, id: &StatementId) -> bool {
        self.live.contains_key(id) || self.counting.contains(id)
    }

    /// Whether `grant` was revoked (by a revocation that counts).
    pub fn is_revoked(&self, grant: &StatementId) -> bool {
        self.revoked.contains(grant)
    }

    /// Whether statement `id` is entitled by its chain of proofs (whether
    /// or not a revocation took it since): what a device keeps.
    pub fn is_entitled(&self, id: &StatementId) -> bool {
        self.entitled.contains(id)
    }

    /// Whether statement `id` waits for a proof that has not arrived.
    pub fn is_waiting(&self, id: &StatementId) -> bool {
        self.waiting_for_proof.contains(id)
    }

    /// Whether statement `id` is a revocation entitled by an admin's grant.
    pub fn is_admin_revocation(&self, id: &StatementId) -> bool {
        let Some(statement) = self.statements.get(id) else { return false };
        matches!(statement.body.action, Action::Revoke { .. })
            && self.is_entitled(id)
            && statement
                .body
                .proof
                .and_then(|proof| self.statements.get(&proof)?.grants())
                .is_some_and(|(_, role)| role == Role::Admin)
    }

    /// Statements refused: not verifying, or not entitled by their proof.
    pub fn refused(&self) -> usize {
        self.refused
    }

    /// Statements whose proof has not arrived.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    /// The statements taken into account, by id.
    pub fn statements(&self) -> impl Iterator<Item = &Statement> {
        self.statements.values()
    }
}

/// Why a statement has no chain to the `Create`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// A proof has not arrived.
    Waiting,
    /// A proof does not entitle it.
    Refused,
    /// It is, or was signed through, a grant past its line's quota.
    OverQuota,
}

/// Devices in one line at most: a grant signed by an admin starts a line
/// (a teammate's device, say), and the devices that line's members add
/// belong to it. Past this many, a line's grants count for nothing, the
/// first ones kept (the shortest chain, then the smallest id: choosing
/// among the line's own grants, so grinding ids gains a line nothing over
/// anyone else's). Revoked grants count too, so granting and revoking
/// again and again cannot grow what every device holds.
pub const MAX_LINE_DEVICES: usize = 8;

/// Grants one admin grant (or the `Create`) entitles at most, counted as a
/// line's are.
pub const MAX_ADMIN_GRANTS: usize = 256;

/// The grants past their quota (see [`MAX_LINE_DEVICES`] and
/// [`MAX_ADMIN_GRANTS`]), from the chains of the statements that stand.
fn over_quota(
    statements: &BTreeMap<StatementId, Statement>,
    chains: &BTreeMap<StatementId, Result<Vec<StatementId>, Standing>>,
) -> BTreeSet<StatementId> {
    let by_admin = |link: &StatementId| {
        statements
            .get(link)
            .and_then(Statement::grants)
            .is_some_and(|(_, role)| role == Role::Admin)
    };
    // Per line (its first grant) the others, and per admin grant those it
    // signed, each with its depth.
    let mut lines: BTreeMap<StatementId, Vec<(usize, StatementId)>> = BTreeMap::new();
    let mut signed: BTreeMap<StatementId, Vec<(usize, StatementId)>> = BTreeMap::new();
    for (id, standing) in chains {
        let Ok(chain) = standing else { continue };
        if !matches!(statements.get(id).map(|s| &s.body.action), Some(Action::Grant { .. })) {
            continue;
        }
        // The chain runs from the grant up to the `Create`.
        let Some(proof) = chain.get(1) else { continue };
        if by_admin(proof) {
            signed.entry(*proof).or_default().push((chain.len(), *id));
            continue;
        }
        let root = chain.windows(2).find(|pair| by_admin(&pair[1])).map(|pair| pair[0]);
        if let Some(root) = root {
            lines.entry(root).or_default().push((chain.len(), *id));
        }
    }
    let mut over = BTreeSet::new();
    for (mut grants, quota) in lines
        .into_values()
        .map(|grants| (grants, MAX_LINE_DEVICES - 1))
        .chain(signed.into_values().map(|grants| (grants, MAX_ADMIN_GRANTS)))
    {
        grants.sort();
        over.extend(grants.into_iter().skip(quota).map(|(_, id)| id));
    }
    over
}

/// The longest chain of proofs a statement may stand on, itself and the
/// `Create` included: a deeper one is refused, so a member granting its own
/// key again and again cannot make every device walk and keep an endless
/// chain (a person's devices and a teammate's are three or four links).
pub const MAX_CHAIN: usize = 32;

/// The chain of `id`'s proofs, itself first and the `Create` last, if every
/// link entitles the one before it and there are at most [`MAX_CHAIN`];
/// memoised in `chains`. Walks up the proofs in a loop (a chain is as long
/// as whoever wrote it made it), then settles each link on the way down.
/// Which revocations of one level of seniority count, each given as its
/// id, the grant it takes and its issuer's chain: one whose issuer's chain
/// another takes is void if that other counts, so a device removed cannot
/// remove anyone, before or after its removal (no statement proves when it
/// was made). Revocations that take each other's issuers (a mutual removal,
/// or a longer cycle) all count, and so both devices go; none wins by its
/// id. Decided from the revocations nothing undecided takes: a function of
/// the set, whatever order it arrived in.
fn removals_that_count(
    level: &[(StatementId, StatementId, &[StatementId])],
) -> BTreeSet<StatementId> {
    // `takes[a]`: the revocations whose issuer's chain `a` takes a link of.
    let takes: BTreeMap<StatementId, Vec<StatementId>> = level
        .iter()
        .map(|(id, grant, _)| {
            let taken = level
                .iter()
                .filter(|(other, _, chain)| other != id && chain.contains(grant))
                .map(|(other, ..)| *other)
                .collect();
            (*id, taken)
        })
        .collect();
    let mut taken_by: BTreeMap<StatementId, Vec<StatementId>> = BTreeMap::new();
    for (id, taken) in &takes {
        for other in taken {
            taken_by.entry(*other).or_default().push(*id);
        }
    }
    let no_one = Vec::new();
    let (mut counting, mut void) = (BTreeSet::new(), BTreeSet::new());
    let mut undecided: BTreeSet<StatementId> = takes.keys().copied().collect();
    while !undecided.is_empty() {
        // The cycles of what is undecided, and those nothing undecided
        // outside them takes.
        let components = cycles(&undecided, &takes);
        let mut decided_any = false;
        for component in components {
            let from_outside = component.iter().any(|id| {
                taken_by
                    .get(id)
                    .unwrap_or(&no_one)
                    .iter()
                    .any(|by| undecided.contains(by) && !component.contains(by))
            });
            if from_outside {
                continue;
            }
            let cut: Vec<StatementId> = component
                .iter()
                .filter(|id| {
                    taken_by.get(*id).unwrap_or(&no_one).iter().any(|by| counting.contains(by))
                })
                .copied()
                .collect();
            if cut.is_empty() {
                counting.extend(component.iter().copied());
                undecided.retain(|id| !component.contains(id));
            } else {
                // Those a counting revocation took are void; the rest of
                // the cycle is decided again without them.
                void.extend(cut.iter().copied());
                undecided.retain(|id| !cut.contains(id));
            }
            decided_any = true;
            break;
        }
        debug_assert!(decided_any, "a graph's condensation always has a source");
        if !decided_any {
            break;
        }
    }
    counting
}

/// The strongly connected components of the graph `edges` restricted to
/// `nodes` (Tarjan's algorithm, iterative), each sorted, in a stable order.
fn cycles(
    nodes: &BTreeSet<StatementId>,
    edges: &BTreeMap<StatementId, Vec<StatementId>>,
) -> Vec<BTreeSet<StatementId>> {
    struct Walk {
        index: BTreeMap<StatementId, usize>,
        low: BTreeMap<StatementId, usize>,
        stack: Vec<StatementId>,
        on_stack: BTreeSet<StatementId>,
        found: Vec<BTreeSet<StatementId>>,
    }
    let mut walk = Walk {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    let no_edges = Vec::new();
    let next = |node: &StatementId| -> Vec<StatementId> {
        edges.get(node).unwrap_or(&no_edges).iter().filter(|n| nodes.contains(n)).copied().collect()
    };
    for &root in nodes {
        if walk.index.contains_key(&root) {
            continue;
        }
        // (node, its successors, the next successor to visit)
        let mut frames: Vec<(StatementId, Vec<StatementId>, usize)> = Vec::new();
        let start = |walk: &mut Walk, node: StatementId| {
            let at = walk.index.len();
            walk.index.insert(node, at);
            walk.low.insert(node, at);
            walk.stack.push(node);
            walk.on_stack.insert(node);
        };
        start(&mut walk, root);
        frames.push((root, next(&root), 0));
        while let Some((node, successors, at)) = frames.last_mut() {
            let node = *node;
            if let Some(&successor) = successors.get(*at) {
                *at += 1;
                if !walk.index.contains_key(&successor) {
                    start(&mut walk, successor);
                    frames.push((successor, next(&successor), 0));
                } else if walk.on_stack.contains(&successor) {
                    let low = walk.low[&node].min(walk.index[&successor]);
                    walk.low.insert(node, low);
                }
                continue;
            }
            frames.pop();
            if let Some((parent, ..)) = frames.last() {
                let low = walk.low[parent].min(walk.low[&node]);
                walk.low.insert(*parent, low);
            }
            if walk.low[&node] == walk.index[&node] {
                let mut component = BTreeSet::new();
                while let Some(member) = walk.stack.pop() {
                    walk.on_stack.remove(&member);
                    component.insert(member);
                    if member == node {
                        break;
                    }
                }
                walk.found.push(component);
            }
        }
    }
    walk.found
}

fn chain(
    id: StatementId,
    statements: &BTreeMap<StatementId, Statement>,
    share: ShareId,
    chains: &mut BTreeMap<StatementId, Result<Vec<StatementId>, Standing>>,
) -> Result<Vec<StatementId>, Standing> {
    // The links whose standing depends on their proof's, from `id` up.
    let mut path = Vec::new();
    let mut current = id;
    let mut above = loop {
        if let Some(known) = chains.get(&current) {
            break known.clone();
        }
        let Some(statement) = statements.get(&current) else {
            chains.insert(current, Err(Standing::Waiting));
            break Err(Standing::Waiting);
        };
        let body = &statement.body;
        let standing = match (&body.action, body.proof) {
            (Action::Create { nonce }, None) => match PublicKey::from_bytes(&body.issuer) {
                Ok(creator) if ShareId::of(&creator, nonce) == share => Ok(vec![current]),
                _ => Err(Standing::Refused),
            },
            (Action::Create { .. }, Some(_)) | (_, None) => Err(Standing::Refused),
            (_, Some(proof)) => {
                path.push(current);
                current = proof;
                continue;
            }
        };
        chains.insert(current, standing.clone());
        break standing;
    };
    for &link in path.iter().rev() {
        let statement = &statements[&link];
        let standing = match above {
            Err(standing) => Err(standing),
            Ok(proof_chain) if proof_chain.len() >= MAX_CHAIN => Err(Standing::Refused),
            Ok(proof_chain) => {
                let proof = &statements[&proof_chain[0]];
                if entitles(proof, &statement.body, &statement.body.action, statements) {
                    let mut links = Vec::with_capacity(proof_chain.len() + 1);
                    links.push(link);
                    links.extend(proof_chain);
                    Ok(links)
                } else {
                    Err(Standing::Refused)
                }
            }
        };
        chains.insert(link, standing.clone());
        above = standing;
    }
    above
}

/// Whether `proof` entitles a statement of `body` saying `action`.
fn entitles(
    proof: &Statement,
    body: &Body,
    action: &Action,
    statements: &BTreeMap<StatementId, Statement>,
) -> bool {
    let Some((holder, held)) = proof.grants() else { return false };
    if holder != body.issuer {
        return false;
    }
    match action {
        Action::Create { .. } => false,
        Action::Grant { role, .. } => *role <= held,
        Action::Revoke { grant } => {
            // Only a grant is revoked (the `Create` cannot be); an unknown
            // one can (it may arrive later), by an admin only. A member may
            // always give up its own grant.
            let target = statements.get(grant);
            if target.is_some_and(|target| !matches!(target.body.action, Action::Grant { .. })) {
                return false;
            }
            if held == Role::Admin || *grant == proof.id {
                return true;
            }
            // A grant made through the issuer's own grant (no chain that
            // stands is longer than MAX_CHAIN).
            let mut link = target.and_then(|target| target.body.proof);
            for _ in 0..MAX_CHAIN {
                match link {
                    Some(current) if current == proof.id => return true,
                    Some(current) => {
                        link = statements.get(&current).and_then(|statement| statement.body.proof);
                    }
                    None => return false,
                }
            }
            false
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    pub(crate) fn key(seed: u8) -> SecretKey {
        SecretKey::from_bytes(&[seed; 32])
    }

    pub(crate) fn device(secret: &SecretKey) -> [u8; 32] {
        *secret.public().as_bytes()
    }

    /// A share created by `laptop`, with helpers to sign in it.
    pub(crate) struct Share {
        pub(crate) id: ShareId,
        pub(crate) create: Statement,
        pub(crate) all: Vec<Statement>,
    }

    impl Share {
        pub(crate) fn new(creator: &SecretKey) -> Share {
            let create = Statement::create(creator, [7; 16], NOW);
            Share { id: create.body.share, all: vec![create.clone()], create }
        }

        pub(crate) fn grant(
            &mut self,
            by: &SecretKey,
            proof: &Statement,
            to: &SecretKey,
            role: Role,
        ) -> Statement {
            let statement = Statement::sign(
                by,
                self.id,
                Some(proof.id),
                Action::Grant { device: device(to), role },
                NOW,
            );
            self.all.push(statement.clone());
            statement
        }

        pub(crate) fn revoke(
            &mut self,
            by: &SecretKey,
            proof: &Statement,
            grant: &Statement,
        ) -> Statement {
            let statement = Statement::sign(
                by,
                self.id,
                Some(proof.id),
                Action::Revoke { grant: grant.id },
                NOW,
            );
            self.all.push(statement.clone());
            statement
        }

        pub(crate) fn resolve(&self) -> Membership {
            Membership::resolve(self.id, self.all.iter().map(|s| s.bytes.as_slice()))
        }
    }

    #[test]
    fn a_revocation_takes_the_senior_admin_grant_or_the_line_the_grant_came_through() {
        let (laptop, desktop, server, teammate, their_phone) =
            (key(1), key(2), key(3), key(4), key(5));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let desktop_grant = share.grant(&laptop, &create, &desktop, Role::Admin);
        let server_grant = share.grant(&laptop, &create, &server, Role::Admin);
        // The desktop also holds a junior admin grant, through the server.
        let junior = share.grant(&server, &server_grant, &desktop, Role::Admin);
        // The teammate holds write from the desktop and read from the
        // laptop; its phone came through the read.
        let write = share.grant(&desktop, &desktop_grant, &teammate, Role::Write);
        let read = share.grant(&laptop, &create, &teammate, Role::Read);
        let phone = share.grant(&teammate, &read, &their_phone, Role::Read);
        let membership = share.resolve();
        let desktop_key = device(&desktop);
        assert_eq!(membership.proof_for(&desktop_key), Some((desktop_grant.id, Role::Admin)));
        assert_eq!(membership.proof_for_revoking(&desktop_key, &phone.id), Some(desktop_grant.id));
        assert_ne!(desktop_grant.id, junior.id);
        // The teammate's highest grant is another line than the phone's.
        let teammate_key = device(&teammate);
        assert_eq!(membership.proof_for(&teammate_key), Some((write.id, Role::Write)));
        assert_eq!(membership.proof_for_revoking(&teammate_key, &phone.id), Some(read.id));
        assert_eq!(membership.proof_for_revoking(&teammate_key, &write.id), Some(write.id));
        assert_eq!(membership.proof_for_revoking(&device(&their_phone), &read.id), None);
        // Signed with the proof it names, the phone's revocation holds;
        // with the teammate's highest grant it would be refused.
        let mut refused = Share { id: share.id, create: create.clone(), all: share.all.clone() };
        refused.revoke(&teammate, &write, &phone);
        let with_write = refused.resolve();
        assert_eq!(with_write.role_of(&device(&their_phone)), Some(Role::Read));
        assert_eq!(with_write.refused(), 1);
        share.revoke(&teammate, &read, &phone);
        let revoked = share.resolve();
        assert_eq!(revoked.role_of(&device(&their_phone)), None);
        assert_eq!(revoked.refused(), 0);
        // Revoking the server takes the desktop's junior grant with it, not
        // the desktop, whose senior grant stands.
        share.revoke(&desktop, &desktop_grant, &server_grant);
        let without_server = share.resolve();
        assert_eq!(without_server.role_of(&desktop_key), Some(Role::Admin));
        assert_eq!(without_server.grants_to(&desktop_key), vec![desktop_grant.id]);
    }

    #[test]
    fn the_creator_is_admin_and_grants_up_to_their_own_role() {
        let (laptop, desktop, teammate, their_phone) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let desktop_grant = share.grant(&laptop, &create, &desktop, Role::Admin);
        let teammate_grant = share.grant(&desktop, &desktop_grant, &teammate, Role::Write);
        share.grant(&teammate, &teammate_grant, &their_phone, Role::Read);
        // Above the teammate's own role: refused.
        share.grant(&teammate, &teammate_grant, &key(5), Role::Admin);
        let membership = share.resolve();
        assert_eq!(membership.role_of(&device(&laptop)), Some(Role::Admin));
        assert_eq!(membership.role_of(&device(&desktop)), Some(Role::Admin));
        assert_eq!(membership.role_of(&device(&teammate)), Some(Role::Write));
        assert_eq!(membership.role_of(&device(&their_phone)), Some(Role::Read));
        assert_eq!(membership.role_of(&device(&key(5))), None);
        assert_eq!(membership.refused(), 1);
        let members = membership.members();
        assert_eq!(members.len(), 4);
        let teammate_member = members.iter().find(|m| m.device == device(&teammate)).unwrap();
        assert_eq!(teammate_member.granted_by, device(&desktop));
    }

    #[test]
    fn forged_and_foreign_statements_count_for_nothing() {
        let (laptop, reader, stranger) = (key(1), key(2), key(3));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let reader_grant = share.grant(&laptop, &create, &reader, Role::Read);
        // A reader's self-signed promotion, through its own grant and
        // through the creator's.
        share.grant(&reader, &reader_grant, &reader, Role::Write);
        share.grant(&reader, &create, &reader, Role::Admin);
        // A stranger's grant with no proof, and a second `Create` of the
        // same share by another key.
        let mut forged = Statement::sign(
            &stranger,
            share.id,
            None,
            Action::Grant { device: device(&stranger), role: Role::Admin },
            NOW,
        );
        share.all.push(forged.clone());
        share.all.push(Statement::sign(
            &stranger,
            share.id,
            None,
            Action::Create { nonce: [7; 16] },
            NOW,
        ));
        // A signature moved onto other bytes.
        let last = forged.bytes.len() - 1;
        forged.bytes[last] ^= 1;
        share.all.push(forged);
        // A statement of another share.
        share.all.push(Statement::create(&stranger, [1; 16], NOW));
        let membership = share.resolve();
        assert_eq!(membership.role_of(&device(&reader)), Some(Role::Read));
        assert_eq!(membership.role_of(&device(&stranger)), None);
        assert_eq!(membership.members().len(), 2);
        assert_eq!(membership.refused(), 6);
        assert!(Membership::resolve(share.id, [&[1u8, 2, 3][..]]).refused() == 1);
    }

    #[test]
    fn revoking_a_grant_revokes_what_it_granted_before_and_after() {
        let (laptop, desktop, teammate, their_laptop) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let desktop_grant = share.grant(&laptop, &create, &desktop, Role::Admin);
        let teammate_grant = share.grant(&desktop, &desktop_grant, &teammate, Role::Write);
        let before = share.resolve();
        assert_eq!(
            before.falls_with(&before.grants_to(&device(&desktop))).len(),
            2,
            "the desktop and the teammate it invited"
        );
        share.revoke(&laptop, &create, &desktop_grant);
        // Made by the teammate after the desktop's revocation: void too.
        share.grant(&teammate, &teammate_grant, &their_laptop, Role::Read);
        let after = share.resolve();
        assert_eq!(after.role_of(&device(&desktop)), None);
        assert_eq!(after.role_of(&device(&teammate)), None);
        assert_eq!(after.role_of(&device(&their_laptop)), None);
        assert_eq!(after.role_of(&device(&laptop)), Some(Role::Admin));
        assert!(after.is_revoked(&desktop_grant.id));
        // Granted again, from the creator: a member again.
        share.grant(&laptop, &create, &teammate, Role::Read);
        assert_eq!(share.resolve().role_of(&device(&teammate)), Some(Role::Read));
    }

    #[test]
    fn a_member_revokes_what_they_granted_and_nothing_else() {
        let (laptop, teammate, their_phone, other) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let teammate_grant = share.grant(&laptop, &create, &teammate, Role::Write);
        let phone_grant = share.grant(&teammate, &teammate_grant, &their_phone, Role::Write);
        let other_grant = share.grant(&laptop, &create, &other, Role::Write);
        share.revoke(&teammate, &teammate_grant, &other_grant);
        share.revoke(&teammate, &teammate_grant, &phone_grant);
        // Nor can anyone revoke the `Create`, or a revocation.
        share.revoke(&laptop, &create, &create);
        let revocation = share.all.last().unwrap().clone();
        share.revoke(&laptop, &create, &revocation);
        // A member may leave: revoke its own grant.
        let other_phone = share.grant(&other, &other_grant, &key(6), Role::Read);
        let membership = share.resolve();
        assert_eq!(membership.role_of(&device(&key(6))), Some(Role::Read));
        share.revoke(&other, &other_grant, &other_grant);
        let membership = share.resolve();
        assert_eq!(membership.role_of(&device(&other)), None);
        assert_eq!(membership.role_of(&device(&key(6))), None, "{other_phone:?} went with it");
        assert_eq!(membership.role_of(&device(&their_phone)), None);
        assert_eq!(membership.role_of(&device(&laptop)), Some(Role::Admin));
        assert_eq!(membership.refused(), 3);
    }

    #[test]
    fn of_two_admins_revoking_each_other_the_senior_one_wins() {
        let (laptop, desktop, server) = (key(1), key(2), key(3));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let desktop_grant = share.grant(&laptop, &create, &desktop, Role::Admin);
        // The server is one link further from the `Create` than the desktop.
        let server_grant = share.grant(&desktop, &desktop_grant, &server, Role::Admin);
        share.revoke(&server, &server_grant, &desktop_grant);
        share.revoke(&desktop, &desktop_grant, &server_grant);
        let membership = share.resolve();
        assert_eq!(membership.role_of(&device(&desktop)), Some(Role::Admin));
        assert_eq!(membership.role_of(&device(&server)), None);
    }

    #[test]
    fn equally_senior_admins_revoking_each_other_both_go() {
        let (laptop, desktop, server) = (key(1), key(2), key(3));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let desktop_grant = share.grant(&laptop, &create, &desktop, Role::Admin);
        let server_grant = share.grant(&laptop, &create, &server, Role::Admin);
        share.revoke(&server, &server_grant, &desktop_grant);
        share.revoke(&desktop, &desktop_grant, &server_grant);
        let membership = share.resolve();
        assert_eq!(membership.role_of(&device(&desktop)), None);
        assert_eq!(membership.role_of(&device(&server)), None);
        assert_eq!(membership.role_of(&device(&laptop)), Some(Role::Admin));
    }

    /// Members of `statements` resolved in every order `permutations` makes
    /// of them (rotations, reversals, a repeat), all equal; returned.
    fn members_in_any_order(share: &Share) -> Vec<Member> {
        let expected = share.resolve().members();
        let mut bytes: Vec<Vec<u8>> = share.all.iter().map(|s| s.bytes.clone()).collect();
        for turn in 0..2 * bytes.len() {
            bytes.rotate_left(1);
            if turn % 3 == 0 {
                bytes.reverse();
            }
            let mut repeated = bytes.clone();
            repeated.push(bytes[turn % bytes.len()].clone());
            let membership = Membership::resolve(share.id, repeated.iter().map(Vec::as_slice));
            assert_eq!(membership.members(), expected, "order {turn}");
        }
        expected
    }

    fn devices(members: &[Member]) -> BTreeSet<[u8; 32]> {
        members.iter().map(|member| member.device).collect()
    }

    #[test]
    fn a_removed_admin_removes_nobody_afterwards() {
        // The creating desktop grants the laptop and the server admin, a
        // teammate write; the laptop removes the stolen server, which then
        // removes the teammate.
        let (desktop, laptop, server, teammate) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&desktop);
        let create = share.create.clone();
        let laptop_grant = share.grant(&desktop, &create, &laptop, Role::Admin);
        let server_grant = share.grant(&desktop, &create, &server, Role::Admin);
        let teammate_grant = share.grant(&desktop, &create, &teammate, Role::Write);
        share.revoke(&laptop, &laptop_grant, &server_grant);
        share.revoke(&server, &server_grant, &teammate_grant);
        let members = members_in_any_order(&share);
        assert_eq!(share.resolve().role_of(&device(&teammate)), Some(Role::Write));
        assert_eq!(
            devices(&members),
            BTreeSet::from([device(&desktop), device(&laptop), device(&teammate)])
        );

        // It also removes its remover: both go (a cycle), the teammate stays.
        share.revoke(&server, &server_grant, &laptop_grant);
        let members = members_in_any_order(&share);
        assert_eq!(devices(&members), BTreeSet::from([device(&desktop), device(&teammate)]));
    }

    #[test]
    fn a_removal_by_a_removed_device_does_not_undo_a_third_removal() {
        let (creator, a, b, c) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&creator);
        let create = share.create.clone();
        let a_grant = share.grant(&creator, &create, &a, Role::Admin);
        let b_grant = share.grant(&creator, &create, &b, Role::Admin);
        let c_grant = share.grant(&creator, &create, &c, Role::Admin);
        // C removes A; A and B remove each other: A's removal of B is void
        // (A is removed by C, who nobody removes), so B stays.
        share.revoke(&c, &c_grant, &a_grant);
        share.revoke(&a, &a_grant, &b_grant);
        share.revoke(&b, &b_grant, &a_grant);
        let members = members_in_any_order(&share);
        assert_eq!(devices(&members), BTreeSet::from([device(&creator), device(&b), device(&c)]));
    }

    #[test]
    fn whoever_removes_a_device_keeps_its_removals_by_signing_them_again() {
        // The server, an admin, removed a teammate; then the laptop removes
        // the server: its removal of the teammate no longer counts, so the
        // laptop signs it again.
        let (desktop, laptop, server, teammate) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&desktop);
        let create = share.create.clone();
        let laptop_grant = share.grant(&desktop, &create, &laptop, Role::Admin);
        let server_grant = share.grant(&desktop, &create, &server, Role::Admin);
        let teammate_grant = share.grant(&desktop, &create, &teammate, Role::Write);
        share.revoke(&server, &server_grant, &teammate_grant);
        let before = share.resolve();
        assert_eq!(before.role_of(&device(&teammate)), None);
        assert_eq!(before.revoked_through(&[server_grant.id]), [teammate_grant.id]);
        assert_eq!(before.revoked_through(&[laptop_grant.id]), []);
        share.revoke(&laptop, &laptop_grant, &server_grant);
        assert_eq!(share.resolve().role_of(&device(&teammate)), Some(Role::Write), "revived");
        share.revoke(&laptop, &laptop_grant, &teammate_grant);
        let after = members_in_any_order(&share);
        assert_eq!(devices(&after), BTreeSet::from([device(&desktop), device(&laptop)]));
    }

    #[test]
    fn a_member_adds_a_bounded_number_of_devices_however_it_signs() {
        // A reader grants `read` to a hundred keys, and through them more.
        let (laptop, reader, writer) = (key(1), key(2), key(3));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let reader_grant = share.grant(&laptop, &create, &reader, Role::Read);
        share.grant(&laptop, &create, &writer, Role::Write);
        let minted: Vec<SecretKey> =
            (0..100u32).map(|n| SecretKey::from_bytes(&sha_seed(n))).collect();
        let mut grants = Vec::new();
        for next in &minted {
            grants.push(share.grant(&reader, &reader_grant, next, Role::Read));
        }
        for (at, next) in minted.iter().enumerate().take(20) {
            let more = SecretKey::from_bytes(&sha_seed(1_000 + at as u32));
            share.grant(next, &grants[at], &more, Role::Read);
        }
        let membership = share.resolve();
        let line: Vec<Member> = membership
            .members()
            .into_iter()
            .filter(|member| member.device != device(&laptop) && member.device != device(&writer))
            .collect();
        assert_eq!(line.len(), MAX_LINE_DEVICES, "the reader and the devices it added");
        assert_eq!(membership.members().len(), MAX_LINE_DEVICES + 2);
        // Revoked grants use the quota up: granting and revoking again and
        // again grows nothing.
        let counted = line.iter().find(|member| member.device != device(&reader)).unwrap();
        let first = share.all.iter().find(|s| s.id == counted.grants[0]).unwrap().clone();
        share.revoke(&reader, &reader_grant, &first);
        let membership = share.resolve();
        assert_eq!(membership.members().len(), MAX_LINE_DEVICES + 1);
        // What counts does not depend on the order the statements came in.
        members_in_any_order(&share);
    }

    #[test]
    fn a_chain_of_proofs_longer_than_the_limit_is_refused_without_walking_it_twice() {
        let laptop = key(1);
        let mut share = Share::new(&laptop);
        // Each key grants the next admin through its own grant: a chain
        // as long as admins care to make it (each grant its own line, so
        // the quotas do not stop it first).
        let keys: Vec<SecretKey> =
            (0..5_000u32).map(|n| SecretKey::from_bytes(&sha_seed(n))).collect();
        let mut proof = share.create.clone();
        let mut issuer = &laptop;
        for next in &keys {
            proof = share.grant(issuer, &proof, next, Role::Admin);
            issuer = next;
        }
        let membership = share.resolve();
        // The `Create` and MAX_CHAIN - 1 grants stand.
        assert_eq!(membership.members().len(), MAX_CHAIN);
        assert_eq!(membership.role_of(&device(&keys[MAX_CHAIN - 2])), Some(Role::Admin));
        assert_eq!(membership.role_of(&device(&keys[MAX_CHAIN - 1])), None);
        assert_eq!(membership.refused(), keys.len() - (MAX_CHAIN - 1));
    }

    fn sha_seed(n: u32) -> [u8; 32] {
        Sha256::digest(n.to_le_bytes()).into()
    }

    #[test]
    fn bytes_after_a_body_or_too_many_bytes_are_no_statement() {
        let laptop = key(1);
        let share = Share::new(&laptop);
        let mut longer = share.create.bytes.clone();
        longer.push(0);
        assert!(matches!(Statement::verify(&longer, share.id), Err(Refused::Malformed(_))));
        let huge = vec![1u8; MAX_STATEMENT_BYTES + 1];
        assert!(matches!(Statement::verify(&huge, share.id), Err(Refused::Malformed(_))));
        // A refused statement counts once however often it is relayed.
        let twice = [longer.as_slice(), longer.as_slice(), share.create.bytes.as_slice()];
        assert_eq!(Membership::resolve(share.id, twice).refused(), 1);
    }

    #[test]
    fn members_do_not_depend_on_the_order_or_repeats_of_statements() {
        let (laptop, desktop, teammate, phone) = (key(1), key(2), key(3), key(4));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        let desktop_grant = share.grant(&laptop, &create, &desktop, Role::Admin);
        let teammate_grant = share.grant(&desktop, &desktop_grant, &teammate, Role::Write);
        share.grant(&teammate, &teammate_grant, &phone, Role::Read);
        share.revoke(&laptop, &create, &teammate_grant);
        let expected = share.resolve().members();
        let mut bytes: Vec<Vec<u8>> = share.all.iter().map(|s| s.bytes.clone()).collect();
        for turn in 0..bytes.len() {
            bytes.rotate_left(1);
            if turn % 2 == 0 {
                bytes.reverse();
            }
            let mut repeated = bytes.clone();
            repeated.push(bytes[turn].clone());
            let membership = Membership::resolve(share.id, repeated.iter().map(Vec::as_slice));
            assert_eq!(membership.members(), expected);
        }
        // Without the teammate's grant, the phone's waits for it.
        let partial: Vec<&[u8]> = share
            .all
            .iter()
            .filter(|s| s.id != teammate_grant.id)
            .map(|s| s.bytes.as_slice())
            .collect();
        let membership = Membership::resolve(share.id, partial);
        assert_eq!(membership.waiting(), 1);
        assert_eq!(membership.role_of(&device(&phone)), None);
    }

    #[test]
    fn a_device_signs_with_its_highest_live_grant() {
        let (laptop, teammate) = (key(1), key(2));
        let mut share = Share::new(&laptop);
        let create = share.create.clone();
        share.grant(&laptop, &create, &teammate, Role::Read);
        let write = share.grant(&laptop, &create, &teammate, Role::Write);
        let membership = share.resolve();
        assert_eq!(membership.proof_for(&device(&teammate)), Some((write.id, Role::Write)));
        assert_eq!(membership.proof_for(&device(&laptop)), Some((create.id, Role::Admin)));
        assert_eq!(membership.grants_to(&device(&teammate)).len(), 2);
        assert_eq!("write".parse::<Role>(), Ok(Role::Write));
        assert!("owner".parse::<Role>().is_err());
    }
}
