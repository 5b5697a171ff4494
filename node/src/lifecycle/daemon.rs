//! `ferrex node`: one process per home that owns the documents, the index
//! and the model, and serves MCP and control connections on its local
//! socket (a Unix socket, or a named pipe on Windows).

use std::{
    fs::{File, OpenOptions},
    sync::Arc,
};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    sync::Notify,
};

use ferrex_core::project::Project;
use ferrex_sync::{DocChange, Network, NetworkConfig, PairingTicket, SyncObserver};

use crate::{
    base::clock,
    base::config::Config,
    base::device::Device,
    base::home::Home,
    base::local_socket::{self, Stream},
    lifecycle::node::Node,
    lifecycle::reindex,
    lifecycle::sharing,
    surfaces::control::{self, CONTROL_HELLO, Request},
    surfaces::mcp::FerrexServer,
    surfaces::mcp::working::Origin,
    surfaces::replies::{
        DeviceRef, ExportEvent, Invited, Paired, PeerRemoved, ReindexProgress, Reindexed,
        RestoreDone,
    },
    surfaces::status::{self, ThisDevice},
    surfaces::views,
};
use ferrex_engine::{
    answers::FilesStats,
    derived::embedding::WorkSignal,
    derived::peer_vectors::{self, OfferedVectors},
    engine::Engine,
    formats::jsonl,
};

/// Indexes what peers send, and wakes the embedding worker for it.
struct Indexer {
    engine: Arc<Engine>,
    signal: Arc<WorkSignal>,
}

impl SyncObserver for Indexer {
    fn merged(&self, change: &DocChange) {
        if let Err(error) = self.signal.indexing(|| self.engine.apply_merged(change)) {
            let error = ferrex_engine::base::with_causes(&error);
            tracing::error!(doc = %change.doc, "indexing merged changes: {error}");
        }
        self.signal.notify();
    }
}

/// What connections to the node's socket are served with.
struct Served {
    node: Arc<Node>,
    network: Arc<Network>,
    device: Device,
    shutdown: Notify,
}

/// Minutes between folds of local access counts into the documents.
const FOLD_EVERY: std::time::Duration = std::time::Duration::from_secs(300);

/// How often documents nothing used for [`UNLOAD_IDLE`] leave memory.
const UNLOAD_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// How long a document stays in memory after its last use: long enough
/// that a burst of work on one does not load it again and again (a load of
/// a full shard takes about 0.1 s), short enough that a shard a sync or a
/// forget loaded does not hold its memory all day.
const UNLOAD_IDLE: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `work` on a blocking thread every `period` (the first time one
/// period from now) until the task is aborted; logs how many things it
/// did, and its errors, as `what`.
fn every(
    period: std::time::Duration,
    what: &'static str,
    work: impl Fn() -> anyhow::Result<usize> + Clone + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(period);
        ticker.tick().await;
        loop {
            ticker.tick().await;
            match tokio::task::spawn_blocking(work.clone()).await {
                Ok(Ok(count)) if count > 0 => tracing::debug!(count, "{what}"),
                Ok(Err(error)) => tracing::warn!("{what}: {error:#}"),
                _ => {}
            }
        }
    })
}

/// The lock that makes a node the only one for its home; released on exit
/// (also when the process is killed: the kernel drops the lock with the file).
#[derive(Debug)]
pub struct HomeLock {
    _file: File,
}

/// Takes the home's lock, or says which process holds it.
pub fn lock_home(home: &Home) -> anyhow::Result<HomeLock> {
    let path = home.lock_file();
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(HomeLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => {
            let pid = std::fs::read_to_string(home.pid_file()).unwrap_or_default();
            bail!("a node is already running for {} (pid {})", home.root().display(), pid.trim())
        }
        Err(std::fs::TryLockError::Error(error)) => {
            Err(error).with_context(|| format!("locking {}", path.display()))
        }
    }
}

