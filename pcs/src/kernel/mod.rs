//! The radix groups the encoder's layers run, dispatched on the [`Backend`].
//!
//! Contiguous groups are the `ntt_kernels` ones on every backend. On AVX-512 the encoder adds
//! strided radix-2/4/8 groups (`avx512::radix_rows`) that load a gathered group's rows straight
//! from their strided sources and store their results to their destinations, so the gather and
//! scatter copies of a gathered pass fold into its first and last steps. They compute the same
//! bytes (tested against the portable backend).

#[cfg(target_arch = "x86_64")]
mod avx512;

use ntt_kernels::{Backend, BackendKind};

/// Three layers on a block of 8 equal segments (pairing as `Backend::radix8`).
#[inline]
pub fn radix8(backend: Backend, block: &mut [u64], tw: [u64; 7]) {
    assert_eq!(block.len() % 8, 0, "radix-8 block is not 8 equal segments");
    backend.radix8(block, tw);
}

/// Two layers on a block of 4 equal segments (pairing as `Backend::radix4`).
#[inline]
pub fn radix4(backend: Backend, block: &mut [u64], tw: [u64; 3]) {
    assert_eq!(block.len() % 4, 0, "radix-4 block is not 4 equal segments");
    backend.radix4(block, tw);
}

/// One layer on a row pair: `u ← u + t·v, v ← v + u`.
#[inline]
pub fn radix2(backend: Backend, u: &mut [u64], v: &mut [u64], tw: u64) {
    assert_eq!(u.len(), v.len(), "butterfly rows differ in length");
    backend.butterfly(u, v, tw);
}

/// Whether [`radix_rows`] runs in registers on this backend (otherwise callers gather rows
/// into scratch and use the contiguous groups).
#[inline]
pub(crate) fn has_strided_groups(backend: Backend) -> bool {
    cfg!(target_arch = "x86_64") && backend.kind() == BackendKind::Avx512
}

/// A block of rows that need not be contiguous: row j (j < R·seg_rows for a radix-R group,
/// `width` words each) is read at `src + j·src_stride` and written at `dst + j·dst_stride`;
/// segment k is rows k·seg_rows .. (k+1)·seg_rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StridedRows {
    pub src: *const u64,
    pub src_stride: usize,
    pub dst: *mut u64,
    pub dst_stride: usize,
    pub seg_rows: usize,
    pub width: usize,
}

/// A radix-`radix` group (2, 4 or 8 rows in registers, `tw` its `radix − 1` twiddles) over
/// strided rows (see `avx512::radix_rows`); only for backends where [`has_strided_groups`]
/// holds.
///
/// # Safety
/// As for `avx512::radix_rows`, and `has_strided_groups(backend)`.
#[inline]
pub(crate) unsafe fn radix_rows(backend: Backend, radix: usize, rows: StridedRows, tw: &[u64], stream: bool) {
    debug_assert!(has_strided_groups(backend));
    assert!(
        matches!(radix, 2 | 4 | 8) && tw.len() == radix - 1,
        "a radix-2/4/8 group with its twiddles"
    );
    #[cfg(target_arch = "x86_64")]
    match radix {
        // SAFETY: `has_strided_groups` means an Avx512 backend, which proves the features; the
        // rows are valid (caller).
        8 => unsafe { avx512::radix_rows::<8>(rows, tw, stream) },
        // SAFETY: as above.
        4 => unsafe { avx512::radix_rows::<4>(rows, tw, stream) },
        // SAFETY: as above.
        _ => unsafe { avx512::radix_rows::<2>(rows, tw, stream) },
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (backend, radix, rows, tw, stream);
}

/// Writes `src` to `len` words at `dst`, with non-temporal stores when `stream` and the backend
/// has them (call [`stream_fence`] before the task ends).
///
/// # Safety
/// `dst` is valid for `src.len()` writes, exclusively the caller's, and disjoint from `src`.
#[inline]
pub(crate) unsafe fn write_rows(backend: Backend, dst: *mut u64, src: &[u64], stream: bool) {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Avx512 backend proves AVX-512F; pointers valid and disjoint (caller).
        BackendKind::Avx512 if stream => unsafe { avx512::copy_streaming(dst, src.as_ptr(), src.len()) },
        // SAFETY: valid and disjoint (caller).
        _ => unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) },
    }
}

