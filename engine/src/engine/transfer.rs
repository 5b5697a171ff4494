//! ferrex's own export and its import: a namespace's live records as they
//! stand, and their restoration into this node as they were.

use ferrex_core::Namespace;

use super::{Engine, ToolError, lock};

impl Engine {
    /// Every live record of `namespace` this node can read, as it stands.
    pub fn archive(&self, namespace: &Namespace) -> Result<ferrex_sync::Archive, ToolError> {
        Ok(self.replica.archive(namespace)?)
    }

    /// Restores `archive` into `namespace` (an import of ferrex's own
    /// export): its records as they were, nothing judged again; records
    /// this node holds already and memories it forgot are left. Indexed when
    /// this returns; the embedding worker then embeds the new memories.
    pub fn restore(
        &self,
        namespace: &Namespace,
        archive: &ferrex_sync::Archive,
    ) -> Result<ferrex_sync::Restored, ToolError> {
        let _writing = lock(&self.write_lock);
        // Every entity a memory uses must come with it or be here.
        let coming: std::collections::HashSet<&str> =
            archive.entities.iter().map(|entity| entity.id.as_str()).collect();
        {
            let index = lock(&self.index);
            for stored in &archive.memories {
                let memory = &stored.memory;
                let used = memory.entity_ids.iter().chain(stored.subject_entity.iter());
                for entity in used {
                    if !coming.contains(entity.as_str()) && index.entity(entity)?.is_none() {
                        return Err(ferrex_core::FieldError::new(
                            "entities",
                            format!(
                                "memory {} uses entity {entity}, which neither the file nor this home holds",
                                memory.id
                            ),
                        )
                        .into());
                    }
                }
            }
        }
        let (change, restored) = self.replica.restore(namespace, self.now(), archive)?;
        if let Some(change) = change {
            let mut index = lock(&self.index);
            crate::derived::indexer::apply_change(
                &mut index,
                &self.replica,
                &change,
                &crate::derived::indexer::KnownVectors::new(),
            )?;
        }
        self.work.notify();
        Ok(restored)
    }
}
