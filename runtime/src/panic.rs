//! Why a run failed: the value a panicking task leaves behind, or a dependency cycle.

use std::any::Any;

use crate::graph::CycleError;

/// Why [`ThreadPool::try_run`](crate::ThreadPool::try_run) did not complete a graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A task panicked; tasks not yet started were skipped.
    #[error(transparent)]
    Panicked(#[from] TaskPanic),
    /// The graph's dependencies form a cycle; no task ran.
    #[error(transparent)]
    Cycle(#[from] CycleError),
}

impl RunError {
    /// The panic message of a task that panicked with a string (what `panic!` produces).
    pub fn message(&self) -> Option<&str> {
        match self {
            RunError::Panicked(p) => p.message(),
            RunError::Cycle(_) => None,
        }
    }

    /// Continues the failure on the calling thread: re-raises a task's panic with its
    /// original payload, or panics with the cycle's description.
    pub fn resume(self) -> ! {
        match self {
            RunError::Panicked(p) => std::panic::resume_unwind(p.payload),
            RunError::Cycle(c) => panic!("{c}"),
        }
    }
}

/// The first panic of a graph, carried back to the caller of
/// [`ThreadPool::try_run`](crate::ThreadPool::try_run).
#[derive(Debug)]
pub struct TaskPanic {
    /// The payload the task panicked with, as `std::panic::catch_unwind` returns it.
    pub payload: Box<dyn Any + Send + 'static>,
}

impl TaskPanic {
    /// The panic message when the payload is a string (what `panic!` produces).
    pub fn message(&self) -> Option<&str> {
        self.payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| self.payload.downcast_ref::<String>().map(String::as_str))
    }
}

impl core::fmt::Display for TaskPanic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.message() {
            Some(msg) => write!(f, "a task panicked: {msg}"),
            None => write!(f, "a task panicked: non-string panic payload"),
        }
    }
}

impl std::error::Error for TaskPanic {}
