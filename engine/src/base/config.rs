//! Configuration: `ferrex.toml` in the home, `FERREX_<SECTION>_<KEY>`
//! environment variables, and command-line flags. Flags win over the
//! environment, the environment over the file. An unknown key is an error
//! that names it.

use std::{net::SocketAddr, path::PathBuf};

use std::collections::BTreeMap;

use ferrex_core::MemorySettings;
use ferrex_embed::ModelTier;

pub use ferrex_sync::NetworkMode;

/// Why a configuration was refused. Its `Display` is the reason; where the
/// setting came from (the file, a variable, a flag, a section) is an
/// [`ConfigError::In`] around it, which `{:#}` through `anyhow` (or walking
/// `source()`) prints as `in <place>: <reason>`.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not TOML.
    #[error("not valid TOML")]
    Toml(#[source] toml::de::Error),
    /// A section, key or `FERREX_*` variable ferrex does not know; the
    /// message names it and the known ones.
    #[error("{0}")]
    Unknown(String),
    /// A known key given a value it cannot take.
    #[error("{key} = {value:?}: {reason}")]
    Value {
        /// The key (`section.key`).
        key: String,
        /// The value as given.
        value: String,
        /// What it must be.
        reason: String,
    },
    /// A section, list or path shaped wrong, or settings that contradict
    /// each other.
    #[error("{0}")]
    Invalid(String),
    /// Where the setting that failed came from.
    #[error("{place}")]
    In {
        /// `in /home/.../ferrex.toml`, `in environment variable X`, …
        place: String,
        /// What failed there.
        #[source]
        source: Box<ConfigError>,
    },
}

impl ConfigError {
    /// This error, said to come from `place`.
    fn within(self, place: impl Into<String>) -> ConfigError {
        ConfigError::In { place: place.into(), source: Box::new(self) }
    }

    /// The error under every [`ConfigError::In`]: what kind of failure it is.
    pub fn root(&self) -> &ConfigError {
        match self {
            ConfigError::In { source, .. } => source.root(),
            other => other,
        }
    }
}

type ConfigResult<T> = Result<T, ConfigError>;

fn invalid(message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid(message.into())
}

fn parse_mode(text: &str) -> Result<NetworkMode, String> {
    match text {
        "local" => Ok(NetworkMode::Local),
        "internet" => Ok(NetworkMode::Internet),
        other => Err(format!("must be \"local\" or \"internet\", not {other:?}")),
    }
}

/// The setting's name of a network mode.
pub fn mode_name(mode: NetworkMode) -> &'static str {
    match mode {
        NetworkMode::Local => "local",
        NetworkMode::Internet => "internet",
    }
}

/// `http.*`: MCP over Streamable HTTP, served by the node at `/mcp`.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSettings {
    /// `http.bind`: the TCP address (off when unset).
    pub bind: Option<SocketAddr>,
    /// `http.max_body_bytes`: a larger request is refused with 413.
    pub max_body_bytes: usize,
    /// `http.max_concurrent`: requests served at once; more get 429.
    pub max_concurrent: usize,
    /// `http.requests_per_second`: the sustained rate (bursts of twice
    /// that); faster gets 429.
    pub requests_per_second: u32,
    /// `http.loopback_without_token`: serve without the bearer token, on a
    /// loopback address only (for tools that cannot send a header, like
    /// the MCP conformance suite). Never the default.
    pub loopback_without_token: bool,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            bind: None,
            max_body_bytes: 1 << 20,
            max_concurrent: 16,
            requests_per_second: 200,
            loopback_without_token: false,
        }
    }
}

