//! The row-tree hasher: a [`RowSink`] that hashes each block of finished rows into its leaves
//! and its block's subtree, inside the task that finished them, while the rows are in cache.
//!
//! Blocks are aligned runs of `2^b` rows, so block `k` owns leaves `[k·2^b, (k+1)·2^b)` and,
//! at each level `h ≤ b`, nodes `[k·2^(b−h), (k+1)·2^(b−h))`: disjoint ranges that each block
//! writes alone (each level is a [`ClaimedSlots`] that hands a range out once, so a block handed
//! over twice is refused rather than raced). The levels above the blocks are hashed after the
//! encode, on the engine's pool, by the tree layers' [`compress_level`].

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ntt_runtime::ThreadPool;
use ntt_verify::Scheme;
use ntt_verify::row_hash::Digest;

use super::hash::RowHashFns;
use super::tree::RowTree;
use crate::claimed_slots::ClaimedSlots;
use crate::commit::committer::CommitError;
use crate::layers::compress_level;
use crate::shape::CodewordShape;
use crate::sink::{RowSink, RowSinkError};

/// Bytes of the digests a row tree over `shape`'s rows keeps: every level, leaves to root
/// (`2^(log_rows + 1) − 1` digests of 32 bytes, 64 bytes a row).
pub fn row_tree_bytes(shape: CodewordShape) -> u64 {
    ((2u64 << shape.log_rows()) - 1).saturating_mul(32)
}

/// Hashes a codeword's rows into its row tree as the encoder hands them over.
#[derive(Debug)]
pub(crate) struct RowTreeHasher {
    scheme: Scheme,
    hash: RowHashFns,
    shape: CodewordShape,
    log_block_rows: u32,
    /// Levels `0..=log_block_rows` (0: the leaves), each in blocks of its nodes of one block.
    levels: Vec<ClaimedSlots<Digest>>,
    /// Levels `log_block_rows + 1..=log_rows`, hashed by [`RowTreeHasher::finish`]; reserved
    /// with the others so that a tree the allocator refuses fails before the encode.
    upper: Vec<Vec<Digest>>,
    absorbed: AtomicUsize,
    refused: AtomicBool,
    busy_nanos: AtomicU64,
}

impl RowTreeHasher {
    /// A hasher for `shape`, taking aligned blocks of `2^log_block_rows` rows, with every
    /// level of the tree ([`row_tree_bytes`]) reserved.
    ///
    /// # Errors
    /// [`CommitError::BlockLargerThanCodeword`]; [`CommitError::TreeAllocation`] when the
    /// allocator refuses the tree.
    pub(crate) fn new(
        scheme: Scheme,
        shape: CodewordShape,
        log_block_rows: u32,
    ) -> Result<Self, CommitError> {
        let log_rows = shape.log_rows();
        if log_block_rows > log_rows {
            return Err(CommitError::BlockLargerThanCodeword {
                log_block_rows,
                log_rows,
            });
        }
        let refused = || CommitError::TreeAllocation {
            bytes: row_tree_bytes(shape),
        };
        let level_len = |h: u32| usize::try_from(1u64 << (log_rows - h)).map_err(|_| refused());
        let zeroed = |h: u32| -> Result<ClaimedSlots<Digest>, CommitError> {
            ClaimedSlots::try_zeroed(level_len(h)?).ok_or_else(refused)
        };
        let levels = (0..=log_block_rows)
            .map(|h| Ok(zeroed(h)?.with_block_len(1 << (log_block_rows - h))))
            .collect::<Result<_, CommitError>>()?;
        let upper = (log_block_rows + 1..=log_rows)
            .map(|h| Ok(zeroed(h)?.into_inner()))
            .collect::<Result<_, CommitError>>()?;
        Ok(Self {
            scheme,
            hash: RowHashFns::of_kind(scheme.hash()),
            shape,
            log_block_rows,
            levels,
            upper,
            absorbed: AtomicUsize::new(0),
            refused: AtomicBool::new(false),
            busy_nanos: AtomicU64::new(0),
        })
    }

    /// Time spent hashing inside [`absorb`](RowSink::absorb), summed over all workers.
    pub(crate) fn busy_time(&self) -> Duration {
        Duration::from_nanos(self.busy_nanos.load(Ordering::Relaxed))
    }

    /// Hashes the levels above the blocks on `pool` and returns the cap and the tree.
    pub(crate) fn finish(self, pool: Option<&ThreadPool>) -> Result<(Vec<Digest>, RowTree), CommitError> {
        let blocks = 1 << (self.shape.log_rows() - self.log_block_rows);
        let absorbed = self.absorbed.load(Ordering::Acquire);
        if absorbed != blocks || self.refused.load(Ordering::Relaxed) {
            return Err(CommitError::IncompleteStream { absorbed, blocks });
        }
        let mut levels: Vec<Vec<Digest>> = self.levels.into_iter().map(ClaimedSlots::into_inner).collect();
        for mut level in self.upper {
            let below = levels.last().expect("the leaves at least");
            debug_assert_eq!(level.len(), below.len() / 2);
            compress_level(self.hash.compress_fn(), below, &mut level, pool, |_, _| {});
            levels.push(level);
        }
        let tree = RowTree::new(self.scheme, self.shape, levels);
        Ok((tree.cap().to_vec(), tree))
    }
}

impl RowSink for RowTreeHasher {
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        let started = Instant::now();
        let b = self.log_block_rows;
        let lanes = self.shape.lanes();
        let leaves = if rows.len().is_multiple_of(lanes) {
            self.levels[0]
                .claim(first_row, rows.len() / lanes)
                .map_err(|e| e.to_string())
        } else {
            Err(format!("not whole rows of {lanes} words"))
        };
        let mut below = leaves.map_err(|why| {
            // Not a block of this codeword, or one handed over twice: the commit fails.
            self.refused.store(true, Ordering::Relaxed);
            RowSinkError::new(format!(
                "rows {first_row}.. ({} words) are not an unclaimed block of 2^{b} rows of this \
                 codeword: {why}",
                rows.len()
            ))
        })?;
        self.hash.hash_rows(rows, below);
        for h in 1..=b as usize {
            // The block owns nodes `[k·2^(b−h), (k+1)·2^(b−h))` of level `h`, claimed by no
            // other block since its leaves were claimed just now, once.
            let out = self.levels[h]
                .claim(first_row >> h, below.len() / 2)
                .expect("a block's nodes are its own once its leaves are");
            self.hash.hash_pairs(below, out);
            below = out;
        }
        self.absorbed.fetch_add(1, Ordering::Release);
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy_nanos.fetch_add(nanos, Ordering::Relaxed);
        Ok(())
    }
}
