//! What the server offers besides tools: each memory as a resource
//! (`ferrex://memory/{id}`, its JSON as `recall` answers it, without the
//! query's score), and a prompt that tells an agent what to store and when
//! to recall.

use rmcp::{
    ErrorData,
    model::{
        GetPromptResult, Prompt, PromptMessage, ReadResourceResult, ResourceContents,
        ResourceTemplate, Role,
    },
};

use ferrex_engine::{answers, engine::Engine};

/// The scheme and path every memory's resource URI starts with.
const MEMORY_URI: &str = "ferrex://memory/";

/// The template of a memory's resource URI.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{MEMORY_URI}{{id}}"), "memory")
            .with_title("A memory")
            .with_description(
                "One memory by id (as recall and store answer it): its content, type, \
                 namespace, times, standing (current, superseded, corrected), tags and entities.",
            )
            .with_mime_type("application/json"),
    ]
}

/// Reads the resource at `uri`: a memory, or an error naming what is wrong.
pub fn read(engine: &Engine, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let Some(id) = uri.strip_prefix(MEMORY_URI).filter(|id| !id.is_empty() && !id.contains('/'))
    else {
        return Err(ErrorData::resource_not_found(
            format!("no resource {uri:?}: ferrex offers {MEMORY_URI}{{id}}"),
            None,
        ));
    };
    let row = engine.memory(id).map_err(|error| {
        ErrorData::internal_error(format!("reading memory {id}: {error}"), None)
    })?;
    let Some(row) = row else {
        return Err(ErrorData::resource_not_found(
            format!("no memory {id}: it does not exist or was forgotten"),
            None,
        ));
    };
    let text = serde_json::to_string_pretty(&answers::memory(&row))
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("application/json"),
    ]))
}

/// The name of the prompt that primes an agent.
pub const PRIMER: &str = "use-memory";

/// What the primer tells an agent: short, since it costs every session
/// that uses it (about 150 tokens).
const PRIMER_TEXT: &str = "You have a persistent memory (ferrex), shared with this user's \
other devices and agents.\n\
- Before answering anything that may depend on earlier work (decisions, preferences, names, \
commands, how a bug was fixed), call `recall` with the question in your own words.\n\
- When you learn something worth keeping, call `store` at once: a fact as subject, predicate \
and object (\"api-server\", \"port\", \"8080\"); an event or a how-to as a sentence or two of \
text with its context. One memory per idea; no secrets.\n\
- When a stored memory turns out wrong, `store` the correction (it supersedes the old one) or \
`forget` it by id.\n\
- Trust current facts over superseded ones, and check stale memories before relying on them.";

/// The name of the prompt that gives the session-start context (the
/// `context` tool's text; see `super::working`).
pub const CONTEXT: &str = "session-context";

/// The prompts offered.
pub fn prompts() -> Vec<Prompt> {
    vec![
        Prompt::new(
            PRIMER,
            Some("What to store in this memory and when to recall from it (about 150 tokens)."),
            None,
        )
        .with_title("Use ferrex memory"),
        Prompt::new(
            CONTEXT,
            Some(
                "Where work stands in this project: open tasks, the latest activity on every \
                 device, decisions, facts likely out of date (about 1,000 tokens at most).",
            ),
            None,
        )
        .with_title("Where work stands"),
    ]
}

/// The prompt `name` (but [`CONTEXT`], which needs the engine), or an
/// error naming the ones there are.
pub fn prompt(name: &str) -> Result<GetPromptResult, ErrorData> {
    if name != PRIMER {
        return Err(ErrorData::invalid_params(
            format!("no prompt {name:?}: ferrex offers {PRIMER:?} and {CONTEXT:?}"),
            None,
        ));
    }
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, PRIMER_TEXT)])
        .with_description("What to store in this memory and when to recall from it."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_primer_is_short() {
        // A token is about three quarters of a word in English text.
        let words = PRIMER_TEXT.split_whitespace().count();
        let tokens = words * 4 / 3;
        assert!((80..=200).contains(&tokens), "{words} words, about {tokens} tokens");
    }

    #[test]
    fn unknown_prompts_and_uris_are_errors_that_say_what_exists() {
        let error = prompt("nope").unwrap_err();
        assert!(error.message.contains(PRIMER), "{}", error.message);
    }
}
