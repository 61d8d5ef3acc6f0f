//! The chaining values a prover keeps for openings: every node of the chunk tree from one level
//! up to the level below the root. The nodes below are recomputed from the bytes when an opening
//! needs them.

use blake3::hazmat::ChainingValue;

use super::pieces::node_cv;
use ntt_verify::tree::{ChunkSet, TreeShape, fold_root, parent_cv, root_hash};

/// Chaining values of every node at level `first_level` and above (root excluded); the nodes
/// below are recomputed from the committed bytes.
#[derive(Clone, Debug)]
pub struct ChainingTree {
    shape: TreeShape,
    first_level: u32,
    /// Index `h - first_level`.
    levels: Vec<Vec<ChainingValue>>,
}

impl ChainingTree {
    pub(crate) fn new(shape: TreeShape, first_level: u32, levels: Vec<Vec<ChainingValue>>) -> Self {
        debug_assert_eq!(levels.len() as u32, shape.top() - first_level.min(shape.top()));
        Self {
            shape,
            first_level,
            levels,
        }
    }

    /// A tree that keeps no level: every node is recomputed (for a tree whose root sits at or
    /// below the piece level, hashed in one call).
    pub fn empty(shape: TreeShape) -> Self {
        Self::new(shape, shape.top(), Vec::new())
    }

    /// The tree whose nodes at `level` (below the root) are `nodes`, with the levels above merged
    /// from them, and its root.
    ///
    /// # Panics
    /// When `level` is not below the root or `nodes` is not that level's length.
    pub fn from_level(shape: TreeShape, level: u32, nodes: Vec<ChainingValue>) -> (Self, [u8; 32]) {
        assert!(level < shape.top(), "the root is merged with its own flag");
        assert_eq!(
            Some(nodes.len() as u64),
            shape.level_len(level),
            "one level's nodes"
        );
        let mut levels = vec![nodes];
        for _ in level + 1..shape.top() {
            let below = levels.last().expect("the first level is there");
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
        let [left, right] = levels.last().expect("the first level is there")[..] else {
            unreachable!("the level below the root has two nodes")
        };
        (Self::new(shape, level, levels), root_hash(&left, &right))
    }

    /// The tree's shape.
    pub fn shape(&self) -> &TreeShape {
        &self.shape
    }

    /// Bytes held by the stored chaining values.
    pub(crate) fn stored_bytes(&self) -> usize {
        self.levels
            .iter()
            .map(|level| size_of_val(level.as_slice()))
            .sum()
    }

    /// Chaining value of the non-root node `(h, i)`; `codeword` is the committed bytes.
    pub fn node_cv(&self, h: u32, i: u64, codeword: &[u8]) -> ChainingValue {
        self.node_cv_with(h, i, |start, end| {
            node_cv(start, &codeword[start as usize..end as usize])
        })
    }

    /// Chaining value of the non-root node `(h, i)`: stored, or `rehash(start, end)` of the
    /// node's bytes `[start, end)` below the stored levels.
    pub fn node_cv_with(
        &self,
        h: u32,
        i: u64,
        rehash: impl FnOnce(u64, u64) -> ChainingValue,
    ) -> ChainingValue {
        debug_assert!(h < self.shape.top());
        if h >= self.first_level {
            return self.levels[(h - self.first_level) as usize][i as usize];
        }
        let (start, end) = self
            .shape
            .node_bytes(h, i)
            .expect("a sibling is a node of the tree");
        rehash(start, end)
    }

    /// The opening of `chunks` of the bytes this tree was built over, whose BLAKE3 hash is
    /// `root`: the bytes of every chunk, in chunk order, and the sibling chaining values up to the
    /// root, in `ntt_verify`'s fold order (kept, or rehashed below the kept levels).
    /// `with_bytes(start, end, f)` calls `f` once with the bytes `[start, end)`.
    pub fn open_chunks(
        &self,
        chunks: &ChunkSet,
        root: [u8; 32],
        with_bytes: impl Fn(u64, u64, &mut dyn FnMut(&[u8])),
    ) -> (Vec<u8>, Vec<ChainingValue>) {
        let shape = self.shape;
        let total = chunks
            .byte_len(&shape)
            .expect("opened chunks lie within the tree");
        let mut chunk_bytes = Vec::with_capacity(total as usize);
        let mut leaves = Vec::with_capacity(chunks.count() as usize);
        for c in chunks.iter() {
            let (start, end) = shape.node_bytes(0, c).expect("an opened chunk is in the tree");
            with_bytes(start, end, &mut |bytes| {
                chunk_bytes.extend_from_slice(bytes);
                if shape.top() > 0 {
                    leaves.push((c, node_cv(start, bytes)));
                }
            });
        }
        let mut siblings = Vec::new();
        if shape.top() > 0 {
            let folded = fold_root(&shape, leaves, |h, i| {
                let cv = self.node_cv_with(h, i, |start, end| {
                    let mut cv = None;
                    with_bytes(start, end, &mut |bytes| cv = Some(node_cv(start, bytes)));
                    cv.expect("with_bytes calls its function")
                });
                siblings.push(cv);
                Ok::<_, std::convert::Infallible>(cv)
            });
            debug_assert_eq!(
                folded.ok().flatten(),
                Some(root),
                "the kept tree disagrees with its root"
            );
        }
        (chunk_bytes, siblings)
    }
}
