//! The commitment a prover publishes.

use serde::{Deserialize, Serialize};

use crate::error::RootHexError;
use crate::hex_serde;
use crate::shape::{CodewordShape, CodewordShapeError};

/// Version of the commitment's serialized form (`format_version` in JSON, `docs/FORMAT.md`).
pub const COMMITMENT_FORMAT_VERSION: u32 = 1;

/// The evaluation basis a committed codeword was encoded in. The root does not depend on it (it
/// hashes the codeword bytes), but a caller checking the rows' values does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Basis {
    /// The Lin-Chung-Han novel polynomial basis over the subspace of `x^0 … x^(log_rows−1)`.
    #[default]
    Polynomial,
    /// The Cantor basis (v0 = 1, v_i^2 + v_i = v_(i−1)), the domain of Plonky3's binary
    /// `domain_point` over GF(2^64).
    Cantor,
    /// A basis of the caller's own vectors (the commitment records only that it was custom).
    Custom,
}

impl core::fmt::Display for Basis {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Polynomial => "polynomial",
            Self::Cantor => "cantor",
            Self::Custom => "custom",
        })
    }
}

/// A BLAKE3 commitment to a codeword of `2^log_rows` rows × `lanes` words.
///
/// `root` is the standard, unkeyed BLAKE3 hash of the codeword's bytes: rows in order, the lanes
/// of a row in order, every word as 8 little-endian bytes. `b3sum` of a saved codeword prints it.
/// The root does not bind the shape: a verifier takes the shape from parameters it trusts.
/// The shape is within the limits of [`CodewordShape`] by construction; in JSON the commitment is
/// `{"format_version", "root" (lowercase hex), "log_rows", "lanes", "basis"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "CommitmentJson", into = "CommitmentJson")]
pub struct Commitment {
    root: [u8; 32],
    shape: CodewordShape,
    basis: Basis,
}

/// The serialized form, checked on the way in.
#[derive(Serialize, Deserialize)]
struct CommitmentJson {
    format_version: u32,
    #[serde(with = "hex_serde::digest")]
    root: [u8; 32],
    log_rows: u32,
    lanes: usize,
    #[serde(default)]
    basis: Basis,
}

/// Why a serialized commitment is refused.
#[derive(Debug, thiserror::Error)]
enum CommitmentJsonError {
    #[error("commitment format version {0} is not {COMMITMENT_FORMAT_VERSION}")]
    Version(u32),
    #[error(transparent)]
    Shape(#[from] CodewordShapeError),
}

impl TryFrom<CommitmentJson> for Commitment {
    type Error = CommitmentJsonError;
    fn try_from(j: CommitmentJson) -> Result<Self, Self::Error> {
        if j.format_version != COMMITMENT_FORMAT_VERSION {
            return Err(CommitmentJsonError::Version(j.format_version));
        }
        Ok(Self::new(j.root, CodewordShape::new(j.log_rows, j.lanes)?).with_basis(j.basis))
    }
}

impl From<Commitment> for CommitmentJson {
    fn from(c: Commitment) -> Self {
        Self {
            format_version: COMMITMENT_FORMAT_VERSION,
            root: c.root,
            log_rows: c.shape.log_rows(),
            lanes: c.shape.lanes(),
            basis: c.basis,
        }
    }
}

impl Commitment {
    /// The commitment to a codeword of this shape whose bytes hash to `root`, in the
    /// [default basis](Basis::Polynomial).
    pub fn new(root: [u8; 32], shape: CodewordShape) -> Self {
        Self {
            root,
            shape,
            basis: Basis::default(),
        }
    }

    /// The same commitment, recording another evaluation basis.
    pub fn with_basis(mut self, basis: Basis) -> Self {
        self.basis = basis;
        self
    }

    /// BLAKE3 of the codeword bytes.
    pub fn root(&self) -> [u8; 32] {
        self.root
    }

    /// The codeword's shape.
    pub fn shape(&self) -> CodewordShape {
        self.shape
    }

    /// Base-2 log of the number of codeword rows.
    pub fn log_rows(&self) -> u32 {
        self.shape.log_rows()
    }

    /// Words per row.
    pub fn lanes(&self) -> usize {
        self.shape.lanes()
    }

    /// Number of codeword rows.
    pub fn rows(&self) -> u64 {
        self.shape.rows()
    }

    /// The evaluation basis recorded with the commitment.
    pub fn basis(&self) -> Basis {
        self.basis
    }

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
    /// use ntt_verify::Commitment;
    /// let root = Commitment::parse_root_hex(&"ab".repeat(32))?;
    /// assert_eq!(root, [0xab; 32]);
    /// assert!(Commitment::parse_root_hex("abc").is_err());
    /// # Ok::<(), ntt_verify::RootHexError>(())
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
}

impl core::fmt::Display for Commitment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({})", self.root_hex(), self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_carries_the_version_and_is_checked() {
        let c = Commitment::new([0xab; 32], CodewordShape::new(3, 5).expect("valid"));
        let json = serde_json::to_string(&c).expect("serializes");
        assert_eq!(
            json,
            format!(
                r#"{{"format_version":1,"root":"{}","log_rows":3,"lanes":5,"basis":"polynomial"}}"#,
                "ab".repeat(32)
            )
        );
        assert_eq!(serde_json::from_str::<Commitment>(&json).expect("reads"), c);
        let without_basis = json.replace(r#","basis":"polynomial""#, "");
        assert_eq!(
            serde_json::from_str::<Commitment>(&without_basis).expect("default basis"),
            c
        );
        for bad in [
            json.replace(r#""format_version":1"#, r#""format_version":2"#),
            json.replace(r#""lanes":5"#, r#""lanes":0"#),
            json.replace(r#""log_rows":3"#, r#""log_rows":60"#),
            json.replace("polynomial", "monomial"),
            json.replace(r#""format_version":1,"#, ""),
        ] {
            assert!(serde_json::from_str::<Commitment>(&bad).is_err(), "{bad}");
        }
    }
}
