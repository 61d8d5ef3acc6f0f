//! [`RowSource`]: the rows of one matrix, as the tree hashes them.

use std::ops::Range;

/// A matrix whose rows a tree hashes: a row's message is its values' bytes, each value a `u64`
/// little-endian. `ntt-plonky3` implements it for Plonky3's `Matrix<Poly64>`; the tree itself
/// needs no matrix type.
pub trait RowSource: Sync {
    /// Rows in the matrix.
    fn height(&self) -> usize;

    /// Bytes in one row (8 a value).
    fn row_bytes(&self) -> usize;

    /// Calls `f` with the bytes of `rows`, back to back, when the matrix holds them so in memory
    /// (a dense matrix does), and returns what it returned; `None`, without calling `f`,
    /// otherwise.
    fn with_contiguous_rows<R>(&self, rows: Range<usize>, f: impl FnOnce(&[u8]) -> R) -> Option<R>;

    /// Appends the bytes of row `row` (inside the matrix) to `out`.
    fn extend_with_row(&self, row: usize, out: &mut Vec<u8>);
}
