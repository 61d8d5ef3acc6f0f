//! `--tree`, `--hash` and `--cap-height`: which Merkle tree a command commits with (docs/CLI.md).

use crate::error::CliError;
use clap::{Args, ValueEnum};
use ntt_pcs::{HashKind, Scheme, TreeKind};

/// The tree's leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TreeArg {
    /// BLAKE3's own tree over the codeword bytes (root = `b3sum` of the codeword).
    Chunks,
    /// One leaf per codeword row: Plonky3's `MerkleTreeMmcs` of the codeword as a matrix.
    Rows,
}

/// The row tree's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum HashArg {
    /// BLAKE3.
    Blake3,
    /// Keccak-256.
    Keccak,
}

/// The commitment's tree, hash and cap height.
#[derive(Clone, Copy, Debug, Default, Args)]
pub(crate) struct TreeArgs {
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

impl TreeArgs {
    /// Whether any of the three flags was given.
    pub(crate) fn given(&self) -> bool {
        self.tree.is_some() || self.hash.is_some() || self.cap_height.is_some()
    }

    /// The scheme the flags name; a combination that does not exist is bad input (exit 2).
    pub(crate) fn scheme(&self) -> Result<Scheme, CliError> {
        let tree = match self.tree {
            Some(TreeArg::Rows) => TreeKind::Rows,
            Some(TreeArg::Chunks) | None => TreeKind::Chunks,
        };
        let hash = match self.hash {
            Some(HashArg::Keccak) => HashKind::Keccak,
            Some(HashArg::Blake3) | None => HashKind::Blake3,
        };
        Scheme::new(tree, hash, self.cap_height.unwrap_or(0)).map_err(|e| {
            CliError::Input(format!(
                "--tree {tree} --hash {hash} --cap-height {}: {e}",
                self.cap_height.unwrap_or(0)
            ))
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
        for bad in [
            args(None, Some(HashArg::Keccak), None),
            args(Some(TreeArg::Chunks), None, Some(1)),
            args(
                Some(TreeArg::Rows),
                None,
                Some(ntt_pcs::ntt_verify::MAX_CAP_HEIGHT + 1),
            ),
        ] {
            let err = bad.scheme().unwrap_err();
            assert_eq!(err.exit_code(), crate::error::EXIT_BAD_INPUT, "{err}");
        }
    }
}