/// A folder (or one file) whose files are memories of a namespace, on
/// this device: `[namespaces.NAME] watch`, or added with `index_files`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Watch {
    /// The namespace its chunks are in.
    pub namespace: String,
    /// Where it is on this device (absolute).
    pub path: PathBuf,
    /// Whether its chunks are synced to the other devices (off: each
    /// device indexes its own disk).
    #[serde(default)]
    pub share: bool,
    /// Which files are read (globs relative to it); empty: Markdown, JSON,
    /// YAML and TOML.
    #[serde(default)]
    pub include: Vec<String>,
    /// Which files and folders are never read, besides `.git`,
    /// `node_modules`, `target`, `vendor`, `dist` and `build`.
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `path` made absolute: `~/` is the user's home; anything else relative
/// is refused.
pub fn absolute_path(path: &str) -> ConfigResult<PathBuf> {
    let expanded = match path.strip_prefix("~/").or_else(|| (path == "~").then_some("")) {
        Some(rest) => {
            let home = std::env::var_os("HOME")
                .ok_or_else(|| invalid(format!("{path:?} starts with ~ but HOME is not set")))?;
            PathBuf::from(home).join(rest)
        }
        None => PathBuf::from(path),
    };
    if !expanded.is_absolute() {
        return Err(invalid(format!(
            "{path:?} is relative: give an absolute path (or one starting with ~/)"
        )));
    }
    Ok(expanded)
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
    /// `network.share_vectors`: answer paired devices running the same
    /// model with this node's vectors, and take theirs for memories that
    /// arrive without one (default true; vectors never enter the documents).
    pub share_vectors: bool,
    /// `http.*`: MCP over Streamable HTTP (off unless `http.bind` is set).
    pub http: HttpSettings,
    /// `embed.model_dir`: where the model is, when not in the home or cache.
    pub model_dir: Option<PathBuf>,
    /// `embed.model`: which embedding model the node runs (`embed.tier`, its
    /// earlier name, is still read).
    pub tier: ModelTier,
    /// `embed.threads`: ONNX Runtime intra-op threads per session.
    pub threads: usize,
    /// `embed.peer_vectors_wait_ms`: how long memories without any vector
    /// (a fresh device's, a rebuild's) wait for paired devices' vectors
    /// before this node embeds them itself (0: at once; peers' vectors still
    /// fill what the worker has not reached).
    pub peer_vectors_wait: std::time::Duration,
    /// `memory.shard_capacity`: memories per document shard.
    pub shard_capacity: usize,
    /// `memory.compact_log_bytes`: a document's log is compacted into its
    /// snapshot once it is larger than this (and a quarter of the snapshot).
    pub compact_log_bytes: u64,
    /// `memory.recall_backlog_wait_ms`: a recall waits for its namespace's
    /// memories without a vector when the embedding worker should be done
    /// with them within this long (and never waits a third longer).
    pub recall_backlog_wait: std::time::Duration,
    /// `memory.*` (but the three above) and `[predicates]`: the settings
    /// of every namespace without its own.
    pub memory: MemorySettings,
    /// `[working]`: sessions, tasks and the session-start context.
    pub working: ferrex_core::working::WorkingSettings,
    /// `project.name`: the project of an agent working outside any
    /// repository (else such an agent's calls go to `default`).
    pub project: Option<String>,
    /// `[namespaces.<name>]`: settings that differ for one namespace, as
    /// `(key, value)` overrides of `memory` (`predicates.<canonical>` for
    /// synonym groups).
    pub namespace_overrides: BTreeMap<String, Vec<(String, String)>>,
    /// `[namespaces.<name>] watch`, `include`, `exclude`: the folders
    /// whose files are memories, on this device.
    pub watches: Vec<Watch>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: None,
            mode: NetworkMode::Local,
            bind: SocketAddr::from(([0, 0, 0, 0], 0)),
            share_vectors: true,
            http: HttpSettings::default(),
            model_dir: None,
            tier: ModelTier::default(),
            threads: 1,
            peer_vectors_wait: std::time::Duration::ZERO,
            shard_capacity: 10_000,
            compact_log_bytes: ferrex_sync::storage::DEFAULT_COMPACT_LOG_BYTES,
            recall_backlog_wait: std::time::Duration::from_millis(1_500),
            memory: MemorySettings::default(),
            working: ferrex_core::working::WorkingSettings::default(),
            project: None,
            namespace_overrides: BTreeMap::new(),
            watches: Vec::new(),
        }
    }
}

impl Config {
    /// How the replica lays out and compacts its documents.
    pub fn replica_options(&self) -> ferrex_sync::ReplicaOptions {
        ferrex_sync::ReplicaOptions {
            shard_capacity: self.shard_capacity,
            compact_log_bytes: self.compact_log_bytes,
        }
    }

    /// How the embedding model is loaded: which one, on how many threads.
    pub fn embedder_options(&self) -> ferrex_embed::EmbedderOptions {
        ferrex_embed::EmbedderOptions {
            tier: self.tier,
            intra_threads: self.threads,
            ..Default::default()
        }
    }
}

/// Every key, as `section.key`.
pub const KEYS: &[&str] = &[
    "node.name",
    "network.mode",
    "network.bind",
    "network.share_vectors",
    "http.bind",
    "http.max_body_bytes",
    "http.max_concurrent",
    "http.requests_per_second",
    "http.loopback_without_token",
    "embed.model_dir",
    "embed.model",
    "embed.tier",
    "embed.threads",
    "embed.peer_vectors_wait_ms",
    "memory.shard_capacity",
    "memory.compact_log_bytes",
    "memory.recall_backlog_wait_ms",
    "memory.episodic_half_life_days",
    "memory.semantic_half_life_days",
    "memory.procedural_half_life_days",
    "memory.aging_threshold",
    "memory.stale_threshold",
    "memory.duplicate_threshold",
    "memory.fact_duplicate_threshold",
    "memory.fact_ambiguous_threshold",
    "memory.fact_update_threshold",
    "memory.correction_threshold",
    "memory.entity_fuzzy_threshold",
    "memory.entity_embedding_threshold",
    "memory.alias_candidate_fuzzy_threshold",
    "memory.alias_candidate_embedding_threshold",
    "memory.predicate_fuzzy_threshold",
    "memory.predicate_embedding_threshold",
    "memory.predicate_candidate_threshold",
    "memory.episodic_recency",
    "memory.semantic_recency",
    "memory.procedural_recency",
    "memory.corrected_penalty",
    "memory.dense_weight",
    "memory.text_weight",
    "memory.keyword_coverage",
    "memory.rerank_depth",
    "memory.date_weight",
    "memory.thread_weight",
    "memory.graph_weight",
    "memory.exact_search",
    "memory.secrets",
    "memory.tell",
    "memory.tell_tokens",
    "memory.tell_bar",
    "working.session_events",
    "working.task_expiry_hours",
    "working.context_tokens",
    "working.hot_exchanges",
    "project.name",
];

