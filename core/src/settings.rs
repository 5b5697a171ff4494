//! Every threshold and weight of ferrex's judgements, in one place, so that
//! a namespace can have its own.

use crate::{
    RankingSettings, StalenessSettings, conflict::ConflictSettings, entity::EntitySettings,
    predicate::PredicateGroups,
};

/// The settings of one namespace's memory.
#[derive(Debug, Clone, PartialEq)]
pub struct MemorySettings {
    /// Half-lives and staleness labels.
    pub staleness: StalenessSettings,
    /// Recency lifts and the penalty of corrected text.
    pub ranking: RankingSettings,
    /// Duplicate, supersession and correction thresholds.
    pub conflict: ConflictSettings,
    /// Entity resolution thresholds.
    pub entity: EntitySettings,
    /// Jaro–Winkler above which a predicate is taken as one in use.
    pub predicate_fuzzy: f64,
    /// Predicate synonym groups.
    pub predicates: PredicateGroups,
    /// What a store does with text that holds a credential.
    pub secrets: crate::secrets::SecretPolicy,
}

impl Default for MemorySettings {
    fn default() -> Self {
        MemorySettings {
            staleness: StalenessSettings::default(),
            ranking: RankingSettings::default(),
            conflict: ConflictSettings::default(),
            entity: EntitySettings::default(),
            predicate_fuzzy: 0.85,
            predicates: PredicateGroups::default(),
            secrets: crate::secrets::SecretPolicy::default(),
        }
    }
}
