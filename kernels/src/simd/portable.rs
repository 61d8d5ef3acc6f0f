//! One field element per "vector": the integer-multiply carry-less product of
//! [`crate::scalar`], for CPUs without a carry-less multiplier.

use super::{FieldVec, Unreduced};
use crate::scalar::{self, SplitOperand};

/// One word in a general-purpose register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable(u64);

impl FieldVec for Portable {
    const WIDTH: usize = 1;
    type Twiddle = SplitOperand;

    #[inline(always)]
    unsafe fn twiddle(t: u64) -> SplitOperand {
        SplitOperand::new(t)
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

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn store_stream(self, dst: *mut u64) {
        // SAFETY: SSE2 is part of the x86_64 baseline; the caller makes `dst` valid and 8-byte
        // aligned.
        unsafe { core::arch::x86_64::_mm_stream_si64(dst.cast::<i64>(), self.0 as i64) }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn stream_fence() {
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { core::arch::x86_64::_mm_sfence() };
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        Self(self.0 ^ other.0)
    }

    /// The low and high words already.
    #[inline(always)]
    fn products(self, t: SplitOperand) -> Unreduced<Self> {
        let (lo, hi) = scalar::clmul_split(self.0, &t);
        Unreduced(Self(lo), Self(hi))
    }

    #[inline(always)]
    fn folded_spill(self) -> Self {
        let s = scalar::spill(self.0);
        Self(s ^ (s << 1) ^ (s << 3) ^ (s << 4))
    }

    #[inline(always)]
    fn shl3(self) -> Self {
        Self(self.0 << 3)
    }

    #[inline(always)]
    fn double(self) -> Self {
        Self(self.0 << 1)
    }
}
