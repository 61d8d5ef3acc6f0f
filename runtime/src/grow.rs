//! Graphs that grow while they run: a running task adds tasks to its own graph.
//!
//! A task added with [`Graph::add_growing`](crate::Graph::add_growing) receives a [`Grower`]
//! besides its [`TaskContext`]; through it the task adds new tasks to the running graph, each
//! optionally after a list of tasks already in the graph (static or grown, finished or not).
//! The graph's run returns only once every grown task has finished too.
//!
//! # The rule that keeps counting right
//!
//! - A grown task can only wait for tasks that already exist, so a grown graph stays acyclic
//!   without a check: new edges always point at the task being added.
//! - Every task of a growing graph has a lock-free successor list (a stack of edges) that its
//!   runner *closes* when the task finishes (swaps in a sentinel and takes the edges).
//!   Adding an edge `p -> new` pushes onto `p`'s list unless it is closed; a closed list means
//!   `p` has finished, so the edge is not counted.
//! - A new task's predecessor counter starts at 1 (a guard held while its edges are added);
//!   each counted edge adds 1, and dropping the guard after the last edge lets it start at once
//!   if every predecessor had already finished.
//! - A new task is counted as unfinished before it can run and before the adding task finishes
//!   (which is still counted itself), so the count cannot reach zero while a task that may still
//!   grow is running; the latch is set when it does. The count is either raised, or taken over
//!   from a task that the adder's chain (`RunState::run_chain`) has finished but not reported
//!   yet: that task is still counted, so the total still covers every unfinished task, and the
//!   chain reports one task fewer. A chain also runs the grown tasks it pushed itself (while they
//!   are on top of its deque), so a tree grown by its own tasks touches the shared count about
//!   once per stolen job rather than twice per task.
//! - Grown indices are taken in blocks of 32 per worker, so adding a task touches the shared
//!   index counter once a block.
//!
//! Orderings: an edge push is a `Release` CAS and the close an `AcqRel` swap, so the closer
//! sees the edges; a CAS that finds the list closed acquires the finished task's writes; the
//! counter decrements are `AcqRel` as for static edges, so the runner of a task sees the writes
//! of every predecessor.

use std::alloc::{Layout, alloc_zeroed, dealloc, handle_alloc_error};
use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use crate::context::TaskContext;
use crate::graph::{TaskId, TaskSlot};
use crate::registry::WorkerThread;
use crate::run_state::RunState;

/// One dependency of a grown task: `to` (a grown task's index) waits for the list's owner.
struct Edge {
    to: u32,
    next: *mut Edge,
}

/// The successor list of a finished task: no edge can be added any more.
fn closed() -> *mut Edge {
    ptr::dangling_mut()
}

/// Pushes `to` onto the successor list at `head`; `false` if the list is closed (its task has
/// finished: the edge is satisfied already).
fn push_edge(head: &AtomicPtr<Edge>, to: u32) -> bool {
    let edge = Box::into_raw(Box::new(Edge {
        to,
        next: ptr::null_mut(),
    }));
    let mut current = head.load(Ordering::Acquire);
    loop {
        if current == closed() {
            // SAFETY: `edge` came from `Box::into_raw` above and was never shared.
            drop(unsafe { Box::from_raw(edge) });
            return false;
        }
        // SAFETY: `edge` is ours until the CAS below publishes it.
        unsafe { (*edge).next = current };
        match head.compare_exchange_weak(current, edge, Ordering::Release, Ordering::Acquire) {
            Ok(_) => return true,
            Err(seen) => current = seen,
        }
    }
}

/// Closes the successor list at `head` and calls `each` on every successor it held.
fn close_list(head: &AtomicPtr<Edge>, mut each: impl FnMut(u32)) {
    let mut edge = head.swap(closed(), Ordering::AcqRel);
    debug_assert!(edge != closed(), "a task finished twice");
    while !edge.is_null() {
        // SAFETY: the swap made us the only owner of the list; every edge in it came from
        // `Box::into_raw` in `push_edge` and is freed once, here.
        let owned = unsafe { Box::from_raw(edge) };
        each(owned.to);
        edge = owned.next;
    }
}

/// Frees the edges of a list that was never closed (a run that ended early).
fn free_list(head: &AtomicPtr<Edge>) {
    if head.load(Ordering::Relaxed) != closed() {
        close_list(head, |_| {});
    }
}

