//! Committing to a codeword that already exists (no encode).

use std::time::Instant;

use std::sync::Arc;

use super::committer::{CommitError, ensure_memory};
use super::component::{CommitmentTree, Kept, WithTree, with_tree};
use super::pieces::DEFAULT_PIECE_LEVEL;
use super::prover::{CommitTimings, ProverData};
use crate::shape::Shape;
use crate::sink::RowSink;
use ntt_verify::{Commitment, Scheme};

/// Rows hashed per block when hashing a stored codeword: about 64 KiB.
const BLOCK_BYTES: usize = 64 << 10;

/// Commits to `codeword`, a row-major codeword of `lanes` words per row and a power-of-two
/// number of rows, by hashing it on the calling thread. Gives the same commitment (and prover
/// data) as committing the witness it encodes.
///
/// # Errors
/// [`CommitError::Shape`] when the length is not a power-of-two number of rows of `lanes`
/// words, or the codeword is outside the limits.
///
/// ```
/// use ntt_pcs::{commit_codeword, verify};
///
/// let codeword: Vec<u64> = (0..3 << 10).map(|w: u64| w.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
/// let bytes: Vec<u8> = codeword.iter().flat_map(|w| w.to_le_bytes()).collect();
/// let (commitment, prover) = commit_codeword(codeword, 3)?;
/// assert_eq!(commitment.root(), *blake3::hash(&bytes).as_bytes());
/// assert_eq!((commitment.log_rows(), commitment.lanes()), (10, 3));
///
/// let opening = prover.open(&[700, 3, 700])?;
/// let rows = verify(&commitment, &[700, 3, 700], &opening)?;
/// assert_eq!(rows[1], prover.codeword()[9..12]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn commit_codeword(codeword: Vec<u64>, lanes: usize) -> Result<(Commitment, ProverData), CommitError> {
    commit_codeword_with(codeword, lanes, Scheme::chunks())
}

/// As [`commit_codeword`], with the commitment `scheme` (the chunk tree or a row tree), on the
/// calling thread.
///
/// # Errors
/// As for [`commit_codeword`]; for a row tree also [`CommitError::Shape`] when its digests
/// ([`row_tree_bytes`](crate::row_tree_bytes)) need more memory than the machine offers now, and
/// [`CommitError::TreeAllocation`] when the allocator refuses them.
///
/// ```
/// use ntt_pcs::{HashKind, Scheme, commit_codeword_with, verify};
///
/// let codeword: Vec<u64> = (0..4 << 6).map(|w: u64| w.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
/// let scheme = Scheme::rows(HashKind::Keccak, 2)?;
/// let (commitment, prover) = commit_codeword_with(codeword, 4, scheme)?;
/// assert_eq!(commitment.cap().len(), 4);
/// let proof = prover.open(&[63, 5])?;
/// let rows = verify(&commitment, &[5, 63], &proof)?;
/// assert_eq!(rows[0], prover.codeword()[20..24]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn commit_codeword_with(
    codeword: Vec<u64>,
    lanes: usize,
    scheme: Scheme,
) -> Result<(Commitment, ProverData), CommitError> {
    with_tree(
        scheme,
        DEFAULT_PIECE_LEVEL,
        CommitCodeword {
            codeword,
            lanes,
            scheme,
        },
    )
}

/// A [`commit_codeword_with`] call, waiting for the scheme's tree.
struct CommitCodeword {
    codeword: Vec<u64>,
    lanes: usize,
    scheme: Scheme,
}

impl WithTree for CommitCodeword {
    type Output = Result<(Commitment, ProverData), CommitError>;

    fn run<T: CommitmentTree>(self, tree: T) -> Self::Output {
        let Self {
            codeword,
            lanes,
            scheme,
        } = self;
        let started = Instant::now();
        // A codeword already in memory: any rate made it, so rate 0 stands for "no expansion".
        let codeword_shape = Shape::of_codeword(codeword.len(), lanes, 0)?;
        let shape = codeword_shape.codeword();
        let log_rows = shape.log_rows();
        let log_block_rows = (BLOCK_BYTES / (8 * lanes)).max(1).ilog2().min(log_rows);
        let (cap, kept) = {
            let _span = tracing::info_span!("hash", log_rows, lanes).entered();
            ensure_memory(codeword_shape, tree.memory_bytes(shape), false)?;
            let hasher = tree.hasher(shape, log_block_rows)?;
            for (k, block) in codeword.chunks(lanes << log_block_rows).enumerate() {
                hasher
                    .absorb(k << log_block_rows, block)
                    .expect("the codeword's own aligned blocks, each once");
            }
            let (_, cap, kept) = tree.finish(hasher, None)?;
            (cap, kept)
        };
        let commitment =
            Commitment::with_cap(scheme, cap, shape).map_err(|e| CommitError::Internal(e.to_string()))?;
        let total = started.elapsed();
        let timings = CommitTimings {
            hash: total,
            total,
            ..CommitTimings::default()
        };
        Ok((
            commitment.clone(),
            ProverData {
                codeword,
                commitment,
                tree: Arc::new(Kept::<T>(kept)),
                timings,
                first_touch: Vec::new(),
                pages: None,
                recycle: std::sync::Weak::new(),
            },
        ))
    }
}
