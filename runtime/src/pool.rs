//! The pool: building it, running graphs on it, shutting it down.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_deque::Worker;

use crate::context::TaskContext;
use crate::estimate::EstimateScale;
use crate::graph::Graph;
use crate::latch::Latch;
use crate::panic::{RunError, TaskPanic};
use crate::placement::{self, PinPolicy, WorkerPlacement};
use crate::registry::{GuestParts, JobRef, Registry, WorkerThread};
use crate::run_state::RunState;
use crate::topology::{Topology, WorkerBudget, WorkerLayout};

/// What handing a graph to the workers costs the calling thread, about: waking a parked
/// worker and, at the end, being woken (a round trip of 15-60 µs on the machines measured in
/// `docs/PERFORMANCE.md`), and the imbalance of a job with few tasks. Measured on a 2-vCPU
/// AMD EPYC (Zen 5) guest, a small commit handed to 2 workers took 60-80 µs longer than half
/// its inline time (for a whole commit installed as one job, [`ThreadPool::install`]). Graphs
/// whose work saves less than this run inline when their caller says how big they are
/// ([`ThreadPool::with_work_estimate`]).
pub const HANDOFF_COST: Duration = Duration::from_micros(80);

thread_local! {
    /// The deque and scratch buffers of this thread's guest context, kept between inline runs
    /// so they are not allocated (and page-faulted) again for every small graph.
    static GUEST_PARTS: Cell<Option<GuestParts>> = const { Cell::new(None) };
}

/// Most workers a pool may have; far beyond any machine the engine targets, and small enough
/// that a typo in `NTT_THREADS` is an error rather than an attempt to spawn millions of threads.
pub const MAX_WORKERS: usize = 4096;

/// The environment variable that sets the default number of workers.
pub const THREADS_ENV: &str = "NTT_THREADS";

/// The environment variable that sets the default pinning policy: `none`, `cores` or `pus`
/// (see [`PinPolicy`]). An explicit [`ThreadPoolBuilder::pin`] takes precedence.
pub const PIN_ENV: &str = "NTT_PIN";

/// The environment variable that, when set, overrides every pool's idle spin
/// ([`ThreadPoolBuilder::idle_spin`]), in microseconds: for tuning experiments.
pub const IDLE_SPIN_ENV: &str = "NTT_IDLE_SPIN_US";

/// Why a pool could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The requested (or `NTT_THREADS`) worker count is not usable.
    #[error("invalid worker count: {0}")]
    Threads(String),
    /// `NTT_IDLE_SPIN_US` is not a number of microseconds.
    #[error("invalid idle spin: {0}")]
    IdleSpin(String),
    /// An environment variable the pool reads is not valid UTF-8.
    #[error(transparent)]
    Env(#[from] crate::env::EnvError),
    /// `NTT_PIN` names no pinning policy.
    #[error("invalid pinning policy: {0}")]
    Pin(String),
    /// [`crate::build_global`] was called after the shared default pool was built.
    #[error("the global pool is already built: build_global must come before its first use")]
    GlobalAlreadyBuilt,
    /// The operating system refused to start a worker thread.
    #[error("could not spawn worker thread {index}: {source}")]
    Spawn {
        /// Index of the worker that failed to start.
        index: usize,
        /// The OS error.
        source: std::io::Error,
    },
}

impl BuildError {
    /// Whether the pool's settings are at fault (a worker count, a malformed `NTT_THREADS`,
    /// `NTT_IDLE_SPIN_US` or `NTT_PIN`) rather than the operating system or the caller's order
    /// of calls: a command reports such an error as bad input.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Self::Threads(_) | Self::IdleSpin(_) | Self::Env(_) | Self::Pin(_)
        )
    }
}

type NameFn = Box<dyn FnMut(usize) -> String + Send>;

/// Builds a [`ThreadPool`], in the manner of rayon's `ThreadPoolBuilder`.
#[derive(Default)]
pub struct ThreadPoolBuilder {
    threads: Option<usize>,
    pin: Option<PinPolicy>,
    thread_name: Option<NameFn>,
    stack_size: Option<usize>,
    topology: Option<Topology>,
    handoff_cost: Option<Duration>,
    idle_spin: Option<Duration>,
}

