//! A row tree's hash, picked once from its [`HashKind`]: the many-message leaf and node functions
//! of [`RowHash`] (see [`crate::row_hash`]) as plain function pointers, so the hasher and the
//! tree call them on every block without matching on the kind again.

use ntt_verify::HashKind;
use ntt_verify::row_hash::Digest;

use crate::layers::CompressFn;
use crate::row_hash::{RowHash, compress_many, hash_many};

/// The leaf and node functions of one hash.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowHashFns {
    leaves: fn(&[u8], &mut [Digest]),
    nodes: CompressFn,
}

impl RowHashFns {
    /// The functions of `H`.
    fn of<H: RowHash>() -> Self {
        Self {
            leaves: hash_many::<H>,
            nodes: compress_many::<H>,
        }
    }

    /// The functions of the hash `kind` names.
    pub(crate) fn of_kind(kind: HashKind) -> Self {
        match kind {
            HashKind::Keccak => Self::of::<p3_keccak::Keccak256Hash>(),
            HashKind::Blake3 => Self::of::<p3_blake3::Blake3>(),
            HashKind::Sha256 => Self::of::<p3_sha256::Sha256>(),
        }
    }

    /// Hashes each row of `rows` (whole rows, `out.len()` of them) into its leaf digest.
    pub(crate) fn hash_rows(self, rows: &[u64], out: &mut [Digest]) {
        (self.leaves)(&crate::commit::node::le_bytes(rows), out);
    }

    /// The node function, for [`compress_level`](crate::layers::compress_level).
    pub(crate) fn compress_fn(self) -> CompressFn {
        self.nodes
    }

    /// Hashes each pair of `children` (2 · `out.len()` digests) into its parent.
    pub(crate) fn hash_pairs(self, children: &[Digest], out: &mut [Digest]) {
        (self.nodes)(children, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_verify::row_hash::{leaf_digest, node_digest};

    #[test]
    fn batches_match_one_message_at_a_time() {
        for hash in [HashKind::Blake3, HashKind::Keccak, HashKind::Sha256] {
            let fns = RowHashFns::of_kind(hash);
            // Rows and pairs both past one 8 KiB group: (9, 200), (33, 64), (600, 1).
            for (rows, lanes) in [(1, 1), (3, 1), (17, 5), (33, 64), (9, 200), (600, 1)] {
                let words: Vec<u64> = (0..rows * lanes as u64)
                    .map(|w| w.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead)
                    .collect();
                let mut out = vec![[0u8; 32]; rows as usize];
                fns.hash_rows(&words, &mut out);
                for (row, digest) in words.chunks(lanes).zip(&out) {
                    assert_eq!(*digest, leaf_digest(hash, row), "{hash} {rows}x{lanes}");
                }
                let mut parents = vec![[0u8; 32]; out.len() / 2];
                fns.hash_pairs(&out[..2 * parents.len()], &mut parents);
                for (pair, parent) in out.chunks_exact(2).zip(&parents) {
                    assert_eq!(*parent, node_digest(hash, &pair[0], &pair[1]));
                }
            }
        }
    }
}
