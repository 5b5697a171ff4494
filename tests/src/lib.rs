//! Helpers for ferrex's end-to-end tests: temporary homes, real `ferrex`
//! processes, and MCP clients that drive them.
