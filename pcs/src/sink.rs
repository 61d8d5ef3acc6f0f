//! The hand-off from the encoder to whoever consumes finished rows.

/// Receives blocks of finished, final codeword rows.
///
/// The encoder calls [`RowSink::absorb`] from the task that finished the rows, while they are
/// still in that worker's cache. `rows` holds whole rows (`rows.len() == row_count · lanes`),
/// starting at row `first_row`. Over one encode every row is handed over exactly once, in aligned
/// blocks that all have the same power-of-two row count.
pub trait RowSink: Sync {
    /// Takes the finished rows `first_row ..` (whole rows of `lanes` words each).
    fn absorb(&self, first_row: usize, rows: &[u64]);
}

impl<F: Fn(usize, &[u64]) + Sync> RowSink for F {
    fn absorb(&self, first_row: usize, rows: &[u64]) {
        self(first_row, rows);
    }
}
