//! What a prover keeps after a commit, and how it opens rows.

use std::sync::Weak;
use std::time::Duration;

use super::buffer::BufferPool;
use super::node::le_bytes;
use super::pieces::node_cv;
use super::rows::RowTree;
use super::tree::ChainingTree;
use ntt_runtime::pages::PageUse;
use ntt_runtime::touch::WorkerTouch;
use ntt_verify::Commitment;
use ntt_verify::tree::{ChunkSet, fold_root};
use ntt_verify::{Opening, Proof, RowOpening, TreeKind};

/// Why an opening could not be made.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenError {
    /// An opening must name at least one row.
    #[error("no rows to open")]
    NoRows,
    /// A row index is not a row of the codeword.
    #[error("row {row} is out of range: the codeword has {rows} rows")]
    RowOutOfRange {
        /// The row asked for.
        row: usize,
        /// Rows of the codeword.
        rows: usize,
    },
    /// The codeword was committed with another tree than the opening asked for.
    #[error("the codeword was committed with the {committed} tree; open it with `open`")]
    WrongTree {
        /// The committed tree.
        committed: TreeKind,
    },
}

/// Stage times of one commit.
///
/// Hashing is fused into the encode (each block is hashed by the task that finished it), so the
/// two stages overlap in wall time. They are attributed as follows, so that
/// `allocate + encode + hash = total`:
/// `allocate` = wall time of getting the codeword buffer (from the pool, or allocated, advised
/// and faulted in by the workers: the first touch of its pages); `hash` = time spent inside the
/// row sink (hashing, stitching, merging) summed over all workers ÷ the number of workers;
/// `encode` = `total − allocate − hash`; `total` = wall time of the whole commit, from the call
/// to the returned commitment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitTimings {
    /// Wall time of getting the codeword buffer, first touch of fresh pages included.
    pub allocate: Duration,
    /// Wall time attributed neither to the buffer nor to hashing.
    pub encode: Duration,
    /// Hashing time per worker.
    pub hash: Duration,
    /// Wall time of the commit.
    pub total: Duration,
}

/// The tree a prover keeps for openings.
#[derive(Clone, Debug)]
pub(crate) enum ProverTree {
    /// The BLAKE3 chunk tree's stored chaining values.
    Chunks(ChainingTree),
    /// Every level of the row tree.
    Rows(RowTree),
}

/// A committed codeword with the chaining values that openings need.
///
/// Memory: the codeword plus the chaining values of every tree node of 2^6 chunks (64 KiB) and
/// larger by default, i.e. about 1/1024 of the codeword (32 bytes per 64 KiB, doubled for the
/// levels above); see [`Committer::with_stored_level`](super::Committer::with_stored_level).
/// Openings recompute the nodes below from the codeword (at most 64 KiB of hashing per opened
/// node). Dropping it hands the codeword buffer to the pool of the committer that made it (if
/// that committer still exists and the pool has room).
#[derive(Clone, Debug)]
pub struct ProverData {
    pub(crate) codeword: Vec<u64>,
    pub(crate) commitment: Commitment,
    pub(crate) tree: ProverTree,
    pub(crate) timings: CommitTimings,
    /// What each worker spent faulting in a fresh codeword buffer (empty when reused).
    pub(crate) first_touch: Vec<WorkerTouch>,
    /// The pages a fresh codeword buffer was asked for (`None` when reused).
    pub(crate) pages: Option<PageUse>,
    /// The committer's buffer pool.
    pub(crate) recycle: Weak<BufferPool>,
}

impl Drop for ProverData {
    fn drop(&mut self) {
        if let Some(pool) = self.recycle.upgrade() {
            pool.give(std::mem::take(&mut self.codeword));
        }
    }
}

impl ProverData {
    /// The codeword, row-major (`rows × lanes` words).
    pub fn codeword(&self) -> &[u64] {
        &self.codeword
    }

    /// The commitment to [`codeword`](Self::codeword).
    pub fn commitment(&self) -> &Commitment {
        &self.commitment
    }

    /// Stage times of the commit that made this.
    pub fn timings(&self) -> CommitTimings {
        self.timings
    }

    /// What each worker spent faulting in the codeword buffer before the encode, by worker:
    /// empty when the commit reused a buffer whose pages were present already.
    pub fn first_touch(&self) -> &[WorkerTouch] {
        &self.first_touch
    }

    /// The pages the codeword buffer was asked for when the commit faulted it in (huge pages
    /// while they came fast, under the default `NTT_HUGE_PAGES=auto`); `None` when the commit
    /// reused a buffer.
    pub fn pages(&self) -> Option<PageUse> {
        self.pages
    }

