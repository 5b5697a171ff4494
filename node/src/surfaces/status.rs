//! `ferrex peers` and `ferrex sync status`: the status of paired devices as
//! stable JSON, and as tables for people.

use std::fmt::Write as _;

use ferrex_sync::PeerStatus;
use serde_json::{Value, json};

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
pub fn documents_json(replica: &ferrex_sync::Replica) -> Value {
    let documents: Vec<Value> = replica
        .doc_ids()
        .into_iter()
        .map(|doc| {
            let heads: Vec<String> = replica
                .heads(&doc)
                .map(|heads| heads.iter().map(ToString::to_string).collect())
                .unwrap_or_default();
            json!({"doc": doc.to_string(), "heads": heads})
        })
        .collect();
    Value::Array(documents)
}

/// The full status: this device, its documents, every peer with its
/// documents, and the index lag (`None` when the node is not running).
pub fn status_json(
    running: bool,
    device: &ThisDevice,
    documents: Value,
    peers: &[PeerStatus],
    index_lag: Option<(usize, i64)>,
) -> Value {
    let peers: Vec<Value> = peers
        .iter()
        .map(|peer| {
            let documents: Vec<Value> = peer
                .docs
                .iter()
                .map(|doc| {
                    json!({
                        "doc": doc.doc.to_string(),
                        "in_sync": doc.in_sync,
                        "they_lack": doc.they_lack,
                        "we_lack": doc.we_lack,
                        "last_sync": doc.last_sync.map(clock::iso),
                    })
                })
                .collect();
            json!({
                "id": peer.id,
                "short_id": short_id(&peer.id),
                "name": peer.name,
                "online": peer.online,
                "address": peer.address.map(|addr| addr.to_string()),
                "known_addrs": peer.known_addrs.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "last_seen": peer.last_seen.map(clock::iso),
                "in_sync": peer.in_sync(),
                "they_lack": peer.they_lack(),
                "we_lack": peer.we_lack(),
                "bytes_sent": peer.bytes_sent,
                "bytes_received": peer.bytes_received,
                "udp_bytes_sent": peer.udp_bytes_sent,
                "udp_bytes_received": peer.udp_bytes_received,
                "documents": documents,
            })
        })
        .collect();
    let mut status = json!({
        "running": running,
        "device": {
            "id": device.id,
            "short_id": short_id(&device.id),
            "name": device.name,
            "addrs": device.addrs.iter().map(ToString::to_string).collect::<Vec<_>>(),
        },
        "documents": documents,
        "peers": peers,
    });
    if let Some((changes, queued)) = index_lag {
        status["index"] = json!({"lag_changes": changes, "embeddings_queued": queued});
    }
    status
}

/// The status as `ferrex peers --json` prints it: without the per-document
/// detail.
pub fn peers_json(status: &Value) -> Value {
    let mut peers = status.clone();
    if let Some(list) = peers["peers"].as_array_mut() {
        for peer in list {
            if let Some(peer) = peer.as_object_mut() {
                peer.remove("documents");
            }
        }
    }
    if let Some(object) = peers.as_object_mut() {
        object.remove("index");
        object.remove("files");
        object.remove("documents");
    }
    peers
}

