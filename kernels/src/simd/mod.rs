//! The per-ISA vector trait and the field product written once over it.
//!
//! A [`FieldVec`] value is a vector of `WIDTH` field elements. The adapters (`portable`, `sse`,
//! `avx2`, `avx512`, `neon`) only wrap instructions; the product, the reduction and the row
//! kernels in [`crate::rows`] are generic. A SIMD `FieldVec` value can only be made by the unsafe
//! constructors (`twiddle`, `load`, `load_partial`), whose contract is that the CPU has the
//! adapter's features; so holding a value proves the features, and the safe methods rely on it.
//!
//! Everything here is `#[inline(always)]`: the generic code is instantiated inside one
//! `#[target_feature]` entry point per kernel and ISA, and must dissolve into its hot loop.

pub(crate) mod across;
pub(crate) mod portable;
pub(crate) mod portable_table;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse;

#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;

/// Which cache a [`prefetch_line`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CacheLevel {
    /// L1 and outwards: for data the next instructions use.
    L1,
    /// L2 and outwards: for data needed a little later, without evicting L1.
    L2,
}

/// Asks for the cache line holding `p` to be brought into `level` (x86_64: `prefetcht0` or
/// `prefetcht1`, part of the baseline; elsewhere nothing). A hint only: it never faults, whatever
/// the address, and changes no memory.
#[inline(always)]
pub(crate) fn prefetch_line(p: *const u64, level: CacheLevel) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1, _mm_prefetch};
        match level {
            // SAFETY: SSE is part of the x86_64 baseline; a prefetch never faults and writes
            // nothing.
            CacheLevel::L1 => unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) },
            // SAFETY: SSE is part of the x86_64 baseline; a prefetch never faults and writes
            // nothing.
            CacheLevel::L2 => unsafe { _mm_prefetch::<_MM_HINT_T1>(p.cast()) },
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, level);
}

/// The most words any adapter's vector holds; partial columns go through a buffer this long.
pub(crate) const MAX_WIDTH: usize = 8;

/// `FOLDED_SPILL[n] = g(n ^ (n>>1) ^ (n>>3))` with `g(s) = s ^ s<<1 ^ s<<3 ^ s<<4`: the spill
/// of `hi` (its bits that `hi·0x1B` pushes above x^63: bits 63, 61 and 60 of `hi` feed them) as a function of
/// `n = hi>>60`, already multiplied back by 0x1B. It fits in a byte, so one byte shuffle looks it
/// up; `FOLDED_SPILL[0] = 0`, so zero index bytes give zero bytes.
#[cfg(target_arch = "x86_64")]
pub(crate) const FOLDED_SPILL: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        let s = n ^ (n >> 1) ^ (n >> 3);
        t[n] = (s ^ (s << 1) ^ (s << 3) ^ (s << 4)) as u8;
        n += 1;
    }
    t
};

/// Carry-less products of a vector by a twiddle, not yet reduced: the two registers of
/// [`FieldVec::products`]. Reduction is linear, so a sum of products is the XOR of their registers
/// and needs one reduction ([`FieldVec::reduce_add`]) instead of one per product.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unreduced<V>(pub(crate) V, pub(crate) V);

impl<V: FieldVec> Unreduced<V> {
    /// The sum of two sums of products.
    #[inline(always)]
    pub(crate) fn xor(self, other: Self) -> Self {
        Self(self.0.xor(other.0), self.1.xor(other.1))
    }

    /// The sum of three sums of products.
    #[inline(always)]
    pub(crate) fn xor3(self, a: Self, b: Self) -> Self {
        Self(self.0.xor3(a.0, b.0), self.1.xor3(a.1, b.1))
    }
}

/// A vector of field elements and the handful of instructions the kernels need.
pub(crate) trait FieldVec: Copy {
    /// Field elements per vector.
    const WIDTH: usize;
    /// Whether the register groups run two columns side by side (see [`crate::groups`]): where
    /// the register file holds a radix-8 group twice over with its twiddles, or nearly (AVX2's
    /// sixteen registers spill a few), the second column's products fill the waits of the
    /// first one's dependent chain. Measured on Zen 4, a radix-8 group in L1 ran 5–9 % faster
    /// with AVX-512 and 5 % with AVX2; with SSE the gain was within noise, and NEON is not
    /// measured, so both keep one column. The forward radix-8 group with deferred reductions
    /// runs one column everywhere (`crate::groups::paired_columns`).
    const PAIRED_COLUMNS: bool = false;
    /// A twiddle prepared for repeated products (broadcast, or split for the portable path).
    type Twiddle: Copy;

