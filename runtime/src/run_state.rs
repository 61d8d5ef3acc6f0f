//! Running a scheduled graph on the workers: the run's shared state, the jobs that carry its
//! tasks, continuations and completion.
//!
//! The worker that finishes a task decrements its successors' counters; of those that reach
//! zero it runs one itself (continuation) and pushes the rest onto its own deque.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use crate::context::TaskContext;
use crate::graph::{Graph, NO_TASK, Overflow, for_each_set_bit, for_each_successor};
use crate::grow::{GrowAt, Growth};
use crate::latch::Latch;
use crate::pool::ThreadPool;
use crate::registry::{JobRef, WorkerThread};
use crate::roots::{Roots, Span, run_span};
use crate::task::{Links, Task};

/// The shared state of one graph run, on the owner's stack for the whole run.
pub(crate) struct RunState {
    pool: *const ThreadPool,
    /// The graph's arrays (see `graph.rs`), borrowed for the whole run.
    tasks: *const [Task],
    links: *const [Links],
    overflow: *const [Overflow],
    /// Which tasks are roots (bit `i` of word `i / 64`), and the span of indices holding them.
    root_bits: *const [u64],
    root_span: (u32, u32),
    workers: u32,
    /// Successor lists and grown tasks, when the graph has growing tasks (`grow.rs`).
    growth: Option<Growth>,
    /// Tasks not yet finished or skipped (grown ones are added before their adder finishes);
    /// the job that takes it to zero sets the latch.
    remaining: CachePadded<AtomicUsize>,
    poisoned: AtomicBool,
    first_panic: Mutex<Option<Box<dyn Any + Send + 'static>>>,
    pub(crate) latch: Latch,
    /// The `tracing` span current where the run was started: every task runs inside it, on
    /// whichever worker, so what a task logs nests under its caller's span, not at the top.
    caller_span: tracing::Span,
}

// SAFETY: the raw pointers are shared read-only (pool, the graph's arrays, whose only mutable
// parts are the atomic counters and the closures' cells); each task's closure is consumed by
// exactly one worker, the one that saw its predecessor counter reach zero (or that took it as a
// root from its span); everything else is atomics or a mutex.
unsafe impl Sync for RunState {}
// SAFETY: as above; the state is only moved before any job of the run exists.
unsafe impl Send for RunState {}

/// `b` value of a job that runs a single task (index `a`) rather than the roots.
const SINGLE_TASK: u32 = u32::MAX;

/// The [`ExecFn`](crate::job::ExecFn) of graph jobs.
///
/// # Safety
/// `data` is a `RunState` whose run is in progress, and the job owns task `a` (when
/// `b == SINGLE_TASK`) or every root of the run.
unsafe fn execute_graph_job(data: *const (), a: u32, b: u32, worker: &WorkerThread) {
    let this = data.cast::<RunState>();
    if b == SINGLE_TASK {
        // SAFETY: the run is in progress (caller's contract) and this job owns task `a`: it
        // was pushed once, when the task became ready.
        unsafe { RunState::execute_ready(this, a, worker) };
    } else {
        // SAFETY: the run is in progress and this job owns the roots.
        unsafe { RunState::execute_roots(this, worker) };
    }
}

impl RunState {
    /// The state of a run of `graph` (prepared, see [`Graph::prepare`]), finished when `latch`
    /// is set. The graph must outlive the run and stay unchanged while it lasts.
    pub(crate) fn new(pool: &ThreadPool, graph: &Graph<'_>, latch: Latch) -> Self {
        let tasks = graph.len();
        Self {
            pool,
            tasks: graph.tasks(),
            links: graph.links(),
            overflow: graph.overflow(),
            root_bits: graph.root_bits(),
            root_span: graph.root_span(),
            workers: pool.num_workers().clamp(1, u32::MAX as usize) as u32,
            growth: graph.is_growing().then(|| Growth::new(tasks, pool.num_workers())),
            remaining: CachePadded::new(AtomicUsize::new(tasks)),
            poisoned: AtomicBool::new(false),
            first_panic: Mutex::new(None),
            latch,
            caller_span: tracing::Span::current(),
        }
    }

    /// A job that runs ready task `index` of the run at `this`.
    pub(crate) fn task_job(this: *const RunState, index: u32) -> JobRef {
        // SAFETY: pushed once, by the worker that saw the task's counter reach zero; the run
        // stays alive until every task, this one included, has finished.
        unsafe { JobRef::new(this.cast(), execute_graph_job, index, SINGLE_TASK) }
    }

    /// The job that runs every root of the run at `this` (splitting when stolen from).
    pub(crate) fn roots_job(this: *const RunState) -> JobRef {
        // SAFETY: pushed (or run) once, by the run's owner; the run stays alive until all its
        // roots have run.
        unsafe { JobRef::new(this.cast(), execute_graph_job, 0, 0) }
    }

    fn tasks(&self) -> &[Task] {
        // SAFETY: the graph outlives the run and is not changed while it lasts (`new`), but
        // for its atomics and the closures, which live in cells.
        unsafe { &*self.tasks }
    }

    fn links(&self) -> &[Links] {
        // SAFETY: as for `tasks`.
        unsafe { &*self.links }
    }

