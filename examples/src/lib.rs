//! Shared helpers for the examples and benchmarks: corpora, a bare
//! fastembed baseline, the LoCoMo data, and percentiles.

pub mod belief_cases;
pub mod correction_cases;
pub mod correction_cases_eight_kinds;
pub mod correction_cases_fresh_domains;
pub mod correction_cases_held_out;
pub mod correction_cases_renamed_subjects;
pub mod correction_cases_unlike_domains;
pub mod graph_cases;
pub mod paraphrase_cases;
pub mod prompt_cases;
pub mod wording_cases;
pub mod wording_cases_blind;

use std::{
    path::Path,
    time::{Duration, Instant},
};

use anyhow::Context;
use fastembed::{InitOptionsUserDefined, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel};
use ferrex_core::{Embedder, Namespace, Timestamp, passages::texts_to_embed};
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch, ModelTier, ort_environment};
use ferrex_sync::{NewMemory, NewRecords, Replica, ReplicaOptions};
use serde_json::Value;

/// A bare fastembed model from the same files and options ferrex uses.
pub fn bare_fastembed(
    files: &ferrex_embed::ModelFiles,
    options: &EmbedderOptions,
) -> anyhow::Result<TextEmbedding> {
    let read = |name: &str| {
        std::fs::read(files.tier_dir.join(name)).with_context(|| format!("reading {name}"))
    };
    let model = UserDefinedEmbeddingModel::new(
        read("model.onnx")?,
        TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        },
    )
    .with_pooling(files.tier.pooling());
    let init = InitOptionsUserDefined::new()
        .with_environment(ort_environment(&files.runtime)?)
        .with_intra_threads(options.intra_threads)
        .with_max_length(options.max_length);
    Ok(TextEmbedding::try_new_from_user_defined(model, init)?)
}

/// Developer notes as an agent writes them: two to four sentences each
/// (about 40 to 70 words), so every note has passages for the embedding
/// worker after its acknowledgement, as most notes agents store do.
pub fn developer_notes(count: usize) -> Vec<String> {
    const OPENINGS: [&str; 8] = [
        "The api server now reads its settings from config/prod.toml instead of environment variables.",
        "We moved the nightly build from the old Jenkins box to GitHub Actions runners.",
        "Alice from the platform team owns the postgres upgrade and reviews every migration.",
        "The deploy pipeline fails when the staging cluster in Frankfurt is drained for maintenance.",
        "Token refresh in the auth service retries three times with exponential backoff.",
        "The search indexer keeps a write-ahead log and compacts it every night at two.",
        "Customer support reported slow exports for workspaces with more than ten thousand files.",
        "The mobile client pins TLS certificates, so rotating them needs a release first.",
    ];
    const DETAILS: [&str; 7] = [
        "The change shipped in release 4.2 after two days behind a feature flag.",
        "Run cargo nextest with the integration profile before merging anything that touches it.",
        "Bob found that the timeout was 30 seconds where the load balancer allows only 25.",
        "The dashboards in Grafana show the p95 latency doubling during the first hour.",
        "A flaky integration test hid the regression for a week until the retry was removed.",
        "The runbook in docs/ops/restore.md explains how to roll back without losing writes.",
        "Port 8080 stays reserved for the admin interface on every host.",
    ];
    const CLOSINGS: [&str; 5] = [
        "",
        " Remember to tell the on-call rota before changing it again.",
        " Nobody could reproduce it locally, so test on the staging cluster.",
        " The follow-up tasks are in the tracker under the infra label.",
        " Ask Carol before touching the billing tables, which share the same database.",
    ];
    (0..count)
        .map(|index| {
            format!(
                "{} {}{} (Note {index}.)",
                OPENINGS[index % OPENINGS.len()],
                DETAILS[(index / 3) % DETAILS.len()],
                CLOSINGS[(index / 2) % CLOSINGS.len()],
            )
        })
        .collect()
}

/// Sentences of varied length and topic, like the memories agents store
/// (about 20 words on average, as LoCoMo's dialogue turns are).
pub fn memory_corpus(count: usize) -> Vec<String> {
    const SUBJECTS: [&str; 8] = [
        "The api server",
        "Our nightly build",
        "Alice from the platform team",
        "The postgres database",
        "The deploy pipeline",
        "My laptop",
        "The tokio runtime",
        "Customer support",
    ];
    const VERBS: [&str; 6] =
        ["now depends on", "was moved to", "reported a problem with", "uses", "replaced", "met"];
    const OBJECTS: [&str; 7] = [
        "port 8080",
        "the Wednesday sync meeting",
        "version 16 of the driver",
        "a flaky integration test",
        "the new staging cluster in Frankfurt",
        "cargo nextest",
        "an expired TLS certificate",
    ];
    const TAILS: [&str; 5] = [
        "",
        " after the outage last week",
        " because the old setup kept timing out under load and nobody could reproduce it locally",
        " according to the notes from Tuesday's retrospective, which also listed three follow-up tasks for the team",
        " so remember to update the runbook, the dashboards, the on-call rota and the onboarding guide before Friday",
    ];
    (0..count)
        .map(|index| {
            format!(
                "{} {} {}{} (note {index}).",
                SUBJECTS[index % SUBJECTS.len()],
                VERBS[(index / 3) % VERBS.len()],
                OBJECTS[(index / 7) % OBJECTS.len()],
                TAILS[(index / 2) % TAILS.len()],
            )
        })
        .collect()
}

