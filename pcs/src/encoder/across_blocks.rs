//! The across-blocks path of a radix-8 step: all of a buffer's small blocks in one call, where
//! the plan says so (see [`crate::plan::radix8_kernel`]), with their twiddles given as block 0's and
//! what each bit of the block index adds.

use super::layers::{Direction, Kit, Step};
use crate::plan::radix8_kernel::MAX_ACROSS_LOG_BLOCKS as MAX_LOG_BLOCKS;
use crate::twiddle::{Radix8Walk, Twiddles};

/// Block `first_block`'s radix-8 twiddles and, for each bit k below `log_blocks`, what setting
/// that bit of the block index adds (T is a sum over the block index's set bits, so block
/// `first_block + l` for `l < 2^log_blocks` has `tw0 ⊕ Σ_{k ∈ bits(l)} steps[k]` when
/// `first_block` has no bit below `log_blocks`).
/// The steps are the subspace table's entries, looked up ([`Twiddles::radix8_bit_steps`]).
fn affine_twiddles(
    twiddles: &Twiddles,
    depth: u32,
    first_block: u64,
    log_blocks: u32,
) -> ([u64; 7], [[u64; 7]; MAX_LOG_BLOCKS]) {
    let tw0 = Radix8Walk::new(twiddles, depth, first_block).get();
    let mut steps = [[0u64; 7]; MAX_LOG_BLOCKS];
    twiddles.radix8_bit_steps(depth, &mut steps[..log_blocks as usize]);
    (tw0, steps)
}

/// Runs the radix-8 `step` (forward or its inverse, as `direction` says) over `buf`'s blocks
/// across blocks, as the plan chose for this step.
///
/// # Panics
/// If the blocks are not whole groups of 8, a power of two of them and at most
/// 2^[`MAX_LOG_BLOCKS`], or the first block's index has a bit set below their count: the
/// planner's rule only chooses this kernel where the executor's steps meet all of these.
pub(crate) fn radix8_across(
    direction: Direction,
    Kit {
        backend, twiddles, ..
    }: Kit<'_>,
    buf: &mut [u64],
    Step {
        layers,
        depth,
        block_words,
        first_block,
    }: Step,
) {
    debug_assert_eq!(layers, 3, "a radix-8 step");
    let blocks = buf.len() / block_words;
    assert!(
        blocks >= 8 && blocks.is_power_of_two() && blocks <= 1 << MAX_LOG_BLOCKS,
        "the plan chose across blocks for {blocks} block(s)"
    );
    let log_blocks = blocks.trailing_zeros();
    // The affine form needs the blocks' low index bits free in the first block's index.
    assert_eq!(
        first_block & ((1u64 << log_blocks) - 1),
        0,
        "the first block's index is not aligned to the step's blocks"
    );
    let (tw0, steps) = affine_twiddles(twiddles, depth, first_block, log_blocks);
    let steps = &steps[..log_blocks as usize];
    match direction {
        Direction::Forward => backend.radix8_across(buf, block_words / 8, tw0, steps),
        Direction::Inverse => backend.inverse_radix8_across(buf, block_words / 8, tw0, steps),
    }
}
