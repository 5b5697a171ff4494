//! Sharing a project with a teammate's devices (docs/sharing.md): the
//! share's creation on this device, what moves into it, and which shares a
//! project's recall reads.

use ferrex_core::{FieldError, Namespace};
use ferrex_sync::{
    SecretKey,
    membership::{Role, ShareId},
    shares::{self, ShareError, Shares},
};
use sha2::{Digest, Sha256};

use super::{Engine, EngineError, ToolError, lock};
use crate::derived::indexer::{self, KnownVectors};

/// What sharing a project did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareMove {
    /// The share's id, in hex.
    pub share: String,
    /// The namespace its documents are in.
    pub namespace: Namespace,
    /// Memories that moved into it.
    pub memories: usize,
    /// Entities, aliases and edges that went with them.
    pub entities: usize,
    pub aliases: usize,
    pub edges: usize,
    /// Memories of the project that stay the person's own (a session's
    /// events and exchanges, a watched file's chunks).
    pub kept: usize,
}

/// A shared project this device holds, as `stats` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareStat {
    /// The project.
    pub project: String,
    /// The namespace of its share.
    pub namespace: String,
    /// This device's role (`None`: removed).
    pub role: Option<Role>,
    /// Its members' devices.
    pub members: usize,
}

impl From<ShareError> for ToolError {
    fn from(error: ShareError) -> Self {
        match error {
            ShareError::Default | ShareError::OfShare(_) => {
                FieldError::new("namespace", error.to_string()).into()
            }
            other => ToolError::Internal(other.into()),
        }
    }
}

impl Engine {
    /// This engine keeping the shares of this device in `shares`.
    pub fn with_shares(mut self, shares: std::sync::Arc<std::sync::Mutex<Shares>>) -> Engine {
        self.shares = Some(shares);
        self
    }

    /// The namespaces of the shares of `project` this device holds, which
    /// the project's recall reads besides the project's own.
    pub fn shares_of(&self, project: &Namespace) -> Vec<Namespace> {
        let Some(shares) = &self.shares else { return Vec::new() };
        lock(shares).of_project(project).map(|held| held.namespace()).collect()
    }

    /// What sharing `project` would move into a share, without moving it
    /// (`ferrex share` shows it before asking); `None` when the project is
    /// shared already, with that share's id.
    pub fn share_plan(
        &self,
        project: &Namespace,
    ) -> Result<(Option<ShareId>, ShareMove), ToolError> {
        if *project == Namespace::default() {
            return Err(ShareError::Default.into());
        }
        if shares::is_share_namespace(project) {
            return Err(ShareError::OfShare(project.to_string()).into());
        }
        let held = self.share_of(project);
        let archive = self.replica.archive(project)?;
        let (shared, moved) = archive.for_share(self.replica.device(), |old| old.to_owned());
        Ok((
            held,
            ShareMove {
                share: held.map(|id| id.to_hex()).unwrap_or_default(),
                namespace: held
                    .map(|id| shares::namespace_of(&id))
                    .unwrap_or_else(|| project.clone()),
                memories: shared.memories.len(),
                entities: shared.entities.len(),
                aliases: shared.aliases.len(),
                edges: shared.edges.len(),
                kept: archive.memories.len() - moved.len(),
            },
        ))
    }

    /// The shared projects this device holds.
    pub fn share_stats(&self) -> Vec<ShareStat> {
        let Some(shares) = &self.shares else { return Vec::new() };
        let me = self.device_key();
        lock(shares)
            .all()
            .map(|held| {
                let membership = held.membership();
                ShareStat {
                    project: held.record.project.clone(),
                    namespace: held.record.namespace.clone(),
                    role: me
                        .and_then(|me| held.role_of(&me, |device| self.own_device(&me, device))),
                    members: membership.members().len(),
                }
            })
            .collect()
    }

    /// Whether `device` is this one (`me`) or was ever paired with it (one
    /// of the person's devices).
    fn own_device(&self, me: &[u8; 32], device: &[u8; 32]) -> bool {
        device == me || self.replica.registry().ever_paired(&hex::encode(device))
    }

    /// This device's key, as membership names devices.
    fn device_key(&self) -> Option<[u8; 32]> {
        hex::decode(self.replica.device()).ok().and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
    }

    /// Where a memory of `project` stored without a namespace goes: the
    /// project's share when this device may write it, else the project.
    pub fn store_target(&self, project: &Namespace) -> Namespace {
        let Some(shares) = &self.shares else { return project.clone() };
        let Some(me) = self.device_key() else { return project.clone() };
        lock(shares)
            .of_project(project)
            .filter(|held| held.record.moved)
            .find(|held| {
                held.role_of(&me, |device| self.own_device(&me, device))
                    .is_some_and(|role| role >= Role::Write)
            })
            .map(|held| held.namespace())
            .unwrap_or_else(|| project.clone())
    }

    /// The share of `project` this device holds, once what the project
    /// held has moved into it (a share joined holds nothing to move).
    pub fn share_of(&self, project: &Namespace) -> Option<ShareId> {
        let shares = self.shares.as_ref()?;
        lock(shares).of_project(project).find(|held| held.record.moved).map(|held| held.id)
    }

