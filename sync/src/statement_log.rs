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
//! last record is cut off on open), with no snapshot: a share has tens of
//! statements, a few hundred bytes each.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use crate::{
    membership::{Membership, ShareId, Statement, StatementId},
    storage::{DocFiles, StorageError},
};

/// Statements a device holds of one share at most: a member may sign as
/// many valid grants as it likes, and each is kept by every device, so
/// past this many the rest are refused (a person's devices and their
/// teammates' make tens).
pub const MAX_STATEMENTS: usize = 4096;

/// One share's statements, held durably.
#[derive(Debug)]
pub struct StatementLog {
    files: DocFiles,
    share: ShareId,
    /// The bytes of each statement held, by id.
    held: BTreeMap<StatementId, Vec<u8>>,
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
                    held.insert(statement.id, bytes);
                }
                Err(error) => tracing::warn!(dir = %dir.display(), "left out a statement: {error}"),
            }
        }
        Ok(StatementLog { files, share, held })
    }

    /// The share.
    pub fn share(&self) -> ShareId {
        self.share
    }

    /// Takes the statements of `offered` that verify for this share and are
    /// not held yet, each durable before this returns; returns how many it
    /// took. What does not verify, and what comes past
    /// [`MAX_STATEMENTS`], is left (and logged).
    pub fn take<'a>(
        &mut self,
        offered: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<usize, StorageError> {
        let mut taken = 0;
        for bytes in offered {
            let statement = match Statement::verify(bytes, self.share) {
                Ok(statement) => statement,
                Err(error) => {
                    tracing::debug!("refused a statement: {error}");
                    continue;
                }
            };
            if self.held.contains_key(&statement.id) {
                continue;
            }
            if self.held.len() >= MAX_STATEMENTS {
                tracing::warn!(
                    share = %self.share.to_hex(),
                    "refused a statement: the share holds {MAX_STATEMENTS} already"
                );
                break;
            }
            self.files.append(bytes)?;
            self.held.insert(statement.id, bytes.to_vec());
            taken += 1;
        }
        Ok(taken)
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
            .map(|(_, bytes)| bytes.as_slice())
            .collect()
    }

    /// How many statements are held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The share's members, resolved from every statement held.
    pub fn membership(&self) -> Membership {
        Membership::resolve(self.share, self.held.values().map(Vec::as_slice))
    }
}

#[cfg(test)]
mod tests {
    use ferrex_core::Timestamp;
    use iroh::SecretKey;

    use super::*;
    use crate::membership::{Action, Role};

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
        assert_eq!(on_reader.take(offered.iter().map(Vec::as_slice)).unwrap(), 3);
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
        // Held, and refused: the promotion, the device above the reader's
        // role and the revoked `Create`.
        assert_eq!(laptop_view.refused(), 3);
    }

    #[test]
    fn two_logs_exchanging_what_the_other_lacks_hold_the_union_and_nothing_is_removed() {
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
        ours.take(to_ours.iter().map(Vec::as_slice)).unwrap();
        assert_eq!(ours.ids(), theirs.ids());
        assert_eq!(ours.len(), 5);
        // The revocation holds on both, whatever came first.
        for log in [&ours, &theirs] {
            let membership = log.membership();
            assert_eq!(membership.role_of(phone.public().as_bytes()), None);
            assert_eq!(membership.role_of(teammate.public().as_bytes()), Some(Role::Write));
            assert_eq!(membership.members().len(), 3);
        }
    }
}