/// A grown task's closure as its node holds it: all `None` until the task is added, and once
/// its closure is taken.
#[derive(Clone, Copy)]
struct RawTask {
    data: Option<NonNull<u8>>,
    call: Option<unsafe fn(NonNull<u8>, &TaskContext<'_>, GrowAt<'_>)>,
    drop: Option<unsafe fn(NonNull<u8>)>,
}

/// A grown task: its closure (boxed, as it is added while other tasks run), its predecessor
/// counter and its successor list.
///
/// Every field is valid all-zero, and all-zero is a fresh node: segments of nodes are
/// allocated zeroed (no pass writes them; the pages are touched as nodes are handed out).
struct Node {
    task: std::cell::UnsafeCell<RawTask>,
    /// Unfinished predecessors, plus 1 while the task is being added, *minus 1*: a fresh
    /// (zeroed) node holds its guard, and the task is ready when a decrement finds 0.
    pending: AtomicU32,
    succ: AtomicPtr<Edge>,
    /// Set once the node is fully written; an id that names an unpublished node is refused.
    published: AtomicBool,
}

impl RawTask {
    const EMPTY: Self = Self {
        data: None,
        call: None,
        drop: None,
    };

    fn slot(self) -> Option<TaskSlot> {
        Some(TaskSlot {
            data: self.data?,
            call: self.call?,
            drop: self.drop?,
        })
    }
}

impl Node {
    /// Takes the node's closure, if it still holds one.
    fn take(&mut self) -> Option<TaskSlot> {
        std::mem::replace(self.task.get_mut(), RawTask::EMPTY).slot()
    }
}

/// log2 of the first segment's length; segment `k` holds `2^(FIRST_LOG + k)` nodes.
const FIRST_LOG: u32 = 6;
/// Enough segments for every task index a `u32` can name.
const SEGMENTS: usize = (u32::BITS + 1 - FIRST_LOG) as usize;

/// Segment and offset of grown node `i`.
fn locate(i: usize) -> (usize, usize) {
    let j = i + (1 << FIRST_LOG);
    let log = usize::BITS - 1 - j.leading_zeros();
    let segment = (log - FIRST_LOG) as usize;
    (segment, j - (1 << log))
}

fn segment_len(segment: usize) -> usize {
    1 << (FIRST_LOG as usize + segment)
}

/// Index of segment `segment`'s first node.
fn segment_start(segment: usize) -> usize {
    segment_len(segment) - (1 << FIRST_LOG)
}

fn segment_layout(segment: usize) -> Layout {
    Layout::array::<Node>(segment_len(segment)).expect("a segment's size fits in memory")
}

/// The growth state of a run whose graph has growing tasks: every task's successor list and
/// the grown tasks, in an append-only array of doubling segments (so a node never moves and
/// adding one takes no lock).
pub(crate) struct Growth {
    /// Number of tasks in the graph as built; grown task `i` has index `static_tasks + i`.
    static_tasks: usize,
    static_succ: Box<[AtomicPtr<Edge>]>,
    /// Grown indices handed out, in blocks of [`INDEX_BLOCK`] (some of a block may go unused:
    /// their nodes stay fresh and unpublished).
    next: AtomicUsize,
    /// Each worker's current block of grown indices, `end << 32 | next`: a worker takes its
    /// indices here, on a line of its own, and touches the shared `next` once a block.
    blocks: Box<[CachePadded<AtomicU64>]>,
    segments: [AtomicPtr<Node>; SEGMENTS],
}

/// Grown indices a worker takes from the shared counter at a time.
const INDEX_BLOCK: usize = 32;

// SAFETY: nodes are shared through atomics; a node's closure is written once before it is
// published and consumed once by the worker that owns the task (see `RunState`).
unsafe impl Sync for Growth {}
// SAFETY: as above; closures are `Send`.
unsafe impl Send for Growth {}

impl Growth {
    pub(crate) fn new(static_tasks: usize, workers: usize) -> Self {
        Self {
            static_tasks,
            static_succ: (0..static_tasks)
                .map(|_| AtomicPtr::new(ptr::null_mut()))
                .collect(),
            next: AtomicUsize::new(0),
            blocks: (0..workers.max(1))
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            segments: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
        }
    }

