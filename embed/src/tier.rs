//! Model tiers: which model files make up each embedding model ferrex knows.

use std::{fmt, str::FromStr};

use fastembed::Pooling;

/// The ONNX Runtime shared library ferrex loads, relative to a model directory.
pub const RUNTIME_FILE: &str = "onnxruntime/libonnxruntime.so.1.31.1";

/// sha256 of [`RUNTIME_FILE`] as shipped in the `onnxruntime==1.31.1` manylinux
/// x86_64 wheel.
pub const RUNTIME_SHA256: &str = "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3";

/// One file of a model and, when ferrex pins it, its sha256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSpec {
    /// File name inside the tier's directory.
    pub name: &'static str,
    /// Expected sha256 in lowercase hex. `None` means the tier is supplied by
    /// the user and the hash is read from the tier's `SHA256SUMS` file.
    pub sha256: Option<&'static str>,
}

/// The embedding models ferrex can run.
///
/// `Small` is the offline default and the only tier whose files ferrex pins
/// and installs. Larger tiers are supplied by the user as a directory next to
/// it (`<model dir>/<tier dir>/`) holding the same five files plus a
/// `SHA256SUMS` file in `sha256sum` format, which ferrex verifies against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ModelTier {
    /// all-MiniLM-L6-v2 with int8 weights: 384 dimensions, mean pooling.
    #[default]
    Small,
    /// BAAI/bge-base-en-v1.5: 768 dimensions, CLS pooling. User supplied.
    Base,
    /// BAAI/bge-large-en-v1.5: 1024 dimensions, CLS pooling. User supplied.
    Large,
}

const SMALL_FILES: [FileSpec; 5] = [
    FileSpec {
        name: "model.onnx",
        sha256: Some("8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    },
    FileSpec {
        name: "tokenizer.json",
        sha256: Some("be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    },
    FileSpec {
        name: "config.json",
        sha256: Some("953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    },
    FileSpec {
        name: "special_tokens_map.json",
        sha256: Some("303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
    },
    FileSpec {
        name: "tokenizer_config.json",
        sha256: Some("acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
    },
];

const USER_FILES: [FileSpec; 5] = [
    FileSpec { name: "model.onnx", sha256: None },
    FileSpec { name: "tokenizer.json", sha256: None },
    FileSpec { name: "config.json", sha256: None },
    FileSpec { name: "special_tokens_map.json", sha256: None },
    FileSpec { name: "tokenizer_config.json", sha256: None },
];

impl ModelTier {
    /// Every tier, smallest first.
    pub const ALL: [ModelTier; 3] = [ModelTier::Small, ModelTier::Base, ModelTier::Large];

    /// The name used in configuration (`embed.tier`).
    pub fn name(self) -> &'static str {
        match self {
            ModelTier::Small => "small",
            ModelTier::Base => "base",
            ModelTier::Large => "large",
        }
    }

    /// The upstream model this tier runs.
    pub fn model_name(self) -> &'static str {
        match self {
            ModelTier::Small => "all-MiniLM-L6-v2",
            ModelTier::Base => "bge-base-en-v1.5",
            ModelTier::Large => "bge-large-en-v1.5",
        }
    }

    /// The directory, inside a model directory, that holds this tier's files.
    pub fn dir_name(self) -> &'static str {
        match self {
            ModelTier::Small => "all-minilm-l6-v2",
            ModelTier::Base => "bge-base-en-v1.5",
            ModelTier::Large => "bge-large-en-v1.5",
        }
    }

    /// Length of every vector the tier produces.
    pub fn dimension(self) -> usize {
        match self {
            ModelTier::Small => 384,
            ModelTier::Base => 768,
            ModelTier::Large => 1024,
        }
    }

    /// How token vectors are pooled into one sentence vector.
    pub fn pooling(self) -> Pooling {
        match self {
            ModelTier::Small => Pooling::Mean,
            ModelTier::Base | ModelTier::Large => Pooling::Cls,
        }
    }

    /// The files the tier needs, with pinned hashes where ferrex has them.
    pub fn files(self) -> &'static [FileSpec] {
        match self {
            ModelTier::Small => &SMALL_FILES,
            ModelTier::Base | ModelTier::Large => &USER_FILES,
        }
    }

    /// Whether `scripts/fetch-model` can install this tier offline.
    pub fn is_installable(self) -> bool {
        matches!(self, ModelTier::Small)
    }
}

impl fmt::Display for ModelTier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A tier name that ferrex does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown model tier {0:?}: expected one of small, base, large")]
pub struct UnknownTier(pub String);

impl FromStr for ModelTier {
    type Err = UnknownTier;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ModelTier::ALL
            .into_iter()
            .find(|tier| tier.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| UnknownTier(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_names_round_trip() {
        for tier in ModelTier::ALL {
            assert_eq!(tier.name().parse::<ModelTier>(), Ok(tier));
        }
        assert_eq!("SMALL".parse::<ModelTier>(), Ok(ModelTier::Small));
        assert!("medium".parse::<ModelTier>().is_err());
    }

    #[test]
    fn only_the_small_tier_is_pinned() {
        assert!(ModelTier::Small.files().iter().all(|file| file.sha256.is_some()));
        assert!(ModelTier::Base.files().iter().all(|file| file.sha256.is_none()));
        assert_eq!(ModelTier::default(), ModelTier::Small);
    }
}