const SECTIONS: &[&str] = &[
    "node",
    "network",
    "http",
    "embed",
    "memory",
    "working",
    "project",
    "predicates",
    "cardinality",
    "namespaces",
];

impl Config {
    /// Loads the file (if any), then the environment, then `flags`
    /// (`(key, value)` pairs from the command line).
    pub fn load(
        file: &std::path::Path,
        environment: impl IntoIterator<Item = (String, String)>,
        flags: &[(&str, String)],
    ) -> ConfigResult<Config> {
        let mut config = Config::default();
        match std::fs::read_to_string(file) {
            Ok(text) => config
                .apply_toml(&text)
                .map_err(|error| error.within(format!("in {}", file.display())))?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(ConfigError::Read { path: file.to_owned(), source }),
        }
        for (variable, value) in environment {
            if let Some(key) = env_key(&variable)? {
                config
                    .set(&key, &value)
                    .map_err(|error| error.within(format!("in environment variable {variable}")))?;
            }
        }
        for (key, value) in flags {
            config.set(key, value).map_err(|error| {
                error.within(format!("in the --{} flag", key.replace(['.', '_'], "-")))
            })?;
        }
        config.check()?;
        Ok(config)
    }

    fn apply_toml(&mut self, text: &str) -> ConfigResult<()> {
        let table: toml::Table = text.parse().map_err(ConfigError::Toml)?;
        // Synonym groups first: a cardinality names a predicate as they resolve it.
        let mut sections: Vec<(&String, &toml::Value)> = table.iter().collect();
        sections.sort_by_key(|(section, _)| section.as_str() == "cardinality");
        for (section, values) in sections {
            if !SECTIONS.contains(&section.as_str()) {
                return Err(ConfigError::Unknown(format!(
                    "unknown section [{section}]; known sections: {}",
                    SECTIONS.join(", ")
                )));
            }
            let Some(values) = values.as_table() else {
                return Err(invalid(format!(
                    "{section} must be a section ([{section}]), not a value"
                )));
            };
            if section == "predicates" {
                for (canonical, spellings) in values {
                    let list = string_list(&format!("predicates.{canonical}"), spellings)?;
                    self.set(&format!("predicates.{canonical}"), &list)?;
                }
                continue;
            }
            if section == "cardinality" {
                for (predicate, cardinality) in values {
                    let key = format!("cardinality.{predicate}");
                    self.set(&key, &scalar_text(&key, cardinality)?)?;
                }
                continue;
            }
            if section == "namespaces" {
                for (namespace, overrides) in values {
                    self.apply_namespace_toml(namespace, overrides)?;
                }
                continue;
            }
            for (key, value) in values {
                let full = format!("{section}.{key}");
                let text = match value {
                    toml::Value::String(text) => text.clone(),
                    toml::Value::Integer(number) => number.to_string(),
                    toml::Value::Float(number) => number.to_string(),
                    toml::Value::Boolean(flag) => flag.to_string(),
                    other => {
                        return Err(invalid(format!(
                            "{full} must be a string or a number, not {}",
                            other.type_str()
                        )));
                    }
                };
                self.set(&full, &text)?;
            }
        }
        Ok(())
    }

    fn apply_namespace_toml(&mut self, namespace: &str, values: &toml::Value) -> ConfigResult<()> {
        ferrex_core::Namespace::parse(namespace)
            .map_err(|error| invalid(format!("[namespaces.{namespace}]: {error}")))?;
        let Some(values) = values.as_table() else {
            return Err(invalid(format!(
                "namespaces.{namespace} must be a section ([namespaces.{namespace}])"
            )));
        };
        let mut overrides = Vec::new();
        let mut cardinalities = Vec::new();
        self.apply_watch_toml(namespace, values)?;
        for (key, value) in values {
            if matches!(key.as_str(), "watch" | "include" | "exclude") {
                continue;
            }
            if key == "cardinality" {
                let Some(predicates) = value.as_table() else {
                    return Err(invalid(format!(
                        "namespaces.{namespace}.cardinality must be a section"
                    )));
                };
                for (predicate, cardinality) in predicates {
                    let key = format!("cardinality.{predicate}");
                    cardinalities.push((key.clone(), scalar_text(&key, cardinality)?));
                }
                continue;
            }
            if key == "predicates" {
                let Some(groups) = value.as_table() else {
                    return Err(invalid(format!(
                        "namespaces.{namespace}.predicates must be a section"
                    )));
                };
                for (canonical, spellings) in groups {
                    let key = format!("predicates.{canonical}");
                    overrides.push((key.clone(), string_list(&key, spellings)?));
                }
                continue;
            }
            let full = format!("memory.{key}");
            if full == "memory.shard_capacity"
                || full == "memory.compact_log_bytes"
                || full == "memory.recall_backlog_wait_ms"
                || !KEYS.contains(&full.as_str())
            {
                return Err(ConfigError::Unknown(format!(
                    "unknown key {key} in [namespaces.{namespace}]; a namespace may set the memory.* thresholds (except shard_capacity, compact_log_bytes and recall_backlog_wait_ms), predicates, cardinality, and watch, include and exclude"
                )));
            }
            overrides.push((full, scalar_text(&format!("namespaces.{namespace}.{key}"), value)?));
        }
        overrides.extend(cardinalities);
        // Check every value now, so that a bad one is reported at start.
        let mut check = self.memory.clone();
        for (key, value) in &overrides {
            set_memory(&mut check, key, value)
                .map_err(|error| error.within(format!("in [namespaces.{namespace}]")))?;
        }
        self.namespace_overrides.entry(namespace.to_owned()).or_default().extend(overrides);
        Ok(())
    }

