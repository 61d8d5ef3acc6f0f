//! The byte hashes of the row Merkle trees: Plonky3's own hashers, called the way Plonky3's
//! `MerkleTreeMmcs` calls them, so every digest is Plonky3's.

use p3_symmetric::CryptographicHasher;
use std::any::TypeId;

/// A 32-byte hash that a [`MerkleMmcs`](super::MerkleMmcs) hashes rows and nodes with: one of
/// Plonky3's byte hashers ([`p3_keccak::Keccak256Hash`], [`p3_blake3::Blake3`]). Its
/// `hash_many` hashes many equal-length messages laid back to back in one call, with the widest
/// SIMD backend the CPU has (picked at run time where the hasher does).
pub trait RowHash:
    CryptographicHasher<u8, [u8; 32]> + Copy + Send + Sync + std::fmt::Debug + sealed::Sealed + 'static
{
    /// The hasher.
    const HASHER: Self;
    /// The hash's name, as the example and the errors print it.
    const NAME: &'static str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for p3_keccak::Keccak256Hash {}
    impl Sealed for p3_blake3::Blake3 {}
}

impl RowHash for p3_keccak::Keccak256Hash {
    const HASHER: Self = p3_keccak::Keccak256Hash;
    const NAME: &'static str = "keccak";
}

impl RowHash for p3_blake3::Blake3 {
    const HASHER: Self = p3_blake3::Blake3;
    const NAME: &'static str = "blake3";
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

/// Bytes of messages per `hash_many` call, about (Plonky3's `SerializingHasher` uses the same).
const GROUP_BYTES: usize = 8 << 10;

/// `hash_many` of `H` as a plain function, for the encoder's tasks to call without knowing `H`.
pub(crate) type HashManyFn = fn(&[u8], &mut [[u8; 32]]);
