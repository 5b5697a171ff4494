//! The Markdown export: a folder a person would read and keep in git. Per
//! namespace, one page per entity (its current facts, their history, the
//! memories that mention it, related entities) and one per topic (tag),
//! each with YAML front matter (ids, times) and links between pages, and an
//! index. Rendered from the export's records and the derived status of
//! each memory (as `list` answers it); pure, so it is tested on its own.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::{
    base::clock,
    derived::index::Standing,
    formats::jsonl::{AliasLine, EntityLine, MemoryLine, Time},
};

/// A page: its path under the export folder, and its text.
pub type Page = (String, String);

/// What the pages are made of, for one namespace.
#[derive(Debug, Default)]
pub struct NamespaceExport {
    /// Its name.
    pub name: String,
    /// Entity lines of the export.
    pub entities: Vec<EntityLine>,
    /// Alias lines.
    pub aliases: Vec<AliasLine>,
    /// Memory lines.
    pub memories: Vec<MemoryLine>,
    /// Each memory's standing as `list` answers it, by id.
    pub standing: BTreeMap<String, Standing>,
}

/// A file name for `text`: lower case letters, digits and dashes.
fn slug(text: &str) -> String {
    let mut slug = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-').to_owned();
    if slug.is_empty() { "untitled".to_owned() } else { slug }
}

/// A YAML scalar: JSON's quoted string is valid YAML.
fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

/// The date of a time, as the export writes it: `2026-03-01`.
fn date(time: Time) -> String {
    clock::iso(time.0).chars().take(10).collect()
}

/// A fact's predicate as words.
fn words(predicate: Option<&str>) -> String {
    predicate.unwrap_or("").replace('_', " ")
}

fn text_of(memory: &MemoryLine) -> String {
    match &memory.content {
        Some(text) => text.clone(),
        None => format!(
            "{} {} {}",
            memory.subject.as_deref().unwrap_or(""),
            words(memory.predicate.as_deref()),
            memory.object.as_deref().unwrap_or("")
        ),
    }
}

/// One line of a memory in a list: date, text (one line), id.
fn bullet(memory: &MemoryLine) -> String {
    let text = text_of(memory).split_whitespace().collect::<Vec<_>>().join(" ");
    format!("- {} — {} (`{}`)", date(memory.t_valid), text, memory.id)
}

/// `name`, or `name-suffix` when `taken` holds `name` already; either is
/// then taken.
fn unique(taken: &mut BTreeSet<String>, name: String, suffix: impl std::fmt::Display) -> String {
    let name = if taken.contains(&name) { format!("{name}-{suffix}") } else { name };
    taken.insert(name.clone());
    name
}

/// Every page of the export of `namespaces`.
pub fn pages(namespaces: &[NamespaceExport]) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut index = String::from(
        "# Memory\n\nExported by ferrex. Each namespace has a page per entity and per topic.\n\n",
    );
    let mut taken = BTreeSet::new();
    for (position, namespace) in namespaces.iter().enumerate() {
        // Namespaces that differ only in case or punctuation get folders of
        // their own.
        let dir = unique(&mut taken, slug(&namespace.name), position + 1);
        index.push_str(&format!(
            "- [{}]({dir}/index.md): {} memories, {} entities\n",
            namespace.name,
            namespace.memories.len(),
            namespace.entities.len()
        ));
        pages.extend(namespace_pages(namespace, &dir));
    }
    pages.push(("README.md".to_owned(), index));
    pages.sort();
    pages
}

