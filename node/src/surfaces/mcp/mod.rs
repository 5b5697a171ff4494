//! The MCP server: ferrex's tools over rmcp, on any byte stream.

pub(crate) mod args;
pub mod graph;
pub(crate) mod params;
mod resources;
pub mod tools;
pub mod working;

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
        GetPromptRequestParams, GetPromptResponse, Implementation, InitializeResult,
        ListPromptsResult, ListResourceTemplatesResult, ListToolsResult, PaginatedRequestParams,
        ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, Tool, ToolAnnotations,
    },
    service::RequestContext,
};
use serde_json::json;

use ferrex_engine::engine::{Engine, ToolError};
use tools::Effect;

/// What the server tells agents about itself.
const INSTRUCTIONS: &str = "ferrex is your persistent memory, shared with this user's other \
devices. Call `context` when a session starts: it says where work stands in this project, on \
every device. `store` facts (subject/predicate/object), events and how-tos as you learn them; \
`recall` before answering questions that may depend on what was learned before; keep `task`s \
and `session` events as you work; `forget` what is wrong or unwanted; `reflect` to find stale \
memories.";

/// One MCP session's handler; sessions share the engine.
#[derive(Clone)]
pub struct FerrexServer {
    engine: Arc<Engine>,
    origin: working::Origin,
}

/// The HTTP header that names the agent's project (a repository's remote,
/// or a name), as the stdio bridge's working directory does.
pub const PROJECT_HEADER: &str = "x-ferrex-project";

impl FerrexServer {
    /// A handler over `engine`, for calls from `origin`.
    pub fn new(engine: Arc<Engine>, origin: working::Origin) -> Self {
        FerrexServer { engine, origin }
    }

    /// The origin of one call: the session's, or over HTTP the project the
    /// request's header names.
    fn origin_of(&self, context: &RequestContext<RoleServer>) -> working::Origin {
        let header = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get(PROJECT_HEADER))
            .and_then(|value| value.to_str().ok());
        match header {
            Some(value) => working::Origin::of(ferrex_core::project::Project::of_remote(value)),
            None => self.origin.clone(),
        }
    }
}

/// The tool list as rmcp types, built once: rmcp asks for a tool by name
/// on every call of protocol 2026-07-28 (to check its headers).
pub fn tool_list() -> &'static [Tool] {
    static TOOLS: std::sync::LazyLock<Vec<Tool>> = std::sync::LazyLock::new(build_tool_list);
    &TOOLS
}

fn build_tool_list() -> Vec<Tool> {
    tools::TOOLS
        .iter()
        .zip(tools::schemas())
        .map(|(spec, tools::Schemas { input, output })| {
            // Hints equal to MCP's defaults (not read-only, not idempotent)
            // are left out, and so are those MCP reads only of tools that
            // write (destructive, idempotent) from read-only ones: agents
            // pay for every byte of the tool list.
            let mut annotations = ToolAnnotations::new().open_world(false);
            match spec.effect {
                Effect::ReadOnly => annotations = annotations.read_only(true),
                effect => {
                    annotations = annotations.destructive(effect == Effect::Destructive);
                    if effect != Effect::Additive {
                        annotations = annotations.idempotent(true);
                    }
                }
            }
            Tool::new(spec.name, spec.description, Arc::new(input.clone()))
                .with_raw_output_schema(Arc::new(output.clone()))
                .with_title(spec.title)
                .with_annotations(annotations)
        })
        .collect()
}

