//! The per-ISA lane trait and the field product written once over it.
//!
//! A [`Lanes`] value is a vector of `WIDTH` field elements. The adapters (`portable`, `sse`,
//! `avx2`, `avx512`, `neon`) only wrap instructions; the product, the reduction and the row
//! kernels in [`crate::rows`] are generic. A SIMD `Lanes` value can only be made by the unsafe
//! constructors (`twiddle`, `load`, `load_partial`), whose contract is that the CPU has the
//! adapter's features; so holding a value proves the features, and the safe methods rely on it.
//!
//! Everything here is `#[inline(always)]`: the generic code is instantiated inside one
//! `#[target_feature]` entry point per kernel and ISA, and must dissolve into its hot loop.

pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse;

#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;

/// The most lanes any adapter has; partial columns go through a buffer this long.
pub(crate) const MAX_WIDTH: usize = 8;

/// `TABLE[n] = n ^ (n>>1) ^ (n>>3)`: the spill `(hi>>63)^(hi>>61)^(hi>>60)` as a function of
/// `n = hi>>60`, for byte-shuffle lookups (PRIOR_ART §1a). `TABLE[0] = 0`, so zero index bytes
/// give zero bytes.
#[cfg(target_arch = "x86_64")]
pub(crate) const SPILL_TABLE: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        t[n] = (n ^ (n >> 1) ^ (n >> 3)) as u8;
        n += 1;
    }
    t
};

/// A vector of field elements and the handful of instructions the kernels need.
pub(crate) trait Lanes: Copy {
    /// Field elements per vector.
    const WIDTH: usize;
    /// A twiddle prepared for repeated products (broadcast, or split for the portable path).
    type Twiddle: Copy;

    /// Prepares `t` for [`Lanes::clmul`].
    ///
    /// # Safety
    /// The CPU has the adapter's target features.
    unsafe fn twiddle(t: u64) -> Self::Twiddle;

    /// Loads `WIDTH` words (any alignment).
    ///
    /// # Safety
    /// The CPU has the adapter's features; `src` is valid for reading `WIDTH` words.
    unsafe fn load(src: *const u64) -> Self;

    /// Stores `WIDTH` words (any alignment).
    ///
    /// # Safety
    /// `dst` is valid for writing `WIDTH` words.
    unsafe fn store(self, dst: *mut u64);

    /// Loads `n < WIDTH` words; the other lanes are zero.
    ///
    /// # Safety
    /// The CPU has the adapter's features; `src` is valid for reading `n` words.
    #[inline(always)]
    unsafe fn load_partial(src: *const u64, n: usize) -> Self {
        let mut buf = [0u64; MAX_WIDTH];
        debug_assert!(n <= Self::WIDTH && Self::WIDTH <= MAX_WIDTH);
        // SAFETY: the caller makes `src` valid for `n` reads; `buf` holds `MAX_WIDTH >= n` words.
        unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), n) };
        // SAFETY: `buf` holds `MAX_WIDTH >= WIDTH` words; the caller vouches for the features.
        unsafe { Self::load(buf.as_ptr()) }
    }

    /// Stores the first `n < WIDTH` lanes.
    ///
    /// # Safety
    /// `dst` is valid for writing `n` words.
    #[inline(always)]
    unsafe fn store_partial(self, dst: *mut u64, n: usize) {
        let mut buf = [0u64; MAX_WIDTH];
        // SAFETY: `buf` holds `MAX_WIDTH >= WIDTH` words.
        unsafe { self.store(buf.as_mut_ptr()) };
        // SAFETY: the caller makes `dst` valid for `n` writes; `buf` holds `n` words.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), dst, n) };
    }

    /// Stores `WIDTH` words, non-temporally where the ISA has such stores.
    ///
    /// # Safety
    /// `dst` is valid for writing `WIDTH` words and aligned to `8·WIDTH` bytes.
    #[inline(always)]
    unsafe fn store_stream(self, dst: *mut u64) {
        // SAFETY: forwarded contract.
        unsafe { self.store(dst) }
    }

    /// Orders earlier [`Lanes::store_stream`] stores before later stores.
    #[inline(always)]
    fn stream_fence() {}

    fn xor(self, other: Self) -> Self;

    /// `self ^ a ^ b` (one ternary-logic op where the ISA has it).
    #[inline(always)]
    fn xor3(self, a: Self, b: Self) -> Self {
        self.xor(a).xor(b)
    }

    /// The 128-bit carry-less products by the twiddle, split into their low and high words, each
    /// in lane order.
    fn clmul(self, t: Self::Twiddle) -> (Self, Self);

    /// Per lane, `(hi>>63) ^ (hi>>61) ^ (hi>>60)`.
    fn spill(self) -> Self;

    /// Per lane, `self << 1` (an add where adds issue on more ports than shifts).
    fn double(self) -> Self;
}

/// `acc + v·t`, with the one-fold reduction of PRIOR_ART §1: for `p = lo + hi·x^64` and
/// `y = hi ^ spill(hi)`, `p ≡ lo ^ y ^ y<<1 ^ y<<3 ^ y<<4`. The shifts are doublings.
#[inline(always)]
pub(crate) fn mul_add<L: Lanes>(acc: L, v: L, t: L::Twiddle) -> L {
    let (lo, hi) = v.clmul(t);
    let y = hi.xor(hi.spill());
    let y2 = y.double();
    let y4 = y2.double();
    let y8 = y4.double();
    let y16 = y8.double();
    acc.xor3(lo, y).xor3(y2, y8).xor(y16)
}

/// `v·t`.
#[inline(always)]
pub(crate) fn mul<L: Lanes>(v: L, t: L::Twiddle) -> L {
    let (lo, hi) = v.clmul(t);
    let y = hi.xor(hi.spill());
    let y2 = y.double();
    let y4 = y2.double();
    let y8 = y4.double();
    let y16 = y8.double();
    lo.xor3(y, y2).xor3(y8, y16)
}
