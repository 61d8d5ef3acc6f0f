//! `Poly64` matrices seen as the engine's `u64` words, without copying.
//!
//! `Poly64` is `#[repr(transparent)]` over a private `u64` whose bit i is the coefficient of x^i,
//! and every bit pattern is an element; Plonky3 relies on that itself (`Poly64::from_tower_vec`
//! reuses a `u64` allocation). It is not a documented promise, so the size and alignment are
//! asserted at compile time here and the bit layout is checked by this module's tests; should a
//! future Plonky3 change it, the build or the tests fail instead of the transform going wrong.

use p3_binary_field::Poly64;
use std::borrow::Cow;
use std::mem::MaybeUninit;

const _: () = {
    assert!(size_of::<Poly64>() == size_of::<u64>());
    assert!(align_of::<Poly64>() == align_of::<u64>());
};

/// The words of `values`, in place.
pub(crate) fn as_words(values: &[Poly64]) -> &[u64] {
    // SAFETY: `Poly64` has the size and alignment of `u64` (asserted above) and is a transparent
    // wrapper of one (its bits are its coordinates, checked by the tests); the length and
    // lifetime are those of `values`.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u64>(), values.len()) }
}

/// The words of `values`, in place and writable.
pub(crate) fn as_words_mut(values: &mut [Poly64]) -> &mut [u64] {
    // SAFETY: as for `as_words`; every `u64` written is a valid `Poly64` (all bit patterns are
    // elements), and `values` is borrowed mutably for the slice's lifetime.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u64>(), values.len()) }
}

/// Uninitialised `Poly64` slots as uninitialised words.
pub(crate) fn as_uninit_words(values: &mut [MaybeUninit<Poly64>]) -> &mut [MaybeUninit<u64>] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`, and `Poly64` that of `u64` (above); the
    // slice is borrowed mutably for the result's lifetime.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<MaybeUninit<u64>>(), values.len()) }
}

/// The bytes of `values` as the engine hashes a codeword: each word little-endian, in order.
/// Borrowed on a little-endian host (the words' own memory), copied on a big-endian one.
pub(crate) fn as_le_bytes(values: &[Poly64]) -> Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: `Poly64` is a transparent `u64` (asserted above), so `values` is
        // `8 * values.len()` initialised bytes, which on a little-endian host are each word's
        // little-endian bytes in order; `u8` has alignment 1, and the slice borrows `values`.
        Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values))
        })
    }
    #[cfg(not(target_endian = "little"))]
    {
        Cow::Owned(values.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect())
    }
}

/// The bytes of `words` as the engine hashes them: each word little-endian, in order.
pub(crate) fn words_le_bytes(words: &[u64]) -> Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: `words` is `8 * words.len()` initialised bytes, each word's little-endian bytes
        // in order on a little-endian host; `u8` has alignment 1, and the slice borrows `words`.
        Cow::Borrowed(unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), size_of_val(words)) })
    }
    #[cfg(not(target_endian = "little"))]
    {
        Cow::Owned(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_polynomial_coordinates() {
        let bits = [0u64, 1, 0x1b, 1 << 63, u64::MAX, 0x0123_4567_89ab_cdef];
        let mut values: Vec<Poly64> = bits.iter().map(|&b| Poly64::new(b)).collect();
        assert_eq!(as_words(&values), bits);
        as_words_mut(&mut values)[2] = 0xfeed;
        assert_eq!(values[2], Poly64::new(0xfeed));
        assert_eq!(values[2].to_bits(), 0xfeed);
        let mut slots = vec![MaybeUninit::<Poly64>::uninit(); 2];
        as_uninit_words(&mut slots)[1].write(7);
        // SAFETY: slot 1 was just written.
        assert_eq!(unsafe { slots[1].assume_init() }, Poly64::new(7));
    }

    #[test]
    fn bytes_are_the_little_endian_words() {
        let values = [Poly64::new(0x0807_0605_0403_0201), Poly64::new(1 << 63)];
        assert_eq!(
            *as_le_bytes(&values),
            [1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0x80]
        );
        assert!(as_le_bytes(&[]).is_empty());
    }
}
