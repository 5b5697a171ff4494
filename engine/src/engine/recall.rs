//! The recall pipeline: embed the query (cached), take dense candidates
//! from sqlite-vec, BM25 candidates from FTS5 and, when the query names a
//! date, the memories valid then; fuse them by reciprocal rank, lift what
//! the best of them reach through the knowledge graph, filter
//! (kinds, entities, time range, staleness, invalidated facts,
//! collapsed duplicates), weigh recency, trust and corrections, optionally
//! diversify (MMR), and label every result.
//!
//! Everything after the search uses document content, the query, the model
//! and the time only, so nodes with equal document heads rank alike.

use std::{
    collections::{BTreeSet, HashMap},
    time::{Duration, Instant},
};

use ferrex_core::{
    MemoryKind, MemorySettings, Namespace, Staleness, Timestamp, cosine, rank,
    scoring::{self, THREAD_WINDOW_MS, confidence, recency_boost},
    staleness, staleness_label, when,
};

use super::{Engine, EngineResult, ToolError, lock, usage_of};
use crate::derived::index::{MemoryFilter, MemoryRow, Namespaces};

/// Candidates taken from each of the dense and full-text lists.
const CANDIDATES: usize = 100;
/// With an entity or time filter, the filtered memories are ranked exactly
/// when there are at most this many; beyond, the candidates are filtered.
const EXACT_FILTER_LIMIT: usize = 2_000;
/// What is recorded about a day is often recorded in the days after it:
/// a query's dates match memories up to this many days past them.
const DATE_SLACK_DAYS: f64 = 7.0;
/// The deepest either candidate list goes when filters drop too many.
const MAX_CANDIDATES: usize = 1_600;
/// How many of the best candidates the graph is walked from (see
/// `RankingSettings::graph_weight`).
const GRAPH_SEEDS: usize = 5;
/// An entity mentioned by more memories than this is not walked through.
const GRAPH_HUB_LIMIT: usize = 200;
/// At most this many memories a seed reaches by links, and as many by
/// entities (the newest), are ranked.
const GRAPH_REACHED: usize = 50;
/// The neighbours of each seed that are lifted, best by meaning first.
const GRAPH_PER_SEED: usize = 3;
/// A recall request after validation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecallRequest {
    /// What to look for.
    pub query: String,
    /// Where.
    pub namespace: Namespace,
    /// Which kinds; all when empty.
    pub kinds: Vec<MemoryKind>,
    /// How many results at most.
    pub limit: usize,
    /// Only memories about these entities (names).
    pub entities: Vec<String>,
    /// Only memories valid from this time on (inclusive).
    pub start: Option<Timestamp>,
    /// Only memories valid before this time.
    pub end: Option<Timestamp>,
    /// Include stale memories.
    pub include_stale: bool,
    /// Include superseded facts and superseded text.
    pub include_invalidated: bool,
    /// Memories to mark validated first.
    pub validate_ids: Vec<String>,
    /// 0 (off) to 1: how much to trade relevance for variety (MMR).
    pub diversity: f64,
    /// Which of memories and file chunks (`engine/files.rs`) are searched.
    pub sources: Sources,
    /// Only file chunks of files under this path (relative to their
    /// watched folder).
    pub path: Option<String>,
}

impl RecallRequest {
    /// Whether memory `row` can be one of this request's results: of the
    /// sources and kinds asked for, not a duplicate, not working state read
    /// through its own tool, not a link between memories (read through
    /// `graph`), not superseded unless asked for. Staleness aside.
    fn may_answer(&self, row: &MemoryRow) -> bool {
        let chunk = ferrex_core::chunk::is_file_chunk(row.source.as_deref());
        let wanted = match self.sources {
            Sources::Both => true,
            Sources::Memories => !chunk,
            Sources::Files => chunk,
        };
        // A file chunk is of no memory kind.
        wanted
            && (chunk || self.kinds.is_empty() || self.kinds.contains(&row.kind))
            && row.derived.duplicate_of.is_none()
            // A session's events and a task's progress notes are read
            // through `session` and `task`, not recalled.
            && ferrex_core::working::WorkingKind::of_source(row.source.as_deref())
                .is_none_or(|role| role.recallable())
            && !(row.source.as_deref() == Some(ferrex_core::walk::LINK_SOURCE)
                && row.subject_entity.is_none())
            && (row.derived.status != "superseded" || self.include_invalidated)
    }

