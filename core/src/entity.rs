//! Entity resolution: which known entity a name means, or none.
//!
//! Stages, first match wins: the normalised name equals an entity's name or
//! alias (exact); Jaro–Winkler above the fuzzy threshold (fuzzy); cosine of
//! the name's embedding and the entity's above the embedding threshold
//! (embedding); else a new entity. Scores just below a threshold make the
//! best entity an alias candidate, for `reflect` to list. Ties are broken by
//! the smaller id, so the same inputs always give the same answer.

use std::collections::BTreeMap;

use crate::Timestamp;

/// Thresholds of entity resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntitySettings {
    /// Jaro–Winkler above which a name is the entity.
    pub fuzzy: f64,
    /// Cosine above which a name is the entity.
    pub embedding: f64,
    /// Jaro–Winkler above which (up to `fuzzy`) the entity is a candidate.
    pub fuzzy_candidate: f64,
    /// Cosine above which (up to `embedding`) the entity is a candidate.
    pub embedding_candidate: f64,
}

impl Default for EntitySettings {
    fn default() -> Self {
        EntitySettings {
            fuzzy: 0.85,
            embedding: 0.92,
            fuzzy_candidate: 0.80,
            embedding_candidate: 0.85,
        }
    }
}

/// A known entity as resolution sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownEntity {
    /// Its id.
    pub id: String,
    /// Its name and aliases, normalised.
    pub names: Vec<String>,
    /// Cosine of the incoming name's embedding and the entity name's, when
    /// the caller has both.
    pub similarity: Option<f64>,
}

/// How a name was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchMethod {
    /// Equal after normalisation.
    Exact,
    /// Close spelling.
    Fuzzy,
    /// Close meaning.
    Embedding,
}

impl MatchMethod {
    /// The name stored in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchMethod::Exact => "exact",
            MatchMethod::Fuzzy => "fuzzy",
            MatchMethod::Embedding => "embedding",
        }
    }
}

/// A near miss: an entity the name may also mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The entity.
    pub id: String,
    /// By which measure.
    pub method: MatchMethod,
    /// Its score.
    pub score: f64,
}

/// The outcome of resolving a name.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// The name means entity `id`.
    Matched {
        /// The entity.
        id: String,
        /// How.
        method: MatchMethod,
        /// The score (1 for exact).
        score: f64,
    },
    /// No entity; a new one, with the near misses.
    New {
        /// Near misses, best first.
        candidates: Vec<Candidate>,
    },
}

/// Normalises an entity name: lowercase, separators and punctuation folded
/// to single spaces, trimmed.
pub fn normalise_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut space = false;
    for c in name.trim().chars() {
        if c.is_alphanumeric() || c == '+' || c == '#' {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.extend(c.to_lowercase());
        } else {
            space = true;
        }
    }
    out
}

fn better(score: f64, id: &str, best: &Option<(f64, String)>) -> bool {
    best.as_ref()
        .is_none_or(|(top, top_id)| score > *top || (score == *top && id < top_id.as_str()))
}

/// Resolves `name` among `known`.
pub fn resolve(name: &str, known: &[KnownEntity], settings: &EntitySettings) -> Resolution {
    let name = normalise_name(name);
    let mut exact: Option<(f64, String)> = None;
    let mut fuzzy: Option<(f64, String)> = None;
    let mut embedding: Option<(f64, String)> = None;
    for entity in known {
        for known_name in &entity.names {
            if *known_name == name && better(1.0, &entity.id, &exact) {
                exact = Some((1.0, entity.id.clone()));
            }
            let score = strsim::jaro_winkler(&name, known_name);
            if score > settings.fuzzy_candidate
                && alike_word_by_word(&name, known_name, settings.fuzzy_candidate)
                && better(score, &entity.id, &fuzzy)
            {
                fuzzy = Some((score, entity.id.clone()));
            }
        }
        if let Some(score) = entity.similarity
            && score > settings.embedding_candidate
            && better(score, &entity.id, &embedding)
        {
            embedding = Some((score, entity.id.clone()));
        }
    }
    if let Some((score, id)) = exact {
        return Resolution::Matched { id, method: MatchMethod::Exact, score };
    }
    if let Some((score, id)) = &fuzzy
        && *score > settings.fuzzy
    {
        return Resolution::Matched { id: id.clone(), method: MatchMethod::Fuzzy, score: *score };
    }
    if let Some((score, id)) = &embedding
        && *score > settings.embedding
    {
        return Resolution::Matched {
            id: id.clone(),
            method: MatchMethod::Embedding,
            score: *score,
        };
    }
    let mut candidates: Vec<Candidate> =
        [(fuzzy, MatchMethod::Fuzzy), (embedding, MatchMethod::Embedding)]
            .into_iter()
            .filter_map(|(found, method)| found.map(|(score, id)| Candidate { id, method, score }))
            .collect();
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    candidates.dedup_by(|later, earlier| later.id == earlier.id);
    Resolution::New { candidates }
}

