//! The commitment a prover publishes.

use serde::{Deserialize, Serialize};

use crate::error::RootHexError;
use crate::hex_serde;
use crate::scheme::{HashKind, Scheme, SchemeError, TreeKind};
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

/// A commitment to a codeword of `2^log_rows` rows × `lanes` words.
///
/// With the default [`Scheme`] (the BLAKE3 chunk tree), the commitment is one root: the standard,
/// unkeyed BLAKE3 hash of the codeword's bytes (rows in order, the lanes of a row in order, every
/// word as 8 little-endian bytes), so `b3sum` of a saved codeword prints it. With a row tree it is
/// the tree's cap: the `2^min(cap_height, log_rows)` digests at that level (one, the root, for
/// cap height 0), exactly Plonky3's `MerkleTreeMmcs` commitment to the codeword as a
/// `RowMajorMatrix<Poly64>` of width `lanes`.
///
/// The digests do not bind the shape: a verifier takes the shape from parameters it trusts.
/// The shape is within the limits of [`CodewordShape`] by construction; in JSON the commitment is
/// `{"format_version", "root" (lowercase hex), "log_rows", "lanes", "basis"}` for the chunk tree
/// and `{"format_version", "log_rows", "lanes", "basis", "tree": "rows", "hash", "cap_height",
/// "cap" (a list of hex digests)}` for a row tree.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Commitment {
    /// One digest for the chunk tree; the cap for a row tree.
    cap: Vec<[u8; 32]>,
    shape: CodewordShape,
    basis: Basis,
    scheme: Scheme,
}

/// The digests in hex, as `root_hex` and the JSON write them (not as lists of decimal bytes).
impl core::fmt::Debug for Commitment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        /// A digest whose `Debug` is its hex.
        struct Hex<'a>(&'a [u8; 32]);
        impl core::fmt::Debug for Hex<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(&hex::encode(self.0))
            }
        }
        f.debug_struct("Commitment")
            .field("cap", &self.cap.iter().map(Hex).collect::<Vec<_>>())
            .field("shape", &self.shape)
            .field("basis", &self.basis)
            .field("scheme", &self.scheme)
            .finish()
    }
}

/// The serialized form, checked on the way in.
#[derive(Serialize, Deserialize)]
struct CommitmentJson {
    format_version: u32,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "hex_serde::optional_digest"
    )]
    root: Option<[u8; 32]>,
    log_rows: u32,
    lanes: usize,
    #[serde(default)]
    basis: Basis,
    #[serde(default, skip_serializing_if = "is_chunks")]
    tree: TreeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hash: Option<HashKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cap_height: Option<u32>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "hex_serde::optional_digests"
    )]
    cap: Option<Vec<[u8; 32]>>,
}

fn is_chunks(tree: &TreeKind) -> bool {
    *tree == TreeKind::Chunks
}

/// The form in binary serde formats (postcard, bincode: no optional fields), checked on the
/// way in like the JSON form.
#[derive(Serialize, Deserialize)]
struct CommitmentBinary {
    format_version: u32,
    #[serde(with = "hex_serde::digests")]
    cap: Vec<[u8; 32]>,
    log_rows: u32,
    lanes: usize,
    basis: Basis,
    tree: TreeKind,
    hash: HashKind,
    cap_height: u32,
}

impl Serialize for Commitment {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            CommitmentJson::from(self.clone()).serialize(serializer)
        } else {
            CommitmentBinary {
                format_version: COMMITMENT_FORMAT_VERSION,
                cap: self.cap.clone(),
                log_rows: self.shape.log_rows(),
                lanes: self.shape.lanes(),
                basis: self.basis,
                tree: self.scheme.tree(),
                hash: self.scheme.hash(),
                cap_height: self.scheme.cap_height(),
            }
            .serialize(serializer)
        }
    }
}

impl<'de> Deserialize<'de> for Commitment {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        if deserializer.is_human_readable() {
            Self::try_from(CommitmentJson::deserialize(deserializer)?).map_err(D::Error::custom)
        } else {
            let b = CommitmentBinary::deserialize(deserializer)?;
            let checked = || -> Result<Self, CommitmentJsonError> {
                if b.format_version != COMMITMENT_FORMAT_VERSION {
                    return Err(CommitmentJsonError::Version(b.format_version));
                }
                let shape = CodewordShape::new(b.log_rows, b.lanes)?;
                let scheme = Scheme::new(b.tree, b.hash, b.cap_height)?;
                Ok(Self::with_cap(scheme, b.cap, shape)?.with_basis(b.basis))
            };
            checked().map_err(D::Error::custom)
        }
    }
}

