//! The chaining values a prover keeps for openings.

use blake3::hazmat::ChainingValue;

use super::node::node_cv;
use ntt_verify::tree::TreeShape;

/// Chaining values of every node at level `first_level` and above (root excluded); the nodes
/// below are recomputed from the codeword when an opening needs them.
#[derive(Clone, Debug)]
pub(crate) struct ChainingTree {
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

    pub(crate) fn shape(&self) -> &TreeShape {
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
    pub(crate) fn node_cv(&self, h: u32, i: u64, codeword: &[u8]) -> ChainingValue {
        debug_assert!(h < self.shape.top());
        if h >= self.first_level {
            return self.levels[(h - self.first_level) as usize][i as usize];
        }
        let (start, end) = self
            .shape
            .node_bytes(h, i)
            .expect("a sibling is a node of the tree");
        node_cv(start, &codeword[start as usize..end as usize])
    }
}
