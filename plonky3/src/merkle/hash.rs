//! The byte hashes of the row Merkle trees: Plonky3's own hashers and node functions, called the
//! way Plonky3's `MerkleTreeMmcs` calls them, so every digest is Plonky3's.

use p3_symmetric::{CompressionFunctionFromHasher, CryptographicHasher, PseudoCompressionFunction};
use std::any::TypeId;

/// A 32-byte hash that a [`MerkleMmcs`](super::MerkleMmcs) hashes rows with, and the node
/// function it brings for the levels above: one of Plonky3's byte hashers
/// ([`p3_keccak::Keccak256Hash`], [`p3_blake3::Blake3`], [`p3_sha256::Sha256`]). Its
/// `hash_many` and its node function's `compress_many` take many equal-length messages laid back
/// to back in one call, with the widest SIMD backend the CPU has (picked at run time where the
/// hasher does).
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

/// Which hash a set of digests was made with.
pub(crate) fn hash_id<H: RowHash>() -> TypeId {
    TypeId::of::<H>()
}

/// Hashes `out.len()` messages of equal length laid back to back in `bytes`. Messages of no
/// bytes all hash to the hash of the empty message (Plonky3's `SerializingHasher` does the same
/// for rows of width 0).
pub(crate) fn hash_many<H: RowHash>(bytes: &[u8], out: &mut [[u8; 32]]) {
    if out.is_empty() {
        return;
    }
    if bytes.is_empty() {
        out.fill(H::HASHER.hash_slice(&[]));
        return;
    }
    // Groups of about 8 KiB of messages, whole SIMD batches, as Plonky3's `SerializingHasher`
    // hands them to its hasher: a group stays in L1 while its batches run, where one call on an
    // encoder's block of rows (up to 512 KiB) would stream it.
    let message = bytes.len() / out.len();
    let group = (GROUP_BYTES / message).max(1).next_multiple_of(H::LANES.max(1));
    for (messages, digests) in bytes.chunks(group * message).zip(out.chunks_mut(group)) {
        H::HASHER.hash_many(messages, digests);
    }
}

/// Compresses each pair of `children` (2 · `out.len()` digests) into its parent with `H`'s node
/// function, in groups of about 8 KiB as [`hash_many`].
pub(crate) fn compress_many<H: RowHash>(children: &[[u8; 32]], out: &mut [[u8; 32]]) {
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

/// Bytes of messages per `hash_many` call, about (Plonky3's `SerializingHasher` uses the same).
const GROUP_BYTES: usize = 8 << 10;

/// `hash_many` of `H` as a plain function, for the encoder's tasks to call without knowing `H`.
pub(crate) type HashManyFn = fn(&[u8], &mut [[u8; 32]]);
