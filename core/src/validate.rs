//! Input limits and checks: what an agent may store and ask for.
//!
//! Every check names the field it rejects and says why, so a tool error can
//! be acted on. Nothing here has side effects: invalid input changes nothing.

use std::fmt;

use crate::{Content, MemoryKind, Namespace, Timestamp, Triple};

/// Longest content (and fact object, source or context), in bytes.
pub const MAX_CONTENT_BYTES: usize = 16 * 1024;
/// Longest subject, predicate, entity name or tag, in bytes.
pub const MAX_NAME_BYTES: usize = 512;
/// Most entities or tags on one memory.
pub const MAX_LIST_ITEMS: usize = 64;
/// Longest memory id accepted in a request, in bytes.
pub const MAX_ID_BYTES: usize = 128;
/// Most results one recall returns.
pub const MAX_RECALL_LIMIT: usize = 200;
/// Results a recall returns when no limit is given.
pub const DEFAULT_RECALL_LIMIT: usize = 10;
/// Most ids one forget accepts.
pub const MAX_FORGET_IDS: usize = 1000;

/// A request field that is wrong, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The parameter name, as the tool's schema spells it (`content`, `tags[2]`).
    pub field: String,
    /// What is wrong with it, in words a person can act on.
    pub reason: String,
}

impl FieldError {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        FieldError { field: field.into(), reason: reason.into() }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{} {}", self.field, self.reason)
    }
}

impl std::error::Error for FieldError {}

/// A store request as the agent sent it, before any check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoreInput {
    /// Free text, for episodic and procedural memories.
    pub content: Option<String>,
    /// Subject of a fact.
    pub subject: Option<String>,
    /// Predicate of a fact.
    pub predicate: Option<String>,
    /// Object of a fact.
    pub object: Option<String>,
    /// The kind, when the agent chose one.
    pub kind: Option<MemoryKind>,
    /// Namespace name; `default` when absent.
    pub namespace: Option<String>,
    /// 0..=1; 1 when absent.
    pub confidence: Option<f64>,
    /// Names of entities the memory mentions.
    pub entities: Vec<String>,
    /// Labels.
    pub tags: Vec<String>,
    /// Where the memory came from.
    pub source: Option<String>,
    /// Context the agent attaches.
    pub context: Option<String>,
    /// Id of a memory this one replaces.
    pub supersedes: Option<String>,
    /// When what the text tells happened or became true; when it is
    /// stored if absent. Text only.
    pub valid_from: Option<Timestamp>,
}

/// A store request that passed every check.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreRequest {
    /// The kind, given or detected.
    pub kind: MemoryKind,
    /// Text or triple, trimmed.
    pub content: Content,
    /// The namespace.
    pub namespace: Namespace,
    /// 0..=1.
    pub confidence: f64,
    /// Entity names, trimmed, without duplicates.
    pub entities: Vec<String>,
    /// Tags, trimmed, without duplicates.
    pub tags: Vec<String>,
    /// Where it came from.
    pub source: Option<String>,
    /// Context.
    pub context: Option<String>,
    /// Id of a memory this one replaces.
    pub supersedes: Option<String>,
    /// When it happened or became true, if not when it is stored.
    pub valid_from: Option<Timestamp>,
}

