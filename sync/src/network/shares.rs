//! Shares on the network (docs/sharing.md): the `ferrex/share/1` protocol
//! and the sessions of a share's members.
//!
//! - **Joining.** A teammate's device shows what a ticket brings
//!   ([`ShareRequest::Preview`]: the project, the role, how many memories;
//!   the secret is checked, not used up), then joins with it
//!   ([`ShareRequest::Join`]): the inviting device redeems the secret once,
//!   throttled as pairing is, signs the grant and answers with the share's
//!   statements. The teammate never enters the person's registry.
//! - **Members.** Two members open a connection with an exchange of the
//!   share's statements ([`ShareRequest::Member`]), each taking what the
//!   rules entitle; then, if each is a member by what it holds, a session
//!   of the share's documents runs on the same stream ([`Scope::Share`],
//!   read-only for a member that may not write). When a share's statements
//!   change on a device, every session of it ends, refused at once if the
//!   member is gone, and the next exchange carries the news.
//! - **The person's devices** tell each other of every share they hold,
//!   with its project and statements ([`ShareRequest::Own`]), when a sync
//!   connection between them opens and when a share changes. A share's
//!   documents travel between them in their own sessions, which carry
//!   every namespace. Each device grants its paired devices the role it
//!   holds, and revokes those the registry revokes.

use std::{collections::BTreeSet, net::SocketAddr, sync::Arc, time::Instant};

use ferrex_core::Namespace;
use iroh::{
    EndpointAddr, EndpointId, TransportAddr,
    endpoint::{Connection, RecvStream, SendStream},
    protocol::{AcceptError, ProtocolHandler},
};
use rand::RngExt;

use super::{
    DIAL_TIMEOUT, DUPLICATE, DialError, Inner, JoinError, NOT_PAIRED, Network, PAIR_TIMEOUT,
    addrs_text, random,
};
use crate::{
    DocStatus, PeerRecord,
    link::Dialer,
    membership::{Action, Membership, Role, ShareId, StatementId},
    pairing::{Refusal, ShareInvite},
    peers::doc_statuses,
    policy,
    replica::lock,
    session::{Scope, short},
    shares::namespace_of,
    statement_log::{MAX_STATEMENTS, MAX_WAITING},
    ticket::ShareTicket,
    wire::{
        MAX_MEMBER_BYTES, MAX_SHARE_BYTES, OwnShare, SHARE_ALPN, ShareReply, ShareRequest,
        read_frame, write_frame,
    },
};

/// Why this device could not act in a share: make a ticket to it, or
/// remove a member.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShareActionError {
    /// This device does not hold the share.
    #[error("this device does not hold that share")]
    NotHeld,
    /// This device was removed from the share.
    #[error("this device is no longer a member of the share")]
    NotMember,
    /// A ticket for a role above this device's own.
    #[error("this device is a {} of the share and may grant at most that", .0.as_str())]
    AboveOwnRole(Role),
    /// No member goes by these words.
    #[error("no member of the share is {0:?}")]
    NoSuchMember(String),
    /// More than one member goes by these words.
    #[error("{0:?} names more than one member; give more of its id")]
    Ambiguous(String),
    /// The member named is this device.
    #[error("this is this device; remove it from another admin's device")]
    ThisDevice,
    /// The member named is one of the person's own devices.
    #[error(
        "that is one of your own devices: `ferrex peers remove` removes it from every share as it unpairs it"
    )]
    OwnDevice,
    /// The member named created the share.
    #[error("that device created the share: it cannot be removed from it")]
    Creator,
    /// This device's role does not let it remove the member.
    #[error(
        "this device may not remove that member: only an admin, or the member that added it, may"
    )]
    MayNotRemove,
    /// This device takes part without a grant, and no device of the
    /// person that holds one answered.
    #[error(
        "this device holds no grant of the share yet (the person's devices take part without one until they act), and none of your devices that holds one is reachable: run it on the device that shared the project, or with it online"
    )]
    NoGrantReachable,
    /// A statement could not be signed or kept.
    #[error(transparent)]
    Signing(crate::shares::ShareError),
}

/// Close code of a member's session ended because the share's statements
/// changed: the next exchange carries them.
const MEMBERS_CHANGED: u32 = 205;

/// The slot of `peer`'s session of `share`: apart from the slot of a
/// paired device (its id alone), and from its sessions of other shares.
fn member_key(peer: &str, share: &ShareId) -> String {
    format!("{peer}.{}", &share.to_hex()[..16])
}

/// A device id (hex) as a member's key.
fn device_bytes(peer: &str) -> Option<[u8; 32]> {
    peer.parse::<EndpointId>().ok().map(|id| *id.as_bytes())
}

/// The policy's view of `memberships` (namespace, members) of the shares
/// held.
fn facts(
    memberships: &[(Namespace, crate::membership::Membership)],
) -> Vec<policy::ShareFacts<'_>> {
    memberships
        .iter()
        .map(|(namespace, membership)| policy::ShareFacts {
            namespace: namespace.clone(),
            membership,
        })
        .collect()
}

/// How often a member may ask for an exchange, once its burst is spent:
/// an honest one asks once per session.
pub(super) const MEMBER_REQUEST_EVERY: std::time::Duration = std::time::Duration::from_secs(5);
/// Exchanges a member may ask for at once.
const MEMBER_REQUEST_BURST: f64 = 12.0;

/// The exchanges each known member of each share may still ask for: a
/// bucket of [`MEMBER_REQUEST_BURST`], one more every
/// [`MEMBER_REQUEST_EVERY`]. (Devices that are not members are throttled
/// as failed pairings are; members are few, bounded by the quotas.)
#[derive(Debug, Default)]
pub(super) struct MemberRate {
    buckets: std::collections::HashMap<(String, ShareId), (f64, i64)>,
}

