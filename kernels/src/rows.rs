//! The row kernels, written once over [`Lanes`] and instantiated per ISA in [`crate::dispatch`].
//!
//! A kernel walks its rows one column of `L::WIDTH` words at a time; the last column may be
//! partial (masked on AVX-512, through a small buffer elsewhere). Rows are plain `u64` slices of
//! any length and alignment.
//!
//! # Safety
//! Every function here is `unsafe` for one reason: `L`'s constructors need the CPU to have `L`'s
//! target features. The caller (a `#[target_feature]` entry point reached through a checked
//! [`crate::Backend`]) guarantees it. Slice bounds are checked by the public wrappers.

use crate::lanes::Lanes;

/// Runs `$body` with `$i` bound to each column offset of a `$len`-word row and `$n` to the
/// column's width: `L::WIDTH` for full columns (a constant, so the partial-column branches fold
/// away), less for a partial first and last one. A macro rather than a closure: closures do not
/// inherit the entry point's target features, so their bodies would not inline into the hot
/// loop.
///
/// With 64-byte vectors the full columns start where `$base` (the row's first word, or the first
/// segment's) reaches a cache-line boundary, after a partial column: a buffer from the system
/// allocator usually starts 16 bytes into a line, and a 64-byte access across two lines costs
/// both (measured 7–15 % on whole encodes). Narrower vectors start at the row's first word.
macro_rules! for_columns {
    ($lanes:ty, $len:expr, $base:expr, |$i:ident, $n:ident| $body:block) => {{
        let len: usize = $len;
        let width = <$lanes as Lanes>::WIDTH;
        let head = if width == 8 {
            ($base as *const u64).align_offset(64).min(len) % width
        } else {
            0
        };
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

/// The twiddles of a group, prepared.
///
/// # Safety
/// The CPU has `L`'s features.
#[inline(always)]
unsafe fn prepare<L: Lanes, const K: usize>(tw: [u64; K]) -> [L::Twiddle; K] {
    const { assert!(K > 0) };
    // SAFETY: the caller vouches for the features.
    let mut out = [unsafe { L::twiddle(tw[0]) }; K];
    for k in 1..K {
        // SAFETY: as above.
        out[k] = unsafe { L::twiddle(tw[k]) };
    }
    out
}

/// Loads `n <= L::WIDTH` words; `n` is a constant `L::WIDTH` in the main loop, so the branch
/// folds away there.
///
/// # Safety
/// The CPU has `L`'s features; `src` is valid for `n` reads.
#[inline(always)]
unsafe fn load<L: Lanes>(src: *const u64, n: usize) -> L {
    if n == L::WIDTH {
        // SAFETY: forwarded contract.
        unsafe { L::load(src) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { L::load_partial(src, n) }
    }
}

/// Stores the first `n <= L::WIDTH` lanes.
///
/// # Safety
/// `dst` is valid for `n` writes.
#[inline(always)]
unsafe fn store<L: Lanes>(v: L, dst: *mut u64, n: usize) {
    if n == L::WIDTH {
        // SAFETY: forwarded contract.
        unsafe { v.store(dst) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { v.store_partial(dst, n) }
    }
}

/// The forward butterfly in registers: `u ← u + t·v`, `v ← v + u`.
#[inline(always)]
fn forward<L: Lanes>(u: &mut L, v: &mut L, t: &L::Twiddle) {
    *u = L::mul_add(*u, *v, t);
    *v = v.xor(*u);
}

/// [`forward`], or when `ZERO` (the twiddle is known to be 0) just `v ← v + u`.
#[inline(always)]
fn forward_or_zero<L: Lanes, const ZERO: bool>(u: &mut L, v: &mut L, t: &L::Twiddle) {
    if ZERO {
        *v = v.xor(*u);
    } else {
        forward(u, v, t);
    }
}

/// The inverse butterfly in registers: `v ← v + u`, `u ← u + t·v`.
#[inline(always)]
fn inverse<L: Lanes>(u: &mut L, v: &mut L, t: &L::Twiddle) {
    *v = v.xor(*u);
    *u = L::mul_add(*u, *v, t);
}

/// `row ← t·row`.
///
/// # Safety
/// The CPU has `L`'s features.
#[inline(always)]
pub(crate) unsafe fn mul_row<L: Lanes>(row: &mut [u64], t: u64) {
    // SAFETY: the caller vouches for the features.
    let t = unsafe { L::twiddle(t) };
    let p = row.as_mut_ptr();
    for_columns!(L, row.len(), p, |i, n| {
        // SAFETY: `i + n <= row.len()`; features as above.
        let v: L = unsafe { load(p.wrapping_add(i), n) };
        // SAFETY: `i + n <= row.len()`.
        unsafe { store(L::mul(v, &t), p.wrapping_add(i), n) };
    })
}

/// One butterfly per column of a row pair, inverse when `INVERSE`; a forward one without the
/// product when `ZERO` (the twiddle is 0). (Const flags rather than function arguments: an `Fn`
/// call shim would not inherit the entry point's features.)
///
/// # Safety
/// The CPU has `L`'s features; `u.len() == v.len()`.
#[inline(always)]
unsafe fn butterfly_rows<L: Lanes, const INVERSE: bool, const ZERO: bool>(
    u: &mut [u64],
    v: &mut [u64],
    t: u64,
) {
    debug_assert_eq!(u.len(), v.len());
    // SAFETY: the caller vouches for the features.
    let t = unsafe { L::twiddle(t) };
    let (pu, pv) = (u.as_mut_ptr(), v.as_mut_ptr());
    for_columns!(L, u.len(), pu, |i, n| {
        // SAFETY: `i + n <= u.len()`; features as above.
        let mut a: L = unsafe { load(pu.wrapping_add(i), n) };
        // SAFETY: `i + n <= v.len() == u.len()`; features as above.
        let mut b: L = unsafe { load(pv.wrapping_add(i), n) };
        if INVERSE {
            inverse(&mut a, &mut b, &t);
        } else {
            forward_or_zero::<L, ZERO>(&mut a, &mut b, &t);
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
/// The CPU has `L`'s features; `u.len() == v.len()`.
#[inline(always)]
pub(crate) unsafe fn butterfly<L: Lanes>(u: &mut [u64], v: &mut [u64], t: u64) {
    if t == 0 {
        // The first block of a layer: `u` stays, `v ← v + u` (see [`radix8`]).
        // SAFETY: forwarded contract.
        unsafe { butterfly_rows::<L, false, true>(u, v, t) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { butterfly_rows::<L, false, false>(u, v, t) }
    }
}

/// Inverse butterflies over a row pair.
///
/// # Safety
/// The CPU has `L`'s features; `u.len() == v.len()`.
#[inline(always)]
pub(crate) unsafe fn inverse_butterfly<L: Lanes>(u: &mut [u64], v: &mut [u64], t: u64) {
    // SAFETY: forwarded contract.
    unsafe { butterfly_rows::<L, true, false>(u, v, t) }
}

/// Loads column `$i` (`$n` words) of segment `k` (of `$seg` words from `$base`) into `$s` for
/// each `k: $s`, unrolled so the rows go straight into registers.
///
/// Safety (of the expansion): the CPU has `$lanes`' features; `$base` is valid for reading
/// every listed segment and `$i + $n <= $seg`.
macro_rules! load_rows {
    ($lanes:ty, $base:expr, $seg:expr, $i:expr, $n:expr => $($k:literal: $s:ident),+) => {
        $(
            // SAFETY: see the macro's safety note; the caller's loop upholds it.
            let mut $s: $lanes = unsafe { load($base.wrapping_add($k * $seg + $i), $n) };
        )+
    };
}

/// Stores the rows back, the counterpart of [`load_rows`].
macro_rules! store_rows {
    ($base:expr, $seg:expr, $i:expr, $n:expr => $($k:literal: $s:ident),+) => {
        $(
            // SAFETY: `$base` is valid for writing every listed segment and `$i + $n <= $seg`.
            unsafe { store($s, $base.wrapping_add($k * $seg + $i), $n) };
        )+
    };
}

/// The radix-4 group: four segments in registers, two layers (see [`crate::Backend::radix4`]).
/// Twiddles 0 and 1 are zero in the first block of a step (see [`radix8`]).
///
/// # Safety
/// The CPU has `L`'s features; `block.len() % 4 == 0`.
#[inline(always)]
pub(crate) unsafe fn radix4<L: Lanes>(block: &mut [u64], tw: [u64; 3]) {
    if tw[0] == 0 && tw[1] == 0 {
        // SAFETY: forwarded contract.
        unsafe { radix4_group::<L, true>(block, tw) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { radix4_group::<L, false>(block, tw) }
    }
}

/// [`radix4`], with the products by twiddles 0 and 1 left out when `ZERO` (they are zero).
///
/// # Safety
/// As for [`radix4`].
#[inline(always)]
unsafe fn radix4_group<L: Lanes, const ZERO: bool>(block: &mut [u64], tw: [u64; 3]) {
    let seg = block.len() / 4;
    // SAFETY: the caller vouches for the features.
    let t: [L::Twiddle; 3] = unsafe { prepare::<L, 3>(tw) };
    let base = block.as_mut_ptr();
    for_columns!(L, seg, base, |i, n| {
        load_rows!(L, base, seg, i, n => 0: a, 1: b, 2: c, 3: d);
        forward_or_zero::<L, ZERO>(&mut a, &mut c, &t[0]);
        forward_or_zero::<L, ZERO>(&mut b, &mut d, &t[0]);
        forward_or_zero::<L, ZERO>(&mut a, &mut b, &t[1]);
        forward(&mut c, &mut d, &t[2]);
        store_rows!(base, seg, i, n => 0: a, 1: b, 2: c, 3: d);
    })
}

/// The inverse radix-4 group: undoes [`radix4`] with the same twiddles.
///
/// # Safety
/// The CPU has `L`'s features; `block.len() % 4 == 0`.
#[inline(always)]
pub(crate) unsafe fn inverse_radix4<L: Lanes>(block: &mut [u64], tw: [u64; 3]) {
    let seg = block.len() / 4;
    // SAFETY: the caller vouches for the features.
    let t: [L::Twiddle; 3] = unsafe { prepare::<L, 3>(tw) };
    let base = block.as_mut_ptr();
    for_columns!(L, seg, base, |i, n| {
        load_rows!(L, base, seg, i, n => 0: a, 1: b, 2: c, 3: d);
        inverse(&mut a, &mut b, &t[1]);
        inverse(&mut c, &mut d, &t[2]);
        inverse(&mut a, &mut c, &t[0]);
        inverse(&mut b, &mut d, &t[0]);
        store_rows!(base, seg, i, n => 0: a, 1: b, 2: c, 3: d);
    })
}

/// The radix-8 group: eight segments in registers across all twelve butterflies of three layers
/// (see [`crate::Backend::radix8`]), so each word is loaded and stored once per three layers.
///
/// In the first block of a step (global block 0) twiddles 0, 1 and 3 are zero (ŝ(0) = 0, the
/// first block of every layer): those 7 butterflies reduce to `v ← v + u`, so that group skips
/// 7 of its 12 products. The other blocks have no zero twiddle.
///
/// # Safety
/// The CPU has `L`'s features; `block.len() % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn radix8<L: Lanes>(block: &mut [u64], tw: [u64; 7]) {
    if tw[0] == 0 && tw[1] == 0 && tw[3] == 0 {
        // SAFETY: forwarded contract.
        unsafe { radix8_group::<L, true>(block, tw) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { radix8_group::<L, false>(block, tw) }
    }
}

/// [`radix8`], with the products by twiddles 0, 1 and 3 left out when `ZERO` (they are zero).
///
/// # Safety
/// As for [`radix8`].
#[inline(always)]
unsafe fn radix8_group<L: Lanes, const ZERO: bool>(block: &mut [u64], tw: [u64; 7]) {
    let seg = block.len() / 8;
    // SAFETY: the caller vouches for the features.
    let t: [L::Twiddle; 7] = unsafe { prepare::<L, 7>(tw) };
    let base = block.as_mut_ptr();
    for_columns!(L, seg, base, |i, n| {
        load_rows!(L, base, seg, i, n => 0: s0, 1: s1, 2: s2, 3: s3, 4: s4, 5: s5, 6: s6, 7: s7);
        forward_or_zero::<L, ZERO>(&mut s0, &mut s4, &t[0]);
        forward_or_zero::<L, ZERO>(&mut s1, &mut s5, &t[0]);
        forward_or_zero::<L, ZERO>(&mut s2, &mut s6, &t[0]);
        forward_or_zero::<L, ZERO>(&mut s3, &mut s7, &t[0]);
        forward_or_zero::<L, ZERO>(&mut s0, &mut s2, &t[1]);
        forward_or_zero::<L, ZERO>(&mut s1, &mut s3, &t[1]);
        forward(&mut s4, &mut s6, &t[2]);
        forward(&mut s5, &mut s7, &t[2]);
        forward_or_zero::<L, ZERO>(&mut s0, &mut s1, &t[3]);
        forward(&mut s2, &mut s3, &t[4]);
        forward(&mut s4, &mut s5, &t[5]);
        forward(&mut s6, &mut s7, &t[6]);
        store_rows!(base, seg, i, n => 0: s0, 1: s1, 2: s2, 3: s3, 4: s4, 5: s5, 6: s6, 7: s7);
    })
}

/// The inverse radix-8 group: undoes [`radix8`] with the same twiddles, layers in reverse.
///
/// # Safety
/// The CPU has `L`'s features; `block.len() % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn inverse_radix8<L: Lanes>(block: &mut [u64], tw: [u64; 7]) {
    let seg = block.len() / 8;
    // SAFETY: the caller vouches for the features.
    let t: [L::Twiddle; 7] = unsafe { prepare::<L, 7>(tw) };
    let base = block.as_mut_ptr();
    for_columns!(L, seg, base, |i, n| {
        load_rows!(L, base, seg, i, n => 0: s0, 1: s1, 2: s2, 3: s3, 4: s4, 5: s5, 6: s6, 7: s7);
        inverse(&mut s0, &mut s1, &t[3]);
        inverse(&mut s2, &mut s3, &t[4]);
        inverse(&mut s4, &mut s5, &t[5]);
        inverse(&mut s6, &mut s7, &t[6]);
        inverse(&mut s0, &mut s2, &t[1]);
        inverse(&mut s1, &mut s3, &t[1]);
        inverse(&mut s4, &mut s6, &t[2]);
        inverse(&mut s5, &mut s7, &t[2]);
        inverse(&mut s0, &mut s4, &t[0]);
        inverse(&mut s1, &mut s5, &t[0]);
        inverse(&mut s2, &mut s6, &t[0]);
        inverse(&mut s3, &mut s7, &t[0]);
        store_rows!(base, seg, i, n => 0: s0, 1: s1, 2: s2, 3: s3, 4: s4, 5: s5, 6: s6, 7: s7);
    })
}

/// Copies `src` into `dst` with streaming stores for the `8·L::WIDTH`-byte-aligned middle of
/// `dst`, plain copies for the ragged head and tail, and a fence before returning.
///
/// # Safety
/// The CPU has `L`'s features; `dst.len() == src.len()`.
#[inline(always)]
pub(crate) unsafe fn copy_streaming<L: Lanes>(dst: &mut [u64], src: &[u64]) {
    debug_assert_eq!(dst.len(), src.len());
    let bytes = 8 * L::WIDTH;
    let misalign = dst.as_ptr() as usize % bytes;
    let head = (((bytes - misalign) % bytes) / 8).min(dst.len());
    let body = (dst.len() - head) / L::WIDTH * L::WIDTH;
    dst[..head].copy_from_slice(&src[..head]);
    let (pd, ps) = (dst.as_mut_ptr(), src.as_ptr());
    let mut i = head;
    while i < head + body {
        // SAFETY: `i + WIDTH <= src.len()`; features as the caller vouches.
        let v = unsafe { L::load(ps.wrapping_add(i)) };
        // SAFETY: `i + WIDTH <= dst.len()` and `dst + i` is `bytes`-aligned (past the head).
        unsafe { v.store_stream(pd.wrapping_add(i)) };
        i += L::WIDTH;
    }
    dst[i..].copy_from_slice(&src[i..]);
    L::stream_fence();
}
