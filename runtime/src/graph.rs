//! Task graphs: building them and checking them (running them is `run_state.rs`).
//!
//! A graph is built into flat arrays, ready to run as it is built: one slot per task (its
//! closure lives in the graph's [`Arena`]) and one [`Links`] per task, which holds the task's
//! predecessor counter and its successors. Adding an edge counts it at its target and appends
//! the target to the source's successors (the first one inline, further ones in a list of
//! overflow edges), so running the graph needs no pass over the edges: only a scan for the
//! roots, and a cycle check when some edge points from a task to one added before it.
//!
//! ```text
//!   slots:    [ t0 | t1 | t2 | t3 ]               closures in the arena
//!   pending:  [  0 |  1 |  1 |  2 ]               unfinished predecessors (atomic)
//!   first:    [  1 |  3 |  3 |  - ]               first successor
//!   more:     [  a |  - |  - |  - ]               further successors: overflow[a] = (2, end)
//!   roots:    [ 0 ]                               tasks with no predecessors
//! ```
//!
//! The worker that finishes a task decrements its successors' counters; of those that reach
//! zero it runs one itself (continuation) and pushes the rest onto its own deque. A successor
//! whose counter reads 1 has no other predecessor left and needs no decrement.
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
use std::sync::atomic::AtomicU32;

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

/// Ends a successor list (and marks a task without successors).
pub(crate) const NO_TASK: u32 = u32::MAX;

/// A task's predecessor counter and successors, filled in as edges are added.
#[derive(Debug)]
pub(crate) struct Links {
    /// Predecessors not yet finished: the edges into the task as built, counted down while the
    /// graph runs.
    pub(crate) pending: AtomicU32,
    /// The first successor, or [`NO_TASK`].
    pub(crate) first: u32,
    /// Further successors, in the order added: the first and last of a list in the overflow
    /// edges, or [`NO_TASK`].
    pub(crate) more: u32,
    more_tail: u32,
}

/// A successor beyond a task's first: the successor and the next edge of the list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Overflow {
    pub(crate) to: u32,
    pub(crate) next: u32,
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
    links: Vec<Links>,
    overflow: Vec<Overflow>,
    /// Tasks without predecessors, found by [`Graph::prepare`].
    roots: Vec<u32>,
    edges: usize,
    /// Whether some edge points from a task to one added before it (or to itself): only then
    /// can the graph have a cycle.
    backward: bool,
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
            .field("edges", &self.edges)
            .finish()
    }
}

/// Storage of a finished graph, kept per thread so the next graph reuses its arena chunks
/// and arrays instead of allocating (and page-faulting) them again.
#[derive(Default)]
struct Storage {
    arena: Arena,
    slots: Vec<TaskSlot>,
    links: Vec<Links>,
    overflow: Vec<Overflow>,
    roots: Vec<u32>,
}

/// How many storages a thread keeps (one per nesting level in use, typically one or two).
const SPARE_STORAGES: usize = 4;
/// Largest array (in bytes) a spare storage keeps: enough for ~2 M tasks, so graphs that big
/// do not page-fault fresh arrays at every run.
const RETAINED_BYTES: usize = 64 << 20;

