//! Four words per `__m256i`, VPCLMULQDQ products, byte-shuffle spill with a broadcast table.

use super::{FOLDED_SPILL, FieldVec, Unreduced};
use core::arch::x86_64::*;

/// Four field elements. Exists only on CPUs with AVX2 and VPCLMULQDQ (see the module docs of
/// [`super`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(__m256i);

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn broadcast(t: u64) -> __m256i {
    _mm256_set1_epi64x(t as i64)
}

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn xor(a: __m256i, b: __m256i) -> __m256i {
    _mm256_xor_si256(a, b)
}

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn double(a: __m256i) -> __m256i {
    _mm256_add_epi64(a, a)
}

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn clmul_even_odd(v: __m256i, t: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_clmulepi64_epi128::<0x00>(v, t),
        _mm256_clmulepi64_epi128::<0x11>(v, t),
    )
}

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn split_even_odd(even: __m256i, odd: __m256i) -> (__m256i, __m256i) {
    (_mm256_unpacklo_epi64(even, odd), _mm256_unpackhi_epi64(even, odd))
}

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn folded_spill(hi: __m256i) -> __m256i {
    // SAFETY: reads 16 bytes from a 16-byte constant.
    let table = unsafe { _mm_loadu_si128(FOLDED_SPILL.as_ptr().cast()) };
    _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(table), _mm256_srli_epi64::<60>(hi))
}

#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn shl3(a: __m256i) -> __m256i {
    _mm256_slli_epi64::<3>(a)
}

impl FieldVec for Avx2 {
    const WIDTH: usize = 4;
    const PAIRED_COLUMNS: bool = true;
    type Twiddle = __m256i;

    #[inline(always)]
    unsafe fn twiddle(t: u64) -> __m256i {
        // SAFETY: the caller vouches for the features.
        unsafe { broadcast(t) }
    }

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        // SAFETY: the caller vouches for the features and makes `src` valid for 4 reads.
        Self(unsafe { _mm256_loadu_si256(src.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, dst: *mut u64) {
        // SAFETY: a value exists only with AVX2; the caller makes `dst` valid for 4 writes.
        unsafe { _mm256_storeu_si256(dst.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_stream(self, dst: *mut u64) {
        // SAFETY: a value exists only with AVX2; the caller makes `dst` valid for 4 writes and
        // 32-byte aligned.
        unsafe { _mm256_stream_si256(dst.cast(), self.0) }
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

    /// Even slots' 128-bit products in one register, odd slots' in the other.
    #[inline(always)]
    fn products(self, t: __m256i) -> Unreduced<Self> {
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

/// The 4×4 word transpose of `r` (rows in, columns out): 64-bit unpacks within 128-bit halves,
/// then the halves exchanged.
#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
#[inline]
fn transpose4x4(r: [__m256i; 4]) -> [__m256i; 4] {
    let lo01 = _mm256_unpacklo_epi64(r[0], r[1]);
    let hi01 = _mm256_unpackhi_epi64(r[0], r[1]);
    let lo23 = _mm256_unpacklo_epi64(r[2], r[3]);
    let hi23 = _mm256_unpackhi_epi64(r[2], r[3]);
    [
        _mm256_permute2x128_si256::<0x20>(lo01, lo23),
        _mm256_permute2x128_si256::<0x20>(hi01, hi23),
        _mm256_permute2x128_si256::<0x31>(lo01, lo23),
        _mm256_permute2x128_si256::<0x31>(hi01, hi23),
    ]
}

impl super::across::AcrossBlocks for Avx2 {
    #[inline(always)]
    fn clmul_slots(self, t: Self) -> (Self, Self) {
        // The even/odd products already take each slot's own word of `t`.
        self.clmul(t.0)
    }

    #[inline(always)]
    unsafe fn transpose_tile(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize) {
        // SAFETY (each load): the caller vouches for the features and makes the four source rows
        // readable.
        let row = |i: usize| src.wrapping_add(i * src_stride);
        // SAFETY: as above, row 0.
        let r0 = unsafe { Self::load(row(0)) };
        // SAFETY: as above, row 1.
        let r1 = unsafe { Self::load(row(1)) };
        // SAFETY: as above, row 2.
        let r2 = unsafe { Self::load(row(2)) };
        // SAFETY: as above, row 3.
        let r3 = unsafe { Self::load(row(3)) };
        let r = [r0.0, r1.0, r2.0, r3.0];
        // SAFETY: the caller vouches for the features.
        let cols = unsafe { transpose4x4(r) };
        for (j, col) in cols.into_iter().enumerate() {
            // SAFETY: the caller makes destination row j writable.
            unsafe { Self(col).store(dst.wrapping_add(j * dst_stride)) };
        }
    }
}
