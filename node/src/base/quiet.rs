//! What the process turns off before any other thread exists: ONNX
//! Runtime's usage telemetry. Microsoft's builds of the runtime (the
//! library the PyPI wheel carries, which ferrex loads) send it on Linux too,
//! to mobile.events.data.microsoft.com, a few seconds after a node loads the
//! model: scripts/claude-code's DNS log caught a node asking. Turning it off
//! on the runtime's environment (ferrex_embed::runtime) still let one
//! upload through; the variable the runtime reads at load time stops it.

/// The variable ONNX Runtime reads, inherited by every process ferrex
/// starts (a node started by a hook or the MCP bridge).
pub const ORT_TELEMETRY_OFF: (&str, &str) = ("ORT_DISABLE_TELEMETRY", "1");

/// Sets [`ORT_TELEMETRY_OFF`] for this process and its children, unless the
/// person set the variable themselves.
pub fn runtime_telemetry_off() {
    let (name, value) = ORT_TELEMETRY_OFF;
    if std::env::var_os(name).is_none() {
        #[allow(unsafe_code, reason = "the environment is written before any thread exists")]
        // SAFETY: called first thing in `main`, before any other thread
        // exists that could read the environment at the same time.
        unsafe {
            std::env::set_var(name, value);
        }
    }
}
