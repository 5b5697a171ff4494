//! The sign bits of every vector of the index, held in memory: the first
//! pass of a search by meaning.
//!
//! A search by meaning over every float vector of a namespace costs time in
//! proportion to the corpus (sqlite-vec reads each chunk of 1,024 vectors and
//! selects its k nearest with k passes over the chunk): at 100k memories it
//! was most of a recall's 60 ms. Here each vector is one bit per dimension
//! (its sign, as sqlite-vec's `vec_quantize_binary` makes it), 48 bytes for
//! 384 dimensions, scanned with popcount in a few milliseconds; the nearest
//! by Hamming distance are then ranked exactly from their floats by the
//! caller. About 57 bytes per vector: 20 MB for 100k memories and their
//! passages.
//!
//! Two nodes with equal documents hold equal vectors, but not equal row ids,
//! so the candidates never depend on row order: every vector as near as the
//! last one taken is taken too (ties are kept whole).
//!
//! A namespace's bits are read from the `memory_bits` and `passage_vectors`
//! tables the first time it is searched. After that the index's writes
//! keep them up to date: each transaction records what it put and removed
//! ([`Edit`]), applied only once the transaction has committed.

use std::collections::{HashMap, hash_map::Entry};

use ferrex_core::MemoryKind;
use rusqlite::Connection;

use super::IndexResult;

/// Which vectors: a memory's whole text's, or its passages'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Set {
    /// `memory_bits`, by memory row id.
    Memories,
    /// `passage_vectors`, by passage row id.
    Passages,
}

impl Set {
    fn table(self) -> &'static str {
        match self {
            Set::Memories => "memory_bits",
            Set::Passages => "passage_vectors",
        }
    }
}

/// A change to the vectors, recorded in a transaction and applied after it
/// commits.
#[derive(Debug, Clone)]
pub(crate) enum Edit {
    /// The vector of row `rowid` of `set` is now `vector`.
    Put { set: Set, rowid: i64, namespace: String, kind: MemoryKind, bits: Vec<u64> },
    /// Row `rowid` of `set` has no vector any more.
    Remove { set: Set, rowid: i64 },
}

/// The sign bits of `vector`, as `vec_quantize_binary` makes them (bit `i`
/// of byte `i / 8` set when dimension `i` is positive), packed into
/// little-endian words.
pub(crate) fn sign_bits(vector: &[f32]) -> Vec<u64> {
    let mut words = vec![0u64; vector.len().div_ceil(64)];
    for (dimension, value) in vector.iter().enumerate() {
        if *value > 0.0 {
            words[dimension / 64] |= 1 << (dimension % 64);
        }
    }
    words
}

/// Bytes as `vec_quantize_binary` stores them, packed like [`sign_bits`].
fn words_of(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect()
}

fn kind_code(kind: MemoryKind) -> u8 {
    MemoryKind::ALL.iter().position(|known| *known == kind).unwrap_or(0) as u8
}

/// The vectors of one set of one namespace.
#[derive(Debug, Default)]
struct Table {
    words: usize,
    rowids: Vec<i64>,
    kinds: Vec<u8>,
    bits: Vec<u64>,
    position: HashMap<i64, usize>,
}

impl Table {
    fn put(&mut self, rowid: i64, kind: u8, bits: &[u64]) {
        if bits.len() != self.words {
            return;
        }
        match self.position.get(&rowid) {
            Some(&at) => {
                self.kinds[at] = kind;
                self.bits[at * self.words..(at + 1) * self.words].copy_from_slice(bits);
            }
            None => {
                self.position.insert(rowid, self.rowids.len());
                self.rowids.push(rowid);
                self.kinds.push(kind);
                self.bits.extend_from_slice(bits);
            }
        }
    }

    fn remove(&mut self, rowid: i64) {
        let Some(at) = self.position.remove(&rowid) else { return };
        let last = self.rowids.len() - 1;
        self.rowids.swap_remove(at);
        self.kinds.swap_remove(at);
        if at != last {
            let (words, moved) = (self.words, self.rowids[at]);
            self.bits.copy_within(last * words..(last + 1) * words, at * words);
            self.position.insert(moved, at);
        }
        self.bits.truncate(last * self.words);
    }

    /// The row ids of the vectors of `kinds` (any when empty) nearest to
    /// `query` by Hamming distance: at least `wanted` of them when there
    /// are, and every one as near as the farthest of those.
    fn nearest(&self, query: &[u64], kinds: &[u8], wanted: usize) -> Vec<i64> {
        let words = self.words;
        let mut scored: Vec<(u32, usize)> = (0..self.rowids.len())
            .filter(|at| kinds.is_empty() || kinds.contains(&self.kinds[*at]))
            .map(|at| {
                let row = &self.bits[at * words..(at + 1) * words];
                let distance = row.iter().zip(query).map(|(a, b)| (a ^ b).count_ones()).sum();
                (distance, at)
            })
            .collect();
        if wanted == 0 {
            return Vec::new();
        }
        if scored.len() > wanted {
            let (_, farthest, _) = scored.select_nth_unstable_by_key(wanted - 1, |entry| entry.0);
            let limit = farthest.0;
            scored.retain(|entry| entry.0 <= limit);
        }
        scored.into_iter().map(|(_, at)| self.rowids[at]).collect()
    }
}

/// Every loaded namespace's sign bits, per set.
#[derive(Debug, Default)]
pub(crate) struct Signs {
    tables: HashMap<(Set, String), Table>,
}

