//! The `ferrex` binary: the command table and its dispatch. What each
//! command does is in [`cli`]; the layers below are described in
//! ARCHITECTURE.md.

mod base;
mod cli;
mod lifecycle;
mod surfaces;

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

use crate::{
    base::{
        allocator,
        config::Config,
        console::{output, report},
        home::Home,
        logging, quiet,
    },
    cli::runtime,
    lifecycle::daemon,
    surfaces::{bridge, http, ui},
};

/// Persistent memory for AI agents, synced peer to peer across your devices.
///
/// Without a command, ferrex speaks MCP on stdio (as `ferrex mcp`), starting
/// this home's node in the background if it is not running.
#[derive(Debug, Parser)]
#[command(name = "ferrex", version, about, long_about)]
struct Cli {
    /// Directory holding this node's config, documents, index, socket and
    /// logs [default: ~/.local/share/ferrex].
    #[arg(long, env = "FERREX_HOME", global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Speak MCP on stdio (the default command).
    Mcp,
    /// Run the node in the foreground (for a home server or systemd).
    Node(NodeFlags),
    /// Stop this home's background node.
    Stop,
    /// Rebuild the index from the documents.
    Reindex,
    /// Check the embedding runtime, the model and the configuration.
    Doctor,
    /// Print a one-time ticket that pairs another device with this one.
    Invite {
        /// How long the ticket stays valid, like 10m, 1h or 90s.
        #[arg(long, default_value = "10m", value_parser = cli::peers::parse_duration)]
        ttl: std::time::Duration,
        /// Device name, if this starts the node.
        #[arg(long)]
        name: Option<String>,
    },
    /// Share a project with a teammate's devices: prints a one-time ticket.
    #[command(args_conflicts_with_subcommands = true)]
    Share {
        /// The project's namespace [default: the current directory's project].
        project: Option<String>,
        /// What the invited device may do: read or write.
        #[arg(long, default_value = "write")]
        role: String,
        /// How long the ticket stays valid, like 10m, 1h or 90s.
        #[arg(long, default_value = "10m", value_parser = cli::peers::parse_duration)]
        ttl: std::time::Duration,
        /// Share without asking (the first time, sharing moves the project).
        #[arg(long)]
        yes: bool,
        #[command(subcommand)]
        action: Option<ShareAction>,
    },
    /// Pair with the device that printed TICKET, or join the shared project
    /// of a share's ticket.
    Join {
        /// The ticket `ferrex invite` or `ferrex share` printed on the other
        /// device (`-`: read it from stdin).
        ticket: String,
        /// Join a shared project without asking.
        #[arg(long)]
        yes: bool,
        /// Device name, if this starts the node.
        #[arg(long)]
        name: Option<String>,
    },
    /// List paired devices: name, id, online, address, last seen, behind/ahead.
    Peers {
        /// Print JSON (a stable format) instead of a table.
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        action: Option<PeersAction>,
    },
    /// Sync state, per device and document.
    Sync {
        #[command(subcommand)]
        action: SyncAction,
    },
    /// MCP over HTTP (`ferrex node --http ADDR`, or `http.bind`).
    Http {
        #[command(subcommand)]
        action: HttpAction,
    },
    /// Search the memory as an agent's recall does, best first.
    Recall(cli::memory::RecallArgs),
    /// List memories by filters, newest first, a page at a time.
    List(cli::memory::ListArgs),
    /// Show one memory: content, standing, trust, entities, edges, history.
    Show {
        /// The memory's id.
        id: String,
        /// Print JSON (a stable format) instead of a page.
        #[arg(long)]
        json: bool,
    },
    /// Forget memories on every paired device (asks first unless --yes).
    Forget {
        /// The memories' ids.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Do not ask.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Print JSON (a stable format).
        #[arg(long)]
        json: bool,
    },
    /// Store a memory: TEXT, or --subject, --predicate and --object.
    Store(cli::memory::StoreArgs),
    /// Correct a memory: store its new text or value, superseding it
    /// (opens $VISUAL or $EDITOR without --content or --object).
    Edit {
        /// The memory's id.
        id: String,
        /// The new text (of text).
        #[arg(long)]
        content: Option<String>,
        /// The new value (of a fact).
        #[arg(long)]
        object: Option<String>,
        /// Print JSON (a stable format).
        #[arg(long)]
        json: bool,
    },
    /// Write the memory out: ferrex's JSON Lines (to stdout without --out;
    /// an empty home imports it as it was), or a folder of Markdown pages.
    Export {
        /// jsonl or markdown.
        #[arg(long, default_value = "jsonl")]
        format: String,
        /// Only this namespace [default: every namespace].
        #[arg(long, short)]
        namespace: Option<String>,
        /// Write here instead of stdout (markdown: the folder).
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
    },
    /// Bring memories in (- reads stdin): ferrex's own export, the MCP
    /// memory server's memory.jsonl, mcp-memory-service's database, or a
    /// folder of Markdown notes.
    Import {
        /// The file or folder.
        path: PathBuf,
        /// Its format [default: guessed]: ferrex, mcp-memory,
        /// mcp-memory-service or markdown.
        #[arg(long, value_name = "FORMAT")]
        from: Option<String>,
        /// Put everything into this namespace.
        #[arg(long, short)]
        namespace: Option<String>,
        /// Skip bad lines (rows, notes) and import the rest, listing what
        /// was skipped [default: a bad line imports nothing].
        #[arg(long)]
        keep_going: bool,
        /// Print JSON (a stable format).
        #[arg(long)]
        json: bool,
    },
    /// Serve a web page on your memory at 127.0.0.1 (search, a memory's
    /// history, entities and their neighbours, devices, forgetting); prints
    /// its URL, which carries a token. Runs until Ctrl-C.
    Ui {
        /// The port [default: any free one].
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// What an agent starting a session here is told: open tasks, the
    /// latest activity on any device, recent decisions, facts likely out of
    /// date, contradictions (for the project of the current directory).
    Context {
        /// Namespace [default: the current directory's project].
        #[arg(long, short)]
        namespace: Option<String>,
        /// In tokens (characters / 4) [default: working.context_tokens].
        #[arg(long)]
        budget: Option<u32>,
        /// Print JSON (a stable format).
        #[arg(long)]
        json: bool,
    },
    /// What an agent here would be told with PROMPT (the memories that clear
    /// the bar, within the budget), and every candidate with its figures.
    /// Records nothing unless --session names a session.
    Tell {
        /// The prompt.
        prompt: String,
        /// Tell as in this session (what it was told is not told again, and
        /// what is told now is recorded).
        #[arg(long)]
        session: Option<String>,
        /// Namespace [default: the current directory's project and default].
        #[arg(long, short)]
        namespace: Option<String>,
        /// Print JSON (a stable format).
        #[arg(long)]
        json: bool,
    },
    /// What agents' sessions were told with their prompts: each told memory,
    /// the prompt it came with, and why it cleared the bar (every session
    /// this node remembers, a day at most, newest first).
    Told {
        /// One session's [default: every session remembered].
        #[arg(long)]
        session: Option<String>,
        /// Print JSON (a stable format).
        #[arg(long)]
        json: bool,
    },
    /// Run as a Claude Code hook: reads the hook's JSON on stdin. Never
    /// fails the agent's session (exits 0; logs to the home's logs/hook.log).
    Hook {
        /// SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure,
        /// PreCompact, Stop or SessionEnd.
        event: String,
    },
    /// Install ferrex into an agent's settings (the MCP server and the
    /// hooks), and the embedding model if it is missing.
    Setup {
        /// claude-code, gemini or codex; or model (the embedding model and
        /// runtime alone).
        agent: String,
        /// Take ferrex out again.
        #[arg(long)]
        remove: bool,
    },
    /// Tags and entities with how many memories each.
    Topics {
        /// Namespace [default: the current directory's project and default].
        #[arg(long, short, conflicts_with = "all")]
        namespace: Option<String>,
        /// Every namespace.
        #[arg(long)]
        all: bool,
        /// How many of each, at most.
        #[arg(long)]
        limit: Option<u32>,
        /// Print JSON (a stable format) instead of tables.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum HttpAction {
    /// Print the bearer token HTTP clients send (created if there is none).
    Token {
        /// Replace it with a new one first: clients holding the old one are
        /// refused from their next request.
        #[arg(long)]
        rotate: bool,
    },
}

#[derive(Debug, Subcommand)]
enum PeersAction {
    /// Revoke a device on every node: it is refused from then on.
    Remove {
        /// The device's id (or a unique prefix of it, as `ferrex peers` shows) or name.
        id: String,
    },
}

#[derive(Debug, Subcommand)]
enum ShareAction {
    /// Remove a member (a device, and the devices it added) from a shared
    /// project: every member stops serving it.
    Remove {
        /// The member's device id (or a unique prefix of it) or name.
        member: String,
        /// The shared project [default: the one the member is in].
        #[arg(long)]
        project: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum SyncAction {
    /// Per device and document: in sync or not, changes missing either way,
    /// last sync; and this node's index lag.
    Status {
        /// Print JSON (a stable format) instead of tables.
        #[arg(long)]
        json: bool,
    },
}

/// Settings that can be given as flags (they win over the environment and
/// ferrex.toml).
#[derive(Debug, Clone, Default, clap::Args)]
struct NodeFlags {
    /// Device name shown to peers.
    #[arg(long)]
    name: Option<String>,
    /// UDP address to bind, like 127.0.0.1:0.
    #[arg(long, value_name = "ADDR")]
    bind: Option<String>,
    /// Network mode: local or internet.
    #[arg(long)]
    mode: Option<String>,
    /// Also serve MCP over Streamable HTTP at http://ADDR/mcp, like
    /// 127.0.0.1:7878 (sets http.bind).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Model directory.
    #[arg(long, value_name = "DIR")]
    model_dir: Option<PathBuf>,
}

impl NodeFlags {
    fn overrides(&self) -> Vec<(&'static str, String)> {
        let mut flags = Vec::new();
        if let Some(name) = &self.name {
            flags.push(("node.name", name.clone()));
        }
        if let Some(bind) = &self.bind {
            flags.push(("network.bind", bind.clone()));
        }
        if let Some(mode) = &self.mode {
            flags.push(("network.mode", mode.clone()));
        }
        if let Some(http) = &self.http {
            flags.push(("http.bind", http.clone()));
        }
        if let Some(dir) = &self.model_dir {
            flags.push(("embed.model_dir", dir.display().to_string()));
        }
        flags
    }
}

fn main() -> ExitCode {
    quiet::runtime_telemetry_off();
    allocator::tune_allocator();
    let cli = Cli::parse();
    // A hook never fails the agent's session, whatever happens, and writes
    // only to its log (`surfaces::hook::run` logs its own failures; one
    // before its log was open, such as a home it cannot create, has no
    // place to go but stderr).
    let hook = matches!(cli.command, Some(Command::Hook { .. }));
    match run(cli) {
        Err(error) if hook => {
            report(&format!("ferrex hook: {error:#}"));
            ExitCode::SUCCESS
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report(&format!("ferrex: {error:#}"));
            ExitCode::FAILURE
        }
    }
}

fn load_config(home: &Home, flags: &NodeFlags) -> anyhow::Result<Config> {
    Ok(Config::load(&home.config_file(), std::env::vars(), &flags.overrides())?)
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let explicit_home = cli.home.is_some();
    let home = Home::resolve(cli.home)?;
    match cli.command.unwrap_or(Command::Mcp) {
        Command::Mcp => {
            let _guard = logging::init("warn", None, "");
            let runtime = runtime()?;
            let outcome = runtime.block_on(bridge::run(home));
            // The thread blocked reading stdin would keep an orderly
            // shutdown waiting for input that may never come.
            runtime.shutdown_background();
            outcome
        }
        Command::Node(flags) => {
            home.create()?;
            let _guard = logging::init("info", Some(&home.log_dir()), "node.log");
            let config = load_config(&home, &flags)?;
            runtime()?.block_on(daemon::run(home, config))
        }
        Command::Stop => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::node::stop(&home))
        }
        Command::Reindex => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            cli::node::reindex(&home, &config)
        }
        Command::Doctor => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            cli::node::doctor(&home, &config)
        }
        Command::Invite { ttl, name } => {
            let _guard = logging::init("warn", None, "");
            load_config(&home, &NodeFlags { name: name.clone(), ..NodeFlags::default() })?;
            runtime()?.block_on(cli::peers::invite(&home, ttl, &cli::peers::name_args(name)))
        }
        Command::Join { ticket, yes, name } => {
            let _guard = logging::init("warn", None, "");
            load_config(&home, &NodeFlags { name: name.clone(), ..NodeFlags::default() })?;
            let ticket = cli::peers::read_ticket(&ticket)?;
            let start = cli::peers::name_args(name);
            if ferrex_sync::is_share_ticket(&ticket) {
                runtime()?.block_on(cli::sharing::join(&home, &ticket, yes, &start))
            } else {
                runtime()?.block_on(cli::peers::join(&home, &ticket, &start))
            }
        }
        Command::Share { project, role, ttl, yes, action } => {
            let _guard = logging::init("warn", None, "");
            load_config(&home, &NodeFlags::default())?;
            match action {
                None => runtime()?.block_on(cli::sharing::share(
                    &home,
                    project.as_deref(),
                    &role,
                    ttl,
                    yes,
                    &[],
                )),
                Some(ShareAction::Remove { member, project }) => {
                    runtime()?.block_on(cli::sharing::remove(&home, &member, project.as_deref()))
                }
            }
        }
        Command::Peers { json, action } => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            match action {
                None => runtime()?.block_on(cli::peers::peers(&home, &config, json)),
                Some(PeersAction::Remove { id }) => {
                    runtime()?.block_on(cli::peers::remove(&home, &id))
                }
            }
        }
        Command::Sync { action: SyncAction::Status { json } } => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            runtime()?.block_on(cli::peers::sync_status(&home, &config, json))
        }
        Command::Http { action: HttpAction::Token { rotate } } => {
            let _guard = logging::init("warn", None, "");
            home.create()?;
            let token = if rotate { http::rotate_token(&home)? } else { http::token(&home)? };
            output(&token);
            Ok(())
        }
        Command::Recall(args) => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::memory::recall(&home, args))
        }
        Command::List(args) => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::memory::list(&home, args))
        }
        Command::Show { id, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::memory::show(&home, &id, json))
        }
        Command::Forget { ids, yes, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::memory::forget(&home, &ids, yes, json))
        }
        Command::Store(args) => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::memory::store(&home, args))
        }
        Command::Edit { id, content, object, json } => {
            let _guard = logging::init("warn", None, "");
            let edit = cli::memory::Edit { content, object };
            runtime()?.block_on(cli::memory::edit(&home, &id, edit, json))
        }
        Command::Export { format, namespace, out } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::transfer::export(
                &home,
                &format,
                namespace.as_deref(),
                out.as_deref(),
            ))
        }
        Command::Import { path, from, namespace, keep_going, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::transfer::import(
                &home,
                &path,
                from.as_deref(),
                namespace.as_deref(),
                keep_going,
                json,
            ))
        }
        Command::Ui { port } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(ui::run(&home, port))
        }
        Command::Context { namespace, budget, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::working::context(&home, namespace, budget, json))
        }
        Command::Tell { prompt, session, namespace, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::working::tell(&home, prompt, session, namespace, json))
        }
        Command::Told { session, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::working::told(&home, session, json))
        }
        Command::Hook { event } => {
            home.create()?;
            let _guard = logging::init_file_only("info", &home.log_dir(), "hook.log");
            let text = surfaces::hook::run(&home, &event, std::io::stdin().lock());
            if !text.is_empty() {
                output(&text);
            }
            Ok(())
        }
        Command::Setup { agent, remove } => {
            let _guard = logging::init("warn", None, "");
            cli::setup::run(&home, explicit_home, &agent, remove)
        }
        Command::Topics { namespace, all, limit, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(cli::memory::topics(&home, namespace, all, limit, json))
        }
    }
}
