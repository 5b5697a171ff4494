//! `ferrex peers` and `ferrex sync status`: the status of paired devices,
//! built as its type (`ferrex_engine::answers::status`, which `--json`
//! prints) and shown as tables for people.

use std::fmt::Write as _;

use ferrex_engine::answers::status::{
    DeviceEntry, DocumentHeads, DocumentSync, IndexState, MemberStanding, PeerEntry, SyncStatus,
};
use ferrex_sync::{DocStatus, PeerStatus};

use crate::base::clock;

/// The first characters of an id, as shown to people.
pub fn short_id(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// This device, as the status shows it.
#[derive(Debug, Clone)]
pub struct ThisDevice {
    /// Endpoint id (hex).
    pub id: String,
    /// Name.
    pub name: String,
    /// Addresses it listens on (empty when the node is not running).
    pub addrs: Vec<std::net::SocketAddr>,
}

/// This node's documents and their heads.
pub fn documents(replica: &ferrex_sync::Replica) -> Vec<DocumentHeads> {
    replica
        .doc_ids()
        .into_iter()
        .map(|doc| DocumentHeads {
            heads: replica
                .heads(&doc)
                .map(|heads| heads.iter().map(ToString::to_string).collect())
                .unwrap_or_default(),
            doc: doc.to_string(),
        })
        .collect()
}

/// How one document stands with a peer or a share's member.
pub fn document_sync(doc: &DocStatus) -> DocumentSync {
    DocumentSync {
        doc: doc.doc.to_string(),
        in_sync: doc.in_sync,
        they_lack: doc.they_lack,
        we_lack: doc.we_lack,
        last_sync: doc.last_sync.map(clock::iso),
    }
}

/// The full status: this device, its documents, every peer with its
/// documents, and the index lag (`None` when the node is not running);
/// a running node adds its files and shares.
pub fn status(
    running: bool,
    device: &ThisDevice,
    documents: Vec<DocumentHeads>,
    peers: &[PeerStatus],
    index_lag: Option<(usize, i64)>,
) -> SyncStatus {
    let peers = peers
        .iter()
        .map(|peer| PeerEntry {
            id: peer.id.clone(),
            short_id: short_id(&peer.id).to_owned(),
            name: peer.name.clone(),
            online: peer.online,
            address: peer.address.map(|addr| addr.to_string()),
            known_addrs: peer.known_addrs.iter().map(ToString::to_string).collect(),
            last_seen: peer.last_seen.map(clock::iso),
            in_sync: peer.in_sync(),
            they_lack: peer.they_lack(),
            we_lack: peer.we_lack(),
            bytes_sent: peer.bytes_sent,
            bytes_received: peer.bytes_received,
            udp_bytes_sent: peer.udp_bytes_sent,
            udp_bytes_received: peer.udp_bytes_received,
            documents: Some(peer.docs.iter().map(document_sync).collect()),
        })
        .collect();
    SyncStatus {
        running,
        device: DeviceEntry {
            id: device.id.clone(),
            short_id: short_id(&device.id).to_owned(),
            name: device.name.clone(),
            addrs: device.addrs.iter().map(ToString::to_string).collect(),
        },
        documents: Some(documents),
        peers,
        index: index_lag
            .map(|(lag_changes, embeddings_queued)| IndexState { lag_changes, embeddings_queued }),
        files: None,
        shares: None,
    }
}

fn text<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| value.to_string())
}

fn when(iso: Option<&str>) -> String {
    // "2026-11-23T10:00:01.123Z" reads better as "2026-11-23 10:00:01".
    iso.map(|iso| iso.replace('T', " ").chars().take(19).collect())
        .unwrap_or_else(|| "never".to_owned())
}

fn named(name: Option<&str>) -> &str {
    name.filter(|name| !name.is_empty()).unwrap_or("unnamed")
}

fn header(status: &SyncStatus) -> String {
    let device = &status.device;
    let mut out = format!("this device: {} ({})", device.name, device.short_id);
    if !device.addrs.is_empty() {
        let _ = write!(out, ", listening on {}", device.addrs.join(", "));
    } else if !status.running {
        out.push_str(", node not running");
    }
    out
}

/// Renders a table: a header row and rows, columns padded to fit.
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|column| {
            rows.iter()
                .filter_map(|row| row.get(column))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(column, cell)| format!("{cell:<width$}", width = widths[column]))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `ferrex peers` for people.
