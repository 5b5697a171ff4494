//! Files as memory: how a watched file becomes chunks.
//!
//! Markdown is split at its h1–h3 headings, each section a chunk carrying
//! the path of headings above it; a section longer than
//! [`MAX_CHUNK_BYTES`] is split further at paragraphs (then lines). A
//! config file (JSON, YAML, TOML) is one chunk, whole, up to
//! [`MAX_CONFIG_BYTES`]. What cannot be read as text, or is too large, is
//! skipped with a [`Skip`] that says why.

use std::fmt;

/// The source of a file chunk's memory (reserved: `store` refuses it).
pub const FILE_SOURCE: &str = "ferrex:file";
/// The tag naming a chunk's file: this prefix, then the path relative to
/// the watched folder.
pub const FILE_TAG: &str = "file:";

/// Whether a memory with `source` is a chunk of a file.
pub fn is_file_chunk(source: Option<&str>) -> bool {
    source == Some(FILE_SOURCE)
}

/// The file a chunk's `tags` name (relative to its watched folder).
pub fn file_of(tags: &[String]) -> Option<&str> {
    tags.iter().find_map(|tag| tag.strip_prefix(FILE_TAG))
}

/// The longest chunk: a longer section is split at paragraphs.
pub const MAX_CHUNK_BYTES: usize = 3_000;
/// The largest config file indexed (whole).
pub const MAX_CONFIG_BYTES: usize = 16 * 1024;
/// The largest Markdown file indexed.
pub const MAX_MARKDOWN_BYTES: usize = 1024 * 1024;
/// The deepest heading that starts a chunk of its own.
const SPLIT_LEVEL: usize = 3;

/// What kind of file a watched path is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `.md`, `.markdown`, `.mdx`.
    Markdown,
    /// `.json`, `.yaml`, `.yml`, `.toml`: indexed whole.
    Config,
}

impl FileKind {
    /// The kind of a file named `name`, if ferrex reads files like it.
    pub fn of(name: &str) -> Option<FileKind> {
        let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
        match extension.as_str() {
            "md" | "markdown" | "mdx" => Some(FileKind::Markdown),
            "json" | "yaml" | "yml" | "toml" => Some(FileKind::Config),
            _ => None,
        }
    }
}

/// Why a file has no chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// It holds a NUL byte or is not UTF-8.
    Binary,
    /// It is larger than its kind allows.
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit for its kind.
        limit: usize,
    },
    /// It could not be read (the reason as the system gave it).
    Unreadable(String),
}

impl fmt::Display for Skip {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Binary => formatter.write_str("binary or not UTF-8"),
            Skip::TooLarge { bytes, limit } => {
                write!(formatter, "too large ({bytes} bytes; the limit for its kind is {limit})")
            }
            Skip::Unreadable(reason) => write!(formatter, "unreadable: {reason}"),
        }
    }
}

/// One chunk of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The headings above it, outermost first (empty for a config file and
    /// for the text before a Markdown file's first heading).
    pub heading: Vec<String>,
    /// Its text, with its own heading line.
    pub text: String,
}

impl Chunk {
    /// Its place as a person reads it: the file's path and its headings,
    /// joined by " > " ("AGENT.md > Backend > Structure").
    pub fn place(&self, path: &str) -> String {
        std::iter::once(path)
            .chain(self.heading.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" > ")
    }
}

/// The largest file of `kind` that is read.
pub fn size_limit(kind: FileKind) -> usize {
    match kind {
        FileKind::Markdown => MAX_MARKDOWN_BYTES,
        FileKind::Config => MAX_CONFIG_BYTES,
    }
}

/// The chunks of a file of `kind` holding `bytes`.
pub fn chunks(kind: FileKind, bytes: &[u8]) -> Result<Vec<Chunk>, Skip> {
    let limit = size_limit(kind);
    if bytes.len() > limit {
        return Err(Skip::TooLarge { bytes: bytes.len(), limit });
    }
    if bytes.contains(&0) {
        return Err(Skip::Binary);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| Skip::Binary)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Ok(match kind {
        FileKind::Config if text.trim().is_empty() => Vec::new(),
        FileKind::Config => vec![Chunk { heading: Vec::new(), text: text.trim_end().to_owned() }],
        FileKind::Markdown => markdown(text),
    })
}

