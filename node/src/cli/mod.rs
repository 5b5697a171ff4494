//! The people's commands: a file per command family, each turning a typed
//! command line into requests to the running node (over its control socket)
//! and its answers into tables or `--json`. `main.rs` holds the command
//! table and the dispatch; what each command does lives here.

pub mod memory;
pub mod peers;
pub mod transfer;
