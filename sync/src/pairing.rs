//! The bookkeeping of pairing: outstanding invitations and the throttle on
//! failed attempts. Pure state with `now` passed in; the network side is in
//! [`crate::network`].
//!
//! An invitation is stored as the sha256 of its secret (the secret itself is
//! only in the ticket), with its expiry and, once redeemed, who redeemed it.
//! Invitations are kept in a small JSON file so that a node restarted between
//! `ferrex invite` and `ferrex join` still honours its tickets.

use std::{
    collections::{HashMap, VecDeque},
    path::{Path, PathBuf},
    time::Duration,
};

use ferrex_core::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::membership::{Role, ShareId};

/// Why a join attempt is refused. The text is what the joiner is shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum Refusal {
    /// The secret matches no invitation of this device.
    #[error(
        "the ticket's secret is not one this device issued (a wrong or altered ticket); ask for a new one with `ferrex invite`"
    )]
    UnknownSecret,
    /// The invitation expired.
    #[error("the ticket expired; ask for a new one with `ferrex invite`")]
    Expired,
    /// The invitation was already used by another device.
    #[error(
        "the ticket was already used; each ticket pairs one device, so run `ferrex invite` again"
    )]
    AlreadyUsed,
    /// The joining device was removed from this group of devices.
    #[error(
        "this device was removed from the group (`ferrex peers remove`); it cannot pair again with the same identity"
    )]
    Revoked,
    /// Too many failed attempts.
    #[error("too many failed pairing attempts; try again in {retry_after_secs} s")]
    Throttled {
        /// Seconds until the next attempt is considered.
        retry_after_secs: u64,
    },
    /// The inviting device could not record the pairing.
    #[error("the inviting device could not record the pairing: {0}")]
    Internal(String),
    /// The ticket's secret belongs to another shared project than the one
    /// the ticket names (an altered ticket).
    #[error(
        "the ticket's secret is for another shared project than the one it names (an altered ticket); ask for a new one with `ferrex share`"
    )]
    OtherShare,
    /// The asking device is not a member of the share (never was, or was
    /// removed).
    #[error(
        "this device is not a member of that shared project (it was removed, or never joined); ask an admin for a new ticket with `ferrex share`"
    )]
    NotMember,
    /// The answering device does not hold the share. No longer sent: a
    /// share not held is answered [`Refusal::NotMember`], so a stranger
    /// learns nothing of which shares a device holds; kept for older peers.
    #[error("the other device does not hold that shared project")]
    UnknownShare,
    /// The share's project on this device would be `default` or a share's
    /// namespace (a ticket made by hand).
    #[error("the ticket names a project that cannot be shared: {0}")]
    BadProject(String),
    /// The invitation was made before a member of its share was removed.
    #[error(
        "the ticket was made before a member of the shared project was removed, so it admits nobody; ask for a new one with `ferrex share`"
    )]
    Ended,
}

/// What a share's invitation gives, as the inviting device recorded it
/// (the ticket says the same, but only this record counts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareInvite {
    /// The share's id.
    pub share: ShareId,
    /// The project shared.
    pub project: String,
    /// The role the joining device gets.
    pub role: Role,
    /// The share's members when the ticket was made: if one of them is no
    /// longer a member, the ticket admits nobody (a ticket is not tied to
    /// the person it was given to, so one made before a removal must not
    /// admit anyone after it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<[u8; 32]>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Invite {
    /// sha256 of the secret, in hex.
    hash: String,
    expires_at: i64,
    used_at: Option<i64>,
    used_by: Option<String>,
    /// For a share's invitation, what it gives; none for a pairing's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    share: Option<ShareInvite>,
}

/// Invitations of this device, persisted in a JSON file.
#[derive(Debug)]
pub struct Invites {
    path: Option<PathBuf>,
    invites: Vec<Invite>,
}

/// How long used and expired invitations are remembered (to tell "used" and
/// "expired" apart from "wrong").
const REMEMBER: i64 = 7 * 24 * 3600 * 1000;

fn hash(secret: &[u8; 32]) -> String {
    Sha256::digest(secret).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A share invitation's secret is kept as the hash of a domain string and
/// the secret, never as a pairing's: a ferrex from before shares, which
/// reads only the hash, cannot take a share's secret for an invitation to
/// pair (and so a teammate's device for one of the person's own).
fn share_hash(secret: &[u8; 32]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"ferrex/share-invite/1\0");
    hasher.update(secret);
    hex::encode(hasher.finalize())
}

