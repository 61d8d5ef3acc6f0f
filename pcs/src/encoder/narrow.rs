//! The narrow-matrix path of a radix-8 step: all of a buffer's small blocks in one across-blocks
//! call (see [`crate::plan::narrow`]), with their twiddles given as block 0's and what each bit
//! of the block index adds.

use super::layers::Direction;
use crate::plan::narrow::{Radix8Kernel, radix8_kernel};
use crate::twiddle::{Radix8Walk, Twiddles};
use ntt_kernels::Backend;

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

/// Most blocks (as a log) one across-blocks step takes: 2^24 blocks of at least 8 words is a
/// 1 GiB buffer, far past the cache-sized units the steps run on. A larger one runs along
/// segments (the same bytes); the bound keeps the steps' array, zeroed per call, small.
const MAX_LOG_BLOCKS: usize = 24;

/// Whether the radix-8 step over `buf`'s blocks (of `block_words`, the first with global index
/// `first_block`, top-layer pairs 2^depth apart) should run across blocks, and its twiddles.
fn across_twiddles(
    (backend, twiddles): (Backend, &Twiddles),
    buf_words: usize,
    block_words: usize,
    depth: u32,
    first_block: u64,
) -> Option<([u64; 7], [[u64; 7]; MAX_LOG_BLOCKS], usize)> {
    let blocks = buf_words / block_words;
    if radix8_kernel(backend, block_words / 8, blocks) != Radix8Kernel::AcrossBlocks {
        return None;
    }
    let log_blocks = blocks.trailing_zeros();
    // The affine form needs the blocks' low index bits free in the first block's index.
    if first_block & ((1u64 << log_blocks) - 1) != 0 || log_blocks as usize > MAX_LOG_BLOCKS {
        return None;
    }
    let (tw0, steps) = affine_twiddles(twiddles, depth, first_block, log_blocks);
    Some((tw0, steps, log_blocks as usize))
}

/// Runs the radix-8 step (forward or its inverse, as `direction` says) across blocks when the
/// planner's narrow rule says so; false (nothing done) otherwise.
pub(crate) fn radix8_step(
    direction: Direction,
    (backend, twiddles): (Backend, &Twiddles),
    buf: &mut [u64],
    block_words: usize,
    depth: u32,
    first_block: u64,
) -> bool {
    let Some((tw0, steps, n)) =
        across_twiddles((backend, twiddles), buf.len(), block_words, depth, first_block)
    else {
        return false;
    };
    match direction {
        Direction::Forward => backend.radix8_across(buf, block_words / 8, tw0, &steps[..n]),
        Direction::Inverse => backend.inverse_radix8_across(buf, block_words / 8, tw0, &steps[..n]),
    }
    true
}
