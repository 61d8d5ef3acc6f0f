//! The radix-2/4/8 register groups, written once over [`FieldVec`] and over [`StridedRows`].
//!
//! A group holds one column (`V::WIDTH` words) of each of its R segments in R registers and runs
//! all the butterflies of its `log2 R` layers on them before storing: 1, 4 or 12 butterflies per
//! R loads and R stores. The rows come from a [`StridedRows`]: a contiguous block is one row per
//! segment, a gathered group of strided rows is many, read from one place and written to another
//! (so a gathered pass needs no gather or scatter copy).
//!
//! The forward radix-8 group reduces only what a later layer multiplies
//! ([`forward8_deferred`]): 8 reductions for its 12 products, the others summed unreduced.
//!
//! Where the ISA has the registers ([`FieldVec::PAIRED_COLUMNS`]), two adjacent columns run side by
//! side, butterfly by butterfly: a radix-8 group's three layers are a chain of three dependent
//! products per register, and the second column's chain fills the waits of the first. The
//! deferred radix-8 group keeps one column (see [`paired_columns`]).
//!
//! Twiddles are in breadth-first order (see [`crate::Backend::radix8`]): radix 8 pairs (i, i+4)
//! with `tw[0]`; (0,2),(1,3) with `tw[1]` and (4,6),(5,7) with `tw[2]`; (2k, 2k+1) with `tw[3+k]`.
//! Radix 4 is the same on four registers with `tw[0..3]`; radix 2 one butterfly with `tw[0]`.
//!
//! # Safety
//! As for [`crate::rows`]: the CPU has `V`'s features (the caller is a `#[target_feature]` entry
//! point reached through a checked [`crate::Backend`]); the rows are valid (the caller of
//! [`crate::Backend::radix_rows`] vouches for them, the safe wrappers check their slices).

use crate::columns::ColumnStart;
use crate::rows::{forward_or_zero, inverse, load, store};
use crate::simd::{FieldVec, Unreduced};
use crate::strided::StridedRows;

/// Source rows up to this many words (4 KiB) are prefetched one row ahead: a short strided row
/// starts a fresh page, which the hardware prefetchers do not follow; longer rows are sequential
/// runs they do follow.
const SHORT_ROW_WORDS: usize = 512;

/// Whether `tw` are the twiddles of a step's first block (global block 0): zero at 0, 1 and 3
/// (where the radix has them), because ŝ(0) = 0 is the first block of every layer. Those
/// butterflies reduce to `v ← v + u`: the first radix-8 group skips 7 of its 12 products.
fn first_block_twiddles(tw: &[u64]) -> bool {
    [0, 1, 3].iter().all(|&k| tw.get(k).is_none_or(|&w| w == 0))
}

/// Whether the group runs [`forward8_deferred`]: the forward radix-8 group past a first block,
/// where the products are carry-less multiplies ([`FieldVec::DEFER_REDUCTION`]).
const fn defers_reductions<V: FieldVec, const R: usize, const INVERSE: bool, const ZERO: bool>() -> bool {
    R == 8 && !INVERSE && !ZERO && V::DEFER_REDUCTION
}

/// Whether the group runs two columns side by side ([`FieldVec::PAIRED_COLUMNS`]). Not with
/// deferred reductions: their unreduced sums leave no registers for a second column (measured
/// on Zen 4 with AVX-512, a radix-8 group in L1 took 0.276 ns per lane-butterfly with one
/// column and 0.28-0.29 ns with two, which spilled).
const fn paired_columns<V: FieldVec, const R: usize, const INVERSE: bool, const ZERO: bool>() -> bool {
    V::PAIRED_COLUMNS && !defers_reductions::<V, R, INVERSE, ZERO>()
}

