//! Plonky3's matrices as the rows a tree hashes: each value a `u64` little-endian, a dense
//! matrix's adjacent rows borrowed in place.

use crate::words::as_le_bytes;
use ntt_pcs::layers::RowSource;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;
use std::ops::Range;

/// One matrix of a batch, as the tree reads it.
pub(crate) struct MatrixRows<'a, M>(pub(crate) &'a M);

impl<M: Matrix<Poly64>> RowSource for MatrixRows<'_, M> {
    fn height(&self) -> usize {
        self.0.height()
    }

    fn row_bytes(&self) -> usize {
        self.0.width() * size_of::<u64>()
    }

    fn with_contiguous_rows<R>(&self, rows: Range<usize>, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        let values = self.0.contiguous_rows(rows)?;
        Some(f(&as_le_bytes(&values)))
    }

    fn extend_with_row(&self, row: usize, out: &mut Vec<u8>) {
        let values = self
            .0
            .row_slice(row)
            .expect("a hashed row lies inside its matrix");
        out.extend_from_slice(&as_le_bytes(&values));
    }
}