/// Checks a store request: content or a full triple, the kind, every limit.
pub fn validate_store(input: StoreInput) -> Result<StoreRequest, FieldError> {
    let content = optional_text("content", input.content, MAX_CONTENT_BYTES)?;
    let subject = optional_text("subject", input.subject, MAX_NAME_BYTES)?;
    let predicate = optional_text("predicate", input.predicate, MAX_NAME_BYTES)?;
    let object = optional_text("object", input.object, MAX_CONTENT_BYTES)?;

    let any_triple_part = subject.is_some() || predicate.is_some() || object.is_some();
    let content = match (content, subject, predicate, object) {
        (Some(_), _, _, _) if any_triple_part => {
            return Err(FieldError::new(
                "content",
                "cannot be combined with subject/predicate/object: give either content, or subject, predicate and object",
            ));
        }
        (Some(text), None, None, None) => Content::Text(text),
        (None, Some(subject), Some(predicate), Some(object)) => {
            if crate::entity::normalise_name(&subject).is_empty() {
                return Err(FieldError::new(
                    "subject",
                    "has no letters or digits to name a thing by",
                ));
            }
            Content::Triple(Triple { subject, predicate, object })
        }
        (None, subject, predicate, object) if any_triple_part => {
            let missing: Vec<&str> =
                [("subject", &subject), ("predicate", &predicate), ("object", &object)]
                    .into_iter()
                    .filter(|(_, value)| value.is_none())
                    .map(|(name, _)| name)
                    .collect();
            return Err(FieldError::new(
                missing[0],
                format!(
                    "is missing: a fact needs subject, predicate and object (missing: {})",
                    missing.join(", ")
                ),
            ));
        }
        _ => {
            return Err(FieldError::new(
                "content",
                "is missing: give content, or subject, predicate and object",
            ));
        }
    };

    let kind = match (input.kind, &content) {
        (None, Content::Triple(_)) => MemoryKind::Semantic,
        (None, Content::Text(_)) => MemoryKind::Episodic,
        (Some(MemoryKind::Semantic), Content::Text(_)) => {
            return Err(FieldError::new(
                "memory_type",
                "is semantic, which needs subject, predicate and object instead of content",
            ));
        }
        (Some(kind @ (MemoryKind::Episodic | MemoryKind::Procedural)), Content::Triple(_)) => {
            return Err(FieldError::new(
                "memory_type",
                format!(
                    "is {kind}, which needs content; a subject/predicate/object fact is semantic"
                ),
            ));
        }
        (Some(kind), _) => kind,
    };

    let namespace = match input.namespace {
        None => Namespace::default_namespace(),
        Some(name) => Namespace::parse(&name)?,
    };
    let confidence = match input.confidence {
        None => 1.0,
        Some(value) => unit_interval("confidence", value)?,
    };
    let entities = name_list("entities", input.entities)?;
    if let Some(index) =
        entities.iter().position(|name| crate::entity::normalise_name(name).is_empty())
    {
        return Err(FieldError::new(
            format!("entities[{index}]"),
            "has no letters or digits to name a thing by",
        ));
    }
    let tags = name_list("tags", input.tags)?;
    let source = optional_text("source", input.source, MAX_CONTENT_BYTES)?;
    let context = optional_text("context", input.context, MAX_CONTENT_BYTES)?;
    let supersedes = match input.supersedes {
        None => None,
        Some(id) => Some(memory_id("supersedes", &id)?),
    };
    if input.valid_from.is_some() && matches!(content, Content::Triple(_)) {
        return Err(FieldError::new(
            "valid_from",
            "is for text memories; a fact is valid from when it is stored, and a newer value supersedes it",
        ));
    }
    Ok(StoreRequest {
        kind,
        content,
        namespace,
        confidence,
        entities,
        tags,
        source,
        context,
        supersedes,
        valid_from: input.valid_from,
    })
}

/// Checks a number that must lie in 0..=1.
pub fn unit_interval(field: &str, value: f64) -> Result<f64, FieldError> {
    if !value.is_finite() {
        return Err(FieldError::new(
            field,
            format!("must be a number between 0 and 1, not {value}"),
        ));
    }
    if !(0.0..=1.0).contains(&value) {
        return Err(FieldError::new(field, format!("must be between 0 and 1, not {value}")));
    }
    Ok(value)
}

/// A list of memory ids: at most [`MAX_FORGET_IDS`], each a valid id.
pub fn memory_ids(field: &str, ids: &[String]) -> Result<Vec<String>, FieldError> {
    if ids.len() > MAX_FORGET_IDS {
        return Err(FieldError::new(
            field,
            format!("lists {} ids; at most {MAX_FORGET_IDS} at a time", ids.len()),
        ));
    }
    ids.iter().enumerate().map(|(index, id)| memory_id(&format!("{field}[{index}]"), id)).collect()
}

