//! A share's membership statements as this device holds them: a set that
//! only grows, kept in an append-only file of its own.
//!
//! Statements are not kept in a map of an Automerge document: a device that
//! may write a document can delete a key of it, or put other bytes over it
//! (a revocation of itself, say), and every device would apply that. Here a
//! statement is taken only after it verifies on its own (its signature, its
//! share: [`Statement::verify`]), and nothing a peer sends can remove one:
//! devices exchange what the other lacks, and each holds the union. Whether
//! a statement counts is [`Membership::resolve`]'s answer, from the whole
//! set, whatever the order it arrived in.
//!
//! The file is a [`DocFiles`] log (a header, then one checksummed record
//! per statement, each synced before [`StatementLog::take`] returns; a torn
//! or damaged record and what follows it are cut off on open and kept
//! aside), with no snapshot: a share has tens of statements, a few hundred
//! bytes each. Each statement's signature is checked once, when it is
//! read or offered: what is held is resolved without checking it again.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use crate::{
    membership::{Membership, ShareId, Statement, StatementId},
    storage::{DocFiles, StorageError},
};

/// Statements a device holds of one share at most. What counts is bounded
/// by the quotas ([`crate::membership::MAX_LINE_DEVICES`] per line,
/// [`crate::membership::MAX_ADMIN_GRANTS`] per admin grant); only admins,
/// whom the share trusts with its membership, can reach this, and past it
/// only an admin's revocations are taken, so a stolen admin device filling
/// the log can still be removed.
pub const MAX_STATEMENTS: usize = 4096;

/// New statements one offer has checked at most: each costs a signature
/// check, so what a peer sends in one request costs a bounded time. A
/// share's honest statements are tens; more arrive at the next exchange.
pub const MAX_CHECKED_PER_OFFER: usize = 512;

/// Statements whose proof has not arrived, held in memory at most: anyone
/// can sign a statement naming a proof that does not exist, so they are
/// never written down, and the next exchange offers them again.
pub const MAX_WAITING: usize = 256;

