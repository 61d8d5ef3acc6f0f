//! The row kernels, written once over [`FieldVec`] and instantiated per ISA in [`crate::dispatch`].
//!
//! A kernel walks its rows one column of `V::WIDTH` words at a time; the last column may be
//! partial (masked on AVX-512, through a small buffer elsewhere). Rows are plain `u64` slices of
//! any length and alignment.
//!
//! # Safety
//! Every function here is `unsafe` for one reason: `V`'s constructors need the CPU to have `V`'s
//! target features. The caller (a `#[target_feature]` entry point reached through a checked
//! [`crate::Backend`]) guarantees it. Slice bounds are checked by the public wrappers.

use crate::columns::ColumnStart;
use crate::groups;
use crate::simd::FieldVec;
use crate::strided::StridedRows;

/// Runs `$body` with `$i` bound to each column offset of a `$len`-word row and `$n` to the
/// column's width: `V::WIDTH` for full columns (a constant, so the partial-column branches fold
/// away), less for a partial first and last one. A macro rather than a closure: closures do not
/// inherit the entry point's target features, so their bodies would not inline into the hot
/// loop.
///
/// The full columns start where `$columns` says for a row at `$base` (the row's first word, or
/// the first segment's): see [`ColumnStart::head`].
macro_rules! for_columns {
    ($simd:ty, $len:expr, $base:expr, $columns:expr, |$i:ident, $n:ident| $body:block) => {{
        let len: usize = $len;
        let width = <$simd as FieldVec>::WIDTH;
        let head = ColumnStart::head($columns, $base as *const u64, len, width, false);
        let full = head + (len - head) / width * width;
        let mut $i = 0;
        if head > 0 {
            let $n = head;
            $body
            $i = head;
        }
        while $i < full {
            let $n = width;
            $body
            $i += width;
        }
        if $i < len {
            let $n = len - $i;
            $body
        }
    }};
}

/// Loads `n <= V::WIDTH` words; `n` is a constant `V::WIDTH` in the main loop, so the branch
/// folds away there.
///
/// # Safety
/// The CPU has `V`'s features; `src` is valid for `n` reads.
#[inline(always)]
pub(crate) unsafe fn load<V: FieldVec>(src: *const u64, n: usize) -> V {
    if n == V::WIDTH {
        // SAFETY: the CPU has `V`'s features and `src` is valid for `n = V::WIDTH` reads
        // (this function's contract).
        unsafe { V::load(src) }
    } else {
        // SAFETY: the CPU has `V`'s features and `src` is valid for `n` reads (this
        // function's contract).
        unsafe { V::load_partial(src, n) }
    }
}

/// Stores the first `n <= V::WIDTH` slots.
///
/// # Safety
/// `dst` is valid for `n` writes.
#[inline(always)]
pub(crate) unsafe fn store<V: FieldVec>(v: V, dst: *mut u64, n: usize) {
    if n == V::WIDTH {
        // SAFETY: `dst` is valid for `n = V::WIDTH` writes (this function's contract); `v`
        // exists, so the CPU has `V`'s features.
        unsafe { v.store(dst) }
    } else {
        // SAFETY: `dst` is valid for `n` writes (this function's contract); `v` exists, so
        // the CPU has `V`'s features.
        unsafe { v.store_partial(dst, n) }
    }
}

/// The forward butterfly in registers: `u ← u + t·v`, `v ← v + u`.
#[inline(always)]
pub(crate) fn forward<V: FieldVec>(u: &mut V, v: &mut V, t: &V::Twiddle) {
    *u = V::mul_add(*u, *v, t);
    *v = v.xor(*u);
}

/// [`forward`], or when `ZERO` (the twiddle is known to be 0) just `v ← v + u`.
#[inline(always)]
pub(crate) fn forward_or_zero<V: FieldVec, const ZERO: bool>(u: &mut V, v: &mut V, t: &V::Twiddle) {
    if ZERO {
        *v = v.xor(*u);
    } else {
        forward(u, v, t);
    }
}

/// The inverse butterfly in registers: `v ← v + u`, `u ← u + t·v`.
#[inline(always)]
pub(crate) fn inverse<V: FieldVec>(u: &mut V, v: &mut V, t: &V::Twiddle) {
    *v = v.xor(*u);
    *u = V::mul_add(*u, *v, t);
}