/// Orders the task's non-temporal stores before anything that follows it.
#[inline]
pub(crate) fn stream_fence(backend: Backend, stream: bool) {
    #[cfg(target_arch = "x86_64")]
    if stream && backend.kind() == BackendKind::Avx512 {
        avx512::fence();
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (backend, stream);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_words::words;

    #[test]
    fn groups_match_the_portable_backend() {
        let portable = Backend::portable();
        let tws = [
            0u64,
            1,
            u64::MAX,
            1 << 63,
            0x1B,
            0xF000_0000_0000_0000,
            0x0123_4567_89ab_cdef,
        ];
        for backend in Backend::available() {
            for seg in [1usize, 2, 7, 8, 9, 16, 17, 64, 70] {
                let data = words(8 * seg, seg as u64);
                let (mut a, mut b) = (data.clone(), data.clone());
                radix8(backend, &mut a, tws);
                portable.radix8(&mut b, tws);
                assert_eq!(a, b, "radix8 {backend:?} seg {seg}");
                let (mut a, mut b) = (data.clone(), data.clone());
                radix4(backend, &mut a, [tws[6], tws[2], tws[5]]);
                portable.radix4(&mut b, [tws[6], tws[2], tws[5]]);
                assert_eq!(a, b, "radix4 {backend:?} seg {seg}");
                let (mut a, mut b) = (data.clone(), data);
                let (au, av) = a.split_at_mut(4 * seg);
                radix2(backend, au, av, tws[6]);
                let (bu, bv) = b.split_at_mut(4 * seg);
                portable.butterfly(bu, bv, tws[6]);
                assert_eq!(a, b, "radix2 {backend:?} seg {seg}");
            }
        }
    }

    /// Strided groups equal the portable contiguous ones on the gathered rows, out of place and
    /// in place, for widths with and without a masked tail, with general twiddles and with a
    /// step's first-block twiddles (0, 1 and 3 zero: the product-free path).
    #[test]
    fn strided_groups_match_the_portable_backend() {
        let portable = Backend::portable();
        let general = [
            0x0123_4567_89ab_cdefu64,
            u64::MAX,
            1 << 63,
            0x1B,
            7,
            0xF000_0000_0000_0001,
            3,
        ];
        let first_block = [0, 0, 1 << 63, 0, 7, 0xF000_0000_0000_0001, 3];
        for backend in Backend::available()
            .into_iter()
            .filter(|&b| has_strided_groups(b))
        {
            for (tw, (radix, width, seg_rows)) in [general, first_block].into_iter().flat_map(|tw| {
                [
                    (2usize, 8usize, 3usize),
                    (4, 13, 2),
                    (8, 64, 2),
                    (8, 5, 1),
                    (2, 70, 1),
                ]
                .map(|shape| (tw, shape))
            }) {
                let (src_stride, dst_stride) = (width + 3, width + 9);
                let rows = radix * seg_rows;
                let src = words(rows * src_stride, (radix * 100 + width) as u64);
                // The block's rows, packed: row j of `buf` at `stride`.
                let packed = |buf: &[u64], stride: usize| -> Vec<u64> {
                    (0..rows)
                        .flat_map(|j| buf[j * stride..j * stride + width].to_vec())
                        .collect()
                };
                let mut expected = packed(&src, src_stride);
                match radix {
                    8 => portable.radix8(&mut expected, tw),
                    4 => portable.radix4(&mut expected, [tw[0], tw[1], tw[2]]),
                    _ => {
                        let (u, v) = expected.split_at_mut(seg_rows * width);
                        portable.butterfly(u, v, tw[0]);
                    }
                }
                let run = |src: *const u64, src_stride: usize, dst: *mut u64, dst_stride: usize| {
                    let rows = StridedRows {
                        src,
                        src_stride,
                        dst,
                        dst_stride,
                        seg_rows,
                        width,
                    };
                    // SAFETY: every row index < rows at both strides lies inside its buffer; the
                    // backend has strided groups (filtered above).
                    unsafe { radix_rows(backend, radix, rows, &tw[..radix - 1], false) }
                };
                // Destinations starting at every word of a cache line (the kernel aligns its
                // full columns to the destination).
                for skew in 0..8 {
                    let mut dst = vec![0u64; rows * dst_stride + skew];
                    run(src.as_ptr(), src_stride, dst[skew..].as_mut_ptr(), dst_stride);
                    assert_eq!(
                        packed(&dst[skew..], dst_stride),
                        expected,
                        "radix {radix} width {width} tw {tw:x?} skew {skew} out of place"
                    );
                }
                let mut in_place = src.clone();
                let p = in_place.as_mut_ptr();
                run(p, src_stride, p, src_stride);
                assert_eq!(
                    packed(&in_place, src_stride),
                    expected,
                    "radix {radix} width {width} tw {tw:x?} in place"
                );
            }
        }
    }
}
