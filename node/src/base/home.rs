//! A node's home directory and the files in it.

use std::path::{Path, PathBuf};

use anyhow::Context;
use ferrex_sync::platform;

/// The directory holding one node: config, documents, index, socket, logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// The home given by `--home` / `FERREX_HOME`, else the platform data
    /// directory (`~/.local/share/ferrex` on Linux).
    pub fn resolve(explicit: Option<PathBuf>) -> anyhow::Result<Home> {
        let root = match explicit {
            Some(path) => path,
            None => directories::ProjectDirs::from("", "", "ferrex")
                .map(|dirs| dirs.data_dir().to_owned())
                .context("cannot find a home directory; pass --home DIR or set FERREX_HOME")?,
        };
        let root = if root.is_absolute() {
            root
        } else {
            std::env::current_dir().context("reading the current directory")?.join(root)
        };
        Ok(Home { root })
    }

    /// Creates the home, its owner's alone (mode 0700: it holds the node's
    /// socket and key).
    pub fn create(&self) -> anyhow::Result<()> {
        if !self.root.exists() {
            platform::create_private_dir_all(&self.root)
                .with_context(|| format!("creating {}", self.root.display()))?;
            platform::restrict_to_owner(&self.root)
                .with_context(|| format!("restricting {}", self.root.display()))?;
        }
        Ok(())
    }

    /// The home directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `ferrex.toml`.
    pub fn config_file(&self) -> PathBuf {
        self.root.join("ferrex.toml")
    }

    /// The folders `index_files` added (the configured ones are in
    /// `ferrex.toml`).
    pub fn watched_file(&self) -> PathBuf {
        self.root.join("watched.json")
    }

    /// The documents directory.
    pub fn docs_dir(&self) -> PathBuf {
        self.root.join("docs")
    }

    /// The SQLite index.
    pub fn index_file(&self) -> PathBuf {
        self.root.join("index.sqlite")
    }

    /// The lock held by the running node.
    pub fn lock_file(&self) -> PathBuf {
        self.root.join("node.lock")
    }

    /// The running node's process id.
    pub fn pid_file(&self) -> PathBuf {
        self.root.join("node.pid")
    }

    /// This device's secret key (its identity; mode 0600).
    pub fn key_file(&self) -> PathBuf {
        self.root.join("device.key")
    }

    /// The network's local state: invitations, peer records, last port.
    pub fn sync_dir(&self) -> PathBuf {
        self.root.join("sync")
    }

    /// The shares this device holds (`ferrex_sync::shares`).
    pub fn shares_dir(&self) -> PathBuf {
        self.sync_dir().join("shares")
    }

    /// Where a node installing the embedding model says so, and what became
    /// of it when it failed (`model-install`; gone once the model is in).
    fn model_install_file(&self) -> PathBuf {
        self.root.join("model-install")
    }

    /// What a node of this home says of installing the model: installing
    /// now (a mark under 15 minutes old: one left by a node killed midway
    /// goes stale), or failed, and why.
    pub fn model_install(&self) -> Option<ModelInstall> {
        let path = self.model_install_file();
        let text = std::fs::read_to_string(&path).ok()?;
        if let Some(why) = text.strip_prefix("failed: ") {
            return Some(ModelInstall::Failed(why.trim().to_owned()));
        }
        let age = std::fs::metadata(&path).and_then(|meta| meta.modified()).ok()?.elapsed().ok()?;
        (age < std::time::Duration::from_secs(15 * 60)).then_some(ModelInstall::Installing)
    }

    /// Records what installing the model came to (`None`: nothing to say,
    /// the model is in).
    pub fn set_model_install(&self, state: Option<&ModelInstall>) {
        let path = self.model_install_file();
        let written = match state {
            None => match std::fs::remove_file(&path) {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
            Some(ModelInstall::Installing) => std::fs::write(&path, "installing\n"),
            Some(ModelInstall::Failed(why)) => std::fs::write(&path, format!("failed: {why}\n")),
        };
        if let Err(error) = written {
            tracing::warn!("recording the model's install in {}: {error}", path.display());
        }
    }

    /// Logs.
    pub fn log_dir(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// The Unix socket the node listens on. Socket paths are limited to about
    /// 100 bytes, so a long home gets its socket in the temporary directory,
    /// named after a hash of the home.
    pub fn socket_file(&self) -> PathBuf {
        let inside = self.root.join("ferrex.sock");
        if inside.as_os_str().len() < 100 {
            return inside;
        }
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(self.root.as_os_str().as_encoded_bytes());
        let name: String = digest[..8].iter().map(|byte| format!("{byte:02x}")).collect();
        std::env::temp_dir().join(format!("ferrex-{name}.sock"))
    }
}

/// What became of installing the embedding model (see [`Home::model_install`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelInstall {
    /// A node is installing it.
    Installing,
    /// The last install failed, and why.
    Failed(String),
}