/// Checks a memory id given in a request.
pub fn memory_id(field: &str, id: &str) -> Result<String, FieldError> {
    let id = id.trim();
    if id.is_empty() {
        return Err(FieldError::new(field, "must not be empty"));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(FieldError::new(
            field,
            format!("is {} bytes long; memory ids are at most {MAX_ID_BYTES}", id.len()),
        ));
    }
    if id.chars().any(char::is_control) {
        return Err(FieldError::new(field, "contains a control character"));
    }
    Ok(id.to_owned())
}

/// Checks the limit of a recall: 1..=200, 10 when absent.
pub fn recall_limit(limit: Option<i64>) -> Result<usize, FieldError> {
    match limit {
        None => Ok(DEFAULT_RECALL_LIMIT),
        Some(value) if (1..=MAX_RECALL_LIMIT as i64).contains(&value) => Ok(value as usize),
        Some(value) => Err(FieldError::new(
            "limit",
            format!("must be between 1 and {MAX_RECALL_LIMIT}, not {value}"),
        )),
    }
}

/// Checks a query text: not blank, at most [`MAX_CONTENT_BYTES`].
pub fn query_text(field: &str, query: &str) -> Result<String, FieldError> {
    required_text(field, query, MAX_CONTENT_BYTES)
}

/// Checks a required text field: trimmed, non-empty, within `max_bytes`, no NUL.
pub fn required_text(field: &str, text: &str, max_bytes: usize) -> Result<String, FieldError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(FieldError::new(field, "must not be empty"));
    }
    if text.len() > max_bytes {
        return Err(FieldError::new(
            field,
            format!("is {} bytes long; at most {max_bytes} are allowed", text.len()),
        ));
    }
    if trimmed.contains('\0') {
        return Err(FieldError::new(field, "contains a NUL character"));
    }
    Ok(trimmed.to_owned())
}

fn optional_text(
    field: &str,
    text: Option<String>,
    max_bytes: usize,
) -> Result<Option<String>, FieldError> {
    text.map(|text| required_text(field, &text, max_bytes)).transpose()
}

