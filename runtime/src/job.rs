//! The unit the deques carry: a type-erased reference to work that lives elsewhere.
//!
//! Generic over the worker that runs it (`W`), so this module knows nothing of the pool: the
//! registry names its jobs `JobRef` (`Job<WorkerThread>`).

/// How a job runs: `exec(data, a, b, worker)`.
pub(crate) type ExecFn<W> = unsafe fn(*const (), u32, u32, &W);

/// A reference to work owned by someone who waits for it (a graph run on its owner's stack, a
/// join's second half on the joining worker's stack): a data pointer, the function that runs
/// it on a worker `W`, and two small arguments (a task index, a range of roots). Plain data (24
/// bytes), so pushing and stealing never allocate.
#[derive(Debug)]
pub(crate) struct Job<W> {
    data: *const (),
    exec: ExecFn<W>,
    a: u32,
    b: u32,
}

// Not derived: a derive would ask `W: Clone`, and a worker is not.
impl<W> Clone for Job<W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W> Copy for Job<W> {}

// SAFETY: a `Job` only travels between the workers of one pool, and the data it points to
// is `Sync` and outlives the job: its owner waits for a latch that is set only after the job
// has finished with the data (see each `ExecFn`'s contract).
unsafe impl<W> Send for Job<W> {}

impl<W> Job<W> {
    /// # Safety
    /// `exec(data, a, b, worker)` must be sound to call once, on any worker of the pool, until
    /// the owner of `data` has seen the job complete.
    pub(crate) unsafe fn new(data: *const (), exec: ExecFn<W>, a: u32, b: u32) -> Self {
        Self { data, exec, a, b }
    }

    /// Whether `self` and `other` refer to the same work.
    pub(crate) fn same_as(&self, other: &Self) -> bool {
        std::ptr::eq(self.data, other.data) && self.a == other.a && self.b == other.b
    }

    /// Argument `a` of the job, if it refers to `data` with second argument `b` (a graph run's
    /// job for one task, say).
    pub(crate) fn first_arg_if(&self, data: *const (), b: u32) -> Option<u32> {
        (std::ptr::eq(self.data, data) && self.b == b).then_some(self.a)
    }

    /// Runs the job on `worker`.
    ///
    /// # Safety
    /// The job must not have run yet (each `Job` pushed once is executed once).
    pub(crate) unsafe fn execute(self, worker: &W) {
        // SAFETY: `new`'s contract (`exec` is sound to call once on any worker of the pool
        // until the owner has seen the job complete), and this is the job's only execution.
        unsafe { (self.exec)(self.data, self.a, self.b, worker) }
    }
}
