//! The surfaces agents, browsers and commands reach: MCP (over stdio through
//! the bridge, and over Streamable HTTP), the web page, the control socket
//! that commands speak, and the views and status a person asks for. Each
//! translates its protocol into the engine's requests and the engine's
//! results into its answers; none decides anything itself.

pub mod bridge;
pub mod control;
pub mod hook;
pub mod http;
pub mod installs;
pub mod mcp;
pub mod replies;
pub mod status;
pub mod telling;
pub mod ui;
pub mod views;
