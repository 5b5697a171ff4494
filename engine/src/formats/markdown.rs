//! The Markdown export: a folder a person would read and keep in git. Per
//! namespace, one page per entity (its current facts, their history, the
//! memories that mention it, related entities) and one per topic (tag),
//! each with YAML front matter (ids, times) and links between pages, and an
//! index. Rendered from the export's records and the derived status of
//! each memory (as `list` answers it); pure, so it is tested on its own.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// A page: its path under the export folder, and its text.
pub type Page = (String, String);

/// What the pages are made of, for one namespace.
#[derive(Debug, Default)]
pub struct NamespaceExport {
    /// Its name.
    pub name: String,
    /// Entity lines of the export.
    pub entities: Vec<Value>,
    /// Alias lines.
    pub aliases: Vec<Value>,
    /// Memory lines.
    pub memories: Vec<Value>,
    /// Each memory's standing as `list` answers it (status, t_invalid,
    /// superseded_by), by id.
    pub standing: BTreeMap<String, Value>,
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

fn date(time: &Value) -> &str {
    time.as_str().map_or("", |time| time.get(..10).unwrap_or(time))
}

fn text_of(memory: &Value) -> String {
    match memory["content"].as_str() {
        Some(text) => text.to_owned(),
        None => format!(
            "{} {} {}",
            memory["subject"].as_str().unwrap_or(""),
            memory["predicate"].as_str().unwrap_or("").replace('_', " "),
            memory["object"].as_str().unwrap_or("")
        ),
    }
}

/// One line of a memory in a list: date, text (one line), id.
fn bullet(memory: &Value) -> String {
    let text = text_of(memory).split_whitespace().collect::<Vec<_>>().join(" ");
    format!("- {} — {} (`{}`)", date(&memory["t_valid"]), text, memory["id"].as_str().unwrap_or(""))
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
    let mut entity_page: BTreeMap<String, String> = BTreeMap::new();
    for entity in &namespace.entities {
        let id = entity["id"].as_str().unwrap_or("");
        let name = slug(entity["name"].as_str().unwrap_or(id));
        let name = unique(&mut taken, name, id.chars().take(8).collect::<String>());
        entity_page.insert(id.to_owned(), name);
    }
    let by_name: BTreeMap<String, &Value> = namespace
        .entities
        .iter()
        .map(|entity| (entity["name"].as_str().unwrap_or("").to_lowercase(), entity))
        .collect();
    let mut tags: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for memory in &namespace.memories {
        for tag in memory["tags"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            tags.entry(tag.to_owned()).or_default().push(memory);
        }
    }
    // Tags that differ only in case or punctuation get pages of their own.
    let mut topic_taken = BTreeSet::new();
    let topic_page: BTreeMap<&str, String> = tags
        .keys()
        .enumerate()
        .map(|(index, tag)| (tag.as_str(), unique(&mut topic_taken, slug(tag), index + 1)))
        .collect();
    let status = |memory: &Value| -> String {
        let id = memory["id"].as_str().unwrap_or("");
        namespace
            .standing
            .get(id)
            .and_then(|standing| standing["status"].as_str())
            .unwrap_or("")
            .to_owned()
    };
    let topics_of = |memory: &Value| -> String {
        let links: Vec<String> = memory["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|tag| {
                format!("[{tag}](../topics/{}.md)", topic_page.get(tag).map_or("", String::as_str))
            })
            .collect();
        if links.is_empty() { String::new() } else { format!(" — {}", links.join(", ")) }
    };

