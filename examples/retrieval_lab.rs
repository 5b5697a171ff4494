//! Retrieval experiments on LoCoMo, outside the node: the same model and
//! FTS5 tokenizer ferrex uses, and several ways to fuse their rankings.
//!
//! Usage: `cargo run --release -p ferrex-examples --example retrieval_lab [-- --locomo PATH]`
//!
//! Embeds every turn in several text variants (cached under the system
//! temporary directory), then reports R@5 over the non-adversarial
//! questions for dense alone, BM25 alone, and fusion variants: list
//! weights, pseudo-relevance feedback, dense floors and margins, a dense
//! list over the previous turn, neighbour propagation, dense by each text's
//! nearest passage (`ferrex_core::passages`); `LAB_STRIP=1` embeds
//! questions without their question words, `LAB_BIGRAMS=1` adds word pairs
//! to the full-text query. It is how the recall pipeline's choices were
//! made; the figures of record come from `retrieval_eval`, through a real node.

use std::{collections::HashMap, path::PathBuf};

use anyhow::Context;
use ferrex_core::{Embedder, passages::passages};
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch};
use ferrex_examples::{
    Conversation, DEFAULT_LOCOMO, cached_vectors, content_words, dot, load_locomo,
};

struct Variant {
    name: &'static str,
    /// The text embedded.
    text: fn(&Conversation, usize) -> String,
    /// The text searched by BM25.
    keywords: fn(&Conversation, usize) -> String,
}

fn dated_with_previous(conversation: &Conversation, index: usize) -> String {
    format!("[{}] {}", conversation.turns[index].date, with_previous(conversation, index))
}

fn previous_only(conversation: &Conversation, index: usize) -> String {
    match index.checked_sub(1) {
        Some(previous) if conversation.turns[previous].date == conversation.turns[index].date => {
            plain(conversation, previous)
        }
        _ => String::new(),
    }
}

fn plain(conversation: &Conversation, index: usize) -> String {
    let turn = &conversation.turns[index];
    format!("{}: {}", turn.speaker, turn.text)
}

fn dated(conversation: &Conversation, index: usize) -> String {
    format!("[{}] {}", conversation.turns[index].date, plain(conversation, index))
}

fn with_previous(conversation: &Conversation, index: usize) -> String {
    match index.checked_sub(1) {
        Some(previous) if conversation.turns[previous].date == conversation.turns[index].date => {
            format!("{} {}", plain(conversation, previous), plain(conversation, index))
        }
        _ => plain(conversation, index),
    }
}

