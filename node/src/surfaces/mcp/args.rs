//! Reading tool arguments: each tool's JSON schema is generated from its
//! parameter type ([`super::params`]), a call's arguments are checked
//! against that schema (so that a mistake is an error naming its field
//! path, like `types[0]`, in words an agent can act on), and then read
//! into the type.
//!
//! The check covers what the generated schemas say of a value's shape:
//! `type`, `properties`, `required`, `additionalProperties`, `items` and
//! `enum`. Bounds (lengths, ranges, patterns) are left to core's checks,
//! which enforce the same constants the schemas state. A null property is
//! read as absent, a whole number written as `5.0` as `5`, and one string
//! where a list of strings is asked for as a list of that string (agents
//! write `"status": "done"` as often as `["done"]`; the schemas do not
//! say so, which would cost every session's tool list the bytes).

use ferrex_core::FieldError;
use schemars::{
    JsonSchema, Schema,
    generate::{Contract, SchemaSettings},
    transform::{Transform, transform_subschemas},
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The input schema of a tool whose parameters are `T`: every subschema
/// inline, no `$schema`, `title` or root description (the tool has its
/// own), and an optional parameter described by what it holds when present
/// (null is read as absent all the same).
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let mut schema = generate::<T>(Contract::Deserialize);
    WithoutNull.transform(&mut schema);
    Terse.transform(&mut schema);
    root(schema)
}

/// The output schema of a tool whose answer is `T`: the fields every
/// answer has, and the type of each. Fields an answer has only sometimes
/// are not listed (the schema does not forbid other fields; docs/tools.md
/// describes them all).
/// Nothing deeper and no prose: agents pay for every byte of the tool list
/// at the start of each session, and an answer's JSON reads for itself
/// (docs/tools.md describes every field).
pub fn output_schema<T: JsonSchema>() -> Map<String, Value> {
    let full = root(generate::<T>(Contract::Serialize));
    let mut schema = Map::new();
    schema.insert("type".to_owned(), "object".into());
    let required: Vec<&str> = full
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = full.get("properties") {
        let typed = properties
            .iter()
            .filter(|(name, _)| required.contains(&name.as_str()))
            .map(|(name, property)| {
                let kind = property.get("type").map(|kind| ("type".to_owned(), kind.clone()));
                (name.clone(), Value::Object(kind.into_iter().collect()))
            })
            .collect();
        schema.insert("properties".to_owned(), Value::Object(typed));
    }
    if let Some(required) = full.get("required") {
        schema.insert("required".to_owned(), required.clone());
    }
    schema
}

fn generate<T: JsonSchema>(contract: Contract) -> Schema {
    let settings = SchemaSettings::draft2020_12().with(|settings| {
        settings.inline_subschemas = true;
        settings.meta_schema = None;
        settings.contract = contract;
    });
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    Tidy.transform(&mut schema);
    schema
}

fn root(schema: Schema) -> Map<String, Value> {
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.remove("title");
    map.remove("description");
    map
}

/// Makes generated schemas read as written: a doc comment's wrapped lines
/// joined into one, and no `format` (Rust's integer and float widths,
/// which tell a client nothing).
struct Tidy;

impl Transform for Tidy {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(map) = schema.as_object_mut() {
            map.remove("format");
            if let Some(Value::String(description)) = map.get_mut("description") {
                let paragraphs: Vec<String> = description
                    .split("\n\n")
                    .map(|paragraph| paragraph.lines().collect::<Vec<_>>().join(" "))
                    .collect();
                *description = paragraphs.join("\n\n");
            }
        }
        transform_subschemas(self, schema);
    }
}

/// Leaves out what an input schema repeats: a `default` (the parameter's
/// description says it) and the description of an array's items (the
/// array's says what they are).
struct Terse;

impl Transform for Terse {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(map) = schema.as_object_mut() {
            map.remove("default");
            if let Some(Value::Object(items)) = map.get_mut("items") {
                items.remove("description");
            }
        }
        transform_subschemas(self, schema);
    }
}

/// Drops `null` from optional values' schemas: `["string", "null"]`
/// becomes `"string"`, `anyOf: [S, {"type": "null"}]` becomes `S`, and
/// `null` leaves an `enum`.
struct WithoutNull;

impl Transform for WithoutNull {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(map) = schema.as_object_mut() {
            if let Some(Value::Array(options)) = map.get_mut("enum") {
                options.retain(|option| !option.is_null());
            }
            if let Some(Value::Array(types)) = map.get("type") {
                let kept: Vec<Value> =
                    types.iter().filter(|kind| *kind != "null").cloned().collect();
                if kept.len() == 1 {
                    map.insert("type".to_owned(), kept[0].clone());
                }
            }
            if let Some(Value::Array(branches)) = map.get("anyOf") {
                let kept: Vec<&Value> = branches
                    .iter()
                    .filter(|branch| branch.get("type") != Some(&"null".into()))
                    .collect();
                if kept.len() == 1
                    && let Value::Object(inner) = kept[0].clone()
                {
                    map.remove("anyOf");
                    for (key, value) in inner {
                        map.entry(key).or_insert(value);
                    }
                }
            }
        }
        transform_subschemas(self, schema);
    }
}

