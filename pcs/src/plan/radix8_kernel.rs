//! The few-lane rule: how each radix-8 step runs, from the shape of its blocks.
//!
//! A step's contiguous group ([`ntt_kernels::Backend::radix8`]) vectorises along a block's
//! segments, one broadcast twiddle per block. A segment is `lanes · 2^depth` words (the rows a
//! butterfly pairs are 2^depth apart), so in the last layers of a matrix with few lanes it is
//! shorter than a vector: one lane's last three layers have 1-word segments, and most of every
//! vector (7 of 8 words on AVX-512) would be idle or masked while each call pays its setup for
//! one block of 8 words. There the across-blocks groups
//! ([`ntt_kernels::Backend::radix8_across`]) put one block in each vector slot instead, with a
//! twiddle per slot. The choice is per step (per layer triple), so a 1-lane transform runs its
//! early layers along the rows and only its last ones across blocks; at 8 lanes and more only
//! the smallest steps on short vectors change.
//!
//! The planner records each pass's choices ([`Radix8Step`]); the executor follows them.

use super::steps::{exceeds_l1, step_layers};
use ntt_kernels::{Backend, BackendKind};
use serde::{Deserialize, Serialize};

/// How one radix-8 step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Radix8Kernel {
    /// One call per block, vectors along its segments (the kernel of matrices with many lanes).
    AlongSegments,
    /// One call for all blocks, a block per vector slot.
    AcrossBlocks,
}

/// One radix-8 step a pass runs on contiguous rows (layers `first_layer .. first_layer + 3`),
/// and its kernel. A gathered pass's first and last steps, which read and write strided rows,
/// are not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Radix8Step {
    /// The step's first layer.
    pub first_layer: u32,
    /// Its kernel.
    pub kernel: Radix8Kernel,
}

/// The radix-8 steps a pass runs on contiguous rows, with their kernels: the encode's, and
/// those of the inverse transform, which runs the pass's layers on contiguous rows only (a
/// gathered group's rows are copied into scratch first; an L3 deep sub-block has no inner step).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Radix8Steps {
    /// The encode's steps, in order.
    pub forward: Vec<Radix8Step>,
    /// The inverse transform's steps, listed in the encode's order (it undoes them last first).
    pub inverse: Vec<Radix8Step>,
}

impl Radix8Steps {
    /// The first layer of the first step that runs across blocks in the encode, if any.
    pub fn forward_across_from(&self) -> Option<u32> {
        self.forward
            .iter()
            .find(|s| s.kernel == Radix8Kernel::AcrossBlocks)
            .map(|s| s.first_layer)
    }
}

/// Most blocks (as a log) one across-blocks step takes: 2^24 blocks of at least 8 words is a
/// 1 GiB buffer, far past the cache-sized units the steps run on. A larger one runs along
/// segments (the same bytes); the bound keeps the executor's twiddle-step array small.
pub(crate) const MAX_ACROSS_LOG_BLOCKS: usize = 24;

/// Rule (radix-8 kernel): the kernel for a radix-8 step on `blocks` blocks of 8 segments of
/// `seg_words` words with `backend`'s kernels.
///
/// Across blocks when a segment holds fewer than two full vectors (below one a vector is partly
/// idle; between one and two the line-aligned column walk of the segment kernels splits each
/// segment into two partial columns) and the blocks come in whole groups of 8 (the across
/// kernels' twiddle pattern). The portable backend has one word per vector: its segments are
/// never short.
pub fn radix8_kernel(backend: BackendKind, seg_words: usize, blocks: usize) -> Radix8Kernel {
    let vector = backend.vector_width();
    if vector > 1
        && seg_words < 2 * vector
        && seg_words <= Backend::MAX_ACROSS_SEGMENT
        && blocks >= 8
        && blocks.is_power_of_two()
        && blocks <= 1 << MAX_ACROSS_LOG_BLOCKS
    {
        Radix8Kernel::AcrossBlocks
    } else {
        Radix8Kernel::AlongSegments
    }
}

