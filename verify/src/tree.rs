//! The shape of the BLAKE3 tree over a codeword's bytes, and the pieces a prover shares with
//! the verifier: chaining values of nodes, the opened chunks of some rows, and the fold from
//! those chunks up to the root.
//!
//! BLAKE3 splits its input into 1 KiB chunks and builds a binary tree whose left subtrees are
//! always complete powers of two (BLAKE3 paper, §2.1). Numbering the nodes by `(level, index)`,
//! node `(h, i)` covers chunks `[i·2^h, (i+1)·2^h)` clipped to the input. A node whose right half
//! lies wholly past the end of the input has only a left child, and BLAKE3 does not hash it: its
//! chaining value *is* its left child's ("promoted"). The root sits at level `top = ⌈log2 chunks⌉`
//! and always has two children when there is more than one chunk.
//!
//! ```text
//!  level 3                  root                5 chunks, top = 3
//!  level 2         (2,0)             (2,1)      (2,1) = (1,2) = c4: promoted
//!  level 1     (1,0)     (1,1)       (1,2)
//!  level 0   c0    c1   c2    c3      c4
//! ```

use blake3::CHUNK_LEN;

pub use crate::node::{parent_cv, root_hash, subtree_cv};
pub use crate::opening::{ChunkSet, fold_root};

/// Bytes in one BLAKE3 chunk, as `u64`.
pub const CHUNK_BYTES: u64 = CHUNK_LEN as u64;

/// The tree over an input of `len` bytes (`len ≥ 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeShape {
    len: u64,
    chunks: u64,
    top: u32,
}

impl TreeShape {
    /// The tree over `len ≥ 1` bytes.
    pub fn new(len: u64) -> Self {
        assert!(len > 0, "BLAKE3 trees of empty inputs have no nodes");
        let chunks = len.div_ceil(CHUNK_BYTES);
        let top = chunks.next_power_of_two().trailing_zeros();
        Self { len, chunks, top }
    }

    /// Input length in bytes.
    #[allow(clippy::len_without_is_empty, reason = "a tree covers at least one byte")]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Number of chunks (the last one may be short).
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    /// Level of the root; 0 when the input is a single chunk.
    pub fn top(&self) -> u32 {
        self.top
    }

    /// Number of nodes at level `h` (promoted ones included).
    pub fn level_len(&self, h: u32) -> u64 {
        debug_assert!(h <= self.top);
        (self.chunks + (1u64 << h) - 1) >> h
    }

    /// Byte range `[start, end)` of node `(h, i)`.
    pub fn node_bytes(&self, h: u32, i: u64) -> (u64, u64) {
        let start = (i << h) * CHUNK_BYTES;
        let end = ((i + 1) << h).saturating_mul(CHUNK_BYTES).min(self.len);
        (start, end)
    }

    /// Whether node `(h, i)` (with `h ≥ 1`) has no right child, so its chaining value is its
    /// left child's.
    pub fn is_promoted(&self, h: u32, i: u64) -> bool {
        debug_assert!(h >= 1);
        2 * i + 1 >= self.level_len(h - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_counts_chunks_and_levels() {
        let s = TreeShape::new(1);
        assert_eq!((s.chunks(), s.top()), (1, 0));
        let s = TreeShape::new(1024);
        assert_eq!((s.chunks(), s.top()), (1, 0));
        let s = TreeShape::new(1025);
        assert_eq!((s.chunks(), s.top()), (2, 1));
        let s = TreeShape::new(5 * 1024 - 8);
        assert_eq!((s.chunks(), s.top()), (5, 3));
        assert_eq!(s.level_len(1), 3);
        assert!(s.is_promoted(1, 2));
        assert!(s.is_promoted(2, 1));
        assert!(!s.is_promoted(3, 0));
        assert_eq!(s.node_bytes(0, 4), (4096, 5 * 1024 - 8));
        assert_eq!(s.node_bytes(2, 1), (4096, 5 * 1024 - 8));
    }
}
