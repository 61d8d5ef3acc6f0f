//! Runs consecutive butterfly layers on a contiguous buffer with radix-8/4/2 register groups.
//!
//! The buffer holds 2^(end − first) rows of `width` words and is one layer-`first` block of the
//! transform, whose global block index is `block`. It is either a contiguous sub-block of the
//! codeword (deep pass) or a gathered group of strided rows (gathered pass): in both cases the
//! rows a layer pairs are half a local block apart, and only the twiddles need the global view
//! (the distance `2^depth` of the pair in the whole domain of 2^log_rows rows, and the global
//! block index).

use crate::kernel;
use crate::twiddle::{Radix4Walk, Radix8Walk, TwiddleWalk, table};
use ntt_kernels::Backend;

/// Forward layers `first .. end` of a 2^log_rows-row transform on `buf`.
///
/// Leftover layers go first (`(end − layer) mod 3`): a lone radix-2 or radix-4 step runs where
/// blocks are few and long, and all later layers run as radix-8 groups, each ONE kernel call on a
/// whole block (its 8 segments share 7 twiddles).
pub(crate) fn forward_layers(
    backend: Backend,
    buf: &mut [u64],
    width: usize,
    first: u32,
    end: u32,
    log_rows: u32,
    block: u64,
) {
    debug_assert!(first <= end && end <= log_rows);
    debug_assert_eq!(buf.len(), width << (end - first));
    let mut layer = first;
    while layer < end {
        let block_words = width << (end - layer);
        let depth = log_rows - layer - 1;
        let first_block = block << (layer - first);
        match (end - layer) % 3 {
            0 => {
                let mut walk = Radix8Walk::new(depth, first_block);
                for chunk in buf.chunks_exact_mut(block_words) {
                    kernel::radix8(backend, chunk, walk.get());
                    walk.advance();
                }
                layer += 3;
            }
            2 => {
                let mut walk = Radix4Walk::new(depth, first_block);
                for chunk in buf.chunks_exact_mut(block_words) {
                    kernel::radix4(backend, chunk, walk.get());
                    walk.advance();
                }
                layer += 2;
            }
            _ => {
                let mut walk = TwiddleWalk::for_depth(depth, first_block);
                for chunk in buf.chunks_exact_mut(block_words) {
                    let (u, v) = chunk.split_at_mut(block_words / 2);
                    kernel::radix2(backend, u, v, walk.get());
                    walk.advance();
                }
                layer += 1;
            }
        }
    }
}

/// Inverse layers `end − 1` down to `first` (the same geometry as [`forward_layers`]).
pub(crate) fn inverse_layers(
    backend: Backend,
    buf: &mut [u64],
    width: usize,
    first: u32,
    end: u32,
    log_rows: u32,
    block: u64,
) {
    debug_assert!(first <= end && end <= log_rows);
    debug_assert_eq!(buf.len(), width << (end - first));
    let t = table();
    for layer in (first..end).rev() {
        let block_words = width << (end - layer);
        let depth = log_rows - layer - 1;
        let mut walk = TwiddleWalk::new(&t.row(depth)[1..], block << (layer - first));
        for chunk in buf.chunks_exact_mut(block_words) {
            let (u, v) = chunk.split_at_mut(block_words / 2);
            backend.inverse_butterfly(u, v, walk.get());
            walk.advance();
        }
    }
}