impl core::fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("threads", &self.threads)
            .field("pin", &self.pin)
            .field("thread_name", &self.thread_name.is_some())
            .field("stack_size", &self.stack_size)
            .field("topology", &self.topology.is_some())
            .field("handoff_cost", &self.handoff_cost)
            .field("idle_spin", &self.idle_spin)
            .finish()
    }
}

impl ThreadPoolBuilder {
    /// A builder with every setting at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of workers; 0 means the default (`NTT_THREADS`, else one per allowed core).
    pub fn num_threads(mut self, n: usize) -> Self {
        self.threads = Some(n);
        self
    }

    /// Pinning policy. Default: `NTT_PIN` (`none`, `cores` or `pus`) when set, else
    /// [`PinPolicy::Cores`] when the allowed cpuset has at least one core per worker, else
    /// [`PinPolicy::None`]. With an explicit policy and more workers than cores (or PUs),
    /// workers wrap around and share them.
    pub fn pin(mut self, policy: PinPolicy) -> Self {
        self.pin = Some(policy);
        self
    }

    /// Names worker threads; default `ntt-worker-{index}`.
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + Send + 'static) -> Self {
        self.thread_name = Some(Box::new(name));
        self
    }

    /// Stack size of worker threads in bytes; default the platform's (`RUST_MIN_STACK`).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// What handing a graph to the workers is taken to cost when deciding whether a graph of
    /// estimated size runs inline ([`ThreadPool::runs_inline`]); default [`HANDOFF_COST`].
    /// `Duration::ZERO` never runs graphs inline.
    pub fn handoff_cost(mut self, cost: Duration) -> Self {
        self.handoff_cost = Some(cost);
        self
    }

    /// How long an idle worker keeps looking for work (yielding its CPU between looks) before
    /// it parks; default zero: it parks after a few rounds (tens of microseconds).
    ///
    /// Waking a parked worker costs 25-50 µs on a virtual machine (its CPU has halted), and the
    /// caches it comes back to may have served someone else meanwhile. A caller that hands the
    /// pool many short jobs a few milliseconds apart, as a prover's NTT calls between its own
    /// hashing and sumcheck, saves both by keeping the workers looking across the gap; they
    /// yield on every look, so threads with real work on the same CPUs still run. Ignored
    /// when the pool has more workers than the machine has CPUs. `NTT_IDLE_SPIN_US`, when set,
    /// overrides it.
    pub fn idle_spin(mut self, spin: Duration) -> Self {
        self.idle_spin = Some(spin);
        self
    }

    /// Uses `topology` instead of detecting it (tests, or a topology read once and shared).
    pub fn topology(mut self, topology: Topology) -> Self {
        self.topology = Some(topology);
        self
    }

    /// The number of workers this builder would start on `topology`.
    fn worker_count(&self, topology: &Topology) -> Result<usize, BuildError> {
        let env = crate::env::var(THREADS_ENV)?;
        resolve_worker_count(self.threads, env.as_deref(), topology.cores)
    }

    /// Whether worker threads are named explicitly.
    pub(crate) fn names_threads(&self) -> bool {
        self.thread_name.is_some()
    }

    /// Starts the workers.
    ///
    /// # Errors
    /// [`BuildError::Threads`] for a worker count that is out of range (including a malformed
    /// `NTT_THREADS`), [`BuildError::IdleSpin`] for a malformed `NTT_IDLE_SPIN_US`,
    /// [`BuildError::Pin`] for a malformed `NTT_PIN`, [`BuildError::Env`] for any of them that
    /// is not UTF-8, [`BuildError::Spawn`] when a thread cannot be started. Failing to pin is
    /// not an error: the pool runs unpinned there and says so in [`ThreadPool::warnings`].
    pub fn build(mut self) -> Result<ThreadPool, BuildError> {
        let topology = self.topology.take().unwrap_or_else(Topology::detect);
        let n = self.worker_count(&topology)?;
        let env = crate::env::var(IDLE_SPIN_ENV)?;
        let idle_spin = resolve_idle_spin(self.idle_spin, env.as_deref())?;
        let requested_pin = match self.pin {
            Some(pin) => Some(pin),
            None => PinPolicy::from_env()?,
        };
        let WorkerLayout {
            pin,
            mut placements,
            budgets,
        } = WorkerLayout::new(&topology, n, requested_pin);

        let deques: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let registry = Arc::new(Registry::new(
            deques.iter().map(Worker::stealer).collect(),
            placements.iter().map(|p| p.steal_order.clone()).collect(),
            idle_spin,
        ));
        let (started_tx, started_rx) = mpsc::channel::<(usize, Result<(), String>, u64)>();
        let mut handles = Vec::with_capacity(n);
        for (index, deque) in deques.into_iter().enumerate() {
            let name = match &mut self.thread_name {
                Some(f) => f(index),
                None => format!("ntt-worker-{index}"),
            };
            let mut builder = std::thread::Builder::new().name(name);
            if let Some(bytes) = self.stack_size {
                builder = builder.stack_size(bytes);
            }
            let registry_for_worker = Arc::clone(&registry);
            let victims = placements[index].steal_order.clone();
            let bind = placements[index].bound_to.clone();
            let started = started_tx.clone();
            let spawned = builder.spawn(move || {
                let pinned = if bind.is_empty() {
                    Ok(())
                } else {
                    placement::bind_current_thread(&bind)
                };
                // The builder is waiting for this message; it cannot have gone away.
                let _ = started.send((index, pinned, os_thread_id()));
                WorkerThread::new(index, deque, registry_for_worker, victims).main_loop();
            });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(source) => {
                    registry.terminate();
                    for handle in handles {
                        let _ = handle.join();
                    }
                    return Err(BuildError::Spawn { index, source });
                }
            }
        }
        drop(started_tx);
        let mut warnings = Vec::new();
        let mut os_thread_ids = vec![0; n];
        for (index, pinned, os_thread_id) in started_rx.iter().take(n) {
            os_thread_ids[index] = os_thread_id;
            if let Err(e) = pinned {
                warnings.push(format!("worker {index} could not be pinned: {e}"));
                placements[index].bound_to.clear();
            }
        }
        if pin != PinPolicy::None && n > topology.cores {
            warnings.push(format!(
                "{n} workers on {} allowed cores: pinned workers share cores",
                topology.cores
            ));
        }
        registry
            .local
            .record(placements.iter().map(|p| p.bound_to.as_slice()));
        crate::pinned::record_pinned(
            &registry,
            placements.iter().flat_map(|p| p.bound_to.iter().copied()),
        );
        Ok(ThreadPool {
            handoff_cost: self.handoff_cost.unwrap_or(HANDOFF_COST),
            estimate_scale: EstimateScale::new(),
            registry,
            handles,
            budgets,
            placements,
            topology,
            pin,
            warnings,
            os_thread_ids,
        })
    }
}

