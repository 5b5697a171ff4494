//! The store pipeline: validate, normalise the predicate, resolve entities,
//! embed, refuse duplicates, decide conflicts with the facts and text
//! already there, then write the memory and every judgement (aliases,
//! supersessions, corrections) as one durable change, index it, and answer.

use ferrex_core::{
    Content, Edge, EdgeKind, FieldError, MemoryKind, Namespace, StoreInput,
    conflict::{self, FactDecision, FactUpdate, FactView},
    cosine,
    entity::MatchMethod,
    predicate::Cardinality,
    secrets::{Redaction, SecretPolicy},
    validate,
};
use ferrex_sync::{NewMemory, NewRecords};

use super::{
    Engine, EngineError, EngineResult, ToolError,
    entities::{Vectors, store_entity_vectors},
    lock, new_id,
};
use crate::{
    derived::index::content_hash,
    derived::indexer::{self, KnownVectors},
};

/// Neighbours looked at for duplicates and corrections of free text.
pub(super) const NEIGHBOURS: usize = 5;

/// How a name in a store request was resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct NameMatch {
    /// The name as given.
    pub name: String,
    /// The entity.
    pub id: String,
    /// `exact`, `fuzzy`, `embedding`, or `new`.
    pub method: &'static str,
}

/// What `store` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The new memory's id, or for a duplicate the existing one's.
    pub id: String,
    /// Whether it duplicated a memory already stored (nothing new stored;
    /// that memory's evidence grew).
    pub duplicate: bool,
    /// The duplicate's evidence after this store.
    pub evidence: Option<i64>,
    /// Kind, as given or detected.
    pub kind: MemoryKind,
    /// Namespace.
    pub namespace: Namespace,
    /// The names given, and the entities they resolved to.
    pub entities: Vec<NameMatch>,
    /// A fact's predicate after resolution: what it is filed under.
    pub predicate: Option<String>,
    /// Which stage of predicate resolution found it (`new`, `synonym`,
    /// `structure`, `fuzzy`, `embedding`).
    pub predicate_match: Option<&'static str>,
    /// The predicate as written, when it was filed under another.
    pub predicate_written: Option<String>,
    /// A fact's predicate's cardinality.
    pub cardinality: Option<Cardinality>,
    /// Predicates of this subject the new one may mean (not taken).
    pub predicate_candidates: Vec<String>,
    /// Memories this one supersedes (explicitly or as a newer fact).
    pub supersedes: Vec<String>,
    /// Facts this one may replace but did not (give `supersedes` to).
    pub ambiguous_with: Vec<String>,
    /// Memories this one corrects, and why: free text, or a fact whose
    /// value this text says has changed.
    pub corrects: Vec<(String, &'static str)>,
    /// Credentials replaced by `[REDACTED]` before it was stored.
    pub redacted: Vec<Redaction>,
}

/// New free text against what is stored.
struct TextJudgement {
    /// The memory it duplicates.
    duplicate: Option<String>,
    /// The memories it corrects, and why.
    corrects: Vec<(String, &'static str)>,
}

/// Cosine similarity from the L2 distance of two unit vectors.
pub(super) fn cosine_of_distance(distance: f64) -> f64 {
    1.0 - distance * distance / 2.0
}

impl Engine {
    /// Stores a memory. The answer comes only after the memory and every
    /// judgement made about it are durable and indexed.
    pub fn store(&self, input: StoreInput, allow_secrets: bool) -> Result<Stored, ToolError> {
        self.store_with(input, allow_secrets, true)
    }

    /// [`Engine::store`]; a duplicate adds to the evidence of what it
    /// duplicates only if `evidence` (an import does not: importing twice
    /// changes nothing).
    pub fn store_with(
        &self,
        input: StoreInput,
        allow_secrets: bool,
        evidence: bool,
    ) -> Result<Stored, ToolError> {
        // An entity the memory uses may be forgotten between its resolution
        // and the write (by a merged forget); the write refuses it, and the
        // store resolves its names again.
        for _ in 0..2 {
            match self.store_once(input.clone(), allow_secrets, evidence) {
                Err(ToolError::Conflict(reason)) => {
                    tracing::debug!("storing again: {reason}");
                }
                outcome => return outcome,
            }
        }
        self.store_once(input, allow_secrets, evidence)
    }

