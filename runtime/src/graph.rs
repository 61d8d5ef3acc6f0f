//! Task graphs: building them and checking them (running them is `run_state.rs`).
//!
//! A graph is built into flat arrays, ready to run as it is built: one 32-byte entry per task
//! for its closure (inline when it is small, else in the graph's [`Arena`]; `task.rs`), one
//! 8-byte [`Links`] per task with its predecessor counter and successors, and one bit per task
//! that says whether it is still a root. Adding an edge counts it at its target, clears the
//! target's root bit, and records the target at the source: as its only successor, or at the
//! head of a list of overflow edges once there are several. So running the graph needs no pass
//! over the edges, nor one over the tasks: the roots are the set bits, and a cycle check runs
//! only when some edge points from a task to one added before it.
//!
//! ```text
//!   tasks:     [ f0 | f1 | f2 | f3 ]                closures (or pointers to them)
//!   pending:   [  0 |  1 |  1 |  2 ]                unfinished predecessors (atomic)
//!   first:     [ M|a|  3 |  3 |  - ]                only successor, or MANY | list head
//!   overflow:  a = (2, b), b = (1, end)             task 0's successors: 2, 1
//!   root bits: 1000                                 tasks without predecessors
//! ```
//!
//! A run takes its roots from the span of indices that holds them, a guided share at a time
//! and split when a worker steals (`roots.rs`). The worker that finishes a task decrements its
//! successors' counters; of those that reach zero it runs one itself (continuation) and pushes
//! the rest onto its own deque. A successor whose counter reads 1 has no other predecessor left
//! and needs no decrement.
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
pub(crate) use crate::task::NO_TASK;
use crate::task::{Links, MANY, MAX_TASKS, Task, TaskVTable};

/// Identifies a task inside one [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(pub(crate) usize);

impl TaskId {
    /// The task's position in the order it was added (0-based).
    pub fn index(self) -> usize {
        self.0
    }
}

/// A successor beyond a task's first: the successor and the next edge of the list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Overflow {
    pub(crate) to: u32,
    pub(crate) next: u32,
}

/// A type-erased closure and how to consume it (a grown task's, see `grow.rs`).
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

/// A graph of tasks that may borrow data living for `'s`, built inside
/// [`ThreadPool::run`](crate::ThreadPool::run).
///
/// Adding a task appends 40 bytes (a 32-byte entry and 8 bytes of links): its closure lives in
/// the entry when it is at most 24 bytes, else in the graph's bump arena (no per-task heap
/// allocation either way); adding a dependency updates two entries, and appends an edge from a
/// task's second successor on.
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
    tasks: Vec<Task>,
    links: Vec<Links>,
    overflow: Vec<Overflow>,
    /// Bit `i` is set while task `i` has no predecessor (bits past the last task are set too,
    /// until [`Graph::prepare`] clears them), so the roots are known without a pass over the
    /// tasks.
    root_bits: Vec<u64>,
    /// The span of task indices that holds every root, found by [`Graph::prepare`].
    root_span: (u32, u32),
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
            .field("tasks", &self.tasks.len())
            .field("edges", &self.edges)
            .finish()
    }
}

/// Storage of a finished graph, kept per thread so the next graph reuses its arena chunks
/// and arrays instead of allocating (and page-faulting) them again.
#[derive(Default)]
struct Storage {
    arena: Arena,
    tasks: Vec<Task>,
    links: Vec<Links>,
    overflow: Vec<Overflow>,
    root_bits: Vec<u64>,
}