    /// `watch`, `include` and `exclude` of `[namespaces.NAME]`.
    fn apply_watch_toml(&mut self, namespace: &str, values: &toml::Table) -> ConfigResult<()> {
        let patterns = |key: &str| -> ConfigResult<Vec<String>> {
            let Some(value) = values.get(key) else { return Ok(Vec::new()) };
            let full = format!("namespaces.{namespace}.{key}");
            let list = value.as_array().ok_or_else(|| {
                invalid(format!("{full} must be a list of globs, like [\"docs/**\"]"))
            })?;
            list.iter()
                .map(|item| {
                    let glob = item
                        .as_str()
                        .ok_or_else(|| invalid(format!("{full} must be a list of strings")))?;
                    globset::Glob::new(glob).map_err(|error| {
                        invalid(format!("{full}: {glob:?} is no glob: {error}"))
                    })?;
                    Ok(glob.to_owned())
                })
                .collect()
        };
        let include = patterns("include")?;
        let exclude = patterns("exclude")?;
        let Some(watch) = values.get("watch") else {
            if !(include.is_empty() && exclude.is_empty()) {
                return Err(invalid(format!(
                    "[namespaces.{namespace}] sets include or exclude but watches nothing (watch = [...])"
                )));
            }
            return Ok(());
        };
        let full = format!("namespaces.{namespace}.watch");
        let entries = watch.as_array().ok_or_else(|| {
            invalid(format!(
                "{full} must be a list of paths, like [\"~/src/api\", {{ path = \"~/notes\", share = true }}]"
            ))
        })?;
        for entry in entries {
            let (path, share) = match entry {
                toml::Value::String(path) => (path.as_str(), false),
                toml::Value::Table(table) => {
                    if let Some(unknown) =
                        table.keys().find(|key| !matches!(key.as_str(), "path" | "share"))
                    {
                        return Err(ConfigError::Unknown(format!(
                            "{full}: unknown key {unknown}; an entry has path and share"
                        )));
                    }
                    let path =
                        table.get("path").and_then(toml::Value::as_str).ok_or_else(|| {
                            invalid(format!("{full}: an entry needs a path (a string)"))
                        })?;
                    let share = match table.get("share") {
                        None => false,
                        Some(toml::Value::Boolean(share)) => *share,
                        Some(_) => {
                            return Err(invalid(format!("{full}: share must be true or false")));
                        }
                    };
                    (path, share)
                }
                _ => {
                    return Err(invalid(format!(
                        "{full} must hold paths (strings) or {{ path, share }} entries"
                    )));
                }
            };
            let path = absolute_path(path).map_err(|error| error.within(format!("in {full}")))?;
            self.watches.push(Watch {
                namespace: namespace.to_owned(),
                path,
                share,
                include: include.clone(),
                exclude: exclude.clone(),
            });
        }
        Ok(())
    }

    /// The settings of `namespace`: its own overrides on top of `memory`.
    pub fn memory_for(&self, namespace: &str) -> MemorySettings {
        let mut settings = self.memory.clone();
        for (key, value) in self.namespace_overrides.get(namespace).into_iter().flatten() {
            // Every override was checked when the configuration was loaded.
            let _ = set_memory(&mut settings, key, value);
        }
        settings
    }

    /// Whether recall reranks anywhere: `memory.rerank_depth` set for every
    /// namespace or for one.
    pub fn reranks(&self) -> bool {
        self.memory.ranking.rerank_depth > 0
            || self
                .namespace_overrides
                .keys()
                .any(|namespace| self.memory_for(namespace).ranking.rerank_depth > 0)
    }

