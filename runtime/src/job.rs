//! The unit the deques carry: a reference to work inside one graph run.

use crate::graph::RunState;
use crate::registry::WorkerThread;

/// `end` value marking a single task rather than a range of root tasks.
const SINGLE_TASK: u32 = u32::MAX;

/// A reference to one task, or to a range of a run's root tasks, of a graph run that is in
/// progress. Plain data (24 bytes), so pushing and stealing never allocate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    run: *const RunState,
    start: u32,
    end: u32,
}

// SAFETY: a `JobRef` only travels between the workers of the pool that runs its graph, and the
// `RunState` it points to is `Sync` and outlives every job of the run (the owner waits on the
// run's latch, which is set only after the last job has finished with the state).
unsafe impl Send for JobRef {}

impl JobRef {
    /// A job that runs task `index` of `run`.
    pub(crate) fn task(run: *const RunState, index: u32) -> Self {
        debug_assert!(index != SINGLE_TASK);
        Self {
            run,
            start: index,
            end: SINGLE_TASK,
        }
    }

    /// A job that runs the root tasks `roots[start..end]` of `run`, splitting itself in halves
    /// so thieves can take large pieces.
    pub(crate) fn roots(run: *const RunState, start: u32, end: u32) -> Self {
        debug_assert!(start < end && end != SINGLE_TASK);
        Self { run, start, end }
    }

    /// Runs the job on `worker`.
    ///
    /// # Safety
    /// The run the job points to must still be in progress (its latch not yet set), which holds
    /// for every job taken from a deque of the pool that runs the graph.
    pub(crate) unsafe fn execute(self, worker: &WorkerThread) {
        // SAFETY: the run is in progress, so its state is alive (type-level invariant above).
        let run = unsafe { &*self.run };
        if self.end == SINGLE_TASK {
            // SAFETY: this job owns task `start`: it was pushed once, when the task became ready.
            unsafe { run.execute_ready(self.start, worker) };
        } else {
            // SAFETY: this job owns the root range `start..end`.
            unsafe { run.execute_roots(self.run, self.start, self.end, worker) };
        }
    }
}
