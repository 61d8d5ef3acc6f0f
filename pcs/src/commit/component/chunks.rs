//! The BLAKE3 chunk tree as a [`CommitmentTree`]: the streaming hasher feeds it, the prover
//! keeps chaining values from a stored level up, and an opening carries the opened rows' 1 KiB
//! chunks with the sibling chaining values up to the root.

use std::time::Duration;

use ntt_runtime::ThreadPool;
use ntt_verify::row_hash::Digest;
use ntt_verify::tree::ChunkSet;
use ntt_verify::{CodewordShape, Commitment, Opening, Proof};

use super::CommitmentTree;
use crate::commit::committer::CommitError;
use crate::commit::node::le_bytes;
use crate::commit::stream::StreamingHasher;
use crate::commit::tree::ChainingTree;

/// The BLAKE3 chunk tree, its chaining values kept from `stored_level` up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkTree {
    stored_level: u32,
}

impl ChunkTree {
    /// The tree whose prover keeps the chaining values of nodes of `2^stored_level` chunks and up.
    pub(crate) fn new(stored_level: u32) -> Self {
        Self { stored_level }
    }
}

impl CommitmentTree for ChunkTree {
    type Hasher = StreamingHasher;
    type Kept = ChainingTree;

    /// The streaming hasher checks its own state against the memory when it is large.
    fn memory_bytes(self, _shape: CodewordShape) -> u64 {
        0
    }

    fn hasher(self, shape: CodewordShape, log_block_rows: u32) -> Result<StreamingHasher, CommitError> {
        StreamingHasher::with_piece_level(shape, log_block_rows, self.stored_level)
    }

    fn finish(
        self,
        hasher: StreamingHasher,
        _pool: Option<&ThreadPool>,
    ) -> Result<(Duration, Vec<Digest>, ChainingTree), CommitError> {
        let busy = hasher.busy_time();
        let (root, tree) = hasher.into_tree(self.stored_level)?;
        Ok((busy, vec![root], tree))
    }

    fn open(tree: &ChainingTree, commitment: &Commitment, codeword: &[u64], rows: &[usize]) -> Proof {
        Proof::Chunks(open_chunks(tree, commitment, codeword, rows))
    }

    fn kept_bytes(tree: &ChainingTree) -> usize {
        tree.stored_bytes()
    }
}

/// The chunks that hold `rows` and the sibling chaining values up to the root: the nodes at the
/// stored levels from `tree`, the ones below rehashed from `codeword`.
fn open_chunks(tree: &ChainingTree, commitment: &Commitment, codeword: &[u64], rows: &[usize]) -> Opening {
    let bytes = le_bytes(codeword);
    let row_bytes = 8 * commitment.lanes() as u64;
    let chunks = ChunkSet::of_rows(row_bytes, rows.iter().map(|&r| r as u64))
        .expect("rows in range end within the codeword");
    let (chunk_bytes, siblings) = tree.open_chunks(&chunks, commitment.root(), |start, end, f| {
        f(&bytes[start as usize..end as usize])
    });
    Opening::new(
        commitment.log_rows(),
        commitment.lanes() as u64,
        rows.iter().map(|&r| r as u64).collect(),
        chunk_bytes,
        siblings,
    )
}
