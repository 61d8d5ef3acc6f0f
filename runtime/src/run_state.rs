//! Running a scheduled graph on the workers: the run's shared state, the jobs that carry its
//! tasks, continuations and completion.
//!
//! The worker that finishes a task decrements its successors' counters; of those that reach
//! zero it runs one itself (continuation) and pushes the rest onto its own deque.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use crate::context::TaskContext;
use crate::graph::{Graph, Links, NO_TASK, Overflow, TaskSlot, for_each_successor};
use crate::grow::{GrowAt, Growth};
use crate::job::JobRef;
use crate::latch::Latch;
use crate::pool::ThreadPool;
use crate::registry::WorkerThread;

/// The shared state of one graph run, on the owner's stack for the whole run.
pub(crate) struct RunState {
    pool: *const ThreadPool,
    /// The graph's arrays (see `graph.rs`), borrowed for the whole run.
    slots: *const TaskSlot,
    links: *const [Links],
    overflow: *const [Overflow],
    /// Tasks without predecessors; empty when the graph has no edges (then root `i` is task
    /// `i`).
    roots: *const [u32],
    root_count: u32,
    /// Successor lists and grown tasks, when the graph has growing tasks (`grow.rs`).
    growth: Option<Growth>,
    /// Tasks not yet finished or skipped (grown ones are added before their adder finishes);
    /// the job that takes it to zero sets the latch.
    remaining: CachePadded<AtomicUsize>,
    poisoned: AtomicBool,
    first_panic: Mutex<Option<Box<dyn Any + Send + 'static>>>,
    pub(crate) latch: Latch,
}

// SAFETY: the raw pointers are shared read-only (pool, the graph's arrays, whose only mutable
// parts are the atomic counters); each slot's closure is consumed by exactly one worker, the
// one that saw its predecessor counter reach zero (or that owns it as a root); everything else
// is atomics or a mutex.
unsafe impl Sync for RunState {}
// SAFETY: as above; the state is only moved before any job of the run exists.
unsafe impl Send for RunState {}

/// `b` value of a job that runs a single task (index `a`) rather than the roots `a..b`.
const SINGLE_TASK: u32 = u32::MAX;

/// The [`ExecFn`](crate::job::ExecFn) of graph jobs.
///
/// # Safety
/// `data` is a `RunState` whose run is in progress, and the job owns task `a` (when
/// `b == SINGLE_TASK`) or the root range `a..b`.
unsafe fn execute_graph_job(data: *const (), a: u32, b: u32, worker: &WorkerThread) {
    let this = data.cast::<RunState>();
    if b == SINGLE_TASK {
        // SAFETY: the run is in progress (caller's contract) and this job owns task `a`: it
        // was pushed once, when the task became ready.
        unsafe { RunState::execute_ready(this, a, worker) };
    } else {
        // SAFETY: the run is in progress and this job owns the root range `a..b`.
        unsafe { RunState::execute_roots(this, a, b, worker) };
    }
}

impl RunState {
    /// The state of a run of `graph` (prepared, see [`Graph::prepare`]), finished when `latch`
    /// is set. The graph must outlive the run and stay unchanged while it lasts.
    pub(crate) fn new(pool: &ThreadPool, graph: &Graph<'_>, latch: Latch) -> Self {
        let tasks = graph.len();
        Self {
            pool,
            slots: graph.slots().as_ptr(),
            links: graph.links(),
            overflow: graph.overflow(),
            roots: graph.roots(),
            root_count: graph.root_count(),
            growth: graph.is_growing().then(|| Growth::new(tasks)),
            remaining: CachePadded::new(AtomicUsize::new(tasks)),
            poisoned: AtomicBool::new(false),
            first_panic: Mutex::new(None),
            latch,
        }
    }

    /// A job that runs ready task `index` of the run at `this`.
    pub(crate) fn task_job(this: *const RunState, index: u32) -> JobRef {
        // SAFETY: pushed once, by the worker that saw the task's counter reach zero; the run
        // stays alive until every task, this one included, has finished.
        unsafe { JobRef::new(this.cast(), execute_graph_job, index, SINGLE_TASK) }
    }

    /// A job that runs the root tasks `roots[start..end]` of the run at `this`, splitting
    /// itself in halves so thieves can take large pieces.
    pub(crate) fn roots_job(this: *const RunState, start: u32, end: u32) -> JobRef {
        debug_assert!(start < end && end != SINGLE_TASK);
        // SAFETY: each root range is pushed once, by the job that owned the enclosing range;
        // the run stays alive until all its roots have run.
        unsafe { JobRef::new(this.cast(), execute_graph_job, start, end) }
    }