    /// The grown node with task index `index`, if it is published.
    fn node(&self, index: usize) -> Option<&Node> {
        let i = index.checked_sub(self.static_tasks)?;
        if i >= self.next.load(Ordering::Acquire) {
            return None;
        }
        let (segment, offset) = locate(i);
        let base = self.segments[segment].load(Ordering::Acquire);
        if base.is_null() {
            return None;
        }
        // SAFETY: a non-null segment holds `segment_len(segment) > offset` nodes.
        let node = unsafe { base.add(offset) };
        // SAFETY: as above; segments live as long as `self`.
        let node = unsafe { &*node };
        node.published.load(Ordering::Acquire).then_some(node)
    }

    /// The successor list of task `index` (static or grown), if it names a task of this run.
    fn successors(&self, index: usize) -> Option<&AtomicPtr<Edge>> {
        match self.static_succ.get(index) {
            Some(head) => Some(head),
            None => self.node(index).map(|n| &n.succ),
        }
    }

    /// A grown index nobody else has: the next of `worker`'s block, or the first of a new one.
    /// Relaxed: only uniqueness is at stake, which each word's modification order gives (an
    /// index is taken by a successful exchange or by the shared `fetch_add`); a block that
    /// another thread's store overwrites loses its unused indices, nothing more.
    fn take_index(&self, worker: usize) -> usize {
        let slot = &self.blocks[worker % self.blocks.len()];
        let mut current = slot.load(Ordering::Relaxed);
        loop {
            let (next, end) = (current as u32, (current >> 32) as u32);
            if next >= end {
                break;
            }
            match slot.compare_exchange_weak(current, current + 1, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return next as usize,
                Err(seen) => current = seen,
            }
        }
        let start = self.next.fetch_add(INDEX_BLOCK, Ordering::Relaxed);
        if let (Ok(first), Ok(end)) = (u32::try_from(start + 1), u32::try_from(start + INDEX_BLOCK)) {
            slot.store(u64::from(end) << 32 | u64::from(first), Ordering::Relaxed);
        }
        start
    }

    /// A fresh node and its task index, for a task added on `worker`.
    fn alloc(&self, worker: usize) -> (u32, &Node) {
        let i = self.take_index(worker);
        let index = self.static_tasks + i;
        assert!(
            index < (u32::MAX - 1) as usize,
            "a graph holds at most u32::MAX - 2 tasks, grown ones included"
        );
        let (segment, offset) = locate(i);
        let mut base = self.segments[segment].load(Ordering::Acquire);
        if base.is_null() {
            let layout = segment_layout(segment);
            // SAFETY: `layout` has a non-zero size (a segment holds at least 64 nodes).
            let raw = unsafe { alloc_zeroed(layout) };
            if raw.is_null() {
                handle_alloc_error(layout);
            }
            // All-zero bytes are fresh nodes (see `Node`).
            let fresh = raw.cast::<Node>();
            match self.segments[segment].compare_exchange(
                ptr::null_mut(),
                fresh,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => base = fresh,
                Err(winner) => {
                    // SAFETY: `fresh` is the unshared, untouched allocation made above with
                    // this layout; fresh nodes own nothing, so nothing is dropped.
                    unsafe { dealloc(fresh.cast(), layout) };
                    base = winner;
                }
            }
        }
        // SAFETY: the segment holds `segment_len(segment) > offset` nodes.
        let node = unsafe { base.add(offset) };
        // SAFETY: as above; segments live as long as `self`, and node `i` is handed out once,
        // by the `fetch_add` above.
        (index as u32, unsafe { &*node })
    }

    /// Takes grown task `index`'s closure.
    ///
    /// # Safety
    /// The caller owns the task (its predecessors are done and nobody else runs it).
    pub(crate) unsafe fn take_task(&self, index: u32) -> TaskSlot {
        let node = self
            .node(index as usize)
            .expect("a grown task is published before it runs");
        // SAFETY: the caller owns the task, so nobody else touches its closure; it was written
        // before the task became ready (the counter protocol orders the two).
        unsafe { node.task.get().replace(RawTask::EMPTY) }
            .slot()
            .expect("a grown task runs once")
    }

    /// Closes the successor list of task `index`, which just finished or was skipped, and
    /// calls `ready` on every grown successor whose last predecessor it was.
    pub(crate) fn finish_task(&self, index: u32, mut ready: impl FnMut(u32)) {
        let head = self.successors(index as usize).expect("a task of this run");
        close_list(head, |to| {
            let node = self.node(to as usize).expect("an edge names a published task");
            // AcqRel: as for static edges. The counter is stored minus 1 (see `Node`).
            if node.pending.fetch_sub(1, Ordering::AcqRel) == 0 {
                ready(to);
            }
        });
    }