/// A radix-`R` group over `rows`, forward (`INVERSE == false`) or inverse, its full columns
/// starting where `columns` says, with non-temporal stores for the full columns when `stream`
/// and the destination rows allow it (every row's full columns aligned to the vector: a stride
/// of whole vectors).
///
/// # Safety
/// The CPU has `V`'s features; `tw.len() == R − 1`; every row of `rows` is valid (source for
/// reads, destination for writes) and a destination row overlaps no other row of the group
/// except its own source row.
#[inline(always)]
pub(crate) unsafe fn radix_rows<V: FieldVec, const R: usize, const INVERSE: bool>(
    rows: StridedRows,
    tw: &[u64],
    stream: bool,
    columns: ColumnStart,
) {
    debug_assert!(matches!(R, 2 | 4 | 8) && tw.len() == R - 1);
    // SAFETY: the caller vouches for the features.
    let t = unsafe { prepare::<V, R>(tw) };
    let stream = stream && rows.dst_stride.is_multiple_of(V::WIDTH);
    match (!INVERSE && first_block_twiddles(tw), stream) {
        // SAFETY: the caller's contract, forwarded.
        (true, true) => unsafe { group::<V, R, INVERSE, true, true>(rows, &t, columns) },
        // SAFETY: the caller's contract, forwarded.
        (true, false) => unsafe { group::<V, R, INVERSE, true, false>(rows, &t, columns) },
        // SAFETY: the caller's contract, forwarded.
        (false, true) => unsafe { group::<V, R, INVERSE, false, true>(rows, &t, columns) },
        // SAFETY: the caller's contract, forwarded.
        (false, false) => unsafe { group::<V, R, INVERSE, false, false>(rows, &t, columns) },
    }
}

/// The `R − 1` twiddles prepared, in the first slots of a 7-array (the rest repeat `tw[0]`).
///
/// # Safety
/// The CPU has `V`'s features.
#[inline(always)]
unsafe fn prepare<V: FieldVec, const R: usize>(tw: &[u64]) -> [V::Twiddle; 7] {
    // SAFETY: the caller vouches for the features.
    let mut out = [unsafe { V::twiddle(tw[0]) }; 7];
    for k in 1..R - 1 {
        // SAFETY: the CPU has `V`'s features (the caller vouches for them).
        out[k] = unsafe { V::twiddle(tw[k]) };
    }
    out
}

/// [`radix_rows`] with its run-time choices made: `ZERO` leaves out the products of a first
/// block's zero twiddles, `STREAM` stores full columns non-temporally.
///
/// Full columns start where `columns` says ([`ColumnStart::head`]): at the row's first word, or
/// where the destination rows reach a vector boundary after a partial column (always for
/// streaming stores, which need it).
///
/// # Safety
/// As for [`radix_rows`]; with `STREAM`, `rows.dst_stride` is a multiple of `V::WIDTH`.
#[inline(always)]
unsafe fn group<V: FieldVec, const R: usize, const INVERSE: bool, const ZERO: bool, const STREAM: bool>(
    rows: StridedRows,
    t: &[V::Twiddle; 7],
    columns: ColumnStart,
) {
    let StridedRows {
        src,
        src_stride,
        dst,
        dst_stride,
        seg_rows,
        width,
    } = rows;
    let w = V::WIDTH;
    let head = columns.head(dst, width, w, STREAM);
    let full = head + (width - head) / w * w;
    let (s_seg, d_seg) = (seg_rows * src_stride, seg_rows * dst_stride);
    let prefetch = src_stride != width && width <= SHORT_ROW_WORDS;
    for r in 0..seg_rows {
        let s = src.wrapping_add(r * src_stride);
        let d = dst.wrapping_add(r * dst_stride);
        if prefetch && r + 1 < seg_rows {
            // The next row of each segment, while this one computes.
            let next = s.wrapping_add(src_stride);
            for k in 0..R {
                let row = next.wrapping_add(k * s_seg);
                let mut c = 0;
                while c < width {
                    V::prefetch(row.wrapping_add(c));
                    c += 8;
                }
            }
        }
        if head > 0 {
            // SAFETY: columns [0, head) of the group's rows (caller).
            unsafe { column::<V, R, 1, INVERSE, ZERO, false>((s, s_seg), (d, d_seg), 0, head, t) };
        }
        let mut i = head;
        if paired_columns::<V, R, INVERSE, ZERO>() {
            while i + 2 * w <= full {
                // SAFETY: columns [i, i + 2w) with i + 2w <= width (caller); with `STREAM`,
                // `d + i` and `d + i + w` are vector-aligned (as below).
                unsafe { column::<V, R, 2, INVERSE, ZERO, STREAM>((s, s_seg), (d, d_seg), i, w, t) };
                i += 2 * w;
            }
        }
        while i < full {
            // SAFETY: columns [i, i + w) with i + w <= width (caller); with `STREAM`, `d + i` is
            // vector-aligned (past the head, every row shares row 0's alignment).
            unsafe { column::<V, R, 1, INVERSE, ZERO, STREAM>((s, s_seg), (d, d_seg), i, w, t) };
            i += w;
        }
        if i < width {
            // SAFETY: columns [i, width) of the group's rows (caller).
            unsafe { column::<V, R, 1, INVERSE, ZERO, false>((s, s_seg), (d, d_seg), i, width - i, t) };
        }
    }
}