    /// The kinds the index is searched for: a file chunk's row is
    /// procedural, whatever kinds of memories are asked for.
    fn index_kinds(&self) -> Vec<MemoryKind> {
        match self.sources {
            Sources::Files => vec![MemoryKind::Procedural],
            _ if self.kinds.is_empty() || self.kinds.contains(&MemoryKind::Procedural) => {
                self.kinds.clone()
            }
            Sources::Memories => self.kinds.clone(),
            Sources::Both => self.kinds.iter().copied().chain([MemoryKind::Procedural]).collect(),
        }
    }
}

/// Which of memories and file chunks a recall searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sources {
    /// Both, ranked in one list.
    #[default]
    Both,
    /// Memories only.
    Memories,
    /// File chunks only.
    Files,
}

/// Memories of the namespace the index had not fully embedded when a
/// recall searched: what it found by meaning was partial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Backlog {
    /// Memories with no vector yet: only keyword search could find them.
    pub without_vectors: i64,
    /// Memories found by their whole text's vector whose passages'
    /// vectors were still to come (a question about one of their
    /// sentences finds them less well).
    pub without_passages: i64,
    /// How long the recall waited for the worker.
    pub waited: Duration,
}

impl Backlog {
    /// Whether nothing was pending.
    pub fn is_empty(&self) -> bool {
        self.without_vectors == 0 && self.without_passages == 0
    }
}

/// One recall result.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// The memory as indexed.
    pub row: MemoryRow,
    /// The final score (higher is better).
    pub score: f64,
    /// Its staleness label.
    pub staleness: Staleness,
    /// How much it is to be trusted now, 0..=1.
    pub confidence: f64,
}

impl Engine {
    /// Waits, when it is short, for the embedding worker to give every
    /// memory of `namespace` a vector; returns what is still pending.
    fn settle_backlog(&self, namespace: &str) -> EngineResult<Backlog> {
        let started = Instant::now();
        let wait = self.settings.recall_backlog_wait;
        let deadline = wait + wait / 3;
        loop {
            let (without_vectors, without_passages) =
                lock(&self.index).embedding_backlog(Some(namespace))?;
            let backlog = Backlog { without_vectors, without_passages, waited: started.elapsed() };
            if without_vectors == 0 || started.elapsed() >= deadline {
                return Ok(backlog);
            }
            // The worker takes memories in order, of every namespace.
            let (ahead, _) = lock(&self.index).embedding_backlog(None)?;
            if self.work.estimate(ahead) > wait {
                return Ok(backlog);
            }
            self.work.notify();
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Hybrid search with the belief filters and scores; also says what of
    /// the namespace was not embedded yet.
    pub fn recall(
        &self,
        request: &RecallRequest,
    ) -> Result<(Vec<Recalled>, Vec<String>, Backlog), ToolError> {
        self.recall_across(request, &[])
    }

    /// [`Engine::recall`] over `request.namespace` and `also` together (a
    /// project's recall searches the universal namespace too): each is
    /// ranked on its own, the best of all kept by score, then id, and only
    /// what is returned counts as used (access feeds trust and staleness).
    /// `validate_ids` are validated once.
    pub fn recall_across(
        &self,
        request: &RecallRequest,
        also: &[Namespace],
    ) -> Result<(Vec<Recalled>, Vec<String>, Backlog), ToolError> {
        let (mut results, validated, mut backlog) = self.ranked(request)?;
        let mut other = RecallRequest { validate_ids: Vec::new(), ..request.clone() };
        let others: Vec<&Namespace> =
            also.iter().filter(|namespace| **namespace != request.namespace).collect();
        for namespace in &others {
            other.namespace = (*namespace).clone();
            let (more, _, more_backlog) = self.ranked(&other)?;
            results.extend(more);
            backlog.without_vectors += more_backlog.without_vectors;
            backlog.without_passages += more_backlog.without_passages;
            backlog.waited += more_backlog.waited;
        }
        // One namespace keeps its own order (diversity's, when asked).
        if !others.is_empty() {
            results
                .sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.row.id.cmp(&b.row.id)));
            results.truncate(request.limit);
        }
        let now = self.now();
        lock(&self.index).transaction(|tx| {
            for result in &results {
                tx.record_access(&result.row.id, now.0)?;
            }
            Ok(())
        })?;
        Ok((results, validated, backlog))
    }

