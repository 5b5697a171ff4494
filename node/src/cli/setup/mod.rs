//! `ferrex setup claude-code|gemini|codex [--remove]`: installs ferrex as a
//! user-scope MCP server and its hooks into an agent's settings, or takes
//! them out again. Claude Code: `mcpServers.ferrex` in `~/.claude.json`,
//! the hooks in `~/.claude/settings.json` (`docs/research/claude-code-hooks.md`
//! cites the formats). Gemini CLI: both in `~/.gemini/settings.json`
//! (google-gemini/gemini-cli's `docs/hooks/reference.md`: the same shape,
//! timeouts in milliseconds, its own event names). Idempotent: ferrex's
//! entries are recognised by their command and replaced, never doubled;
//! every other setting and hook is kept. Each changed file is backed up
//! once (`<file>.before-ferrex`), written whole to a temporary file and
//! renamed over the old one. Codex CLI's TOML is in [`codex`].

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

use crate::{
    base::{config::Config, console::output, home::Home},
    lifecycle::model,
    surfaces::installs::{self, is_ours},
};

pub mod codex;

/// A hook ferrex installs: the event, its matcher (for events that take
/// one), and its timeout in seconds.
type Hook = (&'static str, Option<&'static str>, u64);

/// An agent ferrex installs itself into.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Its name for people.
    pub name: &'static str,
    /// The `ferrex setup` argument that names it.
    pub command: &'static str,
    /// The file holding its hooks.
    pub settings: PathBuf,
    /// The file holding its MCP servers (may be `settings`).
    pub servers: PathBuf,
    /// The hooks ferrex installs.
    hooks: &'static [Hook],
    /// Whether its hooks' timeouts are in milliseconds (else seconds).
    timeout_millis: bool,
    /// Whether its MCP entries say `"type": "stdio"`.
    server_type: bool,
}

/// Claude Code's hooks.
const CLAUDE_HOOKS: &[Hook] = &[
    ("SessionStart", Some("*"), 30),
    ("UserPromptSubmit", None, 10),
    ("PostToolUse", Some("*"), 10),
    ("PostToolUseFailure", Some("*"), 10),
    ("PreCompact", Some("*"), 30),
    ("Stop", None, 10),
    ("SubagentStop", Some("*"), 10),
    ("SessionEnd", Some("*"), 5),
];

/// Codex CLI's hooks, in `$CODEX_HOME/hooks.json` (its SessionEnd timeout
/// is held to 3 s; it has no PostToolUseFailure: a failed call fires no
/// PostToolUse either, docs/research/codex-cli.md §6).
const CODEX_HOOKS: &[Hook] = &[
    ("SessionStart", Some("startup|resume|clear"), 30),
    ("UserPromptSubmit", None, 10),
    ("PostToolUse", Some("*"), 10),
    ("PreCompact", Some("*"), 30),
    ("Stop", None, 10),
    ("SessionEnd", None, 3),
];

/// Gemini CLI's hooks (no matcher: every tool, every source).
const GEMINI_HOOKS: &[Hook] = &[
    ("SessionStart", None, 30),
    ("BeforeAgent", None, 10),
    ("AfterTool", None, 10),
    ("PreCompress", None, 30),
    ("SessionEnd", None, 5),
];

impl Agent {
    /// Claude Code, for the user whose home is `home`: `~/.claude/settings.json`
    /// and `~/.claude.json`, or under `CLAUDE_CONFIG_DIR` when it is set.
    pub fn claude_code(home: &Path, config_dir: Option<PathBuf>) -> Agent {
        let (settings, servers) = installs::claude_files(home, config_dir);
        Agent {
            name: "Claude Code",
            command: "claude-code",
            settings,
            servers,
            hooks: CLAUDE_HOOKS,
            timeout_millis: false,
            server_type: true,
        }
    }

    /// Codex CLI, whose home is `codex_home` (`$CODEX_HOME`, `~/.codex`):
    /// the hooks in its `hooks.json`, the MCP server in its `config.toml`
    /// (TOML: [`codex::install`] writes it).
    pub fn codex(codex_home: &Path) -> Agent {
        Agent {
            name: "Codex CLI",
            command: "codex",
            settings: codex_home.join("hooks.json"),
            servers: codex_home.join("config.toml"),
            hooks: CODEX_HOOKS,
            timeout_millis: false,
            server_type: false,
        }
    }

