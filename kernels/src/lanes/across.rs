//! What the across-blocks kernels ([`crate::across`]) need beyond [`Lanes`]: products by a
//! different twiddle in every lane, and square tile transposes.
//!
//! Implemented by the SIMD adapters (`sse`, `avx2`, `avx512`, `neon`); the portable backend has
//! one lane per vector, so its blocks never need spreading across lanes.

use super::Lanes;

/// A [`Lanes`] adapter that can multiply lane l by its own twiddle and transpose
/// `WIDTH × WIDTH` tiles.
pub(crate) trait AcrossBlocks: Lanes {
    /// Per lane l, the 128-bit carry-less product `self[l]·t[l]`, split into its low and high
    /// words (as [`Lanes::clmul`] does with one twiddle for every lane).
    fn clmul_lanes(self, t: Self) -> (Self, Self);

    /// `dst[j·dst_stride + i] = src[i·src_stride + j]` for i, j < `WIDTH`.
    ///
    /// # Safety
    /// The CPU has the adapter's features; `src` is valid for reading `WIDTH` words at each
    /// `i·src_stride`, `dst` for writing `WIDTH` words at each `j·dst_stride`, and the two
    /// tiles do not overlap.
    unsafe fn transpose_tile(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize);
}

/// `acc + v·t` lane by lane, `t` holding one twiddle per lane: the reduction of
/// [`Lanes::mul_add`] after [`AcrossBlocks::clmul_lanes`].
#[inline(always)]
pub(crate) fn mul_add_lanes<L: AcrossBlocks>(acc: L, v: L, t: L) -> L {
    let (lo, hi) = v.clmul_lanes(t);
    let z = hi.xor(hi.double());
    acc.xor3(lo, z).xor3(z.shl3(), hi.folded_spill())
}