    /// One namespace's best `request.limit` results, recording no use.
    pub(super) fn ranked(
        &self,
        request: &RecallRequest,
    ) -> Result<(Vec<Recalled>, Vec<String>, Backlog), ToolError> {
        let validated = self.validate(&request.validate_ids)?;
        let backlog = self.settle_backlog(request.namespace.as_str())?;
        let vector = self.embedder.embed_query(&request.query)?;
        let settings = self.settings(request.namespace.as_str()).clone();
        let entity_filter = self.entity_filter(&request.namespace, &request.entities)?;
        let now = self.now();
        let mut index = lock(&self.index);
        let namespace = request.namespace.as_str();
        let filtering = entity_filter.is_some() || request.start.is_some() || request.end.is_some();
        // A path names file chunks: those of files under it.
        let under_path: Option<BTreeSet<String>> = match &request.path {
            Some(prefix) => Some(index.chunks_under(namespace, prefix)?.into_iter().collect()),
            None => None,
        };
        let only = [namespace.to_owned()];
        let allowed: Option<BTreeSet<String>> = if filtering {
            Some(
                index
                    .filtered(&MemoryFilter {
                        namespaces: Namespaces::Of(&only),
                        kinds: &request.index_kinds(),
                        entities: entity_filter.as_deref(),
                        start: request.start.map(|time| time.0),
                        end: request.end.map(|time| time.0),
                        invalidated: request.include_invalidated,
                        ..MemoryFilter::default()
                    })?
                    .into_iter()
                    .collect(),
            )
        } else {
            None
        };
        let allowed = match (allowed, under_path) {
            (Some(allowed), Some(under)) => Some(allowed.intersection(&under).cloned().collect()),
            (allowed, under) => allowed.or(under),
        };
        // Few enough memories pass the filters to rank each by meaning.
        let exact_dense: Option<Vec<String>> = match &allowed {
            Some(allowed) if allowed.len() <= EXACT_FILTER_LIMIT => {
                Some(by_meaning(&index, &vector, allowed)?)
            }
            _ => None,
        };
        // What the query's dates point at, a list of its own.
        let dated = if settings.ranking.date_weight > 0.0 {
            dated_list(&index, &vector, request, now)?
        } else {
            Vec::new()
        };
        // Filters and labels drop candidates; when too few are left, look
        // deeper (bounded).
        let mut wanted = CANDIDATES.max(request.limit * 3);
        let mut results: Vec<Recalled>;
        loop {
            let (mut dense_ids, mut text_ids) = match &exact_dense {
                Some(all) => {
                    let text =
                        index.text(&request.query, namespace, &request.index_kinds(), wanted)?;
                    (
                        all.iter().take(wanted).cloned().collect(),
                        text.into_iter().map(|(id, _)| id).collect(),
                    )
                }
                None => {
                    let exact = settings.ranking.exact_search;
                    self.search(&index, &vector, request, wanted, exact)?
                }
            };
            let exhausted = dense_ids.len() < wanted && text_ids.len() < wanted;
            let mut dated_ids: Vec<String> = dated.iter().take(wanted).cloned().collect();
            if let Some(allowed) = &allowed {
                dense_ids.retain(|id| allowed.contains(id));
                text_ids.retain(|id| allowed.contains(id));
                dated_ids.retain(|id| allowed.contains(id));
            }
            // What follows a keyword match in a thread, read with it.
            let mut threads = if settings.ranking.thread_weight > 0.0 {
                index.followers(&text_ids, THREAD_WINDOW_MS)?
            } else {
                Vec::new()
            };
            if let Some(allowed) = &allowed {
                threads.retain(|(follower, _)| allowed.contains(follower));
            }
            let lists = Lists {
                dense: &dense_ids,
                text: &text_ids,
                dated: &dated_ids,
                threads: &threads,
                vector: &vector,
                allowed: allowed.as_ref(),
            };
            results = self.score(&index, request, &settings, &lists, now)?;
            if results.len() >= request.limit || exhausted || wanted >= MAX_CANDIDATES {
                break;
            }
            wanted = (wanted * 4).min(MAX_CANDIDATES);
        }
        let depth = settings.ranking.rerank_depth.min(results.len());
        if depth > 1 && self.embedder.has_reranker() {
            // The cross-encoder reads each pair whole: slow, so without
            // holding the index.
            drop(index);
            let texts: Vec<&str> =
                results[..depth].iter().map(|result| result.row.text.as_str()).collect();
            let scores = self.embedder.rerank(&request.query, &texts)?;
            // The cross-encoder's order and the fused one, fused again: each
            // sees what the other misses.
            let mut by_reranker: Vec<usize> = (0..depth).collect();
            by_reranker.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
            let mut blended = vec![0.0; depth];
            for (rank, &position) in by_reranker.iter().enumerate() {
                blended[position] = 1.0 / (rank::RRF_K + rank as f64 + 1.0)
                    + 1.0 / (rank::RRF_K + position as f64 + 1.0);
            }
            let mut head: Vec<(usize, Recalled)> = results.drain(..depth).enumerate().collect();
            head.sort_by(|(a, _), (b, _)| blended[*b].total_cmp(&blended[*a]).then(a.cmp(b)));
            results.splice(0..0, head.into_iter().map(|(_, result)| result));
            index = lock(&self.index);
        }
        if request.diversity > 0.0 && results.len() > 1 {
            results.truncate(request.limit * 3);
            let candidates: Vec<(String, f64, Vec<f32>)> = results
                .iter()
                .map(|result| {
                    let vector = index.vector(&result.row.id).ok().flatten().unwrap_or_default();
                    (result.row.id.clone(), result.score, vector)
                })
                .collect();
            let order = rank::maximal_marginal_relevance(
                &candidates,
                1.0 - request.diversity,
                request.limit,
            );
            let mut by_id: HashMap<String, Recalled> =
                results.into_iter().map(|result| (result.row.id.clone(), result)).collect();
            results = order.into_iter().filter_map(|id| by_id.remove(&id)).collect();
        }
        results.truncate(request.limit);
        Ok((results, validated, backlog))
    }