/// `row ← t·row`.
///
/// # Safety
/// The CPU has `V`'s features.
#[inline(always)]
pub(crate) unsafe fn mul_row<V: FieldVec>(row: &mut [u64], t: u64, columns: ColumnStart) {
    // SAFETY: the caller vouches for the features.
    let t = unsafe { V::twiddle(t) };
    let p = row.as_mut_ptr();
    for_columns!(V, row.len(), p, columns, |i, n| {
        // SAFETY: `i + n <= row.len()`; features as above.
        let v: V = unsafe { load(p.wrapping_add(i), n) };
        // SAFETY: `i + n <= row.len()`.
        unsafe { store(V::mul(v, &t), p.wrapping_add(i), n) };
    })
}

/// One butterfly per column of a row pair, inverse when `INVERSE`; a forward one without the
/// product when `ZERO` (the twiddle is 0). (Const flags rather than function arguments: an `Fn`
/// call shim would not inherit the entry point's features.)
///
/// # Safety
/// The CPU has `V`'s features; `u.len() == v.len()`.
#[inline(always)]
unsafe fn butterfly_rows<V: FieldVec, const INVERSE: bool, const ZERO: bool>(
    u: &mut [u64],
    v: &mut [u64],
    t: u64,
    columns: ColumnStart,
) {
    debug_assert_eq!(u.len(), v.len());
    // SAFETY: the caller vouches for the features.
    let t = unsafe { V::twiddle(t) };
    let (pu, pv) = (u.as_mut_ptr(), v.as_mut_ptr());
    for_columns!(V, u.len(), pu, columns, |i, n| {
        // SAFETY: `i + n <= u.len()`; features as above.
        let mut a: V = unsafe { load(pu.wrapping_add(i), n) };
        // SAFETY: `i + n <= v.len() == u.len()`; features as above.
        let mut b: V = unsafe { load(pv.wrapping_add(i), n) };
        if INVERSE {
            inverse(&mut a, &mut b, &t);
        } else {
            forward_or_zero::<V, ZERO>(&mut a, &mut b, &t);
        }
        // SAFETY: `i + n <= u.len()`.
        unsafe { store(a, pu.wrapping_add(i), n) };
        // SAFETY: `i + n <= v.len()`.
        unsafe { store(b, pv.wrapping_add(i), n) };
    })
}

/// Forward butterflies over a row pair.
///
/// # Safety
/// The CPU has `V`'s features; `u.len() == v.len()`.
#[inline(always)]
pub(crate) unsafe fn butterfly<V: FieldVec>(u: &mut [u64], v: &mut [u64], t: u64, columns: ColumnStart) {
    if t == 0 {
        // The first block of a layer: `u` stays, `v ← v + u` (see [`radix8`]).
        // SAFETY: the CPU has `V`'s features and `u.len() == v.len()` (this function's contract).
        unsafe { butterfly_rows::<V, false, true>(u, v, t, columns) }
    } else {
        // SAFETY: the CPU has `V`'s features and `u.len() == v.len()` (this function's contract).
        unsafe { butterfly_rows::<V, false, false>(u, v, t, columns) }
    }
}

/// Inverse butterflies over a row pair.
///
/// # Safety
/// The CPU has `V`'s features; `u.len() == v.len()`.
#[inline(always)]
pub(crate) unsafe fn inverse_butterfly<V: FieldVec>(
    u: &mut [u64],
    v: &mut [u64],
    t: u64,
    columns: ColumnStart,
) {
    // SAFETY: the CPU has `V`'s features and `u.len() == v.len()` (this function's contract).
    unsafe { butterfly_rows::<V, true, false>(u, v, t, columns) }
}

/// The radix-4 group on a contiguous block (see [`crate::Backend::radix4`]): one row per segment
/// of [`crate::groups`]' strided group.
///
/// # Safety
/// The CPU has `V`'s features; `block.len() % 4 == 0`.
#[inline(always)]
pub(crate) unsafe fn radix4<V: FieldVec>(block: &mut [u64], tw: [u64; 3], columns: ColumnStart) {
    // SAFETY: the block's four segments, in place; features forwarded.
    unsafe { groups::radix_rows::<V, 4, false>(StridedRows::contiguous(block, 4), &tw, false, columns) }
}

/// Undoes [`radix4`] with the same twiddles.
///
/// # Safety
/// The CPU has `V`'s features; `block.len() % 4 == 0`.
#[inline(always)]
pub(crate) unsafe fn inverse_radix4<V: FieldVec>(block: &mut [u64], tw: [u64; 3], columns: ColumnStart) {
    // SAFETY: the block's four segments, in place; the CPU has `V`'s features (this
    // function's contract).
    unsafe { groups::radix_rows::<V, 4, true>(StridedRows::contiguous(block, 4), &tw, false, columns) }
}

