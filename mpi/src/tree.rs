//! Chaining values of aligned nodes of the codeword's BLAKE3 tree, and the root they merge into.
//!
//! Node `(h, i)` covers chunks `[i·2^h, (i+1)·2^h)` (docs/FORMAT.md §2). A contiguous, chunk-aligned
//! byte range is covered exactly by the maximal aligned nodes inside it (at most two per level),
//! and their chaining values are all a range contributes to the root: a rank hashes its share
//! into such nodes, and rank 0 merges every rank's nodes into the root one machine computes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use blake3::hazmat::ChainingValue;
use ntt_pcs::ntt_verify::tree::{CHUNK_BYTES, TreeShape, parent_cv, root_hash};
use ntt_pcs::pieces::node_cv_from_pieces;
use ntt_pcs::{RowSink, RowSinkError};

/// Bytes of one node on the wire: level (u32), index (u64), chaining value.
pub const NODE_WIRE_BYTES: usize = 4 + 8 + 32;

/// The chaining value of one aligned node of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// Level: the node covers 2^level chunks.
    pub level: u32,
    /// Index within its level.
    pub index: u64,
    /// Its BLAKE3 chaining value.
    pub cv: ChainingValue,
}

/// Why nodes do not make a root.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum TreeError {
    /// A node the tree needs is covered by no node given.
    #[error("node ({level}, {index}) of the BLAKE3 tree is covered by no share")]
    Missing {
        /// Its level.
        level: u32,
        /// Its index.
        index: u64,
    },
    /// The node list's bytes are not a whole number of nodes, or name a node outside the tree.
    #[error("a share's node list is malformed")]
    Malformed,
}

/// The maximal aligned nodes `(level, index)` that tile chunks `[start, end)`, left to right.
pub fn aligned_nodes(start: u64, end: u64) -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        // The largest power of two that `at` is a multiple of and that still fits.
        let mut level = if at == 0 { 63 } else { at.trailing_zeros() };
        while level > 0 && (1u64 << level) > end - at {
            level -= 1;
        }
        out.push((level, at >> level));
        at += 1u64 << level;
    }
    out
}

/// [`aligned_nodes`] below the root: a node that would be the whole tree (level `top`) is its two
/// children, since the root is merged with its own flag and cannot be a chaining value.
fn tiling(tree: &TreeShape, start: u64, end: u64) -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    for (level, index) in aligned_nodes(start, end) {
        if level >= tree.top() && tree.top() > 0 {
            out.extend([(tree.top() - 1, 0), (tree.top() - 1, 1)]);
        } else {
            out.push((level, index));
        }
    }
    out
}

/// Hashes `bytes`, which start at codeword byte `offset` (a multiple of 1 KiB) and end at a chunk
/// boundary or at the codeword's end (`tree`), into the nodes of its aligned tiling, each large
/// node hashed in pieces ([`ntt_pcs::pieces`]) and merged.
pub fn hash_chunks(tree: &TreeShape, offset: u64, bytes: &[u8]) -> Vec<Node> {
    debug_assert!(offset.is_multiple_of(CHUNK_BYTES));
    let start = offset / CHUNK_BYTES;
    let end = (offset + bytes.len() as u64).div_ceil(CHUNK_BYTES);
    tiling(tree, start, end)
        .into_iter()
        .map(|(level, index)| Node {
            level,
            index,
            cv: node_cv_from_pieces(tree, level, index, offset, bytes),
        })
        .collect()
}

/// Chaining values of nodes, looked up by `(level, index)`, merged upwards on demand.
#[derive(Debug)]
pub struct NodeSet {
    tree: TreeShape,
    known: HashMap<(u32, u64), ChainingValue>,
}

impl NodeSet {
    /// An empty set for the tree over `len` codeword bytes.
    pub fn new(len: u64) -> Self {
        Self {
            tree: TreeShape::new(len).expect("a codeword has at least one byte"),
            known: HashMap::new(),
        }
    }

    /// The tree's shape.
    pub fn tree(&self) -> &TreeShape {
        &self.tree
    }

    /// Adds nodes.
    pub fn extend(&mut self, nodes: impl IntoIterator<Item = Node>) {
        self.known
            .extend(nodes.into_iter().map(|n| ((n.level, n.index), n.cv)));
    }

