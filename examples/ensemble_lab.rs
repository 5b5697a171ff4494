//! Experiment: do several small embedding models together find more than
//! the best one alone? Outside the node, on both sets (LoCoMo and the
//! frozen paraphrased notes), development and held-out splits.
//!
//! Usage: `cargo run --release -p ferrex-examples --example ensemble_lab`
//!
//! Embeds every LoCoMo turn (`[date] Speaker: text`, as the node stores it)
//! and every note with each pinned model (cached under the temporary
//! directory), then prints R@1 / R@5 / MRR for each model alone, for their
//! rank fusions and for their score fusions (the mean of cosines: one
//! concatenated vector), each with and without BM25; the same with each
//! model's vectors centred; and, first, where each model ranks one
//! memory among 40 templated look-alikes for six paraphrased questions.

use std::collections::HashMap;

use anyhow::Context;
use ferrex_core::Embedder;
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch, ModelTier};
use ferrex_examples::{
    DEFAULT_LOCOMO, cached_vectors, content_words, dot, load_locomo, paraphrase_cases,
};

/// One retrieval problem: candidates of a group, a query, what answers it.
struct Case {
    group: usize,
    query: String,
    relevant: Vec<usize>,
    held_out: bool,
}

/// One vector per text, in order.
type Vectors = Vec<Vec<f32>>;

/// Whether a case is held out, and the rank of its first relevant result
/// within the top 10.
type Outcome = (bool, Option<usize>);

struct Set {
    name: &'static str,
    /// Candidate texts, with their group (a conversation, or 0 for notes).
    texts: Vec<(usize, String)>,
    cases: Vec<Case>,
}

