//! `ferrex` / `ferrex mcp`: MCP on stdio, bridged to the home's node over its
//! local socket, starting the node in the background first if none runs.

use std::{
    fs::OpenOptions,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use tokio::io::AsyncWriteExt;

use crate::{
    base::{
        home::{Home, ModelInstall},
        local_socket::{self, Stream},
    },
    surfaces::control,
};

/// How long a started node may take to open its socket (model load, index
/// catch-up on a large store).
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// A node connected to, or one that is installing the model first.
#[derive(Debug)]
pub enum Started {
    /// It serves.
    Serving(Stream),
    /// It is installing the embedding model (a download of a minute or
    /// more) and serves after: nobody waits for it.
    InstallingModel,
    /// The last install of the model failed (why): no node is started to
    /// fail again until someone asks to wait for one.
    ModelFailed(String),
}

/// Connects to the node of `home`, starting it (`ferrex node`, with
/// `node_args` added) if needed.
pub async fn connect_or_start(home: &Home, node_args: &[String]) -> anyhow::Result<Stream> {
    match start(home, node_args, false).await? {
        Started::Serving(stream) => Ok(stream),
        // Not returned when not asked for: the start waits for the model.
        Started::InstallingModel | Started::ModelFailed(_) => {
            bail!("the node is installing the embedding model")
        }
    }
}

/// Connects to the node of `home`, starting it if needed, unless a node of
/// the home is installing the embedding model (this one or another, say
/// the MCP server's): then it goes on in the background and this returns
/// at once (a session's first hook must not stall for a download). When
/// the last install failed, no node is started and why is returned.
pub async fn connect_start_or_install(home: &Home) -> anyhow::Result<Started> {
    start(home, &[], true).await
}

async fn start(home: &Home, node_args: &[String], not_for_model: bool) -> anyhow::Result<Started> {
    let socket = home.socket_file();
    match control::connect(&socket).await {
        Ok(stream) => return Ok(Started::Serving(stream)),
        Err(error) if control::is_not_running(&error) => {}
        Err(error) => {
            return Err(error).with_context(|| format!("connecting to {}", socket.display()));
        }
    }
    if let Some(installing) = installing_model(home, not_for_model) {
        return Ok(installing);
    }
    let (mut child, log_path, log_start) = spawn_node(home, node_args)?;
    tracing::info!(pid = child.id(), "started a node in the background");

    let started = Instant::now();
    let mut exited = None;
    loop {
        match control::connect(&socket).await {
            Ok(stream) => return Ok(Started::Serving(stream)),
            Err(error) if control::is_not_running(&error) => {}
            Err(error) => return Err(error).context("connecting to the started node"),
        }
        if let Some(installing) = installing_model(home, not_for_model) {
            return Ok(installing);
        }
        if exited.is_none()
            && let Some(status) = child.try_wait()?
        {
            exited = Some((status, Instant::now()));
        }
        // The child may have lost a race to another starting node; give that
        // one time to open its socket before reporting the failure.
        if let Some((status, when)) = exited
            && when.elapsed() > Duration::from_secs(5)
        {
            let log = std::fs::read(&log_path).unwrap_or_default();
            let tail = String::from_utf8_lossy(log.get(log_start as usize..).unwrap_or_default());
            let tail = tail.trim();
            bail!(
                "the node exited ({status}) before serving:\n{}",
                if tail.is_empty() { "(no output)" } else { tail }
            );
        }
        if started.elapsed() > START_TIMEOUT {
            bail!(
                "the node did not open {} within {} s; see {}",
                socket.display(),
                START_TIMEOUT.as_secs(),
                log_path.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What a node of `home` says of installing the model, when the caller
/// does not wait for it (`not_for_model`).
fn installing_model(home: &Home, not_for_model: bool) -> Option<Started> {
    match home.model_install().filter(|_| not_for_model)? {
        ModelInstall::Installing => Some(Started::InstallingModel),
        ModelInstall::Failed(why) => Some(Started::ModelFailed(why)),
    }
}

/// Starts the node of `home` in the background without waiting for it to
/// serve (a hook that must not stall the agent); a node that is already
/// starting wins the race and this one exits.
pub fn start_in_background(home: &Home) -> anyhow::Result<()> {
    let (child, ..) = spawn_node(home, &[])?;
    tracing::info!(pid = child.id(), "started a node in the background, not waiting for it");
    Ok(())
}

/// Spawns `ferrex node` for `home`, detached, its stderr appended to
/// `logs/start.log`; the child, the log's path and its length before.
fn spawn_node(
    home: &Home,
    node_args: &[String],
) -> anyhow::Result<(std::process::Child, std::path::PathBuf, u64)> {
    home.create()?;
    std::fs::create_dir_all(home.log_dir())?;
    let log_path = home.log_dir().join("start.log");
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("opening {}", log_path.display()))?;
    let log_start = log.metadata().map(|meta| meta.len()).unwrap_or(0);
    let executable = std::env::current_exe().context("finding the ferrex executable")?;
    let mut command = Command::new(executable);
    command
        .arg("--home")
        .arg(home.root())
        .arg("node")
        .args(node_args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    detach(&mut command);
    let child = command.spawn().context("starting the node")?;
    Ok((child, log_path, log_start))
}

/// Makes the node outlive the session that starts it, and deaf to what is
/// meant for that session: its own process group on Unix (a Ctrl-C meant
/// for the agent does not stop it); on Windows its own process group, no
/// console (closing the agent's terminal does not stop it either) and no
/// window.
fn detach(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        // The process creation flags of the Windows API (winbase.h).
        const DETACHED_PROCESS: u32 = 0x0000_0008;
        const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
    }
}

/// Bridges stdin/stdout to the node's MCP service until either side closes.
/// The agent's project is found from this process's working directory and
/// told to the node.
pub async fn run(home: Home) -> anyhow::Result<()> {
    let project = crate::base::project::of(std::env::current_dir().ok().as_deref(), &home);
    if let Some(project) = &project {
        tracing::info!(project = project.name, namespace = %project.namespace, "the agent's project");
    }
    let mut stream = connect_or_start(&home, &[]).await?;
    stream.write_all(control::mcp_hello(project.as_ref()).as_bytes()).await?;
    let (mut from_node, mut to_node) = tokio::io::split(stream);
    let upstream = async {
        let mut stdin = tokio::io::stdin();
        let copied = tokio::io::copy(&mut stdin, &mut to_node).await;
        let _ = to_node.shutdown().await;
        copied
    };
    let downstream = async {
        let mut stdout = tokio::io::stdout();
        let copied = tokio::io::copy(&mut from_node, &mut stdout).await;
        let _ = stdout.flush().await;
        copied
    };
    tokio::pin!(upstream);
    tokio::pin!(downstream);
    tokio::select! {
        // The node closed the session (or stopped): nothing more to relay.
        result = &mut downstream => {
            result.context("relaying from the node")?;
        }
        // The client closed stdin: let the node finish its answers, briefly.
        // The half-close told the node there is no more, and it closes when
        // it has answered; a named pipe cannot say that, so there the
        // answers in flight get a second.
        result = &mut upstream => {
            result.context("relaying to the node")?;
            let grace = if local_socket::HALF_CLOSE { 10 } else { 1 };
            let _ = tokio::time::timeout(Duration::from_secs(grace), downstream).await;
        }
    }
    Ok(())
}
