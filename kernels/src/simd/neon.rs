//! Two words per `uint64x2_t`, PMULL/PMULL2 products (the `aes` feature), shift spill.

use super::{FieldVec, Unreduced};
use core::arch::aarch64::*;

/// Two field elements. Exists only on CPUs with NEON and the PMULL instructions (`aes`) (see
/// the module docs of [`super`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon(uint64x2_t);

#[target_feature(enable = "neon,aes")]
#[inline]
fn clmul_each(v: uint64x2_t, t: u64) -> (uint64x2_t, uint64x2_t) {
    (
        vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(v), t)),
        vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<1>(v), t)),
    )
}

#[target_feature(enable = "neon,aes")]
#[inline]
fn split_each(p0: uint64x2_t, p1: uint64x2_t) -> (uint64x2_t, uint64x2_t) {
    (vzip1q_u64(p0, p1), vzip2q_u64(p0, p1))
}

#[target_feature(enable = "neon,aes")]
#[inline]
fn xor(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    veorq_u64(a, b)
}

#[target_feature(enable = "neon,aes")]
#[inline]
fn double(a: uint64x2_t) -> uint64x2_t {
    vaddq_u64(a, a)
}

#[target_feature(enable = "neon,aes")]
#[inline]
fn folded_spill(hi: uint64x2_t) -> uint64x2_t {
    let s = veorq_u64(
        veorq_u64(vshrq_n_u64::<63>(hi), vshrq_n_u64::<61>(hi)),
        vshrq_n_u64::<60>(hi),
    );
    veorq_u64(
        veorq_u64(s, vshlq_n_u64::<1>(s)),
        veorq_u64(vshlq_n_u64::<3>(s), vshlq_n_u64::<4>(s)),
    )
}

#[target_feature(enable = "neon,aes")]
#[inline]
fn shl3(a: uint64x2_t) -> uint64x2_t {
    vshlq_n_u64::<3>(a)
}

impl FieldVec for Neon {
    const WIDTH: usize = 2;
    type Twiddle = u64;

    #[inline(always)]
    unsafe fn twiddle(t: u64) -> u64 {
        t
    }

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        // SAFETY: NEON is part of the aarch64 baseline; the caller makes `src` valid for 2 reads
        // (`vld1q` takes any alignment of the element type).
        Self(unsafe { vld1q_u64(src) })
    }

    #[inline(always)]
    unsafe fn store(self, dst: *mut u64) {
        // SAFETY: the caller makes `dst` valid for 2 writes.
        unsafe { vst1q_u64(dst, self.0) }
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        Self(unsafe { xor(self.0, other.0) })
    }

    /// Slot 0's 128-bit product in one register, slot 1's in the other.
    #[inline(always)]
    fn products(self, t: u64) -> Unreduced<Self> {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        let (p0, p1) = unsafe { clmul_each(self.0, t) };
        Unreduced(Self(p0), Self(p1))
    }

    #[inline(always)]
    fn split(p: Unreduced<Self>) -> (Self, Self) {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        let (lo, hi) = unsafe { split_each(p.0.0, p.1.0) };
        (Self(lo), Self(hi))
    }

    #[inline(always)]
    fn folded_spill(self) -> Self {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        Self(unsafe { folded_spill(self.0) })
    }

    #[inline(always)]
    fn shl3(self) -> Self {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        Self(unsafe { shl3(self.0) })
    }

    #[inline(always)]
    fn double(self) -> Self {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        Self(unsafe { double(self.0) })
    }
}

#[target_feature(enable = "neon,aes")]
#[inline]
fn clmul_slots(v: uint64x2_t, t: uint64x2_t) -> (uint64x2_t, uint64x2_t) {
    let p0 = vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(v), vgetq_lane_u64::<0>(t)));
    let p1 = vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<1>(v), vgetq_lane_u64::<1>(t)));
    split_each(p0, p1)
}

impl super::across::AcrossBlocks for Neon {
    #[inline(always)]
    fn clmul_slots(self, t: Self) -> (Self, Self) {
        // SAFETY: a value exists only where the CPU has NEON and `aes`.
        let (lo, hi) = unsafe { clmul_slots(self.0, t.0) };
        (Self(lo), Self(hi))
    }

    #[inline(always)]
    unsafe fn transpose_tile(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize) {
        // SAFETY: the caller makes source row 0 readable (2 words).
        let a = unsafe { Self::load(src) };
        // SAFETY: the caller makes source row 1 readable (2 words).
        let b = unsafe { Self::load(src.wrapping_add(src_stride)) };
        // SAFETY: NEON is part of the aarch64 baseline.
        let lo = unsafe { vzip1q_u64(a.0, b.0) };
        // SAFETY: NEON is part of the aarch64 baseline.
        let hi = unsafe { vzip2q_u64(a.0, b.0) };
        // SAFETY: the caller makes destination row 0 writable (2 words).
        unsafe { Self(lo).store(dst) };
        // SAFETY: the caller makes destination row 1 writable (2 words).
        unsafe { Self(hi).store(dst.wrapping_add(dst_stride)) };
    }
}
