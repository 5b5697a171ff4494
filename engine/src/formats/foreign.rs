//! Memories from elsewhere: the official MCP memory server's knowledge graph
//! (JSON Lines of entities with observations, and relations),
//! mcp-memory-service's SQLite database (content, tags, type, metadata,
//! times), and a folder of Markdown notes (optional YAML front matter). Each
//! becomes the `store` tool's parameters with where it came from; the store
//! pipeline judges them like any memory (duplicates, entities, predicates).
//! Reading checks the whole source first: an error names the line, row or
//! file and why, and nothing is imported then.

use std::path::{Path, PathBuf};

use ferrex_core::{Timestamp, validate::MAX_CONTENT_BYTES};
use serde_json::{Map, Value, json};

use super::Reading;
use crate::base::clock;

/// Why a source was not read; nothing of it is imported then.
#[derive(Debug, thiserror::Error)]
pub enum ForeignError {
    /// `--from` names no format ferrex reads.
    #[error("--from {0:?}: ferrex imports ferrex, mcp-memory, mcp-memory-service or markdown")]
    UnknownFormat(String),
    /// What the file holds could not be told.
    #[error(
        "cannot tell what {} holds: give --from ferrex, mcp-memory, mcp-memory-service or markdown",
        .0.display()
    )]
    Unrecognised(PathBuf),
    /// A line, row or file is bad (the reading stops at the first unless it
    /// keeps going): where, and why.
    #[error("{0}")]
    Bad(String),
    /// A database without the table and columns of mcp-memory-service.
    #[error(
        "{} has no memories table with a {column} column: not an mcp-memory-service database",
        path.display()
    )]
    NotMcpMemoryService {
        /// The database.
        path: PathBuf,
        /// The column it lacks.
        column: &'static str,
    },
    /// A file or folder could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The database could not be read.
    #[error("reading {}", path.display())]
    Database {
        /// The database.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
}

impl ForeignError {
    fn read(path: &Path) -> impl FnOnce(std::io::Error) -> ForeignError + '_ {
        move |source| ForeignError::Read { path: path.to_owned(), source }
    }

    fn database(path: &Path) -> impl Fn(rusqlite::Error) -> ForeignError + '_ {
        move |source| ForeignError::Database { path: path.to_owned(), source }
    }
}

/// The formats `ferrex import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// ferrex's own export.
    Ferrex,
    /// `@modelcontextprotocol/server-memory`'s `memory.jsonl`.
    McpMemory,
    /// mcp-memory-service's SQLite database.
    McpMemoryService,
    /// A folder (or a file) of Markdown notes.
    Markdown,
}

impl Format {
    /// The format `--from` names.
    pub fn parse(name: &str) -> Result<Format, ForeignError> {
        Ok(match name {
            "ferrex" => Format::Ferrex,
            "mcp-memory" => Format::McpMemory,
            "mcp-memory-service" => Format::McpMemoryService,
            "markdown" => Format::Markdown,
            other => return Err(ForeignError::UnknownFormat(other.to_owned())),
        })
    }

    /// The format of `path`, from what it holds.
    pub fn guess(path: &Path) -> Result<Format, ForeignError> {
        if path.is_dir() {
            return Ok(Format::Markdown);
        }
        let bytes = std::fs::read(path).map_err(ForeignError::read(path))?;
        if bytes.starts_with(b"SQLite format 3\0") {
            return Ok(Format::McpMemoryService);
        }
        if path.extension().is_some_and(|ext| ext == "md" || ext == "markdown") {
            return Ok(Format::Markdown);
        }
        let text = String::from_utf8_lossy(&bytes);
        let first = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
        let value: Value = serde_json::from_str(first).unwrap_or(Value::Null);
        match value["type"].as_str() {
            Some(crate::formats::jsonl::HEADER_TYPE) => Ok(Format::Ferrex),
            Some("entity" | "relation") => Ok(Format::McpMemory),
            _ => Err(ForeignError::Unrecognised(path.to_owned())),
        }
    }
}