fn namespace_pages(namespace: &NamespaceExport, dir: &str) -> Vec<Page> {
    // Page names, unique within the namespace.
    let mut taken = BTreeSet::new();
    let mut entity_page: BTreeMap<&str, String> = BTreeMap::new();
    for entity in &namespace.entities {
        let name =
            unique(&mut taken, slug(&entity.name), entity.id.chars().take(8).collect::<String>());
        entity_page.insert(&entity.id, name);
    }
    let by_id: BTreeMap<&str, &EntityLine> =
        namespace.entities.iter().map(|entity| (entity.id.as_str(), entity)).collect();
    let by_name: BTreeMap<String, &EntityLine> =
        namespace.entities.iter().map(|entity| (entity.name.to_lowercase(), entity)).collect();
    let mut tags: BTreeMap<&str, Vec<&MemoryLine>> = BTreeMap::new();
    for memory in &namespace.memories {
        for tag in &memory.tags {
            tags.entry(tag).or_default().push(memory);
        }
    }
    // Tags that differ only in case or punctuation get pages of their own.
    let mut topic_taken = BTreeSet::new();
    let topic_page: BTreeMap<&str, String> = tags
        .keys()
        .enumerate()
        .map(|(index, tag)| (*tag, unique(&mut topic_taken, slug(tag), index + 1)))
        .collect();
    let standing = |memory: &MemoryLine| namespace.standing.get(&memory.id);
    let status = |memory: &MemoryLine| -> &str {
        standing(memory).and_then(|standing| standing.status.as_deref()).unwrap_or("")
    };
    let topics_of = |memory: &MemoryLine| -> String {
        let links: Vec<String> = memory
            .tags
            .iter()
            .map(|tag| {
                format!(
                    "[{tag}](../topics/{}.md)",
                    topic_page.get(tag.as_str()).map_or("", String::as_str)
                )
            })
            .collect();
        if links.is_empty() { String::new() } else { format!(" — {}", links.join(", ")) }
    };
    let subject_is = |memory: &MemoryLine, id: &str| memory.subject_entity.as_deref() == Some(id);

    let mut pages = Vec::new();
    for entity in &namespace.entities {
        let id = entity.id.as_str();
        let name = &entity.name;
        let aliases: Vec<&str> = namespace
            .aliases
            .iter()
            .filter(|alias| alias.entity == id)
            .map(|alias| alias.name.as_str())
            .collect();
        let facts: Vec<&MemoryLine> = namespace
            .memories
            .iter()
            .filter(|memory| subject_is(memory, id) && memory.subject.is_some())
            .collect();
        let mentions: Vec<&MemoryLine> = namespace
            .memories
            .iter()
            .filter(|memory| {
                !subject_is(memory, id) && memory.entities.iter().any(|other| other == id)
            })
            .collect();
        let mut page = format!(
            "---\nid: {}\nname: {}\nnamespace: {}\ncreated_at: {}\ncreated_by: {}\naliases: [{}]\nfacts: {}\nmentions: {}\n---\n# {name}\n",
            quoted(id),
            quoted(name),
            quoted(&namespace.name),
            quoted(&clock::iso(entity.created_at.0)),
            quoted(&entity.created_by),
            aliases.iter().map(|alias| quoted(alias)).collect::<Vec<_>>().join(", "),
            facts.len(),
            mentions.len(),
        );
        if !aliases.is_empty() {
            page.push_str(&format!("\nAlso known as: {}.\n", aliases.join(", ")));
        }
        let (current, past): (Vec<&MemoryLine>, Vec<&MemoryLine>) =
            facts.iter().partition(|fact| status(fact) != "superseded");
        if !current.is_empty() {
            page.push_str("\n## Current facts\n\n");
            for fact in &current {
                let object = fact.object.as_deref().unwrap_or("");
                let value = match by_name
                    .get(&object.to_lowercase())
                    .and_then(|other| entity_page.get(other.id.as_str()))
                {
                    Some(other) => format!("[{object}]({other}.md)"),
                    None => object.to_owned(),
                };
                let contested = if status(fact) == "contested" { " (contested)" } else { "" };
                page.push_str(&format!(
                    "- **{}**: {value}{contested} — since {} (`{}`)\n",
                    words(fact.predicate.as_deref()),
                    date(fact.t_valid),
                    fact.id
                ));
            }
        }
        if !facts.is_empty() {
            page.push_str("\n## History\n\n");
            let mut history = facts.clone();
            history.sort_by_key(|fact| fact.t_valid.0);
            for fact in history {
                let until = standing(fact)
                    .and_then(|standing| standing.t_invalid.as_deref())
                    .map(|until| format!(", until {}", until.get(..10).unwrap_or(until)))
                    .unwrap_or_default();
                page.push_str(&format!(
                    "- {}: {} {}{until} [{}] (`{}`)\n",
                    date(fact.t_valid),
                    words(fact.predicate.as_deref()),
                    fact.object.as_deref().unwrap_or(""),
                    if past.iter().any(|old| old.id == fact.id) { "superseded" } else { "current" },
                    fact.id
                ));
            }
        }
        if !mentions.is_empty() {
            page.push_str("\n## Mentioned in\n\n");
            for memory in &mentions {
                page.push_str(&format!("{}{}\n", bullet(memory), topics_of(memory)));
            }
        }
        let related: BTreeSet<&str> = facts
            .iter()
            .filter_map(|fact| by_name.get(&fact.object.as_deref().unwrap_or("").to_lowercase()))
            .map(|other| other.id.as_str())
            .chain(mentions.iter().flat_map(|memory| memory.entities.iter().map(String::as_str)))
            .filter(|other| *other != id)
            .collect();
        if !related.is_empty() {
            page.push_str("\n## Related\n\n");
            for other in related {
                if let (Some(file), Some(entity)) = (entity_page.get(other), by_id.get(other)) {
                    page.push_str(&format!("- [{}]({file}.md)\n", entity.name));
                }
            }
        }
        pages.push((format!("{dir}/entities/{}.md", entity_page[id]), page));
    }
    for (tag, memories) in &tags {
        let mut page = format!(
            "---\ntag: {}\nnamespace: {}\nmemories: {}\nids: [{}]\n---\n# {tag}\n\n",
            quoted(tag),
            quoted(&namespace.name),
            memories.len(),
            memories.iter().map(|memory| quoted(&memory.id)).collect::<Vec<_>>().join(", ")
        );
        for memory in memories {
            let superseded = if status(memory) == "superseded" { " (superseded)" } else { "" };
            page.push_str(&format!("{}{superseded}\n", bullet(memory)));
            let links: Vec<String> = memory
                .entities
                .iter()
                .filter_map(|id| {
                    let entity = by_id.get(id.as_str())?;
                    Some(format!(
                        "[{}](../entities/{}.md)",
                        entity.name,
                        entity_page.get(id.as_str())?
                    ))
                })
                .collect();
            if !links.is_empty() {
                page.push_str(&format!("  about {}\n", links.join(", ")));
            }
        }
        pages.push((format!("{dir}/topics/{}.md", topic_page[tag]), page));
    }
    let mut index = format!(
        "---\nnamespace: {}\nmemories: {}\nentities: {}\ntopics: {}\n---\n# {}\n",
        quoted(&namespace.name),
        namespace.memories.len(),
        namespace.entities.len(),
        tags.len(),
        namespace.name
    );
    if !namespace.entities.is_empty() {
        index.push_str("\n## Entities\n\n");
        let mut entities: Vec<&EntityLine> = namespace.entities.iter().collect();
        entities.sort_by_key(|entity| entity.name.to_lowercase());
        for entity in entities {
            index.push_str(&format!(
                "- [{}](entities/{}.md)\n",
                entity.name,
                entity_page[entity.id.as_str()]
            ));
        }
    }
    if !tags.is_empty() {
        index.push_str("\n## Topics\n\n");
        for (tag, memories) in &tags {
            index.push_str(&format!(
                "- [{tag}](topics/{}.md) ({})\n",
                topic_page[tag],
                memories.len()
            ));
        }
    }
    // Links between memories (`link` of two memory ids): each end by the
    // start of its text.
    let is_memory_link = |memory: &MemoryLine| {
        memory.source.as_deref() == Some(ferrex_core::walk::LINK_SOURCE)
            && memory.subject_entity.is_none()
    };
    let memory_by_id: BTreeMap<&str, &MemoryLine> =
        namespace.memories.iter().map(|memory| (memory.id.as_str(), memory)).collect();
    let end = |id: &str| -> String {
        let text = memory_by_id.get(id).map(|memory| text_of(memory)).unwrap_or_default();
        let short: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let short: String = short.chars().take(60).collect();
        format!("{short} (`{id}`)")
    };
    let links: Vec<&MemoryLine> =
        namespace.memories.iter().filter(|memory| is_memory_link(memory)).collect();
    let loose: Vec<&MemoryLine> = namespace
        .memories
        .iter()
        .filter(|memory| {
            memory.tags.is_empty()
                && memory.entities.is_empty()
                && memory.subject_entity.is_none()
                && !is_memory_link(memory)
        })
        .collect();
    if !links.is_empty() {
        index.push_str("\n## Links between memories\n\n");
        for link in links {
            let note = link
                .context
                .as_deref()
                .map(|note| format!(": {}", note.split_whitespace().collect::<Vec<_>>().join(" ")))
                .unwrap_or_default();
            index.push_str(&format!(
                "- {} — {} → {}{note} (`{}`)\n",
                end(link.subject.as_deref().unwrap_or("")),
                words(link.predicate.as_deref()),
                end(link.object.as_deref().unwrap_or("")),
                link.id
            ));
        }
    }
    if !loose.is_empty() {
        index.push_str("\n## Other memories\n\n");
        for memory in loose {
            index.push_str(&format!("{}\n", bullet(memory)));
        }
    }
    pages.push((format!("{dir}/index.md"), index));
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(iso: &str) -> Time {
        Time(clock::parse(iso).expect("an ISO-8601 time"))
    }

    fn entity(id: &str, name: &str) -> EntityLine {
        EntityLine {
            namespace: "default".into(),
            id: id.into(),
            name: name.into(),
            kind: None,
            created_at: time("2026-01-01T00:00:00.000Z"),
            created_by: "d".into(),
        }
    }

    /// A text memory valid from `t_valid`.
    fn text(id: &str, content: &str, t_valid: &str) -> MemoryLine {
        MemoryLine {
            namespace: "default".into(),
            id: id.into(),
            kind: "episodic".into(),
            content: Some(content.into()),
            subject: None,
            predicate: None,
            object: None,
            subject_entity: None,
            predicate_written: None,
            cardinality: None,
            confidence: 1.0,
            source: None,
            context: None,
            tags: Vec::new(),
            entities: Vec::new(),
            created_at: time(t_valid),
            created_by: "d".into(),
            t_valid: time(t_valid),
            evidence: 1,
            validated: BTreeMap::new(),
            access: BTreeMap::new(),
        }
    }

    /// A fact `subject predicate object`, valid from `t_valid`.
    fn fact(id: &str, [subject, predicate, object]: [&str; 3], t_valid: &str) -> MemoryLine {
        MemoryLine {
            kind: "semantic".into(),
            content: None,
            subject: Some(subject.into()),
            predicate: Some(predicate.into()),
            object: Some(object.into()),
            ..text(id, "", t_valid)
        }
    }

    #[test]
    fn entities_and_topics_get_linked_pages_with_front_matter() {
        let namespace = NamespaceExport {
            name: "default".into(),
            entities: vec![entity("e1", "Ada Lovelace"), entity("e2", "London")],
            aliases: vec![AliasLine {
                namespace: "default".into(),
                key: "ada".into(),
                entity: "e1".into(),
                name: "Ada".into(),
                method: "exact".into(),
                memory: None,
                created_at: time("2026-01-01T00:00:00.000Z"),
                created_by: "d".into(),
            }],
            memories: vec![
                MemoryLine {
                    subject_entity: Some("e1".into()),
                    ..fact("m1", ["Ada Lovelace", "lives_in", "Paris"], "2026-01-01T00:00:00.000Z")
                },
                MemoryLine {
                    subject_entity: Some("e1".into()),
                    ..fact("m2", ["Ada Lovelace", "lives_in", "London"], "2026-02-01T00:00:00.000Z")
                },
                MemoryLine {
                    entities: vec!["e1".into()],
                    tags: vec!["work".into()],
                    ..text("m3", "Ada writes \"notes\" on the engine", "2026-03-01T00:00:00.000Z")
                },
                text("m4", "a loose note", "2026-03-02T00:00:00.000Z"),
            ],
            standing: BTreeMap::from([
                (
                    "m1".to_owned(),
                    Standing {
                        status: Some("superseded".into()),
                        t_invalid: Some("2026-02-01T00:00:00.000Z".into()),
                        ..Standing::default()
                    },
                ),
                (
                    "m2".to_owned(),
                    Standing { status: Some("current".into()), ..Standing::default() },
                ),
            ]),
        };
        let pages: BTreeMap<String, String> = pages(&[namespace]).into_iter().collect();
        let names: Vec<&str> = pages.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            vec![
                "README.md",
                "default/entities/ada-lovelace.md",
                "default/entities/london.md",
                "default/index.md",
                "default/topics/work.md"
            ]
        );
        let ada = &pages["default/entities/ada-lovelace.md"];
        assert!(ada.starts_with("---\nid: \"e1\"\nname: \"Ada Lovelace\""), "{ada}");
        assert!(
            ada.contains("- **lives in**: [London](london.md) — since 2026-02-01 (`m2`)"),
            "{ada}"
        );
        assert!(
            ada.contains("- 2026-01-01: lives in Paris, until 2026-02-01 [superseded] (`m1`)"),
            "{ada}"
        );
        assert!(
            ada.contains("Ada writes \"notes\" on the engine (`m3`) — [work](../topics/work.md)"),
            "{ada}"
        );
        assert!(ada.contains("Also known as: Ada."), "{ada}");
        let work = &pages["default/topics/work.md"];
        assert!(
            work.contains("ids: [\"m3\"]")
                && work.contains("[Ada Lovelace](../entities/ada-lovelace.md)"),
            "{work}"
        );
        assert!(pages["default/index.md"].contains("a loose note"));
        // Front matter is YAML a reader parses.
        let front = ada.split("---\n").nth(1).unwrap_or("");
        let yaml = yaml_rust2::YamlLoader::load_from_str(front).unwrap_or_default();
        assert_eq!(yaml[0]["aliases"][0].as_str(), Some("Ada"));
    }

    #[test]
    fn names_alike_get_pages_of_their_own() {
        let memory = |id: &str, tag: &str| MemoryLine {
            tags: vec![tag.into()],
            ..text(id, id, "2026-01-01T00:00:00.000Z")
        };
        let namespaces = [
            NamespaceExport {
                name: "Work".into(),
                memories: vec![memory("a", "Rust"), memory("b", "rust")],
                ..NamespaceExport::default()
            },
            NamespaceExport {
                name: "work".into(),
                memories: vec![memory("c", "c#")],
                ..NamespaceExport::default()
            },
        ];
        let pages: BTreeMap<String, String> = pages(&namespaces).into_iter().collect();
        assert_eq!(pages.len(), 6, "{:?}", pages.keys().collect::<Vec<_>>());
        let topics: String = pages
            .iter()
            .filter(|(path, _)| path.contains("/topics/"))
            .map(|(_, text)| text.clone())
            .collect();
        for id in ["(`a`)", "(`b`)", "(`c`)"] {
            assert!(topics.contains(id), "{id} lost: {topics}");
        }
    }

    #[test]
    fn links_between_memories_are_listed_with_the_text_of_both_ends() {
        let memory = |id: &str, content: &str| text(id, content, "2026-11-26T10:00:00Z");
        let namespace = NamespaceExport {
            name: "eng".into(),
            memories: vec![
                memory("m1", "The nightly ARM build fails with a linker error."),
                memory("m2", "Pinned lld 17 in the toolchain file."),
                MemoryLine {
                    source: Some(ferrex_core::walk::LINK_SOURCE.into()),
                    context: Some("verified on the runner".into()),
                    ..fact("l1", ["m1", "fixed_by", "m2"], "2026-11-26T10:00:00Z")
                },
            ],
            ..NamespaceExport::default()
        };
        let pages = pages(&[namespace]);
        let index = &pages.iter().find(|(path, _)| path.ends_with("index.md")).unwrap().1;
        assert!(
            index.contains(
                "- The nightly ARM build fails with a linker error. (`m1`) — fixed by → \
                 Pinned lld 17 in the toolchain file. (`m2`): verified on the runner (`l1`)"
            ),
            "{index}"
        );
        let other = index.split("## Other memories").nth(1).unwrap_or("");
        assert!(!other.contains("`l1`"), "{index}");
    }

    #[test]
    fn slugs_are_file_names() {
        assert_eq!(slug("Ada Lovelace"), "ada-lovelace");
        assert_eq!(slug("../etc/passwd"), "etc-passwd");
        assert_eq!(slug("日本語"), "日本語");
        assert_eq!(slug("!!!"), "untitled");
    }
}
