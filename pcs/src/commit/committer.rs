//! The prover's entry point: encode a witness and commit to the codeword in one pass.

use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;

use super::buffer::{BufferPool, DEFAULT_POOL_CAP_BYTES, reserve_codeword};
use super::component::{CommitmentTree, Kept, WithTree, with_tree};
use super::pieces::DEFAULT_PIECE_LEVEL;
use super::prover::{CommitTimings, ProverData};
use crate::encoder::{EncodeError, Encoder};
use crate::shape::{CommitParams, Expansion, Shape, ShapeError, memory};
use ntt_runtime::touch;
use ntt_verify::Commitment;

/// Why a commit could not be made.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommitError {
    /// The witness and rate make no shape within the limits, or one too large for the memory.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The sink's blocks must not be larger than the codeword.
    #[error("blocks of 2^{log_block_rows} rows do not fit in a codeword of 2^{log_rows} rows")]
    BlockLargerThanCodeword {
        /// Log of the rows of a sink block.
        log_block_rows: u32,
        /// Log of the codeword's rows.
        log_rows: u32,
    },
    /// The allocator refused the codeword buffer.
    #[error("cannot allocate the codeword buffer of {bytes} bytes")]
    Allocation {
        /// The codeword's size.
        bytes: u64,
    },
    /// The allocator refused the [`StreamingHasher`](crate::StreamingHasher)'s state (chaining
    /// values, stitching slots).
    #[error("cannot allocate the streaming hasher's state of {bytes} bytes")]
    HasherAllocation {
        /// The state's size (`u64::MAX` when it overflows).
        bytes: u64,
    },
    /// The allocator refused a row tree's digests ([`row_tree_bytes`](crate::row_tree_bytes)).
    #[error("cannot allocate the row tree's {bytes} bytes of digests")]
    TreeAllocation {
        /// The tree's size.
        bytes: u64,
    },
    /// The encode finished without handing over every block (an encoder bug).
    #[error("the encode handed over {absorbed} of {blocks} row blocks")]
    IncompleteStream {
        /// Blocks the hasher received.
        absorbed: usize,
        /// Blocks the codeword has.
        blocks: usize,
    },
    /// The encoder failed.
    #[error("encode failed: {0}")]
    Encode(#[from] EncodeError),
    /// A bug: the engine made an inconsistent commitment.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Refuses a commit of `shape` whose buffers the machine cannot offer now: the codeword, when a
/// `fresh` one must be allocated, and `tree_bytes` of a tree's digests (a row tree's; the chunk
/// tree's state checks itself).
pub(super) fn ensure_memory(shape: Shape, tree_bytes: u64, fresh: bool) -> Result<(), ShapeError> {
    let codeword = if fresh { shape.codeword_bytes() } else { 0 };
    let what = match (fresh, tree_bytes > 0) {
        (false, false) => return Ok(()),
        (true, false) => "the codeword",
        (true, true) => "a codeword with its row tree",
        (false, true) => "a row tree",
    };
    memory::ensure_available(what, codeword.saturating_add(tree_bytes))
}

/// Encodes witnesses and commits to their codewords, hashing every block of rows in the task
/// that finished it (see [`StreamingHasher`](crate::StreamingHasher)).
///
/// ```
/// use ntt_pcs::{CommitParams, Committer, Encoder, Proof, verify};
///
/// let committer = Committer::new(Encoder::builder().workers(2).build()?);
///
/// // 2^10 words as 8 lanes of 2^7, lane-major; rate 1/2 gives 2^8 codeword rows.
/// let witness: Vec<u64> = (0..1u64 << 10).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
/// let params = CommitParams::lanes(8).log_inv_rate(1);
/// let (commitment, prover) = committer.commit(&witness, params)?;
/// assert_eq!((commitment.log_rows(), commitment.lanes()), (8, 8));
///
/// // The root is plain BLAKE3 of the codeword bytes.
/// let bytes: Vec<u8> = prover.codeword().iter().flat_map(|w| w.to_le_bytes()).collect();
/// assert_eq!(commitment.root(), *blake3::hash(&bytes).as_bytes());
///
/// let opening = prover.open(&[255, 0, 17])?;
/// let rows = verify(&commitment, &[255, 0, 17], &Proof::from_bytes(&opening.to_bytes())?)?;
/// assert_eq!(rows[2], prover.codeword()[17 * 8..18 * 8]);
///
/// // The next commit reuses the codeword buffer (no page faults).
/// let (again, prover) = committer.commit_reusing(&witness, params, prover)?;
/// assert_eq!(again, commitment);
///
/// // Dropped prover data hands its buffer to the committer's pool for the next `commit`.
/// drop(prover);
/// assert_eq!(committer.kept_buffer_bytes(), 8 << 8 << 3);
/// assert_eq!(committer.release_buffers(), 8 << 8 << 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Clones share one buffer pool: codeword buffers of dropped [`ProverData`] are kept (up to
/// [`with_buffer_cap`](Self::with_buffer_cap) bytes, [`DEFAULT_POOL_CAP_BYTES`] by default) and
/// reused by later commits; [`release_buffers`](Self::release_buffers) frees them.
#[derive(Clone, Debug)]
pub struct Committer {
    encoder: Encoder,
    stored_level: u32,
    expansion: Expansion,
    buffers: Arc<BufferPool>,
}

impl Committer {
    /// A committer that encodes with `encoder` and keeps chaining values of nodes of
    /// 2^[`DEFAULT_PIECE_LEVEL`] KiB and larger.
    pub fn new(encoder: Encoder) -> Self {
        Self {
            encoder,
            stored_level: DEFAULT_PIECE_LEVEL,
            expansion: Expansion::Bounded,
            buffers: Arc::new(BufferPool::new(DEFAULT_POOL_CAP_BYTES)),
        }
    }

    /// How far a codeword may expand its witness: [`Expansion::Bounded`] (the default) refuses
    /// rates below 1/2^[`MAX_BOUNDED_LOG_INV_RATE`](crate::shape::MAX_BOUNDED_LOG_INV_RATE).
    pub fn with_expansion(mut self, expansion: Expansion) -> Self {
        self.expansion = expansion;
        self
    }

    /// Keeps at most `bytes` of codeword buffers for reuse (0: keep none, every commit faults
    /// in a fresh buffer). Starts a new, empty pool.
    pub fn with_buffer_cap(mut self, bytes: usize) -> Self {
        self.buffers = Arc::new(BufferPool::new(bytes));
        self
    }

    /// The most bytes of codeword buffers this committer keeps for reuse.
    pub fn buffer_cap(&self) -> usize {
        self.buffers.cap_bytes()
    }

    /// Bytes of codeword buffers kept for reuse now.
    pub fn kept_buffer_bytes(&self) -> usize {
        self.buffers.kept_bytes()
    }

    /// Frees the kept codeword buffers (memory back to the system); returns the bytes freed.
    pub fn release_buffers(&self) -> usize {
        self.buffers.release()
    }

    /// Hashes pure subtrees of `2^level` chunks (`2^level` KiB) per call and keeps chaining
    /// values for the tree nodes of that size and larger: memory about `codeword / 2^(level + 4)`
    /// (the default, level 6: 1/1024). An opening rehashes the siblings below that level from the
    /// codeword, `2^level` KiB per opened path. Levels below 4 (16 KiB) starve BLAKE3's 16-way
    /// SIMD path, and each level down leaves more of the tree's parents to single compressions,
    /// so finer levels make the commit slower.
    pub fn with_stored_level(mut self, level: u32) -> Self {
        self.stored_level = level;
        self
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// Encodes `witness` (a power-of-two number of rows of `params`' lanes, in its layout) at
    /// its rate into a codeword buffer from the pool (else a fresh one, faulted in by
    /// the workers in parallel) and commits to it.
    ///
    /// # Errors
    /// [`CommitError::Shape`] for a witness that is not a power-of-two number of rows of `lanes`
    /// words, a shape outside the limits, or a codeword (with a row tree's digests,
    /// [`row_tree_bytes`](crate::row_tree_bytes)) larger than the memory available (checked before
    /// anything is allocated); [`CommitError::Allocation`] or [`CommitError::TreeAllocation`]
    /// when the allocator refuses the codeword or the tree; [`CommitError::Encode`] for an encode
    /// that fails.
    pub fn commit(
        &self,
        witness: &[u64],
        params: CommitParams,
    ) -> Result<(Commitment, ProverData), CommitError> {
        let log_inv_rate = params.log_inv_rate;
        let words = witness
            .len()
            .checked_shl(log_inv_rate)
            .filter(|w| w >> log_inv_rate == witness.len())
            .unwrap_or(0);
        let buffer = self.buffers.take(words);
        self.commit_into(witness, params, buffer)
    }

    /// As [`commit`](Self::commit), writing the codeword into the buffer of an earlier commit's
    /// prover data (already faulted in, so no page faults).
    ///
    /// # Errors
    /// As for [`commit`](Self::commit).
    pub fn commit_reusing(
        &self,
        witness: &[u64],
        params: CommitParams,
        reuse: ProverData,
    ) -> Result<(Commitment, ProverData), CommitError> {
        self.commit_into(witness, params, reuse.into_codeword())
    }

    /// As [`commit`](Self::commit), writing the codeword into `buffer` (its contents are
    /// discarded; its capacity is reused and grown if needed).
    ///
    /// # Errors
    /// As for [`commit`](Self::commit).
    pub fn commit_into(
        &self,
        witness: &[u64],
        params: CommitParams,
        buffer: Vec<u64>,
    ) -> Result<(Commitment, ProverData), CommitError> {
        let job = CommitInto {
            committer: self,
            witness,
            params,
            buffer,
        };
        with_tree(params.scheme, self.stored_level, job)
    }

    /// [`commit_into`](Self::commit_into) with `tree`, the scheme's.
    fn commit_with<T: CommitmentTree>(
        &self,
        tree: T,
        witness: &[u64],
        params: CommitParams,
        mut buffer: Vec<u64>,
    ) -> Result<(Commitment, ProverData), CommitError> {
        let started = Instant::now();
        let CommitParams {
            lanes,
            log_inv_rate,
            layout,
            scheme,
        } = params;
        let _span = tracing::info_span!("commit", words = witness.len(), lanes, log_inv_rate).entered();
        let shape = Shape::of_witness(witness.len(), lanes, log_inv_rate, self.expansion)?;
        let words = shape.codeword_words();
        ensure_memory(
            shape,
            tree.memory_bytes(shape.codeword()),
            buffer.capacity() < words,
        )?;
        let plan = self.encoder.plan(shape, layout);
        let hasher = tree.hasher(shape.codeword(), plan.sink_block_log_rows())?;

        let allocating = Instant::now();
        let first_touch = {
            let _span = tracing::info_span!("allocate", bytes = shape.codeword_bytes()).entered();
            reserve_codeword(&mut buffer, words, self.encoder.pool()).map_err(|_| {
                CommitError::Allocation {
                    bytes: shape.codeword_bytes(),
                }
            })?
        };
        let allocate = allocating.elapsed();
        // A fresh buffer left to the passes: count each worker's page faults over the encode.
        let pages = first_touch.as_ref().map(|t| t.pages);
        let faults_before = first_touch
            .as_ref()
            .filter(|_| touch::left_to_passes())
            .map(|_| touch::worker_faults(self.encoder.pool()));
        {
            let _span =
                tracing::info_span!("encode", log_rows = shape.log_rows(), fused_hash = true).entered();
            let codeword = &mut buffer.spare_capacity_mut()[..words];
            self.encoder
                .encode_faulted_in(witness, codeword, params, Some(&hasher))?;
        }
        // SAFETY: `Encoder::encode` returned `Ok`, so it wrote every one of the first `words`
        // words of the spare capacity, which `reserve_codeword` made at least `words` long.
        unsafe { buffer.set_len(words) };
        let first_touch = match faults_before {
            Some(before) => Some(touch::faults_in_passes(
                &before,
                &touch::worker_faults(self.encoder.pool()),
            )),
            None => first_touch.map(|t| t.workers),
        };

        let (busy, cap, kept) = {
            let _span = tracing::info_span!("merge").entered();
            tree.finish(hasher, Some(self.encoder.pool()))?
        };
        let commitment = Commitment::with_cap(scheme, cap, shape.codeword())
            .map_err(|e| CommitError::Internal(e.to_string()))?
            .with_basis(self.encoder.domain().basis().name());
        let total = started.elapsed();
        let workers = self.encoder.pool().num_workers().max(1) as u32;
        let hash = (busy / workers).min(total - allocate);
        let timings = CommitTimings {
            allocate,
            encode: total.saturating_sub(allocate + hash),
            hash,
            total,
        };
        Ok((
            commitment.clone(),
            ProverData {
                codeword: buffer,
                commitment,
                tree: Arc::new(Kept::<T>(kept)),
                timings,
                first_touch: first_touch.unwrap_or_default(),
                pages,
                recycle: Arc::downgrade(&self.buffers),
            },
        ))
    }
}

/// A [`Committer::commit_into`] call, waiting for the scheme's tree.
struct CommitInto<'a> {
    committer: &'a Committer,
    witness: &'a [u64],
    params: CommitParams,
    buffer: Vec<u64>,
}

impl WithTree for CommitInto<'_> {
    type Output = Result<(Commitment, ProverData), CommitError>;

    fn run<T: CommitmentTree>(self, tree: T) -> Self::Output {
        self.committer
            .commit_with(tree, self.witness, self.params, self.buffer)
    }
}
