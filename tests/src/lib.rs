//! Helpers for ferrex's end-to-end tests: temporary homes, real `ferrex`
//! processes, and MCP clients (rmcp's) that drive them over stdio.
//!
//! Every test gets its own home in a temporary directory and its own node,
//! started in the background by the first `ferrex` bridge, exactly as an
//! agent's MCP client would start it. Dropping a [`TestHome`] stops the node
//! it started (by the pid in the home) and removes the directory.

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use rmcp::{
    RoleClient, ServiceExt,
    model::CallToolRequestParams,
    service::RunningService,
    transport::{ConfigureCommandExt, TokioChildProcess},
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// The `ferrex` binary under test: `$FERREX_BIN`, else the one cargo built
/// next to this test executable (`target/<profile>/ferrex`).
pub fn ferrex_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("FERREX_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test executable has a path");
    let profile_dir =
        exe.parent().and_then(Path::parent).expect("tests run from target/<profile>/deps");
    let path = profile_dir.join("ferrex");
    assert!(
        path.exists(),
        "{} does not exist: build it first (cargo build -p ferrex) or set FERREX_BIN",
        path.display()
    );
    path
}

/// The model directory the tests' nodes use, as ferrex finds it:
/// `FERREX_EMBED_MODEL_DIR`, else `~/.cache/ferrex/models` (installed by
/// `scripts/fetch-model` before the tests run).
pub fn installed_models() -> PathBuf {
    if let Some(dir) = std::env::var_os("FERREX_EMBED_MODEL_DIR").filter(|dir| !dir.is_empty()) {
        return dir.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache")
        });
    cache.join("ferrex/models")
}

/// Where tests make their homes: `FERREX_TEST_DIR` when set, else
/// `/dev/shm` where there is one (in memory), else the temporary directory.
pub fn test_folder() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FERREX_TEST_DIR") {
        return Some(PathBuf::from(dir));
    }
    let shared_memory = Path::new("/dev/shm");
    shared_memory.is_dir().then(|| shared_memory.to_owned())
}

/// A node's home in a temporary directory, configured for loopback only.
pub struct TestHome {
    dir: PathBuf,
    /// The `ferrex` it runs: [`ferrex_bin`], unless [`TestHome::using`]
    /// named another (a wrapper that runs an aarch64 build under qemu).
    binary: PathBuf,
    /// The temporary directory `dir` is, removed on drop; `None` for a home
    /// kept between runs ([`TestHome::kept_at`]).
    temporary: Option<tempfile::TempDir>,
}

impl TestHome {
    /// A fresh home with a `ferrex.toml` that binds to 127.0.0.1.
    pub fn new() -> TestHome {
        Self::with_config("")
    }

    /// A fresh home for a device called `name`.
    pub fn named(name: &str) -> TestHome {
        Self::with_config(&format!("[node]\nname = \"{name}\"\n"))
    }

    /// A fresh home with extra `ferrex.toml` text (after the defaults).
    pub fn with_config(extra: &str) -> TestHome {
        Self::with_raw_config(&format!(
            "[network]\nmode = \"local\"\nbind = \"127.0.0.1:0\"\n{extra}"
        ))
    }

    /// A fresh home that also serves MCP over HTTP on a free loopback port,
    /// with `extra` settings of `[http]`; and that port (see [`mcp_url`]).
    pub fn with_http(extra: &str) -> (TestHome, u16) {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        (Self::with_config(&format!("[http]\nbind = \"127.0.0.1:{port}\"\n{extra}")), port)
    }

    /// The bearer token HTTP clients send (`ferrex http token`).
    pub fn http_token(&self) -> String {
        let (ok, token, stderr) = self.run(&["http", "token"]);
        assert!(ok, "ferrex http token: {stderr}");
        token.trim().to_owned()
    }