#[allow(clippy::print_stdout, reason = "an experiment prints its figures")]
fn main() -> anyhow::Result<()> {
    let conversations = load_locomo(std::path::Path::new(DEFAULT_LOCOMO))?;
    let mut locomo = Set { name: "locomo", texts: Vec::new(), cases: Vec::new() };
    for (group, conversation) in conversations.iter().enumerate() {
        let start = locomo.texts.len();
        // Every turn of a dialogue id (a few ids repeat).
        let mut by_dia: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, turn) in conversation.turns.iter().enumerate() {
            by_dia.entry(turn.dia_id.clone()).or_default().push(start + index);
            locomo.texts.push((group, format!("[{}] {}: {}", turn.date, turn.speaker, turn.text)));
        }
        for question in &conversation.questions {
            if question.category == 5 || question.evidence.is_empty() {
                continue;
            }
            locomo.cases.push(Case {
                group,
                query: question.question.clone(),
                relevant: question
                    .evidence
                    .iter()
                    .filter_map(|e| by_dia.get(e))
                    .flatten()
                    .copied()
                    .collect(),
                held_out: group % 3 == 2,
            });
        }
    }
    let mut notes = Set { name: "notes", texts: Vec::new(), cases: Vec::new() };
    let mut by_key = HashMap::new();
    for note in paraphrase_cases::NOTES {
        by_key.insert(note.key, notes.texts.len());
        notes.texts.push((0, note.text.to_owned()));
    }
    for (index, query) in paraphrase_cases::QUERIES.iter().enumerate() {
        notes.cases.push(Case {
            group: 0,
            query: query.text.to_owned(),
            relevant: query.targets.iter().map(|key| by_key[key]).collect(),
            held_out: paraphrase_cases::held_out(index),
        });
    }
    let tiers = [ModelTier::MiniLm, ModelTier::E5Small, ModelTier::BgeSmall];
    let sets = [&locomo, &notes];
    // embedded[set][model] = (the texts' vectors, the queries').
    let mut embedded: Vec<Vec<(Vectors, Vectors)>> = vec![Vec::new(), Vec::new()];
    for tier in tiers {
        let options = EmbedderOptions { tier, ..EmbedderOptions::default() };
        let mut embedder = FastEmbedder::load(&ModelSearch::from_env(), &options)
            .with_context(|| format!("loading {tier}"))?;
        let dimension = embedder.dimension();
        look_alikes(&mut embedder, tier)?;
        for (position, set) in sets.iter().enumerate() {
            let texts: Vec<&str> = set.texts.iter().map(|(_, text)| text.as_str()).collect();
            let started = std::time::Instant::now();
            let text_vectors = cached_vectors(
                &format!("ensemble-{}-{tier}-texts-{}", set.name, texts.len()),
                dimension,
                || embedder.embed_batch(&texts).map_err(Into::into),
            )?;
            let query_vectors = cached_vectors(
                &format!("ensemble-{}-{tier}-queries-{}", set.name, set.cases.len()),
                dimension,
                || {
                    set.cases
                        .iter()
                        .map(|case| embedder.embed_query(&case.query).map_err(Into::into))
                        .collect()
                },
            )?;
            println!("{} {tier}: vectors in {:.1?}", set.name, started.elapsed());
            embedded[position].push((text_vectors, query_vectors));
        }
    }
    for (position, set) in sets.iter().enumerate() {
        let mut vectors = embedded[position].clone();
        // Centred: the mean of the OTHER set's text vectors taken away from
        // every vector, then normalised (the common direction removed).
        for model in 0..tiers.len() {
            let theirs = &embedded[1 - position][model].0;
            let mut mean = vec![0.0f32; theirs[0].len()];
            for vector in theirs {
                for (sum, value) in mean.iter_mut().zip(vector) {
                    *sum += value / theirs.len() as f32;
                }
            }
            let centre = |list: &Vectors| -> Vectors {
                list.iter()
                    .map(|vector| {
                        let shifted: Vec<f32> =
                            vector.iter().zip(&mean).map(|(value, mean)| value - mean).collect();
                        let norm = shifted.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-9);
                        shifted.into_iter().map(|v| v / norm).collect()
                    })
                    .collect()
            };
            let centred = (centre(&vectors[model].0), centre(&vectors[model].1));
            vectors.push(centred);
        }
        let fts = rusqlite::Connection::open_in_memory()?;
        fts.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(text, grp UNINDEXED, tokenize = '{}');",
            ferrex_core::rank::FTS_TOKENIZER
        ))?;
        for (row, (group, text)) in set.texts.iter().enumerate() {
            fts.execute(
                "INSERT INTO t(rowid, text, grp) VALUES (?1, ?2, ?3)",
                rusqlite::params![row as i64, text, *group as i64],
            )?;
        }
        let mut methods: Vec<(String, Vec<Outcome>)> = Vec::new();
        for (case_index, case) in set.cases.iter().enumerate() {
            let rows: Vec<usize> =
                (0..set.texts.len()).filter(|row| set.texts[*row].0 == case.group).collect();
            let dense: Vec<Vec<(usize, f32)>> = vectors
                .iter()
                .map(|(texts, queries)| {
                    let mut scored: Vec<(usize, f32)> = rows
                        .iter()
                        .map(|row| (*row, dot(&queries[case_index], &texts[*row])))
                        .collect();
                    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                    scored.truncate(100);
                    scored
                })
                .collect();
            let mean_cosine = |models: &[usize]| -> Vec<(usize, f32)> {
                let mut scored: Vec<(usize, f32)> = rows
                    .iter()
                    .map(|row| {
                        let sum: f32 = models
                            .iter()
                            .map(|m| dot(&vectors[*m].1[case_index], &vectors[*m].0[*row]))
                            .sum();
                        (*row, sum / models.len() as f32)
                    })
                    .collect();
                scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                scored.truncate(100);
                scored
            };
            let bm25 = search(&fts, &case.query, case.group)?;
            let rank_of = |ranked: &[usize]| {
                ranked.iter().take(10).position(|row| case.relevant.contains(row))
            };
            let mut record = |name: String, ranked: Vec<usize>| {
                let rank = rank_of(&ranked);
                match methods.iter_mut().find(|(known, _)| *known == name) {
                    Some((_, list)) => list.push((case.held_out, rank)),
                    None => methods.push((name, vec![(case.held_out, rank)])),
                }
            };
            let ids = |list: &[(usize, f32)]| list.iter().map(|(row, _)| *row).collect::<Vec<_>>();
            let combos: [(&str, &[usize]); 11] = [
                ("minilm-centred", &[3]),
                ("e5-centred", &[4]),
                ("bge-centred", &[5]),
                ("minilm+bge centred", &[3, 5]),
                ("minilm", &[0]),
                ("e5", &[1]),
                ("bge", &[2]),
                ("minilm+e5", &[0, 1]),
                ("minilm+bge", &[0, 2]),
                ("e5+bge", &[1, 2]),
                ("all3", &[0, 1, 2]),
            ];
            for (name, models) in combos {
                let bm25_ids = ids(&bm25);
                if models.len() == 1 {
                    record(format!("{name} dense"), ids(&dense[models[0]]));
                    for weight in [0.5, 1.0] {
                        let lists = vec![(ids(&dense[models[0]]), 1.0), (bm25_ids.clone(), weight)];
                        record(format!("{name} rrf bm25x{weight}"), rrf(&lists));
                    }
                    continue;
                }
                let lists: Vec<(Vec<usize>, f64)> =
                    models.iter().map(|m| (ids(&dense[*m]), 1.0)).collect();
                record(format!("{name} rrf dense"), rrf(&lists));
                let mean = ids(&mean_cosine(models));
                record(format!("{name} mean-cos dense"), mean.clone());
                for weight in [0.5, 1.0] {
                    let mut with_text = lists.clone();
                    with_text.push((bm25_ids.clone(), weight * models.len() as f64));
                    record(format!("{name} rrf + bm25x{weight}n"), rrf(&with_text));
                    let lists = vec![(mean.clone(), 1.0), (bm25_ids.clone(), weight)];
                    record(format!("{name} mean-cos + bm25x{weight}"), rrf(&lists));
                }
            }
        }
        println!(
            "\n{}: {:<34} {:>22} {:>22}",
            set.name, "method", "dev R@1/R@5/MRR", "held-out R@1/R@5/MRR"
        );
        for (name, ranks) in &methods {
            let figures = |held: bool| {
                let ranks: Vec<Option<usize>> =
                    ranks.iter().filter(|(h, _)| *h == held).map(|(_, r)| *r).collect();
                let n = ranks.len().max(1) as f64;
                let at =
                    |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r < k)).count() as f64 / n;
                let mrr: f64 =
                    ranks.iter().map(|r| r.map_or(0.0, |r| 1.0 / (r as f64 + 1.0))).sum::<f64>()
                        / n;
                format!("{:.3}/{:.3}/{:.3}", at(1), at(5), mrr)
            };
            println!("  {name:<34} {:>22} {:>22}", figures(false), figures(true));
        }
    }
    Ok(())
}

