//! The node's own commands: `ferrex stop`, `ferrex reindex` and `ferrex
//! doctor`.

use std::time::Instant;

use anyhow::Context;
use ferrex_core::Embedder;
use ferrex_embed::FastEmbedder;
use serde::Deserialize;

use crate::{
    base::{config, config::Config, console::report, home::Home},
    cli::runtime,
    lifecycle::{daemon, model, reindex},
    surfaces::{
        control,
        replies::{ReindexProgress, Reindexed},
    },
};

/// `ferrex stop`.
pub async fn stop(home: &Home) -> anyhow::Result<()> {
    let socket = home.socket_file();
    match control::send(&socket, &control::Request::Stop, |_| {}).await {
        Ok(_) => {}
        Err(error)
            if error.downcast_ref::<std::io::Error>().is_some_and(control::is_not_running) =>
        {
            report(&format!("no node is running for {}", home.root().display()));
            return Ok(());
        }
        Err(error) => return Err(error),
    }
    // Wait for it to let go of the home.
    let started = Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(30) {
        if daemon::lock_home(home).is_ok() {
            report("stopped");
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    anyhow::bail!("the node was asked to stop but still holds {} after 30 s", home.root().display())
}

/// `ferrex reindex`, with a progress bar: through the running node, or
/// offline when none runs.
pub fn reindex(home: &Home, config: &Config) -> anyhow::Result<()> {
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix:>9} [{bar:40}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let show = |phase: &str, done: u64, total: u64| {
        if bar.prefix() != phase {
            bar.set_prefix(phase.to_owned());
            bar.reset();
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    let started = Instant::now();
    let socket = home.socket_file();
    let runtime = runtime()?;
    let running = runtime.block_on(async {
        control::send(&socket, &control::Request::Reindex, |event| {
            if let Ok(progress) = ReindexProgress::deserialize(event) {
                show(&progress.phase, progress.done, progress.total);
            }
        })
        .await
    });
    let (memories, embedded) = match running {
        Ok(answer) => {
            let done = Reindexed::deserialize(&answer)?;
            (done.memories, done.embedded)
        }
        Err(error)
            if error.downcast_ref::<std::io::Error>().is_some_and(control::is_not_running) =>
        {
            let _lock = daemon::lock_home(home)?;
            let summary = reindex::rebuild_offline(home, config, |progress| {
                show(progress.phase, progress.done as u64, progress.total as u64)
            })?;
            (summary.memories as u64, summary.embedded as u64)
        }
        Err(error) => return Err(error),
    };
    bar.finish_and_clear();
    report(&format!(
        "reindexed {memories} memories ({embedded} embedded) in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// `ferrex doctor`.
pub fn doctor(home: &Home, config: &Config) -> anyhow::Result<()> {
    let files = model::model_search(home, config).locate(config.tier)?;
    let started = Instant::now();
    files.verify()?;
    let verified = started.elapsed();
    let mut embedder = FastEmbedder::from_verified_files(&files, &config.embedder_options())
        .context("loading the embedding model")?;
    let vector = embedder.embed_one("ferrex doctor")?;
    let depth = config.memory.ranking.rerank_depth;
    let reranker = if depth == 0 {
        "off (memory.rerank_depth = 0)".to_owned()
    } else {
        ferrex_embed::Reranker::load(&model::model_search(home, config), config.threads)
            .context("memory.rerank_depth is set: loading the reranker")?;
        format!("ms-marco-MiniLM-L-12-v2, reorders the best {depth}, files verified")
    };
    report(&format!(
        "home      {}\nconfig    {}\nruntime   {}\nmodel     {} ({}, {} dimensions; embed.model)\nfiles     {}\nverified  sha256 in {} ms\nembedding ok ({} floats)\nreranker  {reranker}\nnetwork   mode {}, bind {}",
        home.root().display(),
        if home.config_file().exists() {
            home.config_file().display().to_string()
        } else {
            "defaults (no ferrex.toml)".to_owned()
        },
        files.runtime.display(),
        config.tier,
        config.tier.model_name(),
        embedder.dimension(),
        files.tier_dir.display(),
        verified.as_millis(),
        vector.len(),
        config::mode_name(config.mode),
        config.bind,
    ));
    if let Some(user) = crate::surfaces::installs::user_home() {
        for (client, line) in crate::surfaces::installs::report(&user) {
            report(&format!("{client:<9} {line}"));
        }
    }
    Ok(())
}