    /// A fresh home whose `ferrex.toml` is exactly `config`.
    ///
    /// The home is in memory where the system offers a folder there
    /// (Linux's /dev/shm): a node syncs every write to disk before it
    /// answers, and what the tests check is what the node does, not how
    /// fast this machine's disk syncs (the crash tests kill processes, which
    /// a file system in memory survives as a disk does).
    pub fn with_raw_config(config: &str) -> TestHome {
        let mut builder = tempfile::Builder::new();
        builder.prefix("ferrex-test-");
        let dir = match test_folder() {
            Some(folder) => builder.tempdir_in(folder),
            None => builder.tempdir(),
        }
        .expect("a temporary directory");
        std::fs::write(dir.path().join("ferrex.toml"), config).expect("writing ferrex.toml");
        TestHome { dir: dir.path().to_owned(), binary: ferrex_bin(), temporary: Some(dir) }
    }

    /// A home at `dir` that is kept after use (evaluations reuse what they
    /// stored), created when missing; its `ferrex.toml` is rewritten as the
    /// defaults plus `extra`.
    pub fn kept_at(dir: &Path, extra: &str) -> TestHome {
        std::fs::create_dir_all(dir).expect("creating the home");
        let config = format!("[network]\nmode = \"local\"\nbind = \"127.0.0.1:0\"\n{extra}");
        std::fs::write(dir.join("ferrex.toml"), config).expect("writing ferrex.toml");
        TestHome { dir: dir.to_owned(), binary: ferrex_bin(), temporary: None }
    }

    /// The home directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// This home, run by `binary` instead of [`ferrex_bin`] (a wrapper that
    /// runs another architecture's or system's build). Its node is stopped
    /// on drop with `ferrex stop` only: the pid it records may be the
    /// emulated system's, not this machine's.
    pub fn using(mut self, binary: impl Into<PathBuf>) -> TestHome {
        self.binary = binary.into();
        self
    }

