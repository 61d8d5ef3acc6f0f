//! The scalar field element.

use crate::reference::{MODULUS_LOW, mul_bitwise};
use core::ops::{Add, AddAssign, Mul, MulAssign, Sub, SubAssign};

/// An element of GF(2^64): bit i of the `u64` is the coefficient of x^i.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Gf64(pub u64);

impl Gf64 {
    pub const ZERO: Self = Self(0);
    pub const ONE: Self = Self(1);
    /// x^64 reduced: the low part of the modulus.
    pub const MODULUS_LOW: u64 = MODULUS_LOW;
}

impl Add for Gf64 {
    type Output = Self;
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)] // addition in characteristic 2 is xor
    fn add(self, rhs: Self) -> Self {
        Self(self.0 ^ rhs.0)
    }
}
impl AddAssign for Gf64 {
    #[inline]
    #[allow(clippy::suspicious_op_assign_impl)]
    fn add_assign(&mut self, rhs: Self) {
        self.0 ^= rhs.0;
    }
}
impl Sub for Gf64 {
    type Output = Self;
    #[inline]
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn sub(self, rhs: Self) -> Self {
        Self(self.0 ^ rhs.0)
    }
}
impl SubAssign for Gf64 {
    #[inline]
    #[allow(clippy::suspicious_op_assign_impl)]
    fn sub_assign(&mut self, rhs: Self) {
        self.0 ^= rhs.0;
    }
}
impl Mul for Gf64 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        Self(mul_bitwise(self.0, rhs.0))
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
