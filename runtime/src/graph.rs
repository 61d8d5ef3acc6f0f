//! Task graphs: building them and checking them (running them is `run_state.rs`).
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
//!
//! # Graphs that grow
//!
//! A task added with [`Graph::add_growing`] gets a [`Grower`] and may add tasks to the running
//! graph (`grow.rs`), each after any tasks already in it. The rule that keeps counting right:
//!
//! - a grown task may only wait for tasks that already exist, so the graph stays acyclic and
//!   needs no check;
//! - in a growing graph every task also has a successor list that its runner closes when the
//!   task finishes; an edge onto a closed list is already satisfied and is not counted, so a
//!   successor of a finished task still runs;
//! - a grown task is counted as unfinished before the task that adds it finishes, so the run
//!   (whose count that task still holds) cannot complete before every grown task has.
//!
//! Grown tasks become ready, run, panic and are skipped exactly like the graph's own tasks.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::NonNull;

use crate::arena::Arena;
use crate::context::TaskContext;
use crate::grow::{GrowAt, Grower, call_growing};

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
pub(crate) struct TaskSlot {
    pub(crate) data: NonNull<u8>,
    /// Moves the closure out of `data` and calls it (a growing task also gets its `Grower`).
    pub(crate) call: unsafe fn(NonNull<u8>, &TaskContext<'_>, GrowAt<'_>),
    /// Drops the closure in place without calling it.
    pub(crate) drop: unsafe fn(NonNull<u8>),
}

/// # Safety
/// `data` must point to a live `F` that is consumed by this call (not used afterwards).
unsafe fn call_task<F: FnOnce(&TaskContext<'_>)>(data: NonNull<u8>, ctx: &TaskContext<'_>, _: GrowAt<'_>) {
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
///
/// The borrow checker keeps tasks honest. A task cannot borrow data that dies before the run
/// ends, such as a local of the closure that builds the graph:
///
/// ```compile_fail
/// let pool = ntt_runtime::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// pool.run(|g| {
///     let local = vec![1u64, 2, 3];
///     g.add(|_| assert_eq!(local.len(), 3)); // `local` does not live long enough
/// });
/// ```
///
/// Nor can two tasks that may run at the same time both write the same data:
///
/// ```compile_fail
/// let pool = ntt_runtime::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let mut total = 0u64;
/// pool.run(|g| {
///     g.add(|_| total += 1);
///     g.add(|_| total += 2); // second mutable borrow of `total`
/// });
/// ```
///
/// And data borrowed by a task stays borrowed until the run returns:
///
/// ```compile_fail
/// let pool = ntt_runtime::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let mut data = vec![0u64; 4];
/// pool.run(|g| {
///     g.add(|_| data[0] = 1);
///     data.clear(); // `data` is mutably borrowed by the task
/// });
/// ```
pub struct Graph<'s> {
    arena: Arena,
    slots: Vec<TaskSlot>,
    edges: Vec<(u32, u32)>,
    /// Whether a task was added with [`Graph::add_growing`]: the run then keeps successor
    /// lists that grown tasks can join (`grow.rs`).
    growing: bool,
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
            growing: false,
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
        self.check_room();
        let data = self.arena.alloc(task).cast::<u8>();
        self.slots.push(TaskSlot {
            data,
            call: call_task::<F>,
            drop: drop_task::<F>,
        });
        TaskId(self.slots.len() - 1)
    }

    /// Adds a task that may grow the graph while it runs: besides its context it gets a
    /// [`Grower`], through which it adds tasks to this graph (that may depend on tasks already
    /// in it, finished or not, and may grow it in turn). The run returns once every task,
    /// grown ones included, has finished. See [`Grower`] for an example.
    ///
    /// A graph with growing tasks costs one more atomic successor list per task; graphs
    /// without them run exactly as before.
    ///
    /// # Panics
    /// If the graph already holds `u32::MAX - 1` tasks.
    pub fn add_growing(
        &mut self,
        task: impl FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's,
    ) -> TaskId {
        self.add_growing_typed(task)
    }

    fn add_growing_typed<F>(&mut self, task: F) -> TaskId
    where
        F: FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's,
    {
        self.check_room();
        self.growing = true;
        let data = self.arena.alloc(task).cast::<u8>();
        self.slots.push(TaskSlot {
            data,
            call: call_growing::<F>,
            drop: drop_task::<F>,
        });
        TaskId(self.slots.len() - 1)
    }

    fn check_room(&self) {
        assert!(
            self.slots.len() < (u32::MAX - 1) as usize,
            "a graph holds at most u32::MAX - 2 tasks"
        );
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

    /// The graph's schedule (CSR successors, predecessor counts, roots), or its cycle.
    pub(crate) fn schedule(&self) -> Result<Schedule, CycleError> {
        let n = self.slots.len();
        if self.edges.is_empty() {
            // No dependencies: every task is a root (`roots` left empty means the identity),
            // and no counter or successor array is needed.
            return Ok(Schedule {
                tasks: n,
                pending: Vec::new(),
                succ_start: Vec::new(),
                succ: Vec::new(),
                roots: Vec::new(),
                root_count: n as u32,
                growing: self.growing,
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
        check_acyclic(&succ_start, &succ, &indegree, &roots)?;
        Ok(Schedule {
            tasks: n,
            pending: indegree,
            succ_start,
            succ,
            root_count: roots.len() as u32,
            roots,
            growing: self.growing,
        })
    }

    /// The type-erased task slots, in the order the tasks were added.
    pub(crate) fn slots(&self) -> &[TaskSlot] {
        &self.slots
    }

    /// Records that a finished run consumed every closure.
    pub(crate) fn mark_consumed(&mut self) {
        self.consumed = true;
    }
}

/// Kahn's algorithm on a copy of the counters: every task must become ready.
fn check_acyclic(
    succ_start: &[u32],
    succ: &[u32],
    indegree: &[u32],
    roots: &[u32],
) -> Result<(), CycleError> {
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
        return Ok(());
    }
    let stuck = left
        .iter()
        .position(|&c| c > 0)
        .expect("some task never became ready");
    Err(CycleError {
        stuck: indegree.len() - seen,
        tasks: indegree.len(),
        example: TaskId(stuck),
    })
}

/// A graph whose dependencies form a cycle: some tasks can never start. Reported before any
/// task runs; every closure is dropped without being called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "task graph has a dependency cycle: {stuck} of {tasks} tasks can never start (e.g. task {})",
    example.0
)]
pub struct CycleError {
    /// How many tasks are on a cycle or wait for one.
    pub stuck: usize,
    /// How many tasks the graph has.
    pub tasks: usize,
    /// One task that can never start.
    pub example: TaskId,
}

/// A graph turned into arrays the workers run from (see the module documentation).
pub(crate) struct Schedule {
    pub(crate) tasks: usize,
    pub(crate) pending: Vec<u32>,
    pub(crate) succ_start: Vec<u32>,
    pub(crate) succ: Vec<u32>,
    /// Tasks without predecessors; empty when the graph has no edges (then root `i` is task
    /// `i`).
    pub(crate) roots: Vec<u32>,
    pub(crate) root_count: u32,
    /// Whether the graph has growing tasks (the run then keeps successor lists).
    pub(crate) growing: bool,
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
