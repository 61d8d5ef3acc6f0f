//! `#[target_feature]` entry points of the across-blocks groups ([`crate::across`]), one module
//! per SIMD ISA (the portable backend runs them block by block, see
//! [`crate::Backend::radix8_across`]).

/// Stamps out one ISA's entry points.
macro_rules! across_entry_points {
    ($(#[$doc:meta])* $isa:ident, $simd:ty, features = $features:literal) => {
        $(#[$doc])*
        pub(crate) mod $isa {
            use crate::across;

            /// # Safety
            /// The CPU has this ISA's features; see [`across::radix8_across`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn radix8_across(
                buf: &mut [u64],
                seg: usize,
                tw0: [u64; 7],
                steps: &[[u64; 7]],
            ) {
                // SAFETY: this function's contract is `across::radix8_across`'s (the CPU has this
                // ISA's features and the callee's preconditions on its arguments hold), passed on
                // unchanged.
                unsafe { across::radix8_across::<$simd, false>(buf, seg, tw0, steps) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`across::radix8_across`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn inverse_radix8_across(
                buf: &mut [u64],
                seg: usize,
                tw0: [u64; 7],
                steps: &[[u64; 7]],
            ) {
                // SAFETY: this function's contract is `across::radix8_across`'s (the CPU has this
                // ISA's features and the callee's preconditions on its arguments hold), passed on
                // unchanged.
                unsafe { across::radix8_across::<$simd, true>(buf, seg, tw0, steps) }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
across_entry_points!(
    /// 128-bit PCLMULQDQ.
    pclmul,
    crate::simd::sse::Sse,
    features = "sse2,ssse3,pclmulqdq"
);

#[cfg(target_arch = "x86_64")]
across_entry_points!(
    /// 256-bit AVX2 + VPCLMULQDQ.
    avx2,
    crate::simd::avx2::Avx2,
    features = "avx2,pclmulqdq,vpclmulqdq"
);

#[cfg(target_arch = "x86_64")]
across_entry_points!(
    /// 512-bit AVX-512F/BW + VPCLMULQDQ.
    avx512,
    crate::simd::avx512::Avx512,
    features = "avx512f,avx512bw,vpclmulqdq"
);

#[cfg(target_arch = "aarch64")]
across_entry_points!(
    /// 128-bit NEON + PMULL.
    neon,
    crate::simd::neon::Neon,
    features = "neon,aes"
);
