//! The formats a memory travels in: ferrex's own JSON Lines export
//! ([`jsonl`]), the foreign sources `ferrex import` reads ([`foreign`]), and
//! the Markdown export a person keeps ([`markdown`]). Pure reading and
//! writing of text; storing what was read is the engine's.

pub mod foreign;
pub mod jsonl;
pub mod markdown;

/// How a source is read: stopping at the first bad line, row or file (the
/// default: nothing is imported then), or skipping it and going on
/// (`--keep-going`), with what was skipped and why.
#[derive(Debug, Default)]
pub struct Reading {
    /// Skip what is bad instead of stopping.
    pub keep_going: bool,
    /// What was skipped, and why.
    pub skipped: Vec<String>,
}

impl Reading {
    /// A bad line, row or file: an error, or (keeping going) noted.
    pub fn bad<E: std::fmt::Display>(&mut self, why: E) -> Result<(), E> {
        if self.keep_going {
            self.skipped.push(why.to_string());
            Ok(())
        } else {
            Err(why)
        }
    }
}
