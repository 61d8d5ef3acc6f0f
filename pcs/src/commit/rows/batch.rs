//! Many equal-length messages hashed at once: every codeword row of a block into its leaf, or
//! every pair of sibling digests of a level into their parent.
//!
//! Keccak-256 comes from `p3_keccak::Keccak256Hash::hash_many`, which runs 8 (AVX-512), 4 (AVX2)
//! or 2 (SSE2, NEON) Keccak states side by side on contiguous messages, the kernel picked at run
//! time on x86-64. BLAKE3 comes from `p3_blake3::Blake3`'s `hash_many` when it batches, and the
//! `blake3` crate otherwise (see [`hash_many`]). SHA-256 comes from `p3_sha256`: 32 messages
//! side by side on AVX-512, four interleaved SHA-NI streams, or the ARMv8 SHA-2 extension.
//! Nodes go through each hash's own node function: the hash of the 64 bytes for BLAKE3 and
//! Keccak, one bare compression for SHA-256 (`Sha256Compress::compress_many`). The digests are
//! those of [`ntt_verify::row_hash`], one message at a time; the tests check it.

use ntt_verify::HashKind;
use ntt_verify::row_hash::Digest;
use p3_symmetric::{CryptographicHasher, PseudoCompressionFunction};

/// Hashes `input`, `out.len()` messages of equal length back to back, into `out`.
pub(crate) fn hash_many(hash: HashKind, input: &[u8], out: &mut [Digest]) {
    if out.is_empty() {
        return;
    }
    debug_assert_eq!(input.len() % out.len(), 0, "messages of equal length");
    match hash {
        HashKind::Keccak => p3_keccak::Keccak256Hash.hash_many(input, out),
        HashKind::Blake3 => p3_blake3::Blake3.hash_many(input, out),
        HashKind::Sha256 => p3_sha256::Sha256.hash_many(input, out),
    }
}

/// Hashes each row of `rows` (whole rows, `out.len()` of them) into its leaf digest.
pub(crate) fn hash_rows(hash: HashKind, rows: &[u64], out: &mut [Digest]) {
    hash_many(hash, &crate::commit::node::le_bytes(rows), out);
}

/// Hashes each pair of `children` (2 · `out.len()` digests) into its parent.
pub(crate) fn hash_pairs(hash: HashKind, children: &[Digest], out: &mut [Digest]) {
    debug_assert_eq!(children.len(), 2 * out.len());
    match hash {
        HashKind::Blake3 | HashKind::Keccak => hash_many(hash, children.as_flattened(), out),
        HashKind::Sha256 => {
            let (pairs, _) = children.as_chunks::<2>();
            p3_sha256::Sha256Compress.compress_many(pairs, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_verify::row_hash::{leaf_digest, node_digest};

    #[test]
    fn batches_match_one_message_at_a_time() {
        for hash in [HashKind::Blake3, HashKind::Keccak, HashKind::Sha256] {
            for (rows, lanes) in [(1, 1), (3, 1), (17, 5), (33, 64), (9, 200)] {
                let words: Vec<u64> = (0..rows * lanes as u64)
                    .map(|w| w.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead)
                    .collect();
                let mut out = vec![[0u8; 32]; rows as usize];
                hash_rows(hash, &words, &mut out);
                for (row, digest) in words.chunks(lanes).zip(&out) {
                    assert_eq!(*digest, leaf_digest(hash, row), "{hash} {rows}x{lanes}");
                }
                let mut parents = vec![[0u8; 32]; out.len() / 2];
                hash_pairs(hash, &out[..2 * parents.len()], &mut parents);
                for (pair, parent) in out.chunks_exact(2).zip(&parents) {
                    assert_eq!(*parent, node_digest(hash, &pair[0], &pair[1]));
                }
            }
        }
    }
}
