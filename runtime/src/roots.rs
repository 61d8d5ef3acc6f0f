//! Running a graph's roots: one span of task indices, split only when a worker steals from it.
//!
//! The roots are the set bits of the graph's root bitmap inside its root span. The worker that
//! owns a span takes indices from its front, a guided share at a time (at most
//! 1/([`GUIDED_SHARE`] × workers) of what is left, at least one), and runs the roots among
//! them and their continuations; a thief steals the owner's token (a job at the bottom of the
//! owner's deque) and takes the upper half of what is left. So a graph of a million tiny roots
//! costs a few hundred atomic operations on its span instead of a deque push and pop per root,
//! a graph of a few heavy roots still hands out one root at a time, and no owner ever holds
//! more than a small share of the work a thief could have taken.
//!
//! ```text
//!   owner:  [taken|.....................................]  takes a guided share from the front
//!   thief:  [taken|..................][.................]  steals the upper half, with a token
//!                   owner keeps        thief's span            of its own
//! ```
//!
//! A token lives on its owner's stack, like the second half of a `join`, and is published only
//! while some of the span is left (a graph with one root publishes none, so no worker is woken
//! to steal nothing). Before the owner reports its finished tasks it pops the token back or, if
//! it was stolen, runs other jobs until the thief has finished its whole span (a latch). The thief's finished tasks are added
//! to the owner's, so the run's count of unfinished tasks is touched once per top-level span.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::interval::Interval;
use crate::latch::Latch;
use crate::registry::{JobRef, WorkerThread};

/// The owner of a span takes at most `1 / (GUIDED_SHARE * workers)` of what is left at a time.
const GUIDED_SHARE: u32 = 16;

/// Task indices `front..back` of a span not yet taken.
pub(crate) type Span = Interval;

/// What a span's roots belong to: a graph run in progress (`RunState`), which knows how to run
/// a range of its roots. A trait so that this module does not reach up into the run.
pub(crate) trait Roots: Sync {
    /// The pool's worker count (the guided share of a span depends on it).
    fn workers(&self) -> u32;

    /// Runs the roots among task indices `start..end` and their continuations; returns how
    /// many tasks it ran or skipped.
    ///
    /// # Safety
    /// The caller owns the roots among `start..end` (it took those indices from a span).
    unsafe fn run_roots_in(&self, start: u32, end: u32, worker: &WorkerThread) -> usize;
}

/// The stealable handle of a span, on its owner's stack while the owner works on the span.
struct Token<'a, R> {
    span: &'a Span,
    run: *const R,
    /// Set by the thief once it has split the span: the owner then publishes a new token.
    stolen: AtomicBool,
    /// Set by the thief when its own span (and everything stolen from it) is done.
    latch: Latch,
    /// How many tasks the thief ran or skipped; read by the owner once the latch is set.
    thief_done: UnsafeCell<usize>,
}

/// The [`ExecFn`](crate::job::ExecFn) of a stolen token.
///
/// # Safety
/// `data` is a live `Token` whose job was pushed once and not yet run, whose run is in
/// progress, and whose owner waits for its latch (or pops the job back) before it lets the
/// token go.
unsafe fn execute_token<R: Roots>(data: *const (), _: u32, _: u32, worker: &WorkerThread) {
    // SAFETY: `data` is a live `Token` (caller's contract); it is not used after the latch is
    // set below.
    let token = unsafe { &*data.cast::<Token<'_, R>>() };
    if let Some((front, back)) = token.span.steal_half() {
        token.stolen.store(true, Ordering::Relaxed);
        let mine = Span::new(front, back);
        // SAFETY: the run is in progress: the owner's unreported tasks keep it alive.
        let done = unsafe { run_span(token.run, &mine, worker) };
        // SAFETY: the owner reads `thief_done` only after the latch is set: exclusive access.
        unsafe { *token.thief_done.get() = done };
    }
    // SAFETY: the latch is live until set; `token` is not touched afterwards.
    unsafe { Latch::set(&token.latch, &worker.registry.sleep) };
}

/// Runs the roots in `span` and their continuations, with a token published for thieves while
/// some of the span is left; returns how many tasks it (and every thief of the span) ran or
/// skipped, once all of them are done. Never unwinds: tasks run under `catch_unwind`.
///
/// A span taken whole at its first share (a graph with one root, a small one) publishes no
/// token: nobody is woken to steal nothing, and nobody has to be waited for.
///
/// # Safety
/// The run at `run` is in progress and stays alive while this call lasts (the caller holds
/// unreported tasks of it), and the caller owns the roots in `span`.
pub(crate) unsafe fn run_span<R: Roots>(run: *const R, span: &Span, worker: &WorkerThread) -> usize {
    // SAFETY: alive for this call (caller's contract).
    let state = unsafe { &*run };
    let divisor = GUIDED_SHARE.saturating_mul(state.workers());
    let token = Token {
        span,
        run,
        stolen: AtomicBool::new(false),
        latch: worker.new_latch(),
        thief_done: UnsafeCell::new(0),
    };
    let token_ptr: *const Token<'_, R> = &token;
    // SAFETY: `token` outlives the job: once pushed, this function does not return before the
    // job was either popped back here or has set its latch, and it does not unwind.
    let job = unsafe { JobRef::new(token_ptr.cast(), execute_token::<R>, 0, 0) };
    let mut published = false;
    let mut done = 0;
    loop {
        if published && token.stolen.load(Ordering::Relaxed) {
            // A thief took half of what was left: offer the rest again under a new token.
            // SAFETY: our caller's contract (the run is in progress and outlives this call)
            // holds for the nested call, and the rest of the span is still ours.
            done += unsafe { run_span(run, span, worker) };
            break;
        }
        let Some((front, end)) = span.take_share(divisor) else {
            break;
        };
        if !published && !span.is_empty() {
            worker.push(job);
            published = true;
        }
        // SAFETY: these indices were taken from our span, so their roots are ours.
        done += unsafe { state.run_roots_in(front, end, worker) };
        if published {
            run_pushed_above(worker, &job);
        }
    }
    if !published {
        return done;
    }
    worker.reclaim(&token.latch, &job);
    // SAFETY: the thief, if any, has set the latch (or never ran): nobody else touches it.
    done + unsafe { *token.thief_done.get() }
}

/// Runs the jobs pushed after the token (ready successors of the roots just run), most recent
/// first, up to the token; those jobs report their own tasks.
fn run_pushed_above(worker: &WorkerThread, token_job: &JobRef) {
    while let Some(job) = worker.pop_local() {
        if job.same_as(token_job) {
            // Nothing above it any more: put the token back where it was.
            worker.push(job);
            break;
        }
        // SAFETY: a job from our deque runs once, here.
        unsafe { job.execute(worker) };
    }
}
