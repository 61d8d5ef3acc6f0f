//! The streaming hasher: a [`RowSink`] that hashes each block of finished rows into the BLAKE3
//! tree of the codeword, inside the task that finished them.
//!
//! # How a block is hashed
//!
//! Block `k` covers codeword bytes `[k·B, (k+1)·B)` (`B` = block bytes). The tree is cut at the
//! *dense level* `d`: every node at level `d` and above gets a stored chaining value and (for
//! parents) an arrival counter. `d` is chosen so that a level-`d` node (2^d KiB) is no larger than
//! a block, so it contains at most one block boundary.
//!
//! ```text
//!            boundary p (not a multiple of 2^d KiB)
//!                 |
//!  ...  pure  | mixed node at level d |  pure  pure  pure  | mixed | ...
//!       block k-1 ··········|·························· block k ·····
//! ```
//!
//! * A *pure* node lies inside one block. The block hashes it in one call (`set_input_offset`,
//!   `finalize_non_root`), in aligned pieces of up to 2^6 chunks = 64 KiB (at least the 16 chunks
//!   BLAKE3's AVX-512 path hashes at once, and large enough that BLAKE3 batches most of the
//!   piece's parent nodes too), and delivers each piece's chaining value to the dense tree.
//! * A *mixed* node straddles a boundary. Its part below level `d` is stitched in the boundary's
//!   slot: every mixed node there has a two-way rendezvous (the second arrival merges), and a chunk
//!   split by the boundary is staged word by word (the arrival that completes its byte count hashes
//!   it). Each side contributes its pure halves of the mixed nodes; the slot delivers the level-`d`
//!   node to the dense tree.
//! * In the dense tree, a parent is merged by whichever child arrives second (`fetch_add` on its
//!   counter, acquire-release, so the first child's chaining value is visible). The root is merged
//!   with the ROOT flag. A node without a right child is its left child (promoted), so it is
//!   passed up without a counter.
//!
//! Blocks smaller than a chunk use per-chunk staging slots instead (any number of blocks may meet
//! in one chunk), and a single-chunk codeword is finalized as the root directly.
//!
//! No locks: chaining values and staged words are relaxed atomics ordered by the counters, so the
//! hot path is a few uncontended atomic operations per 64 KiB.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use blake3::hazmat::ChainingValue;

use super::committer::CommitError;
use super::node::{AtomicCv, le_bytes};
use super::pieces::{DEFAULT_PIECE_LEVEL, node_cv, pieces};
use super::tree::ChainingTree;
use crate::shape::memory;
use crate::shape::{CodewordShape, ShapeError};
use crate::sink::{RowSink, RowSinkError};
use ntt_verify::tree::{CHUNK_BYTES, TreeShape, parent_cv, root_hash};

/// States up to this size are allocated without asking the system how much memory it has.
const CHECKED_STATE_BYTES: u64 = 64 << 20;

/// `n` values made by `make`, in a box reserved fallibly: the allocator's refusal is
/// [`CommitError::HasherAllocation`] of the whole state's `bytes`.
fn filled<T>(n: u64, bytes: u64, make: impl FnMut() -> T) -> Result<Box<[T]>, CommitError> {
    let refused = || CommitError::HasherAllocation { bytes };
    let n = usize::try_from(n).map_err(|_| refused())?;
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| refused())?;
    out.resize_with(n, make);
    Ok(out.into_boxed_slice())
}

/// Words in a staged chunk.
const CHUNK_WORDS: usize = (CHUNK_BYTES / 8) as usize;

/// How straddling chunks and nodes are stitched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stitch {
    /// Blocks are smaller than a chunk (or the codeword is one chunk): one staging slot per chunk,
    /// dense level 0. The slots hold a staged copy of the whole codeword, so this costs its size
    /// again in memory, which only blocks under 1 KiB make necessary.
    PerChunk,
    /// Blocks are at least a chunk: one slot per block boundary that is not a multiple of the
    /// dense node size.
    PerBoundary,
}