/// Whether two normalised names can be spellings of one thing, word by
/// word: the same words run together (`gpt4`, `gpt 4`), as many words with
/// each pair close (`alice smith`, `alice smyth`), or every word of the
/// shorter close to one of the longer (`tokio`, `tokio runtime`). A word
/// with a digit in it must be equal. Close as
/// strings is not enough: `catalog db` and `catalog indexer`, `orders api`
/// and `orders db`, `web 01` and `web 02` share a long start and name
/// different things.
fn alike_word_by_word(left: &str, right: &str, fuzzy: f64) -> bool {
    let alike = |a: &str, b: &str| {
        a == b
            || (!a.chars().any(|c| c.is_ascii_digit())
                && !b.chars().any(|c| c.is_ascii_digit())
                && strsim::jaro_winkler(a, b) > fuzzy)
    };
    if left.replace(' ', "") == right.replace(' ', "") {
        return true;
    }
    let (left, right): (Vec<&str>, Vec<&str>) =
        (left.split(' ').collect(), right.split(' ').collect());
    if left.len() == right.len() {
        return left.iter().zip(&right).all(|(a, b)| alike(a, b));
    }
    let (shorter, longer) = if left.len() < right.len() { (left, right) } else { (right, left) };
    shorter.iter().all(|word| longer.iter().any(|other| alike(word, other)))
}

/// An entity as the derived view sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityNode {
    /// Its id.
    pub id: String,
    /// Its name, normalised.
    pub name: String,
    /// When it was created.
    pub created_at: Timestamp,
}

