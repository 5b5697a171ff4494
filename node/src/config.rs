//! Configuration: `ferrex.toml` in the home, `FERREX_<SECTION>_<KEY>`
//! environment variables, and command-line flags. Flags win over the
//! environment, the environment over the file. An unknown key is an error
//! that names it.

use std::{net::SocketAddr, path::PathBuf};

use anyhow::{Context, bail};
use ferrex_core::StalenessSettings;
use ferrex_embed::ModelTier;

pub use ferrex_sync::NetworkMode;

fn parse_mode(text: &str) -> anyhow::Result<NetworkMode> {
    match text {
        "local" => Ok(NetworkMode::Local),
        "internet" => Ok(NetworkMode::Internet),
        other => bail!("must be \"local\" or \"internet\", not {other:?}"),
    }
}

/// The setting's name of a network mode.
pub fn mode_name(mode: NetworkMode) -> &'static str {
    match mode {
        NetworkMode::Local => "local",
        NetworkMode::Internet => "internet",
    }
}

/// Every setting, with its default.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `node.name`: the device name shown to peers (default: host name).
    pub name: Option<String>,
    /// `network.mode`.
    pub mode: NetworkMode,
    /// `network.bind`: the UDP address the endpoint binds.
    pub bind: SocketAddr,
    /// `embed.model_dir`: where the model is, when not in the home or cache.
    pub model_dir: Option<PathBuf>,
    /// `embed.tier`.
    pub tier: ModelTier,
    /// `embed.threads`: ONNX Runtime intra-op threads per session.
    pub threads: usize,
    /// `memory.shard_capacity`: memories per document shard.
    pub shard_capacity: usize,
    /// `memory.*_half_life_days`, `memory.aging_threshold`, `memory.stale_threshold`.
    pub staleness: StalenessSettings,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: None,
            mode: NetworkMode::Local,
            bind: SocketAddr::from(([0, 0, 0, 0], 0)),
            model_dir: None,
            tier: ModelTier::Small,
            threads: 1,
            shard_capacity: 10_000,
            staleness: StalenessSettings::default(),
        }
    }
}

/// Every key, as `section.key`.
pub const KEYS: &[&str] = &[
    "node.name",
    "network.mode",
    "network.bind",
    "embed.model_dir",
    "embed.tier",
    "embed.threads",
    "memory.shard_capacity",
    "memory.episodic_half_life_days",
    "memory.semantic_half_life_days",
    "memory.procedural_half_life_days",
    "memory.aging_threshold",
    "memory.stale_threshold",
];

const SECTIONS: &[&str] = &["node", "network", "embed", "memory"];

impl Config {
    /// Loads the file (if any), then the environment, then `flags`
    /// (`(key, value)` pairs from the command line).
    pub fn load(
        file: &std::path::Path,
        environment: impl IntoIterator<Item = (String, String)>,
        flags: &[(&str, String)],
    ) -> anyhow::Result<Config> {
        let mut config = Config::default();
        match std::fs::read_to_string(file) {
            Ok(text) => {
                config.apply_toml(&text).with_context(|| format!("in {}", file.display()))?
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(error).with_context(|| format!("reading {}", file.display()));
            }
        }
        for (variable, value) in environment {
            if let Some(key) = env_key(&variable)? {
                config
                    .set(&key, &value)
                    .with_context(|| format!("in environment variable {variable}"))?;
            }
        }
        for (key, value) in flags {
            config
                .set(key, value)
                .with_context(|| format!("in the --{} flag", key.replace(['.', '_'], "-")))?;
        }
        config.check()?;
        Ok(config)
    }

    fn apply_toml(&mut self, text: &str) -> anyhow::Result<()> {
        let table: toml::Table = text.parse().context("not valid TOML")?;
        for (section, values) in &table {
            if !SECTIONS.contains(&section.as_str()) {
                bail!("unknown section [{section}]; known sections: {}", SECTIONS.join(", "));
            }
            let Some(values) = values.as_table() else {
                bail!("{section} must be a section ([{section}]), not a value");
            };
            for (key, value) in values {
                let full = format!("{section}.{key}");
                let text = match value {
                    toml::Value::String(text) => text.clone(),
                    toml::Value::Integer(number) => number.to_string(),
                    toml::Value::Float(number) => number.to_string(),
                    toml::Value::Boolean(flag) => flag.to_string(),
                    other => bail!("{full} must be a string or a number, not {}", other.type_str()),
                };
                self.set(&full, &text)?;
            }
        }
        Ok(())
    }

