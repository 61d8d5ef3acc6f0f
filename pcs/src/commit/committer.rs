//! The prover's entry point: encode a witness and commit to the codeword in one pass.

use std::time::Instant;

use super::buffer::reserve_codeword;
use super::commitment::Commitment;
use super::error::CommitError;
use super::prover::{CommitTimings, ProverData};
use super::stream::{DEFAULT_PIECE_LEVEL, StreamingHasher};
use crate::encoder::{Encoder, MAX_LOG_ROWS, MessageLayout, Shape};

/// Encodes witnesses and commits to their codewords, hashing every block of rows in the task
/// that finished it (see [`StreamingHasher`]).
///
/// ```
/// use std::sync::Arc;
/// use ntt_kernels::Backend;
/// use ntt_pcs::commit::{Committer, verify};
/// use ntt_pcs::{Encoder, MessageLayout};
/// use ntt_runtime::ThreadPoolBuilder;
///
/// let pool = Arc::new(ThreadPoolBuilder::new().num_threads(2).build()?);
/// let committer = Committer::new(Encoder::new(pool, Backend::detect()));
///
/// // 2^10 words as 8 lanes of 2^7, lane-major; rate 1/2 gives 2^8 codeword rows.
/// let witness: Vec<u64> = (0..1u64 << 10).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
/// let (commitment, prover) = committer.commit(&witness, MessageLayout::Lanes, 8, 1)?;
/// assert_eq!((commitment.log_rows, commitment.lanes), (8, 8));
///
/// // The root is plain BLAKE3 of the codeword bytes.
/// let bytes: Vec<u8> = prover.codeword().iter().flat_map(|w| w.to_le_bytes()).collect();
/// assert_eq!(commitment.root, *blake3::hash(&bytes).as_bytes());
///
/// let opening = prover.open(&[255, 0, 17])?;
/// let rows = verify(&commitment, &[255, 0, 17], &Opening::from_bytes(&opening.to_bytes())?)?;
/// assert_eq!(rows[2], prover.codeword()[17 * 8..18 * 8]);
///
/// // The next commit reuses the codeword buffer (no page faults).
/// let (again, _) = committer.commit_reusing(&witness, MessageLayout::Lanes, 8, 1, prover)?;
/// assert_eq!(again, commitment);
/// # use ntt_pcs::commit::Opening;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Committer {
    encoder: Encoder,
    stored_level: u32,
}

impl Committer {
    /// A committer that encodes with `encoder` and keeps chaining values of nodes of
    /// 2^[`DEFAULT_PIECE_LEVEL`] KiB and larger.
    pub fn new(encoder: Encoder) -> Self {
        Self {
            encoder,
            stored_level: DEFAULT_PIECE_LEVEL,
        }
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

    /// Encodes `witness` (`lanes` lanes of a power-of-two number of words, in `layout`) at rate
    /// 1/2^`log_inv_rate` into a freshly allocated codeword and commits to it.
    ///
    /// # Errors
    /// [`CommitError`] for a witness that is not a power-of-two number of rows of `lanes` words,
    /// a codeword too large, or an encode that fails.
    pub fn commit(
        &self,
        witness: &[u64],
        layout: MessageLayout,
        lanes: usize,
        log_inv_rate: u32,
    ) -> Result<(Commitment, ProverData), CommitError> {
        self.commit_into(witness, layout, lanes, log_inv_rate, Vec::new())
    }

    /// As [`commit`](Self::commit), writing the codeword into the buffer of an earlier commit's
    /// prover data (already faulted in, so no page faults).
    ///
    /// # Errors
    /// As for [`commit`](Self::commit).
    pub fn commit_reusing(
        &self,
        witness: &[u64],
        layout: MessageLayout,
        lanes: usize,
        log_inv_rate: u32,
        reuse: ProverData,
    ) -> Result<(Commitment, ProverData), CommitError> {
        self.commit_into(witness, layout, lanes, log_inv_rate, reuse.into_codeword())
    }

    /// As [`commit`](Self::commit), writing the codeword into `buffer` (its contents are
    /// discarded; its capacity is reused and grown if needed).
    ///
    /// # Errors
    /// As for [`commit`](Self::commit).
    pub fn commit_into(
        &self,
        witness: &[u64],
        layout: MessageLayout,
        lanes: usize,
        log_inv_rate: u32,
        mut buffer: Vec<u64>,
    ) -> Result<(Commitment, ProverData), CommitError> {
        let started = Instant::now();
        let _span = tracing::debug_span!("commit", words = witness.len(), lanes, log_inv_rate).entered();
        let shape = witness_shape(witness.len(), lanes, log_inv_rate)?;
        let plan = self.encoder.plan(shape, layout)?;
        let hasher = StreamingHasher::with_piece_level(
            shape.log_rows,
            lanes,
            plan.sink_block_log_rows(),
            self.stored_level,
        )?;

        let words = shape.codeword_words();
        reserve_codeword(&mut buffer, words);
        {
            let _span =
                tracing::debug_span!("encode", log_rows = shape.log_rows, fused_hash = true).entered();
            let codeword = &mut buffer.spare_capacity_mut()[..words];
            self.encoder
                .encode(witness, layout, codeword, lanes, log_inv_rate, Some(&hasher))?;
        }
        // SAFETY: `Encoder::encode` returned `Ok`, so it wrote every one of the first `words`
        // words of the spare capacity, which `reserve_codeword` made at least `words` long.
        unsafe { buffer.set_len(words) };

        let busy = hasher.busy_time();
        let (root, tree) = {
            let _span = tracing::debug_span!("merge").entered();
            hasher.into_tree(self.stored_level)?
        };
        let commitment = Commitment {
            root,
            log_rows: shape.log_rows,
            lanes,
            basis: self.encoder.domain().basis().name(),
        };
        let total = started.elapsed();
        let workers = self.encoder.pool().num_workers().max(1) as u32;
        let hash = (busy / workers).min(total);
        let timings = CommitTimings {
            encode: total - hash,
            hash,
            total,
        };
        Ok((
            commitment,
            ProverData {
                codeword: buffer,
                commitment,
                tree,
                timings,
            },
        ))
    }
}

/// The codeword shape of a witness of `words` words in `lanes` lanes at rate 1/2^log_inv_rate.
fn witness_shape(words: usize, lanes: usize, log_inv_rate: u32) -> Result<Shape, CommitError> {
    if lanes == 0 {
        return Err(CommitError::ZeroLanes);
    }
    let rows = words / lanes;
    if words == 0 || !words.is_multiple_of(lanes) || !rows.is_power_of_two() {
        return Err(CommitError::WitnessShape { words, lanes });
    }
    let log_rows = rows
        .ilog2()
        .checked_add(log_inv_rate)
        .filter(|&l| l <= MAX_LOG_ROWS)
        .ok_or(CommitError::TooLarge)?;
    lanes
        .checked_shl(log_rows)
        .filter(|&w| w >> log_rows == lanes)
        .ok_or(CommitError::TooLarge)?;
    Ok(Shape {
        log_rows,
        lanes,
        log_inv_rate,
    })
}