/// The calling thread's OS id: Linux's `gettid`, 0 elsewhere (and under Miri).
fn os_thread_id() -> u64 {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: `gettid` takes no arguments, touches no memory and cannot fail.
        u64::try_from(unsafe { libc::gettid() }).unwrap_or(0)
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        0
    }
}

/// Workers to start: an explicit non-zero `requested`, else a non-blank `env`
/// (`NTT_THREADS`), else one per allowed core.
fn resolve_worker_count(
    requested: Option<usize>,
    env: Option<&str>,
    cores: usize,
) -> Result<usize, BuildError> {
    let n =
        match (requested, env.map(str::trim)) {
            (Some(n), _) if n > 0 => n,
            (_, Some(v)) if !v.is_empty() => v.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                BuildError::Threads(format!("{THREADS_ENV}={v:?} is not a positive integer"))
            })?,
            _ => cores.max(1),
        };
    if n > MAX_WORKERS {
        return Err(BuildError::Threads(format!(
            "{n} workers requested; at most {MAX_WORKERS} are supported"
        )));
    }
    Ok(n)
}

impl PinPolicy {
    /// The policy `NTT_PIN` names, or `None` when it is unset or blank (the builder's default
    /// then applies).
    ///
    /// # Errors
    /// [`BuildError::Pin`] when `NTT_PIN` is set to anything but `none`, `cores` or `pus`,
    /// [`BuildError::Env`] when it is not UTF-8.
    pub fn from_env() -> Result<Option<Self>, BuildError> {
        let env = crate::env::var(PIN_ENV)?;
        resolve_pin_env(env.as_deref())
    }
}