impl MemberRate {
    /// Whether `peer` may ask for an exchange of `share` now; spends one.
    pub(super) fn allow(
        &mut self,
        peer: &str,
        share: &ShareId,
        now: ferrex_core::Timestamp,
    ) -> bool {
        let (tokens, last) =
            self.buckets.entry((peer.to_owned(), *share)).or_insert((MEMBER_REQUEST_BURST, now.0));
        let every = MEMBER_REQUEST_EVERY.as_millis() as f64;
        *tokens = (*tokens + (now.0 - *last).max(0) as f64 / every).min(MEMBER_REQUEST_BURST);
        *last = now.0;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What joining a share brings, as the inviting device says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharePreview {
    /// The project shared.
    pub project: String,
    /// The role the ticket gives.
    pub role: Role,
    /// Memories in the share now.
    pub memories: u64,
    /// The inviting device's name.
    pub name: String,
}

/// A member removed from a share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedMember {
    /// The devices no longer members (the one named, and those it added).
    pub devices: Vec<(String, String)>,
}

/// How a share stands on this device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareStatus {
    /// The share's id (hex).
    pub share: String,
    /// The project it shares.
    pub project: String,
    /// The namespace of its documents.
    pub namespace: String,
    /// This device's role.
    pub role: Option<Role>,
    /// Statements held.
    pub statements: usize,
    /// Every member but this device.
    pub members: Vec<MemberStatus>,
    /// Devices removed from it (their grants revoked, none left): id (hex)
    /// and name, when known.
    pub removed: Vec<(String, Option<String>)>,
}

/// How one member of a share stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberStatus {
    /// Its device id (hex).
    pub device: String,
    /// Its name, as it gave it (or as the registry has it).
    pub name: Option<String>,
    /// Its role.
    pub role: Role,
    /// The device that granted it (hex).
    pub granted_by: String,
    /// That device's name, when known.
    pub granted_by_name: Option<String>,
    /// One of this person's own devices (its documents travel in the own
    /// devices' sessions).
    pub own: bool,
    /// A session of the share runs with it now.
    pub online: bool,
    /// Per document of the share: what each side lacks.
    pub docs: Vec<DocStatus>,
    /// Frames and changes of it this device refused (outside the share,
    /// or from a member that may not write), in the current session.
    pub refused: u64,
    /// Sync frame bytes sent to it and received from it in the current
    /// session.
    pub bytes_sent: u64,
    /// See `bytes_sent`.
    pub bytes_received: u64,
}

impl Network {
    /// A ticket to `share` giving `role`, that expires after `ttl` and
    /// works once. Refused when this device may not grant `role` there.
    pub async fn share_invite(
        &self,
        share: &ShareId,
        role: Role,
        ttl: std::time::Duration,
    ) -> Result<ShareTicket, ShareActionError> {
        let inner = &self.inner;
        self.act_in(share).await?;
        let shares = lock(&inner.shares);
        let held = shares.get(share).ok_or(ShareActionError::NotHeld)?;
        let membership = held.membership();
        let mine = membership.role_of(inner.identity.id().as_bytes());
        match mine {
            Some(mine) if mine >= role => {}
            Some(mine) => return Err(ShareActionError::AboveOwnRole(mine)),
            None => return Err(ShareActionError::NotMember),
        }
        let project = held.record.project.clone();
        let members = membership.members().iter().map(|member| member.device).collect();
        drop(shares);
        let now = (inner.clock)();
        let secret: [u8; 32] = rand::rng().random();
        let expires_at = ferrex_core::Timestamp(now.0 + ttl.as_millis() as i64);
        let invite = ShareInvite { share: *share, project: project.clone(), role, members };
        lock(&inner.invites).create_share(&secret, expires_at, now, invite);
        let addr = EndpointAddr::from_parts(
            inner.identity.id(),
            inner.addrs().into_iter().map(TransportAddr::Ip),
        );
        Ok(ShareTicket {
            addr,
            share: *share,
            project,
            role,
            secret,
            expires_at,
            name: inner.name.clone(),
        })
    }

    /// What joining with `ticket` would bring, as the inviting device says
    /// (the secret is checked, not used up).
    pub async fn preview_share(&self, ticket: &ShareTicket) -> Result<SharePreview, JoinError> {
        self.inner.check_ticket(ticket)?;
        let request = ShareRequest::Preview { share: ticket.share, secret: ticket.secret };
        match self.inner.ask_share(&ticket.addr, &request).await? {
            ShareReply::Preview { project, role, memories, name } => {
                Ok(SharePreview { project, role, memories, name })
            }
            ShareReply::Refused(refusal) => Err(JoinError::Refused(refusal)),
            other => Err(self.inner.unexpected(&ticket.addr, &other)),
        }
    }

    /// Joins the share of `ticket`: this device becomes a member with the
    /// role the inviting device recorded, holds the share, and grants it to
    /// the person's other devices. Returns the share and the project.
    pub async fn join_share(
        &self,
        ticket: &ShareTicket,
    ) -> Result<(ShareId, Namespace), JoinError> {
        let inner = &self.inner;
        inner.check_ticket(ticket)?;
        // Checked before the ticket is used up.
        if let Ok(project) = Namespace::parse(&ticket.project) {
            inner.one_share_of(&project, &ticket.share)?;
        }
        let request = ShareRequest::Join {
            share: ticket.share,
            secret: ticket.secret,
            name: inner.name.clone(),
            addrs: inner.addrs(),
        };
        let (project, statements, name, mut addrs) =
            match inner.ask_share(&ticket.addr, &request).await? {
                ShareReply::Joined { project, statements, name, addrs } => {
                    (project, statements, name, addrs)
                }
                ShareReply::Refused(refusal) => return Err(JoinError::Refused(refusal)),
                other => return Err(inner.unexpected(&ticket.addr, &other)),
            };
        if project != ticket.project {
            return Err(JoinError::Refused(Refusal::Internal(format!(
                "the inviting device answered for the project {project:?}, not the ticket's {:?}",
                ticket.project
            ))));
        }
        let project = Namespace::parse(&project)
            .map_err(|_| JoinError::Refused(Refusal::BadProject(project.clone())))?;
        // Nothing is kept unless the statements make this device a member of
        // the share the ticket names (a `Create` of that id among them).
        let membership = Membership::resolve(ticket.share, statements.iter().map(Vec::as_slice));
        if membership.role_of(inner.identity.id().as_bytes()).is_none() {
            return Err(JoinError::Refused(Refusal::Internal(
                "the inviting device's statements do not make this device a member".into(),
            )));
        }
        for addr in ticket.addr.ip_addrs() {
            if !addrs.contains(addr) {
                addrs.push(*addr);
            }
        }
        let inviter = ticket.addr.id.to_string();
        {
            inner.one_share_of(&project, &ticket.share)?;
            let mut shares = lock(&inner.shares);
            shares
                .adopt(
                    ticket.share,
                    &project,
                    statements.iter().map(Vec::as_slice),
                    (inner.clock)(),
                )
                .map_err(|error| match error {
                    crate::shares::ShareError::Default | crate::shares::ShareError::OfShare(_) => {
                        JoinError::Refused(Refusal::BadProject(project.to_string()))
                    }
                    other => JoinError::Refused(Refusal::Internal(other.to_string())),
                })?;
            if let Err(error) = shares.note_contact(&ticket.share, &inviter, &name, &addrs) {
                tracing::warn!("could not record the inviting device's address: {error}");
            }
        }
        tracing::info!(share = %short(&ticket.share.to_hex()), %project, "joined a shared project");
        inner.grant_own_devices();
        inner.share_changed(&ticket.share);
        Ok((ticket.share, project))
    }

