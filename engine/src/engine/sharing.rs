//! Sharing a project with a teammate's devices (docs/sharing.md): the
//! share's creation on this device, what moves into it, and which shares a
//! project's recall reads.

use ferrex_core::{FieldError, Namespace};
use ferrex_sync::{
    SecretKey,
    shares::{ShareError, Shares},
};

use super::{Engine, ToolError, lock, new_id};
use crate::derived::indexer::{self, KnownVectors};

/// What sharing a project did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shared {
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
    pub fn with_shares(mut self, shares: Shares) -> Engine {
        self.shares = Some(std::sync::Mutex::new(shares));
        self
    }

    /// The namespaces of the shares of `project` this device holds, which
    /// the project's recall reads besides the project's own.
    pub fn shares_of(&self, project: &Namespace) -> Vec<Namespace> {
        let Some(shares) = &self.shares else { return Vec::new() };
        lock(shares).of_project(project).map(|held| held.namespace()).collect()
    }

    /// Shares `project`: a share signed by `key` (this device's), with
    /// `admins` (the person's other devices) its admins, into which the
    /// project's memories move (`Archive::for_share`: new ids, no history,
    /// what stays personal left). Once the share's copy is durable and
    /// indexed, the person's copies are forgotten, so that recall finds
    /// each once. `default` and a share's namespace are refused, changing
    /// nothing.
    pub fn share_project(
        &self,
        project: &Namespace,
        key: &SecretKey,
        admins: &[[u8; 32]],
    ) -> Result<Shared, ToolError> {
        let Some(shares) = &self.shares else {
            return Err(anyhow::anyhow!("this node keeps no shares").into());
        };
        let _writing = lock(&self.write_lock);
        let now = self.now();
        let (share, namespace) = {
            let mut shares = lock(shares);
            let held = shares.create(project, key, admins, now)?;
            (held.id.to_hex(), held.namespace())
        };
        let archive = self.replica.archive(project)?;
        let (shared, moved) = archive.for_share(self.replica.device(), new_id);
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
        // The person's copies of what moved are forgotten below.
        let personal = archive.memories.len() - moved.len();
        self.forget_locked(&moved)?;
        self.work.notify();
        tracing::info!(share = %share, %namespace, memories = restored.memories, "shared a project");
        Ok(Shared {
            share,
            namespace,
            memories: restored.memories,
            entities: restored.entities,
            aliases: restored.aliases,
            edges: restored.edges,
            kept: personal,
        })
    }
}
