//! Errors at the commitment's edges.

use thiserror::Error;

/// Why a commit could not be made.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommitError {
    /// A codeword needs at least one lane.
    #[error("the number of lanes must be at least 1")]
    ZeroLanes,
    /// The sink's blocks must not be larger than the codeword.
    #[error("blocks of 2^{log_block_rows} rows do not fit in a codeword of 2^{log_rows} rows")]
    BlockLargerThanCodeword { log_block_rows: u32, log_rows: u32 },
    /// A codeword is a power-of-two number of rows of `lanes` words.
    #[error("a codeword of {words} words is not a power-of-two number of rows of {lanes} lanes")]
    CodewordShape { words: usize, lanes: usize },
    /// The codeword's byte length does not fit in memory.
    #[error("the codeword is too large to address")]
    TooLarge,
    /// The encode finished without handing over every block (an encoder bug).
    #[error("the encode handed over {absorbed} of {blocks} row blocks")]
    IncompleteStream { absorbed: usize, blocks: usize },
    /// A witness is a power-of-two number of rows of `lanes` words.
    #[error("a witness of {words} words is not a power-of-two number of rows of {lanes} lanes")]
    WitnessShape { words: usize, lanes: usize },
    /// The encoder refused the input or failed.
    #[error("encode failed: {0}")]
    Encode(#[from] crate::encoder::EncodeError),
}

/// Why an opening could not be made.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenError {
    /// An opening must name at least one row.
    #[error("no rows to open")]
    NoRows,
    /// A row index is not a row of the codeword.
    #[error("row {row} is out of range: the codeword has {rows} rows")]
    RowOutOfRange { row: usize, rows: usize },
}

/// Why an opening does not verify against a commitment.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// The commitment describes no codeword that can exist (zero lanes, or too many bytes).
    #[error("the commitment's shape (2^{log_rows} rows × {lanes} lanes) is not a valid codeword")]
    BadShape { log_rows: u32, lanes: usize },
    /// No rows were asked for.
    #[error("no rows to verify")]
    NoRows,
    /// A row index is not a row of the committed codeword.
    #[error("row {row} is out of range: the committed codeword has {rows} rows")]
    RowOutOfRange { row: usize, rows: u64 },
    /// The opening was made for another codeword shape.
    #[error(
        "the opening is for 2^{found_log_rows} rows × {found_lanes} lanes, the commitment for 2^{log_rows} × {lanes}"
    )]
    ShapeMismatch {
        log_rows: u32,
        lanes: usize,
        found_log_rows: u32,
        found_lanes: u64,
    },
    /// The opening was made for other row indices.
    #[error("the opening was made for other row indices ({} of them), not for the rows asked", found.len())]
    RowsMismatch { found: Vec<u64> },
    /// The opening carries the wrong number of codeword bytes for these rows.
    #[error("the opening carries {found} chunk bytes, the rows need {expected}")]
    ChunkBytes { expected: u64, found: u64 },
    /// The opening carries the wrong number of sibling chaining values.
    #[error("the opening carries {found} sibling chaining values, the rows need {expected}")]
    SiblingCount { expected: u64, found: u64 },
    /// The opened bytes and siblings hash to another root: the rows are not the committed ones.
    #[error("the opened rows do not hash to the committed root")]
    RootMismatch,
}

/// Why bytes are not an encoded opening.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProofDecodeError {
    /// The input ends before the field that starts at `offset`.
    #[error("the proof is truncated: {needed} bytes needed at offset {offset}, {available} available")]
    Truncated {
        offset: usize,
        needed: u64,
        available: usize,
    },
    /// The input does not start with the opening magic.
    #[error("not an opening: bad magic bytes")]
    BadMagic,
    /// The format version is not one this build reads.
    #[error("unsupported opening format version {0}")]
    UnsupportedVersion(u16),
    /// A reserved field is not zero.
    #[error("reserved header field is {0:#x}, must be 0")]
    Reserved(u16),
    /// Bytes follow the last field.
    #[error("{0} unexpected bytes after the opening")]
    TrailingBytes(usize),
}

/// Why text is not a root.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootHexError {
    /// A root is 64 hex digits.
    #[error("a root is 64 hex digits, got {0} characters")]
    Length(usize),
    /// A character is not a hex digit.
    #[error("bad hex root: {0}")]
    Digit(String),
}
