//! The commands for people that pair devices and show how they stand:
//! `ferrex invite`, `ferrex join`, `ferrex peers [remove]` and
//! `ferrex sync status`. Each talks to the home's node over its socket;
//! `invite`, `join` and `peers remove` start the node first if it is not
//! running, the status commands say so and show what the documents knew.

use std::time::Duration;

use anyhow::Context;
use ferrex_engine::answers::status::SyncStatus;
use ferrex_sync::{PairingTicket, Replica, offline_peers};

use crate::{
    base::config::Config,
    base::console::{output, report},
    base::device::Device,
    base::home::Home,
    lifecycle::daemon,
    surfaces::bridge,
    surfaces::control::{self, Request},
    surfaces::replies::{DeviceRef, Invited, Paired, PeerRemoved},
    surfaces::status::{self, ThisDevice},
};

/// Parses a duration like `90s`, `10m`, `2h` or a number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(split) => text.split_at(split),
        None => (text, "s"),
    };
    let number: u64 = number.parse().map_err(|_| format!("{text:?} is not a duration like 10m"))?;
    let seconds = match unit {
        "s" => number,
        "m" => number * 60,
        "h" => number * 3600,
        "d" => number * 86_400,
        other => return Err(format!("unknown unit {other:?} in {text:?}: use s, m, h or d")),
    };
    if seconds == 0 {
        return Err("the duration must be longer than zero".into());
    }
    Ok(Duration::from_secs(seconds))
}

/// Sends `request` to the node of `home`, starting the node if needed.
pub(crate) async fn ask_starting<T: serde::de::DeserializeOwned>(
    home: &Home,
    start_args: &[String],
    request: &Request,
) -> anyhow::Result<T> {
    drop(bridge::connect_or_start(home, start_args).await?);
    control::ask(&home.socket_file(), request).await
}

/// `ferrex invite`: prints a one-time ticket.
pub async fn invite(home: &Home, ttl: Duration, start_args: &[String]) -> anyhow::Result<()> {
    let invited: Invited =
        ask_starting(home, start_args, &Request::Invite { ttl_secs: ttl.as_secs() }).await?;
    let ticket = &invited.ticket;
    output(ticket);
    report(&format!(
        "On the other device, run:\n\n    ferrex join {ticket}\n\nThe ticket pairs one device and expires at {} (in {}).",
        invited.expires_at,
        humane(ttl)
    ));
    Ok(())
}

fn humane(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds.is_multiple_of(3600) {
        format!("{} h", seconds / 3600)
    } else if seconds.is_multiple_of(60) {
        format!("{} min", seconds / 60)
    } else {
        format!("{seconds} s")
    }
}

/// The ticket `ferrex join` was given: `-` reads it from stdin, which,
/// unlike the command line, other users of the machine cannot see.
pub fn read_ticket(ticket: &str) -> anyhow::Result<String> {
    if ticket != "-" {
        return Ok(ticket.trim().to_owned());
    }
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).context("reading the ticket from stdin")?;
    Ok(line.trim().to_owned())
}

/// `ferrex join TICKET` with a pairing ticket.
pub async fn join(home: &Home, ticket: &str, start_args: &[String]) -> anyhow::Result<()> {
    // A malformed ticket is refused before any node starts or anything is dialed.
    let parsed: PairingTicket = ticket.parse()?;
    let paired: Paired =
        ask_starting(home, start_args, &Request::Join { ticket: ticket.trim().to_owned() }).await?;
    let DeviceRef { id, name } = paired.paired_with;
    let name = name.unwrap_or(parsed.name);
    report(&format!(
        "paired with {name} ({}); memories now sync with it and with every device it is paired with.\nSee `ferrex peers` and `ferrex sync status`.",
        status::short_id(&id)
    ));
    Ok(())
}

/// `ferrex peers remove ID`.
pub async fn remove(home: &Home, id: &str) -> anyhow::Result<()> {
    let answer: PeerRemoved =
        ask_starting(home, &[], &Request::RemovePeer { id: id.to_owned() }).await?;
    let removed = &answer.removed;
    let who = format!(
        "{} ({})",
        removed.name.as_deref().unwrap_or("unnamed device"),
        status::short_id(&removed.id)
    );
    if answer.already_removed {
        report(&format!("{who} was already removed"));
    } else {
        report(&format!(
            "removed {who}: every paired device refuses it once it has synced with this one"
        ));
    }
    Ok(())
}

/// The status from the running node, or from the documents when none runs.
async fn current_status(home: &Home, config: &Config) -> anyhow::Result<SyncStatus> {
    match control::ask(&home.socket_file(), &Request::Peers).await {
        Ok(status) => Ok(status),
        Err(error)
            if error.downcast_ref::<std::io::Error>().is_some_and(control::is_not_running) =>
        {
            report(&format!(
                "No node is running for {}; showing what it knew when it last ran \
                 (start it with `ferrex node`, or let an MCP client start it).\n",
                home.root().display()
            ));
            offline_status(home, config)
        }
        Err(error) => Err(error),
    }
}

fn offline_status(home: &Home, config: &Config) -> anyhow::Result<SyncStatus> {
    // A home never used yet: this device is made, as any command would.
    home.create()?;
    let device = Device::load_or_create(home, config)?;
    let this = ThisDevice { id: device.id.clone(), name: device.name.clone(), addrs: vec![] };
    if !home.docs_dir().exists() {
        return Ok(status::status(false, &this, Vec::new(), &[], None));
    }
    // Hold the home while reading, so that no node starts meanwhile.
    let _lock = daemon::lock_home(home)?;
    let replica = Replica::open(&home.docs_dir(), &device.id, config.replica_options())?;
    let peers = offline_peers(&replica, &home.sync_dir(), &device.id);
    Ok(status::status(false, &this, status::documents(&replica), &peers, None))
}

/// `ferrex peers [--json]`.
pub async fn peers(home: &Home, config: &Config, json: bool) -> anyhow::Result<()> {
    let status = current_status(home, config).await?;
    if json {
        output(&serde_json::to_string_pretty(&status.peers_only())?);
    } else {
        let mut table = status::peers_table(&status);
        table.push_str(&status::shares_table(&status));
        output(table.trim_end());
    }
    Ok(())
}

/// `ferrex sync status [--json]`.
pub async fn sync_status(home: &Home, config: &Config, json: bool) -> anyhow::Result<()> {
    let status = current_status(home, config).await?;
    if json {
        output(&serde_json::to_string_pretty(&status)?);
    } else {
        let mut table = status::sync_table(&status);
        table.push_str(&status::shares_sync_table(&status));
        output(table.trim_end());
    }
    Ok(())
}

/// The flags a command passes to a node it starts.
pub fn name_args(name: Option<String>) -> Vec<String> {
    name.map(|name| vec!["--name".to_owned(), name]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5y").is_err());
    }
}
