//! Runs consecutive butterfly layers on a contiguous buffer with radix-8/4/2 register groups.
//!
//! The buffer holds 2^(end − first) rows of `width` words and is one layer-`first` block of the
//! transform, whose global block index is `block`. It is either a contiguous sub-block of the
//! codeword (deep pass) or a gathered group of strided rows (gathered pass): in both cases the
//! rows a layer pairs are half a local block apart, and only the twiddles need the global view
//! (the distance `2^depth` of the pair in the whole domain of 2^log_rows rows, and the global
//! block index).

use super::narrow;
use crate::plan::narrow::{KernelsByDepth, Radix8Kernel};
use crate::plan::steps::{exceeds_l1, first_step_fits, first_step_segment_words, step_layers};
use crate::twiddle::{Radix4Walk, Radix8Walk, TwiddleWalk, Twiddles};
use ntt_kernels::{Backend, StridedRows};

/// What a pass's steps run with: the kernels, the domain's twiddles, and the plan's choice of
/// radix-8 kernel for each step.
#[derive(Clone, Copy)]
pub(crate) struct Kit<'a> {
    pub backend: Backend,
    pub twiddles: &'a Twiddles,
    pub kernels: KernelsByDepth,
}

/// Calls `f(c, twiddles)` for blocks c = 0 .. `blocks` of a `k`-layer step from layer ℓ
/// (`depth` = log_rows − ℓ − 1), block 0 having global index `first_block`: the 7, 3 or 1
/// twiddles of its radix-8, radix-4 or radix-2 group, walked from block to block.
fn each_block_twiddles(
    tw: &Twiddles,
    k: u32,
    depth: u32,
    first_block: u64,
    blocks: usize,
    mut f: impl FnMut(usize, &[u64]),
) {
    match k {
        3 => {
            let mut walk = Radix8Walk::new(tw, depth, first_block);
            for c in 0..blocks {
                f(c, &walk.get());
                walk.advance();
            }
        }
        2 => {
            let mut walk = Radix4Walk::new(tw, depth, first_block);
            for c in 0..blocks {
                f(c, &walk.get());
                walk.advance();
            }
        }
        _ => {
            let mut walk = TwiddleWalk::for_depth(tw, depth, first_block);
            for c in 0..blocks {
                f(c, &[walk.get()]);
                walk.advance();
            }
        }
    }
}

/// Which way the butterflies run: the encode, or the interpolation that undoes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward,
    Inverse,
}

/// One step of `k` layers from layer ℓ (`depth` = log_rows − ℓ − 1) on every layer-ℓ block of
/// `buf` (blocks of `block_words`, the first with global index `first_block`), forward or
/// undone. Each radix-8 group is ONE kernel call on a whole block (its 8 segments share 7
/// twiddles).
fn step(
    direction: Direction,
    kit: Kit<'_>,
    buf: &mut [u64],
    block_words: usize,
    k: u32,
    depth: u32,
    first_block: u64,
) {
    let Kit {
        backend, twiddles, ..
    } = kit;
    if k == 3 && kit.kernels.at(depth) == Radix8Kernel::AcrossBlocks {
        narrow::radix8_across(direction, kit, buf, block_words, depth, first_block);
        return;
    }
    let blocks = buf.len() / block_words;
    each_block_twiddles(twiddles, k, depth, first_block, blocks, |c, tw| {
        let block = &mut buf[c * block_words..(c + 1) * block_words];
        match (k, direction) {
            (3, Direction::Forward) => backend.radix8(block, tw.try_into().expect("7 twiddles")),
            (3, Direction::Inverse) => backend.inverse_radix8(block, tw.try_into().expect("7 twiddles")),
            (2, Direction::Forward) => backend.radix4(block, tw.try_into().expect("3 twiddles")),
            (2, Direction::Inverse) => backend.inverse_radix4(block, tw.try_into().expect("3 twiddles")),
            (_, direction) => {
                let (u, v) = block.split_at_mut(block_words / 2);
                match direction {
                    Direction::Forward => backend.butterfly(u, v, tw[0]),
                    Direction::Inverse => backend.inverse_butterfly(u, v, tw[0]),
                }
            }
        }
    });
}