/// Why a serialized commitment is refused.
#[derive(Debug, thiserror::Error)]
enum CommitmentJsonError {
    #[error("commitment format version {0} is not {COMMITMENT_FORMAT_VERSION}")]
    Version(u32),
    #[error(transparent)]
    Shape(#[from] CodewordShapeError),
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    #[error(transparent)]
    Cap(#[from] CapLengthError),
    #[error("a chunk-tree commitment has a \"root\" and no \"cap\"")]
    ChunksFields,
    #[error("a row-tree commitment has \"hash\", \"cap_height\" and \"cap\", and no \"root\"")]
    RowsFields,
}

/// The cap does not have the digests the scheme and shape call for.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("a cap of height {cap_height} over 2^{log_rows} rows has {expected} digests, not {found}")]
pub struct CapLengthError {
    cap_height: u32,
    log_rows: u32,
    expected: usize,
    found: usize,
}

impl TryFrom<CommitmentJson> for Commitment {
    type Error = CommitmentJsonError;
    fn try_from(j: CommitmentJson) -> Result<Self, Self::Error> {
        if j.format_version != COMMITMENT_FORMAT_VERSION {
            return Err(CommitmentJsonError::Version(j.format_version));
        }
        let shape = CodewordShape::new(j.log_rows, j.lanes)?;
        let commitment = match (j.tree, j.root, j.hash, j.cap_height, j.cap) {
            (TreeKind::Chunks, Some(root), None, None, None) => Self::new(root, shape),
            (TreeKind::Chunks, ..) => return Err(CommitmentJsonError::ChunksFields),
            (TreeKind::Rows, None, Some(hash), Some(cap_height), Some(cap)) => {
                Self::with_cap(Scheme::rows(hash, cap_height)?, cap, shape)?
            }
            (TreeKind::Rows, ..) => return Err(CommitmentJsonError::RowsFields),
        };
        Ok(commitment.with_basis(j.basis))
    }
}

impl From<Commitment> for CommitmentJson {
    fn from(c: Commitment) -> Self {
        let rows = c.scheme.tree() == TreeKind::Rows;
        Self {
            format_version: COMMITMENT_FORMAT_VERSION,
            root: (!rows).then(|| c.cap[0]),
            log_rows: c.shape.log_rows(),
            lanes: c.shape.lanes(),
            basis: c.basis,
            tree: c.scheme.tree(),
            hash: rows.then(|| c.scheme.hash()),
            cap_height: rows.then(|| c.scheme.cap_height()),
            cap: rows.then_some(c.cap),
        }
    }
}

impl Commitment {
    /// The BLAKE3 chunk-tree commitment to a codeword of this shape whose bytes hash to `root`,
    /// in the [default basis](Basis::Polynomial).
    pub fn new(root: [u8; 32], shape: CodewordShape) -> Self {
        Self {
            cap: vec![root],
            shape,
            basis: Basis::default(),
            scheme: Scheme::chunks(),
        }
    }

    /// The commitment of `scheme` to a codeword of this shape: `cap` holds
    /// [`scheme.cap_len(log_rows)`](Scheme::cap_len) digests (the root alone for the chunk tree).
    ///
    /// # Errors
    /// [`CapLengthError`] when `cap` has another number of digests.
    pub fn with_cap(
        scheme: Scheme,
        cap: Vec<[u8; 32]>,
        shape: CodewordShape,
    ) -> Result<Self, CapLengthError> {
        let expected = scheme.cap_len(shape.log_rows());
        if cap.len() != expected {
            return Err(CapLengthError {
                cap_height: scheme.cap_height(),
                log_rows: shape.log_rows(),
                expected,
                found: cap.len(),
            });
        }
        Ok(Self {
            cap,
            shape,
            basis: Basis::default(),
            scheme,
        })
    }

    /// The same commitment, recording another evaluation basis.
    pub fn with_basis(mut self, basis: Basis) -> Self {
        self.basis = basis;
        self
    }

    /// The root: BLAKE3 of the codeword bytes for the chunk tree, the tree's root for a row
    /// tree of cap height 0. For a larger cap, its first digest: see [`cap`](Self::cap).
    pub fn root(&self) -> [u8; 32] {
        self.cap[0]
    }

    /// The committed digests: the root alone, or a row tree's cap from left to right.
    pub fn cap(&self) -> &[[u8; 32]] {
        &self.cap
    }

    /// The tree, hash and cap height.
    pub fn scheme(&self) -> Scheme {
        self.scheme
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

    /// The root (the first digest of a cap) as 64 lowercase hex digits.
    pub fn root_hex(&self) -> String {
        hex::encode(self.cap[0])
    }

    /// Every committed digest as 64 lowercase hex digits.
    pub fn cap_hex(&self) -> Vec<String> {
        self.cap.iter().map(hex::encode).collect()
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
        match self.cap.len() {
            1 => write!(f, "{} ({}, {})", self.root_hex(), self.shape, self.scheme),
            n => write!(
                f,
                "{}… (cap of {n}; {}, {})",
                self.root_hex(),
                self.shape,
                self.scheme
            ),
        }
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

    #[test]
    fn debug_prints_the_digests_in_hex() {
        let c = Commitment::new([0xab; 32], CodewordShape::new(3, 5).expect("valid"));
        let debug = format!("{c:?}");
        assert!(
            debug.starts_with(&format!("Commitment {{ cap: [{}], ", "ab".repeat(32))),
            "{debug}"
        );
        assert!(!debug.contains("171"), "{debug}");
    }
}