/// How an invitation's secret is kept: a share's ([`share_hash`]) or a
/// pairing's.
fn hash_for(secret: &[u8; 32], share: bool) -> String {
    if share { share_hash(secret) } else { hash(secret) }
}

impl Invites {
    /// Invitations kept only in memory.
    pub fn in_memory() -> Invites {
        Invites { path: None, invites: Vec::new() }
    }

    /// Loads the invitations in `path` (none if the file does not exist);
    /// an error when it is damaged.
    pub fn load(path: &Path) -> Result<Invites, crate::StateFileError> {
        let invites = crate::state_file::load_json(path)?.unwrap_or_default();
        Ok(Invites { path: Some(path.to_owned()), invites })
    }

    /// Records a new invitation to pair.
    pub fn create(&mut self, secret: &[u8; 32], expires_at: Timestamp, now: Timestamp) {
        self.add(secret, expires_at, now, None);
    }

    /// Records a new invitation to a share.
    pub fn create_share(
        &mut self,
        secret: &[u8; 32],
        expires_at: Timestamp,
        now: Timestamp,
        share: ShareInvite,
    ) {
        self.add(secret, expires_at, now, Some(share));
    }

    fn add(
        &mut self,
        secret: &[u8; 32],
        expires_at: Timestamp,
        now: Timestamp,
        share: Option<ShareInvite>,
    ) {
        self.invites.retain(|invite| invite.expires_at + REMEMBER > now.0);
        self.invites.push(Invite {
            hash: hash_for(secret, share.is_some()),
            expires_at: expires_at.0,
            used_at: None,
            used_by: None,
            share,
        });
        // Not saved, the invitation is lost at the next start: its ticket
        // then admits nobody, which is the safe way to fail.
        if let Err(error) = self.save() {
            tracing::warn!("could not save invitations: {error}");
        }
    }

    /// Redeems the invitation to pair with `secret` for device `by`: it
    /// must exist, be unexpired and unused. On success it is marked used.
    /// A share's secret is no invitation to pair.
    pub fn redeem(&mut self, secret: &[u8; 32], by: &str, now: Timestamp) -> Result<(), Refusal> {
        self.redeem_for(secret, by, now, None).map(|_| ())
    }

    /// Redeems the invitation to `share` with `secret` for device `by`, as
    /// [`Invites::redeem`] does; what the inviting device recorded that it
    /// gives. A pairing's secret is no invitation to a share, and one of
    /// another share is refused.
    pub fn redeem_share(
        &mut self,
        secret: &[u8; 32],
        share: ShareId,
        members: &[[u8; 32]],
        by: &str,
        now: Timestamp,
    ) -> Result<ShareInvite, Refusal> {
        self.redeem_for(secret, by, now, Some((share, members)))?.ok_or(Refusal::UnknownSecret)
    }

    /// What the invitation to `share` with `secret` gives, if
    /// [`Invites::redeem_share`] would take it now; nothing is used up (a
    /// joiner sees what joining brings before it joins).
    pub fn peek_share(
        &self,
        secret: &[u8; 32],
        share: ShareId,
        members: &[[u8; 32]],
        now: Timestamp,
    ) -> Result<ShareInvite, Refusal> {
        self.check(secret, now, Some((share, members)))?.ok_or(Refusal::UnknownSecret)
    }

    fn redeem_for(
        &mut self,
        secret: &[u8; 32],
        by: &str,
        now: Timestamp,
        share: Option<(ShareId, &[[u8; 32]])>,
    ) -> Result<Option<ShareInvite>, Refusal> {
        let given = self.check(secret, now, share)?;
        let wanted = hash_for(secret, share.is_some());
        let Some(at) = self.invites.iter().position(|invite| invite.hash == wanted) else {
            return Err(Refusal::UnknownSecret);
        };
        self.invites[at].used_at = Some(now.0);
        self.invites[at].used_by = Some(by.to_owned());
        // Used only once that is durable: a ticket whose use was not
        // written down would admit a device again after a restart.
        if let Err(error) = self.save() {
            self.invites[at].used_at = None;
            self.invites[at].used_by = None;
            return Err(Refusal::Internal(format!("could not record the ticket as used: {error}")));
        }
        Ok(given)
    }

