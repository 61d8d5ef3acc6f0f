//! What a running task sees of the worker that runs it.

use crate::pool::ThreadPool;
use crate::registry::WorkerThread;
use crate::topology::WorkerBudget;

/// What a running task can see of the worker that runs it.
///
/// Neither `Send` nor `Sync`: it stands for "the current worker", so it stays on that worker's
/// thread (nested tasks get their own context).
#[derive(Debug)]
pub struct TaskContext<'p> {
    pool: &'p ThreadPool,
    worker: &'p WorkerThread,
}

impl<'p> TaskContext<'p> {
    pub(crate) fn new(pool: &'p ThreadPool, worker: &'p WorkerThread) -> Self {
        Self { pool, worker }
    }

    pub(crate) fn worker(&self) -> &'p WorkerThread {
        self.worker
    }

    /// Runs `a` and `b`, potentially in parallel (`b` may be stolen by another worker while
    /// this one runs `a`), and returns both results. Costs about as much as `rayon::join`: no
    /// allocation, one deque push and pop when `b` is not stolen.
    ///
    /// # Panics
    /// Re-raises the panic of `a` or `b` (the first one, if both panic) after both have
    /// finished.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&TaskContext<'_>) -> RA,
        B: FnOnce(&TaskContext<'_>) -> RB + Send,
        RB: Send,
    {
        crate::join::join_on_worker(self, a, b)
    }

    /// Index of the worker running the task, in `0..pool().num_workers()`.
    pub fn worker_index(&self) -> usize {
        self.worker.index
    }

    /// This worker's cache budgets.
    pub fn budget(&self) -> WorkerBudget {
        self.pool.budgets()[self.worker.index]
    }

    /// The pool running the task; nested [`ThreadPool::run`] calls on it are allowed.
    pub fn pool(&self) -> &'p ThreadPool {
        self.pool
    }

    /// Lends the worker's 64-byte-aligned, grow-only scratch buffer of at least `words` words,
    /// as a slice of exactly `words` words. Contents on entry are unspecified (but initialised).
    ///
    /// Nested calls (directly, or from a task this worker runs while the caller waits in a
    /// nested run) get a different buffer, so borrows never alias. Only growing allocates.
    pub fn with_scratch<R>(&self, words: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
        self.worker.scratch.with(words, f)
    }
}
