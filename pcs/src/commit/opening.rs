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

use super::hex_serde;
use super::node::{parent_cv, root_hash};
use super::shape::{CHUNK_BYTES, TreeShape};

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

/// The distinct chunks holding the bytes of `rows` (each row `row_bytes` long), in order.
pub(crate) fn opened_chunks(row_bytes: u64, rows: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut chunks = Vec::new();
    for row in rows {
        let start = row * row_bytes;
        chunks.extend(start / CHUNK_BYTES..=(start + row_bytes - 1) / CHUNK_BYTES);
    }
    chunks.sort_unstable();
    chunks.dedup();
    chunks
}

/// Total bytes of the given chunks.
pub(crate) fn chunks_len(shape: &TreeShape, chunks: &[u64]) -> u64 {
    chunks
        .iter()
        .map(|&c| shape.node_bytes(0, c))
        .map(|(a, b)| b - a)
        .sum()
}

/// Folds the chaining values of the opened chunks (`nodes`, sorted by index, distinct) up to the
/// root of a tree with at least two chunks. `sibling(h, i)` supplies each missing sibling, in
/// proof order.
pub(crate) fn fold_root<E>(
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
