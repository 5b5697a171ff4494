//! The `ferrex` binary: command line, node lifecycle and MCP server.

use std::{path::PathBuf, process::ExitCode, time::Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use ferrex_core::Embedder;
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch, ModelTier};

/// Persistent memory for AI agents, synced peer to peer across your devices.
#[derive(Debug, Parser)]
#[command(name = "ferrex", version, about)]
struct Cli {
    /// Directory holding this node's config, documents, index, socket and logs.
    #[arg(long, env = "FERREX_HOME", global = true)]
    home: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check the embedding runtime and model.
    Doctor {
        /// Model directory to search instead of the home and cache directories.
        #[arg(long, env = "FERREX_EMBED_MODEL_DIR")]
        model_dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report(&format!("ferrex: {error:#}"));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => anyhow::bail!("the MCP server is not built yet; try `ferrex doctor`"),
        Some(Command::Doctor { model_dir }) => doctor(cli.home, model_dir),
    }
}

fn doctor(home: Option<PathBuf>, model_dir: Option<PathBuf>) -> anyhow::Result<()> {
    let search = ModelSearch { model_dir, home, use_cache_dir: true };
    let files = search.locate(ModelTier::Small)?;
    let started = Instant::now();
    files.verify()?;
    let verified = started.elapsed();
    let mut embedder = FastEmbedder::from_verified_files(&files, &EmbedderOptions::default())
        .context("loading the embedding model")?;
    let vector = embedder.embed_one("ferrex doctor")?;
    report(&format!(
        "runtime   {}\nmodel     {} ({} dimensions)\nverified  sha256 in {} ms\nembedding ok ({} floats)",
        files.runtime.display(),
        files.tier_dir.display(),
        embedder.dimension(),
        verified.as_millis(),
        vector.len()
    ));
    Ok(())
}

/// Writes a line for a person to stderr: stdout is reserved for MCP.
#[allow(clippy::print_stderr, reason = "the binary's user-facing output goes to stderr")]
fn report(text: &str) {
    eprintln!("{text}");
}
