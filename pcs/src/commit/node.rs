//! The codeword's byte view, and chaining values shared between tasks.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};

use blake3::hazmat::ChainingValue;

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
