//! What an encode is asked to do: the codeword's shape, the message's layout, and the one set of
//! limits every layer (CLI, encoder, committer, planner, wisdom, verifier) checks them against.
//!
//! The limits:
//! - a codeword has at least one lane and at most 2^[`MAX_LOG_CODEWORD_BYTES`] bytes (so at most
//!   2^[`MAX_LOG_ROWS`] rows); the verifier accepts exactly these codewords;
//! - the message has at least one row (`log_inv_rate ≤ log_rows`);
//! - the codeword fits this host's address space (binds only on 32-bit hosts);
//! - a codeword more than 2^[`MAX_BOUNDED_LOG_INV_RATE`] times its message (rate below 1/16) is
//!   almost certainly a typo, and is refused unless [`Expansion::Unbounded`] asks for it;
//! - buffers larger than the memory the machine offers are refused before they are allocated
//!   ([`memory`]).
//!
//! A [`Shape`] can only be made by its validating constructors, so a shape in hand is within
//! the limits and the layers below never check again.

mod layout;
pub mod memory;
mod params;

pub use layout::MessageLayout;
// The verifier's part of the shape (rows and lanes of a codeword) and its limits live in
// `ntt-verify`, so that a verifier can be built without the prover.
pub use ntt_verify::shape::{CodewordShape, CodewordShapeError, MAX_LOG_CODEWORD_BYTES, MAX_LOG_ROWS};
pub use params::{CommitLanes, CommitParams};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest log inverse rate allowed without asking: a codeword 16 times its witness. Rates
/// below 1/16 cost more than 16× the witness in memory and time for little soundness gained.
pub const MAX_BOUNDED_LOG_INV_RATE: u32 = 4;

/// How far a codeword may expand its message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Expansion {
    /// Up to 2^[`MAX_BOUNDED_LOG_INV_RATE`] times.
    #[default]
    Bounded,
    /// Any rate the size limits allow; for callers that asked for a large expansion explicitly.
    Unbounded,
}

/// Why a shape cannot be encoded (or not on this machine).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeError {
    /// The codeword itself is outside the limits.
    #[error(transparent)]
    Codeword(#[from] CodewordShapeError),
    /// A buffer of words is not a whole number of rows.
    #[error("{words} words are not a whole number of rows of {lanes} lanes")]
    RaggedRows {
        /// Words in the buffer.
        words: usize,
        /// Words per row.
        lanes: usize,
    },
    /// The row count is not a power of two (or zero).
    #[error("{words} words are {rows} rows of {lanes} lanes; the row count must be a power of two")]
    RowsNotPowerOfTwo {
        /// Words in the buffer.
        words: usize,
        /// Words per row.
        lanes: usize,
        /// The rows they make.
        rows: usize,
    },
    /// The message would have less than one row.
    #[error(
        "log inverse rate {log_inv_rate} is more than log rows {log_rows}: the message would have less than one row"
    )]
    RateAboveRows {
        /// The log inverse rate asked for.
        log_inv_rate: u32,
        /// Log of the codeword's rows.
        log_rows: u32,
    },
    /// A very large expansion that was not asked for explicitly.
    #[error(
        "log inverse rate {log_inv_rate} makes the codeword 2^{log_inv_rate} times the witness; \
         more than 2^{MAX_BOUNDED_LOG_INV_RATE} must be allowed explicitly (--allow-large-expansion)"
    )]
    LargeExpansion {
        /// The log inverse rate asked for.
        log_inv_rate: u32,
    },
    /// The codeword does not fit this host's address space.
    #[error("{shape} does not fit this machine's address space")]
    Unaddressable {
        /// The codeword asked for.
        shape: CodewordShape,
    },
    /// A buffer needs more memory than the machine offers now.
    #[error(
        "{what} needs {} of memory, more than the {} available ({limited_by})",
        memory::human_bytes(*needed),
        memory::human_bytes(*available)
    )]
    ExceedsMemory {
        /// What the buffer is for.
        what: &'static str,
        /// Bytes the buffer needs.
        needed: u64,
        /// Bytes the machine offers now.
        available: u64,
        /// What sets the limit (available memory, a cgroup limit).
        limited_by: &'static str,
    },
}

