//! `ferrex setup codex [--remove]`: ferrex as an MCP server of Codex CLI,
//! in `$CODEX_HOME/config.toml` (`~/.codex/config.toml`): the table
//! `[mcp_servers.ferrex]` (docs/research/codex-cli.md cites the format).
//! The file is edited in place with `toml_edit`, so the person's comments,
//! order and layout stay as they were; a `[mcp_servers.ferrex]` table they
//! already have keeps its other keys (a timeout, `enabled`), only its
//! command and arguments are set. Backed up once and written whole, as the
//! JSON settings are.

use anyhow::bail;
use toml_edit::{Array, DocumentMut, Item, Table, TableLike, value};

use super::{Agent, Launch, read_json, read_text, set_hooks, write_file, write_json};
use crate::base::console::output;

/// The server's name in Codex's configuration (and so its tools' prefix).
const SERVER: &str = "ferrex";
/// How long Codex waits for the server to start, in seconds: the first
/// start of a node loads the model and catches the index up (Codex's own
/// default is 10 s).
const STARTUP_TIMEOUT_SECS: i64 = 60;

/// Runs `ferrex setup codex`: the MCP server in `agent.servers`
/// (`config.toml`), the hooks in `agent.settings` (`hooks.json`); prints
/// what it changed. Both files are read and checked before either is
/// written.
pub fn install(agent: &Agent, launch: &Launch, remove: bool) -> anyhow::Result<()> {
    let config = &agent.servers;
    let (mut document, mut hooks) = read(agent)?;
    let server = set_server(&mut document, launch, remove)
        .map_err(|error| anyhow::anyhow!("{error} in {}; nothing was changed", config.display()))?;
    let hooks_change = set_hooks(agent, &mut hooks, launch, remove)?;
    if let Some(change) = &server {
        write_file(config, &document.to_string())?;
        output(&format!("{}: {change}", config.display()));
    }
    if let Some(change) = &hooks_change {
        write_json(&agent.settings, &hooks)?;
        output(&format!("{}: {change}", agent.settings.display()));
    }
    if server.is_none() && hooks_change.is_none() {
        output(&if remove {
            format!(
                "Nothing to remove: ferrex is not in {} or {}.",
                config.display(),
                agent.settings.display()
            )
        } else {
            "Nothing to change: Codex CLI already runs ferrex and its hooks as set here.".to_owned()
        });
    } else if !remove {
        output(
            "Codex CLI starts the MCP server in new sessions (`codex mcp list` shows it). It runs \
             new hooks only once you trust them, and skips the others without a word: open Codex \
             and trust ferrex's in /hooks. `ferrex setup codex --remove` undoes this.",
        );
    }
    Ok(())
}

/// Codex's `config.toml` as an editable document, and its `hooks.json`;
/// an error naming the file that cannot be read, changing nothing.
pub fn read(
    agent: &Agent,
) -> anyhow::Result<(DocumentMut, serde_json::Map<String, serde_json::Value>)> {
    let config = &agent.servers;
    let document: DocumentMut = read_text(config)?.parse().map_err(|error| {
        anyhow::anyhow!(
            "{} is not valid TOML ({}); nothing was changed. Fix it, then run this again",
            config.display(),
            first_line(&error)
        )
    })?;
    let servers = document.get("mcp_servers");
    let ours = servers.and_then(|servers| servers.get(SERVER));
    if servers.is_some_and(|servers| servers.as_table_like().is_none())
        || ours.is_some_and(|ours| ours.as_table_like().is_none())
    {
        bail!(
            "mcp_servers{} in {} is not a table; nothing was changed. Fix it, then run this again",
            if ours.is_some() { ".ferrex" } else { "" },
            config.display()
        );
    }
    Ok((document, read_json(&agent.settings)?))
}