#[cfg(test)]
thread_local! {
    /// Signatures checked by `take` on this thread.
    static VERIFIED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One share's statements, held durably.
#[derive(Debug)]
pub struct StatementLog {
    files: DocFiles,
    share: ShareId,
    /// The statements held, checked, by id: every one entitled by its
    /// chain of proofs when it was taken.
    held: BTreeMap<StatementId, Statement>,
    /// Statements waiting for their proof (in memory only).
    waiting: BTreeMap<StatementId, Statement>,
    /// [`MAX_STATEMENTS`], lower in tests.
    cap: usize,
}

impl StatementLog {
    /// Opens (creating if needed) the statements of `share` in `dir`. A
    /// record that does not verify for `share` (damage) is left out.
    pub fn open(dir: &Path, share: ShareId) -> Result<StatementLog, StorageError> {
        let (files, loaded) = DocFiles::open(dir)?;
        let mut held = BTreeMap::new();
        for bytes in loaded.records {
            match Statement::verify(&bytes, share) {
                Ok(statement) => {
                    held.insert(statement.id, statement);
                }
                Err(error) => tracing::warn!(dir = %dir.display(), "left out a statement: {error}"),
            }
        }
        Ok(StatementLog { files, share, held, waiting: BTreeMap::new(), cap: MAX_STATEMENTS })
    }

    /// The share.
    pub fn share(&self) -> ShareId {
        self.share
    }

    /// Takes the statements of `offered` that verify for this share, are
    /// not held yet and count (with what is held and offered:
    /// [`Membership::counts`]), each durable before this returns; returns
    /// how many it took. What is held already or offered twice is passed
    /// over by its id, before any signature is checked, and at most
    /// [`MAX_CHECKED_PER_OFFER`] new ones are checked. A statement that does
    /// not count is dropped (anyone can sign one: kept, they would fill the
    /// log; if it counts again later, its holder offers it again); one whose
    /// proof has not arrived waits in memory ([`MAX_WAITING`]) and is taken
    /// when its proof is. Past [`MAX_STATEMENTS`], only an admin's
    /// revocations are.
    pub fn take<'a>(
        &mut self,
        offered: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<usize, StorageError> {
        self.take_if(offered, |_| true)
    }

    /// [`StatementLog::take`], but only if `wanted` says yes to the members
    /// that what is held and offered would make: a device that is not a
    /// member leaves nothing here unless its statements make it one (a
    /// device just granted), and a removed member's are not kept to be
    /// refused afterwards.
    pub fn take_if<'a>(
        &mut self,
        offered: impl IntoIterator<Item = &'a [u8]>,
        wanted: impl FnOnce(&Membership) -> bool,
    ) -> Result<usize, StorageError> {
        let mut fresh = std::mem::take(&mut self.waiting);
        let mut checked = 0;
        for bytes in offered {
            let id = crate::membership::id_of(bytes);
            if self.held.contains_key(&id) || fresh.contains_key(&id) {
                continue;
            }
            if checked == MAX_CHECKED_PER_OFFER {
                tracing::debug!("left statements for the next offer: {checked} checked");
                break;
            }
            checked += 1;
            #[cfg(test)]
            VERIFIED.with(|verified| verified.set(verified.get() + 1));
            match Statement::verify(bytes, self.share) {
                Ok(statement) => {
                    fresh.insert(statement.id, statement);
                }
                Err(error) => tracing::debug!("refused a statement: {error}"),
            }
        }
        if fresh.is_empty() {
            return Ok(0);
        }
        let trial =
            Membership::of_checked(self.share, self.held.values().chain(fresh.values()).cloned());
        if !wanted(&trial) {
            return Ok(0);
        }
        let mut taken = 0;
        for (id, statement) in fresh {
            if trial.counts(&id) {
                if self.held.len() >= self.cap && !trial.is_admin_revocation(&id) {
                    tracing::warn!(
                        share = %self.share.to_hex(),
                        "refused a statement: the share holds {} already", self.cap
                    );
                    continue;
                }
                self.files.append(&statement.bytes)?;
                self.held.insert(id, statement);
                taken += 1;
            } else if trial.is_waiting(&id) && self.waiting.len() < MAX_WAITING {
                self.waiting.insert(id, statement);
            }
        }
        Ok(taken)
    }

    /// This log holding at most `cap` statements (but an admin's
    /// revocations).
    #[cfg(test)]
    fn with_cap(mut self, cap: usize) -> Self {
        self.cap = cap;
        self
    }

    /// The ids of the statements held (what a peer is told, to send what
    /// this device lacks).
    pub fn ids(&self) -> BTreeSet<StatementId> {
        self.held.keys().copied().collect()
    }

    /// The statements held that are not among `theirs`: what a peer that
    /// holds `theirs` lacks.
    pub fn lacking_from(&self, theirs: &BTreeSet<StatementId>) -> Vec<&[u8]> {
        self.held
            .iter()
            .filter(|(id, _)| !theirs.contains(id))
            .map(|(_, statement)| statement.bytes.as_slice())
            .collect()
    }

    /// How many statements are held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// How many statements wait for their proof.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The share's members, resolved from every statement held.
    pub fn membership(&self) -> Membership {
        Membership::of_checked(self.share, self.held.values().cloned())
    }
}

#[cfg(test)]
mod tests {
    use ferrex_core::Timestamp;
    use iroh::SecretKey;

    use super::*;
    use crate::membership::{Action, Role, StatementId};

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    fn key(seed: u8) -> SecretKey {
        SecretKey::from_bytes(&[seed; 32])
    }

    fn grant(by: &SecretKey, share: ShareId, proof: &Statement, to: &SecretKey) -> Statement {
        let device = *to.public().as_bytes();
        Statement::sign(by, share, Some(proof.id), Action::Grant { device, role: Role::Write }, NOW)
    }

