//! Embedding benchmark: ferrex-embed against a bare fastembed call, in one run.
//!
//! Usage: `cargo run --release -p ferrex-examples --example embed_bench [-- --model NAME --threads N --batch N --sentences N --rounds N]`
//!
//! Prints, for a corpus of short sentences and one of memory-sized sentences,
//! the median single-sentence latency and the median batch throughput of
//! `FastEmbedder` (ferrex-embed) and of a bare `fastembed::TextEmbedding`
//! built from the same files with the same options (a plain `embed(texts,
//! None)` call), and their ratio. Both run interleaved in one process so
//! machine noise hits them alike.

use std::time::{Duration, Instant};

use anyhow::Context;
use ferrex_core::Embedder;
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch};
use ferrex_examples::{bare_fastembed, median, memory_corpus, millis};

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
fn main() -> anyhow::Result<()> {
    let mut sentence_count = 500;
    let mut rounds = 3;
    let mut options = EmbedderOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().context("a flag needs a value");
        match arg.as_str() {
            "--sentences" => sentence_count = value()?.parse()?,
            "--rounds" => rounds = value()?.parse()?,
            "--threads" => options.intra_threads = value()?.parse()?,
            "--batch" => options.batch_size = value()?.parse()?,
            "--model" => options.tier = value()?.parse()?,
            other => anyhow::bail!("unknown argument {other:?}; see the usage line"),
        }
    }

    let files = ModelSearch::from_env().locate(options.tier)?;
    files.verify()?;
    let mut ferrex = FastEmbedder::from_verified_files(&files, &options)?;
    let mut bare = bare_fastembed(&files, &options)?;
    println!(
        "model {}, {} intra-op thread(s), ferrex batch {}, {sentence_count} sentences x {rounds} rounds",
        ferrex.model_id(),
        options.intra_threads,
        options.batch_size
    );
    println!("corpus  words/sentence   measure             ferrex-embed   bare fastembed   ratio");
    for (name, sentences) in
        [("short", short_corpus(sentence_count)), ("memory", memory_corpus(sentence_count))]
    {
        let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
        let words = texts.iter().map(|text| text.split_whitespace().count()).sum::<usize>() as f64
            / texts.len() as f64;
        // Warm both sessions up before timing.
        ferrex.embed_batch(&texts[..16])?;
        bare.embed(&texts[..16], None)?;

        let mut ferrex_single = Vec::new();
        let mut bare_single = Vec::new();
        for text in texts.iter().take(200) {
            ferrex_single.push(time(|| ferrex.embed_one(text).map(drop))?);
            bare_single.push(time(|| bare.embed([*text], None).map(drop))?);
        }
        let mut ferrex_rate = Vec::new();
        let mut bare_rate = Vec::new();
        for _ in 0..rounds {
            let elapsed = time(|| ferrex.embed_batch(&texts).map(drop))?;
            ferrex_rate.push(texts.len() as f64 / elapsed.as_secs_f64());
            let elapsed = time(|| bare.embed(&texts, None).map(drop))?;
            bare_rate.push(texts.len() as f64 / elapsed.as_secs_f64());
        }
        let ferrex_latency = millis(median_duration(&mut ferrex_single));
        let bare_latency = millis(median_duration(&mut bare_single));
        let ferrex_throughput = median(&mut ferrex_rate);
        let bare_throughput = median(&mut bare_rate);
        println!(
            "{name:<7} {words:>14.1}   single p50 (ms)     {ferrex_latency:>12.2}   {bare_latency:>14.2}   {:.3} (bare/ferrex)",
            bare_latency / ferrex_latency
        );
        println!(
            "{:<7} {:>14}   batch p50 (sent/s)  {ferrex_throughput:>12.0}   {bare_throughput:>14.0}   {:.3} (ferrex/bare)",
            "",
            "",
            ferrex_throughput / bare_throughput
        );
    }
    Ok(())
}

/// Short sentences, like the ones in the embedder sanity test.
fn short_corpus(count: usize) -> Vec<String> {
    const SUBJECTS: [&str; 6] =
        ["The cat", "Our api server", "Alice", "The nightly build", "The database", "My laptop"];
    const REST: [&str; 7] = [
        "sits on the mat",
        "listens on port 8080",
        "prefers tabs over spaces",
        "failed twice this week",
        "runs postgres 16",
        "needs a new battery",
        "moved to Wednesday mornings",
    ];
    (0..count)
        .map(|index| {
            format!(
                "{} {} ({index}).",
                SUBJECTS[index % SUBJECTS.len()],
                REST[(index / 6) % REST.len()]
            )
        })
        .collect()
}

fn time<E>(work: impl FnOnce() -> Result<(), E>) -> Result<Duration, E> {
    let started = Instant::now();
    work()?;
    Ok(started.elapsed())
}

fn median_duration(values: &mut [Duration]) -> Duration {
    values.sort_unstable();
    values[values.len() / 2]
}