/// One memory to store, and where it came from (for the report).
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignMemory {
    /// `line 3`, `row 17`, `notes/setup.md`.
    pub origin: String,
    /// The `store` tool's parameters.
    pub arguments: Map<String, Value>,
}

fn item(origin: String, arguments: Value) -> ForeignMemory {
    let Value::Object(arguments) = arguments else { unreachable!("items are built as objects") };
    ForeignMemory { origin, arguments }
}

/// A string field of `value`, or an error naming it.
fn text<'a>(value: &'a Value, field: &str) -> Result<&'a str, String> {
    match value[field].as_str() {
        Some(text) if !text.trim().is_empty() => Ok(text),
        Some(_) => Err(format!("{field} is empty")),
        None => Err(format!("{field} is missing or not a string")),
    }
}

/// The official MCP memory server's knowledge graph: an entity's type
/// becomes the fact `name / is a / type`, each observation a text about the
/// entity, each relation the fact `from / relationType / to`.
pub fn mcp_memory(source: &str, reading: &mut Reading) -> Result<Vec<ForeignMemory>, ForeignError> {
    let mut items = Vec::new();
    for (index, raw) in source.lines().enumerate() {
        let number = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match graph_line(number, raw) {
            Ok(found) => items.extend(found),
            Err(why) => reading.bad(format!("line {number}: {why}")).map_err(ForeignError::Bad)?,
        }
    }
    Ok(items)
}

/// The items of one line of the MCP memory server's graph.
fn graph_line(number: usize, raw: &str) -> Result<Vec<ForeignMemory>, String> {
    let mut items = Vec::new();
    let value: Value = serde_json::from_str(raw).map_err(|error| error.to_string())?;
    match value["type"].as_str() {
        Some("entity") => {
            let name = text(&value, "name")?;
            let kind = value["entityType"].as_str().unwrap_or("").trim();
            if !kind.is_empty() {
                items.push(item(
                    format!("line {number}"),
                    json!({"subject": name, "predicate": "is a", "object": kind, "entities": [name]}),
                ));
            }
            let observations = match &value["observations"] {
                Value::Null => &Vec::new(),
                Value::Array(observations) => observations,
                _ => return Err("observations is not a list".to_owned()),
            };
            for (position, observation) in observations.iter().enumerate() {
                let Some(observation) = observation.as_str() else {
                    return Err(format!("observations[{position}] is not a string"));
                };
                if observation.trim().is_empty() {
                    continue;
                }
                let mut arguments =
                    json!({"content": format!("{name}: {observation}"), "entities": [name]});
                if !kind.is_empty() {
                    arguments["tags"] = json!([kind]);
                }
                items.push(item(format!("line {number}, observations[{position}]"), arguments));
            }
        }
        Some("relation") => {
            let from = text(&value, "from")?;
            let to = text(&value, "to")?;
            let relation = text(&value, "relationType")?;
            items.push(item(
                format!("line {number}"),
                json!({"subject": from, "predicate": relation, "object": to, "entities": [from, to]}),
            ));
        }
        Some(other) => {
            return Err(format!("type {other:?} is neither \"entity\" nor \"relation\""));
        }
        None => return Err("no \"type\"".to_owned()),
    }
    Ok(items)
}