    /// Prepares `t` for [`FieldVec::clmul`].
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

    /// Loads `n < WIDTH` words; the other slots are zero.
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

    /// Stores the first `n < WIDTH` slots.
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
        // SAFETY: `dst` is valid for writing `WIDTH` words (this function's contract), all
        // that `store` needs.
        unsafe { self.store(dst) }
    }

    /// Orders earlier [`FieldVec::store_stream`] stores before later stores.
    #[inline(always)]
    fn stream_fence() {}

    /// Asks for the cache line holding `p` to be brought into L1 (a hint: it never faults,
    /// whatever the address, and changes no memory). A no-op where the ISA has no such hint.
    #[inline(always)]
    fn prefetch(p: *const u64) {
        prefetch_line(p, CacheLevel::L1);
    }

    fn xor(self, other: Self) -> Self;

    /// `self ^ a ^ b` (one ternary-logic op where the ISA has it).
    #[inline(always)]
    fn xor3(self, a: Self, b: Self) -> Self {
        self.xor(a).xor(b)
    }

    /// Whether the forward radix-8 group sums products unreduced where it can (see
    /// [`crate::groups`]): true wherever a product is a carry-less multiply that still has to be
    /// reduced; false where products come out already reduced (the nibble tables).
    const DEFER_REDUCTION: bool = true;

    /// The 128-bit carry-less products by the twiddle, in whatever arrangement the multiply
    /// leaves them ([`FieldVec::split`] puts them in slot order).
    fn products(self, t: Self::Twiddle) -> Unreduced<Self>;

    /// Products from [`FieldVec::products`] as their low and high words, each in slot order (the
    /// default: they already are).
    #[inline(always)]
    fn split(p: Unreduced<Self>) -> (Self, Self) {
        (p.0, p.1)
    }

    /// The 128-bit carry-less products by the twiddle, split into their low and high words, each
    /// in slot order.
    #[inline(always)]
    fn clmul(self, t: Self::Twiddle) -> (Self, Self) {
        Self::split(self.products(t))
    }

    /// Per slot, `g(spill)` for `spill = (hi>>63) ^ (hi>>61) ^ (hi>>60)` and
    /// `g(s) = s ^ s<<1 ^ s<<3 ^ s<<4` (at most 8 bits).
    fn folded_spill(self) -> Self;

    /// Per slot, `self << 1` (an add where adds issue on more ports than shifts).
    fn double(self) -> Self;

    /// Per slot, `self << 3`.
    fn shl3(self) -> Self;

    /// `acc + v·t`, with a one-fold reduction: for `p = lo + hi·x^64`,
    /// `p ≡ lo ^ g(hi ^ spill(hi))` with `g(y) = y ^ y<<1 ^ y<<3 ^ y<<4` (shifts mod 2^64).
    ///
    /// Two rewrites save vector ops per product on the two-port AVX-512 machines: `g` is
    /// linear, so `g(hi ^ spill) = g(hi) ^ g(spill)`, and `g(spill)` is one table lookup
    /// ([`FieldVec::folded_spill`]); and `g(hi) = z ^ z<<3` with `z = hi ^ hi<<1`. The five terms
    /// then merge in two 3-input XORs: 2 products, 2 unpacks, then add, xor, shift, shift,
    /// shuffle and two ternary XORs.
    #[inline(always)]
    fn mul_add(acc: Self, v: Self, t: &Self::Twiddle) -> Self {
        Self::reduce_add(acc, v.products(*t))
    }

    /// `acc + p mod f`: the reduction of [`FieldVec::mul_add`], once for a whole sum of products.
    #[inline(always)]
    fn reduce_add(acc: Self, p: Unreduced<Self>) -> Self {
        let (lo, hi) = Self::split(p);
        let z = hi.xor(hi.double());
        acc.xor3(lo, z).xor3(z.shl3(), hi.folded_spill())
    }

    /// `v·t` (see [`FieldVec::mul_add`]).
    #[inline(always)]
    fn mul(v: Self, t: &Self::Twiddle) -> Self {
        let (lo, hi) = v.clmul(*t);
        let z = hi.xor(hi.double());
        lo.xor3(z, z.shl3()).xor(hi.folded_spill())
    }
}