pub fn peers_table(status: &SyncStatus) -> String {
    let mut out = header(status);
    out.push_str("\n\n");
    if status.peers.is_empty() {
        out.push_str("No paired devices. Pair one with `ferrex invite` here and `ferrex join <ticket>` there.\n");
        return out;
    }
    let mut rows = vec![
        ["NAME", "ID", "ONLINE", "ADDRESS", "LAST SEEN", "THEY LACK", "WE LACK"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for peer in &status.peers {
        let address = peer.address.as_ref().or(peer.known_addrs.first());
        rows.push(vec![
            text(peer.name.as_ref()),
            peer.short_id.clone(),
            if peer.online { "yes".into() } else { "no".into() },
            text(address),
            when(peer.last_seen.as_deref()),
            text(peer.they_lack),
            text(peer.we_lack),
        ]);
    }
    out.push_str(&table(&rows));
    out.push_str("\nTHEY LACK: changes of this device the peer does not have yet; WE LACK: the other way (- when unknown).\n");
    out
}

/// `ferrex sync status` for people.
pub fn sync_table(status: &SyncStatus) -> String {
    let mut out = header(status);
    out.push('\n');
    match &status.index {
        None => out.push_str("index: node not running\n"),
        Some(index) => {
            let _ = writeln!(
                out,
                "index: {} change(s) merged but not indexed, {} memory(ies) waiting for embedding",
                index.lag_changes, index.embeddings_queued
            );
        }
    }
    if let Some(files) = status.files.as_ref().filter(|files| files.watched > 0) {
        let _ = writeln!(
            out,
            "files: {} folder(s) watched, {} file(s), {} chunk(s), {} skipped; {} ({} path(s) queued)",
            files.watched,
            files.counts.files,
            files.counts.chunks,
            files.counts.skipped,
            files.status.state,
            files.status.queued
        );
    }
    if status.peers.is_empty() {
        out.push_str("\nNo paired devices.\n");
        return out;
    }
    for peer in &status.peers {
        let _ = writeln!(
            out,
            "\n{} ({}): {}, {}",
            text(peer.name.as_ref()),
            peer.short_id,
            if peer.online { "online" } else { "offline" },
            if peer.in_sync { "in sync" } else { "not in sync" },
        );
        let mut rows = vec![
            ["DOCUMENT", "STATE", "THEY LACK", "WE LACK", "LAST SYNC"].map(str::to_owned).to_vec(),
        ];
        for doc in peer.documents.iter().flatten() {
            rows.push(vec![
                doc.doc.clone(),
                if doc.in_sync { "in sync".into() } else { "behind".into() },
                text(doc.they_lack),
                text(doc.we_lack),
                when(doc.last_sync.as_deref()),
            ]);
        }
        for line in table(&rows).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

/// The shares of a status, as `ferrex peers` shows them under "your
/// devices".
pub fn shares_table(status: &SyncStatus) -> String {
    let mut out = String::new();
    for share in status.shares.iter().flatten() {
        out.push_str(&format!(
            "\nShared project {} (you: {}):\n",
            share.project,
            share.role.as_deref().unwrap_or("removed"),
        ));
        let members: Vec<&MemberStanding> =
            share.members.iter().filter(|member| !member.own).collect();
        if members.is_empty() {
            out.push_str("  no member besides your own devices yet\n");
        }
        for member in members {
            let granted_by = member
                .granted_by_name
                .as_deref()
                .filter(|name| !name.is_empty())
                .unwrap_or_else(|| short_id(&member.granted_by));
            out.push_str(&format!(
                "  {:<20} {}  {:<6} granted by {}  {}\n",
                named(member.name.as_deref()),
                short_id(&member.id),
                member.role,
                granted_by,
                if member.online { "online" } else { "offline" },
            ));
        }
        for removed in &share.removed {
            out.push_str(&format!(
                "  {:<20} {}  removed\n",
                named(removed.name.as_deref()),
                short_id(&removed.id),
            ));
        }
    }
    out
}

/// Per share and member, what each side lacks and what was refused, as
/// `ferrex sync status` shows them.
pub fn shares_sync_table(status: &SyncStatus) -> String {
    let mut out = String::new();
    for share in status.shares.iter().flatten() {
        out.push_str(&format!("\nShared project {}:\n", share.project));
        for member in share.members.iter().filter(|member| !member.own) {
            let lack = |side: fn(&DocumentSync) -> Option<u64>| -> String {
                let known: Option<u64> = member.docs.iter().map(side).sum();
                match known {
                    Some(sum) if !member.docs.is_empty() => sum.to_string(),
                    _ => "unknown".into(),
                }
            };
            out.push_str(&format!(
                "  {:<20} {}  they lack {}, we lack {}, refused {}{}\n",
                named(member.name.as_deref()),
                short_id(&member.id),
                lack(|doc| doc.they_lack),
                lack(|doc| doc.we_lack),
                member.refused,
                if member.online { "" } else { " (offline: as last known)" },
            ));
        }
    }
    out
}
