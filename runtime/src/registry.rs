//! The shared state of a pool and the loop each worker thread runs.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_deque::{Injector, Steal, Stealer, Worker};

use crate::abort::AbortOnUnwind;
use crate::job::Job;
use crate::latch::Latch;
use crate::local_cpu::LocalWorkers;
use crate::scratch::ScratchStack;
use crate::sleep::Sleep;

/// The jobs of a pool: run on one of its workers.
pub(crate) type JobRef = Job<WorkerThread>;

/// Rounds an idle worker keeps looking for work before it parks. Each round probes the
/// nearest victims and the injector, then yields. Between the passes of a commit the next
/// graph's first jobs arrive within a few microseconds; 32 rounds cover that gap when the
/// machine is not oversubscribed (a park and a wake-up cost 15-60 µs).
const SPIN_ROUNDS: u32 = 32;

/// Rounds when the pool has more workers than the machine has CPUs: a spinning worker then
/// holds a CPU a busy one needs, so idle workers park almost at once.
const OVERSUBSCRIBED_SPIN_ROUNDS: u32 = 2;

/// How many victims, nearest first, an idle worker probes per round (and checks once more
/// before it parks). Bounded so that an idle worker's cost does not grow with the pool:
/// work further away reaches it through a targeted wake-up (see `sleep/README.md`).
pub(crate) const PROBE_VICTIMS: usize = 8;

/// State shared by all workers of one pool.
pub(crate) struct Registry {
    pub(crate) stealers: Box<[Stealer<JobRef>]>,
    pub(crate) injector: Injector<JobRef>,
    pub(crate) sleep: Sleep,
    pub(crate) terminate: AtomicBool,
    /// The worker pinned to each CPU: whom a job injected from that CPU wakes first.
    pub(crate) local: LocalWorkers,
    spin_rounds: u32,
    /// How long an idle worker keeps looking for work, after its spin rounds, before it parks
    /// (`ThreadPoolBuilder::idle_spin`); zero when the pool is oversubscribed.
    pub(crate) idle_spin: Duration,
}

impl core::fmt::Debug for Registry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Registry")
            .field("workers", &self.stealers.len())
            .field("sleep", &self.sleep)
            .finish_non_exhaustive()
    }
}

/// What a latch of another pool's run needs of this pool: its sleep protocol, to wake the
/// owner (`Latch::Foreign`).
impl AsRef<Sleep> for Registry {
    fn as_ref(&self) -> &Sleep {
        &self.sleep
    }
}

impl Registry {
    /// The registry of workers with these stealers and steal orders, whose idle workers look
    /// for work for `idle_spin` before they park (not at all when the pool is oversubscribed).
    pub(crate) fn new(
        stealers: Vec<Stealer<JobRef>>,
        steal_orders: Vec<Vec<usize>>,
        idle_spin: Duration,
    ) -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        let oversubscribed = stealers.len() > cpus;
        Self {
            spin_rounds: if oversubscribed {
                OVERSUBSCRIBED_SPIN_ROUNDS
            } else {
                SPIN_ROUNDS
            },
            idle_spin: if oversubscribed { Duration::ZERO } else { idle_spin },
            stealers: stealers.into_boxed_slice(),
            injector: Injector::new(),
            sleep: Sleep::new(steal_orders),
            terminate: AtomicBool::new(false),
            local: LocalWorkers::default(),
        }
    }

    /// Submits a job from a thread outside the pool, which is about to wait for it: the
    /// worker pinned to the caller's CPU is woken first, since that CPU is about to be free
    /// (see `local_cpu.rs`).
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.sleep.notify_injected(self.local.current());
    }

    /// Stops the workers once they run out of work; they exit their loops.
    pub(crate) fn terminate(&self) {
        self.terminate.store(true, Ordering::SeqCst);
        self.sleep.notify_all();
    }
}

thread_local! {
    /// The worker this thread is, if it is a pool worker (or a guest running a graph inline).
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(std::ptr::null()) };
}

/// What a thread's guest contexts keep between inline runs: the deque and the scratch
/// buffers. A small encode runs inline hundreds of thousands of times a second; allocating a
/// fresh deque (its buffer and its shared block) for each was 4 % of such a loop.
pub(crate) struct GuestParts {
    deque: Worker<JobRef>,
    scratch: ScratchStack,
}

impl Default for GuestParts {
    fn default() -> Self {
        Self {
            deque: Worker::new_lifo(),
            scratch: ScratchStack::new(),
        }
    }
}