    #[test]
    fn a_log_takes_each_verified_statement_once_and_keeps_them_across_opens() {
        let temp = tempfile::tempdir().unwrap();
        let (laptop, teammate, stranger) = (key(1), key(2), key(3));
        let create = Statement::create(&laptop, [1; 16], NOW);
        let share = create.body.share;
        let teammate_grant = grant(&laptop, share, &create, &teammate);
        let other = Statement::create(&stranger, [2; 16], NOW);
        let mut forged = teammate_grant.bytes.clone();
        let last = forged.len() - 1;
        forged[last] ^= 1;
        let dir = temp.path().join("share");
        let mut log = StatementLog::open(&dir, share).unwrap();
        let offered: Vec<&[u8]> = vec![
            &create.bytes,
            &teammate_grant.bytes,
            &create.bytes,
            &forged,
            &other.bytes,
            &[1, 2, 3],
        ];
        assert_eq!(log.take(offered).unwrap(), 2);
        assert_eq!(log.ids(), BTreeSet::from([create.id, teammate_grant.id]));
        assert_eq!(log.membership().role_of(teammate.public().as_bytes()), Some(Role::Write));
        drop(log);

        // A torn last record (a crash mid-append) is cut off; what was
        // taken stays.
        {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new().append(true).open(dir.join("log")).unwrap();
            file.write_all(&[9, 0, 0, 0, 1, 2]).unwrap();
        }
        let mut log = StatementLog::open(&dir, share).unwrap();
        assert_eq!(log.ids(), BTreeSet::from([create.id, teammate_grant.id]));
        assert_eq!(log.take([teammate_grant.bytes.as_slice()]).unwrap(), 0);
        // Opened for another share, nothing of this one is taken.
        drop(log);
        assert!(StatementLog::open(&dir, other.body.share).unwrap().is_empty());
    }

    #[test]
    fn a_reader_that_signs_above_its_role_is_held_and_counts_for_nothing_anywhere() {
        let temp = tempfile::tempdir().unwrap();
        let (laptop, reader, writer) = (key(1), key(2), key(3));
        let create = Statement::create(&laptop, [1; 16], NOW);
        let share = create.body.share;
        let device = |secret: &SecretKey| *secret.public().as_bytes();
        let reader_grant = Statement::sign(
            &laptop,
            share,
            Some(create.id),
            Action::Grant { device: device(&reader), role: Role::Read },
            NOW,
        );
        let mut on_laptop = StatementLog::open(&temp.path().join("laptop"), share).unwrap();
        let mut on_reader = StatementLog::open(&temp.path().join("reader"), share).unwrap();
        for log in [&mut on_laptop, &mut on_reader] {
            log.take([create.bytes.as_slice(), reader_grant.bytes.as_slice()]).unwrap();
        }
        // The reader promotes itself, adds a device and revokes the
        // laptop's `Create`, and offers junk; the laptop grants a writer
        // meanwhile.
        let mut offered: Vec<Vec<u8>> = [
            (&reader_grant, Action::Grant { device: device(&reader), role: Role::Admin }),
            (&reader_grant, Action::Grant { device: device(&key(9)), role: Role::Write }),
            (&create, Action::Revoke { grant: create.id }),
        ]
        .into_iter()
        .map(|(proof, action)| Statement::sign(&reader, share, Some(proof.id), action, NOW).bytes)
        .collect();
        offered.push(vec![0; 100]);
        // Refused by the rules: not even kept.
        assert_eq!(on_reader.take(offered.iter().map(Vec::as_slice)).unwrap(), 0);
        assert_eq!((on_reader.len(), on_reader.waiting()), (2, 0));
        let writer_grant = Statement::sign(
            &laptop,
            share,
            Some(create.id),
            Action::Grant { device: device(&writer), role: Role::Write },
            NOW,
        );
        on_laptop.take([writer_grant.bytes.as_slice()]).unwrap();
        let to_laptop: Vec<Vec<u8>> =
            on_reader.lacking_from(&on_laptop.ids()).into_iter().map(<[u8]>::to_vec).collect();
        let to_reader: Vec<Vec<u8>> =
            on_laptop.lacking_from(&on_reader.ids()).into_iter().map(<[u8]>::to_vec).collect();
        on_laptop.take(to_laptop.iter().map(Vec::as_slice)).unwrap();
        on_reader.take(to_reader.iter().map(Vec::as_slice)).unwrap();
        let (laptop_view, reader_view) = (on_laptop.membership(), on_reader.membership());
        assert_eq!(laptop_view.members(), reader_view.members());
        assert_eq!(laptop_view.role_of(&device(&reader)), Some(Role::Read));
        assert_eq!(laptop_view.role_of(&device(&key(9))), None);
        assert_eq!(laptop_view.role_of(&device(&writer)), Some(Role::Write));
        assert_eq!(laptop_view.role_of(&device(&laptop)), Some(Role::Admin));
        assert_eq!(laptop_view.refused(), 0);
        assert_eq!(on_laptop.ids(), on_reader.ids());
    }

