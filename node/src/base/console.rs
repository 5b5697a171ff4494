//! What a command prints for a person: its result on stdout (a command's
//! stdout is not the MCP channel; `ferrex` without a command is) and
//! reports on stderr.

/// Prints a command's result on stdout.
#[allow(clippy::print_stdout, reason = "the output of a command for people and scripts")]
pub fn output(text: &str) {
    println!("{text}");
}

/// Writes a line for a person to stderr: stdout is reserved for MCP.
#[allow(clippy::print_stderr, reason = "the binary's user-facing output goes to stderr")]
pub fn report(text: &str) {
    eprintln!("{text}");
}
