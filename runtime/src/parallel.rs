//! Data-parallel loops over index ranges and slices, split with `join`.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::context::TaskContext;
use crate::pool::ThreadPool;

impl ThreadPool {
    /// Calls `f` on sub-ranges of `range` of `grain` indices each (the last may be shorter),
    /// in parallel: the range is split in halves with [`TaskContext::join`] down to `grain`, so
    /// no task is allocated per sub-range. A `grain` of 0 means 1.
    ///
    /// # Panics
    /// Re-raises the first panic of `f`; sub-ranges not yet started when it happened are
    /// skipped.
    pub fn for_each(
        &self,
        range: Range<usize>,
        grain: usize,
        f: impl Fn(Range<usize>, &TaskContext<'_>) + Sync,
    ) {
        if range.is_empty() {
            return;
        }
        let grain = grain.max(1);
        let stop = AtomicBool::new(false);
        let pieces = range.len().div_ceil(grain);
        let (f, stop, range) = (&f, &stop, &range);
        self.run(|g| {
            g.add(move |ctx| split_range(ctx, range, (0, pieces), grain, f, stop));
        });
    }

    /// Calls `f(i, chunk, ctx)` for each `chunk_len`-sized chunk of `data` (the last may be
    /// shorter), in parallel, splitting like [`ThreadPool::for_each`]. A `chunk_len` of 0
    /// means 1.
    ///
    /// # Panics
    /// Re-raises the first panic of `f`; chunks not yet started when it happened are skipped.
    pub fn chunks_mut<T: Send>(
        &self,
        data: &mut [T],
        chunk_len: usize,
        f: impl Fn(usize, &mut [T], &TaskContext<'_>) + Sync,
    ) {
        if data.is_empty() {
            return;
        }
        let chunk_len = chunk_len.max(1);
        let stop = AtomicBool::new(false);
        let (f, stop) = (&f, &stop);
        self.run(|g| {
            let chunks = data.len().div_ceil(chunk_len);
            g.add(move |ctx| split_chunks(ctx, data, (0, chunks), chunk_len, f, stop));
        });
    }
}

/// Sets the flag if dropped while unwinding: a panicking leaf stops the leaves not yet started.
struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Runs `f` over pieces `lo..hi` of `range` (piece `p` is `range.start + p * grain`, clipped
/// to `range.end`), halving the piece interval with `join`; piece counts avoid a division per
/// split.
fn split_range(
    ctx: &TaskContext<'_>,
    range: &Range<usize>,
    (lo, hi): (usize, usize),
    grain: usize,
    f: &(impl Fn(Range<usize>, &TaskContext<'_>) + Sync),
    stop: &AtomicBool,
) {
    if stop.load(Ordering::Relaxed) {
        return;
    }
    if hi - lo <= 1 {
        let start = range.start + lo * grain;
        let end = start.saturating_add(grain).min(range.end);
        let _stop = StopOnPanic(stop);
        f(start..end, ctx);
        return;
    }
    let mid = lo + (hi - lo) / 2;
    ctx.join(
        |c| split_range(c, range, (lo, mid), grain, f, stop),
        |c| split_range(c, range, (mid, hi), grain, f, stop),
    );
}

/// Runs `f` over chunks `first..first + count` held in `data`, halving with `join`.
fn split_chunks<T: Send>(
    ctx: &TaskContext<'_>,
    data: &mut [T],
    (first, count): (usize, usize),
    chunk_len: usize,
    f: &(impl Fn(usize, &mut [T], &TaskContext<'_>) + Sync),
    stop: &AtomicBool,
) {
    if stop.load(Ordering::Relaxed) {
        return;
    }
    if count <= 1 {
        let _stop = StopOnPanic(stop);
        f(first, data, ctx);
        return;
    }
    let left = count / 2;
    let (lo, hi) = data.split_at_mut(left * chunk_len);
    ctx.join(
        |c| split_chunks(c, lo, (first, left), chunk_len, f, stop),
        |c| split_chunks(c, hi, (first + left, count - left), chunk_len, f, stop),
    );
}