/// A Markdown text's sections, split at h1–h3 headings (outside fenced
/// code), long ones split further.
fn markdown(text: &str) -> Vec<Chunk> {
    let body = front_matter_end(text).map_or(text, |end| &text[end..]);
    let lines: Vec<&str> = body.lines().collect();
    let mut sections: Vec<(Vec<String>, Vec<&str>)> = vec![(Vec::new(), Vec::new())];
    // How many lines each section's heading takes (setext headings two).
    let mut heading_lines: Vec<usize> = vec![0];
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        if let Some(open) = fence {
            if closes_fence(line, open) {
                fence = None;
            }
            push_line(&mut sections, line);
            index += 1;
            continue;
        }
        if let Some(opened) = opens_fence(line) {
            fence = Some(opened);
            push_line(&mut sections, line);
            index += 1;
            continue;
        }
        let setext = lines.get(index + 1).and_then(|next| setext_level(line, next));
        let heading =
            atx_heading(line).or_else(|| setext.map(|level| (level, line.trim().to_owned())));
        match heading {
            Some((level, title)) if level <= SPLIT_LEVEL => {
                path.retain(|(above, _)| *above < level);
                path.push((level, title));
                let heading = path.iter().map(|(_, title)| title.clone()).collect();
                let consumed = if setext.is_some() && atx_heading(line).is_none() { 2 } else { 1 };
                sections.push((heading, lines[index..index + consumed].to_vec()));
                heading_lines.push(consumed);
                index += consumed;
            }
            _ => {
                push_line(&mut sections, line);
                index += 1;
            }
        }
    }
    let mut chunks = Vec::new();
    for ((heading, lines), skip) in sections.into_iter().zip(heading_lines) {
        let text = lines.join("\n");
        // A heading alone (its text is all in the sections below it) is no chunk.
        if lines.iter().skip(skip).all(|line| line.trim().is_empty()) {
            continue;
        }
        for piece in split_long(text.trim(), MAX_CHUNK_BYTES) {
            chunks.push(Chunk { heading: heading.clone(), text: piece });
        }
    }
    chunks
}

fn push_line<'a>(sections: &mut [(Vec<String>, Vec<&'a str>)], line: &'a str) {
    if let Some((_, lines)) = sections.last_mut() {
        lines.push(line);
    }
}

/// Where YAML front matter (`---` … `---` opening the file, its first
/// line a `key:`) ends; a file opening with a rule has none.
fn front_matter_end(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let first = rest.lines().next()?;
    let key = first.split_once(':')?.0;
    if key.is_empty() || key.contains(char::is_whitespace) {
        return None;
    }
    let mut offset = text.len() - rest.len();
    for line in rest.split_inclusive('\n').take(200) {
        offset += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return Some(offset);
        }
    }
    None
}