/// The radix-8 steps of layers `first .. end` on one block of `width`-word rows, run depth
/// first as `encoder::layers` runs them: while the block exceeds L1, one step over all of it
/// (one block) and then each of its segments on its own; an L1-sized block runs its steps one
/// after the other over all its blocks. Every block of the pass has the same steps.
pub(crate) fn contiguous_steps(backend: BackendKind, width: usize, first: u32, end: u32) -> Vec<Radix8Step> {
    let mut steps = Vec::new();
    let mut top = first;
    while top < end && exceeds_l1(width, top, end) {
        let k = step_layers(end - top);
        if k == 3 {
            steps.push(step(backend, width, top, end, 1));
        }
        top += k;
    }
    let mut layer = top;
    while layer < end {
        let k = step_layers(end - layer);
        if k == 3 {
            steps.push(step(backend, width, layer, end, 1 << (layer - top)));
        }
        layer += k;
    }
    steps
}

/// The radix-8 steps of a gathered group of layers `first .. end` (`width`-word rows) that run
/// in scratch: all but the first step (which gathers the strided rows) and the last (which
/// scatters them), each over the whole group.
pub(crate) fn gathered_steps(backend: BackendKind, width: usize, first: u32, end: u32) -> Vec<Radix8Step> {
    let mut steps = Vec::new();
    let mut layer = first + step_layers(end - first);
    while layer < end && layer + 3 < end {
        steps.push(step(backend, width, layer, end, 1 << (layer - first)));
        layer += 3;
    }
    steps
}

/// The radix-8 step from `layer` on `blocks` blocks of `width << (end − layer)` words.
fn step(backend: BackendKind, width: usize, layer: u32, end: u32, blocks: usize) -> Radix8Step {
    let seg_words = width << (end - layer - 3);
    Radix8Step {
        first_layer: layer,
        kernel: radix8_kernel(backend, seg_words, blocks),
    }
}

/// A pass's radix-8 kernels by the depth of their first layer (`log_rows − layer − 1`, what the
/// executor's inner loops see), a set bit for each step that runs across blocks; every other
/// step runs along segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KernelsByDepth(u64);

impl KernelsByDepth {
    /// The kernels of `steps` of a 2^log_rows-row transform.
    pub(crate) fn of(steps: &[Radix8Step], log_rows: u32) -> Self {
        Self(
            steps
                .iter()
                .filter(|s| s.kernel == Radix8Kernel::AcrossBlocks)
                .fold(0, |mask, s| mask | 1 << (log_rows - s.first_layer - 1)),
        )
    }

    /// The kernel of the radix-8 step whose first layer pairs rows 2^depth apart.
    pub(crate) fn at(self, depth: u32) -> Radix8Kernel {
        if self.0 >> depth & 1 == 1 {
            Radix8Kernel::AcrossBlocks
        } else {
            Radix8Kernel::AlongSegments
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_segments_go_across_blocks_on_vector_backends() {
        for backend in BackendKind::ALL {
            let w = backend.vector_width();
            let expect_across = backend != BackendKind::Portable;
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

    #[test]
    fn one_lane_runs_its_last_steps_across_blocks() {
        // 2^12 one-word rows fit L1: steps from layers 0, 3, 6, 9 on 1, 8, 64, 512 blocks of
        // segments of 512, 64, 8, 1 words; AVX-512 goes across below 16-word segments.
        let steps = contiguous_steps(BackendKind::Avx512, 1, 0, 12);
        let kernels: Vec<_> = steps.iter().map(|s| (s.first_layer, s.kernel)).collect();
        use Radix8Kernel::{AcrossBlocks as Across, AlongSegments as Along};
        assert_eq!(kernels, [(0, Along), (3, Along), (6, Across), (9, Across)]);
        assert!(
            contiguous_steps(BackendKind::Portable, 1, 0, 12)
                .iter()
                .all(|s| s.kernel == Along)
        );
        // A gathered group's first and last steps are strided: only the middle ones are listed.
        let middle: Vec<_> = gathered_steps(BackendKind::Avx2, 1, 2, 12)
            .iter()
            .map(|s| s.first_layer)
            .collect();
        assert_eq!(middle, [3, 6]);
        let by_depth = KernelsByDepth::of(&steps, 12);
        assert_eq!(
            (by_depth.at(2), by_depth.at(8)),
            (Across, Along),
            "layers 9 and 3"
        );
    }
}