    /// Whether the invitation with `secret` (to `share`, whose members are
    /// now those given, or to pair) would be taken now, and what it gives.
    fn check(
        &self,
        secret: &[u8; 32],
        now: Timestamp,
        share: Option<(ShareId, &[[u8; 32]])>,
    ) -> Result<Option<ShareInvite>, Refusal> {
        let (share, members) = match share {
            Some((share, members)) => (Some(share), Some(members)),
            None => (None, None),
        };
        let wanted = hash_for(secret, share.is_some());
        let invite = self
            .invites
            .iter()
            .find(|invite| invite.hash == wanted)
            .ok_or(Refusal::UnknownSecret)?;
        // Kept apart by their hashes, a pairing's secret finds only a
        // pairing's invitation; a share's must be of the share named (one
        // whose record a ferrex from before shares dropped is unknown).
        if let Some(named) = share {
            match &invite.share {
                Some(recorded) if recorded.share == named => {}
                Some(_) => return Err(Refusal::OtherShare),
                None => return Err(Refusal::UnknownSecret),
            }
        }
        if invite.used_at.is_some() {
            return Err(Refusal::AlreadyUsed);
        }
        if let (Some(recorded), Some(now_members)) = (&invite.share, members)
            && recorded.members.iter().any(|member| !now_members.contains(member))
        {
            return Err(Refusal::Ended);
        }
        if now.0 >= invite.expires_at {
            return Err(Refusal::Expired);
        }
        Ok(invite.share.clone())
    }

    /// Unexpired, unused invitations.
    pub fn outstanding(&self, now: Timestamp) -> usize {
        self.invites
            .iter()
            .filter(|invite| invite.used_at.is_none() && invite.expires_at > now.0)
            .count()
    }

    fn save(&self) -> Result<(), crate::StateFileError> {
        let Some(path) = &self.path else { return Ok(()) };
        crate::state_file::save_json(path, &self.invites, true)
    }
}

/// Failed attempts a device may make before it has to wait.
const FREE_FAILURES: u32 = 3;
/// The first wait; it doubles with every further failure.
const FIRST_WAIT: Duration = Duration::from_secs(10);
/// The longest wait.
const MAX_WAIT: Duration = Duration::from_secs(3600);
/// Failures are forgotten after this much quiet.
const FORGET_AFTER: Duration = Duration::from_secs(3600);
/// Failures from all devices together, per minute, before everyone waits.
const GLOBAL_FAILURES_PER_MINUTE: usize = 30;

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Timestamp,
}

/// Slows down guessing: each device gets a few free failed attempts, then
/// waits twice as long after each further failure; and when many failures
/// come from many devices (fresh keys are free to make), everyone waits.
#[derive(Debug, Default)]
pub struct Throttle {
    per_device: HashMap<String, Failures>,
    recent: VecDeque<Timestamp>,
}

fn millis(duration: Duration) -> i64 {
    duration.as_millis() as i64
}

impl Throttle {
    /// `Err(wait)` when `device` must not be heard before `wait` has passed.
    pub fn check(&mut self, device: &str, now: Timestamp) -> Result<(), Duration> {
        while self.recent.front().is_some_and(|time| now.0 - time.0 > 60_000) {
            self.recent.pop_front();
        }
        if self.recent.len() >= GLOBAL_FAILURES_PER_MINUTE
            && let Some(oldest) = self.recent.front()
        {
            let wait = 60_000 - (now.0 - oldest.0);
            return Err(Duration::from_millis(wait.max(1000) as u64));
        }
        let Some(failures) = self.per_device.get(device).copied() else { return Ok(()) };
        if now.0 - failures.last.0 > millis(FORGET_AFTER) {
            self.per_device.remove(device);
            return Ok(());
        }
        if failures.count < FREE_FAILURES {
            return Ok(());
        }
        let doublings = (failures.count - FREE_FAILURES).min(16);
        let wait = FIRST_WAIT.saturating_mul(1 << doublings).min(MAX_WAIT);
        let until = failures.last.0 + millis(wait);
        if now.0 < until {
            return Err(Duration::from_millis((until - now.0) as u64).max(Duration::from_secs(1)));
        }
        Ok(())
    }