/// `count` texts for benchmarks: LoCoMo's dialogue turns (`Speaker: text`),
/// then synthetic memories when more are needed.
pub fn bench_texts(conversations: &[Conversation], count: usize) -> Vec<String> {
    let mut texts: Vec<String> = conversations
        .iter()
        .flat_map(|conversation| conversation.turns.iter())
        .map(|turn| format!("{}: {}", turn.speaker, turn.text))
        .take(count)
        .collect();
    let missing = count - texts.len();
    texts.extend(memory_corpus(missing));
    texts
}

/// Writes `texts` as episodic memories of `namespace` straight into the
/// documents in `docs_dir` (the node must not be running), `per_change`
/// memories per document change, as if stored one a second up to now (so
/// that none is stale). Ids are `prefill-000000`, ...
pub fn prefill(
    docs_dir: &Path,
    namespace: &str,
    texts: &[String],
    per_change: usize,
) -> anyhow::Result<()> {
    let replica = Replica::open(docs_dir, "bench-prefill", ReplicaOptions::default())?;
    let namespace = Namespace::parse(namespace)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or(0);
    let first = now - texts.len() as i64 * 1000;
    for (chunk_index, chunk) in texts.chunks(per_change.max(1)).enumerate() {
        let memories = chunk
            .iter()
            .enumerate()
            .map(|(offset, text)| {
                let index = chunk_index * per_change.max(1) + offset;
                let at = Timestamp(first + index as i64 * 1000);
                NewMemory::episode(format!("prefill-{index:06}"), text.clone(), "bench-prefill", at)
            })
            .collect();
        replica.write_new(
            &namespace,
            Timestamp(now),
            &NewRecords { memories, ..Default::default() },
        )?;
    }
    Ok(())
}

/// One LoCoMo conversation: its dialogue turns and its questions.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// The sample id, e.g. `conv-26`.
    pub id: String,
    /// Every turn: (dialogue id like `D1:3`, session date text, speaker, text).
    pub turns: Vec<Turn>,
    /// Every question with its category and evidence turn ids.
    pub questions: Vec<Question>,
}

/// One dialogue turn.
#[derive(Debug, Clone)]
pub struct Turn {
    /// Dialogue id, e.g. `D1:3`.
    pub dia_id: String,
    /// The session's date and time as LoCoMo writes it.
    pub date: String,
    /// Who spoke.
    pub speaker: String,
    /// What was said.
    pub text: String,
}

impl Turn {
    /// The session's time as ISO-8601 (UTC), when its date text parses
    /// (`1:56 pm on 8 May, 2023` → `2023-05-08T13:56:00Z`).
    pub fn iso_time(&self) -> Option<String> {
        chrono::NaiveDateTime::parse_from_str(&self.date, "%I:%M %p on %d %B, %Y")
            .ok()
            .map(|time| time.and_utc().format("%Y-%m-%dT%H:%M:%SZ").to_string())
    }
}

/// One question.
#[derive(Debug, Clone)]
pub struct Question {
    /// The question.
    pub question: String,
    /// 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
    pub category: u64,
    /// Dialogue ids of the turns that answer it.
    pub evidence: Vec<String>,
}

/// Where LoCoMo is on the build machine, relative to the repository root.
pub const DEFAULT_LOCOMO: &str = "../shared/eval/locomo10.json";