fn text(value: &Value) -> String {
    match value {
        Value::Null => "-".to_owned(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn when(value: &Value) -> String {
    // "2026-11-23T10:00:01.123Z" reads better as "2026-11-23 10:00:01".
    value
        .as_str()
        .map(|iso| iso.replace('T', " ").chars().take(19).collect())
        .unwrap_or_else(|| "never".to_owned())
}

fn header(status: &Value) -> String {
    let device = &status["device"];
    let mut out = format!("this device: {} ({})", text(&device["name"]), text(&device["short_id"]));
    match device["addrs"].as_array().filter(|addrs| !addrs.is_empty()) {
        Some(addrs) => {
            let addrs: Vec<String> = addrs.iter().map(text).collect();
            let _ = write!(out, ", listening on {}", addrs.join(", "));
        }
        None if status["running"] == false => out.push_str(", node not running"),
        None => {}
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
pub fn peers_table(status: &Value) -> String {
    let mut out = header(status);
    out.push_str("\n\n");
    let peers = status["peers"].as_array().cloned().unwrap_or_default();
    if peers.is_empty() {
        out.push_str("No paired devices. Pair one with `ferrex invite` here and `ferrex join <ticket>` there.\n");
        return out;
    }
    let mut rows = vec![
        ["NAME", "ID", "ONLINE", "ADDRESS", "LAST SEEN", "THEY LACK", "WE LACK"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for peer in &peers {
        let address = match &peer["address"] {
            Value::Null => peer["known_addrs"]
                .as_array()
                .and_then(|addrs| addrs.first())
                .map(text)
                .unwrap_or_else(|| "-".into()),
            address => text(address),
        };
        rows.push(vec![
            text(&peer["name"]),
            text(&peer["short_id"]),
            if peer["online"] == true { "yes".into() } else { "no".into() },
            address,
            when(&peer["last_seen"]),
            text(&peer["they_lack"]),
            text(&peer["we_lack"]),
        ]);
    }
    out.push_str(&table(&rows));
    out.push_str("\nTHEY LACK: changes of this device the peer does not have yet; WE LACK: the other way (- when unknown).\n");
    out
}

/// `ferrex sync status` for people.
pub fn sync_table(status: &Value) -> String {
    let mut out = header(status);
    out.push('\n');
    match &status["index"] {
        Value::Null => out.push_str("index: node not running\n"),
        index => {
            let _ = writeln!(
                out,
                "index: {} change(s) merged but not indexed, {} memory(ies) waiting for embedding",
                text(&index["lag_changes"]),
                text(&index["embeddings_queued"])
            );
        }
    }
    let files = &status["files"];
    if files["watched"].as_u64().is_some_and(|watched| watched > 0) {
        let _ = writeln!(
            out,
            "files: {} folder(s) watched, {} file(s), {} chunk(s), {} skipped; {} ({} path(s) queued)",
            text(&files["watched"]),
            text(&files["files"]),
            text(&files["chunks"]),
            text(&files["skipped"]),
            text(&files["status"]["state"]),
            text(&files["status"]["queued"])
        );
    }
    let peers = status["peers"].as_array().cloned().unwrap_or_default();
    if peers.is_empty() {
        out.push_str("\nNo paired devices.\n");
        return out;
    }
    for peer in &peers {
        let _ = writeln!(
            out,
            "\n{} ({}): {}, {}",
            text(&peer["name"]),
            text(&peer["short_id"]),
            if peer["online"] == true { "online" } else { "offline" },
            if peer["in_sync"] == true { "in sync" } else { "not in sync" },
        );
        let mut rows = vec![
            ["DOCUMENT", "STATE", "THEY LACK", "WE LACK", "LAST SYNC"].map(str::to_owned).to_vec(),
        ];
        for doc in peer["documents"].as_array().into_iter().flatten() {
            rows.push(vec![
                text(&doc["doc"]),
                if doc["in_sync"] == true { "in sync".into() } else { "behind".into() },
                text(&doc["they_lack"]),
                text(&doc["we_lack"]),
                when(&doc["last_sync"]),
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
pub fn shares_table(status: &Value) -> String {
    let mut out = String::new();
    for share in status["shares"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "\nShared project {} (you: {}):\n",
            share["project"].as_str().unwrap_or("?"),
            share["role"].as_str().unwrap_or("removed"),
        ));
        let members: Vec<&Value> = share["members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|member| member["own"] != true)
            .collect();
        if members.is_empty() {
            out.push_str("  no member besides your own devices yet\n");
        }
        for member in members {
            let granted_by = member["granted_by_name"]
                .as_str()
                .filter(|name| !name.is_empty())
                .unwrap_or_else(|| short_id(member["granted_by"].as_str().unwrap_or_default()));
            out.push_str(&format!(
                "  {:<20} {}  {:<6} granted by {}  {}\n",
                member["name"].as_str().filter(|name| !name.is_empty()).unwrap_or("unnamed"),
                short_id(member["id"].as_str().unwrap_or_default()),
                member["role"].as_str().unwrap_or("?"),
                granted_by,
                if member["online"] == true { "online" } else { "offline" },
            ));
        }
        for removed in share["removed"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "  {:<20} {}  removed\n",
                removed["name"].as_str().filter(|name| !name.is_empty()).unwrap_or("unnamed"),
                short_id(removed["id"].as_str().unwrap_or_default()),
            ));
        }
    }
    out
}

/// Per share and member, what each side lacks and what was refused, as
/// `ferrex sync status` shows them.
pub fn shares_sync_table(status: &Value) -> String {
    let mut out = String::new();
    for share in status["shares"].as_array().into_iter().flatten() {
        out.push_str(&format!("\nShared project {}:\n", share["project"].as_str().unwrap_or("?")));
        for member in share["members"].as_array().into_iter().flatten() {
            if member["own"] == true {
                continue;
            }
            let docs = member["docs"].as_array().cloned().unwrap_or_default();
            let lack = |key: &str| -> String {
                if docs.iter().any(|doc| doc[key].is_null()) || docs.is_empty() {
                    return "unknown".into();
                }
                docs.iter().map(|doc| doc[key].as_u64().unwrap_or(0)).sum::<u64>().to_string()
            };
            out.push_str(&format!(
                "  {:<20} {}  they lack {}, we lack {}, refused {}{}\n",
                member["name"].as_str().filter(|name| !name.is_empty()).unwrap_or("unnamed"),
                short_id(member["id"].as_str().unwrap_or_default()),
                lack("they_lack"),
                lack("we_lack"),
                member["refused"].as_u64().unwrap_or(0),
                if member["online"] == true { "" } else { " (offline: as last known)" },
            ));
        }
    }
    out
}
