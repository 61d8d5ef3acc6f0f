//! What the across-blocks kernels ([`crate::across`]) need beyond [`FieldVec`]: products by a
//! different twiddle in every slot, and square tile transposes.
//!
//! Implemented by the SIMD adapters (`sse`, `avx2`, `avx512`, `neon`); the portable backend has
//! one word per vector, so its blocks never need spreading across slots.

use super::FieldVec;

/// A [`FieldVec`] adapter that can multiply slot l by its own twiddle and transpose
/// `WIDTH × WIDTH` tiles.
pub(crate) trait AcrossBlocks: FieldVec {
    /// Per slot l, the 128-bit carry-less product `self[l]·t[l]`, split into its low and high
    /// words (as [`FieldVec::clmul`] does with one twiddle for every slot).
    fn clmul_slots(self, t: Self) -> (Self, Self);

    /// `dst[j·dst_stride + i] = src[i·src_stride + j]` for i, j < `WIDTH`.
    ///
    /// # Safety
    /// The CPU has the adapter's features; `src` is valid for reading `WIDTH` words at each
    /// `i·src_stride`, `dst` for writing `WIDTH` words at each `j·dst_stride`, and the two
    /// tiles do not overlap.
    unsafe fn transpose_tile(src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize);
}

/// `acc + v·t` slot by slot, `t` holding one twiddle per slot: the reduction of
/// [`FieldVec::mul_add`] after [`AcrossBlocks::clmul_slots`].
#[inline(always)]
pub(crate) fn mul_add_slots<V: AcrossBlocks>(acc: V, v: V, t: V) -> V {
    let (lo, hi) = v.clmul_slots(t);
    let z = hi.xor(hi.double());
    acc.xor3(lo, z).xor3(z.shl3(), hi.folded_spill())
}