/// Runs the node in the foreground until stopped.
pub async fn run(home: Home, config: Config) -> anyhow::Result<()> {
    home.create()?;
    let _lock = lock_home(&home)?;
    std::fs::write(home.pid_file(), format!("{}\n", std::process::id()))
        .with_context(|| format!("writing {}", home.pid_file().display()))?;
    let device = Device::load_or_create(&home, &config)?;
    tracing::info!(home = %home.root().display(), device = %device.id, name = %device.name, "starting the node");

    let node = {
        let (home, config, device) = (home.clone(), config.clone(), device.clone());
        tokio::task::spawn_blocking(move || Node::open(&home, &config, &device)).await??
    };
    let node = Arc::new(node);
    // The watched folders: reconciled first, then watched.
    let files_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut watching =
        crate::lifecycle::watch::start(&node.engine, &config, &home, files_stop.clone())
            .context("watching the watched folders")?;
    // Before the network: a port in use stops the node before it has
    // started anything else.
    let http = crate::surfaces::http::serve(&home, &config.http, node.engine.clone()).await?;
    let network = Network::start(
        device.identity.clone(),
        node.engine.replica().clone(),
        NetworkConfig {
            mode: config.mode,
            bind: config.bind,
            state_dir: home.sync_dir(),
            name: device.name.clone(),
            clock: clock::now,
            shares: node.shares.clone(),
        },
        Arc::new(Indexer { engine: node.engine.clone(), signal: node.signal.clone() }),
        Some(Arc::new(OfferedVectors::new(
            node.engine.index().clone(),
            config.share_vectors.then(|| node.vector_profile.clone()),
        ))),
    )
    .await
    .context("starting the network")?;
    let network = Arc::new(network);
    // A backlog of memories without vectors (a fresh device, a burst of
    // merges) is filled from peers running the same model when they can.
    let taking = config.share_vectors.then(|| {
        tokio::spawn(peer_vectors::take_from_peers(
            network.clone(),
            node.engine.index().clone(),
            node.engine.foreground().clone(),
            node.signal.clone(),
            node.vector_profile.clone(),
        ))
    });
    let served = Arc::new(Served { node: node.clone(), network, device, shutdown: Notify::new() });

    // We hold the lock, so a socket file left here belongs to a dead node.
    let socket = home.socket_file();
    if local_socket::remove_stale(&socket)
        .with_context(|| format!("removing {}", socket.display()))?
    {
        tracing::info!("removed a stale socket left by a stopped node");
    }
    let mut listener = local_socket::listen(&socket)
        .with_context(|| format!("listening on {}", socket.display()))?;
    tracing::info!(socket = %socket.display(), "serving");

    let fold = {
        let engine = node.engine.clone();
        every(FOLD_EVERY, "folding access counts", move || Ok(engine.fold_access()?))
    };
    let unload = {
        let replica = node.engine.replica().clone();
        every(UNLOAD_EVERY, "unloading idle documents", move || {
            let count = replica.unload_idle(UNLOAD_IDLE);
            if count > 0 {
                crate::base::allocator::release_free_memory();
            }
            Ok(count)
        })
    };
    let mut terminate = shutdown_signals()?;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        tracing::warn!("accepting a connection: {error}");
                        continue;
                    }
                };
                let served = served.clone();
                tokio::spawn(async move {
                    if let Err(error) = serve_connection(stream, served).await {
                        tracing::debug!("connection ended: {error:#}");
                    }
                });
            }
            () = served.shutdown.notified() => break,
            _ = tokio::signal::ctrl_c() => break,
            () = terminate.recv() => break,
        }
    }
    tracing::info!("stopping");
    if let Some(http) = http {
        http.stop(std::time::Duration::from_secs(10)).await;
    }
    fold.abort();
    unload.abort();
    if let Some(taking) = taking {
        taking.abort();
    }
    served.network.shutdown().await;
    drop(served);
    drop(listener);
    let _ = local_socket::remove_stale(&socket);
    let _ = std::fs::remove_file(home.pid_file());
    files_stop.store(true, std::sync::atomic::Ordering::Relaxed);
    tokio::task::spawn_blocking(move || watching.close()).await?;
    match Arc::try_unwrap(node) {
        Ok(mut node) => tokio::task::spawn_blocking(move || node.close()).await?,
        Err(node) => {
            // Sessions still hold the node; fold what we can and let them go.
            let engine = node.engine.clone();
            let _ = tokio::task::spawn_blocking(move || engine.fold_access()).await;
        }
    }
    tracing::info!("stopped");
    Ok(())
}