/// Checks `arguments` against `schema` (the tool's, from [`input_schema`]) and
/// reads them into `T`.
pub fn read<T: DeserializeOwned>(
    schema: &Map<String, Value>,
    arguments: Map<String, Value>,
) -> Result<T, FieldError> {
    let mut value = Value::Object(arguments);
    conform(schema, &mut value, "")?;
    serde_json::from_value(value)
        .map_err(|error| FieldError::new("arguments", format!("could not be read: {error}")))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `a, b and c`.
fn listing(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `a, b or c` of a schema's `enum`.
fn choices(schema: &Map<String, Value>) -> Option<String> {
    let options: Vec<&str> =
        schema.get("enum")?.as_array()?.iter().filter_map(Value::as_str).collect();
    Some(match options.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => options.join(""),
    })
}

/// What a value of `schema` is, in words: "a string", "a string or a list
/// of strings".
fn expected(schema: &Map<String, Value>) -> String {
    if let Some(choices) = choices(schema) {
        return choices;
    }
    match schema.get("type").and_then(Value::as_str).unwrap_or("") {
        "string" => "a string".to_owned(),
        "integer" => "a whole number".to_owned(),
        "number" => "a number".to_owned(),
        "boolean" => "true or false".to_owned(),
        "object" => "an object".to_owned(),
        "array" => match schema.get("items").and_then(Value::as_object) {
            Some(items) if items.get("type").and_then(Value::as_str) == Some("string") => {
                "a string or a list of strings".to_owned()
            }
            _ => "a list".to_owned(),
        },
        other => format!("of type {other}"),
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

fn wrong(path: &str, schema: &Map<String, Value>, value: &Value) -> FieldError {
    FieldError::new(path, format!("must be {}, not {}", expected(schema), type_name(value)))
}

/// Checks `value` at `path` against `schema`; whole numbers of an integer
/// schema become integers, null properties are removed.
fn conform(schema: &Map<String, Value>, value: &mut Value, path: &str) -> Result<(), FieldError> {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => conform_object(schema, value, path),
        Some("array") => {
            let of_strings =
                schema.get("items").and_then(|items| items.get("type")).and_then(Value::as_str)
                    == Some("string");
            if of_strings && value.is_string() {
                *value = Value::Array(vec![value.take()]);
            }
            let Value::Array(items) = value else { return Err(wrong(path, schema, value)) };
            if let Some(item_schema) = schema.get("items").and_then(Value::as_object) {
                for (index, item) in items.iter_mut().enumerate() {
                    conform(item_schema, item, &format!("{path}[{index}]"))?;
                }
            }
            Ok(())
        }
        Some("string") => {
            let Value::String(text) = value else { return Err(wrong(path, schema, value)) };
            match (schema.get("enum").and_then(Value::as_array), choices(schema)) {
                (Some(options), Some(choices)) if !options.iter().any(|option| option == text) => {
                    Err(FieldError::new(path, format!("must be {choices}, not {text:?}")))
                }
                _ => Ok(()),
            }
        }
        Some("integer") => {
            let Value::Number(number) = value else { return Err(wrong(path, schema, value)) };
            if number.is_i64() || number.is_u64() {
                return Ok(());
            }
            match number.as_f64() {
                Some(whole) if whole.fract() == 0.0 && whole.abs() < 1e15 => {
                    #[allow(clippy::cast_possible_truncation, reason = "whole and below 1e15")]
                    let whole = whole as i64;
                    *value = Value::from(whole);
                    Ok(())
                }
                _ => Err(FieldError::new(path, format!("must be a whole number, not {number}"))),
            }
        }
        Some("number") if !value.is_number() => Err(wrong(path, schema, value)),
        Some("boolean") if !value.is_boolean() => Err(wrong(path, schema, value)),
        _ => Ok(()),
    }
}

fn conform_object(
    schema: &Map<String, Value>,
    value: &mut Value,
    path: &str,
) -> Result<(), FieldError> {
    let Value::Object(map) = value else { return Err(wrong(path, schema, value)) };
    map.retain(|_, value| !value.is_null());
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    if schema.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(unknown) = map.keys().find(|key| !properties.contains_key(*key))
    {
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        let reason = if path.is_empty() {
            format!("is not a parameter of this tool; its parameters are: {}", names.join(", "))
        } else {
            format!("is not a field of {path}; it has {}", listing(&names))
        };
        return Err(FieldError::new(child(path, unknown), reason));
    }
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if !map.contains_key(name) {
            return Err(FieldError::new(child(path, name), "is missing"));
        }
    }
    for (name, property) in map.iter_mut() {
        if let Some(property_schema) = properties.get(name).and_then(Value::as_object) {
            conform(property_schema, property, &child(path, name))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::surfaces::mcp::params;

    fn check<T: JsonSchema + DeserializeOwned>(arguments: Value) -> Result<T, String> {
        let schema = input_schema::<T>();
        let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
        read::<T>(&schema, arguments).map_err(|error| error.to_string())
    }

    #[test]
    fn schemas_are_closed_inline_and_not_nullable() {
        let schema = Value::Object(input_schema::<params::Recall>());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["query"]));
        assert_eq!(schema["properties"]["namespace"]["type"], "string");
        assert_eq!(schema["properties"]["limit"]["type"], "integer");
        assert_eq!(schema["properties"]["time_range"]["type"], "object");
        assert_eq!(
            schema["properties"]["types"]["items"]["enum"],
            json!(["episodic", "semantic", "procedural", "file"])
        );
        let text = schema.to_string();
        assert!(!text.contains("null") && !text.contains("$ref"), "{text}");
        assert!(!text.contains("\\n") && !text.contains("format"), "{text}");
    }

    #[test]
    fn limits_come_from_core() {
        use ferrex_core::validate;
        let recall = Value::Object(input_schema::<params::Recall>());
        assert_eq!(recall["properties"]["limit"]["maximum"], validate::MAX_RECALL_LIMIT);
        // Lengths are core's alone (its errors name them), as a namespace's rule is.
        assert!(recall["properties"]["query"].get("maxLength").is_none());
        let store = Value::Object(input_schema::<params::Store>());
        assert!(store["properties"]["tags"].get("maxItems").is_none());
        // A namespace's rule is core's alone (its error says it); the
        // pattern is not repeated in every tool's schema.
        assert!(store["properties"]["namespace"].get("pattern").is_none());
        let graph = Value::Object(input_schema::<params::Graph>());
        assert_eq!(graph["properties"]["depth"]["maximum"], ferrex_core::walk::MAX_DEPTH);
    }

    #[test]
    fn descriptions_come_from_doc_comments() {
        let store = Value::Object(input_schema::<params::Store>());
        let description =
            store["properties"]["allow_secrets"]["description"].as_str().unwrap_or("");
        assert!(description.starts_with("Store credentials"), "{description}");
    }

    #[test]
    fn mistakes_name_their_field_path() {
        let error = |arguments| check::<params::Recall>(arguments).unwrap_err();
        assert_eq!(error(json!({})), "query is missing");
        assert_eq!(error(json!({"query": 1})), "query must be a string, not a number");
        assert_eq!(
            error(json!({"query": "x", "types": ["fact"]})),
            "types[0] must be episodic, semantic, procedural or file, not \"fact\""
        );
        assert_eq!(
            error(json!({"query": "x", "types": "x"})),
            "types[0] must be episodic, semantic, procedural or file, not \"x\""
        );
        assert_eq!(
            error(json!({"query": "x", "types": 3})),
            "types must be a string or a list of strings, not a number"
        );
        // One string where a list of strings is asked for: a list of one.
        let one: params::Recall = super::read(
            &input_schema::<params::Recall>(),
            json!({"query": "x", "types": "semantic", "entities": "payments"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        )
        .unwrap();
        assert_eq!(one.types, [params::RecallType::Semantic]);
        assert_eq!(one.entities, ["payments"]);
        assert_eq!(
            error(json!({"query": "x", "limit": 2.5})),
            "limit must be a whole number, not 2.5"
        );
        assert_eq!(
            error(json!({"query": "x", "time_range": {"from": "x"}})),
            "time_range.from is not a field of time_range; it has end and start"
        );
        assert_eq!(
            error(json!({"query": "x", "time_range": {"start": 3}})),
            "time_range.start must be a string, not a number"
        );
        assert!(
            error(json!({"query": "x", "k": 3}))
                .starts_with("k is not a parameter of this tool; its parameters are: ")
        );
        let error = check::<params::Store>(json!({"tags": ["a", 2]})).unwrap_err();
        assert_eq!(error, "tags[1] must be a string, not a number");
        let error = check::<params::Stats>(json!({"detailed": "yes"})).unwrap_err();
        assert_eq!(error, "detailed must be true or false, not a string");
    }

    #[test]
    fn nulls_are_absent_and_whole_numbers_are_integers() {
        let recall =
            check::<params::Recall>(json!({"query": "x", "limit": 5.0, "namespace": null}))
                .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(recall.limit, Some(5));
        assert_eq!(recall.namespace, None);
        assert!(check::<params::Recall>(json!({"query": null})).unwrap_err().contains("missing"));
    }
}
