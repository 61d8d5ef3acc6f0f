//! Why an opening, a proof or a root is refused: the verifier's errors.

use thiserror::Error;

/// Why an opening does not verify against a commitment.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// No rows were asked for.
    #[error("no rows to verify")]
    NoRows,
    /// A row index is not a row of the committed codeword.
    #[error("row {row} is out of range: the committed codeword has {rows} rows")]
    RowOutOfRange {
        /// The row asked for.
        row: usize,
        /// Rows of the committed codeword.
        rows: u64,
    },
    /// The opening was made for another codeword shape.
    #[error(
        "the opening is for 2^{found_log_rows} rows × {found_lanes} lanes, the commitment for 2^{log_rows} × {lanes}"
    )]
    ShapeMismatch {
        /// Log of the committed codeword's rows.
        log_rows: u32,
        /// The committed codeword's lanes.
        lanes: usize,
        /// Log of the rows the opening was made for.
        found_log_rows: u32,
        /// The lanes the opening was made for.
        found_lanes: u64,
    },
    /// The opening was made for other row indices.
    #[error("the opening was made for other row indices ({} of them), not for the rows asked", found.len())]
    RowsMismatch {
        /// The row indices the opening was made for.
        found: Vec<u64>,
    },
    /// The opening carries the wrong number of codeword bytes for these rows.
    #[error("the opening carries {found} chunk bytes, the rows need {expected}")]
    ChunkBytes {
        /// Chunk bytes the rows need.
        expected: u64,
        /// Chunk bytes the opening carries.
        found: u64,
    },
    /// The opening carries the wrong number of sibling chaining values.
    #[error("the opening carries {found} sibling chaining values, the rows need {expected}")]
    SiblingCount {
        /// Sibling chaining values the rows need.
        expected: u64,
        /// Sibling chaining values the opening carries.
        found: u64,
    },
    /// The commitment and the opening are of different trees, hashes or cap heights.
    #[error("the commitment is a {committed}, the opening is for a {opened}")]
    SchemeMismatch {
        /// The commitment's scheme.
        committed: String,
        /// The opening's.
        opened: String,
    },
    /// A row-tree opening carries the wrong number of row bytes for these rows.
    #[error("the opening carries {found} row bytes, the rows need {expected}")]
    RowBytes {
        /// Row bytes the distinct rows need.
        expected: u64,
        /// Row bytes the opening carries.
        found: u64,
    },
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
        /// Where the field starts.
        offset: usize,
        /// Bytes the field needs.
        needed: u64,
        /// Bytes left from `offset`.
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
    /// A row-tree opening names a hash this build does not know.
    #[error("unknown hash code {0} in a row-tree opening")]
    UnknownHash(u8),
    /// A row-tree opening's row bytes are not whole 8-byte words.
    #[error("a row-tree opening carries {0} row bytes, not a whole number of words")]
    PartialWord(u64),
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
