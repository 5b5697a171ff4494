//! What a sync session takes of a peer's frames, decided without I/O: a
//! document outside the session's scope is refused; a share's shard the
//! peer may not make yet ([`crate::policy::may_make`]) is deferred, and made
//! once the one before it is full. The node's session and the
//! simulation's links run this same code, so the simulation checks the
//! session's rule rather than a copy of it.

use std::collections::BTreeSet;

use crate::{DocId, Scope, policy};

/// Shards a session waits to make at most: an honest peer is ahead by one
/// per namespace.
pub const MAX_DEFERRED: usize = 16;

/// What becomes of a peer's frame of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Merged, answered, given keys.
    Take,
    /// Outside the session's scope: refused and counted.
    Outside,
    /// A shard the peer may not make yet: refused, counted and deferred.
    NotYet,
}

/// The shards a session deferred.
#[derive(Debug, Default)]
pub struct Admission {
    deferred: BTreeSet<DocId>,
}

impl Admission {
    /// The verdict on a frame of `doc` from a peer whose session carries
    /// `scope`; `made` says whether the replica would make `doc` now
    /// ([`crate::Replica::may_make`]). A shard not yet makeable is kept to
    /// be made later (at most [`MAX_DEFERRED`]).
    pub fn judge(&mut self, scope: &Scope, doc: &DocId, made: impl FnOnce() -> bool) -> Verdict {
        if !scope.admits(doc) {
            return Verdict::Outside;
        }
        if !policy::may_make(scope, doc, made) {
            if self.deferred.len() < MAX_DEFERRED {
                self.deferred.insert(doc.clone());
            }
            return Verdict::NotYet;
        }
        Verdict::Take
    }

    /// The deferred shards `made` says are made now (the one before each
    /// is full, and the replica made it), taken out of the deferred: the
    /// session offers them to the peer, whose first message went
    /// unanswered.
    pub fn ready(&mut self, mut made: impl FnMut(&DocId) -> bool) -> Vec<DocId> {
        let ready: Vec<DocId> = self.deferred.iter().filter(|doc| made(doc)).cloned().collect();
        for doc in &ready {
            self.deferred.remove(doc);
        }
        ready
    }

    /// Whether nothing is deferred.
    pub fn is_empty(&self) -> bool {
        self.deferred.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use ferrex_core::Namespace;

    use super::*;

    #[test]
    fn a_shard_not_yet_makeable_is_deferred_until_it_is_and_bounded() {
        let share = Namespace::parse("share.00112233445566778899aabbccddeeff").unwrap();
        let scope = Scope::Share { namespace: share.clone(), read_only: false };
        let mut admission = Admission::default();
        let other = DocId::shard(&Namespace::parse("work").unwrap(), 0);
        assert_eq!(admission.judge(&scope, &other, || true), Verdict::Outside);
        assert_eq!(admission.judge(&scope, &DocId::shard(&share, 0), || true), Verdict::Take);
        for index in 1..=40 {
            assert_eq!(
                admission.judge(&scope, &DocId::shard(&share, index), || false),
                Verdict::NotYet
            );
        }
        // At most MAX_DEFERRED kept; made once the replica says so.
        let ready = admission.ready(|doc| *doc == DocId::shard(&share, 1));
        assert_eq!(ready, [DocId::shard(&share, 1)]);
        let rest = admission.ready(|_| true);
        assert_eq!(rest.len(), MAX_DEFERRED - 1);
        assert!(admission.is_empty());
        // The person's own device: other namespaces' shards come freely.
        assert_eq!(
            admission.judge(
                &Scope::own(),
                &DocId::shard(&Namespace::parse("work").unwrap(), 9),
                || false
            ),
            Verdict::Take
        );
    }
}
