//! Monomorphised entry points: one module per ISA, each function a `#[target_feature]` wrapper
//! around a generic kernel of [`crate::rows`], so the whole hot loop compiles with the ISA's
//! features and nothing crosses a feature boundary per element.

/// Stamps out the entry points of one ISA.
macro_rules! entry_points {
    ($(#[$doc:meta])* $isa:ident, $lanes:ty $(, features = $features:literal)?) => {
        $(#[$doc])*
        pub(crate) mod $isa {
            use crate::rows;

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::mul_row`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn mul_row(row: &mut [u64], t: u64) {
                // SAFETY: forwarded contract.
                unsafe { rows::mul_row::<$lanes>(row, t) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::butterfly`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn butterfly(u: &mut [u64], v: &mut [u64], t: u64) {
                // SAFETY: forwarded contract.
                unsafe { rows::butterfly::<$lanes>(u, v, t) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::inverse_butterfly`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn inverse_butterfly(u: &mut [u64], v: &mut [u64], t: u64) {
                // SAFETY: forwarded contract.
                unsafe { rows::inverse_butterfly::<$lanes>(u, v, t) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::radix4`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn radix4(block: &mut [u64], tw: [u64; 3]) {
                // SAFETY: forwarded contract.
                unsafe { rows::radix4::<$lanes>(block, tw) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::inverse_radix4`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn inverse_radix4(block: &mut [u64], tw: [u64; 3]) {
                // SAFETY: forwarded contract.
                unsafe { rows::inverse_radix4::<$lanes>(block, tw) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::radix8`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn radix8(block: &mut [u64], tw: [u64; 7]) {
                // SAFETY: forwarded contract.
                unsafe { rows::radix8::<$lanes>(block, tw) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::inverse_radix8`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn inverse_radix8(block: &mut [u64], tw: [u64; 7]) {
                // SAFETY: forwarded contract.
                unsafe { rows::inverse_radix8::<$lanes>(block, tw) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::copy_streaming`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn copy_streaming(dst: &mut [u64], src: &[u64]) {
                // SAFETY: forwarded contract.
                unsafe { rows::copy_streaming::<$lanes>(dst, src) }
            }
        }
    };
}

entry_points!(
    /// Integer-multiply carry-less products; no features needed.
    portable,
    crate::lanes::portable::Portable
);

#[cfg(target_arch = "x86_64")]
entry_points!(
    /// 128-bit PCLMULQDQ.
    pclmul,
    crate::lanes::sse::Sse,
    features = "sse2,ssse3,pclmulqdq"
);

#[cfg(target_arch = "x86_64")]
entry_points!(
    /// 256-bit AVX2 + VPCLMULQDQ.
    avx2,
    crate::lanes::avx2::Avx2,
    features = "avx2,pclmulqdq,vpclmulqdq"
);

#[cfg(target_arch = "x86_64")]
entry_points!(
    /// 512-bit AVX-512F/BW + VPCLMULQDQ.
    avx512,
    crate::lanes::avx512::Avx512,
    features = "avx512f,avx512bw,vpclmulqdq"
);

#[cfg(target_arch = "aarch64")]
entry_points!(
    /// 128-bit NEON + PMULL.
    neon,
    crate::lanes::neon::Neon,
    features = "neon,aes"
);