    pub(crate) fn root_count(&self) -> u32 {
        self.root_count
    }

    fn links(&self) -> &[Links] {
        // SAFETY: the graph outlives the run and is not changed while it lasts (`new`).
        unsafe { &*self.links }
    }

    fn overflow(&self) -> &[Overflow] {
        // SAFETY: as for `links`.
        unsafe { &*self.overflow }
    }

    fn roots(&self) -> &[u32] {
        // SAFETY: as for `links`.
        unsafe { &*self.roots }
    }

    /// The growth state, when the graph has growing tasks.
    pub(crate) fn growth(&self) -> Option<&Growth> {
        self.growth.as_ref()
    }

    /// Counts `tasks` more unfinished tasks. Called only by a running task of this run (which
    /// is itself still counted), so the count cannot have reached zero.
    pub(crate) fn add_unfinished(&self, tasks: usize) {
        self.remaining.fetch_add(tasks, Ordering::Relaxed);
    }

    pub(crate) fn take_panic(&self) -> Option<Box<dyn Any + Send + 'static>> {
        self.first_panic.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Runs the root tasks `roots[start..end]` and their continuations, then reports the
    /// finished tasks.
    ///
    /// # Safety
    /// The caller owns the root range (it came from the one job that holds it), and the run at
    /// `this` is in progress. Takes a pointer, not `&self`: the run may be freed by its owner
    /// while this function is still returning (see [`RunState::finish`]).
    pub(crate) unsafe fn execute_roots(this: *const RunState, start: u32, end: u32, worker: &WorkerThread) {
        // SAFETY: the run is in progress (caller's contract); the reference is used only for
        // this call, while this job's unfinished tasks keep the run alive.
        let run = unsafe { &*this };
        // SAFETY: forwarded from the caller.
        let done = unsafe { run.run_roots(this, start, end, worker) };
        // SAFETY: the caller does not touch the run after this job.
        unsafe { RunState::finish(this, done, worker) };
    }

    /// Runs the root range like a `join`: pushes the upper half for thieves, runs the lower
    /// half, then takes the upper half back and runs it too unless it was stolen. Returns how
    /// many tasks it ran, so the shared `remaining` counter is touched once per stolen piece
    /// rather than once per task.
    ///
    /// # Safety
    /// As for [`RunState::execute_roots`].
    unsafe fn run_roots(&self, this: *const RunState, start: u32, end: u32, worker: &WorkerThread) -> usize {
        if end - start == 1 {
            let roots = self.roots();
            let root = if roots.is_empty() {
                start
            } else {
                roots[start as usize]
            };
            // SAFETY: root `root` belongs to this range, which the caller owns.
            return unsafe { self.run_chain(root, worker) };
        }
        let mid = start + (end - start) / 2;
        let upper = RunState::roots_job(this, mid, end);
        worker.push(upper);
        // SAFETY: the lower half stays ours.
        let mut done = unsafe { self.run_roots(this, start, mid, worker) };
        while let Some(job) = worker.pop_local() {
            if job.same_as(&upper) {
                // Not stolen: nobody else can reach it any more.
                // SAFETY: we popped the only reference to the upper half.
                done += unsafe { self.run_roots(this, mid, end, worker) };
                break;
            }
            // A job pushed after ours (a ready successor, a nested split): run it first.
            // SAFETY: a job from our deque runs once, here.
            unsafe { job.execute(worker) };
        }
        // Otherwise a thief holds the upper half and reports its tasks itself.
        done
    }

    /// Runs ready task `index` and its continuations, then reports the finished tasks.
    ///
    /// # Safety
    /// The caller owns task `index` (its predecessors are done and nobody else runs it) and
    /// does not touch the run after this call.
    /// Takes a pointer, not `&self`, for the reason [`RunState::execute_roots`] gives.
    pub(crate) unsafe fn execute_ready(this: *const RunState, index: u32, worker: &WorkerThread) {
        // SAFETY: the run is in progress (caller's contract); the reference is used only for
        // this call, while task `index` (not yet counted as finished) keeps the run alive.
        let run = unsafe { &*this };
        // SAFETY: forwarded from the caller.
        let done = unsafe { run.run_chain(index, worker) };
        // SAFETY: forwarded from the caller.
        unsafe { RunState::finish(this, done, worker) };
    }

