//! One field element per "vector", multiplied by a twiddle through per-twiddle nibble tables:
//! the portable path for long rows.
//!
//! `v·t = Σ_i nibble_i(v)·(x^{4i}·t)`, so with `TABLE[i][k] = k·x^{4i}·t mod f` (16 positions ×
//! 16 nibble values, 2 KiB) a product is 16 lookups and XORs, already reduced. Building the table
//! costs about 300 word operations, so [`crate::dispatch`] uses it only for rows of at least
//! [`MIN_LANES`] lanes and the integer-multiply path ([`super::portable`]) below that.

use super::{FieldVec, Unreduced};
use crate::scalar;

/// The row length (lanes per row or segment) from which the table pays for its construction;
/// below it the integer-multiply product is faster.
pub(crate) const MIN_LANES: usize = 16;

/// `TABLE[i][k] = k·x^{4i}·t mod f`, with `t` kept for [`FieldVec::clmul`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct NibbleTable {
    t: u64,
    table: [[u64; 16]; 16],
}

impl NibbleTable {
    fn new(t: u64) -> Self {
        let mut table = [[0u64; 16]; 16];
        let mut power = t; // x^{4i+j}·t mod f
        for row in &mut table {
            let mut basis = [0u64; 4];
            for b in &mut basis {
                *b = power;
                // Multiply by x: shift, and fold x^64 = x^4 + x^3 + x + 1 back in.
                power = (power << 1) ^ ((power >> 63).wrapping_neg() & crate::reference::MODULUS_LOW);
            }
            for k in 1..16 {
                // k with its lowest set bit cleared is already done.
                row[k] = row[k & (k - 1)] ^ basis[k.trailing_zeros() as usize];
            }
        }
        Self { t, table }
    }

    #[inline(always)]
    fn mul(&self, v: u64) -> u64 {
        let mut acc = 0;
        for (i, row) in self.table.iter().enumerate() {
            acc ^= row[((v >> (4 * i)) & 15) as usize];
        }
        acc
    }
}

/// One word in a general-purpose register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableTable(u64);

impl FieldVec for PortableTable {
    const WIDTH: usize = 1;
    type Twiddle = NibbleTable;

    #[inline(always)]
    unsafe fn twiddle(t: u64) -> NibbleTable {
        NibbleTable::new(t)
    }

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        // SAFETY: the caller makes `src` valid for one read (any alignment).
        Self(unsafe { src.read_unaligned() })
    }

    #[inline(always)]
    unsafe fn store(self, dst: *mut u64) {
        // SAFETY: the caller makes `dst` valid for one write (any alignment).
        unsafe { dst.write_unaligned(self.0) }
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        Self(self.0 ^ other.0)
    }

    /// The table products below come out reduced: nothing to defer.
    const DEFER_REDUCTION: bool = false;

    /// Unused by the kernels (they call the table product below); kept exact.
    #[inline(always)]
    fn products(self, t: NibbleTable) -> Unreduced<Self> {
        let (lo, hi) = scalar::clmul(self.0, t.t);
        Unreduced(Self(lo), Self(hi))
    }

    #[inline(always)]
    fn folded_spill(self) -> Self {
        let s = scalar::spill(self.0);
        Self(s ^ (s << 1) ^ (s << 3) ^ (s << 4))
    }

    #[inline(always)]
    fn double(self) -> Self {
        Self(self.0 << 1)
    }

    #[inline(always)]
    fn shl3(self) -> Self {
        Self(self.0 << 3)
    }

    #[inline(always)]
    fn mul_add(acc: Self, v: Self, t: &NibbleTable) -> Self {
        Self(acc.0 ^ t.mul(v.0))
    }

    #[inline(always)]
    fn mul(v: Self, t: &NibbleTable) -> Self {
        Self(t.mul(v.0))
    }
}
