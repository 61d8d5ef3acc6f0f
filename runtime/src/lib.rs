//! A small work-stealing task-graph runtime that knows the machine's caches.
//!
//! PLACEHOLDER IMPLEMENTATION: tasks run sequentially on the caller in dependency order. The
//! public API below is the contract the encoder is written against; the real scheduler keeps it.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::ops::Range;

/// Per-worker cache budgets derived from the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerBudget {
    /// This worker's share of its L2 cache, in bytes.
    pub l2_bytes: usize,
    /// This worker's share of its L3 cache, in bytes.
    pub l3_bytes: usize,
}

/// The machine's cache topology as far as the runtime needs it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Topology {
    pub cores: usize,
    pub warnings: Vec<String>,
}

impl Topology {
    /// Reads the machine's topology; never fails (falls back to defaults and says so).
    pub fn detect() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self {
            cores,
            warnings: vec!["placeholder topology".into()],
        }
    }
}

/// How workers are pinned to CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PinPolicy {
    Cores,
    Pus,
    None,
}

/// Why a pool could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("invalid worker count: {0}")]
    Threads(String),
}

/// The first panic of a graph, carried back to the caller of `try_run`.
#[derive(Debug)]
pub struct TaskPanic {
    pub payload: Box<dyn std::any::Any + Send + 'static>,
}

impl core::fmt::Display for TaskPanic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let msg = self
            .payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| self.payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_owned());
        write!(f, "a task panicked: {msg}")
    }
}
impl std::error::Error for TaskPanic {}

/// Builds a [`ThreadPool`], in the manner of rayon's `ThreadPoolBuilder`.
#[derive(Debug, Default)]
pub struct ThreadPoolBuilder {
    threads: Option<usize>,
}

impl ThreadPoolBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    /// Number of workers; 0 means the default (`NTT_THREADS`, else one per allowed core).
    pub fn num_threads(mut self, n: usize) -> Self {
        self.threads = Some(n);
        self
    }
    pub fn pin(self, _policy: PinPolicy) -> Self {
        self
    }
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let topology = Topology::detect();
        let n = match self.threads {
            Some(n) if n > 0 => n,
            _ => topology.cores,
        };
        let budget = WorkerBudget {
            l2_bytes: 1 << 20,
            l3_bytes: 4 << 20,
        };
        Ok(ThreadPool {
            budgets: vec![budget; n],
            topology,
        })
    }
}

/// A pool of workers that runs task graphs.
#[derive(Debug)]
pub struct ThreadPool {
    budgets: Vec<WorkerBudget>,
    topology: Topology,
}

/// Identifies a task inside one [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskId(usize);

type TaskFn<'s> = Box<dyn FnOnce(&TaskContext<'_>) + Send + 's>;

/// A graph of tasks that may borrow data living for `'s`.
pub struct Graph<'s> {
    tasks: Vec<Option<TaskFn<'s>>>,
    preds: Vec<usize>,
    succs: Vec<Vec<usize>>,
}

impl core::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Graph").field("tasks", &self.tasks.len()).finish()
    }
}

impl<'s> Graph<'s> {
    /// Adds a task; it runs once all tasks it depends on have finished.
    pub fn add(&mut self, task: impl FnOnce(&TaskContext<'_>) + Send + 's) -> TaskId {
        self.tasks.push(Some(Box::new(task)));
        self.preds.push(0);
        self.succs.push(Vec::new());
        TaskId(self.tasks.len() - 1)
    }
    /// `after` runs only once `before` has finished.
    pub fn depend(&mut self, before: TaskId, after: TaskId) {
        self.succs[before.0].push(after.0);
        self.preds[after.0] += 1;
    }
}

/// What a running task can see of the worker that runs it.
#[derive(Debug)]
pub struct TaskContext<'p> {
    pool: &'p ThreadPool,
    worker: usize,
}

thread_local! {
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

impl<'p> TaskContext<'p> {
    pub fn worker_index(&self) -> usize {
        self.worker
    }
    pub fn budget(&self) -> WorkerBudget {
        self.pool.budgets[self.worker]
    }
    pub fn pool(&self) -> &'p ThreadPool {
        self.pool
    }
    /// Lends the worker's 64-byte-aligned, grow-only scratch buffer of at least `words` words.
    /// Contents on entry are unspecified.
    pub fn with_scratch<R>(&self, words: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut buf) => {
                if buf.len() < words {
                    buf.resize(words, 0);
                }
                f(&mut buf[..words])
            }
            Err(_) => f(&mut vec![0; words]),
        })
    }
}

impl ThreadPool {
    pub fn num_workers(&self) -> usize {
        self.budgets.len()
    }
    pub fn budgets(&self) -> &[WorkerBudget] {
        &self.budgets
    }
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Builds a graph with `build` and runs it to completion; re-raises the first task panic.
    pub fn run<'s>(&self, build: impl FnOnce(&mut Graph<'s>)) {
        if let Err(p) = self.try_run(build) {
            std::panic::resume_unwind(p.payload);
        }
    }

    /// Like [`ThreadPool::run`], returning the first task panic as an error.
    pub fn try_run<'s>(&self, build: impl FnOnce(&mut Graph<'s>)) -> Result<(), TaskPanic> {
        let mut g = Graph {
            tasks: Vec::new(),
            preds: Vec::new(),
            succs: Vec::new(),
        };
        build(&mut g);
        let mut ready: Vec<usize> = (0..g.tasks.len()).filter(|&i| g.preds[i] == 0).collect();
        let ctx = TaskContext {
            pool: self,
            worker: 0,
        };
        let mut first_panic = None;
        while let Some(i) = ready.pop() {
            let task = g.tasks[i].take().expect("each task runs once");
            if first_panic.is_none()
                && let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| task(&ctx)))
            {
                first_panic = Some(TaskPanic { payload });
            }
            for s in std::mem::take(&mut g.succs[i]) {
                g.preds[s] -= 1;
                if g.preds[s] == 0 {
                    ready.push(s);
                }
            }
        }
        first_panic.map_or(Ok(()), Err)
    }

    /// Calls `f` on sub-ranges of `range` of about `grain` indices each, in parallel.
    pub fn for_each(
        &self,
        range: Range<usize>,
        grain: usize,
        f: impl Fn(Range<usize>, &TaskContext<'_>) + Sync,
    ) {
        let grain = grain.max(1);
        let f = &f;
        self.run(|g| {
            let mut start = range.start;
            while start < range.end {
                let end = (start + grain).min(range.end);
                g.add(move |ctx| f(start..end, ctx));
                start = end;
            }
        });
    }

    /// Calls `f(i, chunk)` for each `chunk_len`-sized chunk of `data`, in parallel.
    pub fn chunks_mut<T: Send>(
        &self,
        data: &mut [T],
        chunk_len: usize,
        f: impl Fn(usize, &mut [T], &TaskContext<'_>) + Sync,
    ) {
        let f = &f;
        self.run(|g| {
            for (i, chunk) in data.chunks_mut(chunk_len.max(1)).enumerate() {
                g.add(move |ctx| f(i, chunk, ctx));
            }
        });
    }
}
