//! Malformed tool calls, over stdio and over HTTP: each gets a clear tool
//! error (naming the field) or a valid answer, changes nothing, and the
//! node keeps serving. Besides the cases written out, every parameter of
//! every tool is sent with each JSON type its schema does not allow, and
//! queries, ids and namespaces carry unicode edge cases and FTS and SQL
//! metacharacters.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use ferrex_tests::TestHome;
use serde_json::{Value, json};

/// What a call must answer.
#[derive(Clone, Copy)]
enum Expect {
    /// A tool error whose message contains this text.
    Error(&'static str),
    /// A valid answer.
    Answer,
}

/// A call and what it must answer.
type Case = (String, Value, Expect);

/// The least each tool needs, so that the bad parameter is what fails.
fn base_arguments(tool: &str) -> Value {
    match tool {
        "store" => json!({"content": "probe"}),
        "recall" => json!({"query": "probe"}),
        "forget" => json!({"ids": ["no-such-memory"]}),
        "history" => json!({"subject": "probe", "predicate": "probe"}),
        "session" => json!({"action": "get"}),
        "task" => json!({"action": "list"}),
        "observe" => json!({"user": "probe", "assistant": "probe"}),
        "link" => json!({"from": "probe", "to": "probe-other", "relation": "relates_to"}),
        "graph" => json!({"from": "probe"}),
        "entity" => json!({"name": "probe"}),
        "update" => json!({"id": "no-such-memory"}),
        _ => json!({}),
    }
}

/// Each parameter of each tool (from its schema) with every JSON type the
/// schema does not allow it: an error naming the parameter.
fn wrong_types(schemas: &[(String, Value)]) -> Vec<Case> {
    let samples = [
        ("string", json!("text")),
        ("number", json!(42.5)),
        ("integer", json!(7)),
        ("boolean", json!(true)),
        ("object", json!({"a": 1})),
        ("array", json!([1, 2])),
    ];
    let mut cases = Vec::new();
    for (tool, schema) in schemas {
        let Some(properties) = schema["properties"].as_object() else { continue };
        for (name, property) in properties {
            let allowed = property["type"].as_str().unwrap_or("");
            // One string is taken as a list of strings of one.
            let strings = property["items"]["type"] == "string";
            for (kind, value) in &samples {
                let fits = *kind == allowed
                    || (allowed == "number" && *kind == "integer")
                    || (allowed == "array" && strings && *kind == "string")
                    || allowed.is_empty();
                if fits {
                    continue;
                }
                let mut arguments = base_arguments(tool);
                arguments[name.as_str()] = value.clone();
                cases.push((tool.clone(), arguments, Expect::Error(leak(name))));
            }
        }
    }
    cases
}

/// Every bound a tool's schema states (lengths, item counts, ranges,
/// patterns, required and unknown parameters), crossed: an error naming the
/// parameter. The schemas are generated from the tools' types with core's
/// constants; this checks that what they promise is what the node enforces.
fn bound_cases(schemas: &[(String, Value)]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (tool, schema) in schemas {
        let base = base_arguments(tool);
        let mut call = |name: &str, value: Value, needle: String| {
            let mut arguments = base.clone();
            arguments[name] = value;
            cases.push((tool.clone(), arguments, Expect::Error(leak(&needle))));
        };
        let Some(properties) = schema["properties"].as_object() else { continue };
        for (name, property) in properties {
            let number = |key: &str| property[key].as_u64().map(|value| value as usize);
            if let Some(max) = number("maxLength") {
                call(name, json!("x".repeat(max + 1)), name.clone());
            }
            if number("minLength") == Some(1) {
                call(name, json!(""), name.clone());
            }
            if let Some(max) = number("maxItems") {
                let items: Vec<String> = (0..=max).map(|index| format!("item{index}")).collect();
                call(name, json!(items), name.clone());
            }
            if number("minItems") == Some(1) {
                call(name, json!([]), name.clone());
            }
            let items = &property["items"];
            if let Some(max) = items["maxLength"].as_u64() {
                call(name, json!(["x".repeat(max as usize + 1)]), format!("{name}[0]"));
            }
            if items["minLength"].as_u64() == Some(1) {
                call(name, json!(["   "]), format!("{name}[0]"));
            }
            if let Some(max) = property["maximum"].as_f64() {
                let above = if property["type"] == "integer" {
                    json!(max as i64 + 1)
                } else {
                    json!(max + 0.5)
                };
                call(name, above, name.clone());
            }
            if let Some(min) = property["minimum"].as_f64() {
                let below = if property["type"] == "integer" {
                    json!(min as i64 - 1)
                } else {
                    json!(min - 0.5)
                };
                call(name, below, name.clone());
            }
            if property["pattern"].is_string() {
                call(name, json!("not a name!"), name.clone());
            }
            if let Some(values) = property["enum"].as_array() {
                assert!(!values.contains(&json!("bogus")));
                call(name, json!("bogus"), name.clone());
            }
        }
        call("unexpected_extra", json!(1), "unexpected_extra is not a parameter".to_owned());
        for required in schema["required"].as_array().into_iter().flatten() {
            let name = required.as_str().unwrap();
            let mut arguments = base.clone();
            arguments.as_object_mut().unwrap().remove(name);
            cases.push((
                tool.clone(),
                arguments,
                Expect::Error(leak(&format!("{name} is missing"))),
            ));
        }
    }
    cases
}

/// `text` for the lifetime of the test (cases borrow their expectations).
fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

/// Unicode edge cases and FTS and SQL metacharacters where tools take text:
/// searched or looked up as text, refused where a name's rules forbid them.
fn edge_cases() -> Vec<Case> {
    use Expect::{Answer, Error};
    let texts = [
        "'; DROP TABLE memories; --",
        "\" OR 1=1 --",
        "%",
        "_",
        "\\",
        "memories MATCH 'x'",
        "NEAR(a b, 2)",
        "col:term",
        "a\u{202E}b",
        "e\u{301}",
        "🦀🦀",
        "\u{FEFF}word",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
        "日本語のテキスト",
        "\u{200B}",
    ];
    let mut cases = Vec::new();
    for text in texts {
        cases.push(("recall".to_owned(), json!({"query": text}), Answer));
        cases.push(("forget".to_owned(), json!({"ids": [text]}), Answer));
        cases.push(("history".to_owned(), json!({"id": text}), Error("id names no memory")));
        cases.push((
            "store".to_owned(),
            json!({"content": "probe", "supersedes": text}),
            Error("supersedes names no memory"),
        ));
        // A namespace is a name: what its rules allow is searched (and empty).
        let namespace =
            if ferrex_core::Namespace::parse(text).is_ok() { Answer } else { Error("namespace") };
        cases.push(("recall".to_owned(), json!({"query": "x", "namespace": text}), namespace));
    }
    cases.push(("recall".to_owned(), json!({"query": "é".repeat(8000)}), Answer));
    cases.push((
        "recall".to_owned(),
        json!({"query": "é".repeat(8193)}),
        Error("query is 16386 bytes"),
    ));
    cases
}

fn cases(existing: &str) -> Vec<(&'static str, Value, Expect)> {
    use Expect::{Answer, Error};
    let long = "x".repeat(16 * 1024 + 1);
    let name = "n".repeat(513);
    vec![
        // Wrong types.
        ("store", json!({"content": 42}), Error("content must be a string, not a number")),
        (
            "store",
            json!({"content": "x", "tags": 1}),
            Error("tags must be a string or a list of strings"),
        ),
        ("store", json!({"content": "x", "tags": [1]}), Error("tags[0] must be a string")),
        (
            "store",
            json!({"content": "x", "confidence": "high"}),
            Error("confidence must be a number"),
        ),
        ("store", json!({"content": "x", "namespace": 5}), Error("namespace must be a string")),
        ("store", json!({"content": ["a"]}), Error("content must be a string, not an array")),
        ("recall", json!({"query": "x", "limit": "ten"}), Error("limit must be a whole number")),
        ("recall", json!({"query": "x", "limit": 2.5}), Error("limit must be a whole number")),
        ("recall", json!({"query": {"text": "x"}}), Error("query must be a string, not an object")),
        ("recall", json!({"query": "x", "types": ["bogus"]}), Error("types[0] must be episodic")),
        (
            "forget",
            json!({"ids": {"id": "abc"}}),
            Error("ids must be a string or a list of strings"),
        ),
        // One string where a list of strings is asked for is a list of one.
        ("task", json!({"action": "list", "status": "done"}), Answer),
        ("recall", json!({"query": "x", "types": "semantic"}), Answer),
        // Missing fields.
        ("store", json!({}), Error("content is missing")),
        ("store", json!({"subject": "a", "predicate": "b"}), Error("object is missing")),
        ("recall", json!({}), Error("query is missing")),
        ("forget", json!({}), Error("ids is missing")),
        ("forget", json!({"ids": []}), Error("ids must list at least one")),
        // Oversized strings and lists.
        ("store", json!({"content": long}), Error("content is 16385 bytes long")),
        (
            "store",
            json!({"subject": name, "predicate": "p", "object": "o"}),
            Error("subject is 513 bytes"),
        ),
        (
            "store",
            json!({"subject": "s", "predicate": name, "object": "o"}),
            Error("predicate is 513 bytes"),
        ),
        ("store", json!({"content": "x", "entities": [name]}), Error("entities[0] is 513 bytes")),
        ("store", json!({"content": "x", "tags": vec!["t"; 65]}), Error("tags has 65 items")),
        ("recall", json!({"query": "x".repeat(16 * 1024 + 1)}), Error("query is 16385 bytes")),
        // Bad namespaces.
        (
            "store",
            json!({"content": "x", "namespace": "has space"}),
            Error("namespace contains ' '"),
        ),
        ("store", json!({"content": "x", "namespace": ""}), Error("namespace must not be empty")),
        (
            "recall",
            json!({"query": "x", "namespace": "n".repeat(65)}),
            Error("namespace is 65 characters"),
        ),
        ("recall", json!({"query": "x", "namespace": "a/b"}), Error("namespace contains '/'")),
        // Confidence out of range (JSON has no NaN: a client sends it as null or text).
        (
            "store",
            json!({"content": "x", "confidence": -0.5}),
            Error("confidence must be between 0 and 1"),
        ),
        (
            "store",
            json!({"content": "x", "confidence": 1.5}),
            Error("confidence must be between 0 and 1"),
        ),
        (
            "store",
            json!({"content": "x", "confidence": "NaN"}),
            Error("confidence must be a number"),
        ),
        // Unknown ids.
        ("forget", json!({"ids": ["no-such-memory"]}), Answer),
        (
            "store",
            json!({"content": "x", "supersedes": "no-such-memory"}),
            Error("supersedes names no memory"),
        ),
        ("forget", json!({"ids": [""]}), Error("ids[0] must not be empty")),
        // FTS syntax is searched as text.
        ("recall", json!({"query": "C++"}), Answer),
        ("recall", json!({"query": "\"unbalanced"}), Answer),
        ("recall", json!({"query": "foo OR"}), Answer),
        ("recall", json!({"query": "NEAR("}), Answer),
        ("recall", json!({"query": "*"}), Answer),
        ("recall", json!({"query": "-x"}), Answer),
        ("recall", json!({"query": "a AND NOT b:c ^d"}), Answer),
        // Shapes that contradict each other.
        ("store", json!({"content": "x", "subject": "a"}), Error("cannot be combined")),
        (
            "store",
            json!({"content": "x", "memory_type": "semantic"}),
            Error("memory_type is semantic"),
        ),
        (
            "store",
            json!({"content": "x", "memory_type": "fact"}),
            Error("memory_type must be episodic"),
        ),
        ("store", json!({"content": "   "}), Error("content must not be empty")),
        ("store", json!({"content": "nul\u{0}byte"}), Error("content contains a NUL")),
        ("recall", json!({"query": "   "}), Error("query must not be empty")),
        ("recall", json!({"query": "x", "limit": 0}), Error("limit must be between 1 and 200")),
        ("recall", json!({"query": "x", "limit": 201}), Error("limit must be between 1 and 200")),
        // The belief tools and recall's filters.
        ("history", json!({}), Error("id is missing")),
        ("history", json!({"subject": "db"}), Error("predicate is missing")),
        ("history", json!({"id": "x", "subject": "db", "predicate": "v"}), Error("not both")),
        ("history", json!({"id": "no-such-memory"}), Error("id names no memory")),
        ("history", json!({"subject": "db", "predicate": "version"}), Answer),
        ("reflect", json!({"include_stale": "yes"}), Error("include_stale must be true or false")),
        ("reflect", json!({"namespace": "bad ns"}), Error("namespace contains ' '")),
        ("stats", json!({"detailed": 1}), Error("detailed must be true or false")),
        ("recall", json!({"query": "x", "entities": "tokio"}), Answer),
        (
            "recall",
            json!({"query": "x", "entities": 7}),
            Error("entities must be a string or a list"),
        ),
        ("recall", json!({"query": "x", "entities": ""}), Error("entities[0] must not be empty")),
        ("recall", json!({"query": "x", "entities": [""]}), Error("entities[0] must not be empty")),
        (
            "recall",
            json!({"query": "x", "time_range": {"start": "soon"}}),
            Error("time_range.start"),
        ),
        ("recall", json!({"query": "x", "validate_ids": ["no-such-memory"]}), Answer),
        (
            "recall",
            json!({"query": "x", "diversity": -0.1}),
            Error("diversity must be between 0 and 1"),
        ),
        ("recall", json!({"query": "x", "entities": ["nobody-known"]}), Answer),
        ("store", json!({"content": "x", "valid_from": "last week"}), Error("valid_from")),
        (
            "store",
            json!({"content": "x", "valid_from": 20250101}),
            Error("valid_from must be a string"),
        ),
        (
            "store",
            json!({"subject": "api", "predicate": "port", "object": "1", "valid_from": "2025-01-01"}),
            Error("valid_from is for text memories"),
        ),
        // The graph tools.
        ("link", json!({"from": "a", "to": "b"}), Error("relation")),
        ("link", json!({"from": "a", "to": "b", "relation": "supersedes"}), Error("update")),
        ("link", json!({"from": "a", "to": "b", "relation": "!!"}), Error("no letters or digits")),
        ("link", json!({"from": "a", "to": "a", "relation": "uses"}), Error("same node")),
        (
            "link",
            json!({"from": "", "to": "b", "relation": "uses"}),
            Error("from must not be empty"),
        ),
        ("link", json!({"from": existing, "to": "b", "relation": "uses"}), Error("both")),
        (
            "link",
            json!({"from": "a", "to": "b", "relation": "uses", "confidence": 2}),
            Error("confidence"),
        ),
        ("link", json!({"from": "a", "to": "b", "relation": "x".repeat(600)}), Error("bytes")),
        ("graph", json!({"from": "nobody"}), Error("names no entity or memory")),
        ("graph", json!({"from": "a", "depth": 9}), Error("depth")),
        ("graph", json!({"from": "a", "direction": "up"}), Error("direction")),
        ("graph", json!({"from": "a", "limit": 0}), Error("limit")),
        ("entity", json!({"name": "   "}), Error("name must not be empty")),
        ("entity", json!({"name": "nobody"}), Error("names no entity")),
        ("update", json!({"id": "no-such-memory", "content": "x"}), Error("names no memory")),
        ("update", json!({"id": existing}), Error("nothing to change")),
        ("update", json!({"id": existing, "object": "x"}), Error("content")),
        ("update", json!({"id": existing, "importance": 1.5}), Error("importance")),
        ("update", json!({"id": existing, "tags": [""]}), Error("tags[0] must not be empty")),
        // Watched files.
        ("index_files", json!({"path": "docs"}), Error("relative")),
        ("index_files", json!({"path": "/no/such/folder"}), Error("No such file")),
        ("index_files", json!({"path": "/proc/version"}), Error("neither a folder")),
        ("index_files", json!({"remove": "/no/such/folder"}), Error("is not watched")),
        ("index_files", json!({"share": true}), Error("give path too")),
        // Unknown parameters and tools.
        ("store", json!({"contents": "x"}), Error("contents is not a parameter")),
        ("recall", json!({"query": "x", "k": 3}), Error("k is not a parameter")),
        ("remember", json!({"content": "x"}), Error("\"remember\" is not a tool")),
        ("stats", json!({"verbose": true}), Error("verbose is not a parameter")),
        // And valid calls that reference real data still work.
        ("recall", json!({"query": "original", "limit": 1}), Answer),
        ("store", json!({"content": "a replacement", "supersedes": existing}), Answer),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_calls_get_clear_errors_and_change_nothing_over_stdio_and_http() {
    let (home, port) = TestHome::with_http("requests_per_second = 10000");
    let stdio = home.client().await;
    let url = ferrex_tests::mcp_url(port);
    let http = ferrex_tests::Client::connect_http(&url, Some(&home.http_token())).await.unwrap();
    let existing = stdio.store_text("the original memory", "default").await;
    let schemas = stdio.tool_schemas().await.unwrap();
    let mut table: Vec<Case> = cases(&existing)
        .into_iter()
        .map(|(tool, arguments, expect)| (tool.to_owned(), arguments, expect))
        .collect();
    table.extend(wrong_types(&schemas));
    table.extend(bound_cases(&schemas));
    table.extend(edge_cases());
    assert!(table.len() >= 200, "{} cases", table.len());
    let mut stored_by_valid_calls = 0;
    let mut calls = 0;
    for client in [&stdio, &http] {
        for (tool, arguments, expect) in &table {
            stored_by_valid_calls += check(client, tool, arguments, *expect).await;
            calls += 1;
        }
    }
    eprintln_calls(calls);
    // Nothing but the valid stores changed anything, and the node still serves.
    let stats = stdio.ok("stats", json!({})).await;
    assert_eq!(stats["memories"], 1 + stored_by_valid_calls);
    assert_eq!(stats["forgotten"], 0);
    let id = http.store_text("still serving after all that", "default").await;
    assert_eq!(stdio.recall_ids("still serving", "default", 1).await, vec![id]);
    http.close().await;
    stdio.close().await;
}

#[allow(clippy::print_stderr, reason = "the figure of record, shown with --nocapture")]
fn eprintln_calls(calls: usize) {
    eprintln!("{calls} malformed or edge-case calls, over stdio and HTTP");
}

/// Makes one call and checks its answer; 1 if it was a store that stored.
async fn check(
    client: &ferrex_tests::Client,
    tool: &str,
    arguments: &Value,
    expect: Expect,
) -> u64 {
    let answer = client.call(tool, arguments.clone()).await.unwrap();
    let mut stored = 0;
    match (expect, answer) {
        (Expect::Error(needle), Err(message)) => {
            assert!(message.contains(needle), "{tool} {arguments}: {message:?} lacks {needle:?}")
        }
        (Expect::Error(needle), Ok(answer)) => {
            panic!("{tool} {arguments} was accepted ({answer}) but should fail with {needle:?}")
        }
        (Expect::Answer, Ok(answer)) => {
            if tool == "store" && answer["status"] == "stored" {
                stored = 1;
            }
            assert!(answer.is_object(), "{answer}");
        }
        (Expect::Answer, Err(message)) => panic!("{tool} {arguments} failed: {message}"),
    }
    stored
}
