//! `ferrex setup claude-code [--remove]`: installs ferrex as a user-scope
//! MCP server (`mcpServers.ferrex` in `~/.claude.json`) and its hooks (in
//! `~/.claude/settings.json`), or takes them out again. Idempotent: ferrex's
//! entries are recognised by their command and replaced, never doubled;
//! every other setting and hook is kept. Each changed file is backed up
//! once (`<file>.before-ferrex`), written whole to a temporary file and
//! renamed over the old one. The formats are Claude Code's documented ones
//! (see `docs/research/claude-code-hooks.md`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

use crate::base::console::output;

/// Each hook ferrex installs: the event, its matcher (for events that
/// take one), and its timeout in seconds.
const HOOKS: [(&str, Option<&str>, u64); 7] = [
    ("SessionStart", Some("*"), 30),
    ("UserPromptSubmit", None, 10),
    ("PostToolUse", Some("*"), 10),
    ("PostToolUseFailure", Some("*"), 10),
    ("PreCompact", Some("*"), 30),
    ("Stop", None, 10),
    ("SessionEnd", Some("*"), 5),
];

/// Where Claude Code keeps its settings.
#[derive(Debug, Clone)]
pub struct ClaudeFiles {
    /// `settings.json` (the hooks).
    pub settings: PathBuf,
    /// `.claude.json` (user-scope MCP servers).
    pub state: PathBuf,
}

impl ClaudeFiles {
    /// The files of the user whose home is `home`: `~/.claude/settings.json`
    /// and `~/.claude.json`, or under `CLAUDE_CONFIG_DIR` when it is set.
    pub fn locate(home: &Path, config_dir: Option<PathBuf>) -> ClaudeFiles {
        match config_dir {
            Some(dir) => {
                ClaudeFiles { settings: dir.join("settings.json"), state: dir.join(".claude.json") }
            }
            None => ClaudeFiles {
                settings: home.join(".claude").join("settings.json"),
                state: home.join(".claude.json"),
            },
        }
    }
}

/// How ferrex is started: the executable, and the `--home` it needs (none
/// for the default home).
#[derive(Debug, Clone)]
pub struct Launch {
    /// The absolute path of `ferrex`.
    pub executable: PathBuf,
    /// A home other than the default.
    pub home: Option<PathBuf>,
}