    /// Sets `key` (`section.key`) from text.
    pub fn set(&mut self, key: &str, value: &str) -> anyhow::Result<()> {
        let invalid = |reason: String| anyhow::anyhow!("{key} = {value:?}: {reason}");
        let number = |value: &str| -> anyhow::Result<f64> {
            let parsed: f64 = value.parse().map_err(|_| invalid("must be a number".into()))?;
            if !parsed.is_finite() || parsed < 0.0 {
                return Err(invalid("must be a finite, non-negative number".into()));
            }
            Ok(parsed)
        };
        match key {
            "node.name" => {
                let name = value.trim();
                if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
                    return Err(invalid("must be 1 to 64 printable characters".into()));
                }
                self.name = Some(name.to_owned());
            }
            "network.mode" => {
                self.mode = parse_mode(value).map_err(|error| invalid(format!("{error}")))?
            }
            "network.bind" => {
                self.bind = value
                    .parse()
                    .map_err(|_| invalid("must be an address and port, like 127.0.0.1:0".into()))?
            }
            "embed.model_dir" => self.model_dir = Some(PathBuf::from(value)),
            "embed.tier" => {
                self.tier = value.parse().map_err(|error| invalid(format!("{error}")))?
            }
            "embed.threads" => {
                self.threads = value
                    .parse()
                    .ok()
                    .filter(|threads| (1..=64).contains(threads))
                    .ok_or_else(|| invalid("must be a whole number from 1 to 64".into()))?
            }
            "memory.shard_capacity" => {
                self.shard_capacity = value
                    .parse()
                    .ok()
                    .filter(|capacity| *capacity >= 1)
                    .ok_or_else(|| invalid("must be a whole number of at least 1".into()))?
            }
            "memory.episodic_half_life_days" => {
                self.staleness.episodic_half_life_days = number(value)?
            }
            "memory.semantic_half_life_days" => {
                self.staleness.semantic_half_life_days = number(value)?
            }
            "memory.procedural_half_life_days" => {
                self.staleness.procedural_half_life_days = number(value)?
            }
            "memory.aging_threshold" => self.staleness.aging_threshold = number(value)?,
            "memory.stale_threshold" => self.staleness.stale_threshold = number(value)?,
            other => bail!("unknown key {other}; known keys: {}", KEYS.join(", ")),
        }
        Ok(())
    }

    fn check(&self) -> anyhow::Result<()> {
        let staleness = &self.staleness;
        if !(staleness.aging_threshold <= staleness.stale_threshold
            && staleness.stale_threshold <= 1.0)
        {
            bail!(
                "memory.aging_threshold ({}) must not exceed memory.stale_threshold ({}), which must not exceed 1",
                staleness.aging_threshold,
                staleness.stale_threshold
            );
        }
        Ok(())
    }
}

/// The key a `FERREX_<SECTION>_<KEY>` variable sets; `None` for variables
/// that are not settings (`FERREX_HOME`, `FERREX_LOG`, other programs').
fn env_key(variable: &str) -> anyhow::Result<Option<String>> {
    let Some(rest) = variable.strip_prefix("FERREX_") else { return Ok(None) };
    for section in SECTIONS {
        let prefix = format!("{}_", section.to_ascii_uppercase());
        if let Some(key) = rest.strip_prefix(&prefix) {
            let full = format!("{section}.{}", key.to_ascii_lowercase());
            if !KEYS.contains(&full.as_str()) {
                bail!(
                    "unknown setting in environment variable {variable}: there is no key {full}; known keys: {}",
                    KEYS.join(", ")
                );
            }
            return Ok(Some(full));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(file: &str, env: &[(&str, &str)], flags: &[(&str, &str)]) -> anyhow::Result<Config> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("ferrex.toml");
        std::fs::write(&path, file)?;
        let env = env.iter().map(|(key, value)| (key.to_string(), value.to_string()));
        let flags: Vec<(&str, String)> =
            flags.iter().map(|(key, value)| (*key, value.to_string())).collect();
        Config::load(&path, env, &flags)
    }

    #[test]
    fn flags_win_over_environment_which_wins_over_the_file() {
        let file = "[node]\nname = \"from-file\"\n[network]\nbind = \"127.0.0.1:1\"\n[embed]\nthreads = 2\n";
        let config = load(file, &[], &[]).unwrap();
        assert_eq!(config.name.as_deref(), Some("from-file"));
        assert_eq!(config.threads, 2);
        let config = load(file, &[("FERREX_NODE_NAME", "from-env")], &[]).unwrap();
        assert_eq!(config.name.as_deref(), Some("from-env"));
        let config =
            load(file, &[("FERREX_NODE_NAME", "from-env")], &[("node.name", "from-flag")]).unwrap();
        assert_eq!(config.name.as_deref(), Some("from-flag"));
        assert_eq!(config.bind, "127.0.0.1:1".parse().unwrap());
    }

    #[test]
    fn unknown_keys_are_named() {
        let error = load("[embed]\nmodle_dir = \"x\"\n", &[], &[]).unwrap_err();
        assert!(format!("{error:#}").contains("embed.modle_dir"), "{error:#}");
        let error = load("[nodes]\nname = \"x\"\n", &[], &[]).unwrap_err();
        assert!(format!("{error:#}").contains("[nodes]"), "{error:#}");
        let error = load("", &[("FERREX_EMBED_MODLE_DIR", "x")], &[]).unwrap_err();
        assert!(format!("{error:#}").contains("FERREX_EMBED_MODLE_DIR"), "{error:#}");
    }

    #[test]
    fn unrelated_ferrex_variables_are_ignored() {
        let config = load("", &[("FERREX_HOME", "/x"), ("FERREX_LOG", "debug")], &[]).unwrap();
        assert_eq!(config, Config::default());
    }

    #[test]
    fn bad_values_say_what_is_expected() {
        for (file, needle) in [
            ("[network]\nmode = \"cloud\"\n", "local"),
            ("[network]\nbind = \"nowhere\"\n", "address"),
            ("[embed]\nthreads = 0\n", "1 to 64"),
            ("[embed]\ntier = \"huge\"\n", "small"),
            ("[memory]\naging_threshold = 0.9\nstale_threshold = 0.5\n", "must not exceed"),
            ("not toml at all = = =", "TOML"),
        ] {
            let error = format!("{:#}", load(file, &[], &[]).unwrap_err());
            assert!(error.contains(needle), "{file:?}: {error}");
        }
    }
}
