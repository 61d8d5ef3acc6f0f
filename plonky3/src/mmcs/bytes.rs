//! A committed matrix as the byte stream BLAKE3 hashes: its rows in order, each value's `u64`
//! little-endian, as the engine lays out a codeword (`docs/FORMAT.md`).

use crate::words::as_le_bytes;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;

/// Bytes in one row of `matrix`.
pub(crate) fn row_bytes<M: Matrix<Poly64>>(matrix: &M) -> u64 {
    8 * matrix.width() as u64
}

/// Bytes of the whole of `matrix`.
pub(crate) fn byte_len<M: Matrix<Poly64>>(matrix: &M) -> u64 {
    row_bytes(matrix) * matrix.height() as u64
}

/// Calls `f` on bytes `start..end` of `matrix`'s byte stream (`end ≤` [`byte_len`], a non-empty
/// range of a matrix at least one value wide). The bytes are borrowed from the matrix's storage
/// when it keeps the rows back to back (a dense matrix, or a flattened view of one), and copied
/// from the rows that hold them otherwise.
pub(crate) fn with_bytes<M: Matrix<Poly64>, R>(
    matrix: &M,
    start: u64,
    end: u64,
    f: impl FnOnce(&[u8]) -> R,
) -> R {
    let row = row_bytes(matrix);
    debug_assert!(row > 0 && start < end && end <= byte_len(matrix));
    let (first, last) = ((start / row) as usize, end.div_ceil(row) as usize);
    let skip = (start % row) as usize;
    let len = (end - start) as usize;
    if let Some(rows) = matrix.contiguous_rows(first..last) {
        return f(&as_le_bytes(&rows)[skip..skip + len]);
    }
    let mut bytes = Vec::with_capacity((last - first) * row as usize);
    for r in first..last {
        let values = matrix
            .row_slice(r)
            .expect("the rows of a byte range lie inside the matrix");
        bytes.extend_from_slice(&as_le_bytes(&values));
    }
    f(&bytes[skip..skip + len])
}