    /// Gemini CLI, for the user whose home is `home`: `~/.gemini/settings.json`.
    pub fn gemini(home: &Path) -> Agent {
        let settings = installs::gemini_settings(home);
        Agent {
            name: "Gemini CLI",
            command: "gemini",
            servers: settings.clone(),
            settings,
            hooks: GEMINI_HOOKS,
            timeout_millis: true,
            server_type: false,
        }
    }
}

/// How ferrex is started: the executable, and the `--home` it needs (none
/// for the default home).
#[derive(Debug, Clone)]
pub struct Launch {
    /// The absolute path of `ferrex`, or the program that runs it.
    pub executable: PathBuf,
    /// Arguments before ferrex's own (`uvx`'s).
    pub leading: Vec<String>,
    /// A home other than the default.
    pub home: Option<PathBuf>,
}

/// The distribution ferrex's wheel is published as (`ferrex` on PyPI is
/// another project's).
pub const WHEEL_NAME: &str = "ferrex-memory";

impl Launch {
    /// How to start the ferrex at `executable`. One that `uvx` runs lives in
    /// uv's cache, which uv may clean at any time: the agent is given `uvx
    /// --from ferrex-memory==<this version> ferrex` instead.
    pub fn of(executable: PathBuf, home: Option<PathBuf>) -> Launch {
        if in_uv_cache(&executable) {
            return Launch {
                executable: PathBuf::from("uvx"),
                leading: vec![
                    "--from".to_owned(),
                    format!("{WHEEL_NAME}=={}", env!("CARGO_PKG_VERSION")),
                    "ferrex".to_owned(),
                ],
                home,
            };
        }
        Launch { executable, leading: Vec::new(), home }
    }

    fn args(&self) -> Vec<String> {
        let mut args = self.leading.clone();
        if let Some(home) = &self.home {
            args.extend(["--home".to_owned(), home.display().to_string()]);
        }
        args
    }

    /// The shell command of hook `event`: every path quoted.
    fn hook_command(&self, event: &str) -> String {
        let mut words = vec![shell_quote(&self.executable.display().to_string())];
        words.extend(self.args().iter().map(|arg| shell_quote(arg)));
        words.push("hook".to_owned());
        words.push(event.to_owned());
        words.join(" ")
    }
}

