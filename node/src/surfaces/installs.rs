//! How ferrex is installed in each agent, read and never changed: ferrex's
//! own entries in an agent's settings (what `ferrex setup` writes), and
//! ferrex's Claude Code plugin or Gemini CLI extension. An agent given
//! ferrex both ways would run two MCP servers and every hook twice, so the
//! plugin's hooks ask [`doubled`] and, when `ferrex setup`'s hooks are
//! there too, only say which to remove (and [`duplicate_server`] names a
//! second MCP server); `ferrex setup` asks
//! [`claude_plugin`] and [`gemini_extension`] before adding itself beside
//! them (docs/research/claude-code-plugins.md and
//! docs/research/gemini-cli-extensions.md cite where each is kept).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The environment variable the plugin's and the extension's launcher
/// (`plugins/claude-code/scripts/run-ferrex`) sets to the agent that runs it:
/// `claude-code` or `gemini`.
pub const PLUGIN_VARIABLE: &str = "FERREX_PLUGIN";

/// The home of the person running ferrex: `HOME` first (tests set it), the
/// platform's own on Windows, where `HOME` is seldom set.
pub fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|dirs| dirs.home_dir().to_owned()))
}

/// Claude Code's user settings (hooks, enabled plugins) and its state file
/// (user-scope MCP servers): `~/.claude/settings.json` and `~/.claude.json`,
/// or both under `CLAUDE_CONFIG_DIR` when it is set.
pub fn claude_files(home: &Path, config_dir: Option<PathBuf>) -> (PathBuf, PathBuf) {
    match config_dir {
        Some(dir) => (dir.join("settings.json"), dir.join(".claude.json")),
        None => (home.join(".claude").join("settings.json"), home.join(".claude.json")),
    }
}

/// [`claude_files`] where Claude Code looks for them now: under
/// `CLAUDE_CONFIG_DIR` when that is set.
pub fn claude_user_files(home: &Path) -> (PathBuf, PathBuf) {
    claude_files(home, std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from))
}

/// Codex CLI's home: `CODEX_HOME`, else `~/.codex`.
pub fn codex_home(home: &Path) -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| home.join(".codex"), PathBuf::from)
}

/// The agent whose plugin or extension runs this process (the launcher
/// sets [`PLUGIN_VARIABLE`]), and the person's home; none outside one.
pub fn plugin_client() -> Option<(String, PathBuf)> {
    std::env::var(PLUGIN_VARIABLE).ok().zip(user_home())
}

/// Gemini CLI's user settings (hooks and MCP servers): `~/.gemini/settings.json`.
pub fn gemini_settings(home: &Path) -> PathBuf {
    home.join(".gemini").join("settings.json")
}

/// Whether a hook handler is one `ferrex setup` installed: its command runs
/// a `ferrex` executable's `hook` command (not the plugin's launcher).
pub fn is_ours(handler: &Value) -> bool {
    let Some(command) = handler.get("command").and_then(Value::as_str) else { return false };
    let Some(at) = command.find(" hook ") else { return false };
    command[..at].contains("ferrex") && !command[..at].contains("run-ferrex")
}