    /// The chaining value of the non-root node `(level, index)`, from the nodes it covers.
    ///
    /// # Errors
    /// [`TreeError::Missing`] when some chunk under it is covered by no node.
    pub fn cv(&self, level: u32, index: u64) -> Result<ChainingValue, TreeError> {
        if let Some(cv) = self.known.get(&(level, index)) {
            return Ok(*cv);
        }
        if level == 0 || self.tree.level_len(level).is_none_or(|n| index >= n) {
            return Err(TreeError::Missing { level, index });
        }
        let left = self.cv(level - 1, 2 * index)?;
        if self.tree.is_promoted(level, index) == Some(true) {
            return Ok(left);
        }
        Ok(parent_cv(&left, &self.cv(level - 1, 2 * index + 1)?))
    }

    /// The maximal aligned nodes of chunks `[start, end)` below the root, merged from the nodes
    /// known.
    ///
    /// # Errors
    /// As for [`cv`](Self::cv).
    pub fn cover(&self, start: u64, end: u64) -> Result<Vec<Node>, TreeError> {
        tiling(&self.tree, start, end)
            .into_iter()
            .map(|(level, index)| {
                Ok(Node {
                    level,
                    index,
                    cv: self.cv(level, index)?,
                })
            })
            .collect()
    }

    /// The root: the BLAKE3 hash of the whole codeword. A tree of one chunk has no parents; its
    /// root needs the chunk's bytes (`single_chunk`).
    ///
    /// # Errors
    /// As for [`cv`](Self::cv), or [`TreeError::Missing`] for a one-chunk tree without its bytes.
    pub fn root(&self, single_chunk: Option<&[u8]>) -> Result<[u8; 32], TreeError> {
        let top = self.tree.top();
        if top == 0 {
            return single_chunk
                .map(|bytes| *blake3::hash(bytes).as_bytes())
                .ok_or(TreeError::Missing { level: 0, index: 0 });
        }
        Ok(root_hash(&self.cv(top - 1, 0)?, &self.cv(top - 1, 1)?))
    }
}

/// Nodes as bytes for the wire: level, index, chaining value, little-endian.
pub fn encode_nodes(nodes: &[Node]) -> Vec<u8> {
    let mut out = Vec::with_capacity(nodes.len() * NODE_WIRE_BYTES);
    for n in nodes {
        out.extend_from_slice(&n.level.to_le_bytes());
        out.extend_from_slice(&n.index.to_le_bytes());
        out.extend_from_slice(&n.cv);
    }
    out
}

/// The nodes [`encode_nodes`] wrote.
///
/// # Errors
/// [`TreeError::Malformed`] for a length that is not a whole number of nodes, or a level that no
/// tree has.
pub fn decode_nodes(bytes: &[u8]) -> Result<Vec<Node>, TreeError> {
    if !bytes.len().is_multiple_of(NODE_WIRE_BYTES) {
        return Err(TreeError::Malformed);
    }
    bytes
        .chunks_exact(NODE_WIRE_BYTES)
        .map(|n| {
            let node = Node {
                level: u32::from_le_bytes(n[..4].try_into().expect("4 bytes")),
                index: u64::from_le_bytes(n[4..12].try_into().expect("8 bytes")),
                cv: n[12..].try_into().expect("32 bytes"),
            };
            if node.level < 64 {
                Ok(node)
            } else {
                Err(TreeError::Malformed)
            }
        })
        .collect()
}

/// A [`RowSink`] that hashes each finished block of a share into its aligned nodes, in the task
/// that finished it (the rows are still in that worker's cache). A block that does not start
/// and end on chunk boundaries (or the codeword's end) is noted, not hashed: small blocks of a
/// small share are hashed after the encode instead.
#[derive(Debug)]
pub struct NodeSink {
    tree: TreeShape,
    /// Codeword bytes before the share's first row.
    share_offset: u64,
    row_bytes: u64,
    nodes: Mutex<Vec<Node>>,
    /// Set when a block did not start and end on chunk boundaries: its nodes are not its own,
    /// so the share is hashed again after the encode.
    unaligned: AtomicBool,
}