/// toml_edit's errors span several lines (the line, a caret); the first
/// says what is wrong and where.
fn first_line(error: &toml_edit::TomlError) -> String {
    let text = error.to_string();
    text.lines().map(str::trim).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Puts or takes out `[mcp_servers.ferrex]`; what changed.
fn set_server(
    document: &mut DocumentMut,
    launch: &Launch,
    remove: bool,
) -> anyhow::Result<Option<String>> {
    let root = document.as_table_mut();
    if remove {
        let Some(servers) = root.get_mut("mcp_servers") else { return Ok(None) };
        let Some(servers) = servers.as_table_like_mut() else {
            bail!("mcp_servers is not a table")
        };
        if servers.remove(SERVER).is_none() {
            return Ok(None);
        }
        // A table that only held ferrex, and that no header of the
        // person's named, goes too.
        let implicit = root["mcp_servers"].as_table().is_some_and(Table::is_implicit);
        if implicit && root["mcp_servers"].as_table_like().is_some_and(TableLike::is_empty) {
            root.remove("mcp_servers");
        }
        return Ok(Some(format!("removed the MCP server {SERVER}")));
    }
    let inline = root.get("mcp_servers").is_some_and(Item::is_inline_table);
    let servers = root.entry("mcp_servers").or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    let Some(servers) = servers.as_table_like_mut() else { bail!("mcp_servers is not a table") };
    let command = launch.executable.display().to_string();
    let args = launch.args();
    let verb = match servers.get(SERVER) {
        None => "added",
        Some(current) => {
            let Some(current) = current.as_table_like() else {
                bail!("mcp_servers.{SERVER} is not a table")
            };
            let same_command = current.get("command").and_then(Item::as_str) == Some(&command);
            let current_args: Option<Vec<&str>> = current
                .get("args")
                .and_then(Item::as_array)
                .map(|array| array.iter().filter_map(|arg| arg.as_str()).collect());
            let same_args = current_args.unwrap_or_default() == args;
            if same_command && same_args {
                return Ok(None);
            }
            "updated"
        }
    };
    let arguments: Array = args.iter().collect();
    match servers.get_mut(SERVER).and_then(Item::as_table_like_mut) {
        // The person's own table keeps its other keys, order and comments.
        Some(server) => {
            server.insert("command", value(command.clone()));
            server.insert("args", value(arguments));
        }
        None => {
            let mut table = Table::new();
            table.insert("command", value(command.clone()));
            table.insert("args", value(arguments));
            table.insert("startup_timeout_sec", value(STARTUP_TIMEOUT_SECS));
            let item = if inline {
                Item::Value(toml_edit::Value::InlineTable(table.into_inline_table()))
            } else {
                Item::Table(table)
            };
            servers.insert(SERVER, item);
        }
    }
    Ok(Some(
        format!("{verb} the MCP server {SERVER}: {command} {}", args.join(" "))
            .trim_end()
            .to_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn launch() -> Launch {
        Launch::of(PathBuf::from("/opt/my tools/ferrex"), Some(PathBuf::from("/h/ferrex")))
    }

    const PERSONS: &str = "# my Codex settings\nmodel = \"gpt-5\" # the one I pay for\n\n\
        [mcp_servers.docs]\n# the docs server\ncommand = \"docs-mcp\"\n\n\
        [profiles.fast]\nmodel = \"gpt-5-mini\"\n";

    #[test]
    fn adding_keeps_every_comment_and_removing_gives_back_the_same_bytes() {
        let mut document: DocumentMut = PERSONS.parse().unwrap();
        let change = set_server(&mut document, &launch(), false).unwrap().unwrap();
        assert!(change.starts_with("added the MCP server ferrex: /opt/my tools/ferrex --home"));
        let added = document.to_string();
        assert!(added.starts_with(PERSONS.split("[profiles").next().unwrap()), "{added}");
        assert!(added.contains("# the docs server") && added.contains("# the one I pay for"));
        let parsed: toml::Table = toml::from_str(&added).unwrap();
        let server = &parsed["mcp_servers"]["ferrex"];
        assert_eq!(server["command"].as_str(), Some("/opt/my tools/ferrex"));
        assert_eq!(server["args"].as_array().unwrap().len(), 2);
        assert_eq!(server["startup_timeout_sec"].as_integer(), Some(STARTUP_TIMEOUT_SECS));
        assert!(set_server(&mut document, &launch(), false).unwrap().is_none(), "twice: no change");
        assert!(set_server(&mut document, &launch(), true).unwrap().is_some());
        assert_eq!(document.to_string(), PERSONS);
        assert!(set_server(&mut document, &launch(), true).unwrap().is_none());
    }

    #[test]
    fn a_file_without_servers_is_given_back_whole_after_removal() {
        let original = "model = \"o3\"\n";
        let mut document: DocumentMut = original.parse().unwrap();
        set_server(&mut document, &launch(), false).unwrap();
        assert!(document.to_string().contains("[mcp_servers.ferrex]"), "{document}");
        assert!(!document.to_string().contains("[mcp_servers]\n"), "no empty header: {document}");
        set_server(&mut document, &launch(), true).unwrap();
        assert_eq!(document.to_string(), original);
    }

    #[test]
    fn the_persons_own_ferrex_table_keeps_its_other_keys() {
        let original = "[mcp_servers.ferrex]\ncommand = \"/old/ferrex\"\n\
            tool_timeout_sec = 120 # mine\nenabled = true\n";
        let mut document: DocumentMut = original.parse().unwrap();
        let change = set_server(&mut document, &launch(), false).unwrap().unwrap();
        assert!(change.starts_with("updated"), "{change}");
        let text = document.to_string();
        assert!(text.contains("tool_timeout_sec = 120 # mine") && text.contains("enabled = true"));
        assert!(text.contains("command = \"/opt/my tools/ferrex\""), "{text}");
        // An inline table of servers takes an inline table.
        let mut inline: DocumentMut =
            "mcp_servers = { docs = { command = \"d\" } }\n".parse().unwrap();
        set_server(&mut inline, &launch(), false).unwrap();
        let parsed: toml::Table = toml::from_str(&inline.to_string()).unwrap();
        assert_eq!(
            parsed["mcp_servers"]["ferrex"]["command"].as_str(),
            Some("/opt/my tools/ferrex")
        );
        assert_eq!(parsed["mcp_servers"]["docs"]["command"].as_str(), Some("d"));
    }

    #[test]
    fn dotted_keys_and_arrays_of_tables_are_read_as_the_person_wrote_them() {
        // A dotted key at the top: the table is ferrex's to update in place.
        let dotted = "mcp_servers.ferrex.command = \"/old/ferrex\"\nmodel = \"o3\"\n";
        let mut document: DocumentMut = dotted.parse().unwrap();
        assert!(
            set_server(&mut document, &launch(), false).unwrap().unwrap().starts_with("updated")
        );
        let parsed: toml::Table = toml::from_str(&document.to_string()).unwrap();
        assert_eq!(
            parsed["mcp_servers"]["ferrex"]["command"].as_str(),
            Some("/opt/my tools/ferrex")
        );
        assert_eq!(parsed["model"].as_str(), Some("o3"));
        // An array of tables is not Codex's shape: refused.
        let mut array: DocumentMut = "[[mcp_servers]]\nname = \"x\"\n".parse().unwrap();
        assert!(set_server(&mut array, &launch(), false).is_err());
    }

    #[test]
    fn a_broken_file_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let agent = Agent::codex(dir.path());
        let config = &agent.servers;
        for broken in ["model = \"gpt-5\n[mcp", "mcp_servers = 3\n", "[mcp_servers]\nferrex = 1\n"]
        {
            std::fs::write(config, broken).unwrap();
            let error = install(&agent, &launch(), false).unwrap_err().to_string();
            assert!(error.contains("nothing was changed"), "{error}");
            assert!(error.contains("config.toml"), "{error}");
            assert_eq!(std::fs::read_to_string(config).unwrap(), broken);
            assert!(!dir.path().join("config.toml.before-ferrex").exists());
            assert!(!agent.settings.exists(), "no hooks written beside a broken config");
        }
        // A broken hooks.json is refused before config.toml is touched.
        std::fs::write(config, "model = \"o3\"\n").unwrap();
        std::fs::write(&agent.settings, "{\"hooks\": ").unwrap();
        let error = install(&agent, &launch(), false).unwrap_err().to_string();
        assert!(error.contains("hooks.json is not valid JSON"), "{error}");
        assert_eq!(std::fs::read_to_string(config).unwrap(), "model = \"o3\"\n");
    }

    #[test]
    fn hooks_go_to_hooks_json_in_claude_codes_shape_and_come_out_again() {
        let dir = tempfile::tempdir().unwrap();
        let agent = Agent::codex(dir.path());
        std::fs::write(
            &agent.settings,
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}}"#,
        )
        .unwrap();
        let original = std::fs::read_to_string(&agent.settings).unwrap();
        install(&agent, &launch(), false).unwrap();
        let hooks: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&agent.settings).unwrap()).unwrap();
        assert_eq!(hooks["hooks"]["SessionStart"][0]["matcher"], "startup|resume|clear");
        assert_eq!(hooks["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
        assert_eq!(hooks["hooks"]["Stop"].as_array().unwrap().len(), 2, "the person's kept");
        assert!(hooks["hooks"].get("PostToolUseFailure").is_none());
        install(&agent, &launch(), true).unwrap();
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&agent.settings).unwrap()).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(&original).unwrap());
        assert!(!std::fs::read_to_string(&agent.servers).unwrap().contains("ferrex"));
    }
}
