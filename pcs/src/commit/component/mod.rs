//! The commitment tree as one component: what a commit builds over a codeword's rows, what the
//! prover keeps of it, and how that opens rows.
//!
//! After Plonky3's `Mmcs`: a tree is a type with associated types for its hasher (the encoder's
//! [`RowSink`]) and its kept tree, and the commit code is generic over it. The scheme is matched
//! once, in [`with_tree`]; nothing below it asks which tree it has. A new tree is one more
//! [`CommitmentTree`] impl and one more arm there; a new row-tree hash is one more
//! [`RowHash`](crate::RowHash).

mod chunks;
mod rows;

use std::fmt::Debug;
use std::time::Duration;

use ntt_runtime::ThreadPool;
use ntt_verify::row_hash::Digest;
use ntt_verify::{CodewordShape, Commitment, Proof, Scheme, TreeKind};

use super::committer::CommitError;
use crate::sink::RowSink;

pub(crate) use chunks::ChunkTree;
pub(crate) use rows::RowTreeOf;

/// A commitment tree, as a commit drives it: sized, fed block by block inside the encode,
/// finished into the committed digests and the tree the prover keeps, opened row by row.
pub(crate) trait CommitmentTree: Copy + 'static {
    /// Hashes each block of finished rows, in the encoder's task that finished it.
    type Hasher: RowSink;
    /// What the prover keeps to open rows.
    type Kept: Debug + Send + Sync + 'static;

    /// Bytes the tree needs beside the codeword, checked against the memory the machine offers
    /// before anything is allocated (0 for a tree that checks its own state).
    fn memory_bytes(self, shape: CodewordShape) -> u64;

    /// The hasher of a codeword of `shape`, fed in aligned blocks of `2^log_block_rows` rows.
    ///
    /// # Errors
    /// [`CommitError::BlockLargerThanCodeword`], or an allocation the allocator refuses.
    fn hasher(self, shape: CodewordShape, log_block_rows: u32) -> Result<Self::Hasher, CommitError>;

    /// The finished tree, once every block has been absorbed: the time its hashing kept the
    /// workers busy (summed over them), the committed digests (the root, or a cap) and the kept
    /// tree. Work left after the encode runs on `pool`, or on the calling thread without one.
    ///
    /// # Errors
    /// [`CommitError::IncompleteStream`] when blocks are missing.
    fn finish(
        self,
        hasher: Self::Hasher,
        pool: Option<&ThreadPool>,
    ) -> Result<(Duration, Vec<Digest>, Self::Kept), CommitError>;

    /// The proof of `rows` (not empty, each in range) of `codeword`, committed to by
    /// `commitment` with this tree.
    fn open(kept: &Self::Kept, commitment: &Commitment, codeword: &[u64], rows: &[usize]) -> Proof;

    /// Bytes the kept tree holds.
    fn kept_bytes(kept: &Self::Kept) -> usize;
}

/// What runs with the scheme's tree: [`with_tree`] calls [`run`](Self::run) with it.
pub(crate) trait WithTree {
    /// What the run gives back.
    type Output;
    /// Runs with `tree`.
    fn run<T: CommitmentTree>(self, tree: T) -> Self::Output;
}

/// Runs `job` with `scheme`'s tree (a chunk tree keeps its chaining values from
/// `stored_level` up): the one place a commit matches on the scheme.
pub(crate) fn with_tree<W: WithTree>(scheme: Scheme, stored_level: u32, job: W) -> W::Output {
    match scheme.tree() {
        TreeKind::Chunks => job.run(ChunkTree::new(stored_level)),
        TreeKind::Rows => job.run(RowTreeOf::new(scheme)),
    }
}

/// A kept tree whichever tree made it, as [`ProverData`](super::ProverData) holds it.
pub(crate) trait OpenTree: Debug + Send + Sync {
    /// As [`CommitmentTree::open`].
    fn open(&self, commitment: &Commitment, codeword: &[u64], rows: &[usize]) -> Proof;
    /// As [`CommitmentTree::kept_bytes`].
    fn kept_bytes(&self) -> usize;
}

/// The tree `T` kept.
pub(crate) struct Kept<T: CommitmentTree>(pub(crate) T::Kept);

impl<T: CommitmentTree> Debug for Kept<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: CommitmentTree> OpenTree for Kept<T> {
    fn open(&self, commitment: &Commitment, codeword: &[u64], rows: &[usize]) -> Proof {
        T::open(&self.0, commitment, codeword, rows)
    }

    fn kept_bytes(&self) -> usize {
        T::kept_bytes(&self.0)
    }
}
