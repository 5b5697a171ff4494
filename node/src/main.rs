//! The `ferrex` binary: command line, node lifecycle and MCP server.

mod base;
mod cli;
mod derived;
mod engine;
mod formats;
mod lifecycle;
mod surfaces;

use std::{path::PathBuf, process::ExitCode, time::Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use ferrex_core::Embedder;
use ferrex_embed::{EmbedderOptions, FastEmbedder};

use crate::{
    base::{allocator, config, config::Config, home::Home, logging},
    cli::{memory as memory_cli, peers as peers_cli, transfer as transfer_cli},
    lifecycle::{daemon, node, reindex},
    surfaces::{bridge, control, http, ui},
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
        #[arg(long, default_value = "10m", value_parser = peers_cli::parse_duration)]
        ttl: std::time::Duration,
        /// Device name, if this starts the node.
        #[arg(long)]
        name: Option<String>,
    },
    /// Pair with the device that printed TICKET.
    Join {
        /// The ticket `ferrex invite` printed on the other device (`-`: read
        /// it from stdin).
        ticket: String,
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
    Recall(RecallArgs),
    /// List memories by filters, newest first, a page at a time.
    List(ListArgs),
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
    Store(StoreArgs),
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
    /// Tags and entities with how many memories each.
    Topics {
        /// Namespace [default: default].
        #[arg(long, short)]
        namespace: Option<String>,
        /// How many of each, at most.
        #[arg(long)]
        limit: Option<u32>,
        /// Print JSON (a stable format) instead of tables.
        #[arg(long)]
        json: bool,
    },
}

/// `ferrex recall`'s flags (the `recall` tool's parameters).
#[derive(Debug, clap::Args)]
struct RecallArgs {
    /// What to look for, in words.
    query: String,
    #[command(flatten)]
    filters: Filters,
    /// How many results, at most [default: 10].
    #[arg(long, short)]
    limit: Option<u32>,
    /// Also stale memories.
    #[arg(long)]
    include_stale: bool,
    /// Also superseded facts and text.
    #[arg(long)]
    include_invalidated: bool,
    /// 0 to 1: trade relevance for variety.
    #[arg(long)]
    diversity: Option<f64>,
    /// A memory you confirmed is still true (it stays fresh); repeatable.
    #[arg(long = "validate", value_name = "ID")]
    validate_ids: Vec<String>,
    /// Print JSON (a stable format) instead of a table.
    #[arg(long)]
    json: bool,
}

/// The filters `ferrex recall` and `ferrex list` share.
#[derive(Debug, clap::Args)]
struct Filters {
    /// Namespace [default: default].
    #[arg(long, short)]
    namespace: Option<String>,
    /// Only this kind (episodic, semantic, procedural); repeatable.
    #[arg(long = "type", short = 't', value_name = "TYPE")]
    types: Vec<String>,
    /// Only memories about this entity; repeatable.
    #[arg(long = "entity", short = 'e', value_name = "NAME")]
    entities: Vec<String>,
    /// Only memories valid from this time or date on.
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// Only memories valid before this time or date.
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
}

/// `ferrex list`'s flags.
#[derive(Debug, clap::Args)]
struct ListArgs {
    #[command(flatten)]
    filters: Filters,
    /// Only memories with this tag.
    #[arg(long)]
    tag: Option<String>,
    /// Only this status: active, current, contested, superseded, or any
    /// [default: any but superseded].
    #[arg(long)]
    status: Option<String>,
    /// Page size [default: 50].
    #[arg(long, short)]
    limit: Option<u32>,
    /// Memories to skip.
    #[arg(long)]
    offset: Option<u64>,
    /// Print JSON (a stable format) instead of a table.
    #[arg(long)]
    json: bool,
}

/// `ferrex store`'s flags (the `store` tool's parameters).
#[derive(Debug, clap::Args)]
struct StoreArgs {
    /// The text (an event or a how-to); or give a fact's three parts.
    content: Option<String>,
    /// A fact's subject.
    #[arg(long)]
    subject: Option<String>,
    /// A fact's predicate.
    #[arg(long)]
    predicate: Option<String>,
    /// A fact's value.
    #[arg(long)]
    object: Option<String>,
    /// episodic, semantic or procedural [default: detected].
    #[arg(long = "type", short = 't', value_name = "TYPE")]
    memory_type: Option<String>,
    /// Namespace [default: default].
    #[arg(long, short)]
    namespace: Option<String>,
    /// A tag; repeatable.
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// An entity it is about; repeatable.
    #[arg(long = "entity", short = 'e', value_name = "NAME")]
    entities: Vec<String>,
    /// Where it came from.
    #[arg(long)]
    source: Option<String>,
    /// The id of a memory it replaces.
    #[arg(long)]
    supersedes: Option<String>,
    /// When it happened or became true (text only), if not now.
    #[arg(long, value_name = "TIME")]
    valid_from: Option<String>,
    /// Print JSON (a stable format).
    #[arg(long)]
    json: bool,
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
    allocator::tune_allocator();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report(&format!("ferrex: {error:#}"));
            ExitCode::FAILURE
        }
    }
}