    /// Whether `index` is a grown task (rather than one of the graph as built).
    pub(crate) fn is_grown(&self, index: u32) -> bool {
        index as usize >= self.static_tasks
    }
}

impl Drop for Growth {
    fn drop(&mut self) {
        for head in self.static_succ.iter() {
            free_list(head);
        }
        // The run is over (its owner saw the latch, set when the last task finished): every
        // published node's closure was consumed and its list closed, and the other nodes are
        // fresh, so no node owns anything and a million of them need no pass. Debug builds
        // check it (a node that did own something would be leaked, not freed twice).
        let handed_out = *self.next.get_mut();
        for (segment, base) in self.segments.iter_mut().enumerate() {
            let base = *base.get_mut();
            if !base.is_null() {
                if cfg!(debug_assertions) {
                    let used = handed_out
                        .saturating_sub(segment_start(segment))
                        .min(segment_len(segment));
                    // SAFETY: a non-null segment is the allocation of `segment_len(segment)`
                    // nodes made in `alloc`, initialised (all-zero is a fresh node), and nobody
                    // else uses them any more (`&mut self`).
                    let nodes = unsafe { std::slice::from_raw_parts_mut(base, used) };
                    for node in nodes {
                        let succ = *node.succ.get_mut();
                        assert!(
                            node.take().is_none() && (succ.is_null() || succ == closed()),
                            "a grown task outlived its run"
                        );
                    }
                }
                // SAFETY: the allocation was made in `alloc` with this layout, freed once, here;
                // its nodes own nothing (above), so none needs dropping.
                unsafe { dealloc(base.cast(), segment_layout(segment)) };
            }
        }
    }
}

/// What a growing task gets to add tasks to the graph it belongs to, while it runs.
///
/// Tasks added through it may borrow the same data as the graph's own tasks (anything that
/// outlives the run), become part of the running graph, and may grow it in turn. The run
/// returns once every grown task has finished; a panicking grown task poisons the graph like
/// any other (tasks not yet started are skipped, the first panic reaches the caller).
///
/// Neither `Send` nor `Sync`, like [`TaskContext`]: it stays on the thread of the task it was
/// given to, and goes away when that task returns.
///
/// ```
/// use ntt_runtime::{Grower, TaskContext, ThreadPoolBuilder};
/// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
///
/// /// Counts the nodes of a binary tree of the given depth, one task per node.
/// fn visit<'s>(depth: u32, count: &'s AtomicU64, grow: &Grower<'_, 's>) {
///     count.fetch_add(1, Relaxed);
///     if depth > 0 {
///         for _ in 0..2 {
///             grow.add(move |_: &TaskContext<'_>, grow: &Grower<'_, 's>| visit(depth - 1, count, grow));
///         }
///     }
/// }
///
/// let pool = ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
/// let count = AtomicU64::new(0);
/// pool.run(|g| {
///     g.add_growing(|_, grow| visit(10, &count, grow));
/// });
/// assert_eq!(count.load(Relaxed), (1 << 11) - 1);
/// ```
pub struct Grower<'r, 's> {
    run: &'r RunState,
    worker: &'r WorkerThread,
    current: u32,
    /// Finished, unreported tasks of the chain running this one (`RunState::run_chain`).
    credit: &'r Cell<usize>,
    /// Invariant in `'s`, as [`Graph`](crate::Graph) is.
    _borrows: PhantomData<fn(&'s ()) -> &'s ()>,
}

impl core::fmt::Debug for Grower<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Grower")
            .field("current", &self.current)
            .finish_non_exhaustive()
    }
}

/// What a growing task's trampoline needs to build its [`Grower`]: the run, the task, and the
/// count of tasks its chain finished and has not reported yet (see [`Grower::add_after`]).
#[derive(Clone, Copy)]
pub(crate) struct GrowAt<'r> {
    pub(crate) run: &'r RunState,
    pub(crate) task: u32,
    pub(crate) credit: &'r Cell<usize>,
}

/// A type-erased growing task: `F` boxed, with trampolines that consume the box.
pub(crate) fn boxed_slot<'s, F>(task: F) -> TaskSlot
where
    F: FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's,
{
    let data = NonNull::new(Box::into_raw(Box::new(task))).expect("Box is non-null");
    TaskSlot {
        data: data.cast(),
        call: call_boxed::<F>,
        drop: drop_boxed::<F>,
    }
}