    fn overflow(&self) -> &[Overflow] {
        // SAFETY: as for `tasks`.
        unsafe { &*self.overflow }
    }

    fn root_bits(&self) -> &[u64] {
        // SAFETY: as for `tasks`.
        unsafe { &*self.root_bits }
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

    /// The first task panic, once the run is over (its latch seen set).
    pub(crate) fn take_panic(&self) -> Option<Box<dyn Any + Send + 'static>> {
        // Every task's writes, `poison`'s included, happen before the latch the caller saw
        // set, so a run that nothing poisoned reads `false` here and skips the lock.
        if !self.poisoned.load(Ordering::Relaxed) {
            return None;
        }
        self.first_panic.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Runs every root of the run and their continuations (`roots.rs`), then reports the
    /// finished tasks.
    ///
    /// # Safety
    /// The caller owns the roots (it holds the run's one roots job), and the run at `this` is
    /// in progress. Takes a pointer, not `&self`: the run may be freed by its owner while this
    /// function is still returning (see [`RunState::finish`]).
    pub(crate) unsafe fn execute_roots(this: *const RunState, worker: &WorkerThread) {
        // SAFETY: the run is in progress (caller's contract); the roots, not yet reported,
        // keep it alive until `finish`.
        let (start, end) = unsafe { (*this).root_span };
        let span = Span::new(start, end);
        // SAFETY: the caller owns every root.
        let done = unsafe { run_span(this, &span, worker) };
        // SAFETY: the caller does not touch the run after this job.
        unsafe { RunState::finish(this, done, worker) };
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
        // SAFETY: the caller owns task `index`: its predecessors are done and nobody else
        // runs it (`run_chain`'s contract).
        let done = unsafe { run.run_chain(index, worker) };
        // SAFETY: the caller does not touch the run after this call, and neither do we after
        // `finish` (its contract).
        unsafe { RunState::finish(this, done, worker) };
    }

    /// Runs `index`, then repeatedly one ready successor of the task just run; returns how
    /// many tasks it ran or skipped.
    ///
    /// # Safety
    /// The caller owns task `index`.
    unsafe fn run_chain(&self, mut index: u32, worker: &WorkerThread) -> usize {
        let this: *const RunState = self;
        // Tasks this chain finished and has not reported yet: they are still counted in
        // `remaining`, so a grown task added here may take over one's count
        // (`Grower::add_after`) instead of raising the shared counter.
        let unreported = Cell::new(0usize);
        loop {
            // SAFETY: we own `index` (caller's contract, then the counter protocol below).
            unsafe { self.run_task(index, worker, &unreported) };
            unreported.set(unreported.get() + 1);
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
            if let Some(s) = next {
                index = s;
                continue;
            }
            match self.growth.as_ref().and_then(|_| worker.pop_local()) {
                // A task this chain grew and pushed, still on top of our deque: run it here too,
                // so its count joins this chain's report rather than a report of its own.
                Some(job) => match job.first_arg_if(this.cast(), SINGLE_TASK) {
                    Some(s) => index = s,
                    None => {
                        worker.push(job);
                        return unreported.get();
                    }
                },
                None => return unreported.get(),
            }
        }
    }

    /// Calls (or, once the graph is poisoned, drops) task `index`'s closure.
    ///
    /// # Safety
    /// The caller owns task `index`, whose closure has not been consumed yet.
    unsafe fn run_task(&self, index: u32, worker: &WorkerThread, unreported: &Cell<usize>) {
        let (data, call, drop) = match &self.growth {
            Some(growth) if growth.is_grown(index) => {
                // SAFETY: we own task `index` (caller).
                let grown = unsafe { growth.take_task(index) };
                (grown.data, grown.call, grown.drop)
            }
            _ => {
                // `index < n`: it came from the root bits or a successor list.
                let task = &self.tasks()[index as usize];
                // SAFETY: we own the task, whose closure is unconsumed; it is consumed below.
                let (data, vtable) = unsafe { task.closure() };
                (data, vtable.call, vtable.drop)
            }
        };
        let result = if self.poisoned.load(Ordering::Relaxed) {
            // SAFETY: we own the unconsumed closure; it is consumed here.
            catch_unwind(AssertUnwindSafe(|| unsafe { drop(data) }))
        } else {
            // Left before the task is reported finished, while the run is still alive.
            let _caller = self.caller_span.enter();
            // SAFETY: the pool outlives the run (`run` borrows it).
            let pool = unsafe { &*self.pool };
            let ctx = TaskContext::new(pool, worker);
            let at = GrowAt {
                run: self,
                task: index,
                credit: unreported,
            };
            // SAFETY: we own the unconsumed closure; it is consumed here.
            catch_unwind(AssertUnwindSafe(|| unsafe { call(data, &ctx, at) }))
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
            unsafe { Latch::set(latch, &worker.registry.sleep) };
        }
    }
}

impl Roots for RunState {
    fn workers(&self) -> u32 {
        self.workers
    }

    unsafe fn run_roots_in(&self, start: u32, end: u32, worker: &WorkerThread) -> usize {
        let mut done = 0;
        for_each_set_bit(self.root_bits(), start as usize, end as usize, |root| {
            // SAFETY: a root among our indices is ours.
            done += unsafe { self.run_chain(root as u32, worker) };
        });
        done
    }
}
