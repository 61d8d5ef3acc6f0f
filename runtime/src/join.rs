//! Fork-join: run two closures, potentially in parallel, the way `rayon::join` does.
//!
//! The second closure is pushed onto the calling worker's deque as a job that lives on the
//! caller's stack; the caller runs the first closure, then pops the second back and runs it
//! itself unless a thief took it, in which case it executes other jobs until the thief is done.
//! Nothing is allocated.

use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::thread::Result as ThreadResult;

use crate::context::TaskContext;
use crate::latch::Latch;
use crate::pool::ThreadPool;
use crate::registry::{JobRef, WorkerThread};

/// The second half of a join, on the joining worker's stack.
struct JoinJob<F, R> {
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<ThreadResult<R>>>,
    pool: *const ThreadPool,
    latch: Latch,
    /// The `tracing` span the join was called in, entered by a thief that runs the half.
    caller_span: tracing::Span,
}

/// The [`ExecFn`](crate::job::ExecFn) of a stolen join half.
///
/// # Safety
/// `data` is a live `JoinJob<F, R>` whose job was pushed once and not yet run, and whose owner
/// waits for its latch before touching it again.
unsafe fn execute_join_job<F, R>(data: *const (), _: u32, _: u32, worker: &WorkerThread)
where
    F: FnOnce(&TaskContext<'_>) -> R + Send,
    R: Send,
{
    // SAFETY: `data` is a live `JoinJob<F, R>` (caller's contract). The reference is not used
    // after the latch is set below.
    let job = unsafe { &*data.cast::<JoinJob<F, R>>() };
    // SAFETY: the owner does not touch `func` until the latch is set: exclusive access.
    let f = unsafe { (*job.func.get()).take() }.expect("a join half runs once");
    // SAFETY: the pool outlives the join, which borrows it through the owner's context.
    let pool = unsafe { &*job.pool };
    let ctx = TaskContext::new(pool, worker);
    // Left before the latch is set, while the job is still alive.
    let result = job
        .caller_span
        .in_scope(|| catch_unwind(AssertUnwindSafe(|| f(&ctx))));
    // SAFETY: as for `func`: the owner reads `result` only after the latch is set.
    unsafe { *job.result.get() = Some(result) };
    // SAFETY: the latch is live until set; `job` is not touched afterwards.
    unsafe { Latch::set(&job.latch, &worker.registry.sleep) };
}

/// Runs `a` and `b` on the worker behind `ctx`, `b` possibly on a thief; returns both results,
/// or re-raises the first of their panics once both have finished.
pub(crate) fn join_on_worker<A, B, RA, RB>(ctx: &TaskContext<'_>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(&TaskContext<'_>) -> RA,
    B: FnOnce(&TaskContext<'_>) -> RB + Send,
    RB: Send,
{
    let worker = ctx.worker();
    let job = JoinJob {
        func: UnsafeCell::new(Some(b)),
        result: UnsafeCell::new(None),
        pool: ctx.pool(),
        latch: worker.new_latch(),
        caller_span: tracing::Span::current(),
    };
    let job_ptr: *const JoinJob<B, RB> = &job;
    // SAFETY: `job` outlives the job: this function does not return (or unwind: `a` runs under
    // catch_unwind) before the job was either popped back here or has set its latch.
    let job_ref = unsafe { JobRef::new(job_ptr.cast(), execute_join_job::<B, RB>, 0, 0) };
    worker.push(job_ref);
    let result_a = catch_unwind(AssertUnwindSafe(|| a(ctx)));
    loop {
        if job.latch.probe() {
            break;
        }
        match worker.pop_local() {
            Some(popped) if popped.same_as(&job_ref) => {
                // Not stolen: nobody else can reach `job` any more, run `b` here.
                // SAFETY: we popped the only reference to the job, so access is exclusive.
                let f = unsafe { (*job.func.get()).take() }.expect("a join half runs once");
                let result_b = catch_unwind(AssertUnwindSafe(|| f(ctx)));
                // SAFETY: we popped the only reference to the job, so nobody else can reach
                // `result`: the write is exclusive.
                unsafe { *job.result.get() = Some(result_b) };
                break;
            }
            // SAFETY: a job from our deque (pushed by `a`'s tasks) runs once, here.
            Some(other) => unsafe { other.execute(worker) },
            None => {
                // Stolen: keep busy until the thief sets the latch.
                worker.wait_until(|| job.latch.probe());
                break;
            }
        }
    }
    // SAFETY: `b` has finished (inline or on the thief, whose latch store we acquired).
    let result_b = unsafe { (*job.result.get()).take() }.expect("b has run");
    match (result_a, result_b) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(p), _) | (_, Err(p)) => resume_unwind(p),
    }
}