    /// Fuses the candidate lists and scores what passes the filters, best
    /// first.
    fn score(
        &self,
        index: &crate::derived::index::Index,
        request: &RecallRequest,
        settings: &ferrex_core::MemorySettings,
        lists: &Lists<'_>,
        now: Timestamp,
    ) -> EngineResult<Vec<Recalled>> {
        let (dense_ids, text_ids) = (lists.dense, lists.text);
        let followers: Vec<String> =
            lists.threads.iter().map(|(follower, _)| follower.clone()).collect();
        let ids: BTreeSet<String> = dense_ids
            .iter()
            .chain(text_ids)
            .chain(lists.dated)
            .chain(&followers)
            .cloned()
            .collect();
        let ids: Vec<String> = ids.into_iter().collect();
        let mut rows = index.rows(&ids)?;
        let ranking = &settings.ranking;
        // A keyword match counts by how much of the query it holds.
        let query_words = rank::keywords(&request.query);
        let covered = |text: &str| -> f64 {
            rank::keyword_coverage(&query_words, text).powf(ranking.keyword_coverage)
        };
        let coverage = |id: &str| -> f64 {
            if ranking.keyword_coverage == 0.0 {
                return 1.0;
            }
            rows.get(id).map_or(0.0, |row| {
                let context = row.context.as_deref().unwrap_or_default();
                covered(&format!("{} {context}", row.text))
            })
        };
        // A follower's keywords are its own and those of what it follows.
        let followed: HashMap<&str, &str> = lists
            .threads
            .iter()
            .map(|(follower, followed)| (follower.as_str(), followed.as_str()))
            .collect();
        let thread_coverage = |id: &str| -> f64 {
            if ranking.keyword_coverage == 0.0 {
                return 1.0;
            }
            let text = |id: &str| rows.get(id).map_or("", |row| row.text.as_str());
            let before = followed.get(id).copied();
            // An answer to a question is read with what the question asks
            // about, the turn before it.
            let asked = before
                .filter(|before| scoring::asks(text(before)))
                .and_then(|before| followed.get(before))
                .map_or("", |asked| text(asked));
            covered(&format!("{} {} {asked}", text(id), before.map_or("", text)))
        };
        let mut fused = rank::scaled_rank_fusion(
            &[
                (dense_ids, ranking.dense_weight, &|_| 1.0),
                (text_ids, ranking.text_weight, &coverage),
                (lists.dated, ranking.date_weight, &|_| 1.0),
                (&followers, ranking.thread_weight, &thread_coverage),
            ],
            rank::RRF_K,
        );
        if ranking.graph_weight > 0.0 {
            let (mut reached, reached_rows) =
                self.reached(index, request, lists, &rows, &fused, ranking.graph_weight)?;
            if !reached.is_empty() {
                rows.extend(reached_rows.into_iter().filter(|(id, _)| reached.contains_key(id)));
                for (id, score) in &mut fused {
                    if let Some(activation) = reached.remove(id) {
                        *score = score.max(activation);
                    }
                }
                fused.extend(reached);
                rank::sort_by_score(&mut fused);
            }
        }
        // What corrects a candidate answers the same question, in its
        // newer words: it is a candidate at least as good (a correction
        // that shares few words with the query would otherwise fall behind
        // look-alikes that do, while what it corrects is found).
        let mut lifted: HashMap<String, f64> = HashMap::new();
        for (id, score) in &fused {
            for corrector in
                rows.get(id).map(|row| row.derived.corrected_by.as_slice()).unwrap_or(&[])
            {
                let best = lifted.entry(corrector.clone()).or_insert(*score);
                *best = best.max(*score);
            }
        }
        if !lifted.is_empty() {
            let missing: Vec<String> =
                lifted.keys().filter(|id| !rows.contains_key(*id)).cloned().collect();
            rows.extend(index.rows(&missing)?);
            for (id, score) in &mut fused {
                if let Some(lift) = lifted.remove(id) {
                    *score = score.max(lift);
                }
            }
            fused.extend(lifted.into_iter().filter(|(id, _)| {
                rows.get(id).is_some_and(|row| row.namespace == request.namespace.as_str())
            }));
            rank::sort_by_score(&mut fused);
        }
        let mut results: Vec<Recalled> = fused
            .into_iter()
            .filter_map(|(id, fused_score)| {
                let row = rows.remove(&id)?;
                if !request.may_answer(&row) {
                    return None;
                }
                let (label, trust) = judge(&row, now, settings);
                if label == Staleness::Stale && !request.include_stale {
                    return None;
                }
                let mut score = fused_score
                    * recency_boost(
                        row.kind,
                        Timestamp(row.created_at),
                        now,
                        &settings.staleness,
                        &settings.ranking,
                    )
                    * (0.5 + 0.5 * trust);
                if !row.derived.corrected_by.is_empty() {
                    score *= settings.ranking.corrected_penalty;
                }
                if row.derived.status == "superseded" {
                    score *= settings.ranking.corrected_penalty;
                }
                Some(Recalled { row, score, staleness: label, confidence: trust })
            })
            .collect();
        results.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.row.id.cmp(&b.row.id)));
        Ok(results)
    }

    /// What the best candidates of `fused` reach through the graph, each
    /// with the score it is lifted to: a seed's first [`GRAPH_PER_SEED`]
    /// neighbours that could be results (what links join to it, then what
    /// shares an entity with it, each by meaning) are worth `weight` times
    /// the seed's
    /// score, halved, thirded, … down that order. A memory keeps the
    /// better of that and its own score, so a neighbour that shares no
    /// word with the question (the second hop of one) comes up behind what
    /// reaches it, and what was found on its own is not moved: lifting
    /// instead of adding keeps a cluster of memories about one entity from
    /// rising above the one that answers. Also answers the rows it read
    /// of what it reached (those `rows` did not hold).
    fn reached(
        &self,
        index: &crate::derived::index::Index,
        request: &RecallRequest,
        lists: &Lists<'_>,
        rows: &HashMap<String, MemoryRow>,
        fused: &[(String, f64)],
        weight: f64,
    ) -> EngineResult<(HashMap<String, f64>, HashMap<String, MemoryRow>)> {
        // The best candidates that can be answers.
        let seeds: Vec<(String, f64)> = fused
            .iter()
            .filter(|(id, _)| {
                rows.get(id).is_some_and(|row| {
                    row.namespace == request.namespace.as_str() && request.may_answer(row)
                })
            })
            .take(GRAPH_SEEDS)
            .cloned()
            .collect();
        let seed_score: HashMap<&str, f64> =
            seeds.iter().map(|(id, score)| (id.as_str(), *score)).collect();
        let seeds: Vec<String> = seeds.iter().map(|(id, _)| id.clone()).collect();
        // Per seed: what links join to it, and what shares an entity (the
        // newest first), each bounded before a row is read.
        let mut by_seed: HashMap<String, (Vec<String>, Vec<String>)> = HashMap::new();
        for reached in index.neighbours(request.namespace.as_str(), &seeds, GRAPH_HUB_LIMIT)? {
            if lists.allowed.is_some_and(|allowed| !allowed.contains(&reached.id)) {
                continue;
            }
            let (linked, shared) = by_seed.entry(reached.from).or_default();
            let list = if reached.linked { linked } else { shared };
            if list.len() < GRAPH_REACHED {
                list.push(reached.id);
            }
        }
        // Only what could be a result takes a seed's place. The rows of
        // candidates are held already; the others are read once.
        let unread: BTreeSet<String> = by_seed
            .values()
            .flat_map(|(linked, shared)| linked.iter().chain(shared))
            .filter(|id| !rows.contains_key(*id))
            .cloned()
            .collect();
        let candidates = index.rows(&unread.into_iter().collect::<Vec<_>>())?;
        let eligible = |ids: Vec<String>| -> Vec<String> {
            ids.into_iter()
                .filter(|id| {
                    rows.get(id)
                        .or_else(|| candidates.get(id))
                        .is_some_and(|row| request.may_answer(row))
                })
                .collect()
        };
        let mut lifted: HashMap<String, f64> = HashMap::new();
        for (seed, (linked, shared)) in by_seed {
            let base = weight * seed_score.get(seed.as_str()).copied().unwrap_or_default();
            // A link was stated; a shared entity may be a hub's: links first.
            let order = by_meaning(index, lists.vector, &eligible(linked))?
                .into_iter()
                .chain(by_meaning(index, lists.vector, &eligible(shared))?);
            for (rank, id) in order.take(GRAPH_PER_SEED).enumerate() {
                let activation = base / (rank as f64 + 1.0);
                let best = lifted.entry(id).or_insert(activation);
                *best = best.max(activation);
            }
        }
        Ok((lifted, candidates))
    }

    /// The dense and full-text candidate ids, best first; the dense ones
    /// by an `exact` scan of every vector when asked.
    fn search(
        &self,
        index: &crate::derived::index::Index,
        vector: &[f32],
        request: &RecallRequest,
        wanted: usize,
        exact: bool,
    ) -> EngineResult<(Vec<String>, Vec<String>)> {
        let namespace = request.namespace.as_str();
        let dense = if exact {
            index.dense_best_exact(vector, namespace, &request.index_kinds(), wanted)?
        } else {
            index.dense_best(vector, namespace, &request.index_kinds(), wanted)?
        };
        let text = index.text(&request.query, namespace, &request.index_kinds(), wanted)?;
        Ok((
            dense.into_iter().map(|(id, _)| id).collect(),
            text.into_iter().map(|(id, _)| id).collect(),
        ))
    }
}

