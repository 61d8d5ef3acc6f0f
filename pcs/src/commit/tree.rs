//! The chaining values a prover keeps for openings: every node of the chunk tree from one level
//! up to the level below the root. The nodes below are recomputed from the bytes when an opening
//! needs them.

use blake3::hazmat::ChainingValue;

use super::pieces::node_cv;
use ntt_verify::tree::{TreeShape, parent_cv, root_hash};

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
}
