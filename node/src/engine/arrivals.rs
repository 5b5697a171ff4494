//! Judgements of free text that arrived from a peer: is it a correction of
//! text this node holds, or corrected by it? The store pipeline makes this
//! judgement when a text is stored; two devices that stored the two texts
//! apart (offline, or before they paired) make it here, once the merge has
//! brought both and the arrival has its vector. The judgement is recorded
//! as a `corrects` edge, keyed by its two ends, so devices that both make
//! it write one edge, and every device agrees.

use std::collections::BTreeMap;

use ferrex_core::{Edge, EdgeKind, Namespace, conflict, working::Role};

use super::{
    Engine, lock,
    store::{NEIGHBOURS, cosine_of_distance},
};
use crate::{
    base::clock,
    derived::{
        index::MemoryRow,
        indexer::{self, KnownVectors},
    },
};

/// How many arrivals one pass judges (the worker comes back for the rest).
const BATCH: usize = 64;

/// Whether a row is free text the store pipeline judges: not a fact, not
/// collapsed into another, not working state (events and task notes are
/// written without judgements).
fn judged_as_text(row: &MemoryRow) -> bool {
    row.predicate.is_none()
        && row.derived.duplicate_of.is_none()
        && Role::of_source(row.source.as_deref()).is_none()
}

impl Engine {
    /// Judges up to a batch of queued arrivals that have their vectors
    /// against their nearest text here, each pair the newer against the
    /// older (by creation time, then id), as the store pipeline would have;
    /// records what corrects what. Returns how many were judged.
    pub fn judge_arrivals(&self) -> anyhow::Result<usize> {
        let ready = lock(&self.index).judgements_ready(BATCH)?;
        if ready.is_empty() {
            return Ok(0);
        }
        let _writing = lock(&self.write_lock);
        let now = clock::now();
        let device = self.replica.device().to_owned();
        let mut edges: Vec<(String, Edge)> = Vec::new();
        {
            let index = lock(&self.index);
            for id in &ready {
                let Some(arrived) = index.row(id)? else { continue };
                let Some(vector) = index.vector(id)? else { continue };
                if !judged_as_text(&arrived) {
                    continue;
                }
                let settings = self.settings(&arrived.namespace).conflict;
                for (other_id, distance) in
                    index.near(&vector, &arrived.namespace, &[arrived.kind], NEIGHBOURS)?
                {
                    let Some(other) = index.row(&other_id)? else { continue };
                    if other.id == arrived.id || !judged_as_text(&other) {
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
                        && older.derived.corrected_by.is_empty();
                    let judged = stands
                        && conflict::correction(
                            &newer.text,
                            &older.text,
                            cosine_of_distance(distance),
                            &settings,
                        )
                        .is_some();
                    if judged
                        && !edges
                            .iter()
                            .any(|(_, edge)| edge.from == newer.id && edge.to == older.id)
                    {
                        edges.push((
                            arrived.namespace.clone(),
                            Edge {
                                kind: EdgeKind::Corrects,
                                from: newer.id.clone(),
                                to: older.id.clone(),
                                created_at: now,
                                created_by: device.clone(),
                            },
                        ));
                    }
                }
            }
        }
        let mut by_namespace: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
        for (namespace, edge) in edges {
            by_namespace.entry(namespace).or_default().push(edge);
        }
        let mut index = lock(&self.index);
        for (namespace, edges) in by_namespace {
            tracing::info!(count = edges.len(), %namespace, "recording corrections between text stored apart");
            let change = self.replica.add_edges(&Namespace::parse(&namespace)?, edges, now)?;
            indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
        }
        index.judged(&ready)?;
        Ok(ready.len())
    }
}
