//! Shared helpers of the cross-check harnesses: edge values, seeded random rows, and the
//! reference kernels built from `reference::mul_bitwise` one butterfly at a time.
#![allow(
    dead_code,
    reason = "each test binary uses a different part (so not `expect`)"
)]

use ntt_kernels::reference::{self, mul_bitwise};
use ntt_kernels::{Backend, BackendKind};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// Operands that stress the reduction, each with its reason.
pub(crate) const EDGES: [u64; 7] = [
    0,                     // additive identity
    1,                     // multiplicative identity
    u64::MAX,              // every bit: the largest spill
    1 << 63,               // only the top bit: x^63·x = 0x1B
    0x1B,                  // the modulus's low part
    0xF000_0000_0000_0000, // the four spill bits
    0x8000_0000_0000_0001, // both ends
];

/// Segment lengths: every length up to twice the widest vector plus one, and around 32 and 64.
pub(crate) const LENGTHS: [usize; 23] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 33, 63, 64, 65, 0,
];

/// Word offsets of the sub-slice inside its buffer: aligned and misaligned for every vector width.
pub(crate) const OFFSETS: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// The backend, or `None` (with a note) where this CPU cannot run it.
pub(crate) fn backend(kind: BackendKind) -> Option<Backend> {
    match Backend::new(kind) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// Stamps out one test module per backend kind, each test calling its check with the kind:
/// `backend_tests! { name => check, ... }`.
#[allow(
    unused_macros,
    reason = "not every test binary stamps tests per backend (so not `expect`)"
)]
macro_rules! backend_tests {
    ($($test:ident => $check:ident),* $(,)?) => {
        backend_tests!(@kinds [$($test => $check),*]
            portable => Portable, pclmul => Pclmul, avx2 => Avx2, avx512 => Avx512, neon => Neon);
    };
    (@kinds $tests:tt $($module:ident => $kind:ident),*) => {$(
        backend_tests!(@module $module $kind $tests);
    )*};
    (@module $module:ident $kind:ident [$($test:ident => $check:ident),*]) => {
        mod $module {
            use super::*;
            $(
                #[test]
                fn $test() { $check(ntt_kernels::BackendKind::$kind) }
            )*
        }
    };
}
#[allow(
    unused_imports,
    reason = "not every test binary stamps tests per backend (so not `expect`)"
)]
pub(crate) use backend_tests;

/// A seeded random number generator.
pub(crate) fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// `len` words: random, with the edge values sprinkled in at random places.
pub(crate) fn row(rng: &mut StdRng, len: usize) -> Vec<u64> {
    (0..len)
        .map(|_| {
            if rng.random_range(0..4) == 0 {
                EDGES[rng.random_range(0..EDGES.len())]
            } else {
                rng.random()
            }
        })
        .collect()
}

/// Twiddles to try: every edge value and a few random ones.
pub(crate) fn twiddles(rng: &mut StdRng) -> Vec<u64> {
    let mut t = EDGES.to_vec();
    t.extend((0..3).map(|_| rng.random::<u64>()));
    t
}

pub(crate) fn inverse_butterfly(u: &mut [u64], v: &mut [u64], t: u64) {
    for (x, y) in u.iter_mut().zip(v.iter_mut()) {
        *y ^= *x;
        *x ^= mul_bitwise(t, *y);
    }
}

/// The butterflies of a radix group one at a time: `pairs[i] = (a, b, twiddle index)` on equal
/// segments.
pub(crate) fn group(
    block: &mut [u64],
    segments: usize,
    pairs: &[(usize, usize, usize)],
    tw: &[u64],
    forward: bool,
) {
    let e = block.len() / segments;
    let mut segs: Vec<Vec<u64>> = block.chunks(e.max(1)).map(<[u64]>::to_vec).collect();
    segs.resize(segments, Vec::new());
    for &(a, b, k) in pairs {
        let (mut u, mut v) = (segs[a].clone(), segs[b].clone());
        if forward {
            reference::butterfly(&mut u, &mut v, tw[k]);
        } else {
            inverse_butterfly(&mut u, &mut v, tw[k]);
        }
        segs[a] = u;
        segs[b] = v;
    }
    let flat: Vec<u64> = segs.concat();
    block.copy_from_slice(&flat);
}

pub(crate) const RADIX4: [(usize, usize, usize); 4] = [(0, 2, 0), (1, 3, 0), (0, 1, 1), (2, 3, 2)];

pub(crate) const RADIX8: [(usize, usize, usize); 12] = [
    (0, 4, 0),
    (1, 5, 0),
    (2, 6, 0),
    (3, 7, 0),
    (0, 2, 1),
    (1, 3, 1),
    (4, 6, 2),
    (5, 7, 2),
    (0, 1, 3),
    (2, 3, 4),
    (4, 5, 5),
    (6, 7, 6),
];

/// The same pairs in the order that undoes them.
pub(crate) fn reversed(pairs: &[(usize, usize, usize)]) -> Vec<(usize, usize, usize)> {
    pairs.iter().rev().copied().collect()
}