    /// Revokes every grant to `device` (hex, a unique prefix, or a member's
    /// unique name) in `share`, and so what was granted through them. What
    /// it holds already stays with it.
    pub async fn remove_member(
        &self,
        share: &ShareId,
        device: &str,
    ) -> Result<RemovedMember, ShareActionError> {
        let inner = &self.inner;
        self.act_in(share).await?;
        let now = (inner.clock)();
        let mut shares = lock(&inner.shares);
        let held = shares.get(share).ok_or(ShareActionError::NotHeld)?;
        let membership = held.membership();
        let names = |id: &[u8; 32]| inner.member_name(held, &hex::encode(id));
        let matching: Vec<[u8; 32]> = membership
            .members()
            .into_iter()
            .map(|member| member.device)
            .filter(|id| {
                let hex = hex::encode(id);
                hex == device
                    || (device.len() >= 4 && hex.starts_with(device))
                    || names(id).as_deref() == Some(device)
            })
            .collect();
        let target = match matching.as_slice() {
            [one] => *one,
            [] => return Err(ShareActionError::NoSuchMember(device.to_owned())),
            _ => return Err(ShareActionError::Ambiguous(device.to_owned())),
        };
        if target == *inner.identity.id().as_bytes() {
            return Err(ShareActionError::ThisDevice);
        }
        if inner.replica.registry().is_paired(&hex::encode(target)) {
            return Err(ShareActionError::OwnDevice);
        }
        // The `Create` cannot be revoked: its device stays the share's root.
        let grants: Vec<StatementId> = membership
            .grants_to(&target)
            .into_iter()
            .filter(|grant| {
                membership.statements().any(|statement| {
                    statement.id == *grant
                        && !matches!(statement.body.action, Action::Create { .. })
                })
            })
            .collect();
        if grants.is_empty() {
            return Err(ShareActionError::Creator);
        }
        let falling: Vec<(String, String)> = membership
            .falls_with(&grants)
            .iter()
            .map(|id| (hex::encode(id), names(id).unwrap_or_default()))
            .collect();
        let mut outcome = Ok(RemovedMember { devices: falling });
        let mut signed_any = false;
        // A removed device's revocations stop counting (docs/sharing.md):
        // those it made are signed again here, so that what it removed stays
        // removed. Then its own grants.
        let again = membership.revoked_through(&grants);
        for grant in again.into_iter().chain(grants) {
            match shares.sign(share, inner.identity.secret(), Action::Revoke { grant }, now) {
                Ok(Some(_)) => signed_any = true,
                Ok(None) => {
                    outcome = Err(ShareActionError::MayNotRemove);
                    break;
                }
                Err(error) => {
                    outcome = Err(ShareActionError::Signing(error));
                    break;
                }
            }
        }
        drop(shares);
        // What was signed takes effect even when a later grant could not be.
        if signed_any {
            inner.share_changed(share);
        }
        outcome
    }

    /// Whether `words` name one of the person's devices (this one or one
    /// paired with it): its name, its id, or a prefix of 4 or more.
    pub fn names_own_device(&self, words: &str) -> bool {
        let registry = self.inner.replica.registry();
        let words = words.trim();
        let mut devices = registry.paired();
        devices.insert(self.inner.me.clone());
        devices.iter().any(|id| {
            id == words
                || (words.len() >= 4 && id.starts_with(&words.to_ascii_lowercase()))
                || registry.name_of(id).as_deref() == Some(words)
                || (*id == self.inner.me && self.inner.name == words)
        })
    }

    /// Makes sure this device holds a grant of `share` before it signs
    /// there: one of the person's devices, taking part without one, asks
    /// another that holds one.
    async fn act_in(&self, share: &ShareId) -> Result<(), ShareActionError> {
        let inner = &self.inner;
        let me = *inner.identity.id().as_bytes();
        let implicit = {
            let registry = inner.replica.registry();
            let shares = lock(&inner.shares);
            let held = shares.get(share).ok_or(ShareActionError::NotHeld)?;
            held.membership().role_of(&me).is_none()
                && held.role_of(&me, |device| inner.own_device(&registry, device)).is_some()
        };
        if implicit { inner.grant_me(share).await } else { Ok(()) }
    }

    /// Tells every paired device connected now of the shares this device
    /// holds, waiting at most `limit` for their answers (`ferrex share`
    /// does before it moves a project: a device that merges the move knows
    /// where the memories went).
    pub async fn tell_own_devices(&self, limit: std::time::Duration) {
        let mut telling = tokio::task::JoinSet::new();
        for peer in self.connected_peers() {
            telling.spawn(self.inner.clone().exchange_own(peer));
        }
        let _ = tokio::time::timeout(limit, async { while telling.join_next().await.is_some() {} })
            .await;
    }

    /// Tells the network that `share` changed on this device (created, its
    /// statements signed here): sessions of it start again with the news,
    /// and the person's other devices hear of it.
    pub fn share_changed(&self, share: &ShareId) {
        self.inner.grant_own_devices();
        self.inner.share_changed(share);
    }