    /// Runs `index`, then repeatedly one ready successor of the task just run; returns how
    /// many tasks it ran or skipped.
    ///
    /// # Safety
    /// The caller owns task `index`.
    unsafe fn run_chain(&self, mut index: u32, worker: &WorkerThread) -> usize {
        let this: *const RunState = self;
        let mut done = 0;
        loop {
            // SAFETY: we own `index` (caller's contract, then the counter protocol below).
            unsafe { self.run_task(index, worker) };
            done += 1;
            let mut next = None;
            let mut ready = |s: u32| {
                if let Some(other) = next.replace(s) {
                    worker.push(RunState::task_job(this, other));
                }
            };
            let links = self.links();
            // Grown tasks (beyond the graph as built) have no static successors.
            if let Some(own) = links.get(index as usize).filter(|l| l.first != NO_TASK) {
                for_each_successor(own, self.overflow(), |s| {
                    let pending = &links[s as usize].pending;
                    // A counter at 1 means we are the successor's last unfinished predecessor:
                    // nobody else touches it, and no decrement is needed. Acquire (on the load)
                    // or AcqRel (on the decrement) acquires the writes of the predecessors
                    // that finished before us; the decrement releases ours to the last one.
                    if pending.load(Ordering::Acquire) == 1 || pending.fetch_sub(1, Ordering::AcqRel) == 1 {
                        ready(s);
                    }
                });
            }
            if let Some(growth) = &self.growth {
                growth.finish_task(index, &mut ready);
            }
            match next {
                Some(s) => index = s,
                None => return done,
            }
        }
    }

    /// Calls (or, once the graph is poisoned, drops) task `index`'s closure.
    ///
    /// # Safety
    /// The caller owns task `index`, whose closure has not been consumed yet.
    unsafe fn run_task(&self, index: u32, worker: &WorkerThread) {
        let grown;
        let slot = match &self.growth {
            Some(growth) if growth.is_grown(index) => {
                // SAFETY: we own task `index` (caller).
                grown = unsafe { growth.take_task(index) };
                &grown
            }
            _ => {
                // SAFETY: `index < n` (it came from `roots` or `succ`), so the offset stays
                // inside the slot array, which outlives the run.
                let slot = unsafe { self.slots.add(index as usize) };
                // SAFETY: as above; the slot is initialised and not mutated while the run lasts.
                unsafe { &*slot }
            }
        };
        let result = if self.poisoned.load(Ordering::Relaxed) {
            // SAFETY: we own the unconsumed closure; it is consumed here.
            catch_unwind(AssertUnwindSafe(|| unsafe { (slot.drop)(slot.data) }))
        } else {
            // SAFETY: the pool outlives the run (`run` borrows it).
            let pool = unsafe { &*self.pool };
            let ctx = TaskContext::new(pool, worker);
            let at = GrowAt {
                run: self,
                task: index,
            };
            // SAFETY: we own the unconsumed closure; it is consumed here.
            catch_unwind(AssertUnwindSafe(|| unsafe { (slot.call)(slot.data, &ctx, at) }))
        };
        if let Err(payload) = result {
            self.poison(payload);
        }
    }

    fn poison(&self, payload: Box<dyn Any + Send + 'static>) {
        let mut first = self.first_panic.lock().unwrap_or_else(|e| e.into_inner());
        if !self.poisoned.swap(true, Ordering::Relaxed) {
            *first = Some(payload);
        }
    }

    /// Counts `done` tasks as finished; the job that finishes the last one sets the latch.
    ///
    /// Takes a pointer, not `&self`: a `&self` argument would be a reference the compiler may
    /// assume valid until this function returns, yet the owner may free the run as soon as
    /// another thread's decrement or this latch store lets it (Miri reports exactly that).
    ///
    /// # Safety
    /// `this` is a live run, and this is the caller's last access to it: once `remaining`
    /// reaches zero the owner may free it.
    unsafe fn finish(this: *const RunState, done: usize, worker: &WorkerThread) {
        // SAFETY: the run is alive until our decrement lands (our `done` tasks are still
        // counted); the reference is not used after it.
        let remaining = unsafe { &(*this).remaining };
        // AcqRel: the decrements form one release sequence, so the last decrementer (and,
        // through the latch, the owner) sees every task's writes.
        if remaining.fetch_sub(done, Ordering::AcqRel) == done {
            // SAFETY: we finished the last task, so the run lives until its latch is set.
            let latch = unsafe { &raw const (*this).latch };
            // SAFETY: the latch is live until set; no reference into the run is held across
            // the store.
            unsafe { Latch::set(latch, &worker.registry) };
        }
    }
}
