//! What the engine stands on: its settings ([`config`]), the one clock
//! ([`clock`]) and the poison-ignoring lock ([`lock`]).

pub mod clock;
pub mod config;
pub mod lock;