    fn store_once(
        &self,
        input: StoreInput,
        allow_secrets: bool,
        evidence: bool,
    ) -> Result<Stored, ToolError> {
        let started = std::time::Instant::now();
        let mut request = validate::validate_store(input)?;
        let namespace = request.namespace.clone();
        let settings = self.settings(namespace.as_str()).clone();
        // Credentials are caught before anything is embedded or written.
        let policy = if allow_secrets { SecretPolicy::Allow } else { settings.secrets };
        let redacted = ferrex_core::secrets::screen(&mut request, policy)?;
        // Embeddings the judgements need, computed before the lock.
        let mut cache = Vectors::default();
        let mut predicate_written = None;
        let mut predicate = None;
        if let Content::Triple(triple) = &mut request.content {
            let resolved =
                self.resolve_predicate(&namespace, &triple.subject, &triple.predicate, &mut cache)?;
            if resolved.name.is_empty() {
                return Err(FieldError::new("predicate", "has no letters or digits").into());
            }
            if resolved.name != triple.predicate {
                predicate_written =
                    Some(std::mem::replace(&mut triple.predicate, resolved.name.clone()));
            }
            predicate = Some(resolved);
        }
        // The whole text's vector (and a fact's object's) before the
        // acknowledgement; its passages' are the worker's, and meanwhile
        // the memory is found by this vector and by its words.
        let text = request.content.text();
        let mut texts: Vec<&str> = vec![&text];
        if let Content::Triple(triple) = &request.content {
            texts.push(&triple.object);
        }
        let prepared = started.elapsed();
        let vectors = self.embedder.embed(&texts)?;
        if vectors.len() != texts.len() {
            return Err(ferrex_core::EmbedError::WrongCount {
                expected: texts.len(),
                got: vectors.len(),
            }
            .into());
        }
        let vector = vectors
            .first()
            .cloned()
            .ok_or(ferrex_core::EmbedError::WrongCount { expected: texts.len(), got: 0 })?;
        let embedded = started.elapsed();
        let memory_vectors = vec![vector.clone()];
        let mut names: Vec<String> = request.entities.clone();
        if let Content::Triple(triple) = &request.content
            && !names.contains(&triple.subject)
        {
            names.insert(0, triple.subject.clone());
        }
        self.prepare_names(&namespace, &names, &mut cache)?;
        if let (Content::Triple(triple), Some(resolved)) = (&request.content, &predicate) {
            self.prepare_fact(&namespace, &resolved.subject_key, triple, &mut cache)?;
        }

        let _writing = lock(&self.write_lock);
        let locked = started.elapsed();
        let now = self.now();
        let device = self.replica.device().to_owned();
        if let Some(old) = &request.supersedes {
            self.check_supersedes(old, &namespace)?;
        }
        let resolved = self.resolve_names(&namespace, &names, now, &mut cache)?;
        let subject_entity = match &request.content {
            Content::Triple(triple) => resolved.id_of(&triple.subject).map(str::to_owned),
            Content::Text(_) => None,
        };
        let entity_ids: Vec<String> = request
            .entities
            .iter()
            .filter_map(|name| resolved.id_of(name).map(str::to_owned))
            .collect();

        let mut outcome = Stored {
            id: new_id(),
            duplicate: false,
            evidence: None,
            kind: request.kind,
            namespace: namespace.clone(),
            entities: resolved
                .names
                .iter()
                .filter(|(name, _, _)| request.entities.contains(name))
                .map(|(name, id, method)| NameMatch {
                    name: name.clone(),
                    id: id.clone(),
                    method: method.map_or("new", MatchMethod::as_str),
                })
                .collect(),
            predicate: request.content.triple().map(|triple| triple.predicate.clone()),
            predicate_match: predicate.as_ref().map(|resolved| resolved.how.as_str()),
            predicate_written: predicate_written.clone(),
            cardinality: predicate.as_ref().map(|resolved| resolved.cardinality),
            predicate_candidates: predicate
                .iter()
                .flat_map(|resolved| resolved.candidates.iter().map(|(name, _)| name.clone()))
                .collect(),
            supersedes: request.supersedes.iter().cloned().collect(),
            ambiguous_with: vec![],
            corrects: vec![],
            redacted,
        };

        // Judgements against what is stored already (an explicit
        // `supersedes` takes the agent's word instead).
        if request.supersedes.is_none() {
            let duplicate = match &request.content {
                Content::Triple(triple) => {
                    let object_vector = vectors.get(1).cloned().unwrap_or_default();
                    let cardinality = predicate
                        .as_ref()
                        .map_or(Cardinality::One, |resolved| resolved.cardinality);
                    let decision = self.judge_fact(
                        &namespace,
                        subject_entity.as_deref(),
                        triple,
                        cardinality,
                        &object_vector,
                        &mut cache,
                    )?;
                    outcome.supersedes.extend(decision.supersedes);
                    outcome.ambiguous_with = decision.ambiguous;
                    decision.duplicate_of
                }
                Content::Text(text) => {
                    let judgement = self.judge_text(&namespace, request.kind, text, &vector)?;
                    outcome.corrects = judgement.corrects;
                    if judgement.duplicate.is_none() {
                        let updated =
                            self.judge_text_against_facts(&namespace, text, &vector, &mut cache)?;
                        outcome.corrects.extend(updated);
                    }
                    judgement.duplicate
                }
            };
            if let Some(existing) = duplicate {
                let change =
                    if evidence { self.replica.add_evidence(&existing, 1, now)? } else { None };
                let mut index = lock(&self.index);
                if let Some(change) = change {
                    indexer::apply_change(
                        &mut index,
                        &self.replica,
                        &change,
                        &KnownVectors::new(),
                    )?;
                }
                outcome.evidence = index.row(&existing)?.map(|row| row.evidence);
                outcome.id = existing;
                outcome.duplicate = true;
                outcome.corrects.clear();
                return Ok(outcome);
            }
        }

        let id = outcome.id.clone();
        let mut edges = resolved.edges.clone();
        let edge = |kind: EdgeKind, to: &str| Edge {
            kind,
            from: id.clone(),
            to: to.to_owned(),
            created_at: now,
            created_by: device.clone(),
        };
        edges.extend(outcome.supersedes.iter().map(|old| edge(EdgeKind::Supersedes, old)));
        edges.extend(outcome.corrects.iter().map(|(old, _)| edge(EdgeKind::Corrects, old)));
        edges.extend(
            predicate
                .iter()
                .flat_map(|resolved| &resolved.candidates)
                .map(|(_, fact)| edge(EdgeKind::PredicateCandidate, fact)),
        );
        let memory = NewMemory {
            id: id.clone(),
            kind: request.kind,
            content: request.content.clone(),
            confidence: request.confidence,
            source: request.source.clone(),
            context: request.context.clone(),
            tags: request.tags.clone(),
            entity_ids,
            subject_entity,
            predicate_written,
            cardinality: outcome.cardinality,
            created_at: now,
            created_by: device.clone(),
            t_valid: request.valid_from.unwrap_or(now),
        };
        let records = NewRecords {
            memories: vec![memory],
            entities: resolved.entities.clone(),
            aliases: resolved.aliases.clone(),
            edges,
        };
        let judged = started.elapsed();
        let change = self.replica.write_new(&namespace, now, &records)?;
        let written = started.elapsed();
        let mut index = lock(&self.index);
        store_entity_vectors(&mut index, &resolved.vectors)?;
        let known = KnownVectors::from([(id.clone(), memory_vectors)]);
        indexer::apply_change(&mut index, &self.replica, &change, &known)
            .map_err(|source| EngineError::NotIndexed { id: id.clone(), source })?;
        drop(index);
        let ms = |duration: std::time::Duration| duration.as_secs_f64() * 1000.0;
        tracing::debug!(
            prepare_ms = ms(prepared),
            embed_ms = ms(embedded - prepared),
            lock_ms = ms(locked - embedded),
            judge_ms = ms(judged - locked),
            write_ms = ms(written - judged),
            index_ms = ms(started.elapsed() - written),
            "stored"
        );
        // Its passages, if it has any, are the worker's.
        self.work.notify();
        Ok(outcome)
    }