/// Whether `executable` is in an environment of uv's cache, where `uvx`
/// runs tools from: `<uv's cache>/archive-v0/<id>/bin/ferrex` (`Scripts\`
/// on Windows), wherever the cache is.
fn in_uv_cache(executable: &Path) -> bool {
    let environment = executable.parent().and_then(Path::parent);
    let bucket = environment.and_then(Path::parent).and_then(Path::file_name);
    bucket.is_some_and(|name| name.to_string_lossy().starts_with("archive-v"))
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Runs `ferrex setup AGENT [--remove]` for the ferrex of `home` (named on
/// the command line when `explicit_home`): the model first, unless
/// removing, then the agent's settings.
pub fn run(home: &Home, explicit_home: bool, agent: &str, remove: bool) -> anyhow::Result<()> {
    anyhow::ensure!(
        ["claude-code", "gemini", "codex", "model"].contains(&agent),
        "ferrex sets up claude-code, gemini and codex (and its own model: `ferrex setup \
         model`); for other agents see docs/working.md"
    );
    if agent == "model" {
        return if remove { Ok(()) } else { install_model(home) };
    }
    let user_home =
        installs::user_home().context("HOME is not set: where are the agent's settings?")?;
    // Symbolic links resolved on Unix; Windows' canonical form (`\\?\C:\…`)
    // is left to Windows.
    let executable = std::env::current_exe()
        .and_then(|path| if cfg!(windows) { Ok(path) } else { path.canonicalize() })
        .context("finding the ferrex executable")?;
    let launch = Launch::of(executable, explicit_home.then(|| home.root().to_owned()));
    let target = match agent {
        "codex" => Agent::codex(&installs::codex_home(&user_home)),
        "gemini" => Agent::gemini(&user_home),
        _ => {
            Agent::claude_code(&user_home, std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from))
        }
    };
    // What would stop it, before anything is installed: the plugin or
    // extension already there, a settings file that cannot be read.
    if !remove {
        refuse_beside_package(&target, &user_home)?;
    }
    if agent == "codex" {
        codex::read(&target)?;
    } else {
        read_json(&target.settings)?;
        read_json(&target.servers)?;
    }
    // The model first: `cargo install` and this are all it takes.
    if !remove {
        install_model(home)?;
        check_client(agent);
    }
    if agent == "codex" {
        codex::install(&target, &launch, remove)
    } else {
        install(&target, &launch, remove)
    }
}

/// The embedding model and runtime, installed when missing.
fn install_model(home: &Home) -> anyhow::Result<()> {
    let config = Config::load(&home.config_file(), std::env::vars(), &[])?;
    let files = model::ensure_model(home, &config)?;
    output(&format!("embedding model: {} (verified)", files.tier_dir.display()));
    Ok(())
}

/// Refuses to set up an agent that has ferrex's plugin (Claude Code) or
/// extension (Gemini CLI): every hook would run twice.
fn refuse_beside_package(agent: &Agent, user_home: &Path) -> anyhow::Result<()> {
    match agent.command {
        "claude-code" => {
            if let Some(plugin) = installs::claude_plugin(&agent.settings) {
                bail!(
                    "ferrex is already in Claude Code as the plugin {plugin} (enabledPlugins in \
                     {}), so nothing was changed: keep the plugin, or run `claude plugin \
                     uninstall {plugin}` first",
                    agent.settings.display()
                );
            }
        }
        "gemini" => {
            if let Some(folder) = installs::gemini_extension(user_home) {
                bail!(
                    "ferrex is already in Gemini CLI as its extension ({}), so nothing was \
                     changed: keep the extension, or run `gemini extensions uninstall ferrex` \
                     first",
                    folder.display()
                );
            }
        }
        _ => {}
    }
    Ok(())
}

/// Each agent's program, the version ferrex was last tried with (the one
/// its script pins: scripts/claude-code, scripts/gemini-cli,
/// scripts/codex-cli) and the command that updates it.
pub const TESTED_CLIENTS: [(&str, &str, &str, &str); 3] = [
    ("claude-code", "claude", "2.1.332", "claude update"),
    ("gemini", "gemini", "0.61.0", "npm install -g @google/gemini-cli@latest"),
    ("codex", "codex", CODEX_VERSION, "npm install -g @openai/codex@latest"),
];

/// The Codex CLI version ferrex was tried with.
const CODEX_VERSION: &str = "0.171.0";

/// Says, in one sentence, when the agent's program is missing from the
/// PATH or older than the version ferrex was tried with; never fails.
fn check_client(agent: &str) {
    let Some((_, program, tested, update)) =
        TESTED_CLIENTS.iter().find(|(name, ..)| *name == agent)
    else {
        return;
    };
    // npm puts `claude.cmd` and the like on Windows' PATH, which a bare
    // name does not find there.
    let program = if cfg!(windows) { format!("{program}.cmd") } else { (*program).to_owned() };
    let answer = std::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let Ok(answer) = answer else {
        output(&format!(
            "note: `{program}` is not on the PATH; ferrex is set up for when it is (tried with \
             {tested})."
        ));
        return;
    };
    let text = String::from_utf8_lossy(&answer.stdout);
    let found = text.split(|c: char| !(c.is_ascii_digit() || c == '.')).find_map(version_of);
    if let (Some(found), Some(wanted)) = (found, version_of(tested))
        && found < wanted
    {
        output(&format!(
            "note: {program} {} is older than {tested}, the version ferrex was tried with, and \
             may not run its hooks as set here: update it with `{update}`.",
            found.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
        ));
    }
}

/// `major.minor.patch` as numbers, if `text` is one.
fn version_of(text: &str) -> Option<[u64; 3]> {
    let mut parts = text.split('.').map(|part| part.parse::<u64>().ok());
    let version = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(version)
}

/// Runs `ferrex setup <agent>`: prints what it changed.
pub fn install(agent: &Agent, launch: &Launch, remove: bool) -> anyhow::Result<()> {
    let shared = agent.servers == agent.settings;
    let mut servers = read_json(&agent.servers)?;
    let mut settings = if shared { Map::new() } else { read_json(&agent.settings)? };
    let mut changes = Vec::new();
    changes.extend(set_server(agent, &mut servers, launch, remove)?.map(|change| (true, change)));
    let hooks = if shared { &mut servers } else { &mut settings };
    changes.extend(set_hooks(agent, hooks, launch, remove)?.map(|change| (shared, change)));
    if changes.iter().any(|(in_servers, _)| *in_servers) {
        write_json(&agent.servers, &servers)?;
    }
    if changes.iter().any(|(in_servers, _)| !*in_servers) {
        write_json(&agent.settings, &settings)?;
    }
    if changes.is_empty() {
        output(&if remove {
            format!("Nothing to remove: ferrex is not in {}'s settings.", agent.name)
        } else {
            format!(
                "Nothing to change: {} already runs ferrex and its hooks as set here.",
                agent.name
            )
        });
        return Ok(());
    }
    for (in_servers, change) in &changes {
        let path = if *in_servers { &agent.servers } else { &agent.settings };
        output(&format!("{}: {change}", path.display()));
    }
    if !remove {
        output(&format!(
            "{} picks the hooks up in new sessions (and may ask to trust a workspace before \
             running a hook in it). `ferrex setup {} --remove` undoes this.",
            agent.name, agent.command
        ));
    }
    Ok(())
}

/// Puts or takes out `mcpServers.ferrex`; what changed.
fn set_server(
    agent: &Agent,
    state: &mut Map<String, Value>,
    launch: &Launch,
    remove: bool,
) -> anyhow::Result<Option<String>> {
    let servers = state.entry("mcpServers").or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        bail!(
            "mcpServers in {} is not an object; fix it, then run this again",
            agent.servers.display()
        );
    };
    let mut wanted = json!({
        "command": launch.executable.display().to_string(),
        "args": launch.args(),
        "env": {},
    });
    if agent.server_type {
        wanted["type"] = json!("stdio");
    }
    let change = match (servers.get("ferrex"), remove) {
        (Some(_), true) => {
            servers.remove("ferrex");
            Some("removed the MCP server ferrex".to_owned())
        }
        (None, true) => None,
        (Some(current), false) if *current == wanted => None,
        (current, false) => {
            let verb = if current.is_some() { "updated" } else { "added" };
            let change = format!(
                "{verb} the MCP server ferrex (user scope): {} {}",
                launch.executable.display(),
                launch.args().join(" ")
            );
            servers.insert("ferrex".to_owned(), wanted);
            Some(change.trim_end().to_owned())
        }
    };
    if servers.is_empty() && remove {
        state.remove("mcpServers");
    }
    Ok(change)
}