fn load_config(home: &Home, flags: &NodeFlags) -> anyhow::Result<Config> {
    Config::load(&home.config_file(), std::env::vars(), &flags.overrides())
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn run(cli: Cli) -> anyhow::Result<()> {
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
            runtime()?.block_on(stop(&home))
        }
        Command::Reindex => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            reindex_command(&home, &config)
        }
        Command::Doctor => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            doctor(&home, &config)
        }
        Command::Invite { ttl, name } => {
            let _guard = logging::init("warn", None, "");
            load_config(&home, &NodeFlags { name: name.clone(), ..NodeFlags::default() })?;
            runtime()?.block_on(peers_cli::invite(&home, ttl, &name_args(name)))
        }
        Command::Join { ticket, name } => {
            let _guard = logging::init("warn", None, "");
            load_config(&home, &NodeFlags { name: name.clone(), ..NodeFlags::default() })?;
            runtime()?.block_on(peers_cli::join(&home, &ticket, &name_args(name)))
        }
        Command::Peers { json, action } => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            match action {
                None => runtime()?.block_on(peers_cli::peers(&home, &config, json)),
                Some(PeersAction::Remove { id }) => {
                    runtime()?.block_on(peers_cli::remove(&home, &id))
                }
            }
        }
        Command::Sync { action: SyncAction::Status { json } } => {
            let _guard = logging::init("warn", None, "");
            let config = load_config(&home, &NodeFlags::default())?;
            runtime()?.block_on(peers_cli::sync_status(&home, &config, json))
        }
        Command::Http { action: HttpAction::Token { rotate } } => {
            let _guard = logging::init("warn", None, "");
            home.create()?;
            let token = if rotate { http::rotate_token(&home)? } else { http::token(&home)? };
            #[allow(clippy::print_stdout, reason = "the token is this command's output")]
            {
                println!("{token}");
            }
            Ok(())
        }
        Command::Recall(args) => {
            let _guard = logging::init("warn", None, "");
            let filters = args.filters;
            let time_range = (filters.since.is_some() || filters.until.is_some()).then(|| {
                memory_cli::Arguments::default()
                    .set("start", filters.since)
                    .set("end", filters.until)
                    .value()
            });
            let arguments = memory_cli::Arguments::default()
                .set("query", Some(args.query))
                .set("namespace", filters.namespace)
                .list("types", &filters.types)
                .set("limit", args.limit)
                .list("entities", &filters.entities)
                .set("time_range", time_range)
                .flag("include_stale", args.include_stale)
                .flag("include_invalidated", args.include_invalidated)
                .set("diversity", args.diversity)
                .list("validate_ids", &args.validate_ids);
            let answer =
                runtime()?.block_on(memory_cli::call(&home, "recall", arguments.value()))?;
            show_answer(&answer, args.json, memory_cli::recall_table);
            Ok(())
        }
        Command::List(args) => {
            let _guard = logging::init("warn", None, "");
            let filters = args.filters;
            let arguments = memory_cli::Arguments::default()
                .set("namespace", filters.namespace)
                .list("types", &filters.types)
                .set("tag", args.tag)
                .list("entities", &filters.entities)
                .set("since", filters.since)
                .set("until", filters.until)
                .set("status", args.status)
                .set("limit", args.limit)
                .set("offset", args.offset);
            let answer = runtime()?.block_on(memory_cli::call(&home, "list", arguments.value()))?;
            show_answer(&answer, args.json, memory_cli::list_table);
            Ok(())
        }
        Command::Show { id, json } => {
            let _guard = logging::init("warn", None, "");
            let answer = runtime()?.block_on(memory_cli::call(
                &home,
                "show",
                serde_json::json!({"id": id}),
            ))?;
            show_answer(&answer, json, memory_cli::show_page);
            Ok(())
        }
        Command::Forget { ids, yes, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(memory_cli::forget(&home, &ids, yes, json))
        }
        Command::Store(args) => {
            let _guard = logging::init("warn", None, "");
            let arguments = memory_cli::Arguments::default()
                .set("content", args.content)
                .set("subject", args.subject)
                .set("predicate", args.predicate)
                .set("object", args.object)
                .set("memory_type", args.memory_type)
                .set("namespace", args.namespace)
                .list("tags", &args.tags)
                .list("entities", &args.entities)
                .set("source", args.source)
                .set("supersedes", args.supersedes)
                .set("valid_from", args.valid_from);
            let answer =
                runtime()?.block_on(memory_cli::call(&home, "store", arguments.value()))?;
            show_answer(&answer, args.json, |answer| match answer["status"].as_str() {
                Some("duplicate") => format!(
                    "already stored as {} (its evidence is now {})",
                    answer["existing_id"].as_str().unwrap_or("?"),
                    answer["evidence"]
                ),
                _ => format!("stored {}", answer["id"].as_str().unwrap_or("?")),
            });
            Ok(())
        }
        Command::Edit { id, content, object, json } => {
            let _guard = logging::init("warn", None, "");
            let edit = memory_cli::Edit { content, object };
            runtime()?.block_on(memory_cli::edit(&home, &id, edit, json))
        }
        Command::Export { format, namespace, out } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(transfer_cli::export(
                &home,
                &format,
                namespace.as_deref(),
                out.as_deref(),
            ))
        }
        Command::Import { path, from, namespace, keep_going, json } => {
            let _guard = logging::init("warn", None, "");
            runtime()?.block_on(transfer_cli::import(
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
        Command::Topics { namespace, limit, json } => {
            let _guard = logging::init("warn", None, "");
            let arguments =
                memory_cli::Arguments::default().set("namespace", namespace).set("limit", limit);
            let answer =
                runtime()?.block_on(memory_cli::call(&home, "topics", arguments.value()))?;
            show_answer(&answer, json, memory_cli::topics_tables);
            Ok(())
        }
    }
}

/// Prints a command's answer: JSON, or as `render` writes it for people.
fn show_answer(
    answer: &serde_json::Value,
    json: bool,
    render: impl Fn(&serde_json::Value) -> String,
) {
    if json {
        memory_cli::print_json(answer);
    } else {
        peers_cli::output(&render(answer));
    }
}

/// The flags a command passes to a node it starts.
fn name_args(name: Option<String>) -> Vec<String> {
    name.map(|name| vec!["--name".to_owned(), name]).unwrap_or_default()
}

async fn stop(home: &Home) -> anyhow::Result<()> {
    let socket = home.socket_file();
    match control::send(&socket, &control::Request::Stop, |_| {}).await {
        Ok(_) => {}
        Err(error)
            if error.downcast_ref::<std::io::Error>().is_some_and(control::is_not_running) =>
        {
            report(&format!("no node is running for {}", home.root().display()));
            return Ok(());
        }
        Err(error) => return Err(error),
    }
    // Wait for it to let go of the home.
    let started = Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(30) {
        if daemon::lock_home(home).is_ok() {
            report("stopped");
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    anyhow::bail!("the node was asked to stop but still holds {} after 30 s", home.root().display())
}

fn reindex_command(home: &Home, config: &Config) -> anyhow::Result<()> {
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix:>9} [{bar:40}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let show = |phase: &str, done: u64, total: u64| {
        if bar.prefix() != phase {
            bar.set_prefix(phase.to_owned());
            bar.reset();
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    let started = Instant::now();
    let socket = home.socket_file();
    let runtime = runtime()?;
    let running = runtime.block_on(async {
        control::send(&socket, &control::Request::Reindex, |event| {
            show(
                event["phase"].as_str().unwrap_or(""),
                event["done"].as_u64().unwrap_or(0),
                event["total"].as_u64().unwrap_or(0),
            )
        })
        .await
    });
    let (memories, embedded) = match running {
        Ok(answer) => {
            (answer["memories"].as_u64().unwrap_or(0), answer["embedded"].as_u64().unwrap_or(0))
        }
        Err(error)
            if error.downcast_ref::<std::io::Error>().is_some_and(control::is_not_running) =>
        {
            let _lock = daemon::lock_home(home)?;
            let summary = reindex::rebuild_offline(home, config, |progress| {
                show(progress.phase, progress.done as u64, progress.total as u64)
            })?;
            (summary.memories as u64, summary.embedded as u64)
        }
        Err(error) => return Err(error),
    };
    bar.finish_and_clear();
    report(&format!(
        "reindexed {memories} memories ({embedded} embedded) in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

fn doctor(home: &Home, config: &Config) -> anyhow::Result<()> {
    let files = node::model_search(home, config).locate(config.tier)?;
    let started = Instant::now();
    files.verify()?;
    let verified = started.elapsed();
    let options =
        EmbedderOptions { tier: config.tier, intra_threads: config.threads, ..Default::default() };
    let mut embedder = FastEmbedder::from_verified_files(&files, &options)
        .context("loading the embedding model")?;
    let vector = embedder.embed_one("ferrex doctor")?;
    let depth = config.memory.ranking.rerank_depth;
    let reranker = if depth == 0 {
        "off (memory.rerank_depth = 0)".to_owned()
    } else {
        ferrex_embed::Reranker::load(&node::model_search(home, config), config.threads)
            .context("memory.rerank_depth is set: loading the reranker")?;
        format!("ms-marco-MiniLM-L-12-v2, reorders the best {depth}, files verified")
    };
    report(&format!(
        "home      {}\nconfig    {}\nruntime   {}\nmodel     {} ({}, {} dimensions; embed.model)\nfiles     {}\nverified  sha256 in {} ms\nembedding ok ({} floats)\nreranker  {reranker}\nnetwork   mode {}, bind {}",
        home.root().display(),
        if home.config_file().exists() {
            home.config_file().display().to_string()
        } else {
            "defaults (no ferrex.toml)".to_owned()
        },
        files.runtime.display(),
        config.tier,
        config.tier.model_name(),
        embedder.dimension(),
        files.tier_dir.display(),
        verified.as_millis(),
        vector.len(),
        config::mode_name(config.mode),
        config.bind,
    ));
    Ok(())
}

/// Writes a line for a person to stderr: stdout is reserved for MCP.
#[allow(clippy::print_stderr, reason = "the binary's user-facing output goes to stderr")]
fn report(text: &str) {
    eprintln!("{text}");
}
