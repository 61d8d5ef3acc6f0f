//! The row-tree hasher: a [`RowSink`] that hashes each block of finished rows into its leaves
//! and its block's subtree, inside the task that finished them, while the rows are in cache.
//!
//! Blocks are aligned runs of `2^b` rows, so block `k` owns leaves `[k·2^b, (k+1)·2^b)` and,
//! at each level `h ≤ b`, nodes `[k·2^(b−h), (k+1)·2^(b−h))`: disjoint ranges that each block
//! writes alone (it claims its index first, so a block handed over twice is refused rather than
//! raced). The levels above the blocks are hashed after the encode, on the engine's pool.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ntt_runtime::ThreadPool;
use ntt_verify::Scheme;
use ntt_verify::row_hash::Digest;

use super::hash::RowHashFns;
use super::tree::RowTree;
use crate::commit::committer::CommitError;
use crate::shape::CodewordShape;
use crate::sink::{RowSink, RowSinkError};

/// One level's digests, written by blocks through a raw pointer (each block its own range).
#[derive(Debug)]
struct Level {
    digests: Vec<Digest>,
    ptr: *mut Digest,
}

// SAFETY: `ptr` points into `digests`' heap buffer, which never moves or reallocates while the
// level lives; blocks write disjoint ranges through it (each after claiming its block index
// exactly once), and the digests are read only after the encode has returned, which orders
// every write before the read.
unsafe impl Sync for Level {}
// SAFETY: as above; the pointer is only an alias of the owned buffer.
unsafe impl Send for Level {}

impl Level {
    /// A level of `len` digests, or `None` when the allocator refuses it.
    fn try_new(len: usize) -> Option<Self> {
        let mut digests = zeroed_digests(len)?;
        let ptr = digests.as_mut_ptr();
        Some(Self { digests, ptr })
    }

    /// The digests `[start, start + len)`, for writing.
    ///
    /// # Safety
    /// The range is within the level and no other reference to it exists while the returned
    /// slice lives (the caller's block claimed it).
    #[expect(clippy::mut_from_ref, reason = "disjoint ranges, claimed once per block")]
    unsafe fn range_mut(&self, start: usize, len: usize) -> &mut [Digest] {
        debug_assert!(start + len <= self.digests.len());
        // SAFETY: `start ≤ len` of the level's buffer (the caller's contract), so the offset
        // pointer stays within (or one past) the allocation.
        let first = unsafe { self.ptr.add(start) };
        // SAFETY: `[start, start + len)` is within the buffer, initialized (zeroed at creation),
        // and no other reference to it exists while the slice lives (the caller's contract).
        unsafe { std::slice::from_raw_parts_mut(first, len) }
    }
}

/// `len` zeroed digests, or `None` when the allocator refuses them. Zeroed by the allocator, as
/// `vec![[0; 32]; len]` is: fresh pages come zeroed from the OS, so nothing is written here and
/// each page is first touched by the worker that hashes into it.
fn zeroed_digests(len: usize) -> Option<Vec<Digest>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<Digest>(len).ok()?;
    // SAFETY: the layout has a non-zero size (`len > 0` digests of 32 bytes).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Digest>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `len` digests, which is
    // the layout a `Vec` of capacity `len` has; its `len` digests are initialized (all bytes
    // zero, a valid `[u8; 32]`).
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

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
    /// Levels `0..=log_block_rows` (0: the leaves).
    levels: Vec<Level>,
    /// Levels `log_block_rows + 1..=log_rows`, hashed by [`RowTreeHasher::finish`]; reserved
    /// with the others so that a tree the allocator refuses fails before the encode.
    upper: Vec<Vec<Digest>>,
    claimed: Box<[AtomicBool]>,
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
        let levels = (0..=log_block_rows)
            .map(|h| Level::try_new(level_len(h)?).ok_or_else(refused))
            .collect::<Result<_, _>>()?;
        let upper = (log_block_rows + 1..=log_rows)
            .map(|h| zeroed_digests(level_len(h)?).ok_or_else(refused))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            scheme,
            hash: RowHashFns::of_kind(scheme.hash()),
            shape,
            log_block_rows,
            levels,
            upper,
            claimed: (0..1usize << (log_rows - log_block_rows))
                .map(|_| AtomicBool::new(false))
                .collect(),
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
        let blocks = self.claimed.len();
        let absorbed = self.absorbed.load(Ordering::Acquire);
        if absorbed != blocks || self.refused.load(Ordering::Relaxed) {
            return Err(CommitError::IncompleteStream { absorbed, blocks });
        }
        let hash = self.hash;
        let mut levels: Vec<Vec<Digest>> = self.levels.into_iter().map(|l| l.digests).collect();
        for mut level in self.upper {
            let below = levels.last().expect("the leaves at least");
            debug_assert_eq!(level.len(), below.len() / 2);
            // Large levels go to the pool in runs of 4096 parents (256 KiB of children each).
            const RUN: usize = 4096;
            match pool {
                Some(pool) if level.len() > RUN => {
                    pool.chunks_mut(&mut level, RUN, |k, out, _| {
                        hash.hash_pairs(&below[2 * k * RUN..2 * (k * RUN + out.len())], out);
                    });
                }
                _ => hash.hash_pairs(below, &mut level),
            }
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
        let block_rows = 1usize << b;
        let k = first_row >> b;
        let aligned = first_row.is_multiple_of(block_rows) && rows.len() == block_rows * self.shape.lanes();
        if !aligned || k >= self.claimed.len() || self.claimed[k].swap(true, Ordering::AcqRel) {
            // Not a block of this codeword, or one handed over twice: the commit fails.
            self.refused.store(true, Ordering::Relaxed);
            return Err(RowSinkError::new(format!(
                "rows {first_row}.. ({} words) are not an unclaimed block of 2^{b} rows of this codeword",
                rows.len()
            )));
        }
        // SAFETY: block `k` was claimed just now, once, so its leaf range is ours alone.
        let mut below = unsafe { self.levels[0].range_mut(first_row, block_rows) };
        self.hash.hash_rows(rows, below);
        for h in 1..=b as usize {
            // SAFETY: block `k` owns nodes `[k·2^(b−h), (k+1)·2^(b−h))` of level `h`.
            let out = unsafe { self.levels[h].range_mut(first_row >> h, block_rows >> h) };
            self.hash.hash_pairs(below, out);
            below = out;
        }
        self.absorbed.fetch_add(1, Ordering::Release);
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy_nanos.fetch_add(nanos, Ordering::Relaxed);
        Ok(())
    }
}