/// A two-way meeting point for the children of one mixed node.
#[derive(Debug, Default)]
struct Rendezvous {
    arrivals: AtomicU8,
    cvs: [AtomicCv; 2],
}

impl Rendezvous {
    /// Offers the chaining value of child `side` (0 left, 1 right); the second arrival gets the
    /// parent's.
    fn offer(&self, side: usize, cv: &ChainingValue) -> Option<ChainingValue> {
        self.cvs[side].store(cv);
        if self.arrivals.fetch_add(1, Ordering::AcqRel) == 0 {
            return None;
        }
        Some(parent_cv(&self.cvs[0].load(), &self.cvs[1].load()))
    }
}

/// Stitching state of one block boundary (or, for sub-chunk blocks, of one chunk).
#[derive(Debug)]
struct Slot {
    /// The straddling chunk's words; empty when no boundary splits a chunk.
    staging: Box<[AtomicU64]>,
    staged_bytes: AtomicU64,
    /// Rendezvous of the mixed nodes at levels `1..=dense_level` (index `h - 1`).
    levels: Box<[Rendezvous]>,
}

impl Slot {
    fn new(staged: bool, dense_level: u32) -> Self {
        let words = if staged { CHUNK_WORDS } else { 0 };
        Self {
            staging: (0..words).map(|_| AtomicU64::new(0)).collect(),
            staged_bytes: AtomicU64::new(0),
            levels: (0..dense_level).map(|_| Rendezvous::default()).collect(),
        }
    }
}

/// Hashes a codeword of `2^log_rows` rows × `lanes` words into its BLAKE3 root while it streams
/// past in aligned blocks of `2^log_block_rows` rows, in any order, from any thread.
///
/// The root is the plain `blake3::hash` of the codeword bytes (rows in order, lanes in order,
/// words little-endian). Use it as the [`RowSink`] of an encode, then [`finish`](Self::finish).
///
/// ```
/// use ntt_pcs::StreamingHasher;
/// use ntt_pcs::{CodewordShape, RowSink};
///
/// let (log_rows, lanes, log_block_rows) = (6, 5, 2);
/// let codeword: Vec<u64> = (0..(lanes << log_rows) as u64).map(|w| w * 0x9e37_79b9).collect();
/// let hasher = StreamingHasher::new(CodewordShape::new(log_rows, lanes)?, log_block_rows)?;
/// let block_words = lanes << log_block_rows;
/// for (k, block) in codeword.chunks(block_words).enumerate().rev() {
///     hasher.absorb(k << log_block_rows, block)?;
/// }
/// let bytes: Vec<u8> = codeword.iter().flat_map(|w| w.to_le_bytes()).collect();
/// assert_eq!(hasher.finish()?, *blake3::hash(&bytes).as_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct StreamingHasher {
    shape: TreeShape,
    lanes: usize,
    log_rows: u32,
    log_block_rows: u32,
    row_bytes: u64,
    block_bytes: u64,
    stitch: Stitch,
    dense_level: u32,
    piece_level: u32,
    /// Chaining values of levels `dense_level..top` (index `h - dense_level`).
    dense: Vec<Box<[AtomicCv]>>,
    /// Child arrivals of the parents at levels `dense_level + 1..=top` (index `h - dense_level - 1`).
    arrivals: Vec<Box<[AtomicU8]>>,
    slots: Box<[Slot]>,
    seen: Box<[AtomicBool]>,
    absorbed: AtomicUsize,
    root: OnceLock<[u8; 32]>,
    busy_nanos: AtomicU64,
}

