//! The commands with which a person reads and corrects their memory in a
//! terminal: `ferrex recall`, `list`, `show`, `forget`, `store`, `edit` and
//! `topics`. Each asks the home's node (started first if it is not
//! running) through the control socket, so it runs the same pipeline as an
//! agent's tool call, in the same place: the project of the current
//! directory (what `store` writes to; what `recall`, `list` and `topics`
//! read together with `default`), unless `--namespace` names one or `--all`
//! spans every namespace. The result goes to stdout (a table, or
//! `--json`), anything else to stderr.

use std::{
    io::{BufRead, IsTerminal, Write},
    process::Command,
};

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::{
    base::console::{output, report},
    base::home::Home,
    surfaces::{bridge, control},
};
use ferrex_engine::answers::{
    ContentFields, FileRef, ForgetAnswer, Memory, RecallAnswer, StoreAnswer, TopicsAnswer,
    browse::{Browsed, ListAnswer, ShowAnswer},
    graph::UpdateAnswer,
};

/// Runs operation `name` on the node of `home` (starting it if needed), for
/// the project of the current directory, as an agent working there would.
pub async fn call(home: &Home, name: &str, arguments: Value) -> anyhow::Result<Value> {
    let project = crate::base::project::of(std::env::current_dir().ok().as_deref(), home);
    drop(bridge::connect_or_start(home, &[]).await?);
    control::call_in(&home.socket_file(), project.as_ref(), name, arguments).await
}

