//! The hand-over from [`EngineNtt`](crate::EngineNtt) to a [`MerkleMmcs`](super::MerkleMmcs)
//! sharing its pool: row digests hashed by the encoder's own tasks as they finished the rows.
//!
//! A prover encodes a matrix and commits the codeword it got back; between the two the matrix
//! travels by value through code the engine does not see (WHIR reinterprets the `Poly64` vector
//! as `Poly192` values and wraps it in `ExtensionMmcs`'s flattened view). So the encoder keeps,
//! beside the digests, what identifies the codeword it wrote: its address, length and width, and
//! a fingerprint of its bytes (XXH3, seeded by each block's first row, summed over the blocks).
//! The Mmcs takes the digests only for a matrix with the same address, length and width whose
//! fingerprint, recomputed in one streaming read (about 20 times cheaper than hashing it with
//! Keccak), is the same; any other matrix, or one changed since, is hashed as usual.
//!
//! The fingerprint is no security measure and needs none: a prover that changed its codeword
//! after the encode so that the fingerprint stays the same would commit to its old rows, open
//! its new ones, and make proofs no verifier accepts. It guards honest callers against
//! committing a stale tree, where an accidental change (any change not chosen with knowledge of
//! the seeds and of XXH3's internals) goes unnoticed with probability about 2^-64.

use ntt_pcs::{ClaimedSlots, RowHash, RowSink, RowSinkError};
use ntt_runtime::ThreadPool;
use ntt_verify::row_hash::Digest;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;
use std::any::TypeId;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Hand-overs kept at most: a prover commits what it just encoded, so one is what is used; a
/// second covers a matrix encoded while another waits to be committed. Older ones are dropped
/// (their memory is the leaf layer of a tree).
const KEPT: usize = 2;

/// What a [`MerkleMmcs`](super::MerkleMmcs) and the encoder feeding it did, cumulative since
/// they were made (see [`MerkleMmcs::stats`](super::MerkleMmcs::stats)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MerkleStats {
    /// Matrices whose row digests came from the encoder.
    pub fused: u64,
    /// Matrices the encoder had hashed whose fingerprint no longer matched (changed since the
    /// encode), hashed again by the Mmcs.
    pub stale: u64,
    /// Nanoseconds the encoder's tasks spent hashing rows, summed over the workers (inside the
    /// NTT calls' time).
    pub encoder_hash_ns: u64,
    /// Nanoseconds spent recomputing fingerprints before taking the encoder's digests.
    pub fingerprint_ns: u64,
    /// Nanoseconds the Mmcs spent on leaf layers (hashing rows, or taking the encoder's digests
    /// with the fingerprint check), wall time.
    pub leaf_hash_ns: u64,
    /// Nanoseconds the Mmcs spent on the layers above the leaves, wall time.
    pub node_hash_ns: u64,
}

/// `hash_many` of a [`RowHash`] as a plain function, for the encoder's tasks to call without
/// knowing the hash.
pub(crate) type HashManyFn = fn(&[u8], &mut [Digest]);

/// Which hash a set of digests was made with.
pub(crate) fn hash_id<H: RowHash>() -> TypeId {
    TypeId::of::<H>()
}

/// The digests of one encoded codeword, and what identifies it.
struct Handover {
    hash: TypeId,
    address: usize,
    words: usize,
    width: usize,
    block_rows: usize,
    fingerprint: u64,
    digests: Vec<Digest>,
}

/// Shared by an [`EngineNtt`](crate::EngineNtt) (and its clones) and the Mmcs attached to it.
#[derive(Default)]
pub(crate) struct FusedLeaves {
    /// The hash of the attached Mmcs: the encoder hashes rows with it, or not at all.
    hasher: Mutex<Option<(TypeId, HashManyFn)>>,
    handed: Mutex<VecDeque<Handover>>,
    used: AtomicU64,
    stale: AtomicU64,
    encoder_hash_ns: AtomicU64,
    fingerprint_ns: AtomicU64,
}

impl std::fmt::Debug for FusedLeaves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FusedLeaves")
            .field(
                "attached",
                &self.hasher.lock().map(|h| h.is_some()).unwrap_or(false),
            )
            .field("counts", &self.counts())
            .finish()
    }
}

/// The fingerprint of one block of rows starting at `first_row`.
fn block_fingerprint(first_row: usize, bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, first_row as u64)
}

impl FusedLeaves {
    /// From now on the encoder hashes the rows it finishes with `hash_many` (the hash `hash`).
    pub(crate) fn attach(&self, hash: TypeId, hash_many: HashManyFn) {
        *self.hasher.lock().expect("never poisoned") = Some((hash, hash_many));
    }

    /// What the fused path has done so far.
    pub(crate) fn counts(&self) -> MerkleStats {
        MerkleStats {
            fused: self.used.load(Ordering::Relaxed),
            stale: self.stale.load(Ordering::Relaxed),
            encoder_hash_ns: self.encoder_hash_ns.load(Ordering::Relaxed),
            fingerprint_ns: self.fingerprint_ns.load(Ordering::Relaxed),
            ..MerkleStats::default()
        }
    }

