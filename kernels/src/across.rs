//! Radix-8 groups on many small blocks at once, one block per vector slot.
//!
//! The row kernels ([`crate::rows`]) vectorise along a block's segments: every slot of a vector
//! holds a word of the same segment, so one broadcast twiddle serves it. When a segment is
//! shorter than a vector (the last layers of a matrix with few lanes: one lane's block of 8 rows
//! is 8 words, a segment 1 word) most of each vector would be idle or masked, and a call per
//! block pays its setup for a handful of words. Here `WIDTH` consecutive blocks are transposed
//! (`WIDTH × WIDTH` register tiles) into a small L1 scratch where slot l holds block l, the
//! twelve butterflies run on full vectors with a different twiddle in every slot, and the tiles
//! are transposed back.
//!
//! The twiddles of a radix-8 group are affine in the block index b over GF(2) (each is a sum
//! over the set bits of b, plus block 0's value), so the caller passes block 0's seven twiddles
//! and what each bit of b adds (`steps[k]` for bit k); blocks 0..7 of every aligned group of 8
//! then share one XOR pattern, and the next group's twiddles differ by the steps of the bits a
//! carry flips.
//!
//! # Safety
//! Every function here is `unsafe` for one reason: `V`'s constructors need the CPU to have `V`'s
//! target features. The caller (a `#[target_feature]` entry point reached through a checked
//! [`crate::Backend`]) guarantees it. Shapes are checked by the public wrappers.

use crate::simd::MAX_WIDTH;
use crate::simd::across::{AcrossBlocks, mul_add_slots};

/// The longest segment (in words) the across-blocks groups take: their scratch holds
/// `8 · MAX_SEGMENT · MAX_WIDTH` words (64 KiB would not; this is 8 KiB).
pub(crate) const MAX_SEGMENT: usize = 16;

/// Loads a vector from each pointer, as an array. A macro rather than `array::from_fn`: a closure
/// would not inherit the entry point's target features.
///
/// Safety (of the expansion): the CPU has `$simd`'s features and every pointer is valid for
/// reading `WIDTH` words.
macro_rules! load_each {
    ($simd:ty; $($p:expr),+ $(,)?) => {
        [$(
            // SAFETY: see the macro's safety note; the call site upholds it.
            unsafe { <$simd>::load($p) }
        ),+]
    };
}

/// Twiddle `j` of blocks 0..8 of an aligned group of 8, as offsets from the group's block 0:
/// `offsets[j][l]` = Σ over the set bits k of l of `steps[k][j]`.
#[inline(always)]
fn slot_offsets(steps: &[[u64; 7]]) -> [[u64; MAX_WIDTH]; 7] {
    let mut offsets = [[0u64; MAX_WIDTH]; 7];
    for l in 1..MAX_WIDTH {
        let k = l.trailing_zeros() as usize;
        let prev = l & (l - 1);
        for j in 0..7 {
            offsets[j][l] = offsets[j][prev] ^ steps[k][j];
        }
    }
    offsets
}

