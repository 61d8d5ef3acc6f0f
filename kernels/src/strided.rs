//! The rows a radix group works on, which need not be contiguous.

/// The `R·seg_rows` rows of a radix-`R` group (R = 2, 4 or 8), `width` words each: row `j` is read
/// at `src + j·src_stride` and written at `dst + j·dst_stride`; segment `k` (the `k`-th of the
/// group's R registers) is rows `k·seg_rows .. (k+1)·seg_rows`.
///
/// A contiguous block of R equal segments, in place, is the case of one row per segment
/// ([`StridedRows::contiguous`]). A gathered group of rows strided across a buffer, read from one
/// place and written to another, is the general case: the gather then happens in the group's
/// loads and the scatter in its stores, with no copy in between.
///
/// Raw pointers, because the rows of one group are interleaved with other tasks' rows of the
/// same buffer; [`crate::Backend::radix_rows`] states what must hold of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedRows {
    /// Row 0 of the source.
    pub src: *const u64,
    /// Words from one source row to the next.
    pub src_stride: usize,
    /// Row 0 of the destination (may equal `src`: in place).
    pub dst: *mut u64,
    /// Words from one destination row to the next.
    pub dst_stride: usize,
    /// Rows per segment.
    pub seg_rows: usize,
    /// Words per row.
    pub width: usize,
}

impl StridedRows {
    /// A contiguous block of `radix` equal segments, transformed in place: one row per segment,
    /// each `block.len() / radix` words.
    ///
    /// # Panics
    /// If `radix` is 0 or does not divide `block.len()`.
    pub fn contiguous(block: &mut [u64], radix: usize) -> Self {
        assert!(
            radix > 0 && block.len().is_multiple_of(radix),
            "a block of {radix} equal segments"
        );
        let width = block.len() / radix;
        let p = block.as_mut_ptr();
        Self {
            src: p.cast_const(),
            src_stride: width,
            dst: p,
            dst_stride: width,
            seg_rows: 1,
            width,
        }
    }

    /// Rows in a radix-`radix` group of this shape.
    pub const fn rows(&self, radix: usize) -> usize {
        radix * self.seg_rows
    }
}