    /// A sink hashing the rows of a codeword of `words` words in rows of `width`, if a hash is
    /// attached.
    pub(crate) fn sink(&self, words: usize, width: usize) -> Option<LeafSink<'_>> {
        let (hash, hash_many) = (*self.hasher.lock().expect("never poisoned"))?;
        if width == 0 || !words.is_multiple_of(width) {
            return None;
        }
        let rows = words / width;
        // A leaf layer the allocator refuses is hashed by the Mmcs instead, as without a hash.
        let slots = ClaimedSlots::try_zeroed(rows)?;
        Some(LeafSink {
            owner: self,
            hash,
            hash_many,
            width,
            slots,
            absorbed: AtomicUsize::new(0),
            fingerprint: AtomicU64::new(0),
            broken: AtomicBool::new(false),
        })
    }

    /// Keeps what `sink` hashed of the codeword `values` (the encode that fed it has returned).
    pub(crate) fn hand_over(&self, sink: LeafSink<'_>, values: &[Poly64]) {
        let complete = !sink.broken.load(Ordering::Acquire)
            && sink.absorbed.load(Ordering::Acquire) == sink.slots.len()
            && values.len() == sink.slots.len() * sink.width;
        if !complete {
            return;
        }
        let handover = Handover {
            hash: sink.hash,
            address: values.as_ptr() as usize,
            words: values.len(),
            width: sink.width,
            block_rows: sink.slots.block_len().unwrap_or(0),
            fingerprint: sink.fingerprint.load(Ordering::Acquire),
            digests: sink.slots.into_inner(),
        };
        let mut handed = self.handed.lock().expect("never poisoned");
        handed.retain(|h| h.address != handover.address);
        handed.push_back(handover);
        while handed.len() > KEPT {
            handed.pop_front();
        }
    }

    /// The row digests (hash `hash`) of `matrix`, if the encoder hashed this very matrix and it
    /// is unchanged since.
    pub(crate) fn take<M: Matrix<Poly64>>(
        &self,
        hash: TypeId,
        matrix: &M,
        pool: &ThreadPool,
    ) -> Option<Vec<Digest>> {
        let height = matrix.height();
        let values = matrix.contiguous_rows(0..height)?;
        let (address, words, width) = (values.as_ptr() as usize, values.len(), matrix.width());
        let handover = {
            let mut handed = self.handed.lock().expect("never poisoned");
            let at = handed.iter().position(|h| {
                h.hash == hash && h.address == address && h.words == words && h.width == width
            })?;
            handed.remove(at)?
        };
        let started = Instant::now();
        let fingerprint = fingerprint_of(&values, width, handover.block_rows, pool);
        self.fingerprint_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if fingerprint != handover.fingerprint {
            self.stale.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        self.used.fetch_add(1, Ordering::Relaxed);
        Some(handover.digests)
    }
}

/// The fingerprint of `values` (rows of `width`) in blocks of `block_rows` rows, as a
/// [`LeafSink`] sums it; blocks in parallel on `pool`.
fn fingerprint_of(values: &[Poly64], width: usize, block_rows: usize, pool: &ThreadPool) -> u64 {
    let bytes = crate::words::as_le_bytes(values);
    let block_bytes = block_rows * width * 8;
    if block_bytes == 0 {
        return 0;
    }
    let blocks = bytes.len() / block_bytes;
    let sum = AtomicU64::new(0);
    // XXH3 reads at memory speed: about 10 GB/s, 0.1 ns a byte.
    let work = Duration::from_nanos(bytes.len() as u64 / 10);
    pool.with_work_estimate(work, || {
        pool.for_each(0..blocks, (256 << 10) / block_bytes + 1, |range, _| {
            let mut part = 0u64;
            for block in range {
                let piece = &bytes[block * block_bytes..(block + 1) * block_bytes];
                part = part.wrapping_add(block_fingerprint(block * block_rows, piece));
            }
            sum.fetch_add(part, Ordering::Relaxed);
        });
    });
    sum.into_inner()
}

/// The encoder's [`RowSink`]: hashes each block of finished rows into its slots of the leaf
/// layer and adds the block's fingerprint, in the task that finished the rows.
pub(crate) struct LeafSink<'a> {
    owner: &'a FusedLeaves,
    hash: TypeId,
    hash_many: HashManyFn,
    width: usize,
    /// One leaf digest per row, in blocks of rows that all have the first block's row count,
    /// each written once, by the task that absorbs it.
    slots: ClaimedSlots<Digest>,
    absorbed: AtomicUsize,
    fingerprint: AtomicU64,
    /// Set when a call broke the sink's contract: nothing is handed over then.
    broken: AtomicBool,
}

impl RowSink for LeafSink<'_> {
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        let started = Instant::now();
        let claimed = if rows.len().is_multiple_of(self.width) {
            self.slots.claim(first_row, rows.len() / self.width).ok()
        } else {
            None
        };
        let Some(out) = claimed else {
            // The NTT's codeword is still right; only the digests are not. Marking them broken
            // makes the commit hash the matrix itself, so the encode (which has no error path
            // in Plonky3's `AdditiveNtt`) need not fail.
            self.broken.store(true, Ordering::Release);
            return Ok(());
        };
        let count = out.len();
        let bytes = crate::words::words_le_bytes(rows);
        (self.hash_many)(&bytes, out);
        self.fingerprint
            .fetch_add(block_fingerprint(first_row, &bytes), Ordering::Relaxed);
        self.absorbed.fetch_add(count, Ordering::AcqRel);
        self.owner
            .encoder_hash_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Ok(())
    }
}