impl StreamingHasher {
    /// A hasher for a codeword of this shape, fed in blocks of `2^log_block_rows` rows.
    ///
    /// # Errors
    /// [`CommitError::BlockLargerThanCodeword`], [`ShapeError::Unaddressable`] for a codeword
    /// larger than this host can address, [`ShapeError::ExceedsMemory`] when the hasher's own
    /// state (at most about 1/32 of the codeword for blocks of a chunk or more, a copy of it for smaller
    /// ones) does not fit in the memory available, or [`CommitError::HasherAllocation`] when
    /// the allocator refuses it.
    pub fn new(codeword: CodewordShape, log_block_rows: u32) -> Result<Self, CommitError> {
        Self::with_piece_level(codeword, log_block_rows, DEFAULT_PIECE_LEVEL)
    }

    /// As [`new`](Self::new), hashing pure subtrees of up to `2^piece_level` chunks per call
    /// (and so storing chaining values from that level up). Larger pieces leave more of the
    /// tree's parent nodes to BLAKE3's batched SIMD path; smaller ones keep finer chaining values.
    ///
    /// # Errors
    /// As for [`new`](Self::new).
    pub fn with_piece_level(
        codeword: CodewordShape,
        log_block_rows: u32,
        piece_level: u32,
    ) -> Result<Self, CommitError> {
        let (log_rows, lanes) = (codeword.log_rows(), codeword.lanes());
        if log_block_rows > log_rows {
            return Err(CommitError::BlockLargerThanCodeword {
                log_block_rows,
                log_rows,
            });
        }
        let len = codeword.bytes();
        if usize::try_from(len).is_err() {
            return Err(ShapeError::Unaddressable { shape: codeword }.into());
        }
        let row_bytes = codeword.row_bytes();
        let shape = TreeShape::new(len).expect("a codeword has at least one byte");
        let block_bytes = row_bytes << log_block_rows;
        let blocks = 1u64 << (log_rows - log_block_rows);
        let top = shape.top();

        let (stitch, dense_level) = if top == 0 || block_bytes < CHUNK_BYTES {
            (Stitch::PerChunk, 0)
        } else {
            let fits = (block_bytes / CHUNK_BYTES).ilog2();
            (Stitch::PerBoundary, fits.min(piece_level).min(top - 1))
        };
        let piece_level = piece_level.min(top.saturating_sub(1));
        let (slot_count, staged) = match stitch {
            Stitch::PerChunk => (shape.chunks(), true),
            Stitch::PerBoundary if !block_bytes.is_multiple_of(CHUNK_BYTES << dense_level) => {
                (blocks - 1, !block_bytes.is_multiple_of(CHUNK_BYTES))
            }
            Stitch::PerBoundary => (0, false),
        };
        let level_len = |h| shape.level_len(h).expect("a level of the tree");
        let dense_nodes: u64 = (dense_level..top).map(level_len).sum();
        let parents: u64 = (dense_level + 1..=top).map(level_len).sum();
        let slot_bytes = size_of::<Slot>() as u128
            + if staged { CHUNK_BYTES as u128 } else { 0 }
            + u128::from(dense_level) * size_of::<Rendezvous>() as u128;
        let state = u128::from(slot_count) * slot_bytes
            + u128::from(dense_nodes) * size_of::<AtomicCv>() as u128
            + u128::from(parents) * size_of::<AtomicU8>() as u128
            + u128::from(blocks) * size_of::<AtomicBool>() as u128;
        let bytes = u64::try_from(state).unwrap_or(u64::MAX);
        if bytes > isize::MAX as u64 {
            return Err(CommitError::HasherAllocation { bytes });
        }
        // Every byte of the state is written as it is made: refuse what the machine cannot hold
        // rather than have the kernel kill the process halfway. Small states skip the check.
        if bytes > CHECKED_STATE_BYTES {
            memory::ensure_available("the streaming hasher's state", bytes)?;
        }
        let slots = filled(slot_count, bytes, || Slot::new(staged, dense_level))?;
        let mut dense = Vec::with_capacity((top - dense_level) as usize);
        for h in dense_level..top {
            dense.push(filled(level_len(h), bytes, AtomicCv::default)?);
        }
        let mut arrivals = Vec::with_capacity((top - dense_level) as usize);
        for h in dense_level + 1..=top {
            arrivals.push(filled(level_len(h), bytes, AtomicU8::default)?);
        }
        let seen = filled(blocks, bytes, AtomicBool::default)?;
        Ok(Self {
            shape,
            lanes,
            log_rows,
            log_block_rows,
            row_bytes,
            block_bytes,
            stitch,
            dense_level,
            piece_level,
            dense,
            arrivals,
            slots,
            seen,
            absorbed: AtomicUsize::new(0),
            root: OnceLock::new(),
            busy_nanos: AtomicU64::new(0),
        })
    }