impl ServerHandler for FerrexServer {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("ferrex", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tool_list().iter().find(|tool| tool.name == name).cloned()
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let engine = self.engine.clone();
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || resources::read(&engine, &uri))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))??;
        Ok(ReadResourceResponse::Complete(read))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(resources::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == resources::CONTEXT {
            let engine = self.engine.clone();
            let origin = self.origin_of(&context);
            let params = params::Context { namespace: None, budget: None };
            let answer =
                tokio::task::spawn_blocking(move || working::context(&engine, &origin, params))
                    .await
                    .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
                    .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
            let text = if answer.text.is_empty() {
                "ferrex has nothing recorded for this project yet.".to_owned()
            } else {
                answer.text
            };
            return Ok(GetPromptResponse::Complete(
                rmcp::model::GetPromptResult::new(vec![rmcp::model::PromptMessage::new_text(
                    rmcp::model::Role::User,
                    text,
                )])
                .with_description("Where work stands in this project, on every device."),
            ));
        }
        Ok(GetPromptResponse::Complete(resources::prompt(&request.name)?))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tool_list().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let engine = self.engine.clone();
        let origin = self.origin_of(&context);
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let tool = name.clone();
        let outcome =
            tokio::task::spawn_blocking(move || tools::call(&engine, &origin, &name, arguments))
                .await;
        let result = match outcome {
            Ok(Ok(answer)) => CallToolResult::structured(answer),
            Ok(Err(ToolError::Invalid(error))) => failed(json!({
                "error": format!("invalid {error}"),
                "field": error.field,
            })),
            Ok(Err(ToolError::Conflict(reason))) => failed(json!({"error": reason})),
            Ok(Err(ToolError::Internal(error))) => {
                let error = ferrex_engine::base::with_causes(&error);
                tracing::error!(tool, "tool failed: {error}");
                failed(json!({"error": format!("{tool} failed: {error}")}))
            }
            Err(join_error) => {
                tracing::error!(tool, "tool panicked: {join_error}");
                failed(
                    json!({"error": format!("{tool} failed: an internal error (see the node log)")}),
                )
            }
        };
        Ok(CallToolResponse::Complete(result))
    }
}

/// A tool error: `{"error": …, "field": …}` as the result's text, with no
/// structured content (clients check structured content against the tool's
/// output schema, which describes its answer, even on an error).
fn failed(error: serde_json::Value) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_string())])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes of JSON the whole `tools/list` answer may take (names, titles,
    /// descriptions, input and output schemas, annotations): about 4,000 tokens
    /// at the usual 4 bytes a token. Agents pay for it at the start of every
    /// session.
    const TOOL_LIST_BUDGET: usize = 16_000;

    /// How many tools ferrex is planned to have (the first six, eight for
    /// working state and the knowledge graph, and `index_files`, all
    /// written now: a new tool must make room for itself); each not written
    /// yet is counted at [`PLANNED_TOOL_BYTES`] against the budget.
    const PLANNED_TOOLS: usize = 15;

    /// What a planned tool may take: an action-style tool with a few
    /// parameters, described by when to use it.
    const PLANNED_TOOL_BYTES: usize = 800;

    #[test]
    fn every_tool_says_what_it_does_to_the_memory() {
        let tools = tool_list();
        assert_eq!(tools.len(), tools::TOOLS.len());
        let hint = |name: &str| {
            let tool = tools.iter().find(|tool| tool.name == name).expect(name);
            let annotations = tool.annotations.clone().expect("annotations");
            assert!(tool.title.as_deref().is_some_and(|title| !title.is_empty()), "{name}");
            assert_eq!(annotations.open_world_hint, Some(false), "{name}");
            (annotations.read_only_hint, annotations.destructive_hint, annotations.idempotent_hint)
        };
        // Absent hints take MCP's defaults: not read-only, destructive (of
        // a tool that writes), not idempotent.
        for read_only in ["reflect", "history", "stats", "context", "graph", "entity"] {
            assert_eq!(hint(read_only), (Some(true), None, None), "{read_only}");
        }
        // validate_ids writes (that memories were checked): not read-only.
        assert_eq!(hint("recall"), (None, Some(false), Some(true)));
        for additive in ["store", "session", "task", "observe", "link", "update"] {
            assert_eq!(hint(additive), (None, Some(false), None), "{additive}");
        }
        assert_eq!(hint("forget"), (None, Some(true), Some(true)));
    }

    #[test]
    #[allow(clippy::print_stderr, reason = "the figure of record, shown with --nocapture")]
    fn the_tool_list_fits_its_budget_with_room_for_the_planned_tools() {
        let tools = tool_list();
        let answer = ListToolsResult::with_all_items(tools.to_vec());
        let bytes = serde_json::to_vec(&answer).map(|json| json.len()).unwrap_or(usize::MAX);
        let planned = PLANNED_TOOLS.saturating_sub(tools.len()) * PLANNED_TOOL_BYTES;
        eprintln!("tools/list: {bytes} bytes of JSON for {} tools", tools.len());
        for tool in tools {
            let json = serde_json::to_string(tool).unwrap_or_default();
            eprintln!("  {}: {} bytes", tool.name, json.len());
            if std::env::var_os("FERREX_DUMP_TOOLS").is_some() {
                eprintln!("{json}");
            }
        }
        assert!(
            bytes + planned <= TOOL_LIST_BUDGET,
            "tools/list is {bytes} bytes for {} tools; with {planned} for the tools still \
             planned it outgrows the budget of {TOOL_LIST_BUDGET}",
            tools.len()
        );
    }
}
