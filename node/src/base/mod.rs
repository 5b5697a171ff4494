//! The ground every layer stands on: a node's home directory and the files
//! in it, its local socket, its configuration, the one clock, logging, this device's identity,
//! what a command prints for a person, the poison-ignoring lock and the
//! allocator's settings. Nothing here knows the engine, the index or
//! a surface; every other folder may use it.

pub mod allocator;
pub mod console;
pub mod device;
pub mod home;
pub mod local_socket;
pub mod logging;
pub mod project;
pub mod quiet;

// The engine's ground, shared with the binary.
pub use ferrex_engine::base::{clock, config};
