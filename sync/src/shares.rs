//! The shares this device holds (docs/sharing.md): for each, the project it
//! shares, the namespace its documents are in, and its statements.
//!
//! Under one directory (`sync/shares` of a home), a directory per share,
//! named by its id in hex, holding `share.json` (the project and the
//! namespace) and the share's [`StatementLog`].

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use ferrex_core::{Namespace, Timestamp};
use iroh::SecretKey;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::{
    StateFileError,
    membership::{Action, Membership, Role, ShareId, Statement},
    state_file::{load_json, save_json},
    statement_log::StatementLog,
    storage::StorageError,
};

pub use crate::policy::{SHARE_NAMESPACE_PREFIX, is_share_namespace};

/// What a device records of a share it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareRecord {
    /// The share's id, in hex.
    pub share: String,
    /// The project it shares (the namespace its members' projects have).
    pub project: String,
    /// The namespace its documents are in.
    pub namespace: String,
    /// When this device took it (created or joined), ms since the epoch.
    pub since: i64,
    /// Whether what the project held when it was shared has moved into it
    /// (the share's copies written, the person's forgotten). A move
    /// interrupted is done again: it is idempotent.
    #[serde(default)]
    pub moved: bool,
    /// The members this device has talked with, by device id (hex): the
    /// name each gave and where it was reached (a teammate's device learns
    /// only the addresses of those that reached it).
    #[serde(default)]
    pub contacts: BTreeMap<String, Contact>,
}

/// What a device knows of another member of a share it has talked with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contact {
    /// The name it gave.
    pub name: String,
    /// Where it listens.
    pub addrs: Vec<std::net::SocketAddr>,
}

/// A share this device holds.
#[derive(Debug)]
pub struct HeldShare {
    /// The share.
    pub id: ShareId,
    /// What is recorded of it.
    pub record: ShareRecord,
    /// The project it shares.
    pub project: Namespace,
    /// Its statements.
    pub statements: StatementLog,
}

impl HeldShare {
    /// The namespace its documents are in.
    pub fn namespace(&self) -> Namespace {
        namespace_of(&self.id)
    }

    /// Its members, resolved from every statement held.
    pub fn membership(&self) -> Membership {
        self.statements.membership()
    }

    /// The device that created it (signed its `Create`), once known.
    pub fn creator(&self) -> Option<[u8; 32]> {
        crate::policy::creator(&self.membership())
    }

    /// The role of `device` here, where `own` says whether a device is one
    /// of this person's: what its grants give it, else `admin` for one of
    /// the person's devices in a share the person created (`policy::role`).
    pub fn role_of(&self, device: &[u8; 32], own: impl Fn(&[u8; 32]) -> bool) -> Option<Role> {
        crate::policy::role(&self.membership(), device, own)
    }
}

/// What can go wrong with a share.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// `default` holds what a person keeps across projects: never shared.
    #[error("the default namespace is never shared; share a project's namespace")]
    Default,
    /// A share's namespace is shared already, as the share it is.
    #[error("{0} is a share's namespace: share the project it came from")]
    OfShare(String),
    /// The file system failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A share's record could not be read or written.
    #[error(transparent)]
    State(#[from] StateFileError),
}

/// The namespace of `share`'s documents: `share.` and the first 16 bytes
/// of its id in hex (a namespace is at most 64 characters).
pub fn namespace_of(share: &ShareId) -> Namespace {
    let name = format!("{SHARE_NAMESPACE_PREFIX}{}", hex::encode(&share.0[..16]));
    Namespace::parse(&name).expect("hex after a dotted prefix is a namespace")
}

/// The shares of a device.
#[derive(Debug)]
pub struct Shares {
    dir: PathBuf,
    held: BTreeMap<ShareId, HeldShare>,
}