#[allow(clippy::print_stdout, reason = "an experiment prints its figures")]
fn main() -> anyhow::Result<()> {
    let mut locomo = PathBuf::from(DEFAULT_LOCOMO);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--locomo" => locomo = args.next().context("--locomo needs a path")?.into(),
            other => anyhow::bail!("unknown argument {other:?}"),
        }
    }
    let conversations = load_locomo(&locomo)?;
    let mut embedder = FastEmbedder::load(&ModelSearch::from_env(), &EmbedderOptions::default())?;
    let questions: Vec<(usize, &ferrex_examples::Question)> = conversations
        .iter()
        .enumerate()
        .flat_map(|(index, conversation)| {
            conversation.questions.iter().map(move |question| (index, question))
        })
        .filter(|(_, question)| question.category != 5 && !question.evidence.is_empty())
        .collect();
    let question_texts: Vec<&str> =
        questions.iter().map(|(_, question)| question.question.as_str()).collect();
    let stripped: Vec<String> =
        question_texts.iter().map(|question| strip_question(question)).collect();
    let stripped_refs: Vec<&str> = stripped.iter().map(String::as_str).collect();
    let question_vectors = if std::env::var_os("LAB_STRIP").is_some() {
        cached(&mut embedder, "questions-stripped", &stripped_refs)?
    } else {
        cached(&mut embedder, "questions", &question_texts)?
    };

    let variants = [
        Variant { name: "plain", text: plain, keywords: plain },
        Variant { name: "dated", text: dated, keywords: dated },
        Variant {
            name: "dated, keywords with previous",
            text: dated,
            keywords: dated_with_previous,
        },
        Variant {
            name: "dated with previous, both",
            text: dated_with_previous,
            keywords: dated_with_previous,
        },
    ];
    for weight in [1.0, 0.5, 0.25] {
        let fts = rusqlite::Connection::open_in_memory()?;
        fts.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(text, ctx, conv UNINDEXED, tokenize = '{}');",
            ferrex_core::rank::FTS_TOKENIZER
        ))?;
        let mut row = 0i64;
        for (conversation_index, conversation) in conversations.iter().enumerate() {
            for index in 0..conversation.turns.len() {
                fts.execute(
                    "INSERT INTO t(rowid, text, ctx, conv) VALUES (?1, ?2, ?3, ?4)",
                    rusqlite::params![
                        row,
                        dated(conversation, index),
                        previous_only(conversation, index),
                        conversation_index as i64
                    ],
                )?;
                row += 1;
            }
        }
        let mut hits = 0;
        let mut offset = 0usize;
        let mut offsets = vec![];
        for conversation in &conversations {
            offsets.push(offset);
            offset += conversation.turns.len();
        }
        for (conversation, question) in &questions {
            let words: Vec<String> =
                content_words(&question.question).into_iter().map(|w| format!("\"{w}\"")).collect();
            if words.is_empty() {
                continue;
            }
            let mut statement = fts.prepare_cached(&format!("SELECT rowid FROM t WHERE t MATCH ?1 AND conv = ?2 ORDER BY bm25(t, 1.0, {weight}) LIMIT 5"))?;
            let rows: Vec<i64> = statement
                .query_map(rusqlite::params![words.join(" OR "), *conversation as i64], |r| {
                    r.get(0)
                })?
                .collect::<Result<_, _>>()?;
            if rows.iter().any(|r| {
                let turn =
                    &conversations[*conversation].turns[*r as usize - offsets[*conversation]];
                question.evidence.contains(&turn.dia_id)
            }) {
                hits += 1;
            }
        }
        println!(
            "two-column bm25, context weight {weight}: R@5 {:.3}",
            hits as f64 / questions.len() as f64
        );
    }
    for variant in &variants {
        let mut texts: Vec<Vec<String>> = Vec::new();
        let mut keyword_texts: Vec<Vec<String>> = Vec::new();
        for conversation in &conversations {
            texts.push(
                (0..conversation.turns.len())
                    .map(|index| (variant.text)(conversation, index))
                    .collect(),
            );
            keyword_texts.push(
                (0..conversation.turns.len())
                    .map(|index| (variant.keywords)(conversation, index))
                    .collect(),
            );
        }
        let flat: Vec<&str> = texts.iter().flatten().map(String::as_str).collect();
        let cache_name =
            if std::ptr::fn_addr_eq(variant.text, dated as fn(&Conversation, usize) -> String) {
                "dated"
            } else {
                variant.name
            };
        let vectors = cached(&mut embedder, cache_name, &flat)?;
        // The node's passages of each text (see ferrex_core::passages), with
        // the row each belongs to.
        let mut passage_texts: Vec<String> = Vec::new();
        let mut passage_rows: Vec<usize> = Vec::new();
        for (row, text) in flat.iter().enumerate() {
            for passage in passages(text) {
                passage_texts.push(passage);
                passage_rows.push(row);
            }
        }
        let passage_refs: Vec<&str> = passage_texts.iter().map(String::as_str).collect();
        let passage_vectors =
            cached(&mut embedder, &format!("{cache_name}-passages"), &passage_refs)?;
        let previous_texts: Vec<String> = conversations
            .iter()
            .flat_map(|conversation| {
                (0..conversation.turns.len()).map(move |index| previous_only(conversation, index))
            })
            .collect();
        let previous_refs: Vec<&str> = previous_texts.iter().map(String::as_str).collect();
        let previous_vectors = cached(&mut embedder, "previous", &previous_refs)?;
        let mut offsets = vec![0usize];
        for list in &texts {
            offsets.push(offsets.last().copied().unwrap_or(0) + list.len());
        }
        let fts = rusqlite::Connection::open_in_memory()?;
        fts.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(text, conv UNINDEXED, tokenize = '{}');",
            ferrex_core::rank::FTS_TOKENIZER
        ))?;
        for (conversation, list) in keyword_texts.iter().enumerate() {
            for (index, text) in list.iter().enumerate() {
                fts.execute(
                    "INSERT INTO t(rowid, text, conv) VALUES (?1, ?2, ?3)",
                    rusqlite::params![
                        (offsets[conversation] + index) as i64,
                        text,
                        conversation as i64
                    ],
                )?;
            }
        }
        let mut methods: Vec<(String, Vec<usize>)> = Vec::new();
        let mut record = |name: String, hit: bool| {
            if let Some((_, counts)) = methods.iter_mut().find(|(known, _)| *known == name) {
                counts.push(usize::from(hit));
            } else {
                methods.push((name, vec![usize::from(hit)]));
            }
        };
        for (question_index, (conversation, question)) in questions.iter().enumerate() {
            let range = offsets[*conversation]..offsets[*conversation + 1];
            let query = &question_vectors[question_index];
            let mut dense: Vec<(usize, f32)> =
                range.clone().map(|row| (row, dot(query, &vectors[row]))).collect();
            dense.sort_by(|left, right| right.1.total_cmp(&left.1));
            dense.truncate(100);
            let bm25 = search(&fts, &question.question, *conversation)?;
            // Dense by each memory's nearest vector, whole text or passage.
            let mut best: HashMap<usize, f32> =
                range.clone().map(|row| (row, dot(query, &vectors[row]))).collect();
            for (passage, row) in passage_rows.iter().enumerate() {
                if range.contains(row) {
                    let score = dot(query, &passage_vectors[passage]);
                    best.entry(*row).and_modify(|best| *best = best.max(score));
                }
            }
            let mut dense_passages: Vec<(usize, f32)> = best.into_iter().collect();
            dense_passages
                .sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
            dense_passages.truncate(100);
            let turn_of =
                |row: usize| conversations[*conversation].turns[row - range.start].dia_id.as_str();
            let hit = |ranked: &[usize]| {
                ranked
                    .iter()
                    .take(5)
                    .any(|row| question.evidence.iter().any(|e| e == turn_of(*row)))
            };
            record(
                "passages dense".into(),
                hit(&dense_passages.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
            );
            for weight in [1.0, 2.0, 3.0] {
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, _)) in dense_passages.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("passages rrf60 bm25x{weight}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            // Pseudo-relevance feedback: the words most shared by the top
            // full-text hits, added to the query.
            let query_words: Vec<String> = content_words(&question.question);
            let mut counts: HashMap<String, usize> = HashMap::new();
            for (row, _) in bm25.iter().take(5) {
                let text = &keyword_texts[*conversation][*row - range.start];
                let mut seen: Vec<String> = content_words(text);
                seen.sort();
                seen.dedup();
                for word in seen {
                    if !query_words.contains(&word)
                        && word.len() > 2
                        && !word.chars().all(|c| c.is_ascii_digit())
                    {
                        *counts.entry(word).or_default() += 1;
                    }
                }
            }
            let mut expansion: Vec<(String, usize)> =
                counts.into_iter().filter(|(_, count)| *count >= 2).collect();
            expansion.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let expanded = format!(
                "{} {}",
                question.question,
                expansion
                    .iter()
                    .take(5)
                    .map(|(word, _)| word.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let prf = search(&fts, &expanded, *conversation)?;
            record("bm25+prf".into(), hit(&prf.iter().map(|(row, _)| *row).collect::<Vec<_>>()));
            for (text_weight, prf_weight) in
                [(1.0, 1.0), (2.0, 1.0), (2.0, 2.0), (3.0, 1.0), (3.0, 0.0), (0.0, 3.0)]
            {
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, _)) in dense.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        text_weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                for (rank, (row, _)) in prf.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        prf_weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("rrf60 bm25x{text_weight} prfx{prf_weight}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            for (margin, text_weight) in
                [(0.05, 1.0), (0.1, 1.0), (0.15, 1.0), (0.1, 2.0), (0.15, 2.0), (0.2, 2.0)]
            {
                let top = dense.first().map_or(0.0, |(_, score)| *score);
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, score)) in dense.iter().enumerate() {
                    if *score >= top - margin {
                        *scores.entry(*row).or_default() +=
                            1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                    }
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        text_weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("rrf60 dense within {margin} bm25x{text_weight}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            let mut dense_context: Vec<(usize, f32)> = range
                .clone()
                .filter(|row| !previous_texts[*row].is_empty())
                .map(|row| (row, dot(query, &previous_vectors[row])))
                .collect();
            dense_context.sort_by(|left, right| right.1.total_cmp(&left.1));
            dense_context.truncate(100);
            for (context_weight, text_weight) in
                [(0.5, 1.0), (1.0, 1.0), (0.5, 2.0), (1.0, 2.0), (0.5, 3.0)]
            {
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, _)) in dense.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                for (rank, (row, _)) in dense_context.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        context_weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        text_weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("rrf60 +context-dense x{context_weight} bm25x{text_weight}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            for floor in [0.2f32, 0.3, 0.35, 0.4, 0.45, 0.5] {
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, score)) in dense.iter().enumerate() {
                    if *score >= floor {
                        *scores.entry(*row).or_default() +=
                            1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                    }
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("rrf60 dense floor {floor}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            for (beta, text_weight) in [(0.2, 2.0)] {
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, _)) in dense.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        1.0 / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() +=
                        text_weight / (ferrex_core::rank::RRF_K + 1.0 + rank as f64);
                }
                let base = scores.clone();
                for (row, score) in &base {
                    for neighbour in [row.wrapping_sub(1), row + 1] {
                        if range.contains(&neighbour) {
                            *scores.entry(neighbour).or_default() += beta * score;
                        }
                    }
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("rrf60 bm25x{text_weight} neighbours {beta}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            record("dense".into(), hit(&dense.iter().map(|(row, _)| *row).collect::<Vec<_>>()));
            record("bm25".into(), hit(&bm25.iter().map(|(row, _)| *row).collect::<Vec<_>>()));
            for (k, weight) in [(60.0, 1.0), (60.0, 2.0), (60.0, 3.0), (60.0, 4.0), (10.0, 1.5)] {
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (rank, (row, _)) in dense.iter().enumerate() {
                    *scores.entry(*row).or_default() += 1.0 / (k + rank as f64 + 1.0);
                }
                for (rank, (row, _)) in bm25.iter().enumerate() {
                    *scores.entry(*row).or_default() += weight / (k + rank as f64 + 1.0);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("rrf k={k} bm25x{weight}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
            for alpha in [0.3, 0.5, 0.7] {
                let dense_max = dense.first().map_or(1.0, |(_, score)| *score as f64);
                let dense_min = dense.last().map_or(0.0, |(_, score)| *score as f64);
                let bm25_best = bm25.first().map_or(1.0, |(_, score)| *score);
                let mut scores: HashMap<usize, f64> = HashMap::new();
                for (row, score) in &dense {
                    *scores.entry(*row).or_default() +=
                        alpha * (*score as f64 - dense_min) / (dense_max - dense_min).max(1e-9);
                }
                for (row, score) in &bm25 {
                    *scores.entry(*row).or_default() += (1.0 - alpha) * score / bm25_best.max(1e-9);
                }
                let mut fused: Vec<(usize, f64)> = scores.into_iter().collect();
                fused.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
                record(
                    format!("score a={alpha}"),
                    hit(&fused.iter().map(|(row, _)| *row).collect::<Vec<_>>()),
                );
            }
        }
        println!("variant {}:", variant.name);
        for (name, hits) in &methods {
            println!(
                "  {name:<22} R@5 {:.3}",
                hits.iter().sum::<usize>() as f64 / hits.len() as f64
            );
        }
    }
    Ok(())
}

/// A question without its question words ("What did Caroline research?"
/// becomes "Caroline research").
fn strip_question(question: &str) -> String {
    const QUESTION: &[&str] = &[
        "what", "when", "where", "who", "whom", "whose", "why", "how", "which", "did", "does",
        "do", "is", "are", "was", "were", "has", "have", "had", "can", "could", "would", "will",
        "kind", "of", "the", "a", "an",
    ];
    let words: Vec<&str> = question.split_whitespace().collect();
    let start = words
        .iter()
        .position(|word| {
            !QUESTION.contains(
                &word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase().as_str(),
            )
        })
        .unwrap_or(0);
    words[start..].join(" ").trim_end_matches('?').to_owned()
}

/// BM25 top 100 of one conversation, best first, as positive scores.
fn search(
    fts: &rusqlite::Connection,
    text: &str,
    conversation: usize,
) -> anyhow::Result<Vec<(usize, f64)>> {
    let plain = content_words(text);
    let mut words: Vec<String> = plain.iter().map(|word| format!("\"{word}\"")).collect();
    if std::env::var_os("LAB_BIGRAMS").is_some() {
        for pair in plain.windows(2) {
            words.push(format!("\"{} {}\"", pair[0], pair[1]));
        }
    }
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let mut statement = fts.prepare_cached(
        "SELECT rowid, -bm25(t) FROM t WHERE t MATCH ?1 AND conv = ?2 ORDER BY bm25(t) LIMIT 100",
    )?;
    let rows = statement
        .query_map(rusqlite::params![words.join(" OR "), conversation as i64], |row| {
            Ok((row.get::<_, i64>(0)? as usize, row.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Vectors of `texts`, cached in the temporary directory under `name`.
fn cached(
    embedder: &mut FastEmbedder,
    name: &str,
    texts: &[&str],
) -> anyhow::Result<Vec<Vec<f32>>> {
    let dimension = embedder.dimension();
    cached_vectors(&format!("lab-{name}-{}", texts.len()), dimension, || {
        Ok(embedder.embed_batch(texts)?)
    })
}
