//! AVX-512 strided radix groups with a 12-instruction butterfly.
//!
//! Per 8 lanes, `u' = u + t·v, v' = v + u'`:
//!
//! ```text
//!   even, odd = clmul(v, t, 0x00), clmul(v, t, 0x11)       2  (port 5)
//!   lo, hi    = unpacklo/hi(even, odd)                     2  (port 5)
//!   fold      = shuffle_bytes(FOLD, hi >> 60)              2  (spill and its reduction at once)
//!   y         = hi ^ hi<<3;  y2 = y + y                    3  (hi·0x1B = y ^ y2 mod 2^64)
//!   u'        = two 3-way XORs of u, lo, y, y2, fold        2
//!   v'        = v ^ u'                                     1
//! ```
//!
//! The product is lo + x^64·hi with hi < 2^63; x^64 ≡ 0x1B, so the reduction is
//! lo ^ (hi·0x1B mod 2^64) ^ (s·0x1B) where s = (hi>>63)^(hi>>61)^(hi>>60) are the bits of hi·0x1B
//! above x^63. `FOLD[n] = (n ^ n>>1 ^ n>>3)·0x1B` for n = hi>>60 gives s·0x1B (< 2^8) in one byte
//! shuffle: the other bytes of the index are zero and `FOLD[0] = 0`.
//!
//! The R rows of a radix-R group stay in registers across its butterflies; twiddles are
//! broadcast once per block.

use super::StridedRows;
use core::arch::x86_64::*;

/// `FOLD[n] = g(n ^ n>>1 ^ n>>3)` with g(s) = s ^ s<<1 ^ s<<3 ^ s<<4 (carry-less s·0x1B).
const FOLD: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        let s = n ^ (n >> 1) ^ (n >> 3);
        t[n] = (s ^ (s << 1) ^ (s << 3) ^ (s << 4)) as u8;
        n += 1;
    }
    t
};

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn fold_table() -> __m512i {
    let mut wide = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        wide[i] = FOLD[i % 16];
        i += 1;
    }
    // SAFETY: reads 64 bytes from a 64-byte local array.
    unsafe { _mm512_loadu_si512(wide.as_ptr().cast()) }
}

/// The forward butterfly on 8 lanes.
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn butterfly(u: &mut __m512i, v: &mut __m512i, t: __m512i, fold: __m512i) {
    let even = _mm512_clmulepi64_epi128::<0x00>(*v, t);
    let odd = _mm512_clmulepi64_epi128::<0x11>(*v, t);
    let lo = _mm512_unpacklo_epi64(even, odd);
    let hi = _mm512_unpackhi_epi64(even, odd);
    let spill = _mm512_shuffle_epi8(fold, _mm512_srli_epi64::<60>(hi));
    // hi·0x1B = hi·(x^3 + 1)·(x + 1): y = hi ^ hi<<3, then y ^ y<<1 (mod 2^64).
    let y = _mm512_xor_si512(hi, _mm512_slli_epi64::<3>(hi));
    let y2 = _mm512_add_epi64(y, y);
    let a = _mm512_ternarylogic_epi64::<0x96>(*u, lo, y);
    *u = _mm512_ternarylogic_epi64::<0x96>(a, y2, spill);
    *v = _mm512_xor_si512(*v, *u);
}

/// The mask of the first `n < 8` lanes.
#[inline(always)]
fn tail_mask(n: usize) -> __mmask8 {
    ((1u32 << n) - 1) as __mmask8
}

/// # Safety
/// AVX-512F; `p` valid for the masked lanes.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load(p: *const u64, mask: __mmask8) -> __m512i {
    // SAFETY: forwarded contract; masked-off lanes are not read.
    unsafe { _mm512_maskz_loadu_epi64(mask, p.cast()) }
}

/// # Safety
/// AVX-512F; `p` valid for the masked lanes.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store(p: *mut u64, v: __m512i, mask: __mmask8) {
    // SAFETY: forwarded contract; masked-off lanes are not written.
    unsafe { _mm512_mask_storeu_epi64(p.cast(), mask, v) }
}

/// # Safety
/// AVX-512F; `p` valid for 8 words.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load_full(p: *const u64) -> __m512i {
    // SAFETY: forwarded contract.
    unsafe { _mm512_loadu_si512(p.cast()) }
}

/// # Safety
/// AVX-512F; `p` valid for 8 words.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store_full(p: *mut u64, v: __m512i) {
    // SAFETY: forwarded contract.
    unsafe { _mm512_storeu_si512(p.cast(), v) }
}

/// One butterfly between registers `a` and `b` of a group.
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn butterfly_at<const R: usize>(r: &mut [__m512i; R], a: usize, b: usize, t: __m512i, fold: __m512i) {
    let (mut u, mut v) = (r[a], r[b]);
    butterfly(&mut u, &mut v, t, fold);
    r[a] = u;
    r[b] = v;
}