    /// Records a failed attempt by `device`.
    pub fn failed(&mut self, device: &str, now: Timestamp) {
        // Forget devices that have been quiet long enough (fresh keys would
        // otherwise pile up).
        self.per_device.retain(|_, failures| now.0 - failures.last.0 <= millis(FORGET_AFTER));
        let entry =
            self.per_device.entry(device.to_owned()).or_insert(Failures { count: 0, last: now });
        entry.count += 1;
        entry.last = now;
        self.recent.push_back(now);
    }

    /// Forgets the failures of `device` after it paired.
    pub fn succeeded(&mut self, device: &str) {
        self.per_device.remove(device);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: [u8; 32] = [1; 32];

    #[test]
    fn an_invitation_is_redeemed_once_before_it_expires() {
        let mut invites = Invites::in_memory();
        invites.create(&SECRET, Timestamp(10_000), Timestamp(0));
        assert_eq!(invites.redeem(&[2; 32], "a", Timestamp(1)), Err(Refusal::UnknownSecret));
        assert_eq!(invites.outstanding(Timestamp(1)), 1);
        assert_eq!(invites.redeem(&SECRET, "a", Timestamp(2)), Ok(()));
        assert_eq!(invites.redeem(&SECRET, "b", Timestamp(3)), Err(Refusal::AlreadyUsed));
        assert_eq!(invites.outstanding(Timestamp(3)), 0);

        invites.create(&[3; 32], Timestamp(20_000), Timestamp(4));
        assert_eq!(invites.redeem(&[3; 32], "c", Timestamp(20_000)), Err(Refusal::Expired));
    }

    #[test]
    fn invitations_survive_a_restart_of_the_node() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("invites.json");
        Invites::load(&path).unwrap().create(&SECRET, Timestamp(10_000), Timestamp(0));
        assert_eq!(Invites::load(&path).unwrap().redeem(&SECRET, "a", Timestamp(1)), Ok(()));
        assert_eq!(
            Invites::load(&path).unwrap().redeem(&SECRET, "a", Timestamp(2)),
            Err(Refusal::AlreadyUsed)
        );
        assert!(!std::fs::read_to_string(&path).unwrap().contains("0101"), "no secret on disk");
    }

    #[test]
    fn a_share_invitation_gives_what_was_recorded_once_and_only_for_its_share() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("invites.json");
        // A file from before share invitations loads.
        std::fs::write(&path, r#"[{"hash":"00","expires_at":0,"used_at":null,"used_by":null}]"#)
            .unwrap();
        let (share, other) = (ShareId([4; 32]), ShareId([5; 32]));
        let members = vec![[1; 32], [2; 32]];
        let invite = ShareInvite {
            share,
            project: "github.com/acme/api".into(),
            role: Role::Read,
            members: members.clone(),
        };
        let mut invites = Invites::load(&path).unwrap();
        invites.create_share(&SECRET, Timestamp(10_000), Timestamp(0), invite.clone());
        invites.create(&[2; 32], Timestamp(10_000), Timestamp(0));
        let mut invites = Invites::load(&path).unwrap();
        // Not an invitation to pair; a pairing's secret none to a share.
        assert_eq!(invites.redeem(&SECRET, "t", Timestamp(1)), Err(Refusal::UnknownSecret));
        assert_eq!(
            invites.redeem_share(&[2; 32], share, &members, "t", Timestamp(1)),
            Err(Refusal::UnknownSecret)
        );
        assert_eq!(
            invites.redeem_share(&SECRET, other, &members, "t", Timestamp(1)),
            Err(Refusal::OtherShare)
        );
        assert_eq!(invites.outstanding(Timestamp(1)), 2, "refusals use nothing up");
        // What a ferrex from before shares reads of the file (the hash)
        // matches no pairing's secret.
        let file = std::fs::read_to_string(&path).unwrap();
        assert!(!file.contains(&hash(&SECRET)) && file.contains(&share_hash(&SECRET)));
        // One more member since: still good.
        let grown = [members.clone(), vec![[3; 32]]].concat();
        assert_eq!(invites.redeem_share(&SECRET, share, &grown, "t", Timestamp(2)), Ok(invite));
        assert_eq!(
            Invites::load(&path).unwrap().redeem_share(&SECRET, share, &members, "u", Timestamp(3)),
            Err(Refusal::AlreadyUsed)
        );
        invites.create_share(
            &[3; 32],
            Timestamp(20_000),
            Timestamp(4),
            ShareInvite { share, project: "p".into(), role: Role::Write, members: Vec::new() },
        );
        assert_eq!(
            invites.redeem_share(&[3; 32], share, &members, "v", Timestamp(20_000)),
            Err(Refusal::Expired)
        );
    }

