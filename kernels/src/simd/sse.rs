//! Two words per `__m128i`, PCLMULQDQ products, SSSE3 byte-shuffle spill.

use super::{FOLDED_SPILL, FieldVec, Unreduced};
use core::arch::x86_64::*;

/// Two field elements. Exists only on CPUs with SSSE3 and PCLMULQDQ (see the module docs of
/// [`super`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sse(__m128i);

#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
#[inline]
fn clmul_even_odd(v: __m128i, t: __m128i) -> (__m128i, __m128i) {
    (
        _mm_clmulepi64_si128::<0x00>(v, t),
        _mm_clmulepi64_si128::<0x11>(v, t),
    )
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
#[inline]
fn split_even_odd(even: __m128i, odd: __m128i) -> (__m128i, __m128i) {
    (_mm_unpacklo_epi64(even, odd), _mm_unpackhi_epi64(even, odd))
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
#[inline]
fn folded_spill(hi: __m128i) -> __m128i {
    // SAFETY: reads 16 bytes from a 16-byte constant.
    let table = unsafe { _mm_loadu_si128(FOLDED_SPILL.as_ptr().cast()) };
    _mm_shuffle_epi8(table, _mm_srli_epi64::<60>(hi))
}

impl FieldVec for Sse {
    const WIDTH: usize = 2;
    type Twiddle = __m128i;

    #[inline(always)]
    unsafe fn twiddle(t: u64) -> __m128i {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { _mm_set1_epi64x(t as i64) }
    }

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        // SAFETY: the caller makes `src` valid for 2 reads; `loadu` takes any alignment.
        Self(unsafe { _mm_loadu_si128(src.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, dst: *mut u64) {
        // SAFETY: the caller makes `dst` valid for 2 writes; `storeu` takes any alignment.
        unsafe { _mm_storeu_si128(dst.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_stream(self, dst: *mut u64) {
        // SAFETY: the caller makes `dst` valid for 2 writes and 16-byte aligned.
        unsafe { _mm_stream_si128(dst.cast(), self.0) }
    }

    #[inline(always)]
    fn stream_fence() {
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { _mm_sfence() };
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        Self(unsafe { _mm_xor_si128(self.0, other.0) })
    }

    /// Slot 0's 128-bit product in one register, slot 1's in the other.
    #[inline(always)]
    fn products(self, t: __m128i) -> Unreduced<Self> {
        // SAFETY: a value exists only where the CPU has the features.
        let (even, odd) = unsafe { clmul_even_odd(self.0, t) };
        Unreduced(Self(even), Self(odd))
    }

    #[inline(always)]
    fn split(p: Unreduced<Self>) -> (Self, Self) {
        // SAFETY: a value exists only where the CPU has the features.
        let (lo, hi) = unsafe { split_even_odd(p.0.0, p.1.0) };
        (Self(lo), Self(hi))
    }

    #[inline(always)]
    fn folded_spill(self) -> Self {
        // SAFETY: a value exists only where the CPU has the features.
        Self(unsafe { folded_spill(self.0) })
    }

    #[inline(always)]
    fn shl3(self) -> Self {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        Self(unsafe { _mm_slli_epi64::<3>(self.0) })
    }

    #[inline(always)]
    fn double(self) -> Self {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        Self(unsafe { _mm_add_epi64(self.0, self.0) })
    }
}

impl super::across::AcrossBlocks for Sse {
    #[inline(always)]
    fn clmul_slots(self, t: Self) -> (Self, Self) {
        // The even/odd products already take each slot's own word of `t`.
        self.clmul(t.0)
    }

    #[inline(always)]
    unsafe fn transpose_tile(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize) {
        // SAFETY: the caller makes source row 0 readable (2 words).
        let a = unsafe { Self::load(src) };
        // SAFETY: the caller makes source row 1 readable (2 words).
        let b = unsafe { Self::load(src.wrapping_add(src_stride)) };
        // SAFETY: SSE2 is part of the x86_64 baseline.
        let lo = unsafe { _mm_unpacklo_epi64(a.0, b.0) };
        // SAFETY: SSE2 is part of the x86_64 baseline.
        let hi = unsafe { _mm_unpackhi_epi64(a.0, b.0) };
        // SAFETY: the caller makes destination row 0 writable (2 words).
        unsafe { Self(lo).store(dst) };
        // SAFETY: the caller makes destination row 1 writable (2 words).
        unsafe { Self(hi).store(dst.wrapping_add(dst_stride)) };
    }
}
