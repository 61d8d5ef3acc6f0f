//! Why a [`Blake3Mmcs`](super::Blake3Mmcs) opening is refused.

use ntt_pcs::ntt_verify::VerifyError;
use thiserror::Error;

/// Why an opening does not verify against a [`Blake3Mmcs`](super::Blake3Mmcs) commitment, or
/// why matrices of these dimensions cannot be committed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum Blake3MmcsError {
    /// A commitment covers at least one matrix.
    #[error("no matrices: a commitment covers at least one")]
    EmptyBatch,
    /// A matrix has no values in a row, a height that is not a power of two, or more bytes than
    /// a codeword may have.
    #[error("matrix {matrix} ({height} rows × {width} values) cannot be committed: {reason}")]
    Dimensions {
        /// Index of the matrix in the batch.
        matrix: usize,
        /// Rows of the matrix.
        height: usize,
        /// Values per row of the matrix.
        width: usize,
        /// What is wrong with the dimensions.
        reason: &'static str,
    },
    /// The index is not a row of the tallest matrix.
    #[error("index {index} is out of range: the tallest matrix has {max_height} rows")]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// Rows of the tallest matrix.
        max_height: usize,
    },
    /// The opened values are not one list of rows per index.
    #[error("{got} lists of opened rows for {expected} indices")]
    WrongQueryCount {
        /// How many there should be.
        expected: usize,
        /// How many there are.
        got: usize,
    },
    /// The rows opened at one index are not one row per matrix.
    #[error("index {query} opens {got} rows, the batch has {expected} matrices")]
    WrongBatchSize {
        /// Position of the index among the queried indices.
        query: usize,
        /// How many there should be.
        expected: usize,
        /// How many there are.
        got: usize,
    },
    /// An opened row is not as wide as its matrix.
    #[error("index {query}, matrix {matrix}: the opened row has {got} values, the matrix is {expected} wide")]
    WrongRowWidth {
        /// Position of the index among the queried indices.
        query: usize,
        /// Index of the matrix in the batch.
        matrix: usize,
        /// How many there should be.
        expected: usize,
        /// How many there are.
        got: usize,
    },
    /// The proof does not open every matrix once.
    #[error("the proof opens {got} matrices, the batch has {expected}")]
    WrongProofSize {
        /// How many there should be.
        expected: usize,
        /// How many there are.
        got: usize,
    },
    /// The proof carries the wrong number of matrix roots.
    #[error("the proof carries {got} matrix roots, a batch of {matrices} matrices needs {expected}")]
    WrongRootCount {
        /// Matrices in the batch.
        matrices: usize,
        /// How many there should be.
        expected: usize,
        /// How many there are.
        got: usize,
    },
    /// The matrices' roots do not hash to the commitment.
    #[error("the matrix roots do not hash to the commitment")]
    BatchRootMismatch,
    /// The proof carries the wrong number of chunk bytes besides the opened rows.
    #[error(
        "matrix {matrix}: the proof carries {found} chunk bytes besides the opened rows, they need {expected}"
    )]
    RestBytes {
        /// Index of the matrix in the batch.
        matrix: usize,
        /// How many there should be.
        expected: u64,
        /// What the proof carries.
        found: u64,
    },
    /// The engine's verifier refuses the opening of one matrix (in particular, the opened rows
    /// do not hash to the committed root).
    #[error("matrix {matrix}: {source}")]
    Opening {
        /// Index of the matrix in the batch.
        matrix: usize,
        /// The engine verifier's reason.
        source: VerifyError,
    },
    /// Two opened values of one row differ (an index opened twice with different rows).
    #[error("index {query}, matrix {matrix}: the opened row differs from the committed one")]
    RowMismatch {
        /// Position of the index among the queried indices.
        query: usize,
        /// Index of the matrix in the batch.
        matrix: usize,
    },
}
