//! Parallel loops whose ranges split on demand, when a worker steals from them.
//!
//! A loop that cut its range into `grain`-sized pieces up front and halved the piece interval
//! with `join` would make every piece a unit of stealing, so a worker that is slowed down (a
//! busy neighbour on its core, a page fault storm) would still own the pieces it took. Here a
//! worker owns a *piece*: a shared interval of grains `front..back`. [`ThreadPool::for_each`]
//! and [`ThreadPool::try_for_each`] are this loop.
//!
//! ```text
//!   owner:  takes grains from the front, one at a time (one fetch_add each)
//!           [##########|..........................]
//!            done       front                      back
//!   thief:  steals the owner's token (a job on the owner's deque), takes the upper half of
//!           what is left with one CAS, and becomes the owner of a new piece
//!           [##########|.............]  [.............]
//!                       owner keeps      thief's piece (with its own token)
//! ```
//!
//! - The owner publishes a token for its piece before it starts. When the token is stolen the
//!   thief splits the piece; the owner notices (a flag), publishes a new token for what it
//!   kept, and carries on from its front. So the piece is split only as often as workers come
//!   for it, and each steal takes half of what is left.
//! - A token lives on its owner's stack, like the second half of a `join`: before it returns
//!   (or re-raises a panic) the owner pops the token back, or, if it was stolen, runs other
//!   jobs until the thief has finished its whole piece (a latch). Nested owners therefore form
//!   a tree of waits, as nested joins do; a thief's piece is on the thief's stack.
//! - Grains are counted in `u32` inside a piece (front in the low half of one `AtomicU64`, back
//!   in the high half); a larger range is first halved with `join`.
//! - A panicking grain sets a stop flag: grains not yet started are skipped, and the first
//!   panic is re-raised once every piece has returned.

use std::any::Any;
use std::cell::UnsafeCell;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_utils::CachePadded;

use crate::context::TaskContext;
use crate::interval::Interval;
use crate::latch::Latch;
use crate::panic::{RunError, TaskPanic};
use crate::pool::ThreadPool;
use crate::registry::{JobRef, WorkerThread};

type Payload = Box<dyn Any + Send + 'static>;

/// Most grains in one piece. Each owner's frame may move `front` one past `back` when it finds
/// the piece empty, and an owner has at most one frame per steal of its piece (at most 32), so
/// the margin keeps `front` from carrying into `back`.
const MAX_PIECE_GRAINS: usize = u32::MAX as usize - 64;