/// One worker thread's private state. Lives on the worker's stack for its whole life.
pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    deque: Worker<JobRef>,
    pub(crate) registry: Arc<Registry>,
    /// Other workers in steal order: nearest caches first (see `placement`).
    victims: Box<[usize]>,
    pub(crate) scratch: ScratchStack,
    /// A thread outside the pool running a small graph inline: its deque is private (nobody
    /// steals from it), it never steals, never takes from the injector and never parks.
    guest: bool,
}

impl core::fmt::Debug for WorkerThread {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WorkerThread")
            .field("index", &self.index)
            .field("guest", &self.guest)
            .finish_non_exhaustive()
    }
}

/// Restores the previous `CURRENT` when dropped (also while unwinding).
struct RestoreCurrent(*const WorkerThread);

impl Drop for RestoreCurrent {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
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
            guest: false,
        }
    }

    /// A guest context for the calling thread (not a worker of `registry`'s pool): it runs
    /// everything it starts itself, reporting worker 0's index, with `parts` (an empty deque
    /// and scratch buffers) as its own.
    pub(crate) fn guest(registry: Arc<Registry>, parts: GuestParts) -> Self {
        debug_assert!(parts.deque.is_empty(), "a guest starts with an empty deque");
        Self {
            index: 0,
            deque: parts.deque,
            registry,
            victims: Box::default(),
            scratch: parts.scratch,
            guest: true,
        }
    }

    /// Gives back the guest's deque (empty: a guest finishes everything it starts) and
    /// scratch buffers, for the thread's next guest context.
    pub(crate) fn into_guest_parts(self) -> GuestParts {
        debug_assert!(self.deque.is_empty(), "a guest finishes everything it starts");
        GuestParts {
            deque: self.deque,
            scratch: self.scratch,
        }
    }

    /// Whether this is a guest context (see [`WorkerThread::guest`]).
    pub(crate) fn is_guest(&self) -> bool {
        self.guest
    }

    /// Runs `f` with a reference to the current thread's worker, if it is one of `registry`'s.
    pub(crate) fn with_current<R>(registry: &Arc<Registry>, f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        Self::with_any(|w| f(w.filter(|w| Arc::ptr_eq(&w.registry, registry))))
    }

    /// Runs `f` with a reference to the current thread's worker of any pool, if it is one.
    pub(crate) fn with_any<R>(f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        let ptr = CURRENT.with(Cell::get);
        // SAFETY: `CURRENT` is non-null only between `enter`'s set and its reset, while the
        // `WorkerThread` it points to is alive on this thread's stack.
        f(unsafe { ptr.as_ref() })
    }

    /// Makes `self` the current thread's worker while `f` runs.
    pub(crate) fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        let previous = CURRENT.with(|c| c.replace(self));
        let _restore = RestoreCurrent(previous);
        f()
    }

    /// The worker thread's body: execute jobs until the pool terminates.
    pub(crate) fn main_loop(self) {
        let _abort = AbortOnUnwind;
        self.registry.sleep.register(self.index);
        let registry = Arc::clone(&self.registry);
        self.enter(|| self.wait_until(|| registry.terminate.load(Ordering::Acquire)));
    }

    /// Pushes a job onto this worker's deque and wakes the sleeping worker nearest to it if
    /// the deque was empty. When it was not, the jobs already there were announced when they
    /// were pushed, and a thief that leaves jobs behind announces them again (see
    /// `sleep/README.md`); at worst this worker runs the job itself. Skipping the announcement
    /// saves the `SeqCst` fence on most pushes of a recursive split.
    pub(crate) fn push(&self, job: JobRef) {
        let was_empty = self.deque.is_empty();
        self.deque.push(job);
        if was_empty && !self.guest {
            self.registry.sleep.notify_near(self.index);
        }
    }

    /// Pops the most recently pushed job of this worker's own deque.
    pub(crate) fn pop_local(&self) -> Option<JobRef> {
        self.deque.pop()
    }

    /// The victims probed each round: the nearest [`PROBE_VICTIMS`].
    fn probes(&self) -> &[usize] {
        &self.victims[..self.victims.len().min(PROBE_VICTIMS)]
    }

    /// Steals one job from worker `v`; passes the wake-up on if `v` has more.
    fn steal_from(&self, v: usize) -> Steal<JobRef> {
        let stealer = &self.registry.stealers[v];
        // `steal` pins crossbeam's epoch, and every so many pins scan every thread registered
        // with it: with thousands of workers that scan, not the probe, is what idle rounds
        // would cost. `is_empty` reads two indices and pins nothing.
        if stealer.is_empty() {
            return Steal::Empty;
        }
        let stolen = stealer.steal();
        if stolen.is_success() && !stealer.is_empty() {
            // Pushes onto a non-empty deque announce nothing, so a thief that leaves work
            // behind wakes the sleeper nearest to it.
            self.registry.sleep.notify_near(v);
        }
        stolen
    }

    /// The next job: our own deque (LIFO), then the deque a waker pointed us to, then the
    /// nearest victims, then the injector.
    fn find_work(&self) -> Option<JobRef> {
        if let Some(job) = self.deque.pop() {
            return Some(job);
        }
        if self.guest {
            return None;
        }
        let registry = &*self.registry;
        if let Some(v) = registry.sleep.take_hint(self.index)
            && v != self.index
            && let Steal::Success(job) = self.steal_from(v)
        {
            return Some(job);
        }
        loop {
            let mut retry = false;
            for &v in self.probes() {
                match self.steal_from(v) {
                    Steal::Success(job) => return Some(job),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            match registry.injector.steal_batch_and_pop(&self.deque) {
                Steal::Success(job) => {
                    if !self.deque.is_empty() {
                        registry.sleep.notify_near(self.index);
                    } else if !registry.injector.is_empty() {
                        registry.sleep.notify_any();
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

    /// Whether this worker has work it must not sleep through: its own deque, its probed
    /// victims', or the injector (read under the sleep lock, after the fence).
    fn has_visible_work(&self) -> bool {
        let registry = &self.registry;
        !self.deque.is_empty()
            || !registry.injector.is_empty()
            || self.probes().iter().any(|&v| !registry.stealers[v].is_empty())
    }

    /// Whether an idle worker whose spin rounds are spent keeps looking: until the pool's idle
    /// spin has passed since `idle_since` (set here, at the first such round).
    fn spins_on(&self, idle_since: &mut Option<Instant>) -> bool {
        let spin = self.registry.idle_spin;
        !spin.is_zero() && idle_since.get_or_insert_with(Instant::now).elapsed() < spin
    }

    /// Executes jobs until `done()` holds: spins a few rounds when idle, then parks.
    /// `done` must become true only through a store followed by a wake of this worker (a latch
    /// set, or termination).
    pub(crate) fn wait_until(&self, done: impl Fn() -> bool) {
        let mut idle_rounds = 0;
        let mut idle_since: Option<Instant> = None;
        while !done() {
            if let Some(job) = self.find_work() {
                idle_rounds = 0;
                idle_since = None;
                // SAFETY: every job on the pool's deques belongs to a run that is in progress.
                unsafe { job.execute(self) };
                continue;
            }
            if self.guest {
                // Everything a guest waits for is on its own deque, so this is unreachable;
                // yield rather than park in a pool that does not know this thread.
                debug_assert!(false, "a guest waited for work it does not hold");
                std::thread::yield_now();
                continue;
            }
            if idle_rounds < self.registry.spin_rounds || self.spins_on(&mut idle_since) {
                idle_rounds += 1;
                std::thread::yield_now();
                continue;
            }
            self.registry
                .sleep
                .sleep(self.index, || done() || self.has_visible_work());
            idle_rounds = 0;
            idle_since = None;
        }
    }

    /// The latch of a run or join this worker owns: [`Latch::Worker`], or [`Latch::Guest`] for
    /// a guest context.
    pub(crate) fn new_latch(&self) -> Latch {
        if self.is_guest() {
            Latch::guest()
        } else {
            Latch::worker(self.index)
        }
    }

    /// Pops a published token's `job` back, or waits (running other jobs) until its thief has
    /// set `latch`. Afterwards nobody else refers to the token.
    pub(crate) fn reclaim(&self, latch: &Latch, job: &JobRef) {
        loop {
            if latch.probe() {
                return;
            }
            match self.pop_local() {
                // Not stolen: nobody else can reach the token any more.
                Some(popped) if popped.same_as(job) => return,
                // SAFETY: a job from our deque (pushed by work run since the token) was pushed
                // once and has not run (`Job::execute`'s contract); it runs once, here.
                Some(other) => unsafe { other.execute(self) },
                None => {
                    self.wait_until(|| latch.probe());
                    return;
                }
            }
        }
    }
}