    /// Rows per block, as a base-2 log.
    pub fn log_block_rows(&self) -> u32 {
        self.log_block_rows
    }

    /// The root, once every block has been absorbed.
    ///
    /// # Errors
    /// [`CommitError::IncompleteStream`] when some block has not been absorbed.
    pub fn finish(&self) -> Result<[u8; 32], CommitError> {
        let absorbed = self.absorbed.load(Ordering::Acquire);
        let blocks = self.seen.len();
        match self.root.get() {
            Some(root) if absorbed == blocks => Ok(*root),
            _ => Err(CommitError::IncompleteStream { absorbed, blocks }),
        }
    }

    /// Time spent inside [`RowSink::absorb`] (hashing, stitching and merging), summed over all
    /// the threads that called it.
    pub fn busy_time(&self) -> Duration {
        Duration::from_nanos(self.busy_nanos.load(Ordering::Relaxed))
    }

    /// The root and the chaining values of levels `keep_level` and above.
    pub(crate) fn into_tree(self, keep_level: u32) -> Result<([u8; 32], ChainingTree), CommitError> {
        let root = self.finish()?;
        // Pieces are hashed whole up to `piece_level`, so only the levels from there up are complete.
        let first = keep_level.max(self.piece_level).min(self.shape.top());
        let levels = self
            .dense
            .into_iter()
            .skip((first - self.dense_level) as usize)
            .map(|level| level.iter().map(AtomicCv::load).collect())
            .collect();
        Ok((root, ChainingTree::new(self.shape, first, levels)))
    }

    /// Claims block `first_row / block_rows`, refusing a block that breaks the [`RowSink`]
    /// contract (nothing of it is hashed then).
    fn claim_block(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        let block_rows = 1usize << self.log_block_rows;
        if !first_row.is_multiple_of(block_rows) || rows.len() != block_rows * self.lanes {
            return Err(RowSinkError::new(format!(
                "block at row {first_row} with {} words, expected aligned blocks of {} rows × {} lanes",
                rows.len(),
                block_rows,
                self.lanes
            )));
        }
        let block = first_row >> self.log_block_rows;
        if block >= self.seen.len() {
            return Err(RowSinkError::new(format!(
                "block at row {first_row} past the codeword's 2^{} rows",
                self.log_rows
            )));
        }
        if self.seen[block].swap(true, Ordering::Relaxed) {
            return Err(RowSinkError::new(format!(
                "block at row {first_row} handed over twice"
            )));
        }
        Ok(())
    }

    /// Hashes the pure node `(h, i)` whose bytes are `bytes` and delivers it.
    fn hash_and_deliver(&self, h: u32, i: u64, bytes: &[u8]) {
        let (start, _) = self.shape.node_bytes(h, i).expect("a node of the tree");
        let cv = node_cv(start, bytes);
        // A clipped node below the dense level stands for the promoted dense node above it.
        let level = h.max(self.dense_level);
        self.deliver(level, (i << h) >> level, cv);
    }