/// The requests to stop the operating system sends besides Ctrl-C: SIGTERM
/// on Unix (systemd, `kill`); on Windows the console closing, the user
/// logging off and the system shutting down.
struct ShutdownSignals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(windows)]
    close: tokio::signal::windows::CtrlClose,
    #[cfg(windows)]
    logoff: tokio::signal::windows::CtrlLogoff,
    #[cfg(windows)]
    shutdown: tokio::signal::windows::CtrlShutdown,
}

fn shutdown_signals() -> std::io::Result<ShutdownSignals> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(ShutdownSignals { terminate: signal(SignalKind::terminate())? })
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{ctrl_close, ctrl_logoff, ctrl_shutdown};
        Ok(ShutdownSignals {
            close: ctrl_close()?,
            logoff: ctrl_logoff()?,
            shutdown: ctrl_shutdown()?,
        })
    }
}

impl ShutdownSignals {
    /// Waits for the next one.
    async fn recv(&mut self) {
        #[cfg(unix)]
        {
            self.terminate.recv().await;
        }
        #[cfg(windows)]
        {
            tokio::select! {
                _ = self.close.recv() => {}
                _ = self.logoff.recv() => {}
                _ = self.shutdown.recv() => {}
            }
        }
    }
}

async fn serve_connection(mut stream: Stream, served: Arc<Served>) -> anyhow::Result<()> {
    let hello = control::read_hello(&mut stream).await?;
    if let Some(project) = control::mcp_project(&hello) {
        use rmcp::ServiceExt;
        let origin = Origin::of(project);
        let service = FerrexServer::new(served.node.engine.clone(), origin).serve(stream).await?;
        service.waiting().await?;
        return Ok(());
    }
    match hello.as_str() {
        CONTROL_HELLO => serve_control(stream, served).await,
        other => {
            let _ = stream
                .write_all(
                    format!("{{\"ok\":false,\"error\":\"unknown protocol {other:?}\"}}\n")
                        .as_bytes(),
                )
                .await;
            bail!("unknown protocol line {other:?}")
        }
    }
}