    /// Sets `key` (`section.key`) from text.
    pub fn set(&mut self, key: &str, value: &str) -> ConfigResult<()> {
        let invalid = |reason: String| ConfigError::Value {
            key: key.to_owned(),
            value: value.to_owned(),
            reason,
        };
        match key {
            "node.name" => {
                let name = value.trim();
                if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
                    return Err(invalid("must be 1 to 64 printable characters".into()));
                }
                self.name = Some(name.to_owned());
            }
            "network.mode" => self.mode = parse_mode(value).map_err(invalid)?,
            "network.bind" => {
                self.bind = value
                    .parse()
                    .map_err(|_| invalid("must be an address and port, like 127.0.0.1:0".into()))?
            }
            "network.share_vectors" => {
                self.share_vectors =
                    value.parse().map_err(|_| invalid("must be true or false".into()))?
            }
            "http.bind" => {
                self.http.bind = Some(value.parse().map_err(|_| {
                    invalid("must be an address and port, like 127.0.0.1:7878".into())
                })?)
            }
            "http.max_body_bytes" => {
                self.http.max_body_bytes = whole_number(value, 1024..=64 << 20).map_err(invalid)?
            }
            "http.max_concurrent" => {
                self.http.max_concurrent = whole_number(value, 1..=1024).map_err(invalid)?
            }
            "http.requests_per_second" => {
                self.http.requests_per_second = whole_number(value, 1..=100_000).map_err(invalid)?
            }
            "http.loopback_without_token" => {
                self.http.loopback_without_token =
                    value.parse().map_err(|_| invalid("must be true or false".into()))?
            }
            "embed.model_dir" => self.model_dir = Some(PathBuf::from(value)),
            "embed.model" | "embed.tier" => {
                self.tier = value.parse().map_err(|error| invalid(format!("{error}")))?
            }
            "embed.threads" => self.threads = whole_number(value, 1..=64).map_err(invalid)?,
            "embed.peer_vectors_wait_ms" => {
                self.peer_vectors_wait = std::time::Duration::from_millis(
                    whole_number(value, 0..=3_600_000).map_err(invalid)?,
                )
            }
            "memory.shard_capacity" => {
                self.shard_capacity = value
                    .parse()
                    .ok()
                    .filter(|capacity| *capacity >= 1)
                    .ok_or_else(|| invalid("must be a whole number of at least 1".into()))?
            }
            "memory.recall_backlog_wait_ms" => {
                self.recall_backlog_wait = std::time::Duration::from_millis(
                    whole_number(value, 0..=600_000).map_err(invalid)?,
                )
            }
            "memory.compact_log_bytes" => {
                self.compact_log_bytes = whole_number(value, 1_024..=1 << 30).map_err(invalid)?
            }
            "working.session_events" => {
                self.working.session_events = whole_number(value, 1..=1_000).map_err(invalid)?
            }
            "working.task_expiry_hours" => {
                let hours: i64 = whole_number(value, 0..=87_600).map_err(invalid)?;
                self.working.task_expiry_ms = hours * 3_600_000;
            }
            "working.context_tokens" => {
                self.working.context_tokens =
                    whole_number(value, 50..=ferrex_core::working::MAX_CONTEXT_TOKENS)
                        .map_err(invalid)?
            }
            "working.hot_exchanges" => {
                self.working.hot_exchanges = whole_number(value, 0..=50).map_err(invalid)?
            }
            "project.name" => {
                let name = value.trim();
                if ferrex_core::project::namespace_of(name).is_none() {
                    return Err(invalid(
                        "holds no letter or digit a namespace could be made of".into(),
                    ));
                }
                self.project = Some(name.to_owned());
            }
            key if key.starts_with("memory.")
                || key.starts_with("predicates.")
                || key.starts_with("cardinality.") =>
            {
                set_memory(&mut self.memory, key, value)?
            }
            other => return Err(unknown_key(other)),
        }
        Ok(())
    }

    fn check(&self) -> ConfigResult<()> {
        if self.http.loopback_without_token
            && self.http.bind.is_some_and(|bind| !bind.ip().is_loopback())
        {
            return Err(invalid(format!(
                "http.loopback_without_token serves MCP without a token, which only a loopback \
                 address (127.0.0.1, ::1) may do; http.bind is {}",
                self.http.bind.map(|bind| bind.to_string()).unwrap_or_default()
            )));
        }
        self.check_staleness(&self.memory, "memory")?;
        for namespace in self.namespace_overrides.keys() {
            self.check_staleness(&self.memory_for(namespace), &format!("namespaces.{namespace}"))?;
        }
        Ok(())
    }

    fn check_staleness(&self, settings: &MemorySettings, section: &str) -> ConfigResult<()> {
        let staleness = &settings.staleness;
        if !(staleness.aging_threshold <= staleness.stale_threshold
            && staleness.stale_threshold <= 1.0)
        {
            return Err(invalid(format!(
                "{section}: aging_threshold ({}) must not exceed stale_threshold ({}), which must not exceed 1",
                staleness.aging_threshold, staleness.stale_threshold
            )));
        }
        Ok(())
    }
}

