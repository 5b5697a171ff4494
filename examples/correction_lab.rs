//! The correction judgement alone, on the blind sets of corrections in
//! words (`correction_cases` and the five `correction_cases_*`), with the real
//! model's cosines: for the development pairs (the first set's even ones,
//! all of the second to the fifth) every case with what the judgement
//! read; for the held-out pairs (the first set's odd ones, all of the
//! sixth) nothing unless `--held-out` is given,
//! and then the figures only, so nothing is tuned on them. The figures of record come from
//! `belief_eval`, through a node.
//!
//! With `--locomo dated|agent` it also counts the corrections the
//! judgement would record between LoCoMo's dialogue turns, stored the
//! dated way or the agent's way (see `retrieval_eval`): each turn against
//! its five nearest earlier turns of its conversation, as a store judges a
//! text against its nearest neighbours. No turn there corrects another
//! (a few do, in passing), so every one recorded is, nearly surely, a true
//! memory hidden: the judgement's precision on a stream of real talk.
//!
//! With `--all`, every LoCoMo pair judged a correction is shown (else the
//! first twelve).
//!
//! Usage: `cargo run --release -p ferrex-examples --example correction_lab [-- --threshold 0.6 --held-out --locomo agent --all]`

use ferrex_core::{Embedder, conflict::ConflictSettings, correction, correction::signals, cosine};
use ferrex_embed::{EmbedderOptions, FastEmbedder, ModelSearch};
use ferrex_examples::{
    DEFAULT_LOCOMO,
    correction_cases::{CASES, CorrectionCase, held_out},
    correction_cases_eight_kinds::EIGHT_KINDS,
    correction_cases_fresh_domains::FRESH_DOMAINS,
    correction_cases_held_out::HELD_OUT_CASES,
    correction_cases_renamed_subjects::RENAMED_SUBJECTS,
    correction_cases_unlike_domains::UNLIKE_DOMAINS,
    load_locomo,
};

/// The splits before this one are development (their cases are shown).
const DEVELOPMENT: usize = 5;

#[allow(clippy::print_stdout, reason = "a lab prints its findings")]
fn main() -> anyhow::Result<()> {
    let mut settings = ConflictSettings::default();
    let mut show_held_out = false;
    let mut locomo: Option<String> = None;
    let mut shown = 12;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--threshold" => {
                settings.correction = args.next().unwrap_or_default().parse()?;
            }
            "--held-out" => show_held_out = true,
            "--locomo" => locomo = args.next(),
            "--all" => shown = usize::MAX,
            other => anyhow::bail!("unknown argument {other:?}"),
        }
    }
    let mut embedder = FastEmbedder::load(&ModelSearch::from_env(), &EmbedderOptions::default())?;
    // (true corrections, recorded corrections, recorded that are true) by
    // split: the first set's development half, the second to the fifth
    // sets (all development), the first set's held-out half, the sixth set
    // (all held out).
    let mut tallies = [(0usize, 0usize, 0usize); 7];
    let cases = CASES
        .iter()
        .enumerate()
        .map(|(index, case)| (if held_out(index) { 5 } else { 0 }, index, case))
        .chain(RENAMED_SUBJECTS.iter().enumerate().map(|(index, case)| (1, index, case)))
        .chain(EIGHT_KINDS.iter().enumerate().map(|(index, case)| (2, index, case)))
        .chain(FRESH_DOMAINS.iter().enumerate().map(|(index, case)| (3, index, case)))
        .chain(UNLIKE_DOMAINS.iter().enumerate().map(|(index, case)| (4, index, case)))
        .chain(HELD_OUT_CASES.iter().enumerate().map(|(index, case)| (6, index, case)));
    for (split, index, case) in cases {
        let case: &CorrectionCase = case;
        let vectors = embedder.embed_batch(&[case.newer, case.older])?;
        let similarity = f64::from(cosine(&vectors[0], &vectors[1]));
        let judged = correction::correction(case.newer, case.older, similarity, &settings);
        let tally = &mut tallies[split];
        tally.0 += usize::from(case.corrects);
        tally.1 += usize::from(judged.is_some());
        tally.2 += usize::from(judged.is_some() && case.corrects);
        if split < DEVELOPMENT {
            let mark = if judged.is_some() == case.corrects { "  " } else { "XX" };
            println!(
                "{mark} {split}/{index:>2} expect {:<5} got {:<16} cos {similarity:.3} {:?}\n      old {:?}\n      new {:?}",
                case.corrects,
                judged.map_or("-", |judged| judged.as_str()),
                signals(case.newer, case.older),
                case.older,
                case.newer,
            );
        }
    }
    let splits = if show_held_out { tallies.len() } else { DEVELOPMENT };
    for (split, (truth, recorded, right)) in [
        "development (first set, even)",
        "development (second set)",
        "development (third set)",
        "development (fourth set)",
        "development (fifth set)",
        "held out (first set, odd)",
        "held out (sixth set)",
    ]
    .iter()
    .zip(tallies)
    .take(splits)
    {
        println!(
            "{split}: precision {:.3} ({right}/{recorded}), recall {:.3} ({right}/{truth})",
            right as f64 / recorded.max(1) as f64,
            right as f64 / truth.max(1) as f64,
        );
    }
    if let Some(way) = locomo {
        locomo_corrections(&mut embedder, &settings, &way, shown)?;
    }
    Ok(())
}

/// Counts (and shows a few of) the corrections judged between LoCoMo turns.
#[allow(clippy::print_stdout, reason = "a lab prints its findings")]
fn locomo_corrections(
    embedder: &mut FastEmbedder,
    settings: &ConflictSettings,
    way: &str,
    most: usize,
) -> anyhow::Result<()> {
    let conversations = load_locomo(std::path::Path::new(DEFAULT_LOCOMO))?;
    let (mut pairs, mut judged, mut shown) = (0usize, 0usize, 0usize);
    for conversation in &conversations {
        let texts: Vec<String> = conversation
            .turns
            .iter()
            .map(|turn| match way {
                "dated" => format!("[{}] {}: {}", turn.date, turn.speaker, turn.text),
                _ => format!("[{}] {}: {}", turn.dia_id, turn.speaker, turn.text),
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed_batch(&refs)?;
        for (new, new_vector) in vectors.iter().enumerate() {
            let mut earlier: Vec<(usize, f64)> = vectors[..new]
                .iter()
                .enumerate()
                .map(|(old, old_vector)| (old, f64::from(cosine(new_vector, old_vector))))
                .collect();
            earlier.sort_by(|a, b| b.1.total_cmp(&a.1));
            for (old, similarity) in earlier.into_iter().take(5) {
                pairs += 1;
                let Some(why) =
                    correction::correction(&texts[new], &texts[old], similarity, settings)
                else {
                    continue;
                };
                judged += 1;
                if shown < most {
                    shown += 1;
                    println!(
                        "  {} cos {similarity:.3} {:?}\n      old {:?}\n      new {:?}",
                        why.as_str(),
                        signals(&texts[new], &texts[old]),
                        texts[old],
                        texts[new]
                    );
                }
            }
        }
    }
    println!("LoCoMo, {way}: {judged} corrections judged among {pairs} nearest pairs");
    Ok(())
}
