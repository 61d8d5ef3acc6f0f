//! Monomorphised entry points: one module per ISA, each function a `#[target_feature]` wrapper
//! around a generic kernel of [`crate::rows`], so the whole hot loop compiles with the ISA's
//! features and nothing crosses a feature boundary per element.

/// Stamps out the entry points of one ISA.
macro_rules! entry_points {
    ($(#[$doc:meta])* $isa:ident, $simd:ty $(, features = $features:literal)?) => {
        $(#[$doc])*
        pub(crate) mod $isa {
            use crate::rows;

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::mul_row`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn mul_row(row: &mut [u64], t: u64, columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::mul_row`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::mul_row::<$simd>(row, t, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::butterfly`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn butterfly(u: &mut [u64], v: &mut [u64], t: u64, columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::butterfly`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::butterfly::<$simd>(u, v, t, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::inverse_butterfly`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn inverse_butterfly(u: &mut [u64], v: &mut [u64], t: u64, columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::inverse_butterfly`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::inverse_butterfly::<$simd>(u, v, t, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::radix4`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn radix4(block: &mut [u64], tw: [u64; 3], columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::radix4`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::radix4::<$simd>(block, tw, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::inverse_radix4`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn inverse_radix4(block: &mut [u64], tw: [u64; 3], columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::inverse_radix4`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::inverse_radix4::<$simd>(block, tw, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::radix8`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn radix8(block: &mut [u64], tw: [u64; 7], columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::radix8`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::radix8::<$simd>(block, tw, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::inverse_radix8`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn inverse_radix8(block: &mut [u64], tw: [u64; 7], columns: crate::columns::ColumnStart) {
                // SAFETY: this function's contract is `rows::inverse_radix8`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::inverse_radix8::<$simd>(block, tw, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::radix_rows`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn radix_rows(
                rows: crate::StridedRows,
                tw: &[u64],
                stream: bool,
                columns: crate::columns::ColumnStart,
            ) {
                // SAFETY: this function's contract is `rows::radix_rows`'s (the CPU has this ISA's
                // features and the rows are valid as it requires), passed on unchanged.
                unsafe { rows::radix_rows::<$simd>(rows, tw, stream, columns) }
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::copy_rows`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn copy_rows(dst: *mut u64, src: &[u64], stream: bool) {
                // SAFETY: this function's contract is `rows::copy_rows`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::copy_rows::<$simd>(dst, src, stream) }
            }

            /// # Safety
            /// None beyond the CPU having this ISA's features.
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn stream_fence() {
                <$simd as crate::simd::FieldVec>::stream_fence()
            }

            /// # Safety
            /// The CPU has this ISA's features; see [`rows::copy_streaming`].
            $(#[target_feature(enable = $features)])?
            pub(crate) unsafe fn copy_streaming(dst: &mut [u64], src: &[u64]) {
                // SAFETY: this function's contract is `rows::copy_streaming`'s (the CPU has this ISA's features
                // and the callee's preconditions on its arguments hold), passed on unchanged.
                unsafe { rows::copy_streaming::<$simd>(dst, src) }
            }
        }
    };
}

entry_points!(
    /// Integer-multiply carry-less products; no features needed.
    portable_clmul,
    crate::simd::portable::Portable
);

entry_points!(
    /// Nibble-table products; no features needed. (Its streaming copy is unused: the
    /// integer-multiply module's is the same loop with non-temporal stores on x86.)
    #[expect(dead_code, reason = "the streaming copy is the integer-multiply module's")]
    portable_table,
    crate::simd::portable_table::PortableTable
);

/// The portable backend: nibble tables for rows of at least
/// [`MIN_LANES`](crate::simd::portable_table::MIN_LANES) lanes, where building them pays off,
/// integer-multiply products below. Both give identical bits.
pub(crate) mod portable {
    use super::{portable_clmul as clmul, portable_table as table};
    use crate::simd::portable_table::MIN_LANES;

    /// # Safety
    /// None beyond the kernel's own (kept `unsafe` to match the other ISAs).
    pub(crate) unsafe fn mul_row(row: &mut [u64], t: u64, columns: crate::columns::ColumnStart) {
        if row.len() >= MIN_LANES {
            // SAFETY: the portable entry points need no CPU features.
            unsafe { table::mul_row(row, t, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::mul_row(row, t, columns) }
        }
    }

    /// # Safety
    /// `u.len() == v.len()`.
    pub(crate) unsafe fn butterfly(
        u: &mut [u64],
        v: &mut [u64],
        t: u64,
        columns: crate::columns::ColumnStart,
    ) {
        if u.len() >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::butterfly(u, v, t, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::butterfly(u, v, t, columns) }
        }
    }

    /// # Safety
    /// `u.len() == v.len()`.
    pub(crate) unsafe fn inverse_butterfly(
        u: &mut [u64],
        v: &mut [u64],
        t: u64,
        columns: crate::columns::ColumnStart,
    ) {
        if u.len() >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::inverse_butterfly(u, v, t, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::inverse_butterfly(u, v, t, columns) }
        }
    }

    /// # Safety
    /// `block.len() % 4 == 0`.
    pub(crate) unsafe fn radix4(block: &mut [u64], tw: [u64; 3], columns: crate::columns::ColumnStart) {
        if block.len() / 4 >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::radix4(block, tw, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::radix4(block, tw, columns) }
        }
    }

    /// # Safety
    /// `block.len() % 4 == 0`.
    pub(crate) unsafe fn inverse_radix4(
        block: &mut [u64],
        tw: [u64; 3],
        columns: crate::columns::ColumnStart,
    ) {
        if block.len() / 4 >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::inverse_radix4(block, tw, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::inverse_radix4(block, tw, columns) }
        }
    }

    /// # Safety
    /// `block.len() % 8 == 0`.
    pub(crate) unsafe fn radix8(block: &mut [u64], tw: [u64; 7], columns: crate::columns::ColumnStart) {
        if block.len() / 8 >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::radix8(block, tw, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::radix8(block, tw, columns) }
        }
    }

    /// # Safety
    /// `block.len() % 8 == 0`.
    pub(crate) unsafe fn inverse_radix8(
        block: &mut [u64],
        tw: [u64; 7],
        columns: crate::columns::ColumnStart,
    ) {
        if block.len() / 8 >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::inverse_radix8(block, tw, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::inverse_radix8(block, tw, columns) }
        }
    }

    /// # Safety
    /// As for [`rows::radix_rows`](crate::rows::radix_rows).
    pub(crate) unsafe fn radix_rows(
        rows: crate::StridedRows,
        tw: &[u64],
        stream: bool,
        columns: crate::columns::ColumnStart,
    ) {
        if rows.width >= MIN_LANES {
            // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
            // the portable code needs no CPU features.
            unsafe { table::radix_rows(rows, tw, stream, columns) }
        } else {
            // SAFETY: as for the table branch: the arguments are as the callee requires (this
            // function's contract), and the portable code needs no CPU features.
            unsafe { clmul::radix_rows(rows, tw, stream, columns) }
        }
    }

    /// # Safety
    /// As for [`rows::copy_rows`](crate::rows::copy_rows).
    pub(crate) unsafe fn copy_rows(dst: *mut u64, src: &[u64], stream: bool) {
        // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
        // the portable code needs no CPU features.
        unsafe { clmul::copy_rows(dst, src, stream) }
    }

    /// # Safety
    /// None (kept `unsafe` to match the other ISAs).
    pub(crate) unsafe fn stream_fence() {
        // SAFETY: no CPU features needed.
        unsafe { clmul::stream_fence() }
    }

    /// # Safety
    /// `dst.len() == src.len()`.
    pub(crate) unsafe fn copy_streaming(dst: &mut [u64], src: &[u64]) {
        // SAFETY: this function's contract (its arguments as the callee requires) is the callee's;
        // the portable code needs no CPU features.
        unsafe { clmul::copy_streaming(dst, src) }
    }
}

#[cfg(target_arch = "x86_64")]
entry_points!(
    /// 128-bit PCLMULQDQ.
    pclmul,
    crate::simd::sse::Sse,
    features = "sse2,ssse3,pclmulqdq"
);

#[cfg(target_arch = "x86_64")]
entry_points!(
    /// 256-bit AVX2 + VPCLMULQDQ.
    avx2,
    crate::simd::avx2::Avx2,
    features = "avx2,pclmulqdq,vpclmulqdq"
);

#[cfg(target_arch = "x86_64")]
entry_points!(
    /// 512-bit AVX-512F/BW + VPCLMULQDQ.
    avx512,
    crate::simd::avx512::Avx512,
    features = "avx512f,avx512bw,vpclmulqdq"
);

#[cfg(target_arch = "aarch64")]
entry_points!(
    /// 128-bit NEON + PMULL.
    neon,
    crate::simd::neon::Neon,
    features = "neon,aes"
);