/// Which entities are one: entities joined by `same_as` edges, or whose
/// normalised names are equal, form a class; each entity maps to its class's
/// canonical member, the oldest (then the smallest id). A pure function of
/// document content: every node computes the same classes.
pub fn entity_classes(
    entities: &[EntityNode],
    same_as: &[(String, String)],
) -> BTreeMap<String, String> {
    // Union-find over positions in `sorted`, oldest (then smallest id)
    // first, so that a root is always its class's oldest member.
    let mut sorted: Vec<&EntityNode> = entities.iter().collect();
    sorted.sort_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    sorted.dedup_by(|later, earlier| later.id == earlier.id);
    let position: BTreeMap<&str, usize> =
        sorted.iter().enumerate().map(|(index, entity)| (entity.id.as_str(), index)).collect();
    let mut parent: Vec<usize> = (0..sorted.len()).collect();
    fn find(parent: &mut [usize], mut node: usize) -> usize {
        while parent[node] != node {
            parent[node] = parent[parent[node]];
            node = parent[node];
        }
        node
    }
    let union = |parent: &mut Vec<usize>, a: usize, b: usize| {
        let (root_a, root_b) = (find(parent, a), find(parent, b));
        parent[root_a.max(root_b)] = root_a.min(root_b);
    };
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, entity) in sorted.iter().enumerate() {
        match by_name.get(entity.name.as_str()) {
            Some(&first) => union(&mut parent, first, index),
            None => {
                by_name.insert(&entity.name, index);
            }
        }
    }
    for (a, b) in same_as {
        if let (Some(&a), Some(&b)) = (position.get(a.as_str()), position.get(b.as_str())) {
            union(&mut parent, a, b);
        }
    }
    (0..sorted.len())
        .map(|index| {
            let root = find(&mut parent, index);
            (sorted[index].id.clone(), sorted[root].id.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str, names: &[&str], similarity: Option<f64>) -> KnownEntity {
        KnownEntity {
            id: id.into(),
            names: names.iter().map(|name| normalise_name(name)).collect(),
            similarity,
        }
    }

    fn check(name: &str, known: &[KnownEntity], expect: Option<(&str, MatchMethod)>) -> Resolution {
        let resolution = resolve(name, known, &EntitySettings::default());
        match (&resolution, expect) {
            (Resolution::Matched { id, method, .. }, Some((want_id, want_method))) => {
                assert_eq!((id.as_str(), *method), (want_id, want_method), "{name:?}")
            }
            (Resolution::New { .. }, None) => {}
            (got, want) => panic!("{name:?}: got {got:?}, want {want:?}"),
        }
        resolution
    }

    #[test]
    fn names_normalise() {
        for (input, expect) in [
            ("Tokio", "tokio"),
            ("  tokio-runtime ", "tokio runtime"),
            ("Node.js", "node js"),
            ("C++", "c++"),
            ("api_server", "api server"),
        ] {
            assert_eq!(normalise_name(input), expect, "{input:?}");
        }
    }

    #[test]
    fn each_stage_of_resolution() {
        let known = [
            entity("e-tokio", &["Tokio"], Some(0.70)),
            entity("e-postgres", &["PostgreSQL", "postgres"], Some(0.95)),
            entity("e-alice", &["Alice Smith"], Some(0.10)),
        ];
        check("tokio", &known, Some(("e-tokio", MatchMethod::Exact)));
        check("TOKIO", &known, Some(("e-tokio", MatchMethod::Exact)));
        check("Postgres", &known, Some(("e-postgres", MatchMethod::Exact)));
        check("tokio runtime", &known, Some(("e-tokio", MatchMethod::Fuzzy)));
        check("Alice Smyth", &known, Some(("e-alice", MatchMethod::Fuzzy)));
        // Spelled differently, close in meaning: the embedding decides.
        check("pg database", &known, Some(("e-postgres", MatchMethod::Embedding)));
        check("Kubernetes", &[entity("e-k8s", &["k8s"], Some(0.5))], None);
    }

    #[test]
    fn names_close_as_strings_but_not_word_by_word_are_apart() {
        let known = [
            entity("e-indexer", &["catalog-indexer"], Some(0.5)),
            entity("e-orders-api", &["orders-api"], Some(0.5)),
            entity("e-web-01", &["web-01"], Some(0.5)),
            entity("e-priya", &["Priya Raman"], Some(0.5)),
        ];
        // A word that differs, or a number: another thing, not even a
        // candidate by spelling.
        for name in ["catalog-db", "orders-db", "web-02"] {
            let jaro = |known: &str| strsim::jaro_winkler(&normalise_name(name), known);
            let closest = ["catalog indexer", "orders api", "web 01"]
                .into_iter()
                .map(jaro)
                .fold(0.0, f64::max);
            let resolution = check(name, &known, None);
            let Resolution::New { candidates } = resolution else { unreachable!() };
            assert!(candidates.is_empty(), "{name:?}: {candidates:?}");
            assert!(closest > 0.85, "{name:?} is close as a string ({closest})");
        }
        // Spellings, a word left out, a word added: the same thing.
        check("Priya", &known, Some(("e-priya", MatchMethod::Fuzzy)));
        check("priya ramen", &known, Some(("e-priya", MatchMethod::Fuzzy)));
        check("orders-api server", &known, Some(("e-orders-api", MatchMethod::Fuzzy)));
        check("web-01", &known, Some(("e-web-01", MatchMethod::Exact)));
        // The same words run together, digits and all.
        check("web01", &known, Some(("e-web-01", MatchMethod::Fuzzy)));
        check("orders api", &known, Some(("e-orders-api", MatchMethod::Exact)));
        check("ordersapi", &known, Some(("e-orders-api", MatchMethod::Fuzzy)));
    }

    #[test]
    fn near_misses_become_candidates() {
        // Jaro-Winkler between 0.80 and 0.85, cosine between 0.85 and 0.92.
        let known = [entity("e-a", &["DicksonX"], Some(0.88)), entity("e-b", &["zzz"], Some(0.20))];
        let resolution = check("Dixon", &known, None);
        let Resolution::New { candidates } = resolution else { unreachable!() };
        assert_eq!(candidates.len(), 1, "{candidates:?}");
        assert_eq!(candidates[0].id, "e-a");
        let jaro = strsim::jaro_winkler("dixon", "dicksonx");
        assert!(jaro > 0.80 && jaro <= 0.85, "{jaro}");
    }

    #[test]
    fn ties_go_to_the_smaller_id() {
        let known = [entity("e-2", &["redis"], None), entity("e-1", &["Redis"], None)];
        check("redis", &known, Some(("e-1", MatchMethod::Exact)));
    }

    fn node(id: &str, name: &str, at: i64) -> EntityNode {
        EntityNode { id: id.into(), name: normalise_name(name), created_at: Timestamp(at) }
    }

    #[test]
    fn classes_join_same_names_and_same_as_edges_with_the_oldest_canonical() {
        let entities = [
            node("b", "Tokio", 2),
            node("a", "tokio runtime", 3),
            node("c", "tokio", 1),
            node("d", "Redis", 5),
        ];
        let edges = vec![("a".to_owned(), "b".to_owned())];
        let classes = entity_classes(&entities, &edges);
        assert_eq!(classes["a"], "c");
        assert_eq!(classes["b"], "c");
        assert_eq!(classes["c"], "c");
        assert_eq!(classes["d"], "d");
        // The order of the inputs does not matter.
        let mut reversed = entities.to_vec();
        reversed.reverse();
        assert_eq!(entity_classes(&reversed, &[("b".into(), "a".into())]), classes);
        // Edges to unknown entities are ignored.
        assert_eq!(entity_classes(&entities[3..], &[("d".into(), "zz".into())])["d"], "d");
    }
}