/// Layers `first .. end` of a 2^log_rows-row transform on `buf`: forward, or undone (layers
/// `end − 1` down to `first`, each step undone by the backend's inverse radix-8/4/2 groups).
///
/// Depth first: while `buf` is larger than L1 it takes one step over the whole buffer, which
/// splits it into independent blocks, and each block then runs all its remaining layers before
/// the next one starts; a block that fits L1 runs its steps one after the other. So only the
/// first steps of a large unit stream it through L2, and the last ones run on L1-resident rows.
/// The steps and their twiddles are those of the layer-by-layer order, so are the bytes. The
/// inverse runs the same steps in reverse order: a large buffer's blocks are finished one by
/// one, then its first step is undone.
#[allow(clippy::too_many_arguments)] // the direction, the kit, the buffer and the layer geometry
pub(crate) fn layers(
    direction: Direction,
    kit: Kit<'_>,
    buf: &mut [u64],
    width: usize,
    first: u32,
    end: u32,
    log_rows: u32,
    block: u64,
) {
    debug_assert!(first <= end && end <= log_rows);
    debug_assert_eq!(buf.len(), width << (end - first));
    if first < end && exceeds_l1(width, first, end) {
        let k = step_layers(end - first);
        let depth = log_rows - first - 1;
        if direction == Direction::Forward {
            step(direction, kit, buf, buf.len(), k, depth, block);
        }
        each_child(direction, kit, buf, (width, first, end, log_rows), block);
        if direction == Direction::Inverse {
            step(direction, kit, buf, buf.len(), k, depth, block);
        }
        return;
    }
    in_cache_steps(direction, kit, buf, width, (first, first, end), log_rows, block);
}

/// The steps of layers `from .. end` of an L1-sized buffer that holds one layer-`first` block
/// (global index `block`), one after the other over the whole buffer; `from` is `first` or the
/// end of its first step.
fn in_cache_steps(
    direction: Direction,
    kit: Kit<'_>,
    buf: &mut [u64],
    width: usize,
    (first, from, end): (u32, u32, u32),
    log_rows: u32,
    block: u64,
) {
    // The forward steps (first layer, layers in the step); the inverse undoes them last first.
    let mut steps = [(0u32, 0u32); 64];
    let mut count = 0;
    let mut layer = from;
    while layer < end {
        let k = step_layers(end - layer);
        steps[count] = (layer, k);
        count += 1;
        layer += k;
    }
    let mut run = |&(layer, k): &(u32, u32)| {
        let block_words = width << (end - layer);
        let first_block = block << (layer - first);
        step(
            direction,
            kit,
            buf,
            block_words,
            k,
            log_rows - layer - 1,
            first_block,
        );
    };
    match direction {
        Direction::Forward => steps[..count].iter().for_each(&mut run),
        Direction::Inverse => steps[..count].iter().rev().for_each(&mut run),
    }
}

/// The first step of [`layers`] forward on a block whose rows are still at `src` (a sub-block
/// read straight from the message): it reads `src` and writes `dst`, so the rows are never
/// copied into place first. [`forward_after_first_step`] then finishes the block in `dst`.
/// Only where [`first_step_fits`].
///
/// # Safety
/// `src` is valid for `len` reads and `dst` for `len` writes, where
/// `len = width << (end − first)`; the two do not overlap, and nothing else accesses `dst`
/// during the call (it may be uninitialised: the step writes every word).
#[allow(clippy::too_many_arguments)] // the kit, the two buffers and the layer geometry
pub(crate) unsafe fn forward_first_step(
    kit: Kit<'_>,
    src: *const u64,
    dst: *mut u64,
    width: usize,
    first: u32,
    end: u32,
    log_rows: u32,
    block: u64,
) {
    let segment = first_step_segment_words(width, first, end);
    // SAFETY: forwarded; the columns are the whole segment.
    unsafe { forward_first_step_columns(kit, src, dst, (width, first, end, log_rows), block, 0..segment) }
}