    let mut pages = Vec::new();
    for entity in &namespace.entities {
        let id = entity["id"].as_str().unwrap_or("");
        let name = entity["name"].as_str().unwrap_or(id);
        let aliases: Vec<&str> = namespace
            .aliases
            .iter()
            .filter(|alias| alias["entity"] == id)
            .filter_map(|alias| alias["name"].as_str())
            .collect();
        let about = |memory: &&Value| {
            memory["subject_entity"] == id
                || memory["entities"]
                    .as_array()
                    .is_some_and(|ids| ids.iter().any(|other| other == id))
        };
        let facts: Vec<&Value> = namespace
            .memories
            .iter()
            .filter(|memory| memory["subject_entity"] == id && memory["subject"].is_string())
            .collect();
        let mentions: Vec<&Value> = namespace
            .memories
            .iter()
            .filter(about)
            .filter(|memory| memory["subject_entity"] != id)
            .collect();
        let mut page = format!(
            "---\nid: {}\nname: {}\nnamespace: {}\ncreated_at: {}\ncreated_by: {}\naliases: [{}]\nfacts: {}\nmentions: {}\n---\n# {name}\n",
            quoted(id),
            quoted(name),
            quoted(&namespace.name),
            quoted(entity["created_at"].as_str().unwrap_or("")),
            quoted(entity["created_by"].as_str().unwrap_or("")),
            aliases.iter().map(|alias| quoted(alias)).collect::<Vec<_>>().join(", "),
            facts.len(),
            mentions.len(),
        );
        if !aliases.is_empty() {
            page.push_str(&format!("\nAlso known as: {}.\n", aliases.join(", ")));
        }
        let (current, past): (Vec<&Value>, Vec<&Value>) =
            facts.iter().partition(|fact| status(fact) != "superseded");
        if !current.is_empty() {
            page.push_str("\n## Current facts\n\n");
            for fact in &current {
                let object = fact["object"].as_str().unwrap_or("");
                let value = match by_name
                    .get(&object.to_lowercase())
                    .and_then(|other| entity_page.get(other["id"].as_str().unwrap_or("")))
                {
                    Some(other) => format!("[{object}]({other}.md)"),
                    None => object.to_owned(),
                };
                let contested = if status(fact) == "contested" { " (contested)" } else { "" };
                page.push_str(&format!(
                    "- **{}**: {value}{contested} — since {} (`{}`)\n",
                    fact["predicate"].as_str().unwrap_or("").replace('_', " "),
                    date(&fact["t_valid"]),
                    fact["id"].as_str().unwrap_or("")
                ));
            }
        }
        if !facts.is_empty() {
            page.push_str("\n## History\n\n");
            let mut history = facts.clone();
            history.sort_by(|a, b| a["t_valid"].as_str().cmp(&b["t_valid"].as_str()));
            for fact in history {
                let standing = namespace.standing.get(fact["id"].as_str().unwrap_or(""));
                let until = standing
                    .and_then(|standing| standing["t_invalid"].as_str())
                    .map(|until| format!(", until {}", &until[..until.len().min(10)]))
                    .unwrap_or_default();
                page.push_str(&format!(
                    "- {}: {} {}{until} [{}] (`{}`)\n",
                    date(&fact["t_valid"]),
                    fact["predicate"].as_str().unwrap_or("").replace('_', " "),
                    fact["object"].as_str().unwrap_or(""),
                    if past.iter().any(|old| old["id"] == fact["id"]) {
                        "superseded"
                    } else {
                        "current"
                    },
                    fact["id"].as_str().unwrap_or("")
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
            .filter_map(|fact| by_name.get(&fact["object"].as_str().unwrap_or("").to_lowercase()))
            .filter_map(|other| other["id"].as_str())
            .chain(mentions.iter().flat_map(|memory| {
                memory["entities"].as_array().into_iter().flatten().filter_map(Value::as_str)
            }))
            .filter(|other| *other != id)
            .collect();
        if !related.is_empty() {
            page.push_str("\n## Related\n\n");
            for other in related {
                if let (Some(file), Some(entity)) = (
                    entity_page.get(other),
                    namespace.entities.iter().find(|entity| entity["id"] == other),
                ) {
                    page.push_str(&format!(
                        "- [{}]({file}.md)\n",
                        entity["name"].as_str().unwrap_or(other)
                    ));
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
            memories
                .iter()
                .map(|memory| quoted(memory["id"].as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for memory in memories {
            let standing = if status(memory) == "superseded" { " (superseded)" } else { "" };
            page.push_str(&format!("{}{standing}\n", bullet(memory)));
            let links: Vec<String> = memory["entities"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter_map(|id| {
                    let entity = namespace.entities.iter().find(|entity| entity["id"] == id)?;
                    Some(format!(
                        "[{}](../entities/{}.md)",
                        entity["name"].as_str().unwrap_or(id),
                        entity_page.get(id)?
                    ))
                })
                .collect();
            if !links.is_empty() {
                page.push_str(&format!("  about {}\n", links.join(", ")));
            }
        }
        pages.push((format!("{dir}/topics/{}.md", topic_page[tag.as_str()]), page));
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
        let mut entities: Vec<&Value> = namespace.entities.iter().collect();
        entities.sort_by_key(|entity| entity["name"].as_str().unwrap_or("").to_lowercase());
        for entity in entities {
            let id = entity["id"].as_str().unwrap_or("");
            index.push_str(&format!(
                "- [{}](entities/{}.md)\n",
                entity["name"].as_str().unwrap_or(id),
                entity_page[id]
            ));
        }
    }
    if !tags.is_empty() {
        index.push_str("\n## Topics\n\n");
        for (tag, memories) in &tags {
            index.push_str(&format!(
                "- [{tag}](topics/{}.md) ({})\n",
                topic_page[tag.as_str()],
                memories.len()
            ));
        }
    }
    // Links between memories (`link` of two memory ids): each end by the
    // start of its text.
    let is_memory_link = |memory: &Value| {
        memory["source"] == ferrex_core::walk::LINK_SOURCE && memory["subject_entity"].is_null()
    };
    let by_id: BTreeMap<&str, &Value> = namespace
        .memories
        .iter()
        .filter_map(|memory| Some((memory["id"].as_str()?, memory)))
        .collect();
    let end = |id: &str| -> String {
        let text = by_id.get(id).map(|memory| text_of(memory)).unwrap_or_default();
        let short: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let short: String = short.chars().take(60).collect();
        format!("{short} (`{id}`)")
    };
    let links: Vec<&Value> =
        namespace.memories.iter().filter(|memory| is_memory_link(memory)).collect();
    let loose: Vec<&Value> = namespace
        .memories
        .iter()
        .filter(|memory| {
            memory["tags"].as_array().is_none_or(Vec::is_empty)
                && memory["entities"].as_array().is_none_or(Vec::is_empty)
                && memory["subject_entity"].is_null()
                && !is_memory_link(memory)
        })
        .collect();
    if !links.is_empty() {
        index.push_str("\n## Links between memories\n\n");
        for link in links {
            let note = link["context"]
                .as_str()
                .map(|note| format!(": {}", note.split_whitespace().collect::<Vec<_>>().join(" ")))
                .unwrap_or_default();
            index.push_str(&format!(
                "- {} — {} → {}{note} (`{}`)\n",
                end(link["subject"].as_str().unwrap_or("")),
                link["predicate"].as_str().unwrap_or("").replace('_', " "),
                end(link["object"].as_str().unwrap_or("")),
                link["id"].as_str().unwrap_or("")
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
    use serde_json::json;

    use super::*;

    #[test]
    fn entities_and_topics_get_linked_pages_with_front_matter() {
        let namespace = NamespaceExport {
            name: "default".into(),
            entities: vec![
                json!({"id": "e1", "name": "Ada Lovelace", "created_at": "2026-01-01T00:00:00.000Z", "created_by": "d"}),
                json!({"id": "e2", "name": "London", "created_at": "2026-01-01T00:00:00.000Z", "created_by": "d"}),
            ],
            aliases: vec![json!({"entity": "e1", "name": "Ada"})],
            memories: vec![
                json!({"id": "m1", "subject": "Ada Lovelace", "predicate": "lives_in", "object": "Paris", "subject_entity": "e1", "t_valid": "2026-01-01T00:00:00.000Z"}),
                json!({"id": "m2", "subject": "Ada Lovelace", "predicate": "lives_in", "object": "London", "subject_entity": "e1", "t_valid": "2026-02-01T00:00:00.000Z"}),
                json!({"id": "m3", "content": "Ada writes \"notes\" on the engine", "entities": ["e1"], "tags": ["work"], "t_valid": "2026-03-01T00:00:00.000Z"}),
                json!({"id": "m4", "content": "a loose note", "t_valid": "2026-03-02T00:00:00.000Z"}),
            ],
            standing: BTreeMap::from([
                (
                    "m1".to_owned(),
                    json!({"status": "superseded", "t_invalid": "2026-02-01T00:00:00.000Z"}),
                ),
                ("m2".to_owned(), json!({"status": "current"})),
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
        let memory = |id: &str, tag: &str| json!({"id": id, "content": id, "tags": [tag], "t_valid": "2026-01-01T00:00:00.000Z"});
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
        let memory = |id: &str, text: &str| json!({"id": id, "content": text, "t_valid": "2026-11-26T10:00:00Z", "tags": [], "entities": []});
        let namespace = NamespaceExport {
            name: "eng".into(),
            memories: vec![
                memory("m1", "The nightly ARM build fails with a linker error."),
                memory("m2", "Pinned lld 17 in the toolchain file."),
                json!({"id": "l1", "subject": "m1", "predicate": "fixed_by", "object": "m2",
                       "source": "ferrex:link", "context": "verified on the runner",
                       "t_valid": "2026-11-26T10:00:00Z", "tags": [], "entities": []}),
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
