//! Data-parallel loops over slices ([`ThreadPool::for_each`], over index ranges, is in
//! `adaptive.rs`).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::context::TaskContext;
use crate::pool::ThreadPool;

impl ThreadPool {
    /// Calls `f(i, chunk, ctx)` for each `chunk_len`-sized chunk of `data` (the last may be
    /// shorter), in parallel: the chunks are halved with [`TaskContext::join`] down to one, so
    /// no task is allocated per chunk. A `chunk_len` of 0 means 1.
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