    /// The `ferrex` this home runs.
    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// `ferrex --home <home> <args>`, with stdout and stderr captured.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command.arg("--home").arg(self.path()).args(args);
        command.stdin(Stdio::null()).current_dir(self.path());
        command
    }

    /// Runs `ferrex hook <event>` with `input` on stdin, as Claude Code
    /// does; returns (exit code, stdout, stderr).
    pub fn hook(&self, event: &str, input: &str) -> (Option<i32>, String, String) {
        use std::io::Write;
        let mut child = self
            .command(&["hook", event])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("running ferrex hook");
        let mut stdin = child.stdin.take().expect("a stdin pipe");
        stdin.write_all(input.as_bytes()).expect("writing the hook's input");
        drop(stdin);
        let output = child.wait_with_output().expect("waiting for ferrex hook");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// Runs a `ferrex` command to completion; returns (status ok, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (bool, String, String) {
        let output = self.command(args).output().expect("running ferrex");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// The pid of the running node, from its pid file.
    pub fn node_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.path().join("node.pid")).ok()?.trim().parse().ok()
    }

    /// Stops the node with `ferrex stop` and waits for its process to end.
    pub fn stop(&self) {
        let pid = self.node_pid();
        let (ok, _, stderr) = self.run(&["stop"]);
        assert!(ok, "ferrex stop failed: {stderr}");
        if let Some(pid) = pid {
            wait_for_exit(pid, Duration::from_secs(30));
        }
    }

    /// Kills the node with SIGKILL, as a crash would, and waits for it to go.
    pub fn kill_node(&self) {
        let pid = self.node_pid().expect("a running node has a pid file");
        let status =
            Command::new("kill").arg("-9").arg(pid.to_string()).status().expect("running kill");
        assert!(status.success(), "kill -9 {pid} failed");
        // A killed process ends once every thread leaves the kernel; one in
        // an uninterruptible wait (a sync to a busy disk) holds it up.
        assert!(
            wait_for_exit(pid, Duration::from_secs(60)),
            "node {pid} still runs 60 s after SIGKILL; its threads: {}",
            thread_states(pid)
        );
    }

    /// `ferrex invite`: starts the node if needed; returns the ticket.
    pub fn invite(&self) -> String {
        self.invite_for("10m")
    }

    /// `ferrex invite --ttl <ttl>`.
    pub fn invite_for(&self, ttl: &str) -> String {
        let (ok, stdout, stderr) = self.run(&["invite", "--ttl", ttl]);
        assert!(ok, "ferrex invite failed: {stderr}");
        let ticket = stdout.trim().to_owned();
        assert!(ticket.starts_with("ferrex") && !ticket.contains('\n'), "{stdout}");
        ticket
    }

    /// `ferrex join <ticket>`; returns (ok, stderr).
    pub fn join(&self, ticket: &str) -> (bool, String) {
        let (ok, stdout, stderr) = self.run(&["join", ticket]);
        assert!(stdout.is_empty(), "join prints to stderr only: {stdout}");
        (ok, stderr)
    }

    /// `ferrex join -` with the ticket on stdin; returns (ok, stderr).
    pub fn join_from_stdin(&self, ticket: &str) -> (bool, String) {
        use std::io::Write;
        let mut child = self
            .command(&["join", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("running ferrex join");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = writeln!(stdin, "{ticket}");
        }
        let output = child.wait_with_output().expect("waiting for ferrex join");
        (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
    }

    /// `ferrex peers --json`, parsed.
    pub fn peers_json(&self) -> Value {
        let (ok, stdout, stderr) = self.run(&["peers", "--json"]);
        assert!(ok, "ferrex peers --json failed: {stderr}");
        serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {stdout}"))
    }

    /// `ferrex sync status --json`, parsed.
    pub fn sync_status_json(&self) -> Value {
        let (ok, stdout, stderr) = self.run(&["sync", "status", "--json"]);
        assert!(ok, "ferrex sync status --json failed: {stderr}");
        serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {stdout}"))
    }

    /// This device's id, as `ferrex peers --json` reports it.
    pub fn device_id(&self) -> String {
        self.peers_json()["device"]["id"].as_str().expect("a device id").to_owned()
    }

    /// The files of this home (every one: documents, keys, index, WAL,
    /// logs, state) whose bytes contain `needle`, case-insensitively.
    pub fn files_containing(&self, needle: &str) -> Vec<PathBuf> {
        files_containing(self.path(), needle)
    }

    /// Connects an MCP client through a new `ferrex` bridge process.
    pub async fn client(&self) -> Client {
        Client::connect(self).await.expect("an MCP client connects")
    }
}

impl Default for TestHome {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TestHome {
    fn drop(&mut self) {
        if self.binary != ferrex_bin() {
            // Another build (under qemu or wine) may record a pid that is
            // not this machine's: asked to stop, never killed by that pid.
            if self.node_pid().is_some() {
                let _ =
                    self.command(&["stop"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
            }
        } else if let Some(pid) = self.node_pid()
            && process_alive(pid)
        {
            let _ = self.command(&["stop"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
            if !wait_for_exit(pid, Duration::from_secs(10)) {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
                wait_for_exit(pid, Duration::from_secs(10));
            }
        }
        if std::env::var_os("FERREX_TEST_KEEP").is_some()
            && let Some(temporary) = self.temporary.take()
        {
            // For debugging: keep the home (and its logs) after the test.
            let path = temporary.keep();
            #[allow(clippy::print_stderr, reason = "tells the developer where the home was kept")]
            {
                eprintln!("kept test home {}", path.display());
            }
        }
    }
}

/// A hook's input as Claude Code sends it for `event` in `session`, working
/// in `cwd`, with the event's own fields `extra` (a JSON object).
pub fn hook_input(event: &str, session: &str, cwd: &Path, extra: Value) -> String {
    let mut input = json!({
        "session_id": session,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": cwd,
        "hook_event_name": event,
    });
    if let (Some(input), Value::Object(extra)) = (input.as_object_mut(), extra) {
        input.extend(extra);
    }
    input.to_string()
}

/// A checkout of a repository at `path` whose remote is spelled `url` (the
/// files ferrex reads a project from: `.git/config`), with a `src/` folder.
pub fn checkout(path: &Path, url: &str) -> PathBuf {
    std::fs::create_dir_all(path.join(".git")).expect("creating .git");
    std::fs::create_dir_all(path.join("src")).expect("creating src");
    std::fs::write(
        path.join(".git/config"),
        format!("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = {url}\n"),
    )
    .expect("writing .git/config");
    path.to_owned()
}

/// The ids of a `recall` answer's results read as JSON, best first.
pub fn result_ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|result| result["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// Whether process `pid` still runs: it exists and is not a zombie whose
/// threads have all left.
///
/// A killed multi-threaded process can show its main thread as a zombie
/// while other threads are still exiting and still hold its files (and its
/// listening socket). Walking `/proc/<pid>/task` thread by thread races
/// those exits (a listing can miss a thread that is still leaving), so this
/// reads `/proc/<pid>/status` once: its state and its count of threads not
/// yet released come from one snapshot, and "zombie with one thread" is final.
/// `/proc/<n>` also answers for a thread id, so a `pid` reused by a thread
/// of another process (its `Tgid` differs) is not taken for this one.
pub fn process_alive(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return false };
    let field = |name: &str| {
        status.lines().find_map(|line| line.strip_prefix(name)).map(str::trim).unwrap_or_default()
    };
    if field("Tgid:") != pid.to_string() {
        return false;
    }
    let dead = matches!(field("State:").chars().next(), Some('Z' | 'X'));
    let threads: u32 = field("Threads:").parse().unwrap_or(1);
    !(dead && threads <= 1)
}

/// The MCP endpoint of a node serving HTTP on loopback `port`.
pub fn mcp_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

/// Each thread of process `pid` with its state and kernel wait channel,
/// for a failure message.
pub fn thread_states(pid: u32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return "gone".to_owned();
    };
    tasks
        .flatten()
        .map(|task| {
            let read =
                |name: &str| std::fs::read_to_string(task.path().join(name)).unwrap_or_default();
            let stat = read("stat");
            let state = stat.rsplit(')').next().unwrap_or_default().split_whitespace().next();
            format!(
                "{} {} ({})",
                task.file_name().to_string_lossy(),
                state.unwrap_or("?"),
                read("wchan").trim()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Waits (bounded) for process `pid` to end; true if it did.
pub fn wait_for_exit(pid: u32, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if !process_alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// An MCP client talking to `ferrex` over stdio.
pub struct Client {
    service: RunningService<RoleClient, ()>,
}

/// The answer of a tool call: the structured JSON, or the error text.
pub type ToolAnswer = Result<Value, String>;

impl Client {
    /// Starts `ferrex --home <home>` and initialises an MCP session with it.
    /// Its working directory is the home (in no repository), so calls that
    /// name no namespace go to `default`.
    pub async fn connect(home: &TestHome) -> anyhow::Result<Client> {
        Client::connect_in(home, home.path()).await
    }

    /// [`Client::connect`], as an agent working in `dir` (whose repository
    /// is its project).
    pub async fn connect_in(home: &TestHome, dir: &Path) -> anyhow::Result<Client> {
        let command = tokio::process::Command::new(home.binary()).configure(|command| {
            command.arg("--home").arg(home.path()).current_dir(dir);
        });
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::inherit())
            .spawn()
            .context("spawning ferrex")?;
        let service = ().serve(transport).await.context("initialising the MCP session")?;
        Ok(Client { service })
    }

    /// Opens an MCP session over Streamable HTTP at `url`, sending `token`
    /// as the bearer token.
    pub async fn connect_http(url: &str, token: Option<&str>) -> anyhow::Result<Client> {
        use rmcp::transport::{
            StreamableHttpClientTransport,
            streamable_http_client::StreamableHttpClientTransportConfig,
        };
        // Another test may have installed it already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
        if let Some(token) = token {
            config = config.auth_header(token.to_owned());
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        let service = ().serve(transport).await.context("initialising the MCP session")?;
        Ok(Client { service })
    }

    /// The text of the server's prompt `name`.
    pub async fn prompt_text(&self, name: &str) -> anyhow::Result<String> {
        let result = self
            .service
            .get_prompt(rmcp::model::GetPromptRequestParams::new(name))
            .await
            .with_context(|| format!("getting prompt {name}"))?;
        Ok(result
            .messages
            .iter()
            .filter_map(|message| message.content.as_text().map(|text| text.text.clone()))
            .collect())
    }

    /// The names of the server's tools.
    pub async fn tool_names(&self) -> anyhow::Result<Vec<String>> {
        Ok(self
            .service
            .list_all_tools()
            .await?
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect())
    }

    /// Each tool's name and input schema.
    pub async fn tool_schemas(&self) -> anyhow::Result<Vec<(String, Value)>> {
        Ok(self
            .service
            .list_all_tools()
            .await?
            .into_iter()
            .map(|tool| (tool.name.to_string(), Value::Object((*tool.input_schema).clone())))
            .collect())
    }

    /// Calls `tool` with `arguments` (a JSON object, or anything else to send
    /// it as given).
    pub async fn call(&self, tool: &str, arguments: Value) -> anyhow::Result<ToolAnswer> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        match arguments {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => bail!("arguments must be an object, not {other}"),
        }
        let result = self.service.call_tool(params).await?;
        let text: String = result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.clone()))
            .collect();
        if result.is_error == Some(true) {
            // ferrex writes an error as `{"error": …, "field": …}` text,
            // without structured content.
            anyhow::ensure!(result.structured_content.is_none(), "an error has structured content");
            let error: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let message = error["error"].as_str().map(str::to_owned).unwrap_or(text);
            return Ok(Err(message));
        }
        let structured = result.structured_content.clone().unwrap_or(Value::Null);
        anyhow::ensure!(structured.is_object(), "the answer has no structured JSON object: {text}");
        let parsed: Value =
            serde_json::from_str(&text).context("the text content is the same JSON")?;
        anyhow::ensure!(parsed == structured, "text and structured content differ");
        Ok(Ok(structured))
    }

    /// Calls a tool that must succeed.
    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        match self.call(tool, arguments.clone()).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(message)) => panic!("{tool} {arguments} failed: {message}"),
            Err(error) => panic!("{tool} {arguments}: {error:#}"),
        }
    }

    /// Calls a tool that must succeed and reads its answer as `T`, the type
    /// the node wrote it from (`ferrex_engine::answers`): a field renamed,
    /// dropped or of another type fails here, where it is read. (This
    /// library names no answer type itself, so that only the test binaries
    /// that read answers as types link the engine: `tests/tests/typed/`.)
    pub async fn answer<T: DeserializeOwned>(&self, tool: &str, arguments: Value) -> T {
        let answer = self.ok(tool, arguments.clone()).await;
        match T::deserialize(&answer) {
            Ok(typed) => typed,
            Err(error) => panic!(
                "{tool} {arguments} answered what its type does not read ({error}): {answer}"
            ),
        }
    }

    /// Stores free text in `namespace`; returns the id.
    pub async fn store_text(&self, content: &str, namespace: &str) -> String {
        let answer = self.ok("store", json!({"content": content, "namespace": namespace})).await;
        assert_eq!(answer["status"], "stored", "{answer}");
        answer["id"].as_str().expect("an id").to_owned()
    }

    /// The ids `recall` returns for `query` in `namespace`, best first.
    pub async fn recall_ids(&self, query: &str, namespace: &str, limit: usize) -> Vec<String> {
        let answer = self
            .ok("recall", json!({"query": query, "namespace": namespace, "limit": limit}))
            .await;
        result_ids(&answer)
    }

    /// Waits (bounded: 300 s) until the node has every vector of
    /// everything it holds.
    pub async fn caught_up(&self) {
        self.caught_up_within(Duration::from_secs(300)).await;
    }

    /// Waits, at most `limit`, until the node has every vector of
    /// everything it holds (an emulated node embeds about a thousand times
    /// slower than a native one: `examples/cross_device.rs`).
    pub async fn caught_up_within(&self, limit: Duration) {
        let done = eventually(limit, || async {
            let stats = self.ok("stats", json!({})).await;
            let lag = &stats["index_lag"];
            (lag["embeddings_queued"] == 0 && lag["passages_queued"] == 0).then_some(())
        })
        .await;
        assert!(done.is_some(), "the node was still embedding after {} s", limit.as_secs());
    }

    /// Ends the session (the bridge exits; the node keeps running).
    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

pub use ferrex_engine::testing::files_containing;

/// Arguments as a JSON object, for building malformed calls.
pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Polls `check` every 50 ms until it returns `Some`, for at most `limit`.
///
/// Each check gets only the time that remains: one still waiting at the
/// deadline (on a node that hangs) is dropped and the wait fails, rather
/// than hanging the test. Only what the check awaits can be cut short; a
/// blocking call inside it (a `ferrex` command run to completion) is not.
pub async fn eventually<T, F, Fut>(limit: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(remaining, check()).await {
            Ok(Some(value)) => return Some(value),
            Ok(None) => {}
            Err(_elapsed) => return None,
        }
        let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
        if remaining.is_zero() {
            return None;
        }
        tokio::time::sleep(remaining.min(Duration::from_millis(50))).await;
    }
}

/// Now by the system's clock, in milliseconds since the Unix epoch (the
/// clock every `ferrex` process of a test reads).
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or(0)
}

/// Waits until the system's clock is past `time` (milliseconds since the
/// epoch): whatever a device writes from then on is stamped later than
/// anything written by then. Panics if the clock has not got there a
/// second after `time` (it stands still or went back).
pub async fn clock_past(time: i64) {
    let deadline = tokio::time::Instant::now()
        + Duration::from_millis(u64::try_from(time - now_millis()).unwrap_or(0) + 1_000);
    while now_millis() <= time {
        assert!(tokio::time::Instant::now() < deadline, "the clock never passed {time}");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// What [`look_alike_notes`] are about.
const SUBJECTS: [&str; 8] = [
    "the billing service",
    "the search cluster",
    "the mobile app",
    "the data pipeline",
    "the auth gateway",
    "the release train",
    "the design system",
    "the metrics stack",
];
/// What [`look_alike_notes`] say of their subjects.
const FACTS: [&str; 10] = [
    "moved to a new region after the outage",
    "needs a review from the platform team before each deploy",
    "is owned by Priya since the reorganisation",
    "logs too much at debug level and fills the disk",
    "was rewritten in Rust to cut its memory use",
    "depends on a cron job that runs at midnight",
    "uses feature flags kept in the config repository",
    "broke when the certificate expired in March",
    "keeps its runbook in the wiki under operations",
    "gets its secrets from the vault agent",
];

/// `count` distinct memories of two sentences (so each has passages too),
/// alike in their form: a subject, a fact about it, a ticket.
pub fn look_alike_notes(count: usize) -> Vec<String> {
    (0..count)
        .map(|index| {
            let subject = SUBJECTS[index % SUBJECTS.len()];
            let fact = FACTS[(index / SUBJECTS.len()) % FACTS.len()];
            format!(
                "Note {index}: {subject} {fact}. Ticket {} tracks the follow-up work.",
                1000 + index
            )
        })
        .collect()
}

/// The documents and heads every one of `homes` holds (`sync status
/// --json`), if they are equal everywhere and each index has applied all
/// of them: a settled state, where answers no longer change.
pub fn settled_heads(homes: &[&TestHome]) -> Option<Value> {
    let mut all = Vec::new();
    for home in homes {
        let status = home.sync_status_json();
        if status["index"]["lag_changes"] != 0 {
            return None;
        }
        all.push(status["documents"].clone());
    }
    let first = all.first()?;
    (first.as_array().is_some_and(|documents| !documents.is_empty())
        && all.iter().all(|heads| heads == first))
    .then(|| first.clone())
}