/// Puts or takes out ferrex's hooks, keeping every other one; what changed.
pub(super) fn set_hooks(
    agent: &Agent,
    settings: &mut Map<String, Value>,
    launch: &Launch,
    remove: bool,
) -> anyhow::Result<Option<String>> {
    let before = settings.get("hooks").cloned();
    let hooks = settings.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        bail!(
            "hooks in {} is not an object; fix it, then run this again",
            agent.settings.display()
        );
    };
    // The groups ferrex wants, by event.
    let mut wanted: Vec<(&str, Value)> = Vec::new();
    if !remove {
        for (event, matcher, timeout) in agent.hooks {
            let mut group = Map::new();
            if let Some(matcher) = matcher {
                group.insert("matcher".to_owned(), json!(matcher));
            }
            let timeout = if agent.timeout_millis { timeout * 1_000 } else { *timeout };
            let mut handler = json!({"type": "command", "command": launch.hook_command(event), "timeout": timeout});
            if agent.timeout_millis {
                // Gemini CLI names hooks in its logs and commands.
                handler["name"] = json!(format!("ferrex {event}"));
            }
            group.insert("hooks".to_owned(), json!([handler]));
            wanted.push((event, Value::Object(group)));
        }
    }
    // A group of ferrex's alone is replaced where it stands, so that the
    // groups after it keep their places (Codex trusts a hook by its
    // group's place); any other ferrex handler is taken out, and groups
    // and events left empty by that alone go.
    let mut removed = Vec::new();
    let mut placed = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else { continue };
        let mut want = wanted.iter().find(|(name, _)| name == event).map(|(_, group)| group);
        for group in groups.iter_mut() {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            if handlers.len() == 1
                && is_ours(&handlers[0])
                && let Some(replacement) = want.take()
            {
                *group = replacement.clone();
                placed.push(event.clone());
                continue;
            }
            let count = handlers.len();
            handlers.retain(|handler| !is_ours(handler));
            if handlers.len() != count {
                removed.push(event.clone());
            }
        }
        groups.retain(|group| {
            group.get("hooks").and_then(Value::as_array).is_none_or(|handlers| !handlers.is_empty())
        });
    }
    hooks.retain(|event, groups| {
        !(removed.contains(event) && groups.as_array().is_some_and(Vec::is_empty))
    });
    for (event, group) in
        wanted.into_iter().filter(|(event, _)| !placed.iter().any(|name| name == event))
    {
        let groups = hooks.entry(event.to_owned()).or_insert_with(|| json!([]));
        let Some(groups) = groups.as_array_mut() else {
            bail!(
                "hooks.{event} in {} is not a list; fix it, then run this again",
                agent.settings.display()
            );
        };
        groups.push(group);
    }
    if hooks.is_empty() {
        settings.remove("hooks");
    }
    let after = settings.get("hooks").cloned();
    if before == after {
        return Ok(None);
    }
    let events: Vec<&str> = agent.hooks.iter().map(|(event, _, _)| *event).collect();
    Ok(Some(if remove {
        removed.dedup();
        format!("removed ferrex's hooks ({})", removed.join(", "))
    } else {
        format!("set ferrex's hooks: {}", events.join(", "))
    }))
}

