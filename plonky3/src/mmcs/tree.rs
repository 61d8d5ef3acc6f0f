//! One committed matrix's BLAKE3 tree: its root is the standard BLAKE3 hash of the matrix's bytes,
//! the nodes of 16 chunks and up are hashed in parallel and kept, and an opening recomputes the
//! small nodes it needs from the matrix.
//!
//! The geometry (chunks, levels, promoted nodes) and the fold from opened chunks to the root are
//! `ntt_verify::tree`'s, the same the engine's committer and verifier use, so an opening made here
//! is an `ntt_verify::Opening` and `ntt_verify::verify` checks it.
//!
//! ```text
//!  level top            root = BLAKE3(matrix bytes)
//!  levels 4..top        kept chaining values   ← commit: sequential merges (1/16 of the nodes)
//!  level 4       [16 KiB] [16 KiB] ... [≤16 KiB] ← commit: hashed in parallel on the pool
//!  levels 0..4          recomputed by an opening, at most 15 KiB per opened chunk
//! ```

use super::bytes::{byte_len, row_bytes, with_bytes};
use blake3::hazmat::ChainingValue;
use ntt_pcs::ntt_verify::tree::{ChunkSet, TreeShape, fold_root, parent_cv, root_hash};

/// The chaining value of a whole node of the tree whose bytes start at `offset`.
fn subtree_cv(offset: u64, bytes: &[u8]) -> ChainingValue {
    ntt_pcs::ntt_verify::tree::subtree_cv(offset, bytes).expect("the bytes of a node of the tree")
}
use ntt_runtime::ThreadPool;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;
use std::time::Duration;

/// The level whose nodes (2^4 chunks, 16 KiB) a commit hashes in parallel and keeps: 16 chunks
/// are the widest batch BLAKE3's SIMD backends hash at once (AVX-512 runs 16 chunks side by
/// side), so every node is hashed at full width, and an opening rehashes at most 15 KiB per
/// opened chunk for the siblings below it.
const PIECE_LEVEL: u32 = 4;

/// Level-4 nodes hashed by one task: 64 KiB, tens of microseconds of hashing, so a task's
/// hand-off (a few microseconds) stays small beside it.
const PIECES_PER_TASK: usize = 4;

/// Bytes BLAKE3 hashes per nanosecond on one core, about: AVX2 reaches 2–3 GB/s. Only used to
/// decide whether a matrix is worth handing to the pool's workers at all.
const HASH_BYTES_PER_NS: u64 = 2;

/// The tree over one matrix's bytes.
#[derive(Clone, Debug)]
pub(crate) struct MatrixTree {
    shape: TreeShape,
    root: [u8; 32],
    /// `levels[k]` holds the chaining values of level `PIECE_LEVEL + k`, up to the level below
    /// the root; empty when the root sits at or below `PIECE_LEVEL`.
    levels: Vec<Vec<ChainingValue>>,
}

impl MatrixTree {
    /// Hashes `matrix` (at least one value wide and one row tall), the level-4 nodes in parallel
    /// on `pool`.
    pub(crate) fn build<M: Matrix<Poly64>>(matrix: &M, pool: &ThreadPool) -> Self {
        let len = byte_len(matrix);
        let shape = TreeShape::new(len).expect("a matrix has at least one value");
        if shape.top() <= PIECE_LEVEL {
            let root = with_bytes(matrix, 0, len, |bytes| *blake3::hash(bytes).as_bytes());
            return Self {
                shape,
                root,
                levels: Vec::new(),
            };
        }
        let mut pieces =
            vec![ChainingValue::default(); shape.level_len(PIECE_LEVEL).expect("below the root") as usize];
        pool.with_work_estimate(Duration::from_nanos(len / HASH_BYTES_PER_NS), || {
            pool.chunks_mut(&mut pieces, PIECES_PER_TASK, |task, cvs, _| {
                for (k, cv) in cvs.iter_mut().enumerate() {
                    let node = (task * PIECES_PER_TASK + k) as u64;
                    let (start, end) = shape.node_bytes(PIECE_LEVEL, node).expect("a piece of the tree");
                    *cv = with_bytes(matrix, start, end, |bytes| subtree_cv(start, bytes));
                }
            });
        });
        let mut levels = vec![pieces];
        for _ in PIECE_LEVEL + 1..shape.top() {
            let below = levels.last().expect("the piece level is there");
            let parents = below
                .chunks(2)
                .map(|pair| match pair {
                    [left, right] => parent_cv(left, right),
                    // No right child: the node is its left child (promoted).
                    [left] => *left,
                    _ => unreachable!("chunks(2) yields one or two nodes"),
                })
                .collect();
            levels.push(parents);
        }
        let [left, right] = levels.last().expect("the piece level is there")[..] else {
            unreachable!("the level below the root has two nodes")
        };
        Self {
            root: root_hash(&left, &right),
            shape,
            levels,
        }
    }