/// The JSON object in `path`; none when it is missing or unreadable (this
/// module only reads, and a broken file is `ferrex setup`'s to report).
fn read_object(path: &Path) -> Option<Map<String, Value>> {
    let text = std::fs::read_to_string(path).ok()?;
    match serde_json::from_str(&text).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Whether `settings` holds a hook `ferrex setup` installed.
fn has_setup_hooks(settings: &Map<String, Value>) -> bool {
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else { return false };
    hooks.values().filter_map(Value::as_array).flatten().any(|group| {
        group
            .get("hooks")
            .and_then(Value::as_array)
            .is_some_and(|handlers| handlers.iter().any(is_ours))
    })
}

/// Whether `servers` (a settings object) names an MCP server `ferrex`.
fn has_setup_server(servers: &Map<String, Value>) -> bool {
    servers.get("mcpServers").and_then(|servers| servers.get("ferrex")).is_some()
}

/// The key ferrex's plugin is enabled under in Claude Code's user settings
/// (`enabledPlugins`: `"ferrex@<marketplace>": true`), if it is.
pub fn claude_plugin(settings: &Path) -> Option<String> {
    let settings = read_object(settings)?;
    let enabled = settings.get("enabledPlugins")?.as_object()?;
    enabled
        .iter()
        .find(|(key, on)| key.split('@').next() == Some("ferrex") && on.as_bool() == Some(true))
        .map(|(key, _)| key.clone())
}

/// Where ferrex's Gemini CLI extension is installed (or linked), if it is:
/// `~/.gemini/extensions/ferrex`.
pub fn gemini_extension(home: &Path) -> Option<PathBuf> {
    let folder = home.join(".gemini").join("extensions").join("ferrex");
    folder.is_dir().then_some(folder)
}

/// The files of `client` that the plugin's hooks read, for the person
/// whose home is `home`: its settings (hooks), the file holding its MCP
/// servers, what the package is called there, and the command that
/// removes a server named ferrex.
fn client_files(
    client: &str,
    home: &Path,
) -> Option<(PathBuf, PathBuf, &'static str, &'static str)> {
    match client {
        "claude-code" => {
            let (settings, servers) = claude_user_files(home);
            Some((
                settings,
                servers,
                "Claude Code plugin",
                "`claude mcp remove ferrex --scope user`",
            ))
        }
        "gemini" => {
            let settings = gemini_settings(home);
            Some((
                settings.clone(),
                settings,
                "Gemini CLI extension",
                "`ferrex setup gemini --remove`",
            ))
        }
        _ => None,
    }
}

/// When the plugin or extension of `client` runs beside `ferrex setup`'s
/// hooks: the sentence that says which to remove (the plugin's hooks then
/// stay quiet, so that no hook runs twice).
pub fn doubled(client: &str, home: &Path) -> Option<String> {
    let (settings, _, what, _) = client_files(client, home)?;
    read_object(&settings).is_some_and(|map| has_setup_hooks(&map)).then(|| {
        format!(
            "ferrex is installed twice, as the {what} and by `ferrex setup {client}`, so the \
             {what}'s hooks stay quiet: run `ferrex setup {client} --remove` to keep the {what} alone."
        )
    })
}

/// When the plugin or extension of `client` runs beside an MCP server
/// named ferrex in the user's settings (setup's, or one added by hand), so
/// that the agent has ferrex's tools twice: the sentence that says how to
/// remove it. Claude Code's state file may be large: it is parsed only
/// when it names ferrex at all.
pub fn duplicate_server(client: &str, home: &Path) -> Option<String> {
    let (_, servers, _, remove) = client_files(client, home)?;
    let text = std::fs::read_to_string(&servers).ok()?;
    if !text.contains("\"ferrex\"") {
        return None;
    }
    let map = match serde_json::from_str(&text).ok()? {
        Value::Object(map) => map,
        _ => return None,
    };
    has_setup_server(&map).then(|| {
        format!(
            "ferrex's MCP server is also in {}, so the agent has its tools twice: run {remove} \
             to keep the plugin's alone.",
            servers.display()
        )
    })
}

/// The files a plugin or extension of ferrex cannot run without, in its
/// folder.
const CLAUDE_PLUGIN_FILES: [&str; 4] =
    [".claude-plugin/plugin.json", ".mcp.json", "hooks/hooks.json", "scripts/run-ferrex"];
const GEMINI_EXTENSION_FILES: [&str; 3] =
    ["gemini-extension.json", "hooks/hooks.json", "scripts/run-ferrex"];

/// How ferrex is installed in each agent, one line each, for `ferrex
/// doctor`: by `ferrex setup`, as the plugin or extension (its version, and
/// a missing file or another version named with the command that mends
/// it), both (with the command that removes one), or not at all.
pub fn report(home: &Path) -> Vec<(&'static str, String)> {
    let (claude_settings, claude_servers) = claude_user_files(home);
    let claude_setup = read_object(&claude_settings).is_some_and(|map| has_setup_hooks(&map))
        || read_object(&claude_servers).is_some_and(|map| has_setup_server(&map));
    let claude_plugin = claude_plugin(&claude_settings).map(|key| {
        let folder = claude_plugin_folder(home, &key);
        let reinstall = format!("claude plugin uninstall {key} && claude plugin install {key}");
        packaged(
            &format!("plugin {key}"),
            folder.as_deref(),
            &CLAUDE_PLUGIN_FILES,
            ".claude-plugin/plugin.json",
            &reinstall,
        )
    });
    let gemini_settings = read_object(&gemini_settings(home)).unwrap_or_default();
    let gemini_setup = has_setup_hooks(&gemini_settings) || has_setup_server(&gemini_settings);
    let gemini_extension = gemini_extension(home).map(|folder| {
        let source = gemini_link_source(&folder).unwrap_or(folder);
        let reinstall = "gemini extensions uninstall ferrex && gemini extensions install <ferrex checkout>/plugins/gemini";
        packaged("extension ferrex", Some(&source), &GEMINI_EXTENSION_FILES, "gemini-extension.json", reinstall)
    });
    let codex_home = codex_home(home);
    let codex_server = std::fs::read_to_string(codex_home.join("config.toml"))
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .is_some_and(|config| {
            config.get("mcp_servers").and_then(|servers| servers.get("ferrex")).is_some()
        });
    let codex_hooks =
        read_object(&codex_home.join("hooks.json")).is_some_and(|map| has_setup_hooks(&map));
    let line = |client: &str, setup: bool, packaged: Option<String>| -> String {
        match (setup, packaged) {
            (false, None) => "not installed".to_owned(),
            (true, None) => format!("set up by `ferrex setup {client}`"),
            (false, Some(packaged)) => packaged,
            (true, Some(packaged)) => format!(
                "{packaged}; and set up by `ferrex setup {client}` too, so every hook would run \
                 twice: run `ferrex setup {client} --remove`"
            ),
        }
    };
    let codex = match (codex_server, codex_hooks) {
        (false, false) => "not installed".to_owned(),
        (true, true) => {
            "set up by `ferrex setup codex` (config.toml, hooks.json; trust the hooks in /hooks)"
                .to_owned()
        }
        (server, _) => format!(
            "half set up ({} only): run `ferrex setup codex` again",
            if server { "config.toml" } else { "hooks.json" }
        ),
    };
    vec![
        ("claude", line("claude-code", claude_setup, claude_plugin)),
        ("gemini", line("gemini", gemini_setup, gemini_extension)),
        ("codex", codex),
    ]
}

/// Where Claude Code keeps the installed copy of plugin `key`
/// (`~/.claude/plugins/installed_plugins.json`, its `installPath`).
fn claude_plugin_folder(home: &Path, key: &str) -> Option<PathBuf> {
    // Beside the user's settings: `~/.claude/plugins/`, or under CLAUDE_CONFIG_DIR.
    let (settings, _) = claude_user_files(home);
    let installed =
        read_object(&settings.with_file_name("plugins").join("installed_plugins.json"))?;
    let entries = installed.get("plugins")?.get(key)?.as_array()?;
    entries.iter().find_map(|entry| entry.get("installPath")?.as_str().map(PathBuf::from))
}

/// The source folder of a linked Gemini CLI extension.
fn gemini_link_source(folder: &Path) -> Option<PathBuf> {
    let install = read_object(&folder.join(".gemini-extension-install.json"))?;
    (install.get("type")?.as_str()? == "link")
        .then(|| install.get("source")?.as_str().map(PathBuf::from))?
}

/// One line about a plugin or extension in `folder`: its version, or what
/// is missing or different and how to mend it.
fn packaged(
    what: &str,
    folder: Option<&Path>,
    files: &[&str],
    manifest: &str,
    reinstall: &str,
) -> String {
    let Some(folder) = folder else {
        return format!("{what} enabled, but its installed copy was not found: run `{reinstall}`");
    };
    if let Some(missing) = files.iter().find(|file| !folder.join(file).exists()) {
        return format!("{what} at {} lacks {missing}: run `{reinstall}`", folder.display());
    }
    let version = read_object(&folder.join(manifest))
        .and_then(|map| map.get("version")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "of no version".to_owned());
    let ours = env!("CARGO_PKG_VERSION");
    if version == ours {
        format!("{what} {version} ({})", folder.display())
    } else {
        format!(
            "{what} {version} ({}), but this ferrex is {ours}: update the one that is older",
            folder.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn setup_entries_beside_the_plugin_are_named_with_the_command_that_removes_them() {
        let home = tempfile::tempdir().unwrap();
        let (settings, servers) = claude_files(home.path(), None);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        assert_eq!(doubled("claude-code", home.path()), None, "nothing installed");
        assert_eq!(duplicate_server("claude-code", home.path()), None);
        let server = json!({"mcpServers": {"ferrex": {"command": "ferrex"}}});
        std::fs::write(&servers, server.to_string()).unwrap();
        assert_eq!(doubled("claude-code", home.path()), None, "a server alone: the hooks run");
        let sentence = duplicate_server("claude-code", home.path()).unwrap();
        assert!(sentence.contains("`claude mcp remove ferrex --scope user`"), "{sentence}");
        std::fs::write(&servers, "{}").unwrap();
        let hooks = json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "true"},
            {"type": "command", "command": "'/usr/bin/ferrex' hook Stop"}]}]}});
        std::fs::write(&settings, hooks.to_string()).unwrap();
        let sentence = doubled("claude-code", home.path()).unwrap();
        assert!(sentence.contains("`ferrex setup claude-code --remove`"), "{sentence}");
        // The person's own hooks alone are no ferrex.
        std::fs::write(
            &settings,
            json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}).to_string(),
        )
        .unwrap();
        assert_eq!(doubled("claude-code", home.path()), None);
        // Broken settings are read as none.
        std::fs::write(&settings, "{broken").unwrap();
        assert_eq!(doubled("claude-code", home.path()), None);
    }

    #[test]
    fn the_plugin_is_found_where_claude_code_enables_it() {
        let home = tempfile::tempdir().unwrap();
        let (settings, _) = claude_files(home.path(), None);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        assert_eq!(claude_plugin(&settings), None);
        let enabled = |plugins: Value| {
            std::fs::write(&settings, json!({"enabledPlugins": plugins}).to_string()).unwrap();
            claude_plugin(&settings)
        };
        assert_eq!(enabled(json!({"ferrex@ferrex": true})), Some("ferrex@ferrex".to_owned()));
        assert_eq!(enabled(json!({"ferrex@ferrex": false})), None, "disabled");
        assert_eq!(enabled(json!({"ferrex-notes@x": true, "other@ferrex": true})), None);
    }

    #[test]
    fn gemini_reads_one_file_for_hooks_and_servers() {
        let home = tempfile::tempdir().unwrap();
        let settings = gemini_settings(home.path());
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, json!({"mcpServers": {"ferrex": {}}}).to_string()).unwrap();
        let sentence = duplicate_server("gemini", home.path()).unwrap();
        assert!(sentence.contains("`ferrex setup gemini --remove`"), "{sentence}");
        let hooks =
            json!({"hooks": {"AfterTool": [{"hooks": [{"command": "ferrex hook AfterTool"}]}]}});
        std::fs::write(&settings, hooks.to_string()).unwrap();
        let sentence = doubled("gemini", home.path()).unwrap();
        assert!(
            sentence.contains("Gemini CLI extension") && sentence.contains("setup gemini --remove")
        );
        assert_eq!(gemini_extension(home.path()), None);
        std::fs::create_dir_all(home.path().join(".gemini/extensions/ferrex")).unwrap();
        assert!(gemini_extension(home.path()).is_some());
    }

    #[test]
    fn the_report_names_each_route_and_what_mends_a_broken_one() {
        let home = tempfile::tempdir().unwrap();
        let lines =
            |home: &Path| report(home).into_iter().map(|(_, line)| line).collect::<Vec<_>>();
        assert_eq!(lines(home.path()), ["not installed"; 3]);
        // The plugin enabled and installed, its launcher gone.
        let root = home.path().join(".claude");
        let copy = root.join("plugins/cache/ferrex/ferrex/0.1.0");
        for file in CLAUDE_PLUGIN_FILES {
            std::fs::create_dir_all(copy.join(file).parent().unwrap()).unwrap();
            std::fs::write(
                copy.join(file),
                json!({"version": env!("CARGO_PKG_VERSION")}).to_string(),
            )
            .unwrap();
        }
        std::fs::write(
            root.join("settings.json"),
            json!({"enabledPlugins": {"ferrex@ferrex": true}}).to_string(),
        )
        .unwrap();
        std::fs::write(
            root.join("plugins/installed_plugins.json"),
            json!({"version": 2, "plugins": {"ferrex@ferrex": [{"installPath": copy}]}})
                .to_string(),
        )
        .unwrap();
        let claude = &lines(home.path())[0];
        assert!(
            claude.starts_with(&format!("plugin ferrex@ferrex {} (", env!("CARGO_PKG_VERSION"))),
            "{claude}"
        );
        std::fs::remove_file(copy.join("scripts/run-ferrex")).unwrap();
        let claude = &lines(home.path())[0];
        assert!(claude.contains("lacks scripts/run-ferrex"), "{claude}");
        assert!(
            claude.contains("claude plugin uninstall ferrex@ferrex && claude plugin install"),
            "{claude}"
        );
        // Codex half set up.
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        std::fs::write(
            home.path().join(".codex/config.toml"),
            "[mcp_servers.ferrex]\ncommand = \"f\"\n",
        )
        .unwrap();
        assert!(lines(home.path())[2].starts_with("half set up (config.toml only)"));
    }
}
