//! Rules: how a run of layers is cut into radix steps, and which buffers the steps run on.
//!
//! The executor (`encoder::layers`) and the planner's kernel and schedule rules share these, so
//! the plan describes the steps the executor takes.

/// Bytes of a block small enough to run its remaining layers in L1 (of the 48 KiB or 32 KiB
/// L1d of current cores, with room left for twiddles and the stack).
pub(crate) const L1_BLOCK_BYTES: usize = 32 << 10;

/// Words per segment below which a strided first step is refused: a segment shorter than a
/// vector of words would run the strided kernel's partial path on every row.
const MIN_SEGMENT_WORDS: usize = 8;

/// Rule (step layers): layers one step takes when `left` layers remain. Leftover layers go
/// first (`left mod 3`), so a lone radix-2 or radix-4 step runs where blocks are few and long,
/// and all later layers run as radix-8 groups.
pub(crate) fn step_layers(left: u32) -> u32 {
    match left % 3 {
        0 => 3,
        k => k,
    }
}

/// Whether a block of `width << (end − first)` words is larger than L1: then a run of layers
/// takes one step over the whole block and finishes each of the step's segments (child blocks)
/// on its own (depth first).
pub(crate) fn exceeds_l1(width: usize, first: u32, end: u32) -> bool {
    (width << (end - first)) * 8 > L1_BLOCK_BYTES
}

/// Words of each of the first step's segments of a block of `width << (end − first)` words
/// (the blocks the later layers run on).
pub(crate) fn first_step_segment_words(width: usize, first: u32, end: u32) -> usize {
    (width << (end - first)) >> step_layers(end - first)
}

/// Whether a block of `width << (end − first)` words can run its first step as strided groups
/// from another buffer (a sub-block read straight from the message).
pub(crate) fn first_step_fits(width: usize, first: u32, end: u32) -> bool {
    first < end && first_step_segment_words(width, first, end) >= MIN_SEGMENT_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_layers_go_first() {
        assert_eq!(
            [1, 2, 3, 4, 5, 6].map(step_layers),
            [1, 2, 3, 1, 2, 3],
            "a run of 4 layers is 1 + 3"
        );
    }

    #[test]
    fn strided_first_steps_need_a_vector_per_segment() {
        assert!(first_step_fits(1, 0, 6), "8-word segments");
        assert!(!first_step_fits(1, 0, 3), "1-word segments");
        assert!(!first_step_fits(64, 3, 3), "no layer");
        assert!(exceeds_l1(1, 0, 13) && !exceeds_l1(1, 0, 12));
    }
}