/// A list of entity names (or tags): at most [`MAX_LIST_ITEMS`], each a
/// name of at most [`MAX_NAME_BYTES`]; repeats dropped.
pub fn name_list(field: &str, names: Vec<String>) -> Result<Vec<String>, FieldError> {
    if names.len() > MAX_LIST_ITEMS {
        return Err(FieldError::new(
            field,
            format!("has {} items; at most {MAX_LIST_ITEMS} are allowed", names.len()),
        ));
    }
    let mut checked: Vec<String> = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let name = required_text(&format!("{field}[{index}]"), name, MAX_NAME_BYTES)?;
        if !checked.contains(&name) {
            checked.push(name);
        }
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(content: &str) -> StoreInput {
        StoreInput { content: Some(content.to_owned()), ..StoreInput::default() }
    }

    fn fact(subject: &str, predicate: &str, object: &str) -> StoreInput {
        StoreInput {
            subject: Some(subject.to_owned()),
            predicate: Some(predicate.to_owned()),
            object: Some(object.to_owned()),
            ..StoreInput::default()
        }
    }

    /// Checks that `input` is refused with an error on `field`.
    fn refused(input: StoreInput, field: &str) {
        match validate_store(input.clone()) {
            Ok(request) => panic!("{input:?} was accepted as {request:?}"),
            Err(error) => assert_eq!(error.field, field, "{input:?}: {error}"),
        }
    }

    #[test]
    fn kind_is_detected_from_the_shape() {
        assert_eq!(validate_store(text("met Alice")).unwrap().kind, MemoryKind::Episodic);
        assert_eq!(validate_store(fact("a", "b", "c")).unwrap().kind, MemoryKind::Semantic);
        let procedural = StoreInput { kind: Some(MemoryKind::Procedural), ..text("run make") };
        assert_eq!(validate_store(procedural).unwrap().kind, MemoryKind::Procedural);
    }

    #[test]
    fn defaults_are_filled_in() {
        let request = validate_store(text("  padded  ")).unwrap();
        assert_eq!(request.content, Content::Text("padded".to_owned()));
        assert_eq!(request.namespace.as_str(), "default");
        assert_eq!(request.confidence, 1.0);
    }

    #[test]
    fn malformed_requests_name_the_field() {
        refused(StoreInput::default(), "content");
        refused(text(""), "content");
        refused(text("   "), "content");
        refused(text(&"x".repeat(MAX_CONTENT_BYTES + 1)), "content");
        refused(text("nul\0byte"), "content");
        refused(StoreInput { subject: Some("a".into()), ..text("both") }, "content");
        refused(StoreInput { subject: Some("a".into()), ..StoreInput::default() }, "predicate");
        refused(fact(&"s".repeat(MAX_NAME_BYTES + 1), "p", "o"), "subject");
        refused(fact("s", &"p".repeat(MAX_NAME_BYTES + 1), "o"), "predicate");
        refused(StoreInput { kind: Some(MemoryKind::Semantic), ..text("x") }, "memory_type");
        refused(
            StoreInput { kind: Some(MemoryKind::Episodic), ..fact("a", "b", "c") },
            "memory_type",
        );
        refused(StoreInput { namespace: Some("bad ns".into()), ..text("x") }, "namespace");
        refused(StoreInput { confidence: Some(f64::NAN), ..text("x") }, "confidence");
        refused(StoreInput { confidence: Some(-0.1), ..text("x") }, "confidence");
        refused(StoreInput { confidence: Some(1.5), ..text("x") }, "confidence");
        refused(StoreInput { confidence: Some(f64::INFINITY), ..text("x") }, "confidence");
        refused(StoreInput { tags: vec!["ok".into(), "".into()], ..text("x") }, "tags[1]");
        refused(StoreInput { tags: vec!["t".into(); MAX_LIST_ITEMS + 1], ..text("x") }, "tags");
        refused(
            StoreInput { entities: vec!["e".repeat(MAX_NAME_BYTES + 1)], ..text("x") },
            "entities[0]",
        );
        refused(StoreInput { supersedes: Some(" ".into()), ..text("x") }, "supersedes");
        refused(
            StoreInput { entities: vec!["ok".into(), "!!!".into()], ..text("x") },
            "entities[1]",
        );
        refused(fact("🚀", "p", "o"), "subject");
        refused(
            StoreInput { supersedes: Some("i".repeat(MAX_ID_BYTES + 1)), ..text("x") },
            "supersedes",
        );
    }

    #[test]
    fn valid_from_is_for_text_only() {
        let when = Some(Timestamp(1_700_000_000_000));
        let request = validate_store(StoreInput { valid_from: when, ..text("x") }).unwrap();
        assert_eq!(request.valid_from, when);
        refused(StoreInput { valid_from: when, ..fact("api", "port", "8080") }, "valid_from");
    }

    #[test]
    fn duplicate_tags_and_entities_collapse() {
        let input = StoreInput {
            tags: vec!["a".into(), " a ".into(), "b".into()],
            entities: vec!["Tokio".into(), "Tokio".into()],
            ..text("x")
        };
        let request = validate_store(input).unwrap();
        assert_eq!(request.tags, vec!["a", "b"]);
        assert_eq!(request.entities, vec!["Tokio"]);
    }

    #[test]
    fn recall_limits() {
        assert_eq!(recall_limit(None), Ok(10));
        assert_eq!(recall_limit(Some(200)), Ok(200));
        assert!(recall_limit(Some(0)).is_err());
        assert!(recall_limit(Some(201)).is_err());
        assert!(recall_limit(Some(-3)).is_err());
    }
}
