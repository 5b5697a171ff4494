//! Predicate resolution in the store pipeline (the stages are
//! `ferrex_core::predicate`'s; this supplies what they need from the index
//! and the embedder), and the judgement of facts a peer stored under
//! wordings this node files under another predicate.

use ferrex_core::{
    Edge, EdgeKind, Namespace, cosine,
    predicate::{self, Cardinality, PredicateMatch},
};

use super::{Engine, EngineResult, entities::Vectors, lock};
use crate::{
    derived::index::MemoryRow,
    derived::indexer::{self, KnownVectors},
};

/// A fact's predicate, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ResolvedPredicate {
    /// What the fact is filed under.
    pub name: String,
    /// Which stage found it.
    pub how: PredicateMatch,
    /// Its cardinality under this node's settings (recorded with the fact).
    pub cardinality: Cardinality,
    /// Near misses by meaning: a predicate this subject has, and its oldest
    /// fact (the target of a `predicate_candidate` edge).
    pub candidates: Vec<(String, String)>,
    /// The key the subject's facts are grouped under (see [`Engine::subject_key`]).
    pub subject_key: String,
}

impl Engine {
    /// The key facts about `subject` are grouped under, as far as names and
    /// spellings tell (before the entity is resolved for the write).
    pub(super) fn subject_key(&self, namespace: &Namespace, subject: &str) -> EngineResult<String> {
        Ok(match self.lookup_names(namespace, &[subject.to_owned()])?.pop() {
            Some(canonical) => canonical,
            None => format!("name:{}", ferrex_core::entity::normalise_name(subject)),
        })
    }

    /// Resolves the predicate `written` of a fact about `subject`: fold,
    /// synonym groups, structure, then the predicates in use (this
    /// subject's first) by spelling, then this subject's by meaning.
    pub(super) fn resolve_predicate(
        &self,
        namespace: &Namespace,
        subject: &str,
        written: &str,
        cache: &mut Vectors,
    ) -> EngineResult<ResolvedPredicate> {
        let settings = self.settings(namespace.as_str());
        let groups = &settings.predicates;
        let subject_key = self.subject_key(namespace, subject)?;
        let resolved = |name: String, how, candidates| ResolvedPredicate {
            cardinality: groups.cardinality(&name),
            name,
            how,
            candidates,
            subject_key: subject_key.clone(),
        };
        let (alone, how) = groups.resolve_alone(written);
        if alone.is_empty() {
            return Ok(resolved(alone, how, vec![]));
        }
        let (own, all) = {
            let index = lock(&self.index);
            (
                index.predicates_of(namespace.as_str(), &subject_key)?,
                index.predicates(namespace.as_str())?,
            )
        };
        // A predicate this subject has that resolves to the same attribute
        // (written before the groups or structure said so, or by a peer with
        // other settings): the new fact joins its group.
        if !own.contains(&alone)
            && let Some(same) = own.iter().find(|other| groups.resolve_alone(other).0 == alone)
        {
            return Ok(resolved(same.clone(), how, vec![]));
        }
        if how == PredicateMatch::Synonym {
            return Ok(resolved(alone, how, vec![]));
        }
        let (name, how) = groups.normalise(
            written,
            own.iter().chain(&all).map(String::as_str),
            settings.predicate.fuzzy,
        );
        let others: Vec<String> = own.iter().filter(|other| **other != name).cloned().collect();
        if how == PredicateMatch::Fuzzy || own.contains(&name) || others.is_empty() {
            return Ok(resolved(name, how, vec![]));
        }
        let scored = self.phrase_similarities(&name, &others, cache)?;
        let found = predicate::judge_by_meaning(&name, &scored, &settings.predicate);
        if let Some(matched) = found.matched {
            return Ok(resolved(matched, PredicateMatch::Meaning, vec![]));
        }
        let mut candidates = Vec::new();
        let index = lock(&self.index);
        for candidate in found.candidates {
            if let Some(oldest) =
                index.facts(namespace.as_str(), &subject_key, &candidate, &[])?.into_iter().next()
            {
                candidates.push((candidate, oldest.id));
            }
        }
        Ok(resolved(name, how, candidates))
    }