/// `C` adjacent columns of `n <= V::WIDTH` words each from word `i` of the group's rows (segment
/// k's row at `src + k·s_seg` and `dst + k·d_seg`), their butterflies interleaved; `n` is the
/// constant `V::WIDTH` in the main loop (and always when `C > 1`), so the partial-column branches
/// fold away there.
///
/// # Safety
/// The CPU has `V`'s features; words `i .. i + C·n` of every segment's row are valid (source for
/// reads, destination for writes); with `STREAM`, `n == V::WIDTH` and every `dst + k·d_seg + i` is
/// aligned to `8·V::WIDTH` bytes.
#[inline(always)]
unsafe fn column<
    V: FieldVec,
    const R: usize,
    const C: usize,
    const INVERSE: bool,
    const ZERO: bool,
    const STREAM: bool,
>(
    (src, s_seg): (*const u64, usize),
    (dst, d_seg): (*mut u64, usize),
    i: usize,
    n: usize,
    t: &[V::Twiddle; 7],
) {
    debug_assert!(C == 1 || n == V::WIDTH);
    // SAFETY: word i of segment 0's row is readable (caller).
    let mut v = [[unsafe { load::<V>(src.wrapping_add(i), n) }; R]; C];
    // Loads and stores go segment by segment, the columns side by side, as the butterflies
    // do: in column order the compiler kept more registers live and spilled (32 stack moves in
    // the AVX-512 radix-8 loop against 7).
    for k in 0..R {
        for (c, regs) in v.iter_mut().enumerate() {
            // SAFETY: words i + c·n .. i + (c + 1)·n of segment k's row are readable (caller).
            regs[k] = unsafe { load::<V>(src.wrapping_add(k * s_seg + i + c * n), n) };
        }
    }
    if INVERSE {
        inverse_registers::<V, R, C>(&mut v, t);
    } else {
        forward_registers::<V, R, C, ZERO>(&mut v, t);
    }
    for k in 0..R {
        for (c, regs) in v.iter().enumerate() {
            let (reg, p) = (regs[k], dst.wrapping_add(k * d_seg + i + c * n));
            if STREAM {
                // SAFETY: a full column, vector-aligned (caller).
                unsafe { reg.store_stream(p) };
            } else {
                // SAFETY: words i + c·n .. i + (c + 1)·n of segment k's destination row are
                // writable (caller).
                unsafe { store(reg, p, n) };
            }
        }
    }
}

/// `butterfly` on registers `a` and `b` of every column.
#[inline(always)]
fn each_column<V: FieldVec, const R: usize, const C: usize>(
    v: &mut [[V; R]; C],
    a: usize,
    b: usize,
    butterfly: impl Fn(&mut V, &mut V),
) {
    for regs in v.iter_mut() {
        let (mut x, mut y) = (regs[a], regs[b]);
        butterfly(&mut x, &mut y);
        regs[a] = x;
        regs[b] = y;
    }
}

