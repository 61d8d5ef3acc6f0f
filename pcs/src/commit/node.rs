//! Chaining values of single nodes, and the codeword's byte view.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};

use blake3::hazmat::{ChainingValue, HasherExt, Mode, merge_subtrees_non_root, merge_subtrees_root};

/// The chaining value of the subtree whose input starts at byte `offset` (a multiple of 1 KiB)
/// and holds `bytes`, which must be one whole node of the tree (or the clipped last node).
pub(crate) fn subtree_cv(offset: u64, bytes: &[u8]) -> ChainingValue {
    let mut hasher = blake3::Hasher::new();
    hasher.set_input_offset(offset);
    hasher.update(bytes);
    hasher.finalize_non_root()
}

/// The chaining value of a non-root parent.
pub(crate) fn parent_cv(left: &ChainingValue, right: &ChainingValue) -> ChainingValue {
    merge_subtrees_non_root(left, right, Mode::Hash)
}

/// The root hash of a parent at the top of the tree.
pub(crate) fn root_hash(left: &ChainingValue, right: &ChainingValue) -> [u8; 32] {
    *merge_subtrees_root(left, right, Mode::Hash).as_bytes()
}

/// The codeword's bytes: every word little-endian, in order. Borrowed on little-endian targets.
pub(crate) fn le_bytes(words: &[u64]) -> Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: `u64` has no padding and every bit pattern is a valid `u8` sequence; `u8` has
        // alignment 1; the byte length `8 · words.len()` stays within the same allocation, and
        // the returned borrow keeps `words` borrowed (shared) for as long as the bytes live.
        Cow::Borrowed(unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), size_of_val(words)) })
    }
    #[cfg(not(target_endian = "little"))]
    {
        Cow::Owned(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

/// A chaining value that one task writes and another reads after synchronising through an
/// atomic counter (the counter's acquire/release orders these relaxed accesses).
#[derive(Debug, Default)]
pub(crate) struct AtomicCv([AtomicU64; 4]);

impl AtomicCv {
    pub(crate) fn store(&self, cv: &ChainingValue) {
        for (slot, bytes) in self.0.iter().zip(cv.chunks_exact(8)) {
            slot.store(
                u64::from_le_bytes(bytes.try_into().expect("8-byte chunk")),
                Ordering::Relaxed,
            );
        }
    }

    pub(crate) fn load(&self) -> ChainingValue {
        let mut cv = [0u8; 32];
        for (slot, bytes) in self.0.iter().zip(cv.chunks_exact_mut(8)) {
            bytes.copy_from_slice(&slot.load(Ordering::Relaxed).to_le_bytes());
        }
        cv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtrees_and_merges_reproduce_blake3() {
        let input: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 3) as u8).collect();
        let left = subtree_cv(0, &input[..2048]);
        let right = subtree_cv(2048, &input[2048..]);
        assert_eq!(root_hash(&left, &right), *blake3::hash(&input).as_bytes());
        let c0 = subtree_cv(0, &input[..1024]);
        let c1 = subtree_cv(1024, &input[1024..2048]);
        assert_eq!(parent_cv(&c0, &c1), left);
    }

    #[test]
    fn le_bytes_are_little_endian_words() {
        let bytes = le_bytes(&[0x0102_0304_0506_0708, 0x1112_1314_1516_1718]);
        assert_eq!(
            &bytes[..],
            &[
                8, 7, 6, 5, 4, 3, 2, 1, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11
            ]
        );
    }

    #[test]
    fn atomic_cv_round_trips() {
        let cv: ChainingValue = std::array::from_fn(|i| (i as u8).wrapping_mul(9));
        let slot = AtomicCv::default();
        slot.store(&cv);
        assert_eq!(slot.load(), cv);
    }
}