/// One memory among 40 templated look-alikes (as in
/// `tests/tests/peer_vectors.rs`), and six questions about it that share
/// at most one word with it: where does each model rank it?
#[allow(clippy::print_stdout, reason = "an experiment prints its figures")]
fn look_alikes(embedder: &mut FastEmbedder, tier: ModelTier) -> anyhow::Result<()> {
    const QUESTIONS: [&str; 6] = [
        "which night is the pre-prod DB reloaded from the live one",
        "how fresh is the copy of prod we test against",
        "how stale can the QA dataset get",
        "when do we clone the live DB into pre-production",
        "how up to date is the non-production database",
        "where does the pre-release environment get its data from",
    ];
    let mut texts = ferrex_tests::look_alike_notes(40);
    texts.push(
        "The staging database is refreshed from a production snapshot every Sunday night.".into(),
    );
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed_batch(&refs)?;
    let mut ranks = Vec::new();
    for question in QUESTIONS {
        let query = embedder.embed_query(question)?;
        let target = dot(&query, &vectors[40]);
        ranks.push(1 + vectors[..40].iter().filter(|v| dot(&query, v) > target).count());
    }
    println!("{tier}: the one memory among 40 look-alikes ranks {ranks:?} of 41 for six questions");
    Ok(())
}

/// ferrex's weighted reciprocal rank fusion (`ferrex_core::rank`) of
/// lists of row numbers.
fn rrf(lists: &[(Vec<usize>, f64)]) -> Vec<usize> {
    let named: Vec<(Vec<String>, f64)> = lists
        .iter()
        .map(|(list, weight)| (list.iter().map(ToString::to_string).collect(), *weight))
        .collect();
    let borrowed: Vec<(&[String], f64)> =
        named.iter().map(|(list, weight)| (list.as_slice(), *weight)).collect();
    ferrex_core::rank::weighted_rank_fusion(&borrowed, ferrex_core::rank::RRF_K)
        .into_iter()
        .filter_map(|(row, _)| row.parse().ok())
        .collect()
}

/// BM25 top 100 of one group, best first.
fn search(
    fts: &rusqlite::Connection,
    text: &str,
    group: usize,
) -> anyhow::Result<Vec<(usize, f32)>> {
    let words: Vec<String> =
        content_words(text).into_iter().map(|word| format!("\"{word}\"")).collect();
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let mut statement = fts.prepare_cached(
        "SELECT rowid, -bm25(t) FROM t WHERE t MATCH ?1 AND grp = ?2 ORDER BY bm25(t) LIMIT 100",
    )?;
    let rows = statement
        .query_map(rusqlite::params![words.join(" OR "), group as i64], |row| {
            Ok((row.get::<_, i64>(0)? as usize, row.get::<_, f64>(1)? as f32))
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}
