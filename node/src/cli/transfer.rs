//! `ferrex export` and `ferrex import`: a person's memory out of ferrex and
//! into it, through the running node (started if needed).

use std::{
    collections::{BTreeMap, HashSet},
    io::Write,
    path::{Path, PathBuf},
};

use anyhow::{Context, bail};
use ferrex_core::Namespace;
use ferrex_sync::{Restored, platform};
use serde_json::{Value, json};

use crate::{
    base::console::{output, report},
    base::home::Home,
    cli::memory::print_json,
    surfaces::bridge,
    surfaces::control::{self, Request},
    surfaces::replies::{ExportEvent, RestoreDone},
};
use ferrex_engine::{
    answers::browse::{Ingested, ListAnswer},
    formats::Reading,
    formats::foreign::{self, ForeignMemory, Format},
    formats::jsonl::{self, Line},
    formats::markdown,
};

/// Memories per restore request: one document change each.
const BATCH: usize = 500;

fn progress(total: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{what:>9} [{{bar:40}}] {{pos}}/{{len}} {{elapsed}}"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// `ferrex export --format jsonl|markdown [--namespace NS] [--out PATH]`.
pub async fn export(
    home: &Home,
    format: &str,
    namespace: Option<&str>,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    match (format, out) {
        ("jsonl", _) => {}
        ("markdown", Some(out)) => return export_markdown(home, namespace, out).await,
        ("markdown", None) => bail!("--format markdown writes a folder: give it with --out DIR"),
        (other, _) => bail!("--format {other:?}: ferrex exports jsonl or markdown"),
    }
    drop(bridge::connect_or_start(home, &[]).await?);
    let request = Request::Export { namespace: namespace.map(str::to_owned) };
    let mut text = String::new();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut memories = 0;
    let mut stdout = std::io::stdout().lock();
    let mut failed: Option<std::io::Error> = None;
    let mut unwritten: Option<serde_json::Error> = None;
    control::send_events(&home.socket_file(), &request, |event| match event {
        ExportEvent::Start { records } => bar = Some(progress(records, "exporting")),
        ExportEvent::Line { line } => {
            if matches!(line, Line::Memory(_)) {
                memories += 1;
            }
            let line = match serde_json::to_string(&line) {
                Ok(line) => line,
                Err(error) => {
                    unwritten.get_or_insert(error);
                    return;
                }
            };
            match out {
                Some(_) => {
                    text.push_str(&line);
                    text.push('\n');
                }
                None if failed.is_none() => {
                    if let Err(error) = writeln!(stdout, "{line}") {
                        failed = Some(error);
                    }
                }
                None => {}
            }
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
    })
    .await?;
    if let Some(error) = unwritten {
        return Err(error).context("writing an export record as JSON");
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(error) = failed {
        return Err(error).context("writing the export to stdout");
    }
    if let Some(path) = out {
        write_whole(path, text.as_bytes())?;
        report(&format!("exported {memories} memories to {}", path.display()));
    }
    Ok(())
}

/// The file that marks a folder as a Markdown export ferrex may replace.
const MARKER: &str = ".ferrex-markdown";

/// `ferrex export --format markdown --out DIR`: the pages of
/// [`ferrex_engine::formats::markdown`], written into a new folder that then takes DIR's
/// place (an existing DIR must be empty or an earlier Markdown export).
async fn export_markdown(home: &Home, namespace: Option<&str>, out: &Path) -> anyhow::Result<()> {
    if out.exists() {
        let empty =
            std::fs::read_dir(out).map(|mut entries| entries.next().is_none()).unwrap_or(false);
        if !empty && !out.join(MARKER).exists() {
            bail!(
                "{} exists and is not an earlier Markdown export of ferrex: give an empty or new folder",
                out.display()
            );
        }
    }
    drop(bridge::connect_or_start(home, &[]).await?);
    let request = Request::Export { namespace: namespace.map(str::to_owned) };
    let mut by_namespace: BTreeMap<String, markdown::NamespaceExport> = BTreeMap::new();
    // The namespace's part of the pages, begun when first met.
    fn part<'a>(
        parts: &'a mut BTreeMap<String, markdown::NamespaceExport>,
        name: &str,
    ) -> &'a mut markdown::NamespaceExport {
        parts.entry(name.to_owned()).or_insert_with(|| markdown::NamespaceExport {
            name: name.to_owned(),
            ..Default::default()
        })
    }
    control::send_events(&home.socket_file(), &request, |event| match event {
        ExportEvent::Line { line: Line::Entity(entity) } => {
            part(&mut by_namespace, &entity.namespace).entities.push(*entity)
        }
        ExportEvent::Line { line: Line::Alias(alias) } => {
            part(&mut by_namespace, &alias.namespace).aliases.push(*alias)
        }
        ExportEvent::Line { line: Line::Memory(memory) } => {
            part(&mut by_namespace, &memory.namespace).memories.push(*memory)
        }
        ExportEvent::Start { .. } | ExportEvent::Line { .. } => {}
    })
    .await?;
    // Each memory's derived standing (current, superseded), a page at a time.
    for (name, entry) in &mut by_namespace {
        let mut offset = 0;
        loop {
            let arguments = json!({
                "namespace": name, "status": "any", "limit": crate::surfaces::views::MAX_PAGE, "offset": offset
            });
            let page: ListAnswer =
                control::read(&control::call(&home.socket_file(), "list", arguments).await?)?;
            let count = page.memories.len();
            for browsed in page.memories {
                entry.standing.insert(browsed.memory.id, browsed.memory.standing);
            }
            offset += count;
            if count == 0 || offset >= page.total {
                break;
            }
        }
    }
    let namespaces: Vec<markdown::NamespaceExport> = by_namespace.into_values().collect();
    let pages = markdown::pages(&namespaces);
    let parent = out.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = out.file_name().context("--out names no folder")?.to_string_lossy().into_owned();
    let staging = parent.join(format!(".{name}.partial"));
    let _ = std::fs::remove_dir_all(&staging);
    let bar = progress(pages.len() as u64, "writing");
    for (path, text) in &pages {
        let file = staging.join(path);
        if let Some(dir) = file.parent() {
            private_dir(dir)?;
        }
        private_file(&file, text.as_bytes())?;
        bar.inc(1);
    }
    std::fs::write(
        staging.join(MARKER),
        "a Markdown export of ferrex; `ferrex export --format markdown` replaces this folder\n",
    )?;
    bar.finish_and_clear();
    let retired = parent.join(format!(".{name}.old"));
    if out.exists() {
        let _ = std::fs::remove_dir_all(&retired);
        std::fs::rename(out, &retired)
            .with_context(|| format!("moving {} aside", out.display()))?;
    }
    std::fs::rename(&staging, out).with_context(|| format!("writing {}", out.display()))?;
    let _ = std::fs::remove_dir_all(&retired);
    let memories: usize = namespaces.iter().map(|namespace| namespace.memories.len()).sum();
    report(&format!("exported {memories} memories as {} pages to {}", pages.len(), out.display()));
    Ok(())
}

/// Writes `bytes` to a new file at `path` that only its owner may read (an
/// export is the whole memory in plain text).
fn private_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let _ = std::fs::remove_file(path);
    let mut file =
        platform::owner_only(std::fs::OpenOptions::new().write(true).create_new(true), true)
            .open(path)
            .with_context(|| format!("writing {}", path.display()))?;
    file.write_all(bytes).with_context(|| format!("writing {}", path.display()))
}