async fn serve_control(stream: Stream, served: Arc<Served>) -> anyhow::Result<()> {
    let node = &served.node;
    let (reader, mut writer) = tokio::io::split(stream);
    let mut lines = BufReader::new(reader).lines();
    let Some(line) = lines.next_line().await? else { return Ok(()) };
    let request: Request = match serde_json::from_str(&line) {
        Ok(request) => request,
        Err(error) => {
            let error = format!(
                "bad request: {error} (this node runs ferrex {}: if the command is newer, stop the \
                 node with `ferrex stop` and run the command again)",
                env!("CARGO_PKG_VERSION")
            );
            send_line(&mut writer, &json!({"ok": false, "error": error})).await?;
            return Ok(());
        }
    };
    let answer = match request {
        Request::Status => Ok(json!({
            "ok": true,
            "pid": std::process::id(),
            "device": node.engine.replica().device(),
            "name": served.device.name,
            "version": env!("CARGO_PKG_VERSION"),
        })),
        Request::Stop => {
            send_line(&mut writer, &json!({"ok": true, "stopping": true})).await?;
            served.shutdown.notify_one();
            return Ok(());
        }
        Request::Invite { ttl_secs } => {
            let ticket = served.network.invite(std::time::Duration::from_secs(ttl_secs));
            control::answered(&Invited {
                ticket: ticket.to_string(),
                expires_at: clock::iso(ticket.expires_at),
                name: served.device.name.clone(),
            })
        }
        Request::Join { ticket } => match ticket.parse::<PairingTicket>() {
            Err(error) => Err(anyhow::anyhow!("{error}")),
            Ok(ticket) => match served.network.join(&ticket).await {
                Ok((name, id)) => {
                    control::answered(&Paired { paired_with: DeviceRef { id, name: Some(name) } })
                }
                Err(error) => Err(anyhow::anyhow!("{error}")),
            },
        },
        Request::Peers => peers_status(&served).await,
        Request::SharePlan { project } => {
            sharing::plan(node, &project).await.and_then(|plan| control::answered(&plan))
        }
        Request::Share { project, role, ttl_secs } => sharing::share(
            node,
            &served.network,
            served.device.identity.secret(),
            &project,
            &role,
            std::time::Duration::from_secs(ttl_secs),
        )
        .await
        .and_then(|invited| control::answered(&invited)),
        Request::SharePreview { ticket } => sharing::preview(&served.network, &ticket)
            .await
            .and_then(|preview| control::answered(&preview)),
        Request::JoinShare { ticket } => sharing::join(&served.network, &ticket)
            .await
            .and_then(|joined| control::answered(&joined)),
        Request::RemoveMember { project, member } => {
            sharing::remove(&served.network, project.as_deref(), &member)
                .await
                .and_then(|removed| control::answered(&removed))
        }
        Request::RemovePeer { id } => remove_peer(&served, &id),
        Request::Export { namespace } => export(&served, namespace.as_deref(), &mut writer).await,
        Request::Restore { namespace, lines } => {
            let engine = node.engine.clone();
            let restored = tokio::task::spawn_blocking(move || -> anyhow::Result<Value> {
                let namespace = ferrex_core::Namespace::parse(&namespace)?;
                let archive = jsonl::archive(&namespace, &lines)?;
                let restored = engine
                    .restore(&namespace, &archive)
                    .map_err(|error| anyhow::anyhow!("{error}"))?;
                control::answered(&RestoreDone { restored })
            });
            restored.await?
        }
        Request::Call { name, arguments, project } => {
            let engine = node.engine.clone();
            let origin = Origin::of(project.as_deref().and_then(Project::named));
            match tokio::task::spawn_blocking(move || {
                views::call(&engine, &origin, &name, arguments)
            })
            .await?
            {
                Ok(answer) => Ok(json!({"ok": true, "answer": answer})),
                Err(error @ ferrex_engine::engine::ToolError::Invalid(_)) => {
                    Ok(json!({"ok": false, "error": error.to_string(), "invalid": true}))
                }
                Err(error) => Err(anyhow::anyhow!("{error}")),
            }
        }
        Request::Reindex => {
            let (events, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Value>();
            let node = node.clone();
            let work = tokio::task::spawn_blocking(move || {
                reindex::rebuild_running(&node, |event| {
                    let progress = ReindexProgress {
                        phase: event.phase.to_owned(),
                        done: event.done as u64,
                        total: event.total as u64,
                    };
                    if let Ok(mut line) = control::answered(&progress) {
                        line["event"] = "progress".into();
                        let _ = events.send(line);
                    }
                })
            });
            while let Some(event) = receiver.recv().await {
                send_line(&mut writer, &event).await?;
            }
            match work.await? {
                Ok(summary) => control::answered(&Reindexed {
                    memories: summary.memories as u64,
                    embedded: summary.embedded as u64,
                }),
                Err(error) => Err(error),
            }
        }
    };
    let answer = answer.unwrap_or_else(|error| json!({"ok": false, "error": format!("{error:#}")}));
    send_line(&mut writer, &answer).await
}

/// Streams the export of `namespace` (all when `None`) as event lines.
async fn export(
    served: &Served,
    namespace: Option<&str>,
    writer: &mut (impl AsyncWriteExt + Unpin),
) -> anyhow::Result<Value> {
    let engine = served.node.engine.clone();
    let wanted = namespace.map(ferrex_core::Namespace::parse).transpose()?;
    let device = served.device.id.clone();
    let lines = tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<jsonl::Line>> {
        let namespaces = match wanted {
            Some(namespace) => vec![namespace],
            None => engine.replica().namespaces(),
        };
        let registry = engine.replica().registry();
        let mut lines = vec![jsonl::Line::Header {
            version: jsonl::VERSION,
            exported_at: jsonl::Time(clock::now()),
            device,
        }];
        lines.extend(
            registry
                .devices
                .keys()
                .map(|id| jsonl::Line::Device { id: id.clone(), name: registry.name_of(id) }),
        );
        for namespace in namespaces {
            let archive = engine.archive(&namespace)?;
            lines.extend(jsonl::lines(&namespace, &archive));
        }
        Ok(lines)
    })
    .await??;
    let records = lines.len();
    send_line(writer, &serde_json::to_value(ExportEvent::Start { records: records as u64 })?)
        .await?;
    for line in lines {
        send_line(writer, &serde_json::to_value(ExportEvent::Line { line })?).await?;
    }
    Ok(json!({"ok": true, "records": records}))
}