    /// Creates the share of `project` (signed by `key`, this device's)
    /// without moving anything into it yet, so that the person's other
    /// devices can hear of it first; the share already held, if any.
    pub fn prepare_share(
        &self,
        project: &Namespace,
        key: &SecretKey,
    ) -> Result<ShareId, ToolError> {
        let Some(shares) = &self.shares else {
            return Err(EngineError::NoShares.into());
        };
        let _writing = lock(&self.write_lock);
        if let Some(held) = lock(shares).of_project(project).next() {
            return Ok(held.id);
        }
        Ok(lock(shares).create(project, key, &[], self.now())?.id)
    }

    /// Shares `project`: a share signed by `key` (this device's), with
    /// `admins` (the person's other devices) its admins, into which the
    /// project's memories move (`Archive::for_share`: new ids, no history,
    /// what stays personal left). Once the share's copies are durable and
    /// indexed, the person's are forgotten, so that recall finds each
    /// once. `default`, a share's namespace and a project shared already
    /// are refused, changing nothing; a move that was interrupted is done
    /// again, to the same share.
    pub fn share_project(
        &self,
        project: &Namespace,
        key: &SecretKey,
        admins: &[[u8; 32]],
    ) -> Result<ShareMove, ToolError> {
        self.share_project_until(project, key, admins, false)
    }

    /// As [`Engine::share_project`], interrupted before the person's copies
    /// are forgotten (a crash there), for tests of `finish_moves`.
    #[cfg(any(test, feature = "testing"))]
    pub fn share_project_interrupted(
        &self,
        project: &Namespace,
        key: &SecretKey,
    ) -> Result<ShareMove, ToolError> {
        self.share_project_until(project, key, &[], true)
    }

    /// Finishes the moves into shares that were interrupted (the node
    /// stopped, or a write failed, between the share's creation and the
    /// forgetting of the person's copies) by doing them again. Returns how
    /// many it finished.
    pub fn finish_moves(&self) -> Result<usize, ToolError> {
        let Some(shares) = &self.shares else { return Ok(0) };
        let _writing = lock(&self.write_lock);
        let pending: Vec<(ShareId, Namespace)> = lock(shares)
            .all()
            .filter(|held| !held.record.moved)
            .map(|held| (held.id, held.project.clone()))
            .collect();
        for (id, project) in &pending {
            self.move_into(*id, project, false)?;
            lock(shares).set_moved(id)?;
            tracing::info!(share = %id.to_hex(), "finished moving a project into its share");
        }
        Ok(pending.len())
    }

    /// [`Engine::share_project`], stopping before the person's copies are
    /// forgotten when `interrupted` (what a crash there leaves, for tests).
    fn share_project_until(
        &self,
        project: &Namespace,
        key: &SecretKey,
        admins: &[[u8; 32]],
        interrupted: bool,
    ) -> Result<ShareMove, ToolError> {
        let Some(shares) = &self.shares else {
            return Err(EngineError::NoShares.into());
        };
        let _writing = lock(&self.write_lock);
        let now = self.now();
        let existing =
            lock(shares).of_project(project).next().map(|held| (held.id, held.record.moved));
        let id = match existing {
            Some((id, true)) => {
                return Err(FieldError::new(
                    "namespace",
                    format!("{project} is shared already, as {}", shares::namespace_of(&id)),
                )
                .into());
            }
            // A move interrupted: done again, to the same share.
            Some((id, false)) => id,
            None => lock(shares).create(project, key, admins, now)?.id,
        };
        let shared = self.move_into(id, project, interrupted)?;
        lock(shares).set_moved(&id)?;
        Ok(shared)
    }

    /// Moves what `project` holds into share `id`: the share's copies
    /// written and indexed, then the person's forgotten. Idempotent (a
    /// copy's id is a function of the share and the original's), so a
    /// move interrupted anywhere is finished by doing it again. The write
    /// lock is held.
    fn move_into(
        &self,
        id: ShareId,
        project: &Namespace,
        interrupted: bool,
    ) -> Result<ShareMove, ToolError> {
        let now = self.now();
        let namespace = shares::namespace_of(&id);
        let archive = self.replica.archive(project)?;
        let (shared, moved) = archive.for_share(self.replica.device(), |old| copy_id(&id, old));
        let (change, restored) = self.replica.restore(&namespace, now, &shared)?;
        if let Some(change) = change {
            let mut index = lock(&self.index);
            // Each copy takes its original's vector of the whole text (the
            // worker embeds the passages), so the project is found by
            // meaning at once and is not embedded again.
            let mut known = KnownVectors::new();
            for (old, copy) in moved.iter().zip(&shared.memories) {
                if let Some(vector) = index.vector(old)? {
                    known.insert(copy.memory.id.clone(), vec![vector]);
                }
            }
            indexer::apply_change(&mut index, &self.replica, &change, &known)?;
        }
        if interrupted {
            return Err(EngineError::Interrupted(
                "before the person's copies were forgotten".into(),
            )
            .into());
        }
        // The person's copies of what moved.
        self.forget_locked(&moved)?;
        self.work.notify();
        let share = id.to_hex();
        tracing::info!(share = %share, %namespace, memories = restored.memories, "shared a project");
        Ok(ShareMove {
            share,
            namespace,
            memories: restored.memories,
            entities: restored.entities,
            aliases: restored.aliases,
            edges: restored.edges,
            kept: archive.memories.len() - moved.len(),
        })
    }
}

/// The id of the share's copy of record `old`: the same on every attempt of
/// a move (a UUID of version 8 from a hash of the two).
fn copy_id(share: &ShareId, old: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"ferrex/share-copy/1\0")
        .chain_update(share.0)
        .chain_update(old.as_bytes())
        .finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid().to_string()
}