/// Reads `locomo10.json`.
pub fn load_locomo(path: &Path) -> anyhow::Result<Vec<Conversation>> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!("reading {} (pass --locomo PATH to point at locomo10.json)", path.display())
    })?;
    let samples: Vec<Value> = serde_json::from_str(&text).context("parsing LoCoMo")?;
    let mut conversations = Vec::new();
    for sample in samples {
        let conversation = &sample["conversation"];
        let mut turns = Vec::new();
        for session in 1.. {
            let Some(list) = conversation[format!("session_{session}")].as_array() else {
                if session > 64 {
                    break;
                }
                continue;
            };
            let date = conversation[format!("session_{session}_date_time")]
                .as_str()
                .unwrap_or("")
                .to_owned();
            for turn in list {
                turns.push(Turn {
                    dia_id: turn["dia_id"].as_str().unwrap_or("").to_owned(),
                    date: date.clone(),
                    speaker: turn["speaker"].as_str().unwrap_or("").to_owned(),
                    text: turn["text"].as_str().unwrap_or("").to_owned(),
                });
            }
        }
        let questions = sample["qa"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|qa| Question {
                        question: qa["question"].as_str().unwrap_or("").to_owned(),
                        category: qa["category"].as_u64().unwrap_or(0),
                        evidence: qa["evidence"]
                            .as_array()
                            .map(|ids| {
                                ids.iter().filter_map(|id| id.as_str().map(str::to_owned)).collect()
                            })
                            .unwrap_or_default(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        conversations.push(Conversation {
            id: sample["sample_id"].as_str().unwrap_or("").to_owned(),
            turns,
            questions,
        });
    }
    Ok(conversations)
}

/// The work the node does for 2,000 memories spread evenly over `texts`
/// (each one's text and its passages), done by a bare fastembed call and by
/// ferrex-embed: their rates in memories per second.
pub fn embedding_rates(texts: &[String]) -> anyhow::Result<(f64, f64)> {
    let step = (texts.len() / 2000).max(1);
    let sampled: Vec<&String> = texts.iter().step_by(step).take(2000).collect();
    let memories_sampled = sampled.len();
    let work: Vec<String> = sampled.iter().flat_map(|text| texts_to_embed(text)).collect();
    let sample: Vec<&str> = work.iter().map(String::as_str).collect();
    let files = ModelSearch::from_env().locate(ModelTier::default())?;
    let mut bare = bare_fastembed(&files, &EmbedderOptions::default())?;
    let started = Instant::now();
    bare.embed(&sample, None)?;
    let bare_rate = memories_sampled as f64 / started.elapsed().as_secs_f64();
    let mut embedder = FastEmbedder::from_verified_files(&files, &EmbedderOptions::default())?;
    let started = Instant::now();
    embedder.embed_batch(&sample)?;
    Ok((bare_rate, memories_sampled as f64 / started.elapsed().as_secs_f64()))
}

/// Copies a node's home from `from` to `to` (documents, keys, index and
/// state), leaving out its `ferrex.toml`, logs, socket and pid file: the
/// destination keeps its own configuration.
pub fn copy_home(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if ["ferrex.toml", "logs", "ferrex.sock", "node.pid"].iter().any(|skip| name == *skip) {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_home(&entry.path(), &to.join(&name))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&name))
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// The `percent`th percentile of `values` (sorted in place), nearest rank.
pub fn percentile(values: &mut [Duration], percent: usize) -> Duration {
    values.sort_unstable();
    if values.is_empty() {
        return Duration::ZERO;
    }
    let rank = (values.len() * percent).div_ceil(100).clamp(1, values.len());
    values[rank - 1]
}

/// The middle of `values` once sorted (the upper one of an even count; 0
/// for none).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Vectors of `dimension` floats, kept in the system temporary directory
/// under `name`: read from there when a file of that name exists, else
/// computed by `embed` and written there. For experiments that embed the
/// same texts run after run; the name must change with the texts.
pub fn cached_vectors(
    name: &str,
    dimension: usize,
    embed: impl FnOnce() -> anyhow::Result<Vec<Vec<f32>>>,
) -> anyhow::Result<Vec<Vec<f32>>> {
    let path = std::env::temp_dir().join(format!("ferrex-{name}.f32"));
    // A file of whole vectors only (an interrupted write is never renamed
    // into place, but a file from elsewhere may be cut short).
    if let Ok(bytes) = std::fs::read(&path)
        && !bytes.is_empty()
        && bytes.len() % (dimension * 4) == 0
    {
        let floats: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
            .collect();
        return Ok(floats.chunks(dimension).map(<[f32]>::to_vec).collect());
    }
    let vectors = embed()?;
    let bytes: Vec<u8> = vectors.iter().flatten().flat_map(|value| value.to_le_bytes()).collect();
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(vectors)
}

/// The words of `text` a lab's full-text query keeps: lowercased, split on
/// anything not alphanumeric, common English words dropped.
pub fn content_words(text: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
        "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it",
        "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them",
        "then", "there", "they", "this", "to", "was", "we", "were", "what", "when", "where",
        "which", "who", "why", "will", "with", "you", "your",
    ];
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !STOP.contains(&word.as_str()))
        .collect()
}

/// The dot product of two vectors (their cosine, when both are normalised).
pub fn dot(left: &[f32], right: &[f32]) -> f32 {
    left.iter().zip(right).map(|(a, b)| a * b).sum()
}

/// Milliseconds as a float.
pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::Turn;

    #[test]
    fn locomo_session_dates_read_as_iso_times() {
        let turn = |date: &str| Turn {
            dia_id: "D1:1".into(),
            date: date.into(),
            speaker: "A".into(),
            text: "hi".into(),
        };
        assert_eq!(
            turn("1:56 pm on 8 May, 2023").iso_time().as_deref(),
            Some("2023-05-08T13:56:00Z")
        );
        assert_eq!(
            turn("10:04 am on 19 January, 2024").iso_time().as_deref(),
            Some("2024-01-19T10:04:00Z")
        );
        assert_eq!(turn("sometime in May").iso_time(), None);
    }
}

/// A deterministic generator (SplitMix64): the same data on every run.
#[derive(Debug, Clone)]
pub struct Draw(pub u64);

impl Draw {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index below `n`, each as likely.
    pub fn uniform(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }

    /// An index below `n`, skewed towards small ones (a hub-heavy graph).
    pub fn skewed(&mut self, n: usize) -> usize {
        let unit = (self.bits() >> 11) as f64 / (1u64 << 53) as f64;
        ((unit * unit * unit) * n as f64) as usize % n
    }
}