/// A memory's staleness label and its trust (its confidence, grown by
/// evidence and fading since it was last confirmed) at `now`.
pub(super) fn judge(
    row: &MemoryRow,
    now: Timestamp,
    settings: &MemorySettings,
) -> (Staleness, f64) {
    // A file chunk is what the file says now: never stale, and trusted
    // as the file is.
    if ferrex_core::chunk::is_file_chunk(row.source.as_deref()) {
        return (Staleness::Fresh, row.confidence);
    }
    let label =
        staleness_label(staleness(&usage_of(row), now, &settings.staleness), &settings.staleness);
    let half_life = settings.staleness.half_life_days(row.kind);
    let confirmed = row.last_validated.unwrap_or(row.created_at).max(row.created_at);
    (label, confidence(row.confidence, row.evidence, Timestamp(confirmed), now, half_life))
}

/// The ranked lists a recall fuses.
struct Lists<'a> {
    /// By meaning.
    dense: &'a [String],
    /// By keywords.
    text: &'a [String],
    /// The memories of the time the query names, by meaning (empty when
    /// it names none).
    dated: &'a [String],
    /// What follows a keyword match in a thread, as `(follower, followed)`,
    /// in the order of the matches.
    threads: &'a [(String, String)],
    /// The query's vector.
    vector: &'a [f32],
    /// What the filters let through, when the request has filters.
    allowed: Option<&'a BTreeSet<String>>,
}

