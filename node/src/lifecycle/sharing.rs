//! The running node's side of `ferrex share` and of joining a share
//! (docs/sharing.md): the engine moves a project into its share, the
//! network makes tickets, joins and removes members.

use std::{sync::Arc, time::Duration};

use anyhow::{Context, bail};
use ferrex_core::Namespace;
use ferrex_sync::{Network, ShareTicket, membership::Role};

use crate::{
    base::clock,
    lifecycle::node::Node,
    surfaces::{
        replies::{
            DeviceRef, MemberRemoved, Moved, ShareInvited, ShareJoined, SharePlanned,
            SharePreviewed,
        },
        status,
    },
};
use ferrex_engine::{
    answers::status::{MemberStanding, RemovedDevice, ShareStanding},
    engine::Engine,
};

/// What sharing `project` would move: shown before anything moves.
pub async fn plan(node: &Node, project: &str) -> anyhow::Result<SharePlanned> {
    let project = Namespace::parse(project)?;
    let engine = node.engine.clone();
    let (held, plan) = tokio::task::spawn_blocking(move || engine.share_plan(&project))
        .await?
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    Ok(SharePlanned {
        shared: held.is_some(),
        namespace: plan.namespace.as_str().to_owned(),
        memories: plan.memories,
        entities: plan.entities,
        edges: plan.edges,
        kept: plan.kept,
    })
}

/// Shares `project` (moving it into its share the first time) and makes a
/// ticket to it.
pub async fn share(
    node: &Node,
    network: &Network,
    key: &ferrex_sync::SecretKey,
    project: &str,
    role: &str,
    ttl: Duration,
) -> anyhow::Result<ShareInvited> {
    let project = Namespace::parse(project)?;
    let role: Role = role.parse().map_err(|error: String| anyhow::anyhow!(error))?;
    if role == Role::Admin {
        bail!("a teammate's device is invited to read or write; your own devices are the admins");
    }
    let engine: Arc<Engine> = node.engine.clone();
    let moved = match engine.share_of(&project) {
        Some(_) => None,
        None => {
            // The share first, told to the person's devices connected now
            // (which take part in it without a grant), then the move: a
            // device that merges the move knows where the memories went.
            let id = {
                let (engine, project, key) = (engine.clone(), project.clone(), key.clone());
                tokio::task::spawn_blocking(move || engine.prepare_share(&project, &key))
                    .await?
                    .map_err(|error| anyhow::anyhow!("{error}"))?
            };
            network.share_changed(&id);
            network.tell_own_devices(Duration::from_secs(5)).await;
            let (engine, project, key) = (engine.clone(), project.clone(), key.clone());
            let shared =
                tokio::task::spawn_blocking(move || engine.share_project(&project, &key, &[]))
                    .await?
                    .map_err(|error| anyhow::anyhow!("{error}"))?;
            Some(shared)
        }
    };
    let share = engine.share_of(&project).context("the share was not recorded")?;
    let ticket = network.share_invite(&share, role, ttl).await?;
    Ok(ShareInvited {
        ticket: ticket.to_string(),
        expires_at: clock::iso(ticket.expires_at),
        project: project.as_str().to_owned(),
        role: role.as_str().to_owned(),
        namespace: ferrex_sync::shares::namespace_of(&share).as_str().to_owned(),
        moved: moved.map(|shared| Moved {
            memories: shared.memories,
            entities: shared.entities,
            edges: shared.edges,
            kept: shared.kept,
        }),
    })
}

/// What joining with `ticket` would bring.
pub async fn preview(network: &Network, ticket: &str) -> anyhow::Result<SharePreviewed> {
    let ticket: ShareTicket = ticket.parse()?;
    let preview = network.preview_share(&ticket).await?;
    Ok(SharePreviewed {
        project: preview.project,
        role: preview.role.as_str().to_owned(),
        memories: preview.memories,
        name: preview.name,
    })
}

