//! The control protocol between `ferrex` commands and a running node.
//!
//! A connection to the node's socket starts with one line naming its
//! protocol: `ferrex-mcp 1` (then MCP) or `ferrex-control 1`. A control
//! connection carries one JSON request line; the node answers with JSON
//! lines: zero or more `{"event": ...}` lines, then one `{"ok": ...}` line.

use std::{io::ErrorKind, path::Path, time::Duration};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::base::local_socket;

/// The first line of an MCP connection; `ferrex-mcp 1 project=NAME` names
/// the agent's project (see [`mcp_hello`]).
pub const MCP_HELLO: &str = "ferrex-mcp 1";

/// The first line of an MCP connection from an agent working in `project`.
pub fn mcp_hello(project: Option<&ferrex_core::project::Project>) -> String {
    match project {
        Some(project) => {
            format!("{MCP_HELLO} project={}\n", project.name.replace(['\n', '\r'], " "))
        }
        None => format!("{MCP_HELLO}\n"),
    }
}

/// The project an MCP connection's first line names, if any; `None` when
/// the line is not an MCP hello.
pub fn mcp_project(hello: &str) -> Option<Option<ferrex_core::project::Project>> {
    let rest = hello.strip_prefix(MCP_HELLO)?;
    if rest.is_empty() {
        return Some(None);
    }
    let name = rest.strip_prefix(" project=")?;
    Some(ferrex_core::project::Project::named(name))
}

/// The first line of a control connection.
pub const CONTROL_HELLO: &str = "ferrex-control 1";

/// What a command asks the node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Is it running, and as what.
    Status,
    /// Stop.
    Stop,
    /// Rebuild the index from the documents, reporting progress.
    Reindex,
    /// Make a pairing ticket that expires after `ttl_secs`.
    Invite {
        /// Seconds the ticket stays valid.
        ttl_secs: u64,
    },
    /// Pair with the device that made `ticket`.
    Join {
        /// The ticket line.
        ticket: String,
    },
    /// Paired devices and how they stand.
    Peers,
    /// Revoke a device on every node.
    RemovePeer {
        /// Its id (hex), a unique prefix of it, or its unique name.
        id: String,
    },
    /// Run an operation on the memory: a tool (`recall`, `store`, …) or a
    /// view (`list`, `show`, `topics`), with the tools' argument checks.
    /// The answer is `{"ok": true, "answer": …}`; a request the node
    /// refuses as invalid (nothing changed) is answered `{"ok": false,
    /// "error": …, "invalid": true}`, see [`NodeRefused`].
    Call {
        /// Its name.
        name: String,
        /// Its arguments.
        arguments: serde_json::Map<String, Value>,
        /// The project the caller works in (a namespace the call names
        /// wins over it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
    },
    /// Export the records of a namespace (every namespace when `None`) in
    /// ferrex's format: `{"event": "start", "records": n}`, a `{"event":
    /// "line", "line": …}` per line (the header first), then `{"ok": true}`.
    Export {
        /// The namespace, or all.
        namespace: Option<String>,
    },
    /// What sharing `project` would move into a share (nothing is moved).
    SharePlan {
        /// The project's namespace.
        project: String,
    },
    /// Share `project` (moving its memories into a share, unless shared
    /// already) and make a ticket giving `role` that expires after
    /// `ttl_secs`.
    Share {
        /// The project's namespace.
        project: String,
        /// read or write.
        role: String,
        /// Seconds the ticket stays valid.
        ttl_secs: u64,
    },
    /// What joining with a share's `ticket` would bring.
    SharePreview {
        /// The ticket line.
        ticket: String,
    },
    /// Join the share of `ticket`.
    JoinShare {
        /// The ticket line.
        ticket: String,
    },
    /// Remove `member` (a device's id, a unique prefix, or its name) from
    /// the share of `project` (from the one share it is a member of when
    /// `None`).
    RemoveMember {
        /// The project whose share it leaves.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
        /// The member.
        member: String,
    },
    /// Restore records of ferrex's format into `namespace` (see
    /// [`ferrex_engine::formats::jsonl`]); the answer counts what was written and left.
    Restore {
        /// Where they go.
        namespace: String,
        /// The records, with their line numbers in the file.
        lines: Vec<(usize, ferrex_engine::formats::jsonl::Line)>,
    },
}

