//! Task graphs: building them, checking them, and executing them on the workers.
//!
//! A graph is built into flat arrays: one slot per task (its closure lives in the graph's
//! [`Arena`]) and a list of `(before, after)` edges. Running it turns the edges into a CSR
//! successor array and one atomic predecessor counter per task, so executing a task touches no
//! allocator and no lock:
//!
//! ```text
//!   slots:       [ t0 | t1 | t2 | t3 ]          closures in the arena
//!   pending:     [  0 |  1 |  1 |  2 ]          unfinished predecessors (atomic)
//!   succ_start:  [ 0, 2, 3, 4, 4 ]              t_i's successors are succ[succ_start[i]..succ_start[i+1]]
//!   succ:        [ 1, 2 | 3 | 3 ]
//!   roots:       [ 0 ]                          tasks with no predecessors
//! ```
//!
//! The worker that finishes a task decrements its successors' counters; of those that reach
//! zero it runs one itself (continuation) and pushes the rest onto its own deque.

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use crate::arena::Arena;
use crate::context::TaskContext;
use crate::job::JobRef;
use crate::latch::Latch;
use crate::pool::ThreadPool;
use crate::registry::WorkerThread;

/// Identifies a task inside one [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(pub(crate) usize);

impl TaskId {
    /// The task's position in the order it was added (0-based).
    pub fn index(self) -> usize {
        self.0
    }
}

/// A type-erased task closure in the arena.
struct TaskSlot {
    data: NonNull<u8>,
    /// Moves the closure out of `data` and calls it.
    call: unsafe fn(NonNull<u8>, &TaskContext<'_>),
    /// Drops the closure in place without calling it.
    drop: unsafe fn(NonNull<u8>),
}

/// # Safety
/// `data` must point to a live `F` that is consumed by this call (not used afterwards).
unsafe fn call_task<F: FnOnce(&TaskContext<'_>)>(data: NonNull<u8>, ctx: &TaskContext<'_>) {
    // SAFETY: the caller guarantees `data` holds a live `F` that nobody else will use.
    let f = unsafe { data.cast::<F>().read() };
    f(ctx);
}

/// # Safety
/// `data` must point to a live `F` that is consumed by this call (not used afterwards).
unsafe fn drop_task<F>(data: NonNull<u8>) {
    // SAFETY: the caller guarantees `data` holds a live `F` that nobody else will use.
    unsafe { data.cast::<F>().drop_in_place() };
}

/// A graph of tasks that may borrow data living for `'s`, built inside
/// [`ThreadPool::run`](crate::ThreadPool::run).
///
/// Adding a task costs one bump allocation in the graph's arena (no per-task heap allocation);
/// adding a dependency appends one edge.
pub struct Graph<'s> {
    arena: Arena,
    slots: Vec<TaskSlot>,
    edges: Vec<(u32, u32)>,
    /// Set once a run has consumed every closure (called or dropped it).
    consumed: bool,
    /// Invariant in `'s`: closures borrowing `'s` data must not be added to a graph that
    /// claims a longer lifetime.
    _borrows: PhantomData<fn(&'s ()) -> &'s ()>,
}

impl core::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Graph")
            .field("tasks", &self.slots.len())
            .field("edges", &self.edges.len())
            .finish()
    }
}

/// Storage of a finished graph, kept per thread so the next graph reuses its arena chunks
/// and arrays instead of allocating (and page-faulting) them again.
#[derive(Default)]
struct Storage {
    arena: Arena,
    slots: Vec<TaskSlot>,
    edges: Vec<(u32, u32)>,
}

/// How many storages a thread keeps (one per nesting level in use, typically one or two).
const SPARE_STORAGES: usize = 4;
/// Largest slot or edge array a spare storage keeps.
const RETAINED_ENTRIES: usize = 1 << 20;

thread_local! {
    static SPARE: RefCell<Vec<Storage>> = const { RefCell::new(Vec::new()) };
}