    #[test]
    fn a_flood_of_statements_fills_nothing_and_an_admins_revocation_always_gets_in() {
        let temp = tempfile::tempdir().unwrap();
        let (laptop, teammate) = (key(1), key(2));
        let create = Statement::create(&laptop, [1; 16], NOW);
        let share = create.body.share;
        let teammate_grant = grant(&laptop, share, &create, &teammate);
        let mut log = StatementLog::open(&temp.path().join("share"), share).unwrap().with_cap(10);
        log.take([create.bytes.as_slice(), teammate_grant.bytes.as_slice()]).unwrap();
        // Throwaway keys: statements naming proofs that do not exist wait
        // in memory, a bounded few; those naming a real proof that does not
        // entitle them are dropped.
        let flood: Vec<Vec<u8>> = (0..600u32)
            .map(|n| {
                let stranger = SecretKey::from_bytes(&[(n % 200) as u8 + 50; 32]);
                let mut proof = [0u8; 32];
                proof[..4].copy_from_slice(&n.to_le_bytes());
                let proof = if n % 2 == 0 { StatementId(proof) } else { create.id };
                let action = Action::Grant { device: [n as u8; 32], role: Role::Admin };
                Statement::sign(&stranger, share, Some(proof), action, NOW).bytes
            })
            .collect();
        assert_eq!(log.take(flood.iter().map(Vec::as_slice)).unwrap(), 0);
        assert_eq!(log.len(), 2);
        assert_eq!(log.waiting(), MAX_WAITING);
        // A member signs grants within its role: its line's quota is taken.
        let grants: Vec<Vec<u8>> = (0..20u8)
            .map(|n| grant(&teammate, share, &teammate_grant, &key(100 + n)).bytes)
            .collect();
        assert_eq!(
            log.take(grants.iter().map(Vec::as_slice)).unwrap(),
            crate::membership::MAX_LINE_DEVICES - 1
        );
        assert_eq!(log.len(), 9);
        // An admin signs until the log is full...
        let admin_grants: Vec<Vec<u8>> =
            (0..5u8).map(|n| grant(&laptop, share, &create, &key(150 + n)).bytes).collect();
        assert_eq!(log.take(admin_grants.iter().map(Vec::as_slice)).unwrap(), 1);
        assert_eq!(log.len(), 10);
        // ...and the admin's revocation of that member still gets in, and
        // takes what it granted with it.
        let revocation = Statement::sign(
            &laptop,
            share,
            Some(create.id),
            Action::Revoke { grant: teammate_grant.id },
            NOW,
        );
        assert_eq!(log.take([revocation.bytes.as_slice()]).unwrap(), 1);
        let membership = log.membership();
        assert_eq!(membership.role_of(teammate.public().as_bytes()), None);
        // The laptop and the device it granted last.
        assert_eq!(membership.members().len(), 2);
    }

    #[test]
    fn a_removed_member_adds_nothing_to_the_log() {
        let temp = tempfile::tempdir().unwrap();
        let (laptop, writer) = (key(1), key(2));
        let create = Statement::create(&laptop, [1; 16], NOW);
        let share = create.body.share;
        let writer_grant = grant(&laptop, share, &create, &writer);
        let revocation = Statement::sign(
            &laptop,
            share,
            Some(create.id),
            Action::Revoke { grant: writer_grant.id },
            NOW,
        );
        let mut log = StatementLog::open(&temp.path().join("share"), share).unwrap();
        log.take([&create, &writer_grant].map(|s| s.bytes.as_slice())).unwrap();
        assert_eq!(log.take([revocation.bytes.as_slice()]).unwrap(), 1);
        // The removed writer signs grants through its revoked grant.
        let through: Vec<Vec<u8>> =
            (0..10u8).map(|n| grant(&writer, share, &writer_grant, &key(20 + n)).bytes).collect();
        assert_eq!(log.take(through.iter().map(Vec::as_slice)).unwrap(), 0);
        assert_eq!(log.len(), 3);
    }

