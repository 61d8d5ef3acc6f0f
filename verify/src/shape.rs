//! The verifier's part of a shape: how many rows a codeword has and how many words each row
//! holds, within the one set of limits every layer shares.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest codeword, in bytes, as a log: 2^62 bytes (4 EiB). Every byte offset a prover or a
/// verifier computes then stays a factor of four below `u64` overflow, and on a 64-bit host
/// every codeword fits an allocation (`isize::MAX` is 2^63 − 1).
pub const MAX_LOG_CODEWORD_BYTES: u32 = 62;

/// Most codeword rows, as a log: a one-lane codeword of 2^59 rows is 2^62 bytes. (The encoder's
/// twiddle table would allow 2^62 rows; the byte limit binds first.)
pub const MAX_LOG_ROWS: u32 = MAX_LOG_CODEWORD_BYTES - 3;

/// A codeword of `2^log_rows` rows of `lanes` 8-byte words: at least one lane, at most
/// 2^[`MAX_LOG_CODEWORD_BYTES`] bytes. Only [`CodewordShape::new`] (and deserialization, which
/// calls it) makes one, so every value in hand is within the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "CodewordFields", into = "CodewordFields")]
pub struct CodewordShape {
    log_rows: u32,
    lanes: usize,
}

/// The serialized form: the two numbers, checked on the way in.
#[derive(Serialize, Deserialize)]
struct CodewordFields {
    log_rows: u32,
    lanes: usize,
}

impl TryFrom<CodewordFields> for CodewordShape {
    type Error = CodewordShapeError;
    fn try_from(f: CodewordFields) -> Result<Self, Self::Error> {
        Self::new(f.log_rows, f.lanes)
    }
}

impl From<CodewordShape> for CodewordFields {
    fn from(s: CodewordShape) -> Self {
        Self {
            log_rows: s.log_rows,
            lanes: s.lanes,
        }
    }
}

/// Why a codeword shape cannot exist.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodewordShapeError {
    /// A row holds at least one word.
    #[error("the number of lanes must be at least 1")]
    ZeroLanes,
    /// More than 2^[`MAX_LOG_CODEWORD_BYTES`] bytes. `log_rows` is wide enough to report a sum
    /// that overflowed the caller's arithmetic.
    #[error(
        "2^{log_rows} rows × {lanes} lanes of 8-byte words is more than 2^{MAX_LOG_CODEWORD_BYTES} bytes, the largest codeword supported"
    )]
    TooLarge {
        /// Log of the rows asked for.
        log_rows: u64,
        /// Words per row.
        lanes: usize,
    },
}

impl CodewordShape {
    /// The shape of a codeword of `2^log_rows` rows × `lanes` words.
    ///
    /// # Errors
    /// [`CodewordShapeError::ZeroLanes`], or [`CodewordShapeError::TooLarge`] past
    /// 2^[`MAX_LOG_CODEWORD_BYTES`] bytes.
    pub fn new(log_rows: u32, lanes: usize) -> Result<Self, CodewordShapeError> {
        Self::from_wide(u64::from(log_rows), lanes)
    }

    /// As [`new`](Self::new), for a `log_rows` computed as a sum that may exceed `u32`.
    ///
    /// # Errors
    /// As for [`new`](Self::new).
    pub fn from_wide(log_rows: u64, lanes: usize) -> Result<Self, CodewordShapeError> {
        if lanes == 0 {
            return Err(CodewordShapeError::ZeroLanes);
        }
        let too_large = CodewordShapeError::TooLarge { log_rows, lanes };
        // 8 · lanes · 2^log_rows ≤ 2^62  ⇔  lanes ≤ 2^(59 − log_rows).
        let log_rows_u32 = u32::try_from(log_rows)
            .ok()
            .filter(|&l| l <= MAX_LOG_ROWS)
            .ok_or(too_large.clone())?;
        if lanes as u64 > 1u64 << (MAX_LOG_ROWS - log_rows_u32) {
            return Err(too_large);
        }
        Ok(Self {
            log_rows: log_rows_u32,
            lanes,
        })
    }

    /// Base-2 log of the number of rows.
    pub fn log_rows(&self) -> u32 {
        self.log_rows
    }

    /// Words per row.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Number of rows.
    pub fn rows(&self) -> u64 {
        1u64 << self.log_rows
    }

    /// Bytes per row.
    pub fn row_bytes(&self) -> u64 {
        8 * self.lanes as u64
    }

    /// Bytes of the whole codeword (at most 2^[`MAX_LOG_CODEWORD_BYTES`]).
    pub fn bytes(&self) -> u64 {
        self.row_bytes() << self.log_rows
    }
}

impl core::fmt::Display for CodewordShape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "2^{} rows × {} lanes", self.log_rows, self.lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_limit_is_exact() {
        let largest = CodewordShape::new(MAX_LOG_ROWS, 1).expect("2^62 bytes");
        assert_eq!(largest.bytes(), 1 << MAX_LOG_CODEWORD_BYTES);
        assert_eq!(CodewordShape::new(50, 512).expect("2^62 bytes").bytes(), 1 << 62);
        assert_eq!(CodewordShape::new(50, 511).expect("under").bytes(), 511 << 53);
        for (log_rows, lanes) in [(50, 513), (MAX_LOG_ROWS + 1, 1), (0, 1 << 60), (u32::MAX, 1)] {
            assert_eq!(
                CodewordShape::new(log_rows, lanes),
                Err(CodewordShapeError::TooLarge {
                    log_rows: log_rows.into(),
                    lanes
                }),
                "2^{log_rows} × {lanes}"
            );
        }
        assert_eq!(CodewordShape::new(3, 0), Err(CodewordShapeError::ZeroLanes));
    }

    #[test]
    fn messages_do_not_contradict_themselves() {
        // 2^62 rows of 64 lanes is 2^71 bytes: the message names bytes, not rows.
        let err = CodewordShape::new(62, 64).unwrap_err().to_string();
        assert_eq!(
            err,
            "2^62 rows × 64 lanes of 8-byte words is more than 2^62 bytes, the largest codeword supported"
        );
    }

    #[test]
    fn deserializing_checks_the_limits() {
        let ok: CodewordShape = serde_json::from_str(r#"{"log_rows":4,"lanes":3}"#).expect("valid");
        assert_eq!(
            (ok.log_rows(), ok.lanes(), ok.rows(), ok.bytes()),
            (4, 3, 16, 384)
        );
        assert_eq!(
            serde_json::to_string(&ok).expect("serializes"),
            r#"{"log_rows":4,"lanes":3}"#
        );
        assert!(serde_json::from_str::<CodewordShape>(r#"{"log_rows":4,"lanes":0}"#).is_err());
        assert!(serde_json::from_str::<CodewordShape>(r#"{"log_rows":60,"lanes":1}"#).is_err());
    }
}