    /// How every share held stands, asking members with a session how many
    /// changes this node lacks (waiting at most `timeout` for each).
    pub async fn shares(&self, timeout: std::time::Duration) -> Vec<ShareStatus> {
        let inner = &self.inner;
        let registry = inner.replica.registry();
        let me = *inner.identity.id().as_bytes();
        let mut statuses = Vec::new();
        let held: Vec<Snapshot> = {
            let shares = lock(&inner.shares);
            shares
                .all()
                .map(|held| {
                    let membership = held.membership();
                    let names = membership
                        .members()
                        .iter()
                        .map(|member| {
                            let hex = hex::encode(member.device);
                            let name = inner.member_name(held, &hex);
                            (hex, name)
                        })
                        .collect();
                    Snapshot {
                        share: held.id,
                        project: held.record.project.clone(),
                        namespace: held.record.namespace.clone(),
                        statements: held.statements.len(),
                        role: held.role_of(&me, |device| inner.own_device(&registry, device)),
                        membership,
                        names,
                        contacts: held
                            .record
                            .contacts
                            .iter()
                            .map(|(device, contact)| (device.clone(), contact.name.clone()))
                            .collect(),
                    }
                })
                .collect()
        };
        for Snapshot { share, project, namespace, statements, membership, role, names, contacts } in
            held
        {
            let mut members = Vec::new();
            for member in membership.members() {
                if member.device == me {
                    continue;
                }
                let device = hex::encode(member.device);
                let own = registry.is_paired(&device);
                let key = if own { device.clone() } else { member_key(&device, &share) };
                let session = lock(&inner.slots)
                    .get(&key)
                    .and_then(|slot| slot.live.as_ref())
                    .and_then(|live| live.session.clone());
                if let Some(session) = &session {
                    session.ask_status(timeout).await;
                }
                let relaxed = std::sync::atomic::Ordering::Relaxed;
                let (record, refused, bytes_sent, bytes_received) = match &session {
                    Some(session) => (
                        lock(&session.shared.record).clone(),
                        session.shared.refused.load(relaxed),
                        session.shared.bytes_sent.load(relaxed),
                        session.shared.bytes_received.load(relaxed),
                    ),
                    None => (PeerRecord::load(&inner.state_dir, &key), 0, 0, 0),
                };
                let namespace = Namespace::parse(&namespace).ok();
                let docs = doc_statuses(&inner.replica, &record)
                    .into_iter()
                    .filter(|status| status.doc.namespace() == namespace.as_ref())
                    .collect();
                let online = session.is_some_and(|session| {
                    session.shared.bytes_received.load(std::sync::atomic::Ordering::Relaxed) > 0
                });
                let name = names
                    .iter()
                    .find(|(hex, _)| *hex == device)
                    .and_then(|(_, name)| name.clone())
                    .or_else(|| registry.name_of(&device));
                members.push(MemberStatus {
                    device,
                    name,
                    role: member.role,
                    granted_by: hex::encode(member.granted_by),
                    granted_by_name: if member.granted_by == me {
                        Some(inner.name.clone())
                    } else {
                        let granter = hex::encode(member.granted_by);
                        names
                            .iter()
                            .find(|(hex, _)| *hex == granter)
                            .and_then(|(_, name)| name.clone())
                            .or_else(|| registry.name_of(&granter))
                    },
                    own,
                    online,
                    docs,
                    refused,
                    bytes_sent,
                    bytes_received,
                });
            }
            let live: BTreeSet<[u8; 32]> =
                membership.members().iter().map(|member| member.device).collect();
            let mut removed: Vec<(String, Option<String>)> = membership
                .statements()
                .filter(|statement| membership.is_revoked(&statement.id))
                .filter_map(|statement| statement.grants().map(|(device, _)| device))
                .filter(|device| !live.contains(device))
                .map(|device| {
                    let hex = hex::encode(device);
                    let name = contacts.get(&hex).cloned().or_else(|| registry.name_of(&hex));
                    (hex, name)
                })
                .collect();
            removed.sort();
            removed.dedup();
            statuses.push(ShareStatus {
                removed,
                share: share.to_hex(),
                project,
                namespace,
                role,
                statements,
                members,
            });
        }
        statuses
    }
}

/// A share as it stood when `Network::shares` read it.
struct Snapshot {
    share: ShareId,
    project: String,
    namespace: String,
    statements: usize,
    membership: Membership,
    /// This device's role (a device of the person's may hold none).
    role: Option<Role>,
    /// Each member's device (hex) and name.
    names: Vec<(String, Option<String>)>,
    /// The names devices gave, by device (hex).
    contacts: std::collections::BTreeMap<String, String>,
}

/// A member whose session follows an exchange: the share, and what it
/// said of itself.
struct Hello {
    share: ShareId,
    name: String,
    addrs: Vec<SocketAddr>,
}

impl Inner {
    /// Whether `device` is this device or one paired with it, now or once
    /// (one of the person's: a share a device of the person created, lost
    /// and unpaired since, stays the person's other devices' own; an
    /// unpaired device cannot connect).
    fn own_device(&self, registry: &crate::Registry, device: &[u8; 32]) -> bool {
        device == self.identity.id().as_bytes() || registry.ever_paired(&hex::encode(device))
    }

    /// Has one of the person's devices that holds a grant of `share` grant
    /// this device `admin` in it (a device of the person takes part in a
    /// share without a grant until it acts: docs/sharing.md).
    async fn grant_me(self: &Arc<Self>, share: &ShareId) -> Result<(), ShareActionError> {
        let me = *self.identity.id().as_bytes();
        let granted = |inner: &Inner| {
            lock(&inner.shares)
                .get(share)
                .is_some_and(|held| held.membership().role_of(&me).is_some())
        };
        if granted(self) {
            return Ok(());
        }
        for peer in self.connected_own() {
            let Ok(addr) = self.addr_of(&peer) else { continue };
            if let Ok(ShareReply::Own { shares }) =
                self.ask_share(&addr, &ShareRequest::GrantOwn { share: *share }).await
            {
                let inner = self.clone();
                let _ = tokio::task::spawn_blocking(move || inner.take_own(shares)).await;
                if granted(self) {
                    return Ok(());
                }
            }
        }
        Err(ShareActionError::NoGrantReachable)
    }

    /// Refuses a share of `project` other than `share` when this device
    /// holds one already (a project is shared once), or one whose namespace
    /// another share's is.
    fn one_share_of(&self, project: &Namespace, share: &ShareId) -> Result<(), JoinError> {
        let namespace = namespace_of(share);
        let shares = lock(&self.shares);
        match shares.all().find(|held| {
            held.id != *share && (held.project == *project || held.namespace() == namespace)
        }) {
            Some(other) => Err(JoinError::Refused(Refusal::Internal(format!(
                "this device holds another share of {} already ({}); a project is shared once",
                other.project, other.record.namespace
            )))),
            None => Ok(()),
        }
    }

    /// Refuses a ticket this device made, or one expired.
    fn check_ticket(&self, ticket: &ShareTicket) -> Result<(), JoinError> {
        let now = (self.clock)();
        if ticket.addr.id == self.identity.id() {
            return Err(JoinError::OwnTicket);
        }
        if now.0 >= ticket.expires_at.0 {
            return Err(JoinError::Expired((now.0 - ticket.expires_at.0) / 1000));
        }
        Ok(())
    }

    /// A member's name: what it said of itself, else the registry's.
    fn member_name(&self, held: &crate::shares::HeldShare, device: &str) -> Option<String> {
        held.record
            .contacts
            .get(device)
            .map(|contact| contact.name.clone())
            .filter(|name| !name.is_empty())
            .or_else(|| self.replica.registry().name_of(device))
    }