    fn check_supersedes(&self, old: &str, namespace: &Namespace) -> Result<(), ToolError> {
        match lock(&self.index).row(old)? {
            Some(row) if ferrex_core::chunk::is_file_chunk(row.source.as_deref()) => {
                Err(FieldError::new(
                    "supersedes",
                    format!(
                        "{old} is a chunk of a watched file: edit the file (its chunks follow it)"
                    ),
                )
                .into())
            }
            Some(row) if row.namespace == namespace.as_str() => Ok(()),
            Some(row) => Err(FieldError::new(
                "supersedes",
                format!("names memory {old} of namespace {:?}, not {namespace:?}", row.namespace),
            )
            .into()),
            None => Err(FieldError::new(
                "supersedes",
                format!("names no memory: {old} does not exist or was forgotten"),
            )
            .into()),
        }
    }

    /// Before the lock: embeds the objects of the current facts the new fact
    /// will be judged against (its subject as far as names and spellings
    /// tell; anything else is embedded under the lock).
    fn prepare_fact(
        &self,
        namespace: &Namespace,
        subject_key: &str,
        triple: &ferrex_core::Triple,
        cache: &mut Vectors,
    ) -> EngineResult<()> {
        let current = lock(&self.index).facts(
            namespace.as_str(),
            subject_key,
            &triple.predicate,
            &["current", "contested"],
        )?;
        let objects: Vec<&str> = current.iter().filter_map(|row| row.object.as_deref()).collect();
        cache.prefetch(self, &objects)
    }