    #[test]
    fn what_is_held_costs_no_signature_check_and_one_offer_checks_a_bounded_number() {
        let temp = tempfile::tempdir().unwrap();
        let (laptop, teammate) = (key(1), key(2));
        let create = Statement::create(&laptop, [1; 16], NOW);
        let share = create.body.share;
        let teammate_grant = grant(&laptop, share, &create, &teammate);
        let mut log = StatementLog::open(&temp.path().join("share"), share).unwrap();
        log.take([&create, &teammate_grant].map(|s| s.bytes.as_slice())).unwrap();
        let verified = || VERIFIED.with(std::cell::Cell::get);
        let before = verified();
        let repeated = vec![teammate_grant.bytes.as_slice(); 1_000];
        assert_eq!(log.take(repeated).unwrap(), 0);
        assert_eq!(verified() - before, 0, "a statement held was checked again");
        // A thousand junk statements: at most one offer's worth checked.
        let junk: Vec<Vec<u8>> = (0..1_000u32)
            .map(|n| {
                let mut bytes = teammate_grant.bytes.clone();
                bytes[..4].copy_from_slice(&n.to_le_bytes());
                bytes
            })
            .collect();
        let before = verified();
        assert_eq!(log.take(junk.iter().map(Vec::as_slice)).unwrap(), 0);
        assert_eq!(verified() - before, MAX_CHECKED_PER_OFFER);
    }

    #[test]
    fn two_logs_exchanging_what_the_other_lacks_agree_and_nothing_is_removed() {
        let temp = tempfile::tempdir().unwrap();
        let (laptop, desktop, teammate, phone) = (key(1), key(2), key(3), key(4));
        let create = Statement::create(&laptop, [1; 16], NOW);
        let share = create.body.share;
        let desktop_grant = grant(&laptop, share, &create, &desktop);
        let teammate_grant = grant(&laptop, share, &create, &teammate);
        let phone_grant = grant(&teammate, share, &teammate_grant, &phone);
        let revoke_phone = Statement::sign(
            &laptop,
            share,
            Some(create.id),
            Action::Revoke { grant: phone_grant.id },
            NOW,
        );
        let mut ours = StatementLog::open(&temp.path().join("ours"), share).unwrap();
        let mut theirs = StatementLog::open(&temp.path().join("theirs"), share).unwrap();
        ours.take(
            [&create, &desktop_grant, &teammate_grant, &revoke_phone].map(|s| s.bytes.as_slice()),
        )
        .unwrap();
        // The teammate never heard of the revocation, and adds its phone.
        theirs.take([&create, &teammate_grant, &phone_grant].map(|s| s.bytes.as_slice())).unwrap();
        assert!(theirs.membership().role_of(phone.public().as_bytes()).is_some());
        let to_theirs: Vec<Vec<u8>> =
            ours.lacking_from(&theirs.ids()).into_iter().map(<[u8]>::to_vec).collect();
        let to_ours: Vec<Vec<u8>> =
            theirs.lacking_from(&ours.ids()).into_iter().map(<[u8]>::to_vec).collect();
        assert_eq!(to_theirs.len(), 2);
        assert_eq!(to_ours.len(), 1);
        theirs.take(to_theirs.iter().map(Vec::as_slice)).unwrap();
        // The phone's grant counts for nothing here: it is not kept.
        assert_eq!(ours.take(to_ours.iter().map(Vec::as_slice)).unwrap(), 0);
        assert_eq!(theirs.ids().difference(&ours.ids()).collect::<Vec<_>>(), [&phone_grant.id]);
        assert_eq!(theirs.len(), 5);
        // The revocation holds on both, whatever came first.
        for log in [&ours, &theirs] {
            let membership = log.membership();
            assert_eq!(membership.role_of(phone.public().as_bytes()), None);
            assert_eq!(membership.role_of(teammate.public().as_bytes()), Some(Role::Write));
            assert_eq!(membership.members().len(), 3);
        }
    }
}
