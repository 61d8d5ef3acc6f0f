//! `--tree`, `--hash` and `--cap-height`: which Merkle tree a command commits with
//! (docs/CLI.md).

use clap::{Args, ValueEnum};
use ntt_pcs::{HashKind, Scheme, SchemeError, TreeKind};

/// The tree's leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TreeArg {
    /// BLAKE3's own tree over the codeword bytes (root = `b3sum` of the codeword).
    Chunks,
    /// One leaf per codeword row: Plonky3's `MerkleTreeMmcs` of the codeword as a matrix.
    Rows,
}

impl From<TreeArg> for TreeKind {
    fn from(tree: TreeArg) -> Self {
        match tree {
            TreeArg::Chunks => TreeKind::Chunks,
            TreeArg::Rows => TreeKind::Rows,
        }
    }
}

/// The row tree's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HashArg {
    /// BLAKE3.
    Blake3,
    /// Keccak-256.
    Keccak,
    /// SHA-256 leaves, nodes by one SHA-256 compression without padding (Plonky3's
    /// `Sha256Compress`).
    Sha256,
}

/// The one mapping from the flag to the library's hash: a new hash is one arm here (and one
/// variant above).
impl From<HashArg> for HashKind {
    fn from(hash: HashArg) -> Self {
        match hash {
            HashArg::Blake3 => HashKind::Blake3,
            HashArg::Keccak => HashKind::Keccak,
            HashArg::Sha256 => HashKind::Sha256,
        }
    }
}

/// The commitment's tree, hash and cap height.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct TreeArgs {
    /// Merkle tree of the commitment [default: chunks].
    #[arg(long, value_enum, value_name = "TREE")]
    pub tree: Option<TreeArg>,
    /// Hash of a row tree [default: blake3]; the chunk tree is BLAKE3 only.
    #[arg(long, value_enum, value_name = "HASH")]
    pub hash: Option<HashArg>,
    /// Levels of a row tree left open at the top: the commitment is the 2^N digests there
    /// [default: 0, a single root].
    #[arg(long, value_name = "N")]
    pub cap_height: Option<u32>,
}

/// Flags that name no scheme (`--hash keccak` without `--tree rows`, say): bad input, which both
/// binaries report with exit code 2.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--tree {tree} --hash {hash} --cap-height {cap_height}: {reason}")]
pub struct TreeArgsError {
    tree: TreeKind,
    hash: HashKind,
    cap_height: u32,
    reason: SchemeError,
}

impl TreeArgs {
    /// Whether any of the three flags was given.
    pub fn given(&self) -> bool {
        self.tree.is_some() || self.hash.is_some() || self.cap_height.is_some()
    }

    /// The scheme the flags name (the library's defaults for those not given).
    ///
    /// # Errors
    /// [`TreeArgsError`] for a combination that does not exist (bad input).
    pub fn scheme(&self) -> Result<Scheme, TreeArgsError> {
        let tree = self.tree.map_or_else(TreeKind::default, TreeKind::from);
        let hash = self.hash.map_or_else(HashKind::default, HashKind::from);
        let cap_height = self.cap_height.unwrap_or(0);
        Scheme::new(tree, hash, cap_height).map_err(|reason| TreeArgsError {
            tree,
            hash,
            cap_height,
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations() {
        let args = |tree, hash, cap_height| TreeArgs {
            tree,
            hash,
            cap_height,
        };
        assert_eq!(TreeArgs::default().scheme().unwrap(), Scheme::chunks());
        assert_eq!(
            args(Some(TreeArg::Rows), None, None).scheme().unwrap(),
            Scheme::rows(HashKind::Blake3, 0).unwrap()
        );
        assert_eq!(
            args(Some(TreeArg::Rows), Some(HashArg::Keccak), Some(3))
                .scheme()
                .unwrap(),
            Scheme::rows(HashKind::Keccak, 3).unwrap()
        );
        assert_eq!(
            args(Some(TreeArg::Rows), Some(HashArg::Sha256), Some(1))
                .scheme()
                .unwrap(),
            Scheme::rows(HashKind::Sha256, 1).unwrap()
        );
        let err = args(None, Some(HashArg::Keccak), None).scheme().unwrap_err();
        assert_eq!(
            err.to_string(),
            "--tree chunks --hash keccak --cap-height 0: the chunk tree is BLAKE3's own: hashing \
             with keccak needs the row tree"
        );
        for bad in [
            args(Some(TreeArg::Chunks), None, Some(1)),
            args(
                Some(TreeArg::Rows),
                None,
                Some(ntt_pcs::ntt_verify::MAX_CAP_HEIGHT + 1),
            ),
        ] {
            assert!(bad.scheme().is_err());
        }
    }

    #[test]
    fn every_value_maps() {
        for tree in TreeArg::value_variants() {
            let name = tree.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(TreeKind::from(*tree).to_string(), name);
        }
        for hash in HashArg::value_variants() {
            let name = hash.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(HashKind::from(*hash).to_string(), name);
        }
    }
}