/// The shape of an encode: a codeword of 2^log_rows rows × `lanes` words at rate
/// 1/2^log_inv_rate (the message has 2^(log_rows − log_inv_rate) rows). Within the limits of
/// this module by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ShapeFields", into = "ShapeFields")]
pub struct Shape {
    codeword: CodewordShape,
    log_inv_rate: u32,
}

/// The serialized form (plans and wisdom files): the three numbers, checked on the way in. A
/// stored shape was made under an explicit choice of expansion, so any expansion is accepted.
#[derive(Serialize, Deserialize)]
struct ShapeFields {
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
}

impl TryFrom<ShapeFields> for Shape {
    type Error = ShapeError;
    fn try_from(f: ShapeFields) -> Result<Self, ShapeError> {
        Self::with_expansion(f.log_rows, f.lanes, f.log_inv_rate, Expansion::Unbounded)
    }
}

impl From<Shape> for ShapeFields {
    fn from(s: Shape) -> Self {
        Self {
            log_rows: s.log_rows(),
            lanes: s.lanes(),
            log_inv_rate: s.log_inv_rate,
        }
    }
}

impl Shape {
    /// A codeword of `2^log_rows` rows × `lanes` words at rate 1/2^log_inv_rate, with at most
    /// the [bounded](Expansion::Bounded) expansion.
    ///
    /// # Errors
    /// A [`ShapeError`] naming the limit the shape breaks.
    ///
    /// ```
    /// use ntt_pcs::{Shape, ShapeError};
    /// let shape = Shape::new(20, 64, 1)?;
    /// assert_eq!((shape.message_rows(), shape.codeword_words()), (1 << 19, 64 << 20));
    /// assert!(matches!(Shape::new(20, 64, 5), Err(ShapeError::LargeExpansion { .. })));
    /// assert!(matches!(Shape::new(3, 64, 4), Err(ShapeError::RateAboveRows { .. })));
    /// # Ok::<(), ShapeError>(())
    /// ```
    pub fn new(log_rows: u32, lanes: usize, log_inv_rate: u32) -> Result<Self, ShapeError> {
        Self::with_expansion(log_rows, lanes, log_inv_rate, Expansion::Bounded)
    }

    /// As [`new`](Self::new), with the expansion allowed stated.
    ///
    /// # Errors
    /// As for [`new`](Self::new).
    pub fn with_expansion(
        log_rows: u32,
        lanes: usize,
        log_inv_rate: u32,
        expansion: Expansion,
    ) -> Result<Self, ShapeError> {
        let log_message_rows = log_rows
            .checked_sub(log_inv_rate)
            .ok_or(ShapeError::RateAboveRows {
                log_inv_rate,
                log_rows,
            })?;
        Self::for_message(log_message_rows, lanes, log_inv_rate, expansion)
    }

    /// The shape that encodes a message of `2^log_message_rows` rows × `lanes` words at rate
    /// 1/2^log_inv_rate. Every constructor ends here: this is where the limits are checked.
    ///
    /// # Errors
    /// A [`ShapeError`] naming the limit the shape breaks; never an overflow, whatever the
    /// numbers.
    pub fn for_message(
        log_message_rows: u32,
        lanes: usize,
        log_inv_rate: u32,
        expansion: Expansion,
    ) -> Result<Self, ShapeError> {
        if expansion == Expansion::Bounded && log_inv_rate > MAX_BOUNDED_LOG_INV_RATE {
            return Err(ShapeError::LargeExpansion { log_inv_rate });
        }
        let log_rows = u64::from(log_message_rows) + u64::from(log_inv_rate);
        let codeword = CodewordShape::from_wide(log_rows, lanes)?;
        let addressable = usize::try_from(codeword.bytes()).is_ok_and(|b| b <= isize::MAX as usize);
        if !addressable {
            return Err(ShapeError::Unaddressable { shape: codeword });
        }
        Ok(Self {
            codeword,
            log_inv_rate,
        })
    }

