//! Completion signals for graph runs and joins.
//!
//! A latch is set exactly once, by the worker that finishes a run's last task. Its owner may
//! free it the moment it observes the set, so `set` copies what it needs to wake the owner
//! before the store and touches nothing of the latch afterwards.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Thread;

use crate::sleep::Sleep;

/// How the owner of a run waits for it.
pub(crate) enum Latch {
    /// The owner is a worker of the pool running the job: it keeps executing other jobs and
    /// polls the flag, and sleeps in the pool's sleep protocol when there is nothing to do.
    Worker { done: AtomicBool, owner: usize },
    /// The owner is a worker of another pool (`pool`, which holds that pool's sleep
    /// protocol): it keeps executing its own pool's jobs while it waits, so pools nested in
    /// each other (A -> B -> A) make progress.
    Foreign {
        done: AtomicBool,
        owner: usize,
        pool: Arc<dyn AsRef<Sleep> + Send + Sync>,
    },
    /// The owner is a thread outside every pool: it parks until the setter unparks it.
    Blocking { done: AtomicBool, thread: Thread },
    /// The owner is a guest context (a small job run inline on its caller,
    /// `ThreadPool::with_work_estimate`): nobody else can take its jobs, so it sets the latch
    /// itself and there is no one to wake. (It reports worker 0's index; waking worker 0
    /// instead would cost a wake-up of a parked thread per inline run.)
    Guest { done: AtomicBool },
}

impl Latch {
    /// The latch of a run or join owned by worker `owner` of the pool that runs it.
    pub(crate) fn worker(owner: usize) -> Self {
        Latch::Worker {
            done: AtomicBool::new(false),
            owner,
        }
    }

    /// The latch of a run or join owned by a guest context.
    pub(crate) fn guest() -> Self {
        Latch::Guest {
            done: AtomicBool::new(false),
        }
    }

    /// The latch of a run owned by worker `owner` of another pool, `pool`.
    pub(crate) fn foreign(owner: usize, pool: Arc<dyn AsRef<Sleep> + Send + Sync>) -> Self {
        Latch::Foreign {
            done: AtomicBool::new(false),
            owner,
            pool,
        }
    }

    /// A latch the calling thread waits on with [`Latch::wait_blocking`].
    pub(crate) fn blocking() -> Self {
        Latch::Blocking {
            done: AtomicBool::new(false),
            thread: std::thread::current(),
        }
    }

    fn done(&self) -> &AtomicBool {
        match self {
            Latch::Worker { done, .. }
            | Latch::Foreign { done, .. }
            | Latch::Blocking { done, .. }
            | Latch::Guest { done } => done,
        }
    }

    /// Whether the latch is set; an `Acquire` load, so everything the tasks wrote is visible.
    pub(crate) fn probe(&self) -> bool {
        self.done().load(Ordering::Acquire)
    }

    /// Parks the calling (owning, non-worker) thread until the latch is set.
    pub(crate) fn wait_blocking(&self) {
        debug_assert!(matches!(self, Latch::Blocking { .. }));
        // `park` may return spuriously, and an `unpark` before it makes it return at once.
        while !self.probe() {
            std::thread::park();
        }
    }

    /// Sets the latch and wakes its owner.
    ///
    /// # Safety
    /// `this` must point to a live latch, and the caller must not use `this` after the call: the
    /// owner may free the latch as soon as it sees it set. `sleep` is the sleep protocol of the
    /// setter's own pool, which outlives the call independently of the latch.
    pub(crate) unsafe fn set(this: *const Latch, sleep: &Sleep) {
        // SAFETY: the caller guarantees `this` is live until the store below makes it
        // observable; everything needed afterwards is copied out before it.
        let latch = unsafe { &*this };
        match latch {
            Latch::Worker { done, owner } => {
                let owner = *owner;
                // SeqCst: pairs with the fence in `Sleep::sleep` (see sleep/README.md).
                done.store(true, Ordering::SeqCst);
                // `latch` may be dangling from here on; only the copied owner index is used.
                sleep.notify_worker(owner);
            }
            Latch::Foreign { done, owner, pool } => {
                let (owner, pool) = (*owner, Arc::clone(pool));
                done.store(true, Ordering::SeqCst);
                (*pool).as_ref().notify_worker(owner);
            }
            Latch::Blocking { done, thread } => {
                let thread = thread.clone();
                done.store(true, Ordering::Release);
                thread.unpark();
            }
            Latch::Guest { done } => done.store(true, Ordering::Release),
        }
    }
}