    /// Bytes held besides the codeword (the stored chaining values, or the row tree's digests:
    /// about 64 bytes per row).
    pub fn tree_bytes(&self) -> usize {
        match &self.tree {
            ProverTree::Chunks(tree) => tree.stored_bytes(),
            ProverTree::Rows(tree) => tree.stored_bytes(),
        }
    }

    /// Opens `rows`: [`open`](Self::open).
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    #[deprecated(note = "use `open`, which opens either tree")]
    pub fn prove(&self, rows: &[usize]) -> Result<Proof, OpenError> {
        self.open(rows)
    }

    /// Opens `rows` (any order, repeats allowed) of a codeword committed with a row tree: the
    /// distinct rows and the sibling digests up to the cap, each sent once.
    ///
    /// # Errors
    /// [`OpenError::NoRows`], [`OpenError::RowOutOfRange`], or [`OpenError::WrongTree`] for a
    /// codeword committed with the chunk tree.
    #[deprecated(note = "use `open`, which opens either tree and returns a `Proof`")]
    pub fn open_rows(&self, rows: &[usize]) -> Result<RowOpening, OpenError> {
        match self.open(rows)? {
            Proof::Rows(opening) => Ok(opening),
            _ => Err(OpenError::WrongTree {
                committed: self.commitment.scheme().tree(),
            }),
        }
    }

    fn check_rows(&self, rows: &[usize]) -> Result<(), OpenError> {
        let n_rows = self.codeword.len() / self.commitment.lanes();
        if rows.is_empty() {
            return Err(OpenError::NoRows);
        }
        if let Some(&row) = rows.iter().find(|&&row| row >= n_rows) {
            return Err(OpenError::RowOutOfRange { row, rows: n_rows });
        }
        Ok(())
    }

    /// Hands the codeword buffer back, to be reused by the next commit.
    pub fn into_codeword(mut self) -> Vec<u64> {
        std::mem::take(&mut self.codeword)
    }

    /// Opens `rows` (any order, repeats allowed) with whichever tree the codeword was committed
    /// with: for the chunk tree, the chunks that hold them and the sibling chaining values up to
    /// the root; for a row tree, the distinct rows and the sibling digests up to the cap, each
    /// sent once. [`verify`](crate::verify) checks either.
    ///
    /// # Errors
    /// [`OpenError::NoRows`] for an empty list, [`OpenError::RowOutOfRange`] for an index past
    /// the last row.
    pub fn open(&self, rows: &[usize]) -> Result<Proof, OpenError> {
        let _span = tracing::info_span!("open", rows = rows.len()).entered();
        self.check_rows(rows)?;
        Ok(match &self.tree {
            ProverTree::Chunks(tree) => Proof::Chunks(self.open_chunks(tree, rows)),
            ProverTree::Rows(tree) => Proof::Rows(tree.open(&self.codeword, rows)),
        })
    }

    /// [`open`](Self::open) of the chunk tree `tree`, for rows in range.
    fn open_chunks(&self, tree: &ChainingTree, rows: &[usize]) -> Opening {
        let shape = *tree.shape();
        let bytes = le_bytes(&self.codeword);
        let row_bytes = 8 * self.commitment.lanes() as u64;
        let chunks = ChunkSet::of_rows(row_bytes, rows.iter().map(|&r| r as u64))
            .expect("rows in range end within the codeword");
        let total = chunks
            .byte_len(&shape)
            .expect("rows in range lie within the tree");
        let mut chunk_bytes = Vec::with_capacity(total as usize);
        let mut leaves = Vec::with_capacity(chunks.count() as usize);
        for c in chunks.iter() {
            let (start, end) = shape.node_bytes(0, c).expect("an opened chunk is in the tree");
            let chunk = &bytes[start as usize..end as usize];
            chunk_bytes.extend_from_slice(chunk);
            if shape.top() > 0 {
                leaves.push((c, node_cv(start, chunk)));
            }
        }
        let mut siblings = Vec::new();
        if shape.top() > 0 {
            let root = fold_root(&shape, leaves, |h, i| {
                let cv = tree.node_cv(h, i, &bytes);
                siblings.push(cv);
                Ok::<_, std::convert::Infallible>(cv)
            });
            debug_assert_eq!(
                root.ok().flatten(),
                Some(self.commitment.root()),
                "stored tree disagrees with the root"
            );
        }
        Opening::new(
            self.commitment.log_rows(),
            self.commitment.lanes() as u64,
            rows.iter().map(|&r| r as u64).collect(),
            chunk_bytes,
            siblings,
        )
    }
}