/// Forward (`INVERSE == false`) or inverse radix-8 groups on every block of `buf`: blocks of
/// `8·seg` words, block b's twiddles `tw0 ⊕ Σ_{k ∈ bits(b)} steps[k]`, pairing as
/// [`crate::Backend::radix8`].
///
/// # Safety
/// The CPU has `V`'s features; `1 <= seg <= MAX_SEGMENT`; `buf.len()` is a multiple of
/// `64·seg` (whole groups of 8 blocks); `steps` has an entry for every bit of the last block's
/// index and at least 3.
#[inline(always)]
pub(crate) unsafe fn radix8_across<V: AcrossBlocks, const INVERSE: bool>(
    buf: &mut [u64],
    seg: usize,
    tw0: [u64; 7],
    steps: &[[u64; 7]],
) {
    let width = V::WIDTH;
    let block_words = 8 * seg;
    debug_assert!((1..=MAX_SEGMENT).contains(&seg) && buf.len().is_multiple_of(8 * block_words));
    debug_assert!(MAX_WIDTH.is_multiple_of(width));
    let offsets = slot_offsets(steps);
    // Uninitialised: every word is written by the transposes in before it is read.
    let mut scratch = core::mem::MaybeUninit::<[u64; 8 * MAX_SEGMENT * MAX_WIDTH]>::uninit();
    let s: *mut u64 = scratch.as_mut_ptr().cast();
    let groups = buf.len() / (8 * block_words);
    let mut base = tw0;
    let tiles = block_words / width;
    for g in 0..groups {
        // This group's twiddles, one slot per block: [j][l].
        let mut slot_tw = [[0u64; MAX_WIDTH]; 7];
        for j in 0..7 {
            for l in 0..MAX_WIDTH {
                slot_tw[j][l] = base[j] ^ offsets[j][l];
            }
        }
        for first in (0..8).step_by(width) {
            let blocks = buf.as_mut_ptr().wrapping_add((8 * g + first) * block_words);
            // In: scratch word p·width + l is word p of block `first + l`.
            for c in 0..tiles {
                // SAFETY: the tile reads `width` words at `c·width` of `width` blocks of this
                // group (in bounds: `c·width + width <= block_words`) and writes scratch rows
                // `c·width ..` (in bounds: `block_words·width <= scratch.len()`).
                unsafe {
                    V::transpose_tile(
                        blocks.wrapping_add(c * width),
                        block_words,
                        s.wrapping_add(c * width * width),
                        width,
                    )
                };
            }
            let tw = |j: usize| slot_tw[j].as_ptr().wrapping_add(first);
            // A twiddle row holds `MAX_WIDTH >= first + width` words.
            let t: [V; 7] = load_each!(V; tw(0), tw(1), tw(2), tw(3), tw(4), tw(5), tw(6));
            for i in 0..seg {
                let at = |k: usize| s.wrapping_add((k * seg + i) * width);
                // Row `k·seg + i < 8·seg` of scratch holds `width` words, written by the
                // transposes above.
                let mut v: [V; 8] = load_each!(V; at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7));
                if INVERSE {
                    inverse8(&mut v, &t);
                } else {
                    forward8(&mut v, &t);
                }
                for (k, x) in v.into_iter().enumerate() {
                    // SAFETY: as for the loads.
                    unsafe { x.store(at(k)) };
                }
            }
            for c in 0..tiles {
                // SAFETY: the transposes back: the same tiles, roles exchanged.
                unsafe {
                    V::transpose_tile(
                        s.wrapping_add(c * width * width),
                        width,
                        blocks.wrapping_add(c * width),
                        block_words,
                    )
                };
            }
        }
        // The next group: block 8(g+1) differs from block 8g in the bits the carry flips.
        let flipped = (g ^ (g + 1)) << 3;
        let mut bits = flipped;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            if k < steps.len() {
                for j in 0..7 {
                    base[j] ^= steps[k][j];
                }
            }
            bits &= bits - 1;
        }
    }
}

/// `u ← u + t·v`, `v ← v + u`, with per-slot twiddles.
#[inline(always)]
fn forward<V: AcrossBlocks>(v: &mut [V; 8], a: usize, b: usize, t: V) {
    v[a] = mul_add_slots(v[a], v[b], t);
    v[b] = v[b].xor(v[a]);
}

/// `v ← v + u`, `u ← u + t·v`, with per-slot twiddles.
#[inline(always)]
fn inverse<V: AcrossBlocks>(v: &mut [V; 8], a: usize, b: usize, t: V) {
    v[b] = v[b].xor(v[a]);
    v[a] = mul_add_slots(v[a], v[b], t);
}

/// The twelve butterflies of a radix-8 group (as `rows::radix8`).
#[inline(always)]
fn forward8<V: AcrossBlocks>(v: &mut [V; 8], t: &[V; 7]) {
    for k in 0..4 {
        forward(v, k, k + 4, t[0]);
    }
    forward(v, 0, 2, t[1]);
    forward(v, 1, 3, t[1]);
    forward(v, 4, 6, t[2]);
    forward(v, 5, 7, t[2]);
    for k in 0..4 {
        forward(v, 2 * k, 2 * k + 1, t[3 + k]);
    }
}

/// Undoes [`forward8`] (as `rows::inverse_radix8`).
#[inline(always)]
fn inverse8<V: AcrossBlocks>(v: &mut [V; 8], t: &[V; 7]) {
    for k in 0..4 {
        inverse(v, 2 * k, 2 * k + 1, t[3 + k]);
    }
    inverse(v, 0, 2, t[1]);
    inverse(v, 1, 3, t[1]);
    inverse(v, 4, 6, t[2]);
    inverse(v, 5, 7, t[2]);
    for k in 0..4 {
        inverse(v, k, k + 4, t[0]);
    }
}