    #[test]
    fn a_ticket_made_before_a_removal_admits_nobody_after_it() {
        let (share, members) = (ShareId([4; 32]), vec![[1; 32], [2; 32]]);
        let mut invites = Invites::in_memory();
        let invite =
            ShareInvite { share, project: "p".into(), role: Role::Write, members: members.clone() };
        invites.create_share(&SECRET, Timestamp(10_000), Timestamp(0), invite);
        let after_removal = [[1; 32]];
        assert_eq!(
            invites.peek_share(&SECRET, share, &after_removal, Timestamp(1)).map(|_| ()),
            Err(Refusal::Ended)
        );
        assert_eq!(
            invites.redeem_share(&SECRET, share, &after_removal, "t", Timestamp(1)).map(|_| ()),
            Err(Refusal::Ended)
        );
        assert_eq!(invites.outstanding(Timestamp(1)), 1, "a refusal uses nothing up");
    }

    #[test]
    fn a_ticket_whose_use_cannot_be_written_down_admits_nobody() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("invites.json");
        let (share, members) = (ShareId([4; 32]), vec![[1; 32]]);
        let invite =
            ShareInvite { share, project: "p".into(), role: Role::Write, members: members.clone() };
        Invites::load(&path).unwrap().create_share(
            &SECRET,
            Timestamp(10_000),
            Timestamp(0),
            invite,
        );
        let mut invites = Invites::load(&path).unwrap();
        crate::faults::arm(0, crate::faults::Fault::NoSpace);
        let redeemed = invites.redeem_share(&SECRET, share, &members, "t", Timestamp(1));
        let (fired, _) = crate::faults::disarm();
        assert!(fired);
        assert!(matches!(redeemed, Err(Refusal::Internal(_))), "{redeemed:?}");
        // Nothing used up, in memory or on disk: after a restart the ticket
        // still works once.
        assert_eq!(invites.outstanding(Timestamp(1)), 1);
        let mut restarted = Invites::load(&path).unwrap();
        assert!(restarted.redeem_share(&SECRET, share, &members, "t", Timestamp(2)).is_ok());
        assert_eq!(
            Invites::load(&path)
                .unwrap()
                .redeem_share(&SECRET, share, &members, "u", Timestamp(3))
                .map(|_| ()),
            Err(Refusal::AlreadyUsed)
        );
    }

    fn at(seconds: i64) -> Timestamp {
        Timestamp(seconds * 1000)
    }

    #[test]
    fn a_device_gets_three_free_failures_then_doubling_waits() {
        let mut throttle = Throttle::default();
        for second in 0..3 {
            assert_eq!(throttle.check("x", at(second)), Ok(()));
            throttle.failed("x", at(second));
        }
        // Three failures: the fourth attempt waits 10 s after the last.
        assert_eq!(throttle.check("x", at(5)), Err(Duration::from_secs(7)));
        assert_eq!(throttle.check("y", at(5)), Ok(()), "other devices are not slowed");
        assert_eq!(throttle.check("x", at(12)), Ok(()));
        throttle.failed("x", at(12));
        assert_eq!(throttle.check("x", at(20)), Err(Duration::from_secs(12)));
        assert_eq!(throttle.check("x", at(32)), Ok(()));
        throttle.succeeded("x");
        throttle.failed("x", at(33));
        assert_eq!(throttle.check("x", at(33)), Ok(()), "success resets the count");
    }

    #[test]
    fn failures_are_forgotten_after_an_hour_of_quiet() {
        let mut throttle = Throttle::default();
        for _ in 0..10 {
            throttle.failed("x", at(0));
        }
        assert!(throttle.check("x", at(60)).is_err());
        assert_eq!(throttle.check("x", at(3601)), Ok(()));
    }

    #[test]
    fn many_failures_from_many_devices_slow_everyone() {
        let mut throttle = Throttle::default();
        for index in 0..GLOBAL_FAILURES_PER_MINUTE {
            throttle.failed(&format!("fresh-key-{index}"), at(1));
        }
        assert!(throttle.check("anyone", at(2)).is_err());
        assert_eq!(throttle.check("anyone", at(62)), Ok(()));
    }
}