/// A butterfly whose twiddle is zero: `v ← v + u`.
#[target_feature(enable = "avx512f")]
#[inline]
fn zero_butterfly_at<const R: usize>(r: &mut [__m512i; R], a: usize, b: usize) {
    r[b] = _mm512_xor_si512(r[b], r[a]);
}

/// The first butterfly of each layer of a group: a plain XOR when `ZERO` (the group is the
/// first block of its step, whose twiddles 0, 1 and 3 are zero; see `ntt_kernels`' radix-8).
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn first_butterfly_at<const R: usize, const ZERO: bool>(
    r: &mut [__m512i; R],
    a: usize,
    b: usize,
    t: __m512i,
    fold: __m512i,
) {
    if ZERO {
        zero_butterfly_at(r, a, b);
    } else {
        butterfly_at(r, a, b, t, fold);
    }
}

/// The butterflies of a radix-R group (R = 2, 4 or 8) on R registers, twiddles in the
/// breadth-first order of `Backend::radix8`/`radix4`/`butterfly`: 1, 4 or 12 butterflies.
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
fn group_registers<const R: usize, const ZERO: bool>(r: &mut [__m512i; R], t: &[__m512i; 7], fold: __m512i) {
    match R {
        2 => first_butterfly_at::<R, ZERO>(r, 0, 1, t[0], fold),
        4 => {
            first_butterfly_at::<R, ZERO>(r, 0, 2, t[0], fold);
            first_butterfly_at::<R, ZERO>(r, 1, 3, t[0], fold);
            first_butterfly_at::<R, ZERO>(r, 0, 1, t[1], fold);
            butterfly_at(r, 2, 3, t[2], fold);
        }
        _ => {
            for k in 0..4 {
                first_butterfly_at::<R, ZERO>(r, k, k + 4, t[0], fold);
            }
            first_butterfly_at::<R, ZERO>(r, 0, 2, t[1], fold);
            first_butterfly_at::<R, ZERO>(r, 1, 3, t[1], fold);
            butterfly_at(r, 4, 6, t[2], fold);
            butterfly_at(r, 5, 7, t[2], fold);
            first_butterfly_at::<R, ZERO>(r, 0, 1, t[3], fold);
            for k in 1..4 {
                butterfly_at(r, 2 * k, 2 * k + 1, t[3 + k], fold);
            }
        }
    }
}

/// Whether `tw` are the twiddles of a step's first block: zero wherever [`group_registers`]
/// with `ZERO` leaves the product out (twiddle 0, and 1 and 3 where the radix has them).
fn first_block_twiddles(tw: &[u64]) -> bool {
    [0, 1, 3].iter().all(|&k| tw.get(k).is_none_or(|&w| w == 0))
}

/// Copies `len` words from `src` to `dst` with non-temporal stores for the 64-byte-aligned
/// middle of `dst` (plain copies for the ragged ends). The caller fences before other threads
/// read the words ([`fence`]).
///
/// # Safety
/// The CPU has AVX-512F; `dst` is valid for `len` writes and `src` for `len` reads; they do not
/// overlap.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn copy_streaming(dst: *mut u64, src: *const u64, len: usize) {
    let head = (dst.align_offset(64)).min(len);
    // SAFETY: `head <= len` words, valid and disjoint by the contract.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, head) };
    let mut i = head;
    while i + 8 <= len {
        // SAFETY: `i + 8 <= len`; `dst + i` is 64-byte aligned (i − head is a multiple of 8).
        let v = unsafe { _mm512_loadu_si512(src.wrapping_add(i).cast()) };
        // SAFETY: as above.
        unsafe { _mm512_stream_si512(dst.wrapping_add(i).cast(), v) };
        i += 8;
    }
    // SAFETY: the remaining `len − i` words are in bounds and disjoint.
    unsafe { core::ptr::copy_nonoverlapping(src.wrapping_add(i), dst.wrapping_add(i), len - i) };
}

/// Orders this thread's non-temporal stores before its later stores (one per task).
pub(crate) fn fence() {
    // SAFETY: SSE is part of the x86_64 baseline.
    unsafe { _mm_sfence() };
}

/// Rows up to this many words (4 KiB) are prefetched one row ahead by [`radix_rows`].
const SHORT_ROW_WORDS: usize = 512;