/// `v` emptied, or given back when it holds more than [`RETAINED_BYTES`].
fn retained<T>(mut v: Vec<T>) -> Vec<T> {
    v.clear();
    if v.capacity() * size_of::<T>() > RETAINED_BYTES {
        Vec::new()
    } else {
        v
    }
}

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
            links: storage.links,
            overflow: storage.overflow,
            roots: storage.roots,
            edges: 0,
            backward: false,
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
        self.push_links();
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
        self.push_links();
        TaskId(self.slots.len() - 1)
    }

    fn push_links(&mut self) {
        self.links.push(Links {
            pending: AtomicU32::new(0),
            first: NO_TASK,
            more: NO_TASK,
            more_tail: NO_TASK,
        });
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
        let (b, a) = (before.0 as u32, after.0 as u32);
        let pending = self.links[a as usize].pending.get_mut();
        *pending = pending
            .checked_add(1)
            .expect("a task has at most u32::MAX predecessors");
        self.backward |= b >= a;
        self.edges += 1;
        let links = &mut self.links[b as usize];
        if links.first == NO_TASK {
            links.first = a;
            return;
        }
        let edge = u32::try_from(self.overflow.len())
            .ok()
            .filter(|&e| e != NO_TASK)
            .expect("a graph holds fewer than u32::MAX dependencies beyond each task's first");
        self.overflow.push(Overflow { to: a, next: NO_TASK });
        if links.more == NO_TASK {
            links.more = edge;
        } else {
            self.overflow[links.more_tail as usize].next = edge;
        }
        links.more_tail = edge;
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
        self.edges
    }

    /// Makes the graph ready to run: finds its roots and, when an edge points backwards,
    /// checks that it has no cycle.
    pub(crate) fn prepare(&mut self) -> Result<(), CycleError> {
        self.roots.clear();
        if self.edges == 0 {
            // No dependencies: every task is a root (`roots` left empty means the identity).
            return Ok(());
        }
        for (i, links) in self.links.iter_mut().enumerate() {
            if *links.pending.get_mut() == 0 {
                self.roots.push(i as u32);
            }
        }
        if self.backward {
            check_acyclic(&mut self.links, &self.overflow, &self.roots)?;
        }
        Ok(())
    }

    /// Number of root tasks (after [`Graph::prepare`]).
    pub(crate) fn root_count(&self) -> u32 {
        if self.edges == 0 {
            self.slots.len() as u32
        } else {
            self.roots.len() as u32
        }
    }

    /// Tasks without predecessors; empty when the graph has no edges (then root `i` is task
    /// `i`).
    pub(crate) fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// Every task's counter and successors.
    pub(crate) fn links(&self) -> &[Links] {
        &self.links
    }

    /// The successors beyond each task's first.
    pub(crate) fn overflow(&self) -> &[Overflow] {
        &self.overflow
    }

    /// Whether the graph has growing tasks (the run then keeps successor lists).
    pub(crate) fn is_growing(&self) -> bool {
        self.growing
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

/// Calls `each` on every successor of the task with `links`.
pub(crate) fn for_each_successor(links: &Links, overflow: &[Overflow], mut each: impl FnMut(u32)) {
    if links.first == NO_TASK {
        return;
    }
    each(links.first);
    let mut edge = links.more;
    while edge != NO_TASK {
        let Overflow { to, next } = overflow[edge as usize];
        each(to);
        edge = next;
    }
}

/// Kahn's algorithm on a copy of the counters: every task must become ready.
fn check_acyclic(links: &mut [Links], overflow: &[Overflow], roots: &[u32]) -> Result<(), CycleError> {
    let mut left: Vec<u32> = links.iter_mut().map(|l| *l.pending.get_mut()).collect();
    let mut stack = roots.to_vec();
    let mut seen = 0usize;
    while let Some(t) = stack.pop() {
        seen += 1;
        for_each_successor(&links[t as usize], overflow, |s| {
            left[s as usize] -= 1;
            if left[s as usize] == 0 {
                stack.push(s);
            }
        });
    }
    if seen == links.len() {
        return Ok(());
    }
    let stuck = left
        .iter()
        .position(|&c| c > 0)
        .expect("some task never became ready");
    Err(CycleError {
        stuck: links.len() - seen,
        tasks: links.len(),
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
        let mut arena = std::mem::take(&mut self.arena);
        arena.reset();
        let storage = Storage {
            arena,
            slots: retained(std::mem::take(&mut self.slots)),
            links: retained(std::mem::take(&mut self.links)),
            overflow: retained(std::mem::take(&mut self.overflow)),
            roots: retained(std::mem::take(&mut self.roots)),
        };
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_STORAGES {
                spare.push(storage);
            }
        });
    }
}
