//! The byte hashes of the row Merkle trees: Plonky3's own hashers and node functions, called the
//! way Plonky3's `MerkleTreeMmcs` calls them, so every digest is Plonky3's. The engine's row
//! trees ([`Scheme::rows`](crate::Scheme::rows)) and `ntt-plonky3`'s Merkle trees hash with them.
//!
//! [`hash_many`] and [`compress_many`] take many equal-length messages laid back to back and hand
//! them to the hasher in groups of about 8 KiB, as Plonky3's `SerializingHasher` does: a group
//! stays in L1 while the hasher's SIMD batches run over it, where one call on an encoder's block
//! of rows (up to 512 KiB) would stream it. The digests are those of
//! [`ntt_verify::row_hash`], one message at a time; the tests check it.

use ntt_verify::row_hash::Digest;
use p3_symmetric::{CompressionFunctionFromHasher, CryptographicHasher, PseudoCompressionFunction};

/// A 32-byte hash that row trees hash rows with, and the node function it brings for the levels
/// above: one of Plonky3's byte hashers ([`p3_keccak::Keccak256Hash`], [`p3_blake3::Blake3`],
/// [`p3_sha256::Sha256`]). Its `hash_many` and its node function's `compress_many` take many
/// equal-length messages laid back to back in one call, with the widest SIMD backend the CPU has
/// (picked at run time where the hasher does).
pub trait RowHash:
    CryptographicHasher<u8, [u8; 32]> + Copy + Send + Sync + std::fmt::Debug + sealed::Sealed + 'static
{
    /// The hasher.
    const HASHER: Self;
    /// The node function: a parent's digest from its two children's, as Plonky3's tree of this
    /// hash pairs them (the hash of the 64 bytes for Keccak and BLAKE3, one bare compression for
    /// SHA-256).
    type Compress: PseudoCompressionFunction<[u8; 32], 2> + Clone + Send + Sync + std::fmt::Debug + 'static;
    /// The node function's value.
    const COMPRESS: Self::Compress;
    /// The hash's name, as the example and the errors print it.
    const NAME: &'static str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for p3_keccak::Keccak256Hash {}
    impl Sealed for p3_blake3::Blake3 {}
    impl Sealed for p3_sha256::Sha256 {}
}

impl RowHash for p3_keccak::Keccak256Hash {
    const HASHER: Self = p3_keccak::Keccak256Hash;
    type Compress = CompressionFunctionFromHasher<Self, 2, 32>;
    const COMPRESS: Self::Compress = CompressionFunctionFromHasher::new(Self::HASHER);
    const NAME: &'static str = "keccak";
}

impl RowHash for p3_blake3::Blake3 {
    const HASHER: Self = p3_blake3::Blake3;
    type Compress = CompressionFunctionFromHasher<Self, 2, 32>;
    const COMPRESS: Self::Compress = CompressionFunctionFromHasher::new(Self::HASHER);
    const NAME: &'static str = "blake3";
}

impl RowHash for p3_sha256::Sha256 {
    const HASHER: Self = p3_sha256::Sha256;
    type Compress = p3_sha256::Sha256Compress;
    const COMPRESS: Self::Compress = p3_sha256::Sha256Compress;
    const NAME: &'static str = "sha256";
}

/// Bytes of messages per hasher call, about (Plonky3's `SerializingHasher` uses the same).
const GROUP_BYTES: usize = 8 << 10;

/// Hashes `out.len()` messages of equal length laid back to back in `bytes` with `H`. Messages of
/// no bytes all hash to the hash of the empty message (Plonky3's `SerializingHasher` does the
/// same for rows of width 0).
pub fn hash_many<H: RowHash>(bytes: &[u8], out: &mut [Digest]) {
    if out.is_empty() {
        return;
    }
    debug_assert_eq!(bytes.len() % out.len(), 0, "messages of equal length");
    if bytes.is_empty() {
        out.fill(H::HASHER.hash_slice(&[]));
        return;
    }
    let message = bytes.len() / out.len();
    // Whole SIMD batches a group, so no batch runs part empty but the last.
    let group = (GROUP_BYTES / message).max(1).next_multiple_of(H::LANES.max(1));
    for (messages, digests) in bytes.chunks(group * message).zip(out.chunks_mut(group)) {
        H::HASHER.hash_many(messages, digests);
    }
}

/// Compresses each pair of `children` (2 · `out.len()` digests) into its parent with `H`'s node
/// function, in groups of about 8 KiB as [`hash_many`].
pub fn compress_many<H: RowHash>(children: &[Digest], out: &mut [Digest]) {
    let (pairs, rest) = children.as_chunks::<2>();
    debug_assert!(
        rest.is_empty() && pairs.len() == out.len(),
        "two children a parent"
    );
    let group = (GROUP_BYTES / 64).next_multiple_of(H::Compress::LANES.max(1));
    for (pairs, parents) in pairs.chunks(group).zip(out.chunks_mut(group)) {
        H::COMPRESS.compress_many(pairs, parents);
    }
}