    fn unexpected(&self, addr: &EndpointAddr, reply: &ShareReply) -> JoinError {
        JoinError::Unreachable {
            addrs: addrs_text(addr),
            source: DialError::OutOfTurn(format!("{reply:?}")),
        }
    }

    /// One request of `ferrex/share/1` to `addr`, and its answer.
    async fn ask_share(
        &self,
        addr: &EndpointAddr,
        request: &ShareRequest,
    ) -> Result<ShareReply, JoinError> {
        self.ask(addr, SHARE_ALPN, request, MAX_SHARE_BYTES).await
    }

    /// Every statement held of `share`.
    fn statements_of(&self, share: &ShareId) -> Vec<Vec<u8>> {
        lock(&self.shares)
            .get(share)
            .map(|held| {
                held.statements
                    .lacking_from(&BTreeSet::new())
                    .into_iter()
                    .map(<[u8]>::to_vec)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Takes what of `statements` the rules of `share` entitle; acts on
    /// the change when any is new.
    fn take_statements(self: &Arc<Self>, share: &ShareId, statements: &[Vec<u8>]) {
        self.take_statements_if(share, statements, |_| true);
    }

    /// [`Inner::take_statements`] if `wanted` says yes to the members they
    /// would make ([`crate::statement_log::StatementLog::take_if`]).
    fn take_statements_if(
        self: &Arc<Self>,
        share: &ShareId,
        statements: &[Vec<u8>],
        wanted: impl FnOnce(&crate::membership::Membership) -> bool,
    ) {
        let taken = lock(&self.shares).take_if(share, statements.iter().map(Vec::as_slice), wanted);
        match taken {
            Ok(0) => {}
            Ok(count) => {
                tracing::debug!(share = %short(&share.to_hex()), count, "took a share's statements");
                self.share_changed(share);
            }
            Err(error) => tracing::warn!("could not keep a share's statements: {error}"),
        }
    }

    /// `share`'s statements changed here: every session of it ends (a
    /// member gone is refused at its next exchange, the others hear the
    /// news in it), and the person's devices connected now are told.
    fn share_changed(self: &Arc<Self>, share: &ShareId) {
        self.refresh_read_only();
        // A member gone: the paired devices' sessions start again too, each
        // opening with the exchange of statements, so none passes on to it
        // what arrives after (docs/sharing.md).
        let members: BTreeSet<[u8; 32]> = lock(&self.shares)
            .get(share)
            .map(|held| held.membership().members().into_iter().map(|m| m.device).collect())
            .unwrap_or_default();
        let lost = lock(&self.members_seen)
            .insert(*share, members.clone())
            .is_some_and(|before| !before.is_subset(&members));

        let suffix = format!(".{}", &share.to_hex()[..16]);
        for (key, slot) in lock(&self.slots).iter() {
            if key.ends_with(&suffix)
                && let Some(live) = &slot.live
            {
                live.connection.close(MEMBERS_CHANGED.into(), b"the share's members changed");
            }
        }
        let own = self.connected_own();
        // A paired device's session carries the shares it is a member of:
        // one whose membership changed starts again.
        for peer in &own {
            let scope = self.own_scope(peer);
            // No entry: a session starting, whose scope may predate this.
            let changed =
                lock(&self.own_scopes).get(peer).is_none_or(|held| *held != scope) || lost;
            if changed
                && let Some(live) = lock(&self.slots).get(peer).and_then(|slot| slot.live.as_ref())
            {
                live.connection.close(MEMBERS_CHANGED.into(), b"the shares it may hold changed");
            }
        }
        for peer in own {
            tokio::spawn(self.clone().exchange_own(peer));
        }
        self.wake.notify_one();
    }

    /// Makes the namespaces of the shares this device may not write (its
    /// role is read, or it was removed) refuse writes here.
    pub(super) fn refresh_read_only(&self) {
        let me = *self.identity.id().as_bytes();
        let registry = self.replica.registry();
        let own = |device: &[u8; 32]| self.own_device(&registry, device);
        let memberships: Vec<_> =
            lock(&self.shares).all().map(|held| (held.namespace(), held.membership())).collect();
        let read_only = policy::read_only_here(&facts(&memberships), &me, own);
        let stand_ins = memberships
            .iter()
            .filter_map(|(namespace, membership)| {
                Some((namespace.clone(), policy::stand_in(membership, &me)?))
            })
            .collect();
        self.replica.set_read_only(read_only);
        self.replica.set_stand_ins(stand_ins);
    }

    /// What a session with the paired device `peer` carries: every
    /// document but the shares it is not a member of, read-only for those
    /// it may only read.
    pub(super) fn own_scope(&self, peer: &str) -> Scope {
        let Some(device) = device_bytes(peer) else { return Scope::own() };
        let registry = self.replica.registry();
        let shares = lock(&self.shares);
        let memberships: Vec<_> =
            shares.all().map(|held| (held.namespace(), held.membership())).collect();
        drop(shares);
        policy::scope_for_paired(
            &facts(&memberships),
            &self.replica.namespaces(),
            &device,
            |device| self.own_device(&registry, device),
        )
    }

    /// Every share held, as the person's devices tell each other.
    fn own_shares(&self) -> Vec<OwnShare> {
        lock(&self.shares)
            .all()
            .map(|held| OwnShare {
                share: held.id,
                project: held.record.project.clone(),
                statements: held
                    .statements
                    .lacking_from(&BTreeSet::new())
                    .into_iter()
                    .map(<[u8]>::to_vec)
                    .collect(),
                contacts: held
                    .record
                    .contacts
                    .iter()
                    .map(|(device, contact)| {
                        (device.clone(), contact.name.clone(), contact.addrs.clone())
                    })
                    .collect(),
            })
            .collect()
    }

    /// Takes the shares one of the person's own devices holds: those new
    /// here are held from now on, the statements of the others taken.
    fn take_own(self: &Arc<Self>, shares: Vec<OwnShare>) {
        for own in shares.into_iter().take(256) {
            let Ok(project) = Namespace::parse(&own.project) else { continue };
            if let Err(error) = self.one_share_of(&project, &own.share) {
                tracing::warn!("not holding a share of another own device: {error}");
                continue;
            }
            let (adopted, taken) = {
                let mut held = lock(&self.shares);
                let before = held.get(&own.share).map(|held| held.statements.len());
                let adopted = match held.adopt(
                    own.share,
                    &project,
                    own.statements.iter().map(Vec::as_slice),
                    (self.clock)(),
                ) {
                    Ok(adopted) => adopted,
                    Err(error) => {
                        tracing::warn!("could not take a share of another own device: {error}");
                        continue;
                    }
                };
                for (device, name, addrs) in own.contacts.iter().take(64) {
                    let known = held
                        .get(&own.share)
                        .is_some_and(|share| share.record.contacts.contains_key(device));
                    if !known && let Err(error) = held.note_contact(&own.share, device, name, addrs)
                    {
                        tracing::warn!("could not record a member's address: {error}");
                    }
                }
                let after = held.get(&own.share).map(|held| held.statements.len());
                (adopted, after != before)
            };
            if adopted {
                tracing::info!(share = %short(&own.share.to_hex()), %project, "holding a share of another own device");
            }
            if adopted || taken {
                self.share_changed(&own.share);
            }
        }
    }

    /// Tells the person's device `peer` of every share held, and takes
    /// those it holds.
    pub(super) async fn exchange_own(self: Arc<Self>, peer: String) -> Result<(), DialError> {
        let addr = self.addr_of(&peer)?;
        let request = ShareRequest::Own { shares: self.own_shares() };
        match self.ask_share(&addr, &request).await {
            Ok(ShareReply::Own { shares }) => {
                let inner = self.clone();
                tokio::task::spawn_blocking(move || inner.take_own(shares))
                    .await
                    .map_err(|error| DialError::Taking(error.to_string()))
            }
            Ok(ShareReply::Refused(refusal)) => {
                tracing::debug!(peer = %short(&peer), "the device refused its shares: {refusal}");
                Err(DialError::Refused(refusal))
            }
            Ok(other) => Err(DialError::OutOfTurn(format!("{other:?}"))),
            Err(JoinError::Unreachable { source, .. }) => Err(source),
            Err(other) => Err(DialError::Taking(other.to_string())),
        }
    }

    /// In a share joined, grants each paired device the role this device
    /// holds there (a device never granted, or whose grants all fell with a
    /// device the person unpaired); in every share, revokes the grants of
    /// devices the registry revoked.
    pub(super) fn grant_own_devices(self: &Arc<Self>) {
        let registry = self.replica.registry();
        let paired: Vec<[u8; 32]> = registry
            .paired()
            .iter()
            .filter(|id| **id != self.me)
            .filter_map(|id| device_bytes(id))
            .collect();
        let revoked: Vec<[u8; 32]> =
            lock(&self.revoked).iter().filter_map(|id| device_bytes(id)).collect();
        let me = *self.identity.id().as_bytes();
        let now = (self.clock)();
        let mut changed = Vec::new();
        let mut shares = lock(&self.shares);
        let ids: Vec<ShareId> = shares.all().map(|held| held.id).collect();
        for share in ids {
            let Some(held) = shares.get(&share) else { continue };
            let membership = held.membership();
            // In a share the person created, the person's devices take part
            // without a grant (one is signed when a device acts): only a
            // share joined is granted to the devices paired with this one.
            let created_here =
                held.creator().is_some_and(|creator| self.own_device(&registry, &creator));
            let actions =
                policy::own_statements_to_sign(&membership, &me, created_here, &paired, &revoked);
            for action in actions {
                match shares.sign(&share, self.identity.secret(), action, now) {
                    Ok(Some(_)) => changed.push(share),
                    Ok(None) => {}
                    Err(error) => tracing::warn!("could not sign a share's statement: {error}"),
                }
            }
        }
        drop(shares);
        changed.dedup();
        for share in changed {
            self.share_changed(&share);
        }
    }

    /// The members of held shares this device should have a session with
    /// and has not (the person's own devices sync in their own sessions),
    /// when their backoff allows.
    pub(super) fn members_to_dial(&self, now: Instant) -> Vec<(ShareId, String, Vec<SocketAddr>)> {
        let registry = self.replica.registry();
        let me = *self.identity.id().as_bytes();
        let wanted: Vec<(ShareId, String, Vec<SocketAddr>)> = {
            let shares = lock(&self.shares);
            shares
                .all()
                .flat_map(|held| {
                    let membership = held.membership();
                    let member = membership.role_of(&me).is_some();
                    membership
                        .members()
                        .into_iter()
                        .filter(move |_| member)
                        .map(|member| hex::encode(member.device))
                        .filter(|device| *device != self.me && !registry.is_paired(device))
                        .filter_map(|device| {
                            let addrs = held.record.contacts.get(&device)?.addrs.clone();
                            (!addrs.is_empty()).then_some((held.id, device, addrs))
                        })
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let mut slots = lock(&self.slots);
        wanted
            .into_iter()
            .filter(|(share, device, _)| {
                let slot = slots.entry(member_key(device, share)).or_default();
                let connected =
                    slot.live.as_ref().is_some_and(|live| live.connection.close_reason().is_none());
                slot.link.start_dial(connected, now)
            })
            .collect()
    }

    /// Dials `peer`, a member of `share`, for an exchange and a session.
    pub(super) async fn dial_member(
        self: Arc<Self>,
        share: ShareId,
        peer: String,
        addrs: Vec<SocketAddr>,
    ) {
        let key = member_key(&peer, &share);
        let outcome = async {
            let id: EndpointId = peer.parse().map_err(|_| DialError::BadId(peer.clone()))?;
            let addr = EndpointAddr::from_parts(id, addrs.into_iter().map(TransportAddr::Ip));
            let connection =
                tokio::time::timeout(DIAL_TIMEOUT, self.endpoint.connect(addr, SHARE_ALPN))
                    .await
                    .map_err(|_| DialError::TimedOut(DIAL_TIMEOUT))??;
            let (mut send, mut recv) = tokio::time::timeout(DIAL_TIMEOUT, connection.open_bi())
                .await
                .map_err(|_| DialError::TimedOut(DIAL_TIMEOUT))??;
            let request = ShareRequest::Member {
                share,
                statements: self.statements_of(&share),
                name: self.name.clone(),
                addrs: self.addrs(),
            };
            write_frame(&mut send, &request).await?;
            let reply = tokio::time::timeout(
                PAIR_TIMEOUT,
                read_frame::<ShareReply>(&mut recv, MAX_MEMBER_BYTES),
            )
            .await
            .map_err(|_| DialError::TimedOut(PAIR_TIMEOUT))??
            .map(|(reply, _)| reply)
            .ok_or(DialError::NoAnswer)?;
            Ok::<_, DialError>((connection, send, recv, reply))
        }
        .await;
        let succeeded = matches!(&outcome, Ok((_, _, _, ShareReply::Member { .. })));
        {
            let mut slots = lock(&self.slots);
            let slot = slots.entry(key.clone()).or_default();
            if succeeded {
                slot.link.dial_succeeded();
            } else {
                slot.link.dial_failed(Instant::now(), random());
            }
        }
        let (connection, send, recv, reply) = match outcome {
            Ok(dialed) => dialed,
            Err(reason) => {
                tracing::debug!(peer = %short(&peer), "dialing a share's member failed: {reason}");
                return;
            }
        };
        let ShareReply::Member { statements, name, addrs } = reply else {
            tracing::info!(peer = %short(&peer), "a share's member refused this device: {reply:?}");
            connection.close(0u32.into(), b"refused");
            return;
        };
        if statements.len() > MAX_STATEMENTS + MAX_WAITING {
            tracing::info!(peer = %short(&peer), "a share's member sent too many statements");
            connection.close(0u32.into(), b"too many statements");
            return;
        }
        self.member_session(
            share,
            peer,
            name,
            addrs,
            statements,
            connection,
            send,
            recv,
            Dialer::ThisDevice,
        )
        .await;
    }

    /// After an exchange with `peer` of `share`: takes its statements and
    /// its word on itself, then runs the session if both are members.
    #[allow(clippy::too_many_arguments, reason = "the parts of one exchange")]
    async fn member_session(
        self: &Arc<Self>,
        share: ShareId,
        peer: String,
        name: String,
        addrs: Vec<SocketAddr>,
        statements: Vec<Vec<u8>>,
        connection: Connection,
        send: SendStream,
        recv: RecvStream,
        dialer: Dialer,
    ) {
        if !statements.is_empty() {
            let (inner, share) = (self.clone(), share);
            let _ = tokio::task::spawn_blocking(move || inner.take_statements(&share, &statements))
                .await;
        }
        if let Err(error) = lock(&self.shares).note_contact(&share, &peer, &name, &addrs) {
            tracing::warn!("could not record a member's address: {error}");
        }
        let key = member_key(&peer, &share);
        let scope_now = |inner: &Inner| -> Option<Scope> {
            let membership = lock(&inner.shares).get(&share)?.membership();
            let facts =
                policy::ShareFacts { namespace: namespace_of(&share), membership: &membership };
            policy::scope_for_member(&facts, inner.identity.id().as_bytes(), &device_bytes(&peer)?)
        };
        let Some(scope) = scope_now(self) else {
            connection.close(NOT_PAIRED.into(), b"not a member of the share");
            return;
        };
        // Checked again under the slots lock: a revocation taken meanwhile
        // closes the sessions it finds there, and this one is not yet.
        if !self
            .admit_as(&key, &peer, &connection, dialer, || scope_now(self).as_ref() == Some(&scope))
        {
            connection.close(DUPLICATE.into(), b"duplicate connection");
            return;
        }
        self.serve_as(key, scope, connection, send, recv).await;
    }

    /// Answers one request on a `ferrex/share/1` connection from `from`;
    /// `Some` when a member's session follows, with its statements, name and addresses.
    fn answer(
        self: &Arc<Self>,
        from: EndpointId,
        request: ShareRequest,
    ) -> (ShareReply, Option<Hello>) {
        let peer = from.to_string();
        let own =
            self.allowed.read().unwrap_or_else(std::sync::PoisonError::into_inner).contains(&from);
        match request {
            ShareRequest::Preview { share, secret } => (self.preview(&peer, share, &secret), None),
            ShareRequest::Join { share, secret, name, addrs } => {
                (self.admit_joiner(&peer, share, &secret, &name, &addrs), None)
            }
            ShareRequest::Own { shares } if own => {
                self.take_own(shares);
                (ShareReply::Own { shares: self.own_shares() }, None)
            }
            ShareRequest::GrantOwn { share } if own => {
                let now = (self.clock)();
                let grant = Action::Grant { device: *from.as_bytes(), role: Role::Admin };
                let signed = lock(&self.shares).sign(&share, self.identity.secret(), grant, now);
                match signed {
                    Ok(Some(_)) => {
                        tracing::info!(peer = %short(&peer), "granted one of this person's devices admin of a share, as it acts");
                        self.share_changed(&share);
                        (ShareReply::Own { shares: self.own_shares() }, None)
                    }
                    Ok(None) => (
                        ShareReply::Refused(Refusal::Internal(
                            "this device holds no grant to give one from either".into(),
                        )),
                        None,
                    ),
                    Err(error) => (ShareReply::Refused(Refusal::Internal(error.to_string())), None),
                }
            }
            ShareRequest::Own { .. } | ShareRequest::GrantOwn { .. } => {
                tracing::info!(
                    peer = %from.fmt_short(),
                    alpn = "ferrex/share/1",
                    "refused a connection from a device that is not paired"
                );
                (ShareReply::Refused(Refusal::NotMember), None)
            }
            ShareRequest::Member { share, statements, name, addrs } => {
                // A device refused here is throttled as a failed pairing is:
                // anyone may ask, and taking statements costs a check each.
                let now = (self.clock)();
                // A member this device knows is never held back; a device
                // that is not one is throttled (on a throttle of its own:
                // strangers cannot hold back pairing), since taking its
                // statements costs a check each.
                let known = lock(&self.shares)
                    .get(&share)
                    .is_some_and(|held| held.membership().role_of(from.as_bytes()).is_some());
                if !known && let Err(wait) = lock(&self.member_throttle).check(&peer, now) {
                    let retry_after_secs = wait.as_secs().max(1);
                    return (ShareReply::Refused(Refusal::Throttled { retry_after_secs }), None);
                }
                let refuse = |refusal: Refusal| {
                    lock(&self.member_throttle).failed(&peer, now);
                    (ShareReply::Refused(refusal), None)
                };
                if own {
                    // The person's own devices hold the share's documents
                    // in their own sessions.
                    return (
                        ShareReply::Refused(Refusal::Internal(
                            "a paired device syncs shares in its own session".into(),
                        )),
                        None,
                    );
                }
                if statements.len() > MAX_STATEMENTS + MAX_WAITING {
                    return refuse(Refusal::Internal("too many statements".into()));
                }
                if known && !lock(&self.member_rate).allow(&peer, &share, now) {
                    return (
                        ShareReply::Refused(Refusal::Throttled {
                            retry_after_secs: MEMBER_REQUEST_EVERY.as_secs(),
                        }),
                        None,
                    );
                }
                // Statements are taken only from a device they make a member
                // (a device just granted): a removed member's are not kept
                // to be refused afterwards. A share this device does not
                // hold gets the same answer, so a stranger learns nothing of
                // which shares it holds.
                let me = *self.identity.id().as_bytes();
                let both = |membership: &crate::membership::Membership| {
                    membership.role_of(&me).is_some()
                        && membership.role_of(from.as_bytes()).is_some()
                };
                let held = lock(&self.shares).get(&share).is_some();
                if held {
                    self.take_statements_if(&share, &statements, both);
                }
                let membership = lock(&self.shares).get(&share).map(|held| held.membership());
                if let Some(refusal) =
                    policy::member_refusal(membership.as_ref(), &me, from.as_bytes())
                {
                    tracing::info!(peer = %short(&peer), "refused a device that is not a member of the share");
                    return refuse(refusal);
                }
                lock(&self.member_throttle).succeeded(&peer);
                let reply = ShareReply::Member {
                    statements: self.statements_of(&share),
                    name: self.name.clone(),
                    addrs: self.addrs(),
                };
                (reply, Some(Hello { share, name, addrs }))
            }
        }
    }

    /// The members of `share` by what this device holds now.
    fn members_now(&self, share: &ShareId) -> Vec<[u8; 32]> {
        lock(&self.shares)
            .get(share)
            .map(|held| held.membership().members().iter().map(|member| member.device).collect())
            .unwrap_or_default()
    }

    /// What joining `share` with `secret` would bring.
    fn preview(&self, peer: &str, share: ShareId, secret: &[u8; 32]) -> ShareReply {
        let now = (self.clock)();
        // Read before the throttle is locked: no lock is held while another
        // is taken but in the order throttle, invites.
        let members = self.members_now(&share);
        let mut throttle = lock(&self.throttle);
        if let Err(wait) = throttle.check(peer, now) {
            return ShareReply::Refused(Refusal::Throttled {
                retry_after_secs: wait.as_secs().max(1),
            });
        }
        let invite = match lock(&self.invites).peek_share(secret, share, &members, now) {
            Ok(invite) => invite,
            Err(refusal) => {
                throttle.failed(peer, now);
                return ShareReply::Refused(refusal);
            }
        };
        drop(throttle);
        let namespace = namespace_of(&share);
        let memories = self
            .replica
            .stats()
            .iter()
            .filter(|stat| stat.id.namespace() == Some(&namespace))
            .map(|stat| stat.memories as u64)
            .sum();
        ShareReply::Preview {
            project: invite.project,
            role: invite.role,
            memories,
            name: self.name.clone(),
        }
    }

    /// Takes `peer` into `share` with the invitation of `secret`.
    fn admit_joiner(
        self: &Arc<Self>,
        peer: &str,
        share: ShareId,
        secret: &[u8; 32],
        name: &str,
        addrs: &[SocketAddr],
    ) -> ShareReply {
        let now = (self.clock)();
        let Some(device) = device_bytes(peer) else {
            return ShareReply::Refused(Refusal::UnknownSecret);
        };
        let members = self.members_now(&share);
        let mut throttle = lock(&self.throttle);
        if let Err(wait) = throttle.check(peer, now) {
            return ShareReply::Refused(Refusal::Throttled {
                retry_after_secs: wait.as_secs().max(1),
            });
        }
        if self.replica.registry().is_paired(peer) {
            throttle.failed(peer, now);
            return ShareReply::Refused(Refusal::Internal(
                "that device is one of this person's own: it holds the share already".into(),
            ));
        }
        let invite = match lock(&self.invites).redeem_share(secret, share, &members, peer, now) {
            Ok(invite) => invite,
            Err(refusal) => {
                throttle.failed(peer, now);
                tracing::info!(peer = %short(peer), "refused a share's join: {refusal}");
                return ShareReply::Refused(refusal);
            }
        };
        throttle.succeeded(peer);
        drop(throttle);
        let grant = Action::Grant { device, role: invite.role };
        let mut shares = lock(&self.shares);
        match shares.sign(&share, self.identity.secret(), grant, now) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return ShareReply::Refused(Refusal::Internal(
                    "this device may no longer grant that role in the share".into(),
                ));
            }
            Err(error) => return ShareReply::Refused(Refusal::Internal(error.to_string())),
        }
        if let Err(error) = shares.note_contact(&share, peer, name, addrs) {
            tracing::warn!("could not record the joiner's address: {error}");
        }
        let project =
            shares.get(&share).map(|held| held.record.project.clone()).unwrap_or_default();
        drop(shares);
        tracing::info!(peer = %short(peer), role = invite.role.as_str(), "a device joined a shared project");
        self.share_changed(&share);
        ShareReply::Joined {
            project,
            statements: self.statements_of(&share),
            name: self.name.clone(),
            addrs: self.addrs(),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct ShareProtocol(pub(super) Arc<Inner>);

impl ProtocolHandler for ShareProtocol {
    async fn accept(&self, connection: Connection) -> Result<(), AcceptError> {
        let inner = &self.0;
        let from = connection.remote_id();
        let exchange = async {
            let (mut send, mut recv) =
                connection.accept_bi().await.map_err(AcceptError::from_err)?;
            // Up to every share's statements from the person's own
            // devices; a member's or a joiner's request is far smaller.
            let own = inner
                .allowed
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .contains(&from);
            let max = if own { MAX_SHARE_BYTES } else { MAX_MEMBER_BYTES };
            let Some((request, _)) =
                read_frame::<ShareRequest>(&mut recv, max).await.map_err(AcceptError::from_err)?
            else {
                return Ok(None);
            };
            // Statements are checked and written down: off the async threads.
            let answering = inner.clone();
            let (reply, session) =
                tokio::task::spawn_blocking(move || answering.answer(from, request))
                    .await
                    .map_err(AcceptError::from_err)?;
            write_frame(&mut send, &reply).await.map_err(AcceptError::from_err)?;
            Ok::<_, AcceptError>(Some((send, recv, session)))
        };
        let Ok(outcome) = tokio::time::timeout(PAIR_TIMEOUT, exchange).await else {
            return Ok(());
        };
        let Some((mut send, recv, session)) = outcome? else { return Ok(()) };
        match session {
            Some(Hello { share, name, addrs }) => {
                inner
                    .member_session(
                        share,
                        from.to_string(),
                        name,
                        addrs,
                        Vec::new(),
                        connection,
                        send,
                        recv,
                        Dialer::Peer,
                    )
                    .await;
            }
            None => {
                let _ = send.finish();
                // Let the answer reach the asker before the connection goes.
                let _ = tokio::time::timeout(PAIR_TIMEOUT, connection.closed()).await;
            }
        }
        Ok(())
    }
}