/// # Safety
/// `data` must come from `Box::<F>::into_raw` and not be used afterwards.
unsafe fn call_boxed<'s, F>(data: NonNull<u8>, ctx: &TaskContext<'_>, at: GrowAt<'_>)
where
    F: FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's,
{
    // SAFETY: the caller hands over the box, which is consumed here.
    let f = *unsafe { Box::from_raw(data.cast::<F>().as_ptr()) };
    f(ctx, &Grower::new(at, ctx));
}

/// # Safety
/// `data` must come from `Box::<F>::into_raw` and not be used afterwards.
unsafe fn drop_boxed<F>(data: NonNull<u8>) {
    // SAFETY: the caller hands over the box, which is dropped here.
    drop(unsafe { Box::from_raw(data.cast::<F>().as_ptr()) });
}

/// # Safety
/// `data` must point to a live `F` that is consumed by this call (not used afterwards).
pub(crate) unsafe fn call_growing<'s, F>(data: NonNull<u8>, ctx: &TaskContext<'_>, at: GrowAt<'_>)
where
    F: FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's,
{
    // SAFETY: the caller guarantees `data` holds a live `F` that nobody else will use.
    let f = unsafe { data.cast::<F>().read() };
    f(ctx, &Grower::new(at, ctx));
}

impl<'r, 's> Grower<'r, 's> {
    fn new(at: GrowAt<'r>, ctx: &TaskContext<'r>) -> Self {
        Self {
            run: at.run,
            worker: ctx.worker(),
            current: at.task,
            credit: at.credit,
            _borrows: PhantomData,
        }
    }

    /// The id of the running task: `add_after(&[grow.current()], ..)` adds a task that runs
    /// once this one has returned (a continuation, say, after the children it added).
    pub fn current(&self) -> TaskId {
        TaskId(self.current as usize)
    }

    /// Adds a task to the running graph; it may start at once, on any worker.
    ///
    /// # Panics
    /// If the graph would exceed `u32::MAX - 2` tasks.
    pub fn add(&self, task: impl FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's) -> TaskId {
        self.add_after(&[], task)
    }

    /// Adds a task to the running graph that starts once every task in `before` has finished.
    /// `before` may name any task of this graph, static or grown, finished or not (a finished
    /// one is already satisfied), the running task included. A subgraph is added by adding its
    /// tasks in dependency order, each after the ones it needs.
    ///
    /// # Panics
    /// If an id in `before` is not a task of this graph, or the graph would exceed
    /// `u32::MAX - 2` tasks.
    pub fn add_after(
        &self,
        before: &[TaskId],
        task: impl FnOnce(&TaskContext<'_>, &Grower<'_, 's>) + Send + 's,
    ) -> TaskId {
        let growth = self.run.growth().expect("a Grower exists only in a growing run");
        // Check every id before anything is counted, so a panic here leaves the run intact.
        for id in before {
            assert!(
                growth.successors(id.0).is_some(),
                "{id:?} is not a task of this graph"
            );
        }
        let (index, node) = growth.alloc(self.worker.index);
        let slot = boxed_slot(task);
        // SAFETY: the node was just handed out to us alone, and nobody runs it before its
        // guard is dropped below.
        unsafe {
            *node.task.get() = RawTask {
                data: Some(slot.data),
                call: Some(slot.call),
                drop: Some(slot.drop),
            }
        };
        node.published.store(true, Ordering::Release);
        // Counted as unfinished before it can run. A task this chain finished and has not
        // reported is still counted in the run's total: the new task takes over its count, and
        // the chain reports one task fewer, so the shared counter is not touched.
        match self.credit.get() {
            0 => self.run.add_unfinished(1),
            units => self.credit.set(units - 1),
        }
        for id in before {
            let head = growth.successors(id.0).expect("checked above");
            node.pending.fetch_add(1, Ordering::Relaxed);
            if !push_edge(head, index) {
                // Already finished (its writes acquired by the failed CAS): not counted.
                node.pending.fetch_sub(1, Ordering::Relaxed);
            }
        }
        // Drop the guard; AcqRel passes the closure write (and finished predecessors' writes)
        // on to whoever runs the task. The counter is stored minus 1 (see `Node`).
        if node.pending.fetch_sub(1, Ordering::AcqRel) == 0 {
            self.worker.push(RunState::task_job(self.run, index));
        }
        TaskId(index as usize)
    }
}