impl ThreadPool {
    /// Calls `f` on sub-ranges of `range` of `grain` indices each (the last may be shorter), in
    /// parallel, splitting the range only when a worker steals from it: the worker that owns a
    /// piece takes grains from its front, and a thief takes half of what is left. A `grain` of
    /// 0 means 1.
    ///
    /// Pieces are made when idle workers ask for them rather than up front, so a small grain
    /// costs one atomic per grain instead of a split per grain, and a slowed-down worker loses
    /// all but its current grain to the others.
    ///
    /// # Panics
    /// Re-raises the first panic of `f`; grains not yet started when it happened are skipped.
    pub fn for_each(
        &self,
        range: Range<usize>,
        grain: usize,
        f: impl Fn(Range<usize>, &TaskContext<'_>) + Sync,
    ) {
        if let Err(e) = self.try_for_each(range, grain, f) {
            e.resume();
        }
    }

    /// Like [`ThreadPool::for_each`], returning the first panic instead of re-raising
    /// it.
    ///
    /// # Errors
    /// [`RunError::Panicked`] with the payload of the first grain that panicked.
    pub fn try_for_each(
        &self,
        range: Range<usize>,
        grain: usize,
        f: impl Fn(Range<usize>, &TaskContext<'_>) + Sync,
    ) -> Result<(), RunError> {
        if range.is_empty() {
            return Ok(());
        }
        let grain = grain.max(1);
        // A guest (a small job inline on its caller) runs everything it starts itself, so the
        // grains simply run in order: no graph, no token, no piece to split. In a loop of small
        // encodes the graph's set-up, root span and drop were 8 % of the time.
        if let Some(result) = WorkerThread::with_current(&self.registry, |w| {
            w.filter(|w| w.is_guest())
                .map(|w| run_grains_in_order(&TaskContext::new(self, w), range.clone(), grain, &f))
        }) {
            return result;
        }
        // Read before every grain by every worker: on a line of its own, so that the caller's
        // data beside it on the stack (a counter the grains update, say) cannot make each read
        // a miss.
        let stop = CachePadded::new(AtomicBool::new(false));
        let (f, stop) = (&f, &*stop);
        self.try_run(|g| {
            g.add(move |ctx| {
                if let Some(payload) = split_large(ctx, range, grain, f, stop) {
                    resume_unwind(payload);
                }
            });
        })
    }
}

/// The grains of `range` one after the other on `ctx`'s thread; the first panic stops the loop
/// (later grains are skipped, as in a parallel run) and is returned.
fn run_grains_in_order<F>(
    ctx: &TaskContext<'_>,
    range: Range<usize>,
    grain: usize,
    f: &F,
) -> Result<(), RunError>
where
    F: Fn(Range<usize>, &TaskContext<'_>) + Sync,
{
    catch_unwind(AssertUnwindSafe(|| {
        let mut start = range.start;
        while start < range.end {
            let end = start.saturating_add(grain).min(range.end);
            f(start..end, ctx);
            start = end;
        }
    }))
    .map_err(|payload| TaskPanic { payload }.into())
}

/// Halves `range` with `join` until it fits one piece, then runs it as one.
fn split_large<F>(
    ctx: &TaskContext<'_>,
    range: Range<usize>,
    grain: usize,
    f: &F,
    stop: &AtomicBool,
) -> Option<Payload>
where
    F: Fn(Range<usize>, &TaskContext<'_>) + Sync,
{
    let grains = range.len().div_ceil(grain);
    if grains > MAX_PIECE_GRAINS {
        let mid = range.start + grains / 2 * grain;
        let (a, b) = ctx.join(
            |c| split_large(c, range.start..mid, grain, f, stop),
            |c| split_large(c, mid..range.end, grain, f, stop),
        );
        return a.or(b);
    }
    let env = Loop {
        f,
        start: range.start,
        end: range.end,
        grain,
        stop,
        caller_span: tracing::Span::current(),
    };
    let piece = Piece::new(0, grains as u32);
    run_piece(ctx, &piece, &env)
}

/// What every piece of one loop shares.
struct Loop<'a, F> {
    f: &'a F,
    start: usize,
    end: usize,
    grain: usize,
    stop: &'a AtomicBool,
    /// The `tracing` span the loop was started in, entered by the workers that steal from it.
    caller_span: tracing::Span,
}

impl<F> Loop<'_, F> {
    /// The indices of grain `g`.
    fn grain_range(&self, g: u32) -> Range<usize> {
        let start = self.start + g as usize * self.grain;
        start..start.saturating_add(self.grain).min(self.end)
    }
}

/// A piece's grains `front..back` not yet taken.
type Piece = Interval;

/// The stealable handle of a piece, on its owner's stack while the owner works on the piece.
struct Token<'a, F> {
    piece: &'a Piece,
    env: &'a Loop<'a, F>,
    pool: &'a ThreadPool,
    /// Set by the thief once it has split the piece: the owner then publishes a new token.
    stolen: AtomicBool,
    /// Set by the thief when its own piece (and everything stolen from it) is done.
    latch: Latch,
    panic: UnsafeCell<Option<Payload>>,
}

/// The [`ExecFn`](crate::job::ExecFn) of a stolen token.
///
/// # Safety
/// `data` is a live `Token<F>` whose job was pushed once and not yet run, and whose owner waits
/// for its latch (or pops the job back) before it lets the token go.
unsafe fn execute_token<F>(data: *const (), _: u32, _: u32, worker: &WorkerThread)
where
    F: Fn(Range<usize>, &TaskContext<'_>) + Sync,
{
    // SAFETY: `data` is a live `Token<F>` (caller's contract); it is not used after the latch
    // is set below.
    let token = unsafe { &*data.cast::<Token<'_, F>>() };
    if let Some((front, back)) = token.piece.steal_half() {
        token.stolen.store(true, Ordering::Relaxed);
        let mine = Piece::new(front, back);
        let ctx = TaskContext::new(token.pool, worker);
        // Left before the latch is set, while the loop is still alive.
        let panic = token
            .env
            .caller_span
            .in_scope(|| run_piece(&ctx, &mine, token.env));
        // SAFETY: the owner reads `panic` only after the latch is set: exclusive access.
        unsafe { *token.panic.get() = panic };
    }
    // SAFETY: the latch is live until set; `token` is not touched afterwards.
    unsafe { Latch::set(&token.latch, &worker.registry.sleep) };
}

/// Runs `piece` from its front with a token published for thieves; returns once every grain
/// of the piece (those stolen from it included) is done, with the first panic, if any. Never
/// unwinds: the token must be reclaimed first.
fn run_piece<F>(ctx: &TaskContext<'_>, piece: &Piece, env: &Loop<'_, F>) -> Option<Payload>
where
    F: Fn(Range<usize>, &TaskContext<'_>) + Sync,
{
    let worker = ctx.worker();
    let token = Token {
        piece,
        env,
        pool: ctx.pool(),
        stolen: AtomicBool::new(false),
        latch: worker.new_latch(),
        panic: UnsafeCell::new(None),
    };
    let token_ptr: *const Token<'_, F> = &token;
    // SAFETY: `token` outlives the job: this function does not return before the job was
    // either popped back here or has set its latch, and it does not unwind (grains run under
    // `catch_unwind`).
    let job = unsafe { JobRef::new(token_ptr.cast(), execute_token::<F>, 0, 0) };
    worker.push(job);
    let mut panic = None;
    let mut split = false;
    while !env.stop.load(Ordering::Relaxed) {
        if token.stolen.load(Ordering::Relaxed) {
            split = true;
            break;
        }
        let Some(grain) = piece.take_front() else {
            break;
        };
        let range = env.grain_range(grain);
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (env.f)(range, ctx))) {
            env.stop.store(true, Ordering::Relaxed);
            panic = Some(payload);
        }
    }
    if split {
        // A thief took half of what was left: offer the rest again under a new token.
        panic = run_piece(ctx, piece, env);
    }
    worker.reclaim(&token.latch, &job);
    // SAFETY: the thief, if any, has set the latch (or never ran): nobody else touches `panic`.
    let thief_panic = unsafe { (*token.panic.get()).take() };
    panic.or(thief_panic)
}