/// An ATX heading's level and title (`## Title ##`).
fn atx_heading(line: &str) -> Option<(usize, String)> {
    let trimmed = line
        .strip_prefix("   ")
        .or_else(|| line.strip_prefix("  "))
        .or_else(|| line.strip_prefix(' '))
        .unwrap_or(line);
    let level = trimmed.chars().take_while(|&c| c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    // A closing run of #s counts only after a space ("## C#" is about C#).
    let rest = rest.trim();
    let title = match rest.trim_end_matches('#') {
        kept if kept.is_empty() || kept.ends_with([' ', '\t']) => kept.trim_end(),
        _ => rest,
    };
    (!title.is_empty()).then(|| (level, title.to_owned()))
}

/// The level of a setext heading whose title is `line` and underline `next`.
fn setext_level(line: &str, next: &str) -> Option<usize> {
    let title = line.trim();
    if title.is_empty()
        || line.starts_with("    ")
        || title.starts_with(['-', '*', '+', '>', '#', '|'])
    {
        return None;
    }
    let underline = next.trim();
    if underline.is_empty() || next.starts_with("    ") {
        return None;
    }
    if underline.chars().all(|c| c == '=') {
        Some(1)
    } else if underline.chars().all(|c| c == '-') {
        Some(2)
    } else {
        None
    }
}

/// The fence a line opens (its character and length).
fn opens_fence(line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    ['`', '~'].into_iter().find_map(|mark| {
        let count = trimmed.chars().take_while(|&c| c == mark).count();
        (count >= 3).then_some((mark, count))
    })
}

fn closes_fence(line: &str, (mark, count): (char, usize)) -> bool {
    let trimmed = line.trim();
    trimmed.chars().take_while(|&c| c == mark).count() >= count
        && trimmed.chars().all(|c| c == mark)
}

/// `text` in pieces of at most `max` bytes, split at blank lines, then
/// at line ends, then at character boundaries.
fn split_long(text: &str, max: usize) -> Vec<String> {
    if text.len() <= max {
        return vec![text.to_owned()];
    }
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    for block in blocks(text, max) {
        if !current.is_empty() && current.len() + 2 + block.len() > max {
            pieces.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push_str("\n\n");
        }
        current.push_str(block.trim_matches('\n'));
    }
    if !current.trim().is_empty() {
        pieces.push(current);
    }
    pieces.retain(|piece| !piece.trim().is_empty());
    pieces
}

/// The paragraphs of `text`, each at most `max` bytes (longer ones cut at
/// line ends, then at character boundaries).
fn blocks(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    for paragraph in text.split("\n\n").filter(|paragraph| !paragraph.trim().is_empty()) {
        let mut rest = paragraph;
        while rest.len() > max {
            let mut cut = rest.floor_char_boundary(max);
            if let Some(newline) = rest[..cut].rfind('\n').filter(|&at| at > 0) {
                cut = newline;
            }
            out.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        out.push(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markdown_chunks(text: &str) -> Vec<(String, String)> {
        chunks(FileKind::Markdown, text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|chunk| (chunk.place("AGENT.md"), chunk.text))
            .collect()
    }

    #[test]
    fn kinds_come_from_extensions() {
        assert_eq!(FileKind::of("docs/AGENT.md"), Some(FileKind::Markdown));
        assert_eq!(FileKind::of("README.MARKDOWN"), Some(FileKind::Markdown));
        assert_eq!(FileKind::of("config/app.YML"), Some(FileKind::Config));
        assert_eq!(FileKind::of("Cargo.toml"), Some(FileKind::Config));
        assert_eq!(FileKind::of("main.rs"), None);
        assert_eq!(FileKind::of("Makefile"), None);
    }

    #[test]
    fn markdown_splits_at_h1_to_h3_with_the_heading_path() {
        let text = "Intro line.\n\n# Project\n\nAbout it.\n\n## Backend\n\n### Structure\n\nCrates.\n\n#### Detail\n\nStill structure.\n\n## Frontend\n\nReact.\n";
        assert_eq!(
            markdown_chunks(text),
            vec![
                ("AGENT.md".to_owned(), "Intro line.".to_owned()),
                ("AGENT.md > Project".to_owned(), "# Project\n\nAbout it.".to_owned()),
                (
                    "AGENT.md > Project > Backend > Structure".to_owned(),
                    "### Structure\n\nCrates.\n\n#### Detail\n\nStill structure.".to_owned()
                ),
                ("AGENT.md > Project > Frontend".to_owned(), "## Frontend\n\nReact.".to_owned()),
            ]
        );
    }

    #[test]
    fn headings_inside_code_fences_and_front_matter_are_not_split() {
        let text = "---\ntitle: x\n---\n# Run\n\n```sh\n# not a heading\nmake\n```\n\n~~~\n## nor this\n~~~\n";
        let chunks = markdown_chunks(text);
        assert_eq!(chunks.len(), 1, "{chunks:?}");
        assert_eq!(chunks[0].0, "AGENT.md > Run");
        assert!(chunks[0].1.contains("# not a heading") && chunks[0].1.contains("## nor this"));
        assert!(!chunks[0].1.contains("title: x"), "front matter is not text");
    }

    #[test]
    fn setext_headings_split_like_atx_ones() {
        let text = "Guide\n=====\n\nStart here.\n\nInstall\n-------\n\nRun it.\n";
        assert_eq!(
            markdown_chunks(text),
            vec![
                ("AGENT.md > Guide".to_owned(), "Guide\n=====\n\nStart here.".to_owned()),
                ("AGENT.md > Guide > Install".to_owned(), "Install\n-------\n\nRun it.".to_owned()),
            ]
        );
    }

    #[test]
    fn long_sections_split_at_paragraphs_within_the_limit() {
        let paragraph = "word ".repeat(200);
        let text = format!("## Long\n\n{}", [paragraph.trim(); 8].join("\n\n"));
        let chunks = chunks(FileKind::Markdown, text.as_bytes()).unwrap();
        assert!(chunks.len() >= 3, "{} chunks", chunks.len());
        for chunk in &chunks {
            assert!(chunk.text.len() <= MAX_CHUNK_BYTES, "{} bytes", chunk.text.len());
            assert_eq!(chunk.heading, vec!["Long".to_owned()]);
        }
        let words: usize = chunks.iter().map(|chunk| chunk.text.matches("word").count()).sum();
        assert_eq!(words, 1600, "no word is lost or repeated");
        // One paragraph longer than the limit, with no line breaks, in many languages.
        let text = "é".repeat(MAX_CHUNK_BYTES);
        let chunks = super::chunks(FileKind::Markdown, text.as_bytes()).unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(
            chunks.iter().map(|chunk| chunk.text.chars().count()).sum::<usize>(),
            MAX_CHUNK_BYTES
        );
    }

    #[test]
    fn config_files_are_whole_and_bounded() {
        let chunks = chunks(FileKind::Config, b"[server]\nport = 8080\n").unwrap();
        assert_eq!(
            chunks,
            vec![Chunk { heading: vec![], text: "[server]\nport = 8080".to_owned() }]
        );
        let big = vec![b'a'; MAX_CONFIG_BYTES + 1];
        assert_eq!(
            super::chunks(FileKind::Config, &big),
            Err(Skip::TooLarge { bytes: MAX_CONFIG_BYTES + 1, limit: MAX_CONFIG_BYTES })
        );
        assert_eq!(super::chunks(FileKind::Config, b"  \n"), Ok(vec![]));
    }

    #[test]
    fn binary_files_are_skipped() {
        assert_eq!(chunks(FileKind::Markdown, b"# A\0B"), Err(Skip::Binary));
        assert_eq!(chunks(FileKind::Markdown, &[0xff, 0xfe, 0x41]), Err(Skip::Binary));
        assert_eq!(Skip::Binary.to_string(), "binary or not UTF-8");
    }

    #[test]
    fn review_cases_headings_and_front_matter() {
        // A setext heading with no text of its own is no chunk.
        assert_eq!(
            markdown_chunks("Guide\n=====\n\nSetup\n-----\n\nRun it.\n"),
            vec![("AGENT.md > Guide > Setup".to_owned(), "Setup\n-----\n\nRun it.".to_owned())]
        );
        // A closing run of #s needs a space before it.
        assert_eq!(markdown_chunks("## C#\n\nA language.\n")[0].0, "AGENT.md > C#");
        assert_eq!(markdown_chunks("## Go ##\n\nAnother.\n")[0].0, "AGENT.md > Go");
        // A file opening with a rule keeps its text.
        let ruled = markdown_chunks("---\n\nIntro text.\n\n---\n\nMore.\n");
        assert!(ruled.iter().any(|(_, text)| text.contains("Intro text.")), "{ruled:?}");
    }

    #[test]
    fn a_heading_alone_is_no_chunk_and_hashes_need_a_space() {
        let text = "# Title\n## Sub\n\nBody.\n\n#hashtag is text\n";
        assert_eq!(
            markdown_chunks(text),
            vec![(
                "AGENT.md > Title > Sub".to_owned(),
                "## Sub\n\nBody.\n\n#hashtag is text".to_owned()
            )]
        );
    }
}