impl NodeSink {
    /// A sink for a share starting at codeword byte `share_offset`, of rows of `row_bytes`.
    pub fn new(tree: TreeShape, share_offset: u64, row_bytes: u64) -> Self {
        Self {
            tree,
            share_offset,
            row_bytes,
            nodes: Mutex::new(Vec::new()),
            unaligned: AtomicBool::new(false),
        }
    }

    /// The nodes of every block, or `None` when some block was not chunk-aligned (the share must
    /// then be hashed as a whole).
    pub fn into_nodes(self) -> Option<Vec<Node>> {
        if self.unaligned.into_inner() {
            return None;
        }
        Some(
            self.nodes
                .into_inner()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }
}

impl RowSink for NodeSink {
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        let offset = self.share_offset + first_row as u64 * self.row_bytes;
        let end = offset + size_of_val(rows) as u64;
        let aligned = |at: u64| at.is_multiple_of(CHUNK_BYTES) || at == self.tree.len();
        if !aligned(offset) || !aligned(end) {
            self.unaligned.store(true, Ordering::Relaxed);
            return Ok(());
        }
        let bytes: Vec<u8>;
        let view: &[u8] = if cfg!(target_endian = "little") {
            // SAFETY: `u64` has no padding and any bytes are valid `u8`s; the view covers exactly
            // the words of `rows` and lives no longer than the borrow of `rows`.
            unsafe { std::slice::from_raw_parts(rows.as_ptr().cast::<u8>(), size_of_val(rows)) }
        } else {
            bytes = rows.iter().flat_map(|w| w.to_le_bytes()).collect();
            &bytes
        };
        let hashed = hash_chunks(&self.tree, offset, view);
        self.nodes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend(hashed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 7) as u8)
            .collect()
    }

    #[test]
    fn aligned_nodes_tile_the_range_maximally() {
        assert_eq!(aligned_nodes(0, 8), [(3, 0)]);
        assert_eq!(aligned_nodes(3, 9), [(0, 3), (2, 1), (0, 8)]);
        assert_eq!(aligned_nodes(6, 12), [(1, 3), (2, 2)]);
        assert!(aligned_nodes(5, 5).is_empty());
        for start in 0..40u64 {
            for end in start..70 {
                let mut at = start;
                for (level, index) in aligned_nodes(start, end) {
                    assert_eq!(index << level, at);
                    at += 1 << level;
                }
                assert_eq!(at, end);
            }
        }
    }

    #[test]
    fn any_chunk_aligned_split_merges_into_blake3() {
        // Lengths with a short last chunk, single chunks, powers of two and odd chunk counts.
        for len in [
            1usize,
            1000,
            1024,
            2048,
            3 * 1024,
            5 * 1024 - 8,
            64 << 10,
            (200 << 10) + 24,
        ] {
            let data = bytes(len);
            let expected = *blake3::hash(&data).as_bytes();
            let chunks = len.div_ceil(1024);
            for parts in 1..=chunks.min(7) {
                let mut set = NodeSet::new(len as u64);
                for p in 0..parts {
                    let from = chunks * p / parts * 1024;
                    let to = (chunks * (p + 1) / parts * 1024).min(len);
                    let nodes = hash_chunks(set.tree(), from as u64, &data[from..to]);
                    // Through the wire format, and compacted the way a rank sends them.
                    let mut own = NodeSet::new(len as u64);
                    own.extend(decode_nodes(&encode_nodes(&nodes)).unwrap());
                    let (c0, c1) = (from as u64 / 1024, (to as u64).div_ceil(1024));
                    set.extend(own.cover(c0, c1).unwrap());
                }
                let single = (chunks == 1).then_some(&data[..]);
                assert_eq!(set.root(single), Ok(expected), "len {len}, {parts} parts");
            }
        }
    }

    #[test]
    fn a_missing_share_is_an_error_not_a_root() {
        let data = bytes(8 << 10);
        let mut set = NodeSet::new(data.len() as u64);
        set.extend(hash_chunks(set.tree(), 0, &data[..4096]));
        assert_eq!(set.root(None), Err(TreeError::Missing { level: 0, index: 4 }));
        assert_eq!(decode_nodes(&[0; 43]), Err(TreeError::Malformed));
    }
}
