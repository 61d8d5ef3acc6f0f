//! The row tree's two hashes, one message at a time (the verifier's and the tests' reference;
//! the prover hashes many messages at once, to the same digests).
//!
//! A leaf is the hash of its row's bytes (every word little-endian, as Plonky3's
//! `SerializingHasher` feeds a `Poly64` row to a byte hash); a node is the hash of its two
//! children's digests concatenated (Plonky3's `CompressionFunctionFromHasher<H, 2, 32>`).

use crate::scheme::HashKind;

/// A 32-byte digest of a leaf or a node.
pub type Digest = [u8; 32];

/// The hash of `bytes`.
pub fn hash_bytes(hash: HashKind, bytes: &[u8]) -> Digest {
    match hash {
        HashKind::Blake3 => *blake3::hash(bytes).as_bytes(),
        HashKind::Keccak => {
            use tiny_keccak::Hasher as _;
            let mut keccak = tiny_keccak::Keccak::v256();
            keccak.update(bytes);
            let mut out = [0u8; 32];
            keccak.finalize(&mut out);
            out
        }
    }
}

/// The leaf digest of a row of words.
pub fn leaf_digest(hash: HashKind, row: &[u64]) -> Digest {
    let bytes: Vec<u8> = row.iter().flat_map(|w| w.to_le_bytes()).collect();
    hash_bytes(hash, &bytes)
}

/// The digest of a node from its children's.
pub fn node_digest(hash: HashKind, left: &Digest, right: &Digest) -> Digest {
    let mut both = [0u8; 64];
    both[..32].copy_from_slice(left);
    both[32..].copy_from_slice(right);
    hash_bytes(hash, &both)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers() {
        // Keccak-256("") (Ethereum's empty hash) and BLAKE3("").
        assert_eq!(
            hex::encode(hash_bytes(HashKind::Keccak, b"")),
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
        assert_eq!(
            hex::encode(hash_bytes(HashKind::Blake3, b"")),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
        assert_eq!(
            leaf_digest(HashKind::Keccak, &[0x0807_0605_0403_0201]),
            hash_bytes(HashKind::Keccak, &[1, 2, 3, 4, 5, 6, 7, 8])
        );
        let (a, b) = ([1u8; 32], [2u8; 32]);
        assert_eq!(
            node_digest(HashKind::Blake3, &a, &b),
            hash_bytes(HashKind::Blake3, &[[1u8; 32], [2u8; 32]].concat())
        );
    }
}