impl<'s> Graph<'s> {
    pub(crate) fn new() -> Self {
        let storage = SPARE
            .try_with(|spare| spare.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        Self {
            arena: storage.arena,
            slots: storage.slots,
            edges: storage.edges,
            consumed: false,
            _borrows: PhantomData,
        }
    }

    /// Adds a task; it runs once all tasks it depends on have finished.
    ///
    /// # Panics
    /// If the graph already holds `u32::MAX - 1` tasks.
    pub fn add(&mut self, task: impl FnOnce(&TaskContext<'_>) + Send + 's) -> TaskId {
        self.add_typed(task)
    }

    fn add_typed<F: FnOnce(&TaskContext<'_>) + Send + 's>(&mut self, task: F) -> TaskId {
        assert!(
            self.slots.len() < (u32::MAX - 1) as usize,
            "a graph holds at most u32::MAX - 2 tasks"
        );
        let data = self.arena.alloc(task).cast::<u8>();
        self.slots.push(TaskSlot {
            data,
            call: call_task::<F>,
            drop: drop_task::<F>,
        });
        TaskId(self.slots.len() - 1)
    }

    /// `after` runs only once `before` has finished.
    ///
    /// # Panics
    /// If either id does not belong to this graph (is not below [`Graph::len`]). A dependency
    /// cycle is reported when the graph runs.
    pub fn depend(&mut self, before: TaskId, after: TaskId) {
        assert!(
            before.0 < self.slots.len() && after.0 < self.slots.len(),
            "TaskId out of range: {before:?} -> {after:?} in a graph of {} tasks",
            self.slots.len()
        );
        self.edges.push((before.0 as u32, after.0 as u32));
    }

    /// Number of tasks added so far.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no task has been added.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Number of dependencies added so far.
    pub fn dependency_count(&self) -> usize {
        self.edges.len()
    }

    /// Builds the run state (CSR successors, predecessor counts, roots), or reports a cycle.
    pub(crate) fn plan(&self, pool: &ThreadPool, latch: Latch) -> Result<RunState, String> {
        let n = self.slots.len();
        if self.edges.is_empty() {
            // No dependencies: every task is a root (`roots` left empty means the identity),
            // and no counter or successor array is needed.
            return Ok(RunState {
                pool,
                slots: self.slots.as_ptr(),
                pending: Box::default(),
                succ_start: Box::default(),
                succ: Box::default(),
                roots: Box::default(),
                root_count: n as u32,
                remaining: CachePadded::new(AtomicUsize::new(n)),
                poisoned: AtomicBool::new(false),
                first_panic: Mutex::new(None),
                latch,
            });
        }
        let mut succ_start = vec![0u32; n + 1];
        let mut indegree = vec![0u32; n];
        for &(before, after) in &self.edges {
            succ_start[before as usize + 1] += 1;
            indegree[after as usize] += 1;
        }
        for i in 0..n {
            succ_start[i + 1] += succ_start[i];
        }
        let mut fill = succ_start.clone();
        let mut succ = vec![0u32; self.edges.len()];
        for &(before, after) in &self.edges {
            let at = &mut fill[before as usize];
            succ[*at as usize] = after;
            *at += 1;
        }
        let roots: Vec<u32> = (0..n as u32).filter(|&i| indegree[i as usize] == 0).collect();
        if !self.edges.is_empty() {
            check_acyclic(&succ_start, &succ, &indegree, &roots)?;
        }
        Ok(RunState {
            pool,
            slots: self.slots.as_ptr(),
            pending: indegree.into_iter().map(AtomicU32::new).collect(),
            succ_start: succ_start.into_boxed_slice(),
            succ: succ.into_boxed_slice(),
            root_count: roots.len() as u32,
            roots: roots.into_boxed_slice(),
            remaining: CachePadded::new(AtomicUsize::new(n)),
            poisoned: AtomicBool::new(false),
            first_panic: Mutex::new(None),
            latch,
        })
    }

    /// Records that a finished run consumed every closure.
    pub(crate) fn mark_consumed(&mut self) {
        self.consumed = true;
    }
}

/// Kahn's algorithm on a copy of the counters: every task must become ready.
fn check_acyclic(succ_start: &[u32], succ: &[u32], indegree: &[u32], roots: &[u32]) -> Result<(), String> {
    let mut left = indegree.to_vec();
    let mut stack = roots.to_vec();
    let mut seen = 0usize;
    while let Some(t) = stack.pop() {
        seen += 1;
        let t = t as usize;
        for &s in &succ[succ_start[t] as usize..succ_start[t + 1] as usize] {
            left[s as usize] -= 1;
            if left[s as usize] == 0 {
                stack.push(s);
            }
        }
    }
    if seen == indegree.len() {
        Ok(())
    } else {
        let stuck = left
            .iter()
            .position(|&c| c > 0)
            .expect("some task never became ready");
        Err(format!(
            "task graph has a dependency cycle: {} of {} tasks can never start (e.g. task {stuck})",
            indegree.len() - seen,
            indegree.len()
        ))
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        if !self.consumed {
            // Nothing ran (no run, or a cycle): every closure is still live and owned here.
            // Consume them before the arena is reused, even if one of the drops panics.
            let slots = std::mem::take(&mut self.slots);
            for slot in &slots {
                // SAFETY: as above; each slot is dropped once.
                let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (slot.drop)(slot.data) }));
            }
        }
        let mut storage = Storage {
            arena: std::mem::take(&mut self.arena),
            slots: std::mem::take(&mut self.slots),
            edges: std::mem::take(&mut self.edges),
        };
        storage.arena.reset();
        storage.slots.clear();
        storage.edges.clear();
        // Keep at most ~1 M slots and edges (24 + 8 MiB); a huge graph gives its arrays back.
        if storage.slots.capacity() > RETAINED_ENTRIES {
            storage.slots = Vec::new();
        }
        if storage.edges.capacity() > RETAINED_ENTRIES {
            storage.edges = Vec::new();
        }
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_STORAGES {
                spare.push(storage);
            }
        });
    }
}

