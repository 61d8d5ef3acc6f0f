//! The hand-off from the encoder to whoever consumes finished rows.

use std::sync::OnceLock;

/// Receives blocks of finished, final codeword rows.
///
/// The encoder calls [`RowSink::absorb`] from the task that finished the rows, while they are
/// still in that worker's cache. `rows` holds whole rows (`rows.len() == row_count · lanes`),
/// starting at row `first_row`. Over one encode every row is handed over exactly once, in aligned
/// blocks that all have the same power-of-two row count.
///
/// A sink that is handed something it cannot take (a block twice, misaligned, past the end: a
/// caller other than the encoder can do anything) returns a [`RowSinkError`]; the encoder then
/// hands it nothing more and the encode returns [`EncodeError::Sink`] with the first such error.
///
/// [`EncodeError::Sink`]: crate::EncodeError::Sink
pub trait RowSink: Sync {
    /// Takes the finished rows `first_row ..` (whole rows of `lanes` words each).
    ///
    /// # Errors
    /// A [`RowSinkError`] saying why the block cannot be taken.
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError>;
}

/// A closure that takes every block it is given.
impl<F: Fn(usize, &[u64]) + Sync> RowSink for F {
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        self(first_row, rows);
        Ok(())
    }
}

/// Why a [`RowSink`] refused a block of rows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct RowSinkError {
    reason: String,
}

impl RowSinkError {
    /// An error saying `reason` (for example which block was refused and why).
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }

    /// Why the block was refused.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// The encoder's side of a sink: hands blocks over until the sink refuses one, then keeps the
/// first refusal for the encode to return.
pub(crate) struct GuardedSink<'a> {
    sink: &'a dyn RowSink,
    refused: OnceLock<RowSinkError>,
}

impl<'a> GuardedSink<'a> {
    pub(crate) fn new(sink: &'a dyn RowSink) -> Self {
        Self {
            sink,
            refused: OnceLock::new(),
        }
    }

    /// Hands rows `first_row ..` to the sink, unless it has refused a block already.
    pub(crate) fn hand_over(&self, first_row: usize, rows: &[u64]) {
        if self.refused.get().is_some() {
            return;
        }
        if let Err(e) = self.sink.absorb(first_row, rows) {
            // Concurrent refusals: the first one recorded is kept.
            let _ = self.refused.set(e);
        }
    }

    /// The first refusal, if any.
    pub(crate) fn into_refusal(self) -> Option<RowSinkError> {
        self.refused.into_inner()
    }
}