/// The policy a non-blank `env` (`NTT_PIN`) names; `None` when blank or unset.
fn resolve_pin_env(env: Option<&str>) -> Result<Option<PinPolicy>, BuildError> {
    match env.map(str::trim) {
        Some(v) if !v.is_empty() => PinPolicy::from_name(v)
            .map(Some)
            .ok_or_else(|| BuildError::Pin(format!("{PIN_ENV}={v:?} is not one of none, cores, pus"))),
        _ => Ok(None),
    }
}

/// The idle spin: a non-blank `env` (`NTT_IDLE_SPIN_US`, microseconds), else `requested`,
/// else zero.
fn resolve_idle_spin(requested: Option<Duration>, env: Option<&str>) -> Result<Duration, BuildError> {
    match env.map(str::trim) {
        Some(v) if !v.is_empty() => v.parse::<u64>().map(Duration::from_micros).map_err(|_| {
            BuildError::IdleSpin(format!(
                "{IDLE_SPIN_ENV}={v:?} is not a whole number of microseconds"
            ))
        }),
        _ => Ok(requested.unwrap_or(Duration::ZERO)),
    }
}

/// A pool of workers that runs task graphs. `Send + Sync`: share it behind an `Arc`.
///
/// Dropping the pool stops and joins its workers (unless it is dropped from one of its own
/// workers, which then exit on their own).
pub struct ThreadPool {
    pub(crate) registry: Arc<Registry>,
    handles: Vec<JoinHandle<()>>,
    budgets: Vec<WorkerBudget>,
    placements: Vec<WorkerPlacement>,
    topology: Topology,
    pin: PinPolicy,
    warnings: Vec<String>,
    /// Each worker's OS thread id, by worker (0 where the OS gives none).
    os_thread_ids: Vec<u64>,
    handoff_cost: Duration,
    /// How the inline runs' real times compare with their estimates (`estimate.rs`).
    estimate_scale: EstimateScale,
}

impl core::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("workers", &self.budgets.len())
            .field("pin", &self.pin)
            .field("placements", &self.placements)
            .finish_non_exhaustive()
    }
}

impl ThreadPool {
    /// How long an idle worker looks for work before it parks: [`ThreadPoolBuilder::idle_spin`]
    /// (or `NTT_IDLE_SPIN_US`), zero when the pool has more workers than the machine has CPUs.
    pub fn idle_spin(&self) -> Duration {
        self.registry.idle_spin
    }

    /// Number of worker threads.
    pub fn num_workers(&self) -> usize {
        self.budgets.len()
    }

    /// How many threads the runs started from the calling thread spread over: 1 inside an
    /// inline run on this pool (a guest, see [`ThreadPool::with_work_estimate`]), where every
    /// run stays on the caller, else [`ThreadPool::num_workers`]. A caller that splits work
    /// into pieces per worker asks this rather than `num_workers`, so an inline run is not cut
    /// into pieces nobody else will take.
    pub fn workers_here(&self) -> usize {
        let inline = WorkerThread::with_current(&self.registry, |w| w.is_some_and(WorkerThread::is_guest));
        if inline { 1 } else { self.num_workers() }
    }

    /// Each worker's cache budgets, indexed by worker.
    pub fn budgets(&self) -> &[WorkerBudget] {
        &self.budgets
    }

    /// The topology the pool was placed on.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Where each worker was placed, indexed by worker.
    pub fn placements(&self) -> &[WorkerPlacement] {
        &self.placements
    }

    /// The pinning policy in effect (after the default was resolved).
    pub fn pin_policy(&self) -> PinPolicy {
        self.pin
    }

    /// Each worker's OS thread id (Linux's `gettid`), indexed by worker; 0 where the OS gives
    /// none. For per-thread OS statistics, such as the page faults each worker took
    /// (`/proc/self/task/<id>/stat`).
    pub fn worker_os_thread_ids(&self) -> &[u64] {
        &self.os_thread_ids
    }