    /// A new fact against the current facts of its subject and predicate.
    fn judge_fact(
        &self,
        namespace: &Namespace,
        subject_entity: Option<&str>,
        triple: &ferrex_core::Triple,
        cardinality: Cardinality,
        object_vector: &[f32],
        cache: &mut Vectors,
    ) -> EngineResult<FactDecision> {
        let settings = self.settings(namespace.as_str()).conflict;
        let subject_key = {
            let index = lock(&self.index);
            match subject_entity.map(|id| index.entity(id)).transpose()?.flatten() {
                Some((_, canonical)) => canonical,
                // A new entity is its own class.
                None => match subject_entity {
                    Some(id) => id.to_owned(),
                    None => {
                        format!("name:{}", ferrex_core::entity::normalise_name(&triple.subject))
                    }
                },
            }
        };
        let current = lock(&self.index).facts(
            namespace.as_str(),
            &subject_key,
            &triple.predicate,
            &["current", "contested"],
        )?;
        if current.is_empty() {
            return Ok(FactDecision::default());
        }
        let objects: Vec<&str> =
            current.iter().map(|row| row.object.as_deref().unwrap_or_default()).collect();
        cache.prefetch(self, &objects)?;
        let vectors: Vec<Vec<f32>> =
            objects.iter().map(|object| cache.get(self, object)).collect::<EngineResult<_>>()?;
        let scored: Vec<(String, f64)> = current
            .iter()
            .zip(&vectors)
            .map(|(row, vector)| {
                let similarity = f64::from(cosine(object_vector, vector));
                let object = row.object.as_deref().unwrap_or_default();
                let similarity = conflict::object_similarity(
                    &triple.predicate,
                    &triple.object,
                    object,
                    similarity,
                );
                (row.id.clone(), similarity)
            })
            .collect();
        Ok(conflict::decide_fact(&scored, cardinality, &settings))
    }

