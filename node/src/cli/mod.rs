//! The people's commands: a file per command family, each turning a typed
//! command line into requests to the running node (over its control socket;
//! a few, like `doctor`, an offline `reindex` or `peers` with no node
//! running, read the home themselves) and the answers into tables or
//! `--json`. `main.rs` holds the command
//! table and the dispatch; what each command does lives here.

pub mod memory;
pub mod node;
pub mod peers;
pub mod setup;
pub mod sharing;
pub mod transfer;
pub mod working;

use anyhow::Context;

/// The async runtime a command runs its requests on.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}
