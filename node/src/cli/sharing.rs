//! Sharing a project with a teammate's devices (docs/sharing.md):
//! `ferrex share [PROJECT]`, joining with a share's ticket (`ferrex join`
//! tells the two kinds of ticket apart), and `ferrex share remove`.

use std::time::Duration;

use anyhow::{Context, bail};
use ferrex_sync::ShareTicket;

use crate::{
    base::{
        console::{output, report},
        home::Home,
    },
    cli::{memory::confirm, peers::ask_starting},
    surfaces::{
        control::Request,
        replies::{MemberRemoved, ShareInvited, ShareJoined, SharePlanned, SharePreviewed},
        status,
    },
};

/// The project `named`, else the current directory's.
fn project_of(home: &Home, named: Option<&str>) -> anyhow::Result<String> {
    if let Some(name) = named {
        return Ok(name.to_owned());
    }
    let project = crate::base::project::of(std::env::current_dir().ok().as_deref(), home)
        .context("no project here (not in a repository with a remote): name the project")?;
    Ok(project.namespace.as_str().to_owned())
}

/// `ferrex share [PROJECT] [--role read|write] [--ttl 10m] [--yes]`: says
/// what sharing moves, asks the first time, then prints a ticket.
pub async fn share(
    home: &Home,
    project: Option<&str>,
    role: &str,
    ttl: Duration,
    yes: bool,
    start_args: &[String],
) -> anyhow::Result<()> {
    let project = project_of(home, project)?;
    let plan: SharePlanned =
        ask_starting(home, start_args, &Request::SharePlan { project: project.clone() }).await?;
    if !plan.shared {
        report(&format!(
            "Sharing {project} moves its {} memories ({} entities, {} links) into a share that \
             the devices you invite receive, and every one of your own devices keeps. {} \
             memories stay yours alone (sessions' events and exchanges, watched files). \
             Everything else of yours (other projects, default) is never shared.",
            plan.memories, plan.entities, plan.edges, plan.kept,
        ));
        if !yes && !confirm("Share it?", "not sharing")? {
            report("nothing shared");
            return Ok(());
        }
    }
    let request = Request::Share { project, role: role.to_owned(), ttl_secs: ttl.as_secs() };
    let invited: ShareInvited = ask_starting(home, start_args, &request).await?;
    let ticket = &invited.ticket;
    output(ticket);
    report(&format!(
        "On your teammate's device, run:\n\n    ferrex join {ticket}\n\nIt gives one device \
         {} access to {} and expires at {}. Remove a member with `ferrex share remove NAME`.",
        invited.role, invited.project, invited.expires_at,
    ));
    Ok(())
}

/// `ferrex join` with a share's ticket: shows what joining brings, asks,
/// then joins.
pub async fn join(
    home: &Home,
    ticket: &str,
    yes: bool,
    start_args: &[String],
) -> anyhow::Result<()> {
    // A malformed ticket is refused before any node starts or anything is dialed.
    let parsed: ShareTicket = ticket.parse()?;
    let preview: SharePreviewed =
        ask_starting(home, start_args, &Request::SharePreview { ticket: ticket.to_owned() })
            .await?;
    report(&format!(
        "{} shares the project {} with this device: {} access, {} memories now. Only that \
         project's share comes here, and what this device holds stays its own (its memories of \
         the same project included); with write access, what is stored in that project from \
         now on goes to the share unless it names the project's own namespace.",
        if preview.name.is_empty() { &parsed.name } else { &preview.name },
        preview.project,
        preview.role,
        preview.memories,
    ));
    if !yes && !confirm("Join it?", "not joining")? {
        report("not joined");
        return Ok(());
    }
    let joined: ShareJoined =
        ask_starting(home, start_args, &Request::JoinShare { ticket: ticket.to_owned() }).await?;
    report(&format!(
        "joined {} ({}): its memories arrive now, and recall in that project reads them \
         (each result names the share's namespace {}). See `ferrex peers`.",
        joined.project, joined.role, joined.namespace,
    ));
    Ok(())
}

/// `ferrex share remove MEMBER [--project P]`.
pub async fn remove(home: &Home, member: &str, project: Option<&str>) -> anyhow::Result<()> {
    let request =
        Request::RemoveMember { project: project.map(str::to_owned), member: member.to_owned() };
    let answer: MemberRemoved = ask_starting(home, &[], &request).await?;
    let removed: Vec<String> = answer
        .removed
        .iter()
        .map(|device| {
            format!(
                "{} ({})",
                device.name.as_deref().filter(|name| !name.is_empty()).unwrap_or("unnamed"),
                status::short_id(&device.id)
            )
        })
        .collect();
    if removed.is_empty() {
        bail!("nothing was removed");
    }
    report(&format!(
        "removed from {}: {}. Every member stops serving them as soon as it hears (at once when \
         online); nothing stored from now on reaches them. What they hold already stays with them.",
        answer.project,
        removed.join(", "),
    ));
    Ok(())
}