/// The radix-8 group on a contiguous block (see [`crate::Backend::radix8`]): eight segments in
/// registers across all twelve butterflies of three layers, so each word is loaded and stored
/// once per three layers.
///
/// # Safety
/// The CPU has `V`'s features; `block.len() % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn radix8<V: FieldVec>(block: &mut [u64], tw: [u64; 7], columns: ColumnStart) {
    // SAFETY: the block's eight segments, in place; features forwarded.
    unsafe { groups::radix_rows::<V, 8, false>(StridedRows::contiguous(block, 8), &tw, false, columns) }
}

/// Undoes [`radix8`] with the same twiddles, layers in reverse.
///
/// # Safety
/// The CPU has `V`'s features; `block.len() % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn inverse_radix8<V: FieldVec>(block: &mut [u64], tw: [u64; 7], columns: ColumnStart) {
    // SAFETY: the block's eight segments, in place; the CPU has `V`'s features (this
    // function's contract).
    unsafe { groups::radix_rows::<V, 8, true>(StridedRows::contiguous(block, 8), &tw, false, columns) }
}

/// A radix-2/4/8 group (by `tw.len()` = 1, 3 or 7) over strided rows (see
/// [`crate::Backend::radix_rows`]); no fence.
///
/// # Safety
/// The CPU has `V`'s features; the rows are valid as [`crate::Backend::radix_rows`] requires.
#[inline(always)]
pub(crate) unsafe fn radix_rows<V: FieldVec>(
    rows: StridedRows,
    tw: &[u64],
    stream: bool,
    columns: ColumnStart,
) {
    match tw.len() {
        // SAFETY: the CPU has `V`'s features and the rows are valid (this function's
        // contract); the radix matches the twiddle count.
        7 => unsafe { groups::radix_rows::<V, 8, false>(rows, tw, stream, columns) },
        // SAFETY: the CPU has `V`'s features and the rows are valid (this function's
        // contract); the radix matches the twiddle count.
        3 => unsafe { groups::radix_rows::<V, 4, false>(rows, tw, stream, columns) },
        // SAFETY: the CPU has `V`'s features and the rows are valid (this function's
        // contract); the radix matches the twiddle count.
        _ => unsafe { groups::radix_rows::<V, 2, false>(rows, tw, stream, columns) },
    }
}

/// Copies `src` into `dst` with streaming stores for the `8·V::WIDTH`-byte-aligned middle of
/// `dst`, plain copies for the ragged head and tail, and a fence before returning.
///
/// # Safety
/// The CPU has `V`'s features; `dst.len() == src.len()`.
#[inline(always)]
pub(crate) unsafe fn copy_streaming<V: FieldVec>(dst: &mut [u64], src: &[u64]) {
    debug_assert_eq!(dst.len(), src.len());
    // SAFETY: `dst` is valid for `src.len()` writes and, being `&mut`, disjoint from `src`.
    unsafe { copy_rows::<V>(dst.as_mut_ptr(), src, true) };
    V::stream_fence();
}

/// Copies `src` to `src.len()` words at `dst`; when `stream`, with non-temporal stores for the
/// `8·V::WIDTH`-byte-aligned middle of `dst` (plain copies for the ragged head and tail) and no
/// fence (the caller orders them with [`FieldVec::stream_fence`]).
///
/// # Safety
/// The CPU has `V`'s features; `dst` is valid for `src.len()` writes (it may be uninitialised)
/// and does not overlap `src`.
#[inline(always)]
pub(crate) unsafe fn copy_rows<V: FieldVec>(dst: *mut u64, src: &[u64], stream: bool) {
    let len = src.len();
    if !stream {
        // SAFETY: `dst` is valid for `len` writes and does not overlap `src` (this function's
        // contract).
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), dst, len) };
        return;
    }
    let w = V::WIDTH;
    let head = ((w - (dst.addr() / 8) % w) % w).min(len);
    let body = (len - head) / w * w;
    let ps = src.as_ptr();
    // SAFETY: the first `head <= len` words, valid and disjoint (caller).
    unsafe { core::ptr::copy_nonoverlapping(ps, dst, head) };
    let mut i = head;
    while i < head + body {
        // SAFETY: `i + w <= len`; features as the caller vouches.
        let v = unsafe { V::load(ps.wrapping_add(i)) };
        // SAFETY: `i + w <= len` and `dst + i` is `8·w`-byte aligned (past the head).
        unsafe { v.store_stream(dst.wrapping_add(i)) };
        i += w;
    }
    // SAFETY: the remaining `len − i` words, valid and disjoint (caller).
    unsafe { core::ptr::copy_nonoverlapping(ps.wrapping_add(i), dst.wrapping_add(i), len - i) };
}
