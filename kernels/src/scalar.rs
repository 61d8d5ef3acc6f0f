//! Fast scalar carry-less multiply and reduction, shared by [`crate::Gf64`] and the portable
//! backend.
//!
//! The product of two field elements is a 128-bit carry-less product `lo + hi·x^64` followed by
//! one fold of `hi`: `hi·x^64 ≡ hi·(x^4 + x^3 + x + 1)`, where the bits of `hi·0x1B` that land
//! above x^63 (the "spill", at most 4 bits, since x^4 is the modulus's highest low term) are
//! folded in before the shifts, so a single fold reduces the product completely (no second
//! carry-less multiply by the modulus).

/// Bit masks selecting every fifth bit, starting at bit `k`: the "holes" of the integer-multiply
/// carry-less product.
const HOLES: [u64; 5] = {
    let mut masks = [0u64; 5];
    let mut bit = 0;
    while bit < 64 {
        masks[bit % 5] |= 1 << bit;
        bit += 1;
    }
    masks
};

/// The 128-bit versions of [`HOLES`], for the product classes.
const HOLES_WIDE: [u128; 5] = {
    let mut masks = [0u128; 5];
    let mut bit = 0;
    while bit < 128 {
        masks[bit % 5] |= 1 << bit;
        bit += 1;
    }
    masks
};

/// A multiplier split into its five hole classes, so that repeated products by the same value
/// (a row twiddle) skip the split.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitOperand([u64; 5]);

impl SplitOperand {
    #[inline(always)]
    pub(crate) const fn new(b: u64) -> Self {
        Self([
            b & HOLES[0],
            b & HOLES[1],
            b & HOLES[2],
            b & HOLES[3],
            b & HOLES[4],
        ])
    }
}

/// Carry-less 64×64 → 128-bit product with ordinary integer multiplies ("multiplication with
/// holes", BearSSL style).
///
/// Both operands keep only every fifth bit per partial product, so each column of an integer
/// product sums at most 13 one-bits, which fits in the 5-bit gap before the next used column: the
/// parity of each used column is the carry-less product bit. Returns `(lo, hi)`.
#[inline(always)]
pub(crate) fn clmul_split(a: u64, b: &SplitOperand) -> (u64, u64) {
    let a = SplitOperand::new(a).0;
    let b = b.0;
    let mut acc = 0u128;
    let mut k = 0;
    while k < 5 {
        let mut class = 0u128;
        let mut i = 0;
        while i < 5 {
            let j = (k + 5 - i) % 5;
            class ^= (a[i] as u128) * (b[j] as u128);
            i += 1;
        }
        acc |= class & HOLES_WIDE[k];
        k += 1;
    }
    (acc as u64, (acc >> 64) as u64)
}

/// Carry-less 64×64 → 128-bit product, `(lo, hi)`.
#[cfg_attr(
    any(
        all(target_arch = "x86_64", target_feature = "pclmulqdq"),
        all(target_arch = "aarch64", target_feature = "aes")
    ),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn clmul(a: u64, b: u64) -> (u64, u64) {
    clmul_split(a, &SplitOperand::new(b))
}

/// The bits of `hi·0x1B` that land above x^63: `(hi>>63) ^ (hi>>61) ^ (hi>>60)`.
#[inline(always)]
pub(crate) const fn spill(hi: u64) -> u64 {
    (hi >> 63) ^ (hi >> 61) ^ (hi >> 60)
}

/// Reduces `lo + hi·x^64` modulo x^64 + x^4 + x^3 + x + 1 with one fold.
#[inline(always)]
pub(crate) const fn reduce(lo: u64, hi: u64) -> u64 {
    let v = hi ^ spill(hi);
    lo ^ v ^ (v << 1) ^ (v << 3) ^ (v << 4)
}

/// The field product with the fastest scalar path this build can use without run-time
/// detection: PCLMULQDQ or PMULL when the target enables them at compile time, otherwise the
/// integer-multiply carry-less product.
#[inline]
pub(crate) fn mul(a: u64, b: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "pclmulqdq"))]
    {
        // SAFETY: this build enables PCLMULQDQ for every function.
        unsafe { mul_pclmul(a, b) }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "aes"))]
    {
        // SAFETY: this build enables NEON and `aes` for every function.
        unsafe { mul_pmull(a, b) }
    }
    #[cfg(not(any(
        all(target_arch = "x86_64", target_feature = "pclmulqdq"),
        all(target_arch = "aarch64", target_feature = "aes")
    )))]
    {
        let (lo, hi) = clmul(a, b);
        reduce(lo, hi)
    }
}

/// The field product with PCLMULQDQ (the scalar path of every x86 SIMD backend).
///
/// # Safety
/// The CPU has PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,pclmulqdq")]
pub(crate) unsafe fn mul_pclmul(a: u64, b: u64) -> u64 {
    use core::arch::x86_64::*;
    let p = _mm_clmulepi64_si128::<0x00>(_mm_cvtsi64_si128(a as i64), _mm_cvtsi64_si128(b as i64));
    let lo = _mm_cvtsi128_si64(p) as u64;
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(p, p)) as u64;
    reduce(lo, hi)
}

/// The field product with PMULL (the scalar path of the NEON backend).
///
/// # Safety
/// The CPU has NEON and the `aes` extension.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn mul_pmull(a: u64, b: u64) -> u64 {
    let p = core::arch::aarch64::vmull_p64(a, b);
    reduce(p as u64, (p >> 64) as u64)
}

/// Squares: spreads bit i to bit 2i, then reduces.
#[inline]
pub(crate) const fn square(a: u64) -> u64 {
    reduce(spread(a as u32), spread((a >> 32) as u32))
}

/// Interleaves zero bits above each bit of `x`: bit i moves to bit 2i.
#[inline(always)]
const fn spread(x: u32) -> u64 {
    let mut x = x as u64;
    x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::mul_bitwise;

    fn clmul_bitwise(a: u64, b: u64) -> u128 {
        (0..64)
            .filter(|i| b >> i & 1 == 1)
            .fold(0u128, |acc, i| acc ^ ((a as u128) << i))
    }

    #[test]
    fn holes_clmul_matches_shift_and_xor() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let y = x.rotate_left(17) ^ 0xdead_beef;
            for (a, b) in [(x, y), (u64::MAX, u64::MAX), (x, u64::MAX), (1 << 63, 1 << 63)] {
                let (lo, hi) = clmul(a, b);
                assert_eq!((hi as u128) << 64 | lo as u128, clmul_bitwise(a, b));
                assert_eq!(mul(a, b), mul_bitwise(a, b));
                assert_eq!(square(a), mul_bitwise(a, a));
            }
        }
    }
}