/// `names` as a person reads them: "a, b and c".
fn namespaces_spanned(names: &[String]) -> String {
    match names {
        [] => "no namespace".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The namespaces a recall searched: every one, else the first.
fn searched(answer: &RecallAnswer) -> &[String] {
    if answer.namespaces.is_empty() {
        std::slice::from_ref(&answer.namespace)
    } else {
        &answer.namespaces
    }
}

/// Arguments built from flags: absent flags are left out.
#[derive(Default)]
pub struct Arguments(Map<String, Value>);

impl Arguments {
    /// Sets `key` if `value` is given.
    pub fn set(mut self, key: &str, value: Option<impl Into<Value>>) -> Self {
        if let Some(value) = value {
            self.0.insert(key.to_owned(), value.into());
        }
        self
    }

    /// Sets `key` to a list if it is not empty.
    pub fn list(mut self, key: &str, values: &[String]) -> Self {
        if !values.is_empty() {
            self.0.insert(key.to_owned(), json!(values));
        }
        self
    }

    /// Sets `key` to true if `flag` is.
    pub fn flag(self, key: &str, flag: bool) -> Self {
        self.set(key, flag.then_some(true))
    }

    /// The JSON object.
    pub fn value(self) -> Value {
        Value::Object(self.0)
    }
}

/// Prints `answer` as JSON (pretty, keys sorted: a stable format).
pub fn print_json(answer: &Value) {
    output(&serde_json::to_string_pretty(answer).unwrap_or_else(|_| answer.to_string()));
}

/// One line of a memory's content: the text, or a fact's three parts.
fn contents_line(content: &ContentFields) -> String {
    let text = match &content.content {
        Some(text) => text.clone(),
        None => format!(
            "{} · {} · {}",
            content.subject.as_deref().unwrap_or(""),
            content.predicate.as_deref().unwrap_or(""),
            content.object.as_deref().unwrap_or("")
        ),
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `width` characters, with `…` if it was longer.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The date of an ISO-8601 time.
fn date(time: &str) -> String {
    time.chars().take(10).collect()
}

/// The widest content column that keeps a table within a terminal.
const CONTENT_WIDTH: usize = 72;

/// Renders rows with a header, columns padded to fit.
fn table(rows: &[Vec<String>]) -> String {
    crate::surfaces::status::table(rows).trim_end().to_owned()
}

/// `ferrex recall`'s table.
pub fn recall_table(answer: &RecallAnswer) -> String {
    let spanned = namespaces_spanned(searched(answer));
    if answer.results.is_empty() {
        return format!("no memories in {spanned} match");
    }
    let with_namespace = answer.namespaces.len() > 1;
    let mut header = vec!["SCORE", "ID", "TYPE", "STALENESS"];
    if with_namespace {
        header.push("NAMESPACE");
    }
    header.push("CONTENT");
    let mut rows = vec![header.into_iter().map(str::to_owned).collect::<Vec<_>>()];
    for recalled in &answer.results {
        let memory = &recalled.memory;
        let mut row = vec![
            format!("{:.3}", recalled.score),
            memory.id.clone(),
            memory.kind.clone(),
            recalled.staleness.clone(),
        ];
        if with_namespace {
            row.push(memory.namespace.clone());
        }
        row.push(cut(&placed_content(memory), CONTENT_WIDTH));
        rows.push(row);
    }
    let mut out = table(&rows);
    out.push_str(&format!("\nsearched {spanned}"));
    if let Some(pending) = &answer.pending {
        out.push_str(&format!("\n({})", pending.note));
    }
    out
}

/// A file chunk's file and headings, as "path > heading".
fn place_of(file: &FileRef) -> String {
    std::iter::once(file.path.as_str())
        .chain(file.heading.as_deref())
        .collect::<Vec<_>>()
        .join(" > ")
}

/// A memory's content in one line; a file chunk's after its place.
fn placed_content(memory: &Memory) -> String {
    match &memory.file {
        Some(file) => format!("[{}] {}", place_of(file), contents_line(&memory.content)),
        None => contents_line(&memory.content),
    }
}

/// `ferrex list`'s table.
pub fn list_table(answer: &ListAnswer) -> String {
    let (total, offset) = (answer.total, answer.offset);
    let spanned = namespaces_spanned(&answer.namespaces);
    if answer.memories.is_empty() {
        return format!("no memories in {spanned} match (of {total}, from {offset})");
    }
    let with_namespace = answer.namespaces.len() > 1;
    let mut header = vec!["ID", "TYPE", "STATUS", "VALID FROM"];
    if with_namespace {
        header.push("NAMESPACE");
    }
    header.push("CONTENT");
    let mut rows = vec![header.into_iter().map(str::to_owned).collect::<Vec<_>>()];
    for browsed in &answer.memories {
        let memory = &browsed.memory;
        let mut row = vec![
            memory.id.clone(),
            memory.kind.clone(),
            memory.standing.status.clone().unwrap_or_else(|| "-".to_owned()),
            memory.t_valid.chars().take(10).collect(),
        ];
        if with_namespace {
            row.push(memory.namespace.clone());
        }
        row.push(cut(&placed_content(memory), CONTENT_WIDTH));
        rows.push(row);
    }
    let shown = answer.memories.len();
    format!("{}\n{}–{} of {total} in {spanned}", table(&rows), offset + 1, offset + shown)
}

/// `ferrex show`'s page.
pub fn show_page(answer: &ShowAnswer) -> String {
    let Browsed { memory, trust, staleness } = &answer.memory;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut line = |label: &str, value: &str| {
        if !value.is_empty() {
            rows.push(vec![label.to_owned(), value.to_owned()]);
        }
    };
    line("id", &memory.id);
    line("type", &memory.kind);
    line("namespace", &memory.namespace);
    let content = &memory.content;
    match &content.content {
        Some(text) => line("content", text),
        None => {
            for (part, value) in [
                ("subject", &content.subject),
                ("predicate", &content.predicate),
                ("object", &content.object),
            ] {
                line(part, value.as_deref().unwrap_or(""));
            }
        }
    }
    let standing = &memory.standing;
    line("status", standing.status.as_deref().unwrap_or(""));
    line("stored", &memory.created_at);
    line("valid from", &memory.t_valid);
    line("invalid from", standing.t_invalid.as_deref().unwrap_or(""));
    line(
        "trust",
        // `{:?}` keeps a whole confidence's `.0`, as the JSON answer writes it.
        &format!(
            "{trust:.2} (confidence {:?}, evidence {}), {staleness}",
            memory.confidence, memory.evidence
        ),
    );
    line("tags", &memory.tags.join(", "));
    let entities: Vec<String> =
        answer.entities.iter().map(|entity| format!("{} ({})", entity.name, entity.id)).collect();
    line("entities", &entities.join(", "));
    line("file", &memory.file.as_ref().map(place_of).unwrap_or_default());
    line("source", memory.source.as_deref().unwrap_or(""));
    line("context", memory.context.as_deref().unwrap_or(""));
    line("superseded by", &standing.superseded_by.join(", "));
    line("corrected by", &standing.corrected_by.join(", "));
    line("contradicts", &standing.contradicts.join(", "));
    let mut out = table(&rows);
    if !answer.edges.is_empty() {
        out.push_str("\n\nedges\n");
        let rows: Vec<Vec<String>> = answer
            .edges
            .iter()
            .map(|edge| {
                vec![format!("  {}", edge.from), format!("—{}→", edge.kind), edge.to.clone()]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    if answer.history.len() > 1 {
        out.push_str("\n\nhistory (oldest first)\n");
        let rows: Vec<Vec<String>> = answer
            .history
            .iter()
            .map(|step| {
                let marker = if step.id == memory.id { "*" } else { " " };
                vec![
                    format!(" {marker} {}", date(&step.t_valid)),
                    step.id.clone(),
                    step.standing.status.clone().unwrap_or_else(|| "-".to_owned()),
                    step.device.name.clone().unwrap_or_else(|| step.device.id.clone()),
                    cut(&contents_line(&step.content), 48),
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    out
}

/// `ferrex topics`' tables.
pub fn topics_tables(answer: &TopicsAnswer) -> String {
    let mut out = format!("in {}\n\n", namespaces_spanned(&answer.namespaces));
    let mut rows = vec![vec!["TAG".to_owned(), "MEMORIES".to_owned()]];
    rows.extend(answer.tags.iter().map(|tag| vec![tag.tag.clone(), tag.count.to_string()]));
    out.push_str(&if answer.tags.is_empty() { "no tags".to_owned() } else { table(&rows) });
    out.push_str("\n\n");
    let mut rows = vec![vec!["ENTITY".to_owned(), "MEMORIES".to_owned(), "ID".to_owned()]];
    rows.extend(
        answer
            .entities
            .iter()
            .map(|entity| vec![entity.name.clone(), entity.count.to_string(), entity.id.clone()]),
    );
    out.push_str(&if answer.entities.is_empty() { "no entities".to_owned() } else { table(&rows) });
    out
}

/// `ferrex forget`: shows what would go, asks unless `yes`, forgets.
pub async fn forget(home: &Home, ids: &[String], yes: bool, json: bool) -> anyhow::Result<()> {
    if ids.is_empty() {
        bail!("give the ids of the memories to forget (see `ferrex list` or `ferrex recall`)");
    }
    if !yes {
        let mut lines = Vec::new();
        for id in ids {
            match ask::<ShowAnswer>(home, "show", json!({"id": id})).await {
                Ok(shown) => lines.push(format!(
                    "  {id}  {}",
                    cut(&contents_line(&shown.memory.memory.content), 60)
                )),
                Err(_) => lines.push(format!("  {id}  (no such memory)")),
            }
        }
        report(&format!("This forgets on every paired device, for good:\n{}", lines.join("\n")));
        if !confirm("Forget them?", "not forgetting")? {
            report("nothing forgotten");
            return Ok(());
        }
    }
    let answer = call(home, "forget", json!({"ids": ids})).await?;
    show_typed(&answer, json, |answer: &ForgetAnswer| {
        let mut text = format!("forgot {} memories", answer.forgotten.len());
        if !answer.unknown.is_empty() {
            text.push_str(&format!("; unknown: {}", answer.unknown.join(", ")));
        }
        text
    })
}

/// Asks `question` at the terminal; true when the answer is yes. Without
/// a terminal, refuses with "`refusal` without a confirmation".
pub fn confirm(question: &str, refusal: &str) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("{refusal} without a confirmation: run it in a terminal, or pass --yes");
    }
    eprint_flush(&format!("{question} [y/N] "));
    let mut reply = String::new();
    std::io::stdin().lock().read_line(&mut reply).context("reading the confirmation")?;
    Ok(matches!(reply.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

#[allow(clippy::print_stderr, reason = "a question for the person at the terminal")]
fn eprint_flush(text: &str) {
    eprint!("{text}");
    let _ = std::io::stderr().flush();
}

/// What `ferrex edit` changes.
pub struct Edit {
    /// The new text (text memories).
    pub content: Option<String>,
    /// The new value (facts).
    pub object: Option<String>,
}

/// `ferrex edit ID`: the agent's `update` of the text or the value: a new
/// version that supersedes the old one (same namespace, type, tags,
/// entities, source and context), history keeping both. Without
/// `--content` or `--object` it opens `$VISUAL` or `$EDITOR` on the text or
/// the value.
pub async fn edit(home: &Home, id: &str, edit: Edit, json: bool) -> anyhow::Result<()> {
    let shown: ShowAnswer = ask(home, "show", json!({"id": id})).await?;
    let content = &shown.memory.memory.content;
    let fact = content.content.is_none();
    let (current, given) = match (fact, edit.content, edit.object) {
        (true, Some(_), _) => bail!("{id} is a fact: give its new value with --object"),
        (false, _, Some(_)) => bail!("{id} is text: give its new text with --content"),
        (true, None, object) => (content.object.as_deref().unwrap_or(""), object),
        (false, text, None) => (content.content.as_deref().unwrap_or(""), text),
    };
    let new = match given {
        Some(new) => new,
        None => edit_in_editor(current)?,
    };
    if new.trim() == current.trim() {
        report("nothing changed");
        return Ok(());
    }
    // The agent's `update`: one code path for both.
    let field = if fact { "object" } else { "content" };
    let answer = call(home, "update", json!({"id": id, field: new.trim()})).await?;
    show_typed(&answer, json, |answer: &UpdateAnswer| {
        format!("stored {} (supersedes {id})", answer.id)
    })
}

/// Opens the person's editor on `text`; the edited text.
fn edit_in_editor(text: &str) -> anyhow::Result<String> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_owned());
    let dir = std::env::temp_dir();
    let path = dir.join(format!("ferrex-edit-{}.txt", std::process::id()));
    {
        let mut file = ferrex_sync::platform::owner_only(
            std::fs::OpenOptions::new().write(true).create_new(true),
            true,
        )
        .open(&path)
        .with_context(|| format!("creating {}", path.display()))?;
        file.write_all(text.as_bytes())?;
    }
    let status = editor_command(&editor, &path)
        .status()
        .with_context(|| format!("running the editor {editor:?}"));
    let edited = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    let status = status?;
    if !status.success() {
        bail!("the editor {editor:?} failed ({status}); nothing changed");
    }
    edited.with_context(|| format!("reading {}", path.display()))
}

/// The command that opens `path` in `editor`, which may carry arguments of
/// its own (`code --wait`): through the shell, as git runs `$EDITOR`.
fn editor_command(editor: &str, path: &std::path::Path) -> Command {
    if cfg!(windows) {
        let mut command = Command::new("cmd");
        command.arg("/C").arg(format!("{editor} \"{}\"", path.display()));
        command
    } else {
        let mut command = Command::new("sh");
        command.arg("-c").arg(format!("{editor} \"$1\"")).arg("sh").arg(path);
        command
    }
}

/// `ferrex recall`'s flags (the `recall` tool's parameters).
#[derive(Debug, clap::Args)]
pub struct RecallArgs {
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
pub struct Filters {
    /// Namespace [default: the current directory's project and default].
    #[arg(long, short, conflicts_with = "all")]
    namespace: Option<String>,
    /// Every namespace.
    #[arg(long)]
    all: bool,
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
pub struct ListArgs {
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
pub struct StoreArgs {
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
    /// Namespace [default: the current directory's project].
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

/// `ferrex recall`.
pub async fn recall(home: &Home, args: RecallArgs) -> anyhow::Result<()> {
    let filters = args.filters;
    let time_range = (filters.since.is_some() || filters.until.is_some()).then(|| {
        Arguments::default().set("start", filters.since).set("end", filters.until).value()
    });
    let arguments = Arguments::default()
        .set("query", Some(args.query))
        .set("namespace", filters.namespace)
        .flag("all", filters.all)
        .list("types", &filters.types)
        .set("limit", args.limit)
        .list("entities", &filters.entities)
        .set("time_range", time_range)
        .flag("include_stale", args.include_stale)
        .flag("include_invalidated", args.include_invalidated)
        .set("diversity", args.diversity)
        .list("validate_ids", &args.validate_ids);
    let answer = call(home, "recall", arguments.value()).await?;
    show_typed(&answer, args.json, recall_table)
}

/// `ferrex list`.
pub async fn list(home: &Home, args: ListArgs) -> anyhow::Result<()> {
    let filters = args.filters;
    let arguments = Arguments::default()
        .set("namespace", filters.namespace)
        .flag("all", filters.all)
        .list("types", &filters.types)
        .set("tag", args.tag)
        .list("entities", &filters.entities)
        .set("since", filters.since)
        .set("until", filters.until)
        .set("status", args.status)
        .set("limit", args.limit)
        .set("offset", args.offset);
    let answer = call(home, "list", arguments.value()).await?;
    show_typed(&answer, args.json, list_table)
}

/// `ferrex show`.
pub async fn show(home: &Home, id: &str, json: bool) -> anyhow::Result<()> {
    let answer = call(home, "show", json!({"id": id})).await?;
    show_typed(&answer, json, show_page)
}

/// `ferrex store`.
pub async fn store(home: &Home, args: StoreArgs) -> anyhow::Result<()> {
    let arguments = Arguments::default()
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
    let answer = call(home, "store", arguments.value()).await?;
    show_typed(&answer, args.json, |answer: &StoreAnswer| match &answer.existing_id {
        Some(existing) => format!(
            "already stored as {existing} (its evidence is now {})",
            answer.evidence.map_or_else(|| "?".to_owned(), |evidence| evidence.to_string())
        ),
        None => format!("stored {}", answer.id),
    })
}

/// `ferrex topics`.
pub async fn topics(
    home: &Home,
    namespace: Option<String>,
    all: bool,
    limit: Option<u32>,
    json: bool,
) -> anyhow::Result<()> {
    let arguments =
        Arguments::default().set("namespace", namespace).flag("all", all).set("limit", limit);
    let answer = call(home, "topics", arguments.value()).await?;
    show_typed(&answer, json, topics_tables)
}

/// Prints a command's answer: JSON as the node wrote it, or read as its
/// type `T` and rendered for people by `render`.
fn show_typed<T: DeserializeOwned>(
    answer: &Value,
    json: bool,
    render: impl Fn(&T) -> String,
) -> anyhow::Result<()> {
    if json {
        print_json(answer);
    } else {
        output(&render(&control::read(answer)?));
    }
    Ok(())
}

/// [`call`], its answer read as its type.
async fn ask<T: DeserializeOwned>(home: &Home, name: &str, arguments: Value) -> anyhow::Result<T> {
    control::read(&call(home, name, arguments).await?)
}