/// `ids` best first by their closest vector to `vector` (ties by id);
/// memories without a vector yet are left out.
fn by_meaning<'a>(
    index: &crate::derived::index::Index,
    vector: &[f32],
    ids: impl IntoIterator<Item = &'a String>,
) -> EngineResult<Vec<String>> {
    let mut scored: Vec<(String, f32)> = Vec::new();
    for id in ids {
        let best =
            index.vectors(id)?.iter().map(|stored| cosine(vector, stored)).max_by(f32::total_cmp);
        if let Some(best) = best {
            scored.push((id.clone(), best));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(scored.into_iter().map(|(id, _)| id).collect())
}

/// The memories of the time the query names ("on 8 May 2023", "last
/// week"; up to [`DATE_SLACK_DAYS`] after it), best first by meaning; none
/// when it names no time, or one that holds more than
/// [`EXACT_FILTER_LIMIT`] memories (it tells little then).
fn dated_list(
    index: &crate::derived::index::Index,
    vector: &[f32],
    request: &RecallRequest,
    now: Timestamp,
) -> EngineResult<Vec<String>> {
    let Some(window) = when::named_window(&request.query, now) else { return Ok(Vec::new()) };
    let only = [request.namespace.as_str().to_owned()];
    let ids = index.filtered(&MemoryFilter {
        namespaces: Namespaces::Of(&only),
        kinds: &request.index_kinds(),
        start: Some(window.start.0),
        end: Some(window.end.plus_days(DATE_SLACK_DAYS).0),
        invalidated: request.include_invalidated,
        ..MemoryFilter::default()
    })?;
    if ids.len() > EXACT_FILTER_LIMIT {
        return Ok(Vec::new());
    }
    by_meaning(index, vector, &ids)
}
