//! Document ids: which document holds what, and how each is named on disk.

use std::{fmt, str::FromStr};

use ferrex_core::Namespace;

/// Identifies one Automerge document of a node.
///
/// The registry holds the paired devices and their revocations; each
/// namespace's memories live in numbered shards, each holding up to a shard
/// capacity of memories (ARCHITECTURE.md, "Document partitioning", says
/// why; docs/figures.md has the measurements).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DocId {
    /// Paired devices, their names and addresses, and revocations.
    Registry,
    /// Shard `index` of `namespace`.
    Shard {
        /// The namespace whose memories the shard holds.
        namespace: Namespace,
        /// 0 for the first shard of a namespace, then 1, 2, ...
        index: u32,
    },
}

impl DocId {
    /// Shard `index` of `namespace`.
    pub fn shard(namespace: &Namespace, index: u32) -> DocId {
        DocId::Shard { namespace: namespace.clone(), index }
    }

    /// The namespace a shard belongs to.
    pub fn namespace(&self) -> Option<&Namespace> {
        match self {
            DocId::Registry => None,
            DocId::Shard { namespace, .. } => Some(namespace),
        }
    }
}

impl fmt::Display for DocId {
    /// `registry` or `ns.<namespace>.<index>`: also the document's directory
    /// name, safe on every file system since namespaces are `[A-Za-z0-9_.-]`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocId::Registry => formatter.write_str("registry"),
            DocId::Shard { namespace, index } => write!(formatter, "ns.{namespace}.{index}"),
        }
    }
}

/// A string that is not a document id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a ferrex document id (registry or ns.<namespace>.<n>)")]
pub struct BadDocId(pub String);

impl FromStr for DocId {
    type Err = BadDocId;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "registry" {
            return Ok(DocId::Registry);
        }
        let bad = || BadDocId(text.to_owned());
        let rest = text.strip_prefix("ns.").ok_or_else(bad)?;
        let (namespace, index) = rest.rsplit_once('.').ok_or_else(bad)?;
        if index.is_empty() || (index.len() > 1 && index.starts_with('0')) {
            return Err(bad());
        }
        let index = index.parse().map_err(|_| bad())?;
        let namespace = Namespace::parse(namespace).map_err(|_| bad())?;
        Ok(DocId::Shard { namespace, index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_their_names() {
        let dotted = Namespace::parse("a.b.c").unwrap();
        for id in
            [DocId::Registry, DocId::shard(&Namespace::default(), 0), DocId::shard(&dotted, 12)]
        {
            assert_eq!(id.to_string().parse::<DocId>(), Ok(id.clone()), "{id}");
        }
        assert_eq!(DocId::shard(&dotted, 12).to_string(), "ns.a.b.c.12");
    }

    #[test]
    fn malformed_names_are_refused() {
        for name in
            ["", "registry2", "ns.", "ns.x", "ns.x.", "ns.x.y", "ns.x.01", "ns.a b.0", "ns..1"]
        {
            assert!(name.parse::<DocId>().is_err(), "{name:?}");
        }
    }
}
