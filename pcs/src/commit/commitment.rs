//! The commitment a prover publishes.

use serde::{Deserialize, Serialize};

use super::error::RootHexError;
use super::hex_serde;
use crate::domain::BasisName;

/// A BLAKE3 commitment to a codeword of `2^log_rows` rows × `lanes` words.
///
/// `root` is the standard, unkeyed BLAKE3 hash of the codeword's bytes: rows in order, the lanes
/// of a row in order, every word as 8 little-endian bytes. `b3sum` of a saved codeword prints it.
/// In JSON the root is a lowercase hex string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Commitment {
    /// BLAKE3 of the codeword bytes.
    #[serde(with = "hex_serde::digest")]
    pub root: [u8; 32],
    /// Base-2 log of the number of codeword rows.
    pub log_rows: u32,
    /// Words per row.
    pub lanes: usize,
    /// The basis the codeword was evaluated on (absent in older JSON: the polynomial basis). The
    /// root does not depend on it, but a verifier that re-encodes needs it.
    #[serde(default)]
    pub basis: BasisName,
}

impl Commitment {
    /// The root as 64 lowercase hex digits.
    pub fn root_hex(&self) -> String {
        hex::encode(self.root)
    }

    /// Parses a root written as 64 hex digits (either case).
    ///
    /// # Errors
    /// [`RootHexError`] when the text is not 64 hex digits.
    ///
    /// ```
    /// use ntt_pcs::commit::Commitment;
    /// let root = Commitment::parse_root_hex(&"ab".repeat(32))?;
    /// assert_eq!(root, [0xab; 32]);
    /// assert!(Commitment::parse_root_hex("abc").is_err());
    /// # Ok::<(), ntt_pcs::commit::RootHexError>(())
    /// ```
    pub fn parse_root_hex(text: &str) -> Result<[u8; 32], RootHexError> {
        let text = text.trim();
        if text.len() != 64 {
            return Err(RootHexError::Length(text.len()));
        }
        let mut root = [0u8; 32];
        hex::decode_to_slice(text, &mut root).map_err(|e| RootHexError::Digit(e.to_string()))?;
        Ok(root)
    }

    /// Number of codeword rows; `None` when `log_rows` is 64 or more.
    pub fn rows(&self) -> Option<u64> {
        1u64.checked_shl(self.log_rows)
    }
}

impl std::fmt::Display for Commitment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (2^{} rows × {} lanes)",
            self.root_hex(),
            self.log_rows,
            self.lanes
        )
    }
}