/// [`forward_first_step`] on words `columns` of every segment only: disjoint column ranges
/// of one block are independent, so a big block's first step can be cut into pieces that run
/// in parallel. `src` may equal `dst` (in place).
///
/// # Safety
/// As for [`forward_first_step`], except that only the `columns` words of each segment are
/// read and written, and `src` may be `dst` itself; `columns` lies within a segment.
pub(crate) unsafe fn forward_first_step_columns(
    Kit {
        backend, twiddles, ..
    }: Kit<'_>,
    src: *const u64,
    dst: *mut u64,
    (width, first, end, log_rows): (usize, u32, u32, u32),
    block: u64,
    columns: core::ops::Range<usize>,
) {
    assert!(
        first_step_fits(width, first, end),
        "a block too small for a strided first step"
    );
    let k = step_layers(end - first);
    let segment = (width << (end - first)) >> k;
    assert!(
        columns.start <= columns.end && columns.end <= segment,
        "columns outside a segment"
    );
    each_block_twiddles(twiddles, k, log_rows - first - 1, block, 1, |_, tw| {
        let rows = StridedRows {
            src: src.wrapping_add(columns.start),
            src_stride: segment,
            dst: dst.wrapping_add(columns.start),
            dst_stride: segment,
            seg_rows: 1,
            width: columns.len(),
        };
        // SAFETY: the `columns` words of the block's 2^k segments at `src` and at `dst`
        // (caller), which are either apart or the same words (in place).
        unsafe { backend.radix_rows(rows, tw, false) };
    });
}

/// Segment `c` of a block whose first step has run (`segment` holds its words): its remaining
/// layers, as [`forward_after_first_step`] runs them on a block larger than L1.
pub(crate) fn forward_segment(
    kit: Kit<'_>,
    segment: &mut [u64],
    (width, first, end, log_rows): (usize, u32, u32, u32),
    block: u64,
    c: usize,
) {
    let k = step_layers(end - first);
    layers(
        Direction::Forward,
        kit,
        segment,
        width,
        first + k,
        end,
        log_rows,
        (block << k) + c as u64,
    );
}

/// The remaining layers of each child block (segment) of a block of `buf` whose first step
/// (`step_layers(end − first)` layers) has run, or is to be undone after: child c is block
/// `(block << k) + c` at layer `first + k`.
fn each_child(
    direction: Direction,
    kit: Kit<'_>,
    buf: &mut [u64],
    (width, first, end, log_rows): (usize, u32, u32, u32),
    block: u64,
) {
    let k = step_layers(end - first);
    for (c, child) in buf.chunks_exact_mut(width << (end - first - k)).enumerate() {
        layers(
            direction,
            kit,
            child,
            width,
            first + k,
            end,
            log_rows,
            (block << k) + c as u64,
        );
    }
}

/// The layers of [`layers`] forward after the first step, which [`forward_first_step`] ran.
pub(crate) fn forward_after_first_step(
    kit: Kit<'_>,
    buf: &mut [u64],
    width: usize,
    first: u32,
    end: u32,
    log_rows: u32,
    block: u64,
) {
    debug_assert_eq!(buf.len(), width << (end - first));
    let k = step_layers(end - first);
    if exceeds_l1(width, first, end) {
        each_child(Direction::Forward, kit, buf, (width, first, end, log_rows), block);
    } else {
        in_cache_steps(
            Direction::Forward,
            kit,
            buf,
            width,
            (first, first + k, end),
            log_rows,
            block,
        );
    }
}

