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
///
/// Every query takes hostile arguments: a level or node index outside the tree gives `None`,
/// never a panic or a wrapped value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeShape {
    len: u64,
    chunks: u64,
    top: u32,
}

impl TreeShape {
    /// The tree over `len` bytes; `None` for an empty input, which has no nodes.
    pub fn new(len: u64) -> Option<Self> {
        if len == 0 {
            return None;
        }
        // At most 2^54 chunks, so the root's level is at most 54 and every node's byte range
        // below stays within `len`.
        let chunks = len.div_ceil(CHUNK_BYTES);
        let top = chunks.next_power_of_two().trailing_zeros();
        Some(Self { len, chunks, top })
    }

    /// Input length in bytes.
    #[expect(clippy::len_without_is_empty, reason = "a tree covers at least one byte")]
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

    /// Number of nodes at level `h` (promoted ones included); `None` above the root.
    pub fn level_len(&self, h: u32) -> Option<u64> {
        // `h ≤ top ≤ 54`: the shift cannot overflow.
        (h <= self.top).then(|| self.chunks.div_ceil(1u64 << h))
    }

    /// Byte range `[start, end)` of node `(h, i)`; `None` when there is no such node.
    pub fn node_bytes(&self, h: u32, i: u64) -> Option<(u64, u64)> {
        if i >= self.level_len(h)? {
            return None;
        }
        // `i < ⌈chunks / 2^h⌉`, so `i·2^h < chunks` and `i·2^h·CHUNK_BYTES < len + CHUNK_BYTES`:
        // the start is within the input; the end is clipped to it.
        let start = (i << h) * CHUNK_BYTES;
        // `(i + 1)·2^h < chunks + 2^h ≤ 2^55`; the bytes past it may pass `u64::MAX`.
        let end = ((i + 1) << h).saturating_mul(CHUNK_BYTES).min(self.len);
        Some((start, end))
    }

    /// Whether node `(h, i)` (with `h ≥ 1`) has no right child, so its chaining value is its
    /// left child's; `None` for a chunk (`h = 0`) or a node that does not exist.
    pub fn is_promoted(&self, h: u32, i: u64) -> Option<bool> {
        if h == 0 || i >= self.level_len(h)? {
            return None;
        }
        Some(2 * i + 1 >= self.level_len(h - 1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_counts_chunks_and_levels() {
        let shape = |len| TreeShape::new(len).expect("not empty");
        let s = shape(1);
        assert_eq!((s.chunks(), s.top()), (1, 0));
        let s = shape(1024);
        assert_eq!((s.chunks(), s.top()), (1, 0));
        let s = shape(1025);
        assert_eq!((s.chunks(), s.top()), (2, 1));
        let s = shape(5 * 1024 - 8);
        assert_eq!((s.chunks(), s.top()), (5, 3));
        assert_eq!(s.level_len(1), Some(3));
        assert_eq!(s.is_promoted(1, 2), Some(true));
        assert_eq!(s.is_promoted(2, 1), Some(true));
        assert_eq!(s.is_promoted(3, 0), Some(false));
        assert_eq!(s.node_bytes(0, 4), Some((4096, 5 * 1024 - 8)));
        assert_eq!(s.node_bytes(2, 1), Some((4096, 5 * 1024 - 8)));
    }

    #[test]
    fn hostile_arguments_give_none() {
        assert_eq!(TreeShape::new(0), None);
        let s = TreeShape::new(5 * 1024 - 8).expect("not empty");
        assert_eq!(s.level_len(4), None);
        assert_eq!(s.level_len(64), None);
        assert_eq!(s.node_bytes(0, 5), None);
        assert_eq!(s.node_bytes(60, u64::MAX), None);
        assert_eq!(s.node_bytes(3, 1), None);
        assert_eq!(s.is_promoted(0, 0), None);
        assert_eq!(s.is_promoted(1, 3), None);
        let huge = TreeShape::new(u64::MAX).expect("not empty");
        assert_eq!((huge.chunks(), huge.top()), (1 << 54, 54));
        assert_eq!(
            huge.node_bytes(0, (1 << 54) - 1),
            Some((u64::MAX - 1023, u64::MAX))
        );
        assert_eq!(huge.node_bytes(54, 0), Some((0, u64::MAX)));
        assert_eq!(huge.level_len(54), Some(1));
    }
}