fn unknown_key(key: &str) -> ConfigError {
    ConfigError::Unknown(format!("unknown key {key}; known keys: {}", KEYS.join(", ")))
}

/// `value` as a whole number within `range`, or why not.
fn whole_number<T>(value: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    value
        .parse()
        .ok()
        .filter(|number| range.contains(number))
        .ok_or_else(|| format!("must be a whole number from {} to {}", range.start(), range.end()))
}

/// The key a `FERREX_<SECTION>_<KEY>` variable sets; `None` for variables
/// that are not settings (`FERREX_HOME`, `FERREX_LOG`, other programs').
fn env_key(variable: &str) -> ConfigResult<Option<String>> {
    let Some(rest) = variable.strip_prefix("FERREX_") else { return Ok(None) };
    if let Some(canonical) = rest.strip_prefix("PREDICATES_") {
        return Ok(Some(format!("predicates.{}", canonical.to_ascii_lowercase())));
    }
    if let Some(predicate) = rest.strip_prefix("CARDINALITY_") {
        return Ok(Some(format!("cardinality.{}", predicate.to_ascii_lowercase())));
    }
    for section in SECTIONS {
        let prefix = format!("{}_", section.to_ascii_uppercase());
        if let Some(key) = rest.strip_prefix(&prefix) {
            let full = format!("{section}.{}", key.to_ascii_lowercase());
            if !KEYS.contains(&full.as_str()) {
                return Err(ConfigError::Unknown(format!(
                    "unknown setting in environment variable {variable}: there is no key {full}; known keys: {}",
                    KEYS.join(", ")
                )));
            }
            return Ok(Some(full));
        }
    }
    Ok(None)
}

/// A TOML scalar as text.
fn scalar_text(key: &str, value: &toml::Value) -> ConfigResult<String> {
    Ok(match value {
        toml::Value::String(text) => text.clone(),
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::Float(number) => number.to_string(),
        toml::Value::Boolean(flag) => flag.to_string(),
        other => {
            return Err(invalid(format!(
                "{key} must be a string or a number, not {}",
                other.type_str()
            )));
        }
    })
}

/// A TOML list of strings as comma-separated text.
fn string_list(key: &str, value: &toml::Value) -> ConfigResult<String> {
    let items = value.as_array().ok_or_else(|| {
        invalid(format!("{key} must be a list of strings, like [\"uses\", \"needs\"]"))
    })?;
    let mut texts = Vec::new();
    for item in items {
        match item.as_str() {
            Some(text) if !text.contains(',') => texts.push(text.to_owned()),
            Some(text) => return Err(invalid(format!("{key}: {text:?} must not contain a comma"))),
            None => return Err(invalid(format!("{key} must be a list of strings"))),
        }
    }
    Ok(texts.join(","))
}