    /// Stores the finished node `(h, i)` (`h ≥ dense_level`) and merges upwards while this task
    /// is the second child to arrive.
    fn deliver(&self, mut h: u32, mut i: u64, mut cv: ChainingValue) {
        let top = self.shape.top();
        loop {
            debug_assert!(h < top);
            self.dense[(h - self.dense_level) as usize][i as usize].store(&cv);
            let parent = i / 2;
            if self
                .shape
                .is_promoted(h + 1, parent)
                .expect("a parent in the tree")
            {
                (h, i) = (h + 1, parent);
                continue;
            }
            let counter = &self.arrivals[(h - self.dense_level) as usize][parent as usize];
            if counter.fetch_add(1, Ordering::AcqRel) == 0 {
                return;
            }
            let level = &self.dense[(h - self.dense_level) as usize];
            let (left, right) = (
                level[2 * parent as usize].load(),
                level[2 * parent as usize + 1].load(),
            );
            if h + 1 == top {
                let _span = tracing::trace_span!("merge", node = "root").entered();
                self.root
                    .set(root_hash(&left, &right))
                    .expect("the root is merged once");
                return;
            }
            (h, i, cv) = (h + 1, parent, parent_cv(&left, &right));
        }
    }

    /// Hashes the pure byte range `[start, end)` of a block whose bytes begin at `block_start`.
    /// `start` is a multiple of the dense node size; `end` is too, or is the codeword's end.
    fn hash_pure(&self, block_start: u64, block: &[u8], start: u64, end: u64) {
        let (first, end_chunk) = (start / CHUNK_BYTES, end.div_ceil(CHUNK_BYTES));
        for (h, i) in pieces(&self.shape, self.piece_level, first, end_chunk) {
            let (a, b) = self.shape.node_bytes(h, i).expect("a node of the tree");
            self.hash_and_deliver(
                h,
                i,
                &block[(a - block_start) as usize..(b - block_start) as usize],
            );
        }
    }

    /// Copies `bytes` (codeword bytes from `at`) into the staging of the chunk at `chunk_start`;
    /// returns the whole chunk once this call completes it.
    fn stage(&self, slot: &Slot, chunk_start: u64, at: u64, bytes: &[u8]) -> Option<([u8; 1024], usize)> {
        let chunk_len = (self.shape.len() - chunk_start).min(CHUNK_BYTES);
        let first_word = ((at - chunk_start) / 8) as usize;
        for (word, le) in slot.staging[first_word..].iter().zip(bytes.chunks_exact(8)) {
            word.store(
                u64::from_le_bytes(le.try_into().expect("8 bytes")),
                Ordering::Relaxed,
            );
        }
        let n = bytes.len() as u64;
        if slot.staged_bytes.fetch_add(n, Ordering::AcqRel) + n != chunk_len {
            return None;
        }
        let mut chunk = [0u8; 1024];
        for (word, le) in slot.staging.iter().zip(chunk.chunks_exact_mut(8)) {
            le.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
        }
        Some((chunk, chunk_len as usize))
    }

    /// A finished chunk: the root if it is the whole codeword, else delivered.
    fn chunk_done(&self, c: u64, bytes: &[u8]) {
        if self.shape.top() == 0 {
            self.root
                .set(*blake3::hash(bytes).as_bytes())
                .expect("the root is hashed once");
        } else {
            self.hash_and_deliver(0, c, bytes);
        }
    }

    /// Blocks smaller than a chunk: each overlapping chunk is hashed if the block holds all of it,
    /// else staged.
    fn absorb_per_chunk(&self, s: u64, block: &[u8]) {
        let e = s + block.len() as u64;
        for c in s / CHUNK_BYTES..e.div_ceil(CHUNK_BYTES) {
            let (a, b) = self.shape.node_bytes(0, c).expect("a chunk of the tree");
            if a >= s && b <= e {
                self.chunk_done(c, &block[(a - s) as usize..(b - s) as usize]);
                continue;
            }
            let (from, to) = (a.max(s), b.min(e));
            let part = &block[(from - s) as usize..(to - s) as usize];
            if let Some((chunk, len)) = self.stage(&self.slots[c as usize], a, from, part) {
                self.chunk_done(c, &chunk[..len]);
            }
        }
    }