impl Signs {
    /// Forgets everything (the index was emptied).
    pub(crate) fn clear(&mut self) {
        self.tables.clear();
    }

    /// Applies the edits of a committed transaction to the loaded tables
    /// (a namespace not loaded yet reads them from SQLite when it is).
    pub(crate) fn apply(&mut self, edits: Vec<Edit>) {
        for edit in edits {
            match edit {
                Edit::Put { set, rowid, namespace, kind, bits } => {
                    // A vector can move namespace only by being removed
                    // first, which the writes do.
                    if let Some(table) = self.tables.get_mut(&(set, namespace)) {
                        table.put(rowid, kind_code(kind), &bits);
                    }
                }
                Edit::Remove { set, rowid } => {
                    for ((table_set, _), table) in &mut self.tables {
                        if *table_set == set {
                            table.remove(rowid);
                        }
                    }
                }
            }
        }
    }

    /// Reads the sign bits of every namespace of the index with `words`
    /// words a vector (64 dimensions each), ahead of the first searches.
    pub(crate) fn load_all(&mut self, conn: &Connection, words: usize) -> IndexResult<()> {
        let namespaces: Vec<String> = {
            let mut statement = conn.prepare("SELECT DISTINCT namespace FROM memories")?;
            statement.query_map([], |row| row.get(0))?.collect::<Result<_, _>>()?
        };
        for namespace in namespaces {
            for set in [Set::Memories, Set::Passages] {
                if let Entry::Vacant(entry) = self.tables.entry((set, namespace.clone())) {
                    entry.insert(load(conn, set, &namespace, words)?);
                }
            }
        }
        Ok(())
    }

    /// The row ids of `set` in `namespace` nearest to `vector` by sign bits
    /// (see [`Table::nearest`]), reading the namespace's bits first if they
    /// are not loaded.
    pub(crate) fn nearest(
        &mut self,
        conn: &Connection,
        set: Set,
        namespace: &str,
        kinds: &[MemoryKind],
        vector: &[f32],
        wanted: usize,
    ) -> IndexResult<Vec<i64>> {
        let key = (set, namespace.to_owned());
        if !self.tables.contains_key(&key) {
            let table = load(conn, set, namespace, vector.len().div_ceil(64))?;
            self.tables.insert(key.clone(), table);
        }
        let kinds: Vec<u8> = if kinds.len() == MemoryKind::ALL.len() {
            Vec::new()
        } else {
            kinds.iter().map(|kind| kind_code(*kind)).collect()
        };
        Ok(self.tables[&key].nearest(&sign_bits(vector), &kinds, wanted))
    }
}

/// Reads the sign bits of `set` in `namespace` from SQLite.
fn load(conn: &Connection, set: Set, namespace: &str, words: usize) -> IndexResult<Table> {
    let mut table = Table { words, ..Table::default() };
    let mut statement = conn.prepare(&format!(
        "SELECT rowid, embedding, kind FROM {} WHERE namespace = ?1",
        set.table()
    ))?;
    let mut rows = statement.query([namespace])?;
    while let Some(row) = rows.next()? {
        let rowid: i64 = row.get(0)?;
        let bytes: Vec<u8> = row.get(1)?;
        let kind: String = row.get(2)?;
        let kind = kind.parse::<MemoryKind>().map(kind_code).unwrap_or(0);
        table.put(rowid, kind, &words_of(&bytes));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_at_the_limit_are_all_taken_whatever_the_row_order() {
        let mut forward = Table { words: 1, ..Table::default() };
        let mut backward = Table { words: 1, ..Table::default() };
        // Distances from 0: 0, 1, 1, 1, 2.
        let rows = [(10, 0b0), (11, 0b1), (12, 0b10), (13, 0b100), (14, 0b11)];
        for (rowid, bits) in rows {
            forward.put(rowid, 0, &[bits]);
        }
        for (rowid, bits) in rows.iter().rev() {
            backward.put(*rowid, 0, &[*bits]);
        }
        for table in [&forward, &backward] {
            let mut found = table.nearest(&[0], &[], 2);
            found.sort();
            assert_eq!(found, vec![10, 11, 12, 13]);
        }
    }

    #[test]
    fn removing_keeps_every_other_row_findable() {
        let mut table = Table { words: 1, ..Table::default() };
        for rowid in 0..10 {
            table.put(rowid, (rowid % 3) as u8, &[rowid as u64]);
        }
        table.remove(3);
        table.remove(9);
        table.remove(42);
        table.put(5, 1, &[1 << 40]);
        let mut all = table.nearest(&[0], &[], 100);
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 4, 5, 6, 7, 8]);
        assert_eq!(table.nearest(&[1 << 40], &[], 1), vec![5], "a put replaces the bits");
        let mut of_kind: Vec<i64> = table.nearest(&[0], &[0], 100);
        of_kind.sort();
        assert_eq!(of_kind, vec![0, 6], "kinds filter (5 changed kind)");
    }

    #[test]
    fn bits_pack_like_sqlite_vec_stores_them() {
        let vector: Vec<f32> = (0..16).map(|i| if i % 3 == 0 { 0.5 } else { -0.5 }).collect();
        let bytes: Vec<u8> = (0..2)
            .map(|byte| {
                (0..8).fold(0u8, |acc, bit| acc | (u8::from(vector[byte * 8 + bit] > 0.0) << bit))
            })
            .collect();
        assert_eq!(sign_bits(&vector), words_of(&bytes));
    }
}
