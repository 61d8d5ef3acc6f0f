//! Row trees as a [`CommitmentTree`]: one leaf per codeword row, hashed by the encoder's tasks
//! block by block, the levels above the blocks on the pool, every level kept for openings.

use std::time::{Duration, Instant};

use ntt_runtime::ThreadPool;
use ntt_verify::row_hash::Digest;
use ntt_verify::{CodewordShape, Commitment, Proof, Scheme};

use super::CommitmentTree;
use crate::commit::committer::CommitError;
use crate::commit::rows::{RowTree, RowTreeHasher, row_tree_bytes};

/// The row tree of a scheme (its hash and cap height).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowTreeOf {
    scheme: Scheme,
}

impl RowTreeOf {
    /// The row tree `scheme` names.
    pub(crate) fn new(scheme: Scheme) -> Self {
        Self { scheme }
    }
}

impl CommitmentTree for RowTreeOf {
    type Hasher = RowTreeHasher;
    type Kept = RowTree;

    fn memory_bytes(self, shape: CodewordShape) -> u64 {
        row_tree_bytes(shape)
    }

    fn hasher(self, shape: CodewordShape, log_block_rows: u32) -> Result<RowTreeHasher, CommitError> {
        RowTreeHasher::new(self.scheme, shape, log_block_rows)
    }

    fn finish(
        self,
        hasher: RowTreeHasher,
        pool: Option<&ThreadPool>,
    ) -> Result<(Duration, Vec<Digest>, RowTree), CommitError> {
        let (busy, upper) = (hasher.busy_time(), Instant::now());
        let (cap, tree) = hasher.finish(pool)?;
        // The levels above the blocks keep every worker of the pool busy while they run.
        let workers = pool.map_or(1, |p| p.num_workers().max(1)) as u32;
        Ok((busy + upper.elapsed() * workers, cap, tree))
    }

    fn open(tree: &RowTree, _commitment: &Commitment, codeword: &[u64], rows: &[usize]) -> Proof {
        Proof::Rows(tree.open(codeword, rows))
    }

    fn kept_bytes(tree: &RowTree) -> usize {
        tree.stored_bytes()
    }
}