impl Shares {
    /// Opens the shares under `dir` (none if it does not exist). A share
    /// whose record or statements cannot be read is left out, and logged.
    pub fn open(dir: &Path) -> Result<Shares, ShareError> {
        let mut held = BTreeMap::new();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Shares { dir: dir.to_owned(), held });
            }
            Err(source) => {
                return Err(
                    StorageError::Io { action: "reading", path: dir.to_owned(), source }.into()
                );
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| hex::decode(name).ok())
                .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                .map(ShareId)
            else {
                continue;
            };
            match load_json::<ShareRecord>(&path.join("share.json")) {
                Ok(Some(record)) => {
                    let Ok(project) = Namespace::parse(&record.project) else {
                        tracing::warn!(path = %path.display(), "leaving out a share of no project");
                        continue;
                    };
                    if record.share != id.to_hex() {
                        tracing::warn!(path = %path.display(), "leaving out a share filed under another id");
                        continue;
                    }
                    match StatementLog::open(&path.join("statements"), id) {
                        Ok(statements) => {
                            held.insert(id, HeldShare { id, record, project, statements });
                        }
                        // One share's damaged log does not stop the node.
                        Err(error) => tracing::warn!("leaving out a share: {error}"),
                    }
                }
                Ok(None) => {}
                Err(error) => tracing::warn!("leaving out a share: {error}"),
            }
        }
        Ok(Shares { dir: dir.to_owned(), held })
    }

    /// Creates a share of `project`, signed by `creator` (this device's
    /// key), with `admins` (the person's other devices) granted `admin`.
    pub fn create(
        &mut self,
        project: &Namespace,
        creator: &SecretKey,
        admins: &[[u8; 32]],
        now: Timestamp,
    ) -> Result<&HeldShare, ShareError> {
        if *project == Namespace::default() {
            return Err(ShareError::Default);
        }
        if is_share_namespace(project) {
            return Err(ShareError::OfShare(project.to_string()));
        }
        let nonce: [u8; 16] = rand::rng().random();
        let create = Statement::create(creator, nonce, now);
        let id = create.body.share;
        let mut statements = vec![create.bytes.clone()];
        for admin in admins.iter().filter(|admin| **admin != *creator.public().as_bytes()) {
            let grant = Statement::sign(
                creator,
                id,
                Some(create.id),
                Action::Grant { device: *admin, role: Role::Admin },
                now,
            );
            statements.push(grant.bytes);
        }
        let record = ShareRecord {
            share: id.to_hex(),
            project: project.to_string(),
            namespace: namespace_of(&id).to_string(),
            since: now.0,
            moved: false,
            contacts: BTreeMap::new(),
        };
        let mut log = StatementLog::open(&self.dir_of(&id).join("statements"), id)?;
        log.take(statements.iter().map(Vec::as_slice))?;
        // The record last: a share is held once its statements are.
        save_json(&self.record_file(&id), &record, false)?;
        let held = self.held.entry(id).or_insert(HeldShare {
            id,
            record,
            project: project.clone(),
            statements: log,
        });
        Ok(held)
    }

    /// Takes a share this device learns of (a teammate's ticket, one of
    /// the person's own devices): its record and `statements`. False when it
    /// was held already (its statements are still taken). `default` and a
    /// share's namespace are refused as a project: a ticket naming them
    /// would put a stranger's memories in every recall.
    pub fn adopt<'a>(
        &mut self,
        id: ShareId,
        project: &Namespace,
        statements: impl IntoIterator<Item = &'a [u8]>,
        now: Timestamp,
    ) -> Result<bool, ShareError> {
        if *project == Namespace::default() {
            return Err(ShareError::Default);
        }
        if is_share_namespace(project) {
            return Err(ShareError::OfShare(project.to_string()));
        }
        if self.held.contains_key(&id) {
            self.take(&id, statements)?;
            return Ok(false);
        }
        let mut log = StatementLog::open(&self.dir_of(&id).join("statements"), id)?;
        log.take(statements)?;
        let record = ShareRecord {
            share: id.to_hex(),
            project: project.to_string(),
            namespace: namespace_of(&id).to_string(),
            since: now.0,
            // Nothing of this device's moves into a share it joins.
            moved: true,
            contacts: BTreeMap::new(),
        };
        save_json(&self.record_file(&id), &record, false)?;
        self.held.insert(id, HeldShare { id, record, project: project.clone(), statements: log });
        Ok(true)
    }

    /// Takes into `share`'s log what of `statements` its rules entitle;
    /// how many it took (none when the share is not held).
    pub fn take<'a>(
        &mut self,
        share: &ShareId,
        statements: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<usize, ShareError> {
        self.take_if(share, statements, |_| true)
    }

    /// [`Shares::take`] if `wanted` says yes to the members the statements
    /// would make ([`StatementLog::take_if`]).
    pub fn take_if<'a>(
        &mut self,
        share: &ShareId,
        statements: impl IntoIterator<Item = &'a [u8]>,
        wanted: impl FnOnce(&Membership) -> bool,
    ) -> Result<usize, ShareError> {
        match self.held.get_mut(share) {
            Some(held) => Ok(held.statements.take_if(statements, wanted)?),
            None => Ok(0),
        }
    }

    /// Signs `action` in `share` as `key` (this device), with the proof
    /// this device's grants give it, and takes it. `None` when this device
    /// holds no grant entitling it (its statement would be refused
    /// everywhere).
    pub fn sign(
        &mut self,
        share: &ShareId,
        key: &SecretKey,
        action: Action,
        now: Timestamp,
    ) -> Result<Option<Statement>, ShareError> {
        let Some(held) = self.held.get_mut(share) else { return Ok(None) };
        let membership = held.statements.membership();
        let me = *key.public().as_bytes();
        let proof = match &action {
            Action::Grant { role, .. } => {
                membership.proof_for(&me).filter(|(_, mine)| mine >= role).map(|(id, _)| id)
            }
            Action::Revoke { grant } => membership.proof_for_revoking(&me, grant),
            Action::Create { .. } => None,
        };
        let Some(proof) = proof else { return Ok(None) };
        let statement = Statement::sign(key, *share, Some(proof), action, now);
        if held.statements.take([statement.bytes.as_slice()])? == 0 {
            return Ok(None);
        }
        Ok(Some(statement))
    }

    /// Records what `device` (hex) of `share` said of itself: its name
    /// (at most 64 characters, no control characters) and at most 16
    /// addresses. Written only when it changed.
    pub fn note_contact(
        &mut self,
        share: &ShareId,
        device: &str,
        name: &str,
        addrs: &[std::net::SocketAddr],
    ) -> Result<(), ShareError> {
        let file = self.record_file(share);
        let Some(held) = self.held.get_mut(share) else { return Ok(()) };
        let contact = Contact {
            name: name.chars().filter(|c| !c.is_control()).take(64).collect(),
            addrs: addrs.iter().copied().take(16).collect(),
        };
        if held.record.contacts.get(device) == Some(&contact) {
            return Ok(());
        }
        let mut record = held.record.clone();
        record.contacts.insert(device.to_owned(), contact);
        save_json(&file, &record, false)?;
        held.record = record;
        Ok(())
    }

    /// The share `id`, if held.
    pub fn get(&self, id: &ShareId) -> Option<&HeldShare> {
        self.held.get(id)
    }

    /// Records that the move into `share` is done, durably.
    pub fn set_moved(&mut self, share: &ShareId) -> Result<(), ShareError> {
        let file = self.record_file(share);
        let Some(held) = self.held.get_mut(share) else { return Ok(()) };
        let mut record = held.record.clone();
        record.moved = true;
        save_json(&file, &record, false)?;
        held.record = record;
        Ok(())
    }

    /// The directory of `share`.
    fn dir_of(&self, share: &ShareId) -> PathBuf {
        self.dir.join(share.to_hex())
    }

    /// The record of `share`.
    fn record_file(&self, share: &ShareId) -> PathBuf {
        self.dir_of(share).join("share.json")
    }

    /// The shares of `project`.
    pub fn of_project<'a>(&'a self, project: &'a Namespace) -> impl Iterator<Item = &'a HeldShare> {
        self.held.values().filter(move |held| held.project == *project)
    }

    /// The share whose documents are in `namespace`, if this device holds it.
    pub fn by_namespace(&self, namespace: &Namespace) -> Option<&HeldShare> {
        self.held.values().find(|held| held.record.namespace == namespace.as_str())
    }

    /// Every share held.
    pub fn all(&self) -> impl Iterator<Item = &HeldShare> {
        self.held.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    #[test]
    fn a_share_of_a_project_is_created_with_the_persons_devices_as_admins_and_kept() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("shares");
        let laptop = SecretKey::from_bytes(&[1; 32]);
        let desktop = *SecretKey::from_bytes(&[2; 32]).public().as_bytes();
        let project = Namespace::parse("github.com-acme-api").unwrap();
        let mut shares = Shares::open(&dir).unwrap();
        let (id, namespace) = {
            let held = shares
                .create(&project, &laptop, &[desktop, *laptop.public().as_bytes()], NOW)
                .unwrap();
            let membership = held.membership();
            assert_eq!(membership.role_of(laptop.public().as_bytes()), Some(Role::Admin));
            assert_eq!(membership.role_of(&desktop), Some(Role::Admin));
            assert_eq!(membership.members().len(), 2);
            assert_eq!(held.project, project);
            (held.id, held.namespace())
        };
        assert!(is_share_namespace(&namespace));
        assert_eq!(namespace.as_str().len(), "share.".len() + 32);
        // Each share of the same project is its own.
        let second = shares.create(&project, &laptop, &[], NOW).unwrap().id;
        assert_ne!(second, id);
        // Kept across opens.
        let reopened = Shares::open(&dir).unwrap();
        assert_eq!(reopened.of_project(&project).count(), 2);
        let held = reopened.by_namespace(&namespace).unwrap();
        assert_eq!(held.id, id);
        assert_eq!(held.membership().members().len(), 2);
        assert_eq!(reopened.of_project(&Namespace::parse("other").unwrap()).count(), 0);
        // Whether the move is done is kept.
        let mut shares = reopened;
        assert!(!shares.by_namespace(&namespace).unwrap().record.moved);
        shares.set_moved(&id).unwrap();
        assert!(Shares::open(&dir).unwrap().by_namespace(&namespace).unwrap().record.moved);
    }

    #[test]
    fn default_and_a_shares_namespace_are_never_shared() {
        let temp = tempfile::tempdir().unwrap();
        let laptop = SecretKey::from_bytes(&[1; 32]);
        let mut shares = Shares::open(&temp.path().join("shares")).unwrap();
        let refused = shares.create(&Namespace::default(), &laptop, &[], NOW).unwrap_err();
        assert!(matches!(refused, ShareError::Default), "{refused}");
        let share = Namespace::parse("share.0123456789abcdef0123456789abcdef").unwrap();
        let refused = shares.create(&share, &laptop, &[], NOW).unwrap_err();
        assert!(matches!(refused, ShareError::OfShare(_)), "{refused}");
        assert_eq!(shares.all().count(), 0);
        assert!(!temp.path().join("shares").exists(), "a refused share left files");
    }
}