    /// Blocks of at least a chunk: stitch the mixed node at each unaligned end, hash the rest.
    fn absorb_per_boundary(&self, s: u64, block: &[u8]) {
        let e = s + block.len() as u64;
        let node = CHUNK_BYTES << self.dense_level;
        let len = self.shape.len();
        let (mut pure_start, mut pure_end) = (s, e);
        if !s.is_multiple_of(node) {
            self.stitch_side(s, 1, s, block);
            pure_start = s.next_multiple_of(node).min(len);
        }
        if e < len && !e.is_multiple_of(node) {
            self.stitch_side(e, 0, s, block);
            pure_end = e - e % node;
        }
        if pure_start < pure_end {
            self.hash_pure(s, block, pure_start, pure_end);
        }
    }

    /// Contributes one block's side of boundary `p` (side 1: the block starts at `p`; side 0: it
    /// ends there): the staged bytes of a split chunk and the pure halves of the mixed nodes.
    fn stitch_side(&self, p: u64, side: usize, s: u64, block: &[u8]) {
        let slot = &self.slots[(p / self.block_bytes - 1) as usize];
        let len = self.shape.len();
        let at = |from: u64, to: u64| &block[(from - s) as usize..(to - s) as usize];
        let lowest_mixed = if !p.is_multiple_of(CHUNK_BYTES) {
            0
        } else {
            (p / CHUNK_BYTES).trailing_zeros() + 1
        };
        if lowest_mixed == 0 {
            let a = p - p % CHUNK_BYTES;
            let staged = match side {
                1 => self.stage(slot, a, p, at(p, (a + CHUNK_BYTES).min(len))),
                _ => self.stage(slot, a, a, at(a, p)),
            };
            if let Some((chunk, chunk_len)) = staged {
                let cv = node_cv(a, &chunk[..chunk_len]);
                self.climb_slot(slot, p, 0, cv);
            }
        }
        for h in lowest_mixed.max(1)..=self.dense_level {
            let start = p - p % (CHUNK_BYTES << h);
            let mid = start + (CHUNK_BYTES << (h - 1));
            let cv = match side {
                1 if p <= mid && mid < len => node_cv(mid, at(mid, (start + (CHUNK_BYTES << h)).min(len))),
                0 if p >= mid => node_cv(start, at(start, mid)),
                _ => continue,
            };
            if let Some(parent) = slot.levels[(h - 1) as usize].offer(side, &cv) {
                self.climb_slot(slot, p, h, parent);
            }
        }
    }

    /// The mixed node at level `h` around boundary `p` is finished: pass it up through the
    /// slot's rendezvous, then into the dense tree.
    fn climb_slot(&self, slot: &Slot, p: u64, mut h: u32, mut cv: ChainingValue) {
        let len = self.shape.len();
        while h < self.dense_level {
            let parent = h + 1;
            let start = p - p % (CHUNK_BYTES << parent);
            let mid = start + (CHUNK_BYTES << h);
            h = parent;
            if p < mid && mid >= len {
                continue; // no right child: the parent is this node
            }
            let side = usize::from(p >= mid);
            match slot.levels[(parent - 1) as usize].offer(side, &cv) {
                Some(merged) => cv = merged,
                None => return,
            }
        }
        let node = CHUNK_BYTES << self.dense_level;
        self.deliver(self.dense_level, p / node, cv);
    }
}

impl RowSink for StreamingHasher {
    /// Hashes one block.
    ///
    /// # Errors
    /// A block that is misaligned, of the wrong size, past the codeword's end or handed over
    /// a second time; the hasher's state is unchanged then.
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        let started = Instant::now();
        let _span = tracing::trace_span!("hash", first_row).entered();
        self.claim_block(first_row, rows)?;
        let bytes = le_bytes(rows);
        let s = first_row as u64 * self.row_bytes;
        match self.stitch {
            Stitch::PerChunk => self.absorb_per_chunk(s, &bytes),
            Stitch::PerBoundary => self.absorb_per_boundary(s, &bytes),
        }
        self.absorbed.fetch_add(1, Ordering::AcqRel);
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy_nanos.fetch_add(nanos, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
