//! Openings: the opened rows' chunks plus the sibling chaining values that lead to the root.
//!
//! An opening of rows `R` carries every BLAKE3 chunk that holds a byte of a row in `R` (whole
//! chunks, so the opened rows come with the neighbouring bytes their chunks need), in increasing
//! chunk order, each chunk once. The verifier hashes those chunks and folds them up to the root
//! level by level; whenever a node is known but its sibling is not, the opening supplies the
//! sibling's chaining value. Siblings appear in that fold order (level by level from the chunks
//! up, left to right within a level), so a sibling shared by several rows is sent once.

use blake3::hazmat::ChainingValue;
use serde::{Deserialize, Serialize};

use crate::hex_serde;
use crate::node::{parent_cv, root_hash};
use crate::tree::{CHUNK_BYTES, TreeShape};

/// A proof that some rows belong to a committed codeword. Serializes with serde (bytes as hex)
/// and in the compact binary format of `docs/FORMAT.md` ([`Opening::to_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    pub(crate) log_rows: u32,
    pub(crate) lanes: u64,
    /// The row indices the opening was made for, in the order asked.
    pub(crate) rows: Vec<u64>,
    /// The opened chunks' bytes, concatenated in increasing chunk order.
    #[serde(with = "hex_serde::bytes")]
    pub(crate) chunks: Vec<u8>,
    /// Sibling chaining values in fold order.
    #[serde(with = "hex_serde::digests")]
    pub(crate) siblings: Vec<[u8; 32]>,
}

impl Opening {
    /// An opening from its parts, as a prover makes it (see `ntt_pcs::ProverData::open`):
    /// the codeword's shape, the rows asked, the opened chunks' bytes in increasing chunk order
    /// and the sibling chaining values in fold order. Nothing is checked here; [`verify`] checks
    /// everything.
    ///
    /// [`verify`]: crate::verify
    pub fn new(log_rows: u32, lanes: u64, rows: Vec<u64>, chunks: Vec<u8>, siblings: Vec<[u8; 32]>) -> Self {
        Self {
            log_rows,
            lanes,
            rows,
            chunks,
            siblings,
        }
    }

    /// Base-2 log of the number of rows of the codeword the opening was made for.
    pub fn log_rows(&self) -> u32 {
        self.log_rows
    }

    /// Words per row of the codeword the opening was made for.
    pub fn lanes(&self) -> u64 {
        self.lanes
    }

    /// The row indices the opening was made for, in the order asked.
    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// The opened chunks' bytes.
    pub fn chunk_bytes(&self) -> &[u8] {
        &self.chunks
    }

    /// The sibling chaining values.
    pub fn siblings(&self) -> &[[u8; 32]] {
        &self.siblings
    }
}

/// The distinct chunks holding the bytes of some rows: sorted, merged runs of chunk indices, so
/// a row of many chunks costs one run (a verifier sizes it before trusting any proof length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkSet {
    /// Disjoint, non-adjacent `[start, end)` runs in increasing order.
    runs: Vec<(u64, u64)>,
    /// Chunks in the runs before each run.
    before: Vec<u64>,
}

impl ChunkSet {
    /// The chunks of `rows`, each row `row_bytes ≥ 1` long (offsets must not overflow).
    pub fn of_rows(row_bytes: u64, rows: impl IntoIterator<Item = u64>) -> Self {
        let mut spans: Vec<(u64, u64)> = rows
            .into_iter()
            .map(|row| {
                let start = row * row_bytes;
                (start / CHUNK_BYTES, (start + row_bytes - 1) / CHUNK_BYTES + 1)
            })
            .collect();
        spans.sort_unstable();
        let mut runs: Vec<(u64, u64)> = Vec::with_capacity(spans.len());
        for (start, end) in spans {
            match runs.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => runs.push((start, end)),
            }
        }
        let before = runs
            .iter()
            .scan(0, |sum, &(a, b)| {
                let at = *sum;
                *sum += b - a;
                Some(at)
            })
            .collect();
        Self { runs, before }
    }

    /// Number of chunks.
    pub fn count(&self) -> u64 {
        self.runs.iter().map(|(a, b)| b - a).sum()
    }

    /// Total bytes of the chunks in a tree of this shape (only the last chunk may be short).
    pub fn byte_len(&self, shape: &TreeShape) -> u64 {
        let full = self.count() * CHUNK_BYTES;
        match self.runs.last() {
            Some(&(_, end)) if end == shape.chunks() => full - (shape.chunks() * CHUNK_BYTES - shape.len()),
            _ => full,
        }
    }

    /// The chunk indices in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs.iter().flat_map(|&(a, b)| a..b)
    }

    /// Position of chunk `c` (which must be in the set) in increasing order.
    pub fn position(&self, c: u64) -> u64 {
        let run = self.runs.partition_point(|&(_, end)| end <= c);
        let (start, end) = self.runs[run];
        debug_assert!((start..end).contains(&c), "chunk {c} is not in the set");
        self.before[run] + (c - start)
    }
}

/// Folds the chaining values of the opened chunks (`nodes`, sorted by index, distinct) up to the
/// root of a tree with at least two chunks. `sibling(h, i)` supplies each missing sibling, in
/// proof order.
pub fn fold_root<E>(
    shape: &TreeShape,
    mut nodes: Vec<(u64, ChainingValue)>,
    mut sibling: impl FnMut(u32, u64) -> Result<ChainingValue, E>,
) -> Result<[u8; 32], E> {
    let top = shape.top();
    debug_assert!(top >= 1 && !nodes.is_empty());
    for h in 0..top {
        let len = shape.level_len(h);
        let mut parents = Vec::with_capacity(nodes.len().div_ceil(2));
        let mut k = 0;
        while k < nodes.len() {
            let (i, cv) = nodes[k];
            k += 1;
            let (left, right) = if i % 2 == 1 {
                (sibling(h, i - 1)?, cv)
            } else if k < nodes.len() && nodes[k].0 == i + 1 {
                k += 1;
                (cv, nodes[k - 1].1)
            } else if i + 1 >= len {
                parents.push((i / 2, cv)); // no right child: promoted
                continue;
            } else {
                (cv, sibling(h, i + 1)?)
            };
            if h + 1 == top {
                return Ok(root_hash(&left, &right));
            }
            parents.push((i / 2, parent_cv(&left, &right)));
        }
        nodes = parents;
    }
    unreachable!("the root has two children, so the top merge returns")
}
