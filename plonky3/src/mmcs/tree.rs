//! One committed matrix's BLAKE3 tree: its root is the standard BLAKE3 hash of the matrix's bytes,
//! the pieces (nodes of 2^6 chunks) are hashed in parallel and kept with the levels above them,
//! and an opening recomputes the small nodes it needs from the matrix.
//!
//! The pieces, the merge and the kept levels are `ntt_pcs::pieces`', the same the engine's
//! committer uses; the geometry (chunks, levels, promoted nodes) and the fold from opened chunks
//! to the root are `ntt_verify::tree`'s, the same its verifier uses, so an opening made here is
//! an `ntt_verify::Opening` and `ntt_verify::verify` checks it. The piece level changes neither
//! the root nor an opening's bytes.
//!
//! ```text
//!  level top            root = BLAKE3(matrix bytes)
//!  levels 6..top        kept chaining values    ← commit: sequential merges (1/64 of the nodes)
//!  level 6       [64 KiB] [64 KiB] ... [≤64 KiB] ← commit: hashed in parallel on the pool
//!  levels 0..6          recomputed by an opening, at most 63 KiB per opened chunk
//! ```

use super::bytes::{byte_len, row_bytes, with_bytes};
use blake3::hazmat::ChainingValue;
use ntt_pcs::ntt_verify::tree::{ChunkSet, TreeShape};
use ntt_pcs::pieces::{ChainingTree, DEFAULT_PIECE_LEVEL, hash_level, node_cv};
use ntt_runtime::ThreadPool;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;

/// The tree over one matrix's bytes.
#[derive(Clone, Debug)]
pub(crate) struct MatrixTree {
    root: [u8; 32],
    /// The pieces and the levels above them, below the root; none kept when the root sits at or
    /// below the piece level.
    kept: ChainingTree,
}

impl MatrixTree {
    /// Hashes `matrix` (at least one value wide and one row tall), the pieces in parallel on
    /// `pool`.
    pub(crate) fn build<M: Matrix<Poly64>>(matrix: &M, pool: &ThreadPool) -> Self {
        let len = byte_len(matrix);
        let shape = TreeShape::new(len).expect("a matrix has at least one value");
        if shape.top() <= DEFAULT_PIECE_LEVEL {
            let root = with_bytes(matrix, 0, len, |bytes| *blake3::hash(bytes).as_bytes());
            return Self {
                root,
                kept: ChainingTree::empty(shape),
            };
        }
        let pieces = hash_level(&shape, DEFAULT_PIECE_LEVEL, pool, |start, end| {
            with_bytes(matrix, start, end, |bytes| node_cv(start, bytes))
        });
        let (kept, root) = ChainingTree::from_level(shape, DEFAULT_PIECE_LEVEL, pieces);
        Self { root, kept }
    }

    /// The BLAKE3 hash of the matrix's bytes.
    pub(crate) fn root(&self) -> [u8; 32] {
        self.root
    }

    /// The opening of `rows` (in range; any order, repeats allowed) of `matrix`, the matrix this
    /// tree was built from: the bytes of every chunk holding a byte of those rows, in chunk
    /// order, and the sibling chaining values up to the root, in `ntt_verify`'s fold order.
    pub(crate) fn open<M: Matrix<Poly64>>(&self, matrix: &M, rows: &[u64]) -> (Vec<u8>, Vec<ChainingValue>) {
        let chunks = ChunkSet::of_rows(row_bytes(matrix), rows.iter().copied()).expect("rows of the matrix");
        self.kept.open_chunks(&chunks, self.root, |start, end, f| {
            with_bytes(matrix, start, end, |bytes| f(bytes))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_runtime::{PinPolicy, ThreadPoolBuilder};
    use p3_matrix::dense::RowMajorMatrix;

    fn pool() -> ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .build()
            .expect("pool")
    }

    fn matrix(height: usize, width: usize) -> RowMajorMatrix<Poly64> {
        let values = (0..(height * width) as u64)
            .map(|k| Poly64::new(k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k >> 7))
            .collect();
        RowMajorMatrix::new(values, width)
    }

    /// The chaining value of node `(h, i)` below the root: kept, or rehashed from `matrix`.
    fn node_cv_of(tree: &MatrixTree, h: u32, i: u64, matrix: &RowMajorMatrix<Poly64>) -> ChainingValue {
        tree.kept.node_cv_with(h, i, |start, end| {
            with_bytes(matrix, start, end, |bytes| node_cv(start, bytes))
        })
    }

    fn bytes(m: &RowMajorMatrix<Poly64>) -> Vec<u8> {
        m.values.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect()
    }

    #[test]
    fn root_is_blake3_of_the_row_major_bytes() {
        let pool = pool();
        // 1 chunk; 16 and 64 chunks (root at the piece level); 65, 128 and 160 chunks (kept
        // levels, promoted nodes); 3 lanes (rows straddle chunks).
        for (height, width) in [
            (1, 1),
            (4, 2),
            (256, 8),
            (1 << 10, 8),
            (1040, 8),
            (2 << 10, 8),
            (2560, 8),
            (1 << 12, 3),
        ] {
            let m = matrix(height, width);
            let tree = MatrixTree::build(&m, &pool);
            assert_eq!(
                tree.root(),
                *blake3::hash(&bytes(&m)).as_bytes(),
                "{height}×{width}"
            );
        }
    }

    #[test]
    fn every_node_equals_its_subtree_hash() {
        // 321 chunks: 6 pieces, the last one a promoted single chunk; root at level 9.
        let m = matrix((20 << 10) + 3, 2);
        let all = bytes(&m);
        let tree = MatrixTree::build(&m, &pool());
        let shape = *tree.kept.shape();
        assert_eq!(shape.top(), 9);
        for h in 0..shape.top() {
            for i in 0..shape.level_len(h).expect("a level of the tree") {
                let (start, end) = shape.node_bytes(h, i).expect("a node of the tree");
                let expected = node_cv(start, &all[start as usize..end as usize]);
                assert_eq!(node_cv_of(&tree, h, i, &m), expected, "node ({h}, {i})");
            }
        }
    }
}