pub(super) fn read_json(path: &Path) -> anyhow::Result<Map<String, Value>> {
    let text = read_text(path)?;
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => bail!("{} does not hold a JSON object; nothing was changed", path.display()),
        Err(error) => bail!(
            "{} is not valid JSON ({error}); nothing was changed. Fix it, then run this again",
            path.display()
        ),
    }
}

/// A settings file's text; empty when there is no file yet.
pub(super) fn read_text(path: &Path) -> anyhow::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
    }
}

/// Writes `value` to `path` as JSON (see [`write_file`]).
pub(super) fn write_json(path: &Path, value: &Map<String, Value>) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    write_file(path, &text)
}

/// Writes `text` to `path` whole: a backup of the old file first (once),
/// then a temporary file, synced and renamed over it.
fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    // A link (a dotfile manager's) is followed: the file it names is
    // rewritten, with its permissions (a config holding tokens stays 0600).
    let linked = std::fs::canonicalize(path).ok();
    let path = linked.as_deref().unwrap_or(path);
    let dir = path.parent().context("a settings file has a directory")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let backup = path.with_file_name(format!(
        "{}.before-ferrex",
        path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default()
    ));
    if path.exists() && !backup.exists() {
        std::fs::copy(path, &backup).with_context(|| format!("backing up {}", path.display()))?;
    }
    let temporary = path.with_extension("ferrex-tmp");
    {
        use std::io::Write;
        let mut file = std::fs::File::create(&temporary)
            .with_context(|| format!("writing {}", temporary.display()))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
    }
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&temporary, meta.permissions())
            .with_context(|| format!("keeping the permissions of {}", path.display()))?;
    }
    std::fs::rename(&temporary, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch() -> Launch {
        Launch::of(PathBuf::from("/opt/my tools/ferrex"), None)
    }

    #[test]
    fn a_ferrex_that_uvx_runs_is_set_up_to_run_through_uvx() {
        let cached = PathBuf::from("/home/me/.cache/uv/archive-v0/Xy12/bin/ferrex");
        let launch = Launch::of(cached, None);
        assert_eq!(launch.executable, PathBuf::from("uvx"));
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(launch.args(), ["--from", &format!("ferrex-memory=={version}"), "ferrex"]);
        assert_eq!(
            launch.hook_command("Stop"),
            format!("'uvx' '--from' 'ferrex-memory=={version}' 'ferrex' hook Stop")
        );
        assert!(is_ours(&json!({"command": launch.hook_command("Stop")})));
        // A tool uv installed for good stays where it is.
        let installed = PathBuf::from("/home/me/.local/share/uv/tools/ferrex-memory/bin/ferrex");
        assert_eq!(Launch::of(installed.clone(), None).executable, installed);
    }

    #[test]
    fn hook_commands_quote_every_path() {
        let launch = Launch { home: Some(PathBuf::from("/h/it's")), ..launch() };
        assert_eq!(
            launch.hook_command("Stop"),
            r"'/opt/my tools/ferrex' '--home' '/h/it'\''s' hook Stop"
        );
        assert!(is_ours(&json!({"command": launch.hook_command("Stop")})));
        assert!(!is_ours(&json!({"command": "node hooks/session-start.js"})));
        assert!(!is_ours(&json!({"command": "git hook run"})));
    }

    #[test]
    fn installing_twice_changes_nothing_more_and_removing_restores_the_rest() {
        let mut settings: Map<String, Value> = serde_json::from_value(json!({
            "model": "opus",
            "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint.sh"}]}]}
        }))
        .unwrap();
        let original = settings.clone();
        let agent = Agent::claude_code(Path::new("/home/u"), None);
        assert!(set_hooks(&agent, &mut settings, &launch(), false).unwrap().is_some());
        let once = settings.clone();
        assert!(set_hooks(&agent, &mut settings, &launch(), false).unwrap().is_none());
        assert_eq!(settings, once);
        assert_eq!(settings["hooks"]["PostToolUse"].as_array().unwrap().len(), 2);
        assert!(set_hooks(&agent, &mut settings, &launch(), true).unwrap().is_some());
        assert_eq!(settings, original);
    }

    #[test]
    fn setups_groups_stay_where_they_are_and_the_persons_after_them_too() {
        let agent = Agent::codex(Path::new("/home/u/.codex"));
        let mut settings = Map::new();
        set_hooks(&agent, &mut settings, &launch(), false).unwrap();
        // The person adds a Stop hook after ferrex's (Codex trusts it as
        // `hooks.json:stop:1:0`).
        let theirs = json!({"hooks": [{"type": "command", "command": "notify.sh"}]});
        settings["hooks"]["Stop"].as_array_mut().unwrap().push(theirs.clone());
        let once = settings.clone();
        assert!(
            set_hooks(&agent, &mut settings, &launch(), false).unwrap().is_none(),
            "idempotent"
        );
        assert_eq!(settings, once);
        // Another ferrex (moved) replaces its groups in place.
        let moved = Launch::of(PathBuf::from("/usr/local/bin/ferrex"), None);
        assert!(set_hooks(&agent, &mut settings, &moved, false).unwrap().is_some());
        assert_eq!(settings["hooks"]["Stop"][1], theirs, "the person's group kept its place");
        assert!(
            settings["hooks"]["Stop"][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .starts_with("'/usr/local/bin/ferrex'")
        );
        set_hooks(&agent, &mut settings, &moved, true).unwrap();
        assert_eq!(settings["hooks"], json!({"Stop": [theirs]}));
    }

    #[test]
    fn gemini_hooks_take_milliseconds_and_its_own_event_names() {
        let agent = Agent::gemini(Path::new("/home/u"));
        assert_eq!(agent.servers, agent.settings);
        let mut settings = Map::new();
        set_hooks(&agent, &mut settings, &launch(), false).unwrap();
        let after_tool = &settings["hooks"]["AfterTool"][0];
        assert!(after_tool.get("matcher").is_none());
        assert_eq!(after_tool["hooks"][0]["timeout"], 10_000);
        assert!(after_tool["hooks"][0]["command"].as_str().unwrap().ends_with(" hook AfterTool"));
        assert!(settings["hooks"].get("PostToolUse").is_none());
    }

    /// A file of the repository, as JSON.
    fn repository_json(path: &str) -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path:?}: {error}"));
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{path:?}: {error}"))
    }

    #[test]
    fn the_claude_code_plugin_keeps_the_binarys_version_and_setups_hooks() {
        let version = env!("CARGO_PKG_VERSION");
        let manifest = repository_json("plugins/claude-code/.claude-plugin/plugin.json");
        assert_eq!(manifest["name"], "ferrex");
        assert_eq!(manifest["version"], version, "plugin.json's version is the binary's");
        let marketplace = repository_json(".claude-plugin/marketplace.json");
        let listed = marketplace["plugins"].as_array().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["name"], "ferrex");
        assert_eq!(listed[0]["version"], version, "the marketplace lists the binary's version");
        assert_eq!(listed[0]["source"], "./plugins/claude-code");
        let launcher =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/claude-code/scripts/run-ferrex");
        let launcher = std::fs::read_to_string(launcher).unwrap();
        assert!(
            launcher.contains(&format!("\nPLUGIN_VERSION={version}\n")),
            "the launcher's version"
        );

        // The plugin's hooks are setup's: the same events, matchers and timeouts.
        let hooks = repository_json("plugins/claude-code/hooks/hooks.json");
        let hooks = hooks["hooks"].as_object().unwrap();
        assert_eq!(hooks.len(), CLAUDE_HOOKS.len());
        for (event, matcher, timeout) in CLAUDE_HOOKS {
            let group = &hooks[*event][0];
            assert_eq!(group.get("matcher").and_then(Value::as_str), *matcher, "{event}");
            let handler = &group["hooks"][0];
            assert_eq!(handler["timeout"], *timeout, "{event}");
            assert_eq!(
                handler["command"],
                format!(
                    "sh \"${{CLAUDE_PLUGIN_ROOT}}/scripts/run-ferrex\" claude-code hook {event}"
                )
            );
            assert!(!is_ours(handler), "setup never takes the plugin's hooks for its own");
        }
        let servers = repository_json("plugins/claude-code/.mcp.json");
        assert_eq!(
            servers["mcpServers"]["ferrex"]["args"],
            json!(["${CLAUDE_PLUGIN_ROOT}/scripts/run-ferrex", "claude-code", "mcp"])
        );
    }

    #[test]
    fn the_gemini_extension_keeps_the_binarys_version_and_setups_hooks() {
        let version = env!("CARGO_PKG_VERSION");
        let manifest = repository_json("plugins/gemini/gemini-extension.json");
        assert_eq!(manifest["name"], "ferrex", "installed as ~/.gemini/extensions/ferrex");
        assert_eq!(manifest["version"], version, "the extension's version is the binary's");
        assert_eq!(
            manifest["mcpServers"]["ferrex"]["args"],
            json!(["${extensionPath}${/}scripts${/}run-ferrex", "gemini", "mcp"])
        );
        let hooks = repository_json("plugins/gemini/hooks/hooks.json");
        let hooks = hooks["hooks"].as_object().unwrap();
        assert_eq!(hooks.len(), GEMINI_HOOKS.len());
        for (event, _, timeout) in GEMINI_HOOKS {
            let handler = &hooks[*event][0]["hooks"][0];
            assert_eq!(handler["timeout"], timeout * 1_000, "{event}: milliseconds");
            assert_eq!(
                handler["command"],
                format!(
                    "sh \"${{extensionPath}}${{/}}scripts${{/}}run-ferrex\" gemini hook {event}"
                )
            );
        }
        // One launcher, carried by both (each is copied on its own when installed).
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins");
        let read =
            |agent: &str| std::fs::read(root.join(agent).join("scripts/run-ferrex")).unwrap();
        assert_eq!(read("gemini"), read("claude-code"), "the two launchers are one file");
    }

    #[test]
    fn versions_compare_as_numbers_and_the_scripts_pin_the_tested_clients() {
        assert!(version_of("2.1.99") < version_of("2.1.332"));
        assert!(version_of("0.61.0") > version_of("0.9.12"));
        assert_eq!(version_of("2.1"), None);
        assert_eq!(version_of("v2.1.3"), None);
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts");
        for (agent, _, tested, _) in TESTED_CLIENTS {
            let script = match agent {
                "claude-code" => "claude-code",
                "gemini" => "gemini-cli",
                _ => "codex-cli",
            };
            let text = std::fs::read_to_string(root.join(script)).unwrap();
            assert!(text.contains(&format!("_VERSION={tested}\n")), "{script} pins {tested}");
        }
    }
}
