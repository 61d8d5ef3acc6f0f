//! The shared state of a pool and the loop each worker thread runs.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_deque::{Injector, Steal, Stealer, Worker};

use crate::job::JobRef;
use crate::panic::AbortOnUnwind;
use crate::scratch::ScratchStack;
use crate::sleep::Sleep;

/// Rounds an idle worker keeps looking for work before it parks. Each round scans every victim
/// and the injector, then yields; 32 rounds last a few microseconds when the machine is idle,
/// long enough to catch the next stage of a graph without paying for a park and a wake-up.
const SPIN_ROUNDS: u32 = 32;

/// State shared by all workers of one pool.
pub(crate) struct Registry {
    pub(crate) stealers: Box<[Stealer<JobRef>]>,
    pub(crate) injector: Injector<JobRef>,
    pub(crate) sleep: Sleep,
    pub(crate) terminate: AtomicBool,
}

impl core::fmt::Debug for Registry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Registry")
            .field("workers", &self.stealers.len())
            .field("sleep", &self.sleep)
            .finish_non_exhaustive()
    }
}

impl Registry {
    pub(crate) fn new(stealers: Vec<Stealer<JobRef>>) -> Self {
        let n = stealers.len();
        Self {
            stealers: stealers.into_boxed_slice(),
            injector: Injector::new(),
            sleep: Sleep::new(n),
            terminate: AtomicBool::new(false),
        }
    }

    /// Whether any deque or the injector holds a job (used under the sleep lock, after the fence).
    fn has_visible_work(&self) -> bool {
        !self.injector.is_empty() || self.stealers.iter().any(|s| !s.is_empty())
    }

    /// Submits a job from a thread outside the pool.
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.sleep.notify_work(1);
    }

    /// Stops the workers once they run out of work; they exit their loops.
    pub(crate) fn terminate(&self) {
        self.terminate.store(true, Ordering::SeqCst);
        self.sleep.notify_all();
    }
}

thread_local! {
    /// The worker this thread is, if it is a pool worker.
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(std::ptr::null()) };
}

/// One worker thread's private state. Lives on the worker's stack for its whole life.
pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    deque: Worker<JobRef>,
    pub(crate) registry: Arc<Registry>,
    /// Other workers in steal order: nearest caches first (see `placement`).
    victims: Box<[usize]>,
    pub(crate) scratch: ScratchStack,
}

impl core::fmt::Debug for WorkerThread {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WorkerThread")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl WorkerThread {
    pub(crate) fn new(
        index: usize,
        deque: Worker<JobRef>,
        registry: Arc<Registry>,
        victims: Vec<usize>,
    ) -> Self {
        Self {
            index,
            deque,
            registry,
            victims: victims.into_boxed_slice(),
            scratch: ScratchStack::new(),
        }
    }

    /// Runs `f` with a reference to the current thread's worker, if it is one of `registry`'s.
    pub(crate) fn with_current<R>(registry: &Arc<Registry>, f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        let ptr = CURRENT.with(Cell::get);
        // SAFETY: `CURRENT` is non-null only between `main_loop`'s set and reset, while the
        // `WorkerThread` it points to is alive on this thread's stack.
        let current = unsafe { ptr.as_ref() };
        f(current.filter(|w| Arc::ptr_eq(&w.registry, registry)))
    }

    /// The worker thread's body: execute jobs until the pool terminates.
    pub(crate) fn main_loop(self) {
        let _abort = AbortOnUnwind;
        CURRENT.with(|c| c.set(&self));
        let registry = Arc::clone(&self.registry);
        self.wait_until(|| registry.terminate.load(Ordering::Acquire));
        CURRENT.with(|c| c.set(std::ptr::null()));
    }

    /// Pushes a job onto this worker's deque and wakes a sleeping worker if the deque was
    /// empty. When it was not, the jobs already there were announced when they were pushed
    /// (and no worker parks while a deque is non-empty, see `sleep/README.md`), so this job is
    /// never stranded: at worst this worker runs it itself. Skipping the announcement saves
    /// the `SeqCst` fence on most pushes of a recursive split.
    pub(crate) fn push(&self, job: JobRef) {
        let was_empty = self.deque.is_empty();
        self.deque.push(job);
        if was_empty {
            self.registry.sleep.notify_work(1);
        }
    }

    /// Pops the most recently pushed job of this worker's own deque.
    pub(crate) fn pop_local(&self) -> Option<JobRef> {
        self.deque.pop()
    }

    /// The next job: our own deque (LIFO), then the other workers nearest first, then the
    /// injector.
    fn find_work(&self) -> Option<JobRef> {
        if let Some(job) = self.deque.pop() {
            return Some(job);
        }
        loop {
            let mut retry = false;
            for &v in self.victims.iter() {
                match self.registry.stealers[v].steal() {
                    Steal::Success(job) => {
                        // Pass the wake-up on: pushes onto a non-empty deque announce nothing,
                        // so a thief that leaves work behind wakes the next sleeper.
                        if !self.registry.stealers[v].is_empty() {
                            self.registry.sleep.notify_work(1);
                        }
                        return Some(job);
                    }
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            match self.registry.injector.steal_batch_and_pop(&self.deque) {
                Steal::Success(job) => {
                    if !self.registry.injector.is_empty() || !self.deque.is_empty() {
                        self.registry.sleep.notify_work(1);
                    }
                    return Some(job);
                }
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
            if !retry {
                return None;
            }
        }
    }

    /// Executes jobs until `done()` holds: spins [`SPIN_ROUNDS`] rounds when idle, then parks.
    /// `done` must become true only through a store followed by a wake of this worker (a latch
    /// set, or termination).
    pub(crate) fn wait_until(&self, done: impl Fn() -> bool) {
        let mut idle_rounds = 0;
        while !done() {
            if let Some(job) = self.find_work() {
                idle_rounds = 0;
                // SAFETY: every job on the pool's deques belongs to a run that is in progress.
                unsafe { job.execute(self) };
                continue;
            }
            if idle_rounds < SPIN_ROUNDS {
                idle_rounds += 1;
                std::thread::yield_now();
                continue;
            }
            let registry = &self.registry;
            registry
                .sleep
                .sleep(self.index, || done() || registry.has_visible_work());
            idle_rounds = 0;
        }
    }
}