/// The forward butterfly between registers `a` and `b` of every column; `v ← v + u` only when
/// `ZERO`.
#[inline(always)]
fn pair<V: FieldVec, const R: usize, const C: usize, const ZERO: bool>(
    v: &mut [[V; R]; C],
    a: usize,
    b: usize,
    t: &V::Twiddle,
) {
    each_column(v, a, b, |x, y| forward_or_zero::<V, ZERO>(x, y, t));
}

/// The inverse butterfly between registers `a` and `b` of every column.
#[inline(always)]
fn inverse_pair<V: FieldVec, const R: usize, const C: usize>(
    v: &mut [[V; R]; C],
    a: usize,
    b: usize,
    t: &V::Twiddle,
) {
    each_column(v, a, b, |x, y| inverse(x, y, t));
}

/// The forward butterflies of a radix-R group in breadth-first order (see the module docs); with
/// `ZERO` the first butterfly of each layer (twiddles 0, 1 and 3, zero in a first block) is a
/// plain XOR.
#[inline(always)]
fn forward_registers<V: FieldVec, const R: usize, const C: usize, const ZERO: bool>(
    v: &mut [[V; R]; C],
    t: &[V::Twiddle; 7],
) {
    match R {
        2 => pair::<V, R, C, ZERO>(v, 0, 1, &t[0]),
        4 => {
            pair::<V, R, C, ZERO>(v, 0, 2, &t[0]);
            pair::<V, R, C, ZERO>(v, 1, 3, &t[0]);
            pair::<V, R, C, ZERO>(v, 0, 1, &t[1]);
            pair::<V, R, C, false>(v, 2, 3, &t[2]);
        }
        _ if defers_reductions::<V, R, false, ZERO>() => forward8_deferred::<V, R, C>(v, t),
        _ => {
            for k in 0..4 {
                pair::<V, R, C, ZERO>(v, k, k + 4, &t[0]);
            }
            pair::<V, R, C, ZERO>(v, 0, 2, &t[1]);
            pair::<V, R, C, ZERO>(v, 1, 3, &t[1]);
            pair::<V, R, C, false>(v, 4, 6, &t[2]);
            pair::<V, R, C, false>(v, 5, 7, &t[2]);
            pair::<V, R, C, ZERO>(v, 0, 1, &t[3]);
            for k in 1..4 {
                pair::<V, R, C, false>(v, 2 * k, 2 * k + 1, &t[3 + k]);
            }
        }
    }
}

/// The carry-less products of register `k` of every column by `t`, unreduced.
#[inline(always)]
fn products<V: FieldVec, const R: usize, const C: usize>(
    v: &[[V; R]; C],
    k: usize,
    t: &V::Twiddle,
) -> [Unreduced<V>; C] {
    core::array::from_fn(|c| v[c][k].products(*t))
}

