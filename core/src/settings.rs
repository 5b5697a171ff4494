//! Every threshold and weight of ferrex's judgements, in one place, so that
//! a namespace can have its own.

use crate::{
    RankingSettings, StalenessSettings,
    conflict::ConflictSettings,
    entity::EntitySettings,
    predicate::{PredicateGroups, PredicateSettings},
};

/// The settings of one namespace's memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemorySettings {
    /// Half-lives and staleness labels.
    pub staleness: StalenessSettings,
    /// Recency lifts and the penalty of corrected text.
    pub ranking: RankingSettings,
    /// Duplicate, supersession and correction thresholds.
    pub conflict: ConflictSettings,
    /// Entity resolution thresholds.
    pub entity: EntitySettings,
    /// Predicate resolution thresholds.
    pub predicate: PredicateSettings,
    /// Predicate synonym groups and cardinalities.
    pub predicates: PredicateGroups,
    /// What a store does with text that holds a credential.
    pub secrets: crate::secrets::SecretPolicy,
    /// What is told with a prompt (`memory.tell*`).
    pub tell: crate::tell::TellSettings,
}