    /// The shape that encodes a witness of `words` words in `lanes` lanes (a power-of-two
    /// number of rows) at rate 1/2^log_inv_rate.
    ///
    /// # Errors
    /// [`ShapeError::RaggedRows`] or [`ShapeError::RowsNotPowerOfTwo`] for a witness that is
    /// not a power-of-two number of whole rows; otherwise as for [`new`](Self::new).
    pub fn of_witness(
        words: usize,
        lanes: usize,
        log_inv_rate: u32,
        expansion: Expansion,
    ) -> Result<Self, ShapeError> {
        let log_rows = log_whole_rows(words, lanes)?;
        Self::for_message(log_rows, lanes, log_inv_rate, expansion)
    }

    /// The shape of an existing codeword buffer of `words` words. The buffer exists, so the
    /// expansion is not guarded.
    pub(crate) fn of_codeword(words: usize, lanes: usize, log_inv_rate: u32) -> Result<Self, ShapeError> {
        let log_rows = log_whole_rows(words, lanes)?;
        Self::with_expansion(log_rows, lanes, log_inv_rate, Expansion::Unbounded)
    }

    /// The codeword part of the shape (what a verifier knows).
    pub fn codeword(&self) -> CodewordShape {
        self.codeword
    }
    /// Base-2 log of the codeword's rows.
    pub fn log_rows(&self) -> u32 {
        self.codeword.log_rows()
    }
    /// Words per row.
    pub fn lanes(&self) -> usize {
        self.codeword.lanes()
    }
    /// Base-2 log of the inverse rate.
    pub fn log_inv_rate(&self) -> u32 {
        self.log_inv_rate
    }
    /// Rows of the codeword.
    pub fn rows(&self) -> usize {
        1usize << self.log_rows()
    }
    /// Words of the codeword.
    pub fn codeword_words(&self) -> usize {
        self.lanes() << self.log_rows()
    }
    /// Bytes of the codeword.
    pub fn codeword_bytes(&self) -> u64 {
        self.codeword.bytes()
    }
    /// Base-2 log of the message's rows.
    pub fn log_message_rows(&self) -> u32 {
        self.log_rows() - self.log_inv_rate
    }
    /// Rows of the message.
    pub fn message_rows(&self) -> usize {
        1usize << self.log_message_rows()
    }
    /// Words of the message.
    pub fn message_words(&self) -> usize {
        self.lanes() << self.log_message_rows()
    }
    /// Lane-butterflies the encode performs: rows/2 × (log_rows − r) × lanes.
    pub fn lane_butterflies(&self) -> u64 {
        (self.rows() as u64 / 2) * u64::from(self.log_message_rows()) * self.lanes() as u64
    }
}

/// `log2(words / lanes)` for a buffer of a power-of-two number of whole rows.
fn log_whole_rows(words: usize, lanes: usize) -> Result<u32, ShapeError> {
    if lanes == 0 {
        return Err(CodewordShapeError::ZeroLanes.into());
    }
    if !words.is_multiple_of(lanes) {
        return Err(ShapeError::RaggedRows { words, lanes });
    }
    let rows = words / lanes;
    if !rows.is_power_of_two() {
        return Err(ShapeError::RowsNotPowerOfTwo { words, lanes, rows });
    }
    Ok(rows.trailing_zeros())
}

impl core::fmt::Display for Shape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}, rate 1/2^{}", self.codeword, self.log_inv_rate)
    }
}

#[cfg(test)]
mod tests;