/// The node answered a request with an error (as against the node not
/// being reached, or not answering: those are other errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct NodeRefused {
    /// The node's message.
    pub message: String,
    /// Whether the request itself was wrong (a [`Request::Call`] whose
    /// arguments name nothing this node holds, for example): nothing was
    /// changed, and the same request will be refused again. Otherwise the
    /// node failed to carry it out.
    pub invalid: bool,
}

/// Connects to the node listening on `socket`.
pub async fn connect(socket: &Path) -> std::io::Result<local_socket::Stream> {
    local_socket::connect(socket).await
}

/// Whether the error means "no node is listening there".
pub fn is_not_running(error: &std::io::Error) -> bool {
    local_socket::is_not_running(error)
}

/// Sends `request` to the node at `socket`; `on_event` sees each event line.
/// Returns the final answer, or an error with the node's message.
pub async fn send(
    socket: &Path,
    request: &Request,
    mut on_event: impl FnMut(&Value),
) -> anyhow::Result<Value> {
    let mut stream = connect(socket).await?;
    let mut line = serde_json::to_string(request)?;
    line.insert_str(0, &format!("{CONTROL_HELLO}\n"));
    line.push('\n');
    stream.write_all(line.as_bytes()).await?;
    let mut lines = BufReader::new(stream).lines();
    while let Some(line) = lines.next_line().await? {
        let value: Value = serde_json::from_str(&line).context("the node sent a bad answer")?;
        if value.get("event").is_some() {
            on_event(&value);
            continue;
        }
        if value["ok"] == Value::Bool(true) {
            return Ok(value);
        }
        return Err(NodeRefused {
            message: value["error"].as_str().unwrap_or("the node refused the request").to_owned(),
            invalid: value["invalid"] == Value::Bool(true),
        }
        .into());
    }
    bail!("the node closed the connection without answering")
}

/// Sends `request` to the node at `socket` and reads its answer as `T`
/// (the answer's fields beside `ok`): the typed client of the socket.
pub async fn ask<T: serde::de::DeserializeOwned>(
    socket: &Path,
    request: &Request,
) -> anyhow::Result<T> {
    read(&send(socket, request, |_| {}).await?)
}

/// An answer of the node read as its type `T`.
pub fn read<T: serde::de::DeserializeOwned>(answer: &Value) -> anyhow::Result<T> {
    T::deserialize(answer).context("the node answered in a form this ferrex does not read")
}

/// [`send`], each event read as its type `E`; an event this ferrex cannot
/// read fails the request once the node has answered.
pub async fn send_events<E: serde::de::DeserializeOwned>(
    socket: &Path,
    request: &Request,
    mut on_event: impl FnMut(E),
) -> anyhow::Result<Value> {
    let mut unread: Option<serde_json::Error> = None;
    let answer = send(socket, request, |event| match E::deserialize(event) {
        Ok(event) => on_event(event),
        Err(error) => {
            unread.get_or_insert(error);
        }
    })
    .await?;
    match unread {
        Some(error) => Err(error).context("the node sent an event this ferrex does not read"),
        None => Ok(answer),
    }
}

/// An answer of the node as a line of the socket: `answer`'s fields and
/// `"ok": true`.
pub fn answered<T: serde::Serialize>(answer: &T) -> anyhow::Result<Value> {
    let mut value = serde_json::to_value(answer)?;
    let Value::Object(fields) = &mut value else { bail!("an answer must be a JSON object") };
    fields.insert("ok".into(), Value::Bool(true));
    Ok(value)
}

/// Runs operation `name` (a tool or a view, see [`Request::Call`]) with
/// `arguments` (a JSON object) on the node at `socket`; its answer, or an
/// error with the node's message.
pub async fn call(socket: &Path, name: &str, arguments: Value) -> anyhow::Result<Value> {
    call_in(socket, None, name, arguments).await
}