/// mcp-memory-service's database: every memory not deleted, with its tags,
/// its type (a tag too; `procedural` and how-tos stay procedural), its
/// metadata (as context) and its creation time (as when it happened).
pub fn mcp_memory_service(
    path: &Path,
    reading: &mut Reading,
) -> Result<Vec<ForeignMemory>, ForeignError> {
    use rusqlite::{Connection, OpenFlags};
    let database = ForeignError::database(path);
    let conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(&database)?;
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('memories')")
        .and_then(|mut statement| {
            statement.query_map([], |row| row.get(0))?.collect::<Result<_, _>>()
        })
        .map_err(&database)?;
    for column in ["content", "tags", "memory_type", "metadata", "created_at"] {
        if !columns.iter().any(|found| found == column) {
            return Err(ForeignError::NotMcpMemoryService { path: path.to_owned(), column });
        }
    }
    let deleted = if columns.iter().any(|column| column == "deleted_at") {
        "WHERE deleted_at IS NULL"
    } else {
        ""
    };
    let mut statement = conn
        .prepare(&format!(
            "SELECT rowid, content, tags, memory_type, metadata, created_at FROM memories {deleted}
             ORDER BY rowid"
        ))
        .map_err(&database)?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, Option<String>>(1)?,
            row.get::<_, Option<String>>(2)?,
            row.get::<_, Option<String>>(3)?,
            row.get::<_, Option<String>>(4)?,
            row.get::<_, Option<f64>>(5)?,
        ))
    });
    let rows = rows.map_err(&database)?;
    let mut items = Vec::new();
    for row in rows {
        let (rowid, content, tags, kind, metadata, created_at) = row.map_err(&database)?;
        let at = |why: &str| format!("row {rowid}: {why}");
        let Some(content) = content.filter(|content| !content.trim().is_empty()) else {
            match reading.bad(at("content is empty")) {
                Ok(()) => continue,
                Err(why) => return Err(ForeignError::Bad(why)),
            }
        };
        let mut tags: Vec<String> = tags
            .unwrap_or_default()
            .split(',')
            .map(|tag| tag.trim().to_owned())
            .filter(|tag| !tag.is_empty())
            .collect();
        let kind = kind.map(|kind| kind.trim().to_owned()).filter(|kind| !kind.is_empty());
        let procedural = kind.as_deref().is_some_and(|kind| {
            matches!(
                kind.to_ascii_lowercase().as_str(),
                "procedural" | "procedure" | "howto" | "how-to" | "instruction"
            )
        });
        if let Some(kind) = &kind
            && !tags.contains(kind)
        {
            tags.push(kind.clone());
        }
        let mut arguments = json!({"content": content, "tags": tags});
        if procedural {
            arguments["memory_type"] = json!("procedural");
        }
        if let Some(metadata) = metadata.filter(|text| !matches!(text.trim(), "" | "{}" | "null")) {
            if serde_json::from_str::<Value>(&metadata).is_err() {
                match reading.bad(at("metadata is not JSON")) {
                    Ok(()) => continue,
                    Err(why) => return Err(ForeignError::Bad(why)),
                }
            }
            arguments["context"] = json!(metadata);
        }
        if let Some(seconds) = created_at {
            if !seconds.is_finite() || seconds < 0.0 {
                match reading.bad(at("created_at is not a time")) {
                    Ok(()) => continue,
                    Err(why) => return Err(ForeignError::Bad(why)),
                }
            }
            #[allow(clippy::cast_possible_truncation, reason = "milliseconds since 1970 fit")]
            let millis = (seconds * 1000.0).round() as i64;
            arguments["valid_from"] = json!(clock::iso(Timestamp(millis)));
        }
        items.push(item(format!("row {rowid}"), arguments));
    }
    Ok(items)
}

/// Markdown notes: every `.md` file under `path` (or `path` itself), each
/// section (a heading and what follows it; a file without headings is one
/// section) a memory, with the front matter's `tags` and its `date` (or
/// `created`) as when it happened, and the file as its source.
pub fn markdown(path: &Path, reading: &mut Reading) -> Result<Vec<ForeignMemory>, ForeignError> {
    let mut files = Vec::new();
    if path.is_dir() {
        collect_notes(path, &mut files)?;
    } else {
        files.push(path.to_owned());
    }
    files.sort();
    let mut items = Vec::new();
    for file in files {
        let name = file.strip_prefix(path).unwrap_or(&file).display().to_string();
        let name = if name.is_empty() { file.display().to_string() } else { name };
        let bytes = std::fs::read(&file).map_err(ForeignError::read(&file))?;
        let found = String::from_utf8(bytes)
            .map_err(|_| "not UTF-8 text".to_owned())
            .and_then(|source| note(&name, &source));
        match found {
            Ok(found) => items.extend(found),
            Err(why) => {
                reading.bad(format!("{name}: {why}")).map_err(ForeignError::Bad)?;
            }
        }
    }
    Ok(items)
}

