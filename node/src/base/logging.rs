//! Logs: to a file in the home and to stderr; never to stdout, which is the
//! MCP channel.

use std::path::Path;

use tracing_subscriber::{EnvFilter, Layer, fmt, layer::SubscriberExt, util::SubscriberInitExt};

/// Keeps the file writer flushing until dropped.
pub type Guard = Option<tracing_appender::non_blocking::WorkerGuard>;

/// Lines the log file's writer holds before it drops new ones: its buffer
/// is allocated whole, 32 bytes a line (4 MB at the default 128,000).
const LOG_BUFFER_LINES: usize = 8_192;

/// Sets up logging. `FERREX_LOG` (an `EnvFilter` directive such as `debug` or
/// `ferrex=trace`) overrides `default_level`. With `log_dir`, logs also go to
/// `<log_dir>/<file_name>`.
pub fn init(default_level: &str, log_dir: Option<&Path>, file_name: &str) -> Guard {
    init_to(default_level, log_dir, file_name, true)
}

/// Logging for a hook: to `<log_dir>/<file_name>` only. The agent shows
/// what a hook writes to stderr (Claude Code in its transcript), and a hook
/// has nothing to tell the person there.
pub fn init_file_only(default_level: &str, log_dir: &Path, file_name: &str) -> Guard {
    init_to(default_level, Some(log_dir), file_name, false)
}

fn init_to(default_level: &str, log_dir: Option<&Path>, file_name: &str, to_stderr: bool) -> Guard {
    let filter = || {
        EnvFilter::try_from_env("FERREX_LOG").unwrap_or_else(|_| {
            EnvFilter::new(format!(
                "{default_level},automerge=warn,iroh=warn,iroh::protocol=error,noq=warn"
            ))
        })
    };
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .with_filter(filter());
    let stderr = to_stderr.then_some(stderr);
    let (file, guard) = match log_dir.filter(|dir| std::fs::create_dir_all(dir).is_ok()) {
        Some(dir) => {
            let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
                .buffered_lines_limit(LOG_BUFFER_LINES)
                .finish(tracing_appender::rolling::never(dir, file_name));
            let layer = fmt::layer().with_writer(writer).with_ansi(false).with_filter(filter());
            (Some(layer), Some(guard))
        }
        None => (None, None),
    };
    let _ = tracing_subscriber::registry().with(stderr).with(file).try_init();
    guard
}