/// The forward radix-8 group (`R == 8`) with its reductions deferred: 8 reductions for its 12
/// products, which saves a fifth of the group's vector instructions (AVX-512: 96 besides the
/// 24 carry-less multiplies, against 120) and made it 9 % faster in L1 on Zen 4.
///
/// Only a register that is multiplied in a later layer must be reduced before it. Registers 0
/// and 4 are never multiplied after the first layer, nor 2 and 6 after the second, nor 1 and 5
/// between the first and the second; so registers 0, 2, 4 and 6 carry their products unreduced
/// (as [`Unreduced`] sums, which add by XOR) to the end and are each reduced once there, and 1
/// and 5 reduce two products at once in the second layer. The sums are written out: `a0 + p0`
/// means register 0 is `a0` plus the unreduced products `p0`.
#[inline(always)]
fn forward8_deferred<V: FieldVec, const R: usize, const C: usize>(v: &mut [[V; R]; C], t: &[V::Twiddle; 7]) {
    debug_assert!(R == 8);
    // Layer 1, (k, k+4) by t0: 2 and 3 are multiplied next, so they are reduced now; 0 and 1
    // become a0 + p0 and a1 + p1, and 4 and 5 add them: (a4 + a0) + p0, (a5 + a1) + p1.
    let p0 = products(v, 4, &t[0]);
    let p1 = products(v, 5, &t[0]);
    let p2 = products(v, 6, &t[0]);
    let p3 = products(v, 7, &t[0]);
    for (r, (p2, p3)) in v.iter_mut().zip(p2.into_iter().zip(p3)) {
        r[2] = V::reduce_add(r[2], p2);
        r[6] = r[6].xor(r[2]);
        r[3] = V::reduce_add(r[3], p3);
        r[7] = r[7].xor(r[3]);
        r[4] = r[4].xor(r[0]);
        r[5] = r[5].xor(r[1]);
    }
    // Layer 2, (0,2), (1,3) by t1 and (4,6), (5,7) by t2: 1 and 5 are multiplied next and are
    // reduced with both their products; 0 becomes a0 + (p0 + q0) and 2 adds it, 4 becomes
    // (a4 + a0) + (p0 + q4) and 6 adds it.
    let q0 = products(v, 2, &t[1]);
    let q1 = products(v, 3, &t[1]);
    let q4 = products(v, 6, &t[2]);
    let q5 = products(v, 7, &t[2]);
    for (c, r) in v.iter_mut().enumerate() {
        r[1] = V::reduce_add(r[1], p1[c].xor(q1[c]));
        r[3] = r[3].xor(r[1]);
        r[5] = V::reduce_add(r[5], p1[c].xor(q5[c]));
        r[7] = r[7].xor(r[5]);
        r[2] = r[2].xor(r[0]);
        r[6] = r[6].xor(r[4]);
    }
    // Layer 3, (2k, 2k+1) by t(3+k): each even register reduced once, with its three products.
    let s0 = products(v, 1, &t[3]);
    let s2 = products(v, 3, &t[4]);
    let s4 = products(v, 5, &t[5]);
    let s6 = products(v, 7, &t[6]);
    for (c, r) in v.iter_mut().enumerate() {
        r[0] = V::reduce_add(r[0], p0[c].xor3(q0[c], s0[c]));
        r[1] = r[1].xor(r[0]);
        r[2] = V::reduce_add(r[2], p0[c].xor3(q0[c], s2[c]));
        r[3] = r[3].xor(r[2]);
        r[4] = V::reduce_add(r[4], p0[c].xor3(q4[c], s4[c]));
        r[5] = r[5].xor(r[4]);
        r[6] = V::reduce_add(r[6], p0[c].xor3(q4[c], s6[c]));
        r[7] = r[7].xor(r[6]);
    }
}

/// The inverse butterflies of a radix-R group: [`forward_registers`] undone, layers reversed.
#[inline(always)]
fn inverse_registers<V: FieldVec, const R: usize, const C: usize>(v: &mut [[V; R]; C], t: &[V::Twiddle; 7]) {
    match R {
        2 => inverse_pair::<V, R, C>(v, 0, 1, &t[0]),
        4 => {
            inverse_pair::<V, R, C>(v, 0, 1, &t[1]);
            inverse_pair::<V, R, C>(v, 2, 3, &t[2]);
            inverse_pair::<V, R, C>(v, 0, 2, &t[0]);
            inverse_pair::<V, R, C>(v, 1, 3, &t[0]);
        }
        _ => {
            for k in 0..4 {
                inverse_pair::<V, R, C>(v, 2 * k, 2 * k + 1, &t[3 + k]);
            }
            inverse_pair::<V, R, C>(v, 0, 2, &t[1]);
            inverse_pair::<V, R, C>(v, 1, 3, &t[1]);
            inverse_pair::<V, R, C>(v, 4, 6, &t[2]);
            inverse_pair::<V, R, C>(v, 5, 7, &t[2]);
            for k in 0..4 {
                inverse_pair::<V, R, C>(v, k, k + 4, &t[0]);
            }
        }
    }
}