/// How many storages a thread keeps (one per nesting level in use, typically one or two).
const SPARE_STORAGES: usize = 4;
/// Largest array (in bytes) a spare storage keeps: enough for ~2 M tasks, so graphs that big
/// do not page-fault fresh arrays at every run.
const RETAINED_BYTES: usize = 96 << 20;

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
            tasks: storage.tasks,
            links: storage.links,
            overflow: storage.overflow,
            root_bits: storage.root_bits,
            root_span: (0, 0),
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
    /// If the graph already holds `2^31 - 1` tasks.
    pub fn add(&mut self, task: impl FnOnce(&TaskContext<'_>) + Send + 's) -> TaskId {
        self.add_typed(task)
    }

    #[inline(always)]
    fn add_typed<F: FnOnce(&TaskContext<'_>) + Send + 's>(&mut self, task: F) -> TaskId {
        let vtable = const { &TaskVTable::of::<F>(call_task::<F>) };
        let task = Task::new(task, vtable, &mut self.arena);
        self.push(task)
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
    /// If the graph already holds `2^31 - 1` tasks.
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
        self.growing = true;
        let vtable = const { &TaskVTable::of::<F>(call_growing::<F>) };
        let task = Task::new(task, vtable, &mut self.arena);
        self.push(task)
    }

    /// Appends `task` as a root (no predecessors yet).
    #[inline(always)]
    fn push(&mut self, task: Task) -> TaskId {
        let index = self.tasks.len();
        if index >= MAX_TASKS {
            too_many_tasks();
        }
        if index.is_multiple_of(64) {
            // A new word of root bits: every task starts as a root.
            self.root_bits.push(!0);
        }
        self.tasks.push(task);
        self.links.push(Links::new());
        TaskId(index)
    }

    /// Adds a task that runs once every task in `before` has finished: [`Graph::add`] and a
    /// [`Graph::depend`] from each of `before`, in one step and with one check per edge.
    /// Every task in `before` was added earlier, so a graph built only with `add` and
    /// `add_after` cannot have a cycle and is never checked for one. Listing a task twice adds
    /// two edges, as two `depend` calls would.
    ///
    /// # Panics
    /// If a task in `before` was not added to this graph before this one, or as
    /// [`Graph::add`].
    #[inline(always)]
    pub fn add_after(
        &mut self,
        before: impl IntoIterator<Item = TaskId>,
        task: impl FnOnce(&TaskContext<'_>) + Send + 's,
    ) -> TaskId {
        let id = self.add_typed(task);
        let a = id.0;
        // Each edge is counted as it is linked, so the graph stays consistent for a caller
        // that catches a panic of this loop (a bad id, or the iterator's own). The task is
        // new, so its count is the number of edges so far: stored, never read back (a load
        // right after the push that wrote the links waits on that store).
        let mut count = 0u32;
        for b in before {
            if b.0 >= a {
                not_added_before(b, id);
            }
            count = count
                .checked_add(1)
                .expect("a task has at most u32::MAX predecessors");
            // SAFETY: `a` was just pushed, with its links and its word of root bits (the three
            // arrays grow together in `push`), and `b.0 < a`.
            unsafe { self.link_new(b.0, a, count) };
        }
        id
    }

    /// Counts the `count`-th edge into the newest task `a` and records it at `b`.
    ///
    /// # Safety
    /// `b < a < self.len()`: the links and root bits of both exist.
    #[inline(always)]
    unsafe fn link_new(&mut self, b: usize, a: usize, count: u32) {
        debug_assert!(b < a && a < self.links.len() && a / 64 < self.root_bits.len());
        if count == 1 {
            // No longer a root.
            // SAFETY: word `a / 64` exists (caller).
            unsafe { *self.root_bits.get_unchecked_mut(a / 64) &= !(1 << (a % 64)) };
        }
        // SAFETY: `a` is below the number of links (caller).
        unsafe { *self.links.get_unchecked_mut(a).pending.get_mut() = count };
        self.edges += 1;
        // SAFETY: `b` is below the number of links (caller). Indices fit: both are below
        // `MAX_TASKS`.
        unsafe { self.link(b, a as u32) };
    }

    /// `after` runs only once `before` has finished.
    ///
    /// # Panics
    /// If either id does not belong to this graph (is not below [`Graph::len`]). A dependency
    /// cycle is reported when the graph runs.
    #[inline(always)]
    pub fn depend(&mut self, before: TaskId, after: TaskId) {
        let (b, a) = (before.0, after.0);
        if b >= self.tasks.len() || a >= self.tasks.len() {
            out_of_range(before, after, self.tasks.len());
        }
        let pending = self.links[a].pending.get_mut();
        if *pending == 0 {
            // No longer a root.
            self.root_bits[a / 64] &= !(1 << (a % 64));
        }
        *pending = pending
            .checked_add(1)
            .expect("a task has at most u32::MAX predecessors");
        self.backward |= b >= a;
        self.edges += 1;
        // SAFETY: `b` is below the number of tasks, checked above, and so of links. Indices
        // fit: both are below `MAX_TASKS`.
        unsafe { self.link(b, a as u32) };
    }

    /// Records `a` as a successor of `b` (the count at `a` is the caller's).
    ///
    /// # Safety
    /// `b < self.links.len()`.
    #[inline(always)]
    unsafe fn link(&mut self, b: usize, a: u32) {
        debug_assert!(b < self.links.len());
        // SAFETY: `b` is below the number of links (caller).
        let first = unsafe { self.links.get_unchecked(b).first };
        let first = if first == NO_TASK {
            a
        } else {
            self.add_successor(first, a)
        };
        // SAFETY: as above; `add_successor` only appends to the overflow list.
        unsafe { self.links.get_unchecked_mut(b).first = first };
    }

    /// A task whose successors are `first` (see [`Links::first`]) gets one more, `a`: returns
    /// the new `first`, the list `MANY | e` with `a` at its head.
    #[cold]
    fn add_successor(&mut self, first: u32, a: u32) -> u32 {
        let rest = if first & MANY == 0 {
            // A second successor: the first one moves into the list.
            self.push_edge(first, NO_TASK)
        } else {
            first & !MANY
        };
        MANY | self.push_edge(a, rest)
    }

    /// Appends an overflow edge to `to`, followed by edge `next`; returns its index.
    fn push_edge(&mut self, to: u32, next: u32) -> u32 {
        let edge = self.overflow.len();
        assert!(
            edge < MAX_TASKS,
            "a graph holds fewer than 2^31 - 1 dependencies beyond each task's first"
        );
        self.overflow.push(Overflow { to, next });
        edge as u32
    }

    /// Number of tasks added so far.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether no task has been added.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The id of the `index`-th task added (0-based), if there is one: the inverse of
    /// [`TaskId::index`], for graphs whose ids follow from their shape (a tree in heap order,
    /// a grid) and need not be stored.
    pub fn task_id(&self, index: usize) -> Option<TaskId> {
        (index < self.tasks.len()).then_some(TaskId(index))
    }

    /// Number of dependencies added so far.
    pub fn dependency_count(&self) -> usize {
        self.edges
    }

    /// Makes the graph ready to run: finds the span of its roots and, when an edge points
    /// backwards, checks that it has no cycle.
    pub(crate) fn prepare(&mut self) -> Result<(), CycleError> {
        let n = self.tasks.len();
        if !n.is_multiple_of(64) {
            // Bits past the last task are not roots.
            if let Some(last) = self.root_bits.last_mut() {
                *last &= (1u64 << (n % 64)) - 1;
            }
        }
        let first = self.root_bits.iter().position(|&w| w != 0);
        let last = self.root_bits.iter().rposition(|&w| w != 0);
        self.root_span = match (first, last) {
            (Some(f), Some(l)) => {
                let start = f * 64 + self.root_bits[f].trailing_zeros() as usize;
                let end = l * 64 + 64 - self.root_bits[l].leading_zeros() as usize;
                (start as u32, end as u32)
            }
            _ => (0, 0),
        };
        if self.backward {
            check_acyclic(&self.links, &self.overflow, &self.root_bits)?;
        }
        Ok(())
    }

    /// The span of task indices holding every root (after [`Graph::prepare`]).
    pub(crate) fn root_span(&self) -> (u32, u32) {
        self.root_span
    }

    /// Bit `i` of word `i / 64` says whether task `i` is a root (after [`Graph::prepare`]).
    pub(crate) fn root_bits(&self) -> &[u64] {
        &self.root_bits
    }

    /// Every task's closure, in the order added.
    pub(crate) fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// Every task's predecessor counter and successors.
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

    /// Records that a finished run consumed every closure.
    pub(crate) fn mark_consumed(&mut self) {
        self.consumed = true;
    }
}

#[cold]
#[inline(never)]
fn too_many_tasks() -> ! {
    panic!("a graph holds at most 2^31 - 1 tasks as built")
}

#[cold]
#[inline(never)]
fn not_added_before(before: TaskId, task: TaskId) -> ! {
    panic!("add_after: {before:?} is not a task added to this graph before {task:?}")
}

#[cold]
#[inline(never)]
fn out_of_range(before: TaskId, after: TaskId, len: usize) -> ! {
    panic!("TaskId out of range: {before:?} -> {after:?} in a graph of {len} tasks")
}

/// Calls `each` on every successor of the task with `links`.
#[inline]
pub(crate) fn for_each_successor(links: &Links, overflow: &[Overflow], mut each: impl FnMut(u32)) {
    let first = links.first;
    if first == NO_TASK {
        return;
    }
    if first & MANY == 0 {
        each(first);
        return;
    }
    let mut edge = first & !MANY;
    while edge != NO_TASK {
        let Overflow { to, next } = overflow[edge as usize];
        each(to);
        edge = next;
    }
}

/// Calls `each` on every `i` in `start..end` whose bit (bit `i % 64` of word `i / 64`) is set,
/// in order: the roots among those task indices, given a graph's root bits.
#[inline]
pub(crate) fn for_each_set_bit(bits: &[u64], start: usize, end: usize, mut each: impl FnMut(usize)) {
    let mut word_start = start & !63;
    while word_start < end {
        let mut word = bits[word_start / 64];
        if word_start < start {
            word &= !0 << (start - word_start);
        }
        if end - word_start < 64 {
            word &= (1 << (end - word_start)) - 1;
        }
        while word != 0 {
            each(word_start + word.trailing_zeros() as usize);
            word &= word - 1;
        }
        word_start += 64;
    }
}

/// Kahn's algorithm on a copy of the counters: every task must become ready.
fn check_acyclic(links: &[Links], overflow: &[Overflow], root_bits: &[u64]) -> Result<(), CycleError> {
    let mut left: Vec<u32> = links
        .iter()
        .map(|l| l.pending.load(std::sync::atomic::Ordering::Relaxed))
        .collect();
    let mut stack = Vec::new();
    for_each_set_bit(root_bits, 0, links.len(), |i| stack.push(i as u32));
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
            for task in &self.tasks {
                // SAFETY: as above; each closure is consumed once, here.
                let (data, vtable) = unsafe { task.closure() };
                // SAFETY: the closure at `data` is live and dropped once, here.
                let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (vtable.drop)(data) }));
            }
        }
        let mut arena = std::mem::take(&mut self.arena);
        arena.reset();
        let storage = Storage {
            arena,
            tasks: retained(std::mem::take(&mut self.tasks)),
            links: retained(std::mem::take(&mut self.links)),
            overflow: retained(std::mem::take(&mut self.overflow)),
            root_bits: retained(std::mem::take(&mut self.root_bits)),
        };
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_STORAGES {
                spare.push(storage);
            }
        });
    }
}
