//! 8×8 word transposes: lane-major ↔ row-major tiles.

/// `dst[j·dst_stride + i] = src[i·src_stride + j]` for i, j < 8, one word at a time.
///
/// The caller has checked that both tiles are in bounds.
pub(crate) fn transpose8x8_scalar(src: &[u64], src_stride: usize, dst: &mut [u64], dst_stride: usize) {
    for i in 0..8 {
        for j in 0..8 {
            dst[j * dst_stride + i] = src[i * src_stride + j];
        }
    }
}

/// The 8×8 transpose as four 4×4 quarters in ymm registers: 64-bit unpacks pair up rows, then
/// 128-bit lane permutes finish each column. 16 loads, 16 shuffles, 16 stores.
///
/// # Safety
/// The CPU has AVX2; `src` is valid for reading 8 words at each `i·src_stride` and `dst` for
/// writing 8 words at each `j·dst_stride` (i, j < 8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn transpose8x8_avx2(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize) {
    use core::arch::x86_64::*;
    for a in [0, 4] {
        for b in [0, 4] {
            let row = |i: usize| {
                // SAFETY: words b..b+4 of source row a+i are readable (caller contract).
                unsafe { _mm256_loadu_si256(src.wrapping_add((a + i) * src_stride + b).cast()) }
            };
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            let (t0, t1) = (_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_epi64(r2, r3), _mm256_unpackhi_epi64(r2, r3));
            let columns = [
                _mm256_permute2x128_si256::<0x20>(t0, t2),
                _mm256_permute2x128_si256::<0x20>(t1, t3),
                _mm256_permute2x128_si256::<0x31>(t0, t2),
                _mm256_permute2x128_si256::<0x31>(t1, t3),
            ];
            for (j, column) in columns.into_iter().enumerate() {
                // SAFETY: words a..a+4 of destination row b+j are writable (caller contract).
                unsafe { _mm256_storeu_si256(dst.wrapping_add((b + j) * dst_stride + a).cast(), column) };
            }
        }
    }
}

/// The same transpose in eight zmm registers: 64-bit unpacks pair up rows, then two rounds of
/// 128-bit quarter shuffles (`0x88` takes quarters 0 and 2 of each source, `0xDD` 1 and 3) finish
/// the columns. 8 loads, 24 shuffles, 8 stores.
///
/// # Safety
/// The CPU has AVX-512F; `src` is valid for reading 8 words at each `i·src_stride` and `dst` for
/// writing 8 words at each `j·dst_stride` (i, j < 8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn transpose8x8_avx512(
    src: *const u64,
    src_stride: usize,
    dst: *mut u64,
    dst_stride: usize,
) {
    use core::arch::x86_64::*;
    let mut r = [_mm512_setzero_si512(); 8];
    for (i, row) in r.iter_mut().enumerate() {
        // SAFETY: row i of the source tile is readable (caller contract).
        *row = unsafe { _mm512_loadu_si512(src.wrapping_add(i * src_stride).cast()) };
    }
    // Step 1, within 128-bit quarters: lo_k = [r2k[0], r2k+1[0], r2k[2], r2k+1[2], ...].
    let mut lo = [_mm512_setzero_si512(); 4];
    let mut hi = [_mm512_setzero_si512(); 4];
    for k in 0..4 {
        lo[k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
        hi[k] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
    }
    // Step 2: gather the pairs of two row pairs; step 3: of all four. `x` holds the columns of
    // `lo` (even columns) or `hi` (odd columns).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn columns(x: [__m512i; 4]) -> [__m512i; 4] {
        let a = _mm512_shuffle_i64x2::<0x88>(x[0], x[1]);
        let b = _mm512_shuffle_i64x2::<0xDD>(x[0], x[1]);
        let c = _mm512_shuffle_i64x2::<0x88>(x[2], x[3]);
        let d = _mm512_shuffle_i64x2::<0xDD>(x[2], x[3]);
        [
            _mm512_shuffle_i64x2::<0x88>(a, c),
            _mm512_shuffle_i64x2::<0x88>(b, d),
            _mm512_shuffle_i64x2::<0xDD>(a, c),
            _mm512_shuffle_i64x2::<0xDD>(b, d),
        ]
    }
    // Even columns 0, 2, 4, 6 and odd columns 1, 3, 5, 7.
    let even = columns(lo);
    let odd = columns(hi);
    let out = [even[0], odd[0], even[1], odd[1], even[2], odd[2], even[3], odd[3]];
    for (j, col) in out.into_iter().enumerate() {
        // SAFETY: row j of the destination tile is writable (caller contract).
        unsafe { _mm512_storeu_si512(dst.wrapping_add(j * dst_stride).cast(), col) };
    }
}
