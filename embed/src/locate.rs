//! Finding the ONNX Runtime library and a tier's model files on disk.

use std::path::{Path, PathBuf};

use crate::{LoadError, ModelTier, runtime_pin};

/// The platform cache directory ferrex installs models into
/// (`$XDG_CACHE_HOME/ferrex/models` or `~/.cache/ferrex/models` on Linux).
pub fn default_cache_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "ferrex").map(|dirs| dirs.cache_dir().join("models"))
}

/// Where to look for model directories.
///
/// A model directory holds the ONNX Runtime library (`onnxruntime/`, by the
/// platform's own name: [`crate::RUNTIME_PINS`]) and one
/// directory per installed tier (`all-minilm-l6-v2/`, ...). The search order
/// is: the `embed.model_dir` setting when given (and then only it, so a
/// misconfigured path is reported rather than silently bypassed), else the
/// node's home (`<home>/models`), else the platform cache directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSearch {
    /// The `embed.model_dir` setting (`FERREX_EMBED_MODEL_DIR`).
    pub model_dir: Option<PathBuf>,
    /// The node's home directory; its `models/` subdirectory is searched.
    pub home: Option<PathBuf>,
    /// Whether to fall back to [`default_cache_dir`].
    pub use_cache_dir: bool,
}

impl ModelSearch {
    /// Searches exactly one model directory.
    pub fn only(model_dir: impl Into<PathBuf>) -> Self {
        ModelSearch { model_dir: Some(model_dir.into()), home: None, use_cache_dir: false }
    }

    /// The default search for a process without a home: the
    /// `FERREX_EMBED_MODEL_DIR` environment variable if set, else the cache.
    pub fn from_env() -> Self {
        ModelSearch {
            model_dir: std::env::var_os("FERREX_EMBED_MODEL_DIR")
                .filter(|value| !value.is_empty())
                .map(PathBuf::from),
            home: None,
            use_cache_dir: true,
        }
    }

    /// The model directories to search, in order.
    pub fn roots(&self) -> Vec<PathBuf> {
        if let Some(dir) = &self.model_dir {
            return vec![dir.clone()];
        }
        let mut roots = Vec::new();
        if let Some(home) = &self.home {
            roots.push(home.join("models"));
        }
        if self.use_cache_dir
            && let Some(cache) = default_cache_dir()
        {
            roots.push(cache);
        }
        roots
    }

    /// Finds the runtime library and the tier directory, without verifying them.
    pub fn locate(&self, tier: ModelTier) -> Result<ModelFiles, LoadError> {
        let (runtime, tier_dir) =
            self.locate_dir(tier.dir_name()).map_err(|error| match error {
                LoadError::DirNotFound { searched, .. } => {
                    LoadError::ModelNotFound { tier, searched }
                }
                other => other,
            })?;
        Ok(ModelFiles { tier, runtime, tier_dir })
    }

    /// Finds the runtime library and the first directory `dir_name` of a
    /// model directory, without verifying them.
    pub(crate) fn locate_dir(&self, dir_name: &str) -> Result<(PathBuf, PathBuf), LoadError> {
        let roots = self.roots();
        let dir =
            roots.iter().map(|root| root.join(dir_name)).find(|dir| dir.is_dir()).ok_or_else(
                || LoadError::DirNotFound { dir: dir_name.to_owned(), searched: roots.clone() },
            )?;
        let file = runtime_pin()?.file;
        // By the platform's own separators (the pin writes `/`).
        let runtime = roots
            .iter()
            .map(|root| file.split('/').fold(root.clone(), |path, part| path.join(part)))
            .find(|path| path.is_file())
            .ok_or_else(|| LoadError::RuntimeNotFound { file, searched: roots.clone() })?;
        Ok((runtime, dir))
    }
}

/// The files one embedder is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    /// The tier they belong to.
    pub tier: ModelTier,
    /// The ONNX Runtime shared library.
    pub runtime: PathBuf,
    /// The directory holding `model.onnx` and the tokenizer files.
    pub tier_dir: PathBuf,
}

impl ModelFiles {
    /// Checks the sha256 of the runtime and every model file.
    pub fn verify(&self) -> Result<(), LoadError> {
        crate::verify::verify_file(&self.runtime, runtime_pin()?.sha256)?;
        crate::verify::verify_tier_dir(&self.tier_dir, self.tier.files())
    }

    /// What identifies the vectors these files compute, beside the model
    /// id: the runtime's release and the sha256 of every model file, as
    /// `name=hash` (the hashes the files are verified against). Two nodes
    /// whose model id and hashes agree compute vectors that agree to
    /// rounding: the same release built for another platform (an ARM home
    /// server beside an x86_64 laptop) sums in another order, which is why
    /// a node checks a sample of what a peer sends against its own.
    pub fn hashes(&self) -> Result<Vec<String>, LoadError> {
        let mut hashes = vec![format!("runtime=onnxruntime {}", crate::RUNTIME_VERSION)];
        for (name, hash) in crate::verify::expected_hashes(&self.tier_dir, self.tier.files())? {
            hashes.push(format!("{name}={hash}"));
        }
        Ok(hashes)
    }

    /// Reads one file of the tier directory.
    pub(crate) fn read(&self, name: &str) -> Result<Vec<u8>, LoadError> {
        read_file(&self.tier_dir.join(name))
    }
}

/// The four tokenizer files fastembed reads, from a model's directory.
pub(crate) fn tokenizer_files(dir: &Path) -> Result<fastembed::TokenizerFiles, LoadError> {
    let read = |name: &str| read_file(&dir.join(name));
    Ok(fastembed::TokenizerFiles {
        tokenizer_file: read("tokenizer.json")?,
        config_file: read("config.json")?,
        special_tokens_map_file: read("special_tokens_map.json")?,
        tokenizer_config_file: read("tokenizer_config.json")?,
    })
}

pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => LoadError::FileMissing { path: path.to_owned() },
        _ => LoadError::Io { path: path.to_owned(), source },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_model_dir_is_searched_alone() {
        let search = ModelSearch {
            model_dir: Some("/explicit".into()),
            home: Some("/home/node".into()),
            use_cache_dir: true,
        };
        assert_eq!(search.roots(), vec![PathBuf::from("/explicit")]);
    }

    #[test]
    fn home_comes_before_the_cache() {
        let search =
            ModelSearch { model_dir: None, home: Some("/home/node".into()), use_cache_dir: true };
        let roots = search.roots();
        assert_eq!(roots[0], PathBuf::from("/home/node/models"));
        assert_eq!(roots.len(), 1 + usize::from(default_cache_dir().is_some()));
    }

    #[test]
    fn missing_directory_names_every_searched_path_and_the_install_command() {
        let dir = tempfile::tempdir().unwrap();
        let error = ModelSearch::only(dir.path()).locate(ModelTier::default()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, LoadError::ModelNotFound { .. }), "{message}");
        assert!(message.contains(&dir.path().display().to_string()), "{message}");
        assert!(message.contains(crate::INSTALL_COMMAND), "{message}");
    }
}
