//! Runs consecutive butterfly layers on a contiguous buffer with radix-8/4/2 register groups.
//!
//! The buffer holds 2^(end − first) rows of `width` words and is one layer-`first` block of the
//! transform, whose global block index is `block` (a [`LayerSpan`]). It is either a contiguous
//! sub-block of the codeword (deep pass) or a gathered group of strided rows (gathered pass): in
//! both cases the rows a layer pairs are half a local block apart, and only the twiddles need the
//! global view (the distance `2^depth` of the pair in the whole domain of 2^log_rows rows, and
//! the global block index).

use super::across_blocks;
use crate::plan::radix8_kernel::{KernelsByDepth, Radix8Kernel};
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

/// Layers `first .. end` of a 2^`log_rows`-row transform on one layer-`first` block of
/// 2^(end − first) rows of `width` words, whose global block index is `block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LayerSpan {
    pub width: usize,
    pub first: u32,
    pub end: u32,
    pub log_rows: u32,
    pub block: u64,
}

impl LayerSpan {
    /// The block's words: 2^(end − first) rows of `width`.
    fn words(&self) -> usize {
        self.width << (self.end - self.first)
    }

    /// The same layers on the layer-`first` block with global index `block`.
    pub(super) fn at_block(self, block: u64) -> Self {
        Self { block, ..self }
    }

    /// The step that starts at layer `layer` (within `first .. end`), on every layer-`layer`
    /// block of this one.
    fn step_at(&self, layer: u32) -> Step {
        Step {
            layers: step_layers(self.end - layer),
            depth: self.log_rows - layer - 1,
            block_words: self.width << (self.end - layer),
            first_block: self.block << (layer - self.first),
        }
    }

    /// The first step's child block (segment) c: the remaining layers from `first + k` on it.
    fn child(&self, c: usize) -> Self {
        let k = step_layers(self.end - self.first);
        Self {
            first: self.first + k,
            block: (self.block << k) + c as u64,
            ..*self
        }
    }

    /// Whether the block is larger than L1 (see [`exceeds_l1`]).
    fn exceeds_l1(&self) -> bool {
        exceeds_l1(self.width, self.first, self.end)
    }
}

/// One step of `layers` (1, 2 or 3) from layer ℓ (`depth` = log_rows − ℓ − 1) on blocks of
/// `block_words`, the first of which has global index `first_block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub layers: u32,
    pub depth: u32,
    pub block_words: usize,
    pub first_block: u64,
}

/// Rows `stride` words apart from `at`: a group's rows where a step reads (`P` = `*const u64`)
/// or writes them (`P` = `*mut u64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strided<P> {
    pub at: P,
    pub stride: usize,
}

impl Strided<*const u64> {
    /// The same rows from `words` further on (a block's or a column's offset).
    fn offset(self, words: usize) -> Self {
        Self {
            at: self.at.wrapping_add(words),
            ..self
        }
    }
}

impl Strided<*mut u64> {
    /// The same rows from `words` further on (a block's or a column's offset).
    fn offset(self, words: usize) -> Self {
        Self {
            at: self.at.wrapping_add(words),
            ..self
        }
    }

    fn cast_const(self) -> Strided<*const u64> {
        Strided {
            at: self.at.cast_const(),
            stride: self.stride,
        }
    }
}

