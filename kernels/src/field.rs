//! The scalar field element.

use crate::reference::MODULUS_LOW;
use crate::scalar;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Mul, MulAssign, Sub, SubAssign};

/// An element of GF(2^64): bit i of the `u64` is the coefficient of x^i.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Gf64(pub u64);

impl Gf64 {
    /// The additive identity.
    pub const ZERO: Self = Self(0);
    /// The multiplicative identity.
    pub const ONE: Self = Self(1);
    /// x^64 reduced: the low part of the modulus.
    pub const MODULUS_LOW: u64 = MODULUS_LOW;

    /// `self²` (bit spreading, then one reduction).
    #[inline]
    pub const fn square(self) -> Self {
        Self(scalar::square(self.0))
    }

    /// `self^(2^k)`: `k` squarings.
    #[inline]
    pub const fn square_n(self, k: u32) -> Self {
        let mut x = self;
        let mut i = 0;
        while i < k {
            x = x.square();
            i += 1;
        }
        x
    }

    /// `self^e` by square-and-multiply; `x^0 = 1` for every `x`, including 0.
    pub fn pow(self, mut e: u64) -> Self {
        let mut base = self;
        let mut acc = Self::ONE;
        while e != 0 {
            if e & 1 == 1 {
                acc *= base;
            }
            base = base.square();
            e >>= 1;
        }
        acc
    }

    /// The multiplicative inverse, `self^(2^64 − 2)`, by Itoh–Tsujii.
    ///
    /// The inverse of zero is defined as zero (the map x ↦ x^(2^64−2) sends 0 to 0), so this never
    /// fails; callers that must reject zero check for it first.
    ///
    /// With t_k = x^(2^k − 1) and t_{j+k} = t_j^(2^k)·t_k, the addition chain
    /// 1, 2, 3, 6, 12, 24, 48, 60, 63 reaches t_63 with 8 multiplies; one more squaring gives
    /// x^(2^64 − 2).
    pub fn inverse(self) -> Self {
        let t1 = self;
        let t2 = t1.square_n(1) * t1;
        let t3 = t2.square_n(1) * t1;
        let t6 = t3.square_n(3) * t3;
        let t12 = t6.square_n(6) * t6;
        let t24 = t12.square_n(12) * t12;
        let t48 = t24.square_n(24) * t24;
        let t60 = t48.square_n(12) * t12;
        let t63 = t60.square_n(3) * t3;
        t63.square()
    }

    /// Little-endian bytes of the `u64` representation.
    #[inline]
    pub const fn to_le_bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }

    /// The element whose `u64` representation has these little-endian bytes.
    #[inline]
    pub const fn from_le_bytes(bytes: [u8; 8]) -> Self {
        Self(u64::from_le_bytes(bytes))
    }
}

impl From<u64> for Gf64 {
    #[inline]
    fn from(x: u64) -> Self {
        Self(x)
    }
}

impl From<Gf64> for u64 {
    #[inline]
    fn from(x: Gf64) -> Self {
        x.0
    }
}

impl Sum for Gf64 {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, Add::add)
    }
}

impl<'a> Sum<&'a Gf64> for Gf64 {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.copied().sum()
    }
}

impl Product for Gf64 {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ONE, Mul::mul)
    }
}

impl<'a> Product<&'a Gf64> for Gf64 {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.copied().product()
    }
}

impl Add for Gf64 {
    type Output = Self;
    #[inline]
    #[expect(
        clippy::suspicious_arithmetic_impl,
        reason = "addition in characteristic 2 is xor"
    )]
    fn add(self, rhs: Self) -> Self {
        Self(self.0 ^ rhs.0)
    }
}
impl AddAssign for Gf64 {
    #[inline]
    #[expect(
        clippy::suspicious_op_assign_impl,
        reason = "addition in characteristic 2 is xor"
    )]
    fn add_assign(&mut self, rhs: Self) {
        self.0 ^= rhs.0;
    }
}
impl Sub for Gf64 {
    type Output = Self;
    #[inline]
    #[expect(
        clippy::suspicious_arithmetic_impl,
        reason = "subtraction in characteristic 2 is xor"
    )]
    fn sub(self, rhs: Self) -> Self {
        Self(self.0 ^ rhs.0)
    }
}
impl SubAssign for Gf64 {
    #[inline]
    #[expect(
        clippy::suspicious_op_assign_impl,
        reason = "subtraction in characteristic 2 is xor"
    )]
    fn sub_assign(&mut self, rhs: Self) {
        self.0 ^= rhs.0;
    }
}
impl Mul for Gf64 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        Self(scalar::mul(self.0, rhs.0))
    }
}
impl MulAssign for Gf64 {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}

impl core::fmt::Debug for Gf64 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Gf64({:#018x})", self.0)
    }
}
impl core::fmt::Display for Gf64 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}
