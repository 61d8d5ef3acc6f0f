//! A proof of either kind: a chunk-tree [`Opening`] or a [`RowOpening`], told apart by their
//! magic bytes.

use crate::error::ProofDecodeError;
use crate::opening::Opening;
use crate::row_opening::RowOpening;

/// An opening of some rows, of the kind the commitment's tree needs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Proof {
    /// Of the BLAKE3 chunk tree: the rows' chunks and sibling chaining values.
    Chunks(Opening),
    /// Of a row tree: the rows and sibling digests.
    Rows(RowOpening),
}

impl Proof {
    /// The proof in the binary format of `docs/FORMAT.md` (magic `B3RO` or `RTRO`).
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::Chunks(opening) => opening.to_bytes(),
            Self::Rows(opening) => opening.to_bytes(),
        }
    }

    /// Decodes either format, by its magic.
    ///
    /// # Errors
    /// As [`Opening::from_bytes`] and [`RowOpening::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofDecodeError> {
        if RowOpening::is_row_opening(bytes) {
            RowOpening::from_bytes(bytes).map(Self::Rows)
        } else {
            Opening::from_bytes(bytes).map(Self::Chunks)
        }
    }
}

impl From<Opening> for Proof {
    fn from(opening: Opening) -> Self {
        Self::Chunks(opening)
    }
}

impl From<RowOpening> for Proof {
    fn from(opening: RowOpening) -> Self {
        Self::Rows(opening)
    }
}

/// A borrowed proof of either kind, as [`verify`](crate::verify) takes it: a `&Proof`, an
/// `&Opening` or a `&RowOpening` converts into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofRef<'a> {
    /// Of the BLAKE3 chunk tree.
    Chunks(&'a Opening),
    /// Of a row tree.
    Rows(&'a RowOpening),
}

impl<'a> From<&'a Proof> for ProofRef<'a> {
    fn from(proof: &'a Proof) -> Self {
        match proof {
            Proof::Chunks(opening) => Self::Chunks(opening),
            Proof::Rows(opening) => Self::Rows(opening),
        }
    }
}

impl<'a> From<&'a Opening> for ProofRef<'a> {
    fn from(opening: &'a Opening) -> Self {
        Self::Chunks(opening)
    }
}

impl<'a> From<&'a RowOpening> for ProofRef<'a> {
    fn from(opening: &'a RowOpening) -> Self {
        Self::Rows(opening)
    }
}