impl Launch {
    fn args(&self) -> Vec<String> {
        match &self.home {
            Some(home) => vec!["--home".to_owned(), home.display().to_string()],
            None => Vec::new(),
        }
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

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Whether a hook handler is one ferrex installed: its command runs a
/// `ferrex` executable's `hook` command.
fn is_ours(handler: &Value) -> bool {
    let Some(command) = handler.get("command").and_then(Value::as_str) else { return false };
    let Some(at) = command.find(" hook ") else { return false };
    command[..at].contains("ferrex")
}

/// Runs `ferrex setup claude-code`: prints what it changed.
pub fn claude_code(files: &ClaudeFiles, launch: &Launch, remove: bool) -> anyhow::Result<()> {
    let mut state = read_json(&files.state)?;
    let mut settings = read_json(&files.settings)?;
    let mut changes = Vec::new();
    changes.extend(set_server(&mut state, launch, remove)?);
    changes.extend(set_hooks(&mut settings, launch, remove)?);
    let state_changed = changes.iter().any(|(file, _)| *file == "state");
    let settings_changed = changes.iter().any(|(file, _)| *file == "settings");
    if state_changed {
        write_json(&files.state, &state)?;
    }
    if settings_changed {
        write_json(&files.settings, &settings)?;
    }
    if changes.is_empty() {
        output(if remove {
            "Nothing to remove: ferrex is not in Claude Code's settings."
        } else {
            "Nothing to change: Claude Code already runs ferrex and its hooks as set here."
        });
        return Ok(());
    }
    for (file, change) in &changes {
        let path = if *file == "state" { &files.state } else { &files.settings };
        output(&format!("{}: {change}", path.display()));
    }
    if !remove {
        output(
            "Claude Code picks the hooks up in new sessions (and asks to trust a workspace before \
             running any hook in it). `ferrex setup claude-code --remove` undoes this.",
        );
    }
    Ok(())
}

/// Puts or takes out `mcpServers.ferrex`; what changed.
fn set_server(
    state: &mut Map<String, Value>,
    launch: &Launch,
    remove: bool,
) -> anyhow::Result<Vec<(&'static str, String)>> {
    let servers = state.entry("mcpServers").or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        bail!("mcpServers in Claude Code's state is not an object; fix it, then run this again");
    };
    let wanted = json!({
        "type": "stdio",
        "command": launch.executable.display().to_string(),
        "args": launch.args(),
        "env": {},
    });
    let mut changes = Vec::new();
    match (servers.get("ferrex"), remove) {
        (Some(_), true) => {
            servers.remove("ferrex");
            changes.push(("state", "removed the MCP server ferrex".to_owned()));
        }
        (None, true) => {}
        (Some(current), false) if *current == wanted => {}
        (current, false) => {
            let verb = if current.is_some() { "updated" } else { "added" };
            changes.push((
                "state",
                format!(
                    "{verb} the MCP server ferrex (user scope): {} {}",
                    launch.executable.display(),
                    launch.args().join(" ")
                )
                .trim_end()
                .to_owned(),
            ));
            servers.insert("ferrex".to_owned(), wanted);
        }
    }
    if servers.is_empty() && remove {
        state.remove("mcpServers");
    }
    Ok(changes)
}

/// Puts or takes out ferrex's hooks, keeping every other one; what changed.
fn set_hooks(
    settings: &mut Map<String, Value>,
    launch: &Launch,
    remove: bool,
) -> anyhow::Result<Vec<(&'static str, String)>> {
    let before = settings.get("hooks").cloned();
    let hooks = settings.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        bail!("hooks in Claude Code's settings is not an object; fix it, then run this again");
    };
    // Take every ferrex handler out (of any event), dropping groups and
    // events left empty by that alone.
    let mut removed = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else { continue };
        for group in groups.iter_mut() {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
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
    if !remove {
        for (event, matcher, timeout) in HOOKS {
            let mut group = Map::new();
            if let Some(matcher) = matcher {
                group.insert("matcher".to_owned(), json!(matcher));
            }
            group.insert(
                "hooks".to_owned(),
                json!([{"type": "command", "command": launch.hook_command(event), "timeout": timeout}]),
            );
            let groups = hooks.entry(event.to_owned()).or_insert_with(|| json!([]));
            let Some(groups) = groups.as_array_mut() else {
                bail!(
                    "hooks.{event} in Claude Code's settings is not a list; fix it, then run this again"
                );
            };
            groups.push(Value::Object(group));
        }
    }
    if hooks.is_empty() {
        settings.remove("hooks");
    }
    let after = settings.get("hooks").cloned();
    if before == after {
        return Ok(Vec::new());
    }
    let events: Vec<&str> = HOOKS.iter().map(|(event, _, _)| *event).collect();
    Ok(vec![(
        "settings",
        if remove {
            removed.dedup();
            format!("removed ferrex's hooks ({})", removed.join(", "))
        } else {
            format!("set ferrex's hooks: {}", events.join(", "))
        },
    )])
}

fn read_json(path: &Path) -> anyhow::Result<Map<String, Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => bail!("{} does not hold a JSON object; nothing was changed", path.display()),
            Err(error) => bail!(
                "{} is not valid JSON ({error}); nothing was changed. Fix it, then run this again",
                path.display()
            ),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
    }
}

/// Writes `value` to `path` whole: a backup of the old file first (once),
/// then a temporary file, synced and renamed over it.
fn write_json(path: &Path, value: &Map<String, Value>) -> anyhow::Result<()> {
    let dir = path.parent().context("a settings file has a directory")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let backup = path.with_file_name(format!(
        "{}.before-ferrex",
        path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default()
    ));
    if path.exists() && !backup.exists() {
        std::fs::copy(path, &backup).with_context(|| format!("backing up {}", path.display()))?;
    }
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    let temporary = path.with_extension("ferrex-tmp");
    {
        use std::io::Write;
        let mut file = std::fs::File::create(&temporary)
            .with_context(|| format!("writing {}", temporary.display()))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
    }
    std::fs::rename(&temporary, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch() -> Launch {
        Launch { executable: PathBuf::from("/opt/my tools/ferrex"), home: None }
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
        assert_eq!(set_hooks(&mut settings, &launch(), false).unwrap().len(), 1);
        let once = settings.clone();
        assert_eq!(set_hooks(&mut settings, &launch(), false).unwrap().len(), 0);
        assert_eq!(settings, once);
        assert_eq!(settings["hooks"]["PostToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(set_hooks(&mut settings, &launch(), true).unwrap().len(), 1);
        assert_eq!(settings, original);
    }
}