/// Calls `f(c, twiddles)` for blocks c = 0 .. `blocks` of `step`: the 7, 3 or 1 twiddles of
/// block c's radix-8, radix-4 or radix-2 group, walked from block to block.
fn each_block_twiddles(tw: &Twiddles, step: Step, blocks: usize, mut f: impl FnMut(usize, &[u64])) {
    let Step {
        layers,
        depth,
        first_block,
        ..
    } = step;
    match layers {
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

/// `step` on every one of its blocks in `buf`, forward or undone. Each radix-8 group is ONE
/// kernel call on a whole block (its 8 segments share 7 twiddles).
fn step(direction: Direction, kit: Kit<'_>, buf: &mut [u64], step: Step) {
    let Kit {
        backend, twiddles, ..
    } = kit;
    let Step {
        layers: k,
        block_words,
        ..
    } = step;
    if k == 3 && kit.kernels.at(step.depth) == Radix8Kernel::AcrossBlocks {
        across_blocks::radix8_across(direction, kit, buf, step);
        return;
    }
    let blocks = buf.len() / block_words;
    each_block_twiddles(twiddles, step, blocks, |c, tw| {
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

/// The layers of `span` on `buf`: forward, or undone (layers `end − 1` down to `first`, each
/// step undone by the backend's inverse radix-8/4/2 groups).
///
/// Depth first: while `buf` is larger than L1 it takes one step over the whole buffer, which
/// splits it into independent blocks, and each block then runs all its remaining layers before
/// the next one starts; a block that fits L1 runs its steps one after the other. So only the
/// first steps of a large unit stream it through L2, and the last ones run on L1-resident rows.
/// The steps and their twiddles are those of the layer-by-layer order, so are the bytes. The
/// inverse runs the same steps in reverse order: a large buffer's blocks are finished one by
/// one, then its first step is undone.
pub(crate) fn layers(direction: Direction, kit: Kit<'_>, buf: &mut [u64], span: LayerSpan) {
    debug_assert!(span.first <= span.end && span.end <= span.log_rows);
    debug_assert_eq!(buf.len(), span.words());
    if span.first < span.end && span.exceeds_l1() {
        let top = span.step_at(span.first);
        if direction == Direction::Forward {
            step(direction, kit, buf, top);
        }
        each_child(direction, kit, buf, span);
        if direction == Direction::Inverse {
            step(direction, kit, buf, top);
        }
        return;
    }
    in_cache_steps(direction, kit, buf, span, span.first);
}

/// The steps of layers `from .. end` of an L1-sized buffer that holds `span`'s block, one after
/// the other over the whole buffer; `from` is `first` or the end of its first step.
fn in_cache_steps(direction: Direction, kit: Kit<'_>, buf: &mut [u64], span: LayerSpan, from: u32) {
    // The forward steps' first layers; the inverse undoes the steps last first.
    let mut starts = [0u32; 64];
    let mut count = 0;
    let mut layer = from;
    while layer < span.end {
        starts[count] = layer;
        count += 1;
        layer += step_layers(span.end - layer);
    }
    let mut run = |&layer: &u32| step(direction, kit, buf, span.step_at(layer));
    match direction {
        Direction::Forward => starts[..count].iter().for_each(&mut run),
        Direction::Inverse => starts[..count].iter().rev().for_each(&mut run),
    }
}

/// The first step of [`layers`] forward on `span`'s block whose rows are still at `src` (a
/// sub-block read straight from the message): it reads `src` and writes `dst`, so the rows are
/// never copied into place first. [`forward_after_first_step`] then finishes the block in
/// `dst`. Only where [`first_step_fits`].
///
/// # Safety
/// `src` is valid for `span.words()` reads and `dst` for as many writes; the two do not overlap,
/// and nothing else accesses `dst` during the call (it may be uninitialised: the step writes
/// every word).
pub(crate) unsafe fn forward_first_step(kit: Kit<'_>, src: *const u64, dst: *mut u64, span: LayerSpan) {
    let segment = first_step_segment_words(span.width, span.first, span.end);
    // SAFETY: `src` and `dst` hold the block's words and do not overlap (caller); the columns
    // are the whole segment, so every word of the block is read and written once.
    unsafe { forward_first_step_columns(kit, src, dst, span, 0..segment) }
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
    span: LayerSpan,
    columns: core::ops::Range<usize>,
) {
    assert!(
        first_step_fits(span.width, span.first, span.end),
        "a block too small for a strided first step"
    );
    let first = span.step_at(span.first);
    let segment = first.block_words >> first.layers;
    assert!(
        columns.start <= columns.end && columns.end <= segment,
        "columns outside a segment"
    );
    each_block_twiddles(twiddles, first, 1, |_, tw| {
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

/// Segment `c` of `span`'s block whose first step has run (`segment` holds its words): its
/// remaining layers, as [`forward_after_first_step`] runs them on a block larger than L1.
pub(crate) fn forward_segment(kit: Kit<'_>, segment: &mut [u64], span: LayerSpan, c: usize) {
    layers(Direction::Forward, kit, segment, span.child(c));
}

/// The remaining layers of each child block (segment) of `span`'s block in `buf` whose first
/// step (`step_layers(end − first)` layers) has run, or is to be undone after: child c is block
/// `(block << k) + c` at layer `first + k`.
fn each_child(direction: Direction, kit: Kit<'_>, buf: &mut [u64], span: LayerSpan) {
    let segment = first_step_segment_words(span.width, span.first, span.end);
    for (c, child) in buf.chunks_exact_mut(segment).enumerate() {
        layers(direction, kit, child, span.child(c));
    }
}

/// The layers of [`layers`] forward after the first step, which [`forward_first_step`] ran.
pub(crate) fn forward_after_first_step(kit: Kit<'_>, buf: &mut [u64], span: LayerSpan) {
    debug_assert_eq!(buf.len(), span.words());
    if span.exceeds_l1() {
        each_child(Direction::Forward, kit, buf, span);
    } else {
        let after = span.first + step_layers(span.end - span.first);
        in_cache_steps(Direction::Forward, kit, buf, span, after);
    }
}

/// `span`'s layers on one gathered group: its 2^(end − first) rows of `width` words are read
/// from `src` and written to `dst`, with `scratch` (`span.words()` words) in between; `block`
/// is the group's global block index at layer `first`.
///
/// The gather is the first step's loads and the scatter the last step's stores (non-temporal
/// when `stream`), whatever the radix of those steps: the backend's strided groups
/// ([`Backend::radix_rows`]) read and write the strided rows directly. The middle steps run on
/// the contiguous rows in scratch. A one-step group goes from source to destination directly.
///
/// # Safety
/// The source rows are valid for reads; the destination rows are valid for writes and belong to
/// the caller alone; `scratch` is valid for `span.words()` words and overlaps no destination row
/// (it may be the source itself, with `src.stride == width`); the destination rows may be the
/// source rows (in place).
pub(crate) unsafe fn forward_group(
    kit: Kit<'_>,
    src: Strided<*const u64>,
    dst: Strided<*mut u64>,
    scratch: *mut u64,
    span: LayerSpan,
    stream: bool,
) {
    let LayerSpan {
        width, first, end, ..
    } = span;
    let scratch = Strided {
        at: scratch,
        stride: width,
    };
    let mut layer = first;
    // Where the group's rows are now: the source until the first step has run.
    let mut at = src;
    while layer < end {
        let s = span.step_at(layer);
        let last = layer + s.layers == end;
        let to = if last { dst } else { scratch };
        let block_rows = 1usize << (end - layer);
        let blocks = 1usize << (layer - first);
        if !last && at == scratch.cast_const() {
            // A middle step, in scratch and in place: the contiguous groups.
            // SAFETY: scratch holds the group's `span.words()` words, initialised by the
            // previous step (or the source itself), and nothing else refers to it meanwhile.
            let buf = unsafe { core::slice::from_raw_parts_mut(scratch.at, span.words()) };
            step(Direction::Forward, kit, buf, s);
        } else {
            // The first or last step: strided groups that read `at` and write `to`.
            let strided = |c: usize, tw: &[u64]| {
                let (from, into) = (
                    at.offset(c * block_rows * at.stride),
                    to.offset(c * block_rows * to.stride),
                );
                let rows = StridedRows {
                    src: from.at,
                    src_stride: from.stride,
                    dst: into.at,
                    dst_stride: into.stride,
                    seg_rows: block_rows >> s.layers,
                    width,
                };
                // SAFETY: block c's rows at `at` are readable (source or scratch) and at `to`
                // writable (scratch, or the caller's destination rows), each destination row
                // disjoint from every other row of the block but its own source row.
                unsafe { kit.backend.radix_rows(rows, tw, last && stream) };
            };
            each_block_twiddles(kit.twiddles, s, blocks, strided);
        }
        at = to.cast_const();
        layer += s.layers;
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
                    let steps =
                        crate::plan::radix8_kernel::contiguous_steps(backend.kind(), lanes, first, log_rows);
                    let kit = Kit {
                        backend,
                        twiddles: &tw,
                        kernels: KernelsByDepth::of(&steps, log_rows),
                    };
                    let run = |direction, buf: &mut [u64]| {
                        for (i, sub) in buf.chunks_exact_mut(sub_words).enumerate() {
                            let span = LayerSpan {
                                width: lanes,
                                first,
                                end: log_rows,
                                log_rows,
                                block: i as u64,
                            };
                            layers(direction, kit, sub, span);
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