/// Creates `dir` (and its parents) so that only its owner may enter it.
fn private_dir(dir: &Path) -> anyhow::Result<()> {
    platform::create_private_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

/// Writes `bytes` to `path` whole or not at all (a temporary file beside
/// it, renamed over it).
fn write_whole(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().context("--out names no file")?;
    let temporary: PathBuf = dir.join(format!(".{}.partial", name.to_string_lossy()));
    private_file(&temporary, bytes)?;
    std::fs::rename(&temporary, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// `ferrex import PATH [--from FORMAT] [--namespace NS]`.
pub async fn import(
    home: &Home,
    path: &Path,
    from: Option<&str>,
    namespace: Option<&str>,
    keep_going: bool,
    json: bool,
) -> anyhow::Result<()> {
    let mut reading = Reading { keep_going, ..Reading::default() };
    let into = namespace.map(Namespace::parse).transpose()?;
    let stdin = path == Path::new("-");
    let text = if stdin {
        Some(std::io::read_to_string(std::io::stdin()).context("reading stdin")?)
    } else {
        None
    };
    let format = match (from, &text) {
        (Some(format), _) => Format::parse(format)?,
        (None, Some(text)) => guess(text),
        (None, None) => Format::guess(path)?,
    };
    let read_text = || -> anyhow::Result<String> {
        match &text {
            Some(text) => Ok(text.clone()),
            None => {
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
            }
        }
    };
    // A bad source is named with what became of it; a file that could not
    // be read keeps its cause.
    let nothing = |error: foreign::ForeignError| match error {
        why @ (foreign::ForeignError::Bad(_)
        | foreign::ForeignError::NotMcpMemoryService { .. }) => {
            anyhow::anyhow!("{}: {why}; nothing was imported", path.display())
        }
        other => anyhow::Error::from(other),
    };
    let items = match format {
        Format::Ferrex => {
            return restore(home, &read_text()?, path, into.as_ref(), reading, json).await;
        }
        Format::McpMemory => foreign::mcp_memory(&read_text()?, &mut reading).map_err(nothing)?,
        Format::McpMemoryService if !stdin => {
            foreign::mcp_memory_service(path, &mut reading).map_err(nothing)?
        }
        Format::Markdown if !stdin => foreign::markdown(path, &mut reading).map_err(nothing)?,
        _ => bail!("a database or a folder of notes is read from its path, not from stdin"),
    };
    ingest(home, items, into.as_ref(), &reading.skipped, json).await
}

/// What `--keep-going` skipped, as report lines.
fn skipped_lines(skipped: &[String]) -> String {
    let mut text = String::new();
    if !skipped.is_empty() {
        text.push_str(&format!("\n{} skipped (--keep-going):", skipped.len()));
        for why in skipped.iter().take(20) {
            text.push_str(&format!("\n  {why}"));
        }
        if skipped.len() > 20 {
            text.push_str(&format!(
                "\n  … and {} more (--json lists them all)",
                skipped.len() - 20
            ));
        }
    }
    text
}

/// An item the node refused to import: where it came from, and why.
#[derive(serde::Serialize)]
struct Refusal {
    origin: String,
    reason: String,
}

/// Stores `items` through the node's store pipeline, 50 at a time.
async fn ingest(
    home: &Home,
    items: Vec<ForeignMemory>,
    into: Option<&Namespace>,
    skipped: &[String],
    json: bool,
) -> anyhow::Result<()> {
    drop(bridge::connect_or_start(home, &[]).await?);
    let bar = progress(items.len() as u64, "importing");
    let (mut stored, mut duplicates) = (0, 0);
    let mut refused: Vec<Refusal> = Vec::new();
    for batch in items.chunks(50) {
        let arguments: Vec<Value> = batch
            .iter()
            .map(|item| {
                let mut arguments = item.arguments.clone();
                if let Some(namespace) = into {
                    arguments.insert("namespace".to_owned(), json!(namespace.as_str()));
                }
                Value::Object(arguments)
            })
            .collect();
        let answer =
            control::call(&home.socket_file(), "ingest", json!({"items": arguments})).await?;
        let outcomes: Vec<Ingested> = control::read(&answer)?;
        for (item, outcome) in batch.iter().zip(outcomes) {
            match outcome.status.as_str() {
                "stored" => stored += 1,
                "duplicate" => duplicates += 1,
                _ => refused.push(Refusal {
                    origin: item.origin.clone(),
                    reason: outcome.reason.unwrap_or_default(),
                }),
            }
        }
        bar.inc(batch.len() as u64);
    }
    bar.finish_and_clear();
    if json {
        print_json(&json!({
            "stored": stored,
            "duplicates": duplicates,
            "refused": refused,
            "skipped": skipped,
        }));
    } else {
        let mut text = format!(
            "imported {stored} memories; {duplicates} duplicated one already here (left as it was); {} refused",
            refused.len()
        );
        for refusal in refused.iter().take(20) {
            text.push_str(&format!("\n  {}: {}", refusal.origin, refusal.reason));
        }
        if refused.len() > 20 {
            text.push_str(&format!(
                "\n  … and {} more (--json lists them all)",
                refused.len() - 20
            ));
        }
        output(&text);
    }
    Ok(())
}

/// Whether the node's answer to an `entity` call says it holds the
/// entity: refused as invalid means it does not; any other failure (the
/// node unreachable or failing) is no answer, and is the error, as text.
fn entity_held(answer: anyhow::Result<Value>) -> Result<bool, String> {
    let error = match answer {
        Ok(_) => return Ok(true),
        Err(error) => error,
    };
    match error.downcast_ref::<control::NodeRefused>() {
        Some(refused) if refused.invalid => Ok(false),
        // A node older than this command marks no refusal.
        Some(_) => Err(format!(
            "{error:#} (if the running node is older than this command, stop it with `ferrex \
             stop` and import again)"
        )),
        None => Err(format!("{error:#}")),
    }
}

/// Restores ferrex's own export (`text`, read from `path`).
async fn restore(
    home: &Home,
    text: &str,
    path: &Path,
    into: Option<&Namespace>,
    mut reading: Reading,
    json: bool,
) -> anyhow::Result<()> {
    // Every line is checked before anything is imported.
    let nothing = |error: &dyn std::fmt::Display| {
        anyhow::anyhow!("{}: {error}; nothing was imported", path.display())
    };
    let mut records = jsonl::parse(text, into, &mut reading).map_err(|bad| nothing(&bad))?;
    drop(bridge::connect_or_start(home, &[]).await?);
    // And every entity a memory uses is in the file or in this home, for
    // the whole file, before the first request writes anything.
    for lines in records.values_mut() {
        let in_file: HashSet<String> = lines
            .iter()
            .filter_map(|(_, line)| match line {
                Line::Entity(entity) => Some(entity.id.clone()),
                _ => None,
            })
            .collect();
        let mut here: BTreeMap<String, bool> = BTreeMap::new();
        for (_, line) in lines.iter() {
            let Line::Memory(memory) = line else { continue };
            for entity in memory.entities.iter().chain(memory.subject_entity.iter()) {
                if !in_file.contains(entity) && !here.contains_key(entity) {
                    let arguments = json!({"id": entity, "limit": 1});
                    let answer = control::call(&home.socket_file(), "entity", arguments).await;
                    let known = entity_held(answer).map_err(|error| {
                        nothing(&format!("could not ask the node about entity {entity}: {error}"))
                    })?;
                    here.insert(entity.clone(), known);
                }
            }
        }
        let mut kept = Vec::with_capacity(lines.len());
        for (number, line) in std::mem::take(lines) {
            if let Line::Memory(memory) = &line {
                let missing =
                    memory.entities.iter().chain(memory.subject_entity.iter()).find(|entity| {
                        !in_file.contains(*entity) && here.get(*entity) != Some(&true)
                    });
                if let Some(entity) = missing {
                    reading
                        .bad(jsonl::BadLine::at(
                            number,
                            format!(
                                "memory {} uses entity {entity}, which neither the file nor this home holds",
                                memory.id
                            ),
                        ))
                        .map_err(|bad| nothing(&bad))?;
                    continue;
                }
            }
            kept.push((number, line));
        }
        *lines = kept;
    }
    let total: usize =
        records.values().flatten().filter(|(_, line)| matches!(line, Line::Memory(_))).count();
    let bar = progress(total as u64, "importing");
    let mut imported = Restored::default();
    for (namespace, lines) in records {
        for batch in batches(lines) {
            let memories =
                batch.iter().filter(|(_, line)| matches!(line, Line::Memory(_))).count() as u64;
            let request =
                Request::Restore { namespace: namespace.as_str().to_owned(), lines: batch };
            let done: RestoreDone = control::ask(&home.socket_file(), &request).await?;
            imported.add(&done.restored);
            bar.inc(memories);
        }
    }
    bar.finish_and_clear();
    let mut answer: Value = json!(imported);
    answer["skipped"] = json!(reading.skipped);
    if json {
        print_json(&answer);
    } else {
        let mut text = format!(
            "imported {} memories, {} entities, {} aliases, {} edges",
            imported.memories, imported.entities, imported.aliases, imported.edges
        );
        if imported.existing > 0 {
            text.push_str(&format!("; {} records were here already", imported.existing));
        }
        if imported.forgotten > 0 {
            text.push_str(&format!(
                "; {} memories forgotten here were not brought back",
                imported.forgotten
            ));
        }
        text.push_str(&skipped_lines(&reading.skipped));
        output(&text);
    }
    Ok(())
}

/// The format of JSON Lines read from stdin, from its first line (ferrex's
/// own unless it is the MCP memory server's).
fn guess(text: &str) -> Format {
    let first = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
    let value: Value = serde_json::from_str(first).unwrap_or(Value::Null);
    match value["type"].as_str() {
        Some("entity" | "relation") => Format::McpMemory,
        _ => Format::Ferrex,
    }
}

/// A namespace's records in requests of up to `BATCH` memories, each with
/// the entities its memories use that no earlier request carried, and their
/// aliases (an entity no live memory uses is not readable, so it travels
/// with its first user); edges, and anything left, in the last.
fn batches(lines: Vec<(usize, Line)>) -> Vec<Vec<(usize, Line)>> {
    let mut entities: BTreeMap<String, (usize, Line)> = BTreeMap::new();
    let mut aliases: BTreeMap<String, Vec<(usize, Line)>> = BTreeMap::new();
    let mut memories = Vec::new();
    let mut rest = Vec::new();
    for (number, line) in lines {
        match &line {
            Line::Entity(entity) => {
                entities.insert(entity.id.clone(), (number, line));
            }
            Line::Alias(alias) => {
                aliases.entry(alias.entity.clone()).or_default().push((number, line))
            }
            Line::Memory(_) => memories.push((number, line)),
            Line::Edge(_) => rest.push((number, line)),
            Line::Header { .. } | Line::Device { .. } => {}
        }
    }
    let mut batches = Vec::new();
    for chunk in memories.chunks(BATCH) {
        let mut batch = Vec::new();
        for (_, line) in chunk {
            let Line::Memory(memory) = line else { continue };
            for entity in memory.entities.iter().chain(memory.subject_entity.iter()) {
                if let Some(record) = entities.remove(entity) {
                    batch.push(record);
                    batch.extend(aliases.remove(entity).unwrap_or_default());
                }
            }
        }
        batch.extend(chunk.iter().cloned());
        batches.push(batch);
    }
    rest.extend(entities.into_values());
    rest.extend(aliases.into_values().flatten());
    batches.push(rest);
    batches.retain(|batch| !batch.is_empty());
    batches
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::entity_held;
    use crate::surfaces::control::NodeRefused;

    #[test]
    fn only_a_refusal_of_the_request_means_the_entity_is_not_held() {
        assert!(entity_held(Ok(json!({"id": "e1"}))).expect("an answer"));
        let refused = |invalid| {
            Err(NodeRefused { message: "invalid id: \"e1\" names no entity".into(), invalid }
                .into())
        };
        assert!(!entity_held(refused(true)).expect("an answer"));
        // The node failing, or not reached, answers nothing about the entity.
        assert!(entity_held(refused(false)).is_err());
        let unreachable = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(entity_held(Err(unreachable.into())).is_err());
    }
}