/// Sets one `memory.*` key, or `predicates.<canonical>` (a comma-separated
/// list of spellings), on `settings`.
fn set_memory(settings: &mut MemorySettings, key: &str, value: &str) -> ConfigResult<()> {
    let invalid = |reason: &str| ConfigError::Value {
        key: key.to_owned(),
        value: value.to_owned(),
        reason: reason.to_owned(),
    };
    let number = || -> ConfigResult<f64> {
        let parsed: f64 = value.trim().parse().map_err(|_| invalid("must be a number"))?;
        if !parsed.is_finite() || parsed < 0.0 {
            return Err(invalid("must be a finite, non-negative number"));
        }
        Ok(parsed)
    };
    let unit = || -> ConfigResult<f64> {
        let parsed = number()?;
        if parsed > 1.0 {
            return Err(invalid("must be between 0 and 1"));
        }
        Ok(parsed)
    };
    if let Some(predicate) = key.strip_prefix("cardinality.") {
        if ferrex_core::predicate::fold(predicate).is_empty() {
            return Err(invalid("the predicate needs letters or digits"));
        }
        let cardinality = value.parse().map_err(|reason: String| invalid(&reason))?;
        settings.predicates.set_cardinality(predicate, cardinality);
        return Ok(());
    }
    if let Some(canonical) = key.strip_prefix("predicates.") {
        if ferrex_core::predicate::fold(canonical).is_empty() {
            return Err(invalid("the group needs a name with letters or digits"));
        }
        let spellings: Vec<&str> =
            value.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        settings.predicates.add(canonical, spellings);
        return Ok(());
    }
    match key {
        "memory.episodic_half_life_days" => settings.staleness.episodic_half_life_days = number()?,
        "memory.semantic_half_life_days" => settings.staleness.semantic_half_life_days = number()?,
        "memory.procedural_half_life_days" => {
            settings.staleness.procedural_half_life_days = number()?
        }
        "memory.aging_threshold" => settings.staleness.aging_threshold = number()?,
        "memory.stale_threshold" => settings.staleness.stale_threshold = number()?,
        "memory.duplicate_threshold" => settings.conflict.duplicate = unit()?,
        "memory.fact_duplicate_threshold" => settings.conflict.fact_duplicate = unit()?,
        "memory.fact_ambiguous_threshold" => settings.conflict.fact_ambiguous = unit()?,
        "memory.fact_update_threshold" => settings.conflict.fact_update = unit()?,
        "memory.fact_supersede_threshold" => {
            return Err(invalid(
                "was removed: a single-valued predicate's new value always replaces the old one, and a multi-valued one's joins it (see [cardinality]); memory.fact_ambiguous_threshold sets when a close value of a multi-valued predicate is reported",
            ));
        }
        "memory.correction_threshold" => settings.conflict.correction = unit()?,
        "memory.entity_fuzzy_threshold" => settings.entity.fuzzy = unit()?,
        "memory.entity_embedding_threshold" => settings.entity.embedding = unit()?,
        "memory.alias_candidate_fuzzy_threshold" => settings.entity.fuzzy_candidate = unit()?,
        "memory.alias_candidate_embedding_threshold" => {
            settings.entity.embedding_candidate = unit()?
        }
        "memory.predicate_fuzzy_threshold" => settings.predicate.fuzzy = unit()?,
        "memory.predicate_embedding_threshold" => settings.predicate.embedding = unit()?,
        "memory.predicate_candidate_threshold" => settings.predicate.candidate = unit()?,
        "memory.episodic_recency" => settings.ranking.episodic_recency = number()?,
        "memory.semantic_recency" => settings.ranking.semantic_recency = number()?,
        "memory.procedural_recency" => settings.ranking.procedural_recency = number()?,
        "memory.corrected_penalty" => settings.ranking.corrected_penalty = unit()?,
        "memory.dense_weight" => settings.ranking.dense_weight = number()?,
        "memory.text_weight" => settings.ranking.text_weight = number()?,
        "memory.keyword_coverage" => settings.ranking.keyword_coverage = number()?,
        "memory.date_weight" => settings.ranking.date_weight = number()?,
        "memory.thread_weight" => settings.ranking.thread_weight = number()?,
        "memory.graph_weight" => settings.ranking.graph_weight = number()?,
        "memory.exact_search" => {
            settings.ranking.exact_search =
                value.parse().map_err(|_| invalid("must be true or false"))?
        }
        "memory.rerank_depth" => {
            settings.ranking.rerank_depth = value
                .parse()
                .ok()
                .filter(|depth| *depth <= 100)
                .ok_or_else(|| invalid("must be a whole number from 0 to 100"))?
        }
        "memory.secrets" => {
            settings.secrets = value.parse().map_err(|reason: String| invalid(&reason))?
        }
        "memory.tell" => {
            settings.tell.enabled = value.parse().map_err(|_| invalid("must be true or false"))?
        }
        "memory.tell_tokens" => {
            settings.tell.tokens = value
                .parse()
                .ok()
                .filter(|tokens| (50..=ferrex_core::tell::MAX_TELL_TOKENS).contains(tokens))
                .ok_or_else(|| {
                    invalid(&format!(
                        "must be a whole number from 50 to {}",
                        ferrex_core::tell::MAX_TELL_TOKENS
                    ))
                })?
        }
        "memory.tell_bar" => settings.tell.bar = Some(unit()?),
        other => return Err(unknown_key(other)),
    }
    Ok(())
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
        Ok(Config::load(&path, env, &flags)?)
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
    fn errors_are_matched_by_kind_and_say_where() {
        let load_typed = |file: &str, flags: &[(&str, String)]| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("ferrex.toml");
            std::fs::write(&path, file).unwrap();
            Config::load(&path, Vec::new(), flags).unwrap_err()
        };
        let error = load_typed("[embed]\nmodle_dir = \"x\"\n", &[]);
        let ConfigError::In { place, .. } = &error else { panic!("{error:?}") };
        assert!(place.ends_with("ferrex.toml"), "{place}");
        assert!(matches!(error.root(), ConfigError::Unknown(_)), "{error:?}");
        let error = load_typed("[embed\n", &[]);
        assert!(matches!(error.root(), ConfigError::Toml(_)), "{error:?}");
        let error = load_typed("", &[("embed.threads", "0".to_owned())]);
        let ConfigError::In { place, .. } = &error else { panic!("{error:?}") };
        assert_eq!(place, "in the --embed-threads flag");
        let ConfigError::Value { key, value, .. } = error.root() else { panic!("{error:?}") };
        assert_eq!((key.as_str(), value.as_str()), ("embed.threads", "0"));
        let mut config = Config::default();
        assert!(matches!(config.set("project.name", "--"), Err(ConfigError::Value { .. })));
        assert!(matches!(absolute_path("notes"), Err(ConfigError::Invalid(_))));
        // Nothing half-set: the configuration that refused a value is as it was.
        assert_eq!(config, Config::default());
    }

    #[test]
    fn cardinality_per_predicate_and_namespace() {
        use ferrex_core::predicate::Cardinality::*;
        let file = "[cardinality]\nuses = \"one\"\nfavourite_food = \"many\"\n\
            [predicates]\nstack = [\"tech stack\"]\n\
            [namespaces.work.cardinality]\n\"tech stack\" = \"many\"\nlives_in = \"many\"\n";
        let config = load(file, &[("FERREX_CARDINALITY_SPEAKS", "one")], &[]).unwrap();
        let global = config.memory_for("default");
        assert_eq!(global.predicates.cardinality("depends_on"), One);
        assert_eq!(global.predicates.cardinality("favourite_food"), Many);
        assert_eq!(global.predicates.cardinality("speaks"), One);
        assert_eq!(global.predicates.cardinality("stack"), One);
        assert_eq!(global.predicates.cardinality("lives_in"), One);
        let work = config.memory_for("work");
        assert_eq!(work.predicates.cardinality("stack"), Many);
        assert_eq!(work.predicates.cardinality("lives_in"), Many);
        assert_eq!(work.predicates.cardinality("depends_on"), One);
        for (file, expect) in [
            ("[cardinality]\nport = \"several\"\n", "expected \"one\" or \"many\""),
            ("[cardinality]\n\"--\" = \"one\"\n", "letters or digits"),
            ("[memory]\nfact_supersede_threshold = 0.5\n", "was removed"),
        ] {
            let error = format!("{:#}", load(file, &[], &[]).unwrap_err());
            assert!(error.contains(expect), "{file:?}: {error}");
        }
    }

    #[test]
    fn predicate_groups_and_namespace_overrides() {
        let file = "[predicates]\nlives_in = [\"resides in\", \"home city\"]\n\
            [memory]\nduplicate_threshold = 0.9\n\
            [namespaces.work]\nduplicate_threshold = 0.97\ncorrection_threshold = 0.7\n\
            [namespaces.work.predicates]\nruns_on = [\"hosted on\"]\n";
        let config = load(file, &[("FERREX_PREDICATES_OWNED_BY", "belongs to")], &[]).unwrap();
        let global = config.memory_for("default");
        assert_eq!(global.conflict.duplicate, 0.9);
        assert_eq!(global.predicates.normalise("resides-in", [], 0.85).0, "lives_in");
        assert_eq!(global.predicates.normalise("belongs to", [], 0.85).0, "owned_by");
        assert_eq!(global.predicates.normalise("hosted on", [], 0.85).0, "host");
        let work = config.memory_for("work");
        assert_eq!((work.conflict.duplicate, work.conflict.correction), (0.97, 0.7));
        assert_eq!(work.predicates.normalise("hosted on", [], 0.85).0, "runs_on");
        assert_eq!(work.predicates.normalise("home city", [], 0.85).0, "lives_in");
        for (bad, needle) in [
            ("[namespaces.work]\nshard_capacity = 3\n", "unknown key shard_capacity"),
            ("[namespaces.work]\ncompact_log_bytes = 4096\n", "unknown key compact_log_bytes"),
            ("[namespaces.work]\nduplicate_threshold = 2\n", "between 0 and 1"),
            ("[namespaces.\"bad ns\"]\nduplicate_threshold = 0.5\n", "namespace"),
            ("[predicates]\nlives_in = \"resides in\"\n", "list of strings"),
        ] {
            let error = format!("{:#}", load(bad, &[], &[]).unwrap_err());
            assert!(error.contains(needle), "{bad:?}: {error}");
        }
    }

    #[test]
    fn the_compaction_threshold_reaches_the_replica() {
        let config = load("[memory]\ncompact_log_bytes = 4096\n", &[], &[]).unwrap();
        assert_eq!(config.replica_options().compact_log_bytes, 4096);
        let waiting = load("[memory]\nrecall_backlog_wait_ms = 0\n", &[], &[]).unwrap();
        assert_eq!(waiting.recall_backlog_wait, std::time::Duration::ZERO);
        let default = Config::default().replica_options();
        assert_eq!(default.compact_log_bytes, ferrex_sync::storage::DEFAULT_COMPACT_LOG_BYTES);
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
            ("[embed]\ntier = \"huge\"\n", "e5-small"),
            ("[embed]\nmodel = \"huge\"\n", "minilm, e5-small, bge-small"),
            ("[memory]\nrerank_depth = 500\n", "0 to 100"),
            ("[memory]\ncompact_log_bytes = 10\n", "1024 to 1073741824"),
            ("[memory]\nrecall_backlog_wait_ms = -1\n", "0 to 600000"),
            ("[embed]\npeer_vectors_wait_ms = 3600001\n", "0 to 3600000"),
            ("[memory]\nkeyword_coverage = \"lots\"\n", "keyword_coverage"),
            ("[memory]\nexact_search = \"sometimes\"\n", "true or false"),
            ("[network]\nshare_vectors = \"yes\"\n", "true or false"),
            ("[memory]\naging_threshold = 0.9\nstale_threshold = 0.5\n", "must not exceed"),
            ("not toml at all = = =", "TOML"),
        ] {
            let error = format!("{:#}", load(file, &[], &[]).unwrap_err());
            assert!(error.contains(needle), "{file:?}: {error}");
        }
    }
}