    /// What went wrong while starting (pinning failures, oversubscription), in plain words.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Builds a graph with `build` and runs it to completion; re-raises the first task panic.
    ///
    /// Tasks may borrow anything that outlives the call. May be called from inside a task
    /// (nested run): the calling worker executes other tasks while it waits. Called from a
    /// worker of another pool, that worker keeps running its own pool's tasks while it waits.
    ///
    /// # Panics
    /// Re-raises the first panic of a task (after every other task has finished or been
    /// skipped), and panics with the [`CycleError`](crate::CycleError) message if the graph has a dependency
    /// cycle (before running any task).
    pub fn run<'s>(&self, build: impl FnOnce(&mut Graph<'s>)) {
        if let Err(e) = self.try_run(build) {
            e.resume();
        }
    }

    /// Like [`ThreadPool::run`], returning the failure instead of panicking.
    ///
    /// # Errors
    /// [`RunError::Panicked`] with the payload of the first task that panicked;
    /// [`RunError::Cycle`] when the dependencies form a cycle (no task runs then).
    pub fn try_run<'s>(&self, build: impl FnOnce(&mut Graph<'s>)) -> Result<(), RunError> {
        let mut graph = Graph::new();
        build(&mut graph);
        if graph.is_empty() {
            return Ok(());
        }
        graph.prepare()?;
        let result = WorkerThread::with_any(|current| {
            let own = current.filter(|w| Arc::ptr_eq(&w.registry, &self.registry));
            let foreign = current.filter(|w| own.is_none() && !w.is_guest());
            let latch = match (own, foreign) {
                (Some(w), _) => w.new_latch(),
                (None, Some(w)) => Latch::foreign(w.index, Arc::<Registry>::clone(&w.registry)),
                (None, None) => Latch::blocking(),
            };
            let state = RunState::new(self, &graph, latch);
            let this: *const RunState = &state;
            if let Some(w) = own {
                // SAFETY: the roots are owned by nobody else yet and the run is live until
                // `wait_until` sees the latch.
                unsafe { RunState::execute_roots(this, w) };
                w.wait_until(|| state.latch.probe());
            } else {
                self.registry.inject(RunState::roots_job(this));
                match foreign {
                    // A worker of another pool keeps that pool going while it waits.
                    Some(w) => w.wait_until(|| state.latch.probe()),
                    None => state.latch.wait_blocking(),
                }
            }
            state.take_panic()
        });
        graph.mark_consumed();
        result.map_or(Ok(()), |payload| Err(TaskPanic { payload }.into()))
    }

    /// Whether graphs with `work` of sequential work in all run inline on a calling thread
    /// outside the pool (see [`ThreadPool::with_work_estimate`]).
    ///
    /// Handing a graph to the workers costs about [`HANDOFF_COST`] (waking a worker, then
    /// waking the caller; see [`ThreadPoolBuilder::handoff_cost`]), and `p` workers save at
    /// most `work * (p - 1) / p`; a graph runs inline when that saving is smaller than the
    /// hand-off. With one worker that is always (unless the hand-off cost is set to zero).
    /// `work` is first scaled by [`ThreadPool::estimate_scale`], what this pool's inline runs
    /// have shown its callers' estimates to be off by.
    pub fn runs_inline(&self, work: Duration) -> bool {
        let work = self.estimate_scale.apply(work);
        let p = self.num_workers() as u128;
        work.as_nanos().saturating_mul(p - 1) < self.handoff_cost.as_nanos() * p
    }

    /// The factor this pool applies to work estimates: the running mean of how long the
    /// inline runs of [`ThreadPool::with_work_estimate`] really took over what they were
    /// estimated at (1.0 until one has run). A caller's cost model tuned on another machine
    /// is off by a constant factor here; this is it.
    pub fn estimate_scale(&self) -> f64 {
        self.estimate_scale.factor()
    }

    /// Runs `f` on the calling thread; when `work` (the caller's estimate of the sequential
    /// time of everything `f` runs on this pool) is too small to pay for a hand-off
    /// ([`ThreadPool::runs_inline`]), every graph, `join` and loop that `f` runs on this pool
    /// runs inline on the calling thread, with its own scratch buffers and worker 0's index
    /// and budget, instead of being handed to the workers while the caller blocks. Otherwise,
    /// or when the calling thread is a worker already, `f` simply runs.
    pub fn with_work_estimate<R>(&self, work: Duration, f: impl FnOnce() -> R) -> R {
        let on_a_worker = WorkerThread::with_any(|w| w.is_some());
        if on_a_worker || !self.runs_inline(work) {
            return f();
        }
        let parts = GUEST_PARTS.take().unwrap_or_default();
        let guest = WorkerThread::guest(Arc::clone(&self.registry), parts);
        let started = EstimateScale::samples(work).then(Instant::now);
        let out = guest.enter(f);
        if let Some(started) = started {
            self.estimate_scale.observe(work, started.elapsed());
        }
        GUEST_PARTS.set(Some(guest.into_guest_parts()));
        out
    }

    /// Runs `f` on a worker of this pool and returns what it returns: every graph, `join` and
    /// loop `f` starts then runs nested on that worker (which executes its first tasks and
    /// helps with the rest), so a caller with several runs in a row hands work to the pool
    /// once, not once per run. Each hand-off costs a worker's wake-up and then the caller's
    /// (about [`HANDOFF_COST`] in all); a commit of two passes paid it twice. On a worker of
    /// this pool, or inline on a guest ([`ThreadPool::with_work_estimate`]), `f` simply runs.
    ///
    /// # Panics
    /// Re-raises a panic of `f`.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let here = WorkerThread::with_any(|w| {
            w.is_some_and(|w| w.is_guest() || Arc::ptr_eq(&w.registry, &self.registry))
        });
        if here {
            return f();
        }
        let mut out = None;
        self.run(|g| {
            g.add(|_| out = Some(f()));
        });
        out.expect("the installed task ran")
    }

    /// [`ThreadPool::try_run`] with an estimate of the graph's sequential time: a small graph
    /// runs inline on a calling thread outside the pool (see
    /// [`ThreadPool::with_work_estimate`]).
    ///
    /// # Errors
    /// As for [`ThreadPool::try_run`].
    pub fn try_run_sized<'s>(
        &self,
        work: Duration,
        build: impl FnOnce(&mut Graph<'s>),
    ) -> Result<(), RunError> {
        self.with_work_estimate(work, || self.try_run(build))
    }

    /// Runs `a` and `b`, potentially in parallel, and returns both results (see
    /// [`TaskContext::join`]). From outside the pool this runs a one-task graph that joins.
    ///
    /// # Panics
    /// Re-raises the panic of `a` or `b` after both have finished.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&TaskContext<'_>) -> RA + Send,
        B: FnOnce(&TaskContext<'_>) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let on_worker = WorkerThread::with_current(&self.registry, |w| w.map(|w| w as *const WorkerThread));
        if let Some(worker) = on_worker {
            // SAFETY: `with_current` returned this thread's own worker, alive on its stack for
            // as long as the thread runs (and we are on that thread).
            let worker = unsafe { &*worker };
            return TaskContext::new(self, worker).join(a, b);
        }
        let mut out = None;
        self.run(|g| {
            g.add(|ctx| out = Some(ctx.join(a, b)));
        });
        out.expect("the join task ran")
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.registry.terminate();
        let on_own_worker = WorkerThread::with_current(&self.registry, |w| w.is_some_and(|w| !w.is_guest()));
        if !on_own_worker {
            for handle in self.handles.drain(..) {
                // Workers abort rather than unwind, so a join error cannot carry a user panic.
                let _ = handle.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool of `workers` unpinned workers.
    fn unpinned(workers: usize) -> ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(workers)
            .pin(PinPolicy::None)
            .build()
            .expect("pool")
    }

    #[test]
    fn worker_count_prefers_explicit_then_env_then_cores() {
        assert_eq!(resolve_worker_count(Some(3), Some("5"), 2).ok(), Some(3));
        assert_eq!(resolve_worker_count(Some(0), Some("5"), 2).ok(), Some(5));
        assert_eq!(resolve_worker_count(None, Some(" 7 "), 2).ok(), Some(7));
        assert_eq!(resolve_worker_count(None, Some(""), 2).ok(), Some(2));
        assert_eq!(resolve_worker_count(None, None, 6).ok(), Some(6));
        assert_eq!(resolve_worker_count(None, None, 0).ok(), Some(1));
    }

    #[test]
    fn bad_worker_counts_are_errors() {
        for bad in ["0", "-1", "two", "1.5"] {
            let err = resolve_worker_count(None, Some(bad), 2).expect_err(bad);
            assert!(err.to_string().contains(THREADS_ENV), "{err}");
        }
        assert!(resolve_worker_count(Some(MAX_WORKERS + 1), None, 2).is_err());
        assert!(resolve_worker_count(None, Some("1000000"), 2).is_err());
    }

    #[test]
    fn pin_env_names_a_policy_or_is_an_error() {
        assert_eq!(resolve_pin_env(None).ok(), Some(None));
        assert_eq!(resolve_pin_env(Some(" ")).ok(), Some(None));
        assert_eq!(resolve_pin_env(Some("none")).ok(), Some(Some(PinPolicy::None)));
        assert_eq!(
            resolve_pin_env(Some(" cores\n")).ok(),
            Some(Some(PinPolicy::Cores))
        );
        assert_eq!(resolve_pin_env(Some("pus")).ok(), Some(Some(PinPolicy::Pus)));
        for bad in ["Cores", "core", "0", "off", "cores,pus"] {
            let err = resolve_pin_env(Some(bad)).expect_err(bad);
            assert!(matches!(err, BuildError::Pin(_)), "{bad}: {err}");
            assert!(
                err.to_string().contains("NTT_PIN") && err.to_string().contains(bad),
                "{err}"
            );
        }
        for policy in PinPolicy::ALL {
            assert_eq!(PinPolicy::from_name(policy.name()), Some(policy));
            assert_eq!(policy.to_string(), policy.name());
        }
    }

    #[test]
    fn idle_spin_prefers_env_then_explicit_then_zero() {
        let ms = Duration::from_millis;
        assert_eq!(
            resolve_idle_spin(Some(ms(5)), Some(" 250 ")).ok(),
            Some(Duration::from_micros(250))
        );
        assert_eq!(resolve_idle_spin(Some(ms(5)), Some("")).ok(), Some(ms(5)));
        assert_eq!(resolve_idle_spin(Some(ms(5)), None).ok(), Some(ms(5)));
        assert_eq!(resolve_idle_spin(None, None).ok(), Some(Duration::ZERO));
        for bad in ["-1", "1ms", "0.5"] {
            let err = resolve_idle_spin(None, Some(bad)).expect_err(bad);
            assert!(err.to_string().contains(IDLE_SPIN_ENV), "{err}");
        }
    }

    /// Waits (at most 10 s) until `n` workers of `pool` have parked.
    fn until_parked(pool: &ThreadPool, n: usize) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while pool.registry.sleep.sleepers() < n {
            assert!(
                std::time::Instant::now() < deadline,
                "the idle workers never parked"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// With an idle spin, a worker that ran a job keeps looking for the next one instead of
    /// parking, so jobs that come within the spin wake nobody; once the spin has passed with
    /// nothing to do, it parks.
    #[test]
    #[cfg_attr(miri, ignore = "waits for worker threads to spin and park")]
    fn idle_workers_look_for_work_for_the_idle_spin_then_park() {
        if std::env::var_os(IDLE_SPIN_ENV).is_some() {
            return; // the environment overrides the spins this test sets
        }
        let one_worker_spinning = |spin| {
            ThreadPoolBuilder::new()
                .num_threads(1)
                .pin(PinPolicy::None)
                .idle_spin(spin)
                .build()
                .expect("pool")
        };
        let spinning = one_worker_spinning(Duration::from_secs(60));
        assert_eq!(spinning.idle_spin(), Duration::from_secs(60));
        let sleep = &spinning.registry.sleep;
        let before = sleep.wakes();
        for _ in 0..20 {
            let mut ran = false;
            spinning.run(|g| {
                g.add(|_| ran = true);
            });
            assert!(ran);
            std::thread::sleep(Duration::from_millis(5));
            assert_eq!(sleep.sleepers(), 0, "a worker parked within its idle spin");
        }
        assert_eq!(sleep.wakes(), before, "a job within the idle spin woke a worker");

        let brief = one_worker_spinning(Duration::from_millis(20));
        brief.run(|g| {
            g.add(|_| {});
        });
        until_parked(&brief, 1);
        assert_eq!(unpinned(1).idle_spin(), Duration::ZERO, "the default spin");
    }

    /// A small job run inline on its caller (a guest of the pool) finishes its graphs, joins
    /// and loops itself: it must not wake a parked worker at each one (the guest reports worker
    /// 0's index, and a worker's latch wakes its owner).
    #[test]
    #[cfg_attr(miri, ignore = "waits for a worker thread to park")]
    fn an_inline_run_wakes_no_parked_worker() {
        let pool = unpinned(1);
        let sleep = &pool.registry.sleep;
        until_parked(&pool, 1);
        let before = sleep.wakes();
        pool.with_work_estimate(Duration::ZERO, || {
            for _ in 0..50 {
                pool.run(|g| {
                    let a = g.add(|_| {});
                    let b = g.add(|_| {});
                    g.depend(a, b);
                });
                assert_eq!(pool.join(|_| 1, |_| 2), (1, 2));
                pool.for_each(0..64, 1, |_, _| {});
            }
        });
        assert_eq!(sleep.wakes(), before, "an inline run woke the parked worker");
    }
    /// An inline run reports one worker here; outside it, and on a worker, the pool's count.
    #[test]
    fn workers_here_is_one_inside_an_inline_run() {
        let pool = unpinned(3);
        assert_eq!(pool.workers_here(), 3);
        assert_eq!(pool.with_work_estimate(Duration::ZERO, || pool.workers_here()), 1);
        assert_eq!(pool.install(|| pool.workers_here()), 3);
        let other = unpinned(2);
        let inside_other = pool.with_work_estimate(Duration::ZERO, || other.workers_here());
        assert_eq!(inside_other, 2, "a guest of one pool is not inline on another");
    }

    /// Inside an inline run (a guest), or on a worker, `install` runs its job where it is.
    #[test]
    fn install_runs_in_place_on_a_guest_or_a_worker() {
        let pool = unpinned(2);
        let caller = std::thread::current().id();
        let on = pool.with_work_estimate(Duration::ZERO, || pool.install(|| std::thread::current().id()));
        assert_eq!(on, caller, "a guest's install left its thread");
        let (outer, inner) = pool.install(|| {
            (
                std::thread::current().id(),
                pool.install(|| std::thread::current().id()),
            )
        });
        assert_eq!(outer, inner, "an install on a worker moved to another thread");
        assert_ne!(outer, caller);
    }

    /// A job handed over from a thread outside the pool wakes the worker pinned to that
    /// thread's CPU (which the caller is about to leave free), not a worker elsewhere.
    #[test]
    #[cfg_attr(miri, ignore = "pins threads and waits for workers to park")]
    fn an_injected_job_wakes_the_worker_on_the_callers_cpu() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::Pus)
            .build()
            .expect("pool");
        let bound: Vec<Vec<usize>> = pool.placements().iter().map(|p| p.bound_to.clone()).collect();
        if bound.iter().any(Vec::is_empty) || bound[0] == bound[1] {
            // Fewer than two CPUs to pin to, or the OS refused: nothing is local to check.
            return;
        }
        for round in 0..6 {
            let target = round % 2;
            until_parked(&pool, 2);
            let ran_on = std::thread::scope(|s| {
                s.spawn(|| {
                    placement::bind_current_thread(&bound[target]).expect("bind the caller");
                    let mut ran_on = None;
                    pool.run(|g| {
                        g.add(|cx| ran_on = Some(cx.worker_index()));
                    });
                    ran_on
                })
                .join()
                .expect("caller thread")
            });
            assert_eq!(ran_on, Some(target), "round {round}: woke the other worker");
        }
    }
}