/// [`call`], for a caller working in `project`.
pub async fn call_in(
    socket: &Path,
    project: Option<&ferrex_core::project::Project>,
    name: &str,
    arguments: Value,
) -> anyhow::Result<Value> {
    let Value::Object(arguments) = arguments else { bail!("arguments must be a JSON object") };
    let project = project.map(|project| project.name.clone());
    let request = Request::Call { name: name.to_owned(), arguments, project };
    let mut answer = send(socket, &request, |_| {}).await?;
    Ok(answer["answer"].take())
}

/// Reads the protocol line of a new connection, byte by byte so that no byte
/// of what follows is consumed.
pub async fn read_hello(stream: &mut local_socket::Stream) -> anyhow::Result<String> {
    use tokio::io::AsyncReadExt;
    let mut line = Vec::new();
    let read = async {
        loop {
            let byte = stream.read_u8().await?;
            if byte == b'\n' {
                return Ok::<_, std::io::Error>(());
            }
            line.push(byte);
            if line.len() > 1_024 {
                return Err(std::io::Error::new(ErrorKind::InvalidData, "protocol line too long"));
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .context("no protocol line within 10 s")??;
    Ok(String::from_utf8_lossy(&line).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use crate::base::local_socket;

    use super::{CONTROL_HELLO, MCP_HELLO, NodeRefused, Request, call, mcp_hello, mcp_project};

    /// Answers each of `answers` to one connection on a fresh socket, and
    /// returns the socket's path (inside `dir`).
    fn node_answering(dir: &tempfile::TempDir, answers: Vec<&'static str>) -> std::path::PathBuf {
        let socket = dir.path().join("node.sock");
        let mut listener = local_socket::listen(&socket).expect("bind");
        tokio::spawn(async move {
            for answer in answers {
                let stream = listener.accept().await.expect("accept");
                let (reader, mut writer) = tokio::io::split(stream);
                let mut lines = BufReader::new(reader).lines();
                let hello = lines.next_line().await.expect("read").expect("hello");
                assert_eq!(hello, super::CONTROL_HELLO);
                let request = lines.next_line().await.expect("read").expect("request");
                let request: Request = serde_json::from_str(&request).expect("a request");
                assert!(matches!(request, Request::Call { .. }));
                writer.write_all(format!("{answer}\n").as_bytes()).await.expect("write");
            }
        });
        socket
    }

    #[tokio::test]
    async fn a_refusal_says_whether_the_request_itself_was_wrong() {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = node_answering(
            &dir,
            vec![
                r#"{"ok": true, "answer": {"id": "e1"}}"#,
                r#"{"ok": false, "error": "invalid id: \"e2\" names no entity", "invalid": true}"#,
                r#"{"ok": false, "error": "internal error: disk I/O error"}"#,
            ],
        );
        let arguments = || serde_json::json!({"id": "e"});
        let answer = call(&socket, "entity", arguments()).await.expect("an answer");
        assert_eq!(answer["id"], "e1");

        let refused = call(&socket, "entity", arguments()).await.expect_err("refused");
        let refused = refused.downcast_ref::<NodeRefused>().expect("a refusal");
        assert!(refused.invalid);
        assert_eq!(refused.message, "invalid id: \"e2\" names no entity");

        let failed = call(&socket, "entity", arguments()).await.expect_err("failed");
        assert_eq!(failed.to_string(), "internal error: disk I/O error");
        assert!(!failed.downcast_ref::<NodeRefused>().expect("a refusal").invalid);

        // Nobody answers any more: an I/O error, not a refusal.
        drop(dir);
        let unreachable = call(&socket, "entity", arguments()).await.expect_err("unreachable");
        assert!(unreachable.downcast_ref::<NodeRefused>().is_none());
    }

    #[test]
    fn an_mcp_hello_names_the_project_or_none() {
        let project = ferrex_core::project::Project::of_remote("git@github.com:acme/api.git");
        let hello = mcp_hello(project.as_ref());
        assert_eq!(hello, "ferrex-mcp 1 project=github.com/acme/api\n");
        assert_eq!(mcp_project(hello.trim()), Some(project));
        assert_eq!(mcp_project(MCP_HELLO), Some(None));
        assert_eq!(mcp_project(mcp_hello(None).trim()), Some(None));
        assert_eq!(mcp_project(CONTROL_HELLO), None);
        assert_eq!(mcp_project("ferrex-mcp 10"), None);
    }
}
