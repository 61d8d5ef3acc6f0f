//! Which Merkle tree a commitment is: the BLAKE3 chunk tree of the codeword's bytes, or a tree
//! with one leaf per codeword row (Plonky3's `MerkleTreeMmcs` over the codeword as a row-major
//! matrix), hashed with BLAKE3, Keccak-256 or SHA-256, optionally capped.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest cap height a commitment may have: a cap of 2^16 digests is 2 MiB, already far more
/// than any prover publishes.
pub const MAX_CAP_HEIGHT: u32 = 16;

/// The tree's leaves. Exhaustive on purpose: a new tree must be handled at every match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TreeKind {
    /// BLAKE3's own tree over the codeword's bytes, 1 KiB chunk leaves: the root is the plain
    /// BLAKE3 hash of the codeword (`b3sum`).
    #[default]
    Chunks,
    /// One leaf per codeword row (the hash of the row's bytes), binary internal nodes (the hash
    /// of the two child digests concatenated).
    Rows,
}

/// The hash of a row tree's leaves and nodes. Exhaustive on purpose, like [`TreeKind`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HashKind {
    /// BLAKE3 (unkeyed, 32-byte output): Plonky3's `p3_blake3::Blake3`.
    #[default]
    Blake3,
    /// Keccak-256 (the original Keccak padding, as Ethereum): Plonky3's
    /// `p3_keccak::Keccak256Hash`.
    Keccak,
    /// SHA-256 for the leaves and one SHA-256 compression, without padding, for the nodes:
    /// Plonky3's `p3_sha256::Sha256` and `p3_sha256::Sha256Compress`.
    Sha256,
}

impl core::fmt::Display for TreeKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Chunks => "chunks",
            Self::Rows => "rows",
        })
    }
}

impl core::fmt::Display for HashKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Blake3 => "blake3",
            Self::Keccak => "keccak",
            Self::Sha256 => "sha256",
        })
    }
}

/// A commitment scheme: the tree, its hash and its cap height. Only [`Scheme::new`] (and the
/// shorthands) make one, so every value in hand is a combination that exists.
///
/// ```
/// use ntt_verify::{HashKind, Scheme, TreeKind};
/// assert_eq!(Scheme::default(), Scheme::chunks());
/// let rows = Scheme::rows(HashKind::Keccak, 2)?;
/// assert_eq!((rows.tree(), rows.hash(), rows.cap_height()), (TreeKind::Rows, HashKind::Keccak, 2));
/// // The chunk tree is BLAKE3's own and has a single root.
/// assert!(Scheme::new(TreeKind::Chunks, HashKind::Keccak, 0).is_err());
/// assert!(Scheme::new(TreeKind::Chunks, HashKind::Blake3, 1).is_err());
/// # Ok::<(), ntt_verify::SchemeError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Scheme {
    tree: TreeKind,
    hash: HashKind,
    cap_height: u32,
}

/// Why a tree, hash and cap height make no scheme.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemeError {
    /// The chunk tree is BLAKE3's own tree.
    #[error("the chunk tree is BLAKE3's own: hashing with {0} needs the row tree")]
    ChunksHash(HashKind),
    /// The chunk tree has a single root.
    #[error("the chunk tree has a single root: cap height {0} needs the row tree")]
    ChunksCap(u32),
    /// The cap is too large.
    #[error("cap height {0} is above the largest supported, {MAX_CAP_HEIGHT}")]
    CapTooHigh(u32),
}

impl Scheme {
    /// The scheme of `tree` hashed with `hash`, leaving the top `cap_height` levels open.
    ///
    /// # Errors
    /// [`SchemeError`] for a chunk tree with another hash than BLAKE3 or a cap, or a cap height
    /// above [`MAX_CAP_HEIGHT`].
    pub fn new(tree: TreeKind, hash: HashKind, cap_height: u32) -> Result<Self, SchemeError> {
        match tree {
            TreeKind::Chunks if hash != HashKind::Blake3 => Err(SchemeError::ChunksHash(hash)),
            TreeKind::Chunks if cap_height != 0 => Err(SchemeError::ChunksCap(cap_height)),
            _ if cap_height > MAX_CAP_HEIGHT => Err(SchemeError::CapTooHigh(cap_height)),
            _ => Ok(Self {
                tree,
                hash,
                cap_height,
            }),
        }
    }

    /// The BLAKE3 chunk tree (the default).
    pub const fn chunks() -> Self {
        Self {
            tree: TreeKind::Chunks,
            hash: HashKind::Blake3,
            cap_height: 0,
        }
    }

    /// A row tree hashed with `hash`, capped `cap_height` levels below the root.
    ///
    /// # Errors
    /// [`SchemeError::CapTooHigh`] above [`MAX_CAP_HEIGHT`].
    pub fn rows(hash: HashKind, cap_height: u32) -> Result<Self, SchemeError> {
        Self::new(TreeKind::Rows, hash, cap_height)
    }

    /// The tree's leaves.
    pub const fn tree(&self) -> TreeKind {
        self.tree
    }

    /// The hash.
    pub const fn hash(&self) -> HashKind {
        self.hash
    }

    /// Levels left open at the top (0: a single root).
    pub const fn cap_height(&self) -> u32 {
        self.cap_height
    }

    /// Digests in the commitment of a codeword of `2^log_rows` rows: 1 for a chunk tree,
    /// `2^min(cap_height, log_rows)` for a row tree (a cap no lower than the leaves, as
    /// Plonky3's `MerkleTreeMmcs` clamps it).
    pub fn cap_len(&self, log_rows: u32) -> usize {
        1 << self.cap_height.min(log_rows)
    }

    /// Bytes of one leaf of the tree over rows of `row_bytes` bytes: a 1 KiB chunk, or one
    /// row. A piece of the codeword hashed apart from the rest (one machine's share of it)
    /// must be whole leaves.
    pub const fn leaf_bytes(&self, row_bytes: u64) -> u64 {
        match self.tree {
            TreeKind::Chunks => crate::tree::CHUNK_BYTES,
            TreeKind::Rows => row_bytes,
        }
    }
}

impl core::fmt::Display for Scheme {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.tree {
            TreeKind::Chunks => f.write_str("BLAKE3 chunk tree"),
            TreeKind::Rows => write!(f, "{} row tree, cap height {}", self.hash, self.cap_height),
        }
    }
}