/// Joins the share of `ticket`.
pub async fn join(network: &Network, ticket: &str) -> anyhow::Result<ShareJoined> {
    let ticket: ShareTicket = ticket.parse()?;
    let (share, project) = network.join_share(&ticket).await?;
    Ok(ShareJoined {
        project: project.as_str().to_owned(),
        role: ticket.role.as_str().to_owned(),
        namespace: ferrex_sync::shares::namespace_of(&share).as_str().to_owned(),
        name: ticket.name,
    })
}

/// Removes `member` from the share of `project` (or from the one share it
/// is a member of).
pub async fn remove(
    network: &Network,
    project: Option<&str>,
    member: &str,
) -> anyhow::Result<MemberRemoved> {
    let member = member.trim();
    if member.is_empty() {
        bail!("give the id or name of the member to remove (see `ferrex peers`)");
    }
    let statuses = network.shares(Duration::ZERO).await;
    let wanted = project.map(Namespace::parse).transpose()?;
    let matches = |name: &Option<String>, device: &str| {
        device == member
            || (member.len() >= 4 && device.starts_with(&member.to_ascii_lowercase()))
            || name.as_deref() == Some(member)
    };
    // Every (share, member) the words name: exactly one must be.
    let candidates: Vec<(&ferrex_sync::ShareStatus, &ferrex_sync::MemberStatus)> = statuses
        .iter()
        .filter(|status| wanted.as_ref().is_none_or(|wanted| status.project == wanted.as_str()))
        .flat_map(|status| status.members.iter().map(move |member| (status, member)))
        .filter(|(_, member)| matches(&member.name, &member.device))
        .collect();
    let (status, member) = match candidates.as_slice() {
        [] if network.names_own_device(member) => bail!(
            "{member:?} is one of your own devices: `ferrex peers remove` removes it from every \
             share as it unpairs it"
        ),
        [] => bail!(
            "no member of a shared project is called or has the id {member:?}; see `ferrex peers`"
        ),
        [one] => *one,
        several if several.iter().all(|(status, _)| status.share == several[0].0.share) => bail!(
            "{member:?} names several members ({}); give more of the id",
            several.iter().map(|(_, m)| status::short_id(&m.device)).collect::<Vec<_>>().join(", ")
        ),
        _ => bail!("{member:?} is a member of several shared projects; name one with --project"),
    };
    let share = hex::decode(&status.share)
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .map(ferrex_sync::membership::ShareId)
        .context("a share's id is not hex")?;
    let device = member.device.clone();
    let removed = network.remove_member(&share, &device).await?;
    Ok(MemberRemoved {
        project: status.project.clone(),
        removed: removed
            .devices
            .into_iter()
            .map(|(id, name)| DeviceRef { id, name: Some(name).filter(|name| !name.is_empty()) })
            .collect(),
    })
}

/// The shares as `ferrex peers` and `ferrex sync status` show them.
pub async fn shares(network: &Network) -> Vec<ShareStanding> {
    let statuses = network.shares(Duration::from_secs(2)).await;
    statuses
        .into_iter()
        .map(|status| ShareStanding {
            project: status.project,
            namespace: status.namespace,
            share: status.share,
            role: status.role.map(|role| role.as_str().to_owned()),
            statements: status.statements,
            removed: status
                .removed
                .into_iter()
                .map(|(id, name)| RemovedDevice { id, name })
                .collect(),
            members: status
                .members
                .into_iter()
                .map(|member| MemberStanding {
                    role: member.role.as_str().to_owned(),
                    docs: member.docs.iter().map(status::document_sync).collect(),
                    id: member.device,
                    name: member.name,
                    granted_by: member.granted_by,
                    granted_by_name: member.granted_by_name,
                    own: member.own,
                    online: member.online,
                    refused: member.refused,
                    bytes_sent: member.bytes_sent,
                    bytes_received: member.bytes_received,
                })
                .collect(),
        })
        .collect()
}
