//! Eight words per `__m512i`: VPCLMULQDQ products, the AVX-512BW byte-shuffle spill, ternary-logic
//! XORs and masked partial columns. The spill (the bits of `hi·0x1B` above x^63) and its own
//! reduction come from one in-register byte shuffle of a 16-entry table indexed by `hi >> 60`,
//! which saves the second carry-less multiply a two-fold reduction would need.

use super::{FOLDED_SPILL, FieldVec, Unreduced};
use core::arch::x86_64::*;

/// Eight field elements. Exists only on CPUs with AVX-512F/BW and VPCLMULQDQ (see the module docs
/// of [`super`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(pub(crate) __m512i);

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn broadcast(t: u64) -> __m512i {
    _mm512_set1_epi64(t as i64)
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn xor(a: __m512i, b: __m512i) -> __m512i {
    _mm512_xor_si512(a, b)
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn double(a: __m512i) -> __m512i {
    _mm512_add_epi64(a, a)
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn clmul_even_odd(v: __m512i, t: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_clmulepi64_epi128::<0x00>(v, t),
        _mm512_clmulepi64_epi128::<0x11>(v, t),
    )
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn split_even_odd(even: __m512i, odd: __m512i) -> (__m512i, __m512i) {
    (_mm512_unpacklo_epi64(even, odd), _mm512_unpackhi_epi64(even, odd))
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn folded_spill(hi: __m512i) -> __m512i {
    // SAFETY: reads 16 bytes from a 16-byte constant.
    let table = unsafe { _mm_loadu_si128(FOLDED_SPILL.as_ptr().cast()) };
    _mm512_shuffle_epi8(_mm512_broadcast_i32x4(table), _mm512_srli_epi64::<60>(hi))
}

/// The mask of the first `n` slots.
#[inline(always)]
fn first_slots(n: usize) -> __mmask8 {
    debug_assert!(n < 8);
    ((1u32 << n) - 1) as __mmask8
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn shl3(a: __m512i) -> __m512i {
    _mm512_slli_epi64::<3>(a)
}

impl FieldVec for Avx512 {
    const WIDTH: usize = 8;
    const PAIRED_COLUMNS: bool = true;
    type Twiddle = __m512i;

    #[inline(always)]
    unsafe fn twiddle(t: u64) -> __m512i {
        // SAFETY: the caller vouches for the features.
        unsafe { broadcast(t) }
    }

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        // SAFETY: the caller vouches for the features and makes `src` valid for 8 reads.
        Self(unsafe { _mm512_loadu_si512(src.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, dst: *mut u64) {
        // SAFETY: a value exists only with AVX-512F; the caller makes `dst` valid for 8 writes.
        unsafe { _mm512_storeu_si512(dst.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_partial(src: *const u64, n: usize) -> Self {
        // SAFETY: the caller vouches for the features and makes `src` valid for `n` reads; the
        // masked-off slots are not accessed (no fault).
        Self(unsafe { _mm512_maskz_loadu_epi64(first_slots(n), src.cast()) })
    }

    #[inline(always)]
    unsafe fn store_partial(self, dst: *mut u64, n: usize) {
        // SAFETY: a value exists only with AVX-512F; the caller makes `dst` valid for `n`
        // writes; the masked-off slots are not written.
        unsafe { _mm512_mask_storeu_epi64(dst.cast(), first_slots(n), self.0) }
    }

    #[inline(always)]
    unsafe fn store_stream(self, dst: *mut u64) {
        // SAFETY: a value exists only with AVX-512F; the caller makes `dst` valid for 8 writes
        // and 64-byte aligned.
        unsafe { _mm512_stream_si512(dst.cast(), self.0) }
    }

    #[inline(always)]
    fn stream_fence() {
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { _mm_sfence() };
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: a value exists only where the CPU has the features.
        Self(unsafe { xor(self.0, other.0) })
    }

    #[inline(always)]
    fn xor3(self, a: Self, b: Self) -> Self {
        // SAFETY: a value exists only where the CPU has the features.
        Self(unsafe { xor3(self.0, a.0, b.0) })
    }

    /// Even slots' 128-bit products in one register, odd slots' in the other.
    #[inline(always)]
    fn products(self, t: __m512i) -> Unreduced<Self> {
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
        // SAFETY: a value exists only where the CPU has the features.
        Self(unsafe { shl3(self.0) })
    }

    #[inline(always)]
    fn double(self) -> Self {
        // SAFETY: a value exists only where the CPU has the features.
        Self(unsafe { double(self.0) })
    }
}

impl super::across::AcrossBlocks for Avx512 {
    #[inline(always)]
    fn clmul_slots(self, t: Self) -> (Self, Self) {
        // The even/odd products already take each slot's own word of `t`.
        self.clmul(t.0)
    }

    #[inline(always)]
    unsafe fn transpose_tile(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize) {
        // SAFETY: the caller vouches for AVX-512F and makes both 8×8 tiles valid.
        unsafe { crate::transpose::transpose8x8_avx512(src, src_stride, dst, dst_stride) }
    }
}
