//! The running node's side of `ferrex share` and of joining a share
//! (docs/sharing.md): the engine moves a project into its share, the
//! network makes tickets, joins and removes members.

use std::{sync::Arc, time::Duration};

use anyhow::{Context, bail};
use ferrex_core::Namespace;
use ferrex_sync::{Network, ShareTicket, membership::Role};
use serde_json::{Value, json};

use crate::{base::clock, engine::Engine, lifecycle::node::Node};

/// What sharing `project` would move: shown before anything moves.
pub async fn plan(node: &Node, project: &str) -> anyhow::Result<Value> {
    let project = Namespace::parse(project)?;
    let engine = node.engine.clone();
    let (held, plan) = tokio::task::spawn_blocking(move || engine.share_plan(&project))
        .await?
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    Ok(json!({
        "ok": true,
        "shared": held.is_some(),
        "namespace": plan.namespace.as_str(),
        "memories": plan.memories,
        "entities": plan.entities,
        "edges": plan.edges,
        "kept": plan.kept,
    }))
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
) -> anyhow::Result<Value> {
    let project = Namespace::parse(project)?;
    let role: Role = role.parse().map_err(|error: String| anyhow::anyhow!(error))?;
    if role == Role::Admin {
        bail!("a teammate's device is invited to read or write; your own devices are the admins");
    }
    let engine: Arc<Engine> = node.engine.clone();
    let moved = match engine.share_of(&project) {
        Some(_) => None,
        None => {
            let key = key.clone();
            // The person's other devices are granted admin by the network
            // (`Network::share_changed`), as any device paired later is.
            let admins: Vec<[u8; 32]> = Vec::new();
            let (engine, project) = (engine.clone(), project.clone());
            let shared =
                tokio::task::spawn_blocking(move || engine.share_project(&project, &key, &admins))
                    .await?
                    .map_err(|error| anyhow::anyhow!("{error}"))?;
            Some(shared)
        }
    };
    let share = engine.share_of(&project).context("the share was not recorded")?;
    network.share_changed(&share);
    let ticket = network.share_invite(&share, role, ttl).map_err(|error| anyhow::anyhow!(error))?;
    Ok(json!({
        "ok": true,
        "ticket": ticket.to_string(),
        "expires_at": clock::iso(ticket.expires_at),
        "project": project.as_str(),
        "role": role.as_str(),
        "namespace": ferrex_sync::shares::namespace_of(&share).as_str(),
        "moved": moved.map(|shared| json!({
            "memories": shared.memories,
            "entities": shared.entities,
            "edges": shared.edges,
            "kept": shared.kept,
        })),
    }))
}

/// What joining with `ticket` would bring.
pub async fn preview(network: &Network, ticket: &str) -> anyhow::Result<Value> {
    let ticket: ShareTicket = ticket.parse()?;
    let preview = network.preview_share(&ticket).await?;
    Ok(json!({
        "ok": true,
        "project": preview.project,
        "role": preview.role.as_str(),
        "memories": preview.memories,
        "name": preview.name,
    }))
}

/// Joins the share of `ticket`.
pub async fn join(network: &Network, ticket: &str) -> anyhow::Result<Value> {
    let ticket: ShareTicket = ticket.parse()?;
    let (share, project) = network.join_share(&ticket).await?;
    Ok(json!({
        "ok": true,
        "project": project.as_str(),
        "role": ticket.role.as_str(),
        "namespace": ferrex_sync::shares::namespace_of(&share).as_str(),
        "name": ticket.name,
    }))
}

/// Removes `member` from the share of `project` (or from the one share it
/// is a member of).
pub async fn remove(
    node: &Node,
    network: &Network,
    project: Option<&str>,
    member: &str,
) -> anyhow::Result<Value> {
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
    let candidates: Vec<&ferrex_sync::ShareStatus> = statuses
        .iter()
        .filter(|status| wanted.as_ref().is_none_or(|wanted| status.project == wanted.as_str()))
        .filter(|status| status.members.iter().any(|m| matches(&m.name, &m.device)))
        .collect();
    let status = match candidates.as_slice() {
        [] => bail!(
            "no member of a shared project is called or has the id {member:?}; see `ferrex peers`"
        ),
        [one] => *one,
        _ => bail!("{member:?} is a member of several shared projects; name one with --project"),
    };
    let device = status
        .members
        .iter()
        .find(|m| matches(&m.name, &m.device))
        .map(|m| m.device.clone())
        .unwrap_or_default();
    let share = node
        .engine
        .share_of(&Namespace::parse(&status.project)?)
        .context("the share is no longer held")?;
    let removed = network.remove_member(&share, &device).map_err(|error| anyhow::anyhow!(error))?;
    Ok(json!({
        "ok": true,
        "project": status.project,
        "removed": removed.devices.iter().map(|(id, name)| json!({"id": id, "name": name})).collect::<Vec<_>>(),
    }))
}

/// The shares as `ferrex peers` and `ferrex sync status` show them.
pub async fn shares_json(network: &Network) -> Value {
    let statuses = network.shares(Duration::from_secs(2)).await;
    Value::Array(
        statuses
            .into_iter()
            .map(|status| {
                json!({
                    "project": status.project,
                    "namespace": status.namespace,
                    "share": status.share,
                    "role": status.role.map(Role::as_str),
                    "statements": status.statements,
                    "members": status.members.iter().map(|member| json!({
                        "id": member.device,
                        "name": member.name,
                        "role": member.role.as_str(),
                        "granted_by": member.granted_by,
                        "own": member.own,
                        "online": member.online,
                        "refused": member.refused,
                        "docs": member.docs.iter().map(|doc| json!({
                            "doc": doc.doc.to_string(),
                            "they_lack": doc.they_lack,
                            "we_lack": doc.we_lack,
                            "in_sync": doc.in_sync,
                            "last_sync": doc.last_sync.map(clock::iso),
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
