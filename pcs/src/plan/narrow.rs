//! The narrow-matrix rule: how each radix-8 step runs, from the shape of its blocks.
//!
//! A step's contiguous group ([`ntt_kernels::Backend::radix8`]) vectorises along a block's
//! segments, one broadcast twiddle per block. A segment is `lanes · 2^depth` words (the rows a
//! butterfly pairs are 2^depth apart), so in the last layers of a matrix with few lanes it is
//! shorter than a vector: one lane's last three layers have 1-word segments, and most of every
//! vector (7 of 8 words on AVX-512) would be idle or masked while each call pays its setup for
//! one block of 8 words. There the across-blocks groups
//! ([`ntt_kernels::Backend::radix8_across`]) put one block in each vector lane instead, with a
//! twiddle per lane. The choice is per step (per layer triple), so a 1-lane transform runs its
//! early layers along the rows and only its last ones across blocks; at 8 lanes and more only
//! the smallest steps on narrow vectors change.

use ntt_kernels::Backend;

/// How one radix-8 step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix8Kernel {
    /// One call per block, vectors along its segments (the wide-matrix kernel).
    AlongSegments,
    /// One call for all blocks, a block per vector lane.
    AcrossBlocks,
}

/// The kernel for a radix-8 step on `blocks` blocks of 8 segments of `seg_words` words.
///
/// Across blocks when a segment holds fewer than two full vectors (below one a vector is partly
/// idle; between one and two the line-aligned column walk of the segment kernels splits each
/// segment into two partial columns) and the blocks come in whole groups of 8 (the across
/// kernels' twiddle pattern). The portable backend has one word per vector: its segments are
/// never short.
pub fn radix8_kernel(backend: Backend, seg_words: usize, blocks: usize) -> Radix8Kernel {
    let vector = backend.vector_lanes();
    if vector > 1
        && seg_words < 2 * vector
        && seg_words <= Backend::MAX_ACROSS_SEGMENT
        && blocks >= 8
        && blocks.is_power_of_two()
    {
        Radix8Kernel::AcrossBlocks
    } else {
        Radix8Kernel::AlongSegments
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_kernels::BackendKind;

    #[test]
    fn short_segments_go_across_blocks_on_vector_backends() {
        for backend in Backend::available() {
            let w = backend.vector_lanes();
            let expect_across = backend.kind() != BackendKind::Portable;
            for seg in 1..2 * w {
                assert_eq!(
                    radix8_kernel(backend, seg, 64) == Radix8Kernel::AcrossBlocks,
                    expect_across,
                    "{backend:?} seg {seg}"
                );
            }
            // Long segments, and too few (or not whole groups of) blocks, stay along segments.
            assert_eq!(radix8_kernel(backend, 2 * w, 64), Radix8Kernel::AlongSegments);
            assert_eq!(radix8_kernel(backend, 1, 4), Radix8Kernel::AlongSegments);
            assert_eq!(radix8_kernel(backend, 1, 24), Radix8Kernel::AlongSegments);
        }
    }
}