/// The shared state of one graph run, on the owner's stack for the whole run.
pub(crate) struct RunState {
    pool: *const ThreadPool,
    slots: *const TaskSlot,
    pending: Box<[AtomicU32]>,
    succ_start: Box<[u32]>,
    succ: Box<[u32]>,
    /// Tasks without predecessors; empty when the graph has no edges (then root `i` is task
    /// `i`).
    roots: Box<[u32]>,
    root_count: u32,
    /// Tasks not yet finished or skipped; the job that takes it to zero sets the latch.
    remaining: CachePadded<AtomicUsize>,
    poisoned: AtomicBool,
    first_panic: Mutex<Option<Box<dyn Any + Send + 'static>>>,
    pub(crate) latch: Latch,
}

// SAFETY: the raw pointers are shared read-only (pool, slot array); each slot's closure is
// consumed by exactly one worker, the one that saw its predecessor counter reach zero (or that
// owns it as a root); everything else is atomics or a mutex.
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
    // SAFETY: the run is in progress, so its state is alive (caller's contract).
    let run = unsafe { &*this };
    if b == SINGLE_TASK {
        // SAFETY: this job owns task `a`: it was pushed once, when the task became ready.
        unsafe { run.execute_ready(a, worker) };
    } else {
        // SAFETY: this job owns the root range `a..b`.
        unsafe { run.execute_roots(this, a, b, worker) };
    }
}

impl RunState {
    /// A job that runs ready task `index` of the run at `this`.
    fn task_job(this: *const RunState, index: u32) -> JobRef {
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

    pub(crate) fn take_panic(&self) -> Option<Box<dyn Any + Send + 'static>> {
        self.first_panic.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Runs the root tasks `roots[start..end]`: pushes the upper halves for thieves, runs the
    /// first root and its continuations, then reports the finished tasks.
    ///
    /// # Safety
    /// The caller owns the root range (it came from the one job that holds it), `this` is
    /// `self`, and the run is in progress.
    pub(crate) unsafe fn execute_roots(
        &self,
        this: *const RunState,
        start: u32,
        mut end: u32,
        worker: &WorkerThread,
    ) {
        while end - start > 1 {
            let mid = start + (end - start) / 2;
            worker.push(RunState::roots_job(this, mid, end));
            end = mid;
        }
        let first = if self.roots.is_empty() {
            start
        } else {
            self.roots[start as usize]
        };
        // SAFETY: root `first` belongs to this range, which the caller owns.
        let done = unsafe { self.run_chain(first, worker) };
        // SAFETY: the caller does not touch the run after this job.
        unsafe { self.finish(done, worker) };
    }

    /// Runs ready task `index` and its continuations, then reports the finished tasks.
    ///
    /// # Safety
    /// The caller owns task `index` (its predecessors are done and nobody else runs it) and
    /// does not touch the run after this call.
    pub(crate) unsafe fn execute_ready(&self, index: u32, worker: &WorkerThread) {
        // SAFETY: forwarded from the caller.
        let done = unsafe { self.run_chain(index, worker) };
        // SAFETY: forwarded from the caller.
        unsafe { self.finish(done, worker) };
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
            let i = index as usize;
            let succs = match self.succ_start.get(i..i + 2) {
                Some(&[from, to]) => &self.succ[from as usize..to as usize],
                _ => &[],
            };
            let mut next = None;
            for &s in succs {
                // AcqRel: releases this task's writes to the successor's runner, and acquires
                // the writes of the other predecessors when we are the last one.
                if self.pending[s as usize].fetch_sub(1, Ordering::AcqRel) == 1
                    && let Some(other) = next.replace(s)
                {
                    worker.push(RunState::task_job(this, other));
                }
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
        // SAFETY: `index < n` (it came from `roots` or `succ`), so the offset stays inside the
        // slot array, which outlives the run.
        let slot = unsafe { self.slots.add(index as usize) };
        // SAFETY: as above; the slot is initialised and not mutated while the run lasts.
        let slot = unsafe { &*slot };
        let result = if self.poisoned.load(Ordering::Relaxed) {
            // SAFETY: we own the unconsumed closure; it is consumed here.
            catch_unwind(AssertUnwindSafe(|| unsafe { (slot.drop)(slot.data) }))
        } else {
            // SAFETY: the pool outlives the run (`run` borrows it).
            let pool = unsafe { &*self.pool };
            let ctx = TaskContext::new(pool, worker);
            // SAFETY: we own the unconsumed closure; it is consumed here.
            catch_unwind(AssertUnwindSafe(|| unsafe { (slot.call)(slot.data, &ctx) }))
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
    /// # Safety
    /// Must be the caller's last access to the run: once `remaining` reaches zero the owner may
    /// free it.
    unsafe fn finish(&self, done: usize, worker: &WorkerThread) {
        // AcqRel: the decrements form one release sequence, so the last decrementer (and,
        // through the latch, the owner) sees every task's writes.
        if self.remaining.fetch_sub(done, Ordering::AcqRel) == done {
            // SAFETY: the latch is live until set, and `self` is not used afterwards.
            unsafe { Latch::set(&self.latch, &worker.registry) };
        }
    }
}