/// A radix-R group (R = 2, 4 or 8 rows in registers, `tw` its R − 1 twiddles) over a block of
/// rows that need not be contiguous (`StridedRows`). This fuses a gathered group's gather into
/// its first step and its scatter into its last (with non-temporal stores when `stream`; the
/// full columns start at the destination rows' cache-line boundary).
///
/// # Safety
/// The CPU has AVX-512F, AVX-512BW and VPCLMULQDQ; every source row is valid for reads and every
/// destination row for writes; a destination row overlaps no other row of the call except its
/// own source row (in-place is allowed).
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
pub(crate) unsafe fn radix_rows<const R: usize>(rows: StridedRows, tw: &[u64], stream: bool) {
    if first_block_twiddles(tw) {
        // SAFETY: forwarded contract.
        unsafe { strided_group::<R, true>(rows, tw, stream) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { strided_group::<R, false>(rows, tw, stream) }
    }
}

/// [`radix_rows`], the first block's products left out when `ZERO`.
///
/// # Safety
/// As for [`radix_rows`].
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
unsafe fn strided_group<const R: usize, const ZERO: bool>(rows: StridedRows, tw: &[u64], stream: bool) {
    let StridedRows {
        src,
        src_stride,
        dst,
        dst_stride,
        seg_rows,
        width,
    } = rows;
    debug_assert!(matches!(R, 2 | 4 | 8) && tw.len() == R - 1);
    let fold = fold_table();
    let mut t = [_mm512_setzero_si512(); 7];
    for (reg, &w) in t.iter_mut().zip(tw) {
        *reg = _mm512_set1_epi64(w as i64);
    }
    // Full columns start where the destination rows reach a cache-line boundary (a partial,
    // masked column before them): a 64-byte store across two lines costs both. With a row
    // stride of whole lines every row shares row 0's alignment.
    let head = dst.align_offset(64).min(width);
    let full = head + (width - head) / 8 * 8;
    // Streaming needs every full column 64-byte aligned: the row stride keeps row 0's.
    let stream = stream && (dst_stride * 8).is_multiple_of(64);
    for r in 0..seg_rows {
        let s = src.wrapping_add(r * src_stride);
        let d = dst.wrapping_add(r * dst_stride);
        let (s_seg, d_seg) = (seg_rows * src_stride, seg_rows * dst_stride);
        if src_stride != width && width <= SHORT_ROW_WORDS && r + 1 < seg_rows {
            // Short strided rows defeat the hardware prefetchers (each is a fresh page): fetch
            // the next row of each segment while this one computes. Long rows are sequential
            // runs the prefetchers follow on their own.
            let next = s.wrapping_add(src_stride);
            for k in 0..R {
                let row = next.wrapping_add(k * s_seg);
                let mut c = 0;
                while c < width {
                    // A prefetch never faults, whatever the address.
                    _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(c).cast());
                    c += 8;
                }
            }
        }
        if head > 0 {
            // SAFETY: columns [0, head) of the block's rows, valid (caller).
            unsafe { masked_column::<R, ZERO>((s, s_seg), (d, d_seg), 0, head, &t, fold) };
        }
        let mut i = head;
        while i < full {
            let mut v = [_mm512_setzero_si512(); R];
            for (k, reg) in v.iter_mut().enumerate() {
                // SAFETY: row k·seg_rows + r of the block, columns [i, i+8) < width (caller).
                *reg = unsafe { load_full(s.wrapping_add(k * s_seg + i)) };
            }
            group_registers::<R, ZERO>(&mut v, &t, fold);
            for (k, reg) in v.into_iter().enumerate() {
                let p = d.wrapping_add(k * d_seg + i);
                if stream {
                    // SAFETY: as for the loads, destination side; 64-byte aligned (checked).
                    unsafe { _mm512_stream_si512(p.cast(), reg) };
                } else {
                    // SAFETY: as for the loads, destination side.
                    unsafe { store_full(p, reg) };
                }
            }
            i += 8;
        }
        if i < width {
            // SAFETY: columns [i, width) of the block's rows, valid (caller).
            unsafe { masked_column::<R, ZERO>((s, s_seg), (d, d_seg), i, width - i, &t, fold) };
        }
    }
}

/// One column of `n < 8` words at word `i` of a strided group's rows (row k at `src + k·s_seg`
/// and `dst + k·d_seg`), through masked loads and stores.
///
/// # Safety
/// AVX-512F/BW and VPCLMULQDQ; words `i .. i + n` of every row are valid for reads (source) and
/// writes (destination).
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
#[inline]
unsafe fn masked_column<const R: usize, const ZERO: bool>(
    (src, s_seg): (*const u64, usize),
    (dst, d_seg): (*mut u64, usize),
    i: usize,
    n: usize,
    t: &[__m512i; 7],
    fold: __m512i,
) {
    let mask = tail_mask(n);
    let mut v = [_mm512_setzero_si512(); R];
    for (k, reg) in v.iter_mut().enumerate() {
        // SAFETY: the masked lanes are words [i, i + n) of row k (caller).
        *reg = unsafe { load(src.wrapping_add(k * s_seg + i), mask) };
    }
    group_registers::<R, ZERO>(&mut v, t, fold);
    for (k, reg) in v.into_iter().enumerate() {
        // SAFETY: as for the loads, destination side.
        unsafe { store(dst.wrapping_add(k * d_seg + i), reg, mask) };
    }
}
