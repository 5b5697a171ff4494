//! The formats a memory travels in: ferrex's own JSON Lines export
//! ([`jsonl`]), the foreign sources `ferrex import` reads ([`foreign`]), and
//! the Markdown export a person keeps ([`markdown`]). Pure reading and
//! writing of text; storing what was read is the engine's.

pub mod foreign;
pub mod jsonl;
pub mod markdown;
