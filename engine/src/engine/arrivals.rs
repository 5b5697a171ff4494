//! Judgements of free text that arrived from a peer: is it a correction of
//! text this node holds, or corrected by it? The store pipeline makes this
//! judgement when a text is stored; two devices that stored the two texts
//! apart (offline, or before they paired) make it here, once the merge has
//! brought both and the arrival has its vector. The judgement is recorded
//! as a `corrects` edge, keyed by its two ends, so devices that both make
//! it write one edge, and every device agrees.

use std::collections::{BTreeMap, BTreeSet};

use ferrex_core::{Edge, EdgeKind, Namespace, correction::correction, working::WorkingKind};

use super::{
    Engine, EngineResult, lock,
    store::{NEIGHBOURS, cosine_of_distance},
};
use crate::derived::{
    index::MemoryRow,
    indexer::{self, KnownVectors},
};

/// How many arrivals one pass judges (the worker comes back for the rest).
const BATCH: usize = 64;

/// Whether a row is free text the store pipeline judges: not a fact, not
/// collapsed into another, not working state (events and task notes are
/// written without judgements).
fn judged_as_text(row: &MemoryRow) -> bool {
    row.predicate.is_none()
        && row.derived.duplicate_of.is_none()
        && WorkingKind::of_source(row.source.as_deref()).is_none()
        && !ferrex_core::chunk::is_file_chunk(row.source.as_deref())
}

impl Engine {
    /// Judges up to a batch of queued arrivals that have their vectors
    /// against their nearest text here, each pair the newer against the
    /// older (by creation time, then id), as the store pipeline would have;
    /// records what corrects what. The batch leaves the queue whatever
    /// happens (a batch that fails is logged, not retried forever, so it
    /// cannot hold up what arrives after it). Returns how many were judged.
    pub fn judge_arrivals(&self) -> EngineResult<usize> {
        let ready = lock(&self.index).judgements_ready(BATCH)?;
        if ready.is_empty() {
            return Ok(0);
        }
        let _writing = lock(&self.write_lock);
        let judged = self.judge_batch(&ready);
        lock(&self.index).judged(&ready)?;
        judged.map(|()| ready.len())
    }

    /// Judges `ready` and records the corrections found.
    fn judge_batch(&self, ready: &[String]) -> EngineResult<()> {
        let now = self.now();
        let device = self.replica.device().to_owned();
        let mut edges: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
        // What this batch corrected: corrected once, as at a store.
        let mut corrected: BTreeSet<String> = BTreeSet::new();
        {
            let index = lock(&self.index);
            for id in ready {
                let Some(arrived) = index.row(id)? else { continue };
                let Some(vector) = index.vector(id)? else { continue };
                if !judged_as_text(&arrived) {
                    continue;
                }
                let settings = self.settings(&arrived.namespace).conflict;
                // The nearest include the arrival itself.
                for (other_id, distance) in
                    index.near(&vector, &arrived.namespace, &[arrived.kind], NEIGHBOURS + 1)?
                {
                    let Some(other) = index.row(&other_id)? else { continue };
                    // Text one device stored both of was judged when stored.
                    if other.id == arrived.id
                        || other.created_by == arrived.created_by
                        || !judged_as_text(&other)
                    {
                        continue;
                    }
                    let (newer, older) = if (other.created_at, other.id.as_str())
                        < (arrived.created_at, arrived.id.as_str())
                    {
                        (&arrived, &other)
                    } else {
                        (&other, &arrived)
                    };
                    // Only what stands is corrected (as at a store).
                    let stands = older.derived.status != "superseded"
                        && older.derived.corrected_by.is_empty()
                        && !corrected.contains(&older.id);
                    if stands
                        && correction(
                            &newer.text,
                            &older.text,
                            cosine_of_distance(distance),
                            &settings,
                        )
                        .is_some()
                    {
                        corrected.insert(older.id.clone());
                        edges.entry(arrived.namespace.clone()).or_default().push(Edge {
                            kind: EdgeKind::Corrects,
                            from: newer.id.clone(),
                            to: older.id.clone(),
                            created_at: now,
                            created_by: device.clone(),
                        });
                    }
                }
            }
        }
        let mut index = lock(&self.index);
        for (namespace, edges) in edges {
            tracing::info!(count = edges.len(), %namespace, "recording corrections between text stored apart");
            let change = self.replica.add_edges(&Namespace::parse(&namespace)?, edges, now)?;
            indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
        }
        Ok(())
    }
}