/// Layers `first .. end` of one gathered group: its 2^(end − first) rows of `width` words are
/// read at `src + i·src_stride` and written to `dst + i·dst_stride`, with `scratch`
/// (`width << (end − first)` words) in between; `block` is the group's global block index at
/// layer `first`.
///
/// The gather is the first step's loads and the scatter the last step's stores (non-temporal
/// when `stream`), whatever the radix of those steps: the backend's strided groups
/// ([`Backend::radix_rows`]) read and write the strided rows directly. The middle steps run on
/// the contiguous rows in scratch. A one-step group goes from source to destination directly.
///
/// # Safety
/// The source rows are valid for reads; the destination rows are valid for writes and belong to
/// the caller alone; `scratch` is valid for `width << (end − first)` words and overlaps no
/// destination row (it may be the source itself, with `src_stride == width`); the destination
/// rows may be the source rows (in place).
#[allow(clippy::too_many_arguments)] // two strided row sets, scratch, and the layer geometry
pub(crate) unsafe fn forward_group(
    kit: Kit<'_>,
    (src, src_stride): (*const u64, usize),
    (dst, dst_stride): (*mut u64, usize),
    scratch: *mut u64,
    width: usize,
    (first, end, log_rows): (u32, u32, u32),
    block: u64,
    stream: bool,
) {
    let Kit {
        backend, twiddles, ..
    } = kit;
    let group_words = width << (end - first);
    let mut layer = first;
    // Where the group's rows are now: the source until the first step has run.
    let mut at = (src, src_stride);
    while layer < end {
        let k = step_layers(end - layer);
        let last = layer + k == end;
        let (to, to_stride) = if last { (dst, dst_stride) } else { (scratch, width) };
        let block_rows = 1usize << (end - layer);
        let depth = log_rows - layer - 1;
        let first_block = block << (layer - first);
        let blocks = 1usize << (layer - first);
        if !last && at == (scratch.cast_const(), width) {
            // A middle step, in scratch and in place: the contiguous groups.
            // SAFETY: scratch holds the group's `group_words` words, initialised by the previous
            // step (or the source itself), and nothing else refers to it meanwhile.
            let buf = unsafe { core::slice::from_raw_parts_mut(scratch, group_words) };
            step(
                Direction::Forward,
                kit,
                buf,
                block_rows * width,
                k,
                depth,
                first_block,
            );
        } else {
            // The first or last step: strided groups that read `at` and write `to`.
            let strided = |c: usize, tw: &[u64]| {
                let rows = StridedRows {
                    src: at.0.wrapping_add(c * block_rows * at.1),
                    src_stride: at.1,
                    dst: to.wrapping_add(c * block_rows * to_stride),
                    dst_stride: to_stride,
                    seg_rows: block_rows >> k,
                    width,
                };
                // SAFETY: block c's rows at `at` are readable (source or scratch) and at `to`
                // writable (scratch, or the caller's destination rows), each destination row
                // disjoint from every other row of the block but its own source row.
                unsafe { backend.radix_rows(rows, tw, last && stream) };
            };
            each_block_twiddles(twiddles, k, depth, first_block, blocks, strided);
        }
        at = (to.cast_const(), to_stride);
        layer += k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::steps::L1_BLOCK_BYTES;
    use crate::reference::forward_oracle;
    use crate::test_words::words;

    /// Units larger than L1 take the depth-first split (leftover steps of 1 and 2 layers at the
    /// top included); every sub-block of every shape must match the layer-by-layer oracle, and
    /// the inverse must undo it.
    #[test]
    #[cfg_attr(miri, ignore = "large buffers")]
    fn depth_first_units_match_the_oracle_and_invert() {
        for (lanes, log_rows) in [(1usize, 14u32), (3, 13), (64, 9), (70, 8)] {
            assert!(
                lanes << log_rows > 2 * L1_BLOCK_BYTES / 8,
                "the unit must exceed L1"
            );
            for first in 0..3 {
                let data = words(lanes << log_rows, (lanes as u64) << 8 | u64::from(first));
                let mut expected = data.clone();
                forward_oracle(&mut expected, lanes, log_rows, first);
                let sub_words = lanes << (log_rows - first);
                let tw = Twiddles::polynomial();
                for backend in Backend::available() {
                    let steps = crate::plan::narrow::contiguous_steps(backend.kind(), lanes, first, log_rows);
                    let kit = Kit {
                        backend,
                        twiddles: &tw,
                        kernels: KernelsByDepth::of(&steps, log_rows),
                    };
                    let run = |direction, buf: &mut [u64]| {
                        for (i, sub) in buf.chunks_exact_mut(sub_words).enumerate() {
                            layers(direction, kit, sub, lanes, first, log_rows, log_rows, i as u64);
                        }
                    };
                    let mut got = data.clone();
                    run(Direction::Forward, &mut got);
                    assert!(
                        got == expected,
                        "forward {backend:?} lanes {lanes} 2^{log_rows} from {first}"
                    );
                    run(Direction::Inverse, &mut got);
                    assert!(
                        got == data,
                        "inverse {backend:?} lanes {lanes} 2^{log_rows} from {first}"
                    );
                }
            }
        }
    }
}