    /// The BLAKE3 hash of the matrix's bytes.
    pub(crate) fn root(&self) -> [u8; 32] {
        self.root
    }

    /// The chaining value of node `(h, i)` below the root: kept, or rehashed from `matrix`.
    fn node_cv<M: Matrix<Poly64>>(&self, h: u32, i: u64, matrix: &M) -> ChainingValue {
        let kept = h
            .checked_sub(PIECE_LEVEL)
            .and_then(|k| self.levels.get(k as usize));
        match kept {
            Some(level) => level[i as usize],
            None => {
                let (start, end) = self.shape.node_bytes(h, i).expect("a node of the tree");
                with_bytes(matrix, start, end, |bytes| subtree_cv(start, bytes))
            }
        }
    }

    /// The opening of `rows` (in range; any order, repeats allowed) of `matrix`, the matrix this
    /// tree was built from: the bytes of every chunk holding a byte of those rows, in chunk
    /// order, and the sibling chaining values up to the root, in `ntt_verify`'s fold order.
    pub(crate) fn open<M: Matrix<Poly64>>(&self, matrix: &M, rows: &[u64]) -> (Vec<u8>, Vec<ChainingValue>) {
        let chunks = ChunkSet::of_rows(row_bytes(matrix), rows.iter().copied()).expect("rows of the matrix");
        let total = chunks
            .byte_len(&self.shape)
            .expect("rows of the matrix lie within its tree");
        let mut chunk_bytes = Vec::with_capacity(total as usize);
        let mut leaves = Vec::with_capacity(chunks.count() as usize);
        for c in chunks.iter() {
            let (start, end) = self
                .shape
                .node_bytes(0, c)
                .expect("an opened chunk is in the tree");
            with_bytes(matrix, start, end, |bytes| {
                chunk_bytes.extend_from_slice(bytes);
                if self.shape.top() > 0 {
                    leaves.push((c, subtree_cv(start, bytes)));
                }
            });
        }
        let mut siblings = Vec::new();
        if self.shape.top() > 0 {
            let root = fold_root(&self.shape, leaves, |h, i| {
                let cv = self.node_cv(h, i, matrix);
                siblings.push(cv);
                Ok::<_, std::convert::Infallible>(cv)
            });
            debug_assert_eq!(
                root.ok().flatten(),
                Some(self.root),
                "the kept tree disagrees with its root"
            );
        }
        (chunk_bytes, siblings)
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

    fn bytes(m: &RowMajorMatrix<Poly64>) -> Vec<u8> {
        m.values.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect()
    }

    #[test]
    fn root_is_blake3_of_the_row_major_bytes() {
        let pool = pool();
        // 1 chunk; 16 chunks (root at the piece level); 17, 32 and 40 chunks (kept levels,
        // promoted nodes); 3 lanes (rows straddle chunks).
        for (height, width) in [
            (1, 1),
            (4, 2),
            (256, 8),
            (272, 8),
            (512, 8),
            (640, 8),
            (1 << 10, 3),
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
    fn kept_nodes_equal_their_subtree_hashes() {
        let m = matrix(5 << 10, 2); // 80 KiB: 80 chunks, 5 pieces, root at level 7
        let all = bytes(&m);
        let tree = MatrixTree::build(&m, &pool());
        assert_eq!(tree.levels.len(), 3);
        for h in PIECE_LEVEL..tree.shape.top() {
            for i in 0..tree.shape.level_len(h).expect("a level of the tree") {
                let (start, end) = tree.shape.node_bytes(h, i).expect("a node of the tree");
                let expected = subtree_cv(start, &all[start as usize..end as usize]);
                assert_eq!(tree.node_cv(h, i, &m), expected, "node ({h}, {i})");
            }
        }
    }
}