    /// Judges facts a peer stored (`facts`, as just indexed) whose predicate this node files
    /// apart from the other predicates of their subject: one that names the
    /// same attribute (by spelling or by meaning, as at store time) is
    /// recorded as a `same_predicate` edge from the younger of the two
    /// facts to the older (two nodes that judge alike write the same edge),
    /// and the derived view files both predicates as one.
    pub(super) fn reconcile_predicates(
        &self,
        namespace: &Namespace,
        facts: &[MemoryRow],
    ) -> EngineResult<()> {
        let settings = self.settings(namespace.as_str());
        let mut cache = Vectors::default();
        let mut edges: Vec<Edge> = Vec::new();
        let now = self.now();
        for arrived in facts {
            let (Some(subject_key), Some(filed)) =
                (arrived.derived.subject_key.clone(), arrived.derived.predicate_key.clone())
            else {
                continue;
            };
            let others: Vec<String> = lock(&self.index)
                .predicates_of(namespace.as_str(), &subject_key)?
                .into_iter()
                .filter(|other| *other != filed)
                .collect();
            if others.is_empty() {
                continue;
            }
            // The same attribute by this node's groups and structure, or by spelling.
            let attribute = settings.predicates.resolve_alone(&filed).0;
            let mut matched: Vec<String> = others
                .iter()
                .filter(|other| {
                    settings.predicates.resolve_alone(other).0 == attribute
                        || predicate::alike_by_spelling(&filed, other, settings.predicate.fuzzy)
                })
                .cloned()
                .collect();
            if matched.is_empty() {
                let scored = self.phrase_similarities(&filed, &others, &mut cache)?;
                let found = predicate::judge_by_meaning(&filed, &scored, &settings.predicate);
                matched.extend(found.matched);
            }
            for other in matched {
                let Some(oldest) = lock(&self.index)
                    .facts(namespace.as_str(), &subject_key, &other, &[])?
                    .into_iter()
                    .next()
                else {
                    continue;
                };
                let (from, to) = if (oldest.t_valid, &oldest.id) < (arrived.t_valid, &arrived.id) {
                    (arrived.id.clone(), oldest.id)
                } else {
                    (oldest.id, arrived.id.clone())
                };
                edges.push(Edge {
                    kind: EdgeKind::SamePredicate,
                    from,
                    to,
                    created_at: now,
                    created_by: self.replica.device().to_owned(),
                });
            }
        }
        if edges.is_empty() {
            return Ok(());
        }
        tracing::info!(count = edges.len(), namespace = %namespace, "recording judgements on predicates a peer used");
        let _writing = lock(&self.write_lock);
        let change = self.replica.add_edges(namespace, edges, now)?;
        let mut index = lock(&self.index);
        indexer::apply_change(&mut index, &self.replica, &change, &KnownVectors::new())?;
        Ok(())
    }

    /// The cosine of predicate `name` with each of `others`, as phrases.
    fn phrase_similarities(
        &self,
        name: &str,
        others: &[String],
        cache: &mut Vectors,
    ) -> EngineResult<Vec<(String, f64)>> {
        let phrase = predicate::phrase(name);
        let phrases: Vec<String> = others.iter().map(|other| predicate::phrase(other)).collect();
        let mut texts: Vec<&str> = phrases.iter().map(String::as_str).collect();
        texts.push(&phrase);
        cache.prefetch(self, &texts)?;
        let own = cache.get(self, &phrase)?;
        let mut scored = Vec::new();
        for (other, text) in others.iter().zip(&phrases) {
            scored.push((other.clone(), f64::from(cosine(&own, &cache.get(self, text)?))));
        }
        Ok(scored)
    }
}