fn collect_notes(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), ForeignError> {
    for entry in std::fs::read_dir(dir).map_err(ForeignError::read(dir))? {
        let path = entry.map_err(ForeignError::read(dir))?.path();
        let hidden = path.file_name().is_some_and(|name| name.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect_notes(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "md" || ext == "markdown") {
            files.push(path);
        }
    }
    Ok(())
}

/// Front matter (between `---` lines at the top) and the body after it.
fn front_matter(source: &str) -> Result<(Option<yaml_rust2::Yaml>, &str), String> {
    let Some(rest) = source.strip_prefix("---\n").or_else(|| source.strip_prefix("---\r\n")) else {
        return Ok((None, source));
    };
    let end = rest
        .match_indices("\n---")
        .map(|(at, _)| at)
        .find(|at| matches!(rest[at + 4..].chars().next(), None | Some('\n' | '\r')))
        .ok_or("front matter has no closing --- line")?;
    let yaml = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    let documents = yaml_rust2::YamlLoader::load_from_str(yaml)
        .map_err(|error| format!("front matter is not YAML: {error}"))?;
    Ok((documents.into_iter().next(), body))
}

fn note(name: &str, source: &str) -> Result<Vec<ForeignMemory>, String> {
    use yaml_rust2::Yaml;
    let (meta, body) = front_matter(source)?;
    let meta = meta.unwrap_or(Yaml::Null);
    let tags: Vec<String> = match &meta["tags"] {
        Yaml::Array(tags) => tags.iter().filter_map(scalar).collect(),
        Yaml::BadValue | Yaml::Null => Vec::new(),
        other => scalar(other)
            .map(|tags| {
                tags.split(',')
                    .map(|tag| tag.trim().to_owned())
                    .filter(|tag| !tag.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
    };
    let date = ["date", "created"].iter().find_map(|key| scalar(&meta[*key]));
    let valid_from = match date {
        None => None,
        Some(date) => Some(
            clock::parse(&date).ok_or(format!("date {date:?} is not an ISO-8601 time or date"))?,
        ),
    };
    let mut items = Vec::new();
    for (position, section) in sections(body).into_iter().enumerate() {
        for (part, chunk) in chunks(&section).into_iter().enumerate() {
            let mut arguments = json!({"content": chunk, "source": name});
            if !tags.is_empty() {
                arguments["tags"] = json!(tags);
            }
            if let Some(time) = valid_from {
                arguments["valid_from"] = json!(clock::iso(time));
            }
            let origin = if part == 0 {
                format!("{name}, section {}", position + 1)
            } else {
                format!("{name}, section {} part {}", position + 1, part + 1)
            };
            items.push(item(origin, arguments));
        }
    }
    Ok(items)
}

fn scalar(value: &yaml_rust2::Yaml) -> Option<String> {
    use yaml_rust2::Yaml;
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The body's sections: each heading with what follows it (text before the
/// first heading is a section of its own); blank ones dropped.
fn sections(body: &str) -> Vec<String> {
    let mut sections: Vec<String> = vec![String::new()];
    let mut fenced = false;
    for line in body.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') && !sections.last().is_some_and(|s| s.trim().is_empty())
        {
            sections.push(String::new());
        }
        let section = sections.last_mut().expect("there is always a section");
        section.push_str(line);
        section.push('\n');
    }
    sections
        .into_iter()
        .map(|section| section.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `text` in pieces that fit a memory, split between paragraphs (or, for
/// one paragraph too long, between characters).
fn chunks(text: &str) -> Vec<String> {
    if text.len() <= MAX_CONTENT_BYTES {
        return vec![text.to_owned()];
    }
    let mut pieces = Vec::new();
    let mut current = String::new();
    for paragraph in text.split("\n\n") {
        if !current.is_empty() && current.len() + 2 + paragraph.len() > MAX_CONTENT_BYTES {
            pieces.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push_str("\n\n");
        }
        current.push_str(paragraph);
        while current.len() > MAX_CONTENT_BYTES {
            let mut cut = MAX_CONTENT_BYTES;
            while !current.is_char_boundary(cut) {
                cut -= 1;
            }
            let rest = current.split_off(cut);
            pieces.push(std::mem::replace(&mut current, rest));
        }
    }
    if !current.trim().is_empty() {
        pieces.push(current);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_knowledge_graph_becomes_facts_and_texts() {
        let source = concat!(
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["writes Rust","lives in Zurich"]}"#,
            "\n",
            r#"{"type":"relation","from":"Ada","to":"ferrex","relationType":"works on"}"#,
            "\n"
        );
        let items = mcp_memory(source, &mut Reading::default()).unwrap_or_default();
        let texts: Vec<String> =
            items.iter().map(|item| Value::Object(item.arguments.clone()).to_string()).collect();
        assert_eq!(items.len(), 4, "{texts:?}");
        assert_eq!(items[0].arguments["object"], "person");
        assert_eq!(items[1].arguments["content"], "Ada: writes Rust");
        assert_eq!(items[3].arguments["predicate"], "works on");
        let bad =
            "{\"type\":\"entity\",\"name\":\"x\",\"entityType\":\"t\"}\n{\"type\":\"edge\"}\n";
        assert!(matches!(
            mcp_memory(bad, &mut Reading::default()),
            Err(ForeignError::Bad(why))
                if why == "line 2: type \"edge\" is neither \"entity\" nor \"relation\""
        ));
        let mut reading = Reading { keep_going: true, ..Reading::default() };
        assert_eq!(mcp_memory(bad, &mut reading).map(|items| items.len()).ok(), Some(1));
        assert_eq!(reading.skipped.len(), 1);
        let relation = "{\"type\":\"relation\",\"from\":\"a\"}";
        assert!(matches!(
            mcp_memory(relation, &mut Reading::default()),
            Err(ForeignError::Bad(why)) if why.contains("line 1: to")
        ));
    }

    #[test]
    fn notes_split_by_heading_with_their_front_matter() {
        let source = "---\ntags: [ops, backup]\ndate: 2025-03-01\n---\nIntro line.\n\n# Backup\nRuns at 02:00.\n\n```\n# not a heading\n```\n## Restore\nUse restic.\n";
        let items = note("ops.md", source).unwrap_or_default();
        let contents: Vec<&str> =
            items.iter().map(|item| item.arguments["content"].as_str().unwrap_or("")).collect();
        assert_eq!(
            contents,
            vec![
                "Intro line.",
                "# Backup\nRuns at 02:00.\n\n```\n# not a heading\n```",
                "## Restore\nUse restic."
            ]
        );
        assert_eq!(items[1].arguments["tags"], json!(["ops", "backup"]));
        assert_eq!(items[1].arguments["valid_from"], "2025-03-01T00:00:00.000Z");
        assert_eq!(items[2].arguments["source"], "ops.md");
        assert!(
            note("x.md", "---\ntags: [a\n---\nbody")
                .unwrap_err()
                .contains("front matter is not YAML")
        );
        assert!(note("x.md", "---\ndate: someday\n---\nbody").unwrap_err().contains("someday"));
    }

    #[test]
    fn long_sections_are_split_to_fit() {
        let paragraph = "word ".repeat(2000);
        let text = [paragraph.as_str(); 5].join("\n\n");
        let pieces = chunks(&text);
        assert!(pieces.len() >= 2);
        assert!(pieces.iter().all(|piece| piece.len() <= MAX_CONTENT_BYTES));
        let one = "é".repeat(MAX_CONTENT_BYTES);
        assert!(chunks(&one).iter().all(|piece| piece.len() <= MAX_CONTENT_BYTES));
    }
}