    /// New free text against the closest text already stored: the duplicate
    /// it is, or the memories it corrects.
    fn judge_text(
        &self,
        namespace: &Namespace,
        kind: MemoryKind,
        text: &str,
        vector: &[f32],
    ) -> EngineResult<TextJudgement> {
        let settings = self.settings(namespace.as_str()).conflict;
        let index = lock(&self.index);
        if let Some(existing) =
            index.by_hash(namespace.as_str(), kind.as_str(), &content_hash(kind, text))?
        {
            return Ok(TextJudgement { duplicate: Some(existing), corrects: vec![] });
        }
        let neighbours = index.near(vector, namespace.as_str(), &[kind], NEIGHBOURS)?;
        let mut corrects = Vec::new();
        for (id, distance) in neighbours {
            let similarity = cosine_of_distance(distance);
            let Some(row) = index.row(&id)? else { continue };
            // What was superseded or corrected is not what stands: restating
            // it is news, not a duplicate.
            let stands = row.derived.status != "superseded" && row.derived.corrected_by.is_empty();
            if stands && conflict::is_duplicate(text, &row.text, similarity, &settings) {
                return Ok(TextJudgement { duplicate: Some(id), corrects: vec![] });
            }
            // Only what stands is corrected: a memory already corrected or
            // superseded is behind the one that replaced it, which this
            // corrects in turn (one edge per correction, not one per
            // ancestor).
            if !stands || row.derived.duplicate_of.is_some() {
                continue;
            }
            if let Some(reason) =
                ferrex_core::correction::correction(text, &row.text, similarity, &settings)
            {
                corrects.push((id, reason.as_str()));
            }
        }
        Ok(TextJudgement { duplicate: None, corrects })
    }

    /// New free text against the current facts about the entities it
    /// names: a fact whose new value it announces ("Alice moved to Munich"
    /// of `Alice / lives_in / Berlin`) is corrected by it.
    fn judge_text_against_facts(
        &self,
        namespace: &Namespace,
        text: &str,
        vector: &[f32],
        cache: &mut Vectors,
    ) -> EngineResult<Vec<(String, &'static str)>> {
        if !conflict::announces_change(text) {
            return Ok(vec![]);
        }
        let settings = self.settings(namespace.as_str());
        let lower = text.to_lowercase();
        let entities = lock(&self.index).entity_names(namespace.as_str())?;
        // The classes named in the text, with every name of each class.
        let mut classes: Vec<(String, Vec<String>)> = Vec::new();
        for entity in &entities {
            let mut names = entity.names.clone();
            names.push(entity.name.to_lowercase());
            if !names.iter().any(|name| !name.is_empty() && lower.contains(name.as_str())) {
                continue;
            }
            match classes.iter_mut().find(|(canonical, _)| *canonical == entity.canonical) {
                Some((_, known)) => known.extend(names),
                None => classes.push((entity.canonical.clone(), names)),
            }
        }
        let mut updated = Vec::new();
        for (subject_key, names) in &classes {
            let facts = lock(&self.index).facts_about(
                namespace.as_str(),
                subject_key,
                &["current", "contested"],
            )?;
            for fact in facts {
                let (Some(predicate), Some(object)) = (&fact.predicate, &fact.object) else {
                    continue;
                };
                let spellings = settings.predicates.spellings_of(predicate);
                let view =
                    FactView { subject_names: names, predicate, spellings: &spellings, object };
                // The fact's meaning is weighed only when nothing else decides.
                let updates = match conflict::updates_fact(text, view) {
                    FactUpdate::Yes => true,
                    FactUpdate::No => false,
                    FactUpdate::IfAboutIt => {
                        // The fact's own vector, embedded again only when it has none yet.
                        let stored = lock(&self.index).vector(&fact.id)?;
                        let fact_vector = match stored {
                            Some(stored) => stored,
                            None => cache.get(self, &fact.text)?,
                        };
                        f64::from(cosine(vector, &fact_vector)) >= settings.conflict.fact_update
                    }
                };
                if updates && !updated.iter().any(|(id, _)| *id == fact.id) {
                    updated.push((fact.id.clone(), "new value of the fact"));
                }
            }
        }
        Ok(updated)
    }
}
