//! A work-stealing task-graph runtime that knows the machine's caches.
//!
//! Use it to run a pass of cache-sized tasks with dependencies between them: build a
//! [`Graph`] inside [`ThreadPool::run`], add tasks that borrow the caller's data, declare which
//! must finish before which, and the pool runs them to completion on its workers.
//!
//! - [`ThreadPoolBuilder`] starts workers placed by the [`Topology`] (hwloc, else sysfs, else
//!   documented defaults), optionally pinned ([`PinPolicy`]), each with a [`WorkerBudget`]: its
//!   share of the L2 and L3 it sits under.
//! - Each worker has a LIFO deque; idle workers steal from the workers nearest in the cache
//!   hierarchy first, then from a global injector, spin briefly, then park (see
//!   `src/sleep/README.md` for the protocol).
//! - A panicking task poisons its graph: unstarted tasks are skipped, and the first panic is
//!   re-raised by [`ThreadPool::run`] or returned by [`ThreadPool::try_run`].
//! - A task added with [`Graph::add_growing`] may add tasks to its own running graph through a
//!   [`Grower`] (recursive fan-out, successors of tasks that may already have finished); the
//!   run waits for every grown task.
//! - [`ThreadPool::for_each`] splits a range only when a worker steals from it (the
//!   owner works from the front, a thief takes half of what is left), instead of into fixed
//!   pieces: a busy or preempted worker keeps little that others could have done.
//! - [`TaskContext::with_scratch`] lends a worker-local, 64-byte-aligned scratch buffer.
//! - Fresh memory is faulted in by the workers together ([`touch::populate`]), on the pages
//!   the huge-page policy asks for ([`pages::HugePages`]); [`mod@env`] reads the `NTT_*` variables.
//!
//! ```
//! use ntt_runtime::ThreadPoolBuilder;
//! use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
//!
//! let pool = ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
//! let parts = [AtomicU64::new(0), AtomicU64::new(0)];
//! let mut total = 0;
//! pool.run(|g| {
//!     let a = g.add(|_| parts[0].store((0..50).sum(), Relaxed));
//!     let b = g.add(|_| parts[1].store((50..100).sum(), Relaxed));
//!     // Dependencies order the tasks, so relaxed loads see the stores.
//!     let sum = g.add(|_| total = parts[0].load(Relaxed) + parts[1].load(Relaxed));
//!     g.depend(a, sum);
//!     g.depend(b, sum);
//! });
//! assert_eq!(total, 4950);
//! ```

#![deny(missing_docs)]

mod abort;
mod adaptive;
mod arena;
mod context;
pub mod cpu_time;
pub mod env;
mod estimate;
mod global;
mod graph;
mod grow;
mod interval;
mod job;
mod join;
mod latch;
mod local_cpu;
pub mod pages;
mod panic;
mod parallel;
mod pinned;
mod placement;
mod pool;
mod registry;
mod regular_file;
mod roots;
mod run_state;
mod scratch;
mod sleep;
pub mod stats;
mod task;
mod topology;
pub mod touch;
pub mod units;

pub use context::TaskContext;
pub use global::{build_global, global_pool};
pub use graph::{CycleError, Graph, TaskId};
pub use grow::Grower;
pub use panic::{RunError, TaskPanic};
pub use pinned::pinned_cpus;
pub use placement::{PinPolicy, WorkerPlacement};
pub use pool::{
    BuildError, HANDOFF_COST, IDLE_SPIN_ENV, MAX_WORKERS, PIN_ENV, THREADS_ENV, ThreadPool, ThreadPoolBuilder,
};
pub use regular_file::read_regular_file;
pub use scratch::SCRATCH_ALIGN;
pub use topology::{
    Cache, CpuKind, DEFAULT_L1D_BYTES, DEFAULT_L2_BYTES, DEFAULT_L3_BYTES_PER_CORE, FirstTouch,
    HWLOC_ENABLED, MAX_PUS, MAX_XML_BYTES, NumaNode, ProcessingUnit, Provenance, TOPOLOGY_ENV, Topology,
    TopologyError, TopologySpec, WorkerBudget, WorkerLayout, first_touch,
};
