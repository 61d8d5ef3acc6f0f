//! The row tree's two hashes, one message at a time (the verifier's and the tests' reference;
//! the prover hashes many messages at once, to the same digests).
//!
//! A leaf is the hash of its row's bytes (every word little-endian, as Plonky3's
//! `SerializingHasher` feeds a `Poly64` row to a byte hash). A node is what the hash's own node
//! function makes of its two children's digests concatenated: for BLAKE3 and Keccak the hash of
//! those 64 bytes (Plonky3's `CompressionFunctionFromHasher<H, 2, 32>`), for SHA-256 one
//! compression of them as a single block from the standard initial value, without padding
//! (Plonky3's `Sha256Compress`).

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
        HashKind::Sha256 => {
            use sha2::Digest as _;
            sha2::Sha256::digest(bytes).into()
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
    match hash {
        HashKind::Blake3 | HashKind::Keccak => hash_bytes(hash, &both),
        HashKind::Sha256 => sha256_compress(&both),
    }
}

/// SHA-256's compression function applied once to `block` from the standard initial value, the
/// state written big-endian: a 2-to-1 node function with no padding block (SHA-256 of the same
/// 64 bytes would compress a second, padding block).
fn sha256_compress(block: &[u8; 64]) -> Digest {
    const IV: [u32; 8] = [
        0x6a09_e667,
        0xbb67_ae85,
        0x3c6e_f372,
        0xa54f_f53a,
        0x510e_527f,
        0x9b05_688c,
        0x1f83_d9ab,
        0x5be0_cd19,
    ];
    let mut state = IV;
    sha2::block_api::compress256(&mut state, core::slice::from_ref(block));
    let mut out = [0u8; 32];
    for (bytes, word) in out.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    out
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
        assert_eq!(
            hex::encode(hash_bytes(HashKind::Sha256, b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let (a, b) = ([1u8; 32], [2u8; 32]);
        assert_eq!(
            node_digest(HashKind::Blake3, &a, &b),
            hash_bytes(HashKind::Blake3, &[[1u8; 32], [2u8; 32]].concat())
        );
    }

    #[test]
    fn sha256_nodes_are_one_compression_without_padding() {
        // The compression of the 64-byte block alone is the state SHA-256 reaches after its
        // first block: for the empty-padded message "abc" that is SHA-256("abc") itself.
        let mut block = [0u8; 64];
        block[..3].copy_from_slice(b"abc");
        block[3] = 0x80;
        block[63] = 24; // message length in bits, big-endian
        let (left, right) = block.split_at(32);
        assert_eq!(
            node_digest(
                HashKind::Sha256,
                left.try_into().unwrap(),
                right.try_into().unwrap()
            ),
            hash_bytes(HashKind::Sha256, b"abc")
        );
        // And it is not the hash of the 64 bytes, which compresses a padding block too.
        let (a, b) = ([7u8; 32], [9u8; 32]);
        assert_ne!(
            node_digest(HashKind::Sha256, &a, &b),
            hash_bytes(HashKind::Sha256, &[a, b].concat())
        );
    }
}