async fn send_line(writer: &mut (impl AsyncWriteExt + Unpin), value: &Value) -> anyhow::Result<()> {
    let mut line = value.to_string();
    line.push('\n');
    writer.write_all(line.as_bytes()).await?;
    Ok(())
}

/// The status of every paired device, with this node's index lag.
async fn peers_status(served: &Served) -> anyhow::Result<Value> {
    let peers = served.network.peers(std::time::Duration::from_secs(2)).await;
    let engine = served.node.engine.clone();
    let stats = tokio::task::spawn_blocking(move || engine.stats()).await??;
    let device = ThisDevice {
        id: served.device.id.clone(),
        name: served.device.name.clone(),
        addrs: served.network.addrs(),
    };
    let mut status = status::status(
        true,
        &device,
        status::documents(served.node.engine.replica()),
        &peers,
        Some((stats.index_lag_changes, stats.embeddings_queued)),
    );
    // The watched folders of this device, and where the watcher is.
    status.files = Some(FilesStats {
        watched: stats.watched,
        counts: stats.files,
        status: stats.watch,
        skipped_files: Vec::new(),
    });
    status.shares = Some(sharing::shares(&served.network).await);
    control::answered(&status)
}

/// Revokes the device `wanted` names: its full id, a unique prefix of it, or
/// its unique name.
fn remove_peer(served: &Served, wanted: &str) -> anyhow::Result<Value> {
    let wanted = wanted.trim();
    let registry = served.node.engine.replica().registry();
    if wanted.is_empty() {
        bail!("give the id or name of the device to remove (see `ferrex peers`)");
    }
    let mut candidates: Vec<String> = registry
        .pairings
        .values()
        .flat_map(|pairing| [pairing.inviter.clone(), pairing.joiner.clone()])
        .filter(|id| {
            id == wanted
                || (wanted.len() >= 4 && id.starts_with(&wanted.to_ascii_lowercase()))
                || registry.name_of(id).as_deref() == Some(wanted)
        })
        .collect();
    candidates.sort();
    candidates.dedup();
    let id = match candidates.as_slice() {
        [] => bail!("no paired device is called or has the id {wanted:?}; see `ferrex peers`"),
        [one] => one.clone(),
        several => bail!(
            "{wanted:?} matches several devices ({}); give more of the id",
            several.iter().map(|id| status::short_id(id)).collect::<Vec<_>>().join(", ")
        ),
    };
    if id == served.device.id {
        bail!(
            "{wanted:?} is this device; run `ferrex peers remove` on another device to remove it"
        );
    }
    let name = registry.name_of(&id);
    let newly = served.network.remove(&id)?;
    control::answered(&PeerRemoved { removed: DeviceRef { id, name }, already_removed: !newly })
}
